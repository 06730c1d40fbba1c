"""Averaged perceptron for the parsers: the averaging trick against a literal average, and learning a toy
grammar."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.features import Vocabulary, tree_features
from decoders.parsing.perceptron import decode, train
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


@pytest.mark.parametrize("order", [1, 2])
def test_averaged_weights_are_the_mean_of_the_weights_after_each_example(order):
    data = _data()
    size = 1 << 10
    averaged, history = train(data, order=order, epochs=2, size=size, seed=4, progress=False)
    # the same passes written out plainly, keeping every intermediate weight vector
    rng = np.random.default_rng(4)
    weights, snapshots = np.zeros(size), []
    for _ in range(2):
        for index in rng.permutation(len(data)):
            tokens, gold = data[index]
            predicted = decode(tokens, weights, order)
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
    averaged, history = train(data, order=order, epochs=5, size=1 << 12, seed=0, progress=False)
    assert history.epochs[-1]["mistakes"] == 0
    vocab = Vocabulary.build([(w, t, t) for w, t, _ in TOY])
    tokens = vocab.encode(["the", "bird", "sees", "cats"], ["DT", "NN", "VB", "NN"], ["DT", "NN", "VB", "NN"])
    assert decode(tokens, averaged.weights, order).tolist() == [-1, 2, 3, 0, 3]


def test_training_arguments_are_checked():
    with pytest.raises(ValueError, match="power of two"):
        train(_data(), order=1, epochs=1, size=1000, seed=0)
    with pytest.raises(ValueError, match="order"):
        train(_data(), order=3, epochs=1, size=1024, seed=0)
