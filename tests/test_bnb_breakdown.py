"""Where the B&B's time goes: the breakdown of a toy model's decoding, its counts against the decoder's, the split
of NonLocalStructure.solve into scoring and search, the table, and bad settings."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from parsing_toys import train_toy_models

from decoders.bnb import breakdown
from decoders.bnb import decoders as bnb_decoders
from decoders.bnb.instance import ParseInstance
from decoders.bnb.model import NonLocalStructure, prune_heads
from decoders.bnb.search import branch_and_bound
from decoders.errors import ConfigError
from decoders.harness.instances import write_instance_shards
from decoders.harness.protocol import Solution
from decoders.harness.records import make_record, records_frame
from decoders.parsing.model import ParserModel
from decoders.parsing.perceptron import LocalStructure
from decoders.parsing.trees import as_heads
from decoders.tables import bnb as bnb_tables

TOY = [
    (["the", "dog", "barks"], ["DT", "NN", "VB"], [2, 3, 0]),
    (["the", "cat", "sees", "the", "dog"], ["DT", "NN", "VB", "DT", "NN"], [2, 3, 0, 5, 3]),
    (["cats", "see", "a", "bird"], ["NN", "VB", "DT", "NN"], [2, 0, 4, 2]),
    (["a", "dog", "sees", "cats", "rather", "than", "birds"], ["DT", "NN", "VB", "NN", "RB", "IN", "NN"],
     [2, 3, 0, 3, 6, 4, 6]),
    (["the", "big", "dog", "sees", "a", "small", "cat", "in", "the", "park"],
     ["DT", "JJ", "NN", "VB", "DT", "JJ", "NN", "IN", "DT", "NN"], [3, 3, 4, 0, 7, 7, 4, 4, 10, 8]),
]  # fmt: skip
GROUPS = ["grandchild", "sibling", "comb", "hand_crafted"]
#: the bnb variant's search settings (config.yaml), fixing on so that its passes are counted
PARAMS = {"max_iterations": 7, "epsilon": 1e-8, "step_rule": "normalized", "fixing": True, "max_open_mb": 512}
K = 3


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A trained full-set toy model and first-order pruner on disk, and the toy sentences as a pruned instance set."""
    vocab, paths = train_toy_models(
        tmp_path_factory.mktemp("breakdown"),
        TOY,
        [
            ("first", LocalStructure(1), {"order": 1}),
            ("second", LocalStructure(2), {"order": 2}),
            ("full", NonLocalStructure(tuple(GROUPS)), {"groups": GROUPS}),
        ],
        epochs=2,
    )
    pruner = ParserModel.load(paths["first"]).numerator
    items = []
    for i, (words, tags, heads) in enumerate(TOY):
        tokens = vocab.encode(words, tags, tags)
        allowed = prune_heads(tokens, pruner, K)
        instance = ParseInstance(
            tokens, as_heads(heads), np.ones(len(words), bool), allowed, paths["full"], K, paths["first"]
        )
        items.append((f"s{i}", len(words), instance))
    return paths, items


def _measure(toy, **options):
    paths, items = toy
    model = ParserModel.load(paths["full"])
    pruner = ParserModel.load(paths["first"]).numerator
    options = {"time_limit": 30, "repeats": 2, "paper_space_bits": 16, "paper_space_sentences": 3, **options}
    return breakdown.measure_breakdown(items, model, pruner, PARAMS, **options), model


def test_solve_is_scoring_then_search_as_before(toy):
    """solve() = parts() then search(): the same heads, objective, bound, status and counters as branch and bound
    called on the scored parts with the structure's settings (solve's body before the split), with and without an
    incumbent."""
    paths, items = toy
    model = ParserModel.load(paths["full"])
    structure = breakdown.configured_structure(model, PARAMS)
    for _, _, instance in items:
        for incumbent in (None, instance.gold):
            result, count = structure.solve(
                instance.tokens, model.numerator, instance.allowed, incumbent=incumbent
            )
            backbone, factors = structure.parts(instance.tokens, model.numerator, instance.allowed)
            before = branch_and_bound(
                backbone, factors, grid=structure.grid, max_iterations=structure.max_iterations,
                epsilon=structure.epsilon, max_nodes=structure.max_nodes, max_open_bytes=structure.max_open_bytes,
                step_rule=structure.step_rule, fixing=structure.fixing, incumbent=incumbent,
            )  # fmt: skip
            assert count == len(factors)
            assert np.array_equal(result.heads, before.heads)
            assert result.objective == before.objective and result.bound == before.bound
            assert result.status == before.status
            assert result.stats == before.stats
            searched = structure.search(backbone, factors, incumbent=incumbent)
            assert np.array_equal(searched.heads, before.heads) and searched.stats == before.stats


