"""The ppc tables and figures on small hand-made records: every ratio, percentage and timeout count checked."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from decoders.config import load_config
from decoders.harness.protocol import Solution
from decoders.harness.records import make_record, records_frame, write_records
from decoders.tables import ppc as tables

WORDS = [3, 4, 5, 6]  # sentences s0..s3
TOTALS = [3, 4, 5, 5]  # scored words (punctuation left out)
SETTINGS = {
    "datasets": ["partut", "szeged"],
    "harness": {"time_limit": 600},
    "variants": {
        "mst": {"decoder": "mst"},
        "full-lp": {"decoder": "full-lp", "params": {"polytope": "all"}, "time_limit": 3600},
        "full-lp-paper": {"decoder": "full-lp", "params": {"polytope": "all", "rows": "paper"}},
        "arcgp": {"decoder": "full-lp", "params": {"polytope": "arcgp"}},
        "onegp": {"decoder": "full-lp", "params": {"polytope": "onegp"}},
        "ppc-paper": {"decoder": "ppc"},
        "ppc": {"decoder": "ppc", "params": {"start": "mst", "columns_per_word": 4}},
        "ilp": {"decoder": "ilp"},
        "audit": {"decoder": "ppc-audit"},
        "full-lp-cycles": {"decoder": "full-lp", "params": {"polytope": "all", "cycle_cuts": True}},
    },
}
KILLED = ("timeout", None, None, {"killed": True})
PHASE_SECONDS = {
    "seconds_lp": 0.1,
    "seconds_pricing": 0.05,
}  # of a PPC sentence  # a timeout the harness killed: no stats, no tree


def parts(n: int) -> int:
    return n * (n - 1) ** 2


def lp_stats(i: int, integral: bool, scored: int | None = None, added: int | None = None, **more) -> dict:
    n = WORDS[i]
    scored = parts(n) if scored is None else scored
    return {
        "words": n,
        "parts_scored": scored,
        "parts_added": scored if added is None else added,
        "integral": integral,
        **more,
    }


def run(dataset: str, variant: str, seconds: list[float], rows: list[tuple]) -> pd.DataFrame:
    """Records of one variant: per sentence (status, objective, correct, stats) and its seconds."""
    records = []
    for i, (status, objective, correct, stats) in enumerate(rows):
        tree = None if correct is None else [0] * WORDS[i]
        solution = Solution(tree, objective, None, status, stats)
        records.append(
            make_record(
                experiment="ppc", dataset=dataset, variant=variant, params={}, instance_id=f"s{i}",
                size=WORDS[i] ** 3, seconds=seconds[i], solution=solution,
                evaluation={} if correct is None else {"correct": correct, "total": TOTALS[i]},
            )
        )  # fmt: skip
    return records_frame(records)


def partut_runs() -> list[pd.DataFrame]:
    bf_objectives = [10.0, 20.0, 30.0, 40.0]
    return [
        # BF: 1 sentence/s; s3 fractional (its tree: 3 of 5 right)
        run(
            "partut", "full-lp", [1, 1, 1, 1],
            [("optimal", bf_objectives[i], c, lp_stats(i, i < 3, lp_solves=1, lp_iterations=10 * (i + 1)))
             for i, c in enumerate([2, 3, 4, 3])],
        ),
        # PPC: 2 sentences/s counting the killed timeout on s3 at its recorded second; s1's objective is within
        # 1e-6 relative of BF's, s2's is not
        run(
            "partut", "ppc", [0.25, 0.25, 0.5, 1.0],
            [
                ("optimal", 10.0, 2, lp_stats(0, True, 2, 1, lp_solves=2, columns_priced=1, cuts=0, **PHASE_SECONDS)),
                ("optimal", 20.0 * (1 + 5e-7), 3, lp_stats(1, True, 4, 3, lp_solves=3, columns_priced=2, cuts=1, **PHASE_SECONDS)),
                ("optimal", 30.0001, 4, lp_stats(2, True, 8, 4, lp_solves=5, columns_priced=3, cuts=2, **PHASE_SECONDS)),
                KILLED,
            ],
        ),
        # BF with the paper's rows: killed on s3 at the limit, so any speed relative to it is a lower bound
        run(
            "partut", "full-lp-paper", [2, 2, 2, 4],
            [*(("optimal", [10.0, 20.0, 30.0][i], c, lp_stats(i, True)) for i, c in enumerate([2, 3, 4])), KILLED],
        ),
        # the paper's pricing: 1 sentence/s, every objective BF's, half of BF's parts scored
        run(
            "partut", "ppc-paper", [1, 1, 1, 1],
            [("optimal", [10.0, 20.0, 30.0, 40.0][i], c, lp_stats(i, i < 3, parts(WORDS[i]) // 2, lp_solves=2))
             for i, c in enumerate([2, 3, 4, 3])],
        ),
        run(
            "partut", "mst", [0.01] * 4,
            [("optimal", 1.0, c, {"words": WORDS[i]}) for i, c in enumerate([1, 2, 3, 3])],
        ),
        # ILP: the MIP ran on s3 only (its LP fractional), its optimum below the LP's; `integral` is said of the
        # answer, as decoders.ppc records it: true once the MIP ran
        run(
            "partut", "ilp", [1, 1, 1, 2],
            [("optimal", [10.0, 20.0, 30.0, 39.0][i], c, lp_stats(i, True, ilp_solved=i == 3))
             for i, c in enumerate([2, 3, 4, 4])],
        ),
        # the audit: s0 clean, s1 a missed column (reduced cost 3e-6 x (1 + 9) > tolerance), s2 an ArcGP violation
        # within tolerance, s3 killed
        run(
            "partut", "audit", [5, 5, 5, 5],
            [
                ("optimal", 10.0, 2, lp_stats(0, True, audit_max_reduced_cost=-1.0, audit_max_arcgp_violation=-1.0,
                                              audit_tolerance=1e-5, audit_parts=12, audit_passed=True)),
                ("feasible", 20.0, 3, lp_stats(1, True, audit_max_reduced_cost=3e-5, audit_max_arcgp_violation=0.0,
                                               audit_tolerance=1e-5, audit_parts=36, audit_passed=False)),
                ("optimal", 30.0, 4, lp_stats(2, True, audit_max_reduced_cost=0.0, audit_max_arcgp_violation=5e-7,
                                              audit_tolerance=1e-5, audit_parts=80, audit_passed=True)),
                KILLED,
            ],
        ),
        # BF + cycle cuts: s3's LP integral once its cycle is cut, at an objective below BF's, 4 s in all
        run(
            "partut", "full-lp-cycles", [1, 1, 1, 1],
            [("optimal", [10.0, 20.0, 30.0, 39.5][i], c, lp_stats(i, True, cycle_cuts=int(i == 3)))
             for i, c in enumerate([2, 3, 4, 4])],
        ),
        # Table 2: ArcGP+GPArc at 0.5 sentences/s, half integral; OneGP+NoGP 4x faster, a cooperative timeout on s2
        run(
            "partut", "arcgp", [2, 2, 2, 2],
            [("optimal", [11.0, 20.0, 33.0, 40.0][i], c, lp_stats(i, i in (0, 3)))
             for i, c in enumerate([2, 2, 3, 3])],
        ),
        run(
            "partut", "onegp", [0.5] * 4,
            [
                ("optimal", 12.0, 1, lp_stats(0, False)),
                ("optimal", 20.0, 3, lp_stats(1, True)),
                ("timeout", math.nan, None, {"words": 5, "parts_scored": 80, "parts_added": 80}),
                ("optimal", 44.0, 2, lp_stats(3, False)),
            ],
        ),
    ]  # fmt: skip


def szeged_runs() -> list[pd.DataFrame]:
    """A dataset without ILP records (the variant is configured but was not run on it) and no peer."""
    return [
        run("szeged", "full-lp", [2, 2], [("optimal", 5.0, 2, lp_stats(0, True)), ("optimal", 6.0, 3, lp_stats(1, True))]),
        run("szeged", "ppc", [1, 1], [("optimal", 5.0, 2, lp_stats(0, True, 6)), ("optimal", 6.0, 3, lp_stats(1, True, 12))]),
        run("szeged", "mst", [0.5, 0.5], [("optimal", 1.0, 1, {"words": 3}), ("optimal", 1.0, 4, {"words": 4})]),
    ]  # fmt: skip


@pytest.fixture
def records() -> pd.DataFrame:
    return tables.load_runs_frame(pd.concat([*partut_runs(), *szeged_runs()], ignore_index=True))


@pytest.fixture
def peer(tmp_path) -> Path:
    path = tmp_path / "peers" / "partut" / "udpipe.parquet"
    path.parent.mkdir(parents=True)
    frame = pd.DataFrame(
        {"instance_id": ["s0", "s1", "s2", "s3"], "words": WORDS, "correct": [3, 3, 4, 4], "total": TOTALS}
    )
    frame.to_parquet(path)
    summary = {"sentences_per_s": 50.0, "parse_seconds": 0.08, "test_sentences": 4}
    path.with_suffix(".json").write_text(json.dumps(summary), encoding="utf-8")
    return path


def test_roles_follow_the_config_entries():
    roles = tables.variant_roles(SETTINGS)
    assert roles == {
        "bf": "full-lp",
        "bf_paper": "full-lp-paper",
        "arcgp": "arcgp",
        "onegp": "onegp",
        "ppc": "ppc",  # ours (pricing options), listed after the paper's
        "ppc_paper": "ppc-paper",
        "mst": "mst",
        "ilp": "ilp",
        "audit": "audit",
        "bf_cycles": "full-lp-cycles",
        "arcgp_cycles": None,  # AD3's rows: tests/test_ppc_ad3.py
        "ad3_lp": None,
        "ad3_exact": None,
    }
    without = {"variants": {k: v for k, v in SETTINGS["variants"].items() if k != "ilp"}}
    assert tables.variant_roles(without)["ilp"] is None
    # a full-lp variant without a polytope solves the `all` polytope: it is BF; with cycle cuts, never BF
    cycles = {"decoder": "full-lp", "params": {"cycle_cuts": True}}
    roles = tables.variant_roles({"variants": {"cuts": cycles, "bf": {"decoder": "full-lp"}}})
    assert roles["bf"] == "bf" and roles["bf_cycles"] == "cuts"


def test_the_projects_config_names_every_role(repo_root):
    roles = tables.variant_roles(load_config(repo_root)["experiments"]["ppc"])
    assert all(roles.values()), roles


def test_stats_become_columns_and_every_row_has_its_length(records):
    ppc = records[(records["dataset"] == "partut") & (records["variant"] == "ppc")].set_index("instance_id")
    assert ppc.loc["s2", "parts_scored"] == 8 and ppc.loc["s2", "integral"] == 1.0
    assert math.isnan(ppc.loc["s3", "parts_scored"]) and math.isnan(ppc.loc["s3", "integral"])
    assert ppc.loc["s3", "words"] == 6  # the killed timeout takes its length from another record
    ilp = records[records["variant"] == "ilp"].set_index("instance_id")
    assert ilp["ilp_solved"].tolist() == [0.0, 0.0, 0.0, 1.0]
    alone = tables.load_runs_frame(run("partut", "ppc", [1, 1, 1, 1], [KILLED] * 4))
    assert alone["words"].tolist() == WORDS  # no record knows it: the cube root of size (n^3)
    assert alone["correct"].isna().all() and alone["total"].isna().all()


def test_table1_ratios_timeouts_and_paper_numbers(records, peer):
    table = tables.table1(records, SETTINGS, {"partut": peer})
    assert list(table.columns) == tables.TABLE1_COLUMNS
    partut = table[table["dataset"] == "partut"].set_index("system")
    assert list(partut.index) == [*tables.SYSTEMS.values(), tables.PEER]
    bf, ppc = partut.loc["BF (full LP, lean rows)"], partut.loc["PPC"]
    bf_paper, ppc_paper = partut.loc["BF (full LP, paper's rows)"], partut.loc["PPC (paper's pricing)"]
    mst, ilp, udpipe = (
        partut.loc["MST (first order)"],
        partut.loc["ILP (MIP if fractional)"],
        partut.loc[tables.PEER],
    )

    assert bf["sent_per_s"] == 1.0 and bf["speed_rel_bf_pct"] == 100.0
    assert ppc["sent_per_s"] == 2.0 and ppc["speed_rel_bf_pct"] == 200.0  # the timeout's second counted
    assert ppc["timeouts"] == 1 and bf["timeouts"] == 0 and ppc["errors"] == 0 and ppc["seconds"] == 2.0
    assert mst["speed_rel_bf_pct"] == pytest.approx(10000.0)
    assert udpipe["sent_per_s"] == 50.0 and udpipe["speed_rel_bf_pct"] == 5000.0 and udpipe["seconds"] == 0.08
    # against BF with the paper's rows (0.4 sentences/s, one sentence killed at the limit): lower bounds, unless
    # the row timed out too
    assert bf_paper["timeouts"] == 1 and bf_paper["speed_rel_bf_pct"] == 40.0
    assert (
        bf_paper["speed_rel_bf_is"] == "upper bound" and bf_paper["speed_rel_bf_paper_is"] == "neither bound"
    )
    assert bf["speed_rel_bf_paper_pct"] == 250.0 and bf["speed_rel_bf_paper_is"] == "lower bound"
    assert (
        ppc_paper["speed_rel_bf_paper_pct"] == 250.0 and ppc_paper["speed_rel_bf_paper_is"] == "lower bound"
    )
    assert ppc_paper["speed_rel_bf_is"] == "exact" and bf["speed_rel_bf_is"] == "exact"
    assert ppc["speed_rel_bf_paper_pct"] == 500.0 and ppc["speed_rel_bf_paper_is"] == "neither bound"
    assert ppc["speed_rel_bf_is"] == "upper bound"  # its own timeout counts at its recorded second
    assert udpipe["speed_rel_bf_paper_pct"] == 12500.0 and udpipe["speed_rel_bf_paper_is"] == "lower bound"

    # parts: PPC's sums over s0-s2 (s3 recorded none) against BF's on the same sentences
    bf_parts = parts(3) + parts(4) + parts(5)
    assert ppc["parts_compared"] == 3 and bf["parts_compared"] == 4
    assert ppc["parts_scored_rel_bf_pct"] == pytest.approx(100.0 * 14 / bf_parts)
    assert ppc["parts_added_rel_bf_pct"] == pytest.approx(100.0 * 8 / bf_parts)
    assert ppc["parts_scored_per_sent"] == pytest.approx(14 / 3)
    assert bf["parts_scored_per_sent"] == pytest.approx((bf_parts + parts(6)) / 4)
    assert bf["parts_scored_rel_bf_pct"] == 100.0

    # objectives: s3 left out (PPC timed out); s1 within 1e-6 relative counts as equal, s2 does not
    assert ppc["objective_compared"] == 3 and ppc["objective_differs"] == 1
    assert ppc["objective_rel_bf_pct"] == pytest.approx(100.0 * (1 + 1 + 30.0001 / 30.0) / 3)
    assert bf["objective_rel_bf_pct"] == 100.0 and bf["objective_differs"] == 0
    assert ilp["objective_compared"] == 4 and ilp["objective_differs"] == 1
    assert ilp["objective_rel_bf_pct"] == pytest.approx(100.0 * (3 + 39 / 40) / 4)
    # the largest relative differences: PPC's s2 (30.0001 against 30) and s1 (5e-7 x 20 / 20.00001)
    assert ppc["objective_max_rel_diff"] == pytest.approx(0.0001 / 30.0001)
    assert bf["objective_max_rel_diff"] == 0.0 and bf["objective_max_rel_diff_bf_paper"] == 0.0  # s0-s2
    assert ilp["objective_max_rel_diff"] == pytest.approx(1 / 40)

    # integrality over all sentences: PPC's timeout is not integral
    assert bf["integer_pct"] == 75.0 and ppc["integer_pct"] == 75.0
    assert bf["fractional"] == 1 and ppc["fractional"] == 0
    assert bf["uas_fractional"] == pytest.approx(60.0)  # the tree read from s3's fractional LP: 3 of 5
    assert math.isnan(ppc["uas_fractional"])
    assert (
        ilp["mip_solved"] == 1
        and ilp["fractional"] == 1
        and ilp["uas_fractional"] == pytest.approx(80.0)
        and math.isnan(ilp["integer_pct"])
    )
    assert math.isnan(bf["mip_solved"]) and math.isnan(mst["objective_rel_bf_pct"])
    # the analysis row: s3's cycle cut, integral everywhere, its objective below BF's on s3
    cycles = partut.loc[tables.SYSTEMS["bf_cycles"]]
    assert cycles["integer_pct"] == 100.0 and cycles["fractional"] == 0 and cycles["objective_differs"] == 1
    assert cycles["speed_rel_bf_pct"] == 100.0 and cycles["uas"] == pytest.approx(100.0 * 13 / 17)
    assert math.isnan(cycles["paper_uas"])

    # UAS: the timed-out sentence counts with its 5 words and no correct head
    assert bf["uas"] == pytest.approx(100.0 * 12 / 17)
    assert ppc["uas"] == pytest.approx(100.0 * 9 / 17)
    assert mst["uas"] == pytest.approx(100.0 * 9 / 17)
    assert ilp["uas"] == pytest.approx(100.0 * 13 / 17)
    assert udpipe["uas"] == pytest.approx(100.0 * 14 / 17)

    assert (
        ppc["paper_speed_rel_pct"] == 760 and ppc["paper_gps_scored_rel_pct"] == 6 and ppc["paper_uas"] == 88
    )
    assert (
        bf["paper_speed_rel_pct"] == 100
        and bf["paper_integer_pct"] == 98
        and bf["paper_gps_added_rel_pct"] == 100
    )
    assert math.isnan(mst["paper_uas"]) and ppc["paper_language"] == "italian"

    # szeged: no ILP records and no peer, no rows for them
    szeged = table[table["dataset"] == "szeged"].set_index("system")
    assert list(szeged.index) == ["BF (full LP, lean rows)", "PPC", "MST (first order)"]
    assert szeged.loc["PPC", "speed_rel_bf_pct"] == 200.0
    assert szeged.loc["PPC", "parts_scored_rel_bf_pct"] == pytest.approx(100.0 * 18 / (parts(3) + parts(4)))
    assert szeged.loc["PPC", "paper_speed_rel_pct"] == 380


def test_table1_without_the_ilp_variant(records):
    settings = {**SETTINGS, "variants": {k: v for k, v in SETTINGS["variants"].items() if k != "ilp"}}
    table = tables.table1(records[records["variant"] != "ilp"], settings)
    assert "ILP (MIP if fractional)" not in set(table["system"]) and tables.PEER not in set(table["system"])
    assert table["mip_solved"].isna().all()
    assert (
        len(table) == 9
    )  # partut: both BFs, PPC, the paper's PPC, MST, BF + cycle cuts; szeged: BF, PPC, MST


def test_table2_polytopes(records):
    table = tables.table2(records, SETTINGS)
    assert list(table.columns) == tables.TABLE2_COLUMNS
    partut = table[table["dataset"] == "partut"].set_index("polytope")
    assert list(partut.index) == ["ArcGP+GPArc", "OneGP+NoGP", "all"]
    assert partut["sent_per_s"].tolist() == [0.5, 2.0, 1.0]
    assert partut["speed_rel_arcgp_pct"].tolist() == [100.0, 400.0, 200.0]
    assert partut["integer_pct"].tolist() == [50.0, 25.0, 75.0]  # OneGP's timeout is not integral
    assert partut["fractional"].tolist() == [2, 2, 1]
    assert partut["timeouts"].tolist() == [0, 1, 0]
    assert partut.loc["OneGP+NoGP", "uas"] == pytest.approx(100.0 * 6 / 17)
    assert partut.loc["ArcGP+GPArc", "uas_fractional"] == pytest.approx(100.0 * 5 / 9)
    # the looser polytopes' optima against the tightest's; OneGP's timeout left out of the comparison
    assert partut.loc["ArcGP+GPArc", "objective_rel_all_pct"] == pytest.approx(
        100.0 * (1.1 + 1 + 1.1 + 1) / 4
    )
    assert partut.loc["OneGP+NoGP", "objective_compared"] == 3
    assert partut.loc["OneGP+NoGP", "objective_differs"] == 2
    assert partut.loc["all", "lp_iterations_per_sent"] == 25.0
    assert partut["paper_speed_rel_pct"].tolist() == [100, 1000, 1200]
    assert partut["paper_integer_pct"].tolist() == [77, 9, 98]
    assert table[table["dataset"] == "szeged"]["polytope"].tolist() == ["all"]
    assert table[table["dataset"] == "szeged"]["paper_speed_rel_pct"].tolist() == [105]
    assert math.isnan(table[table["dataset"] == "szeged"]["speed_rel_arcgp_pct"].iloc[0])


def test_statistics(records):
    stats = tables.statistics(records, SETTINGS).set_index(["dataset", "variant"])
    assert stats.loc[("partut", "ppc-paper"), "lp_solves_mean"] == 2  # the paper's pricing, its own row
    stats = stats.xs("ppc", level="variant")
    partut = stats.loc["partut"]
    assert partut["sentences"] == 4 and partut["timeouts"] == 1 and partut["certified_pct"] == 75.0
    assert partut["lp_solves_mean"] == pytest.approx(10 / 3)
    assert partut["lp_solves_median"] == 3 and partut["lp_solves_max"] == 5
    assert partut["columns_priced_mean"] == 2 and partut["cuts_mean"] == 1
    assert partut["parts_scored_mean"] == pytest.approx(14 / 3) and partut[
        "parts_added_mean"
    ] == pytest.approx(8 / 3)
    assert partut["bf_parts_mean"] == (12 + 36 + 80 + 150) / 4 and partut["bf_parts_max"] == 150
    assert partut["words_mean"] == 4.5 and partut["bf_certified_pct"] == 100.0
    # phases: % of the 2 summed seconds (the killed sentence's second counts, its phases are unknown)
    assert partut["lp_pct"] == pytest.approx(15.0) and partut["pricing_pct"] == pytest.approx(7.5)
    assert partut["scoring_pct"] == 0.0
    assert list(stats.index) == ["partut", "szeged"]


def test_binned_medians_and_growth_exponent():
    words = pd.Series([1, 2, 5, 6, 7, 11])
    medians = tables.binned_medians(words, pd.Series([1.0, 3.0, 2.0, 10.0, 20.0, 5.0]))
    assert medians["sentences"].tolist() == [3, 2, 1]
    assert medians["value"].tolist() == [2.0, 15.0, 5.0]
    assert medians["words"].tolist() == [pytest.approx(8 / 3), 6.5, 11.0]
    logged = tables.binned_medians(
        pd.Series([1, 2, 3, 4, 5, 6, 7]), pd.Series([1.0] * 6 + [3.0]), log_ratio=1.25
    )
    assert logged["sentences"].tolist() == [1, 1, 1, 1, 1, 2]  # one bin per length up to 6 words
    assert logged["value"].tolist() == [1.0] * 5 + [2.0]
    n = pd.Series([5.0, 8.0, 13.0, 21.0, 3.0])
    assert tables.growth_exponent(n, n**3) == pytest.approx(3.0)
    assert tables.growth_exponent(n, n * (n - 1) ** 2) > 2.9
    assert math.isnan(tables.growth_exponent(pd.Series([5.0]), pd.Series([1.0])))


def test_write_ppc_outputs(tmp_path, peer):
    paths = []
    for frame in [*partut_runs(), *szeged_runs()]:
        path = tmp_path / "runs" / frame["dataset"].iloc[0] / f"{frame['variant'].iloc[0]}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_records(path, frame)
        paths.append(str(path))
    history = tmp_path / "models" / "partut" / "history.json"
    history.parent.mkdir(parents=True)
    history.write_text(json.dumps(HISTORY), encoding="utf-8")
    tables.write_ppc_outputs(
        paths, SETTINGS, peers=[str(peer)], histories=[str(history)], tables=tmp_path / "t",
        figures=tmp_path / "f",
    )  # fmt: skip
    training = pd.read_csv(tmp_path / "t" / "training.csv")
    assert training["dataset"].unique().tolist() == ["partut"] and training["kept"].sum() == 2
    for name in ("table1", "table2", "statistics", "audit", "training"):
        for suffix in (".csv", ".md", ".tex"):
            assert (tmp_path / "t" / f"{name}{suffix}").stat().st_size > 0
    table1 = pd.read_csv(tmp_path / "t" / "table1.csv")
    assert len(table1) == 8 + 3 and table1["timeouts"].sum() == 2
    md = (tmp_path / "t" / "table1.md").read_text(encoding="utf-8")
    assert (
        "punctuation excluded by form" in md
        and "TurboParser/AD3" in md
        and "limit 600 s per sentence; full-lp: 3600 s" in md
    )
    # the grandparent model's target, per dataset, with the cycle cuts' measurement where it is not met
    assert "partut: the grandparent LP (BF) has UAS 70.59 against the MST's 52.94" in md
    assert "Fractional: 1 sentences; with every violated cycle inequality added, 0 (100.0% integral" in md
    assert (
        "szeged: the grandparent LP (BF) has UAS 71.43 against the MST's 71.43 and is integral on 100.0% "
        in md
    )
    for name in ("time_vs_length.png", "bf_growth.png"):
        assert (tmp_path / "f" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


HISTORY = {  # a training history as decoders.ppc.pipeline.train_parsers writes it
    "first_order": {"best_epoch": 7, "dev_uas": 87.75, "seconds": 8.0, "epochs": []},
    "grandparent": {
        "best_epoch": 2,
        "seconds": 140.0,
        "epochs": [
            {"epoch": 1, "dev_uas": 87.6, "dev_integral_pct": 94.9},
            {"epoch": 2, "dev_uas": 87.7, "dev_integral_pct": 95.5},
            {"epoch": 3, "dev_uas": 87.8, "dev_integral_pct": 95.0},
        ],
    },
}


def test_training_table():
    table = tables.training_table({"partut": HISTORY})
    assert list(table.columns) == tables.TRAINING_COLUMNS
    assert table["model"].tolist() == ["first order (head classifier)"] + ["grandparent"] * 3
    assert table["kept"].tolist() == [True, False, True, False]
    assert table["dev_uas"].tolist() == [87.75, 87.6, 87.7, 87.8]
    assert table["seconds"].iloc[0] == 8.0 and table["seconds"].iloc[2] == 140.0  # each model's training
    assert table["seconds"].iloc[[1, 3]].isna().all()
    assert tables.training_table({}).empty


def test_audit_table(records):
    audit = tables.audit_table(records, SETTINGS).set_index("dataset")
    assert list(audit.index) == ["partut"]  # szeged has no audit records
    row = audit.loc["partut"]
    assert row["sentences"] == 4 and row["timeouts"] == 1 and row["audited"] == 3 and row["passed"] == 2
    assert row["parts_checked"] == 12 + 36 + 80
    assert row["max_reduced_cost_rel"] == pytest.approx(3e-6) and row["positive_reduced_costs"] == 1
    assert row["max_arcgp_violation"] == 5e-7


def _table1_rows(dataset: str, lp: dict, mst_uas: float, cycles: dict | None = None) -> list[dict]:
    rows = [
        {"dataset": dataset, "system": tables.SYSTEMS["bf"], **lp},
        {"dataset": dataset, "system": tables.SYSTEMS["mst"], "uas": mst_uas},
    ]
    if cycles is not None:
        rows.append({"dataset": dataset, "system": tables.SYSTEMS["bf_cycles"], **cycles})
    return rows


def test_model_notes_say_whether_the_target_is_met_and_the_measured_causes():
    table = pd.DataFrame(
        _table1_rows("ddt", {"uas": 87.2, "integer_pct": 96.0, "fractional": 4}, 87.0)
        + _table1_rows(
            "szeged",
            {"uas": 78.0, "integer_pct": 90.0, "fractional": 10},
            78.5,
            {"uas": 78.4, "integer_pct": 97.0, "fractional": 3},
        )
    )
    histories = {
        "szeged": {
            "first_order": {"dev_uas": 80.0},
            "grandparent": {
                "best_epoch": 2,
                "epochs": [{"epoch": 1, "dev_uas": 79.0}, {"epoch": 2, "dev_uas": 80.1}],
            },
        }
    }
    ddt, szeged = tables.model_notes(table, histories)
    assert ddt.startswith(
        "ddt: the grandparent LP (BF) has UAS 87.20 against the MST's 87.00"
    ) and ddt.endswith("met.")
    assert "not met." in szeged and "integral on 90.0%" in szeged
    assert "Fractional: 10 sentences" in szeged and "3 (97.0% integral, UAS 78.40)" in szeged
    assert "kept grandparent epoch has UAS 80.10 against the first-order model's 80.00" in szeged
    # no MST row: nothing to say; no cycle row or history: the target alone
    assert tables.model_notes(table[table["system"] != tables.SYSTEMS["mst"]], {}) == []
    alone = tables.model_notes(table[table["system"] != tables.SYSTEMS["bf_cycles"]], {})[1]
    assert alone.endswith("not met.")


def _uas_run(dataset: str, variant: str, correct: list[int | None]) -> pd.DataFrame:
    """Records of sentences of 5 scored words each (None: a killed timeout, no tree: its words still count)."""
    rows = []
    for i, c in enumerate(correct):
        solution = Solution(None if c is None else [0] * 5, 1.0, None, "optimal" if c is not None else "timeout",
                            {"words": 5})  # fmt: skip
        rows.append(
            make_record(
                experiment="ppc", dataset=dataset, variant=variant, params={}, instance_id=f"s{i}", size=125,
                seconds=0.1, solution=solution, evaluation={} if c is None else {"correct": c, "total": 5},
            )
        )  # fmt: skip
    return records_frame(rows)


def test_the_seeds_table_and_what_it_says_of_table1(tmp_path):
    """szeged's parsers with seeds 13 (the run's: set "szeged"), 14 and 15, two sentences of 5 words: UAS by hand
    mst 60, 50, 70; ppc 70, 40, 80 (seed 14's second sentence a timeout, no tree); ppc - mst +10, -10, +10."""
    correct = {("szeged", "mst"): [3, 3], ("szeged", "ppc"): [4, 3], ("szeged.seed14", "mst"): [2, 3],
               ("szeged.seed14", "ppc"): [4, None], ("szeged.seed15", "mst"): [4, 3],
               ("szeged.seed15", "ppc"): [4, 4]}  # fmt: skip
    frames = {key: _uas_run(*key, c) for key, c in correct.items()}
    settings = {
        **SETTINGS,
        "seeds": {"datasets": ["szeged"], "variants": ["mst", "ppc"], "seeds": [13, 14, 15]},
    }
    histories = {"szeged": HISTORY, "szeged.seed14": {**HISTORY, "grandparent": {**HISTORY["grandparent"],
                                                                               "seconds": 260.0}}}  # fmt: skip
    records = tables.load_runs_frame(pd.concat(frames.values(), ignore_index=True))
    table = tables.seeds_table(records, settings, run_seed=13, histories=histories).set_index("variant")
    assert table.loc["mst", ["seed_13", "seed_14", "seed_15"]].tolist() == pytest.approx([60.0, 50.0, 70.0])
    assert table.loc["ppc", ["seed_13", "seed_14", "seed_15"]].tolist() == pytest.approx([70.0, 40.0, 80.0])
    assert table.loc["ppc", "range"] == pytest.approx(40.0) and table.loc["mst", "sd"] == pytest.approx(10.0)
    # training minutes: (8 + 140) s and (8 + 260) s, their mean
    assert table.loc["mst", "train_minutes_per_seed"] == pytest.approx((148 + 268) / 2 / 60)
    gain = table.loc["ppc - mst"]
    assert gain[["seed_13", "seed_14", "seed_15"]].tolist() == pytest.approx([10.0, -10.0, 10.0])
    (note,) = tables.seed_notes(table.reset_index())
    assert note.startswith(
        "szeged: ppc - mst over 3 seeds: mean +3.33 UAS points (sd 11.55, from -10.00 to +10.00)"
    )
    assert note.endswith("its sign is not the same on every seed.")
    assert tables.seed_notes(pd.DataFrame()) == ["not measured: config/ppc.yaml has no `seeds` entry"]
    # written by write_ppc_outputs from the run's records and the seed study's
    paths = {}
    for (dataset, variant), frame in frames.items():
        path = tmp_path / "runs" / dataset / f"{variant}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_records(path, frame)
        paths[dataset, variant] = str(path)
    seed_history = tmp_path / "models" / "szeged.seed14" / "history.json"
    seed_history.parent.mkdir(parents=True)
    seed_history.write_text(json.dumps(HISTORY), encoding="utf-8")
    run_paths = [p for (dataset, _), p in paths.items() if dataset == "szeged"]
    tables.write_ppc_outputs(
        run_paths, {**settings, "datasets": ["szeged"]}, peers=[], tables=tmp_path / "t", figures=tmp_path / "f",
        seed_runs=[p for p in paths.values() if p not in run_paths], seed_histories=[str(seed_history)],
        run_seed=13,
    )  # fmt: skip
    written = pd.read_csv(tmp_path / "t" / "seeds.csv").set_index("variant")
    assert written.loc["ppc - mst", "seeds"] == 3 and "sign is not the same" in (
        tmp_path / "t" / "seeds.md"
    ).read_text(encoding="utf-8")


def test_the_seed_study_names_datasets_and_variants_of_ppc():
    from decoders.errors import ConfigError
    from decoders.ppc.settings import problems, seed_sets

    ppc = {"datasets": ["szeged"], "variants": {"mst": {}, "ppc": {}},
           "seeds": {"datasets": ["szeged"], "variants": ["mst", "ppc"], "seeds": [13, 14]}}  # fmt: skip
    assert problems(ppc) == [] and seed_sets(ppc, 13) == {"szeged.seed14": ("szeged", 14)}
    wrong = {**ppc, "seeds": {"datasets": ["ddt"], "variants": ["bf"], "seeds": [1, 2]}}
    assert problems(wrong) == [
        "experiments.ppc.seeds.datasets: 'ddt' is not one of experiments.ppc.datasets",
        "experiments.ppc.seeds.variants: 'bf' is not one of experiments.ppc.variants",
    ]
    assert problems({"datasets": ["szeged"], "variants": {}}) == []
    with pytest.raises(ConfigError, match="experiments.ppc"):
        problems(["szeged"])


def _spread(row: pd.Series, column: str) -> tuple[float, float]:
    return row[f"{column}_lo"], row[f"{column}_hi"]


def test_table1_speed_intervals_from_sentences_alone(records):
    """Without noise records the interval is the sentence bootstrap's: a ratio that is the same on every sentence
    has no spread; one that varies has some, around its estimate; a BF's own 100 is no measurement."""
    partut = tables.table1(records, SETTINGS).query("dataset == 'partut'").set_index("variant")
    assert _spread(partut.loc["mst"], "speed_rel_bf_pct") == pytest.approx((10000.0, 10000.0))  # 1 s / 0.01 s
    assert _spread(partut.loc["full-lp-cycles"], "speed_rel_bf_pct") == pytest.approx((100.0, 100.0))
    low, high = _spread(partut.loc["ppc"], "speed_rel_bf_pct")  # per sentence 4x, 4x, 2x, 1x; 2x in all
    assert 100.0 <= low < 200.0 < high <= 400.0
    assert all(math.isnan(v) for v in _spread(partut.loc["full-lp"], "speed_rel_bf_pct"))
    assert all(math.isnan(v) for v in _spread(partut.loc["full-lp-paper"], "speed_rel_bf_paper_pct"))
    # BF over the paper-row BF's 2, 2, 2 and 4 s: resamples of the four sentences without s3 (probability
    # (3/4)^4 = 32%) give 200%; s3 drawn 4 times (0.4%) gives 400%, 3 times (4.7%) 14 s / 4 s = 350%
    assert _spread(partut.loc["full-lp"], "speed_rel_bf_paper_pct") == pytest.approx((200.0, 350.0))


def _noise(records: pd.DataFrame, slower: float) -> pd.DataFrame:
    """Two noise processes on partut's s0 and s1 with BF and PPC: the first times them as the run did, the second
    ``slower`` times slower for PPC."""
    sample = records[
        (records["dataset"] == "partut")
        & records["variant"].isin(["full-lp", "ppc"])
        & records["instance_id"].isin(["s0", "s1"])
    ]
    again = sample.copy()
    again.loc[again["variant"] == "ppc", "seconds"] *= slower
    return pd.concat([sample.assign(process=1), again.assign(process=2)], ignore_index=True)


def test_table1_speed_intervals_widen_with_the_run_to_run_noise(records):
    alone = tables.table1(records, SETTINGS).set_index(["dataset", "variant"]).loc[("partut", "ppc")]
    steady = tables.table1(records, SETTINGS, noise=_noise(records, 1.0))
    steady = steady.set_index(["dataset", "variant"]).loc[("partut", "ppc")]
    noisy = tables.table1(records, SETTINGS, noise=_noise(records, 2.0))
    noisy = noisy.set_index(["dataset", "variant"]).loc[("partut", "ppc")]
    # three processes alike (the run and two retimings): no noise term, the sentence bootstrap's interval
    assert _spread(steady, "speed_rel_bf_pct") == pytest.approx(_spread(alone, "speed_rel_bf_pct"))
    low, high = _spread(noisy, "speed_rel_bf_pct")
    assert low < alone["speed_rel_bf_pct_lo"] and high > alone["speed_rel_bf_pct_hi"]
    assert noisy["speed_rel_bf_pct"] == alone["speed_rel_bf_pct"] == 200.0  # the estimate is the run's


def test_the_peers_interval_resamples_its_sentences(records, peer):
    table = tables.table1(records, SETTINGS, {"partut": peer}).set_index("variant")
    assert all(math.isnan(v) for v in _spread(table.loc["udpipe"], "speed_rel_bf_pct"))  # one total only
    frame = pd.read_parquet(peer).assign(seconds=[0.01, 0.01, 0.02, 0.04])
    frame.to_parquet(peer)
    udpipe = tables.table1(records, SETTINGS, {"partut": peer}).set_index("variant").loc["udpipe"]
    low, high = _spread(udpipe, "speed_rel_bf_pct")  # BF's 1 s a sentence over 10-40 ms: 2500-10000%
    assert 2500.0 <= low < 5000.0 < high <= 10000.0


def test_table2_speed_intervals(records):
    partut = tables.table2(records, SETTINGS).query("dataset == 'partut'").set_index("variant")
    assert _spread(partut.loc["onegp"], "speed_rel_arcgp_pct") == pytest.approx((400.0, 400.0))
    assert _spread(partut.loc["full-lp"], "speed_rel_arcgp_pct") == pytest.approx((200.0, 200.0))
    assert all(math.isnan(v) for v in _spread(partut.loc["arcgp"], "speed_rel_arcgp_pct"))
