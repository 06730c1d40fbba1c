"""Averaged perceptron for the parsers: the averaging trick against a literal average, and learning a toy
grammar."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.features import Vocabulary, tree_features
from decoders.parsing.perceptron import LocalStructure, train
from decoders.parsing.trees import as_heads

# determiners attach to the next noun, nouns to the verb, the verb to the root
TOY = [
    (["the", "dog", "barks"], ["DT", "NN", "VB"], [2, 3, 0]),
    (["dogs", "bark"], ["NN", "VB"], [2, 0]),
    (["the", "cat", "sees", "the", "dog"], ["DT", "NN", "VB", "DT", "NN"], [2, 3, 0, 5, 3]),
    (["cats", "see", "a", "bird"], ["NN", "VB", "DT", "NN"], [2, 0, 4, 2]),
    (["a", "bird", "sings"], ["DT", "NN", "VB"], [2, 3, 0]),
]


def _data():
    vocab = Vocabulary.build([(w, t, t) for w, t, _ in TOY])
    return [(vocab.encode(w, t, t), as_heads(h)) for w, t, h in TOY]


def _literal(data, structure, initial, seed, step=lambda features: 1.0):
    """Two perceptron passes written out plainly (each update moves a feature by ``step(features)``): the weight
    vector after every example."""
    rng = np.random.default_rng(seed)
    weights, snapshots = initial.copy(), []
    for _ in range(2):
        for index in rng.permutation(len(data)):
            tokens, gold = data[index]
            predicted = structure.decode(tokens, weights)
            if not np.array_equal(predicted, gold):
                for heads, sign in ((gold, 1.0), (predicted, -1.0)):
                    features = tree_features(tokens, heads, len(weights), structure.order == 2)
                    np.add.at(weights, features, sign * step(features))
            snapshots.append(weights.copy())
    return snapshots


@pytest.mark.parametrize("start", ["zeros", "initial"])
@pytest.mark.parametrize("order", [1, 2])
def test_averaged_weights_are_the_mean_of_the_weights_after_each_example(order, start):
    data = _data()
    size = 1 << 10
    structure = LocalStructure(order)
    initial = np.zeros(size) if start == "zeros" else np.random.default_rng(1).integers(-3, 4, size) * 1.0
    averaged, history = train(data, structure, epochs=2, size=size, seed=4, progress=False, initial=initial)
    snapshots = _literal(data, structure, initial, seed=4)
    assert averaged.denominator == len(snapshots) == 10
    assert np.array_equal(averaged.numerator, np.sum(snapshots, axis=0))
    assert np.all(averaged.numerator == np.round(averaged.numerator))
    assert history.best_epoch == 2 and len(history.epochs) == 2


@pytest.mark.parametrize("order", [1, 2])
def test_a_continued_training_averages_over_both_trainings(order):
    # first training: 1 epoch of order 1 from zeros; the second continues its running weights and its average
    # with `order` for 2 epochs: the average must be the literal mean over all 15 examples' weight vectors
    data = _data()
    size = 1 << 10
    first_structure, structure = LocalStructure(1), LocalStructure(order)
    first, first_log = train(data, first_structure, epochs=1, size=size, seed=3, progress=False)
    averaged, _ = train(
        data,
        structure,
        epochs=2,
        size=size,
        seed=4,
        progress=False,
        initial=first_log.last_weights,
        average=first,
    )
    snapshots = []
    weights = np.zeros(size)
    for stage, (passes, seed) in enumerate([(1, 3), (2, 4)]):
        rng = np.random.default_rng(seed)
        decoder, second = (first_structure, False) if stage == 0 else (structure, order == 2)
        for _ in range(passes):
            for index in rng.permutation(len(data)):
                tokens, gold = data[index]
                predicted = decoder.decode(tokens, weights)
                if not np.array_equal(predicted, gold):
                    np.add.at(weights, tree_features(tokens, gold, size, second), 1.0)
                    np.add.at(weights, tree_features(tokens, predicted, size, second), -1.0)
                snapshots.append(weights.copy())
    assert averaged.denominator == len(snapshots) == 15
    assert np.array_equal(averaged.numerator, np.sum(snapshots, axis=0))
    with pytest.raises(ValueError, match="needs the running weights"):
        train(data, structure, epochs=1, size=size, seed=0, progress=False, average=first)
    with pytest.raises(ValueError, match="average to continue must have shape"):
        train(
            data,
            structure,
            epochs=1,
            size=2 * size,
            seed=0,
            progress=False,
            initial=np.zeros(2 * size),
            average=first,
        )


def test_step_below_moves_the_lower_features_by_its_step():
    # features below `boundary` move by 3 per update, the rest by 1; step 1 is the plain perceptron; a step that
    # is not an integer >= 1 is refused
    data = _data()
    size, boundary = 1 << 10, 1 << 9
    structure = LocalStructure(2)
    initial = np.random.default_rng(2).integers(-3, 4, size) * 1.0
    common = {"epochs": 2, "size": size, "seed": 5, "progress": False, "initial": initial}
    averaged, _ = train(data, structure, step_below=(boundary, 3), **common)
    snapshots = _literal(data, structure, initial, seed=5, step=lambda f: np.where(f < boundary, 3.0, 1.0))
    assert np.array_equal(averaged.numerator, np.sum(snapshots, axis=0))
    plain, _ = train(data, structure, **common)
    same, _ = train(data, structure, step_below=(boundary, 1), **common)
    assert np.array_equal(plain.numerator, same.numerator)
    assert not np.array_equal(plain.numerator, averaged.numerator)
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="integer >= 1"):
            train(data, structure, step_below=(boundary, bad), **{**common, "epochs": 1})


@pytest.mark.parametrize("order", [1, 2])
def test_the_perceptron_learns_a_toy_grammar(order):
    data = _data()
    structure = LocalStructure(order)
    averaged, history = train(data, structure, epochs=5, size=1 << 12, seed=0, progress=False)
    assert history.epochs[-1]["mistakes"] == 0
    vocab = Vocabulary.build([(w, t, t) for w, t, _ in TOY])
    tokens = vocab.encode(["the", "bird", "sees", "cats"], ["DT", "NN", "VB", "NN"], ["DT", "NN", "VB", "NN"])
    assert structure.decode(tokens, averaged.weights).tolist() == [-1, 2, 3, 0, 3]


def test_training_arguments_are_checked():
    with pytest.raises(ValueError, match="power of two"):
        train(_data(), LocalStructure(1), epochs=1, size=1000, seed=0)
    with pytest.raises(ValueError, match="order"):
        LocalStructure(4)
    with pytest.raises(ValueError, match="initial weights must have shape"):
        train(_data(), LocalStructure(1), epochs=1, size=1024, seed=0, initial=np.zeros(512))


def test_no_update_on_a_tree_that_scores_below_gold():
    """An inexact decoder's tree scoring below gold is not a violation: the perceptron leaves the weights."""

    class Stuck:  # always returns the same wrong tree; a tree's features are its arcs' ids
        def decode(self, tokens, weights, allowed=None):
            return np.array([-1, 0, 1, 1])

        def features(self, tokens, heads, size):
            return np.array([4 * h + m for m, h in enumerate(heads) if m > 0])

    gold = np.array([-1, 0, 1, 2])
    averaged, log = train([(None, gold)], Stuck(), epochs=3, size=16, seed=0, progress=False)
    # epoch 1: both score 0, an update; then gold outscores the stuck tree and nothing changes
    assert [row["not_violations"] for row in log.epochs] == [0, 1, 1]
    assert [row["mistakes"] for row in log.epochs] == [1, 1, 1]
    assert averaged.numerator[4 * 2 + 3] > 0 and averaged.numerator[4 * 1 + 3] < 0


