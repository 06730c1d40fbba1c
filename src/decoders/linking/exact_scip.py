"""Exact MinDR by SCIP (the SCIP bundled with OR-Tools, through its model builder; beyond the paper): the peer of
CP-SAT's :mod:`decoders.linking.exact` on the same integer program.

The model is :mod:`decoders.linking.exact`'s, row for row: ``x[i, a]`` binary (set ``i`` takes its candidate
``a``), ``sum_a x[i, a] = 1``; for every pair of sets ``i < j`` a variable ``y[a, b]`` per candidate pair with
``sum_b y[a, b] = x[i, a]`` and ``sum_a y[a, b] = x[j, b]``; objective ``sum d(a, b) y[a, b]`` over the same
integer hop distances (unreachable pairs cost ``n``). The ``y`` are binary in CP-SAT's model; here they are
continuous in ``[0, 1]``: for 0/1 ``x`` the two equalities force them to 0/1 (row ``a`` of the block sums to
``x[i, a]``, column ``b`` to ``x[j, b]``, all non-negative), so the feasible choices, the optimum and the LP
relaxation are the same, and SCIP does not branch on them. The matrix is written in CSR form at once
(:meth:`ModelBuilderHelper.fill_model_from_sparse_data`, no per-term Python call). The hitting-distance choice is
given as a solution hint, as CP-SAT's.

**Parameters** (:data:`SCIP_PARAMETERS`): presolve off, SCIP's default pricing. Chosen by measurement on the
ELEVANT documents (maximal connection, hint as in the decoder, 30 s limit each), one process at a time under
``nice -n 19`` on a 2-core machine shared with four other sessions' jobs (so the seconds are noisy):

- the 15 smallest documents (2 mentions, 126-169 candidates): CP-SAT 52.2 s in all, 14 proved (one censored
  without a solution at 18 s); SCIP defaults 58.7 s, 15; presolve off 1.6 s, 15; presolve off + devex pricing
  (``lp/pricing = d``) 3.3 s, 15.
- every 4th of the other 52 (13 documents, 3-10 mentions, 171-980 candidates): presolve off 107.5 s, 10
  proved; presolve off + devex 104.9 s, 10 proved. The 3 censored (k = 5, 6, 10) ended at the limit with the
  same choices; the bounds were 10 / 15 / 0 with default pricing and 0 / 15 / 0 with devex.
- the largest document (12 mentions, 1,072 candidates): CP-SAT, SCIP defaults, presolve off and presolve off
  + devex all censored at 30 s with bound 0; CP-SAT and SCIP defaults without any solution, SCIP with presolve
  off returned the hint's choice (cost 112).

SCIP's presolve spent seconds on the ~10^4-10^6 pair columns without shrinking the program; devex did not
help overall and lost a bound, so SCIP's default pricing stays.

**Certificate.** SCIP's answer is not taken on trust: the choice is read from the ``x`` values (the largest per
set), its cost re-scored exactly from the integer distance blocks, and ``optimal`` is reported only when SCIP
says OPTIMAL and that integer cost is within :data:`CERTIFICATE_RTOL` times itself of SCIP's dual bound (taken
at least 0, since every distance is >= 0). The tolerance is relative to the cost of the choice itself, a
tenth of the harness verifier's (:data:`decoders.linking.decoders.VERIFY_RTOL`), and an absolute slack of zero
for a choice of cost 0 (which is optimal whatever the bound). The reported bound is then the cost; on a timeout
it is ``min(max(dual bound, 0), cost)``, or 0 when SCIP has none (SCIP's infinity).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from decoders.checks import check_deadline
from decoders.errors import ConfigError
from decoders.linking.checks import check_positions, integer_array
from decoders.linking.exact import ExactResult, _candidate_distances, _checked
from decoders.linking.overlay import Overlay

#: SCIP parameters (SCIP's own "name = value" syntax): presolve off (module docstring)
SCIP_PARAMETERS = "presolving/maxrounds = 0"
#: optimal only when the re-scored cost is within this share of itself of SCIP's dual bound
CERTIFICATE_RTOL = 1e-10
#: SCIP reports a missing bound as +-1e20 (its infinity)
_SCIP_INFINITY = 1e20


def scip_version() -> str:
    """The SCIP OR-Tools was built with, as its model builder names it (for the provenance)."""
    from ortools.linear_solver.python import model_builder_helper as mbh

    solver = mbh.ModelSolverHelper("scip")
    if not solver.solver_is_supported():
        raise ConfigError("OR-Tools was built without SCIP")
    return str(solver.solver_version()) if hasattr(solver, "solver_version") else "bundled with OR-Tools"


def mindr_matrix(sizes: Sequence[int]) -> tuple[sp.csr_array, np.ndarray, list[tuple[int, int, int]]]:
    """The MinDR equality rows for sets of ``sizes``: the CSR matrix (rows = right-hand sides ``rhs``), and per
    pair ``(i, j, first column of its y block)``. Columns: the ``x`` first (set by set), then each pair's block
    ``y[a, b]`` at ``first + a * sizes[j] + b``. ``sizes``: integers >= 1 (ValueError naming ``sizes[i]``)."""
    array = integer_array(sizes, "sizes")
    if (array < 1).any():
        i = int(np.argmax(array < 1))
        raise ValueError(f"sizes[{i}] is {array[i].item()}; every set has at least one candidate")
    sizes = [int(s) for s in array]
    k = len(sizes)
    x_offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_x = int(x_offset[-1])
    rows_r, cols_r, vals_r = [], [], []
    # one choice per set
    rows_r.append(np.repeat(np.arange(k), sizes))
    cols_r.append(np.arange(n_x))
    vals_r.append(np.ones(n_x))
    row, column, blocks = k, n_x, []
    for i in range(k):
        for j in range(i + 1, k):
            si, sj = sizes[i], sizes[j]
            blocks.append((i, j, column))
            cells = np.arange(si * sj, dtype=np.int64)
            a, b = cells // sj, cells % sj
            # sum_b y[a, b] - x[i, a] = 0 (rows row .. row + si - 1), sum_a y[a, b] - x[j, b] = 0 (the next sj)
            rows_r += [row + a, row + si + b, row + np.arange(si), row + si + np.arange(sj)]
            cols_r += [
                column + cells,
                column + cells,
                x_offset[i] + np.arange(si),
                x_offset[j] + np.arange(sj),
            ]
            vals_r += [np.ones(2 * si * sj), -np.ones(si + sj)]
            row += si + sj
            column += si * sj
    matrix = sp.csr_array(
        (np.concatenate(vals_r), (np.concatenate(rows_r), np.concatenate(cols_r))), shape=(row, column)
    )
    rhs = np.zeros(row)
    rhs[:k] = 1.0
    return matrix, rhs, blocks


def exact_mindr_scip(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    deadline: float | None = None,
    hint: np.ndarray | None = None,
    parameters: str = SCIP_PARAMETERS,
) -> ExactResult:
    """Solve MinDR exactly with SCIP, stopping at ``deadline`` (a :func:`time.perf_counter` value); the
    arguments and the result as :func:`decoders.linking.exact.exact_mindr`'s (ValueError naming a bad argument).
    ``parameters``: SCIP's ``name = value`` lines (default :data:`SCIP_PARAMETERS`; a string, else ConfigError)."""
    indptr, indices, overlay, sets = _checked(indptr, indices, overlay, sets)
    deadline = check_deadline(deadline)
    if hint is not None:
        hint = check_positions(hint, "hint", [s.size for s in sets])
    if not isinstance(parameters, str):
        raise ConfigError(f"parameters must be SCIP's 'name = value' lines (a string); got {parameters!r}")
    return _exact_mindr_scip(indptr, indices, overlay, sets, deadline, hint, parameters)


