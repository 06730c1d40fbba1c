"""The maximal and minimal connection of section 5: make every induced candidate subgraph ``G[X_i]`` connected.

Both return only the *added* edges, as an :class:`~decoders.linking.overlay.Overlay` over the graph's vertex ids
(edges already in ``G`` are never repeated), so the "connected graph" of an instance is ``G`` plus the overlay
and the Wikipedia-size ``G`` is never copied.

* maximal: every ``G[X_i]`` becomes a clique.
* minimal: the connected components of ``G[X_i]`` are joined with the fewest edges (components - 1): the
  maximum-degree vertex of the largest component is linked to one vertex of each other component (the paper's
  footnote 5 leaves that vertex arbitrary; we take the component's maximum-degree vertex, so the choice is
  deterministic). Degrees are those of ``G``; ties go to the earlier candidate position, and among components of
  equal size the one holding the earliest position counts as the largest.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.linking.overlay import Overlay, overlay_from_edges

CONNECTIONS: tuple[str, ...] = ("maximal", "minimal")


@numba.njit(cache=True, nogil=True)
def _has_edge(indptr, indices, u, v):
    """Binary search for ``v`` among the sorted neighbours of ``u``; True iff the edge exists."""
    row = indices[indptr[u] : indptr[u + 1]]
    slot = np.searchsorted(row, v)
    return slot < row.shape[0] and row[slot] == v


@numba.njit(cache=True, nogil=True)
def _missing(indptr, indices, u, v):
    """Mask of the pairs ``(u[e], v[e])`` that are not edges of the graph."""
    out = np.empty(u.shape[0], np.bool_)
    for e in range(u.shape[0]):
        out[e] = not _has_edge(indptr, indices, u[e], v[e])
    return out


@numba.njit(cache=True, nogil=True)
def _induced_edges(indptr, indices, candidates, order):
    """Edges of ``G[candidates]`` as position pairs ``(p, q)``, ``p < q``; ``order`` sorts ``candidates``."""
    sorted_candidates = candidates[order]
    rows = []
    cols = []
    for p in range(candidates.shape[0]):
        u = candidates[p]
        for e in range(indptr[u], indptr[u + 1]):
            slot = np.searchsorted(sorted_candidates, indices[e])
            if slot < sorted_candidates.shape[0] and sorted_candidates[slot] == indices[e]:
                q = order[slot]
                if p < q:
                    rows.append(p)
                    cols.append(q)
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)


def induced_edges(indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """Edges of the CSR graph with both ends among ``vertices`` (distinct), as an (m, 2) int32 vertex array."""
    vertices = np.ascontiguousarray(vertices, dtype=np.int32)
    order = np.argsort(vertices, kind="stable").astype(np.int64)
    rows, cols = _induced_edges(indptr, indices, vertices, order)
    return np.column_stack([vertices[rows], vertices[cols]]).astype(np.int32)


def induced_components(
    indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray, overlay: Overlay | None = None
) -> np.ndarray:
    """Component label (0, 1, ... in order of first position) of each of ``vertices`` (distinct) within the
    subgraph they induce in the CSR graph plus ``overlay``."""
    vertices = np.ascontiguousarray(vertices, dtype=np.int32)
    order = np.argsort(vertices, kind="stable").astype(np.int64)
    rows, cols = _induced_edges(indptr, indices, vertices, order)
    if overlay is not None and overlay.n_edges:
        added = overlay.edges()
        sorted_vertices = vertices[order]
        slots = np.searchsorted(sorted_vertices, added).clip(max=vertices.size - 1)
        inside = (sorted_vertices[slots] == added).all(axis=1)
        rows = np.concatenate([rows, order[slots[inside, 0]]])
        cols = np.concatenate([cols, order[slots[inside, 1]]])
    size = vertices.size
    adjacency = sp.coo_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(size, size))
    return connected_components(adjacency, directed=False)[1]


def set_components(graph: Graph, candidates: np.ndarray) -> np.ndarray:
    """Component label (0, 1, ... in order of first position) of each candidate within ``G[candidates]``."""
    return induced_components(graph.indptr, graph.indices, candidates)


def _new_edges(graph: Graph, u: np.ndarray, v: np.ndarray) -> Overlay:
    u = np.ascontiguousarray(u, dtype=np.int32)
    v = np.ascontiguousarray(v, dtype=np.int32)
    keep = _missing(graph.indptr, graph.indices, u, v)
    return overlay_from_edges(u[keep], v[keep])


def maximal_connection(graph: Graph, sets: Sequence[np.ndarray]) -> Overlay:
    """Edges that turn every ``G[X_i]`` into a clique."""
    us, vs = [], []
    for candidates in sets:
        p, q = np.triu_indices(len(candidates), k=1)
        us.append(np.asarray(candidates)[p])
        vs.append(np.asarray(candidates)[q])
    return _new_edges(graph, np.concatenate(us), np.concatenate(vs))


def minimal_connection(graph: Graph, sets: Sequence[np.ndarray]) -> Overlay:
    """The fewest edges joining the components of every ``G[X_i]`` (through the hub of its largest one)."""
    degree = graph.degrees()
    us, vs = [], []
    for candidates in sets:
        candidates = np.asarray(candidates, dtype=np.int32)
        labels = set_components(graph, candidates)
        n_components = int(labels.max()) + 1 if labels.size else 0
        if n_components <= 1:
            continue
        # Per component, the position of its max-degree vertex (earliest position on ties): sort by
        # (component, -degree, position) and take each component's first entry.
        order = np.lexsort((np.arange(labels.size), -degree[candidates], labels))
        first = np.searchsorted(labels[order], np.arange(n_components))
        representative = candidates[order[first]]
        largest = int(np.argmax(np.bincount(labels)))
        others = np.delete(representative, largest)
        us.append(np.full(others.size, representative[largest], dtype=np.int32))
        vs.append(others)
    if not us:
        return overlay_from_edges(np.empty(0, np.int32), np.empty(0, np.int32))
    return _new_edges(graph, np.concatenate(us), np.concatenate(vs))


def connect(graph: Graph, sets: Sequence[np.ndarray], connection: str) -> Overlay:
    """The overlay of the named connection (``"maximal"`` or ``"minimal"``)."""
    if connection == "maximal":
        return maximal_connection(graph, sets)
    if connection == "minimal":
        return minimal_connection(graph, sets)
    raise ConfigError(f"connection must be one of {', '.join(CONNECTIONS)}; got {connection!r}")
