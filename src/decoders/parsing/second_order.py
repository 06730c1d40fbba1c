"""Second-order projective parsing in the style of Carreras (2007): arcs, adjacent siblings and outermost
grandchildren, exact by an O(n^4) dynamic program (numba). The baseline and the B&B backbone of Qian and Liu
(2013).

A tree scores, for every arc ``h -> m``:

* ``arc[h, m]``;
* ``sib[h, m, s]``: ``s`` is the modifier of ``h`` between ``h`` and ``m`` closest to ``m`` (the adjacent
  inner sibling), ``s = h`` when ``m`` is ``h``'s first modifier on that side;
* ``inner[h, m, c]``: ``c`` is the modifier of ``m`` between ``h`` and ``m`` furthest from ``m``, ``c = m``
  when there is none;
* ``outer[h, m, c]``: ``c`` is the modifier of ``m`` on the side away from ``h`` furthest from ``m``, ``c = m``
  when there is none.

``-inf`` in ``arc`` forbids an arc. The root (position 0) takes exactly one modifier.

The DP keeps complete spans ``C[h, e, c]`` (head ``h``, covering ``h..e``, ``c`` the modifier of ``h`` in the
span furthest from ``h``, i.e. the outermost one; ``c = h`` only for the empty span ``e = h``) and incomplete
spans ``I[h, m]`` (the arc ``h -> m`` and everything between): ``I[h, m] = arc + max_r [max_c C[h, r, c] +
sib[h, m, c]] + [max_c' C[m, r+1, c'] + inner[h, m, c']]`` and ``C[h, e, m] = I[h, m] + max_c' C[m, e, c'] +
outer[h, m, c']``. Both the split point and the children it remembers make it O(n^4) time and O(n^3) space.
Ties go to the first split / child / modifier in loop order.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.parsing.checks import check_heads, check_parts

NEG_INF = -np.inf


@numba.njit(cache=True, nogil=True, inline="always")
def _children_range(head: int, end: int) -> tuple[int, int, int]:
    """(first, stop, step) over the possible outermost children ``c`` of a complete span of ``head`` to
    ``end`` (``head`` itself when the span is empty)."""
    if end == head:
        return head, head + 1, 1
    if end > head:
        return head + 1, end + 1, 1
    return end, head, 1


@numba.njit(cache=True, nogil=True, inline="always")
def _best_child(
    complete: np.ndarray, part: np.ndarray, h: int, m: int, head: int, end: int
) -> tuple[float, int]:
    """``max_c complete[head, end, c] + part[h, m, c]`` over the outermost children ``c`` of the span, and c."""
    first, stop, step = _children_range(head, end)
    best, arg = NEG_INF, head
    for c in range(first, stop, step):
        value = complete[head, end, c] + part[h, m, c]
        if value > best:
            best, arg = value, c
    return best, arg


@numba.njit(cache=True, nogil=True)
def _inside(arc, sib, inner, outer):
    """The DP's charts: complete and incomplete span scores, and the back-pointers of the best derivations
    (outer grandchild of a complete span; split point, sibling and inner grandchild of an incomplete one)."""
    n = arc.shape[0] - 1
    complete = np.full((n + 1, n + 1, n + 1), NEG_INF)
    complete_child = np.zeros((n + 1, n + 1, n + 1), dtype=np.int32)  # the outer grandchild chosen
    incomplete = np.full((n + 1, n + 1), NEG_INF)
    split = np.zeros((n + 1, n + 1), dtype=np.int32)
    sibling = np.zeros((n + 1, n + 1), dtype=np.int32)
    grandchild = np.zeros((n + 1, n + 1), dtype=np.int32)
    for h in range(1, n + 1):
        complete[h, h, h] = 0.0
    for width in range(1, n):
        for lo in range(1, n - width + 1):
            hi = lo + width
            for direction in range(2):
                h, m = (lo, hi) if direction == 0 else (hi, lo)
                if arc[h, m] == NEG_INF:
                    continue
                best, best_r, best_s, best_c = NEG_INF, 0, 0, 0
                for r in range(lo, hi):
                    # the head's side covers h..r (right arc) or r+1..h (left arc), the modifier's the rest
                    head_end, mod_end = (r, r + 1) if direction == 0 else (r + 1, r)
                    left, left_s = _best_child(complete, sib, h, m, h, head_end)
                    if left == NEG_INF:
                        continue
                    right, right_c = _best_child(complete, inner, h, m, m, mod_end)
                    if left + right > best:
                        best, best_r, best_s, best_c = left + right, r, left_s, right_c
                incomplete[h, m] = best + arc[h, m]
                split[h, m], sibling[h, m], grandchild[h, m] = best_r, best_s, best_c
        for lo in range(1, n - width + 1):
            hi = lo + width
            for direction in range(2):
                h, e = (lo, hi) if direction == 0 else (hi, lo)
                first, stop, step = _children_range(h, e)
                for m in range(first, stop, step):
                    if incomplete[h, m] == NEG_INF:
                        continue
                    best, best_c = _best_child(complete, outer, h, m, m, e)
                    complete[h, e, m] = incomplete[h, m] + best
                    complete_child[h, e, m] = best_c
    return complete, complete_child, incomplete, split, sibling, grandchild


def second_order(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray
) -> tuple[np.ndarray, float]:
    """(heads, score) of the best single-rooted projective tree under the second-order parts; ``heads[0] = -1``.
    The arrays as :func:`decoders.parsing.checks.check_parts` takes them (ValueError otherwise).

    If every tree uses a ``-inf`` arc, the score is ``-inf`` and ``heads[1:]`` are -1.
    """
    return _second_order(*check_parts(arc, sib, inner, outer))


@numba.njit(cache=True, nogil=True)
def _second_order(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray
) -> tuple[np.ndarray, float]:
    """:func:`second_order`'s kernel, for compiled callers and callers that checked the arrays."""
    n = arc.shape[0] - 1
    heads = np.full(n + 1, -1, dtype=np.int64)
    if n == 0:
        return heads, 0.0
    complete, complete_child, incomplete, split, sibling, grandchild = _inside(arc, sib, inner, outer)
    # the root's one modifier m: no sibling (s = 0), m's left span 1..m and right span m..n
    best, root_child, root_inner, root_outer = NEG_INF, 1, 1, 1
    for m in range(1, n + 1):
        if arc[0, m] == NEG_INF:
            continue
        left, left_c = _best_child(complete, inner, 0, m, m, 1)
        right, right_c = _best_child(complete, outer, 0, m, m, n)
        value = arc[0, m] + sib[0, m, 0] + left + right
        if value > best:
            best, root_child, root_inner, root_outer = value, m, left_c, right_c
    if best == NEG_INF:
        return heads, best
    heads[root_child] = 0
    # back-trace: (kind, head, end or modifier, outermost child); kind 0 = complete, 1 = incomplete
    stack = np.empty((2 * n + 4, 4), dtype=np.int64)
    stack[0] = (0, root_child, 1, root_inner)
    stack[1] = (0, root_child, n, root_outer)
    top = 2
    while top > 0:
        top -= 1
        kind, h, b, c = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if kind == 0:
            if b == h:
                continue
            stack[top] = (1, h, c, 0)
            stack[top + 1] = (0, c, b, np.int64(complete_child[h, b, c]))
            top += 2
        else:
            m = b
            heads[m] = h
            r, s, g = np.int64(split[h, m]), np.int64(sibling[h, m]), np.int64(grandchild[h, m])
            if h < m:
                stack[top] = (0, h, r, s)
                stack[top + 1] = (0, m, r + 1, g)
            else:
                stack[top] = (0, h, r + 1, s)
                stack[top + 1] = (0, m, r, g)
            top += 2
    return heads, best


