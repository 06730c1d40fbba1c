"""The chains experiment's settings (config/chains.yaml): the names they use refer to its own datasets, models
and variants (decoders.config.check_references calls :func:`problems`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def problems(chains: Mapping[str, Any]) -> list[str]:
    """The chains experiment's names refer to its own datasets, models and variants."""
    problems = []
    for key in ("pos", "joint"):
        problems += [
            f"experiments.chains.{key}: {d!r} is not one of its datasets"
            for d in chains[key]
            if d not in chains["datasets"]
        ]
    figure = chains["figure2"]
    for key, name, where in [
        ("model", chains["model"], "models"),
        *(("figure2.datasets", d, "datasets") for d in figure["datasets"]),
        *(("figure2.models", m, "models") for m in figure["models"]),
        *(("figure2.variants", v, "variants") for v in figure["variants"]),
        *((f"runs.{run}", v, "variants") for run, names in chains["runs"].items() for v in names),
    ]:
        if name not in chains[where]:
            problems.append(f"experiments.chains.{key}: {name!r} is not one of experiments.chains.{where}")
    return problems
