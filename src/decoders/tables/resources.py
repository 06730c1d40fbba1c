"""Wall time and peak memory of every job of a run, beside the memory its rule declares to a scheduler, and what
each experiment costs from scratch.

Every rule has a ``benchmark:`` file, ``results/benchmarks/<key>/<job>.tsv`` (Snakemake measures the job's
process tree: wall seconds ``s`` and peak resident memory ``max_rss`` in MB), where ``<key>`` is the rule's key
under ``resources.rules`` in config.yaml (``fetch`` and ``prepare`` for their generated rules). A job's declared
memory is that rule's ``mem_mb`` (or ``resources.mem_mb``); a decode job's is its variant's own ``mem_mb`` when
the variant sets one (``decode/<experiment>/<dataset>/<variant>/shard-<i>``). A first attempt gets exactly that,
so a peak above it is a job a cluster would kill and retry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def job_usage(benchmarks: str | Path) -> pd.DataFrame:
    """One row per benchmarked job: rule key, job name, wall seconds, peak RSS in MB (NaN when the job was too
    short for Snakemake to sample it)."""
    root = Path(benchmarks)
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t", na_values=["NA", "-"])
        if frame.empty or "s" not in frame or "max_rss" not in frame:
            raise ValueError(f"{path}: not a Snakemake benchmark file (columns s and max_rss)")
        relative = path.relative_to(root).with_suffix("")
        rows.append(
            {
                "rule": relative.parts[0],
                "job": "/".join(relative.parts[1:]),
                "seconds": float(frame["s"].iloc[-1]),
                "peak_mb": float(frame["max_rss"].iloc[-1]),
            }
        )
    return pd.DataFrame(rows, columns=["rule", "job", "seconds", "peak_mb"])


def declared_mem_mb(rule: str, job: str, config: Mapping[str, Any]) -> int:
    """The mem_mb a first attempt of this job asks for (see the module docstring)."""
    resources = config["resources"]
    mem_mb = resources["rules"].get(rule, {}).get("mem_mb", resources["mem_mb"])
    if rule == "decode":
        experiment, _, variant, _ = job.split("/")
        spec = config["experiments"].get(experiment, {}).get("variants", {}).get(variant, {})
        mem_mb = spec.get("mem_mb", mem_mb)
    if rule == "noise":  # noise/<experiment>/<dataset>/process-<p>: every compared variant in one job
        mem_mb = noise_mem_mb(config, job.split("/")[0])
    return int(mem_mb)


def noise_mem_mb(config: Mapping[str, Any], experiment: str) -> int:
    """The mem_mb of a noise job (workflow/rules/decode.smk), which times several variants of ``experiment`` one
    after another: the largest of resources.rules.decode's and the experiment's variants' own."""
    resources = config["resources"]
    decode = resources["rules"].get("decode", {}).get("mem_mb", resources["mem_mb"])
    variants = (config["experiments"].get(experiment) or {}).get("variants", {})
    return int(max([decode, *(spec.get("mem_mb", decode) for spec in variants.values())]))


