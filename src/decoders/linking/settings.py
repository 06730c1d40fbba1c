"""The linking experiment's settings (config/linking.yaml): its runs name its variants, and the sets its exact
runs and sweep decode are among its datasets (decoders.config.check_references calls :func:`problems`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def problems(linking: Mapping[str, Any]) -> list[str]:
    found = [
        f"experiments.linking.runs.{run}: {name!r} is not one of experiments.linking.variants"
        for run, names in linking["runs"].items()
        if run not in ("exact_sets", "exact_peer_sets")
        for name in names
        if name not in linking["variants"]
    ]
    sets = list(linking.get("datasets", []))
    named = [(f"runs.{key}", linking["runs"].get(key, [])) for key in ("exact_sets", "exact_peer_sets")]
    named.append(("sweep.datasets", (linking.get("sweep") or {}).get("datasets", [])))
    found += [
        f"experiments.linking.{key}: {name!r} is not one of experiments.linking.datasets ({', '.join(sets)})"
        for key, names in named
        for name in names
        if name not in sets
    ]
    return found
