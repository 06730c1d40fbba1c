"""What one decode job and one gather job of the workflow do (workflow/rules/decode.smk calls these).

A decode job runs one decoder variant over one shard of an instance set and writes its result records and a
provenance JSON; a gather job joins the shards of a variant, checking that every instance of the set was
decoded exactly once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from decoders.checks import check_int, check_mapping, check_path, check_sequence, check_text
from decoders.errors import ConfigError, CorpusFormatError, DecodersError
from decoders.harness.instances import Instance, read_instance_index, read_instance_shard, sample_ids
from decoders.harness.protocol import get_evaluator
from decoders.harness.provenance import collect_provenance, write_provenance
from decoders.harness.records import write_records
from decoders.harness.runner import run_instances
from decoders.harness.sharding import gather_shards
from decoders.io import read_json

log = logging.getLogger(__name__)

#: A variant's keys a decode job reads (``exclusive``, which the workflow's scheduling reads, is let through).
VARIANT_KEYS = {"decoder", "params", "module", "params_file", "time_limit", "exclusive", "sample"}


def read_params_file(path: str | Path, where: str) -> dict[str, Any]:
    """The parameters a variant's ``params_file`` holds; ConfigError names a missing or malformed file."""
    where = check_text(where, "where")
    path = check_path(path)
    try:
        params = read_json(path)
    except (OSError, CorpusFormatError) as exc:
        raise ConfigError(f"{where}.params_file: cannot read {path}: {exc}") from exc
    if not isinstance(params, dict):
        raise ConfigError(f"{where}.params_file: {path} must hold a JSON object, not {type(params).__name__}")
    return params


def variant_sample(spec: Mapping[str, Any], where: str) -> int | None:
    """A variant's ``sample``: decode a fixed, seeded sample of at most that many instances of each set (an
    audit whose every instance would cost more than the run can spend); None (the default): every instance."""
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{where}: a variant (spec) must be a mapping; got {type(spec).__name__}")
    sample = spec.get("sample")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int) or sample < 1):
        raise ConfigError(f"{where}.sample: must be an integer >= 1 or null; got {sample!r}")
    return sample


def decode_shard(
    *,
    experiment: str,
    dataset: str,
    variant: str,
    spec: Mapping[str, Any],
    instances: str | Path,
    records: str | Path,
    provenance: str | Path,
    harness: Mapping[str, Any],
    seed: int,
    config: Mapping[str, Any],
    params_file: str | Path | None = None,
    index: str | Path | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Decode one shard with the variant ``spec`` (``decoder``, optional ``params`` and ``module``).

    A variant whose parameters the workflow computes names a ``params_file`` template in its spec; the decode
    rule passes the file (``{dataset}`` filled in) as ``params_file``, whose JSON object is merged over ``params``.
    A variant with a ``sample`` decodes only the shard's instances in that sample of the set (``index``, the set's
    index.tsv, says which; :func:`decoders.harness.instances.sample_ids` with ``seed``).
    """
    check_text(experiment, "experiment")
    check_text(variant, "variant")
    check_text(dataset, "dataset")
    check_mapping(harness, "harness")
    check_mapping(config, "config")
    seed = check_int(seed, "seed", minimum=0)
    for name, path in (("instances", instances), ("records", records), ("provenance", provenance)):
        check_path(path, name)
    if index is not None:
        check_path(index, "index")
    _check_variant(experiment, variant, spec)
    fail = harness.get("fail_on_error", False)
    if not isinstance(fail, bool):
        raise ConfigError(
            f"experiments.{experiment}.harness.fail_on_error: must be true or false; got {fail!r}"
        )
    items = _shard_items(instances, spec, index, seed, f"experiments.{experiment}.variants.{variant}")
    frame, params = _run_variant(
        experiment, dataset, variant, spec, items, harness, config, params_file, progress
    )
    lines = failure_lines(frame)
    if fail and lines:
        raise DecodeErrors("; ".join(lines) + " (harness.fail_on_error is true: no records written)")
    write_records(records, frame)
    prov = collect_provenance(
        seed=seed,
        config=dict(config),
        threads=frame.attrs.get("threads"),
        extra={
            "harness": frame.attrs.get("harness"),
            "instances": str(instances),
            "variant": {**spec, "params": params},
        },
    )
    write_provenance(provenance, prov)
    statuses = frame["status"].value_counts().to_dict()
    log.info("%s/%s/%s: %d instances %s", experiment, dataset, variant, len(frame), statuses)
    return frame


class DecodeErrors(DecodersError):
    """A decode job's records hold errors and the harness's ``fail_on_error`` is set."""


def failure_lines(frame: pd.DataFrame) -> list[str]:
    """One line per variant of a record frame whose records hold errors: where, how many errors (and timeouts)
    of how many instances, and the first error's reason. A decode job prints them where Snakemake's output goes,
    so a decoder that fails on some instances is seen, not only counted in its log."""
    lines = []
    for (experiment, dataset, variant), group in frame.groupby(
        ["experiment", "dataset", "variant"], sort=False
    ):
        errors = group[group["status"] == "error"]
        if errors.empty:
            continue
        timeouts = int((group["status"] == "timeout").sum())
        first = errors.iloc[0]
        reason = str(json.loads(first["stats"]).get("error", "no reason given")).splitlines()[0][:300]
        lines.append(
            f"{experiment}/{dataset}/{variant}: {len(errors)} errors, {timeouts} timeouts in {len(group)} "
            f"instances; first, instance {first['instance_id']}: {reason}"
        )
    return lines


def _check_variant(experiment: str, variant: str, spec: Mapping[str, Any]) -> None:
    """ConfigError naming the key when a variant's spec cannot be decoded."""
    where = f"experiments.{experiment}.variants.{variant}"
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{where}: a variant (spec) must be a mapping; got {type(spec).__name__}")
    if not isinstance(spec.get("params", {}), Mapping):
        raise ConfigError(f"{where}.params: must be a mapping; got {type(spec['params']).__name__}")
    unknown = set(spec) - VARIANT_KEYS
    if unknown or "decoder" not in spec:
        raise ConfigError(
            f"{where}: needs 'decoder'" + (f"; unknown keys {sorted(unknown)}" if unknown else "")
        )


