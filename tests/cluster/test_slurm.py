"""The workflow on a real single-node SLURM cluster (profiles/slurm), compared with a local run, and recovering
from a SLURM job cancelled mid-run. Opt-in: needs root and DECODERS_SLURM_TEST=1 (.ci/run sets it); installs
the Debian packages of the cluster when missing.

Runs tests/cluster/config.yaml (wsj only, five chains variants) to the chains tables: fetch -> prepare ->
train (SSVM, CRFsuite) -> instances -> decode -> gather -> tables, 22 Snakemake jobs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from slurm import ACCOUNT, SlurmCluster  # noqa: E402
from workflow_runs import VARIANT_RUNS, assert_nothing_left_to_do, assert_same_results, chains_run_command  # noqa: E402

BIN = Path(sys.executable).parent
TARGET = "results/tables/chains/table1.csv"
# Snakemake jobs of the target, and the SLURM jobs they become: each variant's two decode shards and its
# gather form one group job (--group-components decode=1 keeps a group within this node's CPUs). 22 jobs and the
# 4 noise jobs that time a sample of the two instance sets again in separate processes (the toy config's
# harness.noise: 2 processes), for the tables' intervals.
SNAKEMAKE_JOBS = 26
SLURM_JOBS = SNAKEMAKE_JOBS - 3 * len(VARIANT_RUNS) + len(VARIANT_RUNS)

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(
        os.environ.get("DECODERS_SLURM_TEST") != "1" or os.geteuid() != 0,
        reason="SLURM cluster test: opt in with DECODERS_SLURM_TEST=1, as root",
    ),
]


def snakemake_command(repo_root: Path, workdir: Path, mirror: Path, *args: str) -> list[str]:
    """The chains run to TARGET; the target comes first, where no option taking several values (--config) can
    take it for one of its own."""
    binary, *rest = chains_run_command(repo_root, workdir, mirror, *args)
    return [binary, TARGET, *rest]


def cluster_args(repo_root: Path) -> list[str]:
    """profiles/slurm as it is, with settings for a small idle cluster: one variant per SLURM job (a group
    needs 2 CPUs) and a short wait before status checks."""
    return [
        "--workflow-profile",
        str(repo_root / "profiles" / "slurm"),
        "--group-components",
        "decode=1",
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--latency-wait",
        "5",
    ]


def run_env(cluster: SlurmCluster) -> dict[str, str]:
    path = f"{BIN}{os.pathsep}{cluster.env.get('PATH', '')}"
    return {
        **cluster.env,
        "PATH": path,
        "DECODERS_SLURM_ACCOUNT": ACCOUNT,
        "DECODERS_SLURM_PARTITION": "debug",
    }


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = time.monotonic()
    with SlurmCluster(tmp_path_factory.mktemp("slurm")) as running:
        print(f"SLURM cluster up in {time.monotonic() - started:.1f} s (packages, daemons, accounts)")
        yield running


@pytest.fixture(scope="module")
def local_run(repo_root, mirror, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("local")
    command = snakemake_command(repo_root, workdir, mirror, "--cores", "2")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir


@pytest.fixture(scope="module")
def cluster_run(repo_root, mirror, cluster, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("cluster")
    command = snakemake_command(repo_root, workdir, mirror, *cluster_args(repo_root))
    started = time.monotonic()
    result = subprocess.run(
        command, cwd=workdir, env=run_env(cluster), capture_output=True, text=True, timeout=1800
    )
    print(f"cluster run: {time.monotonic() - started:.1f} s")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-8000:]
    return workdir, result.stdout + result.stderr


def submitted_jobs(log: str) -> tuple[str, list[str]]:
    """The run's SLURM run id (the job name of all its jobs) and the SLURM job ids it submitted."""
    run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
    return run_id, re.findall(r"has been submitted with SLURM jobid (\d+)", log)


def sacct_jobs(cluster: SlurmCluster, run_id: str) -> pd.DataFrame:
    out = cluster.command(
        "sacct", "-X", "-n", "-P", "-S", "2000-01-01", "--name", run_id, "-o", "JobID,State,Comment"
    )
    rows = [line.split("|", 2) for line in out.splitlines() if line.strip()]
    return pd.DataFrame(rows, columns=["job_id", "state", "comment"])


