"""Exhaustive search over every class-distinct k-path: the titles experiment's test oracle (small n and k only).

A depth-first enumeration (numba, explicit stack) that extends a prefix only by vertices of unused classes and
over finite edges, and keeps the first best complete path in lexicographic vertex order.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from decoders.checks import check_int
from decoders.titles.instance import TitleInstance, check_instance

DEFAULT_MAX_PATHS = 10**8


@numba.njit(cache=True, nogil=True)
def _search(
    start: np.ndarray, edge: np.ndarray, end: np.ndarray, klass: np.ndarray, n_classes: int, k: int
) -> tuple[np.ndarray, float, int]:
    """(best path or -1s, its score, complete paths enumerated)."""
    n = start.shape[0]
    used = np.zeros(max(n_classes, 1), dtype=np.bool_)
    path = np.full(k, -1, dtype=np.int64)
    prefix = np.zeros(k + 1)  # prefix[d]: score of the first d vertices
    best_path = np.full(k, -1, dtype=np.int64)
    best = -np.inf
    complete = 0
    depth = 0
    path[0] = -1
    while depth >= 0:
        # advance the vertex at position ``depth`` to its next admissible candidate
        if path[depth] >= 0:
            used[klass[path[depth]]] = False
        v = path[depth] + 1
        while v < n:
            if not used[klass[v]]:
                weight = start[v] if depth == 0 else edge[path[depth - 1], v]
                if weight > -np.inf:
                    break
            v += 1
        if v >= n:
            path[depth] = -1
            depth -= 1
            continue
        path[depth] = v
        prefix[depth + 1] = prefix[depth] + (start[v] if depth == 0 else edge[path[depth - 1], v])
        if depth + 1 == k:
            score = prefix[k] + end[v]
            if score > -np.inf:
                complete += 1
                if score > best:
                    best = score
                    best_path[:] = path
        else:
            used[klass[v]] = True
            depth += 1
            path[depth] = -1
    return best_path, best, complete


def exhaustive(
    instance: TitleInstance, *, max_paths: int = DEFAULT_MAX_PATHS
) -> tuple[np.ndarray | None, float, int]:
    """The optimal path (None when no feasible path exists), its score (-inf then) and the paths enumerated.

    Raises ValueError when ``n^k`` exceeds ``max_paths`` (an integer >= 1): the enumeration would not finish in
    reasonable time.
    """
    check_instance(instance)
    max_paths = check_int(max_paths, "max_paths", minimum=1)
    if instance.infeasible is not None:  # k beyond the words or classes, or no walk: nothing to enumerate
        return None, -math.inf, 0
    n, k = instance.n, instance.k  # k <= n here; n^k exactly only once its logarithm says it is not huge
    if k * math.log(max(n, 1)) > math.log(max_paths) + 1.0 or n**k > max_paths:
        raise ValueError(
            f"exhaustive search over n^k = {instance.n}^{instance.k} paths exceeds max_paths = {max_paths}"
        )
    if instance.n == 0:
        return None, -math.inf, 0
    path, score, complete = _search(
        instance.start,
        instance.edge,
        instance.end,
        instance.class_index,
        instance.distinct_classes,
        instance.k,
    )
    if not np.isfinite(score):
        return None, -math.inf, int(complete)
    return path, float(score), int(complete)
