"""Token encoding and hashed first-order arc features in the style of McDonald et al. (2005) (numba).

A sentence becomes an int64 array ``tokens`` of shape ``(N_ATTRIBUTES, n + 1)``: per position (0 = root), the
ids of the word form, its lower-cased form, its POS tag and its coarse POS tag, from a :class:`Vocabulary`
built on the training split (unseen strings share :data:`UNKNOWN`). A feature is a template id, the attribute
ids it conjoins and, for every template, once more with the arc's direction and distance bucket; its hash
(64-bit mixing) modulo the weight vector's size is its index. There is no feature dictionary to build or
store, and scoring a sentence is one compiled pass over its arcs (:func:`arc_scores`). The same kernel that
scores an arc lists its feature indices (:func:`arcs_features`), which the perceptron updates.

Templates (h = head, m = modifier, b = a word between them, +-1 = neighbours; w = word, l = lower-cased word,
p = POS, c = coarse POS): unigrams hw.hp, hw, hp, hl, mw.mp, mw, mp, ml; bigrams hw.hp.mw.mp, hp.mw.mp,
hw.mw.mp, hw.hp.mp, hw.hp.mw, hw.mw, hl.ml, hp.mp, hc.mc, hl.mp, hp.ml, hl.mc, hc.ml; in-between hp.bp.mp and
hc.bc.mc for every b; surrounding hp.hp+1.mp-1.mp, hp-1.hp.mp-1.mp, hp.hp+1.mp.mp+1, hp-1.hp.mp.mp+1 and the same
over coarse tags. Positions outside the sentence read :data:`BOUNDARY`.

Second-order parts (:mod:`decoders.parsing.second_order`) have their own templates, each plain and with the
directions of the arcs involved: an adjacent sibling ``s`` of ``m`` under ``h`` (:data:`NONE` when ``m`` is the
first modifier): hp.sp.mp, hc.sc.mc, sp.mp, sw.mw, sw.mp, sp.mw, hw.sp.mp, hp.sp.mw; a grandchild ``c`` of
``h -> m`` (inner and outer ones apart, :data:`NONE` for none): hp.mp.cp, hc.mc.cc, hp.cp, mp.cp, hw.mp.cp,
hp.mw.cp, hp.mp.cw, hw.cw, mw.cw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numba
import numpy as np

from decoders.checks import check_ids, check_int, check_range
from decoders.parsing.checks import (
    check_allowed,
    check_arc_scores,
    check_heads,
    check_scored,
    check_size,
    check_tokens,
    check_weights,
)
from decoders.parsing.second_order import _second_order_parts

WORD, LOWER, POS, COARSE = range(4)
N_ATTRIBUTES = 4

UNKNOWN, ROOT, BOUNDARY, NONE = 1, 2, 3, 4
_FIRST_ID = 5
_NAMESPACES = ("w", "l", "p", "c")

#: Distance buckets (McDonald et al. 2005): 1, 2, 3, 4, 5, 6-10, > 10 words apart.
_DISTANCE_BUCKETS = np.array([0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6], dtype=np.int64)

#: Templates that fire once per arc (the in-between ones fire once per word between head and modifier).
N_FIXED_TEMPLATES = 29


class Vocabulary:
    """String -> id per attribute namespace; ids from :data:`_FIRST_ID` on, unseen strings -> :data:`UNKNOWN`."""

    def __init__(self, ids: dict[str, int] | None = None):
        if ids is not None and not isinstance(ids, Mapping):
            raise ValueError(f"ids must map strings to ids >= {_FIRST_ID}; got {type(ids).__name__}")
        self.ids: dict[str, int] = dict(ids or {})
        bad = [
            (key, value)
            for key, value in self.ids.items()
            if not isinstance(key, str)
            or isinstance(value, bool)
            or not isinstance(value, int | np.integer)
            or value < _FIRST_ID
        ]
        if bad:
            raise ValueError(f"ids must map strings to ids >= {_FIRST_ID}; got {bad[0]!r}")

    @classmethod
    def build(cls, sentences: Iterable[tuple[Sequence[str], Sequence[str], Sequence[str]]]) -> Vocabulary:
        """From (words, tags, coarse tags) of the training sentences."""
        ids: dict[str, int] = {}
        for words, tags, coarse in sentences:
            for namespace, values in zip(
                _NAMESPACES, (words, [w.lower() for w in words], tags, coarse), strict=True
            ):
                for value in values:
                    ids.setdefault(f"{namespace}:{value}", _FIRST_ID + len(ids))
        return cls(ids)

    def __len__(self) -> int:
        return len(self.ids)

    def encode(self, words: Sequence[str], tags: Sequence[str], coarse: Sequence[str]) -> np.ndarray:
        """``tokens`` of shape (N_ATTRIBUTES, n + 1) for one sentence; column 0 is the root."""
        if not (len(words) == len(tags) == len(coarse)):
            raise ValueError(
                f"words ({len(words)}), tags ({len(tags)}) and coarse tags ({len(coarse)}) differ"
            )
        tokens = np.full((N_ATTRIBUTES, len(words) + 1), ROOT, dtype=np.int64)
        lookup = self.ids.get
        for row, (namespace, values) in enumerate(
            zip(_NAMESPACES, (words, [w.lower() for w in words], tags, coarse), strict=True)
        ):
            tokens[row, 1:] = [lookup(f"{namespace}:{value}", UNKNOWN) for value in values]
        return tokens


@numba.njit(cache=True, nogil=True, inline="always")
def _mix(state: np.uint64, value: np.int64) -> np.uint64:
    """One step of a 64-bit multiplicative hash (an FNV-style combine followed by a xor-shift)."""
    state = (state ^ np.uint64(value)) * np.uint64(0x100000001B3)
    return state ^ (state >> np.uint64(29))


@numba.njit(cache=True, nogil=True, inline="always")
def _finish(state: np.uint64, mask: np.uint64) -> np.int64:
    """The splitmix64 finaliser, then the index in a weight vector of size ``mask + 1``."""
    state = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    state = (state ^ (state >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    state = state ^ (state >> np.uint64(31))
    return np.int64(state & mask)


@numba.njit(cache=True, nogil=True, inline="always")
def _emit(out: np.ndarray, count: int, template: int, a: int, b: int, c: int, d: int, dd: int, mask) -> int:
    """Write the two indices of one template instance (plain, and with direction/distance ``dd``)."""
    state = _mix(np.uint64(0xCBF29CE484222325), template)
    state = _mix(state, a)
    state = _mix(state, b)
    state = _mix(state, c)
    state = _mix(state, d)
    out[count] = _finish(state, mask)
    out[count + 1] = _finish(_mix(state, dd + 1), mask)
    return count + 2


@numba.njit(cache=True, nogil=True, inline="always")
def _at(tokens: np.ndarray, row: int, position: int) -> int:
    if position < 0 or position >= tokens.shape[1]:
        return BOUNDARY
    return tokens[row, position]


@numba.njit(cache=True, nogil=True)
def _arc_features(tokens: np.ndarray, h: int, m: int, mask: np.uint64, out: np.ndarray) -> int:
    """Write the feature indices of the arc ``h -> m`` into ``out`` (size >= :func:`max_arc_features`); return
    how many were written."""
    distance = abs(h - m)
    dd = (1 if h < m else 0) * 8 + _DISTANCE_BUCKETS[min(distance, 10)]
    hw, hl, hp, hc = tokens[WORD, h], tokens[LOWER, h], tokens[POS, h], tokens[COARSE, h]
    mw, ml, mp, mc = tokens[WORD, m], tokens[LOWER, m], tokens[POS, m], tokens[COARSE, m]
    k = 0
    k = _emit(out, k, 1, hw, hp, 0, 0, dd, mask)
    k = _emit(out, k, 2, hw, 0, 0, 0, dd, mask)
    k = _emit(out, k, 3, hp, 0, 0, 0, dd, mask)
    k = _emit(out, k, 4, hl, 0, 0, 0, dd, mask)
    k = _emit(out, k, 5, mw, mp, 0, 0, dd, mask)
    k = _emit(out, k, 6, mw, 0, 0, 0, dd, mask)
    k = _emit(out, k, 7, mp, 0, 0, 0, dd, mask)
    k = _emit(out, k, 8, ml, 0, 0, 0, dd, mask)
    k = _emit(out, k, 9, hw, hp, mw, mp, dd, mask)
    k = _emit(out, k, 10, hp, mw, mp, 0, dd, mask)
    k = _emit(out, k, 11, hw, mw, mp, 0, dd, mask)
    k = _emit(out, k, 12, hw, hp, mp, 0, dd, mask)
    k = _emit(out, k, 13, hw, hp, mw, 0, dd, mask)
    k = _emit(out, k, 14, hw, mw, 0, 0, dd, mask)
    k = _emit(out, k, 15, hl, ml, 0, 0, dd, mask)
    k = _emit(out, k, 16, hp, mp, 0, 0, dd, mask)
    k = _emit(out, k, 17, hc, mc, 0, 0, dd, mask)
    k = _emit(out, k, 18, hl, mp, 0, 0, dd, mask)
    k = _emit(out, k, 19, hp, ml, 0, 0, dd, mask)
    k = _emit(out, k, 20, hl, mc, 0, 0, dd, mask)
    k = _emit(out, k, 21, hc, ml, 0, 0, dd, mask)
    for row, base in ((POS, 22), (COARSE, 26)):
        h_prev, h_next = _at(tokens, row, h - 1), _at(tokens, row, h + 1)
        m_prev, m_next = _at(tokens, row, m - 1), _at(tokens, row, m + 1)
        ht, mt = tokens[row, h], tokens[row, m]
        k = _emit(out, k, base, ht, h_next, m_prev, mt, dd, mask)
        k = _emit(out, k, base + 1, h_prev, ht, m_prev, mt, dd, mask)
        k = _emit(out, k, base + 2, ht, h_next, mt, m_next, dd, mask)
        k = _emit(out, k, base + 3, h_prev, ht, mt, m_next, dd, mask)
    lo, hi = min(h, m), max(h, m)
    for b in range(lo + 1, hi):
        k = _emit(out, k, 30, hp, tokens[POS, b], mp, 0, dd, mask)
        k = _emit(out, k, 31, hc, tokens[COARSE, b], mc, 0, dd, mask)
    return k


def max_arc_features(n: int) -> int:
    """Room the arc features need for any arc of a sentence of ``n >= 0`` words."""
    return _max_arc_features(check_int(n, "n", minimum=0))


@numba.njit(cache=True, nogil=True)
def _max_arc_features(n: int) -> int:
    """:func:`max_arc_features`'s kernel."""
    return 2 * (N_FIXED_TEMPLATES + 2 * max(n - 1, 0))


