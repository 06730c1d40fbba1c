"""An exact solver for the B&B model that shares nothing with branch and bound: the whole factor model as one
CP-SAT integer program over projective trees, for the exactness audit of issue 14.

Variables: ``z[h, m]`` per allowed arc; one head per word, one modifier of the root; a depth per word with
``z[h, m] => depth[m] = depth[h] + 1`` (no cycles); no two chosen arcs cross (projectivity, the root's arc
included). Every second-order part with a non-zero score gets an indicator equal to the conjunction that
defines it (:mod:`decoders.parsing.second_order`): the arc, the sibling's or grandchild's arc, and no other
modifier in the way; every non-local factor an indicator equal to the conjunction of its arcs. Scores are the
model's integer weight numerators, so CP-SAT's integer objective is the model's score exactly and ``OPTIMAL``
is a certificate of its own. The model has O(n^3) indicators and O(n^4) non-crossing pairs in the worst case:
meant for the sentences it can finish within a time limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from decoders.bnb.search import Backbone, Factors
from decoders.checks import check_ids, check_int, check_range
from decoders.parsing.eisner import _eisner

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


@dataclass(frozen=True)
class AuditResult:
    heads: np.ndarray | None
    objective: float
    bound: float
    status: str  # optimal | timeout | infeasible
    stats: dict


def _integers(values: np.ndarray, what: str, forbidden: bool = False) -> np.ndarray:
    """Integer copies of scores (``-inf`` kept out as 0 where ``forbidden`` allows it, e.g. forbidden arcs)."""
    finite = np.isfinite(values)
    if not forbidden and not finite.all() or (values == np.inf).any() or np.isnan(values).any():
        raise ValueError(f"{what}: the audit needs finite scores (-inf only for forbidden arcs)")
    rounded = np.rint(np.where(finite, values, 0.0))
    if not np.array_equal(rounded[finite], values[finite]) or (np.abs(rounded) >= 2.0**52).any():
        raise ValueError(f"{what}: the audit needs integer scores below 2^52 (the model's weight numerators)")
    return rounded.astype(np.int64)


def crossing_pairs(arcs: np.ndarray) -> np.ndarray:
    """Index pairs (i, j), i < j, of arcs (rows (h, m) of positions >= 0) whose spans cross."""
    arcs = check_ids(arcs, "arcs", ndim=2)
    if arcs.shape[1] != 2:
        raise ValueError(f"arcs must have shape (k, 2), got {arcs.shape}")
    check_range(arcs, "arcs", 0, np.iinfo(np.int64).max)
    lo, hi = np.minimum(arcs[:, 0], arcs[:, 1]), np.maximum(arcs[:, 0], arcs[:, 1])
    a_lo, b_lo = lo[:, None], lo[None, :]
    a_hi, b_hi = hi[:, None], hi[None, :]
    cross = ((a_lo < b_lo) & (b_lo < a_hi) & (a_hi < b_hi)) | ((b_lo < a_lo) & (a_lo < b_hi) & (b_hi < a_hi))
    i, j = np.nonzero(np.triu(cross, 1))
    return np.stack([i, j], axis=1)


def solve_exact(backbone: Backbone, factors: Factors, *, time_limit: float, workers: int = 1) -> AuditResult:
    """The best projective tree under the second-order backbone plus factors, by CP-SAT. ``time_limit`` in
    seconds (> 0), ``workers`` >= 1; the factors' arcs must be the sentence's (ValueError otherwise: a factor over
    a position outside it would silently never fire)."""
    from ortools.sat.python import cp_model

    _check_audit_arguments(backbone, factors, time_limit, workers)
    n = backbone.n
    arc = _integers(backbone.arc, "arc", forbidden=True)
    allowed = np.isfinite(backbone.arc)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    sib, inner, outer = (_integers(a, name) for a, name in ((backbone.sib, "sib"), (backbone.inner, "inner"),
                                                             (backbone.outer, "outer")))  # fmt: skip
    model = cp_model.CpModel()
    z, depth, pairs = _tree_variables(model, allowed, n)
    terms: list[tuple[cp_model.IntVar, int]] = [(var, int(arc[h, m])) for (h, m), var in z.items()]
    _add_part_indicators(model, terms, z, sib, inner, outer, n)
    dropped = _add_factor_indicators(model, terms, z, factors)
    model.maximize(sum(score * var for var, score in terms))
    _hint_arc_tree(model, z, depth, arc, allowed, n)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.linearization_level = 2
    solver.parameters.max_time_in_seconds = max(time_limit, 1e-3)
    code = solver.solve(model)
    stats = {
        "arcs": len(z),
        "crossing_pairs": len(pairs),
        "indicators": len(terms) - len(z),
        "factors_dropped": dropped,
        "solver_status": solver.status_name(code),
        "solver_seconds": solver.wall_time,
    }
    return _read_answer(solver, code, z, n, stats)


def _check_audit_arguments(backbone: Backbone, factors: Factors, time_limit: float, workers: int) -> None:
    """solve_exact's entry checks (ValueError): a second-order Backbone, its Factors, the limits."""
    if not isinstance(backbone, Backbone):
        raise ValueError(f"backbone must be a Backbone; got {type(backbone).__name__}")
    if not isinstance(factors, Factors):
        raise ValueError(f"factors must be Factors; got {type(factors).__name__}")
    factors.check(backbone.n)
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or math.isnan(time_limit):
        raise ValueError(f"time_limit must be a number of seconds, got {time_limit!r}")
    if time_limit <= 0:
        raise ValueError(f"time_limit must be > 0 seconds (+inf: none), got {time_limit!r}")
    check_int(workers, "workers", minimum=1)
    if backbone.sib is None:
        raise ValueError("the audit needs the second-order backbone")


