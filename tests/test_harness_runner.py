"""Harness runner: warm-up outside the timing, cooperative and hard time limits, errors, worker isolation."""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path

import harness_liars
import harness_toys
import numpy as np
import pandas as pd
import pytest
from harness_toys import ToyInstance

from decoders.errors import ConfigError
from decoders.harness import runner
from decoders.harness.instances import read_instance_index, sample_ids, write_instance_shards
from decoders.harness.jobs import decode_shard, gather_runs, retime_sample
from decoders.harness.records import RECORD_COLUMNS, RecordError, validate_records, without_clock
from decoders.harness.runner import LOOP_TARGET_SECONDS, _loop_count, run_instances, warmup_index


def _toy(n: int, **kwargs) -> ToyInstance:
    return ToyInstance(scores=np.linspace(0.0, 1.0, n)[::-1].copy(), **kwargs)


def _count_correct(instance: ToyInstance, solution) -> dict[str, int]:
    return {"correct": int(int(solution.structure[0]) == int(np.argmax(instance.scores))), "total": 1}


def _run(decoder, instances, **kwargs):
    options = {"time_limit": 5.0, "isolate": False, "progress": False, "decoder_module": harness_toys.MODULE}
    return run_instances(
        "toy", "synthetic", decoder, decoder, kwargs.pop("params", {}), instances, **options | kwargs
    )


def test_in_process_run_records_solutions_errors_and_evaluation():
    instances = [("a", 3, _toy(3)), ("b", 4, _toy(4, fail=True)), ("c", 5, _toy(5))]
    frame = _run("argmax", instances, params={"offset": 0.5}, evaluate=_count_correct)
    validate_records(frame)
    assert list(frame.columns) == [*RECORD_COLUMNS, "correct", "total"]
    assert frame["instance_id"].tolist() == ["a", "b", "c"]
    assert frame["status"].tolist() == ["optimal", "error", "optimal"]
    assert frame["objective"].tolist()[::2] == [1.5, 1.5]
    assert frame["structure"].tolist()[::2] == ["[0]", "[0]"]
    assert frame["params"].unique().tolist() == ['{"offset":0.5}']
    error = json.loads(frame.loc[1, "stats"])
    assert error["error"] == "ValueError: toy failure on 4 scores" and "Traceback" in error["traceback"]
    assert math.isnan(frame.loc[1, "objective"]) and math.isnan(frame.loc[1, "correct"])
    assert frame["correct"].tolist()[::2] == [1.0, 1.0]


def test_cooperative_timeout_keeps_objective_and_bound():
    scores = np.zeros(2000)
    scores[1500] = 9.0
    frame = _run("anytime", [("slow", 2000, ToyInstance(scores=scores))], time_limit=0.05, warmup=0)
    row = frame.iloc[0]
    assert row["status"] == "timeout"
    assert row["objective"] == 0.0 and row["bound"] == 9.0
    assert 0 < json.loads(row["stats"])["scanned"] < 2000
    assert 0.05 <= row["seconds"] < 1.0


def test_warm_up_calls_are_not_timed():
    """slow_first's first call sleeps 1 s (like a JIT), later calls return at once: far apart on any machine."""
    instances = [("a", 2, _toy(2)), ("b", 2, _toy(2))]
    warmed = _run("slow_first", instances, params={"token": uuid.uuid4().hex}, warmup=1)
    assert warmed["seconds"].max() < 0.5
    cold = _run("slow_first", instances, params={"token": uuid.uuid4().hex}, warmup=0)
    assert cold.loc[0, "seconds"] >= 1.0 and cold.loc[1, "seconds"] < 0.5


def test_a_warm_up_longer_than_the_hard_limit_still_warms_the_worker():
    """An isolated worker's warm-up compiles every kernel, which can take longer than a decode's hard limit: it
    gets an allowance for that, so the worker stays warm and no timed call holds the compilation."""
    instances = [("a", 2, _toy(2)), ("b", 2, _toy(2))]
    frame = _run("slow_first", instances, params={"token": uuid.uuid4().hex}, warmup=1, isolate=True,
                 time_limit=0.2, grace=0.1)  # fmt: skip
    assert frame["seconds"].max() < 0.5  # slow_first's 1 s first call was the warm-up's
    assert all("harness_cold_start" not in json.loads(stats) for stats in frame["stats"])


