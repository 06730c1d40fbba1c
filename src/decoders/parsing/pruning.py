"""First-order pre-pruning (Martins et al. 2009; Qian and Liu 2013, section 4.4): the k best heads per word."""

from __future__ import annotations

import numpy as np


def top_k_heads(scores: np.ndarray, k: int | None, tree: np.ndarray) -> np.ndarray:
    """Per word, the ``k`` heads of highest first-order score (ties: smaller head), plus the arcs of ``tree``
    (a full head array, the best first-order tree), so that a tree always remains; ``None`` keeps every arc.
    Returns the allowed arcs as an (n + 1, n + 1) bool mask (no arc into the root, no self-loop)."""
    n = scores.shape[0] - 1
    everything = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(everything, False)
    everything[:, 0] = False
    if k is None or k >= n:
        return everything
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be a positive number of heads per word or None, got {k!r}")
    masked = np.where(everything, scores, -np.inf)
    order = np.argsort(-masked[:, 1:], axis=0, kind="stable")[:k]  # rows: heads, per word column
    allowed = np.zeros((n + 1, n + 1), dtype=bool)
    allowed[order, np.arange(1, n + 1)[None, :]] = True
    allowed[tree[1:], np.arange(1, n + 1)] = True
    return allowed & everything
