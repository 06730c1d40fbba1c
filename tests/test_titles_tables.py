"""titles tables on hand-made records: the share of titles each variant certified by itself, and the per-k
speed ratio of the certified colour-coding to the ILP (the note that says whether it is faster at every k)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from decoders.harness.records import records_frame
from decoders.tables.titles import CERTIFIED, ratio_by_k, table1
from decoders.titles.ilp import SOLVERS

SETTINGS = {"exact": "ilp-cp-sat", "runs": ["colour-coding", "colour-coding-certified", "ilp-cp-sat"]}


def _records(rows) -> pd.DataFrame:
    """Rows of (variant, instance, k, seconds, status, objective)."""
    return records_frame(
        {
            "experiment": "titles",
            "dataset": "toy",
            "variant": variant,
            "params": "{}",
            "instance_id": instance,
            "size": 10,
            "seconds": seconds,
            "status": status,
            "objective": objective,
            "bound": objective if status == "optimal" else None,
            "structure": "[0]",
            "stats": json.dumps({}),
            "rouge_l": 0.5,
            "k": k,
        }
        for variant, instance, k, seconds, status, objective in rows
    )


RECORDS = _records(
    [
        ("ilp-cp-sat", "a", 1, 0.1, "optimal", -1.0),
        ("ilp-cp-sat", "b", 2, 0.4, "optimal", -2.0),
        ("ilp-cp-sat", "c", 2, 0.2, "optimal", -3.0),
        ("colour-coding", "a", 1, 0.01, "feasible", -1.0),
        ("colour-coding", "b", 2, 0.9, "feasible", -2.0),
        ("colour-coding", "c", 2, 0.3, "feasible", -3.5),
        ("colour-coding-certified", "a", 1, 0.001, "optimal", -1.0),
        ("colour-coding-certified", "b", 2, 0.002, "optimal", -2.0),
        ("colour-coding-certified", "c", 2, 0.5, "feasible", -3.0),
    ]
)


def test_table1_gives_the_share_each_variant_certified_itself():
    table = table1(RECORDS, SETTINGS).set_index("variant")
    assert table["self_certified_pct"].to_dict() == pytest.approx(
        {"colour-coding": 0.0, "colour-coding-certified": 200.0 / 3, "ilp-cp-sat": 100.0}
    )
    # optimal_pct compares with the ILP's optimum, whoever certified it
    assert table.loc["colour-coding-certified", "optimal_pct"] == 100.0
    assert table.loc["colour-coding", "optimal_pct"] == pytest.approx(200.0 / 3)
    assert list(table.index) == SETTINGS["runs"]


def test_table1_gives_each_variants_speedup_over_the_ilp_with_its_interval():
    """The ILP's summed seconds over the variant's on the same titles; the interval widens with the spread that
    the noise jobs' processes measured (here two retimings of titles a and b)."""
    table = table1(RECORDS, SETTINGS).set_index("variant")
    assert table.loc["colour-coding", "speedup_vs_ilp"] == pytest.approx(0.7 / 1.21)
    assert table.loc["colour-coding-certified", "speedup_vs_ilp"] == pytest.approx(0.7 / 0.503)
    assert table.loc["ilp-cp-sat", "speedup_vs_ilp"] == 1.0 and pd.isna(
        table.loc["ilp-cp-sat", "speedup_vs_ilp_lo"]
    )
    row = table.loc["colour-coding"]
    assert row["speedup_vs_ilp_lo"] < row["speedup_vs_ilp"] < row["speedup_vs_ilp_hi"]
    noise = pd.concat(
        [
            RECORDS[RECORDS["instance_id"].isin(["a", "b"])].assign(
                seconds=lambda f, slow=slow: (
                    f["seconds"] * f["variant"].map({"ilp-cp-sat": slow}).fillna(1.0)
                ),
                process=process,
            )
            for process, slow in ((1, 0.5), (2, 2.0))
        ]
    )
    noisy = table1(RECORDS, SETTINGS, noise).set_index("variant").loc["colour-coding"]
    assert noisy["speedup_vs_ilp"] == row["speedup_vs_ilp"]
    assert (
        noisy["speedup_vs_ilp_lo"] < row["speedup_vs_ilp_lo"]
        and noisy["speedup_vs_ilp_hi"] > row["speedup_vs_ilp_hi"]
    )


