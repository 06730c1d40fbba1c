"""Where a B&B decoder's time goes, per test sentence: pruning, scoring, the search and, inside the search, the
DP calls, the subgradient steps and reduced-cost fixing; and the model's size (templates, features per arc,
weights) against the paper's (section 4.2: 674 templates, 86.7M non-zero weights).

Each sentence is decoded as ``decode_bnb`` decodes it (:mod:`decoders.bnb.decoders`), one thread, JIT warmed up,
with :func:`time.perf_counter` around its three stages: the pruner (:func:`decoders.bnb.model.prune_heads`),
scoring (:meth:`~decoders.bnb.model.NonLocalStructure.parts`: arcs, second-order parts, factors) and the search
(:meth:`~decoders.bnb.model.NonLocalStructure.search`), whose stats count its DP calls, subgradient iterations and
fixing passes. The compiled search kernels carry no timers (they stay as the decoders run them); inside the
search, time is estimated from outside, on the sentence's own arrays at the root node:

* a DP call: a compiled loop of :data:`UNIT_CALLS` calls of the backbone DP (``_solve``), per call;
* a subgradient step beyond its DP call: :data:`UNIT_CALLS` steps of the search's own kernel (``_subgradient``,
  made to run every step: no stopping test can fire), per step, less the DP call;
* a fixing pass: one call of the reduced-cost fixing kernel (``_eliminate``, which the search calls from Python);
* set-up: the search's entry checks and its per-sentence arrays (``_check_grid``, ``_Problem``).

Each is the median of ``repeats`` timings, times the sentence's count; the rest of the measured search time is the
Python node loop (branching, children, the lower-bound initialisation's numpy). Scoring is split the same way by
timing its three kernels again in a second pass. :func:`summarize` adds the sentences up; where estimates exceed
what was measured (noise on short sentences), they are scaled down to it, so that the parts sum to the total.

``paper_space_bits``: the backbone's scoring is timed again on a subset of sentences against a weight vector of
2^bits weights (the paper's 86.7M non-zero weights need 2^27), beside the model's own hash space, to measure what a
weight vector that no cache holds costs per feature lookup.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd

from decoders.bnb.decoders import _unpruned, search_settings
from decoders.bnb.factors import (
    FACTOR_FEATURES,
    GROUP_ID,
    MAX_FACTOR_FEATURES,
    PATTERNS,
    _candidates,
    _factor_features,
    sentence_factors,
)
from decoders.bnb.instance import ParseInstance
from decoders.bnb.model import NonLocalStructure, halves, prune_heads, structure_of
from decoders.bnb.search import Backbone, Factors, _check_grid, _eliminate, _Problem, _solve, _subgradient
from decoders.checks import check_float, checked
from decoders.errors import ConfigError
from decoders.harness.instances import read_instance_index, read_instance_shard
from decoders.harness.runner import _compile_timer, warmup_index
from decoders.io import write_json_atomic, write_parquet_atomic
from decoders.parsing.checks import check_allowed, check_arc_scores, check_tokens
from decoders.parsing.features import (
    INNER,
    N_ATTRIBUTES,
    N_FIXED_TEMPLATES,
    N_PART_TEMPLATES,
    OUTER,
    SIBLING,
    _arcs_features,
    _max_arc_features,
    _part_features,
    arc_scores,
    second_order_scores,
)
from decoders.parsing.model import ParserModel

log = logging.getLogger(__name__)

#: DP calls / subgradient steps per compiled timing loop (their call overhead from Python is spread over them).
UNIT_CALLS = 10

#: The breakdown's parts, in the order of the table: (stage, component).
COMPONENTS = (
    ("pruning", "pruning"),
    ("scoring", "arcs"),
    ("scoring", "second-order parts"),
    ("scoring", "factors"),
    ("scoring", "checks and assembly"),
    ("search", "DP calls"),
    ("search", "subgradient steps"),
    ("search", "reduced-cost fixing"),
    ("search", "set-up"),
    ("search", "node loop and branching"),
)


# ---------------------------------------------------------------------------------------------------------------
# templates and feature counts


@checked(groups="texts")
def template_counts(groups: Sequence[str]) -> dict[str, int]:
    """Feature templates per part type as :mod:`decoders.parsing.features` and :mod:`decoders.bnb.factors` define
    them (template ids; each is hashed twice, plain and with the arc's direction and distance or the factor's
    direction pattern): arcs (the fixed ones and the in-between ones), the three second-order parts, and each of
    ``groups`` (hand-crafted: per pattern of its own)."""
    in_between = _max_arc_features(2) // 2 - N_FIXED_TEMPLATES  # the templates one word in between adds
    counts = {
        "arc": N_FIXED_TEMPLATES + in_between,
        "sibling": N_PART_TEMPLATES,
        "inner_grandchild": N_PART_TEMPLATES,
        "outer_grandchild": N_PART_TEMPLATES,
    }
    for name in groups:
        if name not in GROUP_ID:
            raise ConfigError(f"unknown factor group {name!r}; known: {sorted(GROUP_ID)}")
        per_factor = FACTOR_FEATURES[name] // 2
        counts[f"factor:{name}"] = per_factor * (len(PATTERNS) if name == "hand_crafted" else 1)
    return counts


@numba.njit(cache=True, nogil=True, inline="always")
def _count_part(tokens, weights, kind, h, m, x, mask, out, totals) -> None:
    """Add one part's features and its non-zero ones to ``totals`` (parts, features, non-zero features)."""
    count = _part_features(tokens, kind, h, m, x, mask, out)
    totals[0] += 1
    totals[1] += count
    for i in range(count):
        if weights[out[i]] != 0.0:
            totals[2] += 1


