"""95% intervals of speed ratios: a paired bootstrap over instances plus the run-to-run noise of the clock.

A speed ratio is a ratio of totals, ``sum(numerator seconds) / sum(denominator seconds)`` over the same
instances: Viterbi's seconds over column generation's is CG's speed-up. Products of such totals are allowed
(``numerators`` and ``denominators`` may each hold several columns), so that a ratio between two variants
each timed beside a common reference (``(ref_A / A) / (ref_B / B)``) is estimated from the same instances too.

Two sources of spread enter the interval, on the log scale where both act multiplicatively:

- Instance sampling: ``samples`` bootstrap replicates of the log ratio, each from a resample of the instance ids
  (with replacement; every column of an instance moves with it, so the pairing is kept).
- Run-to-run noise: the same timing repeated in separate processes on a seeded sample of instances gives one log
  ratio per process (:func:`process_log_ratio`); their standard deviation ``s`` over ``k`` processes measures how
  far one run's ratio strays from another's. Each bootstrap replicate gets an independent draw of
  ``s * T`` with ``T`` Student's t with ``k - 1`` degrees of freedom: t rather than normal because ``s`` itself is
  estimated from few processes (with 3, the 97.5% point is 4.3 rather than 1.96), so that the interval stays
  honest when ``k`` is small. The deviation is measured on the sample, where each process's per-instance noise
  averages over fewer instances than on the whole set: the term is, if anything, too wide.

The interval is the 2.5% and 97.5% percentiles of the combined replicates, exponentiated. Everything is
deterministic given ``seed`` (numpy's default generator).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

#: Bootstrap replicates per interval, unless a table says otherwise.
BOOTSTRAP_SAMPLES = 2000

#: Coverage of the intervals.
LEVEL = 0.95


@dataclass(frozen=True)
class RatioInterval:
    """A ratio of totals with its interval (``low`` and ``high`` NaN when no interval could be formed)."""

    estimate: float
    low: float
    high: float


def paired_seconds(
    numerators: pd.DataFrame | pd.Series, denominators: pd.DataFrame | pd.Series
) -> pd.DataFrame:
    """The numerator and denominator seconds side by side, one row per instance id (the index of both).

    ValueError names the problem: no instances, instance ids that differ between the two sides (or repeat), or a
    time that is missing, not finite, or not positive (a ratio of totals needs every instance on both sides).
    """
    numerators, denominators = _frame(numerators, "numerators"), _frame(denominators, "denominators")
    for name, frame in (("numerators", numerators), ("denominators", denominators)):
        if frame.empty:
            raise ValueError(f"{name}: no instances (a ratio needs at least one on each side)")
        if not frame.index.is_unique:
            repeated = sorted(map(str, frame.index[frame.index.duplicated()].unique()))[:5]
            raise ValueError(f"{name}: instance ids repeat: {', '.join(repeated)}")
    if set(numerators.index) != set(denominators.index):
        only_num = sorted(map(str, set(numerators.index) - set(denominators.index)))[:5]
        only_den = sorted(map(str, set(denominators.index) - set(numerators.index)))[:5]
        raise ValueError(
            "numerators and denominators must hold the same instances; "
            f"only in numerators: {only_num or 'none'}, only in denominators: {only_den or 'none'}"
        )
    joined = pd.concat(
        [numerators.add_prefix("num:"), denominators.reindex(numerators.index).add_prefix("den:")], axis=1
    )
    values = joined.to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise ValueError(
            f"seconds must be positive and finite: instance {joined.index[row]!r}, column "
            f"{joined.columns[column]!r} holds {float(values[row, column])!r}"
        )
    return joined


def _frame(side: pd.DataFrame | pd.Series, name: str) -> pd.DataFrame:
    if isinstance(side, pd.Series):
        return side.to_frame(name=side.name if side.name is not None else name)
    if isinstance(side, pd.DataFrame):
        if side.shape[1] == 0:
            raise ValueError(f"{name}: no columns of seconds")
        return side
    raise TypeError(f"{name} must be a pandas Series or DataFrame of seconds, not {type(side).__name__}")


def _log_ratio(sums: np.ndarray, numerators: int) -> np.ndarray:
    """log(prod of numerator totals / prod of denominator totals), along the last axis."""
    logs = np.log(sums)
    return logs[..., :numerators].sum(axis=-1) - logs[..., numerators:].sum(axis=-1)


#: What a ratio compares of each column's seconds: their total (the default: a speed over the whole set) or
#: their median (a typical instance's time, as the titles paper quotes it).
STATISTICS = ("total", "median")


def _check_statistic(statistic: str) -> str:
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got {statistic!r}")
    return statistic


def ratio_of_totals(
    numerators: pd.DataFrame | pd.Series, denominators: pd.DataFrame | pd.Series, statistic: str = "total"
) -> float:
    """The product of the numerator columns' totals over the product of the denominator columns' totals, over the
    same instances (checked by :func:`paired_seconds`); with ``statistic="median"``, of their medians."""
    joined = paired_seconds(numerators, denominators)
    count = sum(column.startswith("num:") for column in joined.columns)
    values = joined.to_numpy(dtype=float)
    summary = values.sum(axis=0) if _check_statistic(statistic) == "total" else np.median(values, axis=0)
    return float(math.exp(_log_ratio(summary, count)))


def bootstrap_log_ratios(
    numerators: pd.DataFrame | pd.Series,
    denominators: pd.DataFrame | pd.Series,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    statistic: str = "total",
) -> np.ndarray:
    """``samples`` replicates of the log ratio of totals (or medians), each over a resample (with replacement) of
    the instance ids, both sides of an instance together."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be an integer >= 1, got {samples!r}")
    joined = paired_seconds(numerators, denominators)
    count = sum(column.startswith("num:") for column in joined.columns)
    values = joined.to_numpy(dtype=float)
    n = len(values)
    rng = np.random.default_rng(seed)
    if _check_statistic(statistic) == "total":  # how often each instance is drawn, then weighted sums
        return _log_ratio(rng.multinomial(n, np.full(n, 1.0 / n), size=samples) @ values, count)
    return _log_ratio(np.median(values[rng.integers(0, n, size=(samples, n))], axis=1), count)


