"""The seed study of the experiments that train (bnb, ppc): the names of models trained again with other seeds,
and the spread of a result over seeds.

A model trained with the run's seed (config.yaml ``seed``) keeps its own name; with another seed it is
``<name>.seed<n>`` (a bnb model ``baseline.seed14``, a ppc instance set ``szeged.seed14``), so that the workflow's
rules train, prune and decode it as the model it repeats.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: What joins a name and a training seed in the names of the seed study's extra models (``baseline.seed14``).
SEED_MARK = ".seed"


def seeded_name(name: str, seed: int, run_seed: int) -> str:
    """The name of ``name`` trained with ``seed``: its own for the run's seed, else ``<name>.seed<seed>``."""
    return name if seed == run_seed else f"{name}{SEED_MARK}{seed}"


def unseeded(name: str) -> tuple[str, int | None]:
    """(name, seed) of a seed-study name; (name, None) for a name without a seed."""
    base, mark, seed = name.rpartition(SEED_MARK)
    return (base, int(seed)) if mark and seed.isdigit() else (name, None)


def spread(values: Mapping[int, float]) -> dict[str, float]:
    """A result per seed (NaN: not measured) as ``seed_<n>`` columns, and over the seeds measured their number,
    mean, standard deviation (n - 1 in the denominator) and range (largest minus smallest)."""
    known = np.array([value for value in values.values() if math.isfinite(value)])
    return {
        **{f"seed_{seed}": value for seed, value in values.items()},
        "seeds": len(known),
        "mean": float(known.mean()) if known.size else math.nan,
        "sd": float(known.std(ddof=1)) if known.size > 1 else math.nan,
        "range": float(np.ptp(known)) if known.size else math.nan,
    }


def seed_rows(
    keys: Mapping[str, Any],
    column: str,
    values: Mapping[str, Mapping[int, float]],
    minutes: Mapping[str, float],
) -> list[dict[str, Any]]:
    """The rows of a seeds table for one dataset: ``keys`` (e.g. the dataset) and, per name in ``column`` (a model
    or a variant), its result per seed with their :func:`spread` and its training minutes per seed; then each name
    after the first as a difference to the first, seed by seed (``"<name> - <first>"``, no minutes)."""
    names = list(values)
    rows = [
        {**keys, column: name, **spread(values[name]), "train_minutes_per_seed": minutes[name]}
        for name in names
    ]
    for name in names[1:]:
        gains = {seed: value - values[names[0]][seed] for seed, value in values[name].items()}
        rows.append(
            {**keys, column: f"{name} - {names[0]}", **spread(gains), "train_minutes_per_seed": math.nan}
        )
    return rows