@pytest.mark.parametrize("isolate", [False, True])
def test_a_kernel_compiled_inside_the_timing_is_timed_again(isolate):
    """A branch the warm-up instance did not take compiles inside the timed call: the runner notices (numba's
    compiler lock) and times the call again, recording the compile time it left out."""
    instances = [("a", 3, _toy(3)), ("b", 9, _toy(9)), ("c", 4, _toy(4))]
    frame = _run("rare_path", instances, params={"token": uuid.uuid4().hex}, isolate=isolate)
    stats = [json.loads(text) for text in frame["stats"]]
    assert frame["status"].tolist() == ["optimal"] * 3
    assert frame["objective"].tolist() == [1.0, 1.0, 1.0]
    assert "jit_retimed_seconds" not in stats[0] and "jit_retimed_seconds" not in stats[2]
    assert stats[1]["jit_retimed_seconds"] > 2 * frame.loc[1, "seconds"]
    assert not any("jit_seconds" in each for each in stats)


def test_run_rejects_unknown_decoders_bad_limits_and_duplicate_ids():
    with pytest.raises(ConfigError, match="unknown decoder 'beam'.*known decoders: anytime, argmax"):
        _run("beam", [("a", 2, _toy(2))], isolate=True)  # fails before any worker starts
    with pytest.raises(ConfigError, match="time_limit must be a positive number"):
        _run("argmax", [("a", 2, _toy(2))], time_limit=0)
    with pytest.raises(ConfigError, match="params must be JSON-serialisable"):
        _run("argmax", [("a", 2, _toy(2))], params={"offset": object()})
    with pytest.raises(ValueError, match="instance ids must be unique; repeated: a"):
        _run("argmax", [("a", 2, _toy(2)), ("a", 3, _toy(3))])


def test_wrong_return_type_is_an_error_and_empty_runs_keep_the_schema():
    frame = _run("not_a_solution", [("a", 2, _toy(2))])
    assert frame.loc[0, "status"] == "error"
    assert json.loads(frame.loc[0, "stats"])["error"] == "decoder returned ndarray, not a Solution"
    assert list(_run("argmax", []).columns) == list(RECORD_COLUMNS)


def test_warmup_instance_is_the_median_size():
    assert warmup_index([5, 1, 3]) == 2
    assert warmup_index([2, 2, 1, 9]) == 0
    assert warmup_index([7]) == 0


def _process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie awaiting its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in {"Z", "X"}


def test_worker_killed_from_outside_stops_the_run_instead_of_recording_an_error():
    """A worker killed by SIGKILL that the harness did not send (the out-of-memory killer, a user) is no answer
    of the decoder's: the run stops with an error naming the instance, so that the job writes nothing and a
    rerun decodes the shard again (as an uninterrupted run would have), where a decoder that exits by itself is
    recorded as an error of its instance (test below)."""
    instances = [("a", 3, _toy(3)), ("b", 1, _toy(1, sigkill=True)), ("c", 3, _toy(3))]
    with pytest.raises(runner.WorkerError, match=r"killed by SIGKILL \(exit code -9\) during instance 'b'"):
        _run("argmax", instances, isolate=True, time_limit=2.0, grace=3.0)
    warm = [("a", 1, _toy(1)), ("m", 3, _toy(3, sigkill=True)), ("c", 5, _toy(5))]  # m: the warm-up instance
    with pytest.raises(runner.WorkerError, match="during its warm-up, not by the harness"):
        _run("argmax", warm, isolate=True, time_limit=2.0, grace=3.0)


