"""Statistics shared by the experiments' tables: corrections for many tests at once.

A table that makes many tests (one interval per model and dataset, say) finds a "significant" difference by chance
about once in twenty tests at the 5% level. Holm's step-down procedure (Holm 1979) controls the family-wise error
rate, the chance of even one false finding among the table's tests, at the stated level, and never rejects less
than Bonferroni's correction does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values, in the order given: reject test i at family-wise level alpha when the adjusted
    value is <= alpha. NaN entries (a test not made) stay NaN and do not count towards the family's size.

    The adjusted value of the j-th smallest of m p-values is max over i <= j of min(1, (m - i + 1) p_(i))."""
    values = np.asarray(p_values, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"p_values must be one-dimensional, got shape {values.shape}")
    made = ~np.isnan(values)
    if ((values[made] < 0) | (values[made] > 1)).any():
        bad = values[made][(values[made] < 0) | (values[made] > 1)][0]
        raise ValueError(f"p_values must lie in [0, 1], got {bad!r}")
    adjusted = np.full(values.shape, math.nan)
    index = np.flatnonzero(made)
    if not index.size:
        return adjusted
    order = index[np.argsort(values[index], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def bootstrap_p_value(replicates: Sequence[float], null: float = 0.0) -> float:
    """Two-sided p-value of ``null`` from bootstrap replicates of a statistic: twice the smaller tail share of the
    replicates on either side of ``null`` (counting ties on both sides), at most 1; NaN without replicates."""
    values = np.asarray(replicates, dtype=float)
    values = values[~np.isnan(values)]
    if not values.size:
        return math.nan
    below = float(np.mean(values <= null))
    above = float(np.mean(values >= null))
    return min(1.0, 2.0 * min(below, above))