def with_declared(jobs: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """``jobs`` with each job's declared mem_mb and whether its peak stayed within it."""
    declared = [declared_mem_mb(r, j, config) for r, j in zip(jobs["rule"], jobs["job"], strict=True)]
    out = jobs.assign(declared_mb=np.array(declared, dtype=np.int64))
    return out.assign(within=~(out["peak_mb"] > out["declared_mb"]))


def usage_table(jobs: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """Per rule: jobs, total and longest wall time, the largest peak memory and the memory declared for it."""
    jobs = with_declared(jobs, config)
    rows = []
    for rule, group in jobs.groupby("rule", sort=True):
        peak = group["peak_mb"].max()
        rows.append(
            {
                "rule": rule,
                "jobs": len(group),
                "total_minutes": group["seconds"].sum() / 60,
                "longest_minutes": group["seconds"].max() / 60,
                "peak_mb": peak,
                "declared_mb": int(group.loc[group["peak_mb"].idxmax(), "declared_mb"])
                if group["peak_mb"].notna().any()
                else int(group["declared_mb"].max()),
                "over_declared": int((~group["within"]).sum()),
            }
        )
    return pd.DataFrame(rows).round({"total_minutes": 2, "longest_minutes": 2, "peak_mb": 0})


#: Rules that time their work (``threads: timed_threads`` in workflow/rules): with ``harness.exclusive`` each of
#: their jobs reserves every core of a local run, so nothing runs beside it.
TIMED_RULES = frozenset(
    {
        "decode",
        "noise",
        "linking_scaling",
        "linking_scaling_noise",
        "bnb_udpipe",
        "bnb_breakdown",
        "ppc_udpipe",
    }
)


def _exclusive(rule: str, job: str, config: Mapping[str, Any]) -> bool:
    """Whether a job reserves every core: a timed rule's under harness.exclusive; a decode or noise job's under its
    experiment's ``harness.exclusive`` where it sets one, and a decode job's under its variant's own ``exclusive``
    first (jobs ``<experiment>/<dataset>/<variant>/shard-<i>``, ``<experiment>/<dataset>/process-<p>``), as
    workflow/rules/common.smk's timed_threads."""
    if rule not in TIMED_RULES:
        return False
    exclusive = bool(config["harness"]["exclusive"])
    if rule in ("decode", "noise"):
        experiment = job.split("/")[0]
        section = config["experiments"].get(experiment) or {}
        exclusive = bool((section.get("harness") or {}).get("exclusive", exclusive))
    if rule == "decode":
        variant = job.split("/")[2]
        spec = (section.get("variants") or {}).get(variant, {})
        exclusive = bool(spec.get("exclusive", exclusive))
    return exclusive


#: Rules that every experiment shares, whose job names start with the experiment: ``decode`` and ``gather_runs``
#: (``<experiment>/<dataset>/<variant>...``) and ``noise`` (``<experiment>/<dataset>/process-<p>``).
SHARED_RULES = ("decode", "gather_runs", "noise")


def experiment_stages(jobs: pd.DataFrame, experiment: str, config: Mapping[str, Any]) -> pd.DataFrame:
    """The jobs of one experiment from scratch, with their ``stage``: fetching the corpora of its datasets and
    preparing them (``fetch``, ``prepare``, shared with any other experiment on those datasets), its own rules
    (``<experiment>_<stage>``), and its decode, gather and noise jobs (the shared rules whose job names start with
    the experiment)."""
    datasets = list((config["experiments"].get(experiment) or {}).get("datasets", []))
    corpora = {
        file.split("/")[0] for name in datasets for file in config["datasets"][name].get("files", {}).values()
    }
    prefix = f"{experiment}_"
    stages = []
    for rule, job in zip(jobs["rule"], jobs["job"], strict=True):
        if rule == "fetch":
            stages.append("fetch" if job in corpora else None)
        elif rule == "prepare":
            stages.append("prepare" if job in datasets else None)
        elif rule.startswith(prefix):
            stages.append(rule.removeprefix(prefix))
        elif rule in SHARED_RULES:
            stages.append(rule if job.split("/")[0] == experiment else None)
        else:
            stages.append(None)
    out = jobs.assign(stage=stages)
    return out[out["stage"].notna()].reset_index(drop=True)


def cost_table(
    jobs: pd.DataFrame, experiments: list[str], config: Mapping[str, Any], cores: int
) -> pd.DataFrame:
    """Per experiment and stage: jobs, their summed wall minutes and the longest job's; then a row ``all``
    per experiment whose ``least_wall_minutes`` is the shortest wall clock ``cores`` cores allow for
    those jobs: the exclusive jobs (:data:`TIMED_RULES` under ``harness.exclusive``) one after another plus the
    others spread over every core (and never less than the longest job) -- a lower bound for any schedule,
    reached only with the cores never idle."""
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise ValueError(f"cores must be an integer >= 1, got {cores!r}")
    rows = []
    for experiment in experiments:
        staged = experiment_stages(jobs, experiment, config)
        if staged.empty:
            continue
        for stage, group in staged.groupby("stage", sort=False):
            rows.append(
                {
                    "experiment": experiment,
                    "stage": stage,
                    "jobs": len(group),
                    "job_minutes": group["seconds"].sum() / 60,
                    "longest_minutes": group["seconds"].max() / 60,
                    "least_wall_minutes": np.nan,
                }
            )
        exclusive = pd.Series(
            [_exclusive(rule, job, config) for rule, job in zip(staged["rule"], staged["job"], strict=True)],
            index=staged.index,
            dtype=bool,
        )
        seconds = staged["seconds"]
        least = max(seconds[exclusive].sum() + seconds[~exclusive].sum() / cores, seconds.max())
        rows.append(
            {
                "experiment": experiment,
                "stage": "all",
                "jobs": len(staged),
                "job_minutes": seconds.sum() / 60,
                "longest_minutes": seconds.max() / 60,
                "least_wall_minutes": least / 60,
            }
        )
    columns = ["experiment", "stage", "jobs", "job_minutes", "longest_minutes", "least_wall_minutes"]
    return pd.DataFrame(rows, columns=columns).round(2)
