"""A table row says what its numbers cover and how they were timed (decoders.tables.coverage), in every
experiment's tables: a variant's errors and timeouts are counted from its records' status, a row with some is
marked partial, a per-call row beside compiled-loop rows says so, and its speed-up is taken in one clock."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from decoders.tables.captions import caption
from decoders.tables.chains import table1, table2a, table2b, variant_summary
from decoders.tables.coverage import (
    CALL,
    FAILED,
    LOOP,
    MIXED,
    PARTIAL,
    coverage,
    failures,
    ratio_timing,
    timing_mode,
)
from decoders.tables.writers import write_table


def _record(variant, instance, seconds, status="optimal", stats=None, dataset="d", **extra):
    """A result record of ``variant`` on instance ``s<instance>`` (``extra`` columns over the defaults); an
    error's has no structure, objective or evaluation."""
    row = {"experiment": "chains", "dataset": dataset, "variant": variant, "params": "{}",
           "instance_id": f"s{instance}", "size": 5, "seconds": seconds, "objective": 1.0, "bound": 1.0,
           "status": status, "structure": "[0]", "stats": json.dumps(stats or {}), "correct": 4.0,
           "total": 5.0} | extra  # fmt: skip
    if status == "error":  # no structure, hence no evaluation
        row.update(objective=np.nan, bound=np.nan, structure="null", correct=np.nan, total=np.nan)
        row["stats"] = json.dumps({"error": "ValueError: too long"})
    return row


def _described(experiment: str, key: str, table: pd.DataFrame) -> None:
    """The caption of ``experiment``'s ``key`` describes every coverage column ``table`` has (linking's Table
    1 describes a per-connection column under its ``_max`` name)."""
    if not isinstance(table.index, pd.RangeIndex):  # a test's view of it by row name
        table = table.reset_index()
    declared = set(caption(experiment, key).columns)
    shown = {c.replace("_min", "_max") for c in table.columns if c.startswith((FAILED, "errors", "timeouts"))}
    shown |= {c for c in table.columns if c in ("partial", "timing")}
    assert shown and shown <= declared, (experiment, key, sorted(shown - declared))
    with (
        tempfile.TemporaryDirectory() as folder
    ):  # and the table writes with it: it has every declared column
        write_table(table, Path(folder) / key, title=key, caption=caption(experiment, key))


def _looped(call, reference=None):
    """Stats of a sentence timed by a compiled loop (per-call time ``call``; the reference's beside it)."""
    return {"loop_repeats": 20, "call_seconds": call} | (
        {} if reference is None else {"reference_seconds": reference}
    )


def test_counts_marks_and_timing_modes_come_from_status_and_stats():
    group = pd.DataFrame(
        [
            _record("v", 0, 1.0, stats=_looped(2.0)),
            _record("v", 1, 1.0, status="error"),
            _record("v", 2, 9.0, status="timeout"),
            _record("v", 3, 1.0, status="timeout"),
        ]
    )
    assert failures(group) == {"errors": 1, "timeouts": 2}
    assert coverage(group) == {"errors": 1, "timeouts": 2, "partial": PARTIAL, "timing": LOOP}
    assert coverage(group, compact=True, timed=False) == {FAILED: "1/2", "partial": PARTIAL}
    full = group.iloc[:1]
    assert coverage(full) == {"errors": 0, "timeouts": 0, "partial": "", "timing": LOOP}
    # the mode over the finished records; a per-call one among loop ones makes the row mixed
    per_call = pd.DataFrame([_record("v", 0, 1.0), _record("v", 1, 1.0, stats={"iterations": 2})])
    assert timing_mode(per_call) == CALL
    assert timing_mode(pd.concat([full, per_call])) == MIXED
    assert timing_mode(group.iloc[1:2]) == CALL  # nothing finished: no loop ran
    assert ratio_timing(CALL, LOOP) == "call (ratio vs loop)" and ratio_timing(LOOP, LOOP) == LOOP
    assert (
        ratio_timing(CALL, "") == CALL
        and ratio_timing(LOOP, LOOP, CALL, MIXED) == "loop (ratio vs call, loop+call)"
    )


def _chains_run():
    """Viterbi and CG timed by loops (CG beside Viterbi), on 4 sentences."""
    rows = []
    for i in range(4):
        rows.append(_record("viterbi", i, 2.0, stats=_looped(5.0)))
        rows.append(_record("cg", i, 1.0, stats=_looped(4.0, reference=2.5)))
    return rows


