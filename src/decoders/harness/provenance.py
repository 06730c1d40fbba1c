"""Provenance of a run: code version, package versions, machine, thread settings, seed and config hash.

Written next to every result file so that a timing is never read without knowing where and how it was taken.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import socket
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from decoders.checks import check_int, check_mapping, check_path, check_texts
from decoders.errors import CorpusFormatError
from decoders.io import read_json, write_json_atomic
from decoders.threads import THREAD_ENV_VARS
from decoders.tier import current as current_tier

PACKAGES: tuple[str, ...] = (
    "decoders",
    "numpy",
    "numba",
    "scipy",
    "pandas",
    "pyarrow",
    "ortools",
    "highspy",
    "networkx",
    "igraph",
    "networkit",
    "scikit-learn",
    "snakemake",
    "ad3",  # the ppc peer, built by decoders.ppc.ad3_install (None where it is not installed)
)

PROVENANCE_KEYS: tuple[str, ...] = (
    "git_commit",
    "git_dirty",
    "packages",
    "python",
    "platform",
    "cpu_model",
    "cpu_count",
    "threads",
    "seed",
    "config_hash",
    "tier",
    "hostname",
    "timestamp_utc",
    "extra",
)


def config_hash(config: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of ``config`` (sorted keys, compact), independent of key order."""
    canonical = json.dumps(
        dict(check_mapping(config, "config")), sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def thread_settings() -> dict[str, Any]:
    """This process's thread settings: the environment variables and numba's configured thread count."""
    settings: dict[str, Any] = {name: os.environ.get(name) for name in THREAD_ENV_VARS}
    try:
        import numba
    except ImportError:
        settings["numba_config_num_threads"] = None
    else:
        settings["numba_config_num_threads"] = int(numba.config.NUMBA_NUM_THREADS)
    return settings


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each distribution, None when it is not installed."""
    versions: dict[str, str | None] = {}
    for name in check_texts(names, "names"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_state(directory: str | Path | None = None) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the git checkout holding ``directory``; (None, None) outside a checkout or without git.

    Uses read-only commands only (``--no-optional-locks`` keeps ``git status`` from touching the index).
    """
    cwd = Path(check_path(directory, "directory")) if directory is not None else Path.cwd()

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "--no-optional-locks", *args],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "--verify", "HEAD")
    if commit is None:
        return None, None
    status = git("status", "--porcelain")
    return commit.strip(), None if status is None else bool(status.strip())


def cpu_model() -> str | None:
    """The CPU's "model name" from /proc/cpuinfo, else :func:`platform.processor`, else None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def collect_provenance(
    *,
    seed: int | None,
    config: dict[str, Any],
    threads: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    repo_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Everything needed to say where and how a run was made (keys: :data:`PROVENANCE_KEYS`).

    ``threads`` are the thread settings of the process that decoded (the runner reports its worker's as
    ``frame.attrs["threads"]``); without them this process's settings are recorded. ``repo_dir`` is where to
    look for the git checkout (default: the working directory).
    """
    seed = None if seed is None else check_int(seed, "seed")
    config = check_mapping(config, "config")
    threads = None if threads is None else check_mapping(threads, "threads")
    extra = None if extra is None else check_mapping(extra, "extra")
    repo_dir = None if repo_dir is None else check_path(repo_dir, "repo_dir")
    commit, dirty = git_state(repo_dir)
    return {
        "git_commit": commit,
        "git_dirty": dirty,
        "packages": package_versions(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "threads": dict(threads) if threads is not None else thread_settings(),
        "seed": seed,
        "config_hash": config_hash(config),
        "tier": current_tier(),
        "hostname": socket.gethostname(),
        "timestamp_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "extra": dict(extra) if extra is not None else None,
    }


def write_provenance(path: str | Path, provenance: dict[str, Any]) -> None:
    """Write a provenance dict atomically as JSON."""
    path = check_path(path)
    write_json_atomic(path, dict(check_mapping(provenance, "provenance")))


def read_provenance(path: str | Path) -> dict[str, Any]:
    """A provenance file written by :func:`write_provenance`; CorpusFormatError names a file that is not JSON
    (truncated, garbled) or lacks one of :data:`PROVENANCE_KEYS`."""
    provenance = read_json(check_path(path))
    if not isinstance(provenance, dict):
        raise CorpusFormatError(
            path, None, f"provenance must be a JSON object, not {type(provenance).__name__}"
        )
    missing = [key for key in PROVENANCE_KEYS if key not in provenance]
    if missing:
        raise CorpusFormatError(path, None, f"provenance lacks key(s) {', '.join(missing)}")
    return provenance
