"""Static checks that CI runs with the tests: ruff, snakefmt and snakemake --lint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def run(args, cwd):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_ruff(repo_root):
    result = run([BIN / "ruff", "check", "src", "tests", "workflow/scripts"], repo_root)
    assert result.returncode == 0, result.stdout + result.stderr
    result = run([BIN / "ruff", "format", "--check", "src", "tests", "workflow/scripts"], repo_root)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snakefmt(repo_root):
    files = ["Snakefile", *sorted(str(p) for p in (repo_root / "workflow" / "rules").glob("*.smk"))]
    result = run([BIN / "snakefmt", "--check", "--line-length", "110", *files], repo_root)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snakemake_lint(repo_root):
    result = run([BIN / "snakemake", "--lint", "--cores", "1"], repo_root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr, result.stdout + result.stderr