def _check_sentence(tokens: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(tokens, weights, n) checked for the scoring kernels: ``tokens`` an int64 (N_ATTRIBUTES, n + 1) array of
    ids >= 1, ``weights`` a float vector of power-of-two size (finiteness: see :func:`check_scored`)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    return tokens, check_weights(weights, finite=False), tokens.shape[1] - 1


def arc_scores(tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``scores[h, m]`` = the summed weights of the arc's features where ``allowed[h, m]`` (a bool (n + 1, n + 1)
    mask), ``-inf`` elsewhere (and on the diagonal and into the root). ``weights`` has a power-of-two size; a
    weight the sentence reads that is not finite is a ValueError."""
    tokens, weights, n = _check_sentence(tokens, weights)
    scores = _arc_scores(tokens, weights, check_allowed(allowed, n=n))
    return check_scored(scores, what="arc score")


@numba.njit(cache=True, nogil=True)
def _arc_scores(tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """:func:`arc_scores`'s kernel."""
    n = tokens.shape[1] - 1
    mask = np.uint64(weights.shape[0] - 1)
    scores = np.full((n + 1, n + 1), -np.inf)
    out = np.empty(_max_arc_features(n), dtype=np.int64)
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m or not allowed[h, m]:
                continue
            count = _arc_features(tokens, h, m, mask, out)
            total = 0.0
            for i in range(count):
                total += weights[out[i]]
            scores[h, m] = total
    return scores


#: Templates of one second-order part (each emitted plain and with the arcs' directions).
N_PART_TEMPLATES = 9

SIBLING, INNER, OUTER = 0, 1, 2


@numba.njit(cache=True, nogil=True, inline="always")
def _attribute(tokens: np.ndarray, row: int, position: int, none: bool) -> int:
    return NONE if none else tokens[row, position]


@numba.njit(cache=True, nogil=True)
def _part_features(
    tokens: np.ndarray, kind: int, h: int, m: int, x: int, mask: np.uint64, out: np.ndarray
) -> int:
    """Write the feature indices of one second-order part into ``out`` (size >= 2 * N_PART_TEMPLATES): ``kind``
    :data:`SIBLING` (``x`` = the adjacent inner sibling, ``h`` for none), :data:`INNER` or :data:`OUTER`
    (``x`` = the grandchild, ``m`` for none). Returns how many were written."""
    none = x == h if kind == SIBLING else x == m
    xw, xp, xc = (
        _attribute(tokens, WORD, x, none),
        _attribute(tokens, POS, x, none),
        _attribute(tokens, COARSE, x, none),
    )
    hw, hp, hc = tokens[WORD, h], tokens[POS, h], tokens[COARSE, h]
    mw, mp, mc = tokens[WORD, m], tokens[POS, m], tokens[COARSE, m]
    dd = (1 if h < m else 0) * 2 + (1 if m < x else 0)
    base = 100 + 20 * kind
    k = 0
    if kind == SIBLING:
        k = _emit(out, k, base, hp, xp, mp, 0, dd, mask)
        k = _emit(out, k, base + 1, hc, xc, mc, 0, dd, mask)
        k = _emit(out, k, base + 2, xp, mp, 0, 0, dd, mask)
        k = _emit(out, k, base + 3, xw, mw, 0, 0, dd, mask)
        k = _emit(out, k, base + 4, xw, mp, 0, 0, dd, mask)
        k = _emit(out, k, base + 5, xp, mw, 0, 0, dd, mask)
        k = _emit(out, k, base + 6, hw, xp, mp, 0, dd, mask)
        k = _emit(out, k, base + 7, hp, xp, mw, 0, dd, mask)
        k = _emit(out, k, base + 8, hw, xw, mw, 0, dd, mask)
    else:
        k = _emit(out, k, base, hp, mp, xp, 0, dd, mask)
        k = _emit(out, k, base + 1, hc, mc, xc, 0, dd, mask)
        k = _emit(out, k, base + 2, hp, xp, 0, 0, dd, mask)
        k = _emit(out, k, base + 3, mp, xp, 0, 0, dd, mask)
        k = _emit(out, k, base + 4, hw, mp, xp, 0, dd, mask)
        k = _emit(out, k, base + 5, hp, mw, xp, 0, dd, mask)
        k = _emit(out, k, base + 6, hp, mp, xw, 0, dd, mask)
        k = _emit(out, k, base + 7, hw, xw, 0, 0, dd, mask)
        k = _emit(out, k, base + 8, mw, xw, 0, 0, dd, mask)
    return k


@numba.njit(cache=True, nogil=True, inline="always")
def _part_score(tokens, weights, kind, h, m, x, mask, out) -> float:
    count = _part_features(tokens, kind, h, m, x, mask, out)
    total = 0.0
    for i in range(count):
        total += weights[out[i]]
    return total


def second_order_scores(
    tokens: np.ndarray, weights: np.ndarray, arc: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sib, inner, outer) arrays for :func:`decoders.parsing.second_order.second_order`, scored for every arc
    that ``arc`` (the sentence's (n + 1, n + 1) arc scores) does not forbid (entries the DP never reads stay
    0)."""
    tokens, weights, n = _check_sentence(tokens, weights)
    parts = _second_order_scores(tokens, weights, check_arc_scores(arc, "arc", n=n))
    for part, name in zip(parts, ("sib", "inner", "outer"), strict=True):
        check_scored(part, what=f"{name} score")
    return parts


@numba.njit(cache=True, nogil=True)
def _second_order_scores(
    tokens: np.ndarray, weights: np.ndarray, arc: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`second_order_scores`'s kernel."""
    n = tokens.shape[1] - 1
    mask = np.uint64(weights.shape[0] - 1)
    sib = np.zeros((n + 1, n + 1, n + 1))
    inner = np.zeros((n + 1, n + 1, n + 1))
    outer = np.zeros((n + 1, n + 1, n + 1))
    out = np.empty(2 * N_PART_TEMPLATES, dtype=np.int64)
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m or arc[h, m] == -np.inf:
                continue
            step = 1 if m > h else -1
            sib[h, m, h] = _part_score(tokens, weights, SIBLING, h, m, h, mask, out)
            inner[h, m, m] = _part_score(tokens, weights, INNER, h, m, m, mask, out)
            outer[h, m, m] = _part_score(tokens, weights, OUTER, h, m, m, mask, out)
            if h != 0:  # the root has one modifier: no siblings
                for s in range(h + step, m, step):
                    sib[h, m, s] = _part_score(tokens, weights, SIBLING, h, m, s, mask, out)
            for c in range(h + step, m, step):
                inner[h, m, c] = _part_score(tokens, weights, INNER, h, m, c, mask, out)
            end = n + 1 if step == 1 else 0
            for c in range(m + step, end, step):
                outer[h, m, c] = _part_score(tokens, weights, OUTER, h, m, c, mask, out)
    return sib, inner, outer


def arcs_features(
    tokens: np.ndarray, heads: np.ndarray, mods: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The feature indices of the arcs ``heads[j] -> mods[j]`` (heads in 0..n, modifiers in 1..n, no loop) and,
    for each index, its arc ``j``; ``size``: the weight vector's (a power of two)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    n = tokens.shape[1] - 1
    heads, mods = check_ids(heads, "heads", ndim=1), check_ids(mods, "mods", ndim=1)
    if heads.shape != mods.shape:
        raise ValueError(f"heads and mods must have the same length, got {len(heads)} and {len(mods)}")
    check_range(heads, "heads", 0, n)
    check_range(mods, "mods", 1, n)
    if (heads == mods).any():
        j = int(np.flatnonzero(heads == mods)[0])
        raise ValueError(f"heads[{j}] = mods[{j}] = {int(mods[j])}: an arc cannot be a loop")
    return _arcs_features(tokens, heads, mods, check_size(size))


@numba.njit(cache=True, nogil=True)
def _arcs_features(
    tokens: np.ndarray, heads: np.ndarray, mods: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`arcs_features`'s kernel."""
    n = tokens.shape[1] - 1
    mask = np.uint64(size - 1)
    room = _max_arc_features(n)
    out = np.empty(max(len(heads), 1) * room, dtype=np.int64)
    owner = np.empty(max(len(heads), 1) * room, dtype=np.int64)
    k = 0
    for j in range(len(heads)):
        written = _arc_features(tokens, heads[j], mods[j], mask, out[k:])
        owner[k : k + written] = j
        k += written
    return out[:k], owner[:k]


def tree_features(tokens: np.ndarray, heads: np.ndarray, size: int, second_order: bool) -> np.ndarray:
    """The feature indices of a whole tree (full head array): every arc's and, with ``second_order``, every
    part's (its sibling, inner and outer grandchild), repeated as often as they fire, for perceptron updates;
    ``size``: the weight vector's (a power of two)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    heads = check_heads(heads, n=tokens.shape[1] - 1)
    if not isinstance(second_order, bool | np.bool_):
        raise ValueError(f"second_order must be True or False, got {second_order!r}")
    return _tree_features(tokens, heads, check_size(size), bool(second_order))


@numba.njit(cache=True, nogil=True)
def _tree_features(tokens: np.ndarray, heads: np.ndarray, size: int, second_order: bool) -> np.ndarray:
    """:func:`tree_features`'s kernel."""
    n = heads.shape[0] - 1
    mask = np.uint64(size - 1)
    per_word = _max_arc_features(n) + (3 * 2 * N_PART_TEMPLATES if second_order else 0)
    out = np.empty(max(n, 1) * per_word, dtype=np.int64)
    parts = _second_order_parts(heads)
    k = 0
    for m in range(1, n + 1):
        h = heads[m]
        k += _arc_features(tokens, h, m, mask, out[k:])
        if second_order:
            k += _part_features(tokens, SIBLING, h, m, parts[m, 1], mask, out[k:])
            k += _part_features(tokens, INNER, h, m, parts[m, 2], mask, out[k:])
            k += _part_features(tokens, OUTER, h, m, parts[m, 3], mask, out[k:])
    return out[:k]
