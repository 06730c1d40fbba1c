"""Branch and bound over projective trees with non-local factors (Qian and Liu 2013, Algorithm 1).

The score of a tree is a backbone score that a dynamic program maximises exactly (first-order arcs, or the
second-order parts of :mod:`decoders.parsing.second_order`) plus ``sum_c phi_c z_c`` over non-local factors
``c``, each a set of ``r_c`` arcs that fires when all of them are in the tree (``z_c = min_e z_e``).

Bound (section 3.2). For ``phi_c >= 0``, ``phi_c z_c = min_{p_c in simplex} sum_e phi_c p_c^e z_e`` (eq. 5); for
``phi_c < 0``, ``phi_c z_c = min_{q_c in [0, 1]} q_c sigma_c(z)`` with ``sigma_c(z) = phi_c (sum_e z_e - (r_c -
1))`` (eqs. 6-8). For fixed ``p`` (and ``q``) the sum ``psi(p, z)`` is the backbone score plus per-arc terms and
a constant, so ``max_z psi(p, z)`` is one DP call and an upper bound on the best tree; the tree it returns is
scored exactly for the lower bound. ``min_p max_z psi`` is approached by projected subgradient (section 3.2;
simplex projection by sorting, Duchi et al. 2008), ``p`` starting uniform / ``q = 0`` at the root (section 4.4)
and from the parent's ``p`` in a child, stopping when the bound improves by at most ``epsilon``, meets the lower
bound, or after ``max_iterations`` steps (then the node is split). The step follows Rush et al. (2010)'s
schedule, ``alpha_0 / (1 + t)`` with ``t`` the number of times the bound got worse, on the subgradient (the
paper's rule, section 4.4: ``alpha_0 = max_c 1 / |phi_c|``) or, by default, on a per-factor normalised subgradient
(``alpha_0 = 1``) (:data:`STEP_RULES`).

Reduced-cost fixing (beyond the paper; ``fixing``): after a node's subgradient, one outside pass of the backbone
DP gives, for every arc, the best ``psi(p, .)`` of a tree through it, which bounds every tree of the node that
uses the arc; arcs whose certified bound cannot beat the best tree are excluded from the node and its subtree.

Search (section 3.3, Algorithm 1): level by level; every node of a level fixes the same arcs (in or out). Nodes
whose bound does not exceed the best tree found are pruned; the survivors are split on one arc: each proposes its
free arc of largest gap (the gaps of the factors containing it, between bound and score at the node's last
``(p, z)``), and the proposal of the node with the highest lower bound is taken (section 3.3). A level holds
one ``p`` per node, which for tens of thousands of factors is a megabyte each: a child shares its parent's
arrays until it is bounded, and the search stops (uncertified) rather than start a level whose nodes would need
more than ``max_open_bytes`` (measured: gsd's tri-sibling model reached 17 GB in one 50-word sentence without it).

Certificate: ``optimal`` only when the best tree's exact score reaches the smallest upper bound of the open
nodes, after widening each bound by a bound on its floating-point rounding error. With ``grid`` (scores are
multiples of it, e.g. integer-valued averaged-perceptron numerators: section 4.4's ``floor(N T psi) / (N T)``)
a bound is first rounded down to the grid; that is only sound while every score is a multiple of the grid and
every sum is exact, so :func:`branch_and_bound` refuses a grid when a score is off it or when ``backbone.magnitude()
+ sum_c |phi_c|`` (which bounds every partial sum of a tree's score) reaches ``2^53`` grid units. Lower bound
initialisation (section 3.4): a few alternations of a DP
call on the lower-bound function's per-arc terms and the best ``p`` for the tree found.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numba
import numpy as np

from decoders.checks import check_deadline, check_finite, check_float, check_ids, check_int, check_range
from decoders.parsing.checks import check_arc_scores, check_cube
from decoders.parsing.eisner import _eisner, _tree_score
from decoders.parsing.second_order import _second_order, _second_order_max_marginals, _second_order_score
from decoders.parsing.trees import is_projective, tree_error

_UNIT = 2.0**-53


@dataclass(frozen=True)
class Backbone:
    """The part of the model a DP maximises exactly: ``arc`` (``-inf`` forbids) and, for the second-order
    backbone, the ``sib``/``inner``/``outer`` arrays (None for a first-order backbone). Checked at construction:
    ``arc`` a float (n + 1, n + 1) array, finite or ``-inf``; the parts (all three or none) finite floats of shape
    (n + 1, n + 1, n + 1)."""

    arc: np.ndarray
    sib: np.ndarray | None = None
    inner: np.ndarray | None = None
    outer: np.ndarray | None = None

    def __post_init__(self) -> None:
        arc = check_arc_scores(self.arc, "backbone.arc")
        object.__setattr__(self, "arc", arc)
        parts = {"sib": self.sib, "inner": self.inner, "outer": self.outer}
        given = [name for name, part in parts.items() if part is not None]
        if given and len(given) != 3:
            raise ValueError(f"backbone: sib, inner and outer come together; got only {given}")
        side = arc.shape[0]
        for name in given:
            cube = check_cube(parts[name], f"backbone.{name}", (side,) * 3, forbid=False)
            object.__setattr__(self, name, cube)

    @property
    def n(self) -> int:
        return self.arc.shape[0] - 1

    @property
    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(sib, inner, outer)`` as the compiled kernels take them: zero-size arrays for a first-order
        backbone."""
        if self.sib is None:
            return (np.zeros((0, 0, 0)),) * 3
        return self.sib, self.inner, self.outer

    def solve(self, arc: np.ndarray) -> tuple[np.ndarray, float]:
        return _solve(arc, *self.parts)

    def score(self, heads: np.ndarray) -> float:
        return _score(self.arc, *self.parts, heads)

    def magnitude(self) -> float:
        """Sum over words of the largest |part score| a tree can use for it (for rounding-error bounds)."""
        finite = np.where(np.isfinite(self.arc), np.abs(self.arc), 0.0)
        total = float(finite.max(axis=0).sum())
        for part in (self.sib, self.inner, self.outer):
            if part is not None:
                total += float(np.abs(part).max(axis=(0, 2)).sum())
        return total


