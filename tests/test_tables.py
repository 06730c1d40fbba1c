"""Tables: the papers' numbers, the three table formats, the corpora table, chains' speed by length."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from decoders.io import write_json_atomic
from decoders.papers import paper_numbers, paper_rows, paper_value
from decoders.tables.chains import (
    CLOCK_COLUMNS,
    cg_phases,
    cg_phases_figure,
    speed_by_length,
    speed_by_length_figure,
    table2a,
    through_reference_sides,
    variant_summary,
)
from decoders.tables.corpora import corpora_table, load_stats, paper_sizes
from decoders.tables.intervals import ratio_of_totals
from decoders.tables.resources import TIMED_RULES, cost_table
from decoders.tables.writers import write_table


def test_paper_numbers_match_the_shared_transcription(repo_root):
    """Every package's paper_numbers.yaml, merged, is the shared transcription plus the corpora's cited sizes, the
    papers' names and a supplement that adds numbers without shadowing any."""
    shared = repo_root.parent / "shared" / "docs" / "paper-numbers.yaml"
    if not shared.is_file():
        pytest.skip("shared/docs not beside the repository")
    import yaml

    ours = paper_numbers()
    theirs = yaml.safe_load(shared.read_text(encoding="utf-8"))
    assert {k: v for k, v in ours.items() if k not in ("cited_corpora", "supplement", "papers")} == theirs
    assert set(ours["papers"]) == set(theirs) | {"cited_corpora"}
    for experiment in theirs:
        assert (repo_root / "src" / "decoders" / experiment / "paper_numbers.yaml").is_file()

    def leaves(node, prefix=""):
        if not isinstance(node, dict):
            return {prefix}
        return set().union(*(leaves(value, f"{prefix}.{key}".lstrip(".")) for key, value in node.items()))

    # the supplement adds numbers; it never shadows or contradicts the transcription
    supplement = leaves(ours.get("supplement", {}))
    assert supplement and not supplement & leaves(theirs)


def test_two_packages_claiming_one_paper_key_are_an_error(tmp_path, monkeypatch):
    """decoders.papers merges the packages' files; a key two of them give is a ValueError naming both."""
    import decoders.papers as papers

    for name, text in {"one": "papers: {x: X}\nx: {a: 1}\n", "two": "x: {a: 2}\n"}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "paper_numbers.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(papers.resources, "files", lambda package: tmp_path)
    papers.paper_numbers.cache_clear()
    try:
        with pytest.raises(
            ValueError, match=r"decoders/two/paper_numbers.yaml: 'x' is given by decoders/one"
        ):
            papers.paper_numbers()
    finally:
        papers.paper_numbers.cache_clear()


def test_paper_value_and_rows():
    assert paper_value("chains.setup.test_sentences") == 5463
    assert paper_value("titles.corpus.sections") == 547
    rows = paper_rows("chains", "table1_pos")
    assert rows[0] == {"decoder": "viterbi", "exact_pct": 100, "sent_per_s": 3144.6}
    with pytest.raises(KeyError, match="'chains.setup.nope'"):
        paper_value("chains.setup.nope")
    # numbers the shared transcription lacks come from the supplement under the same keys
    assert paper_value("bnb.setup.english_nonzero_features") == 86_700_000
    assert paper_value("bnb.setup.english_templates") == 674
    with pytest.raises(KeyError, match="not a table"):
        paper_rows("chains", "setup")


def test_write_table_three_formats(tmp_path):
    frame = pd.DataFrame({"decoder": ["cg", "viterbi_p"], "sent_per_s": [8227.6, None], "n": [1, 2]})
    paths = write_table(frame, tmp_path / "t1", title="Speed", notes=["measured on 2 cores"])
    assert [p.name for p in paths] == ["t1.csv", "t1.md", "t1.tex"]
    assert pd.read_csv(paths[0]).shape == (2, 3)
    md = paths[1].read_text()
    assert "### Speed" in md and "| cg " in md and "- measured on 2 cores" in md and "nan" not in md
    tex = paths[2].read_text()
    assert r"\begin{tabular}" in tex and r"viterbi\_p" in tex and r"\caption{Speed}" in tex


def test_corpora_table(tmp_path):
    write_json_atomic(
        tmp_path / "a.json",
        {
            "dataset": "wsj",
            "reader": "wsj",
            "splits": {"train": {"sentences": 10, "tokens": 200}, "test": {"sentences": 2, "tokens": 30}},
            "notes": ["documents wsj_0180-0199 are the test split"],
        },
    )
    write_json_atomic(
        tmp_path / "b.json",
        {"dataset": "wikispeedia", "reader": "wikispeedia", "splits": {"graph": {"nodes": 5, "edges": 4}}},
    )
    stats = load_stats([tmp_path / "a.json", tmp_path / "b.json"])
    table = corpora_table(stats, {"chains": {"datasets": ["wsj"]}, "bnb": {"datasets": ["wsj"]}})
    assert list(table["dataset"]) == ["wsj", "wsj", "wikispeedia"]
    assert list(table["used_by"]) == ["chains, bnb", "chains, bnb", ""]
    assert table.loc[2, "nodes"] == 5 and pd.isna(table.loc[0, "nodes"])
    assert "5,463" in table.loc[1, "paper"] and "Belanger" in table.loc[1, "paper"]
    assert "3,685,351" in table.loc[2, "paper"]
    assert paper_sizes("wsj", "train") == ""


