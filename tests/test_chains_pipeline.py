"""chains end to end on a small WSJ slice: train, build instance sets, run every variant, tabulate."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from decoders.chains.pipeline import build_instances, train_crfsuite_model, train_model
from decoders.config import load_config
from decoders.corpora.wsj import read_wsj
from decoders.harness.instances import read_instance_index, read_instance_shard
from decoders.harness.protocol import get_evaluator, known_decoders
from decoders.harness.runner import run_instances
from decoders.io import write_parquet_atomic
from decoders.tables.chains import cg_statistics, peer_table, table1, table2a, variant_summary


@pytest.fixture(scope="module")
def workdir(mirror, tmp_path_factory):
    """A trained perceptron and CRFsuite model on 150 WSJ sentences, and the next 40 as a test split."""
    root = tmp_path_factory.mktemp("chains")
    frame = read_wsj(mirror / "ptb_wsj_sample_nltk" / "dependency_treebank.zip")
    write_parquet_atomic(root / "train.parquet", frame.iloc[:150])
    write_parquet_atomic(root / "test.parquet", frame.iloc[3600:3640])
    spec = {"method": "perceptron", "epochs": 3}
    train_model(
        root / "train.parquet",
        spec,
        min_count=1,
        seed=1,
        model_out=root / "model.npz",
        history_out=root / "history.json",
    )
    train_crfsuite_model(root / "train.parquet", root / "crf.model", {"max_iterations": 20})
    return root


def _instances(workdir, name, **options):
    shards = [workdir / name / f"shard-{i}.pkl" for i in range(2)]
    test, model = workdir / "test.parquet", workdir / "model.npz"
    build_instances(test, model, shards, workdir / name / "index.tsv", **options)
    items = [item for shard in shards for item in read_instance_shard(shard)]
    order = {i: k for k, i in enumerate(read_instance_index(workdir / name / "index.tsv"))}
    return sorted(items, key=lambda item: order[item[0]])


def _run(variant, spec, items):
    return run_instances(
        "chains",
        "wsj",
        variant,
        spec["decoder"],
        spec.get("params", {}),
        items,
        time_limit=60,
        evaluate=get_evaluator("chains"),
        isolate=False,
        progress=False,
        repeats=2,
        loop_repeats=3,  # the runner checks that each compiled timing loop reproduces its decoder's objective
    )


def test_every_configured_decoder_is_registered(repo_root):
    variants = load_config(repo_root)["experiments"]["chains"]["variants"]
    assert {spec["decoder"] for spec in variants.values()} <= set(known_decoders("chains"))


def test_all_variants_on_real_sentences(repo_root, workdir):
    config = load_config(repo_root)["experiments"]["chains"]
    variants = config["variants"]
    items = _instances(workdir, "wsj")
    assert len(items) == 40
    records = pd.concat(
        [
            _run(name, variants[name], items)
            for name in [*config["runs"]["table1"], *config["runs"]["table2a"]]
        ]
        + [_run(name, variants[name], items) for name in config["runs"]["table2b"]],
        ignore_index=True,
    )
    assert set(records["status"]) <= {"optimal", "feasible"}
    # every variant has a loop, each call as many decodes as last ~0.3 ms, at most the 3 asked
    assert all(1 <= json.loads(stats)["loop_repeats"] <= 3 for stats in records["stats"])
    by = records.pivot(index="instance_id", columns="variant", values="objective")
    for exact in (
        "viterbi+p",
        "cg",
        "cg-alpha",
        "cg-alpha+theta",
        "viterbi-2best",
        "viterbi+p-2best",
        "cg-01",
    ):
        np.testing.assert_allclose(by[exact], by["viterbi"], rtol=1e-9, atol=1e-9)
    for width in range(1, 11):
        assert (by[f"beam-{width}"] <= by["viterbi"] + 1e-9).all()
    assert (by["cg-dg"] <= by["viterbi"] + 1e-9).all()  # CG-DG: within 0.15% of the optimum
    assert (by["viterbi"] - by["cg-dg"] <= 0.0015 * by["viterbi"].abs() + 1e-9).all()
    summary = variant_summary(records)
    table = table1(summary, ["wsj"], [])
    assert table.set_index("variant").loc["cg", "exact_pct"] == 100.0
    assert table.set_index("variant").loc["viterbi", "token_acc"] > 80
    assert (table["paper_sent_per_s"].notna()).sum() >= 8
    assert set(table2a(summary, ["wsj"], [])["variant"]) == {"viterbi-2best", "viterbi+p-2best", "cg-01"}
    stats = cg_statistics(records).set_index("variant")
    assert 0 < stats.loc["cg", "domain_1_pct"] <= 100 and stats.loc["cg", "max_iterations"] >= 1


def test_two_best_variants_agree_on_the_second_best(repo_root, workdir):
    variants = load_config(repo_root)["experiments"]["chains"]["variants"]
    items = _instances(workdir, "wsj-2best")
    seconds = {}
    for name in ("viterbi-2best", "viterbi+p-2best", "cg-01"):
        frame = _run(name, variants[name], items)
        seconds[name] = [json.loads(s)["second_score"] for s in frame["stats"]]
    best = _run("viterbi", variants["viterbi"], items)["objective"].to_numpy()
    delta = variants["cg-01"]["params"]["delta"]
    for vit, pruned, cg, top in zip(*seconds.values(), best, strict=True):
        assert vit == pytest.approx(pruned, rel=1e-12)
        if vit is not None and vit >= top - delta:
            assert cg == pytest.approx(vit, rel=1e-12)
        else:
            assert cg is None


def test_scoring_variants_and_crfsuite(repo_root, workdir):
    variants = load_config(repo_root)["experiments"]["chains"]["variants"]
    plain = _instances(workdir, "wsj")
    featured = _instances(workdir, "wsj~features", crfsuite_path=workdir / "crf.model", features=True)
    cg = _run("cg", variants["cg"], plain)
    scored = _run("cg+scoring", variants["cg+scoring"], featured)
    np.testing.assert_allclose(scored["objective"], cg["objective"], rtol=1e-12)
    assert (scored["correct"] == cg["correct"]).all()
    crf = _run("crfsuite", variants["crfsuite"], featured)
    assert (crf["status"] == "feasible").all() and crf["objective"].isna().all()
    assert crf["correct"].sum() / crf["total"].sum() > 0.7
    records = pd.concat([scored.assign(dataset="wsj~features"), crf.assign(dataset="wsj~features")])
    peers = peer_table(variant_summary(records)).set_index("variant")
    assert peers.loc["crfsuite", "vs_crfsuite"] == 1.0
