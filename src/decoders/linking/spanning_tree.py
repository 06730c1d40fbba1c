"""The spanning-tree heuristic (section 5.1): make the instance decomposable, then solve it exactly.

Sets that share vertices are merged into groups (the finest partition of the sets whose unions are disjoint:
connected components of the "shares a vertex" relation). Contracting each group gives the quotient graph
``G/~``; a breadth-first traversal of it from the first group, written as a BFS of ``G`` in which reaching a
group's vertex enters the whole group at that level, gives a spanning tree ``T`` and, for each tree edge, the
``G`` edge that discovered it. A group's vertices enter the queue in list order (the sets' retrieval rank
order), so where several candidates could discover the same neighbour the earlier-listed one does: the tree,
and with it the choice among candidates that tie on ``G``, follows the ranking, as every heuristic's
tie-break does (:mod:`decoders.linking.heuristics`), not the vertex ids. Only the tree paths joining groups are kept (branches leading to no group change no
distance between candidates). The graph ``H`` = those tree edges + every edge inside a group (of ``G`` and of the
connection overlay) is decomposable, so :func:`~decoders.linking.decomposable.decomposable_mindr` solves MinDR
on ``H`` exactly; on ``G`` that is a heuristic, since ``H``'s distances are longer. On a disconnected graph the
traversal restarts from the first group it has not reached, so ``T`` is a spanning forest with one tree per
connected component, and Algorithm 1 solves the components apart: a pair of sets in different components costs
``n`` whatever the choice (:func:`~decoders.linking.cost.unreachable_cost`), as in every decoder, never a
distance through an edge that is not there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from decoders.linking.checks import check_csr, check_sets, check_vertices
from decoders.linking.connection import _edges_among
from decoders.linking.decomposable import _decomposable_mindr
from decoders.linking.overlay import Overlay, check_overlay


def overlap_groups(sets: Sequence[np.ndarray]) -> list[list[int]]:
    """Indices of the sets grouped by shared vertices (transitively), each group sorted, groups by first set
    (``sets``: non-empty arrays of vertex ids)."""
    return _overlap_groups(check_sets(sets, "sets", None, distinct=False))


def _overlap_groups(sets: Sequence[np.ndarray]) -> list[list[int]]:
    k = len(sets)
    owner = np.repeat(np.arange(k), [len(s) for s in sets])
    vertices = np.concatenate(sets)
    _, vertex_id = np.unique(vertices, return_inverse=True)
    incidence = sp.csr_array(
        (np.ones(owner.size, dtype=np.int8), (owner, vertex_id)), shape=(k, int(vertex_id.max()) + 1)
    )
    shares = (incidence @ incidence.T).astype(bool)
    labels = connected_components(shares, directed=False)[1]
    return [np.flatnonzero(labels == g).tolist() for g in range(int(labels.max()) + 1)]


def listed_once(vertices: np.ndarray) -> np.ndarray:
    """``vertices`` (1-d vertex ids) without repeats, each at its first position (int32): a group's candidates in
    list order."""
    return _listed_once(check_vertices(vertices, "vertices", None))


def _listed_once(vertices: np.ndarray) -> np.ndarray:
    _, first = np.unique(vertices, return_index=True)
    return np.asarray(vertices, dtype=np.int32)[np.sort(first)]


@numba.njit(cache=True, nogil=True)
def _quotient_bfs(indptr, indices, ov_nodes, ov_indptr, ov_indices, group_of, group_ptr, group_vertices):
    """BFS of ``G/~`` from group 0, restarted from the first unreached group while some are left (a spanning
    forest, one tree per component): ``parent[v]`` for non-group vertices, and for each group the ``G`` edge
    ``(entry_from[g], entry_to[g])`` through which it was discovered (-1 for the root group of each tree)."""
    n = indptr.shape[0] - 1
    n_groups = group_ptr.shape[0] - 1
    parent = np.full(n, -1, np.int32)
    seen = np.zeros(n, np.bool_)
    queue = np.empty(n, np.int32)
    entry_from = np.full(n_groups, -1, np.int32)
    entry_to = np.full(n_groups, -1, np.int32)
    tail = 0
    head = 0
    discovered = 0
    n_ov = ov_nodes.shape[0]
    for root in range(n_groups):
        if discovered == n_groups:
            break
        if seen[group_vertices[group_ptr[root]]]:
            continue
        for e in range(group_ptr[root], group_ptr[root + 1]):
            seen[group_vertices[e]] = True
            queue[tail] = group_vertices[e]
            tail += 1
        discovered += 1
        while head < tail and discovered < n_groups:
            u = queue[head]
            head += 1
            lo = 0
            hi = 0
            if n_ov > 0:
                slot = np.searchsorted(ov_nodes, u)
                if slot < n_ov and ov_nodes[slot] == u:
                    lo = ov_indptr[slot]
                    hi = ov_indptr[slot + 1]
            degree = indptr[u + 1] - indptr[u]
            for j in range(degree + hi - lo):
                w = indices[indptr[u] + j] if j < degree else ov_indices[lo + j - degree]
                if seen[w]:
                    continue
                g = group_of[w]
                if g < 0:
                    seen[w] = True
                    parent[w] = u
                    queue[tail] = w
                    tail += 1
                else:
                    entry_from[g] = u
                    entry_to[g] = w
                    discovered += 1
                    for e in range(group_ptr[g], group_ptr[g + 1]):
                        seen[group_vertices[e]] = True
                        queue[tail] = group_vertices[e]
                        tail += 1
        head = tail  # what is left of this component's queue cannot reach another component
    return parent, entry_from, entry_to


def tree_edges(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, group_vertices: list[np.ndarray]
) -> np.ndarray:
    """The ``G`` edges ``T'`` of the BFS spanning forest of ``G/~`` that lie on paths between groups ((m, 2));
    ``group_vertices``: the groups' vertex arrays, non-empty, no vertex twice (in a group or across groups)."""
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    overlay = check_overlay(overlay, n)
    groups = check_sets(group_vertices, "group_vertices", n)
    every = np.concatenate(groups)
    _, first = np.unique(every, return_index=True)
    if first.size != every.size:
        repeated = np.ones(every.size, dtype=bool)
        repeated[first] = False
        vertex = int(every[np.argmax(repeated)])
        owners = [g for g, v in enumerate(groups) if (v == vertex).any()]
        raise ValueError(
            f"group_vertices: vertex {vertex} is listed twice (in groups {owners}); the groups must be disjoint"
        )
    return _tree_edges(indptr, indices, overlay, groups)


