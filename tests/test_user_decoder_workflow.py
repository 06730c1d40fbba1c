"""A user's own decoders through the workflow, as README's "Adding a decoder" tells a user to add them: a module
of their own on PYTHONPATH (tests/workflow/user/my_decoders.py) and an overlay naming its variants, on the small
chains run of tests/workflow_runs.py. Each of its decoders fails in one way: a greedy answer claimed `optimal`,
a structure one label short, an exception on long sentences. The experiment's checks apply to every one of them,
the failures show in Snakemake's output and in Table 1, a misspelt name fails the dry run, and editing the module
reruns its jobs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_runs import chains_run_command, run, run_env

pytestmark = pytest.mark.workflow

USER = Path(__file__).parent / "workflow" / "user"
FAULTS = Path(__file__).parent / "workflow" / "faults.yaml"  # experiments: [chains]
VARIANTS = {"greedy-liar": "greedy-liar", "short-answer": "short-answer", "long-fails": "long-fails"}


def overlay(path: Path, decoders: dict[str, str], module: str = "my_decoders") -> Path:
    lines = ["chains:", "  variants:"]
    lines += [f"    {variant}: {{decoder: {name}, module: {module}}}" for variant, name in decoders.items()]
    lines += ["  runs:", f"    table1: [viterbi, cg, {', '.join(decoders)}]"]
    # Table 1 only, one shard a variant: the fewest jobs that show it (no CRFsuite peer, no Table 2 variants)
    lines += ["    table2a: []", "    table2b: []", "    peer: []", "  harness: {shards: 1}"]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def user_run(repo_root, mirror, tmp_path_factory):
    """The run, its user module's folder (on PYTHONPATH) and the completed process."""
    workdir = tmp_path_factory.mktemp("user-run")
    modules = tmp_path_factory.mktemp("user-modules")
    shutil.copy(USER / "my_decoders.py", modules / "my_decoders.py")
    env = run_env({"PYTHONPATH": str(modules)})
    overlays = (FAULTS, overlay(workdir / "user.yaml", VARIANTS))
    command = chains_run_command(repo_root, workdir, mirror, "--cores", "2", overlays=overlays)
    result = run(command, workdir, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir, modules, command, env, result


def runs(workdir: Path, variant: str) -> pd.DataFrame:
    return pd.read_parquet(workdir / "results" / "runs" / "chains" / "wsj" / f"{variant}.parquet")


def reasons(frame: pd.DataFrame) -> pd.Series:
    return frame["stats"].map(lambda text: json.loads(text).get("error", ""))


def test_a_false_optimum_becomes_an_error_with_its_reason(user_run):
    workdir = user_run[0]
    liar, viterbi = runs(workdir, "greedy-liar"), runs(workdir, "viterbi").set_index("instance_id")
    assert set(liar["status"]) <= {"optimal", "error"}
    wrong = liar["status"] == "error"
    assert wrong.any(), "greedy decoding found every optimum: the test needs a harder set"
    assert reasons(liar[wrong]).str.contains("certificate check failed: Viterbi finds").all()
    kept = liar[~wrong].set_index("instance_id")
    optimum = viterbi.loc[kept.index, "objective"]
    np.testing.assert_allclose(kept["objective"], optimum, rtol=1e-9)
    assert kept["correct"].notna().all() and kept["total"].notna().all()  # the experiment's evaluate ran


def test_a_wrong_shape_is_an_error_not_a_feasible_record(user_run):
    short = runs(user_run[0], "short-answer")
    assert (short["status"] == "error").all()
    assert reasons(short).str.contains("invalid structure: structure must be").all()


def test_a_decoder_that_raises_shows_in_snakemake_output_and_table1(user_run):
    workdir, result = user_run[0], user_run[4]
    fails = runs(workdir, "long-fails")
    long = fails["size"] > 20
    assert long.any() and (~long).any()
    assert (fails.loc[long, "status"] == "error").all()
    assert (fails.loc[~long, "status"] == "feasible").all()
    assert reasons(fails[long]).str.contains("RuntimeError: cannot decode").all()
    output = result.stdout + result.stderr
    assert "chains/wsj/long-fails:" in output and "RuntimeError: cannot decode" in output
    assert "chains/wsj/short-answer:" in output and "chains/wsj/viterbi:" not in output
    table1 = pd.read_csv(workdir / "results" / "tables" / "chains" / "table1.csv")
    row = table1[(table1["dataset"] == "wsj") & (table1["variant"] == "long-fails")]
    assert len(row) == 1
    assert int(row["errors"].iloc[0]) == int(long.sum())
    assert row["partial"].iloc[0] == "*"  # its speed is not over every sentence: marked
    assert row["timing"].iloc[0].startswith("call")  # no compiled loop: timed per call, and said so


def test_provenance_names_the_experiment_checks(user_run):
    provenance = json.loads(
        (user_run[0] / "results" / "runs" / "chains" / "wsj" / "greedy-liar" / "shard-0.json").read_text()
    )
    harness = provenance["extra"]["harness"]
    assert harness["verifier"] == ["decoders.chains.decoders.verify"]
    assert harness["structure_check"] == ["decoders.chains.decoders.check_structure"]
    assert harness["evaluation"] == ["decoders.chains.decoders.evaluate"]


def test_editing_the_module_reruns_its_jobs_only(user_run):
    workdir, modules, command, env, _ = user_run
    source = modules / "my_decoders.py"
    source.write_text(source.read_text() + "\n# edited\n")
    result = run([*command, "--dry-run"], workdir, env=env, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    planned = result.stdout
    for variant in VARIANTS:
        assert f"variant={variant}" in planned, planned[-3000:]
    assert "variant=viterbi" not in planned and "variant=cg," not in planned


@pytest.mark.parametrize(
    ("decoders", "module", "message"),
    [
        ({"greedy-liar": "gredy-liar"}, "my_decoders", "unknown decoder 'gredy-liar'"),
        ({"greedy-liar": "greedy-liar"}, "my_decoder", "decoder module 'my_decoder' not found"),
    ],
)
def test_a_misspelt_name_fails_the_dry_run(repo_root, mirror, tmp_path, decoders, module, message):
    shutil.copy(USER / "my_decoders.py", tmp_path / "my_decoders.py")
    env = run_env({"PYTHONPATH": str(tmp_path)})
    overlays = (FAULTS, overlay(tmp_path / "user.yaml", decoders, module))
    command = chains_run_command(repo_root, tmp_path, mirror, "--dry-run", overlays=overlays)
    result = run(command, tmp_path, env=env, timeout=300)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert message in output and "experiments.chains.variants.greedy-liar" in output, output[-3000:]
