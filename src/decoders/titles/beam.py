"""Beam search for titles (the paper's baseline, section 6) and the smallest beam width that reaches the optimum.

Partial paths grow left to right; a prefix is scored by the sum of its edge weights so far (``start`` plus the
inner edges; ``end`` is added when the path is complete), never extended by a vertex of a class it already
holds, and after every step only the ``width`` best prefixes survive (numpy ``argpartition`` over the whole
``width x n`` candidate table; survivors are then ordered by score, ties by candidate index, so the result is
deterministic).
"""

from __future__ import annotations

import math
import time

import numpy as np

from decoders.checks import check_deadline, check_int
from decoders.titles.checks import check_real
from decoders.titles.instance import TitleInstance, check_instance


def _top(candidates: np.ndarray, width: int) -> np.ndarray:
    """Flat indices of the ``width`` best finite candidates, best first (ties: smaller index first)."""
    flat = candidates.ravel()
    finite = np.flatnonzero(flat > -np.inf)
    if finite.size > width:
        keep = np.argpartition(-flat[finite], width - 1)[:width]
        finite = finite[keep]
    return finite[np.lexsort((finite, -flat[finite]))]


def beam_search(
    instance: TitleInstance, width: int, *, deadline: float | None = None
) -> tuple[np.ndarray | None, float, bool]:
    """(best complete path found or None, its score or -inf, whether the deadline cut the search).

    ``width`` is an integer >= 1 and ``deadline`` None or a :func:`time.perf_counter` value (each a ValueError
    naming it otherwise)."""
    check_instance(instance)
    width = check_int(width, "width", minimum=1)
    deadline = check_deadline(deadline)
    return _beam_search(instance, width, deadline)


def _beam_search(
    instance: TitleInstance, width: int, deadline: float | None
) -> tuple[np.ndarray | None, float, bool]:
    """:func:`beam_search` on checked arguments."""
    n, k = instance.n, instance.k
    if n == 0:
        return None, -math.inf, False
    klass = instance.class_index
    chosen = _top(instance.start, width)
    paths = chosen[:, None]
    scores = instance.start[chosen]
    used = np.zeros((chosen.size, instance.distinct_classes), dtype=bool)
    used[np.arange(chosen.size), klass[chosen]] = True
    for _ in range(1, k):
        if deadline is not None and time.perf_counter() > deadline:
            return None, -math.inf, True
        if paths.shape[0] == 0:
            break
        candidates = scores[:, None] + instance.edge[paths[:, -1]]
        candidates[used[:, klass]] = -np.inf
        chosen = _top(candidates, width)
        parent, vertex = np.divmod(chosen, n)
        paths = np.concatenate([paths[parent], vertex[:, None]], axis=1)
        scores = candidates.ravel()[chosen]
        used = used[parent]
        used[np.arange(chosen.size), klass[vertex]] = True
    if paths.shape[0] == 0 or paths.shape[1] < k:
        return None, -math.inf, False
    final = scores + instance.end[paths[:, -1]]
    best = int(np.argmax(final))
    if not np.isfinite(final[best]):
        return None, -math.inf, False
    return paths[best].astype(np.int64), float(final[best]), False


def reaches(score: float, optimum: float) -> bool:
    """Whether ``score`` equals ``optimum`` within 1e-9 relative (both -inf counts as equal); NaN is refused."""
    score, optimum = check_real(score, "score"), check_real(optimum, "optimum")
    if math.isinf(optimum) or math.isinf(score):
        return score == optimum
    return math.isclose(score, optimum, rel_tol=1e-9, abs_tol=1e-12)


def smallest_optimal_width(instance: TitleInstance, optimum: float, max_width: int = 1 << 16) -> int | None:
    """A width ``w`` whose beam reaches ``optimum`` while width ``w - 1`` does not (None if none up to max_width).

    Doubling finds the first power of two that reaches the optimum, then a binary search between it and the
    previous (failing) power narrows it down to a width whose predecessor fails. Beam search is not monotone in
    the width (the extra prefixes a wider beam keeps produce new candidates that can push out of the beam a
    prefix a narrower beam kept), so this is the smallest width only along the searched sequence; the workflow therefore
    verifies the width it chooses on every instance afterwards.
    """
    check_instance(instance)
    optimum = check_real(optimum, "optimum")
    max_width = check_int(max_width, "max_width", minimum=1)

    def ok(width: int) -> bool:
        return reaches(_beam_search(instance, width, None)[1], optimum)

    if ok(1):
        return 1
    failing = 1
    while failing < max_width:
        width = min(2 * failing, max_width)
        if ok(width):
            while width - failing > 1:
                middle = (failing + width) // 2
                if ok(middle):
                    width = middle
                else:
                    failing = middle
            return width
        failing = width
    return None