def _tree_edges(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, group_vertices: list[np.ndarray]
) -> np.ndarray:
    n = indptr.shape[0] - 1
    group_of = np.full(n, -1, dtype=np.int32)
    for g, vertices in enumerate(group_vertices):
        group_of[vertices] = g
    group_ptr = np.zeros(len(group_vertices) + 1, dtype=np.int64)
    np.cumsum([v.size for v in group_vertices], out=group_ptr[1:])
    parent, entry_from, entry_to = _quotient_bfs(
        indptr, indices, overlay.nodes, overlay.indptr, overlay.indices, group_of, group_ptr,
        np.concatenate(group_vertices).astype(np.int32),
    )  # fmt: skip
    edges: list[tuple[int, int]] = []
    on_tree: set[int] = set()
    for g in range(1, len(group_vertices)):
        if entry_from[g] < 0:  # the root of its component's tree
            continue
        edges.append((int(entry_from[g]), int(entry_to[g])))
        v = int(entry_from[g])
        while group_of[v] < 0 and v not in on_tree:
            on_tree.add(v)
            edges.append((int(parent[v]), v))
            v = int(parent[v])
    return np.array(edges, dtype=np.int32).reshape(-1, 2)


def spanning_tree_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """Positions (one per set) chosen by the spanning-tree heuristic on the CSR graph plus ``overlay`` (None: no
    added edge); ``sets`` non-empty arrays of distinct vertex ids."""
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    overlay = check_overlay(overlay, n)
    return _spanning_tree_positions(indptr, indices, overlay, check_sets(sets, "sets", n))


def _spanning_tree_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """:func:`spanning_tree_positions` on checked arguments (the decoder's path)."""
    sets = [np.asarray(s, dtype=np.int32) for s in sets]
    groups = _overlap_groups(sets)
    group_vertices = [_listed_once(np.concatenate([sets[i] for i in g])) for g in groups]
    bridges = _tree_edges(indptr, indices, overlay, group_vertices)
    inside = [_edges_among(indptr, indices, v) for v in group_vertices]
    added = overlay.edges()
    owner_vertex = np.concatenate(group_vertices)
    owner_group = np.repeat(np.arange(len(groups)), [v.size for v in group_vertices])
    by_vertex = np.argsort(owner_vertex)
    slots = np.searchsorted(owner_vertex[by_vertex], added).clip(max=owner_vertex.size - 1)
    known = owner_vertex[by_vertex][slots] == added
    group_ends = np.where(known, owner_group[by_vertex][slots], -1)
    same_group = (group_ends[:, 0] >= 0) & (group_ends[:, 0] == group_ends[:, 1])
    edges = np.concatenate([bridges, *inside, added[same_group]])
    vertices = np.unique(np.concatenate([edges.ravel(), *group_vertices]))
    local = np.searchsorted(vertices, edges)
    size = vertices.size
    adjacency = sp.coo_array(
        (
            np.ones(2 * len(local), dtype=np.int8),
            (np.r_[local[:, 0], local[:, 1]], np.r_[local[:, 1], local[:, 0]]),
        ),
        shape=(size, size),
    ).tocsr()
    adjacency.sum_duplicates()
    adjacency.sort_indices()
    local_sets = [np.searchsorted(vertices, s).astype(np.int32) for s in sets]
    return _decomposable_mindr(
        adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int32), local_sets, groups=groups
    )