def test_components_are_non_negative_and_sum_to_the_total(toy):
    frame, model = _measure(toy)
    assert len(frame) == len(TOY)
    timed = ["prune_s", "score_s", "search_s", "score_arcs_s", "score_parts_s", "score_factors_s", "solve_unit_s",
             "step_unit_s", "fix_unit_s", "setup_s", "dp_s", "steps_s", "fixing_s"]  # fmt: skip
    assert (frame[timed] >= 0).all().all()
    assert np.allclose(frame["prune_s"] + frame["score_s"] + frame["search_s"], frame["total_s"])
    summary = breakdown.summarize(frame, model, breakdown.configured_structure(model, PARAMS))
    seconds = [part["seconds"] for part in summary["components"]]
    assert [(p["stage"], p["component"]) for p in summary["components"]] == list(breakdown.COMPONENTS)
    assert min(seconds) >= 0
    assert sum(seconds) <= summary["total_seconds"] * (1 + 1e-9)
    assert sum(seconds) == pytest.approx(summary["total_seconds"])
    assert summary["paper_space"]["sentences"] == 3 and summary["paper_space"]["ratio"] > 0
    assert frame["paper_own_s"].notna().sum() == 3
    assert all(0 < scale <= 1 for scale in summary["estimate_scale"].values())


def test_dp_calls_and_counters_equal_the_decoders(toy):
    """The breakdown's search is the decoder's: per sentence the same DP calls, iterations, nodes, fixing passes
    and factors as decode_bnb reports with the same settings."""
    _, items = toy
    frame, _ = _measure(toy)
    for (_, _, instance), row in zip(items, frame.itertuples(), strict=True):
        solution = bnb_decoders.decode_bnb(instance, **PARAMS)
        stats = solution.stats
        assert row.dp_calls == stats["dp_calls"]
        assert row.subgradient_iterations == stats["subgradient_iterations"]
        assert row.nodes == stats["nodes"] and row.fixing_passes == stats["fixing_passes"]
        assert row.factors == stats["factors"] and row.status == solution.status
        assert row.lower_bound_calls == stats["dp_calls"] - stats["subgradient_iterations"] >= 0
    assert frame["dp_calls"].sum() > len(TOY)


def test_feature_counts_follow_the_templates(toy):
    """Per scored arc the arc templates fire twice each (plain and with direction/distance), the in-between ones
    once per word between head and modifier; second-order parts 2 x 9 features each; non-zero ones are fewer."""
    _, items = toy
    frame, model = _measure(toy, paper_space_bits=None)
    expected = []
    for _, _, instance in items:
        heads, mods = np.nonzero(instance.allowed)
        expected.append(int(sum(2 * (29 + 2 * (abs(h - m) - 1)) for h, m in zip(heads, mods, strict=True))))
    assert frame["arc_features"].tolist() == expected
    assert (frame["part_features"] == 18 * frame["parts"]).all()
    for column in ("arc_features", "part_features", "factor_features"):
        assert (frame[f"{column}_nonzero"] <= frame[column]).all()
    assert (frame["factor_candidates"] >= frame["factors"]).all()
    assert frame["paper_own_s"].isna().all()
    counts = breakdown.template_counts(GROUPS)
    assert counts["arc"] == 31 and counts["sibling"] == counts["outer_grandchild"] == 9
    assert counts["factor:grandchild"] == 7 and counts["factor:hand_crafted"] % 12 == 0
    summary = breakdown.summarize(frame, model, breakdown.configured_structure(model, PARAMS))
    assert summary["backbone_templates"] == 58 and summary["paper_space"]["ratio"] is None
    assert summary["weights"]["size"] == 1 << 12 and summary["weights"]["backbone_size"] == 1 << 11
    assert 0 < summary["weights"]["backbone_nonzero"] <= 1 << 11


def test_split_seconds_scales_estimates_down_to_what_was_measured():
    parts, scale = breakdown.split_seconds(1.0, {"a": 0.25, "b": 0.25}, "rest")
    assert parts == {"a": 0.25, "b": 0.25, "rest": 0.5} and scale == 1.0
    parts, scale = breakdown.split_seconds(1.0, {"a": 1.5, "b": 0.5}, "rest")
    assert parts == {"a": 0.75, "b": 0.25, "rest": 0.0} and scale == 0.5
    with pytest.raises(ValueError, match=">= 0"):
        breakdown.split_seconds(1.0, {"a": -0.1}, "rest")


