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

The public functions check their arguments (a well-formed graph with sorted neighbour lists, candidate sets of
distinct vertex ids in range); the decoders call the private ``_connect`` on a checked instance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.linking.checks import check_csr, check_graph, check_sets, check_vertices
from decoders.linking.overlay import Overlay, check_overlay, empty_overlay, overlay_from_edges

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


def _edges_among(indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """:func:`induced_edges` on checked arguments."""
    vertices = np.ascontiguousarray(vertices, dtype=np.int32)
    order = np.argsort(vertices, kind="stable").astype(np.int64)
    rows, cols = _induced_edges(indptr, indices, vertices, order)
    return np.column_stack([vertices[rows], vertices[cols]]).astype(np.int32)


def _components_among(
    indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray, overlay: Overlay | None = None
) -> np.ndarray:
    """:func:`induced_components` on checked arguments."""
    vertices = np.ascontiguousarray(vertices, dtype=np.int32)
    if vertices.size == 0:
        return np.zeros(0, dtype=np.int32)
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


def induced_edges(indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """Edges of the CSR graph with both ends among ``vertices`` (distinct vertex ids), as an (m, 2) int32 vertex
    array."""
    indptr, indices = check_csr(indptr, indices)
    vertices = check_vertices(vertices, "vertices", indptr.size - 1, distinct=True)
    return _edges_among(indptr, indices, vertices)


def induced_components(
    indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray, overlay: Overlay | None = None
) -> np.ndarray:
    """Component label (0, 1, ... in order of first position) of each of ``vertices`` (distinct vertex ids)
    within the subgraph they induce in the CSR graph plus ``overlay``."""
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    vertices = check_vertices(vertices, "vertices", n, distinct=True)
    overlay = None if overlay is None else check_overlay(overlay, n)
    return _components_among(indptr, indices, vertices, overlay)


def set_components(graph: Graph, candidates: np.ndarray) -> np.ndarray:
    """Component label (0, 1, ... in order of first position) of each candidate within ``G[candidates]``."""
    graph = check_graph(graph)
    candidates = check_vertices(candidates, "candidates", graph.n_nodes, distinct=True)
    return _components_among(graph.indptr, graph.indices, candidates)


def _new_edges(graph: Graph, u: np.ndarray, v: np.ndarray) -> Overlay:
    u = np.ascontiguousarray(u, dtype=np.int32)
    v = np.ascontiguousarray(v, dtype=np.int32)
    keep = _missing(graph.indptr, graph.indices, u, v)
    return overlay_from_edges(u[keep], v[keep])


def _maximal(graph: Graph, sets: Sequence[np.ndarray]) -> Overlay:
    us, vs = [], []
    for candidates in sets:
        p, q = np.triu_indices(len(candidates), k=1)
        us.append(np.asarray(candidates)[p])
        vs.append(np.asarray(candidates)[q])
    return _new_edges(graph, np.concatenate(us), np.concatenate(vs))


def _minimal(graph: Graph, sets: Sequence[np.ndarray]) -> Overlay:
    degree = graph.degrees()
    us, vs = [], []
    for candidates in sets:
        candidates = np.asarray(candidates, dtype=np.int32)
        labels = _components_among(graph.indptr, graph.indices, candidates)
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
        return empty_overlay()
    return _new_edges(graph, np.concatenate(us), np.concatenate(vs))


def _connect(graph: Graph, sets: Sequence[np.ndarray], connection: str) -> Overlay:
    """:func:`connect` on a checked graph, sets and connection name (the decoders' timed path)."""
    return _maximal(graph, sets) if connection == "maximal" else _minimal(graph, sets)


def _connection_name(connection) -> str:
    if not isinstance(connection, str) or connection not in CONNECTIONS:
        raise ConfigError(f"connection must be one of {', '.join(CONNECTIONS)}; got {connection!r}")
    return connection


def maximal_connection(graph: Graph, sets: Sequence[np.ndarray]) -> Overlay:
    """Edges that turn every ``G[X_i]`` into a clique (``sets``: candidate arrays of distinct vertex ids)."""
    graph = check_graph(graph)
    return _maximal(graph, check_sets(sets, "sets", graph.n_nodes))


def minimal_connection(graph: Graph, sets: Sequence[np.ndarray]) -> Overlay:
    """The fewest edges joining the components of every ``G[X_i]`` (through the hub of its largest one)."""
    graph = check_graph(graph)
    return _minimal(graph, check_sets(sets, "sets", graph.n_nodes))


def connect(graph: Graph, sets: Sequence[np.ndarray], connection: str) -> Overlay:
    """The overlay of the named connection (``"maximal"`` or ``"minimal"``; ConfigError otherwise)."""
    connection = _connection_name(connection)
    graph = check_graph(graph)
    return _connect(graph, check_sets(sets, "sets", graph.n_nodes), connection)
