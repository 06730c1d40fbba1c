"""The grandparent LP of Riedel et al. (2012, section 3), solved in full (brute force) or by parse, price and cut.

Variables, all ``>= 0``: ``z_a`` per candidate arc ``a = h -> m`` (finite score, ``m > 0``, ``h != m``), its flow
``f_a``, and ``z_gpc`` per grandparent part ``(g, p, c)``: arcs ``g -> p`` and ``p -> c``, ``p > 0``, ``g != c``.
Maximise ``sum_a s_a z_a + sum s_gpc z_gpc`` subject to (eq. numbers of section 3)::

    OneHead  m > 0:     sum_h z_hm = 1
    Source:             sum_m f_0m = n
    Consume  t > 0:     sum_h f_ht - sum_m f_tm = 1
    NoFlow   a:         f_a - n z_a <= 0
    ArcGP    (g,p,c):   z_gp + z_pc - z_gpc <= 1
    GPArc    (g,p,c):   z_gpc - z_gp <= 0,   z_gpc - z_pc <= 0
    OneGP    p > 0, c:  sum_g z_gpc - z_pc = 0
    NoGP     g, p:      sum_c z_gpc - n z_gp <= 0

:data:`POLYTOPES` (Table 2): ``arcgp`` (ArcGP + GPArc, Martins et al. 2009), ``onegp`` (OneGP + NoGP) and ``all``.
As in the paper the root may take several modifiers.

Certificate. No variable has an explicit upper bound (``z <= 1``, ``f <= n`` and ``z_gpc <= 1`` are implied by
the rows), so for any duals ``y`` (``>= 0`` on the ``<=`` rows) the Lagrangian ``U(y) = b'y + sum_j u_j max(0,
r_j)``, with reduced costs ``r = s - A'y`` and those implied bounds ``u``, is an upper bound on the LP over *every*
part, instantiated or not (an uninstantiated part's rows are absent, so its reduced cost is ``s_gpc -
y_OneGP(p,c) - y_NoGP(g,p)``, eq. 8). It is widened by a bound on its floating-point summation error. A result is
``optimal`` when that certified bound is within ``1e-6 (1 + |objective|)`` of the objective of a solution whose
rows hold within ``1e-6``: LP solvers work to tolerances of that order, so this is what "equal" means for LPs
here (the paper compares objectives the same way).

Parse, price and cut (Algorithm 1, polytope ``all``): start from every arc and one part ``(0, h, m)`` per arc
(another grandparent when the root cannot head ``h``; or, option ``start="mst"``, ``h``'s head in the best
first-order tree, so that this tree is feasible in the first LP and its duals are informative; or, ``start="tree"``,
only that tree's own parts: an arc without a part is held at 0 by its OneGP row until pricing adds one, so only
arcs worth having get parts); solve; tighten the OneGP duals (section 4.3.3: an arc with
reduced cost ``r < 0`` lets its ``y_OneGP`` grow by ``-r``); price (eqs. 9-11): keep the arcs ``p -> c`` whose
bound ``max_g s(g,p,c) <= sbar(., p, c)`` exceeds ``y_OneGP(p,c)``, then the grandparents ``g`` whose
``min(sbar(g,p,.), sbar(.,p,c)) - y_OneGP(p,c) - y_NoGP(g,p)`` is positive (with the bounds given per
template, the tighter ``sum_t min(sbar_t(g,p,.), sbar_t(.,p,c))``), and score only those; add the parts
with a positive exact reduced cost (or, option ``columns_per_word``, the first ones found in decreasing order of
their bound: partial pricing), and (section 4.4) every part whose two arcs violate ArcGP; stop when nothing
is added. With OneGP and GPArc in the LP, ArcGP holds for a part left out (``z_pc = sum_{g' != g} z_g'pc <=
sum_{g' != g} z_g'p = 1 - z_gp``), so the cut step only ever meets violations at the solver's tolerance; it is
kept as the paper's safety net. :func:`audit` checks a result against every part.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Protocol

import highspy
import numpy as np

from decoders.parsing.mst import chu_liu_edmonds

POLYTOPES = ("arcgp", "onegp", "all")
STARTS = ("root", "mst", "tree")
_UNIT = 2.0**-53
#: a row may be violated by this much (absolute) in a solution called optimal; the certified gap must be below
#: ``OPTIMALITY_GAP * (1 + |objective|)``
FEASIBILITY = 1e-6
OPTIMALITY_GAP = 1e-6
#: values this close to 0 or 1 count as integral
INTEGRALITY = 1e-6
#: the feasibility tolerances of a re-solve when the certificate did not close at HiGHS's defaults (1e-7)
REFINED_TOLERANCE = 1e-10


class DenseGrandparents:
    """Grandparent scores given as a dense ``(n + 1)^3`` array ``[g, p, c]`` (finite), with the exact maxima
    as bounds; counts the parts scored."""

    def __init__(self, scores: np.ndarray):
        scores = np.asarray(scores, dtype=float)
        if scores.ndim != 3 or len(set(scores.shape)) != 1:
            raise ValueError(f"grandparent scores must be an (n + 1)^3 array; got shape {scores.shape}")
        if not np.isfinite(scores).all():
            g, p, c = (int(x) for x in np.argwhere(~np.isfinite(scores))[0])
            raise ValueError(f"grandparent score [{g}, {p}, {c}] is {scores[g, p, c]}; scores must be finite")
        self.scores = scores
        self.scored = 0

    def score(self, g: np.ndarray, p: np.ndarray, c: np.ndarray) -> np.ndarray:
        self.scored += len(g)
        return self.scores[g, p, c]

    def child_bounds(self) -> np.ndarray:
        return self.scores.max(axis=0)

    def parent_bounds(self) -> np.ndarray:
        return self.scores.max(axis=2)


class GrandparentScores(Protocol):
    """What the LPs need from a grandparent model: exact scores of chosen parts (counted by the model) and the
    offline bounds of eqs. 12-13, either whole or per term of a score that is a sum of ``T`` terms (templates):
    ``s = sum_t s_t``, each term bounded on its own, so that a part is bounded by ``sum_t min(parent_t[g, p],
    child_t[p, c])``."""

    def score(self, g: np.ndarray, p: np.ndarray, c: np.ndarray) -> np.ndarray: ...

    def child_bounds(self) -> np.ndarray:
        """``(n + 1, n + 1)`` or ``(T, n + 1, n + 1)``: ``[t, p, c] >= max_g s_t(g, p, c)``."""
        ...

    def parent_bounds(self) -> np.ndarray:
        """``(n + 1, n + 1)`` or ``(T, n + 1, n + 1)``: ``[t, g, p] >= max_c s_t(g, p, c)``."""
        ...


def _bounds_by_term(child: np.ndarray, parent: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
    """Both bounds as ``(T, side, side)`` arrays (T = 1 for whole bounds), checked."""
    child, parent = (np.asarray(b, dtype=float) for b in (child, parent))
    child, parent = (b[None] if b.ndim == 2 else b for b in (child, parent))
    for name, b in (("child", child), ("parent", parent)):
        if b.ndim != 3 or b.shape[1:] != (side, side) or np.isnan(b).any():
            raise ValueError(f"{name} bounds must be ({side}, {side}) or (T, {side}, {side}) without NaN")
    if child.shape[0] != parent.shape[0]:
        raise ValueError(f"child and parent bounds have {child.shape[0]} and {parent.shape[0]} terms")
    return child, parent


@dataclass
class LPResult:
    """A solved grandparent LP: the tree read from it, the LP objective and certified bound, the counters, and
    what an audit needs (the arc values and the final duals' per-arc terms)."""

    heads: np.ndarray
    objective: float
    bound: float
    optimal: bool
    integral: bool
    status: str
    stats: dict[str, float] = field(default_factory=dict)
    arc_values: np.ndarray | None = None  # (n + 1, n + 1) z
    one_gp: np.ndarray | None = None  # (n + 1, n + 1) y_OneGP(p, c) after tightening (0 where absent)
    no_gp: np.ndarray | None = None  # (n + 1, n + 1) y_NoGP(g, p)
    parts: np.ndarray | None = None  # (k, 3) the instantiated parts (g, p, c)
    part_values: np.ndarray | None = None  # (k,) their z_gpc


def check_arc_scores(arc: np.ndarray) -> np.ndarray:
    """``arc`` as a float (n + 1, n + 1) array: finite or ``-inf`` (forbidden); NaN and ``+inf`` are errors."""
    arc = np.asarray(arc, dtype=float)
    if arc.ndim != 2 or arc.shape[0] != arc.shape[1] or arc.shape[0] < 1:
        raise ValueError(f"arc scores must be a square (n + 1, n + 1) array; got shape {arc.shape}")
    bad = np.isnan(arc) | (arc == np.inf)
    if bad.any():
        h, m = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"arc score [{h}, {m}] is {arc[h, m]}; allowed: finite, or -inf to forbid the arc")
    return arc


