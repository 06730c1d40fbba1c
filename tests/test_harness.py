"""Harness: decoder protocol and registry, result records, exactness, provenance and sharding."""

from __future__ import annotations

import json
import math
import re

import harness_toys
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, get_decoder, known_decoders, register
from decoders.harness.provenance import (
    PACKAGES,
    PROVENANCE_KEYS,
    THREAD_ENV_VARS,
    collect_provenance,
    config_hash,
    write_provenance,
)
from decoders.harness.records import (
    RECORD_COLUMNS,
    RecordError,
    make_record,
    mark_exact,
    read_records,
    records_frame,
    validate_records,
    write_records,
)
from decoders.harness.sharding import gather_shards, shard_of, split_into_shards

# --- protocol -------------------------------------------------------------------------------------------------


def test_solution_validates_status():
    solution = Solution(structure=[1, 2], objective=3, bound=None, status="optimal")
    assert solution.objective == 3.0 and solution.stats == {}
    with pytest.raises(
        ValueError, match="status must be one of optimal, feasible, timeout, error; got 'done'"
    ):
        Solution(structure=[1], objective=1.0, status="done")
    with pytest.raises(ValueError, match="optimal.*NaN"):
        Solution(structure=None, objective=math.nan, status="optimal")
    assert math.isnan(Solution(structure=None, objective=None, status="timeout").objective)


def test_registry_finds_toy_decoders_and_lists_known_ones_for_unknown_names():
    assert get_decoder("toy", "argmax", harness_toys.MODULE) is harness_toys.argmax
    assert known_decoders("toy", harness_toys.MODULE) == [
        "anytime",
        "argmax",
        "looped",
        "not_a_solution",
        "rare_path",
        "slow_first",
    ]
    with pytest.raises(ConfigError) as caught:
        get_decoder("toy", "viterbi", harness_toys.MODULE)
    message = str(caught.value)
    assert "unknown decoder 'viterbi'" in message
    assert "known decoders: anytime, argmax, looped, not_a_solution, rare_path, slow_first" in message


def test_registry_handles_experiments_without_decoder_module():
    # decoders.nosuchexperiment.decoders does not exist: no decoders, but no import error either
    assert known_decoders("nosuchexperiment") == []
    with pytest.raises(ConfigError, match=r"unknown decoder 'x' .*known decoders: none registered"):
        get_decoder("nosuchexperiment", "x")
    with pytest.raises(
        ConfigError, match="decoder module 'no_such_module_xyz' for experiment 'toy' not found"
    ):
        get_decoder("toy", "argmax", "no_such_module_xyz")


