"""The scoreboard: its claims file, its verdict rules (borderline cases included), the command on a hand-made page,
the results page written from CSVs, and the published pages."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest

from decoders.papers import paper_value
from decoders.tables import scoreboard, verdicts
from decoders.tables.results_page import write_results_page
from decoders.tables.scoreboard import (
    END,
    START,
    PageTables,
    check_claims,
    insert_scoreboard,
    load_claims,
    lookup_table,
    main,
    paper_reference,
    scoreboard_rows,
)

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = sorted((ROOT / "docs" / "results").glob("*/RESULTS.md"))


# ------------------------------------------------------------------------------------------------ the claims
def test_claims_file_is_valid_and_every_reference_resolves():
    claims = load_claims()
    ids = [claim["id"] for claim in claims["claims"]]
    assert len(ids) == len(set(ids))
    assert {claim["experiment"] for claim in claims["claims"]} == set(scoreboard.EXPERIMENTS)
    assert {method["experiment"] for method in claims["lazy_methods"]} == set(scoreboard.EXPERIMENTS)
    for claim in claims["claims"]:
        assert isinstance(scoreboard.paper_number(claim["paper"]), float), claim["id"]
        for fact in claim.get("comparable_when", []):
            assert fact["table"] in claims["page_titles"][claim["experiment"]], claim["id"]
    for method in claims["lazy_methods"]:
        assert method["table"] in claims["page_titles"][method["experiment"]]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda c: c["claims"][0].update(paper="titles.table1[decoder=ilp].nonesuch"),
            r"claims\[0\] \(titles-cc-median\): paper:.*nonesuch",
        ),
        (
            lambda c: c["claims"][1].update(id=c["claims"][0]["id"]),
            r"claims\[1\] \(titles-cc-median\): id given twice",
        ),
        (lambda c: c["claims"][0].update(unit="furlongs"), "unit 'furlongs' has no tolerance"),
        (
            lambda c: c["claims"][0]["ours"].update(table="table9"),
            "table 'table9' of titles has no entry in page_titles",
        ),
        (lambda c: c["claims"][0].pop("scale"), "claims/0: 'scale' is a required property"),
        (lambda c: c["claims"][0].update(kind="hunch"), "claims/0/kind: 'hunch' is not one of"),
    ],
)
def test_a_broken_claims_file_names_the_claim_and_field(change, message):
    claims = copy.deepcopy(load_claims())
    change(claims)
    with pytest.raises(ValueError, match=f"decoders/tables/claims.yaml: .*{message}"):
        check_claims(claims)


def test_paper_reference_picks_rows_and_names_what_is_missing():
    assert paper_reference("titles.table1[decoder=ilp].median_s") == 57.3
    assert paper_reference("chains.table1_pos[decoder=viterbi+p].sent_per_s") == 4515.3
    # the supplement is searched too
    assert paper_reference("bnb.setup.english_nonzero_features") == paper_value(
        "bnb.setup.english_nonzero_features"
    )
    with pytest.raises(KeyError, match="decoder=nonesuch"):
        paper_reference("titles.table1[decoder=nonesuch].median_s")
    with pytest.raises(KeyError, match="not a number"):
        paper_reference("titles.corpus")
    with pytest.raises(KeyError, match="not of the form"):
        paper_reference("titles..corpus")


def test_a_paper_ratio_is_computed_from_two_references():
    ratio = scoreboard.paper_number(
        {"ratio": ["titles.table1[decoder=ilp].median_s", "titles.table1[decoder=color-coding].median_s"]}
    )
    assert ratio == pytest.approx(57.3 / 9.7)


# ------------------------------------------------------------------------------------------------- the rules
@pytest.mark.parametrize(
    ("paper", "low", "high", "scale", "expected"),
    [
        (2.0, 1.5, 2.5, "ratio", verdicts.REPRODUCED),
        (2.0, 2.0, 2.5, "ratio", verdicts.REPRODUCED),  # the paper's value at the interval's end
        (2.0, 2.01, 3.0, "ratio", verdicts.EXCEEDED),
        (2.0, 1.2, 1.99, "ratio", verdicts.NOT_REPRODUCED),
        (2.0, 0.9, 2.5, "ratio", verdicts.NOT_REPRODUCED),  # the interval includes no speed-up
        (1.05, 0.9, 1.2, "ratio", verdicts.REPRODUCED),  # the paper claims no effect: 1 may be inside
        (0.5, 0.4, 0.6, "ratio", verdicts.REPRODUCED),  # a claimed slow-down
        (0.5, 0.55, 0.9, "ratio", verdicts.EXCEEDED),  # less of a slow-down
        (380.0, 90.0, 110.0, "percent", verdicts.NOT_REPRODUCED),
        (380.0, 300.0, 400.0, "percent", verdicts.REPRODUCED),
        (0.36, -0.05, 0.85, "difference", verdicts.NOT_REPRODUCED),  # the interval includes 0
        (0.36, 0.1, 0.5, "difference", verdicts.REPRODUCED),
        (-0.5, 0.3, 1.0, "difference", verdicts.EXCEEDED),  # a claimed loss, a gain measured
        (-0.5, -0.8, 0.2, "difference", verdicts.NOT_REPRODUCED),  # a claimed loss the interval does not show
        (-0.01, -0.16, 0.44, "difference", verdicts.REPRODUCED),  # within tolerance of no effect
    ],
)
def test_effect_rule(paper, low, high, scale, expected):
    unit, tolerance = ("uas_points", 0.3) if scale == "difference" else ("times", 0.1)
    assert (
        verdicts.judge_effect(paper, low, high, scale=scale, tolerance=tolerance, unit=unit).verdict
        == expected
    )


def test_effect_rule_refuses_a_ratio_that_is_not_positive():
    with pytest.raises(ValueError, match="positive"):
        verdicts.judge_effect(2.0, 0.0, 1.0, scale="ratio", tolerance=0.1, unit="times")


@pytest.mark.parametrize(
    ("paper", "low", "high", "better", "expected"),
    [
        (64.8, 94.9, 98.9, "higher", verdicts.EXCEEDED),
        (64.8, 60.0, 64.8, "higher", verdicts.REPRODUCED),  # at the interval's end
        (98.9, 92.7, 96.7, "higher", verdicts.NOT_REPRODUCED),
        (54.7, 9.0, 11.0, "lower", verdicts.EXCEEDED),
        (44.3, 129.0, 158.0, "lower", verdicts.NOT_REPRODUCED),
        (0.3, 0.11, 0.14, "none", verdicts.NOT_REPRODUCED),  # no better side: never exceeded
        (0.3, 0.31, 0.4, "none", verdicts.NOT_REPRODUCED),
        (0.3, 0.2, 0.4, "none", verdicts.REPRODUCED),
    ],
)
def test_measure_rule(paper, low, high, better, expected):
    assert verdicts.judge_measure(paper, low, high, better=better).verdict == expected


@pytest.mark.parametrize(
    ("paper", "value", "low", "high", "better", "expected"),
    [
        (90, 90, 90, 90, "higher", verdicts.REPRODUCED),  # "over 90%": exactly 90 holds
        (90, 89.9, 89.9, 89.9, "higher", verdicts.NOT_REPRODUCED),
        (90, 92, 89, 95, "higher", verdicts.NOT_REPRODUCED),  # the whole interval must hold
        (3, 3, 3, 3, "lower", verdicts.REPRODUCED),
        (3, 4, 4, 4, "lower", verdicts.NOT_REPRODUCED),
    ],
)
def test_bound_rule(paper, value, low, high, better, expected):
    assert verdicts.judge_bound(paper, value, low, high, better=better).verdict == expected


def test_band_of_a_point_without_interval():
    assert verdicts.band(2.2, "times", 0.1) == pytest.approx((2.0, 2.42))
    assert verdicts.band(10.0, "relative", 0.1) == pytest.approx((9.0, 11.0))
    assert verdicts.band(95.0, "pct_points", 2.0) == pytest.approx((93.0, 97.0))


# ------------------------------------------------------------------------------------------ hand-made pages
CHAINS_TABLE = """#### Table 1: exactness and speed

