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
from collections.abc import Mapping
from typing import Any

from decoders.errors import ConfigError

__all__ = ["parse_sweep_variant", "sweep_runs", "sweep_variant_name", "sweep_variants"]

_NAME = re.compile(r"^(?P<algorithm>.+)-top(?P<candidates>\d+)-(?P<connection>[^-]+)$")


def sweep_variant_name(base: str, candidates: int) -> str:
    """``hitting-distance-max``, 10 -> ``hitting-distance-top10-max``."""
    algorithm, _, connection = base.rpartition("-")
    if not algorithm:
        raise ConfigError(
            f"experiments.linking.sweep.variants: {base!r} is not named <algorithm>-<connection>"
        )
    return f"{algorithm}-top{int(candidates)}-{connection}"


def parse_sweep_variant(name: str) -> tuple[str, int, str] | None:
    """``(algorithm, c, connection)`` of a sweep variant's name, or None for any other variant."""
    match = _NAME.match(name)
    if match is None:
        return None
    return match["algorithm"], int(match["candidates"]), match["connection"]


def sweep_variants(linking: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The variant specs of the sweep configured in ``linking`` (the ``experiments.linking`` section).

    Every base variant of ``sweep.variants`` (which must be one of ``linking.variants``) is copied once per
    ``c`` of ``sweep.candidates`` with ``max_candidates: c`` added to its parameters. Empty without a sweep.
    """
    sweep = linking.get("sweep") or {}
    variants = linking.get("variants", {})
    out: dict[str, dict[str, Any]] = {}
    for base in sweep.get("variants", []):
        if base not in variants:
            raise ConfigError(
                f"experiments.linking.sweep.variants: {base!r} is not one of experiments.linking.variants"
            )
        for candidates in sweep.get("candidates", []):
            spec = copy.deepcopy(dict(variants[base]))
            spec["params"] = {**spec.get("params", {}), "max_candidates": int(candidates)}
            out[sweep_variant_name(base, candidates)] = spec
    return out


def sweep_runs(linking: Mapping[str, Any]) -> list[str]:
    """The gathered record files of the sweep's variants on its datasets (the workflow's paths)."""
    datasets = (linking.get("sweep") or {}).get("datasets", [])
    return [f"results/runs/linking/{s}/{v}.parquet" for s in datasets for v in sweep_variants(linking)]
