"""Is a published section still the code that ships? The staleness check of every published page, and the
records published beside a page.

Each experiment section of a page published since provenance by content (:mod:`decoders.content`) has its
content record beside the page, ``records/<experiment>/content.json``: the sha256 of every file, rule and
setting its records depend on, and of what only its tables depend on. ``python -m decoders.tables.evidence
check`` sets each against the source tree and the configuration that ship, and says per section:

- ``current``: the records and the tables were made by the code, rules and settings that ship;
- ``tables stale``: the records are current, the tables code changed since (rebuilding the page from its
  records brings it up to date, no decoding needed);
- ``stale``: something the records depend on changed (named); only a new run makes the section current;
- ``stale (no content record)``: published before content was recorded: nothing shows which code made it.

``--write`` puts each section's status under its heading and into the index (docs/RESULTS.md); the test suite
checks that the statuses written in the pages are the ones the check finds, so a change to the code that makes
a section stale cannot land without its page saying so. The command exits 1 when any section is not current.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decoders.checks import check_path
from decoders.config import load_config, validate_config
from decoders.content import (
    closure,
    compare,
    describe,
    experiment_settings,
    file_sha,
    job_record_path,
    read_job_record,
)
from decoders.errors import ConfigError
from decoders.io import checksum_path, read_json, write_json_atomic, write_text_atomic
from decoders.linking.sweep import sweep_variants
from decoders.tables.explorer import EXPLORER, EXPLORER_ASSETS
from decoders.tables.explorer import build as build_explorer
from decoders.tables.pages import (
    ARCHIVE,
    CONTENT,
    PAGE,
    RECORDS,
    STATUS_PREFIX,
    experiment_of,
    index,
    page_field,
    sections,
)

MANIFEST = "manifest.json"
#: A file larger than this is listed in the manifest (size, sha256) but not copied beside the page.
MAX_COPIED_BYTES = 50 * 2**20


@dataclass(frozen=True)
class SectionStatus:
    page: str
    experiment: str
    status: str
    what: str

    @property
    def current(self) -> bool:
        return self.status == "current"

    def line(self) -> str:
        return f"{STATUS_PREFIX} {self.status}" + (f": {self.what}" if self.what else "")


def workflow_settings(root: Path) -> Mapping[str, Any]:
    """The checked configuration the workflow in ``root`` loads by default (config.yaml with each listed
    experiment's config/<name>.yaml, the schemas' defaults filled in), as its jobs record it: with the variants
    linking's candidate sweep generates added to ``experiments.linking.variants`` (workflow/rules/linking.smk)."""
    config = validate_config(load_config(root), root / "workflow" / "schemas" / "config.schema.yaml")
    linking = config.get("experiments", {}).get("linking")
    if not linking:
        return config
    variants = {**linking.get("variants", {}), **sweep_variants(linking)}
    return {**config, "experiments": {**config["experiments"], "linking": {**linking, "variants": variants}}}


def section_status(
    page_dir: Path, experiment: str, root: Path, config: Mapping[str, Any] | None, commits: str = ""
) -> SectionStatus:
    """The status of one experiment section of the page in ``page_dir`` against the tree ``root`` (module
    docstring)."""
    page = page_dir.name
    path = page_dir / RECORDS / experiment / CONTENT
    if not path.is_file():
        return SectionStatus(
            page,
            experiment,
            "stale (no content record)",
            "published before provenance by content" + (f"; its runs' commits: {commits}" if commits else ""),
        )
    content = read_json(path)
    settings = None
    if config is not None and experiment in config.get("experiments", {}):
        settings = experiment_settings(config, experiment)
    report = compare(content, root, settings)
    if settings is None:
        report["records"]["settings"] = [f"experiments.{experiment} (no longer configured)"]
    records = describe({"records": report["records"]})
    tables = describe({"tables": report["tables"]})
    if records:
        return SectionStatus(page, experiment, "stale", records + (f" | {tables}" if tables else ""))
    if tables:
        return SectionStatus(page, experiment, "tables stale", tables)
    return SectionStatus(page, experiment, "current", "")


