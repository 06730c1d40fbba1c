"""The MinDR distance cost of chosen vertices on an instance's connected graph (``G`` plus its connection).

Cost = ``sum_{i<j} d(x_i, x_j)`` in hops (half the paper's ordered-pair ``f``; the same minimisers). Instances
live on a connected graph, but so that every cost stays finite and comparable (CP-SAT, heuristics and this
function agree on it) a pair with no path costs :func:`unreachable_cost` = ``n`` vertices, more than any real
hop distance.
"""

from __future__ import annotations

import numpy as np

from decoders.corpora.wikispeedia import Graph
from decoders.linking.connection import connect
from decoders.linking.distances import pairwise_distances
from decoders.linking.instance import LinkingInstance
from decoders.linking.overlay import Overlay


def unreachable_cost(graph: Graph) -> int:
    """The cost charged for a pair of vertices with no path between them (the number of vertices)."""
    return graph.n_nodes


def finite_distances(distances: np.ndarray, graph: Graph) -> np.ndarray:
    """``distances`` as int64 with -1 (unreachable) replaced by :func:`unreachable_cost`."""
    out = distances.astype(np.int64)
    out[out < 0] = unreachable_cost(graph)
    return out


def resolve_connection(instance: LinkingInstance, connection: Overlay | str) -> Overlay:
    """The overlay itself, or the one the named connection adds for this instance."""
    if isinstance(connection, Overlay):
        return connection
    return connect(instance.graph, instance.sets, connection)


def vertex_distance_matrix(graph: Graph, overlay: Overlay, vertices: np.ndarray) -> np.ndarray:
    """``D[a, b]`` = hop distance (int64, unreachable -> ``n``) between ``vertices[a]`` and ``vertices[b]``.

    One BFS per distinct vertex, each stopping once all the vertices are reached.
    """
    vertices = np.asarray(vertices, dtype=np.int32)
    unique, inverse = np.unique(vertices, return_inverse=True)
    distances = finite_distances(
        pairwise_distances(graph.indptr, graph.indices, unique, unique, overlay), graph
    )
    return distances[np.ix_(inverse, inverse)]


def distance_cost(instance: LinkingInstance, vertices: np.ndarray, connection: Overlay | str) -> float:
    """Sum over pairs ``i < j`` of the hop distance between the chosen ``vertices`` on the connected graph."""
    vertices = np.asarray(vertices, dtype=np.int32)
    if vertices.shape != (instance.k,):
        raise ValueError(f"expected one vertex per set ({instance.k}); got shape {vertices.shape}")
    overlay = resolve_connection(instance, connection)
    matrix = vertex_distance_matrix(instance.graph, overlay, vertices)
    return float(np.triu(matrix, k=1).sum())
