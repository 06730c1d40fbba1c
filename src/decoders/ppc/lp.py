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

Row sets (:data:`ROW_SETS`). ``paper``: every row of the polytope's families as written above. ``lean``: the same
LP optimum from fewer rows. On ``all``, OneGP and GPArc-left imply the rest: GPArc-right (``z_gpc <= sum_g' z_g'pc
= z_pc``), ArcGP (``z_pc - z_gpc = sum_{g' != g} z_g'pc <= sum_{g' != g} z_g'p <= 1 - z_gp`` by GPArc-left and
OneHead of p) and NoGP (``sum_c z_gpc <= (n - 1) z_gp``), over any set of instantiated parts: the polytope is the
same set. On ``arcgp``, a part keeps only the rows that can bind given its score's sign: GPArc (upper bounds on
``z_gpc``) for a gain, ArcGP (a lower bound) for a cost, all three at 0; the optimum is the same (each ``z_gpc``
then lies at its best given the arcs, ``min(z_gp, z_pc)`` or ``max(0, z_gp + z_pc - 1)``, where the rows left out
hold too), and the solution read is set there exactly, so it lies in the paper's polytope (checked). ``onegp`` has
no implied row. Brute force builds the whole LP and passes it to HiGHS in one call.

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
kept as the paper's safety net. With the lean rows a part enters with its OneGP entry and its GPArc-left row
(and, option ``no_gp``, a NoGP entry); a part priced in gets its own GPArc-left row with dual 0, so eq. 8 stays
its reduced cost. :func:`audit` checks a result against every part.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field, replace
from typing import Protocol

import highspy
import networkx as nx
import numpy as np

from decoders.checks import check_deadline, check_float
from decoders.parsing.checks import check_arc_scores
from decoders.parsing.mst import _chu_liu_edmonds
from decoders.ppc.model import part_ids

POLYTOPES = ("arcgp", "onegp", "all")
ROW_SETS = ("lean", "paper")
STARTS = ("root", "mst", "tree")
_UNIT = 2.0**-53
#: a row may be violated by this much (absolute) in a solution called optimal; the certified gap must be below
#: ``OPTIMALITY_GAP * (1 + |objective|)``
FEASIBILITY = 1e-6
OPTIMALITY_GAP = 1e-6
#: pricing adds a part whose reduced cost exceeds this times the largest score that can enter the LP
PRICE_TOLERANCE = 1e-9
#: values this close to 0 or 1 count as integral
INTEGRALITY = 1e-6
#: the feasibility tolerances of a re-solve when the certificate did not close at HiGHS's defaults (1e-7)
REFINED_TOLERANCE = 1e-10
#: a certified gap above this (relative to the objective's terms) gets that re-solve too, so that two exact
#: methods agree to about this: at HiGHS's defaults the gap of the full LP reached 1.3e-7 (lean rows) and 3.2e-7
#: (the paper's) on 40 szeged test sentences, median 8e-10 and 1.8e-9
REFINE_GAP = 1e-9


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
        g, p, c = part_ids(self.scores.shape[0] - 1, g, p, c)
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


def _check_scores(scores: object, *, bounds: bool = False) -> None:
    """ValueError naming ``scores`` unless it has the :class:`GrandparentScores` methods the caller needs
    (``score``; with ``bounds`` also ``child_bounds`` and ``parent_bounds``, which pricing reads)."""
    needed = ("score", "child_bounds", "parent_bounds") if bounds else ("score",)
    missing = [name for name in needed if not callable(getattr(scores, name, None))]
    if missing:
        raise ValueError(
            f"scores must be GrandparentScores (with {', '.join(needed)}); got {type(scores).__name__}, "
            f"without {', '.join(missing)}"
        )


def checked_scores(scores: GrandparentScores, parts: np.ndarray) -> np.ndarray:
    """``scores.score`` of the parts ``(k, 3)``, checked: one finite number per part (a ValueError names the
    part otherwise)."""
    _check_scores(scores)
    values = np.asarray(scores.score(parts[:, 0], parts[:, 1], parts[:, 2]), dtype=float)
    if values.shape != (len(parts),):
        raise ValueError(f"scores.score returned shape {values.shape} for {len(parts)} parts")
    if not np.isfinite(values).all():
        k = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(f"scores.score gave part {tuple(int(x) for x in parts[k])} the score {values[k]}")
    return values


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


class _Model:
    """The LP in HiGHS plus the constraint matrix in coordinate form (for reduced costs and bounds).

    ``rows`` (:data:`ROW_SETS`): ``paper``, every row of the polytope's families as section 3.2 writes them;
    ``lean``, the same LP optimum with fewer rows (see the module doc). ``no_gp`` keeps the NoGP rows in the lean
    ``all`` polytope (their duals enter pricing, eq. 8). ``parts`` and ``scores``: grandparent columns built with
    the model, in one call to HiGHS (brute force); parse, price and cut adds its columns with :meth:`add_parts`.
    """

    def __init__(
        self,
        arc: np.ndarray,
        polytope: str,
        scale: float,
        *,
        rows: str = "lean",
        no_gp: bool = False,
        parts: np.ndarray | None = None,
        scores: np.ndarray | None = None,
        threads: int = 1,
    ):
        if polytope not in POLYTOPES:
            raise ValueError(f"unknown polytope {polytope!r}; known: {list(POLYTOPES)}")
        if rows not in ROW_SETS:
            raise ValueError(f"unknown row set {rows!r}; known: {list(ROW_SETS)}")
        self.polytope, self.row_set = polytope, rows
        # HiGHS's tolerances are absolute: it solves with every cost divided by ``scale`` (the largest score that
        # can enter the LP), and duals are scaled back
        self.scale = scale if math.isfinite(scale) and scale > 0 else 1.0
        self.one_gp = polytope in ("onegp", "all")
        self.has_no_gp = polytope == "onegp" or (polytope == "all" and (rows == "paper" or no_gp))
        n = arc.shape[0] - 1
        self.n = n
        side = n + 1
        self.arc_id = _arc_ids(arc)
        self.heads, self.mods = np.nonzero(self.arc_id >= 0)
        arcs = len(self.heads)
        self.arcs = arcs
        self.arc_score = arc[self.heads, self.mods]
        rows_, cols, vals, lower, upper = _arc_rows(self.heads, self.mods, n)
        self.rows = self._add_per_arc_rows(rows_, cols, vals, lower, upper, 2 * n + 1 + arcs)
        self.row_lower = np.concatenate([np.asarray(x, dtype=float) for x in lower])
        self.row_upper = np.concatenate([np.asarray(x, dtype=float) for x in upper])
        self.a_row = np.concatenate(rows_).astype(np.int64)
        self.a_col = np.concatenate(cols).astype(np.int64)
        self.a_val = np.concatenate(vals)
        self.cost = np.concatenate([self.arc_score, np.zeros(arcs)])
        self.upper_bound = np.concatenate([np.ones(arcs), np.full(arcs, float(n))])  # implied, for U(y)
        self.parts = np.zeros((0, 3), dtype=np.int64)
        self.present = np.zeros((side, side, side), dtype=bool)
        self.iterations = 0
        self.refined = False
        self.highs = highspy.Highs()
        h = self.highs
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", threads)
        h.setOptionValue("solver", "simplex")
        if parts is not None and len(parts):
            self._append_parts(np.asarray(parts, dtype=np.int64), np.asarray(scores, dtype=float))
        self._pass_model()

    def _add_per_arc_rows(
        self, rows_: list, cols: list, vals: list, lower: list, upper: list, next_row: int
    ) -> int:
        """Append the per-arc rows the polytope has (OneGP of each arc ``p -> c`` with p > 0, NoGP of each arc
        ``g -> p``), numbered from ``next_row``, with no part in them yet; returns the number of rows."""
        arcs = self.arcs
        ids = np.arange(arcs)
        self.one_gp_row = np.full(arcs, -1, dtype=np.int64)
        self.no_gp_row = np.full(arcs, -1, dtype=np.int64)
        if self.one_gp:
            parents = np.flatnonzero(self.heads > 0)  # OneGP(p, c) for arcs p -> c, p > 0
            self.one_gp_row[parents] = next_row + np.arange(len(parents))
            rows_.append(self.one_gp_row[parents]), cols.append(parents), vals.append(-np.ones(len(parents)))
            lower.append(np.zeros(len(parents))), upper.append(np.zeros(len(parents)))
            next_row += len(parents)
        if self.has_no_gp:
            self.no_gp_row[:] = next_row + ids  # NoGP(g, p) for every arc g -> p
            rows_.append(self.no_gp_row), cols.append(ids), vals.append(np.full(arcs, -float(self.n)))
            lower.append(np.full(arcs, -np.inf)), upper.append(np.zeros(arcs))
            next_row += arcs
        return next_row

    def _pass_model(self) -> None:
        """Hand the whole LP (columns, rows and the column-wise matrix, costs divided by ``scale``) to HiGHS."""
        columns = len(self.cost)
        lp = highspy.HighsLp()
        lp.num_col_ = columns
        lp.num_row_ = self.rows
        lp.col_cost_ = self.cost / self.scale
        lp.col_lower_ = np.zeros(columns)
        lp.col_upper_ = np.full(columns, highspy.kHighsInf)
        lp.row_lower_ = np.where(np.isinf(self.row_lower), -highspy.kHighsInf, self.row_lower)
        lp.row_upper_ = self.row_upper
        order = np.lexsort((self.a_row, self.a_col))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.searchsorted(self.a_col[order], np.arange(columns + 1)).astype(np.int32)
        lp.a_matrix_.index_ = self.a_row[order].astype(np.int32)
        lp.a_matrix_.value_ = self.a_val[order]
        lp.sense_ = highspy.ObjSense.kMaximize
        self.highs.passModel(lp)

    def _part_rows(self, parts: np.ndarray, scores: np.ndarray, cols: np.ndarray):
        """The parts' own rows (ArcGP, GPArc left and right, as the polytope and row set keep them): COO entries
        (rows numbered from ``self.rows``) and the rows' upper bounds (lower bounds are -inf)."""
        k = len(parts)
        everyone = np.ones(k, dtype=bool)
        if self.polytope == "onegp":
            return [], [], [], np.zeros(0)
        if self.polytope == "all":
            # lean: OneGP with GPArc-left implies GPArc-right, ArcGP and NoGP (module doc)
            keep = (
                (everyone, everyone, everyone)
                if self.row_set == "paper"
                else (~everyone, everyone, ~everyone)
            )
        elif self.row_set == "paper":
            keep = (everyone, everyone, everyone)
        else:  # arcgp, lean: only the rows that can bind given the part's score sign
            keep = (scores <= 0.0, scores >= 0.0, scores >= 0.0)
        g, p, c = parts.T
        gp, pc = self.arc_id[g, p], self.arc_id[p, c]
        rows, entry_cols, vals, upper = [], [], [], []
        base = self.rows
        for family, chosen in enumerate(keep):
            at = np.flatnonzero(chosen)
            r = base + np.arange(len(at))
            base += len(at)
            if family == 0:  # ArcGP: z_gp + z_pc - z_gpc <= 1
                rows += [r, r, r]
                entry_cols += [gp[at], pc[at], cols[at]]
                vals += [np.ones(len(at)), np.ones(len(at)), -np.ones(len(at))]
                upper.append(np.ones(len(at)))
            else:  # GPArc: z_gpc - z_gp <= 0 (left), z_gpc - z_pc <= 0 (right)
                rows += [r, r]
                entry_cols += [cols[at], gp[at] if family == 1 else pc[at]]
                vals += [np.ones(len(at)), -np.ones(len(at))]
                upper.append(np.zeros(len(at)))
        return rows, entry_cols, vals, np.concatenate(upper)

    def _column_entries(self, parts: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The new columns' entries in the per-arc rows (OneGP of p -> c, NoGP of g -> p): (rows, cols)."""
        g, p, c = parts.T
        families = []
        if self.one_gp:
            families.append(self.one_gp_row[self.arc_id[p, c]])
        if self.has_no_gp:
            families.append(self.no_gp_row[self.arc_id[g, p]])
        if not families:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.stack(families, axis=1).ravel(), np.repeat(cols, len(families))

    def _append_parts(self, parts: np.ndarray, scores: np.ndarray) -> tuple:
        """Record grandparent columns and their rows in the coordinate form; returns what HiGHS needs to add
        them to a live model: (columns, column entries' rows, new rows' COO entries, new rows' upper bounds)."""
        k = len(parts)
        cols = len(self.cost) + np.arange(k)
        entry_rows, entry_cols = self._column_entries(parts, cols)
        r, cc, v, upper = self._part_rows(parts, scores, cols)
        added_rows = len(upper)
        self.rows += added_rows
        self.row_lower = np.concatenate([self.row_lower, np.full(added_rows, -np.inf)])
        self.row_upper = np.concatenate([self.row_upper, upper])
        r = np.concatenate(r) if r else np.zeros(0, dtype=np.int64)
        cc = np.concatenate(cc) if cc else np.zeros(0, dtype=np.int64)
        v = np.concatenate(v) if v else np.zeros(0)
        self.a_row = np.concatenate([self.a_row, entry_rows, r])
        self.a_col = np.concatenate([self.a_col, entry_cols, cc])
        self.a_val = np.concatenate([self.a_val, np.ones(len(entry_rows)), v])
        self.cost = np.concatenate([self.cost, scores])
        self.upper_bound = np.concatenate([self.upper_bound, np.ones(k)])
        self.parts = np.concatenate([self.parts, parts])
        g, p, c = parts.T
        self.present[g, p, c] = True
        return cols, entry_rows, (r, cc, v), upper

    def add_parts(self, parts: np.ndarray, scores: np.ndarray) -> None:
        """Add grandparent columns to the live model, with their per-arc row entries and their own rows."""
        if len(parts) == 0:
            return
        k = len(parts)
        first_row = self.rows
        cols, entry_rows, (r, cc, v), upper = self._append_parts(parts, scores)
        starts = (np.arange(k) * (len(entry_rows) // k)).astype(np.int32)  # every column: as many entries
        h = self.highs
        h.addCols(
            k, scores / self.scale, np.zeros(k), np.full(k, highspy.kHighsInf), len(entry_rows), starts,
            entry_rows.astype(np.int32), np.ones(len(entry_rows)),
        )  # fmt: skip
        if len(upper):
            order = np.lexsort((cc, r))
            starts_r = np.searchsorted(r[order], first_row + np.arange(len(upper))).astype(np.int32)
            lower = np.full(len(upper), -highspy.kHighsInf)
            h.addRows(len(upper), lower, upper, len(r), starts_r, cc[order].astype(np.int32), v[order])

    def add_rows(self, members: list[np.ndarray], upper: np.ndarray) -> None:
        """Add rows ``sum_{j in members[i]} x_j <= upper[i]`` (unit coefficients on columns ``members[i]``) to the
        live model."""
        k = len(members)
        if k == 0:
            return
        counts = np.array([len(m) for m in members], dtype=np.int64)
        cols = np.concatenate(members).astype(np.int64)
        upper = np.asarray(upper, dtype=float)
        self.a_row = np.concatenate([self.a_row, np.repeat(self.rows + np.arange(k), counts)])
        self.a_col = np.concatenate([self.a_col, cols])
        self.a_val = np.concatenate([self.a_val, np.ones(len(cols))])
        self.rows += k
        self.row_lower = np.concatenate([self.row_lower, np.full(k, -np.inf)])
        self.row_upper = np.concatenate([self.row_upper, upper])
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        self.highs.addRows(
            k,
            np.full(k, -highspy.kHighsInf),
            upper,
            len(cols),
            starts,
            cols.astype(np.int32),
            np.ones(len(cols)),
        )

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

    def tighten_tolerances(self) -> None:
        """The next solves (from the last basis) use HiGHS's tightest primal and dual feasibility tolerances
        (1e-10): over a million columns, reduced costs each within the default 1e-7 can sum to a certified bound
        visibly above the objective."""
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            self.highs.setOptionValue(option, REFINED_TOLERANCE)
        self.refined = True

    def primal_resolves(self) -> None:
        """Re-solve with the primal simplex from now on: after columns are added (at 0) and rows that hold at the
        current solution, the last basis stays primal feasible, where the primal simplex goes on from it (szeged,
        6 sentences of 45-57 words: 25,092 simplex iterations against 63,321 by HiGHS's default choice, the
        dual simplex)."""
        self.highs.setOptionValue("simplex_strategy", 4)

    def solution(self) -> tuple[np.ndarray, np.ndarray]:
        """(column values, row duals with the ``<=`` rows' signs made valid)."""
        sol = self.highs.getSolution()
        y = np.asarray(sol.row_dual, dtype=float) * self.scale
        inequality = np.isinf(self.row_lower)
        y[inequality] = np.maximum(y[inequality], 0.0)
        x = np.asarray(sol.col_value, dtype=float)
        if self._sign_rows():
            # each part's value is its best given the arcs (max(0, z_gp + z_pc - 1) for a cost, min(z_gp, z_pc)
            # for a gain): what the solver leaves free when a score is below its tolerance, so that the solution
            # lies in the paper's polytope too; the objective can only rise
            z_gp, z_pc = self._part_arcs(x)
            s = self.cost[2 * self.arcs :]
            low, high = np.maximum(0.0, z_gp + z_pc - 1.0), np.minimum(z_gp, z_pc)
            x[2 * self.arcs :] = np.where(
                s > 0, high, np.where(s < 0, low, np.clip(x[2 * self.arcs :], low, high))
            )
        return x, y

    def _sign_rows(self) -> bool:
        """Whether the parts keep only the ArcGP/GPArc rows their score sign lets bind (lean ``arcgp``)."""
        return self.polytope == "arcgp" and self.row_set == "lean" and len(self.parts) > 0

    def _part_arcs(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(z_gp, z_pc) of every instantiated part (g, p, c) in the solution ``x``."""
        g, p, c = self.parts.T
        return x[self.arc_id[g, p]], x[self.arc_id[p, c]]

    def reduced(self, y: np.ndarray) -> np.ndarray:
        """``s - A'y`` for every instantiated column."""
        return self.cost - np.bincount(
            self.a_col, weights=self.a_val * y[self.a_row], minlength=len(self.cost)
        )

    def rhs(self) -> np.ndarray:
        return np.where(np.isinf(self.row_lower), self.row_upper, self.row_lower)

    def violation(self, x: np.ndarray) -> float:
        """The largest violation of a row of the polytope as the paper writes it, by ``x``: the model's own rows,
        and for the lean ArcGP + GPArc rows also those left out by score sign (not implied by the others, they
        only cannot bind at an optimum; checked so that the solution is one of the paper's polytope)."""
        activity = np.bincount(self.a_row, weights=self.a_val * x[self.a_col], minlength=self.rows)
        over = np.maximum(activity - self.row_upper, self.row_lower - activity)
        worst = max(over.max(initial=0.0), -x.min(initial=0.0))
        if self._sign_rows():
            z_gp, z_pc = self._part_arcs(x)
            z = x[2 * self.arcs :]
            worst = max(worst, float(np.max(np.maximum(z_gp + z_pc - z - 1.0, z - np.minimum(z_gp, z_pc)))))
        return float(worst)

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


def _arc_rows(heads: np.ndarray, mods: np.ndarray, n: int) -> tuple[list, list, list, list, list]:
    """The first-order rows over the arcs ``heads -> mods`` (columns ``z`` then ``f``): OneHead, Source, Consume
    and NoFlow, as COO pieces (rows, columns, values) and the rows' lower and upper bounds."""
    arcs = len(heads)
    ids = np.arange(arcs)
    rows_, cols, vals = [], [], []
    rows_.append(mods - 1), cols.append(ids), vals.append(np.ones(arcs))  # OneHead
    root = heads == 0
    (
        rows_.append(np.full(int(root.sum()), n)),
        cols.append(arcs + ids[root]),
        vals.append(np.ones(int(root.sum()))),
    )
    inner = ~root  # Consume t: +f into t (t > 0), -f out of t (t > 0)
    rows_.append(n + mods), cols.append(arcs + ids), vals.append(np.ones(arcs))
    (
        rows_.append(n + heads[inner]),
        cols.append(arcs + ids[inner]),
        vals.append(-np.ones(int(inner.sum()))),
    )
    noflow = 2 * n + 1 + ids  # NoFlow
    rows_ += [noflow, noflow]
    cols += [arcs + ids, ids]
    vals += [np.ones(arcs), np.full(arcs, -float(n))]
    lower = [np.ones(n), [float(n)], np.ones(n), np.full(arcs, -np.inf)]
    upper = [np.ones(n), [float(n)], np.ones(n), np.zeros(arcs)]
    return rows_, cols, vals, lower, upper


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
    """Every grandparent part ``(g, p, c)`` over the candidate arcs (``arc_id[h, m] >= 0``), in lexicographic
    order."""
    arc_id = np.asarray(arc_id)
    if arc_id.ndim != 2 or arc_id.shape[0] != arc_id.shape[1] or arc_id.dtype.kind not in "iu":
        raise ValueError(
            f"arc_id must be a square integer (n + 1, n + 1) array; got {arc_id.dtype} {arc_id.shape}"
        )
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
    integral = _integral(values)
    weights = np.where(model.arc_id >= 0, z, -np.inf)
    heads, _ = _chu_liu_edmonds(weights) if n else (np.full(1, -1, dtype=np.int64), 0.0)
    # relative to the terms of the solution's own objective: never to an entry that is not in it
    magnitude = float(np.abs(model.cost) @ np.abs(x))
    gap_ok = bound - objective <= OPTIMALITY_GAP * magnitude + 2.0 * rounding
    optimal = status == "optimal" and violation <= FEASIBILITY and gap_ok
    relative_gap = max(bound - objective - 2.0 * rounding, 0.0) / magnitude if magnitude > 0 else 0.0
    stats = {**stats, "max_violation": violation, "integral": integral, "relative_gap": relative_gap}
    if status == "optimal" and not gap_ok:
        # why not certified: the gap asked for (relative to the solution's own terms) is below what the solver
        # resolves on costs divided by the largest score (mixed magnitudes: scores 1e10 apart and more)
        stats["precision_limited"] = bool(OPTIMALITY_GAP * magnitude < REFINED_TOLERANCE * model.scale)
    return LPResult(
        heads, objective, bound, optimal, integral, "optimal" if optimal else status if status != "optimal" else "feasible",
        stats, z, model.per_arc(y, model.one_gp_row), model.per_arc(y, model.no_gp_row), model.parts,
        x[2 * model.arcs :],
    )  # fmt: skip


def _integral(values: np.ndarray) -> bool:
    """Whether every value lies within :data:`INTEGRALITY` of 0 or 1."""
    return bool(np.all(np.minimum(np.abs(values), np.abs(values - 1.0)) <= INTEGRALITY))


def _empty(n: int) -> LPResult:
    heads = np.full(n + 1, -1, dtype=np.int64)
    return LPResult(heads, 0.0, 0.0, True, True, "optimal", {"parts_scored": 0, "parts_added": 0})


def brute_force(
    arc: np.ndarray,
    scores: GrandparentScores,
    *,
    polytope: str = "all",
    rows: str = "lean",
    cycle_cuts: bool = False,
    deadline: float | None = None,
) -> LPResult:
    """The full LP: every arc and every grandparent part, all scored, built in one call and solved once.
    ``rows``: the lean row set (the same optimum, fewer rows; module doc) or the paper's.

    ``cycle_cuts`` (an analysis, not the paper's LP): after each solve, add every cycle inequality the arc values
    violate (:func:`violated_cycles`: a set ``S`` of words whose arcs among them sum above ``|S| - 1``, which the
    single-commodity flow allows fractionally) and solve again, until none is violated. The result is then the
    optimum of the LP with every cycle inequality (a tighter relaxation: its objective is at most the full
    LP's), certified over the rows in the model (the others hold at the solution); ``stats['cycle_cuts']``
    counts the rows added."""
    if not isinstance(polytope, str) or polytope not in POLYTOPES:
        raise ValueError(f"unknown polytope {polytope!r}; known: {list(POLYTOPES)}")
    if not isinstance(rows, str) or rows not in ROW_SETS:
        raise ValueError(f"rows must be one of {list(ROW_SETS)}; got {rows!r}")
    if not isinstance(cycle_cuts, bool):
        raise ValueError(f"cycle_cuts must be true or false; got {cycle_cuts!r}")
    deadline = check_deadline(deadline)
    _check_scores(scores)
    arc = check_arc_scores(arc, "arc")
    n = arc.shape[0] - 1
    if n == 0:
        return _empty(0)
    if _headless(arc):
        return _unsolved(n, "infeasible", {"parts_scored": 0, "parts_added": 0, "lp_solves": 0})
    parts = all_parts(_arc_ids(arc))
    values = checked_scores(scores, parts)
    model = _Model(arc, polytope, _largest(arc, values), rows=rows, parts=parts, scores=values)
    stats: dict = {"parts_scored": len(parts), "parts_added": len(parts), "lp_solves": 0}
    if cycle_cuts:
        stats["cycle_cuts"] = 0
    while True:
        status = model.solve(deadline)
        stats.update(lp_solves=stats["lp_solves"] + 1, lp_iterations=model.iterations)
        if status != "optimal":
            return _unsolved(n, status, stats)
        x, y = model.solution()
        if cycle_cuts and not _integral(x[: model.arcs]):  # integral arcs are a tree (the flow rows)
            found = violated_cycles(model.arc_matrix(x))
            if found:
                members = [model.arc_id[np.ix_(words, words)] for words in found]
                model.add_rows([ids[ids >= 0] for ids in members], np.array([len(w) - 1.0 for w in found]))
                stats["cycle_cuts"] += len(found)
                continue
        result = _read(model, x, y, status, stats, np.zeros(0))
        if model.refined or (result.status == "optimal" and result.stats["relative_gap"] <= REFINE_GAP):
            return result
        model.tighten_tolerances()  # a gap the defaults left: once more at the tightest tolerances
        stats["refined"] = True


def violated_cycles(z: np.ndarray, tolerance: float = FEASIBILITY) -> list[np.ndarray]:
    """Sets ``S`` of words (never the root 0) whose arc values among them sum above ``|S| - 1 + tolerance``: the
    cycle (subtour) inequalities every tree obeys and ``z`` (``(n + 1, n + 1)``, ``[h, m]``) violates. When each
    word's head values sum to 1 (OneHead), ``sum_{h, m in S} z_hm = |S| - (the value entering S)``, so the sets
    are found exactly by a minimum cut from the root to each word not yet in a found set (capacities ``z``): every
    word of some violated set is in one returned."""
    tolerance = check_float(tolerance, "tolerance", minimum=0.0)
    z = np.asarray(z, dtype=float)
    if z.ndim != 2 or z.shape[0] != z.shape[1] or not np.isfinite(z).all():
        raise ValueError(f"z must be a finite square (n + 1, n + 1) array; got shape {z.shape}")
    side = z.shape[0]
    graph = nx.DiGraph()
    graph.add_nodes_from(range(side))
    heads, mods = np.nonzero(z > 0.0)
    graph.add_weighted_edges_from(
        ((int(h), int(m), float(z[h, m])) for h, m in zip(heads, mods, strict=True) if h != m and m != 0),
        weight="capacity",
    )
    found: list[np.ndarray] = []
    covered = np.zeros(side, dtype=bool)
    for word in range(1, side):
        if covered[word]:
            continue
        _, (_, inside) = nx.minimum_cut(graph, 0, word)
        words = np.array(sorted(inside), dtype=np.int64)
        inner = z[np.ix_(words, words)]
        if float(inner.sum() - np.trace(inner)) > len(words) - 1 + tolerance:
            found.append(words)
            covered[words] = True
    return found


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
    rows: str = "paper",
    no_gp: bool = True,
    primal: bool = False,
) -> LPResult:
    """Algorithm 1 on the ``all`` polytope: the full LP's optimum, scoring only the parts pricing cannot rule
    out. ``tighten``: section 4.3.3's dual tightening before pricing. ``start``: the first part of each arc
    ``p -> c`` has grandparent 0 (``root``, the paper's) or ``p``'s head in the best first-order tree (``mst``);
    or the first parts are that tree's own only (``tree``).
    ``columns_per_word``: None prices every candidate each round (the paper's); a number ``k`` scores candidates in
    decreasing order of their bound and stops once ``ceil(k n)`` columns with a positive reduced cost are found
    (partial pricing; convergence still needs a round that finds none among all candidates).
    ``rows``: the paper's rows for every part, or the lean ones (OneGP and GPArc-left; the same polytope), with
    the NoGP rows kept when ``no_gp`` (their duals take part in pricing, eq. 8). ``primal``: every LP after the
    first is solved by the primal simplex from the last basis (:meth:`_Model.primal_resolves`), not by HiGHS's
    default choice. A certificate that does not close at HiGHS's default tolerances (reduced costs within 1e-7
    each can add up over thousands of columns) gets one more round at its tightest ones, as brute force does.
    ``stats`` hold the seconds of each phase: ``seconds_lp`` (HiGHS), ``seconds_pricing`` (bounds, candidates,
    reduced costs), ``seconds_scoring`` (the model's exact scores), ``seconds_cuts``, ``seconds_update`` (adding
    columns and rows) and ``seconds_setup`` (the pairs' bounds, the first model and its parts)."""
    _check_pricing_options(start, rows, columns_per_word, tighten=tighten, no_gp=no_gp, primal=primal)
    deadline = check_deadline(deadline)
    _check_scores(scores, bounds=True)
    arc = check_arc_scores(arc, "arc")
    n = arc.shape[0] - 1
    if n == 0:
        return _empty(0)
    if _headless(arc):
        return _unsolved(n, "infeasible", {"parts_scored": 0, "parts_added": 0, "lp_solves": 0})
    run = _PricingRun(arc, scores, rows, no_gp)
    model, clock = run.model, run.clock
    with clock("setup"):
        parts = _start_parts(model, arc, start, run.exists, run.not_self)
    run.add(parts)
    limit = None if columns_per_word is None else max(1, math.ceil(columns_per_word * n))
    tolerance = _price_tolerance(model)
    while True:
        with clock("lp"):
            status = model.solve(deadline)
        if status == "infeasible" and run.rounds == 0:
            status = run.restart_from_tree(arc, deadline)
        if status != "optimal":
            return _unsolved(n, status, run.stats())
        run.rounds += 1
        if primal and run.rounds == 1:
            model.primal_resolves()
        with clock("pricing"):
            x, y = model.solution()
            if tighten:
                _tighten_one_gp(model, y)
            one_gp, no_gp_dual = model.per_arc(y, model.one_gp_row), model.per_arc(y, model.no_gp_row)
            candidates = run.candidates(one_gp, no_gp_dual, limit)
        new = run.price(candidates, one_gp, no_gp_dual, limit, tolerance)
        with clock("cuts"):  # section 4.4: both arcs on, together above 1, and no part yet
            fresh_cut = _violated_arc_gp(model, x, new)
        run.priced += len(new)
        run.cuts += len(fresh_cut)
        added = np.concatenate([new, fresh_cut]) if len(fresh_cut) else new
        if len(added):
            run.add(added)
            continue
        with clock("pricing"):
            outside = run.outside_reduced_costs(one_gp, no_gp_dual)
        result = _read(model, x, y, "optimal", run.stats(), outside)
        if (result.status == "optimal" and result.stats["relative_gap"] <= REFINE_GAP) or model.refined:
            return result
        model.tighten_tolerances()  # solved, but the certificate left a gap at the default tolerances


def _check_pricing_options(start: str, rows: str, columns_per_word: float | None, **flags: bool) -> None:
    """Check :func:`parse_price_cut`'s ``start``, ``rows``, ``columns_per_word`` and true-or-false ``flags``, a
    ValueError naming each."""
    for name, flag in flags.items():
        if not isinstance(flag, bool):
            raise ValueError(f"{name} must be true or false; got {flag!r}")
    if not isinstance(start, str) or start not in STARTS:
        raise ValueError(f"start must be one of {list(STARTS)}; got {start!r}")
    if not isinstance(rows, str) or rows not in ROW_SETS:
        raise ValueError(f"rows must be one of {list(ROW_SETS)}; got {rows!r}")
    if columns_per_word is not None and not (
        isinstance(columns_per_word, int | float)
        and not isinstance(columns_per_word, bool)
        and math.isfinite(columns_per_word)
        and columns_per_word > 0
    ):
        raise ValueError(f"columns_per_word must be a positive number or None; got {columns_per_word!r}")


def _start_parts(
    model: _Model, arc: np.ndarray, start: str, exists: np.ndarray, not_self: np.ndarray
) -> np.ndarray:
    """The first parts (:func:`parse_price_cut`'s ``start``): one per arc ``p -> c`` (p > 0) with grandparent 0
    when the root may head p, else the first allowed g != c, or p's head in the best first-order tree (``mst``);
    or only that tree's own parts (``tree``)."""
    p, c = model.heads[model.heads > 0], model.mods[model.heads > 0]
    heads_of_p = exists[:, p] & not_self[:, c]
    has = heads_of_p.any(axis=0)
    first = np.argmax(heads_of_p, axis=0)
    if start in ("mst", "tree"):
        tree, value = _chu_liu_edmonds(arc)
    if start == "mst" and value > -math.inf:  # p's head in the best first-order tree: feasible at once
        first = np.where((tree[p] >= 0) & (tree[p] != c), tree[p], first)
    parts = np.stack([first[has], p[has], c[has]], axis=1)
    if start == "tree" and value > -math.inf:  # only that tree's own parts: pricing brings in the others'
        kids = np.flatnonzero(tree > 0)
        parts = np.stack([tree[tree[kids]], tree[kids], kids], axis=1)
    return parts


def _tighten_one_gp(model: _Model, y: np.ndarray) -> None:
    """Section 4.3.3's dual tightening, in place: an arc with reduced cost ``r < 0`` raises its ``y_OneGP`` by
    ``-r``."""
    r_arc = model.reduced(y)[: model.arcs]
    lift = (model.one_gp_row >= 0) & (r_arc < 0.0)
    y[model.one_gp_row[lift]] -= r_arc[lift]


class _PricingRun:
    """The state of one :func:`parse_price_cut`: the model, the pairs' bounds, the exact scores of the parts scored
    so far, the phase clock and the counters (LP rounds, columns priced in, cuts)."""

    def __init__(self, arc: np.ndarray, scores: GrandparentScores, rows: str, no_gp: bool) -> None:
        self.clock = _PhaseClock()
        self.scores = scores
        side = arc.shape[0]
        with self.clock("setup"):  # the bounds of every (p, c) and (g, p) pair, and the model of the arcs
            self.child_terms, self.parent_terms = _bounds_by_term(
                scores.child_bounds(), scores.parent_bounds(), side
            )
            self.child_bound, parent_bound = self.child_terms.sum(axis=0), self.parent_terms.sum(axis=0)
            self.model = _Model(
                arc, "all", _largest(arc, self.child_bound, parent_bound), rows=rows, no_gp=no_gp
            )
        self.known = np.full((side, side, side), np.nan)  # exact scores of the parts scored so far
        self.exists = self.model.arc_id >= 0
        self.not_self = np.arange(side)[:, None] != np.arange(side)[None, :]  # [g, c]: g != c
        self.rounds = self.priced = self.cuts = 0

    def score(self, parts: np.ndarray) -> np.ndarray:
        """The exact scores of ``parts``, asking the model only for those not scored before."""
        with self.clock("scoring"):
            known = self.known
            g, p, c = parts.T
            fresh = np.isnan(known[g, p, c])
            if fresh.any():
                known[g[fresh], p[fresh], c[fresh]] = checked_scores(self.scores, parts[fresh])
            return known[g, p, c]

    def add(self, parts: np.ndarray) -> None:
        """Score ``parts`` and add them to the model."""
        values = self.score(parts)
        with self.clock("update"):
            self.model.add_parts(parts, values)

    def stats(self) -> dict:
        """The counters and the seconds per phase so far."""
        return {
            **_ppc_stats(self.known, self.model, self.rounds, self.priced, self.cuts),
            **self.clock.seconds(),
        }

    def restart_from_tree(self, arc: np.ndarray, deadline: float | None) -> str:
        """After an infeasible first LP, add the best first-order tree's own parts and solve again: the status,
        ``infeasible`` when no tree exists."""
        # the start parts allow only trees whose words have their start grandparent (the root, when it may head
        # them): with forbidden arcs there may be none. The best first-order tree's own parts make its tree
        # feasible; if no tree exists at all, that is certified by Chu-Liu-Edmonds.
        tree, value = _chu_liu_edmonds(arc)
        if value == -math.inf:
            return "infeasible"
        c = np.flatnonzero(tree > 0)
        own = np.stack([tree[tree[c]], tree[c], c], axis=1)
        self.add(own[~self.model.present[own[:, 0], own[:, 1], own[:, 2]]])
        with self.clock("lp"):
            return self.model.solve(deadline)

    def candidates(self, one_gp: np.ndarray, no_gp_dual: np.ndarray, limit: int | None) -> np.ndarray:
        """Pricing by bounds (eqs. 9-11): the parts not in the model whose bound beats their duals, the most
        promising first under partial pricing (``limit``)."""
        model, exists, not_self = self.model, self.exists, self.not_self
        # arcs p -> c whose bound beats y_OneGP, then grandparents g (exact scores come after)
        pc = np.flatnonzero(
            (model.heads > 0)
            & (self.child_bound[model.heads, model.mods] - one_gp[model.heads, model.mods] > 0)
        )
        pp, cc = model.heads[pc], model.mods[pc]
        bar = -one_gp[pp, cc][None, :] - no_gp_dual[:, pp]
        for child_t, parent_t in zip(self.child_terms, self.parent_terms, strict=True):
            bar += np.minimum(parent_t[:, pp], child_t[pp, cc][None, :])
        gg, kk = np.nonzero((bar > 0) & exists[:, pp] & not_self[:, cc])
        candidates = np.stack([gg, pp[kk], cc[kk]], axis=1)
        fresh = ~model.present[candidates[:, 0], candidates[:, 1], candidates[:, 2]]
        candidates, promise = candidates[fresh], bar[gg, kk][fresh]
        if limit is not None:  # partial pricing: the most promising bounds first, until `limit` are found
            candidates = candidates[np.argsort(-promise, kind="stable")]
        return candidates

    def price(
        self,
        candidates: np.ndarray,
        one_gp: np.ndarray,
        no_gp_dual: np.ndarray,
        limit: int | None,
        tolerance: float,
    ) -> np.ndarray:
        """The candidates whose exact reduced cost (eq. 8) exceeds ``tolerance``: all scored at once, or (partial
        pricing) in chunks of ``limit`` until ``limit`` are found."""
        new_parts = []
        found = start_at = 0
        while start_at < len(candidates) and (limit is None or found < limit):
            chunk = candidates[start_at : start_at + (len(candidates) if limit is None else limit)]
            start_at += len(chunk)
            exact = self.score(chunk)
            with self.clock("pricing"):
                exact = exact - one_gp[chunk[:, 1], chunk[:, 2]] - no_gp_dual[chunk[:, 0], chunk[:, 1]]
                new_parts.append(chunk[exact > tolerance])
                found += len(new_parts[-1])
        return np.concatenate(new_parts) if new_parts else np.zeros((0, 3), dtype=np.int64)

    def outside_reduced_costs(self, one_gp: np.ndarray, no_gp_dual: np.ndarray) -> np.ndarray:
        """The reduced costs of the scored parts left out of the model: the certificate counts their positive
        ones outside it (an unscored part's bound is not positive: pricing scored all of those)."""
        known = self.known
        outside_parts = np.argwhere(~self.model.present & ~np.isnan(known))
        g, p_, c_ = outside_parts.T
        return known[g, p_, c_] - one_gp[p_, c_] - no_gp_dual[g, p_]


class _PhaseClock:
    """Seconds spent per phase of an algorithm: ``with clock("lp"): ...``."""

    def __init__(self):
        self.spent: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, phase: str):
        began = time.perf_counter()
        try:
            yield
        finally:
            self.spent[phase] = self.spent.get(phase, 0.0) + time.perf_counter() - began

    def seconds(self) -> dict[str, float]:
        return {f"seconds_{phase}": value for phase, value in self.spent.items()}


def _violated_arc_gp(model: _Model, x: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Parts ``(g, p, c)``, p > 0, g != c, not in the model nor in ``new``, whose arcs violate ArcGP without
    them: ``z_gp + z_pc > 1`` (only arcs with a positive value can)."""
    on = np.flatnonzero(x[: model.arcs] > INTEGRALITY)
    heads, mods, z = model.heads[on], model.mods[on], x[on]
    # pairs (g -> p, p -> c): an arc into p followed by an arc out of p
    order = np.argsort(heads, kind="stable")
    starts = np.searchsorted(heads[order], mods)  # arcs out of each arc's modifier p
    ends = np.searchsorted(heads[order], mods, side="right")
    counts = ends - starts
    first = np.repeat(np.arange(len(on)), counts)  # the arc g -> p
    second = order[
        np.repeat(starts, counts) + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    ]
    g, p, c = heads[first], mods[first], mods[second]
    keep = (p > 0) & (g != c) & (z[first] + z[second] > 1.0 + FEASIBILITY) & ~model.present[g, p, c]
    cut = np.stack([g[keep], p[keep], c[keep]], axis=1)
    if len(cut) and len(new):
        side = model.n + 1
        key = np.array([side * side, side, 1])
        cut = cut[~np.isin(cut @ key, new @ key)]
    return cut


def integer_program(
    arc: np.ndarray, scores: GrandparentScores, *, deadline: float | None = None, **pricing
) -> LPResult:
    """The best tree of the grandparent model (the ILP: the full model with integer arcs; with ArcGP and GPArc
    the parts follow, ``z_gpc = z_gp z_pc``). Parse, price and cut first: an integral LP optimum is the ILP's
    (certified as the LP's is). Only when it is fractional does HiGHS's branch and bound run on the full model
    (every part scored): then ``optimal`` rests on HiGHS closing its MIP gap and on the tree's exact score
    matching the MIP objective; the bound is the smaller of the LP's certified bound and the MIP's dual bound.
    ``stats['ilp_solved']`` says whether the MIP ran; ``pricing``: :func:`parse_price_cut`'s options."""
    deadline = check_deadline(deadline)
    relaxed = parse_price_cut(arc, scores, deadline=deadline, **pricing)
    if relaxed.status != "optimal" or relaxed.integral or (relaxed.heads[1:] < 0).any():
        return replace(relaxed, stats={**relaxed.stats, "ilp_solved": False})
    arc = check_arc_scores(arc, "arc")
    n = arc.shape[0] - 1
    parts = all_parts(_arc_ids(arc))
    values = checked_scores(scores, parts)
    model = _Model(arc, "all", _largest(arc, values), parts=parts, scores=values)
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
    """Reduced costs at most this are not worth a column: relative to the largest score that can enter the LP
    (what HiGHS's costs are divided by), so that the same columns enter at every unit of the scores; the
    certificate still counts them."""
    return PRICE_TOLERANCE * model.scale


def _ppc_stats(known: np.ndarray, model: _Model, rounds: int, priced: int, cuts: int) -> dict:
    return {
        "parts_scored": int(np.count_nonzero(~np.isnan(known))),
        "parts_added": len(model.parts),
        "lp_solves": rounds,
        "lp_iterations": model.iterations,
        "columns_priced": priced,
        "cuts": cuts,
        "refined": model.refined,
    }


def audit(arc: np.ndarray, scores: GrandparentScores, result: LPResult) -> dict[str, float]:
    """Section 4's optimality conditions checked over *every* grandparent part at a result's final duals (all
    parts scored): the largest reduced cost (eq. 8) of a part left out of the LP, and the largest ArcGP
    violation ``z_gp + z_pc - z_gpc - 1`` over all pairs of arcs (``z_gpc = 0`` for a part left out). Both at
    most 0 (up to tolerances) mean no column and no row was missing; ``largest_score``: the largest |score| of an
    arc or part, what the solver's tolerances are relative to."""
    arc = check_arc_scores(arc, "arc")
    _check_scores(scores)
    if not isinstance(result, LPResult):
        raise ValueError(f"result must be an LPResult; got {type(result).__name__}")
    if result.arc_values is not None and result.arc_values.shape != arc.shape:
        raise ValueError(f"result is of a sentence of shape {result.arc_values.shape}, arc of {arc.shape}")
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
    every = checked_scores(scores, parts)
    reduced = every[absent] - result.one_gp[p[absent], c[absent]] - result.no_gp[g[absent], p[absent]]
    z = result.arc_values
    violation = z[g, p] + z[p, c] - value[g, p, c] - 1.0
    return {
        "max_reduced_cost": float(reduced.max(initial=-math.inf)),
        "max_arcgp_violation": float(violation.max(initial=-math.inf)),
        "parts": len(parts),
        "largest_score": _largest(arc, every),
    }
