"""The MinDR distance cost of chosen vertices on an instance's connected graph (``G`` plus its connection).

Cost = ``sum_{i<j} d(x_i, x_j)`` in hops (half the paper's ordered-pair ``f``; the same minimisers). Instances
live on a connected graph, but so that every cost stays finite and comparable (CP-SAT, heuristics and this
function agree on it) a pair with no path costs :func:`unreachable_cost` = ``n`` vertices, more than any real
hop distance.
"""

from __future__ import annotations

import numpy as np

from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.linking.checks import check_graph, check_vertices, integer_array
from decoders.linking.connection import _connect, _connection_name
from decoders.linking.distances import _pairwise_distances
from decoders.linking.instance import LinkingInstance, instance_and_graph
from decoders.linking.overlay import Overlay, check_overlay


def unreachable_cost(graph: Graph) -> int:
    """The cost charged for a pair of vertices with no path between them (the number of vertices)."""
    return check_graph(graph).n_nodes


def _finite(distances: np.ndarray, n: int) -> np.ndarray:
    out = distances.astype(np.int64)
    out[out < 0] = n
    return out


def finite_distances(distances: np.ndarray, graph: Graph) -> np.ndarray:
    """``distances`` (integers >= -1, any shape) as int64 with -1 (unreachable) replaced by
    :func:`unreachable_cost`."""
    distances = integer_array(distances, "distances", ndim=None)
    graph = check_graph(graph)
    if distances.size and distances.min() < -1:
        bad = distances < -1
        where = "[" + ", ".join(str(int(i)) for i in np.argwhere(bad)[0]) + "]"
        raise ValueError(
            f"distances{where} is {distances[bad][0]}: hop distances are >= 0, or -1 (unreachable)"
        )
    return _finite(distances, graph.n_nodes)


def _resolve(instance: LinkingInstance, graph: Graph, connection: Overlay | str) -> Overlay:
    if isinstance(connection, Overlay):
        return check_overlay(connection, graph.n_nodes, "connection")
    if isinstance(connection, str):
        return _connect(graph, instance.sets, _connection_name(connection))
    raise ConfigError(
        f"connection must be an Overlay or one of 'maximal', 'minimal'; got {type(connection).__name__}"
    )


def resolve_connection(instance: LinkingInstance, connection: Overlay | str) -> Overlay:
    """The overlay itself (checked against the instance's graph), or the one the named connection adds for this
    instance."""
    instance, graph = instance_and_graph(instance)
    return _resolve(instance, graph, connection)


def _vertex_distance_matrix(graph: Graph, overlay: Overlay, vertices: np.ndarray) -> np.ndarray:
    unique, inverse = np.unique(np.asarray(vertices, dtype=np.int32), return_inverse=True)
    distances = _finite(
        _pairwise_distances(graph.indptr, graph.indices, unique, unique, overlay), graph.n_nodes
    )
    return distances[np.ix_(inverse, inverse)]


def vertex_distance_matrix(graph: Graph, overlay: Overlay, vertices: np.ndarray) -> np.ndarray:
    """``D[a, b]`` = hop distance (int64, unreachable -> ``n``) between ``vertices[a]`` and ``vertices[b]``
    (1-d vertex ids of ``graph``) on ``graph`` plus ``overlay`` (None: no added edge).

    One BFS per distinct vertex, each stopping once all the vertices are reached.
    """
    graph = check_graph(graph)
    overlay = check_overlay(overlay, graph.n_nodes)
    vertices = check_vertices(vertices, "vertices", graph.n_nodes)
    return _vertex_distance_matrix(graph, overlay, vertices)


def _distance_cost(graph: Graph, overlay: Overlay, vertices: np.ndarray) -> float:
    """The cost of checked ``vertices`` on ``graph`` plus ``overlay`` (the decoders' path)."""
    return float(np.triu(_vertex_distance_matrix(graph, overlay, vertices), k=1).sum())


def distance_cost(instance: LinkingInstance, vertices: np.ndarray, connection: Overlay | str) -> float:
    """Sum over pairs ``i < j`` of the hop distance between the chosen ``vertices`` (one vertex id of the graph
    per set) on the connected graph (``G`` plus ``connection``: an Overlay, or ``"maximal"`` / ``"minimal"``)."""
    instance, graph = instance_and_graph(instance)
    vertices = check_vertices(vertices, "vertices", graph.n_nodes)
    if vertices.shape != (instance.k,):
        raise ValueError(f"vertices must hold one vertex per set ({instance.k}); got shape {vertices.shape}")
    return _distance_cost(graph, _resolve(instance, graph, connection), vertices)