def test_chains_table1_shows_a_failing_variant_and_a_per_call_one_in_one_clock():
    """The issue's case: a decoder that raises on long sentences shows its errors and the partial mark; one
    without a compiled loop is timed per call, says so, and its speed-up is over Viterbi's per-call time."""
    full = pd.DataFrame(_chains_run())
    rows = _chains_run()
    # greedy: per call, 1 s a sentence (no loop); fails: raises on 3 of 4 sentences, fast
    rows += [_record("greedy", i, 1.0, stats={"iterations": 1}) for i in range(4)]
    rows += [_record("fails", 0, 1.0)] + [_record("fails", i, 0.01, status="error") for i in (1, 2, 3)]
    records = pd.DataFrame(rows)
    summary = variant_summary(records).set_index("variant")
    assert summary.loc["fails", ["errors", "timeouts", "partial", FAILED]].tolist() == [3, 0, PARTIAL, "3/0"]
    assert summary.loc["greedy", ["errors", "partial", "timing"]].tolist() == [0, "", CALL]
    assert summary.loc["cg", "timing"] == LOOP and summary.loc["viterbi", "timing"] == LOOP
    # greedy against Viterbi's single calls (5 s), not its loop (2 s); cg paired in its loop
    assert summary.loc["greedy", "speedup"] == pytest.approx(5.0)
    assert summary.loc["greedy", "speedup"] == summary.loc["greedy", "call_speedup"]
    assert summary.loc["cg", "speedup"] == pytest.approx(2.5)
    # the full rows are the same with or without the other two variants beside them
    alone = variant_summary(full).set_index("variant")
    pd.testing.assert_frame_equal(summary.loc[["viterbi", "cg"]], alone)
    table = table1(summary.reset_index(), ["d"], [], ["viterbi", "cg", "greedy", "fails"]).set_index(
        "variant"
    )
    assert table.loc["fails", ["sentences", "errors", "timeouts", "partial"]].tolist() == [4, 3, 0, PARTIAL]
    assert table.loc["greedy", "timing"] == CALL and table.loc["cg", "partial"] == ""
    _described("chains", "table1", table)
    oracles = variant_summary(records.assign(variant=records["variant"].replace({"fails": "cg-01"})))
    _described("chains", "table2", table2a(oracles, ["d"], [], records))
    _described(
        "chains", "table2b", table2b(summary.reset_index().replace({"variant": {"fails": "cg-alpha"}}), ["d"])
    )


def _titles(rows):
    """titles records of (variant, title, seconds, status, stats)."""
    return pd.DataFrame(
        _record(variant, i, seconds, status, stats, experiment="titles", rouge_l=0.5, k=2, objective=-1.0)
        | ({"rouge_l": np.nan} if status == "error" else {})
        for variant, i, seconds, status, stats in rows
    )


def test_titles_table1_marks_a_failing_variant_and_a_speedup_across_clocks():
    from decoders.tables.titles import table1 as titles_table1

    settings = {"exact": "ilp", "runs": ["ilp", "beam-1", "mine"]}
    rows = [("ilp", i, 1.0, "optimal", None) for i in range(3)]
    rows += [("beam-1", i, 0.5, "feasible", None) for i in range(3)]
    rows += [("mine", 0, 0.1, "feasible", _looped(0.2)), ("mine", 1, 0.001, "error", None)]
    rows += [("mine", 2, 5.0, "timeout", None)]
    table = titles_table1(_titles(rows), settings).set_index("variant")
    assert table.loc["mine", ["titles", "errors", "timeouts", "partial"]].tolist() == [3, 1, 1, PARTIAL]
    assert table.loc["mine", "timing"] == "loop (ratio vs call)"
    assert table.loc["beam-1", ["errors", "timeouts", "partial", "timing"]].tolist() == [0, 0, "", CALL]
    assert table.loc["beam-1", "speedup_vs_ilp"] == pytest.approx(2.0)
    _described("titles", "table1", table)


def _linking(variant, instance, status="feasible", fair=1.0, objective=2.0):
    row = _record(variant, instance, 0.1, status, experiment="linking", fair=fair, k=2, objective=objective)
    row["structure"] = "[0, 1]" if status != "error" else "null"
    if status == "error":
        row.update(fair=np.nan, objective=np.nan)
    algorithm, connection = variant.rsplit("-", 1)
    return row | {"algorithm": algorithm, "connection": connection}