def _tree_variables(model: cp_model.CpModel, allowed: np.ndarray, n: int) -> tuple[dict, list, np.ndarray]:
    """Arc variables z, one head per word, one root modifier, depths against cycles, no crossing."""
    z = {(int(h), int(m)): model.new_bool_var(f"z{h}_{m}") for h, m in zip(*np.nonzero(allowed), strict=True)}
    for m in range(1, n + 1):
        model.add_exactly_one([z[h, m] for h in range(n + 1) if (h, m) in z])
    model.add_exactly_one([z[0, m] for m in range(1, n + 1) if (0, m) in z])
    depth = [model.new_constant(0)] + [model.new_int_var(1, n, f"d{m}") for m in range(1, n + 1)]
    for (h, m), var in z.items():
        model.add(depth[m] == depth[h] + 1).only_enforce_if(var)
    keys = list(z)
    pairs = crossing_pairs(np.array(keys, dtype=np.int64).reshape(-1, 2))
    for i, j in pairs:
        model.add_bool_or([z[keys[i]].Not(), z[keys[j]].Not()])
    return z, depth, pairs


def _add_conjunction(
    model: cp_model.CpModel, terms: list, name: str, positive: list, negative: list, score: int
) -> None:
    """An indicator of all ``positive`` true and all ``negative`` false, scoring ``score`` (0: none)."""
    if score == 0:
        return
    literals = [*positive, *(var.Not() for var in negative)]
    y = model.new_bool_var(name)
    # maximising, a gain needs only y => conjunction and a cost only conjunction => y (half reification)
    if score > 0:
        model.add_bool_and(literals).only_enforce_if(y)
    else:
        model.add_bool_or([*(literal.Not() for literal in literals), y])
    terms.append((y, score))


def _modifiers(z: dict, head: int, positions) -> list:
    """The arc variables from ``head`` to those of ``positions`` it may take as modifiers."""
    return [z[head, j] for j in positions if (head, j) in z]


def _add_part_indicators(
    model: cp_model.CpModel,
    terms: list,
    z: dict,
    sib: np.ndarray,
    inner: np.ndarray,
    outer: np.ndarray,
    n: int,
) -> None:
    """An indicator per second-order part of non-zero score: its arcs, no other modifier between."""
    for (h, m), var in z.items():
        step = 1 if m > h else -1
        # adjacent inner sibling s (s = h: m is h's first modifier on that side)
        for s in range(h, m, step):
            if s != h and (h, s) not in z:
                continue
            between = _modifiers(z, h, range(s + step, m, step))
            positive = [var] if s == h else [var, z[h, s]]
            _add_conjunction(model, terms, f"sib{h}_{m}_{s}", positive, between, int(sib[h, m, s]))
        # inner grandchild c: m's modifier between h and m furthest from m (c = m: none)
        _add_conjunction(
            model, terms, f"in{h}_{m}", [var], _modifiers(z, m, range(h + step, m, step)), int(inner[h, m, m])
        )
        for c in range(h + step, m, step):
            if (m, c) in z:
                _add_conjunction(
                    model,
                    terms,
                    f"in{h}_{m}_{c}",
                    [var, z[m, c]],
                    _modifiers(z, m, range(h + step, c, step)),
                    int(inner[h, m, c]),
                )
        # outer grandchild c: m's modifier beyond m furthest from m (c = m: none)
        end = n + 1 if step == 1 else 0
        _add_conjunction(
            model,
            terms,
            f"out{h}_{m}",
            [var],
            _modifiers(z, m, range(m + step, end, step)),
            int(outer[h, m, m]),
        )
        for c in range(m + step, end, step):
            if (m, c) in z:
                _add_conjunction(
                    model,
                    terms,
                    f"out{h}_{m}_{c}",
                    [var, z[m, c]],
                    _modifiers(z, m, range(c + step, end, step)),
                    int(outer[h, m, c]),
                )