def _run_variant(
    experiment: str,
    dataset: str,
    variant: str,
    spec: Mapping[str, Any],
    items: list[Instance],
    harness: Mapping[str, Any],
    config: Mapping[str, Any],
    params_file: str | Path | None,
    progress: bool,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Time ``items`` with one variant under the harness settings (paired with ``harness.reference``): the record
    frame and the parameters the decoder received."""
    module = spec.get("module")
    params = dict(spec.get("params", {}))
    if params_file is not None:
        params.update(read_params_file(params_file, f"experiments.{experiment}.variants.{variant}"))
    frame = run_instances(
        experiment,
        dataset,
        variant,
        spec["decoder"],
        params,
        items,
        time_limit=spec.get("time_limit", harness["time_limit"]),
        evaluate=get_evaluator(experiment, module),
        warmup=harness.get("warmup", 1),
        isolate=harness.get("isolate", True),
        progress=progress,
        decoder_module=module,
        repeats=harness.get("repeats", 1),
        loop_repeats=harness.get("loop_repeats", 0),
        reference=_reference_variant(harness, config, experiment, variant),
    )
    return frame, params


def noise_sample(settings: Mapping[str, Any] | None, where: str) -> tuple[int, int]:
    """(sample, processes) of an experiment's ``harness.noise``: how many instances of each set are timed again,
    and in how many separate processes; ConfigError naming the key when missing or not integers >= 2 / >= 1."""
    if not isinstance(settings, Mapping):
        raise ConfigError(f"{where}: needs {{sample: <int>, processes: <int>}}; got {settings!r}")
    sample, processes = settings.get("sample"), settings.get("processes")
    for key, value, minimum in (("sample", sample, 2), ("processes", processes, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ConfigError(f"{where}.{key}: must be an integer >= {minimum}; got {value!r}")
    return sample, processes


def retime_sample(
    *,
    experiment: str,
    dataset: str,
    process: int,
    variants: Sequence[str],
    shards: Sequence[str | Path],
    index: str | Path,
    records: str | Path,
    provenance: str | Path,
    harness: Mapping[str, Any],
    seed: int,
    config: Mapping[str, Any],
    params_files: Mapping[str, str | Path] | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Time a seeded sample of an instance set again with each of ``variants``, as its decode jobs did (same
    harness settings, paired with ``harness.reference``), for the ``process``-th of ``harness.noise.processes``
    retimings: each is a job of its own, hence a process of its own, so that the spread of a ratio between them
    is the run-to-run noise that an interval must cover (:mod:`decoders.tables.intervals`).

    The sample is :func:`decoders.harness.instances.sample_ids` of the set's ``index`` with ``seed`` and
    ``harness.noise.sample``: the same instances in every process. Writes one record per (variant, instance),
    with a ``process`` column, and a provenance JSON.

    The variants are timed in this process (``isolate`` off), one after another, each warmed up first: the job
    is the fresh process, and a worker of its own per variant would cost each variant an interpreter start and
    its kernels' loading (10-35 s a variant on the test configuration, 2026-12-02), several times what its
    sample's timing takes. The time limits stay, as the cooperative deadlines every decoder checks.
    """
    experiment = check_text(experiment, "experiment")
    check_text(dataset, "dataset")
    process = check_int(process, "process", minimum=1)
    harness = {**check_mapping(harness, "harness"), "isolate": False}
    check_mapping(config, "config")
    seed = check_int(seed, "seed", minimum=0)
    sample, processes = noise_sample(harness.get("noise"), f"experiments.{experiment}.harness.noise")
    if process > processes:
        raise ConfigError(
            f"experiments.{experiment}.harness.noise.processes is {processes}; no process {process}"
        )
    variants = [check_text(name, "variants") for name in check_sequence(variants, "variants")]
    if not variants:
        raise ConfigError(f"experiments.{experiment}: no variants to time again on {dataset}")
    known = config["experiments"][experiment].get("variants", {})
    frames = []
    order = {
        name: position for position, name in enumerate(sample_ids(read_instance_index(index), sample, seed))
    }
    found = [item for shard in shards for item in read_instance_shard(shard) if str(item[0]) in order]
    items = sorted(found, key=lambda item: order[str(item[0])])  # the set's order, whatever the shards
    specs = {}
    for variant in variants:  # every one checked before any is timed
        if variant not in known:
            raise ConfigError(f"experiments.{experiment}.variants: no variant {variant!r} to time again")
        spec = known[variant]
        if isinstance(spec, Mapping):  # as a decode job sees it: mem_mb is read by the scheduler only
            spec = {key: value for key, value in spec.items() if key != "mem_mb"}
        _check_variant(experiment, variant, spec)
        specs[variant] = spec
    for variant, spec in specs.items():
        frame, _ = _run_variant(
            experiment,
            dataset,
            variant,
            spec,
            items,
            harness,
            config,
            (params_files or {}).get(variant),
            progress,
        )
        frames.append(frame.assign(process=process))
    frame = pd.concat(frames, ignore_index=True)
    write_records(records, frame)
    prov = collect_provenance(
        seed=seed,
        config=dict(config),
        threads=frames[0].attrs.get("threads"),
        extra={
            "harness": frames[0].attrs.get("harness"),
            "noise": {"sample": sample, "processes": processes, "process": process, "variants": variants},
        },
    )
    write_provenance(provenance, prov)
    log.info("%s/%s noise process %d: %d records", experiment, dataset, process, len(frame))
    return frame


def _shard_items(
    instances: str | Path, spec: Mapping[str, Any], index: str | Path | None, seed: int, where: str
) -> list[Instance]:
    """Read the shard's instances, keeping only those in the variant's ``sample`` of the set if it has one."""
    items = read_instance_shard(instances)
    sample = variant_sample(spec, where)
    if sample is not None:
        if index is None:
            raise ConfigError(f"{where}.sample: needs the instance set's index")
        chosen = set(sample_ids(read_instance_index(index), sample, seed))
        items = [item for item in items if str(item[0]) in chosen]
    return items


def _reference_variant(
    harness: Mapping[str, Any], config: Mapping[str, Any], experiment: str, variant: str
) -> dict[str, Any] | None:
    """Resolve ``harness.reference`` to its variant's decoder, params and module (None: none or itself)."""
    reference = harness.get("reference")
    if reference is None or reference == variant:
        return None
    variants = config["experiments"][experiment].get("variants", {})
    if reference not in variants or "decoder" not in variants[reference]:
        raise ConfigError(
            f"experiments.{experiment}.harness.reference: {reference!r} is not a variant of {experiment}"
        )
    spec_of_reference = variants[reference]
    return {
        key: spec_of_reference[key] for key in ("decoder", "params", "module") if key in spec_of_reference
    }


def gather_runs(
    shards: Sequence[str | Path],
    index: str | Path,
    output: str | Path,
    sample: int | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Join the shard records of one variant in instance-set order; every instance (of the variant's ``sample``
    of the set, see :func:`decode_shard`) exactly once."""
    shards = check_sequence(shards, "shards")
    index, output = check_path(index, "index"), check_path(output, "output")
    expected = sample_ids(read_instance_index(index), sample, seed)
    frame = gather_shards(shards, expected_ids=expected)
    write_records(output, frame)
    return frame
