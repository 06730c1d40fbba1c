"""The sixth experiment's instances: seeded score vectors."""

from __future__ import annotations

import numpy as np


def score_sets(count: int, size: int, seed: int) -> list[tuple[str, int, np.ndarray]]:
    """``count`` (instance_id, size, scores) triples of ``size`` normal scores each."""
    rng = np.random.default_rng(seed)
    return [(f"set-{i}", size, rng.normal(size=size)) for i in range(count)]
