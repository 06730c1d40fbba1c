"""bnb stages: splits with a carved dev, tags, training under pruning, instance sets, oracles, tables."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from decoders.bnb import decoders as bnb_decoders
from decoders.bnb import pipeline
from decoders.bnb.model import structure_of
from decoders.errors import ConfigError, CorpusFormatError, DecodersError
from decoders.harness.instances import read_instance_index, read_instance_shard
from decoders.harness.protocol import Solution
from decoders.harness.records import make_record, records_frame
from decoders.parsing.features import Vocabulary
from decoders.parsing.model import FIXED_POINT_BITS, ParserModel
from decoders.parsing.treebank import ParseSentence
from decoders.parsing.trees import all_trees
from decoders.tables import bnb as bnb_tables
from decoders.tables.stats import bootstrap_p_value

TAGGER = {"method": "ssvm", "lambda_e": 0.1, "lambda_t": 0.1, "epochs": 3, "learning_rate": 0.1}

SENTENCES = [
    (["the", "dog", "barks", "."], ["DT", "NN", "VBZ", "."], [2, 3, 0, 3]),
    (["the", "cat", "sees", "the", "dog"], ["DT", "NN", "VBZ", "DT", "NN"], [2, 3, 0, 5, 3]),
    (["cats", "see", "a", "bird", "."], ["NNS", "VBP", "DT", "NN", "."], [2, 0, 4, 2, 2]),
    (["a", "bird", "sings", "loudly"], ["DT", "NN", "VBZ", "RB"], [2, 3, 0, 3]),
    (["dogs", "chase", "cats", ","], ["NNS", "VBP", "NNS", ","], [2, 0, 2, 2]),
]


def _frame(prefix: str, copies: int, docs: int) -> pd.DataFrame:
    rows = []
    for i in range(copies):
        for j, (words, tags, heads) in enumerate(SENTENCES):
            rows.append(
                {
                    "sent_id": f"{prefix}{i}-{j}",
                    "doc_id": f"d{(i * len(SENTENCES) + j) % docs:02d}",
                    "words": words,
                    "coarse_tags": [t[:2] for t in tags],
                    "tags": tags,
                    "heads": heads,
                    "deprels": ["dep"] * len(words),
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    folder = tmp_path_factory.mktemp("prepared")
    paths = {}
    for split, copies in (("train", 6), ("test", 1)):
        paths[split] = str(folder / f"{split}.parquet")
        _frame(split, copies, 10).to_parquet(paths[split])
    return paths


def test_a_dev_split_is_carved_from_train_by_document(prepared):
    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    assert list(frames) == ["train", "dev", "test"]
    assert len(frames["train"]) + len(frames["dev"]) == 30
    assert set(frames["train"]["doc_id"]).isdisjoint(frames["dev"]["doc_id"])
    assert len(frames["dev"]) >= 6
    with pytest.raises(ConfigError, match="train and test"):
        pipeline.load_splits({"train": prepared["train"]}, dev_fraction=0.2)


def test_gold_and_predicted_tags(prepared):
    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    table, summary = pipeline.tag_splits(
        frames, mode="predicted", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    assert summary["accuracy"]["test"] > 80 and summary["folds"] == 2
    assert table.groupby("split").size().to_dict() == {s: len(frames[s]) for s in ("train", "dev", "test")}
    tags, coarse = pipeline.tags_of(table, "test", frames["test"], "tags")
    assert coarse == [[t[:2] if t[0].isalpha() else t for t in s] for s in tags]
    gold, summary = pipeline.tag_splits(
        frames, mode="gold", language="zh", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    assert summary["accuracy"] == {"train": 100.0, "dev": 100.0, "test": 100.0}
    assert pipeline.tags_of(gold, "test", frames["test"], "t")[1] == frames["test"]["coarse_tags"].tolist()
    with pytest.raises(ConfigError, match="English only"):
        pipeline.tag_splits(
            frames, mode="predicted", language="zh", tagger=TAGGER, folds=2, min_count=1, seed=0
        )
    with pytest.raises(ConfigError, match="'silver'"):
        pipeline.tag_splits(frames, mode="silver", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0)
    with pytest.raises(CorpusFormatError, match="do not belong"):
        pipeline.tags_of(gold, "test", frames["dev"], "tags.parquet")


def test_the_peer_records_its_parser_seconds_per_sentence(prepared, monkeypatch):
    """run_udpipe keeps UDPipe's seconds sentence by sentence (Table 3's intervals resample them) and their sum as
    the summary's; the parser is replaced by one that answers the gold trees at known times."""
    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    table, _ = pipeline.tag_splits(
        frames, mode="gold", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    test = frames["test"]
    times = [0.001 * (i + 1) for i in range(len(test))]

    def parse(model_path, frame, *, tags, coarse_tags):
        assert len(tags) == len(coarse_tags) == len(frame)
        return [list(heads) for heads in frame["heads"]], times

    monkeypatch.setattr(pipeline, "parse_udpipe_each", parse)
    rows, summary = pipeline.run_udpipe(frames, table, model_path="m", training={}, language="en")
    assert (
        rows["seconds"].tolist() == times
        and rows["instance_id"].tolist() == test["sent_id"].astype(str).tolist()
    )
    assert summary["parse_seconds"] == pytest.approx(sum(times))
    assert summary["words_per_s"] == pytest.approx(rows["words"].sum() / sum(times))
    assert (rows["correct"] == rows["total"]).all()


@pytest.fixture(scope="module")
def trained(prepared, tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    table, _ = pipeline.tag_splits(
        frames, mode="gold", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    common = {"language": "en", "epochs": 2, "bits": 12, "seed": 0, "progress": False}
    first, meta = pipeline.train_parser(frames, table, structure={"order": 1}, k=2, pruner=None, **common)
    paths = {"first": str(folder / "first.npz")}
    first.save(paths["first"])
    assert meta["k"] is None and meta["non_projective_left_out"] == 0 and len(meta["epochs"]) == 2
    start = None
    for name, structure in (("second", {"order": 2}), ("full", {"groups": ["sibling", "comb"]})):
        model, meta = pipeline.train_parser(
            frames,
            table,
            structure=structure,
            k=2,
            pruner=first,
            start=start,
            start_source="second",
            **common,
        )
        assert meta["k"] == 2 and meta["epochs"][meta["best_epoch"] - 1]["dev_uas"] > 50
        paths[name] = str(folder / f"{name}.npz")
        model.save(paths[name])
        start = ParserModel.load(paths[name])  # the non-local model continues from the second-order one
        np.testing.assert_array_equal(start.running, model.running)
    assert meta["start_from"] == "second"
    # the full model: the second-order model's space, then the factors' own; its average goes on from the
    # second-order model's (2 more epochs over the same sentences)
    second, full = ParserModel.load(paths["second"]), ParserModel.load(paths["full"])
    assert full.numerator.shape == (2 * second.numerator.shape[0],)
    sentences = meta["train_sentences"] - meta["non_projective_left_out"]
    assert full.denominator == second.denominator + meta["best_epoch"] * sentences
    return frames, table, paths


def test_training_starts_only_from_running_weights_of_the_same_feature_space(trained):
    frames, table, paths = trained
    common = {"language": "en", "epochs": 1, "bits": 12, "seed": 0, "progress": False, "k": 2}
    first = ParserModel.load(paths["first"])
    second = ParserModel.load(paths["second"])
    assert second.running is not None and np.array_equal(second.running, np.rint(second.running))
    structure = {"groups": ["sibling"]}
    second.running = None
    with pytest.raises(ConfigError, match="second.npz holds no running weights"):
        pipeline.train_parser(
            frames,
            table,
            structure=structure,
            pruner=first,
            start=second,
            start_source="second.npz",
            **common,
        )
    other = ParserModel.load(paths["second"])
    other.vocabulary = Vocabulary({"w:x": 5})
    with pytest.raises(ConfigError, match="other.npz was trained on other data"):
        pipeline.train_parser(
            frames, table, structure=structure, pruner=first, start=other, start_source="other.npz", **common
        )
    with pytest.raises(ConfigError, match="feature_bits differ"):
        pipeline.train_parser(
            frames, table, structure=structure, pruner=first, start=ParserModel.load(paths["second"]),
            **{**common, "bits": 13},
        )  # fmt: skip
    with pytest.raises(ValueError, match="running weights must be integers"):
        ParserModel(first.numerator, 1, first.vocabulary, {"order": 1}, running=first.numerator + 0.5)
    for start, structure in (
        (first, {"groups": ["sibling"]}),
        (ParserModel.load(paths["second"]), {"order": 3}),
    ):
        with pytest.raises(ConfigError, match="can only start a non-local model"):
            pipeline.train_parser(
                frames, table, structure=structure, pruner=first, start=start, start_source="s.npz", **common
            )


def test_a_second_order_model_continues_the_baseline_as_an_equal_training_reference(trained):
    """A second-order model started from the baseline goes on from its running weights and its average, in the
    same (backbone) space, for its own epochs: the factor models' continuation without factors."""
    frames, table, paths = trained
    first, second = ParserModel.load(paths["first"]), ParserModel.load(paths["second"])
    common = {"language": "en", "epochs": 2, "bits": 12, "seed": 0, "progress": False, "k": 2}
    model, meta = pipeline.train_parser(
        frames, table, structure={"order": 2}, pruner=first, start=second, start_source="second", **common
    )
    assert model.numerator.shape == second.numerator.shape and meta["start_from"] == "second"
    sentences = meta["train_sentences"] - meta["non_projective_left_out"]
    assert model.denominator == second.denominator + meta["best_epoch"] * sentences
    if np.array_equal(model.running, second.running):  # no update on these few sentences: the average goes on
        np.testing.assert_array_equal(
            model.numerator, second.numerator + meta["best_epoch"] * sentences * second.running
        )


def test_bnb_passes_count_on_from_the_model_a_model_continues():
    """A model's passes: its own epochs plus those of the model it continues (its own start_from, or the
    experiment's for a groups model); a start_from that is not a second-order model trained from scratch, or on
    a model that is not second order, is a problem naming the key."""
    from decoders.bnb.settings import _bnb_references, bnb_passes, bnb_start

    bnb = {
        "datasets": ["wsj"], "languages": {"wsj": "en"}, "tags": {"wsj": "gold"}, "pruner": "first",
        "epochs": 6, "factor_epochs": 2, "start_from": "baseline",
        "models": {"first": {"order": 1}, "baseline": {"order": 2},
                   "baseline-8": {"order": 2, "start_from": "baseline", "epochs": 2}, "full": {"groups": ["comb"]}},
        "variants": {"second-order": {"decoder": "second-order"}, "bnb": {"decoder": "bnb"}},
        "table2": {"baseline": "second-order", "baseline-8": "second-order", "full": "bnb"},
    }  # fmt: skip
    assert [bnb_start(bnb, m) for m in bnb["models"]] == [None, None, "baseline", "baseline"]
    assert [bnb_passes(bnb, m) for m in bnb["models"]] == [6, 6, 8, 8]
    assert not [p for p in _bnb_references(bnb) if "start_from" in p or "passes" in p]
    bad = {**bnb, "models": {**bnb["models"], "third": {"order": 3, "start_from": "baseline"},
                             "again": {"order": 2, "start_from": "baseline-8"}}}  # fmt: skip
    problems = "\n".join(_bnb_references(bad))
    assert "models.third.start_from: only a second-order model" in problems
    assert "models.again.start_from: 'baseline-8' must be the second-order backbone" in problems
    grouped = {**bnb, "models": {**bnb["models"], "full": {"groups": ["comb"], "start_from": "baseline"}}}
    problems = "\n".join(_bnb_references(grouped))  # unvalidated settings: a problem, not a KeyError
    assert "models.full.start_from: only a second-order model" in problems and "factor groups" in problems


def test_the_backbone_step_scales_the_backbone_weights_only(trained):
    # backbone_step r: the start model's weights are scaled by r and every backbone update moves by r, so the
    # backbone half of the running weights and of the average stays a multiple of r; order models refuse it
    frames, table, paths = trained
    common = {"language": "en", "epochs": 1, "bits": 12, "seed": 0, "progress": False, "k": 2}
    first, second = ParserModel.load(paths["first"]), ParserModel.load(paths["second"])
    structure = {"groups": ["sibling", "comb"]}
    model, meta = pipeline.train_parser(
        frames, table, structure=structure, pruner=first, start=second, backbone_step=3, **common
    )
    half = second.numerator.shape[0]
    assert meta["backbone_step"] == 3 and model.structure == structure
    assert np.all(model.running[:half] % 3 == 0) and np.all(model.numerator[:half] % 3 == 0)
    assert not np.all(second.running % 3 == 0)  # so the start weights were scaled
    # from zero weights every update is seen: backbone steps of 3, factor steps of 1
    scratch, meta = pipeline.train_parser(
        frames, table, structure=structure, pruner=first, backbone_step=3, **common
    )
    assert meta["epochs"][0]["mistakes"] > 0
    assert np.all(scratch.running[:half] % 3 == 0) and np.any(scratch.running[:half] != 0)
    assert np.any(scratch.running[half:] % 3 != 0)
    for bad, match in ((0, "integer >= 1"), (2.0, "integer >= 1"), (True, "integer >= 1")):
        with pytest.raises(ConfigError, match=match):
            pipeline.train_parser(
                frames, table, structure=structure, pruner=first, start=second, backbone_step=bad, **common
            )
    with pytest.raises(ConfigError, match="non-local .groups. models only"):
        pipeline.train_parser(frames, table, structure={"order": 2}, pruner=first, backbone_step=2, **common)


def test_the_head_classifier_is_a_pruner_in_fixed_point(trained, tmp_path):
    frames, table, paths = trained
    common = {"language": "en", "bits": 12, "seed": 0, "progress": False, "k": None, "pruner": None}
    structure = {"classifier": "heads", "learning_rate": 0.1}
    model, meta = pipeline.train_parser(frames, table, structure=structure, epochs=3, **common)
    assert len(meta["epochs"]) == 3 and meta["k"] is None
    best = meta["epochs"][meta["best_epoch"] - 1]
    assert best["dev_loss"] == min(row["dev_loss"] for row in meta["epochs"]) and best["dev_recall_at_3"] > 90
    assert model.denominator == 1 << FIXED_POINT_BITS and model.running is None
    model.save(tmp_path / "heads.npz")
    oracle = pipeline.build_instances(
        frames, table, model_path=paths["full"], pruner_path=tmp_path / "heads.npz", k=1, language="en",
        shard_paths=[tmp_path / "shard.pkl"], index_path=tmp_path / "index.tsv",
    )  # fmt: skip
    assert (oracle["pruned_oracle"] <= oracle["oracle"]).all() and len(oracle) == len(frames["test"])
    with pytest.raises(ConfigError, match="only prunes"):
        structure_of(model.structure, model.vocabulary)
    for bad, message in (
        ({"classifier": "heads", "learning_rate": -1}, "positive number"),
        ({"classifier": "heads", "learning_rate": "fast"}, "positive number"),
        ({"classifier": "arcs"}, "classifier: heads"),
        ({"classifier": "heads", "order": 1}, "classifier: heads"),
        ({"classifier": "heads", "learning_rate": 1e307}, "diverged"),
        ({"classifier": "heads", "learning_rate": 1e290}, "grew past"),
    ):
        with pytest.raises(ConfigError, match=message):
            pipeline.train_parser(frames, table, structure=bad, epochs=1, **common)


def test_instances_carry_the_pruning_and_the_oracles(trained, tmp_path):
    frames, table, paths = trained
    shards = [tmp_path / "shard-0.pkl", tmp_path / "shard-1.pkl"]
    oracle = pipeline.build_instances(
        frames, table, model_path=paths["full"], pruner_path=paths["first"], k=1, language="en",
        shard_paths=shards, index_path=tmp_path / "index.tsv",
    )  # fmt: skip
    items = [item for shard in shards for item in read_instance_shard(shard)]
    assert sorted(read_instance_index(tmp_path / "index.tsv")) == sorted(oracle["instance_id"])
    for _, size, instance in items:
        assert instance.k == 1 and instance.n == size
        assert instance.pruner == str(Path(paths["first"]).resolve())
        assert (instance.allowed.sum(axis=0)[1:] >= 1).all()
        assert instance.allowed.sum() <= 2 * instance.n  # k heads + the pruner's own tree
        # the decoders prune again inside their timed call, and get the instance's arcs
        assert np.array_equal(bnb_decoders.pruned_arcs(instance), instance.allowed)
    pipeline.build_instances(
        frames, table, model_path=paths["full"], pruner_path=paths["first"], k=None, language="en",
        shard_paths=shards, index_path=tmp_path / "index.tsv",
    )  # fmt: skip
    for _, _, instance in (item for shard in shards for item in read_instance_shard(shard)):
        assert instance.k is None and instance.pruner is None
        assert np.array_equal(bnb_decoders.pruned_arcs(instance), instance.allowed)
    # punctuation is not scored, and the unpruned projective oracle attaches every scored word
    assert (oracle["oracle"] == oracle["scored"]).all()
    assert (oracle["pruned_oracle"] <= oracle["oracle"]).all()
    assert oracle["scored"].sum() == sum(len(w) for w in frames["test"]["words"]) - 3
    other = ParserModel.load(paths["full"])
    other.vocabulary = Vocabulary({"w:x": 5})
    other.save(tmp_path / "other.npz")
    with pytest.raises(ConfigError, match="vocabularies differ"):
        pipeline.build_instances(
            frames, table, model_path=tmp_path / "other.npz", pruner_path=paths["first"], k=1, language="en",
            shard_paths=shards, index_path=tmp_path / "index.tsv",
        )  # fmt: skip


def test_the_oracle_equals_enumeration(trained):
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(1, 6))
        trees = list(all_trees(n, projective=False))
        gold = trees[int(rng.integers(len(trees)))]
        scored = rng.random(n) < 0.8
        allowed = rng.random((n + 1, n + 1)) < 0.7
        allowed[:, 0] = False
        np.fill_diagonal(allowed, False)
        allowed[0, 1] = allowed[1, 2:] = True  # a projective tree always remains
        sentence = ParseSentence("s", np.ones((4, n + 1), dtype=np.int64), gold, scored)
        for mask in (None, allowed):
            best = max(
                int(((t[1:] == gold[1:]) & scored).sum())
                for t in all_trees(n)
                if mask is None or mask[t[1:], np.arange(1, n + 1)].all()
            )
            assert pipeline.oracle_correct(sentence, mask) == best


def _records(variant, dataset, correct, status="optimal", calls=None, skipped=()):
    rows = []
    for i, c in enumerate(correct):
        stats = {"words": 5} if calls is None else {"words": 5, "dp_calls": calls, "nodes": 1}
        if i in skipped:
            stats["not_attempted"] = True
        rows.append(
            make_record(
                experiment="bnb", dataset=dataset, variant=variant, instance_id=f"s{i}", size=5, seconds=0.01,
                params={}, solution=Solution([0] * 5, 1.0, 1.0, status, stats),
                evaluation={"correct": c, "total": 4},
            )
        )  # fmt: skip
    return records_frame(rows)


def test_paired_bootstrap_and_table2(tmp_path):
    base = pd.DataFrame({"instance_id": ["a", "b", "c"], "correct": [3, 2, 4], "total": [4, 4, 4]})
    same = bnb_tables.paired_bootstrap(base, base)
    assert (same.delta, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    better = base.assign(correct=[4, 3, 4])
    test = bnb_tables.paired_bootstrap(better, base)
    assert test.delta == pytest.approx(100 * 2 / 12) and 0 <= test.low <= test.delta <= test.high
    assert len(test.replicates) == bnb_tables.BOOTSTRAP_SAMPLES
    assert test.p_value == bootstrap_p_value(test.replicates)
    with pytest.raises(ValueError, match="different sentences"):
        bnb_tables.paired_bootstrap(better.iloc[:2], base)
    records = pd.concat(
        [
            _records("second-order", "wsj~baseline~k10", [3, 3, 2, 4]),
            _records("bnb", "wsj~full~k10", [4, 3, 3, 4], calls=7),
            _records("bnb", "wsj~full~unpruned", [4, 3, 3, 4], status="feasible", calls=30),
            _records("cp-sat", "wsj~full~k10", [4, 3, 3, 4]),
            _records("cp-sat", "wsj~full~unpruned", [4, 3, 3, 4], status="timeout", skipped=(0,)),
        ]
    )
    settings = {
        "datasets": ["wsj"], "k": 10, "table2": {"baseline": "second-order", "full": "bnb"},
        "epochs": 6, "factor_epochs": 3, "start_from": "baseline",
        "models": {"baseline": {"order": 2}, "baseline-9": {"order": 2, "epochs": 9}, "full": {"groups": ["comb"]}},
        "table3": {"model": "full", "variant": "bnb", "pruning": [10, None]},
        "audit": {"model": "full", "variant": "cp-sat", "pruning": [10, None]},
        "variants": {
            "second-order": {"decoder": "second-order"}, "bnb": {"decoder": "bnb"}, "cp-sat": {"decoder": "cp-sat"}
        },
    }  # fmt: skip
    frame = bnb_tables.load_runs_frame(records)
    table = bnb_tables.table2(frame, settings).set_index("model")
    assert table.loc["baseline", "uas"] == pytest.approx(75.0)
    assert table.loc["full", "vs_baseline"] == pytest.approx(12.5) and table.loc["full", "passes"] == 9
    assert table.loc["baseline", "paper_uas"] == 92.81 and table.loc["full", "paper_uas"] == 93.17
    assert table.loc["full", "words_per_s"] > 0 and table.loc["baseline", "words_per_s"] > 0
    beside = {
        **settings,
        "variants": {**settings["variants"], "second-order": {"decoder": "second-order", "exclusive": False}},
    }
    untimed = bnb_tables.table2(frame, beside).set_index("model")  # a row decoded beside other jobs: no speed
    assert math.isnan(untimed.loc["baseline", "words_per_s"]) and untimed.loc["full", "words_per_s"] > 0
    # no model trained as long as the full one: no reference, no interval, no verdict
    assert table["reference"].isna().all() and table["vs_reference"].isna().all()
    assert (table["verdict"] == "").all() and bnb_tables.gains_summary(table.reset_index()) == []
    # the baseline trained 9 passes is the full model's equal-training reference
    records = pd.concat([records, _records("second-order", "wsj~baseline-9~k10", [4, 3, 2, 4])])
    frame = bnb_tables.load_runs_frame(records)
    equal = {**settings, "table2": {**settings["table2"], "baseline-9": "second-order"}}
    table = bnb_tables.table2(frame, equal).set_index("model")
    assert table.loc["full", "reference"] == "baseline-9" and table.loc[
        "full", "vs_reference"
    ] == pytest.approx(6.25)
    assert table.loc["full", "vs_baseline"] == 12.5 and table.loc[
        "baseline-9", "vs_baseline"
    ] == pytest.approx(6.25)
    assert table.loc[["baseline", "baseline-9"], "reference"].isna().all()
    # one test in the table: Holm leaves its p-value as it is
    assert table.loc["full", "p_holm"] == table.loc["full", "p_value"]
    delta, p_holm = table.loc["full", ["vs_reference", "p_holm"]]
    assert table.loc["full", "verdict"] == bnb_tables.verdict(delta, p_holm)
    (line,) = bnb_tables.gains_summary(table.reset_index())
    assert line.startswith("full vs baseline-9 (9 passes each): wsj +6.25 [")
    stats = bnb_tables.statistics(frame, settings).set_index("pruning")
    assert stats["words_per_s"].notna().all()
    beside = {**settings, "variants": {**settings["variants"], "bnb": {"decoder": "bnb", "exclusive": False}}}
    assert bnb_tables.statistics(frame, beside)["words_per_s"].isna().all()  # not timed alone: no speed
    assert stats.loc["unpruned", "certified_pct"] == 0 and stats.loc["k10", "dp_calls_mean"] == 7
    table3 = bnb_tables.table3(frame, settings, {}).set_index("system")
    assert table3["vs_unpruned"].tolist() == [1.0, 1.0] and table3["pruned_oracle_uas"].isna().all()
    oracle = tmp_path / "oracle.parquet"
    pd.DataFrame({"scored": [4, 4], "oracle": [4, 4], "pruned_oracle": [4, 3]}).to_parquet(oracle)
    table3 = bnb_tables.table3(frame, settings, {}, {"wsj~full~k10": oracle}).set_index("system")
    assert table3["pruned_oracle_uas"].tolist()[0] == pytest.approx(87.5)
    checked = bnb_tables.audit(frame, settings)
    assert set(checked["words"]) == {"all", "1-10"}  # every sentence has 5 words
    checked = checked[checked["words"] == "all"].set_index("pruning")
    assert checked.loc["k10", ["exact_finished", "both_certified", "agree"]].tolist() == [4, 4, 4]
    assert checked.loc["unpruned", ["exact_timeouts", "exact_not_attempted", "bnb_certified", "agree"]].tolist() == [
        3, 1, 0, 0,
    ]  # fmt: skip
    assert checked.loc["k10", "exact_not_attempted"] == 0
    assert json.loads(records["stats"].iloc[0])["words"] == 5
    # a sentence the worker was stopped on has no tree and no evaluation: it counts with none of its words right
    stopped = make_record(
        experiment="bnb", dataset="wsj~grandchild~k10", variant="bnb", instance_id="s3", size=5, seconds=1.2,
        params={}, solution=Solution(None, float("nan"), float("nan"), "timeout", {}),
    )  # fmt: skip
    halted = make_record(
        experiment="bnb", dataset="wsj~grandchild~k10", variant="bnb", instance_id="s2", size=5, seconds=0.5,
        params={}, solution=Solution([0] * 5, 1.0, 2.0, "feasible", {"dp_calls": 3, "nodes": 1, "memory_stop": 1}),
        evaluation={"correct": 4, "total": 4},
    )  # fmt: skip
    # the search's own deadline: a tree, uncertified
    late = make_record(
        experiment="bnb", dataset="wsj~grandchild~k10", variant="bnb", instance_id="s1", size=5, seconds=120.0,
        params={}, solution=Solution([0] * 5, 1.0, 2.0, "feasible", {"dp_calls": 30, "nodes": 9, "memory_stop": 0, "time_limit_stop": 1}),
        evaluation={"correct": 4, "total": 4},
    )  # fmt: skip
    grandchild = pd.concat(
        [_records("bnb", "wsj~grandchild~k10", [4]), records_frame([late, halted, stopped])]
    )
    frame = bnb_tables.load_runs_frame(pd.concat([records, grandchild], ignore_index=True))
    assert frame.loc[frame["model"] == "grandchild", "total"].tolist() == [4, 4, 4, 4]
    with_grandchild = {
        **equal,
        "models": {**equal["models"], "grandchild": {"groups": ["grandchild"]}},
        "table2": {**equal["table2"], "grandchild": "bnb"},
    }
    row = bnb_tables.table2(frame, with_grandchild).set_index("model").loc["grandchild"]
    assert row["uas"] == pytest.approx(75.0) and row["certified_pct"] == 25.0
    assert row["vs_baseline"] == pytest.approx(0.0) and row["reference"] == "baseline-9"
    assert row["ci_low"] <= row["vs_reference"] <= row["ci_high"]
    counted = bnb_tables.statistics(frame, settings).set_index(["model", "pruning"])
    assert counted.loc[("grandchild", "k10"), ["timeouts", "memory_stops"]].tolist() == [2, 1]
    assert counted.loc[("full", "k10"), ["timeouts", "memory_stops"]].tolist() == [0, 0]


def _sized_records(variant, dataset, sizes, statuses, objectives, skipped=()):
    """Records of sentences s0, s1, ... of the given sizes, statuses and objectives (``skipped``: not attempted)."""
    rows = []
    for i, (size, status, objective) in enumerate(zip(sizes, statuses, objectives, strict=True)):
        stats = {"words": size, **({"not_attempted": True} if i in skipped else {})}
        rows.append(
            make_record(
                experiment="bnb", dataset=dataset, variant=variant, instance_id=f"s{i}", size=size, seconds=2.0,
                params={}, solution=Solution(None if i in skipped else [0] * size, objective, objective, status, stats),
                evaluation={"correct": 1, "total": size},
            )
        )  # fmt: skip
    return records_frame(rows)


def test_the_audit_beyond_short_sentences_and_its_coverage_by_length():
    """Six test sentences of 5, 12, 18, 18, 33 and 50 words: the short variant takes those of at most 15 words,
    `beyond` a sample of the longer ones (s4 left out of its sample, s5 beyond its max_words). Counted by hand."""
    sizes = [5, 12, 18, 18, 33, 50]
    bnb = _sized_records("bnb", "wsj~full~k10", sizes, ["optimal"] * 5 + ["feasible"], [7, 8, 9, 10, 11, 12])
    short = _sized_records("cp-sat", "wsj~full~k10", sizes, ["optimal", "optimal"] + ["timeout"] * 4,
                           [7, 8] + [math.nan] * 4, skipped=(2, 3, 4, 5))  # fmt: skip
    # beyond: s2 proved with B&B's objective, s3 proved with another (a disagreement), s5 not attempted
    long = _sized_records("cp-sat-long", "wsj~full~k10", [18, 18, 50], ["optimal", "optimal", "timeout"],
                          [9, 99, math.nan], skipped=(2,))  # fmt: skip
    long["instance_id"] = ["s2", "s3", "s5"]
    settings = {
        "datasets": ["wsj"], "table3": {"model": "full", "variant": "bnb", "pruning": [10]},
        "audit": {"model": "full", "variant": "cp-sat", "pruning": [10], "beyond": "cp-sat-long",
                  "budget_minutes": 10},
        "harness": {"time_limit": 60},
        "variants": {"bnb": {"decoder": "bnb"},
                     "cp-sat": {"decoder": "cp-sat", "params": {"max_words": 15}, "time_limit": 5, "sample": 60},
                     "cp-sat-long": {"decoder": "cp-sat", "params": {"min_words": 16, "max_words": 40},
                                     "sample": 3}},
    }  # fmt: skip
    frame = bnb_tables.load_runs_frame(pd.concat([bnb, short, long], ignore_index=True))
    table = bnb_tables.audit(frame, settings).set_index("words")
    assert table.index.tolist() == ["all", "1-10", "11-15", "16-20", "31-40", "41+"]
    columns = ["test_sentences", "audited", "exact_finished", "exact_timeouts", "exact_not_attempted",
               "bnb_certified", "both_certified", "agree"]  # fmt: skip
    assert table.loc["all", columns].tolist() == [6, 4, 4, 0, 2, 4, 4, 3]
    assert table.loc["16-20", columns].tolist() == [2, 2, 2, 0, 0, 2, 2, 1]
    assert table.loc["31-40", columns].tolist() == [1, 0, 0, 0, 1, 0, 0, 0]
    assert table.loc["all", "exact_finished_pct"] == pytest.approx(400 / 6)
    assert table.loc["all", "exact_minutes"] == pytest.approx(4 * 2.0 / 60)
    notes = bnb_tables.audit_notes(table.reset_index().assign(dataset="wsj", pruning="k10"), settings)
    assert (
        "cp-sat-long: sentences of 16-40 words, a sample of 3 per set, 60 s each (at most 3.0 minutes)"
        in notes[0]
    )
    assert "Budget per instance set: 10 minutes" in notes[0]
    assert notes[1].startswith(
        "wsj k10: CP-SAT spent 0.1 minutes and certified 4 of 6 test sentences (66.7%)"
    )


def test_the_audit_budget_bounds_its_variants():
    from decoders.bnb.settings import _bnb_audit_budget, audit_worst_case_minutes

    bnb = {
        "audit": {"model": "full", "variant": "cp-sat", "pruning": [10], "beyond": "long", "budget_minutes": 75},
        "harness": {"time_limit": 120},
        "variants": {"cp-sat": {"decoder": "cp-sat", "time_limit": 5, "sample": 500},
                     "long": {"decoder": "cp-sat", "time_limit": 30, "sample": 60}},
    }  # fmt: skip
    assert audit_worst_case_minutes(bnb) == pytest.approx({"cp-sat": 2500 / 60, "long": 30.0})
    assert _bnb_audit_budget(bnb) == []
    tight = {**bnb, "audit": {**bnb["audit"], "budget_minutes": 60}}
    (problem,) = _bnb_audit_budget(tight)
    assert (
        "audit.budget_minutes: 60 minutes per instance set is less than" in problem and "71.6667" in problem
    )
    # the harness's limit stands in for a variant's own; without a sample nothing bounds it
    unsampled = {**bnb, "variants": {**bnb["variants"], "long": {"decoder": "cp-sat"}}}
    (problem,) = _bnb_audit_budget(unsampled)
    assert "the audit variant(s) long need a `sample`" in problem
    assert _bnb_audit_budget({**bnb, "audit": {**bnb["audit"], "budget_minutes": None}}) == []


def test_bnb_config_references_are_checked():
    from decoders.bnb.settings import _bnb_references

    bnb = {
        "datasets": ["wsj"], "languages": {"wsj": "en"}, "tags": {}, "pruner": "baseline",
        "models": {"baseline": {"order": 2}}, "variants": {"bnb": {"decoder": "bnb"}},
        "table2": {"baseline": "second-order"}, "table3": {"model": "full", "variant": "bnb", "pruning": [3]},
    }  # fmt: skip
    problems = "\n".join(_bnb_references(bnb))
    assert "tags: no entry for dataset 'wsj'" in problems
    assert "table3.model: 'full'" in problems
    assert "table2.baseline: 'second-order' is not one of experiments.bnb.variants" in problems
    assert "must be a first-order model" in problems
    assert "start_from" not in problems
    beyond = {**bnb, "audit": {"model": "baseline", "variant": "bnb", "pruning": [3], "beyond": "gone"}}
    assert "audit.beyond: 'gone' is not one of experiments.bnb.variants" in "\n".join(_bnb_references(beyond))
    for start, message in (("full", "'full' is not one of"), ("baseline", None)):
        problems = "\n".join(_bnb_references({**bnb, "start_from": start}))
        assert (message in problems) if message else "start_from" not in problems
    bnb["models"]["first"] = {"order": 1}
    assert "must be the second-order backbone" in "\n".join(_bnb_references({**bnb, "start_from": "first"}))
    # a head classifier prunes and nothing else
    bnb["models"]["heads"] = {"classifier": "heads"}
    assert "pruner" not in "\n".join(_bnb_references({**bnb, "pruner": "heads"}))
    problems = "\n".join(_bnb_references({**bnb, "pruner": "heads", "table2": {"heads": "second-order"}}))
    assert "table2.heads: 'heads' is a head classifier" in problems


def test_every_table2_model_needs_an_equal_training_reference():
    from decoders.bnb.settings import _bnb_references, bnb_passes, bnb_references

    bnb = {
        "datasets": ["wsj"], "languages": {"wsj": "en"}, "tags": {"wsj": "gold"}, "pruner": "first",
        "epochs": 6, "factor_epochs": 3, "start_from": "baseline",
        "models": {"first": {"order": 1}, "baseline": {"order": 2}, "third": {"order": 3, "epochs": 5},
                   "full": {"groups": ["comb"]}},
        "variants": {"second-order": {"decoder": "second-order"}, "bnb": {"decoder": "bnb"}},
        "table2": {"first": "second-order", "baseline": "second-order", "third": "second-order", "full": "bnb"},
    }  # fmt: skip
    assert [bnb_passes(bnb, m) for m in bnb["models"]] == [6, 6, 5, 9]
    assert bnb_references(bnb) == {"first": "baseline", "baseline": None, "third": None, "full": None}
    problems = "\n".join(_bnb_references(bnb))
    assert "table2.full: no second-order model without factors in table2 is trained for 9 passes" in problems
    assert "baseline-9: {order: 2, epochs: 9}" in problems and "table2.third: " in problems
    assert "table2.first" not in problems and "table2.baseline" not in problems
    bnb["models"]["baseline-9"] = {"order": 2, "epochs": 9}
    bnb["table2"]["baseline-9"] = "second-order"
    bnb["models"]["third"] = {"order": 3}
    assert bnb_references(bnb)["full"] == "baseline-9" and bnb_references(bnb)["third"] == "baseline"
    assert not [p for p in _bnb_references(bnb) if "passes" in p]
    # the learning curve trains a model of an order on datasets of the experiment
    curve = {"datasets": ["ptb"], "model": "full", "shares": [0.5]}
    problems = "\n".join(_bnb_references({**bnb, "learning_curve": curve}))
    assert (
        "learning_curve.datasets: 'ptb' is not one of" in problems
        and "learning_curve.model: 'full'" in problems
    )
    # a peer's per-dataset options name datasets of the experiment
    udpipe = {"parser_options": "iterations=10", "datasets": {"ptb": "iterations=10;embedding_xpostag=20"}}
    assert "udpipe.datasets: 'ptb' is not one of its datasets" in "\n".join(
        _bnb_references({**bnb, "udpipe": udpipe})
    )


@pytest.mark.parametrize(
    "delta, p_holm, expected",
    [(0.4, 0.01, "gain"), (-0.4, 0.05, "loss"), (0.4, 0.051, "no significant difference"),
     (0.0, 0.0, "no significant difference"), (float("nan"), 0.1, ""), (0.3, float("nan"), "")],
)  # fmt: skip
def test_a_gain_or_loss_needs_a_corrected_p_value_at_most_5_percent(delta, p_holm, expected):
    assert bnb_tables.verdict(delta, p_holm) == expected


def _chance_gain_settings(models):
    """Table 2 settings where every factor model in ``models`` continues the baseline for 3 passes, so baseline-9
    is the reference of each."""
    return {
        "datasets": ["wsj"], "k": 10, "epochs": 6, "factor_epochs": 3, "start_from": "baseline",
        "models": {"baseline": {"order": 2}, "baseline-9": {"order": 2, "epochs": 9},
                   **{model: {"groups": ["comb"]} for model in models}},
        "table2": {"baseline": "second-order", "baseline-9": "second-order", **dict.fromkeys(models, "bnb")},
        "variants": {"second-order": {"decoder": "second-order", "exclusive": False},
                     "bnb": {"decoder": "bnb", "exclusive": False}},
    }  # fmt: skip


def test_a_chance_gain_among_many_tests_is_not_significant_after_holm():
    """One model gains 1 UAS point on 200 sentences (9 sentences up, 1 down: uncorrected p about 0.01, an interval
    above 0), 20 others equal their reference: alone the gain holds; among 21 tests, Holm's p_holm exceeds 5%."""
    reference = [2] * 200
    lucky = [3] * 9 + [1] + [2] * 190
    runs = [_records("second-order", "wsj~baseline~k10", reference),
            _records("second-order", "wsj~baseline-9~k10", reference),
            _records("bnb", "wsj~lucky~k10", lucky)]  # fmt: skip
    alone = bnb_tables.table2(bnb_tables.load_runs_frame(pd.concat(runs)), _chance_gain_settings(["lucky"]))
    row = alone.set_index("model").loc["lucky"]
    assert row["ci_low"] > 0 and row["p_value"] < 0.05 and row["p_holm"] == row["p_value"]
    assert row["verdict"] == "gain"
    others = [f"same{i}" for i in range(20)]
    runs += [_records("bnb", f"wsj~{model}~k10", reference) for model in others]
    table = bnb_tables.table2(
        bnb_tables.load_runs_frame(pd.concat(runs)), _chance_gain_settings(["lucky", *others])
    ).set_index("model")
    assert table["p_value"].notna().sum() == 21  # the factor models; the baselines have no reference
    row = table.loc["lucky"]
    assert row["p_value"] == alone.set_index("model").loc["lucky", "p_value"]
    assert row["p_holm"] == pytest.approx(min(1.0, 21 * row["p_value"])) and row["p_holm"] > 0.05
    assert row["verdict"] == "no significant difference"
    assert (table.loc[others, "verdict"] == "no significant difference").all()
    assert "p_holm 0.2" in bnb_tables.gains_summary(table.reset_index())[0]


def test_cross_validation_errors_and_patterns(prepared):
    from decoders.bnb.errors import cross_validation_errors, error_patterns

    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    table, _ = pipeline.tag_splits(
        frames, mode="gold", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    # a word attached two ways in the training data: one of the two is always an error
    frames = dict(frames)
    train = frames["train"].copy()
    train.at[0, "heads"] = [3, 3, 0, 3]
    frames["train"] = train
    errors = cross_validation_errors(frames, table, language="en", folds=2, epochs=2, bits=12, k=None, seed=0)
    assert set(errors["fold"]) <= {0, 1} and (errors["tag"] != ".").all()
    assert {"gold_head_tag", "predicted_head_tag", "gold_distance"} <= set(errors.columns)
    patterns = error_patterns(errors, top=5)
    assert patterns["errors"].sum() <= len(errors) and patterns["errors"].is_monotonic_decreasing
    assert patterns["share_pct"].sum() <= 100.0 + 1e-9


def test_the_errors_stage_writes_its_file(prepared, tmp_path):
    from decoders.bnb.errors import errors_job

    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    table, _ = pipeline.tag_splits(
        frames, mode="gold", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    table.to_parquet(tmp_path / "tags.parquet")
    out = tmp_path / "errors.parquet"
    errors_job(
        prepared, str(tmp_path / "tags.parquet"), str(out), dev_fraction=0.2, language="en", folds=2, epochs=1,
        bits=12, k=None, seed=0,
    )  # fmt: skip
    assert set(pd.read_parquet(out).columns) >= {"tag", "gold_head_tag"} or pd.read_parquet(out).empty


def test_the_peer_note_names_the_options_the_peers_were_trained_with(tmp_path):
    peers = {}
    for dataset, options in (
        ("wsj", "iterations=10;embedding_xpostag=20"),
        ("gsd", "iterations=10"),
        ("ewt", None),
    ):
        path = tmp_path / dataset / "udpipe.parquet"
        path.parent.mkdir()
        path.with_suffix(".json").write_text(json.dumps({"training": {"parser_options": options}}))
        peers[dataset] = path
    assert bnb_tables._peer_options(peers) == (
        "wsj `iterations=10;embedding_xpostag=20`; gsd `iterations=10`; ewt `default options`"
    )
    assert bnb_tables._peer_options({}) == "not run"


def test_training_curves_count_a_factor_models_passes_on_from_its_start(tmp_path):
    def history(dataset, model, uas, start=None):
        folder = tmp_path / dataset
        folder.mkdir(exist_ok=True)
        epochs = [{"epoch": i + 1, "dev_uas": value} for i, value in enumerate(uas)]
        text = json.dumps({"epochs": epochs, "start_from": start and str(folder / f"{start}.npz")})
        (folder / f"{model}.history.json").write_text(text)
        return str(folder / f"{model}.history.json")

    paths = [
        history("wsj", "baseline", [80.0, 82.0]),
        history("wsj", "third-order", [79.0, 82.5]),
        history("wsj", "full", [83.0], start="baseline"),
        history("wsj", "head-classifier", [None]),
    ]
    curves = bnb_tables._curves(paths)
    assert curves.set_index("model").loc["full", "pass"] == 3  # after the baseline's 2
    assert "head-classifier" not in set(curves["model"])
    assert bnb_tables.curve_gaps(curves, "third-order") == [
        "wsj: below at 1 of 2 passes, best 82.50 against 82.00"
    ]
    bnb_tables.training_curves(curves, tmp_path / "training.png")
    assert (tmp_path / "training.png").stat().st_size > 0


def test_a_learning_curve_trains_on_growing_shares_of_the_documents(prepared, tmp_path):
    frames = pipeline.load_splits(prepared, dev_fraction=0.2)
    table, _ = pipeline.tag_splits(
        frames, mode="gold", language="en", tagger=TAGGER, folds=2, min_count=1, seed=0
    )
    common = {"language": "en", "epochs": 2, "bits": 12, "seed": 0, "k": None, "pruner": None}
    curve = pipeline.learning_curve(frames, table, shares=[0.5, 1.0], structure={"order": 1}, **common)
    documents = frames["train"]["doc_id"].nunique()
    assert curve["documents"].tolist() == [round(documents / 2), documents]
    assert curve["train_sentences"].tolist()[-1] == len(frames["train"])
    # the whole training set gives train_parser's own model
    _, meta = pipeline.train_parser(frames, table, structure={"order": 1}, progress=False, **common)
    assert curve["dev_uas"].iloc[-1] == meta["epochs"][meta["best_epoch"] - 1]["dev_uas"]
    with pytest.raises(ConfigError, match=r"shares: 0 is not in \(0, 1\]"):
        pipeline.learning_curve(frames, table, shares=[0], structure={"order": 1}, **common)
    # the table: gains per share and per doubling of the training sentences
    path = tmp_path / "wsj" / "learning_curve.parquet"
    path.parent.mkdir()
    pd.DataFrame(
        {"share": [0.25, 0.5, 1.0], "documents": [1, 2, 4], "train_sentences": [100, 200, 400],
         "best_epoch": [1, 2, 2], "dev_uas": [80.0, 82.0, 83.0]}
    ).to_parquet(path)  # fmt: skip
    table = bnb_tables.learning_curve_table([path])
    assert table["gain"].tolist()[1:] == [2.0, 1.0] and table["gain_per_doubling"].tolist()[1:] == [2.0, 1.0]
    assert bnb_tables._doublings(table) == pytest.approx(np.log2(39832 / 400))


def test_factor_groups_kept_to_a_language_leave_the_others_models():
    """factor_languages keeps a group to datasets of its languages: on the others a model goes without it, and a
    model left with no group is not trained there (the hand-crafted factors: English only, as section 4.3)."""
    from decoders.bnb.settings import bnb_groups, bnb_models

    bnb = {
        "languages": {"wsj": "en", "gsd": "zh"},
        "factor_languages": {"hand_crafted": ["en"]},
        "models": {
            "baseline": {"order": 2},
            "hand-crafted": {"groups": ["hand_crafted"]},
            "full": {"groups": ["grandchild", "hand_crafted", "sibling"]},
        },
    }
    assert bnb_groups(bnb, "wsj", "full") == ["grandchild", "hand_crafted", "sibling"]
    assert bnb_groups(bnb, "gsd", "full") == ["grandchild", "sibling"]
    assert bnb_groups(bnb, "gsd", "baseline") is None and bnb_groups(bnb, "gsd", "hand-crafted") == []
    assert bnb_models(bnb, "wsj") == ["baseline", "hand-crafted", "full"]
    assert bnb_models(bnb, "gsd") == ["baseline", "full"]
    del bnb["factor_languages"]  # none given: every group on every dataset
    assert bnb_models(bnb, "gsd") == ["baseline", "hand-crafted", "full"]


def test_settings_readers_name_a_bad_setting_or_model():
    """Found here: a bnb setting that is not a mapping, a model it lacks or a missing key gave a raw KeyError,
    TypeError or AttributeError from bnb_start, bnb_passes, bnb_epochs, bnb_groups, bnb_models, bnb_references
    and problems."""
    from decoders.bnb import settings

    bnb = {"models": {"first": {"order": 1}}, "epochs": 2}
    assert settings.bnb_epochs(bnb, "first") == 2
    for call, words in [
        (lambda: settings.bnb_start([1], "first"), r"experiments.bnb \(bnb\) must be a mapping"),
        (lambda: settings.bnb_passes({"models": None}, "first"), "experiments.bnb.models must be a mapping"),
        (lambda: settings.bnb_epochs(bnb, "second"), "model 'second' is not one of experiments.bnb.models"),
        (lambda: settings.bnb_epochs(bnb, ["first"]), "model must be a string"),
        (lambda: settings.bnb_groups(bnb, 5, "first"), "dataset must be a string"),
        (lambda: settings.bnb_models(bnb, None), "dataset must be a string"),
        (lambda: settings.bnb_references(bnb), "experiments.bnb lacks the setting 'table2'"),
        (lambda: settings.problems(bnb), "experiments.bnb lacks the setting"),
        (lambda: settings.problems(None), "must be a mapping"),
    ]:
        with pytest.raises(ConfigError, match=words):
            call()


def test_pipeline_functions_name_a_bad_argument(prepared, tmp_path):
    """Found here: frames that are not a mapping of the three splits, a table that is not a DataFrame, paths
    that are not paths and a missing dev_fraction gave raw KeyErrors, TypeErrors and IndexErrors."""
    from decoders.bnb import errors
    from decoders.parsing.treebank import load_splits

    frames = load_splits(prepared, dev_fraction=0.2)
    table = pd.DataFrame({"split": [], "sent_id": [], "tags": [], "coarse": []})
    common = {"language": "en", "tagger": TAGGER, "folds": 2, "min_count": 1, "seed": 0}
    for call, words in [
        (lambda: pipeline.tag_splits([1], mode="gold", **common), "frames must be a mapping"),
        (lambda: pipeline.tag_splits({}, mode="gold", **common), "frames lacks the split"),
        (lambda: pipeline.tag_splits({**frames, "dev": None}, mode="gold", **common), r"frames\['dev'\]"),
        (lambda: pipeline.tag_splits(frames, mode=np.zeros(2), **common), "mode must be a string"),
        (lambda: pipeline.tag_splits(frames, mode="gold", **{**common, "seed": -1}), "seed must be"),
        (lambda: pipeline.tags_of(None, "train", frames["train"], "t"), "table must be a pandas DataFrame"),
        (lambda: pipeline.train_vocabulary(frames, table, 5), "source must be a string"),
        (lambda: pipeline.factor_counts(frames, [1], language="en"), "table must be a pandas DataFrame"),
        (lambda: pipeline.oracle_correct(None, None), "sentence must be a ParseSentence"),
        (lambda: pipeline.learning_curve(frames, table, shares=0.5), "shares must be a sequence"),
        (
            lambda: pipeline.write_tags(table, [1], tmp_path / "t", tmp_path / "s"),
            "summary must be a mapping",
        ),
        (lambda: pipeline.write_tags(table, {}, None, tmp_path / "s"), "tags_path must be a path"),
        (lambda: pipeline.tags_job(prepared, tmp_path / "t", tmp_path / "s", **common), "needs dev_fraction"),
        (lambda: pipeline.tags_job([1], tmp_path / "t", tmp_path / "s"), "splits must be a mapping"),
        (lambda: pipeline.tags_job({"train": 5}, tmp_path / "t", tmp_path / "s"), r"splits\['train'\]"),
        (
            lambda: pipeline.train_job(prepared, None, "m", "h", pruner=None, dev_fraction=0.2),
            "tags must be a",
        ),
        (lambda: pipeline.instances_job(prepared, "t", True, dev_fraction=0.2), "oracle_out must be a path"),
        (lambda: pipeline.factor_counts_job(prepared, "t", 3, dev_fraction=0.2, language="en"), "counts_out"),
        (
            lambda: pipeline.udpipe_job(prepared, "t", "m", "t", "r", 0, dev_fraction=0.2, language="en"),
            "summary_out must be a path",
        ),  # fmt: skip
        (lambda: errors.error_patterns([1]), "errors must be a pandas DataFrame"),
        (lambda: errors.errors_job(prepared, 1.5, "e", dev_fraction=0.2), "tags must be a path"),
        (
            lambda: errors.cross_validation_errors(
                None, table, language="en", folds=2, epochs=1, bits=8, k=None, seed=0
            ),
            "frames must be a mapping",
        ),  # fmt: skip
    ]:
        with pytest.raises((ValueError, DecodersError), match=words):
            call()


def test_the_seeds_table_gives_each_seeds_uas_and_their_spread():
    """Baseline and full trained with seeds 13 (the run's: plain names), 14 and 15, four sentences of 4 scored
    words each; the UAS per seed counted by hand: baseline 75, 50, 62.5; full 87.5, 62.5, 62.5."""
    correct = {("baseline", 13): [3, 3, 3, 3], ("baseline", 14): [2, 2, 2, 2], ("baseline", 15): [3, 3, 2, 2],
               ("full", 13): [4, 4, 3, 3], ("full", 14): [3, 3, 2, 2], ("full", 15): [2, 3, 3, 2]}  # fmt: skip
    names = {13: "{}", 14: "{}.seed14", 15: "{}.seed15"}
    records = pd.concat(
        [
            _records(
                "second-order" if model == "baseline" else "bnb", f"wsj~{names[seed].format(model)}~k10", c
            )
            for (model, seed), c in correct.items()
        ]
    )
    settings = {
        "datasets": ["wsj"], "k": 10, "epochs": 6, "factor_epochs": 2, "start_from": "baseline",
        "models": {"baseline": {"order": 2}, "baseline-8": {"order": 2, "epochs": 8}, "full": {"groups": ["comb"]}},
        "table2": {"baseline": "second-order", "full": "bnb"},
        "seeds": {"datasets": ["wsj"], "models": ["baseline", "full"], "seeds": [13, 14, 15]},
        "variants": {"second-order": {"decoder": "second-order"}, "bnb": {"decoder": "bnb"}},
    }  # fmt: skip
    frame = bnb_tables.load_runs_frame(records)
    histories = {"wsj/full": {"seconds": 60.0}, "wsj/full.seed14": {"seconds": 120.0}}
    table = bnb_tables.seeds_table(frame, settings, 13, histories).set_index("model")
    baseline = table.loc["baseline"]
    assert baseline[["seed_13", "seed_14", "seed_15"]].tolist() == [75.0, 50.0, 62.5]
    assert baseline["mean"] == pytest.approx(62.5) and baseline["range"] == 25.0
    assert baseline["sd"] == pytest.approx(12.5) and baseline["seeds"] == 3  # sd of 75, 50, 62.5 (n - 1)
    assert (
        math.isnan(baseline["train_minutes_per_seed"]) and table.loc["full", "train_minutes_per_seed"] == 1.5
    )
    gain = table.loc["full - baseline"]
    assert gain[["seed_13", "seed_14", "seed_15"]].tolist() == [12.5, 12.5, 0.0] and gain["decoder"] == ""
    # the run's seed names the plain models: with 14, seed 13's would be baseline.seed13 (not run here)
    other = bnb_tables.seeds_table(frame, settings, 14).set_index("model").loc["baseline"]
    assert other["seed_14"] == 75.0 and math.isnan(other["seed_13"]) and other["seeds"] == 2
    # Table 2 differences within the widest seed range (25 points: the baseline's, as the full model's) are named
    second = pd.DataFrame({"dataset": ["wsj", "wsj"], "model": ["full", "baseline"], "vs_reference": [3.0, math.nan],
                           "vs_baseline": [30.0, math.nan]})  # fmt: skip
    (note,) = bnb_tables.seed_notes(table.reset_index(), second)
    assert note.startswith("wsj: the baseline model's UAS spans 25.00 points over 3 seeds (sd 12.50)")
    assert note.endswith("which the seed alone could produce: full vs reference +3.00.")
    assert bnb_tables.seed_notes(pd.DataFrame(), second) == [
        "not measured: config/bnb.yaml has no `seeds` entry"
    ]


def test_the_seed_study_names_and_checks_its_models():
    from decoders.bnb.settings import _bnb_seed_references, seed_models
    from decoders.seeds import seeded_name, unseeded

    assert seeded_name("full", 13, 13) == "full" and seeded_name("full", 14, 13) == "full.seed14"
    assert unseeded("full.seed14") == ("full", 14) and unseeded("baseline-8") == ("baseline-8", None)
    assert unseeded("full.seedy") == ("full.seedy", None)
    bnb = {
        "datasets": ["wsj"], "start_from": "baseline",
        "models": {"baseline": {"order": 2}, "full": {"groups": ["comb"]}, "third": {"order": 3}},
        "table2": {"baseline": "second-order", "full": "bnb"},
        "seeds": {"datasets": ["wsj"], "models": ["baseline", "full"], "seeds": [13, 14, 15]},
    }  # fmt: skip
    assert seed_models(bnb, 13) == {"baseline.seed14": ("baseline", 14), "baseline.seed15": ("baseline", 15),
                                    "full.seed14": ("full", 14), "full.seed15": ("full", 15)}  # fmt: skip
    assert _bnb_seed_references(bnb) == []
    wrong = {**bnb, "seeds": {"datasets": ["ptb"], "models": ["full", "third", "gone"], "seeds": [1, 2]}}
    problems = "\n".join(_bnb_seed_references(wrong))
    assert "seeds.datasets: 'ptb' is not one of its datasets" in problems
    assert "seeds.models: 'gone' is not one of experiments.bnb.models" in problems
    assert "seeds.models: 'third' is not in table2" in problems
    assert "'full' continues 'baseline''s training, so 'baseline' must be trained with each seed" in problems
    clash = {**bnb, "models": {**bnb["models"], "x.seed2": {"order": 2}}}
    assert "experiments.bnb.models.x.seed2: the seed study names" in "\n".join(_bnb_seed_references(clash))