def _exact_mindr_scip(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    deadline: float | None = None,
    hint: np.ndarray | None = None,
    parameters: str = SCIP_PARAMETERS,
) -> ExactResult:
    """:func:`exact_mindr_scip` on checked arguments (the decoder's path)."""
    from ortools.linear_solver.python import model_builder_helper as mbh

    started = time.perf_counter()
    k = len(sets)
    sizes = [len(s) for s in sets]
    D = _candidate_distances(indptr, indices, overlay, sets)
    distances_seconds = time.perf_counter() - started
    matrix, rhs, blocks = mindr_matrix(sizes)
    n_x = sum(sizes)
    n_columns = matrix.shape[1]
    objective = np.zeros(n_columns)
    for i, j, first in blocks:
        objective[first : first + sizes[i] * sizes[j]] = D[i][j].ravel()
    builder = mbh.ModelBuilderHelper()
    builder.fill_model_from_sparse_data(np.zeros(n_columns), np.ones(n_columns), objective, rhs, rhs, matrix)
    for column in range(n_x):
        builder.set_var_integrality(column, True)
    builder.set_maximize(False)
    if hint is not None:
        x_offset = np.cumsum([0, *sizes])
        for i, position in enumerate(np.asarray(hint).tolist()):
            for a in range(sizes[i]):
                builder.add_hint(int(x_offset[i] + a), 1.0 if a == position else 0.0)
        for i, j, first in blocks:
            builder.add_hint(int(first + int(hint[i]) * sizes[j] + int(hint[j])), 1.0)
    solver = mbh.ModelSolverHelper("scip")
    if not solver.solver_is_supported():
        raise ConfigError("OR-Tools was built without SCIP")
    solver.set_solver_specific_parameters(parameters)
    built = time.perf_counter()
    stats = {
        "distances_seconds": distances_seconds,
        "model_seconds": built - started - distances_seconds,
        "pair_variables": n_columns - n_x,
        "solver": "scip",
    }
    if deadline is not None:
        remaining = deadline - built
        if remaining <= 0:
            return ExactResult(None, float("nan"), 0.0, False, {**stats, "solver_status": "NOT_STARTED"})
        solver.set_time_limit_in_seconds(remaining)
    solver.solve(builder)
    code = solver.status()
    stats.update(solver_status=code.name, solve_seconds=time.perf_counter() - built)
    if code in (
        mbh.SolveStatus.INFEASIBLE,
        mbh.SolveStatus.INCOMPATIBLE_OPTIONS,
        mbh.SolveStatus.MODEL_INVALID,
    ):
        raise RuntimeError(f"SCIP answered {code.name} on a MinDR model")  # never for a valid model
    value = float(solver.best_objective_bound()) if code != mbh.SolveStatus.ABNORMAL else -_SCIP_INFINITY
    dual = max(value, 0.0) if np.isfinite(value) and abs(value) < _SCIP_INFINITY else 0.0
    stats["dual_bound"] = dual
    found = code in (mbh.SolveStatus.OPTIMAL, mbh.SolveStatus.FEASIBLE) and solver.has_solution()
    if not found:
        return ExactResult(None, float("nan"), dual, False, stats)
    values = np.asarray(solver.variable_values())[:n_x]
    offsets = np.cumsum([0, *sizes])
    positions = np.array(
        [int(np.argmax(values[a:b])) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    )
    cost = int(sum(int(D[i][j][positions[i], positions[j]]) for i in range(k) for j in range(i + 1, k)))
    optimal = code == mbh.SolveStatus.OPTIMAL and cost - dual <= CERTIFICATE_RTOL * cost
    stats["scip_objective"] = float(solver.objective_value())
    bound = float(cost) if optimal else min(dual, float(cost))
    return ExactResult(positions.astype(np.int64), float(cost), bound, optimal, stats)
