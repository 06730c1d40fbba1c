"""The paper's integer linear program for titles (Deshpande et al. 2007, section 5, eqs. 1-13) and three solvers.

:func:`build_model` writes the program once as a solver-neutral description (edge list, objective, constraint
matrix in CSR form with row bounds); :func:`solve` hands it to OR-Tools CP-SAT, to SCIP (through OR-Tools'
model builder, which takes the CSR matrix as it is) or to HiGHS's MIP (through highspy, which takes it
row-wise as it is), one thread each.

Variables: ``I_e`` (edge ``e`` on the path, binary) and ``f_e`` (the edge's position counted from the end,
``k+1`` for the edge leaving ``s`` down to 1 for the edge entering ``t``). Edges: ``s -> v``, ``v -> u`` between
vertices of different classes, ``v -> t``; an edge of weight ``-inf`` is absent, and so are the inner edges when
``k = 1`` (a one-word title has none). Rows, by equation:

- (2) one edge leaves ``s``; (3) one edge enters ``t``; (4) ``k + 1`` edges in all;
- (5) in-degree = out-degree at every word vertex; (6) at most one edge leaves each equivalence class;
- (7) ``f_e <= (k+1) I_e``, written in its strengthened form below;
- (8-11) ``a_v - b_v = d_v`` for ``v != s``, with ``a_v``, ``b_v`` the f-flow into and out of ``v`` and ``d_v``
  its selected in-degree (substituted as linear expressions rather than extra variables);
- (12) ``b_s = k + 1``; (13) ``a_t = 1``.

Strengthening of (7). The paper's own argument after eq. 13 shows that in every integer solution a selected
edge carries exactly its position: ``k + 1`` on the edge leaving ``s``, 1 on the edge entering ``t``, and
between 2 and ``k`` on an inner edge. So these rows are valid inequalities (they cut off no integer solution)
and replace (7) edge by edge:

- ``f_e = (k+1) I_e`` for ``e = s -> v``;  ``f_e = I_e`` for ``e = v -> t``;
- ``2 I_e <= f_e <= k I_e`` for an inner edge (one equality ``f_e = 2 I_e`` when ``k = 2``).

They imply (7) and ``f_e >= 0``, and they matter: with the paper's ``0 <= f_e <= (k+1) I_e`` a fractional
solution may route a large f-value through a small ``I_e``, and CP-SAT's default linear relaxation ignores the
two-term rows altogether, so on the real test titles (dense graphs, n up to ~240, tens of thousands of edges) it
searched for tens of seconds even for ``k = 2``. With the strengthened rows and ``k = 2`` the flow rows force
``I_{s,v}`` = inner out-degree of ``v`` and inner in-degree of ``v`` = ``I_{v,t}``, i.e. the layered path
polytope. The model keeps the paper's variables and rows one for one otherwise.

Solving. A beam-search path (width :data:`DEFAULT_HINT_WIDTH`) is given to the solver as a hint (CP-SAT
``solution_hint``, SCIP's solution hint, HiGHS's ``setSolution``): a heuristic start, not a change of the model. Should the solver stop at
the deadline without a solution of its own (e.g. during presolve) or with a worse one, the hint path is returned,
still marked "timeout", with the solver's bound if it has one. Parameters, measured one thread at a time on the
real test titles (dense graphs: up to ~240 words and ~60,000 edges, k = 1-5): CP-SAT's presolve and its
probing took 4-20 s on the largest graphs and the default linearisation left the two-term rows out of its LP,
so CP-SAT runs with presolve, probing and symmetry detection off and ``linearization_level = 2``
(:data:`CP_SAT_PARAMETERS`); SCIP's presolve ran 250 slow rounds (> 40 s) on the same graphs, so it is capped
at 5 rounds (:data:`SCIP_PARAMETERS`; its tolerances: below). HiGHS: see below.

CP-SAT needs integer coefficients: the weights are multiplied by a power of two ``scale`` (by default the
largest with which ``(k+1) max |w|`` stays below ``2^51`` and ``sum |w|`` below ``2^60``, so that CP-SAT's
objective arithmetic is exact and cannot overflow) and rounded. With a power of two every rounding error
``w - rint(w scale) / scale`` is itself exact, so the true optimum is at most CP-SAT's integer bound over
``scale`` plus ``k + 1`` times the largest rounding down of any edge: that is the ``bound`` reported. The path
CP-SAT returns is re-scored exactly with :func:`~decoders.titles.instance.path_score`, and "optimal" is
reported only when this true score meets the true bound within :data:`CERTIFICATE_RTOL` of the path's own
``sum |terms|``; otherwise (weights so far apart in magnitude that the rounding could hide a better title) the
path comes back ``feasible`` with the valid bound. SCIP takes the float weights as they are; its dual bound is
SCIP's floating-point one, and "optimal" is again reported only when the re-scored path meets it within
:data:`CERTIFICATE_RTOL` of its ``sum |terms|`` (else ``feasible``). HiGHS is handled as SCIP.

Float solvers (SCIP, HiGHS) and their tolerances. Both get the weights times the power of two that brings the
largest ``|w|`` to [0.5, 1) (exact) and then compare objectives with absolute tolerances. A title whose
``sum |terms|`` is below :data:`FLOAT_SOLVER_FLOOR` (1e-6) of the largest weight is at the level of that noise:
on 40 seeded instances of 5 words, k = 3, weights in [0, 1e-9) and one edge of -1e12 (the test
``test_float_solvers_certify_no_title_at_the_level_of_their_tolerances``), HiGHS called a worse title optimal
on 40 and SCIP on 35, with bounds below the true optimum. Such a title now comes back ``feasible``, its bound
the weights' own (:func:`_weights_bound`: best first edge + (k - 1) best inner edges + best last edge). On the
196 real test titles the beam-80 title's ``sum |terms|`` is at least 0.41 of the largest weight, so the floor
never acts there. Near-ties are the other limit: titles within a solver's tolerance of one another (titles of
weights 1 + [0, 1e-7) on 6 words, k = 3) were called optimal by SCIP at its default tolerances up to 3e-8 of
``sum |terms|`` below the optimum, with bounds below the optimum too (the harness's verifier allows 1e-9): its
LP's dual feasibility tolerance (``numerics/dualfeastol``, 1e-7) let it prune the better titles. At
``numerics/feastol`` and ``numerics/dualfeastol`` 1e-9 (:data:`SCIP_PARAMETERS`) its worst shortfall on those 30
was 2e-10 and every bound held; so on 150 seeded titles of 4-7 words, k = 2-5, weights ``10^j (1 + [0, s))`` for
``j`` in -3..3 and ``s`` in 1e-9, 1e-7, 1e-5 (2026-12-02). HiGHS at its default ``mip_feasibility_tolerance``
(1e-6) did the same, at 1e-10 (:data:`HIGHS_OPTIONS`) its worst shortfall was 4e-10, within the verifier's
tolerance. Every claim of either is cross-checked against CP-SAT's exact certificate when the tables are built
(:mod:`decoders.tables.crosscheck`).

HiGHS's settings, measured on a seeded sample of 27 of the 196 real test titles (n 25-216, up to 40,116 edges,
k = 1-7; instances built by the workflow's ``titles_instances`` rule in a scratch copy), 60 s limit, one
thread, gap 0, beam hint, niced on a 2-core machine shared with other jobs: the same settings timed twice
differed up to 3x, so only large gaps and paired ratios count. Sum of solver seconds, titles certified:

=================================================  =================  =========
settings                                            sum (s)            certified
=================================================  =================  =========
HiGHS defaults (presolve on, symmetry on)           561.4              26/27
presolve off                                        41.9; again 86.7   27/27
presolve off, symmetry detection off                21.8; again 66.0   27/27
same, ``mip_feasibility_tolerance`` 1e-10           51.3               27/27
same through OR-Tools' model builder ("highs")      crashes (SIGSEGV)  -
SCIP (5 presolve rounds, default tolerances)        291.9              24/27
CP-SAT (:data:`CP_SAT_PARAMETERS`), for reference   14.1               27/27
=================================================  =================  =========

The tolerance 1e-10 (the near-ties above) was then timed in pairs against 1e-6, the two alternating title by
title, twice over: 33.9 and 38.3 s against 33.1 and 35.5 s, about 5% slower in sum. With presolve on, one title
(ods/sorting/3: 200 words, 40,116 edges, k = 2) ran 440 s past its 60 s limit
without a bound (the harness's hard limit would kill it); with presolve off HiGHS solves it in 2-4 s. Every
title HiGHS certified has CP-SAT's optimum (differences <= 4e-15). OR-Tools' model builder with HiGHS dies with
a segmentation fault whenever a solution hint is added (on a real title, with or without the options), so
highspy is called directly; it also takes the options by name and reports HiGHS's own dual bound. On the 5
largest graphs outside the sample (n 209-411, 43,786-169,080 edges, k = 2-3) HiGHS at :data:`HIGHS_OPTIONS`
certified 4 in 134 s (the fifth stopped at 60 s with the trivial bound 0), CP-SAT all 5 in 65 s; that
process's peak resident memory was 1.2 GB.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from decoders.checks import check_deadline, check_finite, check_ids, check_int, check_range, float_array
from decoders.errors import ConfigError, DecodersError
from decoders.titles.beam import _beam_search
from decoders.titles.checks import check_real
from decoders.titles.colour_coding import _integer
from decoders.titles.instance import TitleInstance, _magnitude, _score, check_instance, path_problem

SOLVERS = ("cp-sat", "scip", "highs")
CERTIFICATE_RTOL = 1e-10
"""An ILP certifies its path when the path's true score is within this share of ``sum |terms|`` of its bound
(a tenth of the harness verifier's tolerance, :data:`decoders.titles.decoders.VERIFY_RTOL`)."""
DEFAULT_HINT_WIDTH = 80
#: CP-SAT parameters besides one worker and the time limit (see the module docstring for why)
CP_SAT_PARAMETERS = {
    "cp_model_presolve": False,
    "cp_model_probing_level": 0,
    "symmetry_level": 0,
    "linearization_level": 2,
}
#: SCIP parameters (SCIP's own "name = value" syntax); see the module docstring
SCIP_PARAMETERS = "presolving/maxrounds = 5\nnumerics/feastol = 1e-9\nnumerics/dualfeastol = 1e-9"
#: SCIP reports a missing bound as +-1e20 (its infinity)
_SCIP_INFINITY = 1e20
#: HiGHS options besides one thread, the time limit and a zero gap (module docstring: measured)
HIGHS_OPTIONS = {"presolve": "off", "mip_detect_symmetry": False, "mip_feasibility_tolerance": 1e-10}
FLOAT_SOLVER_FLOOR = 1e-6
"""SCIP and HiGHS compare objectives with absolute tolerances (1e-9 to 1e-6) after the weights are scaled so the
largest is about 1: a title whose ``sum |terms|`` is below this share of the largest weight is at the level of
that noise, and their answer for it is reported ``feasible`` however close their bound (module docstring)."""


@dataclass
class PathModel:
    """The ILP of eqs. 1-13. Nodes ``0..n-1`` are words, ``n`` is ``s``, ``n+1`` is ``t``.

    Columns ``0..E-1`` are the ``I_e``, ``E..2E-1`` the ``f_e``; rows are ``lower <= A x <= upper``.
    ``instance`` is the instance :func:`build_model` wrote it for (:func:`solve` takes a model only for that one).
    The sizes, the node ids, the weights (finite) and the row bounds (no NaN) are checked at construction, each
    error naming the field.
    """

    n: int
    k: int
    tail: np.ndarray  # int64 (E,)
    head: np.ndarray  # int64 (E,)
    weight: np.ndarray  # float64 (E,), finite
    matrix: sp.csr_matrix  # (rows, 2E)
    lower: np.ndarray
    upper: np.ndarray
    instance: TitleInstance | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.n = check_int(self.n, "PathModel.n", minimum=0)
        self.k = check_int(self.k, "PathModel.k", minimum=1)
        self.tail = check_range(
            check_ids(self.tail, "PathModel.tail", ndim=1), "PathModel.tail", 0, self.n + 1
        )
        self.head = check_range(
            check_ids(self.head, "PathModel.head", ndim=1), "PathModel.head", 0, self.n + 1
        )
        edges = self.tail.shape[0]
        weight = float_array(self.weight, "PathModel.weight")
        if self.head.shape != (edges,) or weight.shape != (edges,):
            raise ValueError(
                f"PathModel.head and PathModel.weight must have the shape ({edges},) of PathModel.tail; got "
                f"{self.head.shape} and {weight.shape}"
            )
        self.weight = check_finite(weight, "PathModel.weight")
        if not sp.issparse(self.matrix) or self.matrix.ndim != 2 or self.matrix.shape[1] != 2 * edges:
            shape = getattr(self.matrix, "shape", type(self.matrix).__name__)
            raise ValueError(f"PathModel.matrix must be a sparse (rows, {2 * edges}) matrix; got {shape}")
        self.matrix = sp.csr_matrix(self.matrix)
        rows = self.matrix.shape[0]
        for name in ("lower", "upper"):
            bounds = float_array(getattr(self, name), f"PathModel.{name}")
            if bounds.shape != (rows,):
                raise ValueError(
                    f"PathModel.{name} must have shape ({rows},), one per row; got {bounds.shape}"
                )
            if np.isnan(bounds).any():
                raise ValueError(f"PathModel.{name}{_first_nan(bounds)} is NaN")
            setattr(self, name, bounds)
        if self.instance is not None:
            check_instance(self.instance, "PathModel.instance")

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
        """The word vertices in order, from the 0/1 values of the ``I`` columns (at least ``E`` values, the first
        ``E`` read; no NaN). The walk from ``s`` stops at ``t``, at a node no chosen edge leaves, or after ``k + 1``
        words: whoever reads it checks that it is a title."""
        selected = float_array(selected, "selected")
        if selected.ndim != 1 or selected.shape[0] < self.n_edges:
            raise ValueError(
                f"selected must be 1-d with at least {self.n_edges} values; got {selected.shape}"
            )
        if np.isnan(selected[: self.n_edges]).any():
            raise ValueError(f"selected{_first_nan(selected[: self.n_edges])} is NaN")
        chosen = np.flatnonzero(selected[: self.n_edges] > 0.5)
        following = dict(zip(self.tail[chosen].tolist(), self.head[chosen].tolist(), strict=True))
        s, t = self.n, self.n + 1
        path = []
        node = following.get(s, t)
        while node != t and len(path) <= self.k:
            path.append(node)
            node = following.get(node, t)
        return np.asarray(path, dtype=np.int64)

    def columns(self, path: np.ndarray) -> np.ndarray:
        """The values of all ``2E`` columns for ``s -> path -> t`` (``I_e`` = 1 and ``f_e`` = position on its
        edges, 0 elsewhere): the solution hint. ``path``: ``k`` word ids in ``0..n-1``. Raises ValueError if an edge
        of the path is not in the model."""
        path = np.asarray(path)
        if path.size == 0 and path.dtype.kind == "f":  # [] is float64 to numpy
            path = path.astype(np.int64)
        path = check_ids(path, "path")
        if path.shape != (self.k,):
            raise ValueError(f"path must hold k = {self.k} word ids; got shape {path.shape}")
        check_range(path, "path", 0, self.n - 1)
        nodes = np.concatenate([[self.n], path, [self.n + 1]])
        # edges are unique (tail, head) pairs: look them up by the key tail * (n + 2) + head
        keys = self.tail * (self.n + 2) + self.head
        order = np.argsort(keys, kind="stable")
        wanted = nodes[:-1] * (self.n + 2) + nodes[1:]
        where = np.searchsorted(keys, wanted, sorter=order)
        found = order[np.minimum(where, keys.size - 1)] if keys.size else np.zeros(0, dtype=np.int64)
        if keys.size == 0 or not np.array_equal(keys[found], wanted):
            raise ValueError(f"the path {np.asarray(path).tolist()} uses an edge the model does not have")
        values = np.zeros(self.n_variables)
        values[found] = 1.0
        values[found + self.n_edges] = np.arange(self.k + 1, 0, -1, dtype=np.float64)
        return values


def build_model(instance: TitleInstance) -> PathModel:
    """The program of eqs. 1-13 with (7) strengthened (module docstring) for ``instance``, built with numpy.

    Edges of weight -inf, same-class edges and (for ``k = 1``) all inner edges are left out."""
    check_instance(instance)
    n, k = instance.n, instance.k
    tail, head, weight = _model_edges(instance)
    rows = _RowWriter(tail.size)
    _add_degree_rows(rows, instance, tail, head)
    _add_position_rows(rows, tail, head, n, k)
    _add_flow_rows(rows, tail, head, n, k)
    lower, upper = rows.bounds()
    return PathModel(n, k, tail, head, weight, rows.matrix(), lower, upper, instance)


def _model_edges(instance: TitleInstance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edge list (tail, head, weight): ``s -> v``, inner ``v -> u`` between classes (k > 1), ``v -> t``."""
    n, k = instance.n, instance.k
    s, t = n, n + 1
    words = np.arange(n, dtype=np.int64)
    if k > 1:
        inner_tail, inner_head = np.nonzero(np.isfinite(instance.edge))
        distinct = instance.class_index[inner_tail] != instance.class_index[inner_head]
        inner_tail, inner_head = inner_tail[distinct], inner_head[distinct]
    else:
        inner_tail = inner_head = np.zeros(0, dtype=np.int64)
    first = words[np.isfinite(instance.start)]
    last = words[np.isfinite(instance.end)]
    tail = np.concatenate([np.full(first.size, s), inner_tail, last]).astype(np.int64)
    head = np.concatenate([first, inner_head, np.full(last.size, t)]).astype(np.int64)
    weight = np.concatenate(
        [instance.start[first], instance.edge[inner_tail, inner_head], instance.end[last]]
    )
    return tail, head, weight


class _RowWriter:
    """The rows ``lower <= A x <= upper`` of a model being written, as coordinate pieces numbered in order."""

    def __init__(self, n_edges: int) -> None:
        self.n_edges = n_edges
        self.edges = np.arange(n_edges, dtype=np.int64)
        self.f_col = self.edges + n_edges
        self.ones = np.ones(n_edges)
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.next_row = 0

    def add(self, row: np.ndarray, col: np.ndarray, val: np.ndarray, lo, hi) -> None:
        """Append rows numbered from 0 (``row``) after those written, with their entries and bounds."""
        self.rows.append(row + self.next_row)
        self.cols.append(col)
        self.vals.append(val)
        self.lower.append(np.asarray(lo, dtype=np.float64))
        self.upper.append(np.asarray(hi, dtype=np.float64))
        self.next_row += len(self.lower[-1])

    def per_edge(self, chosen: np.ndarray, coefficient: float, lo: float, hi: float) -> None:
        """One row ``lo <= f_e - coefficient * I_e <= hi`` for each chosen edge."""
        count = int(chosen.sum())
        index = np.arange(count, dtype=np.int64)
        self.add(
            np.concatenate([index, index]),
            np.concatenate([self.f_col[chosen], self.edges[chosen]]),
            np.concatenate([self.ones[:count], np.full(count, -coefficient)]),
            np.full(count, lo),
            np.full(count, hi),
        )

    def matrix(self) -> sp.csr_matrix:
        """The rows written as a CSR matrix over the ``2E`` columns, duplicate entries summed."""
        matrix = sp.csr_matrix(
            (np.concatenate(self.vals), (np.concatenate(self.rows), np.concatenate(self.cols))),
            shape=(self.next_row, 2 * self.n_edges),
        )
        matrix.sum_duplicates()
        return matrix

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows' lower and upper bounds."""
        return np.concatenate(self.lower), np.concatenate(self.upper)


def _add_degree_rows(rows: _RowWriter, instance: TitleInstance, tail: np.ndarray, head: np.ndarray) -> None:
    """Rows (2)-(6): one edge out of ``s``, one into ``t``, ``k + 1`` in all, in = out per word, <= 1 per class."""
    n, k = instance.n, instance.k
    edges, ones = rows.edges, rows.ones
    word_tail, word_head = tail < n, head < n
    zero = np.zeros(tail.size, dtype=np.int64)
    from_s, into_t = tail == n, head == n + 1
    rows.add(zero[from_s], edges[from_s], ones[from_s], [1.0], [1.0])  # (2)
    rows.add(zero[into_t], edges[into_t], ones[into_t], [1.0], [1.0])  # (3)
    rows.add(zero, edges, ones, [k + 1.0], [k + 1.0])  # (4)
    zeros_n = np.zeros(n)
    rows.add(  # (5): in - out = 0 at every word
        np.concatenate([head[word_head], tail[word_tail]]),
        np.concatenate([edges[word_head], edges[word_tail]]),
        np.concatenate([ones[word_head], -ones[word_tail]]),
        zeros_n,
        zeros_n,
    )
    n_classes = instance.distinct_classes
    rows.add(  # (6): out-degree of each class <= 1
        instance.class_index[tail[word_tail]].astype(np.int64),
        edges[word_tail],
        ones[word_tail],
        np.full(n_classes, -np.inf),
        np.ones(n_classes),
    )


def _add_position_rows(rows: _RowWriter, tail: np.ndarray, head: np.ndarray, n: int, k: int) -> None:
    """Rows (7), strengthened: the first edge carries ``k + 1``, the last 1, an inner edge ``2..k``."""
    inner = (tail < n) & (head < n)
    rows.per_edge(tail == n, k + 1.0, 0.0, 0.0)
    rows.per_edge(head == n + 1, 1.0, 0.0, 0.0)
    if k == 2:
        rows.per_edge(inner, 2.0, 0.0, 0.0)
    elif k > 2:
        rows.per_edge(inner, float(k), -np.inf, 0.0)
        rows.per_edge(inner, 2.0, 0.0, np.inf)


def _add_flow_rows(rows: _RowWriter, tail: np.ndarray, head: np.ndarray, n: int, k: int) -> None:
    """Rows (8-13): ``a_v - b_v - d_v = 0`` for every node but ``s``, then ``b_s = k + 1`` and ``a_t = 1``."""
    edges, f_col, ones = rows.edges, rows.f_col, rows.ones
    s, t = n, n + 1
    word_tail = tail < n
    zero = np.zeros(tail.size, dtype=np.int64)
    from_s, into_t = tail == s, head == t
    # (8-11): words 0..n-1, then t as row n
    into = head - np.where(head == t, t - n, 0)  # t -> row n
    rows.add(
        np.concatenate([into, tail[word_tail], into]),
        np.concatenate([f_col, f_col[word_tail], edges]),
        np.concatenate([ones, -ones[word_tail], -ones]),
        np.zeros(n + 1),
        np.zeros(n + 1),
    )
    rows.add(zero[from_s], f_col[from_s], ones[from_s], [k + 1.0], [k + 1.0])  # (12)
    rows.add(zero[into_t], f_col[into_t], ones[into_t], [1.0], [1.0])  # (13)


def _weights_bound(model: PathModel) -> float:
    """An upper bound on every title's score from the weights alone: the best edge out of ``s``, ``k - 1`` times
    the best inner edge and the best edge into ``t``, raised by more than the rounding of any ``k + 1``-term sum
    of them (``-inf`` when a kind of edge is missing: then there is no title)."""
    n, k = model.n, model.k
    weight = model.weight
    from_s, into_t = model.tail == n, model.head == n + 1
    inner = ~(from_s | into_t)
    parts = [weight[from_s].max(initial=-np.inf), weight[into_t].max(initial=-np.inf)]
    if k > 1:
        parts.append((k - 1) * weight[inner].max(initial=-np.inf))
    if not all(math.isfinite(part) for part in parts):
        return -math.inf
    slack = 4.0 * (k + 2) * np.finfo(np.float64).eps * math.fsum(abs(part) for part in parts)
    return math.fsum(parts) + slack


def _first_nan(array: np.ndarray) -> str:
    return f"[{int(np.flatnonzero(np.isnan(array))[0])}]"


@dataclass
class ILPResult:
    """What a solver run gave: path (or None), its exact score, an upper bound, and the solver's own words.

    ``hint`` names the heuristic whose path was given to the solver (None: no hint), ``hint_score`` is that
    path's score, and ``from_hint`` says the returned path is the hint's because the solver stopped without a
    solution of its own."""

    path: np.ndarray | None
    score: float
    bound: float | None
    status: str  # "optimal", "feasible" (certificate short of its bound), "infeasible", "timeout"
    solver_status: str
    solver_seconds: float
    n_variables: int
    n_constraints: int
    hint: str | None = None
    hint_score: float = math.nan
    from_hint: bool = False
    build_seconds: float = field(default=0.0)


@dataclass
class _Outcome:
    """A solver's raw answer: I-column values (or None), bound, our status, its status name, wall seconds."""

    selected: np.ndarray | None
    bound: float | None
    status: str
    name: str
    seconds: float


def _cp_sat_proto(model: PathModel, scaled: np.ndarray, hint: np.ndarray | None):
    """The CP-SAT model written straight into its protocol buffer (no per-term Python expression objects)."""
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    proto = cp.proto
    for upper in (1, model.k + 1):  # the I_e, then the f_e
        for _ in range(model.n_edges):
            proto.variables.add().domain.extend([0, upper])
    indptr, indices = model.matrix.indptr, model.matrix.indices.tolist()
    data = np.rint(model.matrix.data).astype(np.int64).tolist()
    # an open side becomes a bound no row can reach (|activity| <= (k+1) * row length); +-2^62 would do too, but
    # INT_MAX itself does not survive a float64 round trip
    reach = float((model.k + 2) * (model.n_variables + 1))
    lower = np.clip(model.lower, -reach, reach).astype(np.int64).tolist()
    upper = np.clip(model.upper, -reach, reach).astype(np.int64).tolist()
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
    if hint is not None:
        proto.solution_hint.vars.extend(range(model.n_variables))
        proto.solution_hint.values.extend(np.rint(hint).astype(np.int64).tolist())
    return cp


def _weights(weight, k) -> tuple[np.ndarray, int]:
    weight = float_array(weight, "weight")
    if weight.ndim != 1:
        raise ValueError(f"weight must be 1-d, one per edge; got shape {weight.shape}")
    return check_finite(weight, "weight"), check_int(k, "k", minimum=1)


def cp_sat_scale(weight: np.ndarray, k: int) -> float:
    """The power of two CP-SAT's weights are multiplied by (module docstring): as large as keeps every path's
    integer score below ``2^51`` and the objective's total magnitude below ``2^60``. ``weight``: the model's
    finite edge weights (1-d); ``k``: the title length, an integer >= 1."""
    return _cp_sat_scale(*_weights(weight, k))


def _cp_sat_scale(weight: np.ndarray, k: int) -> float:
    magnitude = np.abs(weight)
    if magnitude.size == 0 or magnitude.max() == 0.0:
        return 1.0
    limit = min(2.0**51 / ((k + 1) * float(magnitude.max())), 2.0**60 / float(magnitude.sum()))
    if not math.isfinite(limit):  # subnormal weights: the quotient overflows, the exponent is capped anyway
        return 2.0**1000
    return 2.0 ** min(max(math.floor(math.log2(limit)), -1000), 1000)


def raised_weights(weight: np.ndarray, k: int, known: float) -> np.ndarray:
    """``weight`` with every edge too low to be on a title scoring ``known`` (a score some title reaches) raised
    to a common floor below that: an edge ``e`` on a title of score >= ``known`` has ``w_e + k max(w) >= known``.
    Raising a weight never lowers the optimum, so a bound for the raised weights bounds the true ones; the floor
    sits a margin lower still, so no title through a raised edge can tie the known one. CP-SAT's scale then
    depends only on edges that can be in the optimum (module docstring). ``weight`` and ``k`` as for
    :func:`cp_sat_scale`; ``known``: a number, ``-inf`` when no title is known (NaN and ``+inf`` are refused)."""
    weight, k = _weights(weight, k)
    known = check_real(known, "known")
    if known == math.inf:
        raise ValueError("known must be the score of a title: finite, or -inf when none is known; got inf")
    return _raised_weights(weight, k, known)


def _raised_weights(weight: np.ndarray, k: int, known: float) -> np.ndarray:
    if weight.size == 0 or not math.isfinite(known):
        return weight
    top = float(weight.max())
    floor = known - k * top
    margin = 1e-6 * (abs(known) + k * abs(top))
    if not (math.isfinite(floor) and margin > 0.0):
        return weight
    return np.maximum(weight, floor - margin)


def _solve_cp_sat(
    model: PathModel, seconds: float, scale: float | None, hint: np.ndarray | None, known: float
) -> _Outcome:
    from ortools.sat.python import cp_model

    weight = _raised_weights(model.weight, model.k, known)
    scale = _cp_sat_scale(weight, model.k) if scale is None else scale
    scaled = np.rint(weight * scale)
    if scaled.size and np.abs(scaled).max() > 2.0**52 / (model.k + 1):
        raise ConfigError(f"scale: weights times scale {scale:g} do not fit CP-SAT's integer objective")
    cp = _cp_sat_proto(model, scaled, hint)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = max(seconds, 1e-3)
    for name, value in CP_SAT_PARAMETERS.items():
        setattr(solver.parameters, name, value)
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
        # exact: the rounding errors of a power-of-two scale are representable; each + and * rounds upwards
        down = float(np.max(weight - scaled / scale, initial=0.0))  # the largest rounding down
        bound = solver.best_objective_bound / scale  # exact (an integer below 2^53 over a power of two)
        if down > 0.0:
            bound = math.nextafter(bound + math.nextafter((model.k + 1) * down, math.inf), math.inf)
    status = {cp_model.OPTIMAL: "optimal", cp_model.INFEASIBLE: "infeasible"}.get(code, "timeout")
    if code == cp_model.MODEL_INVALID:
        status = "error"
    return _Outcome(selected, bound, status, name, solver.wall_time)


def _solve_scip(model: PathModel, seconds: float, hint: np.ndarray | None) -> _Outcome:
    """SCIP through OR-Tools' model builder: the CSR matrix goes in as it is (no per-term Python calls). The
    weights go in times a power of two that brings the largest to about 1 (exact: no rounding), since SCIP's
    tolerances are absolute; its bound is divided back."""
    from ortools.linear_solver.python import model_builder_helper as mbh

    builder = mbh.ModelBuilderHelper()
    n_edges = model.n_edges
    unit = _weight_unit(model.weight)
    builder.fill_model_from_sparse_data(
        np.zeros(model.n_variables),
        np.concatenate([np.ones(n_edges), np.full(n_edges, model.k + 1.0)]),
        np.concatenate([model.weight * unit, np.zeros(n_edges)]),
        model.lower,
        model.upper,
        model.matrix.astype(np.float64),
    )
    for column in range(n_edges):
        builder.set_var_integrality(column, True)
    builder.set_maximize(True)
    if hint is not None:
        for column, value in enumerate(hint.tolist()):
            builder.add_hint(column, value)
    solver = mbh.ModelSolverHelper("scip")
    if not solver.solver_is_supported():
        raise ConfigError("OR-Tools was built without SCIP")
    solver.set_time_limit_in_seconds(max(seconds, 1e-3))
    solver.set_solver_specific_parameters(SCIP_PARAMETERS)
    began = time.perf_counter()
    solver.solve(builder)
    wall = time.perf_counter() - began
    code = solver.status()
    name = code.name
    found = code in (mbh.SolveStatus.OPTIMAL, mbh.SolveStatus.FEASIBLE) and solver.has_solution()
    selected = np.asarray(solver.variable_values())[:n_edges] if found else None
    bound = None
    if code in (mbh.SolveStatus.OPTIMAL, mbh.SolveStatus.FEASIBLE, mbh.SolveStatus.NOT_SOLVED):
        value = float(solver.best_objective_bound())
        bound = value / unit if abs(value) < _SCIP_INFINITY else None
    if code == mbh.SolveStatus.OPTIMAL:
        status = "optimal"
    elif code == mbh.SolveStatus.INFEASIBLE:
        status = "infeasible"
    elif code in (mbh.SolveStatus.FEASIBLE, mbh.SolveStatus.NOT_SOLVED):
        status = "timeout"
    else:
        status = "error"
    return _Outcome(selected, bound, status, name, wall)


def _weight_unit(weight: np.ndarray) -> float:
    """The power of two that brings the largest ``|weight|`` into [0.5, 1) (1 when all are 0): multiplying by it
    rounds nothing, and the float solvers' absolute tolerances then act on weights of about 1."""
    largest = float(np.abs(weight).max(initial=0.0))
    return 2.0 ** -math.frexp(largest)[1] if 0.0 < largest < math.inf else 1.0


def _solve_highs(model: PathModel, seconds: float, hint: np.ndarray | None) -> _Outcome:
    """HiGHS's MIP through highspy: the CSR matrix goes in row-wise as it is, the weights times
    :func:`_weight_unit` (exact), one thread, gap 0 (its default relative gap 1e-4 would stop short of a
    certificate), :data:`HIGHS_OPTIONS`; its dual bound is divided back. Only the ``I_e`` are integer."""
    import highspy

    n_edges = model.n_edges
    unit = _weight_unit(model.weight)
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = model.n_variables
    lp.num_row_ = model.n_constraints
    lp.col_cost_ = np.concatenate([model.weight * unit, np.zeros(n_edges)])
    lp.col_lower_ = np.zeros(model.n_variables)
    lp.col_upper_ = np.concatenate([np.ones(n_edges), np.full(n_edges, model.k + 1.0)])
    lp.row_lower_ = np.where(np.isneginf(model.lower), -inf, model.lower)
    lp.row_upper_ = np.where(np.isposinf(model.upper), inf, model.upper)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = model.matrix.indptr.astype(np.int32)
    lp.a_matrix_.index_ = model.matrix.indices.astype(np.int32)
    lp.a_matrix_.value_ = model.matrix.data.astype(np.float64)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n_edges + [highspy.HighsVarType.kContinuous] * n_edges
    h = highspy.Highs()
    options = {"output_flag": False, "threads": 1, "mip_rel_gap": 0.0, "mip_abs_gap": 0.0}
    options.update(HIGHS_OPTIONS)
    options["time_limit"] = max(seconds, 1e-3)
    for name, value in options.items():
        if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise ConfigError(f"HiGHS refused its option {name} = {value!r}")
    if h.passModel(lp) == highspy.HighsStatus.kError:
        raise DecodersError("HiGHS refused the titles ILP")
    if hint is not None:
        h.setSolution(
            model.n_variables, np.arange(model.n_variables, dtype=np.int32), hint.astype(np.float64)
        )
    began = time.perf_counter()
    h.run()
    wall = time.perf_counter() - began
    code = h.getModelStatus()
    info = h.getInfo()
    name = h.modelStatusToString(code)
    Status = highspy.HighsModelStatus
    if code == Status.kModelEmpty:  # no column: HiGHS does not look at the rows, whose activity is 0
        feasible = bool(np.all(model.lower <= 0.0) and np.all(model.upper >= 0.0))
        return _Outcome(np.zeros(0) if feasible else None, 0.0 if feasible else None,
                        "optimal" if feasible else "infeasible", name, wall)  # fmt: skip
    found = info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible.value
    selected = np.asarray(h.getSolution().col_value, dtype=np.float64)[:n_edges] if found else None
    bound = None
    if code in (Status.kOptimal, Status.kTimeLimit, Status.kInterrupt):
        value = float(info.mip_dual_bound)
        bound = value / unit if math.isfinite(value) and abs(value) < inf else None
    if code == Status.kOptimal:
        status = "optimal"
    elif code == Status.kInfeasible:
        status = "infeasible"
    elif code in (Status.kTimeLimit, Status.kInterrupt):
        status = "timeout"
    else:
        status = "error"
    return _Outcome(selected, bound, status, name, wall)


def solve(
    instance: TitleInstance,
    *,
    solver: str = "cp-sat",
    deadline: float | None = None,
    scale: float | None = None,
    model: PathModel | None = None,
    hint_width: int | None = DEFAULT_HINT_WIDTH,
) -> ILPResult:
    """Solve the ILP of ``instance`` with ``solver`` ("cp-sat", "scip" or "highs") until it proves optimality or the deadline.

    Without a deadline the solver runs until it finishes. ``hint_width``: the beam width whose path is given to
    the solver as a hint (None or 0: no hint). ``scale``: CP-SAT's power-of-two weight scale (None: the largest
    that fits, :func:`cp_sat_scale`). The returned score is always the exact path score, the bound a valid upper
    bound on the true optimum, and the status "optimal" only when the two meet (module docstring), else
    "feasible". An instance marked :attr:`~decoders.titles.instance.TitleInstance.infeasible` is answered at once.
    A solver failure (invalid model, abnormal end, a solution that is not a k-path) raises DecodersError.
    ``instance`` (a TitleInstance), ``deadline`` (None or a :func:`time.perf_counter` value) and ``model`` (None or
    :func:`build_model` of this very instance) are checked, a ValueError naming each; ``solver``, ``scale`` and
    ``hint_width`` (None or an integer >= 0), a ConfigError.
    """
    check_instance(instance)
    deadline = check_deadline(deadline)
    hint_width = _check_solve_options(instance, solver, scale, model, hint_width)
    if instance.infeasible is not None:
        return ILPResult(None, -math.inf, -math.inf, "infeasible", "NOT_STARTED", 0.0, 0, 0)
    began = time.perf_counter()
    model = build_model(instance) if model is None else model
    sizes = (model.n_variables, model.n_constraints)
    hint_name, hint_path, hint_score, hint = _beam_hint(instance, model, hint_width)
    built = time.perf_counter() - began
    extra = {"hint": hint_name, "hint_score": hint_score, "build_seconds": built}
    seconds = math.inf if deadline is None else deadline - time.perf_counter()
    if seconds <= 0:
        if hint_path is not None:
            return ILPResult(hint_path, hint_score, None, "timeout", "NOT_STARTED", 0.0, *sizes, **extra,
                             from_hint=True)  # fmt: skip
        return ILPResult(None, math.nan, None, "timeout", "NOT_STARTED", 0.0, *sizes, **extra)
    limit = 1e9 if math.isinf(seconds) else seconds
    if solver == "cp-sat":
        out = _solve_cp_sat(model, limit, scale, hint, hint_score if hint is not None else -math.inf)
    elif solver == "scip":
        out = _solve_scip(model, limit, hint)
    else:
        out = _solve_highs(model, limit, hint)
    return _read_outcome(instance, model, solver, out, hint_path, hint_score, sizes, extra)


def _check_solve_options(
    instance: TitleInstance, solver: str, scale: float | None, model: PathModel | None, hint_width: int | None
) -> int | None:
    """Check :func:`solve`'s ``hint_width``, ``model``, ``solver`` and ``scale``; returns the checked width."""
    hint_width = None if hint_width is None else _integer("hint_width", hint_width, 0)
    if model is not None and (not isinstance(model, PathModel) or model.instance is not instance):
        raise ValueError("model must be None or build_model(instance) of this very instance")
    if not isinstance(solver, str) or solver not in SOLVERS:
        raise ConfigError(f"solver: the ILP solver must be one of {', '.join(SOLVERS)}; got {solver!r}")
    if scale is not None and (
        isinstance(scale, bool)
        or not isinstance(scale, int | float | np.integer | np.floating)
        or not 0.0 < scale < math.inf
        or math.frexp(scale)[0] != 0.5
    ):
        raise ConfigError(f"scale must be a power of two (its rounding errors are then exact); got {scale!r}")
    return hint_width


def _beam_hint(
    instance: TitleInstance, model: PathModel, hint_width: int | None
) -> tuple[str | None, np.ndarray | None, float, np.ndarray | None]:
    """The beam-search hint: its name, path and score, and the model's column values for it (Nones: no hint)."""
    hint_name, hint_path, hint_score, hint = None, None, math.nan, None
    if hint_width:
        hint_path, hint_score, _ = _beam_search(instance, hint_width, None)
        if hint_path is not None:
            hint_name, hint = f"beam-{int(hint_width)}", model.columns(hint_path)
    return hint_name, hint_path, hint_score, hint


def _read_outcome(
    instance: TitleInstance,
    model: PathModel,
    solver: str,
    out: _Outcome,
    hint_path: np.ndarray | None,
    hint_score: float,
    sizes: tuple[int, int],
    extra: dict,
) -> ILPResult:
    """The result of a solver's outcome: its path re-scored and certified, or the hint's when that is better."""
    if out.status == "error":
        raise DecodersError(f"ILP solver {solver} failed with status {out.name}")
    if out.status == "infeasible":
        return ILPResult(None, -math.inf, -math.inf, out.status, out.name, out.seconds, *sizes, **extra)
    if out.selected is None:
        if out.status == "timeout" and hint_path is not None:
            return ILPResult(hint_path, hint_score, out.bound, out.status, out.name, out.seconds, *sizes,
                             **extra, from_hint=True)  # fmt: skip
        return ILPResult(None, math.nan, out.bound, out.status, out.name, out.seconds, *sizes, **extra)
    path = model.path(out.selected)
    problem = path_problem(instance, path)
    if problem is not None:
        raise DecodersError(f"ILP solver {solver} ({out.name}) returned no title: {problem}")
    score = _score(instance, path)
    if out.status == "timeout" and hint_path is not None and hint_score > score:
        return ILPResult(hint_path, hint_score, out.bound, out.status, out.name, out.seconds, *sizes,
                         **extra, from_hint=True)  # fmt: skip
    status, bound = out.status, out.bound
    magnitude = _magnitude(instance, path)
    if solver != "cp-sat" and magnitude < FLOAT_SOLVER_FLOOR * float(np.abs(model.weight).max()):
        # the title lies at the level of the float solver's absolute tolerances: neither its claim nor its bound
        # means anything there (measured: bounds below the optimum); the bound becomes one from the weights alone
        status = "feasible" if status == "optimal" else status
        bound = _weights_bound(model)
    elif status == "optimal" and (bound is None or not bound - score <= CERTIFICATE_RTOL * magnitude):
        status = "feasible"  # the certificate must hold for the true weights: exact score against true bound
    if status in ("optimal", "feasible") and bound is not None:
        bound = max(bound, score)
    return ILPResult(path, score, bound, status, out.name, out.seconds, *sizes, **extra)
