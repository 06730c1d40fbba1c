"""Provenance by content: what a job's outputs depend on, recorded by hash, so that a published number can be
traced to the code, rules and settings that made it, and checked against the code that ships.

Every job of the workflow (:func:`decoders.workflow.start_script`) leaves beside each of its outputs a hidden
job record ``.<name>.job.json``: its rule and wildcards, the sha256 of its rule's source in workflow/rules, of its
script and of every module of the package the job imported (measured in the job: ``sys.modules`` at its end;
a decode job imports its decoder module itself before its worker process starts), and the sha256 of each input (from the input's own
checksum, :mod:`decoders.io`). From the tables of an experiment, :func:`closure` walks those records back to the
corpora, and :func:`section_content` splits what they hold into what the records depend on (every job before
the tables) and what only the tables depend on (the tables job), so that a change to a table never makes the
decodes stale. :func:`compare` sets a recorded section against a source tree and names each file, rule or
setting that differs.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from decoders.checks import check_mapping, check_path
from decoders.errors import CorpusFormatError
from decoders.io import checksum_path, read_json, write_json_atomic

JOB_SUFFIX = ".job.json"
#: Rules whose outputs are tables and pages: their code is what only the tables depend on.
TABLE_RULES = re.compile(r"^(\w+_tables|results_page|corpora_table)$")
#: Keys of the run's configuration that say where things are, not what is computed.
PLACE_KEYS = ("mirror", "resources")


def job_record_path(path: str | Path) -> Path:
    """Where the job record of an output is kept: the hidden file ``.<name>.job.json`` beside it."""
    path = Path(check_path(path))
    return path.with_name(f".{path.name}{JOB_SUFFIX}")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha(path: Path) -> str | None:
    """sha256 of a file's bytes, None when it does not exist."""
    try:
        return sha256_bytes(path.read_bytes())
    except FileNotFoundError:
        return None


def recorded_sha(path: str | Path) -> str | None:
    """The sha256 an input's job recorded for it (its checksum file), None where it has none (a corpus file of the
    mirror: its sha256 is in the configuration, which the section's settings hold)."""
    try:
        text = checksum_path(path).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    return text.split()[0] if text.split() else None