@dataclass(frozen=True)
class Factors:
    """Non-local factors: factor ``c`` is the arcs ``heads[c, j] -> mods[c, j]`` for ``j < size[c]`` (rows
    padded with 0) and scores ``score[c]`` when all of them are in the tree. Checked at construction: integer
    (F, width) ids >= 0, sizes in 1..width, finite scores; :meth:`check` checks the ids against a sentence."""

    heads: np.ndarray
    mods: np.ndarray
    size: np.ndarray
    score: np.ndarray

    def __post_init__(self) -> None:
        heads = check_ids(self.heads, "factors.heads", ndim=2)
        mods = check_ids(self.mods, "factors.mods", ndim=2)
        if mods.shape != heads.shape:
            raise ValueError(f"factors.mods must have factors.heads' shape {heads.shape}; got {mods.shape}")
        size = check_ids(self.size, "factors.size", ndim=1)
        score = np.asarray(self.score)
        if score.dtype == np.bool_ or not np.issubdtype(score.dtype, np.number) or score.ndim != 1:
            raise ValueError(
                f"factors.score must be a 1-d float array, got {score.dtype} of shape {score.shape}"
            )
        score = check_finite(score.astype(np.float64, copy=False), "factors.score")
        if not len(size) == len(score) == len(heads):
            raise ValueError(
                f"factors: heads ({len(heads)} rows), size ({len(size)}) and score ({len(score)}) differ in length"
            )
        check_range(size, "factors.size", 1, heads.shape[1])
        check_range(heads, "factors.heads", 0, np.iinfo(np.int64).max)
        check_range(mods, "factors.mods", 0, np.iinfo(np.int64).max)
        for name, value in (("heads", heads), ("mods", mods), ("size", size), ("score", score)):
            object.__setattr__(self, name, value)

    def check(self, n: int) -> None:
        """ValueError unless every factor arc is an arc of a sentence of ``n`` words: heads in 0..n, modifiers
        in 1..n, no loop (padding entries are not read)."""
        valid = self.valid()
        check_range(np.where(valid, self.heads, 0), "factors.heads", 0, n)
        check_range(np.where(valid, self.mods, 1), "factors.mods", 1, n)
        loops = valid & (self.heads == self.mods)
        if loops.any():
            c, j = (int(i) for i in np.argwhere(loops)[0])
            raise ValueError(f"factors.heads[{c}, {j}] = factors.mods[{c}, {j}]: an arc cannot be a loop")

    @classmethod
    def empty(cls, width: int = 1) -> Factors:
        return cls(
            np.zeros((0, width), dtype=np.int64),
            np.zeros((0, width), dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            np.zeros(0),
        )

    def __len__(self) -> int:
        return len(self.score)

    @property
    def width(self) -> int:
        return self.heads.shape[1]

    def valid(self) -> np.ndarray:
        """(F, width) mask of the real (not padding) entries."""
        return np.arange(self.width)[None, :] < self.size[:, None]

    def fired(self, heads: np.ndarray) -> np.ndarray:
        """(F,) bool: whether each factor's arcs are all in the tree ``heads`` (full head array)."""
        return np.all((heads[self.mods] == self.heads) | ~self.valid(), axis=1)

    def total(self, heads: np.ndarray) -> float:
        """The summed scores of the fired factors (numpy; the compiled search scores with its own loop, so
        tests that score with this one check it)."""
        return float(self.score[self.fired(heads)].sum()) if len(self) else 0.0


@dataclass
class Result:
    """What :func:`branch_and_bound` found: the best tree (None when it stopped before finding one), its exact
    score, the certified bound, counters."""

    heads: np.ndarray | None
    objective: float
    bound: float
    optimal: bool
    stats: dict[str, float] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``optimal`` (certified), ``feasible`` (a tree, not certified) or ``timeout`` (no tree)."""
        if self.optimal:
            return "optimal"
        return "timeout" if self.heads is None else "feasible"


def project_rows_to_simplex(values: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Euclidean projection of each row's first ``size[c]`` entries onto the probability simplex, by sorting
    (Duchi et al. 2008); padding entries become 0. ``values``: a finite float (F, width) array; ``size``: (F,)
    integers in 0..width."""
    values = np.asarray(values)
    if values.ndim != 2 or values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.number):
        raise ValueError(f"values must be a 2-d float array, got {values.dtype} of shape {values.shape}")
    values = check_finite(values.astype(np.float64), "values")
    size = check_ids(size, "size", ndim=1)
    if len(size) != len(values):
        raise ValueError(f"size must have one entry per row of values ({len(values)}), got {len(size)}")
    return _project_rows_to_simplex(values, check_range(size, "size", 0, values.shape[1]))