@pytest.mark.parametrize(
    ("options", "params", "message"),
    [
        ({"repeats": 0}, PARAMS, "repeats must be an integer >= 1"),
        ({"sentences": 0}, PARAMS, "sentences must be an integer >= 1 or null"),
        ({"paper_space_bits": 40}, PARAMS, "paper_space_bits must be at most 31"),
        ({"time_limit": -1}, PARAMS, "time_limit must be a number of seconds > 0"),
        ({}, {**PARAMS, "max_iterations": 0}, "max_iterations must be an integer >= 1"),
        ({}, {**PARAMS, "step_rule": "fast"}, "step_rule must be one of"),
        ({}, {"max_iteration": 7}, "the variant's params are not bnb's"),
    ],
)
def test_bad_settings_are_config_errors(toy, options, params, message):
    paths, items = toy
    model = ParserModel.load(paths["full"])
    pruner = ParserModel.load(paths["first"]).numerator
    with pytest.raises(ConfigError, match=message):
        breakdown.measure_breakdown(items, model, pruner, params, **{"time_limit": 30, **options})


def test_a_model_or_pruner_that_does_not_fit_is_a_config_error(toy):
    paths, items = toy
    full, second = ParserModel.load(paths["full"]), ParserModel.load(paths["second"])
    pruner = ParserModel.load(paths["first"]).numerator
    with pytest.raises(ConfigError, match="not a branch-and-bound"):
        breakdown.measure_breakdown(items, second, pruner, PARAMS, time_limit=30)
    with pytest.raises(ConfigError, match="but a pruner was not given"):
        breakdown.measure_breakdown(items, full, None, PARAMS, time_limit=30)
    with pytest.raises(ConfigError, match="another pruner"):  # the model's own weights prune differently
        breakdown.measure_breakdown(items, full, -pruner, PARAMS, time_limit=30, paper_space_bits=None)


def test_breakdown_config_references_are_checked():
    from decoders.bnb.settings import _bnb_breakdown_references

    bnb = {
        "datasets": ["wsj"], "models": {"full": {"groups": ["sibling"]}, "baseline": {"order": 2}},
        "variants": {"bnb": {"decoder": "bnb"}, "second-order": {"decoder": "second-order"}},
    }  # fmt: skip
    good = {"model": "full", "variant": "bnb", "dataset": "wsj", "pruning": 10}
    assert _bnb_breakdown_references({**bnb, "breakdown": good}) == []
    assert _bnb_breakdown_references(bnb) == []
    for change, message in [
        ({"dataset": "ptb"}, "breakdown.dataset: 'ptb' is not one of experiments.bnb.datasets"),
        ({"model": "nope"}, "breakdown.model: 'nope' is not one of"),
        ({"model": "baseline"}, "'baseline' is not a branch-and-bound model"),
        ({"variant": "second-order"}, "decodes with 'second-order'; the breakdown times bnb"),
        ({"variant": "fast"}, "breakdown.variant: 'fast' is not one of"),
    ]:
        assert message in "\n".join(_bnb_breakdown_references({**bnb, "breakdown": {**good, **change}}))


def _runs(items, variant, seconds):
    rows = [
        make_record(
            experiment="bnb", dataset=f"wsj~full~k{K}", variant=variant, instance_id=i, size=size,
            seconds=seconds * size, params={}, solution=Solution([0] * size, 1.0, 1.0, "optimal", {"dp_calls": 2}),
            evaluation={"correct": size, "total": size},
        )
        for i, size, _ in items
    ]  # fmt: skip
    return records_frame(rows)