def check(docs: str | Path, root: str | Path) -> list[SectionStatus]:
    """The status of every experiment section of every page under ``docs``/results, against the tree ``root``."""
    docs, root = Path(check_path(docs, "docs")), Path(check_path(root, "root"))
    try:
        config = workflow_settings(root)
    except (ConfigError, OSError) as error:
        raise ConfigError(f"{root}: the configuration that ships cannot be read ({error})") from None
    statuses = []
    for page in sorted((docs / "results").glob(f"*/{PAGE}")):
        for heading, body in sections(page.read_text(encoding="utf-8"))[1]:
            if experiment := experiment_of(heading, body):
                commits = ", ".join(c[:7] + c[40:] for v in page_field(body, "commit") for c in v.split(", "))
                statuses.append(section_status(page.parent, experiment, root, config, commits))
    return statuses


def write_statuses(docs: str | Path, statuses: Sequence[SectionStatus]) -> list[Path]:
    """Put each section's status line under its heading (replacing an earlier one); return the pages changed."""
    docs = Path(docs)
    by_page: dict[str, dict[str, SectionStatus]] = {}
    for status in statuses:
        by_page.setdefault(status.page, {})[status.experiment] = status
    changed = []
    for name, found in by_page.items():
        path = docs / "results" / name / PAGE
        text = path.read_text(encoding="utf-8")
        new = with_statuses(text, found)
        if new != text:
            write_text_atomic(path, new)
            changed.append(path)
    return changed


def with_statuses(text: str, statuses: Mapping[str, SectionStatus]) -> str:
    """A page's text with each experiment section's status line right under its heading."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.startswith("## "):
            experiment = line[3:].split(":", 1)[0].strip()
            if experiment in statuses:
                while i < len(lines) and (not lines[i].strip() or lines[i].startswith(STATUS_PREFIX)):
                    i += 1
                out += ["", statuses[experiment].line(), ""]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def written_statuses(text: str) -> dict[str, str]:
    """The status lines a page holds, by experiment."""
    found = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].split(":", 1)[0].strip()
        elif line.startswith(STATUS_PREFIX) and current:
            found[current] = line
    return found


def publish_records(results: Path, target: Path, experiments: Sequence[str]) -> dict[str, Any]:
    """Put beside a published page what each of its experiment sections was built from, so that a reader can
    check a cell and the page can be rebuilt without results/ (:mod:`decoders.tables.rebuild`):
    ``records/<experiment>/content.json`` (what the records and tables depend on, for the staleness check) and
    ``records/<experiment>/records.tar.xz``, holding, with the paths they had in the run:

    - every file the section's tables jobs read (the per-instance records of every variant, the decode jobs'
      provenance, the summaries of models and instances the tables use), and the corpora table's inputs;
    - the job records of those jobs and of every job before them (decoders.content), with the tables jobs'
      replay records (inputs, outputs, params, configuration), and the results page's;
    - the run's benchmark files (the page's time and cost tables read them).

    A file larger than :data:`MAX_COPIED_BYTES` is listed in ``manifest.json`` (path, bytes, sha256) but left
    out of the archive. Returns the manifests by experiment."""
    base = results.parent
    manifests: dict[str, Any] = {}
    for experiment in experiments:
        content_file = results / "content" / f"{experiment}.json"
        if not content_file.is_file():
            raise ConfigError(
                f"{content_file}: no content record for experiment {experiment!r} (a page built before provenance "
                "by content: build it again with `snakemake results/RESULTS.md`)"
            )
        content = read_json(content_file)
        files, sidecars = section_files(content, experiment, base)
        folder = target / RECORDS / experiment
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copy2(content_file, folder / CONTENT)
        entries = []
        with tarfile.open(atomic_tar(folder), "w:xz") as archive:
            for name in sorted(files):
                source = base / name
                if not source.is_file():
                    continue
                size = source.stat().st_size
                entry = {
                    "path": name,
                    "bytes": size,
                    "sha256": file_sha(source),
                    "archived": size <= MAX_COPIED_BYTES,
                }
                if entry["archived"]:
                    archive.add(source, arcname=name, recursive=False)
                entries.append(entry)
            for name in sorted(sidecars):
                if (base / name).is_file():
                    archive.add(base / name, arcname=name, recursive=False)
        atomic_tar(folder).replace(folder / ARCHIVE)
        manifests[experiment] = entries
        write_json_atomic(folder / MANIFEST, {"experiment": experiment, "files": entries})
    return manifests


def atomic_tar(folder: Path) -> Path:
    """Where the archive is written before it is complete (renamed to :data:`ARCHIVE` when it is)."""
    return folder / f".{ARCHIVE}.part"


#: The outputs whose job records hold the page-wide jobs a section's rebuild replays too.
PAGE_JOBS = {"results_page": "results/RESULTS.md", "corpora_table": "results/tables/corpora.md"}


def section_files(content: Mapping[str, Any], experiment: str, base: Path) -> tuple[set[str], set[str]]:
    """(files, sidecars) of an experiment section, as paths relative to ``base`` (the folder the run ran in).

    files: what a rebuild reads and no replayed job writes: the inputs of the section's tables jobs, of the
    corpora table, the section's decode provenance (the results page summarises it) and the run's benchmark
    files. sidecars: the job records and checksums beside those files, beside the replayed jobs' outputs, and
    beside every output on the way back from the section's tables to the corpora."""
    outputs = list(content["tables"].get("outputs", []))
    tables_jobs = [record for record in closure(outputs, base)[:-1] if record.get("replay")]
    page_jobs = [
        record for path in PAGE_JOBS.values() if (record := read_job_record(base / path)) is not None
    ]
    replayed = tables_jobs + page_jobs
    written = {path for record in replayed for path in record["replay"]["output"]["items"]}
    files = {run_path(path, base) for record in tables_jobs for path in record["inputs"]}
    for record in page_jobs:
        if record["rule"] == "corpora_table":
            files.update(run_path(path, base) for path in record["inputs"])
        else:
            sections = dict(named_items(record["replay"]["params"])).get("sections", {})
            files.update(run_path(path, base) for path in sections.get(experiment, {}).get("provenance", []))
    files -= {run_path(path, base) for path in written}
    files.update(p.relative_to(base).as_posix() for p in (base / "results" / "benchmarks").rglob("*.tsv"))
    chain = closure(outputs, base)[:-1]
    paths = files | written | {path for record in chain for path in record["inputs"]}
    sidecars = {
        run_path(sidecar, base) for path in paths for sidecar in (job_record_path(path), checksum_path(path))
    }
    return files, sidecars