def relative(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (links resolved: a conda job imports the package through
    workflow/scripts/decoders), None outside it."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def loaded_code(root: Path) -> dict[str, str]:
    """sha256 of every module of the decoders package this process has imported, by path under ``root``."""
    code = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if (name == "decoders" or name.startswith("decoders.")) and file:
            where = relative(Path(file), root)
            if where is not None and (digest := file_sha(Path(file))) is not None:
                code[where] = digest
    return code


_RULE = re.compile(r"^(?P<indent>[ \t]*)rule(?: (?P<name>\w+))?:\s*$")


def rule_source(rules: Path, name: str) -> tuple[str, str] | None:
    """(file, source) of the rule ``name`` in the .smk files of ``rules``: its block from ``rule name:`` to the
    next statement as far left as that line. A rule made in a loop (``rule:`` with ``name=f"fetch_{...}"``) is
    found by the fixed start of its name. None when no file has it."""
    for file in sorted(Path(rules).glob("*.smk")):
        lines = file.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            match = _RULE.match(line)
            if not match:
                continue
            end = i + 1
            indent = len(match["indent"])
            while end < len(lines) and (
                not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
            ):
                end += 1
            block = "\n".join(lines[i:end]).rstrip()
            if match["name"] == name:
                return file.name, block
            if match["name"] is None:
                made = re.search(r"name\s*[:=]\s*f?[\"']([\w-]*)", block)
                if made and made[1] and name.startswith(made[1]):
                    return file.name, block
    return None


def rule_sha(rules: Path, name: str) -> str | None:
    found = rule_source(rules, name)
    return None if found is None else sha256_bytes(f"{found[0]}\n{found[1]}".encode())


def named_values(values: Any) -> dict[str, Any]:
    """A Snakemake named list (input, output, params, log) as JSON: its items and its names' (start, end)."""
    names = (
        [[name, start, end] for name, (start, end) in values._get_names()]
        if hasattr(values, "_get_names")
        else []
    )
    return {"items": json.loads(json.dumps(list(values), default=str)), "names": names}


def replay_record(snakemake: Any) -> dict[str, Any]:
    """What it takes to run a tables job again from its inputs alone (decoders.tables.rebuild): its named inputs,
    outputs, params and log, the run's configuration and its thread count."""
    return {
        "input": named_values(snakemake.input),
        "output": named_values(snakemake.output),
        "params": named_values(snakemake.params),
        "log": named_values(snakemake.log),
        "config": json.loads(json.dumps(snakemake.config, default=str)),
        "threads": int(snakemake.threads),
    }


def job_record(
    *,
    root: str | Path,
    rule: str,
    wildcards: Mapping[str, str],
    script: str | Path | None,
    inputs: Iterable[str],
    replay: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a job's outputs depend on, by hash (module docstring). ``script``: the job's script under
    workflow/scripts (None for a job without one); ``replay``: for a tables job, :func:`replay_record`."""
    root = Path(check_path(root, "root"))
    code = loaded_code(root)
    if script is not None:
        code[relative(Path(script), root) or Path(script).as_posix()] = file_sha(Path(script)) or ""
    return {
        "rule": rule,
        "wildcards": dict(wildcards),
        "rule_sha": rule_sha(root / "workflow" / "rules", rule),
        "script": None if script is None else relative(Path(script), root),
        "code": dict(sorted(code.items())),
        "inputs": {str(path): recorded_sha(path) for path in dict.fromkeys(map(str, inputs))},
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        **({"replay": dict(replay)} if replay is not None else {}),
    }


def finish_job_record(record: Mapping[str, Any], root: str | Path) -> dict[str, Any]:
    """A job record as its job ends: with every module of the package the job imported by then (a decoder module
    loaded by name, say) and the time."""
    code = {**record["code"], **loaded_code(Path(root))}
    return {
        **record,
        "code": dict(sorted(code.items())),
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def write_job_records(outputs: Iterable[str | Path], record: Mapping[str, Any]) -> None:
    for path in outputs:
        write_json_atomic(job_record_path(path), dict(record))


def read_job_record(path: str | Path) -> dict[str, Any] | None:
    """The job record beside an output, None when it has none (a corpus file, an output of an older run)."""
    where = job_record_path(path)
    if not where.is_file():
        return None
    record = read_json(where)
    if not isinstance(record, dict) or "code" not in record or "inputs" not in record:
        raise CorpusFormatError(where, None, "not a job record (keys 'code' and 'inputs' expected)")
    return record


def closure(outputs: Iterable[str | Path], base: str | Path = ".") -> list[dict[str, Any]]:
    """The job records of ``outputs`` and, through their inputs, of every job before them (each job once), with
    ``missing`` listing the files on the way that have no record (corpus files; outputs of older runs).
    Paths in records are relative to the folder Snakemake ran in, ``base``."""
    base = Path(base)
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    missing: list[str] = []
    todo = [str(p) for p in outputs]
    visited: set[str] = set()
    while todo:
        path = todo.pop()
        if path in visited:
            continue
        visited.add(path)
        target = Path(path) if Path(path).is_absolute() else base / path
        record = read_job_record(target)
        if record is None:
            missing.append(path)
            continue
        key = (record["rule"], json.dumps(record["wildcards"], sort_keys=True))
        seen.setdefault(key, record)
        todo += list(record["inputs"])
    return [*seen.values(), {"missing": sorted(missing)}]


def _merge_code(records: Iterable[Mapping[str, Any]]) -> tuple[dict[str, str], list[str]]:
    """Every file's sha256 over the records, and the files two jobs saw with different contents."""
    code: dict[str, str] = {}
    mixed = set()
    for record in records:
        for file, digest in record["code"].items():
            if code.setdefault(file, digest) != digest:
                mixed.add(file)
    return dict(sorted(code.items())), sorted(mixed)


def section_content(
    tables: Iterable[str | Path], settings: Mapping[str, Any], base: str | Path = "."
) -> dict:
    """An experiment section's content: ``records`` (code, rules and scripts of every job before the tables,
    and ``settings``: the experiment's settings as the records were made) and ``tables`` (the tables jobs' own),
    each with a ``digest``; ``mixed``: files that jobs of one part saw at different contents."""
    tables = [str(path) for path in tables]
    jobs = closure(tables, base)
    missing = jobs.pop()["missing"]
    parts = {"records": [], "tables": []}
    for record in jobs:
        parts["tables" if TABLE_RULES.match(record["rule"]) else "records"].append(record)
    content: dict[str, Any] = {}
    for part, records in parts.items():
        code, mixed = _merge_code(records)
        rules = {record["rule"]: record["rule_sha"] for record in sorted(records, key=lambda r: r["rule"])}
        scripts = sorted({record["script"] for record in records if record["script"]})
        entry = {"code": code, "rules": rules, "scripts": scripts, "mixed": mixed, "jobs": len(records)}
        if part == "tables":
            entry["outputs"] = [str(path) for path in tables]
        if part == "records":
            entry["settings"] = dict(check_mapping(settings, "settings"))
            entry["unrecorded_inputs"] = [path for path in missing if not path.startswith("data/raw/")]
        entry["digest"] = digest_of(entry)
        content[part] = entry
    return content


def digest_of(entry: Mapping[str, Any]) -> str:
    """sha256 of what a part depends on: its code, rules and settings (not its counts or missing lists)."""
    keys = ("code", "rules", "settings")
    canonical = json.dumps(
        {k: entry.get(k) for k in keys}, sort_keys=True, separators=(",", ":"), default=str
    )
    return sha256_bytes(canonical.encode())


def experiment_settings(config: Mapping[str, Any], experiment: str) -> dict[str, Any]:
    """The settings an experiment's records depend on: its own section of the configuration, the datasets it
    reads (with the datasets they are prepared from) and their corpora (files with sha256), the harness, the seed
    and the tier. Where files are (the mirror) and what jobs ask a scheduler for are left out."""
    config = check_mapping(config, "config")
    experiments = config.get("experiments", {})
    if experiment not in experiments:
        raise KeyError(f"experiments: no experiment {experiment!r} (known: {', '.join(sorted(experiments))})")
    settings = experiments[experiment]
    datasets = config.get("datasets", {})
    names = [name for name in settings.get("datasets", []) if name in datasets]
    names += [datasets[name]["graph"] for name in names if "graph" in datasets[name]]
    used = {name: datasets[name] for name in datasets if name in names}
    corpora_named = set()
    for spec in used.values():
        for ref in [*spec.get("files", {}).values()]:
            corpora_named.add(str(ref).split("/", 1)[0])
        corpora_named.update(spec.get("sources", {}).values())
    corpora = {name: spec for name, spec in config.get("corpora", {}).items() if name in corpora_named}
    return json.loads(
        json.dumps(
            {
                "experiment": settings,
                "datasets": used,
                "corpora": corpora,
                "harness": config.get("harness"),
                "seed": config.get("seed"),
                "tier": config.get("tier", "full"),
            },
            default=str,
        )
    )


def _changed_keys(old: Any, new: Any, prefix: str = "") -> list[str]:
    """The dotted keys where two settings trees differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            out += _changed_keys(old.get(key), new.get(key), f"{prefix}.{key}" if prefix else str(key))
        return out
    return [] if old == new else [prefix or "(all)"]


def compare(content: Mapping[str, Any], root: str | Path, settings: Mapping[str, Any] | None) -> dict:
    """What differs between a section's recorded content and the source tree ``root`` (with ``settings``, the
    experiment's settings as ``root``'s configuration gives them; None: not compared): for ``records`` and
    ``tables`` each, the files changed or removed and the rules changed, and for the records the settings keys
    changed. A module no job imported cannot have changed the records, and a job imports a new one only through
    a change to one it did import, so the recorded files are the ones to compare."""
    root = Path(check_path(root, "root"))
    report: dict[str, dict[str, list[str]]] = {}
    for part in ("records", "tables"):
        entry = content.get(part, {})
        changed, removed = [], []
        for file, digest in entry.get("code", {}).items():
            now = file_sha(root / file)
            if now is None:
                removed.append(file)
            elif now != digest:
                changed.append(file)
        rules = [
            rule
            for rule, digest in entry.get("rules", {}).items()
            if rule_sha(root / "workflow" / "rules", rule) != digest
        ]
        found = {"changed": changed, "removed": removed, "rules": rules}
        if part == "records" and settings is not None:
            found["settings"] = _changed_keys(entry.get("settings"), dict(settings))
        report[part] = found
    return report


def describe(report: Mapping[str, Mapping[str, list[str]]]) -> str:
    """A short line naming what changed (empty when nothing did)."""
    words = []
    for part, found in report.items():
        items = []
        for kind, label in (
            ("changed", "changed"),
            ("removed", "removed"),
            ("rules", "rules changed"),
            ("settings", "settings changed"),
        ):
            names = found.get(kind, [])
            if names:
                shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
                items.append(f"{label}: {shown}")
        if items:
            words.append(f"{part}: " + "; ".join(items))
    return " | ".join(words)
