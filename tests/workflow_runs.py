"""The small chains run that the fault tests (tests/test_faults_workflow.py) and the SLURM test (tests/cluster)
run and compare: tests/cluster/config.yaml's wsj dataset and five chains variants, fetch -> prepare -> train
(SSVM, CRFsuite) -> instances -> decode -> gather -> tables, and what two such runs must agree on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from decoders.harness.records import without_clock
from decoders.tables.chains import CLOCK_COLUMNS

BIN = Path(sys.executable).parent
TESTS = Path(__file__).resolve().parent
VARIANT_RUNS = ["wsj/viterbi", "wsj/cg", "wsj/cg-01", "wsj/cg-alpha", "wsj~features/crfsuite"]
TABLES = ["table1", "table2a", "table2b", "cg_statistics", "speed_by_length", "peer", "figure2"]


def chains_run_command(repo_root: Path, workdir: Path, mirror: Path, *args: str, overlays=()) -> list[str]:
    """snakemake on the chains run, as a user types it (the workflow profile applies), with ``args`` last: they
    must start with an option, or --config would read them as its own values."""
    configs = [
        repo_root / "config.yaml",
        TESTS / "workflow" / "config.yaml",
        TESTS / "cluster" / "config.yaml",
        *overlays,
    ]
    return [
        str(BIN / "snakemake"),
        "--snakefile",
        str(repo_root / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        *map(str, configs),
        "--config",
        f"mirror={mirror}",
        *args,
    ]


def run_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, **(extra or {}), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def run(command: list[str], workdir: Path, timeout: float = 900, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=workdir, env=env or run_env(), capture_output=True, text=True, timeout=timeout
    )


def records(workdir: Path, run_name: str) -> pd.DataFrame:
    """A gathered variant run without what depends on the clock (records.CLOCK_STATS)."""
    return without_clock(pd.read_parquet(workdir / "results" / "runs" / "chains" / f"{run_name}.parquet"))


def table(workdir: Path, name: str) -> pd.DataFrame:
    frame = pd.read_csv(workdir / "results" / "tables" / "chains" / f"{name}.csv")
    return frame.drop(columns=[c for c in frame.columns if CLOCK_COLUMNS.search(c)])


def assert_same_results(expected: Path, actual: Path) -> None:
    """Both runs' records and tables are equal but for what depends on the clock."""
    for run_name in VARIANT_RUNS:
        pd.testing.assert_frame_equal(records(expected, run_name), records(actual, run_name), obj=run_name)
    for name in TABLES:
        pd.testing.assert_frame_equal(table(expected, name), table(actual, name), obj=name)


def assert_nothing_left_to_do(command: list[str], workdir: Path, env=None) -> None:
    """No temporary file of an atomic write is left, and Snakemake finds nothing incomplete or missing."""
    assert sorted(workdir.rglob("*.part")) == []
    result = run([*command, "--dry-run", "--cores", "1"], workdir, timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Nothing to be done" in result.stdout + result.stderr, result.stdout
