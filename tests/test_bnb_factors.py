"""Non-local factor groups: candidates against a plain enumeration, scores and fired features agreeing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from decoders.bnb.factors import GROUP_ID, GROUPS, candidates, fired_features, sentence_factors
from decoders.parsing.features import LOWER, Vocabulary
from decoders.parsing.trees import all_trees


def _plain(group, n, allowed, tokens, rather, than):
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
    elif group == "comb":
        for h in range(n + 1):
            for i in range(1, n - 2):
                run = range(i, i + 4)
                if h not in run and arcs(*[(h, m) for m in run]):
                    out.add(tuple((h, m) for m in run))
    else:
        for t in range(3, n):
            if tokens[LOWER, t] == than and tokens[LOWER, t - 1] == rather:
                for a1 in range(1, t - 1):
                    same = tuple(tokens[:, a1][[1, 2]]) == tuple(tokens[:, t + 1][[1, 2]])
                    if same and arcs((a1, t), (t, t - 1), (t, t + 1)):
                        out.add(((a1, t), (t, t - 1), (t, t + 1)))
    return out


SENTENCE = (
    ["regulation", "occurs", "through", "inaction", ",", "rather", "than", "through", "rules"],
    ["NN", "VBZ", "IN", "NN", ",", "RB", "IN", "IN", "NNS"],
    ["N", "V", "I", "N", ",", "R", "I", "I", "N"],
)


@pytest.mark.parametrize("group", GROUPS)
def test_candidates_are_the_documented_factors(group):
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    rather, than = vocab.ids["l:rather"], vocab.ids["l:than"]
    n = len(SENTENCE[0])
    rng = np.random.default_rng(GROUP_ID[group])
    for density in (1.0, 0.6):
        allowed = rng.random((n + 1, n + 1)) < density
        np.fill_diagonal(allowed, False)
        allowed[:, 0] = False
        heads, mods = candidates(tokens, allowed, GROUP_ID[group], rather, than)
        width = {"grandchild": 2, "sibling": 2, "comb": 4}.get(group, 3)
        got = {
            tuple(zip(h[:width].tolist(), m[:width].tolist(), strict=True))
            for h, m in zip(heads, mods, strict=True)
        }
        assert len(got) == len(heads)  # no duplicates
        assert got == _plain(group, n, allowed, tokens, rather, than)
    if group == "rather_than":  # Figure 3's example: through(3) -> than(7) -> rather(6), through(8)
        full = np.ones((n + 1, n + 1), dtype=bool)
        heads, mods = candidates(tokens, full, GROUP_ID[group], rather, than)
        assert heads[:, :3].tolist() == [[3, 7, 7]] and mods[:, :3].tolist() == [[7, 6, 8]]


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
    heads, mods = candidates(tokens, np.ones((n + 1, n + 1), dtype=bool), GROUP_ID[group], -1, -1)
    width = length - 1
    got = {
        tuple(zip(h[:width].tolist(), m[:width].tolist(), strict=True))
        for h, m in zip(heads, mods, strict=True)
    }
    assert got == in_trees


def test_factor_scores_and_fired_features_agree_on_every_tree():
    """For every projective tree of a 5-word sentence, the factors a tree fires (from the scored candidates) sum
    to the weights of the features fired_features lists for it."""
    sentence = (["a", "b", "a", "b", "c"], ["X", "Y", "X", "Y", "Z"], ["X", "Y", "X", "Y", "Z"])
    vocab = Vocabulary.build([sentence])
    tokens = vocab.encode(*sentence)
    weights = np.random.default_rng(2).normal(size=1 << 12)
    allowed = np.ones((6, 6), dtype=bool)
    groups = tuple(g for g in GROUPS if g != "rather_than")
    factors, group_of = sentence_factors(tokens, weights, allowed, groups, -1, -1)
    assert set(group_of.tolist()) == {GROUP_ID[g] for g in groups}
    ids = np.array([GROUP_ID[g] for g in groups], dtype=np.int64)
    for heads in all_trees(5):
        listed = weights[fired_features(tokens, heads, weights.size, ids, -1, -1)].sum()
        assert factors.total(heads) == pytest.approx(listed, rel=1e-9, abs=1e-12)