def process_log_ratio(
    numerators: pd.DataFrame | pd.Series, denominators: pd.DataFrame | pd.Series, statistic: str = "total"
) -> float:
    """The log ratio of totals (or medians) that one process measured on the noise sample."""
    return math.log(ratio_of_totals(numerators, denominators, statistic))


def process_spread(log_ratios: Sequence[float]) -> tuple[float, int]:
    """(standard deviation, degrees of freedom) of the log ratios that separate processes measured on the same
    instances; ValueError when fewer than two or one is not finite."""
    values = np.asarray(log_ratios, dtype=float)
    if values.ndim != 1 or values.size < 2:
        raise ValueError(f"log_ratios: need at least two processes' log ratios, got {values.size}")
    if not np.isfinite(values).all():
        raise ValueError(f"log_ratios must be finite, got {values.tolist()!r}")
    return float(values.std(ddof=1)), int(values.size - 1)


def ratio_interval(
    numerators: pd.DataFrame | pd.Series,
    denominators: pd.DataFrame | pd.Series,
    process_log_ratios: Sequence[float] | None,
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    statistic: str = "total",
) -> RatioInterval:
    """The ratio of totals (or medians) with its ``level`` interval: bootstrap log-ratio replicates over
    instances, each plus a draw of the between-process deviation (``s * t(k - 1)`` from ``process_log_ratios``,
    measured with the same statistic; None: instance sampling only, for a test that needs it)."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    estimate = ratio_of_totals(numerators, denominators, statistic)
    replicates = bootstrap_log_ratios(numerators, denominators, samples, seed, statistic)
    if process_log_ratios is not None:
        spread, freedom = process_spread(process_log_ratios)
        rng = np.random.default_rng([seed, 1])  # a stream of its own: the bootstrap's stays as without noise
        replicates = replicates + spread * stats.t.rvs(freedom, size=replicates.size, random_state=rng)
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.exp(np.percentile(replicates, [tail, 100.0 - tail]))
    return RatioInterval(estimate, float(low), float(high))


def method_note(samples: int, sample: int, processes: int, seed: int, level: float = LEVEL) -> str:
    """The sentence a table prints under itself to say how its intervals were made."""
    return (
        f"`*_lo`, `*_hi`: {100 * level:g}% interval of the ratio: {samples} bootstrap resamples of the instances "
        "(both sides of an instance together), each plus a draw of the run-to-run noise, s * t(k - 1), where s is "
        f"the standard deviation of the log ratio over k = {processes + 1} separate processes ({processes} "
        f"retimings in fresh processes plus the run itself) on a seeded sample of {sample} instances per set "
        f"(seed {seed}); percentile interval."
    )
