"""Reading published results pages: their sections, provenance rows and the index of every page.

A page (``RESULTS.md``) has a preamble, then ``## `` sections: the corpora, one per experiment (``## <experiment>:
...``, the only ones with a provenance table), and sections of the whole run (time per rule, cost).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

PAGE = "RESULTS.md"
#: Beside a published page: records/<experiment>/ holds the content record and the records archive.
RECORDS = "records"
CONTENT = "content.json"
ARCHIVE = "records.tar.xz"
#: How a section's status against the code that ships starts (decoders.tables.evidence writes it).
STATUS_PREFIX = "> **Status:**"


def page_field(text: str, field: str) -> list[str]:
    """Values of a provenance row ``| field | value |`` of a results page, in order, without repeats."""
    values = re.findall(rf"^\| {re.escape(field)} \| (.*?) \|\s*$", text, flags=re.MULTILINE)
    return list(dict.fromkeys(values))


def cpu_slug(cpu: str) -> str:
    """A folder name for a CPU description: lower case, runs of other characters as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", cpu.lower()).strip("-")


def sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """A page's text before its first ``## `` heading, and its ``## `` sections as (heading, text)."""
    parts = re.split(r"^(?=## )", text, flags=re.MULTILINE)
    return parts[0], [(part.splitlines()[0][3:].strip(), part) for part in parts[1:]]


def experiment_of(heading: str, body: str) -> str | None:
    """The experiment a section reports (``chains`` of ``chains: ...``), None for a section of the whole run
    (corpora, time per rule), which has no provenance table."""
    return heading.split(":", 1)[0] if "| provenance |" in body else None


def page_contents(text: str) -> list[str]:
    """What a page holds: each experiment section's name with the commit and dates of its runs."""
    contents = []
    for heading, body in sections(text)[1]:
        experiment = experiment_of(heading, body)
        if experiment:
            dates = sorted(d for value in page_field(body, "date (UTC)") for d in value.split(" .. ") if d)
            commits = ", ".join(c[:7] for value in page_field(body, "commit") for c in value.split(", "))
            days = sorted({d[:10] for d in dates})
            when = f", {days[0]}" + (f" .. {days[-1]}" if len(days) > 1 else "") if days else ""
            contents.append(f"{experiment} ({commits}{when})")
    return contents


def index(docs: Path, statuses: Mapping[str, str] | None = None) -> str:
    """The index page: every published page, the most recent run first, with the experiments it holds and, where
    ``statuses`` has the page (by folder name), each section's status against the code that ships
    (:mod:`decoders.tables.evidence`); otherwise the status the page itself states."""
    entries = []
    for page in sorted((docs / "results").glob(f"*/{PAGE}")):
        text = page.read_text(encoding="utf-8")
        dates = sorted(d for value in page_field(text, "date (UTC)") for d in value.split(" .. ") if d)
        entries.append(
            (
                dates[-1] if dates else "",
                f"| [{'; '.join(page_field(text, 'CPU'))}]({page.relative_to(docs).as_posix()}) "
                f"| {explorer_link(docs, page)} "
                f"| {'; '.join(page_contents(text))} "
                f"| {(statuses or {}).get(page.parent.name) or '; '.join(stated_statuses(text))} |",
            )
        )
    lines = [
        "# Results",
        "",
        "One results page per machine type: speed ratios are properties of the CPU they were measured on.",
        "A refresh on another machine type adds a page beside the others (`snakemake`, then",
        "`python -m decoders.tables.publish results docs`); a run of some experiments refreshes their sections only.",
        "Every number on a page comes from the runs recorded under results/ on that machine.",
        "Each experiment's section gives the commit, dates and CPU of its runs.",
        "A page is named by the CPU model name the kernel reports. A virtual machine's name can hide the",
        'generation ("AMD EPYC"), so two sections of one page may come from different hosts of that name: compare',
        "speeds within a section, where each ratio pairs two decoders timed on the same instances in one run.",
        "A section is *current* when the code, rules and settings its records depend on are those that ship, by",
        "content; `python -m decoders.tables.evidence check` checks every section and names what changed.",
        "Each page's explorer (open its index.html from disk) has the page's tables, sortable and filterable, with",
        "their CSVs, and, where the page was published with its records, per-instance charts.",
        "",
        "| CPU (page) | explorer | experiments (commit, dates UTC) | status against the code that ships |",
        "|---|---|---|---|",
        *[line for _, line in sorted(entries, reverse=True)],
    ]
    return "\n".join(lines) + "\n"


def explorer_link(docs: Path, page: Path) -> str:
    """A link to the page's explorer (its sortable tables and per-instance charts, opened from disk) where it has
    one."""
    site = page.parent / "explorer" / "index.html"
    return f"[tables and charts]({site.relative_to(docs).as_posix()})" if site.is_file() else ""


def stated_statuses(text: str) -> list[str]:
    """Each experiment section's status as the page states it (``<experiment> <status>``), in page order."""
    found = []
    for heading, body in sections(text)[1]:
        experiment = experiment_of(heading, body)
        for line in body.splitlines():
            if experiment and line.startswith(STATUS_PREFIX):
                found.append(f"{experiment} {line[len(STATUS_PREFIX) :].split(':', 1)[0].strip()}")
                break
    return found
