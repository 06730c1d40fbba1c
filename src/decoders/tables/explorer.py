"""The explorer: a static site (HTML, CSS and JavaScript, opened from disk, nothing fetched at view time) that shows
a results page's tables, sortable and filterable, and, where the page's per-instance records are there, a
solver-against-solver scatter per experiment.

``python -m decoders.tables.explorer <page_dir> [--out DIR] [--assets DIR]`` reads ``<page_dir>/RESULTS.md`` (every
Markdown table with the text above it as caption and the notes below it) and the per-instance records of each
experiment section: the published ``<page_dir>/records/<experiment>/records.tar.xz``
(:func:`decoders.tables.evidence.publish_records`) or a run's ``<page_dir>/runs/<experiment>/<dataset>/<variant>/
*.parquet`` (``results/`` itself as the page folder). It writes ``index.html`` (the tables rendered in it, so they
read without JavaScript too), ``data.js`` (the per-instance data as one script: a page opened from disk cannot
fetch), one CSV per table under ``tables/``, each experiment's records as one parquet under ``records/`` and the
shared assets (``plotly.min.js`` of the pinned plotly package, ``explorer.js``, ``explorer.css``) under
``--assets`` (default ``<out>/assets``; published pages share one copy).

Libraries, chosen by measured weight: plotly.min.js (4.8 MB, the only chart library whose browser build ships in
a pinned PyPI package) for the charts; tables sorted and filtered by explorer.js (a few KB) rather than
DataTables (itables' bundle: 619 KB of JavaScript and 107 KB of CSS for the same two functions).
"""

from __future__ import annotations

import argparse
import base64
import csv
import html
import io
import json
import math
import os
import re
import shutil
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from decoders.errors import ConfigError
from decoders.io import write_text_atomic
from decoders.tables.charts import SUFFIX
from decoders.tables.pages import ARCHIVE, PAGE, RECORDS, experiment_of, sections
from decoders.tables.quotes import split_cells
from decoders.tables.scoreboard import github_anchor

#: Where a page's explorer goes (beside RESULTS.md), and the scripts every published page shares (docs/results/).
EXPLORER = "explorer"
EXPLORER_ASSETS = "explorer-assets"
#: The explorer's own script and style, beside this module.
HERE = Path(__file__).resolve().parent / "explorer_assets"
#: The record columns the explorer keeps (``structure`` and ``stats`` are large and not plotted).
KEPT = ("dataset", "variant", "instance_id", "size", "seconds", "status", "objective", "bound")
#: Per-instance quality, by the evaluation columns a record has: (label, numerator, denominator or None).
QUALITIES = (
    ("token accuracy", "correct", "total"),
    ("UAS", "uas_correct", "uas_total"),
    ("ROUGE-L", "rouge_l", None),
    ("fair share", "fair", "k"),
)


@dataclass
class Table:
    """One Markdown table of a page: its title (the heading above it), anchor, caption (the text between the
    heading and the table), header, rows and notes (the text after it, up to the next heading or table)."""

    title: str
    anchor: str
    header: list[str]
    rows: list[list[str]]
    caption: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Section:
    """A ``##`` section of a page (the preamble, with the scoreboard, first), its experiment if it reports one."""

    heading: str
    anchor: str
    experiment: str | None
    tables: list[Table]
    intro: list[str] = field(default_factory=list)


