"""The quick tier: seeded samples of the prepared splits, every table, record and page marked, never published,
and the workflow's switch (--config tier=quick) planning its run in the folder quick/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from decoders.config import load_yaml
from decoders.corpora.prepare import prepare_textbooks, sample_split
from decoders.errors import ConfigError
from decoders.harness.provenance import collect_provenance
from decoders.tables.writers import write_table
from decoders.tier import ENV, QUICK_NOTE, check_tier, current

BIN = Path(sys.executable).parent


def test_a_sample_is_seeded_fixed_and_keeps_the_order():
    frame = pd.DataFrame({"id": np.arange(1000) * 3, "text": [f"s{i}" for i in range(1000)]})
    first = sample_split(frame, 100, seed=13)
    assert len(first) == 100 and first["id"].is_monotonic_increasing and first["id"].is_unique
    assert set(first["id"]) <= set(frame["id"]) and list(first.index) == list(range(100))
    assert first.equals(sample_split(frame, 100, seed=13))
    assert not first.equals(sample_split(frame, 100, seed=14))
    assert sample_split(frame, None, seed=13) is frame and sample_split(frame, 1000, seed=13) is frame
    assert sample_split(frame.iloc[:0], 5, seed=13).empty


def test_the_tier_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert current() == "full"
    monkeypatch.setenv(ENV, "quick")
    assert current() == "quick"
    monkeypatch.setenv(ENV, "fast")
    with pytest.raises(ConfigError, match=ENV):
        current()
    with pytest.raises(ConfigError, match="tier: expected one of full, quick, got 'fast'"):
        check_tier("fast")


def test_quick_tables_and_records_say_so(tmp_path, monkeypatch):
    frame = pd.DataFrame({"variant": ["cg"], "uas": [91.2]})
    monkeypatch.delenv(ENV, raising=False)
    paths = write_table(frame, tmp_path / "full", title="Table 1")
    assert "quick" not in paths[1].read_text() and "quick" not in paths[2].read_text()
    assert collect_provenance(seed=1, config={})["tier"] == "full"
    monkeypatch.setenv(ENV, "quick")
    paths = write_table(frame, tmp_path / "quick", title="Table 1", notes=["a note"])
    md = paths[1].read_text()
    assert "### Table 1 [quick tier]" in md and f"- {QUICK_NOTE}" in md and "- a note" in md
    assert "[quick tier]" in paths[2].read_text()
    assert pd.read_csv(paths[0]).equals(frame)
    assert collect_provenance(seed=1, config={})["tier"] == "quick"


def test_a_quick_page_is_not_published(tmp_path):
    from decoders.tables.publish import PAGE, publish

    results = tmp_path / "results"
    results.mkdir()
    page = "# Results [quick tier]\n\n## chains: x\n\n| provenance | |\n|---|---|\n| CPU | Some CPU |\n| tier | quick |\n"
    (results / PAGE).write_text(page, encoding="utf-8")
    with pytest.raises(ConfigError, match="quick-tier page"):
        publish(results, tmp_path / "docs")
    assert not (tmp_path / "docs").exists()


def _conllu(path: Path, sentences: int) -> str:
    lines = []
    for i in range(sentences):
        lines += [f"# sent_id = s{i}", f"1\tw{i}\tw{i}\tNOUN\tNN\t_\t0\troot\t_\t_", ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_treebanks_test_split_is_sampled_and_its_stats_say_so(tmp_path):
    """A sample names its splits: the test split is a seeded sample, train stays whole, and stats.json says so."""
    from decoders.corpora.prepare import prepare_conllu

    inputs = {split: _conllu(tmp_path / f"{split}.conllu", 30) for split in ("train", "dev", "test")}
    outputs = {split: str(tmp_path / "out" / f"{split}.parquet") for split in ("train", "dev", "test")}
    outputs["stats"] = str(tmp_path / "out" / "stats.json")
    stats = prepare_conllu("tb", inputs, outputs, sample={"test": 7}, seed=13)
    test = pd.read_parquet(outputs["test"])
    assert len(test) == 7 and len(pd.read_parquet(outputs["train"])) == 30
    words = [int(row[0][1:]) for row in test["words"]]
    assert words == sorted(words) and len(set(words)) == 7
    assert any("seeded sample (seed 13) of 7 of its 30 sentences" in note for note in stats["notes"])
    again = prepare_conllu("tb", inputs, outputs, sample={"test": 7}, seed=13)
    assert pd.read_parquet(outputs["test"]).equals(test) and again["splits"] == stats["splits"]


def test_a_sample_of_a_missing_split_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match=r"datasets.books.sample: no split dev \(its splits: train, test\)"):
        prepare_textbooks(
            "books",
            {},
            {},
            min_body_words=1,
            min_title_content_words=1,
            train_fraction=0.5,
            sample={"dev": 3},
        )


def test_the_switch_plans_the_quick_run_in_its_own_folder(repo_root, tmp_path):
    """--config tier=quick reads config/quick.yaml, samples the test sets and works in quick/; another tier
    value is a one-line error naming the key."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(BIN / "snakemake"), "-n", "--cores", "2", "--snakefile", str(repo_root / "Snakefile")]
    command += ["--configfile", str(repo_root / "config.yaml"), "--config", "mirror=", "tier=quick"]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "quick" / ".snakemake").is_dir() and not (
        tmp_path / ".snakemake" / "metadata"
    ).exists()
    quick = load_yaml(repo_root / "config" / "quick.yaml")
    assert quick["tier"] == "quick" and all("test" in d["sample"] for d in quick["datasets"].values())
    assert "rule prepare_wsj:" in result.stdout and "rule results_page:" in result.stdout
    bad = subprocess.run(
        [*command[:-1], "tier=fast"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert bad.returncode != 0 and "tier: expected one of full, quick, got 'fast'" in bad.stdout + bad.stderr


def test_elevant_documents_are_sampled_per_benchmark(tmp_path, mirror):
    """Each benchmark keeps a seeded sample of its documents, and only their mentions."""
    from decoders.corpora.prepare import prepare_elevant

    folder = mirror / "el_benchmarks_elevant"
    inputs = {name: str(folder / f"{name}.benchmark.jsonl") for name in ("kore50", "msnbc")}
    inputs["articles"] = str(tmp_path / "articles.parquet")
    pd.DataFrame({"node": [0], "title": ["Bill_Gates"]}).to_parquet(inputs["articles"])
    outputs = {name: str(tmp_path / "out" / f"{name}.parquet") for name in ("documents", "mentions")}
    outputs["stats"] = str(tmp_path / "out" / "stats.json")
    stats = prepare_elevant("elevant", inputs, outputs, sample={"test": 5}, seed=13)
    documents, mentions = pd.read_parquet(outputs["documents"]), pd.read_parquet(outputs["mentions"])
    assert {name: stats["splits"][name]["documents"] for name in ("kore50", "msnbc")} == {
        "kore50": 5,
        "msnbc": 5,
    }
    assert len(documents) == 10 and set(zip(mentions["benchmark"], mentions["doc_id"], strict=True)) <= set(
        zip(documents["benchmark"], documents["doc_id"], strict=True)
    )
    assert any(
        "seeded sample (seed 13) of at most 5" in note and "kore50 50" in note for note in stats["notes"]
    )
    with pytest.raises(ConfigError, match="datasets.elevant.sample: no split train"):
        prepare_elevant("elevant", inputs, outputs, sample={"train": 5}, seed=13)
