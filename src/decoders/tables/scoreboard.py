"""The scoreboard a results page opens with: every headline claim of the five papers (declared once in
``claims.yaml``) with the paper's number, ours with its interval, and a verdict computed by the rules of
:mod:`decoders.tables.verdicts`; under it the cross-paper table of the lazy exact methods against the direct exact
method of their problem.

The numbers come from the page's tables: a run's CSVs (``write_results_page``) or, for a page published before its
CSVs were kept beside it, the Markdown tables of its sections (:func:`lookup_table` does both).
``python -m decoders.tables.scoreboard docs/results/<cpu>/RESULTS.md`` inserts or refreshes the scoreboard at the
top of a page.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import yaml
from markdown_it import MarkdownIt

from decoders.io import write_text_atomic
from decoders.papers import paper_numbers
from decoders.tables import verdicts
from decoders.tables.writers import shown_number

CLAIMS = "decoders/tables/claims.yaml"
EXPERIMENTS = ("titles", "chains", "bnb", "ppc", "linking")
START, END = "<!-- scoreboard: start -->", "<!-- scoreboard: end -->"

_ROW = {"type": "object", "minProperties": 1, "additionalProperties": {"type": ["string", "number"]}}
_PAPER = {
    "oneOf": [
        {"type": "string"},
        {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "properties": {
                op: {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
                for op in ("ratio", "difference")
            },
            "additionalProperties": False,
        },
    ]
}
_OURS = {
    "type": "object",
    "required": ["table", "column"],
    "properties": {
        "table": {"type": "string"},
        "column": {"type": "string"},
        "row": _ROW,
        "ratio": {"type": "array", "items": _ROW, "minItems": 2, "maxItems": 2},
        "difference": {"type": "array", "items": _ROW, "minItems": 2, "maxItems": 2},
        "interval": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        "se": {"type": "string"},
    },
    "oneOf": [{"required": ["row"]}, {"required": ["ratio"]}, {"required": ["difference"]}],
    "additionalProperties": False,
}
_FACT = {
    "type": "object",
    "required": ["what", "table", "row", "column", "paper", "within"],
    "properties": {
        "what": {"type": "string"},
        "table": {"type": "string"},
        "row": _ROW,
        "column": {"type": "string"},
        "paper": {"type": "string"},
        "within": {"type": "number", "exclusiveMinimum": 0},
    },
    "additionalProperties": False,
}
_CELL = {
    "type": "object",
    "required": ["column"],
    "properties": {
        "table": {"type": "string"},
        "row": _ROW,
        "column": {"type": "string"},
        "exact": {"type": "boolean"},
    },
    "additionalProperties": False,
}
#: The schema of claims.yaml (its comments say what each field means).
SCHEMA = {
    "type": "object",
    "required": ["tolerances", "page_titles", "claims", "lazy_methods"],
    "additionalProperties": False,
    "properties": {
        "tolerances": {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}},
        "page_titles": {
            "type": "object",
            "propertyNames": {"enum": list(EXPERIMENTS)},
            "additionalProperties": {
                "type": "object",
                "additionalProperties": {"type": "string", "minLength": 1},
            },
        },
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "experiment", "claim", "kind", "unit", "paper", "ours"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z0-9-]+$"},
                    "experiment": {"enum": list(EXPERIMENTS)},
                    "claim": {"type": "string", "maxLength": 70},
                    "kind": {"enum": list(verdicts.KINDS)},
                    "scale": {"enum": list(verdicts.SCALES)},
                    "better": {"enum": list(verdicts.BETTER)},
                    "unit": {"type": "string"},
                    "paper": _PAPER,
                    "ours": _OURS,
                    "comparable_when": {"type": "array", "items": _FACT},
                },
                "allOf": [
                    {"if": {"properties": {"kind": {"const": "effect"}}}, "then": {"required": ["scale"]}},
                    {
                        "if": {"properties": {"kind": {"enum": ["measure", "bound"]}}},
                        "then": {"required": ["better"]},
                    },
                ],
            },
        },
        "lazy_methods": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["experiment", "method", "table", "key", "lazy", "certified"],
                "additionalProperties": False,
                "oneOf": [{"required": ["direct", "speedup"]}, {"required": ["no_direct"]}],
                "properties": {
                    "experiment": {"enum": list(EXPERIMENTS)},
                    "method": {"type": "string"},
                    "direct": {"type": "string"},
                    "no_direct": {"type": "string"},
                    "table": {"type": "string"},
                    "key": {"type": "string"},
                    "lazy": _ROW,
                    "speedup": {
                        "type": "object",
                        "properties": {
                            "column": {"type": "string"},
                            "percent": {"type": "boolean"},
                            "seconds": {"type": "string"},
                            "direct": _ROW,
                        },
                        "oneOf": [{"required": ["column"]}, {"required": ["seconds", "direct"]}],
                        "additionalProperties": False,
                    },
                    "certified": {"oneOf": [{"type": "string"}, _CELL]},
                    "by_size": {
                        "type": "object",
                        "required": ["table", "bucket", "all", "column"],
                        "properties": {k: {"type": "string"} for k in ("table", "bucket", "all", "column")},
                        "additionalProperties": False,
                    },
                },
            },
        },
    },
}

_SEGMENT = re.compile(r"([^.\[\]]+)(?:\[([^=\]]+)=([^\]]+)\])?")


def paper_reference(reference: str) -> float:
    """The paper's number at ``reference``: a dotted key of the paper numbers in which ``name[key=value]`` picks the
    one row of a list whose ``key`` is ``value`` (``titles.table1[decoder=ilp].median_s``), looked up in the
    shared transcription or else its supplement. KeyError names the part that does not resolve."""
    segments = [m.groups() for m in _SEGMENT.finditer(reference)]
    rebuilt = ".".join(f"{name}[{key}={value}]" if key else name for name, key, value in segments)
    if not segments or rebuilt != reference:
        raise KeyError(f"paper reference {reference!r}: not of the form a.b[key=value].c")
    numbers = paper_numbers()
    missing = ""
    for root in (numbers, numbers["supplement"]):
        node: Any = root
        for name, key, value in segments:
            node = node.get(name) if isinstance(node, dict) else None
            if key and isinstance(node, list):
                rows = [row for row in node if isinstance(row, dict) and str(row.get(key)) == value]
                node = rows[0] if len(rows) == 1 else None
            if node is None:
                missing = missing or (f"{name}[{key}={value}]" if key else name)
                break
        else:
            if isinstance(node, (int, float)) and not isinstance(node, bool):
                return float(node)
            raise KeyError(f"paper reference {reference!r}: {node!r} is not a number")
    raise KeyError(f"paper reference {reference!r}: the paper numbers have no {missing!r}")


def paper_number(spec: str | Mapping[str, Sequence[str]]) -> float:
    """A claim's ``paper``: one reference, or the ratio or difference of two."""
    if isinstance(spec, str):
        return paper_reference(spec)
    ((op, (first, second)),) = spec.items()
    a, b = paper_reference(first), paper_reference(second)
    return a / b if op == "ratio" else a - b