def test_isolated_run_kills_overruns_survives_crashes_and_stays_warm(tmp_path):
    """A worker's start (interpreter, imports) is outside every clock, and so is its warm-up: a replacement
    worker compiles its kernels on the warm-up instance before it decodes again, within warm-up x the hard
    limit. Limits are of seconds, as a user sets them, far from the toy's work on either side: the sleeper
    needs 60 s, the others microseconds once compiled, and a fresh worker's compilation (a fraction of a
    second, more on a busy machine) fits inside the 5 s hard limit."""
    child_pid_file = tmp_path / "child.pid"
    instances = [
        ("fast-1", 3, _toy(3)),  # the median-size instance: used for warm-up
        ("sleeps", 1, _toy(1, sleep=60.0, child_pid_file=str(child_pid_file))),
        ("fast-2", 3, _toy(3)),
        ("raises", 1, _toy(1, fail=True)),
        ("exits", 1, _toy(1, die=True)),
        ("fast-3", 3, _toy(3)),
        ("fast-4", 4, _toy(4)),
    ]
    frame = _run("argmax", instances, isolate=True, time_limit=2.0, grace=3.0, evaluate=_count_correct)
    validate_records(frame)
    by_id = frame.set_index("instance_id")
    assert frame["instance_id"].tolist() == [item[0] for item in instances]
    assert frame["status"].tolist() == [
        "optimal",
        "timeout",
        "optimal",
        "error",
        "error",
        "optimal",
        "optimal",
    ]

    killed = by_id.loc["sleeps"]
    assert math.isnan(killed["objective"]) and math.isnan(killed["bound"]) and math.isnan(killed["correct"])
    assert json.loads(killed["stats"]) == {"hard_limit_seconds": pytest.approx(5.0), "killed": True}
    assert 5.0 <= killed["seconds"] < 30.0
    assert _process_gone(int(child_pid_file.read_text(encoding="utf-8")))  # the worker's child died with it

    assert json.loads(by_id.loc["raises", "stats"])["error"] == "ValueError: toy failure on 1 scores"
    assert json.loads(by_id.loc["exits", "stats"])["error"] == "decoding worker died (exit code 3)"

    fast = by_id.loc[["fast-1", "fast-2", "fast-3", "fast-4"]]
    assert fast["correct"].tolist() == [1, 1, 1, 1]
    # every fresh worker compiled during its untimed warm-up: no timed call compiled (the runner would have
    # retimed it and said so) and no worker started cold
    for stats in map(json.loads, fast["stats"]):
        assert not {"jit_retimed_seconds", "jit_seconds", "harness_cold_start"} & set(stats), stats
    assert fast["seconds"].max() < 1.0

    assert frame.attrs["threads"] == {
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
        "numba_config_num_threads": 1,
    }
    assert frame.attrs["harness"] == {
        "time_limit": 2.0,
        "grace": 3.0,
        "warmup": 1,
        "isolate": True,
        "repeats": 1,
        "loop_repeats": 0,
        "reference": None,
        "verifier": [],
        "structure_check": [],
        "evaluation": ["test_harness_runner._count_correct"],
        "exact_check": [],
        "verify_seconds": 0.0,
    }


@pytest.mark.parametrize("isolate", [False, True])
def test_false_certificates_become_errors_outside_the_timing(isolate):
    instances = [("a", 3, np.array([0.0, 2.0, 1.0])), ("b", 3, np.array([5.0, 2.0, 1.0]))]
    options = {
        "time_limit": 5.0,
        "isolate": isolate,
        "progress": False,
        "decoder_module": harness_liars.MODULE,
    }

    def run(decoder, **params):
        return run_instances("liars", "toy", decoder, decoder, params, instances, **options)

    honest = run("honest")
    assert honest["status"].tolist() == ["optimal", "optimal"]
    assert honest.attrs["harness"]["verifier"] == [f"{harness_liars.MODULE}.verify"]
    checks = [json.loads(stats)["verify_seconds"] for stats in honest["stats"]]
    assert honest.attrs["harness"]["verify_seconds"] == pytest.approx(sum(checks))
    assert all(check > 0.0 for check in checks)
    pd.testing.assert_frame_equal(without_clock(honest), without_clock(run("honest")))

    lies = run("liar").set_index("instance_id")
    assert lies["status"].tolist() == ["error", "optimal"]  # "b": its first entry is the optimum
    stats = json.loads(lies.loc["a", "stats"])
    assert stats["error"] == "certificate check failed: entry 1 is larger than the chosen 0"
    assert stats["claimed"] == {"objective": 0.0, "bound": 0.0, "status": "optimal"}
    assert math.isnan(lies.loc["a", "objective"]) and lies.loc["a", "seconds"] > 0.0

    off = run("sloppy", error=1e-6)
    assert off["status"].tolist() == ["error", "error"]
    assert "objective 2.000001 but entry 1 is 2.0" in json.loads(off["stats"].iloc[0])["error"]
    assert run("heuristic")["status"].tolist() == ["feasible", "feasible"]


