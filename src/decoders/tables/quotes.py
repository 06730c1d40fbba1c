"""Result numbers quoted in the project's prose (README.md, docs/*.md), checked against the published pages.

A number that describes one of our results is written as a quote of a published table's cell: an HTML comment
naming the cell, then the number as a Markdown link to the table's heading on its page::

    CG runs <!-- q: section=chains table="Table 1" row="dataset=wsj, variant=cg" col=speedup -->[2.65x](
    results/amd-epyc-2-logical-cpus/RESULTS.md#table-1-exactness-and-speed) Viterbi's speed.

(on one line). A reader of the rendered page sees "CG runs 2.65x Viterbi's speed", with the number linking to
its table. The link names the page (relative to the prose file) and the table's anchor; the comment names the
cell:

- ``section``: the page's ``## <section>: ...`` heading (an experiment's name), or a whole ``##`` heading;
- ``table``: the ``####`` heading of the table in that section, whole or up to a ``:``, space or ``(``;
- ``row``: ``column=value`` pairs, comma-separated, that select one row (values as the cells print them);
- ``col``: the column's header;
- ``scale`` (optional): a factor the cell is multiplied by first (``0.01`` quotes 852% as 8.52x);
- ``over`` (optional): a second row of the same table; the quote is the ratio of the two rows' cells in ``col``
  (a speed-up of one variant over another, from their speeds).

The link text may hold units around the number (``2.65x``, ``96.9%``, ``115.1 minutes``). Its numbers must equal
the cell's numbers, each rounded to as many decimals as the quote shows, and may not show more decimals than the
cell. ``python -m decoders.tables.quotes check [files]`` lists every quote that does not (exit 1);
``update [files]`` rewrites quoted numbers from the tables.

The check also finds result numbers left unquoted (:func:`unquoted_results`): see its docstring for its rule
and what it does not catch. Published pages will carry CSV copies of their tables; :func:`load_table` is the one
place that reads a table, so that it can prefer them.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import Any

from decoders.io import write_text_atomic
from decoders.papers import paper_numbers

#: A quote: the comment naming the cell, then the link whose text is the quoted number.
QUOTE = re.compile(
    r"<!--\s*q:(?P<spec>[^\n]*?)-->\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\((?P<link>[^)\s]+)\)"
)
#: A spec's attribute: key=value or key="value with spaces".
ATTRIBUTE = re.compile(r'(?P<key>\w+)=(?:"(?P<quoted>[^"]*)"|(?P<bare>\S+))')
#: A number as the pages and the prose print it: sign, thousands commas, decimals.
NUMBER = re.compile(r"(?<![\w.])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![.,]?\d)")
#: The attributes a quote must name.
REQUIRED = ("section", "table", "row", "col")
#: The prose the check reads by default, relative to the project's root.
DEFAULT_FILES = ("README.md", "docs/*.md")
#: The experiment pages whose result passages :func:`unquoted_results` guards, and quick.md as a whole.
GUARDED = ("titles", "chains", "bnb", "ppc", "linking", "quick")


class QuoteError(ValueError):
    """A quote that names no cell of a published table, or a malformed quote."""


@dataclass(frozen=True)
class Table:
    """One Markdown table of a published page: its ``####`` heading, anchor, header and rows of cell texts."""

    section: str
    title: str
    anchor: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Quote:
    """One quote of a prose file: where it is, what it says and which cell it names."""

    path: Path
    line: int
    start: int
    end: int
    text: str
    link: str
    spec: dict[str, str]

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def describe(self) -> str:
        spec = self.spec
        return f"{self.text!r} ({spec.get('section')} / {spec.get('table')} / {spec.get('row')} / {spec.get('col')})"


def anchor_of(heading: str) -> str:
    """GitHub's anchor of a heading's text: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def split_cells(line: str) -> tuple[str, ...]:
    """The cells of a Markdown table row, stripped of spaces, backticks and emphasis."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return tuple(
        cell.strip().strip("`*").strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)
    )


