"""The titles decoders, registered for the harness, and the task's evaluation (ROUGE-L against the true title).

Every decoder takes a :class:`~decoders.titles.instance.TitleInstance`. When no feasible title exists a
decoder that searched everything returns ``structure=None`` and objective ``-inf`` (the maximum over an empty
set). An instance on which that is plain from its sizes or edges (``k`` above the number of words or of distinct
classes, no walk of ``k`` words from s to t: :attr:`TitleInstance.infeasible`) is answered at once, alike by
every decoder: no title, objective and bound ``-inf``, status ``optimal`` (the reason, in ``stats["infeasible"]``,
is the certificate). Otherwise colour-coding is randomised, so even when it finds the optimum it reports
``feasible``; the ILP reports ``optimal`` only when its solver proved optimality and the true score of its path
meets its bound (:mod:`decoders.titles.ilp`), else ``feasible`` with that bound; beam search is a heuristic
(``feasible``, no bound); exhaustive search is exact (``optimal``). Every reported objective is the path's score
recomputed from the instance (:func:`~decoders.titles.instance.path_score`). Every parameter is validated, a
ConfigError naming its key (the instance and the deadline: a ValueError, from the registry,
:func:`decoders.harness.protocol.register`).

Statuses keep their promise: ``feasible`` always comes with a title. A decoder that stops without one says
``timeout`` when the deadline stopped it, and ``error`` (objective NaN, the reason in ``stats["error"]``) when a
heuristic (beam search, colour-coding without a certificate) finished without finding a title: it cannot tell
whether one exists. Only a certified search answers "no title" (``optimal``, objective and bound ``-inf``).
"""

from __future__ import annotations

import itertools
import math
import time
from functools import cache
from typing import Any

import numpy as np
from rouge_score import rouge_scorer

from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, register
from decoders.titles.beam import beam_search
from decoders.titles.certified import DEFAULT_MAX_LABELS, certified_colour_coding
from decoders.titles.checks import check_path
from decoders.titles.colour_coding import colour_coding
from decoders.titles.exhaustive import DEFAULT_MAX_PATHS, exhaustive
from decoders.titles.ilp import DEFAULT_HINT_WIDTH, SOLVERS, solve
from decoders.titles.instance import (
    TitleInstance,
    _magnitude,
    _score,
    check_instance,
    path_problem,
    realise,
)

EXPERIMENT = "titles"