def parse_tables(text: str, seen: dict[str, int], title: str, anchor: str) -> tuple[list[str], list[Table]]:
    """The tables of one section's text (its first line the heading), each with its caption and notes; and the
    text before the first table or sub-heading (the section's introduction)."""
    tables: list[Table] = []
    intro: list[str] = []
    pending: list[str] = []  # text since the last heading or table
    block: list[str] = []
    current: Table | None = None
    heading_seen = False
    for line in [*text.splitlines()[1:], ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            if len(block) >= 2 and re.fullmatch(r"\|?[\s:|-]+\|?", block[1]):
                header = list(split_cells(block[0]))
                rows = [list(split_cells(row)) for row in block[2:]]
                current = Table(title, anchor, header, rows, caption=pending)
                tables.append(current)
            pending, block = [], []
        heading = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if heading:
            if not heading_seen and not tables:
                intro = pending
            heading_seen = True
            title = heading.group(2)
            anchor = github_anchor(title, seen)
            pending, current = [], None
        elif line.strip() and "<!--" not in line:
            if current is not None:
                current.notes.append(line)
            else:
                pending.append(line)
    if not heading_seen and not tables:
        intro = pending
    return intro, tables


def page_sections(text: str) -> list[Section]:
    """Every section of a page with its tables, the preamble (the scoreboard) first; anchors as GitHub gives them
    (the scoreboard's links point at them)."""
    preamble, parts = sections(text)
    seen: dict[str, int] = {}
    top = re.search(r"^# (.*)$", preamble, flags=re.MULTILINE)
    title = top.group(1) if top else "Results"
    anchor = github_anchor(title, seen)
    intro, tables = parse_tables(
        preamble if preamble.startswith("# ") else f"# {title}\n{preamble}", seen, title, anchor
    )
    found = [Section("Scoreboard", anchor, None, tables, intro)]
    for heading, body in parts:
        anchor = github_anchor(heading, seen)
        intro, tables = parse_tables(body, seen, heading, anchor)
        found.append(Section(heading, anchor, experiment_of(heading, body), tables, intro))
    return found


def _read_parquet(data: bytes | Path, where: str) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(io.BytesIO(data) if isinstance(data, bytes) else data)
    except (OSError, ValueError) as error:
        raise ConfigError(f"{where}: cannot read per-instance records ({error})") from None
    missing = [name for name in KEPT if name not in frame.columns]
    if missing:
        raise ConfigError(f"{where}: not result records (no column {', '.join(missing)})")
    return frame


def run_records(page_dir: Path, experiment: str) -> tuple[pd.DataFrame | None, str | None]:
    """The per-instance records of an experiment section and where they came from (the published archive or a
    run's folder), or (None, None) when the page has none. Decode records only: each variant's gathered records
    (``results/runs/<experiment>/<dataset>/<variant>.parquet``, what the tables read), or, for a variant not
    gathered, its shards (``.../<variant>/shard-<i>.parquet``)."""
    runs = rf"^(?:results/)?runs/{re.escape(experiment)}/"
    gathered = re.compile(runs + r"([^/]+)/([^/]+)\.parquet$")
    shard = re.compile(runs + r"([^/]+)/([^/]+)/shard-[^/]+\.parquet$")
    found: dict[str, Any] = {}  # name -> bytes or path
    archive = page_dir / RECORDS / experiment / ARCHIVE
    if archive.is_file():
        try:
            with tarfile.open(archive, "r:xz") as tar:
                for member in tar.getmembers():
                    if member.isfile() and (gathered.match(member.name) or shard.match(member.name)):
                        handle = tar.extractfile(member)
                        if handle is not None:
                            found[member.name] = handle.read()
        except (tarfile.TarError, OSError, EOFError) as error:
            raise ConfigError(f"{archive}: cannot read the published records ({error})") from None
        source = archive
    else:
        folder = page_dir / "runs" / experiment
        for path in [*folder.glob("*/*.parquet"), *folder.glob("*/*/shard-*.parquet")]:
            found[f"runs/{experiment}/{path.relative_to(folder).as_posix()}"] = path
        source = folder
    whole = {match.groups() for name in found if (match := gathered.match(name))}
    names = [
        name
        for name in sorted(found)
        if gathered.match(name) or ((match := shard.match(name)) and match.groups() not in whole)
    ]
    frames = [
        _read_parquet(found[name], f"{source}:{name}" if source == archive else str(found[name]))
        for name in names
    ]
    if not frames:
        return None, None
    return pd.concat(frames, ignore_index=True), str(source)


def quality_of(frame: pd.DataFrame) -> tuple[str, pd.Series] | None:
    """A per-instance accuracy for the records' task (token accuracy, UAS, ROUGE-L, ...), None if they have none."""
    for label, numerator, denominator in QUALITIES:
        if numerator in frame.columns and (denominator is None or denominator in frame.columns):
            values = frame[numerator].astype("float64")
            if denominator is not None:
                total = frame[denominator].astype("float64")
                values = values.where(total > 0) / total.where(total > 0)
            return label, values
    return None


def _numbers(values: pd.Series) -> list[float | None]:
    return [None if not math.isfinite(v) else float(v) for v in values.astype("float64").to_numpy()]


def instance_data(frame: pd.DataFrame) -> dict[str, Any]:
    """The records of one experiment as columns for the browser: datasets and variants by index, then per row
    its instance id, size, seconds, status, objective and quality."""
    datasets = sorted(frame["dataset"].astype(str).unique())
    variants = sorted(frame["variant"].astype(str).unique())
    statuses = sorted(frame["status"].astype(str).unique())
    quality = quality_of(frame)
    data: dict[str, Any] = {
        "datasets": datasets,
        "variants": variants,
        "statuses": statuses,
        "quality": quality[0] if quality else None,
        "dataset": frame["dataset"].astype(str).map({d: i for i, d in enumerate(datasets)}).tolist(),
        "variant": frame["variant"].astype(str).map({v: i for i, v in enumerate(variants)}).tolist(),
        "status": frame["status"].astype(str).map({s: i for i, s in enumerate(statuses)}).tolist(),
        "id": frame["instance_id"].astype(str).tolist(),
        "size": frame["size"].astype("int64").tolist(),
        "seconds": _numbers(frame["seconds"]),
        "objective": _numbers(frame["objective"]),
    }
    if quality:
        data["qualityValues"] = _numbers(quality[1])
    return data


INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), r'<a href="\2">\1</a>'),
]


