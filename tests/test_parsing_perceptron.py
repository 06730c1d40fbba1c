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


@pytest.mark.parametrize("start", ["zeros", "initial"])
@pytest.mark.parametrize("order", [1, 2])
def test_averaged_weights_are_the_mean_of_the_weights_after_each_example(order, start):
    data = _data()
    size = 1 << 10
    structure = LocalStructure(order)
    initial = np.zeros(size) if start == "zeros" else np.random.default_rng(1).integers(-3, 4, size) * 1.0
    averaged, history = train(data, structure, epochs=2, size=size, seed=4, progress=False, initial=initial)
    # the same passes written out plainly, keeping every intermediate weight vector
    rng = np.random.default_rng(4)
    weights, snapshots = initial.copy(), []
    for _ in range(2):
        for index in rng.permutation(len(data)):
            tokens, gold = data[index]
            predicted = structure.decode(tokens, weights)
            if not np.array_equal(predicted, gold):
                np.add.at(weights, tree_features(tokens, gold, size, order == 2), 1.0)
                np.add.at(weights, tree_features(tokens, predicted, size, order == 2), -1.0)
            snapshots.append(weights.copy())
    assert averaged.denominator == len(snapshots) == 10
    assert np.array_equal(averaged.numerator, np.sum(snapshots, axis=0))
    assert np.all(averaged.numerator == np.round(averaged.numerator))
    assert history.best_epoch == 2 and len(history.epochs) == 2


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
