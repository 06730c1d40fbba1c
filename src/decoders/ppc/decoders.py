"""The ppc decoders, registered for the harness, with the UAS evaluation and the certificate check.

Every decoder takes a :class:`~decoders.ppc.instance.PPCInstance`, loads the instance's models once per process
and scores inside the timed call: first-order arcs (every arc: no pruning) and the grandparent parts it asks
for, counted (``parts_scored``). Scores are in the units of the models' weight numerators.

* ``mst``: first-order Chu-Liu-Edmonds with the first-order model (exact: ``optimal``, bound = objective);
* ``full-lp``: the brute-force LP (every arc and grandparent part) over ``polytope`` (Table 2), with the lean
  rows (the same optimum; :mod:`decoders.ppc.lp`) or, ``rows: paper``, every row as section 3.2 writes them;
  ``cycle_cuts: true`` adds the cycle inequalities the solution violates (an analysis, not the paper's LP);
* ``ppc``: parse, price and cut (Algorithm 1) on the polytope with all four constraint families;
* ``ppc-audit``: parse, price and cut, then its optimality conditions checked over every part (not timed as a
  decoder: the audit scores every part);
* ``ilp``: the best tree (integer program): parse, price and cut, then, only when its LP optimum is
  fractional, HiGHS's branch and bound on the full model;
* ``ad3-lp`` and ``ad3-exact``: the peer AD3 (:mod:`decoders.ppc.ad3`), its LP and its branch and bound.

The LP decoders report the LP objective and its certified bound (:mod:`decoders.ppc.lp`); ``structure`` is the
tree read from the solution (its arcs when integral, else the MST of the fractional arc values) and
``integral`` says which.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from decoders.checks import cached_by_path
from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, register
from decoders.parsing.features import arc_scores
from decoders.parsing.model import ParserModel
from decoders.parsing.mst import chu_liu_edmonds
from decoders.parsing.trees import enumerate_trees, structure_error, tree_error
from decoders.ppc.ad3 import solve as ad3_solve
from decoders.ppc.instance import PPCInstance
from decoders.ppc.lp import (
    POLYTOPES,
    ROW_SETS,
    STARTS,
    LPResult,
    audit,
    brute_force,
    integer_program,
    parse_price_cut,
)
from decoders.ppc.model import GrandparentParser, gold_parts

EXPERIMENT = "ppc"

#: Sentences up to this length are checked by enumerating every arborescence (MST records).
VERIFY_ENUMERATE = 6


@cached_by_path(maxsize=4)
def load_parser(path: str) -> GrandparentParser:
    return GrandparentParser.load(path)


@cached_by_path(maxsize=4)
def load_first_order(path: str) -> ParserModel:
    model = ParserModel.load(path)
    if model.structure.get("kind") != "mst":
        raise ConfigError(f"{path} is not a first-order MST model")
    return model


def _all_arcs(n: int) -> np.ndarray:
    allowed = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(allowed, False)
    allowed[:, 0] = False
    return allowed


def _first_order_scores(instance: PPCInstance) -> np.ndarray:
    model = load_first_order(instance.first_order)
    return arc_scores(instance.arc_tokens, model.numerator, _all_arcs(instance.n))


@register(EXPERIMENT, "mst")
def decode_mst(instance: PPCInstance, *, deadline: float | None = None) -> Solution:
    """First-order non-projective parsing: Chu-Liu-Edmonds over every arc."""
    heads, score = chu_liu_edmonds(_first_order_scores(instance))
    return Solution(heads[1:].tolist(), float(score), float(score), "optimal", {"words": instance.n})


def _lp_solution(instance: PPCInstance, result: LPResult, scored: int) -> Solution:
    stats = {"words": instance.n, **result.stats, "parts_scored": scored, "integral": bool(result.integral)}
    structure = None if result.heads is None or (result.heads[1:] < 0).any() else result.heads[1:].tolist()
    return Solution(structure, result.objective, result.bound, result.status, stats)


def _grandparent_problem(instance: PPCInstance):
    parser = load_parser(instance.model)
    arc = arc_scores(instance.arc_tokens, parser.arc_weights, _all_arcs(instance.n))
    return arc, parser.scores(instance.attributes)


@register(EXPERIMENT, "full-lp")
def decode_full_lp(
    instance: PPCInstance,
    *,
    deadline: float | None = None,
    polytope: str = "all",
    rows: str = "lean",
    cycle_cuts: bool = False,
) -> Solution:
    """Brute force: the LP over every arc and grandparent part (all scored), on ``polytope``, with the lean
    rows or the paper's (``rows``); ``cycle_cuts``: with every cycle inequality the solution violates added
    until none is (an analysis of fractional solutions, not the paper's LP)."""
    if not isinstance(polytope, str) or polytope not in POLYTOPES:
        raise ConfigError(f"polytope must be one of {list(POLYTOPES)}; got {polytope!r}")
    if not isinstance(rows, str) or rows not in ROW_SETS:
        raise ConfigError(f"rows must be one of {list(ROW_SETS)}; got {rows!r}")
    if not isinstance(cycle_cuts, bool):
        raise ConfigError(f"cycle_cuts must be true or false; got {cycle_cuts!r}")
    arc, scores = _grandparent_problem(instance)
    result = brute_force(arc, scores, polytope=polytope, rows=rows, cycle_cuts=cycle_cuts, deadline=deadline)
    return _lp_solution(instance, result, scores.scored)


def _pricing(
    tighten: bool,
    start: str,
    columns_per_word: float | None,
    rows: str = "paper",
    no_gp: bool = True,
    primal: bool = False,
) -> dict:
    """:func:`decoders.ppc.lp.parse_price_cut`'s options, checked as config values."""
    for name, flag in (("tighten", tighten), ("no_gp", no_gp), ("primal", primal)):
        if not isinstance(flag, bool):
            raise ConfigError(f"{name} must be true or false; got {flag!r}")
    if not isinstance(rows, str) or rows not in ROW_SETS:
        raise ConfigError(f"rows must be one of {list(ROW_SETS)}; got {rows!r}")
    if not isinstance(start, str) or start not in STARTS:
        raise ConfigError(f"start must be one of {list(STARTS)}; got {start!r}")
    if columns_per_word is not None and (
        isinstance(columns_per_word, bool)
        or not isinstance(columns_per_word, int | float)
        or not math.isfinite(columns_per_word)
        or columns_per_word <= 0
    ):
        raise ConfigError(f"columns_per_word must be a positive number or null; got {columns_per_word!r}")
    return {
        "tighten": tighten,
        "start": start,
        "columns_per_word": columns_per_word,
        "rows": rows,
        "no_gp": no_gp,
        "primal": primal,
    }


@register(EXPERIMENT, "ppc")
def decode_ppc(
    instance: PPCInstance,
    *,
    deadline: float | None = None,
    tighten: bool = True,
    start: str = "root",
    columns_per_word: float | None = None,
    rows: str = "paper",
    no_gp: bool = True,
    primal: bool = False,
) -> Solution:
    """Parse, price and cut: the full LP's optimum (all four constraint families), scoring only what pricing
    cannot rule out (``tighten``: section 4.3.3's dual tightening; ``start``, ``columns_per_word``, ``rows``,
    ``no_gp``, ``primal``: the first parts, partial pricing, row set and re-solves of
    :func:`decoders.ppc.lp.parse_price_cut`; the defaults are the paper's)."""
    options = _pricing(tighten, start, columns_per_word, rows, no_gp, primal)
    arc, scores = _grandparent_problem(instance)
    result = parse_price_cut(arc, scores, deadline=deadline, **options)
    return _lp_solution(instance, result, scores.scored)


@register(EXPERIMENT, "ilp")
def decode_ilp(
    instance: PPCInstance,
    *,
    deadline: float | None = None,
    tighten: bool = True,
    start: str = "root",
    columns_per_word: float | None = None,
    rows: str = "paper",
    no_gp: bool = True,
    primal: bool = False,
) -> Solution:
    """The grandparent model's best tree: the LP by parse, price and cut (its options as ``ppc``'s); the MIP
    when that is fractional."""
    options = _pricing(tighten, start, columns_per_word, rows, no_gp, primal)
    arc, scores = _grandparent_problem(instance)
    result = integer_program(arc, scores, deadline=deadline, **options)
    return _lp_solution(instance, result, scores.scored)


#: the audit passes when no part left out has a reduced cost above this times (1 + the largest |score|) and no
#: ArcGP row is violated by more than it (HiGHS's dual and primal tolerances are 1e-7, on scaled costs)
AUDIT_TOLERANCE = 1e-6


@register(EXPERIMENT, "ppc-audit")
def decode_ppc_audit(
    instance: PPCInstance,
    *,
    deadline: float | None = None,
    tighten: bool = True,
    start: str = "root",
    columns_per_word: float | None = None,
    rows: str = "paper",
    no_gp: bool = True,
    primal: bool = False,
) -> Solution:
    """Parse, price and cut (options as ``ppc``'s), then the audit of section 4's optimality conditions over
    every grandparent part, all scored (:func:`decoders.ppc.lp.audit`): the largest reduced cost of a part left
    out and the largest ArcGP violation, in ``stats``. ``optimal`` only when PPC certified its LP and the audit
    passed (:data:`AUDIT_TOLERANCE`); its seconds include the audit's scoring, so it is not a speed row."""
    options = _pricing(tighten, start, columns_per_word, rows, no_gp, primal)
    arc, scores = _grandparent_problem(instance)
    result = parse_price_cut(arc, scores, deadline=deadline, **options)
    scored = scores.scored
    checked = audit(arc, _grandparent_problem(instance)[1], result)
    tolerance = AUDIT_TOLERANCE * (1.0 + checked["largest_score"])
    passed = checked["max_reduced_cost"] <= tolerance and checked["max_arcgp_violation"] <= AUDIT_TOLERANCE
    solution = _lp_solution(instance, result, scored)
    solution.stats.update(
        audit_max_reduced_cost=checked["max_reduced_cost"],
        audit_max_arcgp_violation=checked["max_arcgp_violation"],
        audit_parts=checked["parts"],
        audit_tolerance=tolerance,
        audit_passed=bool(passed),
    )
    if solution.status == "optimal" and not passed:
        solution.status = "feasible"
    return solution


def _check_arguments(instance: Any, solution: Any = None) -> None:
    """ValueError naming ``instance`` unless it is a PPCInstance, and ``solution`` unless it is a Solution."""
    if not isinstance(instance, PPCInstance):
        raise ValueError(f"instance must be a PPCInstance; got {type(instance).__name__}")
    if solution is not None and not isinstance(solution, Solution):
        raise ValueError(f"solution must be a Solution; got {type(solution).__name__}")


def tree_score(instance: PPCInstance, heads: np.ndarray) -> float:
    """The grandparent model's exact score of a tree (full head array): its arcs plus its grandparent parts."""
    _check_arguments(instance)
    heads = np.asarray(heads)
    n = instance.n
    if heads.shape != (n + 1,) or heads.dtype.kind not in "iu":
        raise ValueError(
            f"heads must be a full integer head array of length {n + 1}; got {heads.dtype} {heads.shape}"
        )
    problem = tree_error(heads, single_root=False)
    if problem is not None:
        raise ValueError(f"heads: {problem}")
    arc, scores = _grandparent_problem(instance)
    total = float(arc[heads[1:], np.arange(1, n + 1)].sum())
    g, p, c = gold_parts(heads)
    return total + float(scores.score(g, p, c).sum())


def evaluate(instance: PPCInstance, solution: Solution) -> dict[str, int]:
    """Correct heads and scored words (UAS without punctuation)."""
    _check_arguments(instance, solution)
    if solution.structure is None or len(solution.structure) != instance.n:
        raise ValueError(f"solution.structure must hold {instance.n} heads")
    heads = np.asarray(solution.structure, dtype=np.int64)
    correct = int(np.count_nonzero((heads == instance.gold[1:]) & instance.scored))
    return {"correct": correct, "total": int(np.count_nonzero(instance.scored))}


def check_structure(instance: PPCInstance, structure: Any) -> str | None:
    """Why ``structure`` is not a parse of ``instance`` (None when it is): one integer head per word (0 the root),
    forming an arborescence (several root modifiers allowed, as in every decoder of this experiment). The harness
    applies it to every record with a structure (:func:`decoders.harness.protocol.get_structure_check`)."""
    _check_arguments(instance)
    return structure_error(structure, instance.n, single_root=False)[1]


def verify(instance: PPCInstance, solution: Solution) -> str | None:
    """The harness's certificate check of an ``optimal`` Solution: the structure is an arborescence; for
    ``mst`` records (no ``parts_added``) its first-order score is the objective and the bound, and no
    arborescence scores more (every one enumerated up to :data:`VERIFY_ENUMERATE` words, Chu-Liu-Edmonds's
    optimum beyond); for LP records the bound is not below the
    objective, and an integral solution's tree scores the objective (relative 1e-6: LP tolerances)."""
    _check_arguments(instance, solution)
    if solution.structure is None:
        return f"structure must hold {instance.n} heads"
    problem = check_structure(instance, solution.structure)
    if problem is not None:
        return problem
    heads = np.concatenate([[-1], np.asarray(solution.structure, dtype=np.int64)])
    objective, bound = solution.objective, solution.bound
    if "parts_added" not in solution.stats:
        scores = _first_order_scores(instance)
        score = float(scores[heads[1:], np.arange(1, instance.n + 1)].sum())
        if score != objective or bound != objective:
            return f"the tree scores {score!r}; objective {objective!r}, bound {bound!r}"
        if instance.n <= VERIFY_ENUMERATE:
            trees = enumerate_trees(instance.n, projective=False, single_root=False)
            others = scores[trees[:, 1:], np.arange(1, instance.n + 1)].sum(axis=1)
            if others.max() > score:
                best = trees[int(np.argmax(others))]
                return f"the tree {best[1:].tolist()} scores {float(others.max())!r} > {score!r}"
        else:  # longer: Chu-Liu-Edmonds's optimum (the `mst` decoder's own algorithm, exact; tested against
            # enumeration in tests/test_parsing_mst.py), so that no first-order claim goes unchecked
            best, best_score = chu_liu_edmonds(scores)
            if best_score > score + 1e-9 * (1.0 + abs(score)):
                return f"the tree {best[1:].tolist()} scores {float(best_score)!r} > {score!r}"
        return None
    tolerance = 1e-6 * (1.0 + abs(objective))
    if bound < objective - tolerance:
        return f"bound {bound!r} below the objective {objective!r}"
    if solution.stats.get("integral"):
        score = tree_score(instance, heads)
        if abs(score - objective) > tolerance:
            return f"the integral solution's tree scores {score!r}, not the objective {objective!r}"
    return None


def _ad3_options(
    max_iterations: int, tolerance: float, eta: float, normalize: bool = True, child: bool = False
) -> dict:
    """:func:`decoders.ppc.ad3.solve`'s options, checked as config values."""
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations < 1:
        raise ConfigError(f"max_iterations must be a positive integer; got {max_iterations!r}")
    for name, value in (("tolerance", tolerance), ("eta", eta)):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value <= 0
        ):
            raise ConfigError(f"{name} must be a positive number; got {value!r}")
    for name, flag in (("normalize", normalize), ("child", child)):
        if not isinstance(flag, bool):
            raise ConfigError(f"{name} must be true or false; got {flag!r}")
    return {
        "max_iterations": max_iterations,
        "tolerance": float(tolerance),
        "eta": float(eta),
        "normalize": normalize,
        "child": child,
    }


