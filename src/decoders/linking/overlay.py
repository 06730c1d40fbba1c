"""Extra undirected edges laid over a CSR graph without copying it (the maximal / minimal connection's edges).

An :class:`Overlay` is a compact CSR keyed by the (few) vertices that have added edges: ``nodes`` sorted and
distinct, the added neighbours of ``nodes[s]`` are ``indices[indptr[s]:indptr[s + 1]]``, every edge stored in both
directions. Kernels find a vertex's slot by binary search, so an overlay costs memory in its own edges only, not
in the (possibly Wikipedia-size) number of graph vertices.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Overlay(NamedTuple):
    """Added edges over the same vertex ids as the base graph (numba accepts it as a kernel argument)."""

    nodes: np.ndarray  # int32, sorted, distinct
    indptr: np.ndarray  # int64, len(nodes) + 1
    indices: np.ndarray  # int32, both directions of every added edge

    @property
    def n_edges(self) -> int:
        """Number of added undirected edges."""
        return int(self.indices.shape[0] // 2)

    def degrees(self, n_nodes: int) -> np.ndarray:
        """Added degree of every vertex (int64, length ``n_nodes``)."""
        degree = np.zeros(n_nodes, dtype=np.int64)
        degree[self.nodes] = np.diff(self.indptr)
        return degree

    def edges(self) -> np.ndarray:
        """The added undirected edges as an (m, 2) int32 array with ``u < v``, sorted."""
        source = np.repeat(self.nodes, np.diff(self.indptr))
        keep = source < self.indices
        return np.column_stack([source[keep], self.indices[keep]]).astype(np.int32)


def empty_overlay() -> Overlay:
    """An overlay with no edges."""
    return Overlay(np.empty(0, np.int32), np.zeros(1, np.int64), np.empty(0, np.int32))


def overlay_from_edges(u: np.ndarray, v: np.ndarray) -> Overlay:
    """The overlay of the undirected edges ``(u[e], v[e])``: self loops dropped, duplicates merged."""
    u = np.asarray(u, dtype=np.int64)
    v = np.asarray(v, dtype=np.int64)
    keep = u != v
    both = np.concatenate([np.column_stack([u[keep], v[keep]]), np.column_stack([v[keep], u[keep]])])
    if both.shape[0] == 0:
        return empty_overlay()
    both = np.unique(both, axis=0)  # sorted by source, then neighbour
    nodes, counts = np.unique(both[:, 0], return_counts=True)
    indptr = np.zeros(nodes.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return Overlay(nodes.astype(np.int32), indptr, both[:, 1].astype(np.int32))