@numba.njit(cache=True, nogil=True)
def _project_rows_to_simplex(values: np.ndarray, size: np.ndarray) -> np.ndarray:
    """:func:`project_rows_to_simplex`'s kernel."""
    out = np.zeros_like(values)
    buffer = np.empty(values.shape[1])
    for c in range(values.shape[0]):
        out[c, : size[c]] = values[c, : size[c]]
        _project_in_place(out[c], size[c], buffer)
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _project_in_place(row: np.ndarray, r: int, buffer: np.ndarray) -> None:
    """Project ``row[:r]`` onto the simplex in place; ``buffer`` (length >= r) is scratch for the sort."""
    for j in range(r):  # insertion sort, descending: rows hold at most a few arcs
        value = row[j]
        i = j
        while i > 0 and buffer[i - 1] < value:
            buffer[i] = buffer[i - 1]
            i -= 1
        buffer[i] = value
    cumulative, theta = 0.0, 0.0
    for j in range(r):
        cumulative += buffer[j]
        candidate = (cumulative - 1.0) / (j + 1)
        if buffer[j] - candidate > 0.0:
            theta = candidate
    for j in range(r):
        row[j] = max(row[j] - theta, 0.0)


@numba.njit(cache=True, nogil=True)
def _solve(arc, sib, inner, outer):
    """The backbone DP: Eisner when the second-order arrays have no entries (a first-order backbone)."""
    if sib.shape[0] == 0:
        return _eisner(arc)
    return _second_order(arc, sib, inner, outer)


@numba.njit(cache=True, nogil=True)
def _score(arc, sib, inner, outer, heads):
    if sib.shape[0] == 0:
        return _tree_score(arc, heads)
    return _second_order_score(arc, sib, inner, outer, heads)


@numba.njit(cache=True, nogil=True)
def _factor_total(heads, fh, fm, size, phi) -> float:
    """The summed scores of the factors whose arcs are all in the tree (full head array)."""
    total = 0.0
    for c in range(phi.shape[0]):
        fired = True
        for j in range(size[c]):
            if heads[fm[c, j]] != fh[c, j]:
                fired = False
                break
        if fired:
            total += phi[c]
    return total


@numba.njit(cache=True, nogil=True)
def _certified(bound: float, rounding: float, grid: float) -> float:
    """A bound no rounding can have pushed below the true one, rounded down to the grid (``grid > 0``)."""
    widened = bound + rounding
    if grid > 0.0 and np.isfinite(widened):
        return np.floor(widened / grid + 1e-9) * grid
    return widened


# slots of the state vector the node kernel reads and updates
_BOUND, _LOWER, _BEST, _STEP, _PREVIOUS, _SMALLEST, _INITIAL, _INCREASES = range(8)


@numba.njit(cache=True, nogil=True)
def _subgradient(
    node_arc, backbone_arc, sib, inner, outer, fh, fm, size, phi, gain, active, p, q,
    state, best_heads, node_heads, gaps, rounding, grid, epsilon, iterations,
):  # fmt: skip
    """Up to ``iterations`` projected-subgradient steps on ``min_p max_z psi(p, z)`` at one node (section 3.2).

    ``state`` holds the node's bound and lower bound, the best tree score of the search, the step, the previous
    and the smallest value; ``p``, ``q``, ``best_heads``, ``node_heads`` (the tree of the smallest value) and
    ``gaps`` (per flat arc id, the summed factor gaps at that tree) are updated in place. Returns the DP calls
    made, negated when the search at this node is over (bound met or stalled, or no tree left)."""
    side = node_arc.shape[0]
    factors = phi.shape[0]
    buffer = np.empty(max(fh.shape[1], 1))
    chosen = np.zeros(fh.shape[1], dtype=np.bool_)
    for iteration in range(1, iterations + 1):
        arc, constant = _adjusted(node_arc, fh, fm, size, phi, active, p, q)
        heads, value = _solve(arc, sib, inner, outer)
        if value == -np.inf:  # no tree avoids the node's excluded arcs
            state[_BOUND] = -np.inf
            return -iteration
        value += constant
        score = _score(backbone_arc, sib, inner, outer, heads) + _factor_total(heads, fh, fm, size, phi)
        if score > state[_BEST]:
            state[_BEST] = score
            best_heads[:] = heads
        state[_LOWER] = max(state[_LOWER], score)
        state[_BOUND] = min(state[_BOUND], value)
        if value < state[_SMALLEST]:
            state[_SMALLEST] = value
            node_heads[:] = heads
            _fill_gaps(heads, fh, fm, size, phi, active, p, q, gaps, side)
        previous = state[_PREVIOUS]
        if _certified(state[_BOUND], rounding, grid) <= state[_BEST] or 0.0 <= previous - value <= epsilon:
            return -iteration
        if value > previous:
            state[_INCREASES] += 1.0
            state[_STEP] = state[_INITIAL] / (1.0 + state[_INCREASES])
        state[_PREVIOUS] = value
        step = state[_STEP]
        for c in range(factors):
            if not active[c]:
                continue
            count = 0
            for j in range(size[c]):
                chosen[j] = heads[fm[c, j]] == fh[c, j]
                count += chosen[j]
            if phi[c] >= 0.0:
                if 0 < count < size[c]:  # otherwise the step moves every entry alike: projection undoes it
                    for j in range(size[c]):
                        if chosen[j]:
                            p[c, j] -= step * gain[c]
                    _project_in_place(p[c], size[c], buffer)
            else:
                sigma = gain[c] * (count - (size[c] - 1))
                q[c] = min(max(q[c] - step * sigma, 0.0), 1.0)
    return iterations


