"""The linking decoders (MinDR, Blanco, Boldi and Marino), registered for the harness, and the task's evaluation.

Every decoder takes a :class:`~decoders.linking.instance.LinkingInstance` and ``connection`` (``"maximal"``:
every candidate set made a clique, the default; ``"minimal"``: its components joined with the fewest edges), builds
that overlay (part of the timed work) and returns positions within the sets. The objective is always the distance
cost ``sum_{i<j} d(x_i, x_j)`` on the connected graph (``G`` plus the overlay), computed by the decoder after its
choice (``stats["select_seconds"]`` is the time of the choice alone). MinDR is a minimisation: ``bound`` is a
certified lower bound, given only by the exact decoders (``exact``: CP-SAT; ``exact-scip``: SCIP on the same
model; ``decomposable``: Algorithm 1, which
raises :class:`~decoders.linking.decomposable.NotDecomposableError` on a non-decomposable instance).

Every decoder breaks ties by candidate position, earliest first (the NEL sets are in retrieval rank order;
see :mod:`decoders.linking.heuristics`), except ``exact`` and ``exact-scip``, where the solver picks among optima. ``retrieval`` is the
graph-free baseline (each set's first candidate: the ranking alone). ``max_candidates`` cuts every set to its
first candidates before decoding (the candidate-count sweep); ``evaluate`` scores against the whole instance,
so a target beyond the cut counts as a miss and the value keeps ``k`` as its denominator.

**Unreachable pairs.** A pair of chosen vertices with no path between them in ``G`` plus the overlay (a
disconnected graph; the overlay joins each set's own candidates, never two sets) costs ``n``, the number of graph
vertices, which exceeds every hop distance (:func:`~decoders.linking.cost.unreachable_cost`). The same rule holds
everywhere: in the cost every decoder reports, in CP-SAT's objective (``exact``), in Algorithm 1
(``decomposable``: each connected component is solved on its own, the pairs across components adding the
constant ``n`` each, since every set lies within one component), in the heuristics' distance sums, and in
:func:`verify`.

**Parameters** are checked before any work, with a :class:`~decoders.errors.ConfigError` naming the key:
``connection`` one of ``maximal`` / ``minimal``; ``max_candidates`` None or an integer >= 1; ``seed`` an integer
>= 0; ``deadline`` None or a time, not NaN (ValueError, from the registry). The instance was checked when it was
built (:class:`~decoders.linking.instance.LinkingInstance`, which also reads the graph's order) and is checked again,
cheaply (O(candidates)), against the loaded graph before the kernels run: an instance changed, or unpickled from a
shard written for another graph, is refused naming ``instance.sets[i][p]`` instead of reaching the unchecked
kernels. The decoders then call the package's private kernels directly (no check per search).

**Statuses.** Every heuristic returns ``feasible`` with a valid structure (they do not stop early, so a deadline
already passed changes nothing); ``decomposable`` ``optimal`` (or raises NotDecomposableError); ``exact``
(and ``exact-scip``) ``optimal``, or ``timeout`` with the best structure the solver found and its bound, or with no structure (NaN objective,
bound 0) when the deadline had passed before the solver started.

**Certificates.** :func:`verify` is the harness's check of every ``optimal`` record: the structure is one position
per set, the objective equals the cost recomputed from the instance alone (scipy's breadth-first distances on ``G``
plus the overlay of ``stats["connection"]``, on the instance cut to ``stats["max_candidates"]``), the bound equals
the objective, no single set can move to another candidate and lower the cost, and, on instances with few
choices, no choice at all costs less (enumeration).

The PageRank vector depends on the graph only: it is computed once per graph path and process (on ``G`` without
the overlay), so a worker's untimed warm-up call pays for it and timed calls do not.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, register
from decoders.linking.checks import check_positions
from decoders.linking.connection import CONNECTIONS, _connect
from decoders.linking.cost import _distance_cost
from decoders.linking.decomposable import _decomposable_mindr
from decoders.linking.exact import ExactResult, _exact_mindr
from decoders.linking.exact_scip import _exact_mindr_scip
from decoders.linking.heuristics import (
    _degree_positions,
    _greedy_positions,
    _hitting_distance_positions,
    _score_positions,
)
from decoders.linking.instance import LinkingInstance, _path, instance_and_graph, load_graph
from decoders.linking.overlay import Overlay
from decoders.linking.pagerank import _pagerank
from decoders.linking.spanning_tree import _spanning_tree_positions

EXPERIMENT = "linking"


def graph_pagerank(graph_path: str) -> np.ndarray:
    """PageRank (damping 0.85) of the graph saved at ``graph_path``, computed once per process."""
    return _graph_pagerank(_path(graph_path, "graph_path"))


@lru_cache(maxsize=2)
def _graph_pagerank(graph_path: str) -> np.ndarray:
    graph = load_graph(graph_path)
    return _pagerank(graph.indptr, graph.indices)


def _connection(connection: Any) -> str:
    """The ``connection`` parameter: ``maximal`` or ``minimal``."""
    if not isinstance(connection, str) or connection not in CONNECTIONS:
        raise ConfigError(f"connection must be one of {', '.join(CONNECTIONS)}; got {connection!r}")
    return connection


def _max_candidates(max_candidates: Any) -> int | None:
    """The ``max_candidates`` parameter: None (every candidate) or an integer >= 1."""
    if max_candidates is None:
        return None
    if (
        isinstance(max_candidates, bool)
        or not isinstance(max_candidates, int | np.integer)
        or max_candidates < 1
    ):
        raise ConfigError(f"max_candidates must be None or an integer >= 1; got {max_candidates!r}")
    return int(max_candidates)


def _seed(seed: Any) -> int:
    """The ``seed`` parameter: an integer >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"seed must be an integer >= 0; got {seed!r}")
    return int(seed)


