"""The paper's integer linear program for titles (Deshpande et al. 2007, section 5, eqs. 1-13) and two solvers.

:func:`build_model` writes the program once as a solver-neutral description (edge list, objective, constraint
matrix in CSR form with row bounds); :func:`solve` hands it to OR-Tools CP-SAT or to SCIP through pywraplp.

Variables: ``I_e`` (edge ``e`` on the path, binary) and ``f_e`` (the edge's position counted from the end,
``k+1`` for the edge leaving ``s`` down to 1 for the edge entering ``t``). Edges: ``s -> v``, ``v -> u`` between
vertices of different classes, ``v -> t``; an edge of weight ``-inf`` is absent. Rows, by equation:

- (2) one edge leaves ``s``; (3) one edge enters ``t``; (4) ``k + 1`` edges in all;
- (5) in-degree = out-degree at every word vertex; (6) at most one edge leaves each equivalence class;
- (7) ``f_e <= (k+1) I_e`` (``f_e >= 0`` is its variable bound);
- (8-11) ``a_v - b_v = d_v`` for ``v != s``, with ``a_v``, ``b_v`` the f-flow into and out of ``v`` and ``d_v``
  its selected in-degree (substituted as linear expressions rather than extra variables);
- (12) ``b_s = k + 1``; (13) ``a_t = 1``.

CP-SAT needs integer coefficients: the weights are multiplied by ``scale`` (default 1e6) and rounded. The path
it returns is re-scored exactly with :func:`~decoders.titles.instance.path_score`, and its bound is scaled back
and widened by the largest possible rounding error of a path, ``(k+1) * 0.5 / scale``, so that it stays a valid
upper bound on the true optimum. "optimal" from CP-SAT therefore means optimal for the rounded weights: the true
optimum is at most ``(k+1) / scale`` above the returned score (the reported ``bound`` says by how much).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from decoders.errors import ConfigError, DecodersError
from decoders.titles.instance import TitleInstance, path_score

SOLVERS = ("cp-sat", "scip")
DEFAULT_SCALE = 1e6


@dataclass
class PathModel:
    """The ILP of eqs. 1-13. Nodes ``0..n-1`` are words, ``n`` is ``s``, ``n+1`` is ``t``.

    Columns ``0..E-1`` are the ``I_e``, ``E..2E-1`` the ``f_e``; rows are ``lower <= A x <= upper``.
    """

    n: int
    k: int
    tail: np.ndarray  # int64 (E,)
    head: np.ndarray  # int64 (E,)
    weight: np.ndarray  # float64 (E,), finite
    matrix: sp.csr_matrix  # (rows, 2E)
    lower: np.ndarray
    upper: np.ndarray

    @property
    def n_edges(self) -> int:
        return int(self.tail.size)

    @property
    def n_variables(self) -> int:
        return 2 * self.n_edges

    @property
    def n_constraints(self) -> int:
        return int(self.matrix.shape[0])

    def path(self, selected: np.ndarray) -> np.ndarray:
        """The word vertices in order, from the 0/1 values of the ``I`` columns."""
        chosen = np.flatnonzero(np.asarray(selected) > 0.5)
        following = dict(zip(self.tail[chosen].tolist(), self.head[chosen].tolist(), strict=True))
        s, t = self.n, self.n + 1
        path = []
        node = following[s]
        while node != t and len(path) <= self.k:
            path.append(node)
            node = following[node]
        return np.asarray(path, dtype=np.int64)


def build_model(instance: TitleInstance) -> PathModel:
    """The program of eqs. 1-13 for ``instance`` (vectorised; edges of weight -inf and same-class edges left out)."""
    n, k = instance.n, instance.k
    s, t = n, n + 1
    words = np.arange(n, dtype=np.int64)
    inner_tail, inner_head = np.nonzero(np.isfinite(instance.edge))
    distinct = instance.klass[inner_tail] != instance.klass[inner_head]
    inner_tail, inner_head = inner_tail[distinct], inner_head[distinct]
    first = words[np.isfinite(instance.start)]
    last = words[np.isfinite(instance.end)]
    tail = np.concatenate([np.full(first.size, s), inner_tail, last]).astype(np.int64)
    head = np.concatenate([first, inner_head, np.full(last.size, t)]).astype(np.int64)
    weight = np.concatenate(
        [instance.start[first], instance.edge[inner_tail, inner_head], instance.end[last]]
    )
    n_edges = tail.size
    edges = np.arange(n_edges, dtype=np.int64)
    f_col = edges + n_edges
    ones = np.ones(n_edges)
    word_tail = tail < n
    word_head = head < n

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    lower: list[np.ndarray] = []
    upper: list[np.ndarray] = []
    next_row = 0

    def add(row: np.ndarray, col: np.ndarray, val: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        nonlocal next_row
        rows.append(row + next_row)
        cols.append(col)
        vals.append(val)
        lower.append(np.asarray(lo, dtype=np.float64))
        upper.append(np.asarray(hi, dtype=np.float64))
        next_row += len(lower[-1])

    zero = np.zeros(n_edges, dtype=np.int64)
    from_s, into_t = tail == s, head == t
    add(zero[from_s], edges[from_s], ones[from_s], [1.0], [1.0])  # (2)
    add(zero[into_t], edges[into_t], ones[into_t], [1.0], [1.0])  # (3)
    add(zero, edges, ones, [k + 1.0], [k + 1.0])  # (4)
    zeros_n = np.zeros(n)
    add(  # (5): in - out = 0 at every word
        np.concatenate([head[word_head], tail[word_tail]]),
        np.concatenate([edges[word_head], edges[word_tail]]),
        np.concatenate([ones[word_head], -ones[word_tail]]),
        zeros_n,
        zeros_n,
    )
    n_classes = instance.n_classes
    add(  # (6): out-degree of each class <= 1
        instance.klass[tail[word_tail]].astype(np.int64),
        edges[word_tail],
        ones[word_tail],
        np.full(n_classes, -np.inf),
        np.ones(n_classes),
    )
    add(  # (7): f_e - (k+1) I_e <= 0
        np.concatenate([edges, edges]),
        np.concatenate([f_col, edges]),
        np.concatenate([ones, -(k + 1.0) * ones]),
        np.full(n_edges, -np.inf),
        np.zeros(n_edges),
    )
    # (8-11): a_v - b_v - d_v = 0 for every node but s (words 0..n-1, then t as row n)
    into = head - np.where(head == t, t - n, 0)  # t -> row n
    add(
        np.concatenate([into, tail[word_tail], into]),
        np.concatenate([f_col, f_col[word_tail], edges]),
        np.concatenate([ones, -ones[word_tail], -ones]),
        np.zeros(n + 1),
        np.zeros(n + 1),
    )
    add(zero[from_s], f_col[from_s], ones[from_s], [k + 1.0], [k + 1.0])  # (12)
    add(zero[into_t], f_col[into_t], ones[into_t], [1.0], [1.0])  # (13)

    matrix = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(next_row, 2 * n_edges)
    )
    matrix.sum_duplicates()
    return PathModel(n, k, tail, head, weight, matrix, np.concatenate(lower), np.concatenate(upper))


@dataclass
class ILPResult:
    """What a solver run gave: path (or None), its exact score, an upper bound, and the solver's own words."""

    path: np.ndarray | None
    score: float
    bound: float | None
    status: str  # "optimal", "infeasible" (proved: no title exists), "timeout"
    solver_status: str
    solver_seconds: float
    n_variables: int
    n_constraints: int