@numba.njit(cache=True, nogil=True)
def _adjusted(node_arc, fh, fm, size, phi, active, p, q):
    """``psi(p, .)`` as arc scores plus a constant: the node's arcs with every active factor's terms added."""
    arc = node_arc.copy()
    constant = 0.0
    for c in range(phi.shape[0]):
        if not active[c]:
            continue
        if phi[c] >= 0.0:
            for j in range(size[c]):
                arc[fh[c, j], fm[c, j]] += phi[c] * p[c, j]
        else:
            weight = q[c] * phi[c]
            for j in range(size[c]):
                arc[fh[c, j], fm[c, j]] += weight
            constant -= weight * (size[c] - 1)
    return arc, constant


@numba.njit(cache=True, nogil=True)
def _eliminate(node_arc, sib, inner, outer, fh, fm, size, phi, active, p, q, rounding, grid, best) -> int:
    """Reduced-cost fixing: with the node's final ``(p, q)``, ``psi(p, .)``'s best tree through an arc bounds
    every tree of the node that uses it; arcs whose certified bound cannot beat ``best`` are excluded from the
    node (``-inf``) and the factors using them deactivated. Returns the number of arcs excluded."""
    arc, constant = _adjusted(node_arc, fh, fm, size, phi, active, p, q)
    side = arc.shape[0]
    if sib.shape[0] == 0:
        sib = inner = outer = np.zeros((side, side, side))
    marginal = _second_order_max_marginals(arc, sib, inner, outer)
    excluded = 0
    for h in range(side):
        for m in range(1, side):
            if node_arc[h, m] != -np.inf and _certified(marginal[h, m] + constant, rounding, grid) <= best:
                node_arc[h, m] = -np.inf
                excluded += 1
    if excluded:
        for c in range(phi.shape[0]):
            if active[c]:
                for j in range(size[c]):
                    if node_arc[fh[c, j], fm[c, j]] == -np.inf:
                        active[c] = False
                        break
    return excluded


@numba.njit(cache=True, nogil=True)
def _fill_gaps(heads, fh, fm, size, phi, active, p, q, gaps, side) -> None:
    """Per arc (flat id), the summed gaps ``bound - score`` of the active factors containing it at ``(p, z)``."""
    gaps[:] = 0.0
    for c in range(phi.shape[0]):
        if not active[c]:
            continue
        count = 0
        bound = 0.0
        for j in range(size[c]):
            if heads[fm[c, j]] == fh[c, j]:
                count += 1
                bound += phi[c] * p[c, j]
        if phi[c] < 0.0:
            bound = q[c] * phi[c] * (count - (size[c] - 1))
        gap = bound - (phi[c] if count == size[c] else 0.0)
        for j in range(size[c]):
            gaps[fh[c, j] * side + fm[c, j]] += gap