def inline(text: str, links: dict[str, str] | None = None) -> str:
    """A line of Markdown as HTML: escaped, with code, bold and links; relative links other than anchors are
    taken from ``links`` (the page's figures, relative to the explorer) or dropped to their text."""
    out = html.escape(text, quote=False)
    for pattern, repl in INLINE:
        out = pattern.sub(repl, out)

    def fix(match: re.Match[str]) -> str:
        target = html.unescape(match.group(1))
        if target.startswith(("#", "http://", "https://")):
            return match.group(0)
        return f'<a href="{html.escape((links or {}).get(target, target))}"'

    return re.sub(r'<a href="([^"]*)"', fix, out)


def prose(lines: list[str], links: dict[str, str], charts: dict[str, dict] | None = None) -> str:
    """Caption or notes: bullets as a list, quotes as a quote, other lines as paragraphs; images as images, and an
    image with a chart spec in ``charts`` (by its link) as that interactive chart, the PNG folded below it."""
    out: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if items:
            out.append("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
            items.clear()

    for line in lines:
        image = re.match(r"^\s*!\[([^\]]*)\]\(([^)\s]+)\)\s*$", line)
        if image:
            flush()
            src = links.get(image.group(2), image.group(2))
            img = f'<img src="{html.escape(src)}" alt="{html.escape(image.group(1))}" loading="lazy">'
            spec = (charts or {}).get(image.group(2))
            if spec is None:
                out.append(f"<figure>{img}</figure>")
            else:
                missing = spec.get("unconverted") or []
                note = (
                    f" Not in the chart: {html.escape(', '.join(missing))} (see the PNG)." if missing else ""
                )
                out.append(
                    f'<figure class="figure-block" data-chart="{html.escape(image.group(2))}">'
                    f'<div class="chart figure-chart" role="img" aria-label="{html.escape(image.group(1))}"></div>'
                    "<figcaption>The figure as a chart from the same numbers: drag to zoom, double-click to reset, "
                    f"hover for values, click a legend entry to hide it.{note}</figcaption>"
                    f"<details><summary>the static figure (PNG)</summary>{img}</details></figure>"
                )
        elif re.match(r"^\s*[-*] ", line):
            items.append(inline(re.sub(r"^\s*[-*] ", "", line), links))
        elif line.startswith(">"):
            flush()
            out.append(f"<blockquote>{inline(line.lstrip('> '), links)}</blockquote>")
        else:
            flush()
            out.append(f"<p>{inline(line, links)}</p>")
    flush()
    return "\n".join(out)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "table"


def write_csv(path: Path, table: Table) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.header)
    writer.writerows(table.rows)
    write_text_atomic(path, buffer.getvalue())


def table_html(
    table: Table, number: int, csv_name: str, links: dict[str, str], charts: dict[str, dict] | None = None
) -> str:
    head = "".join(f'<th scope="col" title="sort by {html.escape(h)}">{inline(h)}</th>' for h in table.header)
    body = "\n".join(
        "<tr>" + "".join(f"<td>{inline(cell, links)}</td>" for cell in row) + "</tr>" for row in table.rows
    )
    return f"""<div class="table-block" id="{html.escape(table.anchor)}" data-table="{number}">
<h3>{inline(table.title, links)}</h3>
<div class="caption">{prose(table.caption, links, charts)}</div>
<div class="controls"><label>Filter <input type="search" class="filter" placeholder="text in any cell, or column:value"></label>
<span class="count">{len(table.rows)} of {len(table.rows)} rows</span>
<a class="download" href="{html.escape(csv_name)}" download>CSV</a></div>
<div class="scroll"><table class="data"><thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody></table></div>
<div class="notes">{prose(table.notes, links, charts)}</div>
</div>"""


