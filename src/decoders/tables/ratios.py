"""Speed ratios out of result records, with their 95% intervals (:mod:`decoders.tables.intervals`).

A comparison is a function of a record frame that returns the numerator and denominator seconds of a ratio,
indexed by instance id (:data:`Sides`), or None where the frame lacks them. It is applied to a run's gathered
records and to each process of the noise jobs' retimings (records under results/noise/, a ``process`` column
each), so that the same ratio is measured the same way in both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from decoders.harness.records import read_records
from decoders.tables.intervals import (
    BOOTSTRAP_SAMPLES,
    RatioInterval,
    method_note,
    paired_seconds,
    process_log_ratio,
    ratio_interval,
)

#: Numerator and denominator seconds of a ratio (one column each, or several whose totals multiply).
Sides = tuple[pd.DataFrame | pd.Series, pd.DataFrame | pd.Series]
Comparison = Callable[[pd.DataFrame], Sides | None]


def instance_seconds(
    records: pd.DataFrame, dataset: str, variant: str, column: str = "seconds"
) -> pd.Series | None:
    """One variant's seconds on one instance set, indexed by instance id: ``seconds``, or a ``stats`` entry
    (``reference_seconds``: the reference timed beside it; ``call_seconds``: per Python call, the record's
    ``seconds`` where the decoder has no compiled loop). None when the records lack the variant or a value."""
    rows = records[(records["dataset"] == dataset) & (records["variant"] == variant)]
    if rows.empty:
        return None
    if column == "seconds":
        values = rows["seconds"].tolist()
    else:
        fallback = rows["seconds"] if column == "call_seconds" else [None] * len(rows)
        values = [
            json.loads(stats).get(column, own) for stats, own in zip(rows["stats"], fallback, strict=True)
        ]
    if any(value is None for value in values):
        return None
    return pd.Series(values, index=rows["instance_id"].to_numpy(), dtype=float)


def sides(numerators: list[pd.Series | None], denominators: list[pd.Series | None]) -> Sides | None:
    """Numerator and denominator columns as two frames, None if one is missing."""
    if any(side is None for side in [*numerators, *denominators]):
        return None
    return pd.concat(numerators, axis=1), pd.concat(denominators, axis=1)


def matched_sides(
    records: pd.DataFrame, dataset: str, variant: str, reference: str, column: str = "seconds"
) -> Sides | None:
    """``reference``'s seconds over ``variant``'s on the same instances, each from its own job (matched by
    instance id, not timed in one process)."""
    return sides(
        [instance_seconds(records, dataset, reference, column)],
        [instance_seconds(records, dataset, variant, column)],
    )


def records_interval(
    comparison: Comparison,
    records: pd.DataFrame,
    noise: pd.DataFrame | None,
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    noise_comparison: Comparison | None = None,
    statistic: str = "total",
) -> RatioInterval | None:
    """A ratio's interval from result records: ``comparison`` is applied to the run's ``records`` and to each
    process of the ``noise`` records, whose log ratios, with the run's own on the same sample of instances, make
    the noise term. None when the run lacks the comparison; without noise records for it, the interval covers
    instance sampling only (see :func:`decoders.tables.intervals.ratio_interval`).
    ``noise_comparison`` (default ``comparison``) is the one the noise is measured with: the whole set's ratio
    where ``comparison`` keeps a part of the set (a bucket of sentence lengths) that the sample barely holds.
    ``statistic``: a ratio of totals, or of medians (:data:`decoders.tables.intervals.STATISTICS`)."""
    noise_comparison = noise_comparison or comparison
    found = comparison(records)
    if found is None:
        return None
    logs: list[float] = []
    sample: pd.Index | None = None
    if noise is not None and len(noise):
        for process, frame in noise.groupby("process", sort=True):
            again = noise_comparison(frame)
            if again is None:
                continue
            ids = paired_seconds(*again).index
            if sample is not None and set(ids) != set(sample):
                raise ValueError(f"noise process {process}: times other instances than the earlier processes")
            sample = ids
            logs.append(process_log_ratio(*again, statistic))
    whole = noise_comparison(records) if sample is not None else None
    if whole is not None:
        missing = sorted(map(str, set(sample) - set(whole[1].index)))[:5]
        if missing:
            raise ValueError(f"noise records time instances the run lacks: {', '.join(missing)}")
        logs.append(process_log_ratio(whole[0].loc[sample], whole[1].loc[sample], statistic))
    noise_logs = logs if len(logs) > 1 else None
    return ratio_interval(*found, noise_logs, samples=samples, seed=seed, statistic=statistic)


def interval_bounds(
    comparison: Comparison,
    records: pd.DataFrame,
    noise: pd.DataFrame | None,
    seed: int,
    noise_comparison: Comparison | None = None,
) -> tuple[float, float]:
    """(low, high) of a ratio's 95% interval (:func:`records_interval`); NaN where the records lack it."""
    found = records_interval(comparison, records, noise, seed=seed, noise_comparison=noise_comparison)
    return (np.nan, np.nan) if found is None else (found.low, found.high)


def load_noise(paths: Iterable[str]) -> pd.DataFrame | None:
    """The noise jobs' records (a ``process`` column each), None without any."""
    frames = [read_records(path) for path in paths]
    return pd.concat(frames, ignore_index=True) if frames else None


def interval_note(settings: Mapping[str, Any], seed: int, noise: pd.DataFrame | None) -> str:
    """How an experiment's intervals were made (its ``harness.noise``), or that they lack the noise term."""
    noise_settings = settings.get("harness", {}).get("noise")
    if noise is None or not len(noise) or not noise_settings:
        return (
            f"`*_lo`, `*_hi`: 95% interval from {BOOTSTRAP_SAMPLES} bootstrap resamples of the instances (seed "
            f"{seed}) only: this run measured no run-to-run noise (no harness.noise)."
        )
    return method_note(BOOTSTRAP_SAMPLES, noise_settings["sample"], noise_settings["processes"], seed)