class _Problem:
    """One sentence's B&B state shared by the nodes: backbone, factors, flat arc ids, bounds, counters."""

    def __init__(self, backbone: Backbone, factors: Factors, grid: float | None, step_rule: str):
        self.backbone = backbone
        self.factors = factors
        self.n = backbone.n
        self.side = self.n + 1
        self.valid = factors.valid()
        self.edge = np.where(self.valid, factors.heads * self.side + factors.mods, 0)
        self.positive = factors.score >= 0
        self.grid = grid
        self.calls = 0
        self.best_heads = np.full(self.side, -1, dtype=np.int64)
        self.best = -math.inf
        scale = backbone.magnitude() + float(np.abs(factors.score).sum()) * max(factors.width, 1)
        # a DP value sums at most 4 parts per word and one term per factor arc, each rounded once
        terms = 4 * self.n + int(self.valid.sum()) + 2
        self.rounding = 2.0 * terms * _UNIT * scale
        # the subgradient of psi in p_c is phi_c per chosen arc; "normalized" divides it by |phi_c| (a fixed
        # diagonal preconditioner), so that every factor's p moves on the same scale
        self.gain = np.sign(factors.score) if step_rule == "normalized" else factors.score

    def offer(self, heads: np.ndarray) -> float:
        """Score a tree exactly (backbone + fired factors) and keep it if it is the best so far."""
        value = self.backbone.score(heads) + self.factors.total(heads)
        if value > self.best:
            self.best, self.best_heads = value, heads.copy()
        return value

    def certified(self, bound: float) -> float:
        """A bound no rounding can have pushed below the true one, rounded down to the grid if any."""
        return _certified(bound, self.rounding, self.grid or 0.0)

    def solve(self, arc: np.ndarray) -> tuple[np.ndarray, float]:
        self.calls += 1
        return self.backbone.solve(arc)


@dataclass
class _Node:
    arc: np.ndarray  # backbone arcs with the node's fixed arcs applied (-inf for excluded ones)
    active: np.ndarray  # factors that can still fire (none of their arcs excluded)
    p: np.ndarray
    q: np.ndarray
    bound: float = math.inf
    lower: float = -math.inf
    heads: np.ndarray | None = None
    gaps: np.ndarray | None = None


#: Both follow Rush et al. (2010)'s schedule, alpha_0 / (1 + t), t the number of times the bound got worse.
#: "paper": section 4.4, the subgradient itself from alpha_0 = max_c 1 / |phi_c|; "normalized": the subgradient
#: divided by |phi_c| per factor (every p_c moves on the simplex's own scale) from alpha_0 = 1.
STEP_RULES = ("paper", "normalized")

#: subgradient steps per kernel call between two looks at the deadline
_CHUNK = 16


def _bound_node(
    problem: _Problem,
    node: _Node,
    *,
    epsilon: float,
    max_iterations: int,
    step: float,
    deadline: float | None,
) -> int:
    """Projected subgradient on ``min_p max_z psi(p, z)`` at one node; returns the iterations done.

    ``node.bound`` only decreases (every ``psi(p, .)`` maximum bounds the node's trees, and so does the parent's
    bound it starts from); ``node.heads``/``node.gaps`` describe the iteration with the smallest value."""
    factors = problem.factors
    node.p, node.q = node.p.copy(), node.q.copy()  # a child's own copies of the parent's, which it shared
    state = np.array([node.bound, node.lower, problem.best, step, math.inf, math.inf, step, 0.0])
    heads = np.full(problem.side, -1, dtype=np.int64)
    gaps = np.zeros(problem.side * problem.side)
    best_heads = problem.best_heads.copy()
    done = 0
    while done < max_iterations:
        calls = _subgradient(
            node.arc, problem.backbone.arc, *problem.backbone.parts, factors.heads, factors.mods, factors.size,
            factors.score, problem.gain, node.active, node.p, node.q, state, best_heads, heads, gaps, problem.rounding,
            problem.grid or 0.0, epsilon, min(_CHUNK, max_iterations - done),
        )  # fmt: skip
        done += abs(calls)
        if calls < 0 or (deadline is not None and time.perf_counter() > deadline):
            break
    problem.calls += done
    if state[_BEST] > problem.best:
        problem.best, problem.best_heads = float(state[_BEST]), best_heads
    node.bound, node.lower = float(state[_BOUND]), float(state[_LOWER])
    if node.bound == -math.inf:
        node.heads = None
    elif state[_SMALLEST] < math.inf:
        node.heads, node.gaps = heads, gaps
    return done


def _initial_lower_bound(problem: _Problem, alternations: int) -> None:
    """Section 3.4: maximise the lower-bound function pi(p, z) by alternating a DP call (p fixed) and the best p
    for the tree found; every tree met is scored exactly."""
    factors = problem.factors
    if not len(factors):
        return
    phi = factors.score
    # start: positive factors count fully when all their arcs are chosen (p1 = 1), negative ones not at all
    weight = np.where(problem.positive, 1.0, 0.0)
    for _ in range(alternations):
        per_arc = np.where(problem.positive, weight * phi, 0.0)
        contribution = np.where(problem.valid, per_arc[:, None], 0.0)
        extra = np.bincount(
            problem.edge.ravel(), weights=contribution.ravel(), minlength=problem.side * problem.side
        ).reshape(problem.side, problem.side)
        heads, value = problem.solve(problem.backbone.arc + extra)
        if value == -math.inf:
            return
        problem.offer(heads)
        chosen = (heads[factors.mods] == factors.heads) & problem.valid
        sigma = phi * (chosen.sum(axis=1) - (factors.size - 1))
        new_weight = np.where(problem.positive & (sigma > 0), 1.0, 0.0)
        if np.array_equal(new_weight, weight):
            return
        weight = new_weight


