"""The titles experiment's settings (config/titles.yaml): its exact variant and runs name its variants
(decoders.config.check_references calls :func:`problems`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def problems(titles: Mapping[str, Any]) -> list[str]:
    names = [("exact", titles["exact"]), *(("runs", v) for v in titles["runs"])]
    return [
        f"experiments.titles.{key}: {name!r} is not one of experiments.titles.variants"
        for key, name in names
        if name not in titles["variants"]
    ]