Caption.

| task | dataset | variant | exact_pct | speedup | speedup_lo | speedup_hi |
|:-----|:--------|:--------|----------:|--------:|-----------:|-----------:|
| POS | wsj | viterbi | 100 | 1 | 1 | 1 |
| POS | wsj | viterbi+p | 100 | 1.2 | 1.1 | 1.3 |
| POS | wsj | cg | 100 | 2.7 | 2.5 | 2.9 |
| POS | wsj | cg-dg | 94.7 | 2.8 | 2.6 | 3 |
| POS | wsj | beam-1 | 67 | 5.9 | 5.5 | 6.2 |

- a note
"""
TITLES_TABLES = """#### titles: Table 1 (decoding test titles)

| dataset | variant | median_s | mean_s | rouge_l | optimal_pct | self_certified_pct |
|:--|:--|--:|--:|--:|--:|--:|
| textbooks | colour-coding | 0.001 | 0.05 | 0.23 | 100 | 0 |
| textbooks | ilp-cp-sat | 0.09 | 0.3 | 0.23 | 100 | 100 |
| textbooks | beam-1 | 0.0002 | 0.0002 | 0.13 | 25 | 0 |
| textbooks | beam-80 | 0.0003 | 0.0003 | 0.23 | 97 | 0 |

#### titles: sections, splits and word graphs (ours beside the paper's)