def _integer(key: str, value: Any, lowest: int) -> int:
    """An integer parameter >= ``lowest`` (bools and floats refused)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lowest:
        raise ConfigError(f"{key} must be an integer >= {lowest}; got {value!r}")
    return int(value)


def _no_title(instance: TitleInstance, **stats: Any) -> Solution:
    """The certified answer for an instance on which no title can exist (:attr:`TitleInstance.infeasible`)."""
    return Solution(None, -math.inf, -math.inf, "optimal", {**stats, "infeasible": instance.infeasible})


def _rescored(instance: TitleInstance, path) -> float:
    return -math.inf if path is None else _score(instance, path)


def _nothing_found(decoder: str, **stats: Any) -> Solution:
    """What a heuristic that finished without a title returns: no structure, so not ``feasible``; it cannot
    certify that none exists either."""
    message = f"{decoder} found no title (it cannot tell whether one exists)"
    return Solution(None, math.nan, None, "error", {**stats, "error": message})


@register(EXPERIMENT, "colour-coding")
def decode_colour_coding(
    instance: TitleInstance,
    *,
    deadline: float | None = None,
    failure_probability: float = 1e-3,
    seed: int = 0,
    colours: int | None = None,
    iterations: int | None = None,
) -> Solution:
    """Section 4: the best colourful path over the amplified number of random colourings."""
    result = colour_coding(
        instance,
        failure_probability=failure_probability,
        seed=seed,
        colours=colours,
        iterations=iterations,
        deadline=deadline,
    )
    stats = {
        "r": result.colours,
        "iterations": result.iterations,
        "completed": result.completed,
        "first_found": result.first_found,
        "states": result.states,
    }
    if instance.infeasible is not None:
        return _no_title(instance, **stats)
    if result.path is None:
        if result.timed_out:
            return Solution(None, math.nan, None, "timeout", stats)
        return _nothing_found("colour-coding", **stats)
    status = "timeout" if result.timed_out else "feasible"
    return Solution(result.path, _rescored(instance, result.path), None, status, stats)


@register(EXPERIMENT, "colour-coding-certified")
def decode_colour_coding_certified(
    instance: TitleInstance,
    *,
    deadline: float | None = None,
    failure_probability: float = 1e-3,
    seed: int = 0,
    colours: int | None = None,
    iterations: int | None = None,
    relaxation: bool = True,
    max_labels: int = DEFAULT_MAX_LABELS,
) -> Solution:
    """Colour-coding with an upper bound and an early stop (:mod:`decoders.titles.certified`): ``optimal`` when
    its best title meets the bound, else ``feasible`` with the bound after the ``T`` colourings."""
    result = certified_colour_coding(
        instance,
        failure_probability=failure_probability,
        seed=seed,
        colours=colours,
        iterations=iterations,
        relaxation=relaxation,
        max_labels=max_labels,
        deadline=deadline,
    )
    stats = {
        "r": result.colours,
        "iterations": result.iterations,
        "completed": result.completed,
        "first_found": result.first_found,
        "rounds": result.rounds,
        "tracked": result.tracked,
        "walk_bound": result.walk_bound,
        "found_by": result.found_by,
        "labels": result.labels,
        "certified": result.certified,
    }
    if instance.infeasible is not None:
        return _no_title(instance, **stats)
    status = "timeout" if result.timed_out else "optimal" if result.certified else "feasible"
    if result.path is None and status != "optimal":  # no title, and none proven absent
        if status == "timeout":
            return Solution(None, math.nan, result.bound, status, stats)
        return _nothing_found("colour-coding-certified", **stats)
    return Solution(result.path, result.score, result.bound, status, stats)


@register(EXPERIMENT, "ilp")
def decode_ilp(
    instance: TitleInstance,
    *,
    deadline: float | None = None,
    solver: str = "cp-sat",
    hint_width: int | None = DEFAULT_HINT_WIDTH,
) -> Solution:
    """Section 5: the flow ILP solved by CP-SAT, SCIP or HiGHS (one thread), within the deadline, started from the
    beam-``hint_width`` path as a solution hint (None or 0: no hint). A timeout carries the best path known (the
    solver's, or the hint's when the solver found none: ``stats["from_hint"]``) and the solver's bound."""
    if not isinstance(solver, str) or solver not in SOLVERS:
        raise ConfigError(f"solver must be one of {', '.join(SOLVERS)}; got {solver!r}")
    hint_width = None if hint_width is None else _integer("hint_width", hint_width, 0)
    if instance.infeasible is not None:
        return _no_title(instance, solver=solver)
    result = solve(instance, solver=solver, deadline=deadline, hint_width=hint_width)
    stats = {
        "solver": solver,
        "solver_status": result.solver_status,
        "solver_seconds": result.solver_seconds,
        "build_seconds": result.build_seconds,
        "variables": result.n_variables,
        "constraints": result.n_constraints,
        "hint": result.hint,
        "hint_score": result.hint_score if result.hint is not None else None,
        "from_hint": result.from_hint,
    }
    status = "optimal" if result.status == "infeasible" else result.status
    return Solution(result.path, result.score, result.bound, status, stats)


@register(EXPERIMENT, "beam")
def decode_beam(instance: TitleInstance, *, deadline: float | None = None, width: int = 1) -> Solution:
    """Beam search keeping ``width`` prefixes per step (the paper's baseline)."""
    width = _integer("width", width, 1)
    if instance.infeasible is not None:
        return _no_title(instance, width=width)
    path, _, timed_out = beam_search(instance, width, deadline=deadline)
    if timed_out:
        return Solution(None, math.nan, None, "timeout", {"width": width})
    if path is None:
        return _nothing_found(f"beam search of width {width}", width=width)
    return Solution(path, _rescored(instance, path), None, "feasible", {"width": width})


