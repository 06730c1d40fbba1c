"""The chains decoder variants, registered for the harness, and the task's evaluation (correct tokens).

Every decoder takes a :class:`~decoders.chains.instance.ChainInstance` (scores precomputed; the timing is
decoding only) except the ``+scoring`` variants and ``crfsuite``, which take a
:class:`~decoders.chains.instance.FeatureInstance` and include scoring in their timing. Exact decoders return
status ``optimal`` with their certificate as ``bound``; beam search returns ``feasible`` without a bound; CG-DG
returns ``optimal`` only when it converged, else ``feasible`` with its certified bound.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from decoders.chains import crfsuite, peak
from decoders.chains.beam import _beam_search
from decoders.chains.checks import MAX_WIDTH, _refuse
from decoders.chains.colgen import (
    EQ8,
    EQ9,
    EQ12,
    PHASES,
    _cg_labels,
    _cg_packed,
    _cg_profile,
    _two_best_kernel,
)
from decoders.chains.instance import ChainInstance, FeatureInstance
from decoders.chains.model import ChainModel, _gather_emissions
from decoders.chains.viterbi import _viterbi, _viterbi_2best, _viterbi_pruned, _viterbi_pruned_2best
from decoders.checks import check_ids
from decoders.errors import ConfigError
from decoders.harness.loops import compiled_loop
from decoders.harness.protocol import Solution, register

EXPERIMENT = "chains"
REDUCED_COSTS = {"eq12": EQ12, "eq8": EQ8, "eq9": EQ9}


def _bounds(instance: ChainInstance) -> tuple[np.ndarray, ...]:
    s = instance.scores
    return s.padded_tau, s.in_min, s.in_max, s.out_min, s.out_max


# Compiled timing loops (decoders.harness.loops): the same kernel calls as the decoders below, repeated inside
# numba so that the harness can time them without Python's per-call cost (config: harness.loop_repeats). CG's
# loop calls the kernel that returns labels and score, as Viterbi's does: the decoder's packing of its statistics
# into one array exists only to box them cheaply for Python (4% of a wsj decode).
_VITERBI = compiled_loop(_viterbi)
_VITERBI_PRUNED = compiled_loop(_viterbi_pruned)
_CG = compiled_loop(_cg_labels)
_BEAM = compiled_loop(_beam_search)
_VITERBI_2BEST = compiled_loop(_viterbi_2best)
_VITERBI_PRUNED_2BEST = compiled_loop(_viterbi_pruned_2best)
_CG_2BEST = compiled_loop(_two_best_kernel)
_CG_PROFILE = compiled_loop(_cg_profile)


def _reduced_cost(name: str) -> int:
    if not isinstance(name, str) or name not in REDUCED_COSTS:
        raise ConfigError(f"reduced_cost must be one of {sorted(REDUCED_COSTS)}, got {name!r}")
    return REDUCED_COSTS[name]


def _gap(gap: float) -> float:
    """CG-DG's relative duality gap: a number in [0, 1) (0 runs to convergence)."""
    if isinstance(gap, bool) or not isinstance(gap, int | float) or not 0.0 <= gap < 1.0:
        raise ConfigError(f"gap must be a fraction in [0, 1), e.g. 0.0015 for 0.15%; got {gap!r}")
    return float(gap)


def _delta(delta: float) -> float:
    """The 2-best oracle's margin: a finite number >= 0."""
    if isinstance(delta, bool) or not isinstance(delta, int | float) or not 0.0 <= delta < math.inf:
        raise ConfigError(f"delta must be a finite number >= 0; got {delta!r}")
    return float(delta)


def _decodes(decodes: int) -> int:
    """The profile's decodes per sentence: an integer in 1..10^6."""
    if isinstance(decodes, bool) or not isinstance(decodes, int | np.integer) or not 1 <= decodes <= 10**6:
        raise ConfigError(f"decodes must be an integer in 1..10^6; got {decodes!r}")
    return int(decodes)


def _width(width: int) -> int:
    """A beam width: an integer in 1..2^62 (the kernel's int64)."""
    if isinstance(width, bool) or not isinstance(width, int | np.integer) or not 1 <= width <= MAX_WIDTH:
        raise ConfigError(f"width must be an integer in 1..2^62; got {width!r}")
    return int(width)