@cache
def load_claims() -> dict[str, Any]:
    """claims.yaml, read once and checked (:func:`check_claims`)."""
    text = resources.files("decoders.tables").joinpath("claims.yaml").read_text(encoding="utf-8")
    return check_claims(yaml.safe_load(text))


def check_claims(claims: Any) -> dict[str, Any]:
    """``claims`` if valid: the schema, unique ids, a tolerance for every unit, a page title for every table read,
    every paper reference resolves; else a ValueError naming the file, the claim and the field."""
    try:
        jsonschema.validate(claims, SCHEMA)
    except jsonschema.ValidationError as error:
        where = "/".join(str(p) for p in error.absolute_path)
        raise ValueError(f"{CLAIMS}: {where or 'top level'}: {error.message}") from None
    seen = set()
    for i, claim in enumerate(claims["claims"]):
        where = f"{CLAIMS}: claims[{i}] ({claim['id']})"
        if claim["id"] in seen:
            raise ValueError(f"{where}: id given twice")
        seen.add(claim["id"])
        if claim["unit"] not in claims["tolerances"]:
            raise ValueError(f"{where}: unit {claim['unit']!r} has no tolerance under `tolerances`")
        tables = [claim["ours"]["table"], *(fact["table"] for fact in claim.get("comparable_when", []))]
        _check_titled(claims, claim["experiment"], tables, where)
        try:
            paper_number(claim["paper"])
            for fact in claim.get("comparable_when", []):
                paper_reference(fact["paper"])
        except (KeyError, ZeroDivisionError) as error:
            raise ValueError(f"{where}: paper: {error}") from None
    for i, method in enumerate(claims["lazy_methods"]):
        tables = [method["table"], method.get("by_size", {}).get("table", method["table"])]
        if isinstance(method["certified"], dict):
            tables.append(method["certified"].get("table", method["table"]))
        _check_titled(claims, method["experiment"], tables, f"{CLAIMS}: lazy_methods[{i}]")
    return claims