@register(EXPERIMENT, "ad3-lp")
def decode_ad3_lp(
    instance: PPCInstance,
    *,
    deadline: float | None = None,
    max_iterations: int = 1000,
    tolerance: float = 1e-6,
    eta: float = 0.1,
    normalize: bool = True,
    child: bool = False,
) -> Solution:
    """The peer AD3 (:mod:`decoders.ppc.ad3`): its LP (tree polytope plus a pair factor per part, the LP of
    ``full-lp`` with ``polytope: arcgp, cycle_cuts: true``), the bound recomputed from its duals; the factor
    graph's construction and the parts' scoring inside the call."""
    options = _ad3_options(max_iterations, tolerance, eta, normalize, child)
    arc, scores = _grandparent_problem(instance)
    result = ad3_solve(arc, scores, exact=False, deadline=deadline, **options)
    return _lp_solution(instance, result, scores.scored)


@register(EXPERIMENT, "ad3-exact")
def decode_ad3_exact(
    instance: PPCInstance,
    *,
    deadline: float | None = None,
    max_iterations: int = 1000,
    tolerance: float = 1e-6,
    eta: float = 0.1,
    normalize: bool = True,
    child: bool = False,
) -> Solution:
    """The peer AD3's branch and bound (``solve(branch_and_bound=True)``) on the same factor graph as
    ``ad3-lp``: a tree, ``optimal`` only when the bound recomputed from AD3's duals certifies it."""
    options = _ad3_options(max_iterations, tolerance, eta, normalize, child)
    arc, scores = _grandparent_problem(instance)
    result = ad3_solve(arc, scores, exact=True, deadline=deadline, **options)
    return _lp_solution(instance, result, scores.scored)
