"""Breadth-first hop distances on a CSR graph, optionally with an :class:`~decoders.linking.overlay.Overlay` of
added edges: single source, multi-source (hitting distance to a set), early-stopping at targets, and many
searches at once reusing one set of buffers.

Every kernel is ``numba.njit(cache=True)`` and private: the public functions check their arguments once per call
(a well-formed CSR, vertex ids in range, a well-formed overlay over the same vertices; see
:mod:`decoders.linking.checks`) and call the kernel, and the decoders call the kernels directly on a checked
:class:`~decoders.linking.instance.LinkingInstance` and its :class:`decoders.corpora.wikispeedia.Graph` (no
check per search). Graph arrays are the Graph's CSR (``indptr`` int64, ``indices`` int32, both directions of each
edge stored). Unreachable vertices get -1. The overlay's neighbours of a vertex are found by binary search in
``overlay.nodes``, so searching ``G`` plus an instance's few added edges never copies ``G``.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.linking.checks import check_csr, check_offsets, check_vertex, check_vertices
from decoders.linking.overlay import check_overlay


@numba.njit(cache=True, nogil=True)
def _search(indptr, indices, ov_nodes, ov_indptr, ov_indices, sources, is_target, n_targets, dist, queue):
    """BFS from ``sources`` (all at distance 0) writing ``dist`` (which must hold -1 everywhere on entry).

    Stops as soon as ``n_targets`` distinct vertices flagged in ``is_target`` have been reached (never, when
    ``n_targets`` is 0). Returns how many vertices it labelled; they are ``queue[:count]``, which lets a caller
    reset ``dist`` in time proportional to the search, not to the graph.
    """
    tail = 0
    remaining = n_targets
    for s in sources:
        if dist[s] < 0:
            dist[s] = 0
            queue[tail] = s
            tail += 1
            if is_target[s]:
                remaining -= 1
    if n_targets > 0 and remaining == 0:
        return tail
    n_ov = ov_nodes.shape[0]
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        step = dist[u] + 1
        for e in range(indptr[u], indptr[u + 1]):
            w = indices[e]
            if dist[w] < 0:
                dist[w] = step
                queue[tail] = w
                tail += 1
                if is_target[w]:
                    remaining -= 1
                    if remaining == 0:
                        return tail
        if n_ov > 0:
            slot = np.searchsorted(ov_nodes, u)
            if slot < n_ov and ov_nodes[slot] == u:
                for e in range(ov_indptr[slot], ov_indptr[slot + 1]):
                    w = ov_indices[e]
                    if dist[w] < 0:
                        dist[w] = step
                        queue[tail] = w
                        tail += 1
                        if is_target[w]:
                            remaining -= 1
                            if remaining == 0:
                                return tail
    return tail


@numba.njit(cache=True, nogil=True)
def _overlay_arrays(overlay):
    if overlay is None:
        return np.empty(0, np.int32), np.zeros(1, np.int64), np.empty(0, np.int32)
    return overlay.nodes, overlay.indptr, overlay.indices


@numba.njit(cache=True, nogil=True)
def _flag_targets(n, targets):
    is_target = np.zeros(n, np.bool_)
    count = 0
    for t in targets:
        if not is_target[t]:
            is_target[t] = True
            count += 1
    return is_target, count


@numba.njit(cache=True, nogil=True)
def _bfs_until(indptr, indices, sources, targets, overlay=None):
    """Distances from the nearest of ``sources``, stopping once every vertex of ``targets`` is labelled.

    Vertices the search had not reached when it stopped are -1 (the targets themselves are exact, or -1 when
    unreachable). An empty ``targets`` searches the whole component.
    """
    n = indptr.shape[0] - 1
    ov_nodes, ov_indptr, ov_indices = _overlay_arrays(overlay)
    is_target, n_targets = _flag_targets(n, targets)
    dist = np.full(n, -1, np.int32)
    queue = np.empty(n, np.int32)
    _search(indptr, indices, ov_nodes, ov_indptr, ov_indices, sources, is_target, n_targets, dist, queue)
    return dist


@numba.njit(cache=True, nogil=True)
def _multi_source_bfs(indptr, indices, sources, overlay=None):
    """Hitting distance of every vertex to the set ``sources`` (distance to its nearest member; -1 if none)."""
    return _bfs_until(indptr, indices, sources, np.empty(0, np.int32), overlay)


@numba.njit(cache=True, nogil=True)
def _bfs_distances(indptr, indices, source, overlay=None):
    """Hop distance from ``source`` to every vertex (int32, -1 where unreachable)."""
    sources = np.empty(1, np.int32)
    sources[0] = source
    return _bfs_until(indptr, indices, sources, np.empty(0, np.int32), overlay)


@numba.njit(cache=True, nogil=True)
def _group_distances(indptr, indices, group_ptr, group_vertices, targets, overlay=None):
    """Distance from each source group to each target: ``out[g, t]`` = min over ``v`` in group ``g`` of
    ``d(v, targets[t])`` (-1 when unreachable); group ``g`` is ``group_vertices[group_ptr[g]:group_ptr[g + 1]]``.

    One early-stopping BFS per group, all sharing one distance buffer that is reset only where a search wrote,
    so many searches over a huge graph cost the explored parts, not ``n`` per search. A group of one vertex
    gives plain pairwise distances; a candidate set as a group gives hitting distances.
    """
    n = indptr.shape[0] - 1
    ov_nodes, ov_indptr, ov_indices = _overlay_arrays(overlay)
    is_target, n_targets = _flag_targets(n, targets)
    dist = np.full(n, -1, np.int32)
    queue = np.empty(n, np.int32)
    n_groups = group_ptr.shape[0] - 1
    out = np.empty((n_groups, targets.shape[0]), np.int32)
    for g in range(n_groups):
        sources = group_vertices[group_ptr[g] : group_ptr[g + 1]]
        count = _search(
            indptr, indices, ov_nodes, ov_indptr, ov_indices, sources, is_target, n_targets, dist, queue
        )
        for t in range(targets.shape[0]):
            out[g, t] = dist[targets[t]]
        for q in range(count):
            dist[queue[q]] = -1
    return out


def _pairwise_distances(indptr, indices, sources, targets, overlay=None) -> np.ndarray:
    """:func:`pairwise_distances` on checked arguments."""
    sources = np.ascontiguousarray(sources, dtype=np.int32)
    group_ptr = np.arange(sources.size + 1, dtype=np.int64)
    targets = np.ascontiguousarray(targets, dtype=np.int32)
    return _group_distances(indptr, indices, group_ptr, sources, targets, overlay)


# --------------------------------------------------------------------------- public, checking wrappers


def _graph(indptr, indices, overlay):
    """The checked CSR arrays, vertex count and overlay (None stays None: no added edge)."""
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    return indptr, indices, n, None if overlay is None else check_overlay(overlay, n)


def bfs_until(indptr, indices, sources, targets, overlay=None) -> np.ndarray:
    """Distances from the nearest of ``sources``, stopping once every vertex of ``targets`` is labelled.

    Vertices the search had not reached when it stopped are -1 (the targets themselves are exact, or -1 when
    unreachable). An empty ``targets`` searches the whole component. ``sources`` and ``targets`` are 1-d arrays
    of vertex ids of the CSR graph (``indptr``, ``indices``); ``overlay`` adds edges over the same vertices.
    """
    indptr, indices, n, overlay = _graph(indptr, indices, overlay)
    sources = check_vertices(sources, "sources", n)
    targets = check_vertices(targets, "targets", n)
    return _bfs_until(indptr, indices, sources, targets, overlay)


def multi_source_bfs(indptr, indices, sources, overlay=None) -> np.ndarray:
    """Hitting distance of every vertex to the set ``sources`` (distance to its nearest member; -1 if none)."""
    indptr, indices, n, overlay = _graph(indptr, indices, overlay)
    sources = check_vertices(sources, "sources", n)
    return _multi_source_bfs(indptr, indices, sources, overlay)


def bfs_distances(indptr, indices, source, overlay=None) -> np.ndarray:
    """Hop distance from the vertex ``source`` to every vertex (int32, -1 where unreachable)."""
    indptr, indices, n, overlay = _graph(indptr, indices, overlay)
    source = check_vertex(source, "source", n)
    return _bfs_distances(indptr, indices, source, overlay)


def group_distances(indptr, indices, group_ptr, group_vertices, targets, overlay=None) -> np.ndarray:
    """Distance from each source group to each target: ``out[g, t]`` = min over ``v`` in group ``g`` of
    ``d(v, targets[t])`` (-1 when unreachable, and for an empty group); group ``g`` is
    ``group_vertices[group_ptr[g]:group_ptr[g + 1]]`` (``group_ptr``: CSR offsets over ``group_vertices``).

    One early-stopping BFS per group, all sharing one distance buffer (see :func:`_group_distances`).
    """
    indptr, indices, n, overlay = _graph(indptr, indices, overlay)
    group_vertices = check_vertices(group_vertices, "group_vertices", n)
    group_ptr = check_offsets(group_ptr, "group_ptr", group_vertices.size, "group_vertices")
    targets = check_vertices(targets, "targets", n)
    return _group_distances(indptr, indices, group_ptr, group_vertices, targets, overlay)


def pairwise_distances(indptr, indices, sources, targets, overlay=None) -> np.ndarray:
    """``out[s, t] = d(sources[s], targets[t])`` (int32, -1 unreachable): one early-stopping BFS per source."""
    indptr, indices, n, overlay = _graph(indptr, indices, overlay)
    sources = check_vertices(sources, "sources", n)
    targets = check_vertices(targets, "targets", n)
    return _pairwise_distances(indptr, indices, sources, targets, overlay)
