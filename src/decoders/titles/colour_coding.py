"""Randomised colour-coding decoder for titles (Deshpande et al. 2007, section 4; Alon et al. 1995).

Each iteration colours the equivalence classes at random with ``r`` colours (all vertices of a class share the
class's colour, so a path without a repeated colour never repeats a class) and finds, by dynamic programming,
the best *colourful* path ``s -> p_0 .. p_{k-1} -> t``. The optimal title is colourful with probability
``p = r!/((r-k)! r^k)``, so ``T = ceil(ln(eps) / ln(1-p))`` iterations miss it with probability at most ``eps``
(the paper's amplification argument). ``r`` is chosen in ``[k, 2k]`` to minimise the paper's running-time
formula ``2^r / p``.

The DP is layered: layer ``l`` holds the best score of a path of ``l`` vertices that ends at ``v`` and whose
spectrum (the set of colours on it, ``v``'s included) is ``S``. Only spectra reached by a finite-score path are
kept, as a sorted array of bitmasks per layer with a dense ``(spectra, n)`` score row per spectrum; within an
iteration the vertices are relabelled in colour order, so the predecessors of a state form contiguous ranges.
The new state ``(S, v)`` is pulled from the row of ``S - {colour(v)}`` in the previous layer.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba
import numpy as np

from decoders.checks import check_deadline
from decoders.errors import ConfigError
from decoders.titles.instance import TitleInstance, check_instance

MAX_COLOURS = 62  # spectra are int64 bitmasks


def colourful_probability(k: int, r: int) -> float:
    """Probability that ``k`` given classes get pairwise distinct colours among ``r``: ``prod (r-i)/r`` (``k``,
    ``r``: integers >= 1, each a ConfigError naming it otherwise)."""
    k, r = _integer("k", k, 1), _integer("r", r, 1)
    if r < k:
        return 0.0
    return math.prod((r - i) / r for i in range(k))


def iterations_for(k: int, r: int, failure_probability: float) -> int:
    """Iterations ``T = ceil(ln(eps) / ln(1-p))`` after which the optimum was missed with probability <= eps."""
    failure_probability = _probability(failure_probability)
    p = colourful_probability(k, r)
    if p <= 0.0:
        raise ConfigError(f"with r = {r} < k = {k} colours no path is colourful")
    if p >= 1.0:
        return 1
    return max(1, math.ceil(math.log(failure_probability) / math.log1p(-p)))


def choose_colours(k: int) -> int:
    """The ``r`` in ``[k, 2k]`` minimising the paper's running time ``2^r / p_r`` (ties: fewer colours)."""
    k = _integer("k", k, 1)
    if k > MAX_COLOURS:
        raise ConfigError(
            f"colour-coding decodes titles of at most {MAX_COLOURS} words (spectra are 64-bit masks); got k = {k}"
        )
    candidates = range(k, min(2 * k, MAX_COLOURS) + 1)
    return min(candidates, key=lambda r: (r * math.log(2.0) - math.log(colourful_probability(k, r)), r))


