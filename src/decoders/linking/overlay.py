"""Extra undirected edges laid over a CSR graph without copying it (the maximal / minimal connection's edges).

An :class:`Overlay` is a compact CSR keyed by the (few) vertices that have added edges: ``nodes`` sorted and
distinct, the added neighbours of ``nodes[s]`` are ``indices[indptr[s]:indptr[s + 1]]``, every edge stored in both
directions. Kernels find a vertex's slot by binary search, so an overlay costs memory in its own edges only, not
in the (possibly Wikipedia-size) number of graph vertices.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from decoders.checks import check_int
from decoders.linking.checks import check_offsets, check_span, check_vertices, integer_array


class _OverlayArrays(NamedTuple):
    nodes: np.ndarray  # int32, sorted, distinct
    indptr: np.ndarray  # int64, len(nodes) + 1
    indices: np.ndarray  # int32, both directions of every added edge


class Overlay(_OverlayArrays):
    """Added edges over the same vertex ids as the base graph (numba accepts it as a kernel argument).

    Checked at construction (ValueError naming the field): ``nodes`` strictly increasing vertex ids, ``indptr``
    offsets over ``indices`` with one row per node, ``indices`` vertex ids; the arrays are kept as int32 / int64 /
    int32. Whether the ids lie in a given graph is checked by every function that takes the overlay with a graph.
    """

    __slots__ = ()

    def __new__(cls, nodes, indptr, indices):
        nodes = check_vertices(nodes, "Overlay.nodes", None)
        if nodes.size > 1 and (nodes[1:] <= nodes[:-1]).any():
            i = int(np.argmax(nodes[1:] <= nodes[:-1])) + 1
            raise ValueError(
                f"Overlay.nodes[{i}] = {nodes[i]} follows {nodes[i - 1]}: nodes must be strictly increasing"
            )
        indices = check_vertices(indices, "Overlay.indices", None)
        indptr = check_offsets(indptr, "Overlay.indptr", indices.size, "Overlay.indices")
        if indptr.size != nodes.size + 1:
            raise ValueError(
                f"Overlay.indptr has {indptr.size} entries for {nodes.size} nodes (needs nodes + 1)"
            )
        return super().__new__(cls, nodes, indptr, indices)

    @property
    def n_edges(self) -> int:
        """Number of added undirected edges."""
        return int(self.indices.shape[0] // 2)

    def degrees(self, n_nodes: int) -> np.ndarray:
        """Added degree of every vertex (int64, length ``n_nodes``, which must exceed every node id)."""
        n_nodes = check_int(n_nodes, "n_nodes", minimum=int(self.nodes.max()) + 1 if self.nodes.size else 0)
        degree = np.zeros(n_nodes, dtype=np.int64)
        degree[self.nodes] = np.diff(self.indptr)
        return degree

    def edges(self) -> np.ndarray:
        """The added undirected edges as an (m, 2) int32 array with ``u < v``, sorted."""
        source = np.repeat(self.nodes, np.diff(self.indptr))
        keep = source < self.indices
        return np.column_stack([source[keep], self.indices[keep]]).astype(np.int32)


def _trusted_overlay(nodes: np.ndarray, indptr: np.ndarray, indices: np.ndarray) -> Overlay:
    """An overlay of arrays built well formed here (no second check)."""
    return Overlay._make((nodes, indptr, indices))


def empty_overlay() -> Overlay:
    """An overlay with no edges."""
    return _trusted_overlay(np.empty(0, np.int32), np.zeros(1, np.int64), np.empty(0, np.int32))


def overlay_from_edges(u: np.ndarray, v: np.ndarray) -> Overlay:
    """The overlay of the undirected edges ``(u[e], v[e])``: self loops dropped, duplicates merged. ``u`` and
    ``v`` are 1-d arrays of vertex ids (integers >= 0) of one length."""
    u = check_vertices(u, "u", None).astype(np.int64)
    v = check_vertices(v, "v", None).astype(np.int64)
    if u.shape != v.shape:
        raise ValueError(f"u and v must have one length (one edge each), got shapes {u.shape} and {v.shape}")
    keep = u != v
    both = np.concatenate([np.column_stack([u[keep], v[keep]]), np.column_stack([v[keep], u[keep]])])
    if both.shape[0] == 0:
        return empty_overlay()
    both = np.unique(both, axis=0)  # sorted by source, then neighbour
    nodes, counts = np.unique(both[:, 0], return_counts=True)
    indptr = np.zeros(nodes.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return _trusted_overlay(nodes.astype(np.int32), indptr, np.ascontiguousarray(both[:, 1], dtype=np.int32))


def check_overlay(overlay: Any, order: int, name: str = "overlay"):
    """An :class:`~decoders.linking.overlay.Overlay` over vertices ``0..order-1`` (None: no added edge), its
    ``nodes`` strictly increasing, as the canonical dtypes."""
    order = check_int(order, "order", minimum=0)
    if overlay is None:
        return empty_overlay()
    if not isinstance(overlay, Overlay):
        raise ValueError(
            f"{name} must be an Overlay (decoders.linking.overlay) or None, got {type(overlay).__name__}"
        )
    nodes = integer_array(overlay.nodes, f"{name}.nodes")
    check_span(nodes, f"{name}.nodes", 0, order - 1)
    if nodes.size > 1 and (nodes[1:] <= nodes[:-1]).any():
        i = int(np.argmax(nodes[1:] <= nodes[:-1])) + 1
        raise ValueError(
            f"{name}.nodes[{i}] = {nodes[i]} follows {nodes[i - 1]}: nodes must be strictly increasing"
        )
    indices = integer_array(overlay.indices, f"{name}.indices")
    indptr = check_offsets(overlay.indptr, f"{name}.indptr", indices.size, f"{name}.indices")
    if indptr.size != nodes.size + 1:
        raise ValueError(f"{name}.indptr has {indptr.size} entries for {nodes.size} nodes (needs nodes + 1)")
    check_span(indices, f"{name}.indices", 0, order - 1)
    return Overlay._make(
        (
            np.ascontiguousarray(nodes, dtype=np.int32),
            indptr,
            np.ascontiguousarray(indices, dtype=np.int32),
        )
    )
