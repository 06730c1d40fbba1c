"""The linking decoders (MinDR, Blanco, Boldi and Marino), registered for the harness, and the task's evaluation.

Every decoder takes a :class:`~decoders.linking.instance.LinkingInstance` and ``connection`` (``"maximal"``:
every candidate set made a clique, the default; ``"minimal"``: its components joined with the fewest edges), builds
that overlay (part of the timed work) and returns positions within the sets. The objective is always the distance
cost ``sum_{i<j} d(x_i, x_j)`` on the connected graph (``G`` plus the overlay), computed by the decoder after its
choice (``stats["select_seconds"]`` is the time of the choice alone). MinDR is a minimisation: ``bound`` is a
certified lower bound, given only by the exact decoders (``exact``: CP-SAT; ``decomposable``: Algorithm 1, which
raises :class:`~decoders.linking.decomposable.NotDecomposableError` on a non-decomposable instance).

The PageRank vector depends on the graph only: it is computed once per graph path and process (on ``G`` without
the overlay), so a worker's untimed warm-up call pays for it and timed calls do not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from decoders.harness.protocol import Solution, register
from decoders.linking.connection import connect
from decoders.linking.cost import distance_cost
from decoders.linking.decomposable import decomposable_mindr
from decoders.linking.exact import exact_mindr
from decoders.linking.heuristics import (
    degree_positions,
    greedy_positions,
    hitting_distance_positions,
    score_positions,
)
from decoders.linking.instance import LinkingInstance, load_graph
from decoders.linking.overlay import Overlay
from decoders.linking.pagerank import pagerank
from decoders.linking.spanning_tree import spanning_tree_positions

EXPERIMENT = "linking"


@lru_cache(maxsize=2)
def graph_pagerank(graph_path: str) -> np.ndarray:
    """PageRank (damping 0.85) of the graph saved at ``graph_path``, computed once per process."""
    graph = load_graph(graph_path)
    return pagerank(graph.indptr, graph.indices)


def _heuristic(
    instance: LinkingInstance,
    connection: str,
    choose: Callable[[np.ndarray, np.ndarray, Overlay], np.ndarray],
) -> Solution:
    """Run ``choose(indptr, indices, overlay)`` on the connected graph and score its positions."""
    started = time.perf_counter()
    graph = instance.graph
    overlay = connect(graph, instance.sets, connection)
    positions = np.asarray(choose(graph.indptr, graph.indices, overlay), dtype=np.int64)
    selected = time.perf_counter()
    cost = distance_cost(instance, instance.chosen_vertices(positions), overlay)
    stats = {"select_seconds": selected - started, "overlay_edges": overlay.n_edges}
    return Solution(positions, cost, None, "feasible", stats)


@register(EXPERIMENT, "spanning-tree")
def decode_spanning_tree(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal"
) -> Solution:
    """Section 5.1: exact decomposable MinDR on a spanning tree of the quotient graph."""
    return _heuristic(instance, connection, lambda p, i, o: spanning_tree_positions(p, i, o, instance.sets))


@register(EXPERIMENT, "hitting-distance")
def decode_hitting_distance(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal"
) -> Solution:
    """Section 5.2: least average hitting distance per set."""
    return _heuristic(
        instance, connection, lambda p, i, o: hitting_distance_positions(p, i, o, instance.sets)
    )


@register(EXPERIMENT, "greedy")
def decode_greedy(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal", seed: int = 0
) -> Solution:
    """Section 6's greedy baseline; the random start is drawn from ``seed`` (deterministic per seed)."""
    rng = np.random.default_rng(seed)
    return _heuristic(instance, connection, lambda p, i, o: greedy_positions(p, i, o, instance.sets, rng))


@register(EXPERIMENT, "degree")
def decode_degree(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal"
) -> Solution:
    """Highest degree in the connected graph per set."""
    return _heuristic(instance, connection, lambda p, i, o: degree_positions(p, i, o, instance.sets))


@register(EXPERIMENT, "pagerank")
def decode_pagerank(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal"
) -> Solution:
    """Highest PageRank of ``G`` per set (the vector is cached per graph; see the module docstring)."""
    scores = graph_pagerank(instance.graph_path)
    return _heuristic(instance, connection, lambda p, i, o: score_positions(scores, instance.sets))


@register(EXPERIMENT, "decomposable")
def decode_decomposable(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal"
) -> Solution:
    """Algorithm 1, exact on decomposable instances; NotDecomposableError otherwise."""
    solution = _heuristic(instance, connection, lambda p, i, o: decomposable_mindr(p, i, instance.sets, o))
    solution.bound = solution.objective
    solution.status = "optimal"
    return solution


@register(EXPERIMENT, "exact")
def decode_exact(
    instance: LinkingInstance, *, deadline: float | None = None, connection: str = "maximal"
) -> Solution:
    """CP-SAT with one worker, seeded with the hitting-distance choice; ``timeout`` with its bound at the
    deadline."""
    started = time.perf_counter()
    graph = instance.graph
    overlay = connect(graph, instance.sets, connection)
    hint = hitting_distance_positions(graph.indptr, graph.indices, overlay, instance.sets)
    result = exact_mindr(graph.indptr, graph.indices, overlay, instance.sets, deadline=deadline, hint=hint)
    stats = {
        **result.stats,
        "select_seconds": time.perf_counter() - started,
        "overlay_edges": overlay.n_edges,
    }
    if result.optimal:
        return Solution(result.positions, result.cost, result.bound, "optimal", stats)
    return Solution(result.positions, result.cost, result.bound, "timeout", stats)


def evaluate(instance: LinkingInstance, solution: Solution) -> dict[str, float | int]:
    """Fair choices (positions equal to the gold one), the number of sets, and the distance cost."""
    if solution.structure is None:
        return {"fair": 0, "k": instance.k, "cost": float("nan")}
    positions = np.asarray(solution.structure, dtype=np.int64)
    return {
        "fair": int((positions == instance.gold).sum()),
        "k": instance.k,
        "cost": float(solution.objective),
    }