def _rows(model: PathModel):
    """(columns, coefficients, lower, upper) of every constraint row."""
    indptr, indices, data = model.matrix.indptr, model.matrix.indices, model.matrix.data
    for row in range(model.n_constraints):
        lo, hi = indptr[row], indptr[row + 1]
        yield indices[lo:hi].tolist(), data[lo:hi].tolist(), float(model.lower[row]), float(model.upper[row])


def _cp_sat_proto(model: PathModel, scaled: np.ndarray):
    """The CP-SAT model written straight into its protocol buffer (no per-term Python expression objects)."""
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    proto = cp.proto
    for upper in (1, model.k + 1):  # the I_e, then the f_e
        for _ in range(model.n_edges):
            proto.variables.add().domain.extend([0, upper])
    indptr, indices = model.matrix.indptr, model.matrix.indices.tolist()
    data = np.rint(model.matrix.data).astype(np.int64).tolist()
    lower = np.where(np.isfinite(model.lower), model.lower, cp_model.INT_MIN).astype(np.int64).tolist()
    upper = np.where(np.isfinite(model.upper), model.upper, cp_model.INT_MAX).astype(np.int64).tolist()
    for row in range(model.n_constraints):
        lo, hi = int(indptr[row]), int(indptr[row + 1])
        linear = proto.constraints.add().linear
        linear.vars.extend(indices[lo:hi])
        linear.coeffs.extend(data[lo:hi])
        linear.domain.extend([lower[row], upper[row]])
    # CP-SAT minimises: maximise w.x as minimise -w.x reported with scaling factor -1 (what CpModel.maximize does)
    proto.objective.vars.extend(range(model.n_edges))
    proto.objective.coeffs.extend((-scaled).astype(np.int64).tolist())
    proto.objective.scaling_factor = -1.0
    return cp


