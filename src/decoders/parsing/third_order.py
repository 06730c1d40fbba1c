"""Third-order projective parsing: Koo and Collins (2010) Model 1 (grand-siblings), O(n^4) (numba), the
"3rd order re-impl." row of Qian and Liu (2013, Table 2).

A tree scores, for every arc ``h -> m`` whose head ``h`` has head ``g`` (none for the root's arc) and whose
adjacent inner sibling is ``s`` (``s = h`` when ``m`` is ``h``'s first modifier on that side):
``arc[h, m] + sib[h, m, s] + grand[g, h, m] + gsib(g, h, s, m)``, all from hashed features
(:mod:`decoders.parsing.features`): the first-order arc features, the second-order sibling templates, and the
grandchild and grand-sibling templates below. The grand-sibling part has four indices, so it is scored inside
the DP where it is needed instead of being stored.

Spans carry the head of their head (Koo and Collins' g-spans): complete ``C[g, h, e]`` (h's subtree on one side,
up to e, h's head g), incomplete ``I[g, h, m]`` (the arc h -> m, h's modifiers between them and m's inner half)
and sibling spans ``S[h, s, m]`` (adjacent modifiers s, m of h and what lies between them):
``C[g, h, e] = max_m I[g, h, m] + C[h, m, e]``; ``I[g, h, m] = max(C[h, m, h+-1] + part(g, h, -, m),
max_s I[g, h, s] + S[h, s, m] + part(g, h, s, m))``; ``S[h, s, m] = max_r C[h, s, r] + C[h, m, r+-1]``.
Only allowed arcs are expanded and only allowed heads of h are grandparents, so pruning to k heads makes it
O(n^2 k^2) in practice. The root takes exactly one modifier. Ties go to the first choice in loop order.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.parsing.checks import check_allowed, check_heads, check_scored, check_size, check_tokens
from decoders.parsing.features import (
    COARSE,
    LOWER,
    N_ATTRIBUTES,
    NONE,
    POS,
    SIBLING,
    _arc_features,
    _arc_scores,
    _check_sentence,
    _emit,
    _max_arc_features,
    _part_features,
)

NEG_INF = -np.inf
N_GRAND_TEMPLATES = 6
N_GSIB_TEMPLATES = 4


@numba.njit(cache=True, nogil=True, inline="always")
def _value(tokens: np.ndarray, row: int, position: int) -> int:
    return NONE if position < 0 else tokens[row, position]


@numba.njit(cache=True, nogil=True)
def _grand_features(tokens: np.ndarray, g: int, h: int, m: int, mask: np.uint64, out: np.ndarray) -> int:
    """Grandchild templates of ``g -> h -> m`` (g = -1: the root's arc, no grandparent): gp.hp.mp, gc.hc.mc,
    gp.mp, gl.hp.mp, gp.hp.ml, gl.ml, each plain and with the two arcs' directions."""
    dd = (1 if g < h else 0) * 2 + (1 if h < m else 0)
    gp, gc, gl = _value(tokens, POS, g), _value(tokens, COARSE, g), _value(tokens, LOWER, g)
    hp, hc = tokens[POS, h], tokens[COARSE, h]
    mp, mc, ml = tokens[POS, m], tokens[COARSE, m], tokens[LOWER, m]
    k = _emit(out, 0, 400, gp, hp, mp, 0, dd, mask)
    k = _emit(out, k, 401, gc, hc, mc, 0, dd, mask)
    k = _emit(out, k, 402, gp, mp, 0, 0, dd, mask)
    k = _emit(out, k, 403, gl, hp, mp, 0, dd, mask)
    k = _emit(out, k, 404, gp, hp, ml, 0, dd, mask)
    return _emit(out, k, 405, gl, ml, 0, 0, dd, mask)


@numba.njit(cache=True, nogil=True)
def _grand_sibling_features(
    tokens: np.ndarray, g: int, h: int, s: int, m: int, mask: np.uint64, out: np.ndarray
) -> int:
    """Grand-sibling templates of ``g -> h -> {s, m}`` (s = h: no sibling; g = -1: no grandparent):
    gp.hp.sp.mp, gc.hc.sc.mc, gp.sp.mp, gc.sc.mc, each plain and with the arcs' directions."""
    dd = (1 if g < h else 0) * 2 + (1 if h < m else 0)
    gp, gc = _value(tokens, POS, g), _value(tokens, COARSE, g)
    sp = NONE if s == h else tokens[POS, s]
    sc = NONE if s == h else tokens[COARSE, s]
    k = _emit(out, 0, 420, gp, tokens[POS, h], sp, tokens[POS, m], dd, mask)
    k = _emit(out, k, 421, gc, tokens[COARSE, h], sc, tokens[COARSE, m], dd, mask)
    k = _emit(out, k, 422, gp, sp, tokens[POS, m], 0, dd, mask)
    return _emit(out, k, 423, gc, sc, tokens[COARSE, m], 0, dd, mask)


@numba.njit(cache=True, nogil=True, inline="always")
def _sum(weights: np.ndarray, out: np.ndarray, count: int) -> float:
    total = 0.0
    for i in range(count):
        total += weights[out[i]]
    return total


def third_order(tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, float]:
    """(heads, score) of the best single-rooted projective tree under Model 1 over the allowed arcs (a bool (n +
    1, n + 1) mask); ``tokens`` and ``weights`` as :func:`decoders.parsing.features.arc_scores` takes them. A
    weight the sentence reads that is not finite is a ValueError (found in the score: a NaN or ``+inf`` one)."""
    tokens, weights, n = _check_sentence(tokens, weights)
    arc = check_scored(_arc_scores(tokens, weights, check_allowed(allowed, n=n)), what="arc score")
    heads, score = _third_order(tokens, weights, arc)
    check_scored(np.float64(score), what="tree score")
    return heads, score


@numba.njit(cache=True, nogil=True)
def _third_order(tokens: np.ndarray, weights: np.ndarray, arc: np.ndarray) -> tuple[np.ndarray, float]:
    """:func:`third_order`'s kernel, given the sentence's arc scores (``-inf``: not allowed)."""
    n = tokens.shape[1] - 1
    heads = np.full(n + 1, -1, dtype=np.int64)
    if n == 0:
        return heads, 0.0
    mask = np.uint64(weights.shape[0] - 1)
    none = n + 1  # the grandparent index of the root's own spans
    out = np.empty(max(_max_arc_features(n), 2 * N_GRAND_TEMPLATES), dtype=np.int64)
    sib = np.zeros((n + 1, n + 1, n + 1))
    grand = np.zeros((n + 2, n + 1, n + 1))
    for h in range(n + 1):
        for m in range(1, n + 1):
            if arc[h, m] == NEG_INF:
                continue
            step = 1 if m > h else -1
            for s in range(h, m if h > 0 else h + 1, step):  # the root's one modifier has no sibling
                if s == h or arc[h, s] != NEG_INF:
                    sib[h, m, s] = _sum(weights, out, _part_features(tokens, SIBLING, h, m, s, mask, out))
            if h == 0:
                grand[none, 0, m] = _sum(weights, out, _grand_features(tokens, -1, 0, m, mask, out))
            for g in range(n + 1):
                if arc[g, h] != NEG_INF:
                    grand[g, h, m] = _sum(weights, out, _grand_features(tokens, g, h, m, mask, out))
    complete = np.full((n + 2, n + 1, n + 1), NEG_INF)
    complete_arg = np.zeros((n + 2, n + 1, n + 1), dtype=np.int64)
    incomplete = np.full((n + 2, n + 1, n + 1), NEG_INF)
    incomplete_arg = np.zeros((n + 2, n + 1, n + 1), dtype=np.int64)
    sibling = np.full((n + 1, n + 1, n + 1), NEG_INF)
    sibling_arg = np.zeros((n + 1, n + 1, n + 1), dtype=np.int64)
    for h in range(1, n + 1):
        for g in range(n + 1):
            if arc[g, h] != NEG_INF:
                complete[g, h, h] = 0.0
    for width in range(1, n):
        for lo in range(1, n - width + 1):
            hi = lo + width
            for direction in range(2):
                h, m = (lo, hi) if direction == 0 else (hi, lo)
                if arc[h, m] == NEG_INF:
                    continue
                step = 1 if m > h else -1
                for s in range(h + step, m, step):  # sibling spans s .. m under h
                    if arc[h, s] == NEG_INF:
                        continue
                    best, best_r = NEG_INF, s
                    for r in range(min(s, m), max(s, m)):
                        if step == 1:
                            value = complete[h, s, r] + complete[h, m, r + 1]
                        else:
                            value = complete[h, m, r] + complete[h, s, r + 1]
                        if value > best:
                            best, best_r = value, r
                    sibling[h, s, m], sibling_arg[h, s, m] = best, best_r
                inner = complete[h, m, h + step]
                for g in range(n + 1):
                    if arc[g, h] == NEG_INF:
                        continue
                    count = _grand_sibling_features(tokens, g, h, h, m, mask, out)
                    first = arc[h, m] + sib[h, m, h] + grand[g, h, m] + _sum(weights, out, count)
                    best, best_s = inner + first, h
                    for s in range(h + step, m, step):
                        if sibling[h, s, m] == NEG_INF or incomplete[g, h, s] == NEG_INF:
                            continue
                        count = _grand_sibling_features(tokens, g, h, s, m, mask, out)
                        part = arc[h, m] + sib[h, m, s] + grand[g, h, m] + _sum(weights, out, count)
                        value = incomplete[g, h, s] + sibling[h, s, m] + part
                        if value > best:
                            best, best_s = value, s
                    incomplete[g, h, m], incomplete_arg[g, h, m] = best, best_s
        for lo in range(1, n - width + 1):
            hi = lo + width
            for direction in range(2):
                h, e = (lo, hi) if direction == 0 else (hi, lo)
                step = 1 if e > h else -1
                for g in range(n + 1):
                    if arc[g, h] == NEG_INF:
                        continue
                    best, best_m = NEG_INF, e
                    for m in range(h + step, e + step, step):
                        value = incomplete[g, h, m] + complete[h, m, e]
                        if value > best:
                            best, best_m = value, m
                    complete[g, h, e], complete_arg[g, h, e] = best, best_m
    best, root_child = NEG_INF, 1
    for m in range(1, n + 1):
        if arc[0, m] == NEG_INF:
            continue
        count = _grand_sibling_features(tokens, -1, 0, 0, m, mask, out)
        part = arc[0, m] + sib[0, m, 0] + grand[none, 0, m] + _sum(weights, out, count)
        value = complete[0, m, 1] + part + complete[0, m, n]
        if value > best:
            best, root_child = value, m
    if best == NEG_INF:
        return heads, best
    heads[root_child] = 0
    # back-trace: (kind, a, b, c): 0 = C[a, b, c], 1 = I[a, b, c], 2 = S[a, b, c]
    stack = np.empty((4 * n + 8, 4), dtype=np.int64)
    stack[0] = (0, 0, root_child, 1)
    stack[1] = (0, 0, root_child, n)
    top = 2
    while top > 0:
        top -= 1
        kind, a, b, c = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if kind == 0:
            g, h, e = a, b, c
            if e == h:
                continue
            m = complete_arg[g, h, e]
            stack[top] = (1, g, h, m)
            stack[top + 1] = (0, h, m, e)
            top += 2
        elif kind == 1:
            g, h, m = a, b, c
            heads[m] = h
            step = 1 if m > h else -1
            s = incomplete_arg[g, h, m]
            if s == h:
                stack[top] = (0, h, m, h + step)
                top += 1
            else:
                stack[top] = (1, g, h, s)
                stack[top + 1] = (2, h, s, m)
                top += 2
        else:
            h, s, m = a, b, c
            r = sibling_arg[h, s, m]
            if m > h:
                stack[top] = (0, h, s, r)
                stack[top + 1] = (0, h, m, r + 1)
            else:
                stack[top] = (0, h, m, r)
                stack[top + 1] = (0, h, s, r + 1)
            top += 2
    return heads, best


def third_order_features(tokens: np.ndarray, heads: np.ndarray, size: int) -> np.ndarray:
    """The feature indices of a tree (a full head array) under Model 1 (per word: arc, sibling, grandchild,
    grand-sibling); ``size``: the weight vector's (a power of two)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    heads = check_heads(heads, n=tokens.shape[1] - 1)
    return _third_order_features(tokens, heads, check_size(size))


@numba.njit(cache=True, nogil=True)
def _third_order_features(tokens: np.ndarray, heads: np.ndarray, size: int) -> np.ndarray:
    """:func:`third_order_features`'s kernel."""
    n = heads.shape[0] - 1
    mask = np.uint64(size - 1)
    per_word = _max_arc_features(n) + 2 * (9 + N_GRAND_TEMPLATES + N_GSIB_TEMPLATES)
    out = np.empty(max(n, 1) * per_word, dtype=np.int64)
    k = 0
    for m in range(1, n + 1):
        h = heads[m]
        g = heads[h] if h > 0 else -1
        step = 1 if m > h else -1
        s = h
        j = m - step
        while j != h:
            if heads[j] == h:
                s = j
                break
            j -= step
        k += _arc_features(tokens, h, m, mask, out[k:])
        k += _part_features(tokens, SIBLING, h, m, s, mask, out[k:])
        k += _grand_features(tokens, g, h, m, mask, out[k:])
        k += _grand_sibling_features(tokens, g, h, s, m, mask, out[k:])
    return out[:k]