def second_order_parts(heads: np.ndarray) -> np.ndarray:
    """Per word ``m`` (rows 1..n): (head h, adjacent inner sibling s, inner grandchild, outer grandchild) as the
    module docstring defines them (``s = h`` / ``c = m`` for none); row 0 is unused. ``heads``: a full head
    array (ValueError when a head is out of range or a word heads itself)."""
    return _second_order_parts(check_heads(heads))


@numba.njit(cache=True, nogil=True)
def _second_order_parts(heads: np.ndarray) -> np.ndarray:
    """:func:`second_order_parts`'s kernel."""
    n = heads.shape[0] - 1
    parts = np.zeros((n + 1, 4), dtype=np.int64)
    for m in range(1, n + 1):
        h = heads[m]
        sibling, inner, outer = h, m, m
        step = 1 if m > h else -1
        # inner sibling: the modifier of h strictly between h and m that is closest to m
        k = m - step
        while k != h:
            if heads[k] == h:
                sibling = k
                break
            k -= step
        # inner grandchild: the child of m strictly between h and m furthest from m (closest to h)
        k = h + step
        while k != m:
            if heads[k] == m:
                inner = k
                break
            k += step
        # outer grandchild: the child of m beyond m (away from h) furthest from m
        k = n if step == 1 else 1
        while k != m:
            if heads[k] == m:
                outer = k
                break
            k -= step
        parts[m, 0], parts[m, 1], parts[m, 2], parts[m, 3] = h, sibling, inner, outer
    return parts