def branch_and_bound(
    backbone: Backbone,
    factors: Factors,
    *,
    epsilon: float = 1e-8,
    max_iterations: int = 100,
    max_nodes: int = 100_000,
    max_open_bytes: int | None = 1 << 29,
    grid: float | None = None,
    deadline: float | None = None,
    lower_bound_alternations: int = 3,
    step_rule: str = "normalized",
    fixing: bool = True,
    incumbent: np.ndarray | None = None,
) -> Result:
    """Algorithm 1: the best tree under backbone + factors; ``optimal`` when no open node's certified bound
    exceeds its exact score. Stopped early (``deadline``: ``time_limit_stop`` in the stats; ``max_nodes``; or a
    next level whose nodes' arrays would exceed ``max_open_bytes``: ``memory_stop``), the bound is the largest of
    the open nodes' (an unexplored child keeps its parent's). No tree at all (every one uses a ``-inf`` arc): objective
    and bound ``-inf``, certified. ``incumbent``: a tree (head array) known beforehand, kept as the first best
    tree, so that nodes that cannot reach its score are pruned from the start; a tree met that scores at least as
    much replaces it (ties go against the incumbent). Training passes the gold tree: the search returns gold
    only when no other tree is found that scores as much, so that zero weights still give an update.

    A deadline that passes before any tree was met still gets one DP call on the backbone, so that the result is
    a tree (``feasible``) or, when even that call finds none, certified infeasible; ``heads`` is None (status
    ``timeout``) only if no tree was found while one may exist. Checked at entry (ValueError naming the
    argument): the backbone and factors (:class:`Backbone`, :class:`Factors`, the factors' arcs against the
    sentence), the limits (``max_iterations``, ``max_nodes`` and ``max_open_bytes`` integers >= 1,
    ``lower_bound_alternations`` >= 0), ``epsilon`` finite >= 0, ``deadline`` (:func:`decoders.checks.check_deadline`: a number, not NaN; ``+inf`` is
    none), and with ``grid`` (> 0) the
    exact range the grid certificate needs: every score a multiple of ``grid`` and ``backbone.magnitude() +
    sum_c |phi_c| < 2^53 grid``, a bound on every partial sum of a tree's score (each word's largest part scores
    plus every factor's), so that tree scores are exact."""
    checked = _checked_arguments(
        backbone, factors, epsilon=epsilon, max_iterations=max_iterations, max_nodes=max_nodes,
        max_open_bytes=max_open_bytes, grid=grid, deadline=deadline,
        lower_bound_alternations=lower_bound_alternations, step_rule=step_rule, fixing=fixing,
    )  # fmt: skip
    epsilon, max_iterations, max_nodes, max_open_bytes, grid, deadline, lower_bound_alternations = checked
    problem = _Problem(backbone, factors, grid, step_rule)
    incumbent = _checked_incumbent(incumbent, problem.side)
    if problem.n == 0:
        return _empty_sentence_result()
    incumbent_value = -math.inf if incumbent is None else _offer_incumbent(problem, incumbent)
    _initial_lower_bound(problem, lower_bound_alternations)
    open_nodes, counts = _search_levels(
        problem,
        _root_node(problem),
        epsilon=epsilon,
        max_iterations=max_iterations,
        max_nodes=max_nodes,
        max_open_bytes=max_open_bytes,
        deadline=deadline,
        step=_first_step(factors, step_rule),
        fixing=fixing,
    )
    return _search_result(problem, open_nodes, counts, incumbent, incumbent_value)


def _checked_arguments(
    backbone: Backbone,
    factors: Factors,
    *,
    epsilon: float,
    max_iterations: int,
    max_nodes: int,
    max_open_bytes: int | None,
    grid: float | None,
    deadline: float | None,
    lower_bound_alternations: int,
    step_rule: str,
    fixing: bool,
) -> tuple[float, int, int, int | None, float | None, float | None, int]:
    """branch_and_bound's entry checks (ValueError naming the argument); returns the checked limits."""
    if not isinstance(backbone, Backbone):
        raise ValueError(f"backbone must be a Backbone, got {type(backbone).__name__}")
    if not isinstance(factors, Factors):
        raise ValueError(f"factors must be Factors, got {type(factors).__name__}")
    factors.check(backbone.n)
    if not isinstance(step_rule, str) or step_rule not in STEP_RULES:
        raise ValueError(f"unknown step_rule {step_rule!r}; known: {list(STEP_RULES)}")
    epsilon = check_float(epsilon, "epsilon", minimum=0.0)
    max_iterations = check_int(max_iterations, "max_iterations", minimum=1)
    max_nodes = check_int(max_nodes, "max_nodes", minimum=1)
    lower_bound_alternations = check_int(lower_bound_alternations, "lower_bound_alternations", minimum=0)
    if max_open_bytes is not None:
        max_open_bytes = check_int(max_open_bytes, "max_open_bytes", minimum=1)
    deadline = check_deadline(deadline)
    if not isinstance(fixing, bool):
        raise ValueError(f"fixing must be True or False, got {fixing!r}")
    if grid is not None:
        grid = check_float(grid, "grid", positive=True)
        _check_grid(backbone, factors, grid)
    return epsilon, max_iterations, max_nodes, max_open_bytes, grid, deadline, lower_bound_alternations


