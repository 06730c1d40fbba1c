"""Claimed optima cross-checked against the project's certified exact answers on the same instances.

The harness runs an experiment's ``verify`` on every ``optimal`` record, but ``verify`` proves optimality from
the instance alone only where it can: titles' enumerates every title up to a number of orderings, bnb's every
tree up to 7 words, linking's every choice up to a number of them; beyond that it checks only that the
structure is feasible (for linking: that no single set can move to lower the cost), that it scores the
objective and that the bound equals it. A decoder that labels a cheap answer ``optimal`` with its own score as
the bound passes there. So when the tables are built every such claim is compared with the best optimum that a
*different* certified variant (one of the project's exact decoders, listed per experiment by its tables module
as a :class:`Certified`) reached on the same instance; where ``verify`` proves claims from the instance
(chains', ppc's first-order trees) this is a second opinion:

- a claim worse than that certified optimum (below it for a maximisation, above for a minimisation) is false:
  the record becomes status ``error`` with the reason naming the variant and its value in ``stats["error"]``,
  the claim kept in ``stats["claimed"]`` and the decoder's stats in ``stats["decoder_stats"]``, as the runner
  records a rejected certificate (:func:`decoders.harness.runner.checked`);
- a claim better than every certified optimum, and certified variants that disagree with each other, are not
  settled by the records (the better objective may come from a structure the verifier could not fully check,
  or a certified decoder may be wrong): they are counted and shown (:func:`cross_check_counts`,
  :func:`cross_check_note`), and a certified variant's record is never rewritten.

Two objectives agree within ``rtol`` of the larger of their magnitudes (relative, never absolute, as the
verifiers compare scores; equal infinities agree). A claim on an instance without a certified answer from
another variant is kept and counted as unchecked.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from decoders.harness.records import EXACT_RTOL, RECORD_COLUMNS, RecordError, to_json

SENSES = ("max", "min")
#: The ``stats`` key marking a record the cross-check rejected (it holds the certified variant and its value).
MARK = "cross_check"
COUNT_COLUMNS = ("variant", "certified", "claims", "checked", "unchecked", "agree", "worse", "better")


@dataclass(frozen=True)
class Certified:
    """What an experiment's claims are cross-checked against: its certified exact ``variants``, whether its
    objective is maximised (``sense="max"``) or minimised, the columns that name one instance (``keys``: a
    problem solved, so a column beyond dataset and instance where variants of one dataset solve different
    problems), and the relative tolerance ``rtol`` (by default the harness's, that of the verifiers of chains,
    titles and linking)."""

    variants: tuple[str, ...]
    sense: str = "max"
    keys: tuple[str, ...] = ("dataset", "instance_id")
    rtol: float = EXACT_RTOL

    def __post_init__(self) -> None:
        if (
            isinstance(self.variants, str)
            or not self.variants
            or not all(isinstance(v, str) and v for v in self.variants)
        ):
            raise ValueError(f"variants must be a non-empty tuple of variant names; got {self.variants!r}")
        if self.sense not in SENSES:
            raise ValueError(f"sense must be one of {', '.join(SENSES)}; got {self.sense!r}")
        if isinstance(self.keys, str) or not self.keys or not all(isinstance(k, str) for k in self.keys):
            raise ValueError(f"keys must be a non-empty tuple of column names; got {self.keys!r}")
        if isinstance(self.rtol, bool) or not isinstance(self.rtol, int | float) or not 0 <= self.rtol < 1:
            raise ValueError(f"rtol must be a number in [0, 1); got {self.rtol!r}")


def _check_frame(frame: pd.DataFrame, certified: Certified) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise RecordError(f"frame must be a pandas DataFrame of result records; got {type(frame).__name__}")
    if not isinstance(certified, Certified):
        raise ValueError(f"certified must be a Certified; got {type(certified).__name__}")
    needed = dict.fromkeys([*certified.keys, "variant", "status", "objective", "bound", "structure", "stats"])
    missing = [name for name in needed if name not in frame.columns]
    if missing:
        raise RecordError(f"result records lack the column(s) {', '.join(missing)} the cross-check needs")


def _references(frame: pd.DataFrame, certified: Certified) -> pd.DataFrame:
    """Per ``optimal`` record (``row``: its position in ``frame``; ``variant``): the best certified optimum of
    another variant on its instance, ``reference`` (NaN where none) and ``by`` (its variant), and the record's
    ``verdict``: ``unchecked``, ``agree``, ``worse`` (a claim below a certified maximum, above a certified
    minimum) or ``better``."""
    keys = list(certified.keys)
    claims = frame[[*keys, "variant", "objective"]].assign(_row=np.arange(len(frame)))
    claims = claims[(frame["status"] == "optimal").to_numpy()]
    sign = 1.0 if certified.sense == "max" else -1.0
    pool = claims[claims["variant"].isin(certified.variants) & claims["objective"].notna()]
    pool = pool.assign(_value=sign * pool["objective"].astype(float))
    pool = pool.sort_values([*keys, "_value", "variant"], ascending=[*([True] * len(keys)), False, True])
    rank = pool.groupby(keys, sort=False, dropna=False).cumcount()
    # the best and the second best certified answer of each instance: a record of the best variant is
    # compared with the second (a different variant), every other record with the best
    best = [pool[rank == i][[*keys, "variant", "objective"]] for i in (0, 1)]
    joined = claims.merge(
        best[0].rename(columns={"variant": "_by0", "objective": "_ref0"}), on=keys, how="left"
    )
    joined = joined.merge(
        best[1].rename(columns={"variant": "_by1", "objective": "_ref1"}), on=keys, how="left"
    )
    own = (joined["variant"] == joined["_by0"]).to_numpy()
    by = np.where(own, joined["_by1"], joined["_by0"])
    reference = np.where(own, joined["_ref1"], joined["_ref0"]).astype(float)
    claim = joined["objective"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        scale = np.maximum(np.abs(claim), np.abs(reference))
        close = (claim == reference) | (
            np.isfinite(claim)
            & np.isfinite(reference)
            & (np.abs(claim - reference) <= certified.rtol * scale)
        )
        worse = ~close & (sign * claim < sign * reference)
        better = ~close & (sign * claim > sign * reference)
    unchecked = np.isnan(reference) | np.isnan(claim)
    verdict = np.select([unchecked, worse, better], ["unchecked", "worse", "better"], "agree")
    return pd.DataFrame(
        {
            "row": joined["_row"],
            "variant": joined["variant"],
            "reference": reference,
            "by": by,
            "verdict": verdict,
        }
    )


def _reason(claim: float, by: str, reference: float, sense: str) -> str:
    side = ">" if sense == "max" else "<"
    kind = "maximum" if sense == "max" else "minimum"
    return (
        f"cross-check failed: the certified variant {by!r} reaches {reference!r} {side} the claimed optimum "
        f"{claim!r} on the same instance (a {kind}; the claim is not optimal)"
    )


def _stats(text: object) -> dict:
    """A record's ``stats`` as a dict (empty for a missing or non-object value)."""
    value = json.loads(text) if isinstance(text, str) and text else {}
    return value if isinstance(value, dict) else {}


