"""First-order non-projective parsing: the maximum spanning arborescence rooted at 0 (Chu-Liu-Edmonds; numba).

``scores[h, m]`` is the score of the arc ``h -> m`` (0 = root, words 1..n); ``-inf`` forbids an arc. Like the
LPs of Martins et al. (2009) and Riedel et al. (2012), the root may take several modifiers. Each word takes its
best head; a cycle is contracted into a new node whose in-arcs are scored by what they gain over the cycle arc
they replace and whose out-arcs are the best from any member; the final arcs are expanded back through the
contractions (O(n^3)). Ties go to the lowest head index, so the result is deterministic.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.parsing.checks import check_arc_scores


def chu_liu_edmonds(scores: np.ndarray) -> tuple[np.ndarray, float]:
    """(heads, score) of the best arborescence rooted at 0; ``heads[0] = -1``. If every spanning arborescence
    uses a ``-inf`` arc, the score is ``-inf`` and ``heads[1:]`` are -1. ``scores``: a float (n + 1, n + 1)
    array, finite or ``-inf`` (ValueError otherwise)."""
    return _chu_liu_edmonds(check_arc_scores(scores))


@numba.njit(cache=True, nogil=True)
def _chu_liu_edmonds(scores: np.ndarray) -> tuple[np.ndarray, float]:
    """:func:`chu_liu_edmonds`'s kernel, for callers that checked ``scores``."""
    n = scores.shape[0] - 1
    heads = np.full(n + 1, -1, dtype=np.int64)
    if n == 0:
        return heads, 0.0
    size = 2 * (n + 1)  # every contraction removes at least two nodes and adds one
    weight = np.full((size, size), -np.inf)
    src = np.full((size, size), -1, dtype=np.int64)  # the original arc behind each node-level arc
    dst = np.full((size, size), -1, dtype=np.int64)
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h != m:
                weight[h, m] = scores[h, m]
                src[h, m] = h
                dst[h, m] = m
    alive = np.zeros(size, dtype=np.bool_)
    alive[: n + 1] = True
    contains = np.zeros((size, n + 1), dtype=np.bool_)  # original words inside each node
    for v in range(n + 1):
        contains[v, v] = True
    parent = np.full(size, -1, dtype=np.int64)  # the contraction that swallowed a node
    cycle_src = np.full(size, -1, dtype=np.int64)  # a member's in-arc inside its cycle (original arc)
    cycle_dst = np.full(size, -1, dtype=np.int64)
    best = np.full(size, -1, dtype=np.int64)
    count = n + 1
    while True:
        for v in range(1, count):
            if not alive[v]:
                continue
            best[v] = -1
            top = -np.inf
            for u in range(count):
                if alive[u] and u != v and weight[u, v] > top:
                    top, best[v] = weight[u, v], u
            if best[v] < 0:
                return heads, -np.inf
        # a cycle among the best in-arcs: walk from each node until the root, a visited walk, or a repeat
        mark = np.full(count, -1, dtype=np.int64)
        cycle_at = -1
        for start in range(1, count):
            if not alive[start] or mark[start] >= 0:
                continue
            v = start
            while v != 0 and mark[v] < 0:
                mark[v] = start
                v = best[v]
            if v != 0 and mark[v] == start:
                cycle_at = v
                break
        if cycle_at < 0:
            break
        c = count
        count += 1
        members = np.zeros(count, dtype=np.bool_)
        v = cycle_at
        while not members[v]:
            members[v] = True
            v = best[v]
        for v in range(c):
            if members[v]:
                alive[v] = False
                parent[v] = c
                cycle_src[v], cycle_dst[v] = src[best[v], v], dst[best[v], v]
                contains[c] |= contains[v]
        for u in range(c):
            if not alive[u]:
                continue
            for v in range(c):
                if not members[v]:
                    continue
                if weight[u, v] > -np.inf:  # into the cycle: what entering at v gains over v's cycle arc
                    gain = weight[u, v] - weight[best[v], v]
                    if gain > weight[u, c]:
                        weight[u, c], src[u, c], dst[u, c] = gain, src[u, v], dst[u, v]
                if weight[v, u] > weight[c, u]:  # out of the cycle: the best member's arc
                    weight[c, u], src[c, u], dst[c, u] = weight[v, u], src[v, u], dst[v, u]
        alive[c] = True
    # expand: every live node's in-arc, then each contraction hands its in-arc to the member holding its word
    in_src = np.full(count, -1, dtype=np.int64)
    in_dst = np.full(count, -1, dtype=np.int64)
    for v in range(1, count):
        if alive[v]:
            in_src[v], in_dst[v] = src[best[v], v], dst[best[v], v]
    for c in range(count - 1, n, -1):
        for v in range(count):
            if parent[v] == c:
                if contains[v, in_dst[c]]:
                    in_src[v], in_dst[v] = in_src[c], in_dst[c]
                else:
                    in_src[v], in_dst[v] = cycle_src[v], cycle_dst[v]
    total = 0.0
    for m in range(1, n + 1):
        heads[m] = in_src[m]
        total += scores[in_src[m], m]
    return heads, total
