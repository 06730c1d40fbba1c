"""The results page: the scoreboard of the papers' claims (decoders.tables.scoreboard), then every experiment's
Markdown tables with the provenance of the runs behind them.

``snakemake results/RESULTS.md`` writes it from results/; the pages committed under docs/results/<CPU>/
(:mod:`decoders.tables.publish`) are that file, so every number on them comes from a recorded run (commit,
dates and CPU in each section's provenance table).
"""

from __future__ import annotations

import base64
import html
import importlib
import json
import mimetypes
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from decoders.errors import ConfigError
from decoders.harness.provenance import read_provenance
from decoders.io import write_text_atomic
from decoders.tables.scoreboard import PageTables, insert_scoreboard
from decoders.tier import QUICK_NOTE, is_quick


def _provenance_summary(paths: Sequence[str | Path]) -> dict[str, str]:
    """Commit(s), date range, CPU and thread settings of the decode runs."""
    runs = [read_provenance(p) for p in paths]
    commits = sorted(
        {f"{r['git_commit'] or 'unknown'}{' (dirty)' if r.get('git_dirty') else ''}" for r in runs}
    )
    stamps = sorted(r["timestamp_utc"] for r in runs)
    threads = sorted({json.dumps(r["threads"], sort_keys=True) for r in runs})
    checked = [h for h in (r.get("extra", {}).get("harness", {}) for r in runs) if h.get("verifier")]
    summary = {
        "runs": str(len(runs)),
        "commit": ", ".join(commits),
        "date (UTC)": f"{stamps[0]} .. {stamps[-1]}" if stamps else "",
        "CPU": ", ".join(sorted({f"{r['cpu_model']} ({r['cpu_count']} logical CPUs)" for r in runs})),
        "python / numba": ", ".join(sorted({f"{r['python']} / {r['packages'].get('numba')}" for r in runs})),
        "threads per decode job": "; ".join(threads),
        "tier": ", ".join(sorted({r.get("tier", "full") for r in runs})),
    }
    if (
        checked
    ):  # the harness's certificate check, outside every timing (decoders.harness.protocol.get_verifier)
        seconds = sum(float(h.get("verify_seconds", 0.0)) for h in checked)
        summary["certificate checks"] = (
            f"every optimal record of {len(checked)} runs: {seconds:.1f} s, untimed"
        )
    unchecked = sorted(
        {
            "/".join(Path(path).parts[-3:-1])  # results/runs/<experiment>/<set>/<variant>/shard-<i>.json
            for path, r in zip(paths, runs, strict=True)
            if not r.get("extra", {}).get("harness", {}).get("verifier")
        }
    )
    if unchecked:  # an experiment without a verify: its optimal records are the decoders' word only
        summary["runs without a certificate check"] = ", ".join(unchecked)
    return summary


def content_rows(content: Mapping[str, Any] | None) -> dict[str, str]:
    """The provenance rows of a section's content (:func:`decoders.content.section_content`): the digests of what
    its records and its tables depend on (the staleness check, ``python -m decoders.tables.evidence check``,
    compares them with the code that ships), and the files that jobs saw at different contents."""
    if not content:
        return {}
    records, tables = content["records"], content["tables"]
    rows = {
        "records content": f"{records['digest'][:12]} ({records['jobs']} jobs, {len(records['code'])} files, "
        f"{len(records['rules'])} rules, settings)",
        "tables content": f"{tables['digest'][:12]} ({tables['jobs']} jobs, {len(tables['code'])} files)",
    }
    mixed = sorted(set(records["mixed"]) | set(tables["mixed"]))
    if mixed:
        rows["mixed code"] = f"jobs saw different versions of {', '.join(mixed)}"
    return rows