def _rejected_stats(claim: pd.DataFrame, false: pd.DataFrame, sense: str) -> list[str]:
    """The ``stats`` of each rejected claim (rows of ``claim``, their references in ``false``), as the runner
    writes a rejected certificate's: the reason, the claim and the decoder's own stats."""
    return [
        to_json(
            {
                "error": _reason(float(objective), by, float(reference), sense),
                "claimed": {"objective": float(objective), "bound": float(bound), "status": status},
                "decoder_stats": _stats(stats),
                MARK: {"variant": by, "objective": float(reference)},
            }
        )
        for objective, bound, status, stats, by, reference in zip(
            claim["objective"],
            claim["bound"],
            claim["status"],
            claim["stats"],
            false["by"],
            false["reference"],
            strict=True,
        )
    ]


def cross_check(frame: pd.DataFrame, certified: Certified) -> pd.DataFrame:
    """``frame`` (result records) with every ``optimal`` claim of a variant not in ``certified.variants`` that
    is worse than another certified variant's optimum on the same instance turned into an ``error`` record:
    objective, bound and structure cleared, the task's evaluation columns cleared (as a rejected certificate's
    record has none), ``stats`` holding the reason, the claim and the decoder's stats. Everything else is kept
    as it was; applying it twice changes nothing more. An empty frame is returned as it is."""
    if isinstance(frame, pd.DataFrame) and frame.empty:
        return frame
    _check_frame(frame, certified)
    found = _references(frame, certified)
    false = found[(found["verdict"] == "worse") & ~found["variant"].isin(certified.variants)]
    if false.empty:
        return frame
    result = frame.copy()
    rows = false["row"].to_numpy()
    evaluation = [
        c
        for c in result.columns
        if c not in RECORD_COLUMNS and c not in certified.keys and pd.api.types.is_numeric_dtype(result[c])
    ]
    result[evaluation] = result[evaluation].astype(float)
    fields = {
        "stats": _rejected_stats(result.iloc[rows], false, certified.sense),
        "status": "error",
        "objective": math.nan,
        "bound": math.nan,
        "structure": to_json(None),
        **dict.fromkeys(evaluation, math.nan),
    }
    for column, value in fields.items():
        result.iloc[rows, result.columns.get_loc(column)] = value
    return result