def test_isolated_run_continues_cold_when_warm_up_overruns(monkeypatch):
    """A warm-up that overruns warm-up x the hard limit is not tried again: later workers start cold, and their
    first timed call compiles (then is timed again, compiled). The 6 s hard limit leaves room for that
    compilation on a busy machine and is far below the sleeper's 60 s."""
    instances = [
        ("small", 1, _toy(1)),
        ("sleeps", 2, _toy(2, sleep=60.0)),  # the median-size instance: its warm-up overruns
        ("large", 3, _toy(3)),
    ]
    monkeypatch.setattr(runner, "WARMUP_COMPILE_SECONDS", 0.0)  # no allowance for compilation: overrun at 6 s
    frame = _run("argmax", instances, isolate=True, time_limit=4.0, grace=2.0)
    assert frame["status"].tolist() == ["optimal", "timeout", "optimal"]
    stats = [json.loads(text) for text in frame["stats"]]
    # a cold worker compiles inside its first timed call, which is then timed again (compiled)
    for row in (0, 2):
        assert stats[row].pop("jit_retimed_seconds") > frame.loc[row, "seconds"]
    assert stats[0] == {"calls": 1, "harness_cold_start": True}
    assert stats[2] == {"calls": 1, "harness_cold_start": True}


def test_repeats_record_the_median_time_of_solved_instances():
    """With repeats, one slow call (a hiccup) among fast ones does not decide the recorded time."""
    token = uuid.uuid4().hex
    once = _run("slow_first", [("a", 3, _toy(3))], params={"token": token}, warmup=0)
    assert once.loc[0, "seconds"] >= 1.0
    token = uuid.uuid4().hex
    median = _run("slow_first", [("a", 3, _toy(3))], params={"token": token}, warmup=0, repeats=3)
    assert median.loc[0, "seconds"] < 0.5
    assert json.loads(median.loc[0, "stats"])["timing_repeats"] == 3
    failed = _run("argmax", [("f", 3, _toy(3, fail=True))], repeats=3)
    assert failed.loc[0, "status"] == "error" and "timing_repeats" not in json.loads(failed.loc[0, "stats"])
    with pytest.raises(ConfigError, match="repeats"):
        _run("argmax", [("a", 3, _toy(3))], repeats=0)


@pytest.mark.parametrize("isolate", [False, True])
def test_timing_loops_replace_the_per_call_time(isolate):
    """A decoder's compiled timing loop is timed instead of single calls; the per-call median is kept. The
    wrapper sleeps 50 ms a call, the loop's decodes take microseconds; the 30 s limit lets every loop run
    (they run only when the calls' time says they fit) however slow the machine."""
    instances = [("a", 3, _toy(3, sleep=0.05))]
    frame = _run("looped", instances, isolate=isolate, repeats=3, loop_repeats=20, time_limit=30.0)
    stats = json.loads(frame.loc[0, "stats"])
    assert frame.loc[0, "status"] == "optimal"
    assert frame.loc[0, "seconds"] < 0.01 and stats["call_seconds"] >= 0.05
    # decodes per loop call: as many as last LOOP_TARGET_SECONDS (this Python loop: about 20), at most 20
    assert 1 < stats["loop_repeats"] <= 20 and stats["timing_repeats"] == 3
    plain = _run("looped", instances, isolate=isolate, loop_repeats=0, time_limit=30.0)
    assert plain.loc[0, "seconds"] >= 0.05 and "call_seconds" not in json.loads(plain.loc[0, "stats"])
    wrong = _run("looped", instances, isolate=isolate, params={"wrong": True}, loop_repeats=5,
                 time_limit=30.0)  # fmt: skip
    assert wrong.loc[0, "status"] == "error"
    assert "differs from the decoder's" in json.loads(wrong.loc[0, "stats"])["error"]
    with pytest.raises(ConfigError, match="loop_repeats"):
        _run("looped", instances, loop_repeats=-1)
    # one stalled loop call (0.3 s over 20 decodes) among three does not decide the time: the median does
    token = uuid.uuid4().hex
    stalled = _run("looped", instances, isolate=isolate, params={"token": token}, repeats=3, loop_repeats=20,
                   time_limit=30.0)  # fmt: skip
    assert stalled.loc[0, "seconds"] < 0.01


