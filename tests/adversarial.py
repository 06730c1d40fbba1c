"""Hypothesis generators shared by the adversarial suites (tests/test_*_adversarial.py): weight arrays with ties
everywhere, magnitudes from 1e-9 to 1e12 mixed within one array, and forbidden (-inf) entries."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

MAGNITUDES = (1e-9, 1e-3, 1.0, 1e3, 1e9, 1e12)


@st.composite
def entries(draw, shape: tuple[int, ...], forbid: bool) -> np.ndarray:
    """Small integers (ties everywhere) or free floats, each scaled by a magnitude drawn per array or per entry;
    with ``forbid``, some entries -inf."""
    size = int(np.prod(shape))
    if draw(st.booleans()):
        base = draw(st.lists(st.integers(-3, 3), min_size=size, max_size=size))
    else:
        base = draw(st.lists(st.floats(-4.0, 4.0, allow_nan=False, width=64), min_size=size, max_size=size))
    values = np.array(base, dtype=np.float64)
    if draw(st.booleans()):
        values *= draw(st.sampled_from(MAGNITUDES))
    else:
        values *= np.array(draw(st.lists(st.sampled_from(MAGNITUDES), min_size=size, max_size=size)))
    if forbid and size:
        values[np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)))] = -np.inf
    return values.reshape(shape)
