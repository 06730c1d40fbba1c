"""Non-local factor groups: candidates against a plain enumeration, scores and fired features agreeing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from decoders.bnb.factors import (
    GROUP_ID,
    GROUPS,
    LEXICON,
    PATTERN_ID,
    PATTERNS,
    candidates,
    fired_features,
    lexicon_ids,
    pattern_counts,
    sentence_factors,
)
from decoders.parsing.features import Vocabulary
from decoders.parsing.trees import all_trees, as_heads

LOCAL_GROUPS = tuple(g for g in GROUPS if g != "hand_crafted")
NO_LEXICON = np.full(len(LEXICON), -1, dtype=np.int64)


def _plain(group, n, allowed):
    """The documented candidates of a group, enumerated directly as sets of arcs in order."""
    arcs = lambda *pairs: all(allowed[h, m] for h, m in pairs)  # noqa: E731
    covers = lambda arc, words: any(min(arc) < w < max(arc) for w in words)  # noqa: E731
    out = set()
    words = range(1, n + 1)
    if group == "grandchild":
        for g, h, m in itertools.product(range(n + 1), words, words):
            if len({g, h, m}) == 3 and arcs((g, h), (h, m)) and not covers((h, m), [g]):
                out.add(((g, h), (h, m)))
    elif group == "great_grandchild":
        for gg, g, h, m in itertools.product(range(n + 1), words, words, words):
            projective = not covers((g, h), [gg]) and not covers((h, m), [gg, g])
            if len({gg, g, h, m}) == 4 and arcs((gg, g), (g, h), (h, m)) and projective:
                out.add(((gg, g), (g, h), (h, m)))
    elif group in ("sibling", "tri_sibling"):
        r = 2 if group == "sibling" else 3
        for h in range(n + 1):
            for mods in itertools.combinations([m for m in words if m != h], r):
                if arcs(*[(h, m) for m in mods]):
                    out.add(tuple((h, m) for m in mods))
    else:
        for h in range(n + 1):
            for i in range(1, n - 2):
                run = range(i, i + 4)
                if h not in run and arcs(*[(h, m) for m in run]):
                    out.add(tuple((h, m) for m in run))
    return out


SENTENCE = (
    ["regulation", "occurs", "through", "inaction", ",", "rather", "than", "through", "rules"],
    ["NN", "VBZ", "IN", "NN", ",", "RB", "IN", "IN", "NNS"],
    ["N", "V", "I", "N", ",", "R", "I", "I", "N"],
)


@pytest.mark.parametrize("group", LOCAL_GROUPS)
def test_candidates_are_the_documented_factors(group):
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    n = len(SENTENCE[0])
    rng = np.random.default_rng(GROUP_ID[group])
    for density in (1.0, 0.6):
        allowed = rng.random((n + 1, n + 1)) < density
        np.fill_diagonal(allowed, False)
        allowed[:, 0] = False
        heads, mods = candidates(tokens, allowed, GROUP_ID[group], lexicon_ids(vocab.ids))
        width = {"grandchild": 2, "sibling": 2, "comb": 4}.get(group, 3)
        got = {
            tuple(zip(h[:width].tolist(), m[:width].tolist(), strict=True))
            for h, m in zip(heads, mods, strict=True)
        }
        assert len(got) == len(heads)  # no duplicates
        assert got == _plain(group, n, allowed)


def _pp(v, n1, p, n2):
    """The four PP-quadruple candidates of one preposition."""
    return {
        ("pp_verb", ((v, n1), (v, p), (p, n2))),
        ("pp_noun", ((v, n1), (n1, p), (p, n2))),
        ("pp_verb_ud", ((v, n1), (n2, p), (v, n2))),
        ("pp_noun_ud", ((v, n1), (n2, p), (n1, n2))),
    }


#: Hand-made sentences (words, tags) and every hand-crafted candidate over all arcs: (pattern, arcs).
HAND_MADE = [
    (SENTENCE[0], SENTENCE[1], {("rather_than", ((3, 7), (7, 6), (7, 8)))}),  # Figure 3
    (
        ["the", "stock", "market", "fell", "5", "%", "in", "Oct.", "19", ",", "1987"],
        ["DT", "NN", "NN", "VBD", "CD", "NN", "IN", "NNP", "CD", ",", "CD"],
        {
            ("det_nn_nn", ((3, 1), (3, 2))),
            ("cd_percent", ((6, 5),)),
            ("month_date", ((8, 9), (8, 10), (8, 11))),
        }
        | _pp(4, 6, 7, 8),
    ),
    (
        ["``", "Pierre", "Vinken", "''", "met", "the", "John", "Smith", "Co", "."],
        ["``", "NNP", "NNP", "''", "VBD", "DT", "NNP", "NNP", "NNP", "."],
        {("nnp_flat", ((3, 2),)), ("det_nnp", ((9, 6), (9, 7), (9, 8)))}
        | {("quotes", ((h, 1), (h, 4))) for h in (0, 2, 3, 5, 6, 7, 8, 9, 10)},
    ),
    (
        ["big", "bank", "loans", "rose", "by", "5", "%", "in", "March"],
        ["JJ", "NN", "NNS", "VBD", "IN", "CD", "NN", "IN", "NNP"],
        {("jj_nn_nn", ((3, 1), (3, 2))), ("cd_percent", ((7, 6),)), ("in_cd_percent", ((5, 7), (7, 6)))}
        | _pp(4, 7, 8, 9),
    ),
]


def _hand_crafted(tokens, allowed, lexicon):
    heads, mods = candidates(tokens, allowed, GROUP_ID["hand_crafted"], lexicon)
    out = []
    for h, m in zip(heads.tolist(), mods.tolist(), strict=True):
        size = next((j for j in range(3) if m[j] == 0), 3)
        assert all(x == 0 for x in h[size:3] + m[size:])  # arcs, then zeros; the pattern id in heads[:, 3]
        out.append((PATTERNS[h[3]], tuple(zip(h[:size], m[:size], strict=True))))
    assert len(set(out)) == len(out)  # no duplicates
    return set(out)


@pytest.mark.parametrize("case", range(len(HAND_MADE)))
def test_hand_crafted_candidates_of_hand_made_sentences(case):
    words, tags, expected = HAND_MADE[case]
    vocab = Vocabulary.build([(words, tags, tags)])
    tokens = vocab.encode(words, tags, tags)
    lexicon = lexicon_ids(vocab.ids)
    n = len(words)
    full = _hand_crafted(tokens, np.ones((n + 1, n + 1), dtype=bool), lexicon)
    assert full == expected
    rng = np.random.default_rng(case)
    for density in (0.9, 0.6):  # a pruned mask keeps exactly the candidates whose arcs it keeps
        allowed = rng.random((n + 1, n + 1)) < density
        kept = {(name, arcs) for name, arcs in full if all(allowed[h, m] for h, m in arcs)}
        assert _hand_crafted(tokens, allowed, lexicon) == kept
    assert _hand_crafted(tokens, np.ones((n + 1, n + 1), dtype=bool), NO_LEXICON) == set()  # nothing known


def test_every_pattern_has_a_hand_made_case():
    assert {name for *_, expected in HAND_MADE for name, _ in expected} == set(PATTERNS)


def test_hand_crafted_factors_fire_on_their_gold_configuration():
    """pattern_counts: a gold tree with the arcs of det_nn_nn, cd_percent, month_date and the noun attachment
    fires those (once each) and no other of the sentence's candidates."""
    words, tags, expected = HAND_MADE[1]
    vocab = Vocabulary.build([(words, tags, tags)])
    tokens = vocab.encode(words, tags, tags)
    gold = as_heads([3, 3, 4, 0, 6, 4, 6, 7, 8, 8, 8])
    counts = pattern_counts([(tokens, gold), (tokens, gold)], lexicon_ids(vocab.ids))
    fired = {name: row["fired"] for name, row in counts.items() if row["fired"]}
    assert fired == {"det_nn_nn": 2, "cd_percent": 2, "month_date": 2, "pp_noun": 2}
    assert sum(row["candidates"] for row in counts.values()) == 2 * len(expected)
    for name in PATTERNS:
        assert counts[name]["candidates"] == 2 * sum(1 for pattern, _ in expected if pattern == name)
    assert PATTERN_ID["rather_than"] == 0


