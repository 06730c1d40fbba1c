"""ppc's training structures: features of a tree, decoders returning trees, a perceptron that learns."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.features import Vocabulary
from decoders.parsing.perceptron import train
from decoders.parsing.trees import tree_error
from decoders.ppc.model import GrandparentIndex, Lexicon, gold_parts
from decoders.ppc.training import Encoded, FirstOrderMST, GrandparentLP

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
        arcs = FirstOrderMST().features(tokens, gold, 1 << 12)
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
    encoded, index = data
    first, log = train(encoded, FirstOrderMST(), epochs=8, size=1 << 12, seed=0, progress=False)
    for tokens, gold in encoded:
        assert np.array_equal(FirstOrderMST().decode(tokens, first.weights), gold)
    assert log.epochs[-1]["mistakes"] == 0
    # the grandparent parser starts from arc weights that know nothing; its grandparent weights learn the trees
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