@register(EXPERIMENT, "exhaustive")
def decode_exhaustive(
    instance: TitleInstance, *, deadline: float | None = None, max_paths: int = DEFAULT_MAX_PATHS
) -> Solution:
    """Enumerate every class-distinct path (small instances only; the test oracle). It runs to the end: its answer
    is certified even when the deadline has passed."""
    max_paths = _integer("max_paths", max_paths, 1)
    if instance.infeasible is not None:
        return _no_title(instance, paths=0)
    path, _, complete = exhaustive(instance, max_paths=max_paths)
    score = _rescored(instance, path)
    return Solution(path, score, score, "optimal", {"paths": complete})


@cache
def _scorer() -> rouge_scorer.RougeScorer:
    return rouge_scorer.RougeScorer(["rougeL"])


def title_text(instance: TitleInstance, structure) -> str:
    """The realised title of a decoded path (content words with their auxiliary words); "" for no path.
    ``structure``: None or ``k`` distinct word ids of ``instance`` (:func:`~decoders.titles.instance.realise`)."""
    check_instance(instance)
    if structure is None:
        return ""
    return " ".join(realise(instance, check_path(instance, structure, "structure")))


def evaluate(instance: TitleInstance, solution: Solution) -> dict[str, float | int]:
    """ROUGE-L F-measure of the realised title (with its auxiliary words) against the section's true title.
    (Result records hold numbers only; the tables realise example titles again with :func:`title_text`.)"""
    check_instance(instance)
    _check_solution(solution)
    if solution.structure is None:
        return {"rouge_l": math.nan, "k": int(instance.k)}
    path = check_path(instance, solution.structure, "solution.structure")
    score = _scorer().score(instance.reference, " ".join(realise(instance, path)))["rougeL"].fmeasure
    return {"rouge_l": float(score), "k": int(instance.k)}


VERIFY_RTOL = 1e-9
"""A certificate holds when its numbers agree within this share of the title's ``sum |terms|``."""
VERIFY_BRUTE_FORCE_PATHS = 20_000
"""The verifier also enumerates every title, independently of the decoders, when at most this many sequences of
``k`` distinct words exist (``n! / (n-k)!``); beyond that it checks structure, score and bound only."""


def verify(instance: TitleInstance, solution: Solution) -> str | None:
    """The harness's certificate check of an ``optimal`` Solution (:func:`decoders.harness.protocol.get_verifier`).

    Recomputes from the instance alone: a title is ``k`` word ids in range, of pairwise distinct classes, over
    finite edges; its score equals the objective and the bound equals the objective, within :data:`VERIFY_RTOL`
    of the title's ``sum |terms|`` (an edge the title does not use never widens it); no title (``None``) comes
    with objective and bound ``-inf``. On small instances (:data:`VERIFY_BRUTE_FORCE_PATHS`) a plain enumeration
    of every title, written apart from the decoders, must find none better (or, for ``None``, none at all); an
    instance marked :attr:`TitleInstance.infeasible` certifies ``None`` by itself. Returns None when everything
    holds, else the reason. ``instance`` must be a TitleInstance and ``solution`` a Solution (a ValueError
    otherwise); anything wrong with the solution's structure or numbers is a reason returned.
    """
    check_instance(instance)
    _check_solution(solution)
    structure = solution.structure
    if structure is None:
        if solution.objective != -math.inf or solution.bound != -math.inf:
            return f"no title, but objective {solution.objective!r} and bound {solution.bound!r} are not -inf"
        if instance.infeasible is not None:
            return None
        best = _brute_force(instance)
        if best is not None and best[0] is not None:
            return f"no title claimed, but {best[0].tolist()} is one (score {best[1]!r})"
        return None
    path = np.asarray(structure)
    if path.ndim != 1 or path.dtype.kind not in "iu":
        return (
            f"structure must be a 1-d array of integer word ids; got shape {path.shape}, dtype {path.dtype}"
        )
    problem = path_problem(instance, path)
    if problem:
        return problem
    score, scale = _score(instance, path), _magnitude(instance, path)
    tol = VERIFY_RTOL * scale
    if not abs(score - solution.objective) <= tol:
        return f"objective {solution.objective!r} but the title scores {score!r}"
    if solution.bound is None or not abs(solution.bound - solution.objective) <= tol:
        return f"bound {solution.bound!r} is not the objective {solution.objective!r}"
    best = _brute_force(instance)
    if best is not None and best[0] is not None:
        best_path, best_score = best
        if best_score - score > VERIFY_RTOL * max(scale, _magnitude(instance, best_path)):
            return f"the title {best_path.tolist()} scores {best_score!r} > objective {score!r}"
    return None


