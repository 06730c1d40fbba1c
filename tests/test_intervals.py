"""Intervals of speed ratios: coverage on simulated timings with a known ratio, the noise term's effect, and the
pairing checks."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from decoders.tables.intervals import (
    bootstrap_log_ratios,
    paired_seconds,
    process_log_ratio,
    process_spread,
    ratio_interval,
    ratio_of_totals,
)
from decoders.tables.ratios import instance_seconds, records_interval, sides

TRUE_RATIO = 2.5
INSTANCE_SD = 0.3  # log-scale spread of one instance's ratio around the true one
DRIFT_SD = 0.1  # log-scale shift of a whole run's ratio (a process's speed, the machine's phase)
INSTANCES = 200
SAMPLE = 50
PROCESSES = 3


def simulated_run(seed: int, drift_sd: float) -> tuple[pd.Series, pd.Series, list[float], float]:
    """Variant and reference seconds of one run, the log ratios of ``PROCESSES`` retimings of a sample (plus the
    run's own on the sample), and the true ratio of expected totals."""
    rng = np.random.default_rng(seed)
    ids = [f"s{i}" for i in range(INSTANCES)]
    variant = np.exp(rng.normal(-10.0, 1.0, INSTANCES))
    ratio = np.exp(rng.normal(0.0, INSTANCE_SD, INSTANCES))

    def timed(drift: float) -> tuple[np.ndarray, np.ndarray]:
        jitter = np.exp(rng.normal(0.0, 0.02, (2, INSTANCES)))  # per-measurement noise
        return TRUE_RATIO * variant * ratio * math.exp(drift) * jitter[0], variant * jitter[1]

    reference, seconds = timed(rng.normal(0.0, drift_sd))
    sample = np.sort(rng.choice(INSTANCES, SAMPLE, replace=False))
    logs = [math.log(reference[sample].sum() / seconds[sample].sum())]
    for _ in range(PROCESSES):
        again_reference, again_seconds = timed(rng.normal(0.0, drift_sd))
        logs.append(math.log(again_reference[sample].sum() / again_seconds[sample].sum()))
    # E[sum reference] / E[sum variant] = TRUE_RATIO * E[exp(eta)] (eta independent of the variant's time)
    truth = TRUE_RATIO * math.exp(INSTANCE_SD**2 / 2)
    return pd.Series(reference, index=ids), pd.Series(seconds, index=ids), logs, truth


def coverage(drift_sd: float, with_noise: bool, runs: int = 200) -> float:
    covered = 0
    for seed in range(runs):
        reference, seconds, logs, truth = simulated_run(seed, drift_sd)
        interval = ratio_interval(reference, seconds, logs if with_noise else None, samples=1000, seed=seed)
        covered += interval.low <= truth <= interval.high
    return covered / runs


def test_intervals_cover_the_true_ratio_about_95_percent_of_the_time():
    share = coverage(DRIFT_SD, with_noise=True)
    assert 0.90 <= share <= 0.99, share


def test_without_run_to_run_noise_the_bootstrap_alone_covers_about_95_percent():
    share = coverage(0.0, with_noise=False)
    assert 0.89 <= share <= 0.99, share


def test_ignoring_measured_drift_undercovers_and_the_noise_term_widens_the_interval():
    assert coverage(DRIFT_SD, with_noise=False) < 0.8
    reference, seconds, logs, _ = simulated_run(7, DRIFT_SD)
    alone = ratio_interval(reference, seconds, None, seed=3)
    noisy = ratio_interval(reference, seconds, logs, seed=3)
    assert noisy.estimate == alone.estimate
    assert noisy.low < alone.low and noisy.high > alone.high


def test_ratio_of_totals_and_its_bootstrap_against_a_direct_computation():
    reference = pd.Series([4.0, 2.0, 6.0], index=["a", "b", "c"])
    seconds = pd.Series([1.0, 1.0, 2.0], index=["c", "a", "b"])  # another order: matched by id
    assert ratio_of_totals(reference, seconds) == pytest.approx(12.0 / 4.0)
    # a resample of the ids, by hand: replicate k sums reference and seconds over the same drawn ids
    replicates = bootstrap_log_ratios(reference, seconds, samples=50, seed=5)
    weights = np.random.default_rng(5).multinomial(3, [1 / 3] * 3, size=50)
    ref, sec = np.array([4.0, 2.0, 6.0]), np.array([1.0, 2.0, 1.0])  # seconds in reference's order a, b, c
    assert replicates == pytest.approx(np.log((weights @ ref) / (weights @ sec)))
    assert (bootstrap_log_ratios(reference, seconds, 50, 5) == replicates).all()  # deterministic


def test_products_of_totals_give_a_ratio_through_a_common_reference():
    # A timed beside reference r_a, B beside r_b: (r_a / A) / (r_b / B) = r_a * B / (A * r_b)
    ids = ["x", "y"]
    numerators = pd.DataFrame({"r_a": [2.0, 4.0], "b": [3.0, 3.0]}, index=ids)
    denominators = pd.DataFrame({"a": [1.0, 1.0], "r_b": [1.0, 2.0]}, index=ids)
    assert ratio_of_totals(numerators, denominators) == pytest.approx((6.0 / 2.0) / (3.0 / 6.0))


def test_process_spread_and_log_ratio():
    spread, freedom = process_spread([0.1, 0.2, 0.3])
    assert spread == pytest.approx(0.1) and freedom == 2
    assert process_log_ratio(pd.Series([2.0], index=["a"]), pd.Series([1.0], index=["a"])) == pytest.approx(
        math.log(2.0)
    )
    with pytest.raises(ValueError, match="at least two"):
        process_spread([0.1])
    with pytest.raises(ValueError, match="finite"):
        process_spread([0.1, math.nan])


@pytest.mark.parametrize(
    ("numerators", "denominators", "message"),
    [
        (
            pd.Series([1.0, 2.0], index=["a", "b"]),
            pd.Series([1.0, 2.0], index=["a", "c"]),
            "only in numerators: \\['b'\\]",
        ),
        (pd.Series([], dtype=float), pd.Series([], dtype=float), "numerators: no instances"),
        (pd.Series([1.0, 2.0], index=["a", "a"]), pd.Series([1.0], index=["a"]), "repeat: a"),
        (
            pd.Series([1.0, math.nan], index=["a", "b"]),
            pd.Series([1.0, 1.0], index=["a", "b"]),
            "instance 'b'",
        ),
        (pd.Series([1.0, 1.0], index=["a", "b"]), pd.Series([0.0, 1.0], index=["a", "b"]), "holds 0.0"),
    ],
)
def test_mismatched_empty_and_invalid_seconds_are_refused(numerators, denominators, message):
    with pytest.raises(ValueError, match=message):
        paired_seconds(numerators, denominators)
    with pytest.raises(ValueError, match=message):
        ratio_interval(numerators, denominators, [0.0, 0.1])


def test_bad_arguments_are_named():
    one = pd.Series([1.0], index=["a"])
    with pytest.raises(ValueError, match="samples"):
        bootstrap_log_ratios(one, one, samples=0)
    with pytest.raises(ValueError, match="level"):
        ratio_interval(one, one, None, level=1.5)
    with pytest.raises(TypeError, match="numerators"):
        paired_seconds([1.0], one)


def _records(variant_seconds, reference_seconds, process=None):
    """Records of one variant on set "d", each carrying the reference's seconds timed beside it."""
    rows = [
        {"dataset": "d", "variant": "v", "instance_id": f"s{i}", "seconds": own,
         "stats": json.dumps({"reference_seconds": ref})}
        for i, (own, ref) in enumerate(zip(variant_seconds, reference_seconds, strict=True))
    ]  # fmt: skip
    frame = pd.DataFrame(rows)
    return frame if process is None else frame.assign(process=process)


def _paired(frame):
    return sides(
        [instance_seconds(frame, "d", "v", "reference_seconds")], [instance_seconds(frame, "d", "v")]
    )


def test_records_interval_takes_its_noise_term_from_the_processes_and_the_run_on_the_same_sample():
    rng = np.random.default_rng(0)
    own = rng.uniform(1.0, 2.0, 30)
    run = _records(own, 3.0 * own * rng.uniform(0.8, 1.2, 30))
    sample = [0, 4, 9]  # the noise jobs time s0, s4 and s9 again
    noise = pd.concat(
        [_records(own[sample], factor * own[sample], process=p) for p, factor in ((1, 2.5), (2, 3.5))]
    ).assign(instance_id=lambda f: f["instance_id"].map({"s0": "s0", "s1": "s4", "s2": "s9"}))
    found = records_interval(_paired, run, noise, seed=4)
    ids = ["s0", "s4", "s9"]
    on_sample = math.log(run.set_index("instance_id").loc[ids].pipe(
        lambda f: f["stats"].map(lambda s: json.loads(s)["reference_seconds"]).sum() / f["seconds"].sum()))  # fmt: skip
    expected = ratio_interval(*_paired(run), [math.log(2.5), math.log(3.5), on_sample], seed=4)
    assert found == expected
    assert records_interval(_paired, run, None, seed=4) == ratio_interval(*_paired(run), None, seed=4)
    assert records_interval(_paired, run.assign(variant="w"), noise) is None  # the run lacks the comparison
    # a noise process that timed other instances than the others is refused
    moved = (noise["process"] == 2) & (noise["instance_id"] == "s9")
    other = noise.assign(instance_id=noise["instance_id"].mask(moved, "s1"))
    with pytest.raises(ValueError, match="noise process 2: times other instances"):
        records_interval(_paired, run, other)


def test_a_ratio_of_medians_and_its_bootstrap_against_a_direct_computation():
    reference = pd.Series([4.0, 2.0, 60.0], index=["a", "b", "c"])
    seconds = pd.Series([1.0, 1.0, 2.0], index=["a", "b", "c"])
    assert ratio_of_totals(reference, seconds, "median") == pytest.approx(4.0 / 1.0)
    replicates = bootstrap_log_ratios(reference, seconds, samples=40, seed=2, statistic="median")
    drawn = np.random.default_rng(2).integers(0, 3, size=(40, 3))  # resampled instances, by hand
    by_hand = [
        math.log(np.median(reference.to_numpy()[row]) / np.median(seconds.to_numpy()[row])) for row in drawn
    ]
    assert replicates == pytest.approx(by_hand)
    with pytest.raises(ValueError, match="statistic must be one of total, median"):
        ratio_of_totals(reference, seconds, "mean")