@pytest.mark.parametrize("group", ["grandchild", "great_grandchild"])
def test_chain_candidates_are_the_chains_of_projective_trees(group):
    """Without pruning, the chain candidates are exactly the chains some projective tree contains: none that a
    tree can fire is left out, none that no tree can fire is kept (they would only loosen the bound)."""
    n = 6
    sentence = ([f"w{i}" for i in range(n)], ["X"] * n, ["X"] * n)
    tokens = Vocabulary.build([sentence]).encode(*sentence)
    length = 3 if group == "grandchild" else 4
    in_trees = set()
    for heads in all_trees(n):
        for m in range(1, n + 1):
            chain = [m]
            while len(chain) < length and chain[-1] != 0:
                chain.append(int(heads[chain[-1]]))
            if len(chain) == length:
                nodes = chain[::-1]
                in_trees.add(tuple(zip(nodes[:-1], nodes[1:], strict=True)))
    heads, mods = candidates(tokens, np.ones((n + 1, n + 1), dtype=bool), GROUP_ID[group], NO_LEXICON)
    width = length - 1
    got = {
        tuple(zip(h[:width].tolist(), m[:width].tolist(), strict=True))
        for h, m in zip(heads, mods, strict=True)
    }
    assert got == in_trees


@pytest.mark.parametrize("hand_crafted", [False, True])
def test_factor_scores_and_fired_features_agree_on_every_tree(hand_crafted):
    """For every projective tree of a short sentence, the factors a tree fires (from the scored candidates) sum
    to the weights of the features fired_features lists for it."""
    if hand_crafted:  # cd_percent, nnp_flat and the four PP quadruples
        words, tags = ["fell", "5", "%", "in", "New", "York"], ["VBD", "CD", "NN", "IN", "NNP", "NNP"]
        sentence, groups = (words, tags, tags), ("hand_crafted",)
    else:
        sentence = (["a", "b", "a", "b", "c"], ["X", "Y", "X", "Y", "Z"], ["X", "Y", "X", "Y", "Z"])
        groups = LOCAL_GROUPS
    vocab = Vocabulary.build([sentence])
    tokens = vocab.encode(*sentence)
    lexicon = lexicon_ids(vocab.ids)
    n = len(sentence[0])
    weights = np.random.default_rng(2).normal(size=1 << 12)
    allowed = np.ones((n + 1, n + 1), dtype=bool)
    factors, group_of = sentence_factors(tokens, weights, allowed, groups, lexicon)
    assert set(group_of.tolist()) == {GROUP_ID[g] for g in groups}
    if hand_crafted:
        assert len(factors) == 6 and sorted(factors.size.tolist()) == [1, 1, 3, 3, 3, 3]
    ids = np.array([GROUP_ID[g] for g in groups], dtype=np.int64)
    for heads in all_trees(n):
        listed = weights[fired_features(tokens, heads, weights.size, ids, lexicon)].sum()
        assert factors.total(heads) == pytest.approx(listed, rel=1e-9, abs=1e-12)