def _solve_cp_sat(
    model: PathModel, seconds: float, scale: float
) -> tuple[np.ndarray | None, float | None, str, str, float]:
    from ortools.sat.python import cp_model

    scaled = np.rint(model.weight * scale)
    if scaled.size and np.abs(scaled).max() > 2.0**52 / (model.k + 1):
        raise ConfigError(f"weights times scale {scale:g} do not fit CP-SAT's integer objective")
    cp = _cp_sat_proto(model, scaled)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = max(seconds, 1e-3)
    code = solver.solve(cp)
    name = solver.status_name(code)
    selected = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        solution = solver.response_proto.solution
        selected = np.fromiter(solution, dtype=np.float64, count=model.n_variables)[: model.n_edges]
    bound = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.UNKNOWN) and math.isfinite(
        solver.best_objective_bound
    ):
        bound = solver.best_objective_bound / scale + (model.k + 1) * 0.5 / scale
    status = {cp_model.OPTIMAL: "optimal", cp_model.INFEASIBLE: "infeasible"}.get(code, "timeout")
    if code == cp_model.MODEL_INVALID:
        status = "error"
    return selected, bound, status, name, solver.wall_time


def _solve_scip(model: PathModel, seconds: float) -> tuple[np.ndarray | None, float | None, str, str, float]:
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:
        raise ConfigError("OR-Tools was built without SCIP")
    solver.SetNumThreads(1)
    infinity = solver.infinity()
    edge_vars = [solver.BoolVar(f"I{e}") for e in range(model.n_edges)]
    flow_vars = [solver.NumVar(0.0, model.k + 1.0, f"f{e}") for e in range(model.n_edges)]
    columns = edge_vars + flow_vars
    for cols, coefs, lo, hi in _rows(model):
        row = solver.Constraint(lo if math.isfinite(lo) else -infinity, hi if math.isfinite(hi) else infinity)
        for c, v in zip(cols, coefs, strict=True):
            row.SetCoefficient(columns[c], v)
    objective = solver.Objective()
    for var, w in zip(edge_vars, model.weight.tolist(), strict=True):
        objective.SetCoefficient(var, w)
    objective.SetMaximization()
    solver.SetTimeLimit(max(1, int(seconds * 1000)))
    began = time.perf_counter()
    code = solver.Solve()
    wall = time.perf_counter() - began
    names = {
        pywraplp.Solver.OPTIMAL: "OPTIMAL",
        pywraplp.Solver.FEASIBLE: "FEASIBLE",
        pywraplp.Solver.INFEASIBLE: "INFEASIBLE",
        pywraplp.Solver.UNBOUNDED: "UNBOUNDED",
        pywraplp.Solver.ABNORMAL: "ABNORMAL",
        pywraplp.Solver.NOT_SOLVED: "NOT_SOLVED",
        pywraplp.Solver.MODEL_INVALID: "MODEL_INVALID",
    }
    name = names.get(code, str(code))
    selected = None
    if code in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        selected = np.array([var.solution_value() for var in edge_vars])
    bound = None
    if code in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        bound = objective.BestBound()
    if code == pywraplp.Solver.OPTIMAL:
        status = "optimal"
    elif code == pywraplp.Solver.INFEASIBLE:
        status = "infeasible"
    elif code in (pywraplp.Solver.FEASIBLE, pywraplp.Solver.NOT_SOLVED):
        status = "timeout"
    else:
        status = "error"
    return selected, bound, status, name, wall


def solve(
    instance: TitleInstance,
    *,
    solver: str = "cp-sat",
    deadline: float | None = None,
    scale: float = DEFAULT_SCALE,
    model: PathModel | None = None,
) -> ILPResult:
    """Solve the ILP of ``instance`` with ``solver`` ("cp-sat" or "scip") until it proves optimality or the deadline.

    Without a deadline the solver runs until it finishes. The returned score is always the exact path score. A
    solver failure (invalid model, abnormal end, a solution that is not a k-path) raises DecodersError.
    """
    if solver not in SOLVERS:
        raise ConfigError(f"ILP solver must be one of {', '.join(SOLVERS)}; got {solver!r}")
    model = build_model(instance) if model is None else model
    sizes = (model.n_variables, model.n_constraints)
    seconds = math.inf if deadline is None else deadline - time.perf_counter()
    if seconds <= 0:
        return ILPResult(None, math.nan, None, "timeout", "NOT_STARTED", 0.0, *sizes)
    limit = 1e9 if math.isinf(seconds) else seconds
    if solver == "cp-sat":
        selected, bound, status, name, wall = _solve_cp_sat(model, limit, float(scale))
    else:
        selected, bound, status, name, wall = _solve_scip(model, limit)
    if status == "error":
        raise DecodersError(f"ILP solver {solver} failed with status {name}")
    if status == "infeasible":
        return ILPResult(None, -math.inf, -math.inf, status, name, wall, *sizes)
    if selected is None:
        return ILPResult(None, math.nan, bound, status, name, wall, *sizes)
    path = model.path(selected)
    if path.size != instance.k:
        raise DecodersError(
            f"ILP solver {solver} ({name}) returned a path of {path.size} words, not k = {instance.k}"
        )
    return ILPResult(path, path_score(instance, path), bound, status, name, wall, *sizes)