@register(
    EXPERIMENT,
    "viterbi",
    timing_loop=lambda instance, repeats: _VITERBI(repeats, instance.theta, instance.scores.padded_tau),
)
def decode_viterbi(instance: ChainInstance, *, deadline: float | None = None) -> Solution:
    labels, score = _viterbi(instance.theta, instance.scores.padded_tau)
    return Solution(labels, score, score, "optimal")


def _measurements(measurements: int) -> int:
    """The peak measurements per sentence: an integer in 1..1000."""
    if (
        isinstance(measurements, bool)
        or not isinstance(measurements, int | np.integer)
        or not 1 <= measurements <= 1000
    ):
        raise ConfigError(f"measurements must be an integer in 1..1000; got {measurements!r}")
    return int(measurements)


def _min_seconds(min_seconds: float) -> float:
    """The shortest timed interval of a peak measurement: seconds in (0, 1]."""
    if isinstance(min_seconds, bool) or not isinstance(min_seconds, int | float) or not 0 < min_seconds <= 1:
        raise ConfigError(
            f"min_seconds must be a number of seconds in (0, 1], e.g. 0.0002; got {min_seconds!r}"
        )
    return float(min_seconds)


@register(
    EXPERIMENT,
    "viterbi-peak",
    timing_loop=lambda instance, repeats, **_: _VITERBI(repeats, instance.theta, instance.scores.padded_tau),
)
def decode_viterbi_peak(
    instance: ChainInstance,
    *,
    deadline: float | None = None,
    measurements: int = 3,
    min_seconds: float = 2e-4,
) -> Solution:
    """Viterbi as ``viterbi`` decodes it (the same timing loop: its recorded seconds are Viterbi's), then, in the
    same process and on the same sentence, ``measurements`` measurements of the core's clock and of the two peaks of
    :mod:`decoders.chains.peak` (stats ``clock_hz``, ``register_cells_per_second``, ``max_plus_seconds``; each
    timed interval at least ``min_seconds``), with the sentence's ``cells`` (label pairs, ``(n - 1) L^2``) and
    the padded ``width`` of ``tau``: the chains table ``viterbi_peak`` sets Viterbi's cells per cycle beside
    the peaks'. A one-token sentence has no cells and is not measured."""
    measurements, min_seconds = _measurements(measurements), _min_seconds(min_seconds)
    theta, tau = instance.theta, instance.scores.padded_tau
    labels, score = _viterbi(theta, tau)
    n, n_labels = theta.shape
    stats: dict[str, Any] = {
        "cells": (n - 1) * n_labels * n_labels,
        "labels": n_labels,
        "width": tau.shape[1],
    }
    if n > 1:
        stats.update(peak.measure(theta, tau, measurements, min_seconds))
    return Solution(labels, score, score, "optimal", stats)


@register(
    EXPERIMENT,
    "viterbi+p",
    timing_loop=lambda instance, repeats: _VITERBI_PRUNED(repeats, instance.theta, *_bounds(instance)),
)
def decode_viterbi_pruned(instance: ChainInstance, *, deadline: float | None = None) -> Solution:
    labels, score, sizes = _viterbi_pruned(instance.theta, *_bounds(instance))
    return Solution(labels, score, score, "optimal", {"domain_sizes": sizes})


def _cg(theta: np.ndarray, instance_scores, reduced_cost: str, gap: float) -> Solution:
    packed, score, bound, converged, iterations, messages, fallback = _cg_packed(
        theta, instance_scores.tau, instance_scores.cg_tables, _reduced_cost(reduced_cost), gap, True
    )
    n = len(theta)
    stats = {
        "iterations": iterations,
        "oracle_candidates": packed[2 * n :],
        "domain_sizes": packed[n : 2 * n],
        "messages": messages,
        "viterbi_fallback": bool(fallback),
    }
    return Solution(packed[:n], score, bound, "optimal" if converged else "feasible", stats)


def _cg_loop(instance: ChainInstance, repeats: int, *, reduced_cost: str = "eq12", gap: float = 0.0) -> float:
    s = instance.scores
    return _CG(repeats, instance.theta, s.tau, s.cg_tables, _reduced_cost(reduced_cost), _gap(gap), True)


@register(EXPERIMENT, "cg", timing_loop=_cg_loop)
def decode_cg(
    instance: ChainInstance, *, deadline: float | None = None, reduced_cost: str = "eq12", gap: float = 0.0
) -> Solution:
    """Column generation (Fig. 1) with the reduced cost of eq. 12, 8 or 9; CG-DG with ``gap`` > 0."""
    return _cg(instance.theta, instance.scores, reduced_cost, _gap(gap))


