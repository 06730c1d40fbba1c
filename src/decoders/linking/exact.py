"""Exact MinDR by CP-SAT (OR-Tools, one worker): the integer program over candidate choices (beyond the paper).

Distances between all candidate pairs come from one BFS per distinct candidate on the connected graph, stopping
once every candidate is reached (unreachable pairs cost ``n``, as in :mod:`decoders.linking.cost`). Variables:
``x[i, a]`` = set ``i`` takes its candidate ``a`` (exactly one per set) and, for every pair of sets ``i < j``,
``y[a, b]`` = both ``a`` (of ``X_i``) and ``b`` (of ``X_j``) are taken, linearised by
``sum_b y[a, b] = x[i, a]`` and ``sum_a y[a, b] = x[j, b]`` (exact for 0/1 ``x``, and a much stronger LP
relaxation than ``y >= x_a + x_b - 1``, whose bound is 0). Objective ``sum d(a, b) y[a, b]`` (integers).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from decoders.checks import check_deadline
from decoders.linking.checks import check_csr, check_positions, check_sets
from decoders.linking.distances import _pairwise_distances
from decoders.linking.overlay import Overlay, check_overlay


@dataclass
class ExactResult:
    """``positions`` (None if no solution was found in time), its cost, the solver's lower bound, whether the
    optimum is certified, and timing / size counters."""

    positions: np.ndarray | None
    cost: float
    bound: float
    optimal: bool
    stats: dict


def _checked(indptr, indices, overlay, sets):
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    return indptr, indices, check_overlay(overlay, n), check_sets(sets, "sets", n)


def candidate_distances(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> list[list[np.ndarray]]:
    """``D[i][j][a, b]`` = hop distance between ``sets[i][a]`` and ``sets[j][b]`` (int64, unreachable -> n) on
    the CSR graph plus ``overlay`` (None: no added edge); ``sets`` arrays of distinct vertex ids."""
    return _candidate_distances(*_checked(indptr, indices, overlay, sets))


def _candidate_distances(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> list[list[np.ndarray]]:
    candidates = np.concatenate(sets).astype(np.int32)
    unique, inverse = np.unique(candidates, return_inverse=True)
    distances = _pairwise_distances(indptr, indices, unique, unique, overlay).astype(np.int64)
    distances[distances < 0] = indptr.shape[0] - 1
    offsets = np.cumsum([0, *(len(s) for s in sets)])
    ids = [inverse[a:b] for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    return [[distances[np.ix_(ids[i], ids[j])] for j in range(len(sets))] for i in range(len(sets))]


def exact_mindr(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    deadline: float | None = None,
    hint: np.ndarray | None = None,
) -> ExactResult:
    """Solve MinDR exactly with CP-SAT, stopping at ``deadline`` (a :func:`time.perf_counter` value).

    ``hint`` (positions, one per set) seeds the search. On timeout the best solution found (or None) and the
    solver's certified lower bound are returned with ``optimal`` False; a deadline already passed when the model
    is built returns no solution. Arguments are checked first (ValueError naming the argument): a CSR graph,
    ``overlay`` (None: no added edge) and non-empty ``sets`` of distinct vertex ids, a finite ``deadline``, a
    ``hint`` of valid positions.
    """
    indptr, indices, overlay, sets = _checked(indptr, indices, overlay, sets)
    deadline = check_deadline(deadline)
    if hint is not None:
        hint = check_positions(hint, "hint", [s.size for s in sets])
    return _exact_mindr(indptr, indices, overlay, sets, deadline, hint)


def _exact_mindr(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    deadline: float | None = None,
    hint: np.ndarray | None = None,
) -> ExactResult:
    """:func:`exact_mindr` on checked arguments (the decoder's path)."""
    started = time.perf_counter()
    k = len(sets)
    D = _candidate_distances(indptr, indices, overlay, sets)
    distances_seconds = time.perf_counter() - started
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"x{i}_{a}") for a in range(len(sets[i]))] for i in range(k)]
    for row in x:
        model.add_exactly_one(row)
    terms, costs = [], []
    for i in range(k):
        for j in range(i + 1, k):
            size_i, size_j = len(sets[i]), len(sets[j])
            y = [[model.new_bool_var("") for _ in range(size_j)] for _ in range(size_i)]
            for a in range(size_i):
                model.add(sum(y[a]) == x[i][a])
            for b in range(size_j):
                model.add(sum(y[a][b] for a in range(size_i)) == x[j][b])
            terms.extend(v for row in y for v in row)
            costs.extend(D[i][j].ravel().tolist())
    if terms:
        model.minimize(cp_model.LinearExpr.weighted_sum(terms, costs))
    if hint is not None:
        for i, position in enumerate(np.asarray(hint)):
            for a, var in enumerate(x[i]):
                model.add_hint(var, a == int(position))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    built = time.perf_counter()
    stats = {
        "distances_seconds": distances_seconds,
        "model_seconds": built - started - distances_seconds,
        "pair_variables": len(terms),
    }
    if deadline is not None:
        remaining = deadline - built
        if remaining <= 0:
            return ExactResult(None, float("nan"), 0.0, False, {**stats, "solver_status": "NOT_STARTED"})
        solver.parameters.max_time_in_seconds = remaining
    status = solver.solve(model)
    stats.update(
        solver_status=solver.status_name(status),
        solve_seconds=solver.wall_time,
        branches=solver.num_branches,
        conflicts=solver.num_conflicts,
    )
    if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):  # never for a valid model: one choice per set
        raise RuntimeError(f"CP-SAT answered {solver.status_name(status)} on a MinDR model")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return ExactResult(None, float("nan"), _bound(solver) if terms else 0.0, False, stats)
    positions = np.array([next(a for a, v in enumerate(row) if solver.boolean_value(v)) for row in x])
    cost = float(sum(D[i][j][positions[i], positions[j]] for i in range(k) for j in range(i + 1, k)))
    optimal = status == cp_model.OPTIMAL
    bound = cost if optimal else min(_bound(solver), cost)
    return ExactResult(positions, cost, bound, optimal, stats)


def _bound(solver: cp_model.CpSolver) -> float:
    """The solver's certified lower bound, at least 0 (distances are >= 0); 0 when it has none (not finite)."""
    bound = float(solver.best_objective_bound)
    return max(bound, 0.0) if np.isfinite(bound) else 0.0