def test_a_loop_call_lasts_about_the_target_and_never_more_decodes_than_loop_repeats():
    """Decodes per timing-loop call: enough to last LOOP_TARGET_SECONDS (0.3 ms), at least 1, at most the cap;
    the cap for a time of 0, NaN or infinity."""
    assert LOOP_TARGET_SECONDS == 3e-4
    assert _loop_count(1e-6, 20) == 20 and _loop_count(1e-6, 500) == 300
    assert _loop_count(1e-4, 20) == 3 and _loop_count(3e-4, 20) == 1 and _loop_count(5.0, 20) == 1
    assert _loop_count(1.5e-5, 20) == 20 and _loop_count(1.6e-5, 20) == 19
    for odd in (0.0, math.nan, math.inf):
        assert _loop_count(odd, 7) == 7
    assert _loop_count(1e-9, 1) == 1


@pytest.mark.parametrize("isolate", [False, True])
def test_a_reference_is_timed_beside_the_decoder_on_every_instance(isolate):
    """harness.reference: the reference's loop runs before each loop call of the decoder, on the same instance,
    and its median per-decode time is recorded; the decoder's own time and objective are unchanged."""
    instances = [("a", 3, _toy(3, sleep=0.05)), ("b", 4, _toy(4, sleep=0.05))]
    reference = {"decoder": "looped", "params": {"offset": 1.0}, "module": harness_toys.MODULE}
    frame = _run("looped", instances, isolate=isolate, repeats=3, loop_repeats=20, reference=reference,
                 time_limit=30.0)  # fmt: skip
    for row in frame.itertuples():
        stats = json.loads(row.stats)
        assert row.status == "optimal" and row.objective == 1.0 and row.seconds < 0.01
        assert 0.0 < stats["reference_seconds"] < 0.01
        assert 0.0 < stats["unpaired_seconds"] < 0.01  # the decoder's loop alone, after the pairs
    assert frame.attrs["harness"]["reference"] == reference
    # a second run differs only in what depends on the clock (the SLURM test compares runs this way)
    again = _run("looped", instances, isolate=isolate, repeats=3, loop_repeats=20, reference=reference,
                 time_limit=30.0)  # fmt: skip
    pd.testing.assert_frame_equal(without_clock(frame), without_clock(again))
    assert not frame["stats"].equals(again["stats"])  # the clock's keys are there, and were left out
    # a reference without a compiled loop, or a decoder without one, gives no pair (nothing is timed twice)
    unpaired = _run(
        "looped",
        instances,
        isolate=isolate,
        loop_repeats=5,
        reference={"decoder": "argmax", "module": harness_toys.MODULE},
    )
    assert all("reference_seconds" not in json.loads(stats) for stats in unpaired["stats"])
    assert all("unpaired_seconds" not in json.loads(stats) for stats in unpaired["stats"])
    # a reference loop that fails turns the row into an error that says so
    bad = _run("looped", instances[:1], isolate=isolate, loop_repeats=5, time_limit=30.0,
               reference={"decoder": "looped", "params": {"nonsense": 1}, "module": harness_toys.MODULE})  # fmt: skip
    assert bad.loc[0, "status"] == "error"
    assert json.loads(bad.loc[0, "stats"])["error"].startswith("reference timing loop: TypeError")
    with pytest.raises(ConfigError, match="no_such"):
        _run("looped", instances, reference={"decoder": "no_such", "module": harness_toys.MODULE})


