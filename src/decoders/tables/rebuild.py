"""Rebuild a published page from the records published beside it, without results/.

``python -m decoders.tables.rebuild docs/results/<cpu>`` unpacks each experiment section's records
(``records/<experiment>/records.tar.xz``, written by :func:`decoders.tables.evidence.publish_records`) into a
folder of its own, runs the section's tables jobs, the corpora table and the results page again on them with the
code of this tree (each job's script, with the inputs, outputs, params and configuration its job record kept),
and sets each rebuilt experiment section beside the published one. It exits 0 when every section is the same,
1 when one differs (the tables code changed since: ``python -m decoders.tables.evidence check`` says "tables
stale"), printing the first lines that differ. ``--out DIR`` keeps the rebuilt pages.

A section's status line is the check's, not the run's, and is left out of the comparison.

``--run DIR`` rebuilds instead the whole run behind the page's sections (their archives unpacked together: one
run's, each holding the run's benchmark files) into ``DIR/results``: every section's tables job, the corpora
table and the results page again with this tree's code, so that the run's whole-run sections (time and cost per
rule and experiment) are recomputed too. ``python -m decoders.tables.publish DIR/results docs`` then publishes
it like a fresh run, which refreshes a page's cost tables after the code that computes them changed.
"""

from __future__ import annotations

import argparse
import difflib
import json
import pickle
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from decoders.checks import check_path
from decoders.content import job_record_path, read_job_record
from decoders.errors import ConfigError
from decoders.io import read_json
from decoders.tables.evidence import ARCHIVE, PAGE_JOBS, RECORDS
from decoders.tables.pages import PAGE, STATUS_PREFIX, experiment_of, sections

ROOT = Path(__file__).resolve().parents[3]


def unpack(archive: Path, folder: Path) -> None:
    """Unpack a section's records archive into ``folder`` (regular files only, each under ``folder``)."""
    try:
        with tarfile.open(archive, "r:xz") as tar:
            tar.extractall(folder, filter="data")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ConfigError(f"{archive}: cannot unpack the published records ({error})") from None


def archived_record(archive: Path, output: str) -> dict[str, Any]:
    """The job record of ``output`` (a path relative to the run's folder) as a records archive holds it."""
    member = job_record_path(output).as_posix()
    try:
        with tarfile.open(archive, "r:xz") as tar:
            handle = tar.extractfile(member)
            record = json.loads(handle.read()) if handle is not None else None
    except KeyError:
        record = None
    except (tarfile.TarError, OSError, EOFError, ValueError) as error:
        raise ConfigError(f"{archive}: cannot unpack the published records ({error})") from None
    if not isinstance(record, dict):
        raise ConfigError(f"{archive}: no job record of {output}")
    return record


def replay(
    record: Mapping[str, Any], workdir: Path, root: Path = ROOT, sections: list[str] | None = None
) -> None:
    """Run a tables job again in ``workdir`` from its job record, with this tree's script: in a process of its own
    (a job's script sends its stderr to its log and registers exit hooks). ``sections``: for the results page,
    the experiments to keep (the others' records are not there)."""
    spec = dict(record)
    if sections is not None:
        spec = restrict_page(spec, sections)
    for name in [*spec["replay"]["output"]["items"], *spec["replay"]["log"]["items"]]:
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
    script = root / spec["script"]
    # as Snakemake runs a script: a copy named tmp<random>.<name> whose preamble unpickles the job's object, in a
    # fresh interpreter (so that the job record lists the modules the script imports, and only those)
    folder = workdir / ".snakemake" / "scripts"
    folder.mkdir(parents=True, exist_ok=True)
    preamble = (
        f"import pickle\nsnakemake = pickle.loads({pickle.dumps(snakemake_object(spec, root), protocol=4)!r})\n"
        f"__file__ = {str(script)!r}\n"
    )
    # the job unpickled labelled parameters (decoders.labelled, the report's labels), which the record replays as
    # plain values: import it as the job did, so that the replay's record lists the same code
    if any(path.endswith("decoders/labelled.py") for path in spec.get("code", {})):
        preamble = "import decoders.labelled\n" + preamble
    with tempfile.NamedTemporaryFile("w", suffix=f".{script.name}", dir=folder, delete=False) as handle:
        handle.write(preamble + script.read_text(encoding="utf-8"))
    done = subprocess.run(
        [sys.executable, handle.name], cwd=workdir, capture_output=True, text=True, check=False
    )
    Path(handle.name).unlink(missing_ok=True)
    if done.returncode != 0:
        logs = [workdir / name for name in spec["replay"]["log"]["items"]]
        tail = "\n".join(p.read_text(encoding="utf-8")[-2000:] for p in logs if p.is_file())
        raise ConfigError(
            f"replaying {spec['rule']} failed (exit {done.returncode}): {done.stderr[-2000:]}{tail}".rstrip()
        )