def test_a_variant_censored_at_its_limit_prints_its_times_and_speedup_as_bounds():
    """A title at the time limit counts at its recorded seconds, below its true time: that variant's times are
    lower bounds and its speed-up over the ILP an upper bound; the ILP's own timeout makes every other variant's
    speed-up a lower bound (both: neither)."""
    table = table1(RECORDS, SETTINGS).set_index("variant")
    assert set(table["seconds_are"]) == {"exact"} and set(table["speedup_is"]) == {"exact"}
    censored = RECORDS.copy()
    censored.loc[(censored["variant"] == "colour-coding") & (censored["instance_id"] == "b"), "status"] = (
        "timeout"
    )
    table = table1(censored, SETTINGS).set_index("variant")
    assert (
        table.loc["colour-coding", "seconds_are"] == "lower bound"
        and table.loc["colour-coding", "timeouts"] == 1
    )
    assert table.loc["colour-coding", "speedup_is"] == "upper bound"
    assert table.loc["colour-coding-certified", ["seconds_are", "speedup_is"]].tolist() == ["exact", "exact"]
    censored.loc[(censored["variant"] == "ilp-cp-sat") & (censored["instance_id"] == "c"), "status"] = (
        "timeout"
    )
    table = table1(censored, SETTINGS).set_index("variant")
    assert table.loc["colour-coding", "speedup_is"] == "neither bound"
    assert table.loc["colour-coding-certified", "speedup_is"] == "lower bound"
    assert table.loc["ilp-cp-sat", ["seconds_are", "speedup_is"]].tolist() == ["lower bound", "exact"]


def test_ratio_by_k_takes_medians_per_length():
    by_k = ratio_by_k(RECORDS, "colour-coding-certified").set_index("k")
    assert by_k.loc[1, "ratio"] == pytest.approx(100.0)
    assert by_k.loc[2, "colour-coding-certified"] == pytest.approx(0.251)  # median of 0.002 and 0.5
    assert by_k.loc[2, "ratio"] == pytest.approx(0.3 / 0.251)
    assert ratio_by_k(RECORDS, "beam-1").empty  # a variant that did not run


def test_the_per_length_ratio_has_its_interval():
    """The slowest length's median ratio in the notes comes with a 95% interval that holds it (k = 2: titles b
    and c); a length no title has gives none."""
    from decoders.tables.titles import _k_interval

    text = _k_interval(RECORDS, None, 0, "toy", "colour-coding-certified", "ilp-cp-sat", 2)
    low, high = (float(x) for x in text.strip(" []").split(", "))
    assert low <= round(0.3 / 0.251, 1) <= high
    assert _k_interval(RECORDS, None, 0, "toy", "colour-coding-certified", "ilp-cp-sat", 7) == ""


def test_every_ilp_solver_has_a_table1_row_and_its_claims_are_cross_checked():
    """Each solver of the titles ILP (CP-SAT, SCIP, HiGHS) is a variant of config/titles.yaml, in Table 1's runs,
    and in CERTIFIED, so that every optimal claim of each is set against the others' on the same title."""
    titles = yaml.safe_load((Path(__file__).parents[1] / "config" / "titles.yaml").read_text())["titles"]
    assert set(SOLVERS) == {"cp-sat", "scip", "highs"}
    for solver in SOLVERS:
        name = f"ilp-{solver}"
        variant = titles["variants"][name]
        assert variant["decoder"] == "ilp" and variant["params"] == {"solver": solver}, name
        assert name in titles["runs"] and name in CERTIFIED.variants, name