def test_fixed_weights_score_trees_but_never_move():
    """Weights below ``fixed_weights`` count in the violation check and are never updated."""

    class Stuck:  # the wrong tree [0, 1, 1]; features: arc ids (fixed, < 16) and arc ids + 16 (learnt)
        fixed_weights = 16

        def decode(self, tokens, weights, allowed=None):
            return np.array([-1, 0, 1, 1])

        def features(self, tokens, heads, size):
            arcs = np.array([4 * h + m for m, h in enumerate(heads) if m > 0])
            return np.concatenate([arcs, 16 + arcs])

    gold = np.array([-1, 0, 1, 2])
    initial = np.zeros(32)
    initial[4 * 2 + 3] = 0.5  # the fixed part prefers gold's arc 2 -> 3 a little
    averaged, log = train([(None, gold)], Stuck(), epochs=3, size=32, seed=0, progress=False, initial=initial)
    assert np.array_equal(averaged.weights[:16], initial[:16])
    # epoch 1: gold already outscores the stuck tree through the fixed weight alone: no update ever
    assert [row["not_violations"] for row in log.epochs] == [1, 1, 1]
    assert not averaged.weights[16:].any()
    initial[
        4 * 2 + 3
    ] = -0.5  # now the stuck tree is a violation: the learnt weights move, the fixed ones not
    averaged, log = train([(None, gold)], Stuck(), epochs=1, size=32, seed=0, progress=False, initial=initial)
    assert log.epochs[0]["not_violations"] == 0 and np.array_equal(averaged.weights[:16], initial[:16])
    assert averaged.weights[16 + 4 * 2 + 3] > 0 and averaged.weights[16 + 4 * 1 + 3] < 0


def test_relaxed_updates_weigh_the_solution_by_its_values():
    """A structure decoded by an LP is updated on its (fractional) solution: gold's features +1, each part's
    features minus its value; an integral solution equal to gold is no mistake."""
    from decoders.parsing.perceptron import RelaxedSolution

    gold = np.array([-1, 0, 1, 2])

    class Half:  # the LP puts 1/2 on two parts whose features are 5 and 6; integral (and gold) when told
        def __init__(self, integral):
            self.integral = integral

        def decode(self, tokens, weights, allowed=None):
            raise AssertionError("the perceptron must use decode_relaxed")

        def decode_relaxed(self, tokens, weights, allowed=None):
            indices, values = np.array([5, 6]), np.array([0.5, 0.5])
            return RelaxedSolution(gold, self.integral, float(weights[indices] @ values), indices, values)

        def features(self, tokens, heads, size):
            return np.array([1, 2])

    averaged, log = train([(None, gold)], Half(False), epochs=2, size=8, seed=0, progress=False)
    # epoch 1: both score 0, so an update; epoch 2: gold scores 2 > -0.5, not a violation
    assert [row["mistakes"] for row in log.epochs] == [1, 1]
    assert [row["not_violations"] for row in log.epochs] == [0, 1]
    assert averaged.numerator.tolist() == [0, 2, 2, 0, 0, -1, -1, 0] and averaged.denominator == 2
    averaged, log = train([(None, gold)], Half(True), epochs=2, size=8, seed=0, progress=False)
    assert [row["mistakes"] for row in log.epochs] == [0, 0] and not averaged.numerator.any()
