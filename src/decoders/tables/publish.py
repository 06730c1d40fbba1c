"""Publish a run's results page under docs/, one folder per CPU, so that pages of several machines stay side by side.

Speed ratios are properties of the CPU they were measured on (a vectorised Viterbi gains more from AVX-512 than
column generation does, for example), so a page refreshed on another machine type must not replace the first:
``python -m decoders.tables.publish results docs`` copies ``results/RESULTS.md`` and ``results/figures/`` to
``docs/results/<cpu>/`` (the CPU read from the page's provenance tables) and rewrites ``docs/RESULTS.md`` as the
index of every published page, newest first, with its CPU, commit and dates.
"""

from __future__ import annotations

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
    if (results / "figures").is_dir():
        shutil.rmtree(target / "figures", ignore_errors=True)
        shutil.copytree(results / "figures", target / "figures")
    write_text_atomic(target / PAGE, text)
    write_text_atomic(docs / PAGE, index(docs))
    return target


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
        "`python -m decoders.tables.publish results docs`). Every number on a page comes from the runs recorded",
        "under results/ on that machine (commit, dates and CPU in each section's provenance table).",
        "",
        "| CPU (page) | commit | dates (UTC) |",
        "|---|---|---|",
        *[line for _, line in sorted(entries, reverse=True)],
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m decoders.tables.publish <results folder> <docs folder>", file=sys.stderr)
        return 2
    try:
        target = publish(*argv)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"published {target / PAGE}; index {Path(argv[1]) / PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