def test_a_decode_job_pairs_its_variant_with_the_configured_reference(tmp_path):
    """decode_shard resolves harness.reference to a variant of the experiment (not for the reference itself);
    an unknown name is a ConfigError naming the key."""
    write_instance_shards([("a", 3, _toy(3))], [tmp_path / "shard.pkl"], tmp_path / "index.tsv")
    toy = {"decoder": "looped", "module": harness_toys.MODULE}
    variants = {"plain": toy, "ref": {**toy, "params": {"offset": 1.0}}}
    config = {"experiments": {"toy": {"variants": variants}}}
    harness = {"time_limit": 5.0, "isolate": False, "repeats": 2, "loop_repeats": 3, "reference": "ref"}

    def decode(variant, **overrides):
        return decode_shard(experiment="toy", dataset="d", variant=variant, spec=variants[variant],
                            instances=tmp_path / "shard.pkl", records=tmp_path / f"{variant}.parquet",
                            provenance=tmp_path / f"{variant}.json", harness=harness | overrides, seed=0,
                            config=config, progress=False)  # fmt: skip

    assert "reference_seconds" in json.loads(decode("plain").loc[0, "stats"])
    assert "reference_seconds" not in json.loads(decode("ref").loc[0, "stats"])
    with pytest.raises(ConfigError, match=r"experiments\.toy\.harness\.reference: 'nope'"):
        decode("plain", reference="nope")


def test_a_variant_time_limit_overrides_the_experiments(tmp_path):
    """A variant's own `time_limit` bounds its decodes in place of harness.time_limit."""
    scores = np.zeros(300)
    write_instance_shards(
        [("a", 300, ToyInstance(scores=scores))], [tmp_path / "shard.pkl"], tmp_path / "i.tsv"
    )
    harness = {"time_limit": 0.02, "isolate": False, "warmup": 0}

    def decode(spec):
        return decode_shard(experiment="toy", dataset="d", variant="v", spec=spec, instances=tmp_path / "shard.pkl",
                            records=tmp_path / "v.parquet", provenance=tmp_path / "v.json", harness=harness,
                            seed=0, config={"experiments": {"toy": {"variants": {"v": spec}}}}, progress=False)  # fmt: skip

    toy = {"decoder": "anytime", "module": harness_toys.MODULE}
    assert decode(toy).loc[0, "status"] == "timeout"
    assert decode({**toy, "time_limit": 30.0}).loc[0, "status"] == "optimal"


def test_a_variant_sample_is_the_same_fixed_subset_in_every_shard_and_in_the_gather(tmp_path):
    """A variant's `sample` decodes a seeded subset of the set, chosen from the index so that shards and the
    gather agree (and another seed chooses another); without one, or larger than the set, every instance; a bad
    value is a ConfigError naming the key; a shard's records of another sample fail the gather."""
    items = [(f"s{i}", 3, _toy(3)) for i in range(12)]
    shards = [tmp_path / f"shard-{i}.pkl" for i in range(3)]
    index = tmp_path / "index.tsv"
    write_instance_shards(items, shards, index)
    ids = read_instance_index(index)
    chosen = sample_ids(ids, 5, seed=7)
    assert len(chosen) == 5 and set(chosen) < set(ids) and chosen == [i for i in ids if i in chosen]
    assert chosen == sample_ids(ids, 5, seed=7) and chosen != sample_ids(ids, 5, seed=8)
    assert sample_ids(ids, None, seed=7) == ids == sample_ids(ids, 40, seed=7)
    spec = {"decoder": "looped", "module": harness_toys.MODULE, "sample": 5}
    harness = {"time_limit": 5.0, "isolate": False}

    def decode(shard, spec, seed=7):
        out = tmp_path / f"{shard.stem}-{seed}.parquet"
        decode_shard(experiment="toy", dataset="d", variant="v", spec=spec, instances=shard, records=out,
                     provenance=out.with_suffix(".json"), harness=harness, seed=seed,
                     config={"experiments": {"toy": {"variants": {"v": spec}}}}, index=index, progress=False)  # fmt: skip
        return out

    outputs = [decode(shard, spec) for shard in shards]
    frame = gather_runs(outputs, index, tmp_path / "v.parquet", sample=5, seed=7)
    assert frame["instance_id"].tolist() == chosen
    with pytest.raises(RecordError, match="missing"):
        gather_runs(outputs, index, tmp_path / "w.parquet")
    with pytest.raises(RecordError):
        gather_runs(
            [decode(shard, spec, seed=8) for shard in shards], index, tmp_path / "x.parquet", sample=5, seed=7
        )
    everything = gather_runs(
        [decode(shard, {**spec, "sample": None}) for shard in shards], index, tmp_path / "y.parquet"
    )
    assert everything["instance_id"].tolist() == ids
    for bad in (0, -1, 2.5, True, "5"):
        with pytest.raises(ConfigError, match=r"experiments\.toy\.variants\.v\.sample"):
            decode(shards[0], {**spec, "sample": bad})