def restrict_page(record: Mapping[str, Any], experiments: list[str]) -> dict[str, Any]:
    """The results page's job record with only ``experiments``' sections (and their content outputs)."""
    replay_spec = json.loads(json.dumps(record["replay"]))
    params, output = replay_spec["params"], replay_spec["output"]
    for name, start, _end in params["names"]:
        if name == "sections":
            params["items"][start] = {k: v for k, v in params["items"][start].items() if k in experiments}
    for entry in output["names"]:
        name, start, end = entry
        if name == "content":
            kept = [p for p in output["items"][start:end] if Path(p).stem in experiments]
            output["items"][start:end] = kept
            shift = len(kept) - (end - start)
            entry[2] = start + len(kept)
            for other in output["names"]:
                if other[1] > start and other is not entry:
                    other[1] += shift
                    other[2] = None if other[2] is None else other[2] + shift
    return {**record, "replay": replay_spec}


def _named(values: Mapping[str, Any], kind: type) -> Any:
    made = kind(toclone=values["items"])
    made._take_names([(name, (start, end)) for name, start, end in values["names"]])
    return made


def snakemake_object(record: Mapping[str, Any], root: Path) -> Any:
    """The ``snakemake`` object a workflow script reads, from a job record's replay part."""
    from snakemake.iocontainers import InputFiles, Log, Namedlist, OutputFiles, Params, Snakemake, Wildcards

    replay_spec = record["replay"]
    return Snakemake(
        _named(replay_spec["input"], InputFiles),
        _named(replay_spec["output"], OutputFiles),
        _named(replay_spec["params"], Params),
        Wildcards(fromdict=record["wildcards"]),
        replay_spec["threads"],
        Namedlist(),
        _named(replay_spec["log"], Log),
        replay_spec["config"],
        record["rule"],
        None,
        str(root / "workflow" / "scripts"),
    )


def rebuild_section(page_dir: Path, experiment: str, workdir: Path, root: Path = ROOT) -> Path:
    """Rebuild one experiment section's page in ``workdir`` from its published records; return the page."""
    archive = page_dir / RECORDS / experiment / ARCHIVE
    if not archive.is_file():
        raise ConfigError(
            f"{archive}: no published records for {experiment!r} (published before records were)"
        )
    unpack(archive, workdir)
    tables = read_json(page_dir / RECORDS / experiment / "content.json")["tables"]["outputs"]
    jobs = {}
    for path in tables:
        record = read_job_record(workdir / path)
        if record is None or "replay" not in record:
            raise ConfigError(f"{archive}: no replay record beside {path}")
        jobs[(record["rule"], json.dumps(record["wildcards"], sort_keys=True))] = record
    for record in jobs.values():
        replay(record, workdir, root)
    for rule, path in PAGE_JOBS.items():
        record = read_job_record(workdir / path)
        if record is None:
            raise ConfigError(f"{archive}: no job record of the {rule} job ({path})")
        if rule == "results_page":
            page_record = record
        else:
            replay(record, workdir, root)
    replay(page_record, workdir, root, sections=[experiment])
    return workdir / PAGE_JOBS["results_page"]


def page_experiments(page_dir: Path) -> list[str]:
    """The experiment sections of the page in ``page_dir`` that have published records, in page order."""
    page = (page_dir / PAGE).read_text(encoding="utf-8")
    return [
        experiment
        for heading, body in sections(page)[1]
        if (experiment := experiment_of(heading, body))
        and (page_dir / RECORDS / experiment / ARCHIVE).is_file()
    ]