def _check_titled(claims: Mapping[str, Any], experiment: str, tables: Sequence[str], where: str) -> None:
    """Every table a claim or method reads must have its title in ``page_titles`` (the page finds it by it)."""
    for table in tables:
        if table not in claims["page_titles"].get(experiment, {}):
            raise ValueError(f"{where}: table {table!r} of {experiment} has no entry in page_titles")


# ----------------------------------------------------------------------------------------------------- tables
def github_anchor(title: str, seen: dict[str, int]) -> str:
    """The anchor a Markdown renderer (GitHub's rule) gives a heading: lower case, punctuation dropped, spaces
    as hyphens, ``-1``, ``-2``... for repeats (``seen`` counts them over the page)."""
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


@dataclass
class PageTables:
    """The tables of a results page: per experiment section (``## <experiment>: ...``), each ``#### `` table's
    title, anchor and cells; and, for a page written from a run, the folder of each experiment's CSVs."""

    sections: dict[str, list[tuple[str, str, list[list[str]]]]] = field(default_factory=dict)
    csv_dirs: dict[str, Path] = field(default_factory=dict)
    source: str = "page"

    @classmethod
    def parse(cls, text: str, csv_dirs: Mapping[str, Path] | None = None, source: str = "page") -> PageTables:
        """Read a page's Markdown (markdown-it's GFM tables); ``csv_dirs``: experiment -> results/tables/<it>."""
        page = cls(csv_dirs=dict(csv_dirs or {}), source=source)
        tokens = MarkdownIt("commonmark").enable("table").parse(text)
        seen: dict[str, int] = {}
        experiment, title, anchor, rows, row = None, None, None, [], []
        for i, token in enumerate(tokens):
            if token.type == "heading_open":
                heading = tokens[i + 1].content
                slug = github_anchor(heading, seen)
                if token.tag == "h2":
                    name = heading.split(":", 1)[0].strip()
                    experiment = name if ":" in heading and name in EXPERIMENTS else None
                    if experiment:
                        page.sections.setdefault(experiment, [])
                elif token.tag == "h4":
                    title, anchor = heading, slug
            elif token.type == "table_open":
                rows = []
            elif token.type == "tr_open":
                row = []
            elif token.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
                row.append(token.content.strip())
            elif token.type == "tr_close":
                rows.append(row)
            elif token.type == "table_close" and experiment and title:
                page.sections[experiment].append((title, anchor, rows))
                title = None
        return page