class _Model:
    """The LP in HiGHS plus the constraint matrix in coordinate form (for reduced costs and bounds)."""

    def __init__(self, arc: np.ndarray, polytope: str, scale: float, threads: int = 1):
        if polytope not in POLYTOPES:
            raise ValueError(f"unknown polytope {polytope!r}; known: {list(POLYTOPES)}")
        self.polytope = polytope
        # HiGHS's tolerances are absolute: it solves with every cost divided by ``scale`` (the largest score that
        # can enter the LP), and duals are scaled back
        self.scale = scale if math.isfinite(scale) and scale > 0 else 1.0
        self.one_gp = polytope in ("onegp", "all")
        self.arc_gp = polytope in ("arcgp", "all")
        n = arc.shape[0] - 1
        self.n = n
        side = n + 1
        self.arc_id = _arc_ids(arc)
        self.heads, self.mods = np.nonzero(self.arc_id >= 0)
        arcs = len(self.heads)
        self.arcs = arcs
        self.arc_score = arc[self.heads, self.mods]
        ids = np.arange(arcs)
        rows, cols, vals = [], [], []
        rows.append(self.mods - 1), cols.append(ids), vals.append(np.ones(arcs))  # OneHead
        root = self.heads == 0
        (
            rows.append(np.full(int(root.sum()), n)),
            cols.append(arcs + ids[root]),
            vals.append(np.ones(int(root.sum()))),
        )
        inner = ~root  # Consume t: +f into t (t > 0), -f out of t (t > 0)
        rows.append(n + self.mods), cols.append(arcs + ids), vals.append(np.ones(arcs))
        (
            rows.append(n + self.heads[inner]),
            cols.append(arcs + ids[inner]),
            vals.append(-np.ones(int(inner.sum()))),
        )
        noflow = 2 * n + 1 + ids  # NoFlow
        rows += [noflow, noflow]
        cols += [arcs + ids, ids]
        vals += [np.ones(arcs), np.full(arcs, -float(n))]
        lower = [np.ones(n), [float(n)], np.ones(n), np.full(arcs, -np.inf)]
        upper = [np.ones(n), [float(n)], np.ones(n), np.zeros(arcs)]
        next_row = 2 * n + 1 + arcs
        self.one_gp_row = np.full(arcs, -1, dtype=np.int64)
        self.no_gp_row = np.full(arcs, -1, dtype=np.int64)
        if self.one_gp:
            parents = np.flatnonzero(self.heads > 0)  # OneGP(p, c) for arcs p -> c, p > 0
            self.one_gp_row[parents] = next_row + np.arange(len(parents))
            rows.append(self.one_gp_row[parents]), cols.append(parents), vals.append(-np.ones(len(parents)))
            lower.append(np.zeros(len(parents))), upper.append(np.zeros(len(parents)))
            next_row += len(parents)
            self.no_gp_row[:] = next_row + ids  # NoGP(g, p) for every arc g -> p
            rows.append(self.no_gp_row), cols.append(ids), vals.append(np.full(arcs, -float(n)))
            lower.append(np.full(arcs, -np.inf)), upper.append(np.zeros(arcs))
            next_row += arcs
        self.rows = next_row
        self.row_lower = np.concatenate([np.asarray(x, dtype=float) for x in lower])
        self.row_upper = np.concatenate([np.asarray(x, dtype=float) for x in upper])
        self.a_row = np.concatenate(rows).astype(np.int64)
        self.a_col = np.concatenate(cols).astype(np.int64)
        self.a_val = np.concatenate(vals)
        self.cost = np.concatenate([self.arc_score, np.zeros(arcs)])
        self.upper_bound = np.concatenate([np.ones(arcs), np.full(arcs, float(n))])  # implied, for U(y)
        self.parts = np.zeros((0, 3), dtype=np.int64)
        self.present = np.zeros((side, side, side), dtype=bool)
        self.iterations = 0
        self.highs = highspy.Highs()
        h = self.highs
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", threads)
        h.setOptionValue("solver", "simplex")
        lp = highspy.HighsLp()
        lp.num_col_ = 2 * arcs
        lp.num_row_ = self.rows
        lp.col_cost_ = self.cost / self.scale
        lp.col_lower_ = np.zeros(2 * arcs)
        lp.col_upper_ = np.full(2 * arcs, highspy.kHighsInf)
        lp.row_lower_ = np.where(np.isinf(self.row_lower), -highspy.kHighsInf, self.row_lower)
        lp.row_upper_ = self.row_upper
        order = np.lexsort((self.a_row, self.a_col))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.searchsorted(self.a_col[order], np.arange(2 * arcs + 1)).astype(np.int32)
        lp.a_matrix_.index_ = self.a_row[order].astype(np.int32)
        lp.a_matrix_.value_ = self.a_val[order]
        lp.sense_ = highspy.ObjSense.kMaximize
        h.passModel(lp)

    def add_parts(self, parts: np.ndarray, scores: np.ndarray) -> None:
        """Add grandparent columns (rows ``(g, p, c)``) with their OneGP/NoGP entries and their own ArcGP/GPArc
        rows."""
        if len(parts) == 0:
            return
        h = self.highs
        k = len(parts)
        first = len(self.cost)
        cols = first + np.arange(k)
        g, p, c = parts.T
        gp, pc = self.arc_id[g, p], self.arc_id[p, c]
        if self.one_gp:
            entry_rows = np.stack([self.one_gp_row[pc], self.no_gp_row[gp]], axis=1).ravel()
            entry_cols = np.repeat(cols, 2)
            starts = np.arange(0, 2 * k, 2, dtype=np.int32)
        else:
            entry_rows = entry_cols = np.zeros(0, dtype=np.int64)
            starts = np.zeros(k, dtype=np.int32)
        h.addCols(
            k, scores / self.scale, np.zeros(k), np.full(k, highspy.kHighsInf), len(entry_rows), starts,
            entry_rows.astype(np.int32), np.ones(len(entry_rows)),
        )  # fmt: skip
        rows_r, rows_c, rows_v = [entry_rows], [entry_cols], [np.ones(len(entry_rows))]
        if self.arc_gp:
            base = self.rows
            arcgp = base + np.arange(k)
            gparc1 = base + k + np.arange(k)
            gparc2 = base + 2 * k + np.arange(k)
            r = np.concatenate([arcgp, arcgp, arcgp, gparc1, gparc1, gparc2, gparc2])
            cc = np.concatenate([gp, pc, cols, cols, gp, cols, pc])
            v = np.concatenate(
                [np.ones(k), np.ones(k), -np.ones(k), np.ones(k), -np.ones(k), np.ones(k), -np.ones(k)]
            )
            order = np.lexsort((cc, r))
            starts_r = np.searchsorted(r[order], base + np.arange(3 * k)).astype(np.int32)
            lower = np.full(3 * k, -highspy.kHighsInf)
            upper = np.concatenate([np.ones(k), np.zeros(2 * k)])
            h.addRows(3 * k, lower, upper, len(r), starts_r, cc[order].astype(np.int32), v[order])
            self.rows += 3 * k
            self.row_lower = np.concatenate([self.row_lower, np.full(3 * k, -np.inf)])
            self.row_upper = np.concatenate([self.row_upper, upper])
            rows_r.append(r), rows_c.append(cc), rows_v.append(v)
        self.a_row = np.concatenate([self.a_row, *rows_r])
        self.a_col = np.concatenate([self.a_col, *rows_c])
        self.a_val = np.concatenate([self.a_val, *rows_v])
        self.cost = np.concatenate([self.cost, scores])
        self.upper_bound = np.concatenate([self.upper_bound, np.ones(k)])
        self.parts = np.concatenate([self.parts, parts])
        self.present[g, p, c] = True

    def solve(self, deadline: float | None) -> str:
        """Solve (warm-started from the last basis); ``optimal``, ``timeout`` or the solver's status."""
        h = self.highs
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                return "timeout"
            h.setOptionValue("time_limit", left)
        h.run()
        self.iterations += max(int(h.getInfo().simplex_iteration_count), 0)
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            return "optimal"
        if status == highspy.HighsModelStatus.kTimeLimit:
            return "timeout"
        if status == highspy.HighsModelStatus.kInfeasible:
            return "infeasible"
        return str(status)

    def refine(self, deadline: float | None) -> str:
        """Re-solve from the last basis with HiGHS's tightest primal and dual feasibility tolerances (1e-10):
        over a million columns, reduced costs each within the default 1e-7 can sum to a certified bound visibly
        above the objective."""
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            self.highs.setOptionValue(option, REFINED_TOLERANCE)
        return self.solve(deadline)

    def solution(self) -> tuple[np.ndarray, np.ndarray]:
        """(column values, row duals with the ``<=`` rows' signs made valid)."""
        sol = self.highs.getSolution()
        y = np.asarray(sol.row_dual, dtype=float) * self.scale
        inequality = np.isinf(self.row_lower)
        y[inequality] = np.maximum(y[inequality], 0.0)
        return np.asarray(sol.col_value, dtype=float), y

    def reduced(self, y: np.ndarray) -> np.ndarray:
        """``s - A'y`` for every instantiated column."""
        return self.cost - np.bincount(
            self.a_col, weights=self.a_val * y[self.a_row], minlength=len(self.cost)
        )

    def rhs(self) -> np.ndarray:
        return np.where(np.isinf(self.row_lower), self.row_upper, self.row_lower)

    def violation(self, x: np.ndarray) -> float:
        activity = np.bincount(self.a_row, weights=self.a_val * x[self.a_col], minlength=self.rows)
        over = np.maximum(activity - self.row_upper, self.row_lower - activity)
        return float(max(over.max(initial=0.0), -x.min(initial=0.0)))

    def bound(self, y: np.ndarray, outside: np.ndarray) -> float:
        """``U(y)``: ``b'y + sum_j u_j max(0, r_j)`` over the instantiated columns, plus ``outside`` (the positive
        reduced costs, or their bounds, of parts left out), and a bound on its rounding error (add it to certify)."""
        b = self.rhs()
        r = self.reduced(y)
        terms = np.concatenate([b * y, self.upper_bound * np.maximum(r, 0.0), np.maximum(outside, 0.0)])
        total = float(terms.sum())
        scale = float(np.abs(terms).sum()) + float(
            np.abs(self.a_val * y[self.a_row] * self.upper_bound[self.a_col]).sum()
        )
        scale += float(np.abs(self.cost * self.upper_bound).sum())
        return total, 2.0 * (len(terms) + len(self.a_val) + 2) * _UNIT * scale

    def arc_matrix(self, values: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n + 1, self.n + 1))
        out[self.heads, self.mods] = values[: self.arcs]
        return out

    def per_arc(self, y: np.ndarray, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((self.n + 1, self.n + 1))
        has = rows >= 0
        out[self.heads[has], self.mods[has]] = y[rows[has]]
        return out


def _arc_ids(arc: np.ndarray) -> np.ndarray:
    """``[h, m]``: a candidate arc's index (finite score, m > 0, h != m) in row-major order, else -1."""
    allowed = np.isfinite(arc)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    ids = np.full(arc.shape, -1, dtype=np.int64)
    ids[allowed] = np.arange(int(allowed.sum()))
    return ids


def _largest(*scores: np.ndarray) -> float:
    """The largest finite |score| among the arrays (what HiGHS's costs are divided by)."""
    return max((float(np.abs(a[np.isfinite(a)]).max(initial=0.0)) for a in scores), default=0.0)


def all_parts(arc_id: np.ndarray) -> np.ndarray:
    """Every grandparent part ``(g, p, c)`` over the candidate arcs, in lexicographic order."""
    exists = arc_id >= 0
    side = arc_id.shape[0]
    mask = exists[:, :, None] & exists[None, :, :]
    mask[:, 0, :] = False
    g_eq_c = np.arange(side)[:, None] == np.arange(side)[None, :]
    mask &= ~g_eq_c[:, None, :]
    return np.argwhere(mask)


def _read(
    model: _Model, x: np.ndarray, y: np.ndarray, status: str, stats: dict, outside: np.ndarray
) -> LPResult:
    """The result of a solved model: objective, certified bound, integrality, the tree (integral arcs, else
    Chu-Liu-Edmonds on the arc values)."""
    n = model.n
    objective = float(model.cost @ x)
    bound, rounding = model.bound(y, outside)
    bound += rounding
    violation = model.violation(x)
    z = model.arc_matrix(x)
    values = np.concatenate([x[: model.arcs], x[2 * model.arcs :]])
    integral = bool(np.all(np.minimum(np.abs(values), np.abs(values - 1.0)) <= INTEGRALITY))
    weights = np.where(model.arc_id >= 0, z, -np.inf)
    heads, _ = chu_liu_edmonds(weights) if n else (np.full(1, -1, dtype=np.int64), 0.0)
    # relative to the terms of the solution's own objective: never to an entry that is not in it
    magnitude = float(np.abs(model.cost) @ np.abs(x))
    gap_ok = bound - objective <= OPTIMALITY_GAP * magnitude + 2.0 * rounding
    optimal = status == "optimal" and violation <= FEASIBILITY and gap_ok
    stats = {**stats, "max_violation": violation, "integral": integral}
    return LPResult(
        heads, objective, bound, optimal, integral, "optimal" if optimal else status if status != "optimal" else "feasible",
        stats, z, model.per_arc(y, model.one_gp_row), model.per_arc(y, model.no_gp_row), model.parts,
        x[2 * model.arcs :],
    )  # fmt: skip


def _empty(n: int) -> LPResult:
    heads = np.full(n + 1, -1, dtype=np.int64)
    return LPResult(heads, 0.0, 0.0, True, True, "optimal", {"parts_scored": 0, "parts_added": 0})


def brute_force(
    arc: np.ndarray, scores: GrandparentScores, *, polytope: str = "all", deadline: float | None = None
) -> LPResult:
    """The full LP: every arc and every grandparent part, all scored, solved once."""
    arc = check_arc_scores(arc)
    n = arc.shape[0] - 1
    if n == 0:
        return _empty(0)
    if _headless(arc):
        return _unsolved(n, "infeasible", {"parts_scored": 0, "parts_added": 0, "lp_solves": 0})
    parts = all_parts(_arc_ids(arc))
    values = np.asarray(scores.score(*parts.T), dtype=float) if len(parts) else np.zeros(0)
    model = _Model(arc, polytope, _largest(arc, values))
    model.add_parts(parts, values)
    status = model.solve(deadline)
    stats = {
        "parts_scored": len(parts),
        "parts_added": len(parts),
        "lp_solves": 1,
        "lp_iterations": model.iterations,
    }
    if status != "optimal":
        return _unsolved(n, status, stats)
    x, y = model.solution()
    result = _read(model, x, y, status, stats, np.zeros(0))
    if result.status == "feasible":  # solved, but the certificate did not close within the defaults
        status = model.refine(deadline)
        stats = {**stats, "lp_solves": 2, "lp_iterations": model.iterations, "refined": True}
        if status != "optimal":
            return _unsolved(n, status, stats)
        x, y = model.solution()
        result = _read(model, x, y, status, stats, np.zeros(0))
    return result


def _headless(arc: np.ndarray) -> bool:
    """Whether some word has no allowed head (then no tree exists; the solver would see an empty row)."""
    allowed = np.isfinite(arc)
    np.fill_diagonal(allowed, False)
    return bool((~allowed[:, 1:].any(axis=0)).any())


def _unsolved(n: int, status: str, stats: dict) -> LPResult:
    """No solution: no tree uses only allowed arcs (certified: the flow rows cannot be met), or the limit."""
    heads = np.full(n + 1, -1, dtype=np.int64)
    if status == "infeasible":
        return LPResult(heads, -math.inf, -math.inf, True, True, "optimal", stats)
    return LPResult(heads, math.nan, math.inf, False, False, status, stats)


def parse_price_cut(
    arc: np.ndarray,
    scores: GrandparentScores,
    *,
    deadline: float | None = None,
    tighten: bool = True,
    start: str = "root",
    columns_per_word: float | None = None,
) -> LPResult:
    """Algorithm 1 on the ``all`` polytope: the full LP's optimum, scoring only the parts pricing cannot rule
    out. ``tighten``: section 4.3.3's dual tightening before pricing. ``start``: the first part of each arc
    ``p -> c`` has grandparent 0 (``root``, the paper's) or ``p``'s head in the best first-order tree (``mst``);
    or the first parts are that tree's own only (``tree``).
    ``columns_per_word``: None prices every candidate each round (the paper's); a number ``k`` scores candidates in
    decreasing order of their bound and stops once ``ceil(k n)`` columns with a positive reduced cost are found
    (partial pricing; convergence still needs a round that finds none among all candidates)."""
    if start not in STARTS:
        raise ValueError(f"start must be one of {list(STARTS)}; got {start!r}")
    if columns_per_word is not None and not (
        isinstance(columns_per_word, int | float)
        and not isinstance(columns_per_word, bool)
        and math.isfinite(columns_per_word)
        and columns_per_word > 0
    ):
        raise ValueError(f"columns_per_word must be a positive number or None; got {columns_per_word!r}")
    arc = check_arc_scores(arc)
    n = arc.shape[0] - 1
    if n == 0:
        return _empty(0)
    if _headless(arc):
        return _unsolved(n, "infeasible", {"parts_scored": 0, "parts_added": 0, "lp_solves": 0})
    side = n + 1
    child_terms, parent_terms = _bounds_by_term(scores.child_bounds(), scores.parent_bounds(), side)
    child_bound, parent_bound = child_terms.sum(axis=0), parent_terms.sum(axis=0)
    model = _Model(arc, "all", _largest(arc, child_bound, parent_bound))
    known = np.full((side, side, side), np.nan)  # exact scores of the parts scored so far
    exists = model.arc_id >= 0

    def score(parts: np.ndarray) -> np.ndarray:
        g, p, c = parts.T
        fresh = np.isnan(known[g, p, c])
        if fresh.any():
            known[g[fresh], p[fresh], c[fresh]] = scores.score(g[fresh], p[fresh], c[fresh])
        return known[g, p, c]

    # one part per arc p -> c (p > 0): grandparent 0 when the root may head p, else the first allowed g != c
    p, c = model.heads[model.heads > 0], model.mods[model.heads > 0]
    heads_of_p = exists[:, p] & (np.arange(side)[:, None] != c[None, :])
    has = heads_of_p.any(axis=0)
    first = np.argmax(heads_of_p, axis=0)
    if start == "mst":  # p's head in the best first-order tree: that tree is feasible from the first solve
        tree, value = chu_liu_edmonds(arc)
        if value > -math.inf:
            first = np.where((tree[p] >= 0) & (tree[p] != c), tree[p], first)
    parts = np.stack([first[has], p[has], c[has]], axis=1)
    if start == "tree":  # only the best first-order tree's own parts: pricing brings in every other arc's
        tree, value = chu_liu_edmonds(arc)
        if value > -math.inf:
            kids = np.flatnonzero(tree > 0)
            parts = np.stack([tree[tree[kids]], tree[kids], kids], axis=1)
    model.add_parts(parts, score(parts))
    limit = None if columns_per_word is None else max(1, math.ceil(columns_per_word * n))
    rounds = priced = cuts = 0
    while True:
        status = model.solve(deadline)
        if status == "infeasible" and rounds == 0:
            # the start parts allow only trees whose words have their start grandparent (the root, when it may
            # head them): with forbidden arcs there may be none. The best first-order tree's own parts make its
            # tree feasible; if no tree exists at all, that is certified by Chu-Liu-Edmonds.
            tree, value = chu_liu_edmonds(arc)
            if value == -math.inf:
                return _unsolved(n, "infeasible", _ppc_stats(known, model, rounds, priced, cuts))
            c = np.flatnonzero(tree > 0)
            own = np.stack([tree[tree[c]], tree[c], c], axis=1)
            own = own[~model.present[own[:, 0], own[:, 1], own[:, 2]]]
            model.add_parts(own, score(own))
            status = model.solve(deadline)
        if status != "optimal":
            return _unsolved(n, status, _ppc_stats(known, model, rounds, priced, cuts))
        rounds += 1
        x, y = model.solution()
        if tighten:
            r_arc = model.reduced(y)[: model.arcs]
            lift = (model.one_gp_row >= 0) & (r_arc < 0.0)
            y[model.one_gp_row[lift]] -= r_arc[lift]
        one_gp, no_gp = model.per_arc(y, model.one_gp_row), model.per_arc(y, model.no_gp_row)
        # price (eqs. 9-11): arcs p -> c whose bound beats y_OneGP, then grandparents g, then exact scores
        pc = np.flatnonzero(
            (model.heads > 0) & (child_bound[model.heads, model.mods] - one_gp[model.heads, model.mods] > 0)
        )
        pp, cc = model.heads[pc], model.mods[pc]
        bar = -one_gp[pp, cc][None, :] - no_gp[:, pp]
        for child_t, parent_t in zip(child_terms, parent_terms, strict=True):
            bar += np.minimum(parent_t[:, pp], child_t[pp, cc][None, :])
        gg, kk = np.nonzero((bar > 0) & exists[:, pp] & (np.arange(side)[:, None] != cc[None, :]))
        candidates = np.stack([gg, pp[kk], cc[kk]], axis=1)
        fresh = ~model.present[candidates[:, 0], candidates[:, 1], candidates[:, 2]]
        candidates, promise = candidates[fresh], bar[gg, kk][fresh]
        if (
            limit is not None
        ):  # partial pricing: the most promising bounds first, until `limit` columns are found
            candidates = candidates[np.argsort(-promise, kind="stable")]
        new_parts = []
        found = start_at = 0
        while start_at < len(candidates) and (limit is None or found < limit):
            chunk = candidates[start_at : start_at + (len(candidates) if limit is None else limit)]
            start_at += len(chunk)
            exact = score(chunk) - one_gp[chunk[:, 1], chunk[:, 2]] - no_gp[chunk[:, 0], chunk[:, 1]]
            new_parts.append(chunk[exact > _price_tolerance(model)])
            found += len(new_parts[-1])
        new = np.concatenate(new_parts) if new_parts else np.zeros((0, 3), dtype=np.int64)
        # cut (section 4.4): both arcs on, together above 1, and no part yet
        z = model.arc_matrix(x)
        on = z > INTEGRALITY
        violated = on[:, :, None] & on[None, :, :] & (z[:, :, None] + z[None, :, :] > 1.0 + FEASIBILITY)
        violated[:, 0, :] = False
        violated &= ~model.present
        violated[np.arange(side), :, np.arange(side)] = False
        cut = np.argwhere(violated)
        fresh_cut = cut[
            ~np.isin(cut @ np.array([side * side, side, 1]), new @ np.array([side * side, side, 1]))
        ]
        priced += len(new)
        cuts += len(fresh_cut)
        added = np.concatenate([new, fresh_cut]) if len(fresh_cut) else new
        if len(added) == 0:
            break
        model.add_parts(added, score(added))
    # the certificate counts, outside the model, every scored part's positive reduced cost and every unscored
    # one's positive bound (none: pricing scored all of those)
    outside_parts = np.argwhere(~model.present & ~np.isnan(known))
    g, p_, c_ = outside_parts.T
    outside = known[g, p_, c_] - one_gp[p_, c_] - no_gp[g, p_]
    stats = _ppc_stats(known, model, rounds, priced, cuts)
    return _read(model, x, y, "optimal", stats, outside)


def integer_program(
    arc: np.ndarray, scores: GrandparentScores, *, deadline: float | None = None, **pricing
) -> LPResult:
    """The best tree of the grandparent model (the ILP: the full model with integer arcs; with ArcGP and GPArc
    the parts follow, ``z_gpc = z_gp z_pc``). Parse, price and cut first: an integral LP optimum is the ILP's
    (certified as the LP's is). Only when it is fractional does HiGHS's branch and bound run on the full model
    (every part scored): then ``optimal`` rests on HiGHS closing its MIP gap and on the tree's exact score
    matching the MIP objective; the bound is the smaller of the LP's certified bound and the MIP's dual bound.
    ``stats['ilp_solved']`` says whether the MIP ran; ``pricing``: :func:`parse_price_cut`'s options."""
    relaxed = parse_price_cut(arc, scores, deadline=deadline, **pricing)
    if relaxed.status != "optimal" or relaxed.integral or (relaxed.heads[1:] < 0).any():
        return replace(relaxed, stats={**relaxed.stats, "ilp_solved": False})
    arc = check_arc_scores(arc)
    n = arc.shape[0] - 1
    parts = all_parts(_arc_ids(arc))
    values = np.asarray(scores.score(*parts.T), dtype=float)
    model = _Model(arc, "all", _largest(arc, values))
    model.add_parts(parts, values)
    h = model.highs
    arcs = np.arange(model.arcs, dtype=np.int32)
    h.changeColsIntegrality(model.arcs, arcs, np.full(model.arcs, highspy.HighsVarType.kInteger))
    h.setOptionValue("solver", "choose")  # branch and bound (``simplex`` is for the LPs)
    h.setOptionValue("mip_rel_gap", OPTIMALITY_GAP / 10)
    h.setOptionValue("mip_abs_gap", 0.0)
    status = model.solve(deadline)
    info = h.getInfo()
    stats = {**relaxed.stats, "ilp_solved": True, "parts_scored": len(parts), "parts_added": len(parts)}
    stats["mip_nodes"] = int(info.mip_node_count)
    x = np.asarray(h.getSolution().col_value, dtype=float)
    if info.primal_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible.value:
        failed = "timeout" if status == "timeout" else "error"
        return LPResult(
            np.full(n + 1, -1, dtype=np.int64), math.nan, relaxed.bound, False, False, failed, stats
        )
    heads = np.full(n + 1, -1, dtype=np.int64)
    on = x[: model.arcs] > 0.5
    heads[model.mods[on]] = model.heads[on]
    side = n + 1
    keys = parts @ np.array([side * side, side, 1])  # all_parts is in lexicographic order
    c = np.flatnonzero(heads > 0)
    tree = np.searchsorted(keys, heads[heads[c]] * side * side + heads[c] * side + c)
    terms = np.concatenate([arc[heads[1:], np.arange(1, side)], values[tree]])
    objective = float(terms.sum())
    # HiGHS's objective (scaled) must be the tree's exact score, up to its tolerances
    matches = abs(float(info.objective_function_value) * model.scale - objective) <= OPTIMALITY_GAP * (
        float(np.abs(terms).sum()) + model.scale
    )
    optimal = status == "optimal" and matches
    bound = max(min(relaxed.bound, float(info.mip_dual_bound) * model.scale), objective)
    label = "optimal" if optimal else "timeout" if status == "timeout" else "feasible"
    return LPResult(heads, objective, bound, optimal, True, label, stats)


def _price_tolerance(model: _Model) -> float:
    """Reduced costs at most this are not worth a column (the solver's own dual tolerance, scaled); the
    certificate still counts them."""
    return 1e-9 * (1.0 + float(np.abs(model.cost).max(initial=0.0)))


def _ppc_stats(known: np.ndarray, model: _Model, rounds: int, priced: int, cuts: int) -> dict:
    return {
        "parts_scored": int(np.count_nonzero(~np.isnan(known))),
        "parts_added": len(model.parts),
        "lp_solves": rounds,
        "lp_iterations": model.iterations,
        "columns_priced": priced,
        "cuts": cuts,
    }


def audit(arc: np.ndarray, scores: GrandparentScores, result: LPResult) -> dict[str, float]:
    """Section 4's optimality conditions checked over *every* grandparent part at a result's final duals (all
    parts scored): the largest reduced cost (eq. 8) of a part left out of the LP, and the largest ArcGP
    violation ``z_gp + z_pc - z_gpc - 1`` over all pairs of arcs (``z_gpc = 0`` for a part left out). Both at
    most 0 (up to tolerances) mean no column and no row was missing; ``largest_score``: the largest |score| of an
    arc or part, what the solver's tolerances are relative to."""
    arc = check_arc_scores(arc)
    if result.arc_values is None:
        return {
            "max_reduced_cost": -math.inf,
            "max_arcgp_violation": -math.inf,
            "parts": 0,
            "largest_score": 0.0,
        }
    side = arc.shape[0]
    parts = all_parts(_arc_ids(arc))
    g, p, c = parts.T
    present = np.zeros((side,) * 3, dtype=bool)
    value = np.zeros((side,) * 3)
    if result.parts is not None and len(result.parts):
        present[tuple(result.parts.T)] = True
        value[tuple(result.parts.T)] = result.part_values
    absent = ~present[g, p, c]
    every = np.asarray(scores.score(g, p, c), dtype=float)
    reduced = every[absent] - result.one_gp[p[absent], c[absent]] - result.no_gp[g[absent], p[absent]]
    z = result.arc_values
    violation = z[g, p] + z[p, c] - value[g, p, c] - 1.0
    return {
        "max_reduced_cost": float(reduced.max(initial=-math.inf)),
        "max_arcgp_violation": float(violation.max(initial=-math.inf)),
        "parts": len(parts),
        "largest_score": _largest(arc, every),
    }
