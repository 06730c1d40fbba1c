"""The linking experiment's settings (config/linking.yaml): its runs name its variants
(decoders.config.check_references calls :func:`problems`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def problems(linking: Mapping[str, Any]) -> list[str]:
    return [
        f"experiments.linking.runs.{run}: {name!r} is not one of experiments.linking.variants"
        for run, names in linking["runs"].items()
        if run != "exact_sets"
        for name in names
        if name not in linking["variants"]
    ]
