"""Hashed arc features: token encoding, the hash against an independent Python version, arc scores."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.features import (
    BOUNDARY,
    COARSE,
    POS,
    ROOT,
    UNKNOWN,
    Vocabulary,
    _arc_features,
    arc_scores,
    max_arc_features,
    second_order_scores,
    tree_features,
)
from decoders.parsing.second_order import second_order, second_order_score
from decoders.parsing.trees import all_trees

M64 = (1 << 64) - 1


def _py_index(template, values, dd, size):
    """The feature index written with Python integers (the kernel's hash, independently)."""

    def mix(state, value):
        state = ((state ^ value) * 0x100000001B3) & M64
        return state ^ (state >> 29)

    def finish(state):
        state = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & M64
        state = ((state ^ (state >> 27)) * 0x94D049BB133111EB) & M64
        return (state ^ (state >> 31)) & (size - 1)

    state = mix(0xCBF29CE484222325, template)
    for value in (*values, 0, 0, 0, 0)[:4]:
        state = mix(state, value)
    return finish(state), finish(mix(state, dd + 1))


SENTENCE = (["The", "cat", "sat", "."], ["DT", "NN", "VBD", "."], ["D", "N", "V", "."])


def test_vocabulary_encodes_root_unknowns_and_lengths():
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(["the", "dog", "sat"], ["DT", "NN", "VBZ"], ["D", "N", "V"])
    assert tokens.shape == (4, 4) and np.all(tokens[:, 0] == ROOT)
    assert tokens[0, 1] == UNKNOWN and tokens[1, 1] == vocab.ids["l:the"]  # "the" is seen lower-cased only
    assert tokens[0, 2] == UNKNOWN and tokens[POS, 3] == UNKNOWN and tokens[COARSE, 3] == vocab.ids["c:V"]
    with pytest.raises(ValueError, match="differ"):
        vocab.encode(["a"], [], ["D"])


def test_arc_features_are_the_documented_templates():
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    size = 1 << 20
    out = np.empty(max_arc_features(4), dtype=np.int64)
    count = _arc_features(tokens, 3, 1, np.uint64(size - 1), out)  # sat -> The, two words apart, leftwards
    got = set(out[:count].tolist())
    assert count == 2 * (29 + 2 * 1)
    dd = 0 * 8 + 2  # leftwards, distance bucket of 2
    hp, mp = vocab.ids["p:VBD"], vocab.ids["p:DT"]
    assert set(_py_index(16, (hp, mp), dd, size)) <= got  # hp.mp
    assert set(_py_index(30, (hp, vocab.ids["p:NN"], mp), dd, size)) <= got  # in-between cat
    # surrounding hp-1.hp.mp-1.mp: m - 1 is the root (ROOT), h - 1 is "cat"
    assert set(_py_index(23, (vocab.ids["p:NN"], hp, ROOT, mp), dd, size)) <= got
    # the word after "." is outside the sentence
    count = _arc_features(tokens, 3, 4, np.uint64(size - 1), out)
    sat, period = vocab.ids["c:V"], vocab.ids["c:."]
    assert set(_py_index(28, (sat, vocab.ids["c:."], period, BOUNDARY), 1 * 8 + 1, size)) <= set(
        out[:count].tolist()
    )


def test_arc_scores_sum_the_weights_of_allowed_arcs():
    rng = np.random.default_rng(3)
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    weights = rng.normal(size=1 << 12)
    allowed = rng.random((5, 5)) < 0.7
    scores = arc_scores(tokens, weights, allowed)
    out = np.empty(max_arc_features(4), dtype=np.int64)
    for h in range(5):
        assert scores[h, 0] == -np.inf
        for m in range(1, 5):
            if h == m or not allowed[h, m]:
                assert scores[h, m] == -np.inf
            else:
                count = _arc_features(tokens, h, m, np.uint64(weights.size - 1), out)
                assert scores[h, m] == pytest.approx(weights[out[:count]].sum(), rel=1e-12)


def test_part_scores_and_tree_features_agree_on_every_tree():
    """The score arrays the DP reads and the feature list the perceptron updates describe the same model: for
    every projective tree of a 5-word sentence, summing the tree's feature weights gives its DP score."""
    rng = np.random.default_rng(11)
    sentence = (["A", "dog", "saw", "a", "cat"], ["DT", "NN", "VBD", "DT", "NN"], ["D", "N", "V", "D", "N"])
    vocab = Vocabulary.build([sentence])
    tokens = vocab.encode(*sentence)
    weights = rng.normal(size=1 << 14)
    arc = arc_scores(tokens, weights, np.ones((6, 6), dtype=bool))
    sib, inner, outer = second_order_scores(tokens, weights, arc)
    best = -np.inf
    for heads in all_trees(5):
        value = second_order_score(arc, sib, inner, outer, heads)
        assert value == pytest.approx(
            weights[tree_features(tokens, heads, weights.size, True)].sum(), rel=1e-9
        )
        first = weights[tree_features(tokens, heads, weights.size, False)].sum()
        assert first == pytest.approx(sum(arc[heads[m], m] for m in range(1, 6)), rel=1e-9)
        best = max(best, value)
    assert second_order(arc, sib, inner, outer)[1] == pytest.approx(best, rel=1e-12)
