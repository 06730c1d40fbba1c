"""Exact MinDR on decomposable instances: Algorithm 1 of Blanco, Boldi and Marino (ExtMinDR recursion through
useful edges) with the useful-edge search of Algorithms 2-3 as an iterative depth-first search (numba).

An instance is decomposable when every ``G[X_i]`` is connected and vertices of different sets never share a
biconnected component (the paper's "biconnected" is bridgeless, i.e. 2-edge-connected). A *useful edge* is a
bridge whose ends are not in one set and which leaves sets on both of its sides; cutting it splits the problem
into two ExtMinDR instances whose extra summand ``sum_{z in B} b(z) d(x, z)`` carries the other side's pull
through the bridge's end (Theorem 1). With one set left, the best vertex minimises that weighted sum.

The solver works on *groups* of sets (section 5.1's non-disjoint case): the groups' vertex sets must be disjoint
and play the role of the sets while splitting; a group left alone picks, for each of its member sets
independently, the member minimising the weighted sum. Weights count member sets (every set contributes one
chosen vertex to the pairs crossing a bridge), so with one set per group this is exactly Algorithm 1.
Distances in a sub-instance equal those in the whole graph (all cuts are bridges), so the base case searches the
whole graph from each ``B`` vertex, stopping once the group's vertices are reached.

A disconnected instance (groups in several connected components of the graph plus the overlay) is solved one
component at a time: every group lies within one component, so a pair of sets in different components has no
path whatever the choice and adds the same constant (:func:`~decoders.linking.cost.unreachable_cost`, ``n``, in
the cost every decoder reports), and the optimum is the union of the components' optima.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from decoders.errors import DecodersError
from decoders.linking.checks import check_csr, check_sets
from decoders.linking.connection import _components_among
from decoders.linking.distances import _bfs_until, _group_distances
from decoders.linking.overlay import Overlay, check_overlay, empty_overlay


class NotDecomposableError(DecodersError):
    """The instance breaks a condition of decomposable MinDR, so Algorithm 1 does not apply."""


@numba.njit(cache=True, nogil=True)
def _popcount(words):
    count = 0
    for word in words:
        x = word
        while x != 0:
            x &= x - np.uint64(1)
            count += 1
    return count


@numba.njit(cache=True, nogil=True)
def _enter(
    u,
    visited,
    sp,
    indptr,
    ov_nodes,
    ov_indptr,
    group_of,
    dfs,
    low,
    ybits,
    order,
    st_v,
    st_cur,
    st_lo,
    st_hi,
    st_skip,
):
    """Number ``u`` in DFS order, give it its own group bit and push its frame; returns the new counters."""
    dfs[u] = visited
    low[u] = visited
    order[visited] = u
    ybits[u, :] = 0
    g = group_of[u]
    if g >= 0:
        ybits[u, g >> 6] |= np.uint64(1) << np.uint64(g & 63)
    st_v[sp] = u
    st_cur[sp] = indptr[u]
    st_lo[sp] = 0
    st_hi[sp] = 0
    if ov_nodes.shape[0] > 0:
        slot = np.searchsorted(ov_nodes, u)
        if slot < ov_nodes.shape[0] and ov_nodes[slot] == u:
            st_lo[sp] = ov_indptr[slot]
            st_hi[sp] = ov_indptr[slot + 1]
    st_skip[sp] = False
    return visited + 1, sp + 1


@numba.njit(cache=True, nogil=True)
def _find_useful_edge(
    indptr, indices, ov_nodes, ov_indptr, ov_indices, label, current, start, group_of, n_groups,
    dfs, low, ybits, order, st_v, st_cur, st_lo, st_hi, st_skip,
):  # fmt: skip
    """Algorithms 2-3: DFS from ``start`` over vertices labelled ``current``, returning at the first useful edge.

    ``Y`` (groups met in a DFS subtree) is a bitset row of ``ybits``; a tree edge ``(p, u)`` closing the subtree
    of ``u`` is useful when ``low[u] > dfs[p]`` (a bridge), ``p`` and ``u`` are not in one group and the
    subtree holds some but not all ``n_groups`` groups of the sub-instance. Returns ``(found, p, u, visited)``:
    the vertices numbered so far are ``order[:visited]`` (``dfs`` must be -1 on them again before the next
    call) and, when found, the side of ``u`` is ``order[dfs[u]:visited]``.
    """
    visited, sp = _enter(
        start, 0, 0, indptr, ov_nodes, ov_indptr, group_of, dfs, low, ybits, order, st_v, st_cur, st_lo, st_hi,
        st_skip,
    )  # fmt: skip
    while sp > 0:
        f = sp - 1
        u = st_v[f]
        p = st_v[f - 1] if f > 0 else -1
        w = -1
        while True:
            if st_cur[f] < indptr[u + 1]:
                candidate = indices[st_cur[f]]
                st_cur[f] += 1
            elif st_lo[f] < st_hi[f]:
                candidate = ov_indices[st_lo[f]]
                st_lo[f] += 1
            else:
                break
            if label[candidate] != current:
                continue
            if candidate == p and not st_skip[f]:
                st_skip[f] = True
                continue
            w = candidate
            break
        if w >= 0:
            if dfs[w] < 0:
                visited, sp = _enter(
                    w, visited, sp, indptr, ov_nodes, ov_indptr, group_of, dfs, low, ybits, order, st_v, st_cur,
                    st_lo, st_hi, st_skip,
                )  # fmt: skip
            elif dfs[w] < low[u]:
                low[u] = dfs[w]
            continue
        sp -= 1
        if f == 0:
            break
        if low[u] > dfs[p] and (group_of[u] < 0 or group_of[u] != group_of[p]):
            met = _popcount(ybits[u])
            if 0 < met < n_groups:
                return True, p, u, visited
        if low[u] < low[p]:
            low[p] = low[u]
        for word in range(ybits.shape[1]):
            ybits[p, word] |= ybits[u, word]
    return False, -1, -1, visited


def _check_groups(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    groups: list[list[int]],
) -> tuple[np.ndarray, list[np.ndarray]]:
    """``group_of`` (vertex -> group, -1 outside) and each group's vertices; raises when groups overlap or a
    group does not induce a connected subgraph (the decomposability conditions the search cannot see)."""
    n = indptr.shape[0] - 1
    group_of = np.full(n, -1, dtype=np.int32)
    members = []
    for g, group in enumerate(groups):
        vertices = np.unique(np.concatenate([sets[i] for i in group])).astype(np.int32)
        clash = group_of[vertices]
        if (clash >= 0).any():
            other = int(clash[clash >= 0][0])
            raise NotDecomposableError(
                f"candidate sets {groups[other]} and {group} share vertex "
                f"{int(vertices[clash >= 0][0])}; decomposable MinDR needs disjoint sets"
            )
        group_of[vertices] = g
        members.append(vertices)
        labels = _components_among(indptr, indices, vertices, overlay)
        if labels.size and labels.max() > 0:
            raise NotDecomposableError(
                f"candidate set(s) {group} induce {int(labels.max()) + 1} components; decomposable MinDR needs "
                "every G[X_i] connected"
            )
    return group_of, members


def _check_partition(groups, k: int) -> list[list[int]]:
    """``groups``: lists of set indices, every set ``0..k-1`` in exactly one non-empty group."""
    if isinstance(groups, str | bytes | dict | np.ndarray):
        raise ValueError(f"groups must be a sequence of lists of set indices, got {type(groups).__name__}")
    try:
        groups = [list(g) for g in groups]
    except TypeError:
        raise ValueError("groups must be a sequence of lists of set indices") from None
    owner = np.full(k, -1, dtype=np.int64)
    for g, group in enumerate(groups):
        if not group:
            raise ValueError(f"groups[{g}] is empty: every group holds at least one set")
        for p, i in enumerate(group):
            if isinstance(i, bool) or not isinstance(i, int | np.integer) or not 0 <= i < k:
                raise ValueError(f"groups[{g}][{p}] is {i!r}, not a set index in 0..{k - 1}")
            if owner[i] >= 0:
                raise ValueError(f"groups[{g}][{p}] = {i}: set {i} is already in groups[{owner[i]}]")
            owner[i] = g
        groups[g] = [int(i) for i in group]
    if (owner < 0).any():
        raise ValueError(f"groups leave set {int(np.argmax(owner < 0))} out: every set must be in one group")
    return groups


def decomposable_mindr(
    indptr: np.ndarray,
    indices: np.ndarray,
    sets: Sequence[np.ndarray],
    overlay: Overlay | None = None,
    groups: list[list[int]] | None = None,
) -> np.ndarray:
    """Positions (int64, one per set) of an optimal MinDR solution of a decomposable instance (Algorithm 1).

    ``sets`` are arrays of distinct vertex ids of the CSR graph (plus ``overlay``); ``groups`` (default: one set
    each) partitions the set indices into the units split together (section 5.1). Raises
    :class:`NotDecomposableError` when a sub-instance of several groups has no useful edge, i.e. the instance is
    not decomposable. Groups in different connected components are solved apart (see the module docstring).
    Arguments are checked first (ValueError naming the argument).
    """
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    sets = check_sets(sets, "sets", n)
    overlay = check_overlay(overlay, n)
    groups = None if groups is None else _check_partition(groups, len(sets))
    return _decomposable_mindr(indptr, indices, sets, overlay, groups)


def _decomposable_mindr(
    indptr: np.ndarray,
    indices: np.ndarray,
    sets: Sequence[np.ndarray],
    overlay: Overlay | None = None,
    groups: list[list[int]] | None = None,
) -> np.ndarray:
    """:func:`decomposable_mindr` on checked arguments (the decoders' and the spanning tree's path)."""
    overlay = empty_overlay() if overlay is None else overlay
    sets = [np.ascontiguousarray(s, dtype=np.int32) for s in sets]
    groups = [[i] for i in range(len(sets))] if groups is None else [list(g) for g in groups]
    group_of, members = _check_groups(indptr, indices, overlay, sets, groups)
    n = indptr.shape[0] - 1
    group_size = np.array([len(g) for g in groups], dtype=np.int64)
    label = np.zeros(n, dtype=np.int32)
    dfs = np.full(n, -1, dtype=np.int64)
    low = np.empty(n, dtype=np.int64)
    ybits = np.zeros((n, (len(groups) + 63) // 64), dtype=np.uint64)
    order = np.empty(n, dtype=np.int32)
    st_v = np.empty(n, dtype=np.int32)
    st_cur = np.empty(n, dtype=np.int64)
    st_lo = np.empty(n, dtype=np.int64)
    st_hi = np.empty(n, dtype=np.int64)
    st_skip = np.empty(n, dtype=np.bool_)
    positions = np.zeros(len(sets), dtype=np.int64)
    # Sub-instances: (label of its component, its groups, the multiset B as (vertex, weight) pairs).
    # One per connected component to begin with (label 0 throughout: a search never leaves its component).
    pending: list[tuple[int, list[int], list[tuple[int, int]]]] = [
        (0, part, []) for part in _components(indptr, indices, overlay, members)
    ]
    next_label = 1
    while pending:
        current, active, extra = pending.pop()
        if len(active) == 1:
            _solve_single(indptr, indices, overlay, sets, groups[active[0]], extra, positions)
            continue
        found, p, u, visited = _find_useful_edge(
            indptr, indices, overlay.nodes, overlay.indptr, overlay.indices, label, current,
            int(members[active[0]][0]), group_of, len(active), dfs, low, ybits, order, st_v, st_cur, st_lo,
            st_hi, st_skip,
        )  # fmt: skip
        side = order[dfs[u] : visited].copy() if found else None
        reached = all((dfs[members[g]] >= 0).all() for g in active)
        dfs[order[:visited]] = -1
        if not found:
            if not reached:
                raise NotDecomposableError("the candidate sets are not all in one connected component")
            raise NotDecomposableError(
                f"no useful edge separates candidate sets {sorted(i for g in active for i in groups[g])}: two "
                "of them share a biconnected component"
            )
        label[side] = next_label
        inside = np.unique(group_of[side])
        inside_groups = [int(g) for g in inside[inside >= 0]]
        rest_groups = [g for g in active if g not in set(inside_groups)]
        extra_inside = [(z, b) for z, b in extra if label[z] == next_label]
        extra_rest = [(z, b) for z, b in extra if label[z] != next_label]
        sets_inside = int(group_size[inside_groups].sum())
        sets_rest = int(group_size[rest_groups].sum())
        pull_inside = 2 * sets_rest + sum(b for _, b in extra_rest)
        pull_rest = 2 * sets_inside + sum(b for _, b in extra_inside)
        pending.append((current, rest_groups, [*extra_rest, (int(p), pull_rest)]))
        pending.append((next_label, inside_groups, [*extra_inside, (int(u), pull_inside)]))
        next_label += 1
    return positions


def _components(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, members: list[np.ndarray]
) -> list[list[int]]:
    """The groups partitioned by connected component (each group induces a connected subgraph, so one of its
    vertices tells its component): one search per component, each stopping once every group is reached."""
    remaining = list(range(len(members)))
    parts = []
    while remaining:
        targets = np.concatenate([members[g] for g in remaining]).astype(np.int32)
        dist = _bfs_until(indptr, indices, members[remaining[0]][:1], targets, overlay)
        parts.append([g for g in remaining if dist[members[g][0]] >= 0])
        remaining = [g for g in remaining if dist[members[g][0]] < 0]
    return parts


def _solve_single(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    group: list[int],
    extra: list[tuple[int, int]],
    positions: np.ndarray,
) -> None:
    """Base case: each member set takes its vertex minimising ``sum_{z in B} b(z) d(x, z)`` (first on ties)."""
    if not extra:
        positions[group] = 0
        return
    targets = np.concatenate([sets[i] for i in group]).astype(np.int32)
    sources = np.array([z for z, _ in extra], dtype=np.int32)
    weights = np.array([b for _, b in extra], dtype=np.int64)
    distances = _group_distances(
        indptr, indices, np.arange(sources.size + 1, dtype=np.int64), sources, targets, overlay
    ).astype(np.int64)
    distances[distances < 0] = indptr.shape[0] - 1  # unreachable: the cost module's convention
    scores = weights @ distances
    offset = 0
    for i in group:
        size = sets[i].size
        positions[i] = int(np.argmin(scores[offset : offset + size]))
        offset += size