@numba.njit(cache=True, nogil=True)
def _part_feature_counts(tokens: np.ndarray, weights: np.ndarray, arc: np.ndarray) -> np.ndarray:
    """(parts, features, non-zero features) of the second-order parts ``_second_order_scores`` scores over the
    arcs ``arc`` allows (its loops)."""
    n = tokens.shape[1] - 1
    mask = np.uint64(weights.shape[0] - 1)
    out = np.empty(2 * N_PART_TEMPLATES, dtype=np.int64)
    totals = np.zeros(3, dtype=np.int64)
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m or arc[h, m] == -np.inf:
                continue
            step = 1 if m > h else -1
            _count_part(tokens, weights, SIBLING, h, m, h, mask, out, totals)
            _count_part(tokens, weights, INNER, h, m, m, mask, out, totals)
            _count_part(tokens, weights, OUTER, h, m, m, mask, out, totals)
            if h != 0:
                for s in range(h + step, m, step):
                    _count_part(tokens, weights, SIBLING, h, m, s, mask, out, totals)
            for c in range(h + step, m, step):
                _count_part(tokens, weights, INNER, h, m, c, mask, out, totals)
            end = n + 1 if step == 1 else 0
            for c in range(m + step, end, step):
                _count_part(tokens, weights, OUTER, h, m, c, mask, out, totals)
    return totals


@numba.njit(cache=True, nogil=True)
def _factor_feature_counts(tokens, weights, group, heads, mods) -> np.ndarray:
    """(features, non-zero features) of the candidate factors ``_score_candidates`` scores (the same loop)."""
    mask = np.uint64(weights.shape[0] - 1)
    out = np.empty(MAX_FACTOR_FEATURES, dtype=np.int64)
    totals = np.zeros(2, dtype=np.int64)
    for c in range(heads.shape[0]):
        count = _factor_features(tokens, group, heads[c], mods[c], mask, out)
        totals[0] += count
        for i in range(count):
            if weights[out[i]] != 0.0:
                totals[1] += 1
    return totals