def test_linking_tables_count_a_variants_failures_and_compare_finished_choices_only():
    from decoders.tables.linking import jaccard, ratios, sweep_table
    from decoders.tables.linking import table1 as linking_table1

    rows = [
        _linking(f"{a}-{c}", i)
        for a in ("degree", "hitting-distance")
        for c in ("max", "min")
        for i in (0, 1)
    ]
    rows += [_linking("mine-max", 0, fair=2.0), _linking("mine-max", 1, "error")]
    rows += [_linking("mine-min", 0, fair=2.0), _linking("mine-min", 1, "timeout", fair=2.0)]
    rows[1] = _linking("degree-max", 1, "error")  # degree fails on one document of the maximal connection
    records = pd.DataFrame(rows)
    truth = records.iloc[:0][["dataset", "instance_id", "algorithm", "connection", "objective", "fair", "k"]]
    table = linking_table1(ratios(records, truth.assign(status=pd.Series(dtype=str)))).set_index("algorithm")
    assert table.loc["mine", [f"{FAILED}_max", f"{FAILED}_min", "partial"]].tolist() == [
        "1/0",
        "0/1",
        PARTIAL,
    ]
    assert table.loc["mine", "value_max"] == 1.0  # over the document it finished; both given
    assert table.loc["mine", "documents_max"] == 2
    assert table.loc["hitting-distance", [f"{FAILED}_max", "partial"]].tolist() == ["0/0", ""]
    _described("linking", "table1", table)
    agree = jaccard(records).set_index("connection")
    assert agree.loc["maximal", "documents"] == 1 and agree.loc["minimal", "documents"] == 2
    sweep = pd.DataFrame(
        {"dataset": "d", "instance_id": ["s0", "s1"], "algorithm": "mine", "candidates": 3,
         "connection": "max", "value": [1.0, np.nan], "cost": [2.0, np.nan], "k": 2, "outside": 0,
         "status": ["feasible", "error"]}
    )  # fmt: skip
    assert sweep_table(sweep).loc[0, [FAILED, "partial", "documents"]].tolist() == ["1/0", PARTIAL, 2]
    _described("linking", "sweep", sweep_table(sweep))