def test_corpora_table_rejects_unknown_counts():
    stats = [{"dataset": "x", "splits": {"all": {"sentenses": 3}}}]
    with pytest.raises(ValueError, match="sentenses"):
        corpora_table(stats, {})


def test_speed_by_length_buckets_and_ratios(tmp_path):
    """Each bucket's speed-up is Viterbi's summed seconds over the variant's on the bucket's sentences."""
    rows = []
    for i, (size, viterbi, cg, iterations) in enumerate(
        [(3, 2.0, 4.0, 1), (4, 2.0, 4.0, 1), (30, 9.0, 3.0, 2)]
    ):
        rows.append({"dataset": "d", "variant": "viterbi", "instance_id": i, "size": size, "seconds": viterbi,
                     "stats": "{}"})  # fmt: skip
        rows.append({"dataset": "d", "variant": "cg", "instance_id": i, "size": size, "seconds": cg,
                     "stats": json.dumps({"iterations": iterations})})  # fmt: skip
    table = speed_by_length(pd.DataFrame(rows).assign(status="optimal"), ["d", "absent"], ["cg"])
    table = table.set_index("tokens")
    assert list(table.index) == ["1-5", "21-40", "all"]
    assert table.loc["1-5", "cg_speedup"] == 0.5 and table.loc["21-40", "cg_speedup"] == 3.0
    assert table.loc["all", "cg_speedup"] == pytest.approx(13 / 11, abs=0.01)
    assert table.loc["1-5", "sentences"] == 2 and table.loc["1-5", "viterbi_sent_per_s"] == 0.5
    assert table.loc["all", "cg_iterations"] == pytest.approx(4 / 3, abs=0.1)
    speed_by_length_figure(table.reset_index(), tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 0


def test_cg_phases_sum_the_profiles_and_split_cg_time_by_their_shares(tmp_path):
    """A phase's share is its cycles over all profiled cycles of the dataset; its microseconds are that share of
    cg's mean seconds per sentence; a dataset without profile records has no rows."""
    rows = []
    for i, (size, setup, oracle, seconds) in enumerate([(10, 100.0, 300.0, 2e-6), (30, 200.0, 1400.0, 4e-6)]):
        profile = {"phase_cycles": [["setup", setup], ["oracle", oracle]]}
        rows.append({"dataset": "d", "variant": "cg-profile", "instance_id": i, "size": size, "seconds": 1.0,
                     "stats": json.dumps(profile)})  # fmt: skip
        rows.append({"dataset": "d", "variant": "cg", "instance_id": i, "size": size, "seconds": seconds,
                     "stats": "{}"})  # fmt: skip
    rows.append({"dataset": "e", "variant": "cg", "instance_id": 0, "size": 3, "seconds": 1.0, "stats": "{}"})
    table = cg_phases(pd.DataFrame(rows).assign(status="optimal")).set_index("phase")
    assert list(table.index) == ["setup", "oracle", "all"] and set(table["dataset"]) == {"d"}
    assert table.loc["setup", "share_pct"] == 15.0 and table.loc["oracle", "share_pct"] == 85.0
    assert table.loc["all", "cycles_per_token"] == 50.0  # 2000 cycles over 40 tokens
    assert table.loc["setup", "cg_us_per_sentence"] == pytest.approx(0.45, abs=0.01)  # 15% of 3 us
    assert table.loc["all", "sentences"] == 2
    cg_phases_figure(table.reset_index(), tmp_path / "phases.png")
    assert (tmp_path / "phases.png").stat().st_size > 0
    empty = cg_phases(pd.DataFrame(rows[-1:]).assign(status="optimal"))
    assert empty.empty and "share_pct" in empty.columns
    cg_phases_figure(empty, tmp_path / "empty.png")


def test_speed_ups_come_from_the_pairs_timed_in_the_variants_job():
    """With stats.reference_seconds on every record of a variant, its speed-up (Table 1 and by length) is their
    sum over its own seconds, whatever the reference job measured; without them, the two jobs' ratio."""
    rows = []
    for i, size in enumerate([3, 30]):
        rows.append({"experiment": "chains", "dataset": "d", "variant": "viterbi", "params": "{}",
                     "instance_id": str(i), "size": size, "seconds": 5.0, "objective": 1.0, "bound": 1.0,
                     "status": "optimal", "structure": "[0]", "stats": "{}"})  # fmt: skip
        for variant, paired in (("cg", 2.0 * (i + 1)), ("beam-1", None)):
            stats = {"iterations": 1} | (
                {} if paired is None else {"reference_seconds": paired, "unpaired_seconds": 0.8}
            )
            rows.append({"experiment": "chains", "dataset": "d", "variant": variant, "params": "{}",
                         "instance_id": str(i), "size": size, "seconds": 1.0, "objective": 1.0, "bound": np.nan,
                         "status": "feasible", "structure": "[0]", "stats": json.dumps(stats)})  # fmt: skip
    records = pd.DataFrame(rows)
    summary = variant_summary(records).set_index("variant")
    assert summary.loc["cg", "speedup"] == pytest.approx(3.0)  # (2 + 4) / (1 + 1), not 10 / 2
    assert summary.loc["beam-1", "speedup"] == pytest.approx(5.0)  # unpaired: the jobs' sentences/s
    assert summary.loc["viterbi", "speedup"] == pytest.approx(1.0)
    # what the pairing cost: 2 s paired against 1.6 s alone, +25%; nothing for variants timed without a pair
    assert summary.loc["cg", "pairing_pct"] == pytest.approx(25.0)
    assert np.isnan(summary.loc["beam-1", "pairing_pct"]) and np.isnan(summary.loc["viterbi", "pairing_pct"])
    by_length = speed_by_length(records, ["d"], ["cg", "beam-1"]).set_index("tokens")
    assert by_length.loc["1-5", "cg_speedup"] == 2.0 and by_length.loc["21-40", "cg_speedup"] == 4.0
    assert by_length.loc["all", "beam-1_speedup"] == 5.0
    # a run timed otherwise differs only in the clock's columns (the SLURM test compares runs without them)
    slower = records.assign(seconds=1.7 * records["seconds"], stats=records["stats"].map(_slower_clock))
    for table in (variant_summary, lambda frame: speed_by_length(frame, ["d"], ["cg", "beam-1"])):
        ours, theirs = table(records), table(slower)
        clock = [column for column in ours.columns if CLOCK_COLUMNS.search(column)]
        assert not ours[clock].equals(theirs[clock])
        pd.testing.assert_frame_equal(ours.drop(columns=clock), theirs.drop(columns=clock))


def _slower_clock(stats: str) -> str:
    return json.dumps(
        {key: 1.3 * value if key.endswith("_seconds") else value for key, value in json.loads(stats).items()}
    )


def _page(cpu, *sections):
    lines = ["# Results", "", "Generated by `snakemake results/RESULTS.md` from the records under results/."]
    for heading, commit in sections:
        lines += ["", f"## {heading}", ""]
        if commit:
            lines += ["| provenance | |", "|---|---|", f"| commit | {commit} |", f"| CPU | {cpu} |", ""]
        lines += [f"table of {heading} at {commit}"]
    return "\n".join(lines) + "\n"


def _headings(text):
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def test_publishing_some_experiments_keeps_the_other_sections_of_the_cpus_page(tmp_path):
    from decoders.tables.publish import PAGE, publish
    from decoders.tables.scoreboard import insert_scoreboard

    cpu = "Test CPU (2 logical CPUs)"
    whole = _page(cpu, ("Corpora", None), ("chains: x", "aaa"), ("titles: y", "aaa"), ("Time per rule", None))
    results, docs = tmp_path / "results", tmp_path / "docs"
    for experiment in ("chains", "titles"):
        (results / "figures" / experiment).mkdir(parents=True)
        (results / "figures" / experiment / "f.png").write_bytes(experiment.encode())
    (results / PAGE).write_text(whole, encoding="utf-8")
    target = publish(results, docs)
    assert (target / PAGE).read_text(encoding="utf-8") == insert_scoreboard(
        whole
    )  # it opens with the scoreboard

    # A later run of bnb and chains alone: chains and the run-wide sections are the new run's; titles and the
    # earlier run's corpora / time sections stay, headed with the experiment they belong to; so do its figures.
    for path in sorted((results / "figures").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (results / "figures" / "bnb").mkdir(parents=True)
    (results / "figures" / "bnb" / "g.png").write_bytes(b"bnb")
    (results / PAGE).write_text(
        _page(cpu, ("Corpora", None), ("bnb: z", "bbb"), ("chains: x", "bbb"), ("Time per rule", None)),
        encoding="utf-8",
    )
    merged = (publish(results, docs) / PAGE).read_text(encoding="utf-8")
    assert _headings(merged) == [
        "Corpora",
        "Corpora (earlier run: titles)",
        "bnb: z",
        "chains: x",
        "titles: y",
        "Time per rule",
        "Time per rule (earlier run: titles)",
    ]
    assert "table of chains: x at bbb" in merged and "table of chains: x at aaa" not in merged
    assert "table of titles: y at aaa" in merged
    assert sorted(p.name for p in (target / "figures").iterdir()) == ["bnb", "chains", "titles"]
    assert "aaa" in (docs / PAGE).read_text(encoding="utf-8") and "bbb" in (docs / PAGE).read_text(
        encoding="utf-8"
    )

    # Publishing the same run again changes nothing; a run of titles retires the earlier run's sections.
    assert (publish(results, docs) / PAGE).read_text(encoding="utf-8") == merged
    (results / PAGE).write_text(_page(cpu, ("Corpora", None), ("titles: y", "ccc")), encoding="utf-8")
    # sections in one order: corpora, the experiments in the order given (config.yaml's), time and cost
    assert _headings(
        (publish(results, docs, ["titles", "chains", "bnb"]) / PAGE).read_text(encoding="utf-8")
    ) == [
        "Corpora",
        "Corpora (earlier run: bnb, chains)",
        "titles: y",
        "chains: x",
        "bnb: z",
        "Time per rule (earlier run: bnb, chains)",
    ]
    assert (
        "| [Test CPU (2 logical CPUs)](results/test-cpu-2-logical-cpus/RESULTS.md) "
        "| [tables and charts](results/test-cpu-2-logical-cpus/explorer/index.html) | titles (ccc), chains (bbb), "
        in (docs / PAGE).read_text(encoding="utf-8").replace("; ", ", ")
    )
    # the merged page's explorer beside it, its scripts shared by every page
    site = (docs / "results" / "test-cpu-2-logical-cpus" / "explorer" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "chains: x" in site and "titles: y" in site and "../../explorer-assets/plotly.min.js" in site
    assert (docs / "results" / "explorer-assets" / "plotly.min.js").is_file()


def test_a_page_adds_up_the_cost_of_a_full_run_of_its_experiments():
    """The cost tables' `all` rows of every experiment on the page, each named by its section's commit."""
    from decoders.tables.publish import FULL_RUN_COST, merge_pages

    def cost(*rows):
        lines = [
            "## Time and memory per rule; cost per experiment",
            "",
            "| experiment | stage | jobs | job_minutes | longest_minutes | least_wall_minutes |",
            "|:--|:--|--:|--:|--:|--:|",
        ]
        return (
            "\n".join(lines + [f"| {e} | {st} | {j} | {m} | {lo} | {w} |" for e, st, j, m, lo, w in rows])
            + "\n"
        )

    old = (
        _page("C", ("Corpora", None), ("ppc: p", "ppp1234567890"))
        + "\n"
        + cost(("ppc", "decode", 60, "95.83", "17.25", ""), ("ppc", "all", 109, "132.35", "17.25", "114.14"))
    )
    new = (
        _page("C", ("Corpora", None), ("bnb: b", "bbb"))
        + "\n"
        + cost(("bnb", "all", 218, "221.27", "53.61", "115.12"))
    )
    merged = merge_pages(old, new, ["bnb", "ppc"])
    section = merged[merged.index(f"## {FULL_RUN_COST}") :]
    assert (
        "| bnb | 218 | 221.27 | 115.12 | bbb |" in section
        and "| ppc | 109 | 132.35 | 114.14 | ppp123456789 |" in section
    )
    assert "| all 2, one after another | 327 | 353.6 | 229.3 | |" in section
    assert merged.count(f"## {FULL_RUN_COST}") == 1 and merge_pages(merged, new, ["bnb", "ppc"]) == merged
    assert FULL_RUN_COST not in merge_pages("", _page("C", ("Corpora", None), ("bnb: b", "bbb")))


def test_cost_table_stages_an_experiments_jobs_and_bounds_its_wall_clock():
    config = {
        "datasets": {
            "wsj": {"files": {"a": "ptb/a.zip", "b": "ptb/b.zip"}},
            "ddt": {"files": {"t": "cdt/t"}},
        },
        "experiments": {"bnb": {"datasets": ["wsj"]}, "ppc": {"datasets": ["ddt"]}, "titles": None},
        "harness": {"exclusive": True},
    }
    jobs = pd.DataFrame(
        [
            ("fetch", "ptb", 60.0),
            ("fetch", "cdt", 5.0),
            ("prepare", "wsj", 30.0),
            ("prepare", "ddt", 7.0),
            ("bnb_train", "wsj/baseline", 600.0),
            ("bnb_train", "wsj/full", 900.0),
            ("decode", "bnb/wsj~full~k10/bnb/shard-0", 120.0),
            ("decode", "bnb/wsj~full~k10/bnb/shard-1", 60.0),
            ("decode", "ppc/ddt/mst/shard-0", 9.0),
            ("gather_runs", "bnb/wsj~full~k10/bnb", 6.0),
            ("noise", "bnb/wsj~full~k10/process-1", 40.0),
            ("noise", "chains/wsj/process-1", 11.0),
            ("results_page", "results_page", 3.0),
        ],
        columns=["rule", "job", "seconds"],
    )
    table = cost_table(jobs, ["bnb", "ppc"], config, cores=2)
    bnb = table[table["experiment"] == "bnb"].set_index("stage")
    assert bnb["jobs"].to_dict() == {
        "fetch": 1,
        "prepare": 1,
        "train": 2,
        "decode": 2,
        "gather_runs": 1,
        "noise": 1,
        "all": 8,
    }
    assert bnb.loc["all", "job_minutes"] == pytest.approx(1816 / 60, abs=0.01)
    # decodes and the noise job (timed: every core) one after another (220 s), the other 1,596 s over two cores
    assert bnb.loc["all", "least_wall_minutes"] == pytest.approx(1018 / 60, abs=0.01)
    assert np.isnan(bnb.loc["train", "least_wall_minutes"]) and bnb.loc["train", "longest_minutes"] == 15.0
    ppc = table[table["experiment"] == "ppc"].set_index("stage")
    assert ppc["jobs"].to_dict() == {"fetch": 1, "prepare": 1, "decode": 1, "all": 3}
    # one long job bounds the wall clock from below whatever the cores
    assert (
        cost_table(jobs, ["bnb"], config, cores=64).set_index("stage").loc["all", "least_wall_minutes"]
        == 15.0
    )
    # without harness.exclusive the decode and noise jobs share the cores too: 1,816 s over two cores is 908 s,
    # just over the longest job's 900 s; over one core, all 1,816 s
    shared = {**config, "harness": {"exclusive": False}}
    least = cost_table(jobs, ["bnb"], shared, cores=2).set_index("stage").loc["all", "least_wall_minutes"]
    assert least == pytest.approx(908 / 60, abs=0.01)
    one = cost_table(jobs, ["bnb"], shared, cores=1).set_index("stage").loc["all", "least_wall_minutes"]
    assert one == pytest.approx(1816 / 60, abs=0.01)
    # a variant whose seconds are not a result (exclusive: false) shares the cores: shard-1's 60 s among the
    # others (shard-0's 120 s and the noise job's 40 s alone, then 1,656 s over two cores: 988 s)
    audit = {**config, "experiments": {**config["experiments"], "bnb": {"datasets": ["wsj"], "variants": {}}}}
    jobs.loc[jobs["job"] == "bnb/wsj~full~k10/bnb/shard-1", "job"] = "bnb/wsj~full~k10/audit/shard-1"
    audit["experiments"]["bnb"]["variants"]["audit"] = {"decoder": "cp-sat", "exclusive": False}
    least = cost_table(jobs, ["bnb"], audit, cores=2).set_index("stage").loc["all", "least_wall_minutes"]
    assert least == pytest.approx(988 / 60, abs=0.01)
    # an experiment's own harness.exclusive: false shares its decode and noise jobs' cores but for a variant that
    # says exclusive: true (here shard-0's bnb: 120 s alone, the other 1,696 s over two cores: 968 s)
    beside = {**audit, "experiments": {**audit["experiments"], "bnb": {
        "datasets": ["wsj"], "harness": {"exclusive": False}, "variants": {"bnb": {"exclusive": True}}}}}  # fmt: skip
    jobs.loc[jobs["job"] == "bnb/wsj~full~k10/audit/shard-1", "job"] = "bnb/wsj~full~k10/other/shard-1"
    least = cost_table(jobs, ["bnb"], beside, cores=2).set_index("stage").loc["all", "least_wall_minutes"]
    assert least == pytest.approx(968 / 60, abs=0.01)
    beside["experiments"]["bnb"]["variants"] = {}
    least = cost_table(jobs, ["bnb"], beside, cores=2).set_index("stage").loc["all", "least_wall_minutes"]
    assert least == pytest.approx(908 / 60, abs=0.01)  # every job beside the others: 1,816 s over two cores
    with pytest.raises(ValueError, match="cores"):
        cost_table(jobs, ["bnb"], config, cores=0)


def test_timed_rules_are_the_rules_with_timed_threads(repo_root):
    names = set()
    for path in (repo_root / "workflow" / "rules").glob("*.smk"):
        rule = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("rule "):
                rule = line.removeprefix("rule ").rstrip(":")
            elif line.strip() == "threads: timed_threads":
                names.add(rule)
    assert names == TIMED_RULES


def test_a_publish_that_fails_leaves_the_page_folder_and_index_as_they_were(tmp_path, monkeypatch):
    """A failure half-way (here the explorer's build, after the figures and page were written) restores the
    published page folder and the index: a reader never sees half of a run published."""
    from decoders.tables import publish as publishing

    cpu = "Test CPU (2 logical CPUs)"
    results, docs = tmp_path / "results", tmp_path / "docs"
    (results / "figures" / "chains").mkdir(parents=True)
    (results / "figures" / "chains" / "f.png").write_bytes(b"first")
    (results / publishing.PAGE).write_text(_page(cpu, ("chains: x", "aaa")), encoding="utf-8")
    target = publishing.publish(results, docs)

    def snapshot():
        files = [docs / publishing.PAGE, *sorted(p for p in target.rglob("*") if p.is_file())]
        return {p.relative_to(docs).as_posix(): p.read_bytes() for p in files}

    before = snapshot()
    (results / "figures" / "chains" / "f.png").write_bytes(b"second")
    (results / "figures" / "bnb").mkdir()
    (results / "figures" / "bnb" / "g.png").write_bytes(b"bnb")
    (results / publishing.PAGE).write_text(
        _page(cpu, ("bnb: z", "bbb"), ("chains: x", "bbb")), encoding="utf-8"
    )

    def fails(page_dir, out, **kwargs):
        (out / "half-written.js").parent.mkdir(parents=True, exist_ok=True)
        (out / "half-written.js").write_text("partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(publishing, "build_explorer", fails)
    with pytest.raises(OSError, match="No space left"):
        publishing.publish(results, docs)
    assert snapshot() == before
    # and without the fault the same run publishes whole
    monkeypatch.undo()
    publishing.publish(results, docs)
    assert (target / "figures" / "bnb" / "g.png").read_bytes() == b"bnb"
    assert "table of bnb: z at bbb" in (target / publishing.PAGE).read_text(encoding="utf-8")


def test_the_publish_command_says_its_usage_and_names_a_missing_page(tmp_path, capsys):
    """`python -m decoders.tables.publish --help` describes the command; a folder without a results page is
    exit code 1 with an error naming the page; a surplus argument is argparse's usage error (2)."""
    from decoders.tables.publish import main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and "results page" in capsys.readouterr().out
    assert main([str(tmp_path / "results"), str(tmp_path / "docs")]) == 1
    assert f"{tmp_path / 'results' / 'RESULTS.md'}: no results page" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["a", "b", "c"])
    assert done.value.code == 2


def test_bnb_figures_bin_lengths_and_leave_out_thin_bins(tmp_path):
    """Figs. 4-5 average over 10-word bins (the paper's per-length means of one or two sentences were noise)
    and draw nothing for a bin of fewer than 3 sentences."""
    from decoders.tables.bnb import MIN_BIN_SENTENCES, binned_means, by_length, length_bins

    labels = length_bins(pd.Series([1, 10, 11, 40, 60, 61, 200])).astype(str).tolist()
    assert labels == ["1-10", "1-10", "11-20", "31-40", "51-60", "61+", "61+"]
    sizes = [5] * 4 + [15] * 4 + [65] * (MIN_BIN_SENTENCES - 1)
    records = pd.DataFrame(
        {
            "model": "full",
            "variant": "bnb",
            "dataset": "wsj",
            "pruning": "k3",
            "size": sizes,
            "seconds": np.linspace(0.001, 0.1, len(sizes)),
            "dp_calls": np.arange(len(sizes)) + 1.0,
        }
    )
    settings = {"datasets": ["wsj"], "table3": {"model": "full", "variant": "bnb", "pruning": [3]}}
    binned = binned_means(records, "dp_calls")
    assert binned.index.astype(str).tolist() == ["1-10", "11-20"] and binned["sentences"].tolist() == [4, 4]
    assert binned["size"].tolist() == [5.0, 15.0] and binned["value"].tolist() == [2.5, 6.5]
    by_length(records, settings, tmp_path / "f5.png", "dp_calls", "mean DP calls")
    assert (tmp_path / "f5.png").stat().st_size > 0


def test_writers_name_a_wrong_argument(tmp_path):
    """Found here: shown_number(5) failed ('int' object has no attribute 'is_integer'), a string a TypeError; the
    writers gave AttributeErrors and pathlib's TypeError for what is not a frame, a figure or a path."""
    from decoders.tables.writers import rounded, save_figure, shown_number, write_table

    assert shown_number(5) == "5" and shown_number(np.int64(7)) == "7" and shown_number(None) == ""
    assert shown_number(0.123456) == "0.1235" and shown_number(float("nan")) == ""
    for call, words in [
        (lambda: shown_number("1.5"), "value must be a real number"),
        (lambda: shown_number(True), "value must be a real number"),
        (lambda: shown_number(np.zeros(2)), "value must be a real number"),
        (lambda: write_table([1], tmp_path / "t", title="T"), "frame must be a pandas DataFrame"),
        (lambda: write_table(pd.DataFrame(), None, title="T"), "stem must be a path"),
        (lambda: write_table(pd.DataFrame(), tmp_path / "t", title=5), "title must be a string"),
        (lambda: write_table(pd.DataFrame(), tmp_path / "t", title="T", notes="a note"), "notes must be a"),
        (lambda: write_table(pd.DataFrame(), tmp_path / "t", title="T", caption="c"), "caption must be a"),
        (lambda: save_figure(None, tmp_path / "f.png"), "fig must be a matplotlib Figure"),
        (lambda: rounded(None), "frame must be a pandas DataFrame"),
        (lambda: rounded(pd.DataFrame(), digits="4"), "digits must be an integer"),
    ]:
        with pytest.raises(ValueError, match=words):
            call()


def _timed(variant, seconds, beside=None, process=None):
    """Records of ``variant`` on set "d" (sentences s0, s1, ...), with Viterbi's seconds timed beside it."""
    rows = [
        {"experiment": "chains", "dataset": "d", "variant": variant, "params": "{}", "instance_id": f"s{i}",
         "size": 5, "seconds": own, "objective": 1.0, "bound": 1.0, "status": "optimal", "structure": "[0]",
         "stats": json.dumps({} if beside is None else {"reference_seconds": beside[i]})}
        for i, own in enumerate(seconds)
    ]  # fmt: skip
    frame = pd.DataFrame(rows)
    return frame if process is None else frame.assign(process=process)


def test_speed_ups_get_intervals_and_table_2a_compares_with_viterbi_2best_through_viterbi():
    """Each speed-up has a 95% interval around it, wider with the noise jobs' spread; Table 2A's speed-up over
    Viterbi 2-best is (Viterbi beside cg-01 / cg-01) / (Viterbi beside Viterbi 2-best / Viterbi 2-best)."""
    rng = np.random.default_rng(1)
    own = rng.uniform(1.0, 2.0, 40)
    records = pd.concat(
        [
            _timed("viterbi", 3.0 * own),
            _timed("cg", own, beside=3.0 * own * rng.uniform(0.7, 1.3, 40)),
            _timed("viterbi-2best", 4.0 * own, beside=2.0 * own),
            _timed("cg-01", 2.0 * own, beside=5.0 * own),
        ],
        ignore_index=True,
    )
    sample = [0, 1, 2, 3]
    noise = pd.concat(
        [
            _timed("cg", own[sample], beside=factor * own[sample], process=p)
            for p, factor in ((1, 2.0), (2, 4.0))
        ],
        ignore_index=True,
    )
    alone = variant_summary(records).set_index("variant")
    noisy = variant_summary(records, noise=noise).set_index("variant")
    assert noisy.loc["cg", "speedup"] == alone.loc["cg", "speedup"]
    for summary in (alone, noisy):
        assert (
            summary.loc["cg", "speedup_lo"] < summary.loc["cg", "speedup"] < summary.loc["cg", "speedup_hi"]
        )
    assert noisy.loc["cg", "speedup_lo"] < alone.loc["cg", "speedup_lo"]
    assert noisy.loc["cg", "speedup_hi"] > alone.loc["cg", "speedup_hi"]
    assert np.isnan(noisy.loc["viterbi", "speedup_lo"])
    # cg's call_speedup: Viterbi's job over cg's job, matched by sentence (records without call_seconds: seconds)
    assert noisy.loc["cg", "call_speedup_lo"] <= 3.0 <= noisy.loc["cg", "call_speedup_hi"]
    oracles = table2a(alone.reset_index(), ["d"], [], records).set_index("variant")
    assert oracles.loc["cg-01", "speedup_vs_2best"] == pytest.approx((5.0 / 2.0) / (2.0 / 4.0), abs=0.01)
    assert oracles.loc["cg-01", "speedup_vs_2best_lo"] == pytest.approx(5.0, abs=0.01)  # no spread at all
    assert oracles.loc["viterbi-2best", "speedup_vs_2best"] == 1.0
    assert np.isnan(oracles.loc["viterbi-2best", "speedup_vs_2best_lo"])
    assert oracles.loc["cg-01", "paper_speedup_vs_2best"] == pytest.approx(85.0 / 56.0, abs=0.01)


def test_a_speed_gain_between_models_is_paired_through_viterbi():
    """CG's speed under another model over its speed under the tables' model: (Viterbi beside it / it) under
    the other model over the same under the tables' model, whatever each job's process speed."""
    own = np.array([1.0, 2.0, 3.0])
    records = pd.concat(
        [
            _timed("cg", 4.0 * own, beside=8.0 * own).assign(dataset="d"),  # 2x Viterbi
            _timed("cg", 2.0 * own, beside=16.0 * own).assign(
                dataset="d~t10"
            ),  # 8x Viterbi, a slower process
        ],
        ignore_index=True,
    )
    found = through_reference_sides(records, ("d~t10", "cg"), ("d", "cg"))
    assert ratio_of_totals(*found) == pytest.approx(4.0)
    assert through_reference_sides(records, ("d~t3", "cg"), ("d", "cg")) is None


def test_the_noise_is_measured_with_the_comparison_the_run_allows():
    """A run whose variant lacks a pair on one sentence (a timeout) is compared with Viterbi's own job; the noise
    records, paired on every sentence, are then read the same way, not as pairs (here they hold no Viterbi
    records, so they add no noise term)."""
    own = np.array([1.0, 2.0, 3.0, 4.0])
    cg = _timed("cg", own, beside=2.0 * own)
    cg.loc[3, "stats"] = "{}"
    records = pd.concat([_timed("viterbi", 3.0 * own), cg], ignore_index=True)
    noise = _timed("cg", own[:2], beside=[10.0, 20.0], process=1)
    noise = pd.concat(
        [noise, noise.assign(process=2, stats=_timed("cg", own[:2], beside=[1.0, 1.0])["stats"])]
    )
    alone = variant_summary(records).set_index("variant").loc["cg"]
    noisy = variant_summary(records, noise=noise).set_index("variant").loc["cg"]
    assert alone["speedup"] == pytest.approx(3.0)  # Viterbi's job over cg's
    assert (noisy["speedup_lo"], noisy["speedup_hi"]) == (alone["speedup_lo"], alone["speedup_hi"])


def _tagged(dataset, variant, objectives, correct):
    """Records of ``variant`` on instance set ``dataset``: one sentence of 4 tokens per objective, ``correct``
    of them tagged right."""
    rows = [
        {"experiment": "chains", "dataset": dataset, "variant": variant, "params": "{}", "instance_id": f"s{i}",
         "size": 4, "seconds": 1.0, "objective": objective, "bound": objective, "status": "optimal",
         "structure": "[0]", "stats": "{}", "correct": right, "total": 4}
        for i, (objective, right) in enumerate(zip(objectives, correct, strict=True))
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_the_chains_seeds_table_and_its_notes(tmp_path):
    """wsj's model with seeds 13 (the run's: set "wsj"), 14 and 15, two sentences of 4 tokens: token accuracy by
    hand viterbi 75, 50, 100; beam-1 62.5, 50, 75 (beam-1 misses the optimum of one sentence on seeds 13 and 15);
    beam-1 - viterbi -12.5, 0, -25."""
    from decoders.tables.chains import seed_notes, seeds_table

    frames = [
        _tagged("wsj", "viterbi", [5.0, 7.0], [3, 3]),
        _tagged("wsj", "beam-1", [4.0, 7.0], [2, 3]),
        _tagged("wsj~ssvm.seed14", "viterbi", [5.0, 7.0], [2, 2]),
        _tagged("wsj~ssvm.seed14", "beam-1", [5.0, 7.0], [2, 2]),
        _tagged("wsj~ssvm.seed15", "viterbi", [5.0, 7.0], [4, 4]),
        _tagged("wsj~ssvm.seed15", "beam-1", [5.0, 6.0], [4, 2]),
    ]
    records = pd.concat(frames, ignore_index=True)
    settings = {
        "model": "ssvm",
        "seeds": {"datasets": ["wsj"], "variants": ["viterbi", "beam-1"], "seeds": [13, 14, 15]},
    }
    histories = {"wsj/ssvm": {"epochs": [{"seconds": 30.0}, {"seconds": 30.0}]},
                 "wsj/ssvm.seed14": {"epochs": [{"seconds": 90.0}]}}  # fmt: skip
    table = seeds_table(records, settings, 13, histories).set_index(["measure", "variant"])
    seeds = ["seed_13", "seed_14", "seed_15"]
    assert table.loc[("token_acc", "viterbi"), seeds].tolist() == pytest.approx([75.0, 50.0, 100.0])
    assert table.loc[("token_acc", "beam-1"), seeds].tolist() == pytest.approx([62.5, 50.0, 75.0])
    gain = table.loc[("token_acc", "beam-1 - viterbi")]
    assert gain[seeds].tolist() == pytest.approx([-12.5, 0.0, -25.0]) and gain["mean"] == pytest.approx(-12.5)
    assert table.loc[("exact_pct", "beam-1"), seeds].tolist() == pytest.approx([50.0, 100.0, 50.0])
    assert table.loc[("exact_pct", "viterbi"), "range"] == 0.0
    assert ("exact_pct", "beam-1 - viterbi") not in table.index
    assert table.loc[("token_acc", "viterbi"), "sd"] == pytest.approx(25.0)
    assert table.loc[("token_acc", "viterbi"), "train_minutes_per_seed"] == pytest.approx((1.0 + 1.5) / 2)
    notes = seed_notes(table.reset_index())
    assert notes[0] == (
        "wsj: viterbi's token accuracy over 3 seeds ranges over 50.00 points: a difference in Table 1 smaller than"
        " that is within what a change of seed alone makes."
    )
    assert notes[2].endswith("from -25.00 to +0.00; its sign varies.")
    assert seed_notes(pd.DataFrame()) == ["not measured: config/chains.yaml has no `seeds` entry"]
    # a seed whose records are missing has no value, and is not counted
    partial = seeds_table(records[records["dataset"] != "wsj~ssvm.seed15"], settings, 13).set_index("variant")
    assert partial.loc["viterbi"].query("measure == 'token_acc'")["seeds"].item() == 2
    assert np.isnan(partial.loc["viterbi"].query("measure == 'token_acc'")["seed_15"].item())
    assert seeds_table(records, {"model": "ssvm"}, 13).empty