@register(EXPERIMENT, "cg-profile")
def decode_cg_profile(
    instance: ChainInstance, *, deadline: float | None = None, reduced_cost: str = "eq12", decodes: int = 50
) -> Solution:
    """Column generation as ``cg`` decodes it, then ``decodes`` more decodes in a compiled loop that count the
    time-stamp counter's cycles in each phase of CG: stats ``phase_cycles`` (``[phase, mean cycles per decode]``
    pairs in the order of ``decoders.chains.colgen.PHASES``) and ``profiled_decodes``.  Its recorded time
    is the profiling's, not CG's: the counter's reads cost a few percent, so the profile gives shares and Table 1
    the time."""
    decodes = _decodes(decodes)
    solution = _cg(instance.theta, instance.scores, reduced_cost, 0.0)
    s = instance.scores
    counters = np.zeros(len(PHASES) + 2, dtype=np.int64)
    _CG_PROFILE(decodes, counters, instance.theta, s.tau, s.cg_tables, _reduced_cost(reduced_cost), 0.0)
    cycles = (counters[: len(PHASES)] / decodes).tolist()
    # [phase, cycles] pairs: the records' JSON sorts a mapping's keys, and PHASES is in CG's order
    solution.stats["phase_cycles"] = [list(pair) for pair in zip(PHASES, cycles, strict=True)]
    solution.stats["profiled_decodes"] = decodes
    return solution


@register(
    EXPERIMENT,
    "beam",
    timing_loop=lambda instance, repeats, width=1: _BEAM(
        repeats, instance.theta, instance.scores.tau, _width(width)
    ),
)
def decode_beam(instance: ChainInstance, *, deadline: float | None = None, width: int = 1) -> Solution:
    """Beam search; with forbidden transitions every kept prefix can die out (then status ``error``, no labels)."""
    labels, score = _beam_search(instance.theta, instance.scores.tau, _width(width))
    if score == -math.inf:
        message = (
            f"beam search of width {width} kept no sequence that avoids the forbidden (-inf) transitions"
        )
        return Solution(None, None, None, "error", {"error": message})
    return Solution(labels, score, None, "feasible")


def _two_best(best, best_score, second, second_score, stats: dict[str, Any]) -> Solution:
    has_second = second is not None and math.isfinite(second_score)
    stats = {
        **stats,
        "second": second if has_second else None,
        "second_score": second_score if has_second else None,
    }
    return Solution(best, best_score, best_score, "optimal", stats)


@register(
    EXPERIMENT,
    "viterbi-2best",
    timing_loop=lambda instance, repeats: _VITERBI_2BEST(repeats, instance.theta, instance.scores.padded_tau),
)
def decode_viterbi_2best(instance: ChainInstance, *, deadline: float | None = None) -> Solution:
    best, score1, second, score2 = _viterbi_2best(instance.theta, instance.scores.padded_tau)
    return _two_best(best, score1, second, score2, {})


@register(
    EXPERIMENT,
    "viterbi+p-2best",
    timing_loop=lambda instance, repeats: _VITERBI_PRUNED_2BEST(repeats, instance.theta, *_bounds(instance)),
)
def decode_viterbi_pruned_2best(instance: ChainInstance, *, deadline: float | None = None) -> Solution:
    best, score1, second, score2, sizes = _viterbi_pruned_2best(instance.theta, *_bounds(instance))
    return _two_best(best, score1, second, score2, {"domain_sizes": sizes})


def _cg_two_best_loop(instance: ChainInstance, repeats: int, *, delta: float = 1.0) -> float:
    s = instance.scores
    return _CG_2BEST(repeats, instance.theta, s.tau, s.cg_tables, _delta(delta), EQ12, True)


@register(EXPERIMENT, "cg-2best", timing_loop=_cg_two_best_loop)
def decode_cg_two_best(
    instance: ChainInstance, *, deadline: float | None = None, delta: float = 1.0
) -> Solution:
    """The 0/1-loss oracle of section 5: the best sequence and the best other one within ``delta`` of it."""
    best, score1, second, score2, has_second, sizes, cg_stats, _ = _two_best_kernel(
        instance.theta, instance.scores.tau, instance.scores.cg_tables, _delta(delta), EQ12, True
    )
    stats = {
        "iterations": cg_stats[4],
        "domain_sizes": sizes,
        "delta": _delta(delta),
        "viterbi_fallback": bool(cg_stats[7]),
    }
    return _two_best(best, score1, second if has_second else None, score2, stats)