def _marked(frame: pd.DataFrame) -> np.ndarray:
    """Which records :func:`cross_check` rejected (an ``error`` whose stats carry :data:`MARK`)."""
    errors = (frame["status"] == "error").to_numpy()
    stats = frame["stats"].to_numpy()
    return np.array([bool(e) and MARK in _stats(t) for e, t in zip(errors, stats, strict=True)], dtype=bool)


def cross_check_counts(frame: pd.DataFrame, certified: Certified) -> pd.DataFrame:
    """Per variant with an ``optimal`` claim (rejected ones included), after :func:`cross_check`: ``claims``,
    those ``checked`` against another certified variant's optimum on their instance and those ``unchecked``
    (no such answer); of the checked, those that ``agree`` within the tolerance, are ``worse`` (the rejected
    ones, now errors; for a certified variant, kept: a disagreement between certified variants) or ``better``
    than it (a disagreement). ``certified`` says whether the variant is one of the certified ones."""
    if frame.empty:
        return pd.DataFrame(
            {name: pd.Series(dtype=object if name == "variant" else int) for name in COUNT_COLUMNS}
        )
    _check_frame(frame, certified)
    found = _references(frame, certified)
    rejected = frame.loc[_marked(frame), "variant"]
    names = sorted(set(found["variant"]) | set(rejected))
    rows = []
    for name in names:
        verdicts = found.loc[found["variant"] == name, "verdict"].value_counts()
        worse = int(verdicts.get("worse", 0) + (rejected == name).sum())
        agree, better, unchecked = (int(verdicts.get(v, 0)) for v in ("agree", "better", "unchecked"))
        rows.append(
            {
                "variant": name,
                "certified": name in certified.variants,
                "claims": agree + worse + better + unchecked,
                "checked": agree + worse + better,
                "unchecked": unchecked,
                "agree": agree,
                "worse": worse,
                "better": better,
            }
        )
    return pd.DataFrame(rows, columns=list(COUNT_COLUMNS))


def _listed(counts: pd.DataFrame, column: str) -> str:
    shown = counts[counts[column] > 0]
    return ", ".join(f"{row.variant} {getattr(row, column)}" for row in shown.itertuples()) or "none"


def cross_check_note(counts: pd.DataFrame, certified: Certified) -> str:
    """One line for a table's notes: what was cross-checked against what, and every disagreement by variant
    (from :func:`cross_check_counts`)."""
    worse_word, better_word = ("below", "above") if certified.sense == "max" else ("above", "below")
    ours = counts["certified"].astype(bool)
    return (
        f"Cross-check of optimal claims against the certified optima of another variant on the same instance "
        f"(certified: {', '.join(certified.variants)}; agreement within {certified.rtol:g} of the larger "
        f"magnitude): {int(counts['checked'].sum())} claims checked, "
        f"{int(counts['unchecked'].sum())} without a certified answer (unchecked); "
        f"rejected as {worse_word} a certified optimum, now errors: {_listed(counts[~ours], 'worse')}; "
        f"{better_word} every certified optimum: {_listed(counts, 'better')}; "
        f"certified variants {worse_word} another's: {_listed(counts[ours], 'worse')}."
    )
