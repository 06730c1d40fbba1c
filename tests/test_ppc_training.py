"""ppc's training structures: features of a tree, decoders returning trees, a perceptron that learns."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.features import Vocabulary, arc_scores, tree_features
from decoders.parsing.perceptron import train
from decoders.parsing.trees import tree_error
from decoders.ppc.model import GrandparentIndex, Lexicon, gold_parts
from decoders.ppc.training import Encoded, GrandparentLP

SENTENCES = [  # (words, tags, heads[1:]); several root modifiers and a crossing arc among them
    (["she", "saw", "him", "yesterday", "run"], ["PRP", "VBD", "PRP", "NN", "VB"], [2, 0, 5, 2, 2]),
    (["dogs", "bark"], ["NNS", "VBP"], [2, 0]),
    (["yes", "she", "ran"], ["UH", "PRP", "VBD"], [0, 3, 0]),
    (["a", "man", "came", "who", "sang"], ["DT", "NN", "VBD", "WP", "VBD"], [2, 3, 0, 5, 2]),
]


@pytest.fixture(scope="module")
def data():
    vocab = Vocabulary.build([(w, t, [x[0] for x in t]) for w, t, _ in SENTENCES])
    rows = [{"words": w, "tags": t, "coarse_tags": [x[0] for x in t]} for w, t, _ in SENTENCES]
    lexicon = Lexicon.build(rows)
    encoded = [
        (
            Encoded(vocab.encode(r["words"], r["tags"], r["coarse_tags"]), lexicon.encode(r)),
            np.array([-1, *h]),
        )
        for r, (_, _, h) in zip(rows, SENTENCES, strict=True)
    ]
    index = GrandparentIndex.build((x.attributes, g) for x, g in encoded)
    return encoded, index


def test_gold_trees_are_arborescences(data):
    encoded, _ = data
    assert all(tree_error(g, single_root=False) is None for _, g in encoded)


def test_grandparent_features_are_the_arcs_and_the_gold_parts(data):
    encoded, index = data
    structure = GrandparentLP(index, bits=12)
    assert structure.size >= (1 << 12) + len(index) and structure.size & (structure.size - 1) == 0
    assert structure.fixed_weights == 1 << 12  # the arc weights are the MST parser's
    for tokens, gold in encoded:
        features = structure.features(tokens, gold, structure.size)
        arcs = tree_features(tokens.arc_tokens, gold, 1 << 12, False)
        assert np.array_equal(features[: len(arcs)], arcs)
        grand = features[len(arcs) :]
        assert (grand >= 1 << 12).all() and (grand < (1 << 12) + len(index)).all()
        assert len(grand) >= len(gold_parts(gold)[0])  # every gold part fires its (indexed) templates


def test_the_initial_weights_are_the_arc_weights_then_zeros(data):
    _, index = data
    structure = GrandparentLP(index, bits=12)
    arcs = np.random.default_rng(0).normal(size=1 << 12)
    initial = structure.initial(arcs)
    assert np.array_equal(initial[: 1 << 12], arcs) and not initial[1 << 12 :].any()
    with pytest.raises(ValueError, match="arc weights must have shape"):
        structure.initial(arcs[:-1])


def test_the_perceptron_fits_a_tiny_treebank(data):
    """The grandparent parser starts from arc weights that know nothing; its grandparent weights learn the
    trees."""
    encoded, index = data
    shape = GrandparentLP(index, bits=12)
    blank = np.zeros(1 << 12)
    weights, log = train(encoded, shape, epochs=8, size=shape.size, seed=0, progress=False,
                         initial=shape.initial(blank))  # fmt: skip
    assert np.array_equal(weights.weights[: 1 << 12], blank)  # the arc weights never move
    for tokens, gold in encoded:
        predicted = shape.decode(tokens, weights.weights)
        assert tree_error(predicted, single_root=False) is None
        assert np.array_equal(predicted, gold)
    assert log.epochs[-1]["mistakes"] == 0


def test_relaxed_solutions_with_arcs_add_up_to_the_objective(data):
    """With ``train_arcs``, the arcs' features come with their values too: the solution's features and values
    alone give the LP objective, and an integral solution's are exactly its tree's features."""
    encoded, index = data
    shape = GrandparentLP(index, bits=12, train_arcs=True)
    assert shape.fixed_weights == 0
    rng = np.random.default_rng(4)
    kinds = set()
    for _ in range(15):
        weights = rng.normal(scale=2.0, size=shape.size)
        for tokens, _gold in encoded:
            solution = shape.decode_relaxed(tokens, weights)
            total = float(weights[solution.indices] @ solution.values)
            assert total == pytest.approx(solution.score, abs=1e-6 * (1 + abs(total)))
            kinds.add(solution.integral)
            if solution.integral:
                tree = shape.features(tokens, solution.heads, shape.size)
                assert sorted(solution.indices) == sorted(tree) and (solution.values == 1).all()
    assert kinds == {True, False}


def test_relaxed_solutions_are_the_lp_parts_weighted_by_their_values(data):
    """decode_relaxed's features and values, with the arcs' share, add up to the LP objective under the weights,
    for integral and fractional solutions alike (random weights make some LPs fractional)."""
    encoded, index = data
    shape = GrandparentLP(index, bits=12)
    rng = np.random.default_rng(3)
    kinds = set()
    for _ in range(25):
        weights = rng.normal(scale=2.0, size=shape.size)
        for tokens, gold in encoded:
            n = len(gold) - 1
            for allowed in (None, np.ones((n + 1, n + 1), dtype=bool)):
                solution = shape.decode_relaxed(tokens, weights, allowed)
                result = shape.solve(tokens, weights, allowed)
                arc = arc_scores(tokens.arc_tokens, weights[: 1 << 12], np.ones((n + 1, n + 1), dtype=bool))
                z = result.arc_values
                arcs = float(np.sum(np.where(z > 0, z * np.nan_to_num(arc, neginf=0.0), 0.0)))
                total = arcs + float(weights[solution.indices] @ solution.values)
                assert solution.score == pytest.approx(result.objective, abs=1e-9)
                assert total == pytest.approx(solution.score, abs=1e-6 * (1 + abs(total)))
                assert ((solution.values > 0) & (solution.values <= 1)).all()
                assert ((solution.indices >= 1 << 12) & (solution.indices < shape.size)).all()
                assert np.array_equal(solution.heads, result.heads)
                kinds.add(solution.integral)
                if solution.integral:  # then exactly the tree's grandparent features
                    tree = shape.features(tokens, solution.heads, shape.size)
                    assert sorted(solution.indices) == sorted(tree[tree >= 1 << 12])
                    assert (solution.values == 1).all()
    assert kinds == {True, False}