def check_structure(instance: TitleInstance, structure: Any) -> str | None:
    """Why ``structure`` is not a title of ``instance`` (None when it is): ``k`` integer word ids in range, of
    pairwise distinct classes, over finite edges (:func:`decoders.titles.instance.path_problem`). The harness
    applies it to every record with a structure (:func:`decoders.harness.protocol.get_structure_check`)."""
    check_instance(instance)
    path = np.asarray(structure)
    if path.ndim != 1 or path.dtype.kind not in "iu":
        return (
            f"structure must be a 1-d array of integer word ids; got shape {path.shape}, dtype {path.dtype}"
        )
    try:
        return path_problem(instance, path)
    except ValueError as exc:
        return str(exc)


def exact_check(instance: TitleInstance, solution: Solution, time_limit: float) -> tuple[str | None, str]:
    """A user's decoder's ``optimal`` claim beyond :func:`verify`'s enumeration, set against the flow ILP solved
    by CP-SAT (:func:`decode_ilp`) within ``time_limit`` seconds (:func:`decoders.harness.protocol.get_exact_check`):
    ``(reason, "rejected")`` when the ILP finds a better title (or a title where the claim is that none exists),
    ``(None, "confirmed")`` when it proves the claimed score optimal (or when :func:`verify` enumerated every
    title), else ``(None, "undecided")``. Tolerances as :func:`verify`'s."""
    check_instance(instance)
    _check_solution(solution)
    if instance.infeasible is not None or (
        instance.k <= instance.n and math.perm(instance.n, instance.k) <= VERIFY_BRUTE_FORCE_PATHS
    ):
        return None, "confirmed"  # verify decided it from the instance alone
    found = decode_ilp(instance, deadline=time.perf_counter() + time_limit)
    claimed = solution.objective
    if found.structure is not None:
        scale = _magnitude(instance, np.asarray(found.structure))
        if solution.structure is not None:
            scale = max(scale, _magnitude(instance, np.asarray(solution.structure)))
        if found.objective - claimed > VERIFY_RTOL * scale:
            title = np.asarray(found.structure).tolist()
            return (
                f"the ILP (CP-SAT) finds the title {title} scoring {found.objective!r} > objective {claimed!r}",
                ("rejected"),
            )
    return None, "confirmed" if found.status == "optimal" else "undecided"


def _check_solution(solution: Any) -> Solution:
    if not isinstance(solution, Solution):
        raise ValueError(f"solution must be a Solution; got {type(solution).__name__}")
    return solution


def _brute_force(instance: TitleInstance) -> tuple[np.ndarray | None, float] | None:
    """The best title by plain enumeration of ordered ``k``-subsets of the words, or None when there are more
    than :data:`VERIFY_BRUTE_FORCE_PATHS` of them (then nothing is claimed)."""
    n, k = instance.n, instance.k
    if k > n or math.perm(n, k) > VERIFY_BRUTE_FORCE_PATHS:
        return None
    paths = np.array(list(itertools.permutations(range(n), k)), dtype=np.int64).reshape(-1, k)
    classes = np.sort(instance.class_index[paths], axis=1)
    paths = paths[(classes[:, 1:] != classes[:, :-1]).all(axis=1)]
    scores = instance.start[paths[:, 0]] + instance.end[paths[:, -1]]
    for i in range(k - 1):
        scores = scores + instance.edge[paths[:, i], paths[:, i + 1]]
    if scores.size == 0 or scores.max() == -math.inf:
        return None, -math.inf
    best = int(np.argmax(scores))
    return paths[best], float(scores[best])