def experiment_section(name: str, tables: Sequence[str], provenance: Sequence[str]) -> dict[str, Any]:
    """An experiment's section of the page: the heading and figures its tables module declares (``PAGE`` in
    decoders.tables.<name>), its Markdown tables and the provenance files of the runs behind them. A figure tied
    to a table is shown only when that table is."""
    try:
        page = importlib.import_module(f"decoders.tables.{name}").PAGE
    except (ModuleNotFoundError, AttributeError) as exc:
        raise ConfigError(
            f"experiment {name!r}: decoders/tables/{name}.py must declare its results-page PAGE"
        ) from exc
    stems = {Path(table).stem for table in tables}
    figures = [(title, path) for title, path, *table in page["figures"] if not table or table[0] in stems]
    return {
        "experiment": name,
        "heading": page["heading"],
        "tables": list(tables),
        "provenance": list(provenance),
        "figures": figures,
    }


def write_results_page(sections: Iterable[Mapping[str, Any]], output: str | Path) -> None:
    """One section per experiment: ``heading``, Markdown ``tables``, the ``provenance`` JSON files of the runs
    behind them (summarised: commit, dates, CPU, threads) and ``figures`` as (caption, path relative to the page);
    an ``experiment`` section's scoreboard rows come from the CSVs beside its tables (decoders.tables.scoreboard),
    above every section.
    """
    sections = list(sections)
    lines = ["# Results", "", "Generated by `snakemake results/RESULTS.md` from the records under results/."]
    if is_quick():
        lines = ["# Results [quick tier]", "", f"**{QUICK_NOTE}**", *lines[1:]]
    for section in sections:
        lines += ["", f"## {section['heading']}", ""]
        provenance = list(section.get("provenance", []))
        if provenance:
            lines += ["| provenance | |", "|---|---|"]
            lines += [f"| {key} | {value} |" for key, value in _provenance_summary(provenance).items()]
            lines += [f"| {key} | {value} |" for key, value in content_rows(section.get("content")).items()]
            lines += [""]
        for table in section["tables"]:
            lines += [Path(table).read_text(encoding="utf-8").replace("### ", "#### ", 1).rstrip(), ""]
        for caption, path in section.get("figures", []):
            lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    text = "\n".join(lines).rstrip() + "\n"
    # the page opens with the scoreboard, computed from the CSVs beside the sections' Markdown tables
    csv_dirs = {
        s["experiment"]: Path(s["tables"][0]).parent for s in sections if s.get("experiment") and s["tables"]
    }
    write_text_atomic(output, insert_scoreboard(text, PageTables.parse(text, csv_dirs, source=str(output))))


PAGE_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1, h2, h3, h4 { line-height: 1.2; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%; margin: .6em 0; }
th, td { border: 1px solid #ddd; padding: .2em .5em; white-space: nowrap; }
th { background: #f3f3f3; position: sticky; top: 0; }
tr:nth-child(even) td { background: #fafafa; }
td:not(:first-child) { font-variant-numeric: tabular-nums; }
img { max-width: 100%; }
code { background: #f3f3f3; padding: 0 .2em; }
"""


def page_html(markdown: str, base: str | Path, *, title: str = "Results") -> str:
    """The results page (Markdown, as :func:`write_results_page` writes it) as one self-contained HTML document:
    tables rendered, each figure (``![...](path)``, a path relative to ``base``) embedded as a data URI, so that
    a Snakemake report shows it readable in its frame, nothing fetched. A figure that is missing is a
    FileNotFoundError naming it."""
    if not isinstance(markdown, str):
        raise TypeError(f"markdown must be a str, got {type(markdown).__name__}")
    base = Path(base)
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = renderer.parse(re.sub(r"<!--.*?-->", "", markdown, flags=re.DOTALL))  # the page's markers
    for token in tokens:
        for child in token.children or ():
            if child.type == "image":
                source = str(child.attrGet("src") or "")
                if "://" in source or source.startswith("data:"):
                    continue
                path = base / source
                if not path.is_file():
                    raise FileNotFoundError(f"{path}: a figure of the results page is missing")
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                child.attrSet(
                    "src", f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
                )
    body = renderer.renderer.render(tokens, renderer.options, {})
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{PAGE_STYLE}</style></head>\n<body>\n{body}</body></html>\n"
    )


def write_page_html(page: str | Path, output: str | Path) -> None:
    """Write :func:`page_html` of the Markdown page ``page`` (figures relative to its folder) to ``output``."""
    page = Path(page)
    write_text_atomic(output, page_html(page.read_text(encoding="utf-8"), page.parent))