@checked(structure=NonLocalStructure)
def feature_counts(
    structure: NonLocalStructure,
    tokens: np.ndarray,
    weights: np.ndarray,
    allowed: np.ndarray,
    arc: np.ndarray,
) -> dict[str, int]:
    """The hashed features one sentence's scoring extracts over the ``allowed`` arcs (``arc``: their scores), and
    how many of them have a non-zero weight in the model: per arc, per second-order part, per candidate factor.
    Each array is checked against the sentence (ValueError naming it), before the kernels read them unchecked."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    n = tokens.shape[1] - 1
    allowed = check_allowed(allowed, n=n)
    arc = check_arc_scores(arc, "arc", n=n)
    base, extra = halves(weights)
    heads, mods = np.nonzero(allowed)
    indices, _ = _arcs_features(tokens, heads.astype(np.int64), mods.astype(np.int64), base.shape[0])
    parts, part_features, part_nonzero = _part_feature_counts(tokens, base, arc)
    candidates = factor_features = factor_nonzero = 0
    for name in structure.groups:
        group = GROUP_ID[name]
        f_heads, f_mods = _candidates(tokens, allowed, group, structure.lexicon_array)
        emitted, nonzero = _factor_feature_counts(tokens, extra, group, f_heads, f_mods)
        candidates += len(f_heads)
        factor_features += int(emitted)
        factor_nonzero += int(nonzero)
    return {
        "arc_features": len(indices),
        "arc_features_nonzero": int(np.count_nonzero(base[indices])),
        "parts": int(parts),
        "part_features": int(part_features),
        "part_features_nonzero": int(part_nonzero),
        "factor_candidates": candidates,
        "factor_features": factor_features,
        "factor_features_nonzero": factor_nonzero,
    }


# ---------------------------------------------------------------------------------------------------------------
# timing


@numba.njit(cache=True, nogil=True)
def _repeat_solve(arc, sib, inner, outer, calls: int) -> float:
    """``calls`` calls of the backbone DP (the sum of their values, so that none is optimised away)."""
    total = 0.0
    for _ in range(calls):
        total += _solve(arc, sib, inner, outer)[1]
    return total


def _median_seconds(function, repeats: int, prepare=None) -> float:
    """The median over ``repeats`` of one call's seconds (``prepare()``'s result, made untimed, is its argument)."""
    times = []
    for _ in range(repeats):
        argument = prepare() if prepare is not None else None
        start = time.perf_counter()
        function(argument)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@checked(
    structure=NonLocalStructure,
    backbone=Backbone,
    factors=Factors,
    repeats="positive",
    calls="positive",
    fixing="flag",
)
def unit_seconds(
    structure: NonLocalStructure,
    backbone,
    factors,
    *,
    repeats: int,
    calls: int = UNIT_CALLS,
    fixing: bool = True,
) -> dict[str, float]:
    """Seconds of one DP call, of one subgradient step beyond its DP call, of one fixing pass and of the search's
    set-up, on the sentence's scores at the root node (module docstring)."""
    sib, inner, outer = backbone.parts
    arc = backbone.arc
    solve = _median_seconds(lambda _: _repeat_solve(arc, sib, inner, outer, calls), repeats) / calls

    grid = structure.grid
    setup = _median_seconds(lambda _: _setup(structure, backbone, factors), repeats)
    problem = _Problem(backbone, factors, grid, structure.step_rule)
    valid = problem.valid
    p0 = np.where(valid, 1.0 / np.maximum(factors.size, 1)[:, None], 0.0)
    side = problem.side

    def fresh():
        """The root node's arrays, as the search starts them (made outside the timed calls)."""
        state = np.array([np.inf, -np.inf, -np.inf, 1.0, np.inf, np.inf, 1.0, 0.0])
        trees = np.full(side, -1, dtype=np.int64), np.full(side, -1, dtype=np.int64), np.zeros(side * side)
        return arc.copy(), np.ones(len(factors), dtype=bool), p0.copy(), np.zeros(len(factors)), state, trees

    def steps(arrays):
        node_arc, active, p, q, state, (best_heads, node_heads, gaps) = arrays
        # rounding inf (no bound certifies) and epsilon -1 (no stall): every one of the calls is a full step
        done = _subgradient(
            node_arc, arc, sib, inner, outer, factors.heads, factors.mods, factors.size, factors.score,
            problem.gain, active, p, q, state, best_heads, node_heads, gaps, np.inf, 0.0, -1.0, calls,
        )  # fmt: skip
        if done != calls:
            raise RuntimeError(f"the timed subgradient loop stopped after {abs(done)} of {calls} steps")

    step = _median_seconds(steps, repeats, fresh) / calls - solve
    fix = 0.0
    if fixing:

        def eliminate(arrays):
            node_arc, active, p, q, _, _ = arrays
            _eliminate(
                node_arc, sib, inner, outer, factors.heads, factors.mods, factors.size, factors.score, active, p,
                q, problem.rounding, grid or 0.0, -np.inf,
            )  # fmt: skip

        fix = _median_seconds(eliminate, repeats, fresh)
    return {"solve_unit_s": solve, "step_unit_s": max(step, 0.0), "fix_unit_s": fix, "setup_s": setup}


