"""The run's tier: ``full`` (the default) or ``quick`` (config/quick.yaml: a seeded sample of each real test set
and shorter training, so that every experiment's tables appear in about half an hour on 2 cores).

The Snakefile puts the configured tier in the environment (:data:`ENV`) of every job it starts, so that each
table, provenance record and page a job writes says which tier it belongs to without every call passing it on.
"""

from __future__ import annotations

import os

from decoders.errors import ConfigError

ENV = "DECODERS_TIER"
TIERS = ("full", "quick")
#: The line under every table and at the top of every page of a quick run.
QUICK_NOTE = (
    "Quick tier (config/quick.yaml): a seeded sample of each test set and shorter training. Its numbers show the "
    "method at work, not the full run's results, and are never published beside them."
)


def check_tier(value: object) -> str:
    """``value`` if it names a tier, else ConfigError naming the key."""
    if value not in TIERS:
        raise ConfigError(f"tier: expected one of {', '.join(TIERS)}, got {value!r}")
    return str(value)


def current() -> str:
    """The tier of the run this process belongs to (``full`` outside the workflow)."""
    value = os.environ.get(ENV, "full")
    if value not in TIERS:
        raise ConfigError(f"{ENV}: expected one of {', '.join(TIERS)}, got {value!r}")
    return value


def is_quick() -> bool:
    return current() == "quick"