@cache
def parse_page(path: Path) -> tuple[Table, ...]:
    """Every table of a published page with its ``##`` section, each titled by the heading it stands under
    (a ``####``, or its section's ``##`` for a table before any ``####``); only the first table under a heading.

    Anchors follow GitHub's rule for repeated headings (``-1``, ``-2`` ... on later ones)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise QuoteError(f"{path}: cannot read the page ({error.strerror})") from error
    tables: list[Table] = []
    seen: dict[str, int] = {}
    section, title, anchor, block = "", "", "", []

    def close() -> None:
        if title and len(block) >= 2:
            rows = tuple(split_cells(row) for row in block[2:])
            tables.append(Table(section, title, anchor, split_cells(block[0]), rows))

    for line in [*lines, "# end"]:
        heading = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if heading:
            close()
            level, text = len(heading.group(1)), heading.group(2)
            base = anchor_of(text)
            count = seen.get(base, 0)
            seen[base] = count + 1
            here = base if count == 0 else f"{base}-{count}"
            if level <= 2:
                section, title, anchor = (text if level == 2 else ""), text, here
            elif level == 4:
                title, anchor = text, here
            block = []
        elif title and line.startswith("|"):
            block.append(line)
        elif block:
            close()
            title, block = "", []
    return tuple(tables)


def section_matches(heading: str, name: str) -> bool:
    """Whether a ``##`` heading is the section ``name``: the whole heading, or its part before ``:``."""
    return heading == name or heading.startswith(f"{name}:")


def title_matches(title: str, name: str) -> bool:
    """Whether a ``####`` heading is the table ``name``: whole, or up to a ``:``, space or ``(`` after it."""
    return title == name or (title.startswith(name) and title[len(name)] in ": (")


def load_table(page: Path, section: str, table: str) -> Table:
    """The table ``table`` of section ``section`` of the published page ``page``.

    This is the one place that reads a published table (the check and the update call it)."""
    in_section = [found for found in parse_page(page) if section_matches(found.section, section)]
    if not in_section:
        sections = sorted({found.section.split(":")[0] for found in parse_page(page)})
        raise QuoteError(f"{page}: no section {section!r} (sections with tables: {', '.join(sections)})")
    matches = [found for found in in_section if title_matches(found.title, table)]
    if len(matches) != 1:
        titles = "; ".join(found.title for found in in_section)
        what = "no table" if not matches else f"{len(matches)} tables"
        raise QuoteError(f"{page}: {what} {table!r} in section {section!r} (its tables: {titles})")
    return matches[0]


def parse_row(spec: str, header: tuple[str, ...]) -> dict[str, str]:
    """A row selector ``column=value, column=value`` as a mapping; every column must be in ``header``."""
    pairs = [part for part in re.split(r",\s*(?=[^,=]+=)", spec) if part.strip()]
    selector: dict[str, str] = {}
    for pair in pairs:
        column, sep, value = pair.partition("=")
        if not sep:
            raise QuoteError(f"row {spec!r}: {pair!r} is not column=value")
        column = column.strip()
        if column not in header:
            raise QuoteError(f"row {spec!r}: no column {column!r} (columns: {', '.join(header)})")
        selector[column] = value.strip()
    return selector


def cell_of(table: Table, row: str, col: str) -> str:
    """The text of the cell in column ``col`` of the one row that ``row`` selects."""
    selector = parse_row(row, table.header)
    if col not in table.header:
        raise QuoteError(f"table {table.title!r}: no column {col!r} (columns: {', '.join(table.header)})")
    index = {column: i for i, column in enumerate(table.header)}
    found = [
        cells
        for cells in table.rows
        if all(
            index[column] < len(cells) and cells[index[column]] == value for column, value in selector.items()
        )
    ]
    if len(found) != 1:
        what = "no row" if not found else f"{len(found)} rows"
        raise QuoteError(f"table {table.title!r}: {what} with {row!r}")
    return found[0][index[col]]


def numbers_in(text: str) -> list[str]:
    """The numbers of a text, as printed."""
    return [match.group(0) for match in NUMBER.finditer(text)]


def decimal_of(number: str) -> Decimal:
    return Decimal(number.replace(",", "").replace("\u2212", "-").lstrip("+"))


def decimals(number: str) -> int:
    return len(number.partition(".")[2])