def _setup(structure: NonLocalStructure, backbone, factors) -> None:
    """What :func:`decoders.bnb.search.branch_and_bound` does before its first DP call."""
    factors.check(backbone.n)
    if structure.grid is not None:
        _check_grid(backbone, factors, structure.grid)
    _Problem(backbone, factors, structure.grid, structure.step_rule)


@checked(
    instance=ParseInstance,
    structure=NonLocalStructure,
    repeats="positive",
    every_unit="flag",
)
def measure_sentence(
    instance: ParseInstance,
    structure: NonLocalStructure,
    weights: np.ndarray,
    pruner: np.ndarray | None,
    *,
    time_limit: float,
    repeats: int,
    every_unit: bool = False,
) -> dict[str, Any]:
    """One sentence's row: the three stages timed as ``decode_bnb`` runs them (the search's deadline ``time_limit``
    after the start, as the harness sets it), the search's counters, the scoring's kernels timed again, the search's
    unit estimates (:func:`unit_seconds`; the fixing pass's only when the search made one, or ``every_unit``: the
    warm-up compiles every kernel) and the features it extracts (:func:`feature_counts`)."""
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or not time_limit > 0:
        raise ValueError(f"time_limit must be a number of seconds > 0; got {time_limit!r}")
    tokens = instance.tokens
    start = time.perf_counter()
    allowed = _unpruned(instance.n) if pruner is None else prune_heads(tokens, pruner, instance.k)
    pruned = time.perf_counter()
    backbone, factors = structure.parts(tokens, weights, allowed)
    scored = time.perf_counter()
    result = structure.search(backbone, factors, deadline=start + time_limit)
    searched = time.perf_counter()
    if not np.array_equal(allowed, instance.allowed):
        raise ConfigError(
            "the instance's allowed arcs are not those the given pruner keeps at its k: it was built with another "
            "pruner (give the instance set's own pruner, or rebuild the set)"
        )
    # the scoring's three kernels again, one by one (parts() runs them with its checks)
    base, extra = halves(weights)
    t0 = time.perf_counter()
    arc = arc_scores(tokens, base, allowed)
    t1 = time.perf_counter()
    second_order_scores(tokens, base, arc)
    t2 = time.perf_counter()
    sentence_factors(tokens, extra, allowed, structure.groups, structure.lexicon_array)
    t3 = time.perf_counter()
    stats = result.stats
    fixing = every_unit or stats["fixing_passes"] > 0
    units = unit_seconds(structure, backbone, factors, repeats=repeats, fixing=fixing)
    row = {
        "words": instance.n,
        "arcs": int(np.count_nonzero(allowed)),
        "factors": len(factors),
        "status": result.status,
        "dp_calls": int(stats["dp_calls"]),
        "subgradient_iterations": int(stats["subgradient_iterations"]),
        "lower_bound_calls": int(stats["dp_calls"] - stats["subgradient_iterations"]),
        "nodes": int(stats["nodes"]),
        "fixing_passes": int(stats["fixing_passes"]),
        "prune_s": pruned - start,
        "score_s": scored - pruned,
        "search_s": searched - scored,
        "total_s": searched - start,
        "score_arcs_s": t1 - t0,
        "score_parts_s": t2 - t1,
        "score_factors_s": t3 - t2,
        **units,
        "dp_s": stats["dp_calls"] * units["solve_unit_s"],
        "steps_s": stats["subgradient_iterations"] * units["step_unit_s"],
        "fixing_s": stats["fixing_passes"] * units["fix_unit_s"],
        **feature_counts(structure, tokens, weights, allowed, arc),
    }
    return row