def rebuild_run(page_dir: str | Path, workdir: str | Path, root: Path = ROOT) -> Path:
    """Rebuild the one run behind every section of the page in ``page_dir`` that has records, into
    ``workdir/results``: the sections' archives unpacked together, their tables jobs, the corpora table and the
    results page (every section) run again with this tree's code. Refused when the sections come from more than
    one run (their results-page job records differ). Returns the results folder."""
    page_dir, workdir = Path(check_path(page_dir, "page_dir")), Path(workdir)
    experiments = page_experiments(page_dir)
    if not experiments:
        raise ConfigError(f"{page_dir}: no section has published records")
    if (workdir / "results").exists():
        raise ConfigError(f"{workdir / 'results'}: exists; rebuild a run into a new folder")
    runs: dict[str, list[str]] = {}
    for experiment in experiments:  # which run made each section: its results page's job record
        record = archived_record(page_dir / RECORDS / experiment / ARCHIVE, PAGE_JOBS["results_page"])
        runs.setdefault(json.dumps(record, sort_keys=True), []).append(experiment)
    if len(runs) > 1:
        made = "; ".join(", ".join(names) for names in runs.values())
        raise ConfigError(
            f"{page_dir}: its sections come from {len(runs)} runs ({made}); --run rebuilds one run"
        )
    workdir.mkdir(parents=True, exist_ok=True)
    jobs = {}
    for experiment in experiments:
        unpack(page_dir / RECORDS / experiment / ARCHIVE, workdir)
    for experiment in experiments:
        for path in read_json(page_dir / RECORDS / experiment / "content.json")["tables"]["outputs"]:
            record = read_job_record(workdir / path)
            if record is None or "replay" not in record:
                raise ConfigError(
                    f"{page_dir / RECORDS / experiment / ARCHIVE}: no replay record beside {path}"
                )
            jobs[(record["rule"], json.dumps(record["wildcards"], sort_keys=True))] = record
    for record in jobs.values():
        replay(record, workdir, root)
    records = {rule: read_job_record(workdir / path) for rule, path in PAGE_JOBS.items()}
    replay(records["corpora_table"], workdir, root)
    replay(records["results_page"], workdir, root, sections=experiments)
    return workdir / "results"


def section_text(page: str, experiment: str) -> str:
    """An experiment section of a page, without its status line."""
    for heading, body in sections(page)[1]:
        if experiment_of(heading, body) == experiment:
            lines = [line for line in body.rstrip("\n").splitlines() if not line.startswith(STATUS_PREFIX)]
            return "\n".join(lines).replace("\n\n\n", "\n\n").rstrip() + "\n"
    return ""


def rebuild(page_dir: str | Path, out: str | Path | None = None, root: Path = ROOT) -> dict[str, list[str]]:
    """Rebuild every experiment section of the page in ``page_dir`` that has published records; return, per
    section, the lines that differ from the published page (empty when it is the same)."""
    page_dir = Path(check_path(page_dir, "page_dir"))
    page = (page_dir / PAGE).read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="rebuild-") as scratch:
        base = Path(out) if out is not None else Path(scratch)
        for heading, body in sections(page)[1]:
            experiment = experiment_of(heading, body)
            if not experiment or not (page_dir / RECORDS / experiment / ARCHIVE).is_file():
                continue
            workdir = base / experiment
            workdir.mkdir(parents=True, exist_ok=True)
            rebuilt = rebuild_section(page_dir, experiment, workdir, root).read_text(encoding="utf-8")
            published, again = section_text(page, experiment), section_text(rebuilt, experiment)
            found[experiment] = list(
                difflib.unified_diff(
                    published.splitlines(), again.splitlines(), "published", "rebuilt", n=0, lineterm=""
                )
            )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.rebuild",
        description="Rebuild a published results page from the records published beside it (no results/ needed) "
        "and compare it with the page, section by section.",
    )
    parser.add_argument("page", nargs="?", help="the page's folder, e.g. docs/results/<cpu>")
    parser.add_argument("--out", help="keep the rebuilt pages here, one folder per experiment")
    parser.add_argument(
        "--run",
        metavar="DIR",
        help="rebuild the one run behind the page's sections into DIR/results (its whole-run sections too), for "
        "decoders.tables.publish",
    )
    args = parser.parse_args(argv)
    if not args.page:
        parser.error("the page's folder is required")
    if args.run:
        try:
            results = rebuild_run(args.page, args.run)
        except ConfigError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"rebuilt {results}; publish it with: python -m decoders.tables.publish {results} docs")
        return 0
    try:
        found = rebuild(args.page, args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not found:
        print(f"{args.page}: no section has published records")
        return 1
    for experiment, diff in found.items():
        print(f"{experiment}: {'the same as published' if not diff else f'{len(diff)} lines differ'}")
        for line in diff[:40]:
            print(f"    {line}")
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
