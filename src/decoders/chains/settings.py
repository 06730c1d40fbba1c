"""The chains experiment's settings (config/chains.yaml): the names they use refer to its own datasets, models
and variants (decoders.config.check_references calls :func:`problems`); the seed study's models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from decoders.seeds import SEED_MARK, seeded_name, unseeded


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
    spec = chains.get("seeds") or {}
    problems += [
        f"experiments.chains.seeds.{key}: {name!r} is not one of experiments.chains.{key}"
        for key in ("datasets", "variants")
        for name in spec.get(key, [])
        if name not in chains[key]
    ]
    problems += [
        f"experiments.chains.seeds.variants: {name!r} is not one of experiments.chains.runs.table1 (the run's own"
        " seed has no records of it)"
        for name in spec.get("variants", [])
        if name in chains["variants"] and name not in chains["runs"].get("table1", [])
    ]
    problems += [
        f"experiments.chains.models.{model}: the seed study names its models <model>{SEED_MARK}<seed>; rename it"
        for model in chains["models"]
        if unseeded(model)[1] is not None
    ]
    return problems


def seed_models(chains: Mapping[str, Any], run_seed: int) -> dict[str, tuple[str, int]]:
    """The models the seed study (``seeds``) trains beyond the run's own: the tables' model (``model``) trained
    again with each seed of ``seeds.seeds`` but the run's, as name (``<model>.seed<n>``) -> (model, seed). The seed
    orders the structured SVM's (or perceptron's) visits of the training sentences, a fresh order every epoch."""
    spec = chains.get("seeds") or {}
    model = chains["model"]
    return {
        seeded_name(model, seed, run_seed): (model, seed)
        for seed in spec.get("seeds", [])
        if seed != run_seed
    }
