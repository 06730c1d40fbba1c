"""A Wikipedia-sized random graph for the scaling experiment, and instances with a planted solution.

Blanco et al. run on the 2013 English Wikipedia graph (3,685,351 vertices, 36,066,162 edges), which is not
available here. :func:`synthetic_graph` builds a graph of that size whose degrees follow Wikispeedia's: each
vertex gets a weight resampled from the Wikispeedia LCC degrees, edges are drawn Chung-Lu style (both ends
chosen with probability proportional to weight, so expected degrees are proportional to weights: the
empirical shape rescaled to the target mean degree ``2 m / n``), self loops and duplicates are dropped and
more edges drawn until exactly ``n_edges`` remain. A random recursive tree (vertex ``i`` of a random order
attached to a uniformly chosen earlier one) is part of the edge set so the graph is connected; its ``n - 1``
edges count towards ``n_edges``.

Endpoints are drawn in two stages, a weight class (the distinct resampled degrees, with probability
proportional to class size times degree) then a uniform vertex of that class, which keeps the draws
vectorised and cache-friendly; the CSR arrays are filled by one numba pass over the sorted edge keys.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.checks import check_int
from decoders.corpora.wikispeedia import Graph
from decoders.linking.checks import INT32_MAX, check_graph, integer_array
from decoders.linking.instance import LinkingInstance, _path

__all__ = ["plant_instances", "synthetic_graph"]

_CHUNK = 8_000_000  # endpoint pairs drawn per batch (bounds the transient memory to a few hundred MB)


def _random_tree(rng: np.random.Generator, n: int) -> np.ndarray:
    """Sorted int64 keys ``u * n + v`` (``u < v``) of a random recursive tree on ``0..n-1``."""
    order = rng.permutation(n)
    position = np.arange(1, n, dtype=np.int64)
    parent = order[np.floor(rng.random(n - 1) * position).astype(np.int64)]
    child = order[1:]
    return np.sort(np.minimum(parent, child) * n + np.maximum(parent, child))


def _endpoint_sampler(rng: np.random.Generator, weights: np.ndarray):
    """A function drawing ``size`` vertices with probability proportional to ``weights`` (integers >= 1)."""
    order = np.argsort(weights, kind="stable")
    values, starts, counts = np.unique(weights[order], return_index=True, return_counts=True)
    mass = np.cumsum(values.astype(np.float64) * counts)
    mass /= mass[-1]

    def draw(size: int) -> np.ndarray:
        group = np.minimum(np.searchsorted(mass, rng.random(size), side="right"), values.size - 1)
        offset = np.floor(rng.random(size) * counts[group]).astype(np.int64)
        return order[starts[group] + offset].astype(np.int64)

    return draw


@numba.njit(cache=True)
def _fill_csr(keys: np.ndarray, n: int, indptr: np.ndarray, below: np.ndarray, indices: np.ndarray) -> None:
    """Write both directions of every edge key into ``indices`` with sorted neighbour lists.

    ``keys`` are sorted ``u * n + v`` with ``u < v``; ``below[v]`` counts the neighbours of ``v`` smaller than
    ``v``. Smaller neighbours fill the front of a row in increasing order, larger ones the back.
    """
    low = indptr[:-1].copy()
    high = indptr[:-1] + below
    for key in keys:
        u = key // n
        v = key - u * n
        indices[high[u]] = v
        high[u] += 1
        indices[low[v]] = u
        low[v] += 1


def synthetic_graph(
    n_nodes: int = 3_600_000, n_edges: int = 36_000_000, *, degrees: np.ndarray, seed: int = 0
) -> Graph:
    """A connected simple undirected graph with ``n_nodes`` vertices and exactly ``n_edges`` edges whose
    degree distribution is ``degrees`` (an empirical sample, e.g. Wikispeedia's LCC) rescaled to mean
    ``2 * n_edges / n_nodes``; ``original_node`` is the identity. Deterministic given ``seed``. ``degrees`` must
    be a non-empty 1-d integer array of values >= 1, ``n_nodes`` an integer in ``2..2^31 - 1``, ``n_edges`` an
    integer in ``n_nodes - 1..n_nodes (n_nodes - 1) / 2``, ``seed`` an integer >= 0.
    """
    degrees = integer_array(degrees, "degrees")
    if degrees.size == 0 or degrees.min() < 1:
        raise ValueError("degrees must be a non-empty 1-d sample of positive degrees")
    n_nodes = check_int(n_nodes, "n_nodes")
    n_edges = check_int(n_edges, "n_edges")
    seed = check_int(seed, "seed", minimum=0)
    if n_nodes < 2:
        raise ValueError(f"a synthetic graph needs at least 2 vertices, got n_nodes = {n_nodes}")
    if n_nodes > INT32_MAX:
        raise ValueError(f"n_nodes must fit vertex ids in int32 (<= {INT32_MAX}), got {n_nodes}")
    if not n_nodes - 1 <= n_edges <= n_nodes * (n_nodes - 1) // 2:
        raise ValueError(f"n_edges must lie in {n_nodes - 1}..{n_nodes * (n_nodes - 1) // 2}, got {n_edges}")
    rng = np.random.default_rng(seed)
    n = np.int64(n_nodes)
    tree = _random_tree(rng, n_nodes)
    draw = _endpoint_sampler(rng, rng.choice(degrees.astype(np.int64), size=n_nodes))
    wanted = n_edges - (n_nodes - 1)
    extra = np.empty(0, dtype=np.int64)
    while extra.size < wanted:
        # draw about the missing number of edges in batches, then merge once (duplicates across batches go)
        parts, drawn = [extra], 0
        while drawn < (wanted - extra.size) * 1.02 + 16:
            batch = min(_CHUNK, int((wanted - extra.size) * 1.05) + 16)
            u, v = draw(batch), draw(batch)
            proper = u != v
            keys = np.minimum(u[proper], v[proper]) * n + np.maximum(u[proper], v[proper])
            del u, v, proper
            keys = np.unique(keys)
            parts.append(keys[~np.isin(keys, tree, assume_unique=True)])
            drawn += parts[-1].size
        extra = np.unique(np.concatenate(parts))
        del parts
    if extra.size > wanted:
        extra = np.delete(extra, rng.choice(extra.size, size=extra.size - wanted, replace=False))
    keys = np.concatenate([tree, extra])
    del tree, extra
    keys.sort()
    u = keys // n
    v = keys - u * n
    degree = np.bincount(u, minlength=n_nodes) + np.bincount(v, minlength=n_nodes)
    below = np.bincount(v, minlength=n_nodes).astype(np.int64)
    del u, v
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    _fill_csr(keys, n, indptr, below, indices)
    return Graph(indptr=indptr, indices=indices, original_node=np.arange(n_nodes, dtype=np.int32))


def _cluster(rng: np.random.Generator, graph: Graph, size: int) -> list[int] | None:
    """The first ``size`` vertices of a breadth-first search from a random vertex, neighbours visited in
    random order: a ball (the start and its nearest vertices, pairwise at most twice its radius apart).
    None if the start's component is smaller than ``size``."""
    start = int(rng.integers(graph.n_nodes))
    members, seen = [start], {start}
    head = 0
    while head < len(members) and len(members) < size:
        at = members[head]
        head += 1
        for step in rng.permutation(graph.indices[graph.indptr[at] : graph.indptr[at + 1]]).tolist():
            if step not in seen:
                seen.add(step)
                members.append(step)
                if len(members) == size:
                    break
    return members if len(members) == size else None


def plant_instances(
    graph: Graph,
    graph_path: str,
    n_instances: int,
    *,
    sets: int = 12,
    candidates: int = 100,
    seed: int = 0,
) -> list[tuple[str, int, LinkingInstance]]:
    """Instances with a planted solution: a breadth-first ball of ``sets`` vertices around a random vertex
    gives the fair candidate of each set, and the other ``candidates - 1`` members of every set are uniformly random vertices (on a large
    graph, far from the cluster and from each other). Sets are sorted by vertex id; gold = the planted
    vertex's position. Returns ``(instance_id, size, instance)`` triples, size = total candidates.
    ``n_instances`` and ``sets`` must be integers >= 1, ``seed`` >= 0.
    """
    graph = check_graph(graph)
    graph_path = _path(graph_path, "graph_path")
    n_instances = check_int(n_instances, "n_instances", minimum=1)
    sets = check_int(sets, "sets")
    candidates = check_int(candidates, "candidates")
    seed = check_int(seed, "seed", minimum=0)
    if sets < 1 or not 2 <= candidates <= graph.n_nodes:
        raise ValueError(f"need sets >= 1 and 2 <= candidates <= {graph.n_nodes}, got {sets}, {candidates}")
    rng = np.random.default_rng(seed)
    instances: list[tuple[str, int, LinkingInstance]] = []
    attempts = 0
    while len(instances) < n_instances:
        attempts += 1
        if attempts > 20 * n_instances + 100:
            raise ValueError(f"could not find connected clusters of {sets} vertices in this graph")
        planted = _cluster(rng, graph, sets)
        if planted is None:
            continue
        candidate_sets, gold = [], []
        for fair in planted:
            others = rng.choice(graph.n_nodes - 1, size=candidates - 1, replace=False)
            others[others >= fair] += 1  # uniform over the vertices other than the fair one
            members = np.sort(np.append(others, fair)).astype(np.int32)
            candidate_sets.append(members)
            gold.append(int(np.searchsorted(members, fair)))
        instance = LinkingInstance(
            graph_path=str(graph_path),
            sets=tuple(candidate_sets),
            gold=np.array(gold),
            mentions=tuple(f"planted {v}" for v in planted),
            document=f"planted-{len(instances)}",
            n_vertices=graph.n_nodes,  # the scaling table's graphs are never saved
        )
        instances.append((f"planted-{len(instances)}", instance.n_candidates, instance))
    return instances