@checked(instance=ParseInstance, big=np.ndarray, first_big="flag")
def paper_space_seconds(
    instance: ParseInstance, weights: np.ndarray, big: np.ndarray, first_big: bool
) -> tuple[float, float]:
    """Seconds of the backbone's scoring (arcs and second-order parts) of one sentence against the model's own
    weights and against ``big``, in the order ``first_big`` says."""
    base, _ = halves(weights)
    times = {}
    for name, vector in (("big", big), ("own", base)) if first_big else (("own", base), ("big", big)):
        start = time.perf_counter()
        arc = arc_scores(instance.tokens, vector, instance.allowed)
        second_order_scores(instance.tokens, vector, arc)
        times[name] = time.perf_counter() - start
    return times["own"], times["big"]


# ---------------------------------------------------------------------------------------------------------------
# the whole set


def _check_options(
    repeats: Any, sentences: Any, paper_space_bits: Any, paper_space_sentences: Any, time_limit: Any
):
    for name, value, minimum, optional in (
        ("repeats", repeats, 1, False),
        ("sentences", sentences, 1, True),
        ("paper_space_bits", paper_space_bits, 8, True),
        ("paper_space_sentences", paper_space_sentences, 0, False),
    ):
        if value is None and optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ConfigError(
                f"breakdown: {name} must be an integer >= {minimum}{' or null' if optional else ''}; got {value!r}"
            )
    if paper_space_bits is not None and paper_space_bits > 31:
        raise ConfigError(
            f"breakdown: paper_space_bits must be at most 31 (2^31 weights: 16 GiB); got {paper_space_bits}"
        )
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or not time_limit > 0:
        raise ConfigError(f"breakdown: time_limit must be a number of seconds > 0; got {time_limit!r}")


@checked(model=ParserModel, params="mapping")
def configured_structure(model: ParserModel, params: Mapping[str, Any]) -> NonLocalStructure:
    """The model's B&B structure with a ``bnb`` variant's search parameters (ConfigError for a model that is not a
    B&B model or a parameter ``decode_bnb`` does not take or refuses)."""
    structure = structure_of(model.structure, model.vocabulary)
    if not isinstance(structure, NonLocalStructure):
        raise ConfigError(
            f"breakdown: the model ({model.structure}) is not a branch-and-bound (factor groups) model"
        )
    if not isinstance(params, Mapping):
        raise ConfigError(f"breakdown: the variant's params must be a mapping, got {params!r}")
    try:
        settings = search_settings(**params)
    except TypeError as exc:
        raise ConfigError(f"breakdown: the variant's params are not bnb's: {exc}") from exc
    return replace(structure, **settings)


@checked(
    items="sequence", model=ParserModel, pruner=(np.ndarray, type(None)), params="mapping", progress="flag"
)
def measure_breakdown(
    items: Sequence[tuple[str, int, ParseInstance]],
    model: ParserModel,
    pruner: np.ndarray | None,
    params: Mapping[str, Any],
    *,
    time_limit: float,
    repeats: int = 3,
    sentences: int | None = None,
    paper_space_bits: int | None = 27,
    paper_space_sentences: int = 300,
    progress: bool = False,
) -> pd.DataFrame:
    """Per sentence of ``items`` (``(instance_id, size, ParseInstance)``, the first ``sentences``): the row of
    :func:`measure_sentence`, after one untimed warm-up on the median-size sentence; then, with
    ``paper_space_bits``, the backbone's scoring against the model's weights and against 2^bits weights on
    ``paper_space_sentences`` sentences spread over the set (columns ``paper_own_s`` / ``paper_big_s``, else NaN).
    A sentence during whose measurement numba compiled a kernel (a path the warm-up did not take) is measured again
    (``jit_retimed_s``: the compile seconds left out, as the harness does).
    ``pruner``: the pruner's weights (None for an unpruned set)."""
    _check_options(repeats, sentences, paper_space_bits, paper_space_sentences, time_limit)
    structure = configured_structure(model, params)
    items = list(items)[:sentences] if sentences is not None else list(items)
    if not items:
        raise ConfigError("breakdown: the instance set has no sentences")
    for instance_id, _, instance in items:
        if not isinstance(instance, ParseInstance):
            raise ConfigError(
                f"breakdown: instance {instance_id} is a {type(instance).__name__}, not a ParseInstance"
            )
        if (instance.pruner is None) != (pruner is None):
            raise ConfigError(
                f"breakdown: instance {instance_id} is {'un' if instance.pruner is None else ''}pruned, but a pruner "
                f"was {'' if pruner is not None else 'not '}given"
            )
    weights = model.numerator
    warm = items[warmup_index([instance.n for _, _, instance in items])][2]
    measure_sentence(warm, structure, weights, pruner, time_limit=time_limit, repeats=1, every_unit=True)
    rows = []
    for number, (instance_id, _, instance) in enumerate(items, 1):
        compiling: list[float] = []
        with _compile_timer(compiling.append):
            row = measure_sentence(
                instance, structure, weights, pruner, time_limit=time_limit, repeats=repeats
            )
        if compiling:  # numba compiled (or loaded) a kernel the warm-up did not need: measure again, compiled
            row = measure_sentence(
                instance, structure, weights, pruner, time_limit=time_limit, repeats=repeats
            )
        rows.append({"instance_id": instance_id, **row, "jit_retimed_s": sum(compiling)})
        if progress and number % 200 == 0:
            log.info("breakdown: %d of %d sentences", number, len(items))
    frame = pd.DataFrame(rows)
    frame["paper_own_s"] = np.nan
    frame["paper_big_s"] = np.nan
    if paper_space_bits is not None and paper_space_sentences > 0:
        # every page written: the vector is in memory (reads of untouched zeros would share one page)
        big = np.full(1 << paper_space_bits, 1.0)
        chosen = np.unique(np.linspace(0, len(items) - 1, min(paper_space_sentences, len(items))).astype(int))
        paper_space_seconds(warm, weights, big, True)
        for order, index in enumerate(chosen):
            own, far = paper_space_seconds(items[index][2], weights, big, order % 2 == 0)
            frame.loc[index, ["paper_own_s", "paper_big_s"]] = own, far
        del big
    return frame


