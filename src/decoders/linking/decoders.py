"""The linking decoders (MinDR, Blanco, Boldi and Marino), registered for the harness, and the task's evaluation.

Every decoder takes a :class:`~decoders.linking.instance.LinkingInstance` and ``connection`` (``"maximal"``:
every candidate set made a clique, the default; ``"minimal"``: its components joined with the fewest edges), builds
that overlay (part of the timed work) and returns positions within the sets. The objective is always the distance
cost ``sum_{i<j} d(x_i, x_j)`` on the connected graph (``G`` plus the overlay), computed by the decoder after its
choice (``stats["select_seconds"]`` is the time of the choice alone). MinDR is a minimisation: ``bound`` is a
certified lower bound, given only by the exact decoders (``exact``: CP-SAT; ``decomposable``: Algorithm 1, which
raises :class:`~decoders.linking.decomposable.NotDecomposableError` on a non-decomposable instance).

Every decoder breaks ties by candidate position, earliest first (the NEL sets are in retrieval rank order;
see :mod:`decoders.linking.heuristics`), except ``exact``, where CP-SAT picks among optima. ``retrieval`` is the
graph-free baseline (each set's first candidate: the ranking alone). ``max_candidates`` cuts every set to its
first candidates before decoding (the candidate-count sweep); ``evaluate`` scores against the whole instance,
so a target beyond the cut counts as a miss and the value keeps ``k`` as its denominator.

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
    choose: Callable[[np.ndarray, np.ndarray, Overlay, tuple[np.ndarray, ...]], np.ndarray],
    max_candidates: int | None = None,
) -> Solution:
    """Run ``choose(indptr, indices, overlay, sets)`` on the connected graph and score its positions.

    With ``max_candidates`` the instance is first cut to the top of every set
    (:meth:`~decoders.linking.instance.LinkingInstance.truncated`): the overlay, the choice and the cost are
    those of the cut instance, and the positions are valid in the whole one.
    """
    started = time.perf_counter()
    instance = instance.truncated(max_candidates)
    graph = instance.graph
    overlay = connect(graph, instance.sets, connection)
    positions = np.asarray(choose(graph.indptr, graph.indices, overlay, instance.sets), dtype=np.int64)
    selected = time.perf_counter()
    cost = distance_cost(instance, instance.chosen_vertices(positions), overlay)
    stats = {"select_seconds": selected - started, "overlay_edges": overlay.n_edges}
    if max_candidates is not None:
        stats["max_candidates"] = int(max_candidates)
    return Solution(positions, cost, None, "feasible", stats)


@register(EXPERIMENT, "spanning-tree")
def decode_spanning_tree(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Section 5.1: exact decomposable MinDR on a spanning tree of the quotient graph."""
    return _heuristic(instance, connection, spanning_tree_positions, max_candidates)


@register(EXPERIMENT, "hitting-distance")
def decode_hitting_distance(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Section 5.2: least average hitting distance per set."""
    return _heuristic(instance, connection, hitting_distance_positions, max_candidates)


@register(EXPERIMENT, "greedy")
def decode_greedy(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    seed: int = 0,
    max_candidates: int | None = None,
) -> Solution:
    """Section 6's greedy baseline; the random start is drawn from ``seed`` (deterministic per seed)."""
    rng = np.random.default_rng(seed)
    return _heuristic(
        instance, connection, lambda p, i, o, sets: greedy_positions(p, i, o, sets, rng), max_candidates
    )


@register(EXPERIMENT, "degree")
def decode_degree(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Highest degree in the connected graph per set."""
    return _heuristic(instance, connection, degree_positions, max_candidates)


@register(EXPERIMENT, "pagerank")
def decode_pagerank(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Highest PageRank of ``G`` per set (the vector is cached per graph; see the module docstring)."""
    scores = graph_pagerank(instance.graph_path)
    return _heuristic(
        instance, connection, lambda p, i, o, sets: score_positions(scores, sets), max_candidates
    )


@register(EXPERIMENT, "retrieval")
def decode_retrieval(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Baseline without the graph: the first candidate of every set, i.e. the retrieval system's top hit.

    ``connection`` does not change the choice, only the graph its distance cost is measured on (so that the
    cost compares with the other decoders' under the same connection).
    """
    return _heuristic(
        instance, connection, lambda p, i, o, sets: np.zeros(len(sets), dtype=np.int64), max_candidates
    )


@register(EXPERIMENT, "decomposable")
def decode_decomposable(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Algorithm 1, exact on decomposable instances; NotDecomposableError otherwise."""
    solution = _heuristic(
        instance, connection, lambda p, i, o, sets: decomposable_mindr(p, i, sets, o), max_candidates
    )
    solution.bound = solution.objective
    solution.status = "optimal"
    return solution


@register(EXPERIMENT, "exact")
def decode_exact(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """CP-SAT with one worker, seeded with the hitting-distance choice; ``timeout`` with its bound at the
    deadline. Among several optima CP-SAT returns any one (the solver, not the ranking, decides)."""
    started = time.perf_counter()
    instance = instance.truncated(max_candidates)
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
    """Fair choices (positions equal to the gold one), the number of sets, and the distance cost.

    A set whose target is not among its candidates (``gold = -1``) can never be fair but still counts in ``k``,
    so the value ``fair / k`` is the share of all the document's mentions linked correctly."""
    if solution.structure is None:
        return {"fair": 0, "k": instance.k, "cost": float("nan")}
    positions = np.asarray(solution.structure, dtype=np.int64)
    return {
        "fair": int((positions == instance.gold).sum()),
        "k": instance.k,
        "cost": float(solution.objective),
    }
