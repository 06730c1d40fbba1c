"""The B&B parser's structure: certified optimum of the full feature model equals brute force, pruning keeps a
tree, and the perceptron trains through B&B."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.bnb.factors import GROUPS, LEXICON, lexicon_ids
from decoders.bnb.model import NonLocalStructure, prune_heads
from decoders.parsing.eisner import eisner
from decoders.parsing.features import Vocabulary, arc_scores
from decoders.parsing.perceptron import LocalStructure, train
from decoders.parsing.trees import all_trees, as_heads

SENTENCE = (
    ["we", "saw", "it", "rather", "than", "it"],
    ["P", "V", "P", "R", "I", "P"],
    ["P", "V", "P", "R", "I", "P"],
)


HAND_MADE = (
    ["fell", "5", "%", "in", "New", "York"],
    ["VBD", "CD", "NN", "IN", "NNP", "NNP"],
    ["VBD", "CD", "NN", "IN", "NNP", "NNP"],
)


@pytest.mark.parametrize(
    ("sentence", "groups", "factors", "seed"),
    [(SENTENCE, GROUPS, None, seed) for seed in range(6)]
    # the hand-crafted group alone where six of its patterns have candidates (cd_percent, nnp_flat, the four PP
    # quadruples)
    + [(HAND_MADE, ("hand_crafted",), 6, seed) for seed in range(3)],
)
def test_the_certified_tree_maximises_the_summed_feature_weights(sentence, groups, factors, seed):
    """Over every projective tree, the tree B&B certifies has the largest sum of its features' weights
    (arcs, second-order parts and fired factors: the model the perceptron trains)."""
    vocab = Vocabulary.build([sentence])
    tokens = vocab.encode(*sentence)
    structure = NonLocalStructure(groups, lexicon=tuple(lexicon_ids(vocab.ids).tolist()))
    weights = np.random.default_rng(seed).integers(-3, 4, size=1 << 10).astype(float)  # on the grid of 1
    result, count = structure.solve(tokens, weights)
    assert result.optimal and count > 0 and (factors is None or count == factors)
    best = max(weights[structure.features(tokens, heads, weights.size)].sum() for heads in all_trees(6))
    assert result.objective == best
    assert weights[structure.features(tokens, result.heads, weights.size)].sum() == best


def test_the_lexicon_is_checked():
    assert NonLocalStructure(("hand_crafted",)).lexicon_array.tolist() == [-1] * len(LEXICON)
    with pytest.raises(ValueError, match="lexicon"):
        NonLocalStructure(("hand_crafted",), lexicon=(1, 2))
    with pytest.raises(ValueError, match="lexicon"):
        NonLocalStructure(("hand_crafted",), lexicon=(-2,) * len(LEXICON))


@pytest.mark.parametrize("seed", range(3))
def test_factor_features_have_a_hash_space_of_their_own(seed):
    """Second-order features index the first half of a non-local model's weights, factor features the second:
    with the baseline's weights in the first half and zeros after, every tree scores as the baseline scores it
    (no factor feature collides with a baseline weight), and branch and bound returns the baseline's optimum."""
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    structure = NonLocalStructure(GROUPS, lexicon=tuple(lexicon_ids(vocab.ids).tolist()))
    baseline = LocalStructure(2)
    size = 1 << 8  # small, so that a shared space would make factor features collide with baseline weights
    weights = np.random.default_rng(seed).integers(-3, 4, size=size).astype(float)
    assert np.count_nonzero(weights) > size // 2
    joined = np.concatenate([weights, np.zeros(size)])
    fired = 0
    for heads in all_trees(6):
        local = baseline.features(tokens, heads, size)
        features = structure.features(tokens, heads, 2 * size)
        assert np.array_equal(features[: len(local)], local) and (features[len(local) :] >= size).all()
        assert joined[features].sum() == weights[local].sum()
        fired += len(features) - len(local)
    assert fired > 0
    best = baseline.decode(tokens, weights)
    result, _ = structure.solve(tokens, joined)
    assert result.optimal and result.objective == weights[baseline.features(tokens, best, size)].sum()
    with pytest.raises(ValueError, match="power-of-two size"):
        structure.features(tokens, best, 3)