@checked(measured="number", estimates="mapping", rest="text")
def split_seconds(
    measured: float, estimates: Mapping[str, float], rest: str
) -> tuple[dict[str, float], float]:
    """``estimates`` (non-negative seconds) and ``rest``, the measured time they leave; estimates that exceed the
    measured time are scaled down to it (returned: the scale, 1 when they fit)."""
    for name, value in estimates.items():
        check_float(value, f"estimates[{name!r}]")
    if any(value < 0 for value in estimates.values()) or measured < 0:
        raise ValueError(f"seconds must be >= 0: measured {measured}, estimates {dict(estimates)}")
    total = sum(estimates.values())
    scale = measured / total if total > measured else 1.0
    parts = {name: value * scale for name, value in estimates.items()}
    parts[rest] = max(measured - sum(parts.values()), 0.0)
    return parts, scale


@checked(frame="frame", model=ParserModel, structure=NonLocalStructure)
def summarize(frame: pd.DataFrame, model: ParserModel, structure: NonLocalStructure) -> dict[str, Any]:
    """The set's totals: seconds per component (:data:`COMPONENTS`, summing to the measured total), counters,
    features per scored arc, templates and weights, and the weight-space measurement."""
    scoring, scoring_scale = split_seconds(
        float(frame["score_s"].sum()),
        {
            "arcs": float(frame["score_arcs_s"].sum()),
            "second-order parts": float(frame["score_parts_s"].sum()),
            "factors": float(frame["score_factors_s"].sum()),
        },
        "checks and assembly",
    )
    search, search_scale = split_seconds(
        float(frame["search_s"].sum()),
        {
            "DP calls": float(frame["dp_s"].sum()),
            "subgradient steps": float(frame["steps_s"].sum()),
            "reduced-cost fixing": float(frame["fixing_s"].sum()),
            "set-up": float(frame["setup_s"].sum()),
        },
        "node loop and branching",
    )
    seconds = {"pruning": float(frame["prune_s"].sum()), **scoring, **search}
    components = [{"stage": stage, "component": name, "seconds": seconds[name]} for stage, name in COMPONENTS]
    base, extra = halves(model.numerator)
    arcs = int(frame["arcs"].sum())
    templates = template_counts(structure.groups)
    backbone_templates = sum(
        templates[key] for key in ("arc", "sibling", "inner_grandchild", "outer_grandchild")
    )
    sampled = frame["paper_own_s"].notna()
    return {
        "sentences": len(frame),
        "words": int(frame["words"].sum()),
        "total_seconds": float(frame["total_s"].sum()),
        "components": components,
        "estimate_scale": {"scoring": scoring_scale, "search": search_scale},
        "optimal_pct": 100.0 * float((frame["status"] == "optimal").mean()),
        "counts": {
            key: int(frame[key].sum())
            for key in (
                "dp_calls",
                "lower_bound_calls",
                "subgradient_iterations",
                "fixing_passes",
                "nodes",
                "factors",
                "arcs",
                "parts",
                "factor_candidates",
            )
        },  # fmt: skip
        "features_per_arc": {
            "arc": float(frame["arc_features"].sum()) / arcs,
            "arc_nonzero": float(frame["arc_features_nonzero"].sum()) / arcs,
            "parts": float(frame["part_features"].sum()) / arcs,
            "parts_nonzero": float(frame["part_features_nonzero"].sum()) / arcs,
            "factors": float(frame["factor_features"].sum()) / arcs,
            "factors_nonzero": float(frame["factor_features_nonzero"].sum()) / arcs,
        },
        "templates": templates,
        "backbone_templates": backbone_templates,
        "hashed_variants": 2,  # every template hashed plain and with direction (and distance)
        "weights": {
            "size": int(model.numerator.shape[0]),
            "backbone_size": int(base.shape[0]),
            "backbone_nonzero": int(np.count_nonzero(base)),
            "factor_size": int(extra.shape[0]),
            "factor_nonzero": int(np.count_nonzero(extra)),
        },
        "paper_space": {
            "sentences": int(sampled.sum()),
            "own_seconds": float(frame.loc[sampled, "paper_own_s"].sum()),
            "big_seconds": float(frame.loc[sampled, "paper_big_s"].sum()),
            "ratio": float(frame.loc[sampled, "paper_big_s"].sum() / frame.loc[sampled, "paper_own_s"].sum())
            if sampled.any()
            else None,
        },
        "backbone_scoring_seconds": seconds["arcs"] + seconds["second-order parts"],
    }