def second_order_score(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray, heads: np.ndarray
) -> float:
    """The second-order score of a tree (full head array of the arrays' sentence)."""
    arc, sib, inner, outer = check_parts(arc, sib, inner, outer)
    return _second_order_score(arc, sib, inner, outer, check_heads(heads, n=arc.shape[0] - 1))


@numba.njit(cache=True, nogil=True)
def _second_order_score(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray, heads: np.ndarray
) -> float:
    """:func:`second_order_score`'s kernel."""
    parts = _second_order_parts(heads)
    total = 0.0
    for m in range(1, heads.shape[0]):
        h, s, ci, co = parts[m, 0], parts[m, 1], parts[m, 2], parts[m, 3]
        total += arc[h, m] + sib[h, m, s] + inner[h, m, ci] + outer[h, m, co]
    return total


def second_order_max_marginals(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray
) -> np.ndarray:
    """``(n + 1, n + 1)``: per arc ``h -> m``, the best score of a single-rooted projective tree that contains it
    (``-inf`` when none does): the inside score of its incomplete span plus the best outside score, from one
    outside pass over the same hypergraph, widest spans first (about one DP call's work). The arrays as
    :func:`decoders.parsing.checks.check_parts` takes them."""
    return _second_order_max_marginals(*check_parts(arc, sib, inner, outer))


@numba.njit(cache=True, nogil=True)
def _second_order_max_marginals(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray
) -> np.ndarray:
    """:func:`second_order_max_marginals`'s kernel."""
    n = arc.shape[0] - 1
    marginal = np.full((n + 1, n + 1), NEG_INF)
    if n == 0:
        return marginal
    complete, _, incomplete, _, _, _ = _inside(arc, sib, inner, outer)
    out_complete = np.full((n + 1, n + 1, n + 1), NEG_INF)
    out_incomplete = np.full((n + 1, n + 1), NEG_INF)
    for m in range(1, n + 1):
        if arc[0, m] == NEG_INF:
            continue
        base = arc[0, m] + sib[0, m, 0]
        left, _ = _best_child(complete, inner, 0, m, m, 1)
        right, _ = _best_child(complete, outer, 0, m, m, n)
        marginal[0, m] = base + left + right
        _push(out_complete, complete, inner, 0, m, m, 1, base + right)
        _push(out_complete, complete, outer, 0, m, m, n, base + left)
    for width in range(n - 1, 0, -1):
        # complete spans of this width consume incomplete spans of the same width (e = m), so go first
        for lo in range(1, n - width + 1):
            hi = lo + width
            for direction in range(2):
                h, e = (lo, hi) if direction == 0 else (hi, lo)
                first, stop, step = _children_range(h, e)
                for m in range(first, stop, step):
                    above = out_complete[h, e, m]
                    if above == NEG_INF or complete[h, e, m] == NEG_INF:
                        continue
                    best, _ = _best_child(complete, outer, h, m, m, e)
                    out_incomplete[h, m] = max(out_incomplete[h, m], above + best)
                    _push(out_complete, complete, outer, h, m, m, e, above + incomplete[h, m])
        for lo in range(1, n - width + 1):
            hi = lo + width
            for direction in range(2):
                h, m = (lo, hi) if direction == 0 else (hi, lo)
                above = out_incomplete[h, m]
                if above == NEG_INF or incomplete[h, m] == NEG_INF:
                    continue
                marginal[h, m] = incomplete[h, m] + above
                for r in range(lo, hi):
                    head_end, mod_end = (r, r + 1) if direction == 0 else (r + 1, r)
                    left, _ = _best_child(complete, sib, h, m, h, head_end)
                    right, _ = _best_child(complete, inner, h, m, m, mod_end)
                    if left == NEG_INF or right == NEG_INF:
                        continue
                    _push(out_complete, complete, sib, h, m, h, head_end, above + arc[h, m] + right)
                    _push(out_complete, complete, inner, h, m, m, mod_end, above + arc[h, m] + left)
    return marginal


@numba.njit(cache=True, nogil=True, inline="always")
def _push(out_complete, complete, part, h, m, head, end, rest) -> None:
    """Outside scores of the complete spans ``head..end`` (every outermost child ``c``) used with ``part[h, m,
    c]`` by a consumer whose other pieces and own outside score sum to ``rest``."""
    first, stop, step = _children_range(head, end)
    for c in range(first, stop, step):
        if complete[head, end, c] == NEG_INF:
            continue
        value = rest + part[h, m, c]
        if value > out_complete[head, end, c]:
            out_complete[head, end, c] = value
