"""Holm's correction against its definition, and the bootstrap p-value's edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from decoders.tables.stats import bootstrap_p_value, holm


def holm_by_definition(p: list[float]) -> list[float]:
    """Each adjusted value straight from the definition: the largest over the smaller-or-equal p-values of
    min(1, (m - rank) p), ranks by a stable sort."""
    made = [(value, i) for i, value in enumerate(p) if not math.isnan(value)]
    ranked = sorted(made, key=lambda pair: pair[0])
    m = len(ranked)
    out = [math.nan] * len(p)
    for j, (_, i) in enumerate(ranked):
        out[i] = max(min(1.0, (m - r) * ranked[r][0]) for r in range(j + 1))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_holm_matches_its_definition(seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, size=rng.integers(1, 12)).round(3).tolist()  # rounding makes ties
    if seed % 3 == 0:
        p[0] = math.nan
    np.testing.assert_allclose(holm(p), holm_by_definition(p), equal_nan=True)


def test_holm_edge_cases():
    assert holm([]).shape == (0,)
    assert np.isnan(holm([math.nan])).all()
    assert holm([0.3]).tolist() == [0.3]
    assert holm([0.9, 0.8]).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="lie in"):
        holm([0.1, 1.5])
    with pytest.raises(ValueError, match="one-dimensional"):
        holm([[0.1]])


def test_bootstrap_p_value():
    assert bootstrap_p_value([1.0, 2.0, 3.0]) == 0.0
    assert bootstrap_p_value([-1.0, 1.0]) == 1.0
    assert bootstrap_p_value([-1.0, 1.0, 2.0, 3.0]) == 0.5
    assert math.isnan(bootstrap_p_value([]))
    assert bootstrap_p_value([0.5, 0.7], null=1.0) == 0.0
