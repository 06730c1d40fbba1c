"""Colour-coding that certifies its answer: an upper bound computed beside the search, and an early stop.

The paper's colour-coding (:mod:`decoders.titles.colour_coding`) runs the ``T`` colourings its failure
probability asks for and never knows whether its path is the optimum. This variant adds, as part of its timed
work:

1. **A completion bound** ``h[r, v]``: the best score of a walk ``v -> w_1 .. w_r -> t`` that repeats no class
   within three consecutive vertices (no ``u -> v -> u'`` with ``u, u'`` of one class), kept as the two best
   values whose next vertex lies in different classes, so that a caller can exclude one class after ``v``
   (one backward DP, ``O(k n^2)``). ``max_v start[v] + h[k-1, v]`` is an upper bound on every title; its
   argmax walk is often a title already (then it is the optimum, certified at once).
2. **An incumbent** from a greedy walk that follows the completion bound through unused classes.
3. **A labelled DP** ``(spectrum, v) -> best prefix score`` whose spectrum bits come from a per-vertex bit
   array. With random colours of the classes it is the paper's colour-coding iteration; with one bit per
   *tracked* class and none for the others it is a *class relaxation*: the best walk that repeats no tracked
   class, an upper bound on every title. Both prune a prefix when its score plus the completion bound cannot
   beat the incumbent, so the DP's cost follows the states that can still win rather than ``2^r n``.
   The relaxation's optimum either is a title (then optimal), or repeats classes, which are then tracked in
   the next round (decremental state-space relaxation; Righini and Salani 2008), or nothing beats the
   incumbent (then the incumbent is optimal).

The loop alternates one colouring and one relaxation round until the incumbent meets the bound (status
``optimal``) or the ``T`` colourings are done (``feasible`` with the bound). When the graph has no more distinct
classes than ``r`` colours, each class gets a colour of its own: that one colouring is exact.

Rounding cannot fake a certificate: every weight entering a bound is raised by ``g |w|`` with
``g = 4 (k + 2) 2^-53`` (more than the rounding of any sum of the ``k + 1`` terms of a title), so every bound
computed in floating point is at least the real number it bounds, and a pruned prefix is one whose raised score
cannot exceed the incumbent's true score minus its own rounding. The incumbent is certified when its score,
recomputed from the instance, is within :data:`CERTIFICATE_RTOL` of its own ``sum |terms|`` of the bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba
import numpy as np

from decoders.checks import check_deadline
from decoders.errors import ConfigError
from decoders.titles.colour_coding import (
    MAX_COLOURS,
    _integer,
    _probability,
    choose_colours,
    iterations_for,
)
from decoders.titles.instance import TitleInstance, _magnitude, _score, check_instance

CERTIFICATE_RTOL = 1e-10
"""The incumbent is certified when ``bound - score <= CERTIFICATE_RTOL * sum |terms|`` (as the ILP's)."""
UNIT_ROUNDOFF = 2.0**-53
DEFAULT_MAX_LABELS = 2_000_000
"""A relaxation round that would hold more DP labels than this gives up (the bound stays as it was)."""
MAX_TRACKED = MAX_COLOURS  # spectra are int64 bitmasks
NO_CLASS = -3  # the class "before" the first vertex (s)


def inflation(k: int) -> float:
    """The factor ``g`` by which every weight's magnitude is added to it in the bound computations (``k``: the
    title length, an integer >= 1)."""
    k = _integer("k", k, 1)
    if k > 2**40:
        raise ConfigError(f"k must be at most 2^40 (a title length); got {k}")
    return 4.0 * (k + 2) * UNIT_ROUNDOFF


@numba.njit(cache=True, nogil=True, inline="always")
def _up(w: float, g: float) -> float:
    """``w + g |w|`` (``-inf`` stays ``-inf``)."""
    if w == -np.inf:
        return w
    return w + g * abs(w)


@numba.njit(cache=True, nogil=True)
def _completion(
    edge: np.ndarray, end: np.ndarray, klass: np.ndarray, k: int, g: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``h1[r, v]``: best raised score of ``v -> w_1 .. w_r -> t`` with no class repeated within three
    consecutive vertices; ``c1``/``x1`` the class and vertex of ``w_1`` (-1: t); ``h2``/``x2`` the best whose
    ``w_1`` is not of class ``c1`` (so ``h1`` if ``c1 != c`` else ``h2`` bounds the walks whose ``w_1`` avoids
    class ``c``)."""
    n = end.shape[0]
    h1 = np.full((k, n), -np.inf)
    h2 = np.full((k, n), -np.inf)
    c1 = np.full((k, n), -2, dtype=np.int64)
    x1 = np.full((k, n), -1, dtype=np.int64)
    x2 = np.full((k, n), -1, dtype=np.int64)
    for v in range(n):
        h1[0, v] = _up(end[v], g)
        c1[0, v] = -1
    for r in range(1, k):
        for v in range(n):
            cv = klass[v]
            b1 = -np.inf
            b2 = -np.inf
            d1 = -2
            y1 = -1
            y2 = -1
            row = edge[v]
            for w in range(n):
                e = row[w]
                if e == -np.inf:
                    continue
                cw = klass[w]
                if cw == cv:
                    continue
                hw = h1[r - 1, w] if c1[r - 1, w] != cv else h2[r - 1, w]
                if hw == -np.inf:
                    continue
                x = _up(e, g) + hw
                if x > b1:
                    if d1 != cw:
                        b2 = b1
                        y2 = y1
                    b1 = x
                    d1 = cw
                    y1 = w
                elif x > b2 and cw != d1:
                    b2 = x
                    y2 = w
            h1[r, v] = b1
            c1[r, v] = d1
            x1[r, v] = y1
            h2[r, v] = b2
            x2[r, v] = y2
    return h1, c1, x1, h2, x2


@numba.njit(cache=True, nogil=True)
def _root(start: np.ndarray, h1: np.ndarray, k: int, g: float) -> tuple[float, int]:
    """The walk bound ``max_v start[v] + h1[k-1, v]`` (raised) and its first vertex (-1: none)."""
    best = -np.inf
    arg = -1
    for v in range(start.shape[0]):
        x = _up(start[v], g) + h1[k - 1, v]
        if x > best:
            best = x
            arg = v
    return best, arg


@numba.njit(cache=True, nogil=True)
def _greedy(
    start: np.ndarray,
    edge: np.ndarray,
    klass: np.ndarray,
    n_classes: int,
    k: int,
    g: float,
    h1: np.ndarray,
    c1: np.ndarray,
    h2: np.ndarray,
) -> np.ndarray:
    """A title built word by word, each the unused-class word with the best score plus completion bound
    (``-1``s when it gets stuck)."""
    n = start.shape[0]
    used = np.zeros(max(n_classes, 1), dtype=np.bool_)
    path = np.full(k, -1, dtype=np.int64)
    value = 0.0
    prev = -1
    for layer in range(k):
        prev_class = klass[prev] if prev >= 0 else NO_CLASS
        rem = k - 1 - layer
        best = -np.inf
        arg = -1
        for w in range(n):
            cw = klass[w]
            if used[cw]:
                continue
            e = start[w] if prev < 0 else edge[prev, w]
            if e == -np.inf:
                continue
            hw = h1[rem, w] if c1[rem, w] != prev_class else h2[rem, w]
            x = value + _up(e, g) + hw
            if x > best:
                best = x
                arg = w
        if arg < 0:
            path[:] = -1
            return path
        path[layer] = arg
        value += _up(start[arg] if prev < 0 else edge[prev, arg], g)
        used[klass[arg]] = True
        prev = arg
    return path


@numba.njit(cache=True, nogil=True)
def _hash(mask: np.int64, w: np.int64, size_mask: np.int64) -> np.int64:
    h = (mask * np.int64(-7046029254386353131)) ^ (w * np.int64(-4658895280553007687))
    h ^= h >> np.int64(29)
    return h & size_mask


@numba.njit(cache=True, nogil=True)
def _label_dp(
    start: np.ndarray,
    edge: np.ndarray,
    end: np.ndarray,
    klass: np.ndarray,
    bits: np.ndarray,
    k: int,
    g: float,
    h1: np.ndarray,
    c1: np.ndarray,
    h2: np.ndarray,
    threshold: float,
    max_labels: int,
) -> tuple[float, np.ndarray, int, bool]:
    """Best raised score above ``threshold`` of ``s -> v_1 .. v_k -> t`` over finite edges between different
    classes whose vertices' ``bits`` are pairwise disjoint, its walk (``-1``s: none above the threshold), the
    labels made and whether ``max_labels`` stopped the DP.

    A label is (spectrum, vertex) with the best raised prefix score; it is dropped when that score plus the
    completion bound (excluding the class before its vertex) is at most ``threshold``. Any walk of disjoint
    bits whose true score exceeds ``threshold`` is matched or beaten by the result: a prefix replaced by a
    better one with the same spectrum and vertex extends by the same suffix."""
    n = start.shape[0]
    cap = 1024
    mask = np.empty(cap, dtype=np.int64)
    vert = np.empty(cap, dtype=np.int64)
    val = np.empty(cap)
    par = np.empty(cap, dtype=np.int64)
    m = 0
    for v in range(n):
        s = _up(start[v], g)
        if s == -np.inf or not s + h1[k - 1, v] > threshold:
            continue
        if m == cap:
            cap *= 2
            mask = np.resize(mask, cap)
            vert = np.resize(vert, cap)
            val = np.resize(val, cap)
            par = np.resize(par, cap)
        mask[m] = bits[v]
        vert[m] = v
        val[m] = s
        par[m] = -1
        m += 1
    lo = 0
    hi = m
    none = np.full(k, -1, dtype=np.int64)
    for layer in range(1, k):
        if hi == lo:
            return -np.inf, none, m, False
        rem = k - 1 - layer
        size = 64
        while size < 4 * (hi - lo):
            size *= 2
        table = np.full(size, -1, dtype=np.int64)
        filled = 0
        for i in range(lo, hi):
            mi = mask[i]
            v = vert[i]
            vi = val[i]
            cv = klass[v]
            row = edge[v]
            for w in range(n):
                e = row[w]
                if e == -np.inf:
                    continue
                cw = klass[w]
                if cw == cv:
                    continue
                b = bits[w]
                if mi & b:
                    continue
                x = vi + _up(e, g)
                hw = h1[rem, w] if c1[rem, w] != cv else h2[rem, w]
                if not x + hw > threshold:
                    continue
                key = mi | b
                if 2 * (filled + 1) > size:  # grow and rehash this layer's labels
                    size *= 2
                    table = np.full(size, -1, dtype=np.int64)
                    for j in range(hi, m):
                        slot = _hash(mask[j], vert[j], size - 1)
                        while table[slot] >= 0:
                            slot = (slot + 1) & (size - 1)
                        table[slot] = j
                slot = _hash(key, w, size - 1)
                found = -1
                while table[slot] >= 0:
                    j = table[slot]
                    if mask[j] == key and vert[j] == w:
                        found = j
                        break
                    slot = (slot + 1) & (size - 1)
                if found >= 0:
                    if x > val[found]:
                        val[found] = x
                        par[found] = i
                    continue
                if m == cap:
                    if m >= max_labels:
                        return -np.inf, none, m, True
                    cap *= 2
                    mask = np.resize(mask, cap)
                    vert = np.resize(vert, cap)
                    val = np.resize(val, cap)
                    par = np.resize(par, cap)
                mask[m] = key
                vert[m] = w
                val[m] = x
                par[m] = i
                table[slot] = m
                m += 1
                filled += 1
        lo = hi
        hi = m
    best = -np.inf
    arg = -1
    for i in range(lo, hi):
        x = val[i] + _up(end[vert[i]], g)
        if x > threshold and x > best:
            best = x
            arg = i
    if arg < 0:
        return -np.inf, none, m, False
    path = np.empty(k, dtype=np.int64)
    i = arg
    for layer in range(k - 1, -1, -1):
        path[layer] = vert[i]
        i = par[i]
    return best, path, m, False


@dataclass
class CertifiedResult:
    """Best title found (or None), its score, the bound, and the run's counters."""

    path: np.ndarray | None
    score: float
    bound: float
    certified: bool
    colours: int
    iterations: int  # planned colourings (T)
    completed: int  # colourings run
    rounds: int  # class-relaxation rounds run
    tracked: int  # classes tracked by the last relaxation
    walk_bound: float  # the first bound (no class repeated within three vertices)
    found_by: str  # what produced the final path: walk, greedy, colouring, relaxation, none
    first_found: int  # colouring after which the final path was known (0: before any)
    labels: int
    timed_out: bool


def _repeated_classes(klass: np.ndarray, path: np.ndarray) -> np.ndarray:
    classes, counts = np.unique(klass[path], return_counts=True)
    return classes[counts > 1]


class _Search:
    """The incumbent, the bound and the certificate test of one decode."""

    def __init__(self, instance: TitleInstance, g: float) -> None:
        self.instance = instance
        self.g = g
        self.path: np.ndarray | None = None
        self.score = -math.inf
        self.magnitude = 0.0
        self.bound = math.inf
        self.found_by = "none"
        self.first_found = 0

    def offer(self, path: np.ndarray, source: str, iteration: int) -> None:
        """Keep ``path`` if it is a title scoring above the incumbent."""
        if path[0] < 0 or np.unique(self.instance.class_index[path]).size != path.size:
            return
        score = _score(self.instance, path)
        if score > self.score and math.isfinite(score):
            self.path, self.score = path.copy(), score
            self.magnitude = _magnitude(self.instance, path)
            self.found_by, self.first_found = source, iteration

    @property
    def threshold(self) -> float:
        """A score at most the incumbent's true score: prefixes that cannot exceed it are pruned."""
        if self.path is None:
            return -math.inf
        return self.score - self.g * self.magnitude

    def lower_bound(self, value: float) -> None:
        self.bound = min(self.bound, value)

    @property
    def certified(self) -> bool:
        if self.path is None:
            return self.bound == -math.inf
        return self.bound - self.score <= CERTIFICATE_RTOL * self.magnitude


def certified_colour_coding(
    instance: TitleInstance,
    *,
    failure_probability: float = 1e-3,
    seed: int = 0,
    colours: int | None = None,
    iterations: int | None = None,
    relaxation: bool = True,
    max_labels: int = DEFAULT_MAX_LABELS,
    deadline: float | None = None,
) -> CertifiedResult:
    """Colour-coding with a bound and an early stop (module docstring). Parameters are checked first, each
    ConfigError naming its key (``instance`` and ``deadline``: a ValueError); ``relaxation=False`` keeps only the
    walk bound (no class-relaxation rounds)."""
    check_instance(instance)
    deadline = check_deadline(deadline)
    failure_probability = _probability(failure_probability)
    seed = _integer("seed", seed, 0)
    colours = None if colours is None else _integer("colours", colours, 1)
    iterations = None if iterations is None else _integer("iterations", iterations, 1)
    max_labels = _integer("max_labels", max_labels, 1)
    if not isinstance(relaxation, bool):
        raise ConfigError(f"relaxation must be true or false; got {relaxation!r}")
    k = instance.k
    if instance.infeasible is not None:
        return CertifiedResult(
            None, -math.inf, -math.inf, True, 0, 0, 0, 0, 0, -math.inf, "none", 0, 0, False
        )
    r, classes, own_colours, total = _colouring_plan(instance, colours, iterations, failure_probability)
    g = inflation(k)
    klass = instance.class_index.astype(np.int64)  # classes 0..c-1: per-class tables stay at most n long
    start, edge, end = instance.start, instance.edge, instance.end
    h1, c1, x1, h2, x2 = _completion(edge, end, klass, k, g)
    dp = _LabelDP(start, edge, end, klass, k, g, h1, c1, h2, max_labels)
    search = _Search(instance, g)
    walk_bound, tracked = _first_incumbent(search, dp, x1, x2)
    rounds = _Rounds(search, dp, tracked, relaxation and not own_colours)
    rng = np.random.default_rng(seed)
    while not search.certified and rounds.completed < total:
        if deadline is not None and time.perf_counter() > deadline:
            rounds.timed_out = True
            break
        rounds.colouring(_colour_bits(klass, classes, own_colours, r, rng), own_colours)
        if search.certified or not rounds.relaxing:
            continue
        if deadline is not None and time.perf_counter() > deadline:
            rounds.timed_out = True
            break
        rounds.relaxation()
    bound = search.bound
    if search.path is not None:
        bound = max(bound, search.score)
    return CertifiedResult(
        search.path,
        search.score,
        bound,
        search.certified,
        r,
        total,
        rounds.completed,
        rounds.rounds,
        int(rounds.tracked.size),
        walk_bound,
        search.found_by,
        search.first_found,
        rounds.labels,
        rounds.timed_out,
    )


def _colouring_plan(
    instance: TitleInstance, colours: int | None, iterations: int | None, failure_probability: float
) -> tuple[int, np.ndarray, bool, int]:
    """The colours ``r`` (checked against ``k``), the classes, whether each class gets a colour of its own (one
    exact colouring) and the colourings to run."""
    k = instance.k
    r = choose_colours(k) if colours is None else colours
    if not k <= r <= MAX_COLOURS:
        raise ConfigError(f"colours must lie in [k, {MAX_COLOURS}] = [{k}, {MAX_COLOURS}]; got {r}")
    classes = np.arange(instance.distinct_classes, dtype=np.int64)
    own_colours = classes.size <= r  # one colour per class: a single, exact colouring
    total = (
        1 if own_colours else iterations_for(k, r, failure_probability) if iterations is None else iterations
    )
    return r, classes, own_colours, total


def _colour_bits(
    klass: np.ndarray, classes: np.ndarray, own_colours: bool, r: int, rng: np.random.Generator
) -> np.ndarray:
    """Each vertex's colour as a bit: its class's own colour, or a random one of the ``r`` per class."""
    if own_colours:
        return np.left_shift(np.int64(1), np.searchsorted(classes, klass).astype(np.int64))
    return np.left_shift(np.int64(1), rng.integers(0, r, size=int(klass.max()) + 1)[klass])


@dataclass
class _LabelDP:
    """The arrays :func:`_label_dp` reads for one instance (scores, classes, completion bound, label cap)."""

    start: np.ndarray
    edge: np.ndarray
    end: np.ndarray
    klass: np.ndarray
    k: int
    g: float
    h1: np.ndarray
    c1: np.ndarray
    h2: np.ndarray
    max_labels: int

    def __call__(self, bits: np.ndarray, threshold: float) -> tuple[float, np.ndarray, int, bool]:
        """Run the labelled DP with these spectrum ``bits`` above ``threshold``."""
        return _label_dp(
            self.start, self.edge, self.end, self.klass, bits, self.k, self.g, self.h1, self.c1, self.h2,
            threshold, self.max_labels,
        )  # fmt: skip


def _first_incumbent(
    search: _Search, dp: _LabelDP, x1: np.ndarray, x2: np.ndarray
) -> tuple[float, np.ndarray]:
    """Offer the completion bound's argmax walk and the greedy title to ``search`` with the walk bound; returns
    the walk bound and the classes the walk repeats (the first relaxation's tracked classes)."""
    klass, k = dp.klass, dp.k
    walk_bound, first = _root(dp.start, dp.h1, k, dp.g)
    search.lower_bound(walk_bound)
    if first >= 0:
        search.offer(_walk(klass, dp.c1, x1, x2, k, first), "walk", 0)
    if not search.certified:
        search.offer(
            _greedy(dp.start, dp.edge, klass, int(klass.max()) + 1, k, dp.g, dp.h1, dp.c1, dp.h2), "greedy", 0
        )
    tracked = np.empty(0, dtype=np.int64)
    if first >= 0:
        tracked = _repeated_classes(klass, _walk(klass, dp.c1, x1, x2, k, first))
    return walk_bound, tracked


class _Rounds:
    """The colouring and class-relaxation rounds of one decode, with their counters."""

    def __init__(self, search: _Search, dp: _LabelDP, tracked: np.ndarray, relaxing: bool) -> None:
        self.search, self.dp = search, dp
        self.tracked = tracked
        self.relaxing = relaxing
        self.completed = self.rounds = self.labels = 0
        self.timed_out = False

    def colouring(self, bits: np.ndarray, own_colours: bool) -> None:
        """One colour-coding iteration with these colour bits; with a colour per class it bounds every title."""
        search = self.search
        value, path, made, overflow = self.dp(bits, search.threshold)
        self.labels += made
        self.completed += 1
        search.offer(path, "colouring", self.completed)
        if own_colours and not overflow:  # every title was a candidate: nothing above the threshold is left
            search.lower_bound(max(value, search.threshold))

    def relaxation(self) -> None:
        """One class-relaxation round: a bound, a title when its walk repeats no class, else more classes tracked;
        relaxing stops when the DP overflows or too many classes are tracked."""
        search, klass, tracked = self.search, self.dp.klass, self.tracked
        bits = np.zeros(klass.size, dtype=np.int64)
        if tracked.size:
            bit_of = np.full(int(klass.max()) + 1, 0, dtype=np.int64)
            bit_of[tracked] = np.left_shift(np.int64(1), np.arange(tracked.size, dtype=np.int64))
            bits = bit_of[klass]
        value, path, made, overflow = self.dp(bits, search.threshold)
        self.labels += made
        self.rounds += 1
        if overflow:
            self.relaxing = False
            return
        search.lower_bound(max(value, search.threshold))
        if path[0] >= 0:
            repeated = _repeated_classes(klass, path)
            if repeated.size == 0:
                search.offer(path, "relaxation", self.completed)
            else:
                self.tracked = np.union1d(tracked, repeated)
                if self.tracked.size > MAX_TRACKED:
                    self.relaxing = False


def _walk(
    klass: np.ndarray, c1: np.ndarray, x1: np.ndarray, x2: np.ndarray, k: int, first: int
) -> np.ndarray:
    """The argmax walk of the completion bound from ``first`` (each step avoids the class two back)."""
    path = np.empty(k, dtype=np.int64)
    v, prev_class = first, NO_CLASS
    for layer in range(k):
        path[layer] = v
        rem = k - 1 - layer
        if rem == 0:
            break
        nxt = x1[rem, v] if c1[rem, v] != prev_class else x2[rem, v]
        prev_class, v = int(klass[v]), int(nxt)
    return path