def _checked_incumbent(incumbent: np.ndarray | None, side: int) -> np.ndarray | None:
    """The incumbent as int64 heads; ValueError unless it is a single-rooted projective tree."""
    if incumbent is None:
        return None
    incumbent = check_ids(incumbent, "incumbent")
    error = f"shape {incumbent.shape}, not ({side},)" if incumbent.shape != (side,) else tree_error(incumbent)
    if error is None and not is_projective(incumbent):
        error = "not projective"
    if error is not None:
        raise ValueError(f"the incumbent is not a single-rooted projective tree: {error}")
    return incumbent


def _empty_sentence_result() -> Result:
    """The result for a sentence without words: the root alone, certified, no search."""
    stats = {"dp_calls": 0, "nodes": 0, "subgradient_iterations": 0, "depth": 0}
    return Result(
        np.full(1, -1, dtype=np.int64),
        0.0,
        0.0,
        True,
        {**stats, "fixing_passes": 0, "arcs_fixed_out": 0, "memory_stop": 0, "time_limit_stop": 0},
    )


def _offer_incumbent(problem: _Problem, incumbent: np.ndarray) -> float:
    """Keep the incumbent as the best tree, just below its score so that a tie replaces it; its score."""
    incumbent_value = problem.offer(incumbent)
    if problem.best == incumbent_value > -math.inf:
        # a tree that ties with the incumbent still replaces it when met: just below its score on the grid
        problem.best = (
            incumbent_value - problem.grid / 2 if problem.grid else math.nextafter(incumbent_value, -math.inf)
        )
    return incumbent_value


def _first_step(factors: Factors, step_rule: str) -> float:
    """The subgradient's first step alpha_0: the paper's max_c 1 / |phi_c|, or 1 (normalised rule)."""
    nonzero = np.abs(factors.score[factors.score != 0])
    # the paper's 1 / min |phi|, kept finite for subnormal scores and so that step * |phi| cannot overflow (any p
    # in the simplex gives a valid bound; the step only steers the search)
    return (
        min(1.0 / max(float(nonzero.min()), 1e-300), 1e300 / max(float(nonzero.max()), 1.0))
        if len(nonzero) and step_rule == "paper"
        else 1.0
    )


def _root_node(problem: _Problem) -> _Node:
    """The root node: no arc fixed, every factor active, p uniform over each factor's arcs, q = 0."""
    factors = problem.factors
    p0 = np.where(problem.valid, 1.0 / np.maximum(factors.size, 1)[:, None], 0.0)
    return _Node(problem.backbone.arc.copy(), np.ones(len(factors), dtype=bool), p0, np.zeros(len(factors)))


def _search_levels(
    problem: _Problem,
    root: _Node,
    *,
    epsilon: float,
    max_iterations: int,
    max_nodes: int,
    max_open_bytes: int | None,
    deadline: float | None,
    step: float,
    fixing: bool,
) -> tuple[list[_Node], dict[str, int]]:
    """Algorithm 1's loop, level by level from ``root``; returns the nodes left open and the counts."""
    backbone = problem.backbone
    level = [root]
    fixed = np.zeros(problem.side * problem.side, dtype=bool)
    nodes = iterations = depth = fixed_out = passes = memory_stop = time_limit_stop = 0
    open_nodes: list[_Node] = []
    while level:
        survivors: list[_Node] = []
        for index, node in enumerate(level):
            late = deadline is not None and time.perf_counter() > deadline
            if nodes >= max_nodes or late:
                open_nodes, time_limit_stop = survivors + level[index:], int(late)
                if problem.best == -math.inf:  # stopped before any tree: the backbone's best is one at hand
                    heads, value = problem.solve(backbone.arc)
                    if value == -math.inf:
                        open_nodes = []  # no tree avoids the forbidden arcs: certified infeasible
                    else:
                        problem.offer(heads)
                break
            nodes += 1
            iterations += _bound_node(
                problem,
                node,
                epsilon=epsilon,
                max_iterations=max_iterations,
                step=step,
                deadline=deadline,
            )
            if fixing and node.heads is not None and problem.certified(node.bound) > problem.best:
                f = problem.factors
                fixed_out += _eliminate(
                    node.arc, *backbone.parts, f.heads, f.mods, f.size, f.score, node.active, node.p, node.q,
                    problem.rounding, problem.grid or 0.0, problem.best,
                )  # fmt: skip
                passes += 1
            survivors.append(node)
        if open_nodes:
            break
        survivors = [node for node in survivors if _open(problem, node, fixed)]
        if not survivors:
            break
        if deadline is not None and time.perf_counter() > deadline:
            open_nodes, time_limit_stop = survivors, 1
            break
        if max_open_bytes is not None and 2 * len(survivors) * _node_bytes(survivors[0]) > max_open_bytes:
            open_nodes, memory_stop = survivors, 1
            break
        edge = _branching_arc(survivors, fixed)
        fixed[edge] = True
        depth += 1
        level = [child for node in survivors for child in _children(problem, node, edge)]
    counts = {
        "nodes": nodes,
        "subgradient_iterations": iterations,
        "depth": depth,
        "fixing_passes": passes,
        "arcs_fixed_out": fixed_out,
        "memory_stop": memory_stop,
        "time_limit_stop": time_limit_stop,
    }
    return open_nodes, counts