@cache
def _model(path: str) -> ChainModel:
    """A trained model, loaded once per decoding process (during the untimed warm-up)."""
    return ChainModel.load(path)


def _theta(instance: FeatureInstance) -> tuple[np.ndarray, ChainModel]:
    """theta of a FeatureInstance under its model; the first call with a model checks the instance against it."""
    model = _model(instance.model)
    if instance._checked_model is not model:
        _check_features(instance, model)
        object.__setattr__(instance, "_checked_model", model)
    theta = _gather_emissions(
        model.weights, model.start, model.end, instance.ids, instance.token_offsets, 0, instance.n_tokens
    )
    return theta, model


def scores_of(instance: ChainInstance | FeatureInstance) -> tuple[np.ndarray, np.ndarray]:
    """``(theta, tau)`` of a chains instance: its own for a ChainInstance, its model's for a FeatureInstance (the
    instances of the workflow's instance sets). What a decoder of one's own starts from."""
    if isinstance(_instance(instance), FeatureInstance):
        theta, model = _theta(instance)
        return theta, model.tau
    return instance.theta, instance.scores.tau


def _check_features(instance: FeatureInstance, model: ChainModel) -> None:
    """What a FeatureInstance's construction could not check: its feature ids and gold ids against the model's
    counts, and that the model's forbidden transitions allow a sequence of its length (the scoring kernel does not
    bounds-check; ChainModel bounds its weights so that no theta can overflow)."""
    ids, gold = instance.ids, instance.gold
    _refuse(ids, "FeatureInstance.ids", ids >= model.n_features, f"not a feature id of {instance.model}")
    _refuse(
        gold, "FeatureInstance.gold", gold >= model.n_labels, f"not a label id of {instance.model} (or -1)"
    )
    if instance.n_tokens - 1 > model.scores.longest_walk:
        raise ValueError(
            f"FeatureInstance: {instance.n_tokens} tokens, but no label sequence longer than "
            f"{int(model.scores.longest_walk) + 1} avoids the forbidden transitions of {instance.model}"
        )


@register(EXPERIMENT, "cg+scoring")
def decode_cg_scoring(instance: FeatureInstance, *, deadline: float | None = None) -> Solution:
    """Scoring from pre-extracted feature ids plus column generation: what tagging a sentence costs us."""
    theta, model = _theta(instance)
    return _cg(theta, model.scores, "eq12", 0.0)


@register(EXPERIMENT, "viterbi+scoring")
def decode_viterbi_scoring(instance: FeatureInstance, *, deadline: float | None = None) -> Solution:
    theta, model = _theta(instance)
    labels, score = _viterbi(theta, model.scores.padded_tau)
    return Solution(labels, score, score, "optimal")


@register(EXPERIMENT, "crfsuite")
def decode_crfsuite(instance: FeatureInstance, *, deadline: float | None = None) -> Solution:
    """CRFsuite's Tagger.tag on the feature strings (a peer: its own model's score is not comparable)."""
    if instance.crfsuite is None:
        raise ConfigError("this instance set carries no CRFsuite model (build it as '<dataset>~features')")
    tags = crfsuite._tagger(instance.crfsuite).tag(instance.strings)
    index = _model(instance.model).label_index
    return Solution(
        np.fromiter((index[t] for t in tags), dtype=np.int64, count=len(tags)), None, None, "feasible"
    )


def evaluate(instance: ChainInstance | FeatureInstance, solution: Solution) -> dict[str, int]:
    """Correctly tagged tokens against the gold labels (``solution.structure``: one label id per token)."""
    gold = _instance(instance).gold
    if gold is None:
        raise ValueError("instance.gold is None: the instance has no gold labels to evaluate against")
    if not isinstance(solution, Solution):
        raise ValueError(f"solution must be a Solution; got {type(solution).__name__}")
    predicted = check_ids(solution.structure, "solution.structure", ndim=1)
    if predicted.shape != gold.shape:
        raise ValueError(
            f"solution.structure must hold one label id per token ({len(gold)}); got shape {predicted.shape}"
        )
    _refuse(predicted, "solution.structure", predicted < 0, "not a label id")
    return {"correct": int((predicted == gold).sum()), "total": int(len(gold))}


def _instance(instance: Any) -> ChainInstance | FeatureInstance:
    if not isinstance(instance, ChainInstance | FeatureInstance):
        raise ValueError(
            f"instance must be a ChainInstance or a FeatureInstance; got {type(instance).__name__}"
        )
    return instance


