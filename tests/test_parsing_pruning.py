"""First-order pre-pruning: k best heads per word plus a tree's arcs; the head classifier that ranks them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp

from decoders.parsing.features import arc_scores
from decoders.parsing.pruning import (
    RECALL_AT,
    gold_head_ranks,
    head_log_loss,
    top_k_heads,
    train_head_classifier,
)


def test_k_best_heads_and_the_tree_are_kept():
    rng = np.random.default_rng(0)
    n = 6
    scores = rng.normal(size=(n + 1, n + 1))
    tree = np.array([-1, 0, 1, 1, 2, 2, 6 - 1])
    allowed = top_k_heads(scores, 2, tree)
    assert not allowed[:, 0].any() and not allowed[np.arange(n + 1), np.arange(n + 1)].any()
    for m in range(1, n + 1):
        candidates = [h for h in range(n + 1) if h != m]
        best = sorted(candidates, key=lambda h: (-scores[h, m], h))[:2]
        assert set(np.flatnonzero(allowed[:, m])) == set(best) | {tree[m]}
    assert top_k_heads(scores, None, tree).sum() == n * n
    assert top_k_heads(scores, n, tree).sum() == n * n


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k_is_refused(k):
    with pytest.raises(ValueError, match="k must be"):
        top_k_heads(np.zeros((5, 5)), k, np.array([-1, 0, 1, 1, 1]))


def _sentence(rng, n, vocab=5):
    """Random tokens (rows: word, lower, POS, coarse) and a random head array."""
    tokens = np.zeros((4, n + 1), dtype=np.int64)
    tokens[:, 1:] = rng.integers(2, 2 + vocab, size=(4, n))
    tokens[:, 0] = 1
    gold = np.array([-1] + [int(rng.choice([h for h in range(n + 1) if h != m])) for m in range(1, n + 1)])
    return tokens, gold


def _independent_loss(tokens, gold, weights):
    """The log-loss from arc_scores and scipy's logsumexp, word by word."""
    n = tokens.shape[1] - 1
    everything = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(everything, False)
    everything[:, 0] = False
    scores = arc_scores(tokens, weights, everything)
    return sum(
        logsumexp(scores[:, m][np.isfinite(scores[:, m])]) - scores[gold[m], m] for m in range(1, n + 1)
    )


def test_head_log_loss_and_its_gradient_step():
    rng = np.random.default_rng(3)
    for n in (1, 2, 5):
        tokens, gold = _sentence(rng, n)
        weights = rng.normal(scale=0.3, size=1 << 10)
        loss = head_log_loss(tokens, gold, weights.copy(), 0.0)
        assert loss == pytest.approx(_independent_loss(tokens, gold, weights), rel=1e-12)
        # a tiny step moves the weights by -rate * gradient (per-word steps differ from one step at O(rate^2))
        rate = 1e-6
        stepped = weights.copy()
        # (a later word's loss is read after the earlier words' steps)
        assert head_log_loss(tokens, gold, stepped, rate) == pytest.approx(loss, rel=1e-4)
        moved = np.flatnonzero(stepped != weights)
        for index in moved[:20]:
            bump = np.zeros_like(weights)
            bump[index] = 1e-5
            up = _independent_loss(tokens, gold, weights + bump)
            down = _independent_loss(tokens, gold, weights - bump)
            gradient = (up - down) / 2e-5
            assert (stepped[index] - weights[index]) / rate == pytest.approx(-gradient, rel=1e-3, abs=1e-6)
        if n == 1:  # one word: the root is its only head, nothing to learn
            assert loss == pytest.approx(0.0, abs=1e-12) and moved.size == 0


def test_the_classifier_learns_to_rank_gold_heads_and_keeps_the_best_dev_epoch():
    rng = np.random.default_rng(5)
    # a learnable rule: each word's head is the nearest position to its left (the first word's: the root)
    data = []
    for _ in range(60):
        tokens, _ = _sentence(rng, int(rng.integers(2, 9)))
        data.append((tokens, np.arange(-1, tokens.shape[1] - 1)))
    train, dev = data[:50], data[50:]
    weights, history, best = train_head_classifier(
        train, dev, size=1 << 12, epochs=4, learning_rate=0.1, seed=0, progress=False
    )
    assert [row["epoch"] for row in history] == [1, 2, 3, 4]
    losses = [row["dev_loss"] for row in history]
    assert best == 1 + int(np.argmin(losses))
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert history[best - 1]["dev_recall_at_1"] == 100.0
    assert all(row[f"dev_recall_at_{k}"] >= row["dev_recall_at_1"] for row in history for k in RECALL_AT)
    for tokens, gold in dev:
        assert (gold_head_ranks(tokens, gold, weights) == 0).all()
    again, _, _ = train_head_classifier(
        train, dev, size=1 << 12, epochs=4, learning_rate=0.1, seed=0, progress=False
    )
    np.testing.assert_array_equal(weights, again)  # seeded


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"epochs": 0}, "epochs"),
        ({"size": 1000}, "power of two"),
        ({"learning_rate": 1e307}, "diverged"),
    ],
)
def test_bad_classifier_settings_are_refused(options, message):
    rng = np.random.default_rng(1)
    data = [_sentence(rng, 4) for _ in range(4)]
    settings = {"size": 1 << 8, "epochs": 1, "learning_rate": 0.1, "seed": 0, "progress": False, **options}
    with pytest.raises(ValueError, match=message):
        train_head_classifier(data, data, **settings)
    with pytest.raises(ValueError, match="dev sentences"):
        train_head_classifier(data, [], **{**settings, **{"learning_rate": 0.1, "epochs": 1, "size": 256}})
