"""The ppc experiment's settings (config/ppc.yaml): the seed study's instance sets, and what
decoders.config.check_references asks of them (:func:`problems`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from decoders.errors import ConfigError
from decoders.seeds import seeded_name


def _seeds(ppc: Any) -> Mapping[str, Any]:
    """The ``seeds`` entry ({} without one); a ConfigError naming it when ``ppc`` is not a mapping."""
    if not isinstance(ppc, Mapping):
        raise ConfigError(f"experiments.ppc (ppc) must be a mapping; got {type(ppc).__name__}")
    return ppc.get("seeds") or {}


def problems(ppc: Mapping[str, Any]) -> list[str]:
    """The seed study names datasets and variants of the experiment."""
    spec = _seeds(ppc)
    return [
        f"experiments.ppc.seeds.{key}: {name!r} is not one of experiments.ppc.{key}"
        for key in ("datasets", "variants")
        for name in spec.get(key, [])
        if name not in ppc.get(key, {})
    ]


def seed_sets(ppc: Mapping[str, Any], run_seed: int) -> dict[str, tuple[str, int]]:
    """The seed study's extra instance sets, one per dataset of ``seeds.datasets`` and seed of ``seeds.seeds``
    other than the run's: name (``<dataset>.seed<n>``) -> (dataset, seed). Each has its own first-order and
    grandparent models, trained with that seed on the dataset's splits."""
    spec = _seeds(ppc)
    return {
        seeded_name(dataset, seed, run_seed): (dataset, seed)
        for dataset in spec.get("datasets", [])
        for seed in spec.get("seeds", [])
        if seed != run_seed
    }