def test_the_job_writes_its_files_and_the_table_accounts_for_the_factor(toy, tmp_path):
    paths, items = toy
    shards = [tmp_path / "shard-0.pkl", tmp_path / "shard-1.pkl"]
    write_instance_shards(items, shards, tmp_path / "index.tsv")
    out = tmp_path / "breakdown.parquet"
    breakdown.breakdown_job(
        str(tmp_path / "index.tsv"), [str(s) for s in shards], paths["full"], paths["first"], str(out),
        str(out.with_suffix(".json")), set_name=f"wsj~full~k{K}", variant="bnb", params=PARAMS, time_limit=30,
        repeats=1, paper_space_bits=16, paper_space_sentences=2,
    )  # fmt: skip
    frame = pd.read_parquet(out)
    summary = json.loads(out.with_suffix(".json").read_text())
    assert frame["instance_id"].tolist() == [i for i, _, _ in items]  # the index's order
    assert summary["set"] == f"wsj~full~k{K}" and summary["words"] == sum(len(w) for w, _, _ in TOY)
    records = bnb_tables.load_runs_frame(
        pd.concat([_runs(items, "bnb", 0.001), _runs(items, "bnb-paper", 0.003)], ignore_index=True)
    )
    settings = {"search": {"model": "full", "variant": "bnb-paper", "pruning": [K]}}
    # a paper row for the toy's k: the table reads the paper's words/s at the set's k
    summary["set"] = "wsj~full~k10"
    records["set"] = "wsj~full~k10"
    table, notes, title = bnb_tables.breakdown_table(frame, summary, records, settings)
    assert title == "bnb: where the time goes (wsj, k = 10)"
    time_rows = table[(table["section"] == "time") & (table["stage"] != "total")]
    assert time_rows["pct_of_total"].sum() == pytest.approx(100.0)
    assert (time_rows["ms_per_sentence"] >= 0).all()
    harness = table[table["item"] == "the harness's timed run of bnb"]
    assert harness["words_per_s"].iloc[0] == pytest.approx(1000.0)
    model_rows = table[table["section"] == "model"].set_index("item")
    assert model_rows.loc["non-zero weights", "paper"] == 86_700_000
    assert model_rows.loc["backbone templates, hashed plain and with direction (distance)", "ours"] == 116
    assert model_rows.loc["hand-crafted patterns", "paper"] == 13
    factors = table[table["section"] == "factor"].set_index("item")["factor"]
    first, space, search, explained, observed, left = factors.tolist()
    assert first > 1 and space > 0 and explained == pytest.approx(first * space * search)
    # the paper's search settings took 3x the seconds per word of ours in the harness: that much more search
    assert search > 1
    assert observed == pytest.approx(summary["words"] / summary["total_seconds"] / 177)
    assert left == pytest.approx(observed / explained)
    assert any("86.7M non-zero weighted features" in note for note in notes)
    assert any(f"x{observed:.1f}" in note for note in notes)
    alone, notes, _ = bnb_tables.breakdown_table(
        frame, summary, records[records["variant"] == "bnb"], settings
    )
    factors = alone[alone["section"] == "factor"].set_index("item")["factor"]
    assert not any(item.startswith("search settings") for item in factors.index)  # not run: no row
    assert any("search settings were not run" in note for note in notes)
    assert factors.iloc[-1] == pytest.approx(factors.iloc[-2] / (first * space))
    empty, notes, _ = bnb_tables.breakdown_table(None, None, records, settings)
    assert empty.empty and "no `breakdown` entry" in notes[0]


def test_public_functions_name_a_bad_argument(toy, tmp_path):
    """Found here: wrong objects gave AttributeErrors ('ndarray' object has no attribute 'structure'), a string
    estimate a TypeError, None shards 'NoneType' object is not iterable, and feature_counts handed arrays of any
    shape to its compiled kernels unchecked."""
    paths, items = toy
    model = ParserModel.load(paths["full"])
    structure = breakdown.configured_structure(model, PARAMS)
    instance = items[0][2]
    weights = model.numerator
    arc = np.zeros((instance.n + 1, instance.n + 1))
    for call, words in [
        (lambda: breakdown.template_counts("comb"), "groups must be a sequence of strings"),
        (lambda: breakdown.template_counts([5]), r"groups\[0\] must be a string"),
        (lambda: breakdown.configured_structure(np.zeros(2), PARAMS), "model must be a ParserModel"),
        (lambda: breakdown.configured_structure(model, [1]), "params must be a mapping"),
        (lambda: breakdown.split_seconds("1", {}, "rest"), "measured must be a number"),
        (lambda: breakdown.split_seconds(1.0, {"a": "x"}, "rest"), r"estimates\['a'\] must be a number"),
        (lambda: breakdown.split_seconds(1.0, {"a": np.nan}, "rest"), r"estimates\['a'\] must be finite"),
        (lambda: breakdown.split_seconds(1.0, [0.5], "rest"), "estimates must be a mapping"),
        (lambda: breakdown.summarize(None, model, structure), "frame must be a pandas DataFrame"),
        (lambda: breakdown.read_instance_set(tmp_path / "index.tsv", None), "shards must be a sequence"),
        (lambda: breakdown.read_instance_set(5, []), "index must be a path"),
        (
            lambda: breakdown.feature_counts(
                structure, instance.tokens[:, :2], weights, instance.allowed, arc
            ),
            "allowed must have shape",
        ),  # fmt: skip
        (
            lambda: breakdown.feature_counts(structure, instance.tokens, weights, instance.allowed, arc[:2]),
            "arc must be a square",
        ),  # fmt: skip
        (lambda: breakdown.feature_counts("s", instance.tokens, weights, instance.allowed, arc), "structure"),
        (
            lambda: breakdown.measure_sentence(
                instance, structure, weights, None, time_limit=math.nan, repeats=1
            ),
            "time_limit must be a number of seconds > 0",
        ),  # fmt: skip
        (
            lambda: breakdown.measure_sentence(None, structure, weights, None, time_limit=1, repeats=1),
            "instance must be a ParseInstance",
        ),  # fmt: skip
        (
            lambda: breakdown.measure_breakdown(None, model, None, PARAMS, time_limit=1),
            "items must be a sequence",
        ),
        (
            lambda: breakdown.breakdown_job(
                "i", ["s"], "m", None, "r", 7, set_name="x", variant="bnb", params={}, time_limit=1
            ),
            "summary_out must be a path",
        ),  # fmt: skip
    ]:
        with pytest.raises((ValueError, ConfigError), match=words):
            call()