def run_path(path: str | Path, base: Path) -> str:
    """A path a job record names, relative to the folder the run ran in (``base``): records keep the paths
    Snakemake gave, and a rule may name a file of the workflow by its absolute path (ppc's ddt sources table)."""
    path = Path(path)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(Path(base).resolve()).as_posix()
    except ValueError:
        raise ConfigError(
            f"{path}: a file the run's jobs read lies outside the folder it ran in ({Path(base).resolve()})"
        ) from None


def named_items(values: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The named entries of a recorded Snakemake named list (decoders.content.named_values)."""
    items = values["items"]
    return [(name, items[start] if end is None else items[start:end]) for name, start, end in values["names"]]


def index_statuses(statuses: Sequence[SectionStatus]) -> dict[str, str]:
    """Per page, the index's status cell: each experiment with its status."""
    cells: dict[str, list[str]] = {}
    for status in statuses:
        cells.setdefault(status.page, []).append(f"{status.experiment} {status.status}")
    return {page: "; ".join(items) for page, items in cells.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.evidence",
        description="Check every published results section against the code, rules and settings that ship.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    checking = sub.add_parser(
        "check", help="list every published section as current or stale (exit 1: a stale one)"
    )
    checking.add_argument("docs", nargs="?", default="docs", help="the docs folder (default: docs)")
    checking.add_argument("--root", default=".", help="the source tree to check against (default: .)")
    checking.add_argument(
        "--write", action="store_true", help="write each section's status into its page and the index"
    )
    args = parser.parse_args(argv)
    try:
        statuses = check(args.docs, args.root)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for status in statuses:
        print(
            f"{status.page} | {status.experiment} | {status.status}"
            + (f" | {status.what}" if status.what else "")
        )
    if args.write:
        for path in write_statuses(args.docs, statuses):
            print(f"wrote {path}")
            if (path.parent / EXPLORER).is_dir():  # its explorer shows the statuses too
                build_explorer(
                    path.parent, path.parent / EXPLORER, assets=Path(args.docs) / "results" / EXPLORER_ASSETS
                )
        write_text_atomic(Path(args.docs) / PAGE, index(Path(args.docs), index_statuses(statuses)))
    stale = [s for s in statuses if not s.current]
    print(f"{len(statuses) - len(stale)} current, {len(stale)} not current, of {len(statuses)} sections")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
