"""Quoted result numbers (decoders.tables.quotes): the page parser and the check on hand-made pages, then the real
check of README.md and docs/*.md against the published pages in docs/results/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from decoders.tables import quotes

ROOT = Path(__file__).resolve().parents[1]

PAGE = """# Results

## chains: MAP inference (a paper)

| provenance | |
|---|---|
| commit | abc |

#### Table 1: exactness and speed

A caption.

| dataset | variant | speedup | sent_per_s | verdict |
|:--|:--|--:|--:|:--|
| wsj | viterbi | 1 | 120189 | a, b |
| wsj | cg | 2.6512 | 168098 | `gain` |
| ewt | cg | 1.16 | 244135 | loss |

- a note

#### Table 2: other

| dataset | value |
|---|---:|
| wsj | -0.18 [-0.35, -0.01] |

## Time and memory per rule

#### Wall time and peak memory per rule (this machine)

| rule | peak_mb |
|---|---:|
| decode | 7586 |

## Time and memory per rule (earlier run: ppc)

#### Wall time and peak memory per rule (this machine)

| rule | peak_mb |
|---|---:|
| decode | 2000 |

## Cost of a full run

| experiment | least wall minutes |
|---|---:|
| all 5, one after another | 314.5 |
"""

LINK = "results/cpu/RESULTS.md#table-1-exactness-and-speed"


def quote(text: str, row: str = "dataset=wsj, variant=cg", col: str = "speedup", **extra: str) -> str:
    attributes = " ".join(f'{key}="{value}"' for key, value in extra.items())
    return f'<!-- q: section=chains table="Table 1" row="{row}" col={col} {attributes}-->[{text}]({LINK})'


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    """A docs folder with one published page, docs/results/cpu/RESULTS.md."""
    page = tmp_path / "docs" / "results" / "cpu" / "RESULTS.md"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE, encoding="utf-8")
    quotes.parse_page.cache_clear()
    return tmp_path / "docs"


def problems_of(site: Path, prose: str) -> list[str]:
    path = site / "notes.md"
    path.write_text(prose, encoding="utf-8")
    return quotes.check_files([path])


def test_the_parser_finds_tables_sections_and_anchors(site: Path) -> None:
    tables = quotes.parse_page(site / "results" / "cpu" / "RESULTS.md")
    titles = [(table.section.split(":")[0], table.title, table.anchor) for table in tables]
    assert titles == [
        ("chains", "chains: MAP inference (a paper)", "chains-map-inference-a-paper"),
        ("chains", "Table 1: exactness and speed", "table-1-exactness-and-speed"),
        ("chains", "Table 2: other", "table-2-other"),
        (
            "Time and memory per rule",
            "Wall time and peak memory per rule (this machine)",
            "wall-time-and-peak-memory-per-rule-this-machine",
        ),
        (
            "Time and memory per rule (earlier run",
            "Wall time and peak memory per rule (this machine)",
            "wall-time-and-peak-memory-per-rule-this-machine-1",
        ),
        ("Cost of a full run", "Cost of a full run", "cost-of-a-full-run"),
    ]
    table = tables[1]
    assert table.header == ("dataset", "variant", "speedup", "sent_per_s", "verdict")
    assert table.rows[1] == ("wsj", "cg", "2.6512", "168098", "gain")
    assert quotes.cell_of(table, "dataset=wsj, variant=cg", "speedup") == "2.6512"


def test_quotes_that_match_pass(site: Path) -> None:
    prose = "\n".join(
        [
            f"CG runs {quote('2.65x')} Viterbi, {quote('2.7x')} rounded, {quote('168,098', col='sent_per_s')} sent/s.",
            f"EWT: {quote('1.16x', row='dataset=ewt, variant=cg')}; as a percentage {quote('265%', scale='100')}.",
            f"CG over Viterbi, from speeds: {quote('1.40x', col='sent_per_s', over='dataset=wsj, variant=viterbi')}.",
            '<!-- q: section=chains table="Table 2" row="dataset=wsj" col=value -->'
            "[-0.18 [-0.35, -0.01]](results/cpu/RESULTS.md#table-2-other) UAS.",
            '<!-- q: section="Time and memory per rule (earlier run: ppc)" table="Wall time" row="rule=decode" '
            "col=peak_mb -->[2,000 MB](results/cpu/RESULTS.md#wall-time-and-peak-memory-per-rule-this-machine-1)",
            '<!-- q: section="Cost of a full run" table="Cost of a full run" row="experiment=all 5, one after another"'
            ' col="least wall minutes" -->[315 minutes](results/cpu/RESULTS.md#cost-of-a-full-run)',
        ]
    )
    assert problems_of(site, prose) == []
    assert len(quotes.quotes_in(site / "notes.md")) == 9


@pytest.mark.parametrize(
    ("prose", "expected"),
    [
        (quote("2.66x"), "differs from the table's '2.6512' (as quoted: '2.65x')"),
        (quote("1.160x", row="dataset=ewt, variant=cg"), "shows more decimals than the table's '1.16'"),
        (quote("2.65x", row="dataset=gsd, variant=cg"), "no row with 'dataset=gsd, variant=cg'"),
        (quote("2.65x", row="dataset=wsj"), "2 rows with 'dataset=wsj'"),
        (quote("2.65x", row="corpus=wsj"), "no column 'corpus' (columns: dataset, variant"),
        (quote("2.65x", col="speed"), "no column 'speed'"),
        (quote("2.65x", col="verdict"), "the quote shows 1 numbers, the cell 'gain' 0"),
        (quote("1.41x", col="sent_per_s", over="dataset=wsj, variant=viterbi"), "(as quoted: '1.40x')"),
        (
            quote("1x", col="verdict", over="dataset=wsj, variant=viterbi"),
            "a ratio needs two nonzero numbers",
        ),
        (
            quote("2.65x").replace('table="Table 1"', 'table="Table 9"'),
            "no table 'Table 9' in section 'chains'",
        ),
        (quote("2.65x").replace("section=chains", "section=bnb"), "no section 'bnb'"),
        (quote("2.65x").replace("#table-1", "#table-one"), "the link's anchor is #table-one-exactness"),
        (quote("2.65x").replace("results/cpu", "results/gpu"), "cannot read the page"),
        (quote("2.65x").replace(" col=speedup", ""), "the quote names no col"),
    ],
)
def test_a_wrong_quote_is_named_with_its_file_and_line(site: Path, prose: str, expected: str) -> None:
    problems = problems_of(site, f"A first line.\n\nThen {prose}.\n")
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{site / 'notes.md'}:3: quote ")
    assert expected in problems[0]


def test_update_rewrites_quoted_numbers_from_the_tables(site: Path) -> None:
    path = site / "notes.md"
    path.write_text(
        f"CG: {quote('2.61x')} and {quote('170,000', col='sent_per_s')}, {quote('2.6x')}.\n", "utf-8"
    )
    assert quotes.update_file(path) == []
    text = path.read_text(encoding="utf-8")
    assert "[2.65x](" in text and "[168,098](" in text and "[2.7x](" in text
    assert quotes.check_files([path]) == []


def test_the_guard_finds_unquoted_results_and_lets_the_rest_pass(site: Path) -> None:
    path = site / "chains.md"
    path.write_text(
        "\n".join(
            [
                "# chains",
                "CG is 2.65x Viterbi here.",  # a result number, unquoted
                f"CG is {quote('2.65x')} Viterbi.",  # quoted
                "The paper's tagger is 95.3% accurate, its CG 2.62x Viterbi.",  # 95.3 is a paper number, 2.62 is not
                "The paper's CG reaches 97.1%.",  # not one of the paper's numbers
                "At a1725b3 a rerun gave 1.35x.",  # a measurement named by its commit
                "```",
                "speed: 3x",  # code
                "```",
                "## chains: settings and the measurements behind them",
                "A setting measured at 20%.",  # settings notes are not guarded
            ]
        ),
        encoding="utf-8",
    )
    problems = quotes.unquoted_results(path)
    assert [problem.split(": ", 1)[0] for problem in problems] == [f"{path}:2", f"{path}:4", f"{path}:5"]
    assert "'2.65x'" in problems[0] and "'2.62x'" in problems[1] and "'97.1%'" in problems[2]
    assert quotes.unquoted_results(site / "notes.md") == []  # only the experiment pages and quick.md


def test_the_published_prose_quotes_the_published_tables() -> None:
    quotes.parse_page.cache_clear()
    paths = quotes.prose_files(ROOT)
    assert ROOT / "README.md" in paths and ROOT / "docs" / "chains.md" in paths
    assert quotes.check_files(paths) == []
    assert sum(len(quotes.quotes_in(path)) for path in paths) >= 30


def test_changing_a_quoted_number_fails_the_real_check(tmp_path: Path) -> None:
    for name in ("README.md", "docs"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    quotes.parse_page.cache_clear()
    paths = quotes.prose_files(tmp_path)
    found = [quote for path in paths for quote in quotes.quotes_in(path)]
    changed = found[len(found) // 2]
    text = changed.path.read_text(encoding="utf-8")
    body = text[changed.start : changed.end]
    digit = next(i for i, char in enumerate(body) if char.isdigit() and i > body.index("-->["))
    wrong = body[:digit] + str((int(body[digit]) + 1) % 10) + body[digit + 1 :]
    changed.path.write_text(text[: changed.start] + wrong + text[changed.end :], encoding="utf-8")
    problems = quotes.check_files(paths)
    assert len(problems) == 1 and problems[0].startswith(f"{changed.path}:{changed.line}: quote ")


def test_the_command_exits_1_on_a_mismatch(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = site / "notes.md"
    path.write_text(f"{quote('2.65x')}\n", encoding="utf-8")
    assert quotes.main(["check", str(path)]) == 0
    path.write_text(f"{quote('2.64x')}\n", encoding="utf-8")
    assert quotes.main(["check", str(path)]) == 1
    assert f"{path}:1: quote '2.64x'" in capsys.readouterr().err