def _frame(rows: list[list[str]]) -> pd.DataFrame:
    """A Markdown table as a frame: numbers where a column holds only numbers (empty cells missing)."""
    frame = pd.DataFrame(rows[1:], columns=rows[0]).replace("", None)
    for column in frame.columns:
        converted = pd.to_numeric(frame[column], errors="coerce")
        if converted.notna().sum() == frame[column].notna().sum():
            frame[column] = converted
    return frame


def lookup_table(page: PageTables, experiment: str, name: str) -> tuple[pd.DataFrame, str] | None:
    """Table ``name`` of ``experiment`` (as written under results/tables/<experiment>/<name>.csv) and the anchor
    of its heading on the page; None when the page's section lacks it. From the CSV where the run's folder has it
    (every digit), else from the Markdown; either way only a table the page shows, found by the start of its
    title (claims.yaml's ``page_titles``)."""
    prefix = load_claims()["page_titles"][experiment][name]
    found = [
        (anchor, rows)
        for title, anchor, rows in page.sections.get(experiment, [])
        if title.startswith(prefix)
    ]
    if len(found) > 1:
        raise ValueError(
            f"{page.source}: {len(found)} tables of {experiment} have titles starting {prefix!r}"
        )
    if not found:
        return None
    anchor, rows = found[0]
    csv = page.csv_dirs[experiment] / f"{name}.csv" if experiment in page.csv_dirs else None
    frame = pd.read_csv(csv) if csv is not None and csv.is_file() else _frame(rows)
    frame.attrs["source"] = (
        f"{csv if csv is not None and csv.is_file() else page.source}: {experiment} {name}"
    )
    return frame, anchor


def _select(frame: pd.DataFrame, row: Mapping[str, Any]) -> pd.Series | None:
    """The one row matching every ``column: value`` of ``row`` (numbers compared as numbers), None if none;
    several is a ValueError naming the selector."""
    mask = pd.Series(True, index=frame.index)
    for column, value in row.items():
        if column not in frame.columns:
            return None
        cells = frame[column]
        if isinstance(value, (int, float)):
            mask &= pd.to_numeric(cells, errors="coerce") == value
        else:
            mask &= cells.astype(str) == str(value)
    matched = frame[mask]
    if len(matched) > 1:
        raise ValueError(
            f"{frame.attrs.get('source', 'table')}: row selector {dict(row)} matches {len(matched)} rows"
        )
    return None if matched.empty else matched.iloc[0]


def _selector(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in row.items())


def _number(row: pd.Series, column: str) -> float | None:
    value = row.get(column)
    return None if value is None or pd.isna(value) else float(value)


# ------------------------------------------------------------------------------------------------ scoreboard
@dataclass(frozen=True)
class Ours:
    """Our side of a claim: the value, its interval (None when the table has none) and the table's anchor."""

    value: float
    interval: tuple[float, float] | None
    anchor: str


def ours_value(page: PageTables, claim: Mapping[str, Any]) -> Ours | str:
    """Our number for ``claim`` with its interval, or the reason it is not comparable (a missing row)."""
    spec = claim["ours"]
    found = lookup_table(page, claim["experiment"], spec["table"])
    if found is None:
        return f"no {spec['table']} table in the section"
    frame, anchor = found
    column = spec["column"]
    if "row" in spec:
        row = _select(frame, spec["row"])
        value = None if row is None else _number(row, column)
        if value is None:
            return f"no {column} at {_selector(spec['row'])}"
        low, high = spec.get("interval", [f"{column}_lo", f"{column}_hi"])
        interval = (_number(row, low), _number(row, high))
        if "se" in spec and _number(row, spec["se"]) is not None:
            half = 1.959964 * _number(row, spec["se"])
            interval = (value - half, value + half)
        return Ours(value, interval if None not in interval else None, anchor)
    op = "ratio" if "ratio" in spec else "difference"
    values = []
    for selector in spec[op]:
        row = _select(frame, selector)
        if row is None or _number(row, column) is None:
            return f"no {column} at {_selector(selector)}"
        values.append(_number(row, column))
    return Ours(values[0] / values[1] if op == "ratio" else values[0] - values[1], None, anchor)