def shown(value: Decimal, like: str) -> str:
    """``value`` printed as the quoted number ``like`` prints: its decimals, thousands commas and sign."""
    places = decimals(like)
    rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    text = f"{rounded:,.{places}f}" if "," in like else f"{rounded:.{places}f}"
    return f"+{text}" if like.startswith("+") and rounded >= 0 else text


def quotes_in(path: Path) -> list[Quote]:
    """Every quote of a prose file, in order."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in QUOTE.finditer(text):
        spec = {
            attribute.group("key"): attribute.group("quoted") or attribute.group("bare") or ""
            for attribute in ATTRIBUTE.finditer(match.group("spec"))
        }
        line = text.count("\n", 0, match.start()) + 1
        found.append(
            Quote(path, line, match.start(), match.end(), match.group("text"), match.group("link"), spec)
        )
    return found


def target_of(quote: Quote) -> str:
    """The text of the cell a quote names (with ``over``: the ratio of its two cells, in full precision);
    :class:`QuoteError` when it names none."""
    spec = quote.spec
    missing = [key for key in REQUIRED if key not in spec]
    if missing:
        raise QuoteError(f"the quote names no {', '.join(missing)}")
    page_part, _, anchor = quote.link.partition("#")
    page = (quote.path.parent / page_part).resolve()
    table = load_table(page, spec["section"], spec["table"])
    if anchor != table.anchor:
        raise QuoteError(f"the link's anchor is #{anchor}, the table's #{table.anchor}")
    cell = cell_of(table, spec["row"], spec["col"])
    if "over" not in spec:
        return cell
    below = cell_of(table, spec["over"], spec["col"])
    top, bottom = numbers_in(cell), numbers_in(below)
    if len(top) != 1 or len(bottom) != 1 or decimal_of(bottom[0]) == 0:
        raise QuoteError(f"a ratio needs two nonzero numbers, the cells are {cell!r} and {below!r}")
    return str(decimal_of(top[0]) / decimal_of(bottom[0]))


def expected(quote: Quote, cell: str) -> str:
    """The quote's text with its numbers replaced by the cell's, rounded as the quote rounds them."""
    quoted, values = numbers_in(quote.text), numbers_in(cell)
    if not quoted or len(quoted) != len(values):
        raise QuoteError(f"the quote shows {len(quoted)} numbers, the cell {cell!r} {len(values)}")
    scale = Decimal(quote.spec.get("scale", "1"))
    parts = iter(shown(decimal_of(value) * scale, like) for value, like in zip(values, quoted, strict=True))
    return NUMBER.sub(lambda _: next(parts), quote.text)


def check_quote(quote: Quote) -> str | None:
    """What is wrong with one quote (its file and line, the quote and the table's value), or None."""
    try:
        cell = target_of(quote)
        wanted = expected(quote, cell)
    except QuoteError as error:
        return f"{quote.where}: quote {quote.describe()}: {error}"
    if "scale" not in quote.spec and "over" not in quote.spec:
        finer = [
            q
            for q, c in zip(numbers_in(quote.text), numbers_in(cell), strict=True)
            if decimals(q) > decimals(c)
        ]
        if finer:
            return f"{quote.where}: quote {quote.describe()} shows more decimals than the table's {cell!r}"
    if wanted != quote.text:
        return f"{quote.where}: quote {quote.describe()} differs from the table's {cell!r} (as quoted: {wanted!r})"
    return None


def update_file(path: Path) -> list[str]:
    """Rewrite every quoted number of a prose file from its table; the problems that stop a quote's update."""
    text = path.read_text(encoding="utf-8")
    problems, pieces, last = [], [], 0
    for quote in quotes_in(path):
        try:
            wanted = expected(quote, target_of(quote))
        except QuoteError as error:
            problems.append(f"{quote.where}: quote {quote.describe()}: {error}")
            continue
        body = text[quote.start : quote.end]
        head = body[: body.index("-->[") + 4]
        pieces += [text[last : quote.start], head, wanted, body[len(head) + len(quote.text) :]]
        last = quote.end
    new = "".join([*pieces, text[last:]])
    if new != text:
        write_text_atomic(path, new)
    return problems


def _paper_values(node: Any) -> set[Decimal]:
    if isinstance(node, dict):
        return set().union(*(_paper_values(value) for value in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(_paper_values(value) for value in node)) if node else set()
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return {Decimal(repr(node)).normalize()}
    return set()


@cache
def paper_values() -> frozenset[Decimal]:
    """Every number of the papers' numbers files (decoders.papers), normalised."""
    return frozenset(_paper_values(paper_numbers()))


#: A number with a speed-up or percent suffix: what the guard treats as a result (a 95% interval's level is not).
RESULT = re.compile(
    r"(?<![\w.])~?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:x|%(?!\s+(?:paired\s+)?(?:bootstrap\s+)?interval))(?!\w)"
)
#: A line that names where a measurement no page holds comes from: a commit, a run (r6, run20) or an issue.
SOURCED = re.compile(r"\b(?:[0-9a-f]{7,40}|r\d+|run ?\d+|[Ii]ssue \d+)\b")
#: Lines the guard leaves alone, each with the reason: (file name, text the line contains).
ALLOW = (
    # A target the page's notes test the result against, not a result.
    ("ppc.md", "reaches the MST's UAS and 95% integral solutions"),
)


def result_passages(path: Path) -> list[tuple[int, str]]:
    """The numbered lines of a prose file that the guard reads: an experiment page above its settings notes
    (``## <experiment>: settings and the measurements behind them``), quick.md whole; fenced code left out."""
    lines, out, fenced = path.read_text(encoding="utf-8").splitlines(), [], False
    for number, line in enumerate(lines, start=1):
        if re.match(r"^## \w+: settings and the measurements behind them", line):
            break
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append((number, line))
    return out


def unquoted_results(path: Path) -> list[str]:
    """Result numbers a guarded page states without a quote.

    The rule: in the result passages (:func:`result_passages`) of docs/<experiment>.md and docs/quick.md, every
    number with an ``x`` or ``%`` suffix must be inside a quote, be a paper's number on a line that says
    "paper" (its value is in a paper numbers file), stand on a line naming its commit or run (a measurement no
    page holds, such as a rerun), or be on a line of :data:`ALLOW`. It does not catch numbers without those
    suffixes (a UAS of 89.41, 10.1 DP calls, 115 minutes), numbers in the settings notes below each page's
    results, or the README (whose result passages are quoted by hand); nor does it check that a line's commit
    is where its number came from."""
    if path.stem not in GUARDED:
        return []
    problems = []
    for number, line in result_passages(path):
        if any(path.name == name and text in line for name, text in ALLOW) or SOURCED.search(line):
            continue
        bare = QUOTE.sub("", line)
        for match in RESULT.finditer(bare):
            value = Decimal(match.group(0).strip("~x%").replace(",", "")).normalize()
            if "paper" in bare.lower() and value in paper_values():
                continue
            problems.append(
                f"{path}:{number}: {match.group(0)!r} is a result number without a quote or a source"
            )
    return problems


def prose_files(root: Path) -> list[Path]:
    """The default prose files under ``root``: README.md and docs/*.md."""
    return sorted({path for pattern in DEFAULT_FILES for path in root.glob(pattern) if path.is_file()})


def check_files(paths: list[Path]) -> list[str]:
    """Every problem of every quote in ``paths``, then every unquoted result number."""
    problems = [problem for path in paths for quote in quotes_in(path) if (problem := check_quote(quote))]
    return problems + [problem for path in paths for problem in unquoted_results(path)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m decoders.tables.quotes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("command", choices=("check", "update"), help="check the quotes, or rewrite them")
    parser.add_argument("files", nargs="*", type=Path, help="prose files (default: README.md and docs/*.md)")
    args = parser.parse_args(argv)
    paths = args.files or prose_files(Path.cwd())
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    if args.command == "update":
        problems = [problem for path in paths for problem in update_file(path)]
    else:
        problems = check_files(paths)
    for problem in problems:
        print(problem, file=sys.stderr)
    quotes = sum(len(quotes_in(path)) for path in paths)
    print(f"{quotes} quotes in {len(paths)} files; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
