"""First-order pre-pruning: k best heads per word plus a tree's arcs."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.pruning import top_k_heads


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
