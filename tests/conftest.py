"""Shared fixtures: where the corpus mirror is, and the repository root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def mirror_dir() -> Path:
    """The corpus mirror: $DECODERS_MIRROR, else ../shared/corpora beside the repository."""
    return Path(os.environ.get("DECODERS_MIRROR", REPO_ROOT.parent / "shared" / "corpora")).resolve()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The corpus mirror; tests that read real corpora skip without it, except in CI where it must exist."""
    path = mirror_dir()
    if not (path / "registry.yaml").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"corpus mirror not found at {path} (set DECODERS_MIRROR)")
        pytest.skip(f"corpus mirror not found at {path} (set DECODERS_MIRROR)")
    return path