def assert_no_partial_outputs(workdir: Path, repo_root: Path, mirror: Path, env: dict[str, str]) -> None:
    assert_nothing_left_to_do(snakemake_command(repo_root, workdir, mirror), workdir, env=env)


def test_cluster_run_equals_local_run(local_run, cluster_run, cluster, repo_root, mirror):
    workdir, log = cluster_run
    assert "Falling back to 'sacct'" not in log  # jobs followed with squeue (profiles/slurm)
    run_id, job_ids = submitted_jobs(log)
    assert len(job_ids) == SLURM_JOBS
    jobs = sacct_jobs(cluster, run_id)
    print(f"sacct lists {len(jobs)} jobs of the cluster run")
    assert sorted(jobs["job_id"]) == sorted(job_ids)
    assert (jobs["state"] == "COMPLETED").all(), jobs
    assert_same_results(local_run, workdir)
    assert_no_partial_outputs(workdir, repo_root, mirror, run_env(cluster))


def wait_for_running_decode(cluster: SlurmCluster, process: subprocess.Popen, timeout: float = 600) -> str:
    """The SLURM id of the first decode group job seen RUNNING."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        out = cluster.command_ok_output("squeue", "-h", "-t", "RUNNING", "-o", "%i|%k")
        for line in out.splitlines():
            job_id, comment = line.split("|", 1)
            if "decode" in comment:
                return job_id
        time.sleep(0.2)
    raise AssertionError("no decode job was seen running")


def test_cancelled_job_is_retried(local_run, cluster, repo_root, mirror, tmp_path):
    """scancel a running decode job: the run resubmits it (retries) and ends with the local run's results."""
    workdir = tmp_path / "fault"
    workdir.mkdir()
    command = snakemake_command(repo_root, workdir, mirror, *cluster_args(repo_root))
    log_path = tmp_path / "snakemake.log"
    started = time.monotonic()
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, cwd=workdir, env=run_env(cluster), stdout=log, stderr=subprocess.STDOUT
        )
    try:
        victim = wait_for_running_decode(cluster, process)
        cluster.command("scancel", victim)
        cancelled = time.monotonic()
        try:
            process.wait(timeout=900)
        except subprocess.TimeoutExpired:
            state = cluster.command("sacct", "-X", "-n", "-P", "-j", victim, "-o", "State").strip()
            pytest.fail(
                f"the run did not recover within 900 s of scancel {victim} (sacct state {state!r}): the "
                "executor plugin took the cancelled job for a running one (profiles/slurm follows jobs with "
                "squeue because the plugin does not match sacct's 'CANCELLED by <uid>')"
            )
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
    finished = time.monotonic()
    print(f"fault run: {finished - started:.1f} s, scancel {victim} after {cancelled - started:.1f} s")
    log = log_path.read_text()
    assert process.returncode == 0, log[-8000:]
    # the plugin followed the jobs with squeue, as the profile asks, and did not go back to sacct
    assert "Falling back to 'sacct'" not in log
    run_id, job_ids = submitted_jobs(log)
    jobs = sacct_jobs(cluster, run_id).set_index("job_id")
    assert jobs.loc[victim, "state"].startswith("CANCELLED"), jobs
    # the plugin reported the group job as failed (show-failed-logs prints its SLURM log) and Snakemake
    # submitted the same group job again
    assert re.search(rf"\*\*\* JOB {victim} ON \S+ CANCELLED AT", log), log[-8000:]
    group = re.search(rf"Job (\S+) has been submitted with SLURM jobid {victim} ", log).group(1)
    assert f"Trying to restart job {group}." in log
    resubmitted = re.findall(rf"Job {re.escape(group)} has been submitted with SLURM jobid (\d+)", log)
    assert len(resubmitted) == 2 and resubmitted[0] == victim, resubmitted
    assert jobs.loc[resubmitted[1], "state"] == "COMPLETED", jobs
    assert len(job_ids) == SLURM_JOBS + 1  # the cancelled group job, submitted again
    assert (jobs.drop(index=victim)["state"] == "COMPLETED").all(), jobs
    assert_same_results(local_run, workdir)
    assert_no_partial_outputs(workdir, repo_root, mirror, run_env(cluster))
