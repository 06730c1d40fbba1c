"""First-order projective parsing: Eisner's (1996) O(n^3) dynamic program, single-rooted (numba).

``scores[h, m]`` is the score of the arc ``h -> m`` (0 = root, words 1..n); ``-inf`` forbids an arc (pruned
heads, branch-and-bound constraints). The root takes exactly one modifier: the DP parses words 1..n into
complete spans and the root's arc joins the left and right complete spans of its one modifier. Ties go to the
first split point / modifier found, so the result is deterministic.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.parsing.checks import check_arc_scores, check_heads

NEG_INF = -np.inf


def eisner(scores: np.ndarray) -> tuple[np.ndarray, float]:
    """(heads, score) of the best single-rooted projective tree; ``heads[0] = -1``. ``scores``: a float (n + 1,
    n + 1) array, finite or ``-inf`` (ValueError otherwise).

    If no tree avoids every ``-inf`` arc, the score is ``-inf`` and ``heads[1:]`` are -1.
    """
    return _eisner(check_arc_scores(scores))


@numba.njit(cache=True, nogil=True)
def _eisner(scores: np.ndarray) -> tuple[np.ndarray, float]:
    """:func:`eisner`'s kernel, for compiled callers and callers that checked ``scores``."""
    n = scores.shape[0] - 1
    heads = np.full(n + 1, -1, dtype=np.int64)
    if n == 0:
        return heads, 0.0
    # complete right (head s, covering s..t), complete left (head t), incomplete right (arc s->t), left (t->s)
    cr = np.full((n + 1, n + 1), NEG_INF)
    cl = np.full((n + 1, n + 1), NEG_INF)
    ir = np.full((n + 1, n + 1), NEG_INF)
    il = np.full((n + 1, n + 1), NEG_INF)
    cr_split = np.zeros((n + 1, n + 1), dtype=np.int64)
    cl_split = np.zeros((n + 1, n + 1), dtype=np.int64)
    i_split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for s in range(1, n + 1):
        cr[s, s] = 0.0
        cl[s, s] = 0.0
    for width in range(1, n):
        for s in range(1, n - width + 1):
            t = s + width
            best, arg = NEG_INF, s
            for r in range(s, t):
                value = cr[s, r] + cl[r + 1, t]
                if value > best:
                    best, arg = value, r
            i_split[s, t] = arg
            ir[s, t] = best + scores[s, t]
            il[s, t] = best + scores[t, s]
            best, arg = NEG_INF, t
            for r in range(s + 1, t + 1):
                value = ir[s, r] + cr[r, t]
                if value > best:
                    best, arg = value, r
            cr[s, t], cr_split[s, t] = best, arg
            best, arg = NEG_INF, s
            for r in range(s, t):
                value = cl[s, r] + il[r, t]
                if value > best:
                    best, arg = value, r
            cl[s, t], cl_split[s, t] = best, arg
    best, root_child = NEG_INF, 1
    for m in range(1, n + 1):
        value = scores[0, m] + cl[1, m] + cr[m, n]
        if value > best:
            best, root_child = value, m
    if best == NEG_INF:
        return heads, best
    heads[root_child] = 0
    # back-trace: (kind, s, t) with kind 0 = complete right, 1 = complete left, 2 = incomplete right, 3 = left
    stack = np.empty((4 * n + 4, 3), dtype=np.int64)
    top = 0
    stack[top] = (1, 1, root_child)
    stack[top + 1] = (0, root_child, n)
    top += 2
    while top > 0:
        top -= 1
        kind, s, t = stack[top, 0], stack[top, 1], stack[top, 2]
        if s == t:
            continue
        if kind == 0:
            r = cr_split[s, t]
            stack[top] = (2, s, r)
            stack[top + 1] = (0, r, t)
            top += 2
        elif kind == 1:
            r = cl_split[s, t]
            stack[top] = (1, s, r)
            stack[top + 1] = (3, r, t)
            top += 2
        else:
            if kind == 2:
                heads[t] = s
            else:
                heads[s] = t
            r = i_split[s, t]
            stack[top] = (0, s, r)
            stack[top + 1] = (1, r + 1, t)
            top += 2
    return heads, best


def tree_score(scores: np.ndarray, heads: np.ndarray) -> float:
    """Sum of ``scores[heads[m], m]`` over the words of a full head array (of the scores' sentence)."""
    scores = check_arc_scores(scores)
    return _tree_score(scores, check_heads(heads, n=scores.shape[0] - 1))


@numba.njit(cache=True, nogil=True)
def _tree_score(scores: np.ndarray, heads: np.ndarray) -> float:
    total = 0.0
    for m in range(1, heads.shape[0]):
        total += scores[heads[m], m]
    return total