| dataset | sections | mean_body_words | mean_title_content_words |
|:--|--:|--:|--:|
| paper | 547 | 609.2 | 3 |
| textbooks | 650 | 422.9 | 2.397 |
"""


def hand_made_page() -> str:
    return "\n".join(
        [
            "# Results",
            "",
            "Generated by hand.",
            "",
            "## Corpora",
            "",
            "## chains: MAP inference in chains (a test)",
            "",
            "| provenance | |",
            "|---|---|",
            "| CPU | test |",
            "",
            CHAINS_TABLE,
            "## titles: selection and ordering (a test)",
            "",
            TITLES_TABLES,
        ]
    )


def board_of(text: str) -> pd.DataFrame:
    return scoreboard_rows(PageTables.parse(text)).set_index("id")


def test_scoreboard_of_a_hand_made_page():
    board = board_of(hand_made_page())
    claims = [c for c in load_claims()["claims"] if c["experiment"] in ("chains", "titles")]
    assert list(board.index) == [c["id"] for c in claims]
    row = board.loc["chains-cg-pos"]  # paper 8227.6 / 3144.6 = 2.62 in [2.5, 2.9]
    assert (row["verdict"], row["ours [95% interval]"]) == (verdicts.REPRODUCED, "2.7 [2.5, 2.9]")
    assert "no interval" not in row["reason"]
    assert row["table"] == "[chains table1](#table-1-exactness-and-speed)"
    assert board.loc["chains-cgdg-exact", "verdict"] == verdicts.NOT_REPRODUCED  # 94.7 +- 2 against 98.9
    assert board.loc["chains-cgdg-exact", "reason"].endswith("no interval")
    # a row the run did not cover, a table the section lacks: not comparable, saying which
    assert board.loc["chains-cg-ner", "verdict"] == verdicts.NOT_COMPARABLE
    assert board.loc["chains-cg-ner", "reason"] == "no speedup at dataset=ewt-ner, variant=cg"
    assert board.loc["chains-cg-ner", "table"] == "[chains table1](#table-1-exactness-and-speed)"
    assert board.loc["chains-eq12", "table"] == "table2b"  # no such table on the page: no link
    assert board.loc["chains-eq12", "reason"] == "no table2b table in the section"
    # titles: our titles are shorter than the paper's, so the speed-up is not comparable
    assert board.loc["titles-cc-median", "verdict"] == verdicts.NOT_COMPARABLE
    assert board.loc["titles-cc-median", "reason"] == "content words a title: 2.397 vs paper's 3 (units)"
    assert board.loc["titles-cc-optimal", "verdict"] == verdicts.REPRODUCED


def test_a_title_size_within_its_share_is_comparable():
    text = hand_made_page().replace("| textbooks | 650 | 422.9 | 2.397 |", "| textbooks | 650 | 600 | 2.9 |")
    board = board_of(text)
    assert board.loc["titles-cc-median", "verdict"] == verdicts.EXCEEDED  # 90x against the paper's 5.9x
    assert board.loc["titles-cc-median", "reason"].endswith("no interval")


def test_command_inserts_then_refreshes_the_scoreboard(tmp_path, capsys):
    page = tmp_path / "RESULTS.md"
    page.write_text(hand_made_page(), encoding="utf-8")
    assert main([str(page)]) == 0
    first = page.read_text(encoding="utf-8")
    head = first.split("## Corpora")[0]
    assert START in head and END in head and first.count(START) == 1  # at the top, before every section
    assert "No section on this page for bnb, ppc, linking: their claims have no rows." in head
    assert "[chains table1](#table-1-exactness-and-speed)" in head
    assert main([str(page)]) == 0
    assert page.read_text(encoding="utf-8") == first  # refreshed in place, not added twice
    # a changed table changes the verdict on refresh
    page.write_text(
        first.replace(
            "| POS | wsj | cg | 100 | 2.7 | 2.5 | 2.9 |", "| POS | wsj | cg | 100 | 1.4 | 1.3 | 1.5 |"
        )
    )
    assert main([str(page)]) == 0
    row = board_of(page.read_text(encoding="utf-8")).loc["chains-cg-pos"]
    assert (row["verdict"], row["reason"]) == (verdicts.NOT_REPRODUCED, "high end 1.5 < 2.616")
    page.write_text(first.replace(END, ""), encoding="utf-8")  # a block cut short is not guessed at
    assert main([str(page)]) == 1
    assert "expected one <!-- scoreboard: start -->" in capsys.readouterr().err
    assert main([str(tmp_path / "none.md")]) == 1
    assert "none.md: no results page" in capsys.readouterr().err


def test_a_table_is_read_from_its_csv_where_the_run_has_it(tmp_path):
    text = hand_made_page()
    (tmp_path / "chains").mkdir()
    pd.DataFrame(
        {"task": ["POS"], "dataset": ["wsj"], "variant": ["cg"], "exact_pct": [100.0], "speedup": [2.65432]}
    ).to_csv(tmp_path / "chains" / "table1.csv", index=False)
    page = PageTables.parse(text, {"chains": tmp_path / "chains"})
    frame, anchor = lookup_table(page, "chains", "table1")
    assert frame["speedup"].tolist() == [2.65432] and anchor == "table-1-exactness-and-speed"
    # from the page's Markdown where there is no CSV; a table the section does not show is None
    frame, _ = lookup_table(PageTables.parse(text), "chains", "table1")
    assert frame.loc[frame["variant"] == "cg", "speedup"].tolist() == [2.7]
    assert lookup_table(page, "chains", "table2a") is None
    # a selector that is not one row names the table
    frame, _ = lookup_table(PageTables.parse(text, source="RESULTS.md"), "chains", "table1")
    with pytest.raises(
        ValueError, match=r"RESULTS.md: chains table1: row selector \{'dataset': 'wsj'\} matches 5"
    ):
        scoreboard._select(frame, {"dataset": "wsj"})


def test_results_page_opens_with_the_scoreboard_from_the_csvs(tmp_path):
    tables = tmp_path / "tables" / "chains"
    tables.mkdir(parents=True)
    (tables / "table1.md").write_text(CHAINS_TABLE.replace("#### ", "### "), encoding="utf-8")
    pd.DataFrame(
        {
            "task": ["POS"],
            "dataset": ["wsj"],
            "variant": ["cg"],
            "exact_pct": [100.0],
            "speedup": [2.65432],
            "speedup_lo": [2.5],
            "speedup_hi": [2.8],
        }
    ).to_csv(tables / "table1.csv", index=False)
    output = tmp_path / "RESULTS.md"
    section = {"experiment": "chains", "heading": "chains: a test", "tables": [str(tables / "table1.md")]}
    write_results_page([section], output)
    text = output.read_text(encoding="utf-8")
    assert text.index(START) < text.index("## chains: a test")
    board = text.split(END)[0]
    # every digit of the CSV, not the Markdown's rounded ones
    assert "| 2.654 [2.5, 2.8] " in board and "2.7 [2.5, 2.9]" not in board


# ------------------------------------------------------------------------------------------ published pages
@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.parent.name)
def test_published_page_has_its_scoreboard_with_one_row_per_claim(path):
    text = path.read_text(encoding="utf-8")
    page = PageTables.parse(text)
    board = scoreboard_rows(page)
    expected = [c["id"] for c in load_claims()["claims"] if c["experiment"] in page.sections]
    assert board["id"].tolist() == expected
    assert len(board.columns) <= 8
    assert set(board["verdict"]) <= set(verdicts.VERDICTS)
    # every table a claim reads is on the page, and every link goes to a heading of the page
    assert not board["reason"].str.startswith("no ").any(), board.loc[board["reason"].str.startswith("no ")]
    anchors = {anchor for tables in page.sections.values() for _, anchor, _ in tables}
    links = board["table"].str.extract(r"\(#([^)]+)\)")[0]
    assert set(links) <= anchors
    # the committed page carries the scoreboard its tables give now
    assert insert_scoreboard(text) == text


def test_the_page_with_all_five_experiments_has_every_claim():
    pages = [p for p in PUBLISHED if len(PageTables.parse(p.read_text(encoding="utf-8")).sections) == 5]
    assert pages, "no published page holds all five experiments"
    board = scoreboard_rows(PageTables.parse(pages[0].read_text(encoding="utf-8")))
    assert len(board) == len(load_claims()["claims"])
