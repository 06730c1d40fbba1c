"""Publish a run's results page under docs/, one folder per CPU, so that pages of several machines stay side by side.

Speed ratios are properties of the CPU they were measured on (a vectorised Viterbi gains more from AVX-512 than
column generation does, for example), so a page refreshed on another machine type must not replace the first:
``python -m decoders.tables.publish results docs`` copies ``results/RESULTS.md`` and ``results/figures/`` to
``docs/results/<cpu>/`` (the CPU read from the page's provenance tables) and rewrites ``docs/RESULTS.md`` as the
index of every published page, newest first, with its CPU, commit and dates.

A run of some experiments only (``--config "experiments=[chains]"``, or a long one such as bnb run on its own)
refreshes only those sections of the CPU's page: the earlier page's other experiment sections stay, each with its
own provenance table, and so do that run's corpora and time-per-rule sections, headed with the experiments they
belong to (:func:`merge_pages`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

from decoders.errors import ConfigError
from decoders.io import write_text_atomic

PAGE = "RESULTS.md"


def page_field(text: str, field: str) -> list[str]:
    """Values of a provenance row ``| field | value |`` of a results page, in order, without repeats."""
    values = re.findall(rf"^\| {re.escape(field)} \| (.*?) \|\s*$", text, flags=re.MULTILINE)
    return list(dict.fromkeys(values))


def cpu_slug(cpu: str) -> str:
    """A folder name for a CPU description: lower case, runs of other characters as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", cpu.lower()).strip("-")


def publish(results: str | Path, docs: str | Path) -> Path:
    """Copy the results page and figures of ``results`` to ``docs/results/<cpu>/``; rewrite the index."""
    results, docs = Path(results), Path(docs)
    page = results / PAGE
    if not page.is_file():
        raise ConfigError(f"{page}: no results page (run `snakemake` first)")
    text = page.read_text(encoding="utf-8")
    cpus = page_field(text, "CPU")
    if not cpus:
        raise ConfigError(f"{page}: no '| CPU | ... |' provenance row: not a results page of decoders-bench")
    target = docs / "results" / cpu_slug(" + ".join(cpus))
    target.mkdir(parents=True, exist_ok=True)
    if (target / PAGE).is_file():
        text = merge_pages((target / PAGE).read_text(encoding="utf-8"), text)
    if (results / "figures").is_dir():  # one folder per experiment: the new run's replace theirs only
        for folder in sorted(p for p in (results / "figures").iterdir() if p.is_dir()):
            shutil.rmtree(target / "figures" / folder.name, ignore_errors=True)
            shutil.copytree(folder, target / "figures" / folder.name)
    write_text_atomic(target / PAGE, text)
    write_text_atomic(docs / PAGE, index(docs))
    return target


_EARLIER = re.compile(r" \(earlier run: ([^)]*)\)$")


def _sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """A page's text before its first ``## `` heading, and its ``## `` sections as (heading, text)."""
    parts = re.split(r"^(?=## )", text, flags=re.MULTILINE)
    return parts[0], [(part.splitlines()[0][3:].strip(), part) for part in parts[1:]]


def _experiment(heading: str, body: str) -> str | None:
    """The experiment a section reports (``chains`` of ``chains: ...``), None for a section of the whole run
    (corpora, time per rule), which has no provenance table."""
    return heading.split(":", 1)[0] if "| provenance |" in body else None


def merge_pages(old: str, new: str) -> str:
    """The new results page, keeping the old page's experiment sections that the new run did not produce.

    The kept sections come with the old run's sections of the whole run (corpora, time per rule), headed
    ``<heading> (earlier run: <experiments>)`` so that nobody reads them as the new run's; such a section goes
    once none of its experiments is kept. Kept experiment sections come after the new ones, before the new run's
    trailing whole-run sections."""
    preamble, fresh_sections = _sections(new)
    fresh = [(h, b, _experiment(h, b)) for h, b in fresh_sections]
    earlier = [(h, b, _experiment(h, b)) for h, b in _sections(old)[1]]
    produced = {e for _, _, e in fresh if e}
    kept = [section for section in earlier if section[2] and section[2] not in produced]
    if not kept:
        return new
    remaining = {e for _, _, e in kept}
    annotated = {h: set(m.group(1).split(", ")) for h, _, _ in earlier if (m := _EARLIER.search(h))}
    unannotated = {e for _, _, e in earlier if e} - set().union(*annotated.values())
    whole_run = []
    for heading, body, experiment in earlier:
        match = _EARLIER.search(heading)
        covers = set() if experiment else (annotated[heading] if match else unannotated) & remaining
        if covers:
            renamed = (
                f"{heading[: match.start()] if match else heading} (earlier run: {', '.join(sorted(covers))})"
            )
            whole_run.append(body.replace(f"## {heading}", f"## {renamed}", 1))
    last = max((i for i, (_, _, e) in enumerate(fresh) if e), default=0)
    bodies = [b for _, b, _ in fresh[: last + 1] + kept + fresh[last + 1 :]] + whole_run
    return preamble + "\n\n".join(body.rstrip("\n") for body in bodies) + "\n"


def index(docs: Path) -> str:
    """The index page: every published page, the most recent run first."""
    entries = []
    for page in sorted((docs / "results").glob(f"*/{PAGE}")):
        text = page.read_text(encoding="utf-8")
        dates = sorted(d for value in page_field(text, "date (UTC)") for d in value.split(" .. ") if d)
        entries.append(
            (
                dates[-1] if dates else "",
                f"| [{'; '.join(page_field(text, 'CPU'))}]({page.relative_to(docs).as_posix()}) "
                f"| {'; '.join(page_field(text, 'commit'))} | {dates[0][:10] if dates else ''} .. "
                f"{dates[-1][:10] if dates else ''} |",
            )
        )
    lines = [
        "# Results",
        "",
        "One results page per machine type: speed ratios are properties of the CPU they were measured on, so a",
        "refresh on another machine type adds a page beside the others (`snakemake`, then",
        "`python -m decoders.tables.publish results docs`), and a run of some experiments refreshes their sections",
        "only. Every number on a page comes from the runs recorded under results/ on that machine (commit, dates",
        "and CPU in each section's provenance table).",
        "",
        "| CPU (page) | commit | dates (UTC) |",
        "|---|---|---|",
        *[line for _, line in sorted(entries, reverse=True)],
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """The command line: ``python -m decoders.tables.publish [results] [docs]`` (``--help`` says more)."""
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.publish",
        description="Copy a run's results page and figures to <docs>/results/<cpu>/ (merged with that CPU's "
        "earlier page: sections of experiments the run did not produce stay) and rewrite <docs>/RESULTS.md, "
        "the index of every published page.",
    )
    parser.add_argument(
        "results", nargs="?", default="results", help="the run's results folder (default: results)"
    )
    parser.add_argument(
        "docs", nargs="?", default="docs", help="the docs folder to publish into (default: docs)"
    )
    args = parser.parse_args(argv)
    try:
        target = publish(args.results, args.docs)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"published {target / PAGE}; index {Path(args.docs) / PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