def incomparable(page: PageTables, claim: Mapping[str, Any]) -> str | None:
    """The first declared fact of our run that is off the paper's by more than its share, as a reason."""
    for fact in claim.get("comparable_when", []):
        found = lookup_table(page, claim["experiment"], fact["table"])
        row = None if found is None else _select(found[0], fact["row"])
        ours = None if row is None else _number(row, fact["column"])
        paper = paper_reference(fact["paper"])
        if ours is None:
            return f"no {fact['column']} in {fact['table']} to check {fact['what']}"
        if abs(ours - paper) > fact["within"] * abs(paper):
            return f"{fact['what']}: {shown_number(ours)} vs paper's {shown_number(paper)} ({fact['table']})"
    return None


def judge(claim: Mapping[str, Any], paper: float, ours: Ours) -> verdicts.Verdict:
    """The verdict of one claim by its kind's rule (:mod:`decoders.tables.verdicts`)."""
    tolerance = load_claims()["tolerances"][claim["unit"]]
    low, high = ours.interval or verdicts.band(ours.value, claim["unit"], tolerance)
    if claim["kind"] == "effect":
        return verdicts.judge_effect(
            paper, low, high, scale=claim["scale"], tolerance=tolerance, unit=claim["unit"]
        )
    if claim["kind"] == "bound":
        low, high = ours.interval or (ours.value, ours.value)
        return verdicts.judge_bound(paper, ours.value, low, high, better=claim["better"])
    return verdicts.judge_measure(paper, low, high, better=claim["better"])


def scoreboard_rows(page: PageTables) -> pd.DataFrame:
    """One row per claim of every experiment the page has a section of."""
    rows = []
    for claim in load_claims()["claims"]:
        if claim["experiment"] not in page.sections:
            continue
        paper = paper_number(claim["paper"])
        ours = ours_value(page, claim)
        table = claim["ours"]["table"]
        if isinstance(ours, str):  # the row or table is missing: link to the table where the page has it
            found = lookup_table(page, claim["experiment"], table)
            verdict, shown = verdicts.Verdict(verdicts.NOT_COMPARABLE, ours), ""
            anchor = found[1] if found else ""
        else:
            reason = incomparable(page, claim)
            verdict = (
                verdicts.Verdict(verdicts.NOT_COMPARABLE, reason) if reason else judge(claim, paper, ours)
            )
            if ours.interval is None and not reason:
                verdict = verdicts.Verdict(verdict.verdict, f"{verdict.reason}; no interval")
            shown, anchor = _shown(ours), ours.anchor
        rows.append(
            {
                "id": claim["id"],
                "claim": claim["claim"],
                "paper": shown_number(paper),
                "ours [95% interval]": shown,
                "verdict": verdict.verdict,
                "reason": verdict.reason,
                "table": f"[{claim['experiment']} {table}](#{anchor})" if anchor else table,
            }
        )
    return pd.DataFrame(rows)


def _shown(ours: Ours) -> str:
    value = shown_number(ours.value)
    if ours.interval is None:
        return value
    return f"{value} [{shown_number(ours.interval[0])}, {shown_number(ours.interval[1])}]"


# ------------------------------------------------------------------------------------------ cross-paper table
def _cell(page: PageTables, experiment: str, spec: Any, table: str, row: Mapping[str, Any]) -> float | None:
    """A number of the lazy method's row, or of the row ``spec`` names in another table of the section."""
    spec = {"column": spec} if isinstance(spec, str) else spec
    found = lookup_table(page, experiment, spec.get("table", table))
    if found is None:
        return None
    selected = _select(found[0], {**row, **spec.get("row", {})})
    return None if selected is None else _number(selected, spec["column"])


