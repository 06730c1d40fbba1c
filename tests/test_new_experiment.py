"""Adding an experiment touches its own files and one line of config.yaml (issue "house"): a copy of the
project gets a sixth experiment from tests/sixth/ (its package, tables module, captions, settings, schema, rules,
helpers and scripts) and `sixth` in config.yaml's list; the workflow then plans it beside the other five, and
runs it alone to its table, its section of the results page and its place in the report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
SIXTH = ROOT / "tests" / "sixth"
BIN = Path(sys.executable).parent


def _project_copy(target: Path) -> None:
    """The project's files as git knows them (tracked and new, not ignored), without tests/."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if name.startswith("tests/") or not source.is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)


def _snakemake(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(project / "src"), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    command = [str(BIN / "snakemake"), "--snakefile", str(project / "Snakefile"), "--directory", str(project)]
    command += ["--cores", "2", *args, "--config", "mirror="]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.workflow
def test_a_sixth_experiment_needs_its_own_files_and_one_line(tmp_path):
    project = tmp_path / "project"
    _project_copy(project)
    before = {path.relative_to(project) for path in project.rglob("*") if path.is_file()}
    added = []
    for source in sorted(SIXTH.rglob("*")):
        if source.is_file():
            name = source.relative_to(SIXTH)
            assert name not in before, f"{name} exists: the sixth experiment's files must be new"
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, project / name)
            added.append(name)
    config = project / "config.yaml"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    listing = [i for i, line in enumerate(lines) if line.startswith("experiments: [")]
    assert len(listing) == 1, "config.yaml lists the experiments on one line"
    lines[listing[0]] = lines[listing[0]].replace("]", ", sixth]")
    config.write_text("".join(lines), encoding="utf-8")

    planned = _snakemake(project, "-n")  # all six experiments, as listed
    assert planned.returncode == 0, planned.stdout + planned.stderr
    for rule in ("sixth_instances", "sixth_tables", "bnb_tables", "ppc_tables", "chains_tables"):
        assert f"rule {rule}:" in planned.stdout, rule

    # the sixth alone, to the results page (its decodes beside each other: the test checks results, not speed)
    overlay = tmp_path / "sixth-alone.yaml"
    overlay.write_text("experiments: [sixth]\nharness: {exclusive: false}\n", encoding="utf-8")
    # the page and its explorer (a report item: --report needs every report item built)
    run = _snakemake(
        project, "results/RESULTS.md", "results/explorer.html", "--configfile", str(config), str(overlay)
    )
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-5000:]
    table = pd.read_csv(project / "results" / "tables" / "sixth" / "table1.csv").set_index("variant")
    assert table.loc["argmax", "correct_pct"] == 100.0 and table.loc["argmax", "instances"] == 6
    assert table.loc["first", "correct_pct"] < 100.0
    page = (project / "results" / "RESULTS.md").read_text(encoding="utf-8")
    assert "sixth: the best item of a scored set" in page
    assert "How often each variant picks the best item of a scored set." in page
    assert "- correct_pct: the sets whose best item was picked, in %." in page
    report = _snakemake(project, "--report", "results/report.zip", "--configfile", str(config), str(overlay))
    assert report.returncode == 0, report.stdout[-5000:] + report.stderr[-5000:]
    with zipfile.ZipFile(project / "results" / "report.zip") as archive:
        text = "\n".join(
            archive.read(name).decode("utf-8", "replace")
            for name in archive.namelist()
            if name.endswith((".html", ".js", ".json"))
        )
    assert "sixth/table1.csv" in text and "How often each variant picks the best item" in text
