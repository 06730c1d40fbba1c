"""bnb Table 3's speed ratios (each k against no pruning, B&B against the UDPipe peer) and their 95% intervals."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from decoders.harness.protocol import Solution
from decoders.harness.records import make_record, records_frame
from decoders.tables import bnb as bnb_tables
from decoders.tables.intervals import ratio_interval

SETTINGS = {
    "datasets": ["wsj"],
    "table3": {"model": "full", "variant": "bnb", "pruning": [10, None]},
    "harness": {"time_limit": 10, "noise": {"sample": 3, "processes": 2}},
}


def _records(dataset: str, seconds: list[float], variant: str = "bnb") -> pd.DataFrame:
    rows = [
        make_record(
            experiment="bnb", dataset=dataset, variant=variant, instance_id=f"s{i}", size=5, seconds=s,
            params={}, solution=Solution([0] * 5, 1.0, 1.0, "optimal", {"words": 5}),
            evaluation={"correct": 4, "total": 4},
        )
        for i, s in enumerate(seconds)
    ]  # fmt: skip
    return records_frame(rows)


K10 = [0.010, 0.020, 0.015, 0.030, 0.012, 0.018]
UNPRUNED = [0.050, 0.090, 0.040, 0.200, 0.060, 0.070]
PEER = [0.002, 0.003, 0.001, 0.004, 0.002, 0.002]


def _run() -> pd.DataFrame:
    return bnb_tables.load_runs_frame(
        pd.concat([_records("wsj~full~k10", K10), _records("wsj~full~unpruned", UNPRUNED)])
    )


def _peer(tmp_path, seconds: list[float] | None = PEER):
    path = tmp_path / "wsj" / "udpipe.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame({"instance_id": [f"s{i}" for i in range(6)], "words": 5, "correct": 3, "total": 4})
    if seconds is not None:
        frame["seconds"] = seconds
    frame.to_parquet(path)
    total = sum(seconds or PEER)
    path.with_suffix(".json").write_text(json.dumps({"words_per_s": 30 / total}), encoding="utf-8")
    return {"wsj": path}


def _noise() -> pd.DataFrame:
    """Two noise processes, each timing the sample s0-s2 of both sets again (raw records: the set in `dataset`)."""
    frames = []
    for process, scale in ((1, 1.3), (2, 0.8)):
        k10 = _records("wsj~full~k10", [s * scale for s in K10[:3]])
        unpruned = _records("wsj~full~unpruned", UNPRUNED[:3])
        frames.append(pd.concat([k10, unpruned]).assign(process=process))
    return pd.concat(frames, ignore_index=True)


def test_table3_speed_ratios_are_ratios_of_summed_seconds_on_the_same_sentences(tmp_path):
    table = bnb_tables.table3(_run(), SETTINGS, _peer(tmp_path)).set_index("system")
    k10, unpruned, peer = table.loc["full B&B k = 10"], table.loc["full B&B no pruning"], table.iloc[-1]
    assert k10["vs_unpruned"] == pytest.approx(sum(UNPRUNED) / sum(K10))
    assert k10["vs_unpruned"] == pytest.approx(k10["words_per_s"] / unpruned["words_per_s"])
    assert k10["vs_udpipe"] == pytest.approx(sum(PEER) / sum(K10))
    assert peer["vs_unpruned"] == pytest.approx(sum(UNPRUNED) / sum(PEER))
    assert k10["vs_unpruned_lo"] <= k10["vs_unpruned"] <= k10["vs_unpruned_hi"]
    assert k10["vs_udpipe_lo"] <= k10["vs_udpipe"] <= k10["vs_udpipe_hi"]
    assert peer["vs_unpruned_lo"] <= peer["vs_unpruned"] <= peer["vs_unpruned_hi"]
    # a row against itself is 1, with no interval (no measurement)
    assert unpruned["vs_unpruned"] == 1.0 and math.isnan(unpruned["vs_unpruned_lo"])
    assert peer["vs_udpipe"] == 1.0 and math.isnan(peer["vs_udpipe_hi"])


def test_table3_interval_adds_the_noise_jobs_term(tmp_path):
    run, noise = _run(), _noise()
    quiet = bnb_tables.table3(run, SETTINGS, _peer(tmp_path)).set_index("system").loc["full B&B k = 10"]
    noisy = (
        bnb_tables.table3(run, SETTINGS, _peer(tmp_path), noise=noise)
        .set_index("system")
        .loc["full B&B k = 10"]
    )
    # the same interval computed directly: the run's own log ratio on the sample joins the two processes'
    index = [f"s{i}" for i in range(6)]
    numerators, denominators = pd.Series(UNPRUNED, index=index), pd.Series(K10, index=index)
    logs = [math.log(sum(UNPRUNED[:3]) / (scale * sum(K10[:3]))) for scale in (1.3, 0.8, 1.0)]
    expected = ratio_interval(numerators, denominators, logs, seed=0)
    assert (noisy["vs_unpruned_lo"], noisy["vs_unpruned_hi"]) == pytest.approx((expected.low, expected.high))
    assert (
        noisy["vs_unpruned_hi"] - noisy["vs_unpruned_lo"] > quiet["vs_unpruned_hi"] - quiet["vs_unpruned_lo"]
    )
    assert noisy["vs_unpruned"] == quiet["vs_unpruned"]
    # UDPipe is not timed again: its ratio's interval is the bootstrap's alone
    assert (noisy["vs_udpipe_lo"], noisy["vs_udpipe_hi"]) == (quiet["vs_udpipe_lo"], quiet["vs_udpipe_hi"])


def test_table3_without_the_peers_seconds_or_the_unpruned_run(tmp_path):
    table = bnb_tables.table3(_run(), SETTINGS, _peer(tmp_path, None))
    assert table["vs_udpipe_lo"].isna().all() and np.isnan(table.loc[0, "vs_udpipe"])
    k10_only = bnb_tables.load_runs_frame(_records("wsj~full~k10", K10))
    row = bnb_tables.table3(k10_only, SETTINGS, {}).iloc[0]
    assert math.isnan(row["vs_unpruned"]) and math.isnan(row["vs_unpruned_lo"])


def test_speed_sides_read_run_and_noise_records_alike():
    faster, slower = ("wsj~full~k10", "bnb"), ("wsj~full~unpruned", "bnb")
    over, under = bnb_tables.speed_sides(_run(), faster, slower)
    assert over.tolist() == UNPRUNED and under.tolist() == K10
    raw = _noise()
    over, under = bnb_tables.speed_sides(raw[raw["process"] == 1], faster, slower)
    assert list(over.index) == ["s0", "s1", "s2"] and under.tolist() == pytest.approx(
        [s * 1.3 for s in K10[:3]]
    )
    assert bnb_tables.speed_sides(_run(), faster, ("wsj", "udpipe")) is None