def test_pruning_keeps_k_heads_per_word_and_a_tree():
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    weights = np.random.default_rng(1).normal(size=1 << 10)
    allowed = prune_heads(tokens, weights, 2)
    assert np.all(allowed.sum(axis=0)[1:] <= 3) and not allowed[:, 0].any() and not np.diag(allowed).any()
    best = eisner(arc_scores(tokens, weights, allowed))[0]
    assert best[1:].min() >= 0  # a tree is left
    assert prune_heads(tokens, weights, None).sum() == 6 * 6
    with pytest.raises(ValueError, match="k must be"):
        prune_heads(tokens, weights, 0)


TOY = [
    (["the", "dog", "barks"], ["DT", "NN", "VB"], [2, 3, 0]),
    (["the", "cat", "sees", "the", "dog"], ["DT", "NN", "VB", "DT", "NN"], [2, 3, 0, 5, 3]),
    (["cats", "see", "a", "bird"], ["NN", "VB", "DT", "NN"], [2, 0, 4, 2]),
]


def _toy():
    vocab = Vocabulary.build([(w, t, t) for w, t, _ in TOY])
    return vocab, [(vocab.encode(w, t, t), as_heads(h)) for w, t, h in TOY]


def test_the_perceptron_trains_through_branch_and_bound():
    vocab, data = _toy()
    structure = NonLocalStructure(("grandchild", "sibling"))
    averaged, history = train(data, structure, epochs=4, size=1 << 12, seed=0, progress=False)
    assert history.epochs[-1]["mistakes"] == 0
    tokens = vocab.encode(["the", "bird", "sees", "cats"], ["DT", "NN", "VB", "NN"], ["DT", "NN", "VB", "NN"])
    result, _ = structure.solve(tokens, averaged.numerator)
    assert result.optimal and result.heads.tolist() == [-1, 2, 3, 0, 3]


@pytest.mark.parametrize("seed", range(4))
def test_training_search_against_gold_returns_gold_or_a_tree_scoring_at_least_as_much(seed):
    """decode_against (gold as the search's incumbent): finished, it returns a best tree; stopped at one node,
    gold or a tree scoring at least as much as gold, never less."""
    vocab = Vocabulary.build([SENTENCE])
    tokens = vocab.encode(*SENTENCE)
    structure = NonLocalStructure(GROUPS, lexicon=tuple(lexicon_ids(vocab.ids).tolist()))
    limited = NonLocalStructure(GROUPS, structure.lexicon, max_nodes=1, max_iterations=1)
    weights = np.random.default_rng(seed).integers(-3, 4, size=1 << 10).astype(float)

    def score(heads):
        return weights[structure.features(tokens, heads, weights.size)].sum()

    trees = list(all_trees(6))
    best = max(score(heads) for heads in trees)
    for gold in (max(trees, key=score), trees[seed * 7]):
        heads, settled = structure.decode_against(tokens, weights, None, gold)
        assert settled and score(heads) == best
        heads, _ = limited.decode_against(tokens, weights, None, gold)
        assert np.array_equal(heads, gold) or score(heads) >= score(gold)


def test_the_perceptron_counts_training_searches_that_stopped_unsettled():
    _, data = _toy()
    exact = NonLocalStructure(("grandchild", "sibling"))
    _, history = train(data, exact, epochs=2, size=1 << 12, seed=0, progress=False)
    assert all(row["unsettled_searches"] == 0 and row["not_violations"] == 0 for row in history.epochs)
    stopped = NonLocalStructure(("grandchild", "sibling"), max_nodes=1, max_iterations=1)
    _, history = train(data, stopped, epochs=2, size=1 << 12, seed=0, progress=False)
    assert all(row["not_violations"] == 0 for row in history.epochs)
    # one subgradient step at one node cannot settle most sentences: they get no update and are counted
    assert all(0 < row["unsettled_searches"] <= len(data) for row in history.epochs)