def test_registry_does_not_hide_a_missing_dependency_of_a_decoder_module(tmp_path, monkeypatch):
    (tmp_path / "toy_broken_decoders.py").write_text("import no_such_dependency_xyz\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        get_decoder("toy_broken", "x", "toy_broken_decoders")


def test_register_rejects_a_second_decoder_under_the_same_name():
    @register("toy_duplicates", "first")
    def first(instance, *, deadline=None):
        return Solution([0], 0.0)

    def other(instance, *, deadline=None):
        return Solution([1], 1.0)

    with pytest.raises(ConfigError, match="'first' of experiment 'toy_duplicates' is already registered"):
        register("toy_duplicates", "first")(other)
    assert register("toy_duplicates", "first")(first) is first  # the same function again is fine


class _ToyInstance:
    pass


def test_registered_decoders_check_the_instance_and_the_deadline():
    seen = []

    @register("toy_checked", "decoder")
    def decoder(instance: _ToyInstance, *, deadline: float | None = None, width: int = 1) -> Solution:
        seen.append(deadline)
        return Solution([width], 0.0)

    assert get_decoder("toy_checked", "decoder") is decoder
    for bad in (None, [1], "instance"):
        with pytest.raises(ValueError, match="instance must be a _ToyInstance"):
            decoder(bad)
    for bad in (math.nan, "soon", True):
        with pytest.raises(ValueError, match="deadline"):
            decoder(_ToyInstance(), deadline=bad)
    assert decoder(_ToyInstance(), deadline=math.inf, width=3).structure == [3]
    decoder(_ToyInstance(), deadline=-math.inf)
    decoder(_ToyInstance(), deadline=np.float64(5.0))
    assert seen == [None, -math.inf, 5.0]


def project_decoders(experiment: str) -> list[str]:
    """The decoders the experiment's own module registers (not those other test modules registered for it)."""
    module = f"decoders.{experiment}.decoders"
    return [name for name in known_decoders(experiment) if get_decoder(experiment, name).__module__ == module]


@pytest.mark.parametrize("experiment", ["titles", "chains", "linking", "bnb", "ppc"])
def test_every_decoder_of_every_experiment_refuses_what_is_not_its_instance(experiment):
    for name in project_decoders(experiment):
        with pytest.raises(ValueError, match="instance must be a"):
            get_decoder(experiment, name)(None)


@pytest.mark.parametrize("experiment", ["titles", "chains", "linking", "bnb", "ppc"])
def test_every_decoder_of_every_experiment_names_a_parameter_it_does_not_take(experiment):
    """Found here: a misspelt key of a variant's params reached the decoder as Python's TypeError ("got an
    unexpected keyword argument"), and a second positional argument likewise."""
    for name in project_decoders(experiment):
        decoder = get_decoder(experiment, name)
        with pytest.raises(ConfigError, match=re.escape(f"decoder {name!r} has no parameter 'bogus'; its")):
            decoder(None, bogus=1)
        with pytest.raises(ConfigError, match="only positional argument"):
            decoder(None, 5)


def test_solution_names_an_objective_or_bound_that_is_not_a_number():
    """Found here: Solution(objective="1") or a list bound gave float()'s raw ValueError or TypeError, and an
    array status numpy's "truth value of an array is ambiguous"."""
    for bad in ("1", [1.0], np.zeros(2), True):
        with pytest.raises(ValueError, match="Solution.objective must be a number"):
            Solution([0], bad)
        with pytest.raises(ValueError, match="Solution.bound must be a number"):
            Solution([0], 0.0, bad)
    with pytest.raises(ValueError, match="Solution.status must be one of"):
        Solution([0], 0.0, status=np.zeros(2))
    kept = Solution([0], np.float32(1.5), np.asarray(2.0), "optimal")
    assert (kept.objective, kept.bound) == (1.5, 2.0)


# --- records --------------------------------------------------------------------------------------------------


def _row(variant, instance_id, status="optimal", objective=1.0, bound=None, evaluation=None, size=3):
    solution = Solution(
        structure=np.arange(size, dtype=np.int32),
        objective=objective,
        bound=bound,
        status=status,
        stats={"iterations": np.int64(4), "gap": 0.5},
    )
    return make_record(
        experiment="chains",
        dataset="ewt",
        variant=variant,
        params={"beam": 5, "alpha": 0.1},
        instance_id=instance_id,
        size=size,
        seconds=0.25,
        solution=solution,
        evaluation=evaluation if evaluation is not None else {"correct": 2, "total": size},
    )


def _frame(rows):
    return records_frame(rows)


def test_records_have_the_contract_columns_and_round_trip_through_parquet(tmp_path):
    frame = _frame(
        [
            _row("viterbi", "s1", bound=1.0),
            _row("viterbi", "s2", status="timeout", objective=math.nan),
            _row("viterbi", "s3", status="feasible", objective=-2.5, evaluation={"correct": 1, "total": 4}),
        ]
    )
    assert list(frame.columns) == [*RECORD_COLUMNS, "correct", "total"]
    assert frame.loc[0, "params"] == '{"alpha":0.1,"beam":5}'
    assert frame.loc[0, "structure"] == "[0,1,2]"
    assert json.loads(frame.loc[0, "stats"]) == {"gap": 0.5, "iterations": 4}
    assert math.isnan(frame.loc[1, "bound"]) and math.isnan(frame.loc[1, "objective"])
    assert frame["size"].dtype == np.int64 and frame["total"].dtype == np.int64
    path = tmp_path / "runs" / "shard-0.parquet"
    write_records(path, frame)
    pd.testing.assert_frame_equal(read_records(path), frame)
    assert [p.name for p in path.parent.iterdir()] == ["shard-0.parquet"]  # no temporary file left


def test_empty_records_keep_the_schema(tmp_path):
    frame = records_frame([])
    assert list(frame.columns) == list(RECORD_COLUMNS)
    write_records(tmp_path / "empty.parquet", frame)
    pd.testing.assert_frame_equal(read_records(tmp_path / "empty.parquet"), frame)


def test_validate_records_names_the_missing_column_and_the_bad_status():
    frame = _frame([_row("viterbi", "s1"), _row("viterbi", "s2")])
    validate_records(frame)
    with pytest.raises(RecordError, match="lack the column.* bound"):
        validate_records(frame.drop(columns="bound"))
    bad = frame.copy()
    bad.loc[1, "status"] = "solved"
    with pytest.raises(RecordError, match="column 'status' holds 'solved'; allowed: optimal, feasible"):
        validate_records(bad)
    with pytest.raises(RecordError, match="column 'seconds' must be numeric"):
        validate_records(frame.astype({"seconds": "str"}))
    with pytest.raises(RecordError, match="recorded twice for the same variant: s1"):
        validate_records(pd.concat([frame, frame.iloc[:1]], ignore_index=True))


def test_make_record_rejects_non_numeric_evaluation():
    with pytest.raises(RecordError, match="evaluation column 'rouge' of instance 's1' must be a number"):
        _row("v", "s1", evaluation={"rouge": "high"})
    with pytest.raises(RecordError, match="clashes"):
        _row("v", "s1", evaluation={"size": 3})


def test_read_records_names_an_unreadable_file(tmp_path):
    path = tmp_path / "shard-0.parquet"
    path.write_text("not parquet", encoding="utf-8")
    with pytest.raises(RecordError, match="shard-0.parquet: cannot read result records"):
        read_records(path)


def test_mark_exact_compares_with_the_certified_reference():
    frame = _frame(
        [
            _row("viterbi", "s1", objective=1000.0),
            _row("beam1", "s1", status="feasible", objective=1000.0 * (1 + 5e-10)),
            _row("beam2", "s1", status="feasible", objective=1000.0 * (1 - 1e-6)),
            _row("cg", "s1", status="timeout", objective=math.nan),
            _row("viterbi", "s2", status="timeout", objective=5.0),  # no certificate for s2
            _row("beam1", "s2", status="feasible", objective=5.0),
            _row("viterbi", "s3", objective=0.0),
            _row("beam1", "s3", status="feasible", objective=1e-12),
        ]
    )
    marked = mark_exact(frame, "viterbi")
    assert str(marked["exact"].dtype) == "boolean"
    assert marked["exact"].tolist() == [True, True, False, False, pd.NA, pd.NA, True, True]
    assert "exact" not in frame.columns
    with pytest.raises(RecordError, match="reference variant 'ilp' not in the records"):
        mark_exact(frame, "ilp")


# --- provenance -----------------------------------------------------------------------------------------------


def test_provenance_has_every_key_and_a_stable_config_hash(tmp_path):
    config = {"seed": 7, "experiments": {"chains": {"beam": [1, 5], "timeout": 60}}, "shards": 4}
    reordered = {"shards": 4, "experiments": {"chains": {"timeout": 60, "beam": [1, 5]}}, "seed": 7}
    prov = collect_provenance(seed=7, config=config, repo_dir=tmp_path, extra={"variant": "viterbi"})
    assert set(prov) == set(PROVENANCE_KEYS)
    assert set(prov["packages"]) == set(PACKAGES)
    assert prov["packages"]["numpy"] == np.__version__ and prov["packages"]["pandas"] == pd.__version__
    assert prov["git_commit"] is None and prov["git_dirty"] is None  # tmp_path is not a git checkout
    assert set(THREAD_ENV_VARS) <= set(prov["threads"]) and "numba_config_num_threads" in prov["threads"]
    assert prov["seed"] == 7 and prov["extra"] == {"variant": "viterbi"}
    assert prov["cpu_count"] >= 1 and prov["python"].startswith("3.")
    assert prov["config_hash"] == config_hash(reordered) != config_hash({**config, "seed": 8})
    assert len(prov["config_hash"]) == 64
    threads = {"OMP_NUM_THREADS": "1"}
    assert collect_provenance(seed=None, config={}, threads=threads, repo_dir=tmp_path)["threads"] == threads
    write_provenance(tmp_path / "prov.json", prov)
    assert json.loads((tmp_path / "prov.json").read_text(encoding="utf-8")) == prov


# --- sharding -------------------------------------------------------------------------------------------------

shard_inputs = st.tuples(st.lists(st.integers(0, 1000), max_size=60), st.integers(1, 9))


@settings(max_examples=150, deadline=None)
@given(shard_inputs)
def test_round_robin_shards_are_deterministic_disjoint_and_complete(case):
    sizes, n_shards = case
    items = list(range(len(sizes)))
    shards = split_into_shards(items, n_shards)
    assert shards == split_into_shards(items, n_shards)
    assert len(shards) == n_shards
    assert sorted(i for shard in shards for i in shard) == items
    assert all(shard == sorted(shard) for shard in shards)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    assert all(shard_of(i, n_shards) == k for k, shard in enumerate(shards) for i in shard)


@settings(max_examples=150, deadline=None)
@given(shard_inputs)
def test_size_balanced_shards_spread_the_load(case):
    sizes, n_shards = case
    items = list(range(len(sizes)))
    shards = split_into_shards(items, n_shards, size=lambda i: sizes[i])
    assert shards == split_into_shards(items, n_shards, size=lambda i: sizes[i])
    assert len(shards) == n_shards
    assert sorted(i for shard in shards for i in shard) == items
    assert all(shard == sorted(shard) for shard in shards)
    loads = [sum(sizes[i] for i in shard) for shard in shards]
    assert max(loads) - min(loads) <= max(sizes, default=0)  # greedy to the lightest shard


def test_size_balanced_shards_spread_long_instances():
    sizes = [100, 1, 1, 90, 1, 80, 1, 1]
    shards = split_into_shards(list(range(8)), 3, size=lambda i: sizes[i])
    assert shards == [[0], [3], [1, 2, 4, 5, 6, 7]]
    with pytest.raises(ValueError, match="n_shards must be a positive integer"):
        split_into_shards([1], 0)


def _shard_frames():
    ids = [f"s{i}" for i in range(1, 12)]
    shards = split_into_shards(ids, 3)
    return ids, [_frame([_row("viterbi", i) for i in shard]) for shard in shards]


def test_gather_shards_restores_instance_order_from_frames_and_paths(tmp_path):
    ids, frames = _shard_frames()
    gathered = gather_shards(frames[::-1], expected_ids=ids)
    assert gathered["instance_id"].tolist() == ids
    paths = []
    for k, frame in enumerate(frames):
        paths.append(tmp_path / f"shard-{k}.parquet")
        write_records(paths[-1], frame)
    paths.append(tmp_path / "shard-3.parquet")
    write_records(paths[-1], records_frame([]))  # more shards than instances leaves empty shards
    pd.testing.assert_frame_equal(gather_shards(paths, expected_ids=ids), gathered)
    assert gather_shards(paths)["instance_id"].tolist() == ids  # natural order: s2 before s10


def test_gather_shards_names_duplicate_missing_and_unexpected_ids():
    ids, frames = _shard_frames()
    with pytest.raises(RecordError, match="present in more than one shard: s4"):
        gather_shards([*frames, frames[0].iloc[1:2]])
    with pytest.raises(RecordError, match="missing from the shards of chains/ewt/viterbi: s2, s5, s8, s11"):
        gather_shards([frames[0], frames[2]], expected_ids=ids)
    with pytest.raises(RecordError, match="not expected: s11"):
        gather_shards(frames, expected_ids=ids[:-1])


def test_records_follow_the_workflow_record_schema(repo_root):
    """workflow/schemas/records.schema.yaml and RECORD_COLUMNS agree; real records validate against it."""
    import jsonschema
    import yaml

    schema = yaml.safe_load((repo_root / "workflow" / "schemas" / "records.schema.yaml").read_text())
    assert schema["required"] == list(RECORD_COLUMNS)
    frame = _frame(
        [
            _row("viterbi", "s1", bound=1.0),
            _row("viterbi", "s3", status="feasible", objective=-2.5, evaluation={"correct": 1, "total": 4}),
        ]
    )
    for row in frame.to_dict("records"):
        row = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        row = {k: v for k, v in row.items() if v is not None}  # NaN (nothing known) is a missing number
        schema_without_nan = {**schema, "required": [c for c in schema["required"] if c in row]}
        jsonschema.validate(row, schema_without_nan)
    bad = {**frame.to_dict("records")[0], "status": "solved"}
    with pytest.raises(jsonschema.ValidationError, match="solved"):
        jsonschema.validate(bad, schema)


def test_params_file_is_merged_and_bad_files_are_named(tmp_path):
    from decoders.harness.jobs import read_params_file

    good = tmp_path / "width.json"
    good.write_text('{"width": 7}')
    assert read_params_file(good, "experiments.x.variants.y") == {"width": 7}
    with pytest.raises(ConfigError, match=r"experiments\.x\.variants\.y\.params_file: cannot read .*missing"):
        read_params_file(tmp_path / "missing.json", "experiments.x.variants.y")
    bad = tmp_path / "list.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="must hold a JSON object, not list"):
        read_params_file(bad, "experiments.x.variants.y")


# --- bad arguments of the harness's public functions ----------------------------------------------------------


def _harness_bad_calls(tmp_path):
    """(call, a regex of the error's words) per bad argument of a public harness or io function: each a ValueError
    or DecodersError naming the argument (found here: each was a raw TypeError, AttributeError, KeyError or
    numpy error, a silent wrong answer, or - a bool or an int where a path goes - a file descriptor read and
    closed: read_instance_index(True) closed the process's stdout)."""
    from decoders import io
    from decoders.harness import instances, jobs, provenance, records, sharding

    frame = _frame([_row("viterbi", "s1")])
    index = tmp_path / "index.tsv"
    index.write_text("instance_id\tsize\tshard\ns1\t3\t0\n")
    shard = tmp_path / "shard-0.pkl"
    instances.write_instance_shards([("s1", 3, None)], [shard], index)
    spec = {"decoder": "viterbi"}
    decode = {
        "experiment": "chains", "dataset": "ewt", "variant": "v", "spec": spec, "instances": shard,
        "records": tmp_path / "r.parquet", "provenance": tmp_path / "p.json", "harness": {"time_limit": 1},
        "seed": 0, "config": {},
    }  # fmt: skip
    return [
        (lambda: instances.read_instance_index(True), "path must be a path"),
        (lambda: instances.read_instance_index(np.zeros(2)), "path must be a path"),
        (lambda: instances.read_instance_shard(3), "path must be a path"),
        (lambda: instances.write_instance_shards(5, [shard], index), "instances must be a sequence"),
        (lambda: instances.write_instance_shards([("s1", 3)], [shard], index), r"instances\[0\] must be an"),
        (
            lambda: instances.write_instance_shards([("s1", "3", None)], [shard], index),
            r"instances\[0\] size",
        ),
        (
            lambda: instances.write_instance_shards([("s1", 3, None)], str(shard), index),
            "shard_paths must be a",
        ),
        (lambda: instances.write_instance_shards([("s1", 3, None)], [None], index), r"shard_paths\[0\]"),
        (lambda: instances.write_instance_shards([("s1", 3, None)], [shard], 7), "index_path must be a path"),
        (lambda: instances.sample_ids(["a", "b"], -1, 0), "sample must be an integer >= 0"),
        (lambda: instances.sample_ids(["a", "b"], "1", 0), "sample must be an integer"),
        (lambda: instances.sample_ids(["a", "b"], 1, "x"), "seed must be an integer"),
        (lambda: instances.sample_ids(None, 1, 0), "ids must be a sequence"),
        (lambda: sharding.shard_of("3", 2), "index must be an integer"),
        (lambda: sharding.shard_of(1.5, 2), "index must be an integer"),
        (lambda: sharding.shard_of(-1, 2), "index must be an integer >= 0"),
        (lambda: sharding.split_into_shards(5, 2), "items must be a sequence"),
        (lambda: sharding.split_into_shards([1, 2], 2, size=3), "size must be None or a function"),
        (lambda: sharding.split_into_shards([1, 2], 2, size=lambda item: math.nan), r"size\(items\[0\]\)"),
        (lambda: sharding.split_into_shards([1, 2], 2, size=lambda item: "big"), r"size\(items\[0\]\)"),
        (lambda: sharding.gather_shards(None), "shards must be a sequence"),
        (lambda: sharding.gather_shards([np.zeros(2)]), r"shards\[0\] must be a path"),
        (lambda: sharding.gather_shards([frame], expected_ids="s1"), "expected_ids must be a sequence"),
        (lambda: records.validate_records(np.zeros(2)), "frame must be a pandas DataFrame"),
        (lambda: records.write_records(tmp_path / "x.parquet", {"a": 1}), "frame must be a pandas DataFrame"),
        (lambda: records.write_records(None, frame), "path must be a path"),
        (lambda: records.read_records(5), "path must be a path"),
        (lambda: records.without_clock(None), "frame must be a record frame"),
        (lambda: records.mark_exact(frame, ["viterbi"]), "reference_variant must be a string"),
        (lambda: records.mark_exact(frame, "viterbi", rtol=math.nan), "rtol must be finite"),
        (lambda: records.records_frame(5), "records must be a sequence"),
        (lambda: records.records_frame([5]), r"records\[0\] must be a mapping"),
        (lambda: _make({"params": [1]}), "params must be a mapping"),
        (lambda: _make({"size": "3"}), "size must be an integer"),
        (lambda: _make({"seconds": math.nan}), "seconds must be finite"),
        (lambda: _make({"seconds": -1.0}), "seconds must be >= 0"),
        (lambda: _make({"solution": {"structure": [0]}}), "solution must be a Solution"),
        (lambda: _make({"evaluation": [1]}), "evaluation must be a mapping"),
        (lambda: provenance.collect_provenance(seed="7", config={}), "seed must be an integer"),
        (lambda: provenance.collect_provenance(seed=7, config=[1]), "config must be a mapping"),
        (lambda: provenance.collect_provenance(seed=7, config={}, extra=[1]), "extra must be a mapping"),
        (lambda: provenance.collect_provenance(seed=7, config={}, repo_dir=3), "repo_dir must be a path"),
        (lambda: provenance.config_hash(np.zeros(2)), "config must be a mapping"),
        (lambda: provenance.package_versions("numpy"), "names must be a sequence of strings"),
        (lambda: provenance.git_state(np.zeros(2)), "directory must be a path"),
        (lambda: provenance.write_provenance(None, {}), "path must be a path"),
        (lambda: provenance.write_provenance(tmp_path / "p.json", [1]), "provenance must be a mapping"),
        (lambda: provenance.read_provenance(True), "path must be a path"),
        (lambda: jobs.read_params_file(None, "experiments.x.variants.y"), "path must be a path"),
        (lambda: jobs.variant_sample([1], "experiments.x.variants.y"), r"\(spec\) must be a mapping"),
        (lambda: jobs.decode_shard(**{**decode, "spec": None}), r"\(spec\) must be a mapping"),
        (lambda: jobs.decode_shard(**{**decode, "harness": None}), "harness must be a mapping"),
        (lambda: jobs.decode_shard(**{**decode, "seed": "0"}), "seed must be an integer"),
        (lambda: jobs.decode_shard(**{**decode, "instances": np.zeros(2)}), "instances must be a path"),
        (
            lambda: jobs.decode_shard(**{**decode, "spec": {**spec, "params": [1]}}),
            "params: must be a mapping",
        ),
        (lambda: jobs.gather_runs(5, index, tmp_path / "o.parquet"), "shards must be a sequence"),
        (lambda: jobs.gather_runs([], True, tmp_path / "o.parquet"), "index must be a path"),
        (lambda: jobs.gather_runs([], index, tmp_path / "o.parquet", sample=-2), "sample must be an integer"),
        (lambda: io.sha256_file(True), "path must be a path"),
        (lambda: io.read_json(1), "path must be a path"),
        (lambda: io.read_parquet(np.zeros(2)), "path must be a path"),
        (lambda: io.load_npz(None, ["a"]), "path must be a path"),
        (lambda: io.write_text_atomic(tmp_path / "t", 5), "text must be a string"),
        (lambda: io.write_bytes_atomic(tmp_path / "b", "text"), "data must be bytes"),
        (lambda: io.sha256_bytes(None), "data must be bytes"),
        (lambda: io.write_parquet_atomic(tmp_path / "f.parquet", [1]), "frame must be a pandas DataFrame"),
        (lambda: io.save_npz(tmp_path / "a.npz", [1]), "arrays must be a mapping"),
        (lambda: io.checksum_mismatch(None), "path must be a path"),
    ]


def _make(changes):
    args = {
        "experiment": "chains", "dataset": "ewt", "variant": "v", "params": {}, "instance_id": "s1", "size": 3,
        "seconds": 0.5, "solution": Solution([0], 1.0),
    }  # fmt: skip
    return make_record(**{**args, **changes})


def test_harness_functions_name_a_bad_argument(tmp_path, capfd):
    from decoders.errors import DecodersError

    for call, words in _harness_bad_calls(tmp_path):
        with pytest.raises((ValueError, DecodersError)) as caught:
            call()
        assert caught.match(words), (words, str(caught.value))
    print("stdout still open")  # read_instance_index(True) used to close file descriptor 1
    assert "stdout still open" in capfd.readouterr().out
