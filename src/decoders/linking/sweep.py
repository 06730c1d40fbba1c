"""The candidate-count sweep (beyond the paper): Table 1's decoders on every set cut to its top ``c`` candidates.

On Wikispeedia (4.6k articles) 100 candidates per mention cover a large part of the graph and hop distances are
all 1-3, so distance discriminates little; in the paper 100 candidates are 100 of 3.7M articles. The sweep
measures how the value changes as the candidate sets shrink to the top of the retrieval ranking.

Each point is an ordinary decoder variant with the parameter ``max_candidates`` (see
:meth:`decoders.linking.instance.LinkingInstance.truncated`), generated from ``experiments.linking.sweep`` by
:func:`sweep_variants`, so the workflow's decode rule runs it with the harness's records, provenance and shards.
A variant is named ``<algorithm>-top<c>-<connection>`` after its base variant ``<algorithm>-<connection>``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from decoders.errors import ConfigError

__all__ = ["parse_sweep_variant", "sweep_runs", "sweep_variant_name", "sweep_variants"]

_NAME = re.compile(r"^(?P<algorithm>.+)-top(?P<candidates>\d+)-(?P<connection>[^-]+)$")


def sweep_variant_name(base: str, candidates: int) -> str:
    """``hitting-distance-max``, 10 -> ``hitting-distance-top10-max`` (``candidates`` an integer >= 1)."""
    if not isinstance(base, str):
        raise ConfigError(f"experiments.linking.sweep.variants: {base!r} is not a variant name")
    candidates = _candidates(candidates, "candidates")
    algorithm, _, connection = base.rpartition("-")
    if not algorithm:
        raise ConfigError(
            f"experiments.linking.sweep.variants: {base!r} is not named <algorithm>-<connection>"
        )
    return f"{algorithm}-top{candidates}-{connection}"


def _candidates(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ConfigError(f"{name} must be an integer >= 1 (a candidate count); got {value!r}")
    return int(value)


def _section(value: Any, name: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name} must be a mapping, got {type(value).__name__}")
    return value


def _names(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise ConfigError(f"{name} must be a list, got {value!r}")
    return list(value)


def parse_sweep_variant(name: str) -> tuple[str, int, str] | None:
    """``(algorithm, c, connection)`` of a sweep variant's name, or None for any other variant."""
    if not isinstance(name, str):
        raise ConfigError(f"a variant name must be a string, got {name!r}")
    match = _NAME.match(name)
    if match is None:
        return None
    return match["algorithm"], int(match["candidates"]), match["connection"]


def sweep_variants(linking: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The variant specs of the sweep configured in ``linking`` (the ``experiments.linking`` section).

    Every base variant of ``sweep.variants`` (which must be one of ``linking.variants``) is copied once per
    ``c`` of ``sweep.candidates`` with ``max_candidates: c`` added to its parameters. Empty without a sweep.
    """
    linking = _section(linking, "experiments.linking")
    sweep = _section(linking.get("sweep"), "experiments.linking.sweep")
    variants = _section(linking.get("variants"), "experiments.linking.variants")
    counts = [
        _candidates(c, f"experiments.linking.sweep.candidates[{i}]")
        for i, c in enumerate(_names(sweep.get("candidates"), "experiments.linking.sweep.candidates"))
    ]
    out: dict[str, dict[str, Any]] = {}
    for base in _names(sweep.get("variants"), "experiments.linking.sweep.variants"):
        if not isinstance(base, str) or base not in variants:
            raise ConfigError(
                f"experiments.linking.sweep.variants: {base!r} is not one of experiments.linking.variants"
            )
        for candidates in counts:
            spec = copy.deepcopy(dict(_section(variants[base], f"experiments.linking.variants.{base}")))
            spec["params"] = {**spec.get("params", {}), "max_candidates": candidates}
            out[sweep_variant_name(base, candidates)] = spec
    return out


def sweep_runs(linking: Mapping[str, Any]) -> list[str]:
    """The gathered record files of the sweep's variants on its datasets (the workflow's paths)."""
    linking = _section(linking, "experiments.linking")
    sweep = _section(linking.get("sweep"), "experiments.linking.sweep")
    datasets = _names(sweep.get("datasets"), "experiments.linking.sweep.datasets")
    return [f"results/runs/linking/{s}/{v}.parquet" for s in datasets for v in sweep_variants(linking)]
