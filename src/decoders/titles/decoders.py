"""The titles decoders, registered for the harness, and the task's evaluation (ROUGE-L against the true title).

Every decoder takes a :class:`~decoders.titles.instance.TitleInstance`. When no feasible title exists (fewer
classes than ``k``, or missing edges) a decoder that searched everything returns ``structure=None`` and
objective ``-inf`` (the maximum over an empty set). Colour-coding is randomised, so even when it finds the
optimum it reports ``feasible``; the ILP reports ``optimal`` with its bound once its solver proves optimality;
beam search is a heuristic (``feasible``, no bound); exhaustive search is exact (``optimal``).
"""

from __future__ import annotations

import math
from functools import cache

from rouge_score import rouge_scorer

from decoders.harness.protocol import Solution, register
from decoders.titles.beam import beam_search
from decoders.titles.colour_coding import colour_coding
from decoders.titles.exhaustive import DEFAULT_MAX_PATHS, exhaustive
from decoders.titles.ilp import DEFAULT_HINT_WIDTH, solve
from decoders.titles.instance import TitleInstance, realise

EXPERIMENT = "titles"


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
    status = "timeout" if result.timed_out else "feasible"
    objective = result.score if result.path is not None or not result.timed_out else math.nan
    return Solution(result.path, objective, None, status, stats)


@register(EXPERIMENT, "ilp")
def decode_ilp(
    instance: TitleInstance,
    *,
    deadline: float | None = None,
    solver: str = "cp-sat",
    hint_width: int | None = DEFAULT_HINT_WIDTH,
) -> Solution:
    """Section 5: the flow ILP solved by CP-SAT or SCIP (one thread), within the deadline, started from the
    beam-``hint_width`` path as a solution hint (None or 0: no hint). A timeout carries the best path known (the
    solver's, or the hint's when the solver found none: ``stats["from_hint"]``) and the solver's bound."""
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
    path, score, timed_out = beam_search(instance, int(width), deadline=deadline)
    if timed_out:
        return Solution(None, math.nan, None, "timeout", {"width": int(width)})
    return Solution(path, score, None, "feasible", {"width": int(width)})


@register(EXPERIMENT, "exhaustive")
def decode_exhaustive(
    instance: TitleInstance, *, deadline: float | None = None, max_paths: int = DEFAULT_MAX_PATHS
) -> Solution:
    """Enumerate every class-distinct path (small instances only; the test oracle)."""
    path, score, complete = exhaustive(instance, max_paths=int(max_paths))
    return Solution(path, score, score, "optimal", {"paths": complete})


@cache
def _scorer() -> rouge_scorer.RougeScorer:
    return rouge_scorer.RougeScorer(["rougeL"])


def title_text(instance: TitleInstance, structure) -> str:
    """The realised title of a decoded path (content words with their auxiliary words); "" for no path."""
    return "" if structure is None else " ".join(realise(instance, structure))


def evaluate(instance: TitleInstance, solution: Solution) -> dict[str, float | int]:
    """ROUGE-L F-measure of the realised title (with its auxiliary words) against the section's true title.
    (Result records hold numbers only; the tables realise example titles again with :func:`title_text`.)"""
    if solution.structure is None:
        return {"rouge_l": math.nan, "k": int(instance.k)}
    score = _scorer().score(instance.reference, title_text(instance, solution.structure))["rougeL"].fmeasure
    return {"rouge_l": float(score), "k": int(instance.k)}