@checked(index="path", shards="paths")
def read_instance_set(index: str | Path, shards: Sequence[str | Path]) -> list[tuple[str, int, Any]]:
    """Every ``(instance_id, size, instance)`` of an instance set, in its index's order."""
    by_id = {item[0]: item for path in shards for item in read_instance_shard(path)}
    order = read_instance_index(index)
    missing = [i for i in order if i not in by_id]
    if missing:
        raise ConfigError(f"{index}: {len(missing)} instances (first {missing[0]!r}) are in no shard given")
    return [by_id[i] for i in order]


@checked(
    index="path",
    shards="paths",
    model="path",
    pruner="path?",
    records_out="path",
    summary_out="path",
    set_name="text",
    variant="text",
    params="mapping",
)
def breakdown_job(
    index: str,
    shards: Sequence[str],
    model: str,
    pruner: str | None,
    records_out: str,
    summary_out: str,
    *,
    set_name: str,
    variant: str,
    params: Mapping[str, Any],
    time_limit: float,
    repeats: int = 3,
    sentences: int | None = None,
    paper_space_bits: int | None = 27,
    paper_space_sentences: int = 300,
) -> None:
    """The rule ``bnb_breakdown``: measure an instance set with a variant's parameters (the model and pruner
    files given: those the set was built with, which the pruning check confirms), write the per-sentence parquet
    and the summary."""
    items = read_instance_set(index, shards)
    loaded = ParserModel.load(model)
    pruner_weights = None if pruner is None else ParserModel.load(pruner).numerator
    started = time.perf_counter()
    frame = measure_breakdown(
        items, loaded, pruner_weights, params, time_limit=time_limit, repeats=repeats, sentences=sentences,
        paper_space_bits=paper_space_bits, paper_space_sentences=paper_space_sentences, progress=True,
    )  # fmt: skip
    summary = summarize(frame, loaded, configured_structure(loaded, params))
    summary = {
        "set": set_name,
        "variant": variant,
        "params": dict(params),
        "time_limit": time_limit,
        "repeats": repeats,
        "unit_calls": UNIT_CALLS,
        "paper_space_bits": paper_space_bits,
        "job_seconds": time.perf_counter() - started,
        **summary,
    }
    write_parquet_atomic(records_out, frame)
    write_json_atomic(summary_out, summary)