@numba.njit(cache=True, nogil=True)
def _first_layer(colour_start: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Spectra ``{c}`` and scores of the one-vertex paths ``s -> v`` (vertices in colour order)."""
    r = colour_start.shape[0] - 1
    n = start.shape[0]
    count = 0
    for c in range(r):
        for v in range(colour_start[c], colour_start[c + 1]):
            if np.isfinite(start[v]):
                count += 1
                break
    masks = np.empty(count, dtype=np.int64)
    q = np.full((count, n), -np.inf)
    j = 0
    for c in range(r):
        alive = False
        for v in range(colour_start[c], colour_start[c + 1]):
            if np.isfinite(start[v]):
                alive = True
        if alive:
            masks[j] = np.int64(1) << c
            for v in range(colour_start[c], colour_start[c + 1]):
                q[j, v] = start[v]
            j += 1
    return masks, q


@numba.njit(cache=True, nogil=True)
def _next_masks(masks: np.ndarray, q: np.ndarray, colour_start: np.ndarray) -> np.ndarray:
    """Sorted spectra of the next layer: every reached spectrum plus one unused colour that has vertices."""
    r = colour_start.shape[0] - 1
    m = masks.shape[0]
    out = np.empty(m * r, dtype=np.int64)
    count = 0
    for j in range(m):
        reached = False
        for v in range(q.shape[1]):
            if q[j, v] > -np.inf:
                reached = True
                break
        if not reached:
            continue
        for c in range(r):
            bit = np.int64(1) << c
            if (masks[j] & bit) == 0 and colour_start[c + 1] > colour_start[c]:
                out[count] = masks[j] | bit
                count += 1
    return np.unique(out[:count])


@numba.njit(cache=True, nogil=True)
def _extend(
    prev_masks: np.ndarray,
    prev_q: np.ndarray,
    masks: np.ndarray,
    colour_start: np.ndarray,
    edge_t: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, int]:
    """One DP layer: ``q[S, v] = max_u prev_q[S - c(v), u] + edge[u, v]`` with back-pointers; counts finite states."""
    r = colour_start.shape[0] - 1
    n = edge_t.shape[0]
    m = masks.shape[0]
    q = np.full((m, n), -np.inf)
    pred = np.full((m, n), -1, dtype=np.int32)
    states = 0
    for j in range(m):
        mask = masks[j]
        for c in range(r):
            bit = np.int64(1) << c
            if (mask & bit) == 0:
                continue
            prev = mask ^ bit
            i = np.searchsorted(prev_masks, prev)
            if i >= prev_masks.shape[0] or prev_masks[i] != prev:
                continue
            row = prev_q[i]
            for v in range(colour_start[c], colour_start[c + 1]):
                best = -np.inf
                arg = -1
                weights = edge_t[v]
                for cu in range(r):
                    if (prev >> cu) & 1 == 0:
                        continue
                    for u in range(colour_start[cu], colour_start[cu + 1]):
                        score = row[u] + weights[u]
                        if score > best:
                            best = score
                            arg = u
                if arg >= 0:
                    q[j, v] = best
                    pred[j, v] = arg
                    states += 1
    return q, pred, states


@dataclass
class ColourCodingResult:
    """Best path found (original vertex ids, or None), its DP score, and the run's counters."""

    path: np.ndarray | None
    score: float
    colours: int
    iterations: int  # planned
    completed: int  # iterations actually run (fewer when the deadline passed)
    first_found: int  # 1-based iteration at which ``score`` was first reached (0: nothing found)
    states: int
    timed_out: bool


def _one_colouring(
    instance: TitleInstance, vertex_colour: np.ndarray, r: int, deadline: float | None
) -> tuple[np.ndarray | None, float, int, bool]:
    """Best colourful path under one colouring: (path, score, finite states, whether the deadline cut it)."""
    order = np.argsort(vertex_colour, kind="stable")
    colour_start = np.searchsorted(vertex_colour[order], np.arange(r + 1)).astype(np.int64)
    start = instance.start[order]
    end = instance.end[order]
    edge_t = np.ascontiguousarray(instance.edge[np.ix_(order, order)].T)
    masks, q = _first_layer(colour_start, start)
    states = int(np.isfinite(q).sum())
    layers = [(masks, None)]
    for _ in range(1, instance.k):
        if deadline is not None and time.perf_counter() > deadline:
            return None, -math.inf, states, True
        next_masks = _next_masks(masks, q, colour_start)
        q, pred, added = _extend(masks, q, next_masks, colour_start, edge_t)
        masks = next_masks
        layers.append((masks, pred))
        states += added
    if masks.size == 0:
        return None, -math.inf, states, False
    final = q + end[None, :]
    flat = int(np.argmax(final))
    score = float(final.flat[flat])
    if not np.isfinite(score):
        return None, -math.inf, states, False
    j, v = divmod(flat, q.shape[1])
    path = [v]
    sorted_colour = vertex_colour[order]
    for layer in range(instance.k - 1, 0, -1):
        layer_masks, pred = layers[layer]
        u = int(pred[j, v])
        prev = int(layer_masks[j]) ^ (1 << int(sorted_colour[v]))
        j = int(np.searchsorted(layers[layer - 1][0], prev))
        v = u
        path.append(v)
    return order[np.array(path[::-1], dtype=np.int64)], score, states, False


def _probability(value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.integer | np.floating)
        or not 0.0 < value < 1.0
    ):
        raise ConfigError(f"failure_probability must lie in (0, 1); got {value!r}")
    return float(value)


def _integer(key: str, value, lowest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lowest:
        raise ConfigError(f"{key} must be an integer >= {lowest}; got {value!r}")
    return int(value)


def colour_coding(
    instance: TitleInstance,
    *,
    failure_probability: float = 1e-3,
    seed: int = 0,
    colours: int | None = None,
    iterations: int | None = None,
    deadline: float | None = None,
) -> ColourCodingResult:
    """Best path over ``iterations`` random colourings (defaults: the paper's ``r`` and amplification bound).

    An instance marked :attr:`~decoders.titles.instance.TitleInstance.infeasible` is answered at once (no
    colouring planned or run: ``colours = iterations = 0``). Parameters are checked first, each ConfigError
    naming its key (``instance`` and ``deadline``: a ValueError)."""
    check_instance(instance)
    deadline = check_deadline(deadline)
    failure_probability = _probability(failure_probability)
    seed = _integer("seed", seed, 0)
    colours = None if colours is None else _integer("colours", colours, 1)
    iterations = None if iterations is None else _integer("iterations", iterations, 1)
    if instance.infeasible is not None:
        return ColourCodingResult(None, -math.inf, 0, 0, 0, 0, 0, False)
    k = instance.k
    r = choose_colours(k) if colours is None else colours
    if not k <= r <= MAX_COLOURS:
        raise ConfigError(f"colours must lie in [k, {MAX_COLOURS}] = [{k}, {MAX_COLOURS}]; got {r}")
    total = iterations_for(k, r, failure_probability) if iterations is None else iterations
    rng = np.random.default_rng(seed)
    best_path: np.ndarray | None = None
    best_score = -math.inf
    first_found = 0
    states = 0
    completed = 0
    timed_out = False
    for iteration in range(1, total + 1):
        if deadline is not None and time.perf_counter() > deadline:
            timed_out = True
            break
        class_colour = rng.integers(0, r, size=max(instance.distinct_classes, 1))
        vertex_colour = class_colour[instance.class_index] if instance.n else np.empty(0, dtype=np.int64)
        path, score, visited, cut = _one_colouring(instance, vertex_colour, r, deadline)
        states += visited
        if cut:
            timed_out = True
            break
        completed = iteration
        if path is not None and score > best_score:
            best_path, best_score, first_found = path, score, iteration
    return ColourCodingResult(best_path, best_score, r, total, completed, first_found, states, timed_out)