def _checked(
    instance: Any, connection: Any, max_candidates: Any
) -> tuple[LinkingInstance, Graph, str, int | None]:
    """The parameters (ConfigError naming the key) and the instance against its graph
    (:func:`~decoders.linking.instance.instance_and_graph`: O(candidates), so that an instance changed or unpickled
    after its construction cannot reach the kernels with an id past the graph)."""
    connection, max_candidates = _connection(connection), _max_candidates(max_candidates)
    instance, graph = instance_and_graph(instance)
    return instance, graph, connection, max_candidates


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
    instance, graph, connection, max_candidates = _checked(instance, connection, max_candidates)
    started = time.perf_counter()
    instance = instance.truncated(max_candidates)
    overlay = _connect(graph, instance.sets, connection)
    positions = np.asarray(choose(graph.indptr, graph.indices, overlay, instance.sets), dtype=np.int64)
    selected = time.perf_counter()
    cost = _distance_cost(graph, overlay, instance.chosen_vertices(positions))
    stats = {"select_seconds": selected - started, "overlay_edges": overlay.n_edges, "connection": connection}
    if max_candidates is not None:
        stats["max_candidates"] = max_candidates
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
    return _heuristic(instance, connection, _spanning_tree_positions, max_candidates)


@register(EXPERIMENT, "hitting-distance")
def decode_hitting_distance(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Section 5.2: least average hitting distance per set."""
    return _heuristic(instance, connection, _hitting_distance_positions, max_candidates)


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
    rng = np.random.default_rng(_seed(seed))
    return _heuristic(
        instance,
        connection,
        lambda p, i, o, sets: _greedy_positions(p, i, o, sets, rng),
        max_candidates,
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
    return _heuristic(instance, connection, _degree_positions, max_candidates)


@register(EXPERIMENT, "pagerank")
def decode_pagerank(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """Highest PageRank of ``G`` per set (the vector is cached per graph; see the module docstring)."""
    instance = _checked(instance, connection, max_candidates)[0]  # before the PageRank is computed
    scores = graph_pagerank(instance.graph_path)
    return _heuristic(
        instance, connection, lambda p, i, o, sets: _score_positions(scores, sets), max_candidates
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
        instance,
        connection,
        lambda p, i, o, sets: np.zeros(len(sets), dtype=np.int64),
        max_candidates,
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
        instance,
        connection,
        lambda p, i, o, sets: _decomposable_mindr(p, i, sets, o),
        max_candidates,
    )
    solution.bound = solution.objective
    solution.status = "optimal"
    return solution


def _exact(
    instance: LinkingInstance,
    solve: Callable[..., ExactResult],
    deadline: float | None,
    connection: Any,
    max_candidates: Any,
) -> Solution:
    """An exact MinDR solver (``solve``: CP-SAT's or SCIP's) seeded with the hitting-distance choice."""
    instance, graph, connection, max_candidates = _checked(instance, connection, max_candidates)
    started = time.perf_counter()
    instance = instance.truncated(max_candidates)
    overlay = _connect(graph, instance.sets, connection)
    hint = _hitting_distance_positions(graph.indptr, graph.indices, overlay, instance.sets)
    result = solve(graph.indptr, graph.indices, overlay, instance.sets, deadline=deadline, hint=hint)
    stats = {
        **result.stats,
        "select_seconds": time.perf_counter() - started,
        "overlay_edges": overlay.n_edges,
        "connection": connection,
    }
    if max_candidates is not None:
        stats["max_candidates"] = max_candidates
    if result.optimal:
        return Solution(result.positions, result.cost, result.bound, "optimal", stats)
    return Solution(result.positions, result.cost, result.bound, "timeout", stats)


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
    return _exact(instance, _exact_mindr, deadline, connection, max_candidates)


@register(EXPERIMENT, "exact-scip")
def decode_exact_scip(
    instance: LinkingInstance,
    *,
    deadline: float | None = None,
    connection: str = "maximal",
    max_candidates: int | None = None,
) -> Solution:
    """SCIP (OR-Tools' bundled build, one thread, presolve off) on CP-SAT's model, seeded with the
    same hint (:mod:`decoders.linking.exact_scip`); ``optimal`` only when the re-scored choice meets SCIP's dual
    bound, else ``timeout`` with the bound. Among several optima SCIP returns any one."""
    return _exact(instance, _exact_mindr_scip, deadline, connection, max_candidates)


def _pair(instance: Any, solution: Any) -> tuple[LinkingInstance, Solution]:
    if not isinstance(instance, LinkingInstance):
        raise ValueError(f"instance must be a LinkingInstance, got {type(instance).__name__}")
    if not isinstance(solution, Solution):
        raise ValueError(
            f"solution must be a decoders.harness.protocol.Solution, got {type(solution).__name__}"
        )
    return instance, solution


def check_structure(instance: LinkingInstance, structure: Any) -> str | None:
    """Why ``structure`` is not a choice for ``instance`` (None when it is): one integer position per candidate
    set, in range. The harness applies it to every record with a structure
    (:func:`decoders.harness.protocol.get_structure_check`)."""
    if not isinstance(instance, LinkingInstance):
        raise ValueError(f"instance must be a LinkingInstance, got {type(instance).__name__}")
    try:
        check_positions(structure, "structure", [s.size for s in instance.sets])
    except ValueError as exc:
        return str(exc)
    return None


def evaluate(instance: LinkingInstance, solution: Solution) -> dict[str, float | int]:
    """Fair choices (positions equal to the gold one), the number of sets, and the distance cost.

    A set whose target is not among its candidates (``gold = -1``) can never be fair but still counts in ``k``,
    so the value ``fair / k`` is the share of all the document's mentions linked correctly. The structure must
    be one position per set (ValueError naming ``solution.structure`` otherwise)."""
    instance, solution = _pair(instance, solution)
    if solution.structure is None:
        return {"fair": 0, "k": instance.k, "cost": float("nan")}
    positions = check_positions(solution.structure, "solution.structure", [s.size for s in instance.sets])
    return {
        "fair": int((positions == instance.gold).sum()),
        "k": instance.k,
        "cost": float(solution.objective),
    }


VERIFY_RTOL = 1e-9
"""A certificate holds when its numbers agree within this share of the solution's magnitude (``sum |terms|``, the
sum of the pair distances of the structure itself)."""

VERIFY_ENUMERATE = 20_000
""":func:`verify` enumerates every choice when there are at most this many (and few candidates to search from)."""

VERIFY_ENUMERATE_CANDIDATES = 64


@lru_cache(maxsize=2)
def _adjacency(graph_path: str) -> sp.csr_array:
    """``G`` as a scipy CSR matrix (verification only; built once per graph path and process)."""
    graph = load_graph(graph_path)
    n = graph.n_nodes
    data = np.ones(graph.indices.size, dtype=np.int8)
    return sp.csr_array((data, graph.indices, graph.indptr), shape=(n, n))


def _hop_distances(
    graph: Graph, adjacency: sp.csr_array, overlay: Overlay, sources: np.ndarray
) -> np.ndarray:
    """``out[s, v]`` = hop distance from ``sources[s]`` to every vertex ``v`` of ``G`` plus ``overlay`` (int64;
    unreachable -> :func:`~decoders.linking.cost.unreachable_cost`), by scipy's unweighted shortest paths, not by
    the decoders' BFS kernels."""
    n = graph.n_nodes
    if overlay.n_edges:
        rows = np.repeat(overlay.nodes, np.diff(overlay.indptr))
        extra = sp.csr_array((np.ones(rows.size, dtype=np.int8), (rows, overlay.indices)), shape=(n, n))
        adjacency = adjacency + extra
    distances = shortest_path(adjacency, method="D", directed=True, unweighted=True, indices=sources)
    distances = np.atleast_2d(distances)
    out = np.full(distances.shape, graph.n_nodes, dtype=np.int64)  # unreachable_cost
    finite = np.isfinite(distances)
    out[finite] = distances[finite].astype(np.int64)
    return out


def exact_check(instance: LinkingInstance, solution: Solution, time_limit: float) -> tuple[str | None, str]:
    """A user's decoder's ``optimal`` claim beyond :func:`verify`'s enumeration, set against CP-SAT's exact MinDR
    (:func:`decode_exact`, same connection and candidate cut as the claim's stats name) within ``time_limit``
    seconds (:func:`decoders.harness.protocol.get_exact_check`): ``(reason, "rejected")`` when it finds a choice
    that costs less, ``(None, "confirmed")`` when it proves the claimed cost optimal (or :func:`verify`
    enumerated every choice), else ``(None, "undecided")``. Tolerances as :func:`verify`'s."""
    instance, solution = _pair(instance, solution)
    stats = solution.stats or {}
    connection = _connection(stats.get("connection", "maximal"))
    max_candidates = _max_candidates(stats.get("max_candidates"))
    cut = instance.truncated(max_candidates)
    sizes = [s.size for s in cut.sets]
    candidates = np.unique(np.concatenate(cut.sets)) if cut.sets else np.zeros(0)
    if (
        np.prod(sizes, dtype=np.float64) <= VERIFY_ENUMERATE
        and candidates.size <= VERIFY_ENUMERATE_CANDIDATES
    ):
        return None, "confirmed"  # verify enumerated every choice
    found = decode_exact(
        instance,
        deadline=time.perf_counter() + time_limit,
        connection=connection,
        max_candidates=max_candidates,
    )
    if found.structure is not None and solution.objective - found.objective > VERIFY_RTOL * max(
        abs(solution.objective), abs(found.objective)
    ):
        choice = np.asarray(found.structure).tolist()
        return (
            f"CP-SAT finds the choice {choice} costing {found.objective!r} < objective {solution.objective!r}",
            ("rejected"),
        )
    return None, "confirmed" if found.status == "optimal" else "undecided"


def verify(instance: LinkingInstance, solution: Solution) -> str | None:
    """The harness's certificate check of an ``optimal`` Solution (:func:`decoders.harness.protocol.get_verifier`).

    Recomputes, from the instance alone (the graph file, the candidate sets and the connection named in
    ``solution.stats``, on the instance cut to ``stats["max_candidates"]`` when the decoder cut it): the structure
    is one integer position per set, in range; its cost ``sum_{i<j} d(x_i, x_j)``, with scipy's hop distances on
    ``G`` plus the connection overlay (unreachable pairs cost ``n``, as in every decoder), equals the objective;
    the bound (a lower bound: MinDR is a minimisation) equals the objective; no set can move to another of its
    candidates, the others fixed, and lower the cost; and when there are at most :data:`VERIFY_ENUMERATE` choices,
    none costs less. The tolerance is :data:`VERIFY_RTOL` times the structure's own cost (the sum of its
    non-negative pair distances), so nothing the structure does not use widens it. Returns None when everything
    holds, else the reason.
    """
    instance, solution = _pair(instance, solution)
    instance, graph = instance_and_graph(instance)
    stats = solution.stats or {}
    try:
        connection = _connection(stats.get("connection", "maximal"))
        max_candidates = _max_candidates(stats.get("max_candidates"))
    except ConfigError as exc:
        return f"stats do not name the decoded problem: {exc}"
    instance = instance.truncated(max_candidates)
    sizes = np.array([s.size for s in instance.sets])
    if solution.structure is None:
        return "no structure"
    positions = np.asarray(solution.structure)
    if positions.shape != (instance.k,) or positions.dtype.kind not in "iu":
        return (
            f"structure must be {instance.k} integer positions (one per set); got shape {positions.shape}, "
            f"dtype {positions.dtype}"
        )
    outside = (positions < 0) | (positions >= sizes)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        cut = f" (cut to max_candidates = {max_candidates})" if max_candidates is not None else ""
        return (
            f"structure[{i}] = {positions[i].item()!r} is not a position in set {i} of size {sizes[i]}{cut}"
        )
    positions = positions.astype(np.int64)
    overlay = _connect(graph, instance.sets, connection)
    chosen = instance.chosen_vertices(positions)
    unique, inverse = np.unique(chosen, return_inverse=True)
    # rows[i] = distances from the vertex chosen in set i
    rows = _hop_distances(graph, _adjacency(instance.graph_path), overlay, unique)[inverse]
    pair = rows[:, chosen]
    cost = int(np.triu(pair, k=1).sum())
    tol = VERIFY_RTOL * cost
    where = f"on G plus the {connection} connection"
    if not abs(solution.objective - cost) <= tol:
        return f"objective {solution.objective!r} but the structure costs {cost} {where}"
    if solution.bound is None or not abs(solution.bound - solution.objective) <= tol:
        return f"bound {solution.bound!r} is not the objective {solution.objective!r}"
    # One set moved, the others fixed: the cost changes by sum_{j != i} d(x_j, c) - d(x_j, x_i).
    pulls = pair.sum(axis=0)  # pulls[i] = sum_j d(x_j, x_i) (d(x_i, x_i) = 0)
    total = rows.sum(axis=0)
    for i, candidates in enumerate(instance.sets):
        others = total[candidates] - rows[i, candidates]
        better = int(np.argmin(others))
        if others[better] < pulls[i]:
            return (
                f"set {i} moved to position {better} (vertex {int(candidates[better])}), the others fixed, costs "
                f"{cost - int(pulls[i]) + int(others[better])} < objective {cost} {where}"
            )
    return _enumerate_problem(instance, graph, overlay, cost, where)


def _enumerate_problem(
    instance: LinkingInstance, graph: Graph, overlay: Overlay, cost: int, where: str
) -> str | None:
    """On an instance with few choices: a choice costing less than ``cost``, if there is one."""
    sizes = [s.size for s in instance.sets]
    candidates = np.unique(np.concatenate(instance.sets))
    if np.prod(sizes, dtype=np.float64) > VERIFY_ENUMERATE or candidates.size > VERIFY_ENUMERATE_CANDIDATES:
        return None
    distances = _hop_distances(graph, _adjacency(instance.graph_path), overlay, candidates)
    index = [np.searchsorted(candidates, s) for s in instance.sets]
    grid = np.indices(sizes).reshape(len(sizes), -1)
    totals = np.zeros(grid.shape[1], dtype=np.int64)
    for i, j in itertools.combinations(range(len(sizes)), 2):
        block = distances[np.ix_(index[i], instance.sets[j])]
        totals += block[grid[i], grid[j]]
    best = int(np.argmin(totals))
    if totals[best] < cost:
        return f"the choice {grid[:, best].tolist()} costs {int(totals[best])} < objective {cost} {where}"
    return None
