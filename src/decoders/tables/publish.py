"""Publish a run's results page under docs/, one folder per CPU, so that pages of several machines stay side by side.

Speed ratios are properties of the CPU they were measured on (a vectorised Viterbi gains more from AVX-512 than
column generation does, for example), so a page refreshed on another machine type must not replace the first:
``python -m decoders.tables.publish results docs`` copies ``results/RESULTS.md`` and ``results/figures/`` to
``docs/results/<cpu>/`` (the CPU read from the page's provenance tables), builds the page's explorer beside it
(``docs/results/<cpu>/explorer/``, :mod:`decoders.tables.explorer`, its scripts shared by every page under
``docs/results/explorer-assets/``) and rewrites ``docs/RESULTS.md`` as the
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
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from decoders.config import experiment_names, load_yaml
from decoders.errors import ConfigError
from decoders.io import CHECKSUM_SUFFIX, write_bytes_atomic, write_text_atomic
from decoders.tables.evidence import check, index_statuses, publish_records, write_statuses
from decoders.tables.explorer import EXPLORER, EXPLORER_ASSETS
from decoders.tables.explorer import build as build_explorer
from decoders.tables.pages import PAGE, cpu_slug, experiment_of, index, page_field, sections
from decoders.tables.scoreboard import insert_scoreboard


def publish(
    results: str | Path, docs: str | Path, order: Sequence[str] = (), root: str | Path | None = None
) -> Path:
    """Copy the results page and figures of ``results`` to ``docs/results/<cpu>/``; rewrite the index.
    ``order``: the experiments' order on the page (config.yaml's list).

    With ``root``, the source tree that ships (the command line's working directory): it must have no
    uncommitted change to a tracked file, the page's runs none either (no "(dirty)" commit), and every experiment
    section of the page its content record (results/content/<experiment>.json); the records behind the sections
    are copied beside the page (:func:`decoders.tables.evidence.publish_records`) and every section of the page
    gets its status against ``root`` (:func:`decoders.tables.evidence.check`)."""
    results, docs = Path(results), Path(docs)
    page = results / PAGE
    if not page.is_file():
        raise ConfigError(f"{page}: no results page (run `snakemake` first)")
    text = page.read_text(encoding="utf-8")
    if root is not None:
        refuse_unclean(Path(root), text, page)
    cpus = page_field(text, "CPU")
    if not cpus:
        raise ConfigError(f"{page}: no '| CPU | ... |' provenance row: not a results page of decoders-bench")
    if "quick" in ", ".join(page_field(text, "tier")):
        raise ConfigError(
            f"{page}: a quick-tier page (sampled test sets, shorter training); only full runs are published beside "
            "the papers' numbers"
        )
    target = docs / "results" / cpu_slug(" + ".join(cpus))
    with _restored_on_failure(target, docs / PAGE):
        _publish_page(results, docs, target, text, order, root)
    return target


@contextmanager
def _restored_on_failure(target: Path, index_page: Path) -> Iterator[None]:
    """Leave the page folder ``target`` and the index as they were when the publishing inside fails (an error, a
    full disk, an interrupt): a copy of both is kept in a temporary folder until it succeeds."""
    with tempfile.TemporaryDirectory(prefix="decoders-publish-") as scratch:
        backup = Path(scratch) / "page"
        if target.exists():
            shutil.copytree(target, backup)
        index_before = index_page.read_bytes() if index_page.is_file() else None
        try:
            yield
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            if backup.exists():
                shutil.move(backup, target)
            if index_before is None:
                index_page.unlink(missing_ok=True)
            else:
                write_bytes_atomic(index_page, index_before)
            raise


def _publish_page(
    results: Path, docs: Path, target: Path, text: str, order: Sequence[str], root: str | Path | None
) -> None:
    """:func:`publish`'s work once the page is accepted: figures, records, page, statuses, explorer, index."""
    page = results / PAGE
    target.mkdir(parents=True, exist_ok=True)
    earlier = (target / PAGE).read_text(encoding="utf-8") if (target / PAGE).is_file() else ""
    # the scoreboard of the merged page: its sections may come from several runs (from their Markdown tables)
    text = insert_scoreboard(merge_pages(earlier, text, order))
    if (results / "figures").is_dir():  # one folder per experiment: the new run's replace theirs only
        for folder in sorted(p for p in (results / "figures").iterdir() if p.is_dir()):
            shutil.rmtree(target / "figures" / folder.name, ignore_errors=True)
            # the run's checksums (decoders.io.checksum_path) stay behind: they vouch for results/, not docs/
            shutil.copytree(
                folder, target / "figures" / folder.name, ignore=shutil.ignore_patterns(f"*{CHECKSUM_SUFFIX}")
            )
    produced = [
        name
        for heading, body in sections(page.read_text(encoding="utf-8"))[1]
        if (name := experiment_of(heading, body))
    ]
    missing = [name for name in produced if not (results / "content" / f"{name}.json").is_file()]
    if root is not None and missing:
        raise ConfigError(
            f"{results / 'content'}: no content record for {', '.join(missing)} (a page built before provenance by "
            "content: build it again with `snakemake results/RESULTS.md`)"
        )
    if not missing:
        publish_records(results, target, produced)
    write_text_atomic(target / PAGE, text)
    statuses = None
    if root is not None:
        found = check(docs, root)
        write_statuses(docs, [status for status in found if status.page == target.name])
        statuses = index_statuses(found)
    # the explorer of the merged page (its tables and the records now beside it), one shared copy of the scripts
    build_explorer(target, target / EXPLORER, assets=docs / "results" / EXPLORER_ASSETS)
    write_text_atomic(docs / PAGE, index(docs, statuses))


def refuse_unclean(root: Path, text: str, page: Path) -> None:
    """Refuse to publish from a tree with uncommitted changes to tracked files (a run's logs belong outside the
    clone), or a page whose runs were made in one (a "(dirty)" commit in its provenance)."""
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise ConfigError(f"{root}: cannot ask git whether the tree is clean ({error})") from None
    if done.returncode != 0:
        raise ConfigError(f"{root}: not a git checkout ({done.stderr.strip()}); publish from a clean clone")
    if done.stdout.strip():
        files = ", ".join(line[3:] for line in done.stdout.splitlines()[:5])
        raise ConfigError(
            f"{root}: uncommitted changes to tracked files ({files}): publish from a clean tree (commit or stash "
            "them; keep run logs outside the clone)"
        )
    dirty = [value for value in page_field(text, "commit") if "(dirty)" in value]
    if dirty:
        raise ConfigError(
            f"{page}: runs made in a tree with uncommitted changes ({'; '.join(dirty)}): only runs of a clean "
            "tree are published"
        )


_EARLIER = re.compile(r" \(earlier run: ([^)]*)\)$")


def merge_pages(old: str, new: str, order: Sequence[str] = ()) -> str:
    """The new results page, keeping the old page's experiment sections that the new run did not produce.

    The kept sections come with the old run's sections of the whole run (corpora, time per rule), headed
    ``<heading> (earlier run: <experiments>)`` so that nobody reads them as the new run's; such a section goes
    once none of its experiments is kept. The page's sections are in one order: corpora, the experiments (in
    ``order``, then any others), time and cost, and the cost of a full run of every experiment on the page."""
    preamble, fresh_sections = sections(new)
    fresh = [(h, b, experiment_of(h, b)) for h, b in fresh_sections]
    earlier = [(h, b, experiment_of(h, b)) for h, b in sections(old)[1]]
    produced = {e for _, _, e in fresh if e}
    kept = [section for section in earlier if section[2] and section[2] not in produced]
    remaining = {e for _, _, e in kept}
    annotated = {h: set(m.group(1).split(", ")) for h, _, _ in earlier if (m := _EARLIER.search(h))}
    unannotated = {e for _, _, e in earlier if e} - set().union(*annotated.values())
    whole_run = [(h, b) for h, b, e in fresh if not e and h != FULL_RUN_COST]
    for heading, body, experiment in earlier:
        match = _EARLIER.search(heading)
        covers = set() if experiment else (annotated[heading] if match else unannotated) & remaining
        if covers and heading != FULL_RUN_COST:
            renamed = (
                f"{heading[: match.start()] if match else heading} (earlier run: {', '.join(sorted(covers))})"
            )
            whole_run.append((renamed, body.replace(f"## {heading}", f"## {renamed}", 1)))
    experiments = [(e, b) for _, b, e in fresh if e] + [(e, b) for _, b, e in kept]
    rank = {name: i for i, name in enumerate(order)}
    experiments.sort(key=lambda item: rank.get(item[0], len(rank)))  # stable: others keep their order
    corpora = [b for h, b in whole_run if h.startswith("Corpora")]
    rest = [b for h, b in whole_run if not h.startswith("Corpora")]
    bodies = corpora + [b for _, b in experiments] + rest
    cost = full_run_cost(bodies)
    if cost:
        bodies.append(cost)
    return preamble + "\n\n".join(body.rstrip("\n") for body in bodies) + "\n"


FULL_RUN_COST = "Cost of a full run of every experiment on this page"
_COST_ROW = re.compile(
    r"^\| (?P<experiment>[\w-]+)\s*\| all\s*\|\s*(?P<jobs>\d+) \|\s*(?P<job>[\d.]+) \|\s*(?P<longest>[\d.]+) \|"
    r"\s*(?P<wall>[\d.]+) \|",
    flags=re.MULTILINE,
)


def full_run_cost(bodies: Sequence[str]) -> str:
    """A section adding up the cost tables' ``all`` rows of every experiment on the page (each from the run that
    produced its section, named by its commit), or "" when the page has none: the wall clock of running every
    experiment from scratch on this machine, one run after another."""
    commits = {}
    for body in bodies:
        heading = body.splitlines()[0][3:]
        if "| provenance |" in body:
            found = page_field(body, "commit")
            commits[heading.split(":", 1)[0]] = found[0] if found else ""
    rows = {}
    for body in bodies:
        for match in _COST_ROW.finditer(body):
            rows.setdefault(match["experiment"], match)
    rows = {name: match for name, match in rows.items() if name in commits}
    if not rows:
        return ""
    lines = [
        f"## {FULL_RUN_COST}",
        "",
        "| experiment | jobs | job minutes | least wall minutes | from the run at |",
        "|---|---:|---:|---:|---|",
    ]
    for name in commits:
        if name in rows:
            row = rows[name]
            lines.append(f"| {name} | {row['jobs']} | {row['job']} | {row['wall']} | {commits[name][:12]} |")
    wall = sum(float(row["wall"]) for row in rows.values())
    jobs = sum(int(row["jobs"]) for row in rows.values())
    job = sum(float(row["job"]) for row in rows.values())
    lines += [
        f"| all {len(rows)}, one after another | {jobs} | {job:.1f} | {wall:.1f} | |",
        "",
        "- From each experiment's cost table on this page (row `all`; its run named by the experiment section's "
        "commit). least wall minutes: the shortest wall clock this machine's cores allow for the experiment's jobs "
        "(see the cost table's notes); corpora shared by two experiments count in both.",
        "- On a cluster, jobs that do not depend on each other (training and decoding of different datasets and "
        "variants) run side by side; a timed decode job still holds a node's cores alone.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """The command line: ``python -m decoders.tables.publish [results] [docs]`` (``--help`` says more)."""
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.publish",
        description="Copy a run's results page and figures to <docs>/results/<cpu>/ (merged with that CPU's "
        "earlier page: sections of experiments the run did not produce stay) and rewrite <docs>/RESULTS.md, "
        "the index of every published page. Run it in the clean clone whose code made the run: it refuses "
        "uncommitted changes, copies the records behind each section beside the page and marks every section "
        "current or stale against this tree.",
    )
    parser.add_argument(
        "results", nargs="?", default="results", help="the run's results folder (default: results)"
    )
    parser.add_argument(
        "docs", nargs="?", default="docs", help="the docs folder to publish into (default: docs)"
    )
    args = parser.parse_args(argv)
    try:
        order = experiment_names(load_yaml("config.yaml")) if Path("config.yaml").is_file() else []
        target = publish(args.results, args.docs, order, root=Path.cwd())
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"published {target / PAGE}; index {Path(args.docs) / PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