def test_a_noise_job_times_the_same_seeded_sample_again_with_every_variant_paired(tmp_path):
    """retime_sample: the instances of sample_ids(index, noise.sample, seed) from every shard, each variant timed
    beside the reference as in a decode job, records with the process number; bad settings name their key."""
    items = [(f"s{i}", 3 + i, _toy(3 + i)) for i in range(6)]
    shards = [tmp_path / "shard-0.pkl", tmp_path / "shard-1.pkl"]
    write_instance_shards(items, shards, tmp_path / "index.tsv")
    toy = {"decoder": "looped", "module": harness_toys.MODULE}
    variants = {
        "plain": toy,
        "ref": {**toy, "params": {"offset": 1.0}},
        "other": {"decoder": "argmax", "module": harness_toys.MODULE, "mem_mb": 9},
    }  # mem_mb: read by the scheduler only
    config = {"experiments": {"toy": {"variants": variants}}}
    harness = {"time_limit": 5.0, "isolate": False, "repeats": 2, "loop_repeats": 3, "reference": "ref",
               "noise": {"sample": 4, "processes": 2}}  # fmt: skip

    def retime(process=2, **overrides):
        arguments = dict(experiment="toy", dataset="d", process=process, variants=["plain", "other"],
                         shards=shards, index=tmp_path / "index.tsv", records=tmp_path / "n.parquet",
                         provenance=tmp_path / "n.json", harness=harness, seed=3, config=config,
                         progress=False)  # fmt: skip
        return retime_sample(**(arguments | overrides))

    frame = retime()
    chosen = sample_ids(read_instance_index(tmp_path / "index.tsv"), 4, 3)
    assert list(frame["variant"]) == ["plain"] * 4 + ["other"] * 4
    assert list(frame["instance_id"]) == chosen * 2 and set(frame["process"]) == {2}
    stats = [json.loads(text) for text in frame["stats"]]
    assert all("reference_seconds" in s for s in stats[:4])  # a compiled loop: paired with the reference
    assert all("reference_seconds" not in s for s in stats[4:])
    validate_records(pd.read_parquet(tmp_path / "n.parquet"))
    assert json.loads((tmp_path / "n.json").read_text())["extra"]["noise"]["process"] == 2
    with pytest.raises(ConfigError, match=r"harness\.noise\.processes is 2; no process 3"):
        retime(process=3)
    with pytest.raises(ConfigError, match=r"harness\.noise\.sample: must be an integer >= 2"):
        retime(harness={**harness, "noise": {"sample": 1, "processes": 2}})
    with pytest.raises(ConfigError, match=r"harness\.noise: needs"):
        retime(harness={k: v for k, v in harness.items() if k != "noise"})
    with pytest.raises(ConfigError, match=r"no variant 'nope' to time again"):
        retime(variants=["nope"])