def _search_result(
    problem: _Problem,
    open_nodes: list[_Node],
    counts: dict[str, int],
    incumbent: np.ndarray | None,
    incumbent_value: float,
) -> Result:
    """The Result: best tree, exact objective, largest bound of the open nodes that may beat it, stats."""
    open_nodes = [node for node in open_nodes if problem.certified(node.bound) > problem.best]
    objective = problem.best
    if incumbent is not None and np.array_equal(problem.best_heads, incumbent):
        objective = incumbent_value
    bound = max((node.bound for node in open_nodes), default=objective)
    optimal = not open_nodes
    stats = {"dp_calls": problem.calls, **counts}
    heads = problem.best_heads if optimal or problem.best > -math.inf else None
    return Result(heads, objective, max(bound, objective), optimal, stats)


def _check_grid(backbone: Backbone, factors: Factors, grid: float) -> None:
    """ValueError unless every score is a multiple of ``grid`` and every partial sum of a tree's score stays
    below ``2^53`` grid units (where doubles hold every multiple of the grid exactly)."""
    for name, values in (
        ("backbone.arc", backbone.arc),
        ("backbone.sib", backbone.sib),
        ("backbone.inner", backbone.inner),
        ("backbone.outer", backbone.outer),
        ("factors.score", factors.score),
    ):
        if values is None:
            continue
        units = np.where(np.isfinite(values), values / grid, 0.0)
        off = units != np.rint(units)
        if off.any():
            where = ", ".join(str(int(i)) for i in np.argwhere(off)[0])
            raise ValueError(
                f"{name}[{where}] is {values[tuple(np.argwhere(off)[0])]!r}, not a multiple of grid {grid!r}: the "
                "grid certificate rounds bounds down to multiples of it"
            )
    magnitude = (backbone.magnitude() + float(np.abs(factors.score).sum())) / grid
    if not magnitude < 2.0**53:
        raise ValueError(
            f"backbone and factors: a tree's score can reach {magnitude:.4g} grid units, past 2^53, where sums of "
            "scores are no longer exact; lower the weights or decode without a grid"
        )


def _node_bytes(node: _Node) -> int:
    """The memory a bounded node holds (its arrays)."""
    arrays = (node.arc, node.active, node.p, node.q, node.gaps, node.heads)
    return sum(array.nbytes for array in arrays if array is not None)


def _open(problem: _Problem, node: _Node, fixed: np.ndarray) -> bool:
    """Whether a bounded node may still hold a better tree than the best found: its certified bound exceeds
    the best score, and its subspace is more than its own tree (a tree whose arcs are all fixed in is the only
    one left there, and it was scored exactly)."""
    if node.heads is None or problem.certified(node.bound) <= problem.best:
        return False
    tree = node.heads[1:] * problem.side + np.arange(1, problem.side)
    return not bool(fixed[tree].all())


def _branching_arc(survivors: list[_Node], fixed: np.ndarray) -> int:
    """The free arc of largest gap proposed by the open node with the highest lower bound (a free arc of its
    tree, or any free arc the node still allows, when no free arc has a positive gap)."""
    node = max(survivors, key=lambda node: node.lower)
    free = ~fixed & np.isfinite(node.arc).ravel()
    gaps = np.where(free, node.gaps, -np.inf)
    edge = int(np.argmax(gaps))
    if gaps[edge] > 0:
        return edge
    side = len(node.heads)
    tree = node.heads[1:] * side + np.arange(1, side)
    candidates = np.concatenate([tree[free[tree]], np.flatnonzero(free), np.flatnonzero(~fixed)])
    return int(candidates[0])


def _children(problem: _Problem, node: _Node, edge: int) -> list[_Node]:
    """The two children of ``node``: arc ``edge`` in the tree, and out of it; each starts from node's p (shared
    until it is bounded)."""
    h, m = divmod(edge, problem.side)
    with_arc = node.arc.copy()
    keep = with_arc[h, m]
    with_arc[:, m] = -np.inf
    with_arc[h, m] = keep
    without = node.arc.copy()
    without[h, m] = -np.inf
    factors = problem.factors
    uses = np.any((problem.edge == edge) & problem.valid, axis=1)
    excluded_m = np.any((factors.mods == m) & (factors.heads != h) & problem.valid, axis=1)
    return [
        _Node(with_arc, node.active & ~excluded_m, node.p, node.q, bound=node.bound),
        _Node(without, node.active & ~uses, node.p, node.q, bound=node.bound),
    ]