VERIFY_RTOL = 1e-9
"""A certificate holds when its numbers agree within this share of the solution's magnitude (``sum |terms|``)."""


def verify(instance: ChainInstance | FeatureInstance, solution: Solution) -> str | None:
    """The harness's certificate check of an ``optimal`` Solution (:func:`decoders.harness.protocol.get_verifier`).

    Recomputes, from the instance alone: the structure is one label id per token, its model score equals the
    objective, the bound equals the objective, and no sequence scores more, the optimum being found by
    Viterbi's dynamic program (independent of column generation and of eq. 14 pruning, and cheap beside them);
    a 2-best answer's second sequence, when given, differs from the best and scores what it says, no more than
    the best. Tolerances are relative to ``sum |terms|`` of the sequences compared, so an entry no sequence uses
    never widens them. Returns None when everything holds, else the reason.
    """
    if not isinstance(solution, Solution):
        raise ValueError(f"solution must be a Solution; got {type(solution).__name__}")
    theta, tau = scores_of(instance)
    n, n_labels = theta.shape
    problem = _labels_problem(solution.structure, n, n_labels, "structure")
    if problem:
        return problem
    labels = np.asarray(solution.structure, dtype=np.int64)
    score, scale = _score_and_scale(theta, tau, labels)
    tol = VERIFY_RTOL * scale
    if not abs(score - solution.objective) <= tol:
        return f"objective {solution.objective!r} but the structure scores {score!r}"
    if solution.bound is None or not abs(solution.bound - solution.objective) <= tol:
        return f"bound {solution.bound!r} is not the objective {solution.objective!r}"
    best, best_score = _viterbi(theta, tau)
    tol = VERIFY_RTOL * max(scale, _score_and_scale(theta, tau, best)[1])
    if best_score - score > tol:
        return f"Viterbi finds {best.tolist()} scoring {best_score!r} > objective {score!r}"
    second = solution.stats.get("second")
    if second is not None:
        problem = _labels_problem(second, n, n_labels, "stats.second")
        if problem:
            return problem
        second = np.asarray(second, dtype=np.int64)
        value, other = _score_and_scale(theta, tau, second)
        claimed = solution.stats.get("second_score")
        if np.array_equal(second, labels):
            return "the second-best sequence equals the best"
        if not isinstance(claimed, int | float) or not abs(value - claimed) <= VERIFY_RTOL * other:
            return f"second_score {claimed!r} but the second sequence scores {value!r}"
        if value - score > VERIFY_RTOL * max(scale, other):
            return f"the second sequence scores {value!r}, more than the best {score!r}"
    return None


def check_structure(instance: ChainInstance | FeatureInstance, structure: Any) -> str | None:
    """Why ``structure`` is not a tag sequence of ``instance`` (None when it is): one integer label id per token,
    in range, over transitions the scores allow (``tau`` finite). The harness applies it to every record with a
    structure (:func:`decoders.harness.protocol.get_structure_check`)."""
    theta, tau = scores_of(instance)
    n, n_labels = theta.shape
    problem = _labels_problem(structure, n, n_labels, "structure")
    if problem:
        return problem
    labels = np.asarray(structure, dtype=np.int64)
    used = tau[labels[:-1], labels[1:]]
    if not np.isfinite(used).all():
        at = int(np.flatnonzero(~np.isfinite(used))[0])
        return f"structure uses the forbidden transition {labels[at]} -> {labels[at + 1]} at token {at + 1}"
    return None


def _labels_problem(structure: Any, n: int, n_labels: int, name: str) -> str | None:
    labels = np.asarray(structure)
    if labels.shape == (0,):
        labels = labels.astype(np.int64)  # np.asarray([]) is float64: an empty list holds no bad id
    if labels.shape != (n,) or labels.dtype.kind not in "iu":
        return f"{name} must be {n} integer label ids; got shape {labels.shape}, dtype {labels.dtype}"
    if n and (labels.min() < 0 or labels.max() >= n_labels):
        return f"{name} has a label id outside 0..{n_labels - 1}: {labels.tolist()}"
    return None


def _score_and_scale(theta: np.ndarray, tau: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """The score of ``labels`` and ``sum |terms|`` (its terms gathered with numpy, not by a decoder's kernel)."""
    terms = np.concatenate([theta[np.arange(len(labels)), labels], tau[labels[:-1], labels[1:]]])
    return float(terms.sum()), float(np.abs(terms).sum())