def _parsed(dataset, variant, statuses, stats=None):
    """bnb records (6-word sentences, 4 scored words) of the given statuses; an error has no tree."""
    rows = []
    for i, status in enumerate(statuses):
        row = _record(
            variant, i, 0.1, status, stats, dataset=dataset, experiment="bnb", size=6, correct=3.0, total=4.0
        )
        if status == "timeout":
            row.update(structure="null", correct=np.nan, total=np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def test_bnb_tables_show_failures_the_partial_mark_and_the_timing_modes(tmp_path):
    from decoders.tables import bnb as bnb_tables

    settings = {
        "datasets": ["wsj"], "k": 10, "table2": {"full": "bnb"}, "epochs": 6, "factor_epochs": 3,
        "start_from": "baseline", "models": {"baseline": {"order": 2}, "full": {"groups": ["comb"]}},
        "table3": {"model": "full", "variant": "bnb", "pruning": [10, None]},
        "variants": {"bnb": {"decoder": "bnb"}},
    }  # fmt: skip
    records = pd.concat(
        [
            _parsed("wsj~full~k10", "bnb", ["optimal", "error", "timeout", "optimal"]),
            _parsed("wsj~full~unpruned", "bnb", ["optimal"] * 4, _looped(0.3)),
        ]
    )
    frame = bnb_tables.load_runs_frame(records)
    table2 = bnb_tables.table2(frame, settings).set_index("model")
    assert table2.loc["full", [FAILED, "partial", "timing"]].tolist() == ["1/1", PARTIAL, CALL]
    assert table2.loc["full", "uas"] == pytest.approx(
        100 * 6 / 16
    )  # the failed sentences' words count, wrong
    table3 = bnb_tables.table3(frame, settings, {}).set_index("system")
    assert table3.loc["full B&B k = 10", [FAILED, "partial"]].tolist() == ["1/1", PARTIAL]
    assert table3.loc["full B&B k = 10", "timing"] == "call (ratio vs loop)"  # against the loop-timed row
    assert table3.loc["full B&B no pruning", [FAILED, "partial", "timing"]].tolist() == ["0/0", "", LOOP]
    # beside the UDPipe peer (timed per parser call): every B&B row's ratio to it is named
    peer = tmp_path / "udpipe.parquet"
    ids = [f"s{i}" for i in range(4)]
    pd.DataFrame({"instance_id": ids, "correct": 3, "total": 4, "seconds": 0.01}).to_parquet(peer)
    peer.with_suffix(".json").write_text(json.dumps({"words_per_s": 600.0}), encoding="utf-8")
    table3 = bnb_tables.table3(frame, settings, {"wsj": peer}).set_index("system")
    assert table3.loc["full B&B no pruning", "timing"] == "loop (ratio vs call)"
    assert table3.loc["UDPipe 1 (peer; paper: TurboParser full)", [FAILED, "partial", "timing"]].tolist() == [
        "",
        "",
        "call (ratio vs loop)",
    ]
    stats = bnb_tables.statistics(frame, settings).set_index("pruning")
    assert stats.loc["k10", ["errors", "timeouts", "partial", "timing"]].tolist() == [1, 1, PARTIAL, CALL]
    assert stats.loc["unpruned", ["errors", "partial", "timing"]].tolist() == [0, "", LOOP]
    for key, table in (("table2", table2), ("table3", table3), ("statistics", stats)):
        _described("bnb", key, table)


def test_ppc_tables_mark_a_partial_row_and_a_ratio_across_clocks():
    from decoders.tables import ppc as ppc_tables

    settings = {
        "datasets": ["d"],
        "variants": {
            "bf": {"decoder": "full-lp"},
            "ppc": {"decoder": "ppc"},
            "audit": {"decoder": "ppc-audit"},
        },
    }
    stats = {"words": 5, "parts_scored": 10, "parts_added": 4, "integral": True, "lp_solves": 2}
    records = pd.concat(
        [
            _parsed("d", "bf", ["optimal"] * 3, stats),
            _parsed("d", "ppc", ["optimal", "timeout", "error"], stats | _looped(0.2)),
            _parsed("d", "audit", ["optimal", "optimal", "error"], stats),
        ]
    )
    frame = ppc_tables.load_runs_frame(records)
    table1 = ppc_tables.table1(frame, settings).set_index("variant")
    assert table1.loc["ppc", ["timeouts", "errors", "partial"]].tolist() == [1, 1, PARTIAL]
    assert table1.loc["ppc", "timing"] == "loop (ratio vs call)"
    assert table1.loc["bf", ["timeouts", "errors", "partial", "timing"]].tolist() == [0, 0, "", CALL]
    statistics = ppc_tables.statistics(frame, settings).set_index("variant")
    assert statistics.loc["ppc", ["errors", "timeouts", "partial"]].tolist() == [1, 1, PARTIAL]
    audit = ppc_tables.audit_table(frame, settings).set_index("variant")
    assert audit.loc["audit", ["errors", "timeouts", "partial"]].tolist() == [1, 0, PARTIAL]
    for key, table in (("table1", table1), ("statistics", statistics), ("audit", audit)):
        _described("ppc", key, table)


def test_seeds_tables_count_a_variants_failures_over_every_seed():
    from decoders.tables.chains import seeds_table

    rows = [
        _record(v, i, 1.0, dataset=d)
        for d in ("wsj", "wsj~ssvm.seed14")
        for v in ("viterbi", "mine")
        for i in (0, 1)
    ]
    rows[-1] = _record("mine", 1, 1.0, "error", dataset="wsj~ssvm.seed14")
    settings = {
        "model": "ssvm",
        "seeds": {"datasets": ["wsj"], "variants": ["viterbi", "mine"], "seeds": [13, 14]},
    }
    table = seeds_table(pd.DataFrame(rows), settings, 13).set_index(["measure", "variant"])
    assert (
        table.loc[("token_acc", "mine"), FAILED] == "1/0"
        and table.loc[("exact_pct", "mine"), FAILED] == "1/0"
    )
    assert table.loc[("token_acc", "viterbi"), FAILED] == "0/0"
    assert table.loc[("token_acc", "mine - viterbi"), FAILED] == ""
    _described("chains", "seeds", table)
    assert FAILED in caption("bnb", "seeds").columns and FAILED in caption("ppc", "seeds").columns