def _add_factor_indicators(model: cp_model.CpModel, terms: list, z: dict, factors: Factors) -> int:
    """An indicator per factor (the conjunction of its arcs); returns those over a forbidden arc."""
    scores = _integers(factors.score, "factors")
    valid = factors.valid()
    dropped = 0
    for f in range(len(factors)):
        arcs = [
            (int(h), int(m))
            for h, m in zip(factors.heads[f][valid[f]], factors.mods[f][valid[f]], strict=True)
        ]
        if all(a in z for a in arcs):
            _add_conjunction(model, terms, f"f{f}", [z[a] for a in arcs], [], int(scores[f]))
        else:
            dropped += 1  # a factor over a forbidden arc can never fire
    return dropped


def _hint_arc_tree(
    model: cp_model.CpModel, z: dict, depth: list, arc: np.ndarray, allowed: np.ndarray, n: int
) -> None:
    """Hint CP-SAT with the best projective tree under the arc scores alone."""
    # a first incumbent (without it CP-SAT may not find any tree within seconds); only a hint, the optimum and its
    # proof are CP-SAT's own
    start = _eisner(np.where(allowed, arc.astype(float), -np.inf))[0]
    if n and (start[1:] >= 0).all() and allowed[start[1:], np.arange(1, n + 1)].all():  # else: no tree at all
        levels = _depths(start)
        for (h, m), var in z.items():
            model.add_hint(var, bool(start[m] == h))
        for m in range(1, n + 1):
            model.add_hint(depth[m], int(levels[m]))


def _read_answer(solver: cp_model.CpSolver, code: int, z: dict, n: int, stats: dict) -> AuditResult:
    """The AuditResult of CP-SAT's answer: tree, objective, bound, ``optimal`` only when proved."""
    from ortools.sat.python import cp_model

    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        status = "infeasible" if code == cp_model.INFEASIBLE else "timeout"
        bound = _solver_bound(solver) if code == cp_model.UNKNOWN else math.nan
        return AuditResult(None, math.nan, bound, status, stats)
    heads = np.full(n + 1, -1, dtype=np.int64)
    for (h, m), var in z.items():
        if solver.boolean_value(var):
            heads[m] = h
    if code == cp_model.OPTIMAL:
        return AuditResult(heads, _integral(solver.objective_value), _integral(solver.best_objective_bound),
                           "optimal", stats)  # fmt: skip
    objective = _integral(solver.objective_value)
    bound = _solver_bound(solver)
    return AuditResult(heads, objective, bound if bound >= objective else math.nan, "timeout", stats)


def _solver_bound(solver: cp_model.CpSolver) -> float:
    """CP-SAT's upper bound on the optimum when it stopped unproved, or NaN when it has none: stopped by its time
    limit during presolve (before the search loaded a variable) it reports the response's default 0.0, which
    bounds nothing (found here: a passed deadline gave every cp-sat timeout the bound 0 under optima in the
    thousands)."""
    if solver.response_proto.num_booleans == 0:
        return math.nan
    return _integral(solver.best_objective_bound)


def _depths(heads: np.ndarray) -> np.ndarray:
    """Each word's distance from the root in a tree (a full head array)."""
    depth = np.zeros(len(heads), dtype=np.int64)
    for m in range(1, len(heads)):
        j = m
        while j != 0 and depth[m] < len(heads):
            j, depth[m] = heads[j], depth[m] + 1
    return depth


def _integral(value: float) -> float:
    """CP-SAT's objective and bound of this integer program, as the integers they are: the solver reports them
    as doubles that can be off by a rounding error (-0.9999999999999998 for -1)."""
    return float(round(value)) if math.isfinite(value) else float(value)