def _speedup(page: PageTables, method: Mapping[str, Any], key: Mapping[str, Any]) -> tuple[float, str] | None:
    """The lazy method's speed-up over the direct one on one dataset, shown with its interval where there is one."""
    spec = method.get("speedup")
    if spec is None:
        return None
    frame, _ = lookup_table(page, method["experiment"], method["table"])
    lazy = _select(frame, {**key, **method["lazy"]})
    if lazy is None:
        return None
    if "seconds" in spec:
        direct = _select(frame, {**key, **spec["direct"]})
        fast, slow = (
            _number(lazy, spec["seconds"]),
            None if direct is None else _number(direct, spec["seconds"]),
        )
        return None if not fast or slow is None else (slow / fast, "")
    scale = 100.0 if spec.get("percent") else 1.0
    value = _number(lazy, spec["column"])
    low, high = _number(lazy, f"{spec['column']}_lo"), _number(lazy, f"{spec['column']}_hi")
    interval = (
        "" if low is None or high is None else f" [{shown_number(low / scale)}, {shown_number(high / scale)}]"
    )
    return None if value is None else (value / scale, interval)


def _by_size(page: PageTables, method: Mapping[str, Any], dataset: Any) -> str:
    """The speed-up in the smallest and the largest size bucket of the by-size table, empty where none."""
    spec = method.get("by_size")
    found = None if spec is None else lookup_table(page, method["experiment"], spec["table"])
    if found is None:
        return ""
    frame = found[0]
    buckets = frame[
        (frame[method["key"]].astype(str) == str(dataset)) & (frame[spec["bucket"]] != spec["all"])
    ]
    buckets = buckets[buckets[spec["column"]].notna()]
    if len(buckets) < 2:
        return ""
    first, last = buckets.iloc[0], buckets.iloc[-1]
    return (
        f"{shown_number(float(first[spec['column']]))}x ({first[spec['bucket']]}) -> "
        f"{shown_number(float(last[spec['column']]))}x ({last[spec['bucket']]})"
    )


def cross_paper_rows(page: PageTables) -> tuple[pd.DataFrame, list[str]]:
    """One row per lazy exact method and dataset of the page, and the notes on what a row could not show."""
    rows, notes, unsized = [], [], []
    for method in load_claims()["lazy_methods"]:
        experiment = method["experiment"]
        found = lookup_table(page, experiment, method["table"]) if experiment in page.sections else None
        lazy = None if found is None else found[0]
        for column, value in method["lazy"].items():
            if lazy is not None:
                lazy = (
                    lazy[lazy[column].astype(str) == str(value)] if column in lazy.columns else lazy.iloc[0:0]
                )
        if lazy is None or lazy.empty:
            continue
        certified = method["certified"]
        exact = isinstance(certified, dict) and certified.get("exact", False)
        for dataset in lazy[method["key"]].drop_duplicates():
            key = {method["key"]: dataset}
            speed = _speedup(page, method, key)
            share = _cell(page, experiment, certified, method["table"], {**key, **method["lazy"]})
            rows.append(
                {
                    "method": method["method"],
                    "direct exact method": method.get("direct", "none timed"),
                    "dataset": dataset,
                    "speed-up": "" if speed is None else f"{shown_number(speed[0])}x{speed[1]}",
                    "certified %": ""
                    if share is None
                    else shown_number(share) + (" (exact)" if exact else ""),
                    "speed-up, smallest -> largest": _by_size(page, method, dataset),
                    "table": f"[{experiment} {method['table']}](#{found[1]})",
                }
            )
        if "seconds" in method.get("speedup", {}):
            notes.append(
                f"{experiment}, {method['method']}: speed-up = the direct method's {method['speedup']['seconds']}"
                " over the lazy one's (no interval)."
            )
        if "no_direct" in method:
            notes.append(
                f"{experiment}, {method['method']}: no direct exact method timed: {method['no_direct']}."
            )
        elif "by_size" not in method:
            unsized.append(method["method"])
        if exact:
            notes.append(
                f"{experiment}, {method['method']}: the table prints no certified share; '(exact)' is the share of "
                "instances whose objective equals the direct method's optimum."
            )
    if unsized:
        notes.append(f"No by-size table on the page for {', '.join(unsized)}.")
    return pd.DataFrame(rows), notes


