"""Provenance by content (decoders.content) and the staleness check of published pages (decoders.tables.evidence)."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

from decoders.content import (
    closure,
    compare,
    describe,
    experiment_settings,
    file_sha,
    job_record,
    job_record_path,
    rule_sha,
    rule_source,
    section_content,
    write_job_records,
)
from decoders.errors import ConfigError
from decoders.io import record_checksum
from decoders.tables import evidence
from decoders.tables.pages import PAGE, stated_statuses

REPO = Path(__file__).resolve().parents[1]


def test_rule_source_finds_named_and_generated_rules():
    rules = REPO / "workflow" / "rules"
    file, block = rule_source(rules, "decode")
    assert file == "decode.smk" and block.startswith("rule decode:") and "script:" in block
    assert "rule gather_runs" not in block  # the block ends where the next rule starts
    file, block = rule_source(rules, "fetch_ud_english_ewt")  # made in a loop: name=f"fetch_{_corpus}"
    assert file == "corpora.smk" and "fetch.py" in block
    assert rule_source(rules, "no_such_rule") is None
    assert rule_sha(rules, "decode") != rule_sha(rules, "gather_runs")


def test_a_job_record_holds_its_code_rule_and_inputs(tmp_path):
    data = tmp_path / "in.txt"
    data.write_text("x")
    digest = record_checksum(data)
    record = job_record(
        root=REPO,
        rule="decode",
        wildcards={"experiment": "chains"},
        script=REPO / "workflow" / "scripts" / "decode.py",
        inputs=[str(data), str(tmp_path / "corpus.zip")],
    )
    assert record["script"] == "workflow/scripts/decode.py"
    assert record["code"]["workflow/scripts/decode.py"] == file_sha(REPO / "workflow/scripts/decode.py")
    assert record["code"]["src/decoders/content.py"] == file_sha(REPO / "src/decoders/content.py")  # imported
    assert record["inputs"] == {str(data): digest, str(tmp_path / "corpus.zip"): None}
    assert record["rule_sha"] == rule_sha(REPO / "workflow" / "rules", "decode")


def _record(rule, code, inputs, script=None):
    return {
        "rule": rule,
        "wildcards": {},
        "rule_sha": f"sha-{rule}",
        "script": script,
        "code": code,
        "inputs": {path: None for path in inputs},
    }


def _chain(tmp_path, train_code="a"):
    """A run of three jobs (train -> decode -> tables) whose records sit beside their outputs under tmp_path."""
    for name in ("model.npz", "run.parquet", "table.md"):
        (tmp_path / name).write_text(name)
    write_job_records(
        [tmp_path / "model.npz"], _record("chains_train", {"src/m.py": train_code}, ["data/raw/c"])
    )
    write_job_records(
        [tmp_path / "run.parquet"], _record("decode", {"src/m.py": "a", "src/d.py": "b"}, ["model.npz"])
    )
    write_job_records([tmp_path / "table.md"], _record("chains_tables", {"src/t.py": "c"}, ["run.parquet"]))


def test_closure_and_section_content_split_records_from_tables(tmp_path):
    _chain(tmp_path)
    jobs = closure(["table.md"], tmp_path)
    assert sorted(r["rule"] for r in jobs[:-1]) == ["chains_tables", "chains_train", "decode"]
    assert jobs[-1]["missing"] == ["data/raw/c"]
    content = section_content(["table.md"], {"seed": 1}, tmp_path)
    assert content["records"]["code"] == {"src/d.py": "b", "src/m.py": "a"}
    assert content["records"]["rules"] == {"chains_train": "sha-chains_train", "decode": "sha-decode"}
    assert content["tables"]["code"] == {"src/t.py": "c"} and content["tables"]["outputs"] == ["table.md"]
    assert content["records"]["mixed"] == [] and content["records"]["settings"] == {"seed": 1}
    # a table change leaves the records' digest alone; a change to what the records depend on does not
    again = section_content(["table.md"], {"seed": 1}, tmp_path)
    assert again["records"]["digest"] == content["records"]["digest"]
    assert (
        section_content(["table.md"], {"seed": 2}, tmp_path)["records"]["digest"]
        != content["records"]["digest"]
    )


def test_jobs_that_saw_two_versions_of_a_file_are_named(tmp_path):
    _chain(tmp_path, train_code="older")
    assert section_content(["table.md"], {}, tmp_path)["records"]["mixed"] == ["src/m.py"]


def test_compare_names_changed_removed_and_new_files_rules_and_settings(tmp_path):
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / "workflow" / "rules").mkdir(parents=True)
    (root / "workflow" / "rules" / "x.smk").write_text("rule decode:\n    shell: 'true'\n")
    (root / "src" / "a.py").write_text("A = 1\n")
    (root / "src" / "b.py").write_text("B = 1\n")
    content = {
        "records": {
            "code": {"src/a.py": file_sha(root / "src/a.py"), "src/b.py": file_sha(root / "src/b.py")},
            "rules": {"decode": rule_sha(root / "workflow" / "rules", "decode")},
            "scripts": [],
            "settings": {"experiment": {"k": 3, "n": 1}},
        },
        "tables": {"code": {}, "rules": {}, "scripts": []},
    }
    same = compare(content, root, {"experiment": {"k": 3, "n": 1}})
    assert describe(same) == ""
    (root / "src" / "a.py").write_text("A = 2\n")
    (root / "src" / "b.py").unlink()
    (root / "workflow" / "rules" / "x.smk").write_text("rule decode:\n    shell: 'false'\n")
    found = compare(content, root, {"experiment": {"k": 5, "n": 1}})
    assert found["records"] == {
        "changed": ["src/a.py"],
        "removed": ["src/b.py"],
        "rules": ["decode"],
        "settings": ["experiment.k"],
    }
    assert "changed: src/a.py" in describe(found) and "settings changed: experiment.k" in describe(found)


def test_experiment_settings_hold_the_datasets_corpora_and_harness():
    config = evidence.workflow_settings(REPO)
    settings = experiment_settings(config, "chains")
    assert settings["experiment"] == config["experiments"]["chains"]
    assert set(settings["datasets"]) >= {"wsj", "ewt"} and "ptb_wsj_sample_nltk" in settings["corpora"]
    assert "mirror" not in settings and settings["seed"] == config["seed"]
    with pytest.raises(KeyError, match="no experiment 'nope'"):
        experiment_settings(config, "nope")


def test_linkings_settings_hold_its_sweeps_variants_as_its_jobs_record_them():
    """workflow/rules/linking.smk adds the sweep's generated variants to the linking settings its jobs record, so
    the check compares against the same (without them every linking section read as stale)."""
    from decoders.config import load_config
    from decoders.linking.sweep import sweep_variants

    config = evidence.workflow_settings(REPO)
    generated = sweep_variants(load_config(REPO)["experiments"]["linking"])
    assert generated and set(generated) <= set(config["experiments"]["linking"]["variants"])
    assert not set(generated) & set(load_config(REPO)["experiments"]["linking"]["variants"])


def _page(docs: Path, name: str, body: str) -> Path:
    folder = docs / "results" / name
    folder.mkdir(parents=True)
    (folder / PAGE).write_text(
        "# Results\n\n## chains: MAP in chains\n\n| provenance | |\n|---|---|\n| commit | abc |\n\n" + body
    )
    return folder


def _content_of_this_tree():
    settings = experiment_settings(evidence.workflow_settings(REPO), "chains")
    code = {"src/decoders/content.py": file_sha(REPO / "src/decoders/content.py")}
    tables = {"src/decoders/tables/chains.py": file_sha(REPO / "src/decoders/tables/chains.py")}
    return {
        "records": {"code": code, "rules": {}, "scripts": [], "settings": settings},
        "tables": {"code": tables, "rules": {}, "scripts": []},
    }


def test_the_check_says_current_tables_stale_stale_and_unrecorded(tmp_path):
    from decoders.io import write_json_atomic

    docs = tmp_path / "docs"
    _page(docs, "old", "text\n")
    content = _content_of_this_tree()
    write_json_atomic(_page(docs, "new", "text\n") / "records" / "chains" / "content.json", content)
    tables_changed = {
        **content,
        "tables": {**content["tables"], "code": {"src/decoders/tables/chains.py": "0"}},
    }
    write_json_atomic(_page(docs, "tables", "text\n") / "records" / "chains" / "content.json", tables_changed)
    settings = dict(content["records"]["settings"], seed=-1)
    stale = {**content, "records": {**content["records"], "settings": settings}}
    write_json_atomic(_page(docs, "stale", "text\n") / "records" / "chains" / "content.json", stale)
    found = {s.page: s for s in evidence.check(docs, REPO)}
    assert found["old"].status == "stale (no content record)"
    assert found["new"].status == "current" and found["new"].current
    assert (
        found["tables"].status == "tables stale" and "src/decoders/tables/chains.py" in found["tables"].what
    )
    assert found["stale"].status == "stale" and "settings changed: seed" in found["stale"].what
    # --write puts each status under its heading, into the index and into the page's explorer; the command exits
    # 1 on a stale section
    from decoders.tables.explorer import EXPLORER, EXPLORER_ASSETS, build

    explorer = docs / "results" / "stale" / EXPLORER
    build(explorer.parent, explorer, assets=docs / "results" / EXPLORER_ASSETS)
    assert "<strong>Status:</strong>" not in (explorer / "index.html").read_text()
    assert evidence.main(["check", str(docs), "--root", str(REPO), "--write"]) == 1
    assert "<strong>Status:</strong> stale" in (explorer / "index.html").read_text()
    text = (docs / "results" / "stale" / PAGE).read_text()
    assert stated_statuses(text) == ["chains stale"]
    assert evidence.with_statuses(text, {"chains": found["stale"]}) == text  # written once, not twice
    assert "chains tables stale" in (docs / PAGE).read_text()


def test_every_published_page_states_the_status_the_check_finds():
    """The statuses written in docs/results/*/RESULTS.md are the check's against this tree: a change that makes
    a section stale must come with its page saying so (`python -m decoders.tables.evidence check --write`)."""
    statuses = evidence.check(REPO / "docs", REPO)
    assert statuses, "no published section found"
    for status in statuses:
        text = (REPO / "docs" / "results" / status.page / PAGE).read_text(encoding="utf-8")
        assert evidence.written_statuses(text).get(status.experiment) == status.line(), (
            f"{status.page}: the {status.experiment} section does not state '{status.line()}' "
            "(run `python -m decoders.tables.evidence check --write`)"
        )


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_publishing_refuses_an_unclean_tree_and_dirty_runs(tmp_path):
    from decoders.tables.publish import refuse_unclean

    root = tmp_path / "clone"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "a.py").write_text("1\n")
    _git(root, "add", "a.py")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    page = "| commit | 1234abc |\n"
    refuse_unclean(root, page, Path("RESULTS.md"))  # clean: no error
    (root / "untracked.log").write_text("a run's log\n")  # untracked files do not count
    refuse_unclean(root, page, Path("RESULTS.md"))
    with pytest.raises(
        ConfigError, match=r"runs made in a tree with uncommitted changes \(1234abc \(dirty\)\)"
    ):
        refuse_unclean(root, "| commit | 1234abc (dirty) |\n", Path("RESULTS.md"))
    (root / "a.py").write_text("2\n")
    with pytest.raises(ConfigError, match=r"uncommitted changes to tracked files \(a.py\)"):
        refuse_unclean(root, page, Path("RESULTS.md"))
    with pytest.raises(ConfigError, match="not a git checkout"):
        refuse_unclean(tmp_path, page, Path("RESULTS.md"))


def test_job_record_path_is_hidden_beside_its_output(tmp_path):
    assert job_record_path(tmp_path / "a" / "run.parquet") == tmp_path / "a" / ".run.parquet.job.json"


def test_rebuild_run_names_what_it_cannot_rebuild(tmp_path, capsys):
    """``rebuild --run``: a page without records, or a target that already holds results/, is refused with the
    folder named, and nothing is written."""
    from decoders.tables import rebuild

    page_dir = tmp_path / "page"
    page_dir.mkdir()
    (page_dir / PAGE).write_text(
        "# Results\n\n## chains: MAP inference\n\n| provenance | |\n|---|---|\n| runs | 1 |\n",
        encoding="utf-8",
    )
    assert rebuild.page_experiments(page_dir) == []
    assert rebuild.main([str(page_dir), "--run", str(tmp_path / "run")]) == 2
    assert "no section has published records" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    archive = page_dir / evidence.RECORDS / "chains" / evidence.ARCHIVE
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"")
    assert rebuild.page_experiments(page_dir) == ["chains"]
    (tmp_path / "run" / "results").mkdir(parents=True)
    with pytest.raises(ConfigError, match=r"run/results: exists"):
        rebuild.rebuild_run(page_dir, tmp_path / "run")
    with pytest.raises(ConfigError, match=r"records\.tar\.xz: cannot unpack"):
        rebuild.rebuild_run(page_dir, tmp_path / "elsewhere")
    with tarfile.open(archive, "w:xz") as tar:  # an archive without the results page's job record
        tar.add(page_dir / PAGE, arcname="results/RESULTS.md")
    with pytest.raises(ConfigError, match=r"records\.tar\.xz: no job record of results/RESULTS\.md"):
        rebuild.rebuild_run(page_dir, tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()


def test_record_paths_become_paths_of_the_run_folder(tmp_path):
    """Job records keep the paths Snakemake gave: a rule may name a workflow file by its absolute path (ppc's
    ddt sources table), which the published archive must hold under the run's folder, not the machine's root."""
    run = tmp_path / "run"
    (run / "workflow").mkdir(parents=True)
    assert evidence.run_path(run / "workflow" / "sources.tsv", run) == "workflow/sources.tsv"
    assert evidence.run_path("results/tables/a.csv", run) == "results/tables/a.csv"
    with pytest.raises(ConfigError, match=r"outside the folder it ran in"):
        evidence.run_path(tmp_path / "elsewhere.tsv", run)