def figure_charts(page_dir: Path) -> dict[str, dict]:
    """The page's figures that have an interactive spec beside them (:mod:`decoders.tables.charts`), by the link the
    page gives the figure (``figures/<experiment>/<name>.png``); a spec that does not parse is a ConfigError naming
    its file."""
    charts: dict[str, dict] = {}
    folder = page_dir / "figures"
    if not folder.is_dir():
        return charts
    for spec in sorted(folder.rglob(f"*{SUFFIX}")):
        figure = spec.with_name(spec.name[: -len(SUFFIX)] + ".png")
        if not figure.is_file():
            continue
        try:
            chart = json.loads(spec.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ConfigError(f"{spec}: not a chart spec ({error})") from error
        if not isinstance(chart, dict) or not isinstance(chart.get("data"), list):
            raise ConfigError(f"{spec}: not a chart spec (no list under 'data')")
        charts[figure.relative_to(page_dir).as_posix()] = chart
    return charts


def build(
    page_dir: str | Path,
    out: str | Path | None = None,
    assets: str | Path | None = None,
    single: str | Path | None = None,
) -> Path:
    """Write the explorer of the page in ``page_dir`` (see the module's docstring); returns its index.html.
    ``single``: also write it as one self-contained HTML file there (:func:`single_file`)."""
    page_dir = Path(page_dir)
    page = page_dir / PAGE
    if not page.is_file():
        raise ConfigError(f"{page}: no results page to build an explorer from")
    out = Path(out) if out is not None else page_dir / EXPLORER
    assets = Path(assets) if assets is not None else out / "assets"
    found = page_sections(page.read_text(encoding="utf-8"))
    if not any(section.tables for section in found):
        raise ConfigError(f"{page}: no Markdown table on the page")
    staging = out.with_name(f".{out.name}.part")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "tables").mkdir(parents=True)
    inside = assets.resolve().is_relative_to(out.resolve())
    write_assets(staging / assets.resolve().relative_to(out.resolve()) if inside else assets)
    to_assets = Path(os.path.relpath(assets, out)).as_posix()
    to_page = Path(os.path.relpath(page_dir, out)).as_posix()
    links = {
        f"figures/{p.relative_to(page_dir / 'figures').as_posix()}": f"{to_page}/figures/{p.relative_to(page_dir / 'figures').as_posix()}"
        for p in (page_dir / "figures").rglob("*")
        if p.is_file()
    }
    charts = figure_charts(page_dir)
    data: dict[str, Any] = {}
    parts: list[str] = []
    nav: list[str] = []
    number = 0
    for section in found:
        blocks = []
        for table in section.tables:
            number += 1
            csv_name = f"tables/{number:02d}-{slug(table.title)}.csv"
            write_csv(staging / csv_name, table)
            blocks.append(table_html(table, number, csv_name, links, charts))
        instances = ""
        if section.experiment:
            records, source = run_records(page_dir, section.experiment)
            instances = instance_block(section.experiment, records, source, staging, to_page, data)
        if not blocks and not instances:
            continue
        label = section.experiment or section.heading
        nav.append(f'<a href="#{html.escape(section.anchor)}">{inline(label)}</a>')
        parts.append(
            f'<section id="{html.escape(section.anchor)}" class="page-section"'
            f"{f' data-experiment={json.dumps(section.experiment)}' if section.experiment else ''}>"
            f'<h2>{inline(section.heading, links)}</h2>\n<div class="intro">{prose(section.intro, links, charts)}</div>\n'
            + "\n".join(blocks)
            + instances
            + "</section>"
        )
    write_text_atomic(
        staging / "data.js",
        "window.EXPLORER_DATA = "
        + json.dumps(data, separators=(",", ":"))
        + ";\nwindow.EXPLORER_FIGURES = "
        + json.dumps(charts, separators=(",", ":"))
        + ";\n",
    )
    title = f"Explorer: {page_dir.resolve().name}"
    write_text_atomic(
        staging / "index.html",
        f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{to_assets}/explorer.css">
</head><body>
<header><h1>{html.escape(title)}</h1>
<p>Built from <a href="{to_page}/{PAGE}">{PAGE}</a> by <code>python -m decoders.tables.explorer</code>. Click a column
heading to sort; type in a table's filter to keep matching rows (<code>column:value</code> filters one column, a
leading <code>-</code> excludes). Every table downloads as CSV.</p>
<nav>{" ".join(nav)}</nav></header>
<main>
{"".join(parts)}
</main>
<script src="data.js"></script>
<script src="{to_assets}/plotly.min.js"></script>
<script src="{to_assets}/explorer.js"></script>
</body></html>
""",
    )
    shutil.rmtree(out, ignore_errors=True)
    staging.replace(out)
    if single is not None:
        write_text_atomic(Path(single), single_file(out / "index.html"))
    return out / "index.html"


def _inline_script(text: str) -> str:
    # a script's text inside <script>: "</script" would end the element early
    return text.replace("</script", "<\\/script")


def single_file(index: Path) -> str:
    """The explorer as one HTML file (for a report that takes single files, such as Snakemake's HTML report): its
    style, scripts and figures inline, each table's CSV as a data: link; the records' downloads stay in the site."""
    text = index.read_text(encoding="utf-8")
    base = index.parent

    def style(match: re.Match[str]) -> str:
        return f"<style>\n{(base / match.group(1)).read_text(encoding='utf-8')}\n</style>"

    def script(match: re.Match[str]) -> str:
        return f"<script>\n{_inline_script((base / match.group(1)).read_text(encoding='utf-8'))}\n</script>"

    def table_csv(match: re.Match[str]) -> str:
        data = (base / match.group(1)).read_bytes()
        name = Path(match.group(1)).name
        return f'href="data:text/csv;base64,{base64.b64encode(data).decode()}" download="{name}"'

    text = re.sub(r'<link rel="stylesheet" href="([^"]+)">', lambda m: style(m), text)
    text = re.sub(r'<script src="([^"]+)"></script>', lambda m: script(m), text)
    text = re.sub(r'href="(tables/[^"]+\.csv)" download', lambda m: table_csv(m), text)

    def image(match: re.Match[str]) -> str:
        path = base / html.unescape(match.group(1))
        if not path.is_file():
            return match.group(0)
        kind = "svg+xml" if path.suffix == ".svg" else path.suffix.lstrip(".").replace("jpg", "jpeg")
        return f'<img src="data:image/{kind};base64,{base64.b64encode(path.read_bytes()).decode()}"'

    text = re.sub(r'<img src="(?!data:)([^"]+)"', lambda m: image(m), text)
    return re.sub(
        r' ?<a class="download" href="(?:records/|\.\./)[^"]*"[^>]*>[^<]*</a>',
        " (records: beside the results page, under results/explorer/records/)",
        text,
    )


def instance_block(
    experiment: str, records: pd.DataFrame | None, source: str | None, staging: Path, to_page: str, data: dict
) -> str:
    """The per-instance view of an experiment: controls and chart slots filled by explorer.js, the records'
    download; or the plain statement that the page has no records."""
    name = html.escape(experiment)
    if records is None:
        return (
            f'<div class="instances none" data-experiment="{name}"><h3>{name}: per instance</h3>'
            "<p>No per-instance records were published with this section: the solver-against-solver scatter and "
            "time against instance size need a page published with its records "
            "(<code>python -m decoders.tables.publish</code> from a run with content records).</p></div>"
        )
    (staging / "records").mkdir(exist_ok=True)
    kept = records[[c for c in records.columns if c not in ("structure", "stats", "params")]]
    kept.to_parquet(staging / "records" / f"{experiment}.parquet", index=False)
    data[experiment] = instance_data(records)
    archive = ""
    if source and source.endswith(ARCHIVE):
        archive = f' <a class="download" href="{to_page}/{RECORDS}/{name}/{ARCHIVE}">all records (tar.xz)</a>'
    return f"""<div class="instances" data-experiment="{name}"><h3>{name}: per instance</h3>
<p>{len(records)} records of {len(data[experiment]["variants"])} variants on {len(data[experiment]["datasets"])}
datasets. <a class="download" href="records/{name}.parquet" download>records (parquet)</a>{archive}</p>
<div class="controls"><label>x: <select class="variant-a"></select></label>
<label>y: <select class="variant-b"></select></label>
<label>value: <select class="metric"></select></label></div>
<div class="chart scatter-time"></div><div class="chart scatter-value"></div>
<div class="controls"><label>time against size for <select class="variant-size"></select></label></div>
<div class="chart size-time"></div></div>"""


def write_assets(assets: Path) -> None:
    """The explorer's script and style, and plotly.min.js of the installed (pinned) plotly package."""
    import plotly

    assets.mkdir(parents=True, exist_ok=True)
    bundled = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
    if not bundled.is_file():
        raise ConfigError(f"{bundled}: the plotly package has no bundled plotly.min.js")
    for source in (bundled, HERE / "explorer.js", HERE / "explorer.css"):
        target = assets / source.name
        if not target.is_file() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.explorer", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("page_dir", help="a folder with RESULTS.md (a published page, or results/)")
    parser.add_argument("--out", help="where the site goes (default <page_dir>/explorer)")
    parser.add_argument("--assets", help="where the shared scripts go (default <out>/assets)")
    parser.add_argument("--single", help="also write the explorer as one self-contained HTML file there")
    args = parser.parse_args(argv)
    try:
        index = build(args.page_dir, args.out, args.assets, args.single)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
