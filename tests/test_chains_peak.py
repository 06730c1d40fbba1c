"""Chains: the measured peaks of Viterbi's work (decoders.chains.peak), the viterbi-peak profile and its table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from decoders.chains import peak
from decoders.chains.decoders import decode_viterbi, decode_viterbi_peak
from decoders.chains.instance import ChainInstance, ChainScores
from decoders.chains.viterbi import _padded_tau
from decoders.errors import ConfigError
from decoders.tables.chains import viterbi_peak


def test_the_multiply_chain_computes_its_product():
    """Every multiply of the chain is done (the clock counts them): x * k ** (passes * UNROLL), wrapping."""
    for passes, x, k in ((1, 3, 5), (4, 7, 3), (100, 3, 0x5851F42D4C957F2D)):
        expected = x * pow(k, passes * peak.UNROLL, 2**64) % 2**64
        expected -= 2**64 if expected >= 2**63 else 0
        assert peak._multiply_chain(passes, x, k) == expected


def test_the_register_chains_compute_their_add_and_max():
    """acc = max(acc - 0.5, start), from start + k on chain k, every lane: the sum after p passes."""
    for passes, start in ((1, 1.0), (3, -2.0), (50, 10.0)):
        steps = passes * peak.UNROLL
        expected = sum(max(start + k - 0.5 * steps, start) for k in range(peak.CHAINS)) * peak.LANES
        assert peak._register_loop(passes, start) == expected


def test_the_max_plus_kernel_is_the_max_plus_product():
    rng = np.random.default_rng(3)
    for n, n_labels, pad in ((2, 1, 1), (5, 7, 8), (9, 45, 4), (4, 13, 16)):
        theta = rng.integers(-3, 4, size=(n, n_labels)).astype(np.float64)
        tau = rng.integers(-2, 3, size=(n_labels, n_labels)).astype(np.float64)
        tau[rng.random(tau.shape) < 0.3] = -np.inf
        wide = _padded_tau(tau, pad)
        out = np.full((n, wide.shape[1]), np.nan)
        last = peak._max_plus_kernel(theta, wide, out)
        expected = (theta[:-1, :, None] + wide[None, :n_labels, :]).max(axis=1)  # (n - 1) x width
        np.testing.assert_array_equal(out[1:], expected)
        assert last == expected[-1, 0] or (np.isneginf(last) and np.isneginf(expected[-1, 0]))


def test_measure_gives_each_repeat_and_plausible_rates():
    rng = np.random.default_rng(1)
    theta = rng.normal(size=(6, 9))
    wide = _padded_tau(rng.normal(size=(9, 9)))
    found = peak.measure(theta, wide, 3, 1e-4)
    assert sorted(found) == ["clock_hz", "max_plus_seconds", "register_cells_per_second"]
    assert all(len(values) == 3 for values in found.values())
    assert 1e8 < np.median(found["clock_hz"]) < 2e10  # a core clock, not a timer's rate
    assert all(value > 0 and np.isfinite(value) for values in found.values() for value in values)
    # a vector add and maximum per cycle at most per lane and pipe: well under 64 cells per cycle
    assert np.median(found["register_cells_per_second"]) / np.median(found["clock_hz"]) < 64


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((np.zeros((1, 3)), np.zeros((4, 4)), 1, 1e-4), "theta"),
        ((np.zeros((3, 3), dtype=np.float32), np.zeros((4, 4)), 1, 1e-4), "theta"),
        ((np.zeros((3, 5)), np.zeros((4, 4)), 1, 1e-4), "tau"),
        ((np.zeros((3, 3)), np.zeros((4, 4)), 0, 1e-4), "repeats"),
        ((np.zeros((3, 3)), np.zeros((4, 4)), 1.5, 1e-4), "repeats"),
        ((np.zeros((3, 3)), np.zeros((4, 4)), 1, 0.0), "min_seconds"),
        ((np.zeros((3, 3)), np.zeros((4, 4)), 1, np.nan), "min_seconds"),
    ],
)
def test_measure_refuses_bad_arguments_by_name(args, name):
    with pytest.raises(ValueError, match=name):
        peak.measure(*args)


def instance(n: int, n_labels: int, seed: int = 0) -> ChainInstance:
    rng = np.random.default_rng(seed)
    tau = rng.integers(-2, 3, size=(n_labels, n_labels)).astype(np.float64)
    tau[0, 1] = -np.inf
    return ChainInstance(rng.integers(-3, 4, size=(n, n_labels)).astype(np.float64), ChainScores(tau))


def test_viterbi_peak_decodes_as_viterbi_and_records_the_measurements():
    sentence = instance(7, 11)
    found = decode_viterbi_peak(sentence, measurements=2, min_seconds=1e-4)
    expected = decode_viterbi(sentence)
    np.testing.assert_array_equal(found.structure, expected.structure)
    assert found.objective == expected.objective == found.bound and found.status == "optimal"
    stats = found.stats
    assert stats["cells"] == 6 * 11 * 11 and stats["labels"] == 11 and stats["width"] % peak.LANES == 0
    assert len(stats["clock_hz"]) == len(stats["max_plus_seconds"]) == 2
    # the timing loop the harness times is Viterbi's, on the same instance
    assert decode_viterbi_peak.timing_loop(sentence, 3, measurements=2) == 3 * expected.objective
    one = decode_viterbi_peak(instance(1, 4))
    assert one.stats["cells"] == 0 and "clock_hz" not in one.stats


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"measurements": 0}, "measurements"),
        ({"measurements": True}, "measurements"),
        ({"measurements": 2.0}, "measurements"),
        ({"min_seconds": -1.0}, "min_seconds"),
        ({"min_seconds": 2.0}, "min_seconds"),
        ({"min_seconds": "0.1"}, "min_seconds"),
    ],
)
def test_viterbi_peak_refuses_bad_parameters_by_name(params, name):
    with pytest.raises(ConfigError, match=name):
        decode_viterbi_peak(instance(3, 3), **params)


def record(dataset, instance_id, seconds, stats, status="optimal", variant="viterbi-peak"):
    return {
        "dataset": dataset,
        "variant": variant,
        "instance_id": instance_id,
        "size": 5,
        "seconds": seconds,
        "status": status,
        "stats": json.dumps(stats),
    }


def test_the_viterbi_peak_table_sets_viterbi_beside_both_peaks():
    """Cells per cycle at each sentence's median clock, ratios of totals; one-token sentences, per-call timings
    and failures left out; the shares' intervals hold their estimates."""
    ghz = 1e9
    rows = []
    for i, (cells, seconds, max_plus, register) in enumerate(
        [(1000, 1e-6, 0.5e-6, 4e9), (3000, 2e-6, 1.5e-6, 4e9), (2000, 2e-6, 1e-6, 4e9)]
    ):
        stats = {
            "cells": cells,
            "labels": 10,
            "width": 12,
            "clock_hz": [ghz, 0.1 * ghz, ghz],  # one stalled measurement: the median ignores it
            "max_plus_seconds": [max_plus, 9 * max_plus, max_plus],
            "register_cells_per_second": [register, register, register / 10],
            "loop_repeats": 20,
        }
        rows.append(record("d", i, seconds, stats))
    rows.append(record("d", 3, 1e-6, {"cells": 0, "labels": 10, "width": 12, "loop_repeats": 20}))
    rows.append(record("d", 4, 5.0, {"cells": 50, "labels": 10, "width": 12, "clock_hz": [ghz],
                                     "max_plus_seconds": [1e-9], "register_cells_per_second": [1e9]}))  # fmt: skip
    rows.append(record("d", 5, 1.0, {"error": "boom"}, status="error"))
    rows.append(record("d", 0, 1.0, {}, variant="viterbi"))
    table = viterbi_peak(pd.DataFrame(rows), seed=1).set_index("dataset")
    row = table.loc["d"]
    assert row["sentences"] == 3 and row["errors/timeouts"] == "1/0"
    assert row["labels"] == 10 and row["width"] == 12 and row["clock_ghz"] == 1.0
    assert row["viterbi_cpc"] == pytest.approx(6000 / 5000, abs=0.01)  # 6000 cells in 5000 cycles
    assert row["max_plus_cpc"] == pytest.approx(2.0, abs=0.01)  # 6000 cells in 3000 cycles
    assert row["register_cpc"] == pytest.approx(4.0, abs=0.01)
    assert row["viterbi_pct_of_max_plus"] == pytest.approx(60.0, abs=0.1)
    assert row["viterbi_pct_of_register"] == pytest.approx(30.0, abs=0.1)
    for name in ("max_plus", "register"):
        low, high = row[f"viterbi_pct_of_{name}_lo"], row[f"viterbi_pct_of_{name}_hi"]
        assert low <= row[f"viterbi_pct_of_{name}"] <= high
    assert row["viterbi_cpc_q1"] <= row["viterbi_cpc_q3"]
    empty = viterbi_peak(pd.DataFrame([record("e", 0, 1.0, {}, variant="cg")]))
    assert empty.empty and "viterbi_pct_of_max_plus" in empty.columns