# ---------------------------------------------------------------------------------------------------- the page
CROSS_CAPTION = (
    "Each lazy exact method against the leanest direct exact method of its problem that the run times (no paper"
    " has this table): its speed-up on each dataset (direct method's time over the lazy one's, paired where the"
    " table is), the share of instances it certified optimal, and the speed-up in the smallest and the largest"
    " size bucket where the page has a by-size table."
)


def _markdown(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False, disable_numparse=True) if len(frame) else "(no rows)"


def scoreboard_markdown(page: PageTables) -> str:
    """The scoreboard and the cross-paper table, between the markers :func:`insert_scoreboard` finds."""
    board = scoreboard_rows(page)
    missing = [e for e in EXPERIMENTS if e not in page.sections]
    counts = board["verdict"].value_counts() if len(board) else pd.Series(dtype=int)
    lines = [
        START,
        "### Scoreboard: each paper's headline claims, claim by claim",
        "",
        *[f"- {rule}" for rule in verdicts.RULES],
        "",
        _markdown(board),
        "",
        "- " + ", ".join(f"{counts.get(v, 0)} {v}" for v in verdicts.VERDICTS) + f" of {len(board)} claims.",
    ]
    if missing:
        lines.append(f"- No section on this page for {', '.join(missing)}: their claims have no rows.")
    lines += [
        "- Claims, where each number is and the tolerances: `src/decoders/tables/claims.yaml`; refreshed by"
        " `python -m decoders.tables.scoreboard <page>`.",
        "",
        "### Lazy exact methods against the direct exact method of their problem",
        "",
        CROSS_CAPTION,
        "",
    ]
    cross, notes = cross_paper_rows(page)
    lines += [_markdown(cross), "", *[f"- {note}" for note in notes], END]
    return "\n".join(lines)


def insert_scoreboard(text: str, page: PageTables | None = None) -> str:
    """``text`` (a results page) with the scoreboard computed from ``page`` (default: its own Markdown tables)
    between its markers, replacing an earlier one, or else before the page's first ``## `` section."""
    page = page if page is not None else PageTables.parse(text)
    if text.count(START) != text.count(END) or text.count(START) > 1:
        raise ValueError(f"{page.source}: expected one {START} ... {END} block, or none")
    if START in text:
        before, rest = text.split(START, 1)
        text = before.rstrip("\n") + "\n\n" + rest.split(END, 1)[1].lstrip("\n")
    block = scoreboard_markdown(page) + "\n\n"
    match = re.search(r"^## ", text, flags=re.MULTILINE)
    if match is None:
        return text.rstrip("\n") + "\n\n" + block.rstrip("\n") + "\n"
    return text[: match.start()] + block + text[match.start() :]


def refresh_page(path: str | Path) -> None:
    """Insert or refresh the scoreboard at the top of the results page at ``path``, from its Markdown tables."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no results page")
    text = path.read_text(encoding="utf-8")
    write_text_atomic(path, insert_scoreboard(text, PageTables.parse(text, source=str(path))))


def main(argv: list[str] | None = None) -> int:
    """``python -m decoders.tables.scoreboard PAGE...``: refresh the scoreboard of each results page."""
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.scoreboard",
        description="Insert or refresh the scoreboard at the top of results pages, computed from their tables.",
    )
    parser.add_argument("pages", nargs="+", help="results pages (docs/results/<cpu>/RESULTS.md)")
    args = parser.parse_args(argv)
    for page in args.pages:
        try:
            refresh_page(page)
        except (OSError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(f"scoreboard refreshed: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
