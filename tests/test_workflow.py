"""The workflow end to end on the small test configuration: dry run, real run, report, and failure modes."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from decoders.config import load_config
from decoders.content import JOB_SUFFIX
from decoders.io import is_checksum_file
from decoders.linking.sweep import sweep_variants
from decoders.tables.linking import EXACT_SOLVERS

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.workflow


def snakemake(
    repo_root: Path,
    workdir: Path,
    *args: str,
    mirror: Path | None = None,
    overlays: tuple[Path, ...] = (),
    timeout: int = 900,
    env: dict[str, str] | None = None,
):
    env = {**os.environ, **(env or {}), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [
        str(BIN / "snakemake"),
        "--snakefile",
        str(repo_root / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",  # a --configfile replaces the Snakefile's configfile: give both, the overlay last
        str(repo_root / "config.yaml"),
        str(repo_root / "tests" / "workflow" / "config.yaml"),
        *map(str, overlays),
        "--config",
        f"mirror={mirror}"
        if mirror is not None
        else "mirror=",  # empty: null (Snakemake reads "null" as a string)
        *args,
    ]
    return subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)


# Corpora the toy run's experiments do not read (its ppc parses szeged only): neither fetched nor prepared.
UNUSED_CORPORA = ("cdt_danish_ddt_v1", "ud_italian_partut")


def test_default_config_dry_run(repo_root, tmp_path):
    """`snakemake -n` on the default configuration, without a mirror flag, plans every fetch, prepare and table
    job of the built experiments (every corpus), and timed jobs that reserve every core; it says which mirror it
    reads (mirror: auto: ../shared/corpora beside the repository where it exists, else none)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(BIN / "snakemake"), "-n", "--cores", "2", "--directory", str(tmp_path)]
    command += ["--snakefile", str(repo_root / "Snakefile"), "--configfile", str(repo_root / "config.yaml")]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    shared = (repo_root.parent / "shared" / "corpora").resolve()
    expected = f"corpus mirror: {shared} (mirror: auto" if shared.is_dir() else "corpus mirror: none ("
    assert expected in result.stdout + result.stderr
    for corpus in load_config(repo_root)["corpora"]:
        assert f"rule fetch_{corpus}:" in result.stdout, corpus
    for rule in ("prepare_conllu", "prepare_conllx", "prepare_wsj", "prepare_uner", "prepare_textbooks"):
        assert f"rule {rule}:" in result.stdout
    for rule in (
        "prepare_wikispeedia",
        "prepare_elevant",
        "prepare_entity_fishing",
        "corpora_table",
        "results_page",
    ):
        assert f"rule {rule}:" in result.stdout
    jobs = []  # [rule, threads, variant] of every planned job (a job without a threads line has one)
    for line in result.stdout.splitlines():
        if match := re.match(r"\s*(?:local)?rule (\w+):", line):
            jobs.append([match.group(1), 1, None])
        elif (match := re.match(r"\s*threads: (\d+)", line)) and jobs:
            jobs[-1][1] = int(match.group(1))
        elif (match := re.search(r"wildcards: .*variant=([^,\s]+)", line)) and jobs:
            jobs[-1][2] = match.group(1)
    threads = {}
    for rule, count, _ in jobs:
        threads.setdefault(rule, set()).add(count)
    assert threads["linking_scaling"] == {2} and threads["noise"] == {2}  # noise: retimings, exclusive too
    assert threads["linking_scaling_noise"] == {2}
    # every decode reserves the cores but those of a variant whose seconds are not a result (exclusive: false,
    # the variant's own or its experiment's)
    experiments = load_config(repo_root)["experiments"]
    sweep = sweep_variants(experiments["linking"])  # copies of linking's variants, their `exclusive` included
    variants = {
        name: variant.get("exclusive", (spec.get("harness") or {}).get("exclusive", True))
        for key, spec in experiments.items()
        for name, variant in [*spec.get("variants", {}).items(), *(sweep.items() if key == "linking" else [])]
    }
    beside = {name for name, exclusive in variants.items() if exclusive is False}
    # bnb: the audit (both its variants), the paper's search and Table 2's rows but Table 3's model (their
    # accuracies are the result); linking: every variant (no table prints a heuristic's seconds or a ratio of two
    # solvers' seconds; the exact solvers' limit is per document on one thread)
    assert {name for name in beside if name in experiments["bnb"]["variants"]} == {
        "cp-sat",
        "cp-sat-long",
        "bnb-paper",
        "bnb-beside",
        "eisner",
        "second-order",
        "third-order",
    }
    linking = set(experiments["linking"]["variants"]) | set(sweep)
    assert linking and linking <= beside
    decodes = {(variant, count) for rule, count, variant in jobs if rule == "decode"}
    assert decodes and all(count == (1 if variant in beside else 2) for variant, count in decodes)
    assert threads["chains_train"] == {1} and threads["gather_runs"] == {1}
    # every CSV item of the report (shown there only as a download) has a caption that says where its table is
    # shown rendered: read from the rules' report() items and the captions this dry run wrote
    items = re.findall(
        r'report\(\s*"([^"]+)",\s*caption=report_caption\("(\w+)", "(\w+)"\)',
        "\n".join(
            path.read_text(encoding="utf-8") for path in sorted((repo_root / "workflow/rules").glob("*.smk"))
        ),
    )
    tables = [(experiment, key) for path, experiment, key in items if path.endswith(".csv")]
    assert len(tables) >= 40, items
    for experiment, key in tables:
        text = (tmp_path / ".snakemake" / "captions" / f"{experiment}_{key}.rst").read_text(encoding="utf-8")
        assert "the eye icon of its CSV item downloads it" in text, (experiment, key)


@pytest.fixture(scope="module")
def finished_run(repo_root, mirror, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("workflow")
    # ~500 jobs since the peers (AD3, HiGHS, SCIP, the Viterbi peak), the explorer and IITB: 63% of them in 25
    # minutes on a busy 2-core machine
    result = snakemake(repo_root, workdir, "--cores", "2", mirror=mirror, timeout=3000)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-10000:]
    return workdir


def test_run_prepares_every_used_dataset(finished_run, repo_root):
    table = pd.read_csv(finished_run / "results" / "tables" / "corpora.csv")
    assert set(table["dataset"]) == {
        "wsj",
        "ewt",
        "ewt-ner",
        "gsd",
        "szeged",
        "textbooks",
        "wikispeedia",
        "elevant",
        "iitb",
    }
    assert {p.name for p in (finished_run / "data" / "raw").iterdir()}.isdisjoint(UNUSED_CORPORA)
    sentences = table.set_index(["dataset", "split"])["sentences"]
    assert sentences["ewt", "train"] == 40 and sentences["wsj", "test"] == 40
    nodes = table.set_index(["dataset", "split"])["nodes"]
    assert nodes["wikispeedia", "directed"] == 4604
    for suffix in ("md", "tex"):
        assert (finished_run / "results" / "tables" / f"corpora.{suffix}").stat().st_size > 0
    assert (finished_run / "data" / "prepared" / "wikispeedia" / "graph.npz").is_file()


def test_run_decodes_every_chains_variant(finished_run):
    """The chains tables come from real runs of every configured variant, exact ones agreeing with Viterbi."""
    table1 = pd.read_csv(finished_run / "results" / "tables" / "chains" / "table1.csv")
    assert set(table1["dataset"]) == {"wsj", "ewt", "ewt-ner"}
    exact = table1[table1["variant"].isin(["viterbi", "viterbi+p", "cg"])]
    assert (exact["exact_pct"] == 100.0).all() and (exact["sentences"] == 40).all()
    for name in (
        "table2a",
        "table2b",
        "cg_statistics",
        "speed_by_length",
        "cg_phases",
        "viterbi_peak",
        "peer",
        "figure2",
    ):
        assert len(pd.read_csv(finished_run / "results" / "tables" / "chains" / f"{name}.csv")) > 0
    for name in ("figure2", "cg_statistics", "speed_by_length", "cg_phases"):
        assert (finished_run / "results" / "figures" / "chains" / f"{name}.png").stat().st_size > 0
    # the seed study (tests/workflow/config.yaml): ssvm on wsj with seeds 13 and 14, Viterbi and beam-2
    seeds = pd.read_csv(finished_run / "results" / "tables" / "chains" / "seeds.csv")
    accuracy = seeds[seeds["measure"] == "token_acc"].set_index("variant")
    assert (
        accuracy.index.tolist() == ["viterbi", "beam-2", "beam-2 - viterbi"] and (seeds["seeds"] == 2).all()
    )
    assert accuracy.loc[["viterbi", "beam-2"], ["seed_13", "seed_14"]].stack().between(0, 100).all()
    exact = seeds[seeds["measure"] == "exact_pct"].set_index("variant")
    assert (exact.loc["viterbi", ["seed_13", "seed_14"]] == 100.0).all()
    page = (finished_run / "results" / "RESULTS.md").read_text()
    assert "| commit |" in page and "| CPU |" in page and "Table 1: exactness and speed" in page
    assert "| certificate checks | every optimal record of" in page  # the verifier's untimed cost


def test_run_decodes_every_titles_variant(finished_run):
    """Table 1 of titles comes from every configured variant on the same test titles; the decoders that search
    exactly (ILP, beam at the width the workflow found) score the certified optimum where there is one."""
    tables = finished_run / "results" / "tables" / "titles"
    table1 = pd.read_csv(tables / "table1.csv").set_index("variant")
    variants = {
        "colour-coding",
        "colour-coding-certified",
        "ilp-cp-sat",
        "ilp-scip",
        "ilp-highs",
        "beam-1",
        "beam-80",
        "beam-smallest",
    }
    assert set(table1.index) == variants
    assert table1["titles"].nunique() == 1 and table1["titles"].iloc[0] > 0
    assert table1.loc["ilp-cp-sat", "certified_titles"] > 0
    assert table1.loc["beam-smallest", "optimal_pct"] == 100.0
    assert table1.loc["colour-coding-certified", "optimal_pct"] == 100.0
    assert table1["errors"].sum() == 0
    width = json.loads((tables / "textbooks" / "smallest_beam.json").read_text())["width"]
    assert table1.loc["beam-smallest", "beam_width"] == width
    examples = pd.read_csv(tables / "examples.csv")
    assert {"reference", *variants} <= set(examples.columns) and len(examples) > 0
    for name in ("figure2", "time_vs_k"):
        assert (finished_run / "results" / "figures" / "titles" / f"{name}.png").stat().st_size > 0


def test_run_decodes_every_linking_variant(finished_run):
    """linking: every heuristic chooses one candidate per mention on every document; the scaling table has our
    kernels and networkx on the same graph."""
    tables = finished_run / "results" / "tables" / "linking"
    table1 = pd.read_csv(tables / "table1.csv")
    assert set(table1["dataset"]) == {"wikispeedia", "elevant", "iitb"}
    heuristics = table1[~table1["algorithm"].isin([*EXACT_SOLVERS, "ground-truth"])]
    assert (heuristics["ratio_max"] >= 100.0 - 1e-9).all()
    assert ((heuristics["value_max"] >= 0) & (heuristics["value_max"] <= 1)).all()
    runs = finished_run / "results" / "runs" / "linking"
    for path in runs.glob("*/*.parquet"):
        records = pd.read_parquet(path)
        assert (records["status"] != "error").all(), path
        # an exact solver stopped at its limit may have no choice (CI's CP-SAT once stopped in 0.85 s with none)
        structures = records["structure"].map(json.loads)
        missing = structures.isna()
        assert (records.loc[missing, "status"] == "timeout").all(), path
        assert (structures[~missing].map(len) == records.loc[~missing, "k"]).all(), path
    scaling = pd.read_csv(tables / "scaling.csv")
    assert {"ours", "networkx"} <= set(scaling["library"])
    assert scaling["pagerank_s"].notna().all()


def test_run_parses_with_every_bnb_model(finished_run):
    """bnb: every model of Table 2 parsed every test sentence into a verified tree, the exact decoders certified
    every answer, Table 3 has each pruning k and the UDPipe peer, the audit compared CP-SAT with B&B."""
    tables = finished_run / "results" / "tables" / "bnb"
    table2 = pd.read_csv(tables / "table2.csv")
    assert set(table2["dataset"]) == {"wsj", "gsd"}
    assert {"first-order", "baseline", "third-order", "sibling", "full"} <= set(table2["model"])
    models = table2.groupby("dataset")["model"].apply(set)  # the hand-crafted factors: English only
    assert "hand-crafted" in models["wsj"] and "hand-crafted" not in models["gsd"]
    local = table2[table2["decoder"].isin(["eisner", "second-order", "third-order"])]
    assert (local["certified_pct"] == 100.0).all()
    assert ((table2["uas"] > 0) & (table2["uas"] <= 100)).all()
    timed = table2["model"] == "full"  # only table3's model decodes holding every core; the rest run beside
    assert table2.loc[timed, "words_per_s"].gt(0).all() and table2.loc[~timed, "words_per_s"].isna().all()
    references = table2.set_index(["dataset", "model"])["reference"]  # equal training: 2 + 1 passes, 2
    assert (references.xs("full", level="model") == "baseline-7").all()
    assert (references.xs("third-order", level="model") == "baseline").all()
    for path in (finished_run / "results" / "runs" / "bnb").glob("*/*.parquet"):
        records = pd.read_parquet(path)
        assert (records["status"] != "error").all(), path
    table3 = pd.read_csv(tables / "table3.csv")
    assert table3["system"].str.startswith("UDPipe").sum() == 2
    assert len(table3) == 2 * 3  # k = 3, k = 5, UDPipe per dataset
    audit = pd.read_csv(tables / "audit.csv")
    assert (audit["agree"] == audit["both_certified"]).all()
    # its length buckets share out every test sentence
    buckets = audit[audit["words"] != "all"].groupby("dataset")["test_sentences"].sum()
    assert (
        buckets.to_dict() == audit[audit["words"] == "all"].set_index("dataset")["test_sentences"].to_dict()
    )
    # the seed study (tests/workflow/config.yaml): baseline and full on wsj with seeds 13 and 14, and their gain
    seeds = pd.read_csv(tables / "seeds.csv").set_index("model")
    assert seeds.index.tolist() == ["baseline", "full", "full - baseline"] and (seeds["seeds"] == 2).all()
    assert seeds.loc[["baseline", "full"], ["seed_13", "seed_14"]].stack().between(0, 100).all()
    for name in ("statistics", "tagging", "training"):
        assert len(pd.read_csv(tables / f"{name}.csv")) > 0
    curve = pd.read_csv(tables / "learning_curve.csv")  # the baseline on half and all of wsj's documents
    assert curve["share"].tolist() == [0.5, 1.0] and curve["dev_uas"].between(0, 100).all()
    factors = pd.read_csv(tables / "factors.csv")  # the hand-crafted patterns: English only
    assert factors["dataset"].tolist() == ["wsj"] * 13
    assert (factors["train_candidates"] >= factors["train_gold"]).all()
    # where the time goes: wsj's full model at k = 3, its first 10 sentences (tests/workflow/config.yaml)
    spent = pd.read_csv(tables / "breakdown.csv")
    timed = spent[(spent["section"] == "time") & (spent["stage"] != "total")]
    assert (
        timed["pct_of_total"].sum() == pytest.approx(100.0, abs=0.01)
        and (timed["ms_per_sentence"] >= 0).all()
    )
    assert spent.loc[spent["section"] == "factor", "factor"].notna().all()
    training = pd.read_csv(tables / "training.csv")
    # config.yaml's own references (baseline-7, baseline-8) join the overlay's models
    local_models = [
        "head-classifier",
        "first-order",
        "baseline",
        "baseline-7",
        "baseline-8",
        "third-order",
    ]
    factor_models = ~training["model"].isin(local_models)
    assert {"wsj", "gsd"} == set(training["dataset"]) and ("gsd", "hand-crafted") not in set(
        zip(training["dataset"], training["model"], strict=True)
    )
    epochs = training.set_index(["dataset", "model"])["epochs"]
    assert (epochs.xs("head-classifier", level="model") == 2).all()  # the pruner (tests/workflow/config.yaml)
    pruner = training[training["model"] == "head-classifier"]
    assert pruner["dev_recall_at_10"].between(0, 100).all() and pruner["dev_uas"].isna().all()
    assert (epochs.xs("baseline-7", level="model") == 1).all()  # the baseline continued (config.yaml)
    assert (training.loc[factor_models, "epochs"] == 1).all()  # factor_epochs, after the baseline's 2
    assert (epochs.xs("baseline", level="model") == 2).all()
    continued = factor_models | training["model"].isin(["baseline-7", "baseline-8"])
    assert (training.loc[continued, "started_from"] == "baseline").all()
    assert training.loc[~continued, "started_from"].isna().all()
    assert training.loc[factor_models, "unsettled_searches_pct"].between(0, 100).all()
    steps = training.set_index(["dataset", "model"])["backbone_step"]
    assert (steps.xs("sibling", level="model") == 2).all() and (steps.xs("full", level="model") == 1).all()
    for name in ("figure4", "figure5"):
        assert (finished_run / "results" / "figures" / "bnb" / f"{name}.png").stat().st_size > 0


def test_run_parses_with_every_ppc_variant(finished_run):
    """ppc: every variant parsed the test sentences into verified trees (timeouts allowed at the toy's limit),
    PPC's objective is BF's wherever both finished, and the tables and figures are written."""
    runs = finished_run / "results" / "runs" / "ppc" / "szeged"
    records = {path.stem: pd.read_parquet(path) for path in runs.glob("*.parquet")}
    assert {
        "mst", "full-lp", "full-lp-paper", "arcgp", "onegp", "ppc", "ppc-paper", "ilp", "audit", "arcgp-cycles",
        "ad3-lp", "ad3-exact",
    } <= set(records)  # fmt: skip
    for name, frame in records.items():
        assert (frame["status"] != "error").all(), name
        assert (frame["status"] == "optimal").any(), name
    both = records["ppc"].merge(records["full-lp"], on="instance_id", suffixes=("", "_bf"))
    both = both[(both["status"] == "optimal") & (both["status_bf"] == "optimal")]
    assert len(both) > 0
    assert np.allclose(both["objective"], both["objective_bf"], rtol=1e-6)
    # the peer AD3 (python -m decoders.ppc.ad3_install, run by CI first): its LP is ArcGP+GPArc with cycle cuts
    ad3 = records["ad3-lp"].merge(records["arcgp-cycles"], on="instance_id", suffixes=("", "_ours"))
    ad3 = ad3[(ad3["status"] == "optimal") & (ad3["status_ours"] == "optimal")]
    assert len(ad3) > 0 and np.allclose(ad3["objective"], ad3["objective_ours"], rtol=1e-6)
    tables = finished_run / "results" / "tables" / "ppc"
    peer = pd.read_csv(tables / "ad3.csv").set_index("variant")
    assert {"ad3-lp", "ad3-exact", "arcgp-cycles"} <= set(peer.index)
    assert peer.loc["ad3-lp", "lp_differs"] == 0 and peer.loc["ad3-lp", "lp_compared"] == len(ad3)
    assert len(pd.read_csv(tables / "ad3_lps.csv")) >= 4
    table1 = pd.read_csv(tables / "table1.csv")
    assert table1["uas"].between(0, 100).all() and len(table1) >= 4
    assert len(pd.read_csv(tables / "table2.csv")) == 3
    audit = pd.read_csv(tables / "audit.csv")
    assert (audit["passed"] == audit["audited"]).all() and audit["audited"].sum() > 0
    seeds = pd.read_csv(tables / "seeds.csv").set_index("variant")  # szeged's parsers with seeds 13 and 14
    assert seeds.index.tolist() == ["mst", "ppc", "ppc - mst"] and (seeds["seeds"] == 2).all()
    for name in ("time_vs_length", "bf_growth"):
        assert (finished_run / "results" / "figures" / "ppc" / f"{name}.png").stat().st_size > 0


def test_report(finished_run, repo_root, mirror, tmp_path):
    """The report holds every table (as CSV) and figure of the results page, and the page itself; the page shows
    every table and figure the run wrote."""
    result = snakemake(repo_root, finished_run, "--report", "results/report.zip", mirror=mirror)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    with zipfile.ZipFile(finished_run / "results" / "report.zip") as archive:
        names = [Path(name).name for name in archive.namelist() if "/data/raw/" in name]
        html = archive.read("report/report.html").decode("utf-8", errors="replace")
    results = finished_run / "results"
    page = (results / "RESULTS.md").read_text(encoding="utf-8")
    # the page opens with the scoreboard, one row per claim of the run's experiments
    assert (
        page.index("<!-- scoreboard: start -->")
        < page.index("<!-- scoreboard: end -->")
        < page.index("\n## ")
    )
    assert page.count("| titles-") + page.count("| chains-") >= 2
    tables = sorted((results / "tables").rglob("*.md"))
    figures = sorted((results / "figures").rglob("*.png"))
    for table in tables:
        title = table.read_text(encoding="utf-8").splitlines()[0].removeprefix("### ")
        assert f"#### {title}" in page, table
    for figure in figures:
        assert f"]({figure.relative_to(results).as_posix()})" in page, figure
    # beside the tables (CSV) and figures: the results page rendered (every table readable in the report's frame,
    # figures inside) and the explorer (results/explorer.html)
    expected = [t.with_suffix(".csv").name for t in tables] + [f.name for f in figures]
    assert sorted(names) == sorted([*expected, "RESULTS.html", "explorer.html"])
    rendered = (results / "RESULTS.html").read_text(encoding="utf-8")
    assert rendered.count("<table>") == page.count("\n|:") + page.count("\n|---") and "<!--" not in rendered
    assert rendered.count('src="data:image/png;base64,') == len(figures)
    # the front page's caption (captions/shared.yaml) and a table's
    assert (
        "Prepared corpora" in html and "decoding experiments of papers" in html and "This run built" in html
    )
    look_at_the_report(finished_run / "results" / "report.zip", tmp_path)


def look_at_the_report(archive: Path, folder: Path) -> None:
    """The report as a reader sees it, in headless Chromium: no console error; the front page names the experiments
    the run built; every result's panel gives its caption, and its job's parameters only as labels (no settings
    dump, no 64-digit hash); a table's caption says where it is shown rendered; the rendered results page shows
    every table; the explorer inside the report is ready, with tables. Screenshots go to ``folder``."""
    from browser import chromium, console_errors
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with zipfile.ZipFile(archive) as opened:
        opened.extractall(folder)
    page = folder / archive.stem / "report.html"
    with chromium() as driver:
        driver.get(page.as_uri())
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "app").text.strip())
        front = driver.find_element(By.ID, "app").text
        driver.save_screenshot(str(folder / "report-front.png"))
        results = driver.execute_script("return results")
        assert results
        for path, result in results.items():
            driver.execute_script("app.showResultInfo(arguments[0])", path)
            panel = WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "nav").text)
            assert result["filename"] in panel, (path, panel[:300])
            if result["filename"].endswith(".csv"):  # the eye icon downloads a CSV: where is it read?
                assert "the eye icon of its CSV item downloads it" in panel, (path, panel[-300:])
            shown = result["job_properties"]["params"]
            assert "{" not in shown and not re.search(r"[0-9a-f]{64}", shown), (path, shown)
        for name, check in (("RESULTS.html", "tables"), ("explorer.html", "explorer")):
            path, result = next((p, r) for p, r in results.items() if r["filename"] == name)
            driver.execute_script(
                "app.setView({content: 'html', contentPath: arguments[0], resultPath: arguments[1]})",
                result["data_uri"],
                path,
            )
            frame = WebDriverWait(driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "iframe"))
            driver.switch_to.frame(frame)
            if check == "tables":
                WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.TAG_NAME, "table"))
                assert len(driver.find_elements(By.CSS_SELECTOR, "table tbody tr")) > 10
            else:
                WebDriverWait(driver, 120).until(
                    lambda d: d.execute_script("return document.body.dataset.ready === '1'")
                )
                assert driver.find_elements(By.CSS_SELECTOR, ".table-block tbody tr")
            driver.switch_to.default_content()
            driver.save_screenshot(str(folder / f"report-{name}.png"))
        errors = console_errors(driver)
    assert "This run built" in front and "chains: MAP inference" in front, front[:500]
    assert not errors, errors


def test_a_published_page_is_rebuilt_from_its_records_alone(finished_run, repo_root, tmp_path):
    """Publish the toy run's page into a docs folder, then rebuild every experiment section from the records
    published beside it, in folders without results/: each equals the published section; and the content each
    section recorded is this tree's code and rules. The whole run rebuilt from them (rebuild --run) has the same
    sections and cost table; sections of two runs are refused."""
    from decoders.content import compare, job_record_path
    from decoders.errors import ConfigError
    from decoders.io import read_json
    from decoders.tables.evidence import ARCHIVE, RECORDS
    from decoders.tables.publish import publish
    from decoders.tables.rebuild import rebuild, rebuild_run, section_text

    docs = tmp_path / "docs"
    page_dir = publish(finished_run / "results", docs)
    experiments = ["titles", "chains", "bnb", "ppc", "linking"]
    for experiment in experiments:
        assert (page_dir / RECORDS / experiment / ARCHIVE).is_file(), experiment
    found = rebuild(page_dir, out=tmp_path / "rebuilt")
    assert sorted(found) == sorted(experiments)
    assert {name: diff[:20] for name, diff in found.items() if diff} == {}
    # the records and tables were made by this tree's code and rules (the toy run's settings are the test
    # overlay's, so only the settings differ from what ships)
    for experiment in experiments:
        report = compare(read_json(page_dir / RECORDS / experiment / "content.json"), repo_root, None)
        assert not [
            (part, kind, names) for part, found in report.items() for kind, names in found.items() if names
        ]
    # the whole run rebuilt from the records (rebuild --run): the same sections, and the cost of every experiment
    # recomputed from the run's benchmark files, as the run computed it
    results = rebuild_run(page_dir, tmp_path / "run")
    again = (results / "RESULTS.md").read_text(encoding="utf-8")
    published = (page_dir / "RESULTS.md").read_text(encoding="utf-8")
    assert all(section_text(again, e) == section_text(published, e) for e in experiments)
    cost = [pd.read_csv(folder / "tables" / "cost.csv") for folder in (finished_run / "results", results)]
    assert sorted(cost[1]["experiment"].unique()) == sorted(experiments)
    columns = ["experiment", "stage", "jobs"]  # the minutes too, unless a test ran a job again in the toy run
    pd.testing.assert_frame_equal(cost[0][columns], cost[1][columns])
    # sections of two runs are refused: here chains' records with another results-page job record
    with tarfile.open(page_dir / RECORDS / "chains" / ARCHIVE, "r:xz") as tar:
        tar.extractall(tmp_path / "chains", filter="data")
    record = job_record_path(tmp_path / "chains" / "results" / "RESULTS.md")
    record.write_text(json.dumps({**read_json(record), "threads": 99}), encoding="utf-8")
    with tarfile.open(page_dir / RECORDS / "chains" / ARCHIVE, "w:xz") as tar:
        tar.add(tmp_path / "chains" / "results", arcname="results")
    with pytest.raises(ConfigError, match=r"come from 2 runs \(.*chains"):
        rebuild_run(page_dir, tmp_path / "two-runs")


def test_every_job_stays_within_its_declared_memory(finished_run, repo_root):
    """Every job has a benchmark file (peak memory, wall time); none peaked above the mem_mb it declares; the
    results page and the resources table summarise them per rule."""
    from decoders.tables.resources import job_usage, with_declared

    config = load_config(repo_root)
    jobs = with_declared(job_usage(finished_run / "results" / "benchmarks"), config)
    assert {"fetch", "prepare", "chains_train", "decode", "gather_runs", "titles_tables"} <= set(jobs["rule"])
    assert (jobs.loc[jobs["rule"] == "decode", "job"].str.count("/") == 3).all()
    assert jobs["within"].all(), jobs[~jobs["within"]]
    table = pd.read_csv(finished_run / "results" / "tables" / "resources.csv").set_index("rule")
    assert (
        table.loc["decode", "jobs"] == (jobs["rule"] == "decode").sum() and table["over_declared"].sum() == 0
    )
    page = (finished_run / "results" / "RESULTS.md").read_text()
    assert "Wall time and peak memory per rule" in page and "What each experiment costs from scratch" in page
    cost = pd.read_csv(finished_run / "results" / "tables" / "cost.csv")
    totals = cost[cost["stage"] == "all"].set_index("experiment")
    assert {"chains", "bnb"} <= set(totals.index)
    bnb = cost[cost["experiment"] == "bnb"].set_index("stage")
    assert {"fetch", "prepare", "train", "instances", "decode", "gather_runs"} <= set(bnb.index)
    assert bnb.loc["all", "jobs"] == bnb.drop(index="all")["jobs"].sum()
    # the toy run has harness.exclusive false: every job shares the cores, so the bound is the summed minutes over
    # the cores, never under the longest job and never over the sum
    all_jobs = bnb.loc["all"]
    assert all_jobs["longest_minutes"] <= all_jobs["least_wall_minutes"] <= all_jobs["job_minutes"]


def raw_files(workdir: Path) -> dict[str, tuple[int, int, int]]:
    """data/raw's files (the verified store included, the checksums each job records beside its outputs not) with
    inode, size and modification time."""
    raw = workdir / "data" / "raw"
    return {
        str(p.relative_to(raw)): (p.stat().st_ino, p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(raw.rglob("*"))
        if p.is_file() and not is_checksum_file(p) and not p.name.endswith(JOB_SUFFIX)
    }


@pytest.fixture()
def fetched(repo_root, mirror, tmp_path):
    """A workdir whose UD English EWT corpus was fetched from the mirror."""
    workdir = tmp_path / "run"
    workdir.mkdir()
    result = snakemake(repo_root, workdir, "--cores", "1", "fetch_ud_english_ewt", mirror=mirror)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return workdir


def test_missing_mirror_is_one_line_error_at_load(repo_root, fetched, tmp_path):
    """A mirror folder that does not exist stops the workflow before it plans anything, in one line that names
    the folder and the way out; data/raw is untouched."""
    before = raw_files(fetched)
    missing = tmp_path / "no-such-mirror"
    result = snakemake(repo_root, fetched, "--cores", "1", "fetch_ud_english_ewt", "-F", mirror=missing)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert f"mirror: {missing} is not a folder" in output and "--config mirror=)" in output
    # Snakemake's own "Config file ... is extended" line per experiment file aside, the error is its few lines
    own = [line for line in output.strip().splitlines() if not line.startswith("Config file ")]
    assert "Building DAG" not in output and len(own) <= 4, output
    assert raw_files(fetched) == before


def test_another_path_to_the_mirror_reruns_nothing(repo_root, mirror, fetched, tmp_path):
    """The mirror's path is not a parameter of the fetch jobs: the files are defined by their hashes."""
    elsewhere = tmp_path / "mirror-link"
    elsewhere.symlink_to(mirror, target_is_directory=True)
    result = snakemake(repo_root, fetched, "-n", "fetch_ud_english_ewt", mirror=elsewhere)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Nothing to be done" in result.stdout + result.stderr, result.stdout


def test_failed_refetch_keeps_verified_files(repo_root, fetched):
    """A fetch job that runs again (forced) with no mirror and no network restores its files from the verified
    store instead of losing them: Snakemake deletes a job's outputs before it runs."""
    before = raw_files(fetched)
    env = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}  # no network either way
    result = snakemake(repo_root, fetched, "--cores", "1", "fetch_ud_english_ewt", "-F", mirror=None, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    log = (fetched / "results" / "logs" / "fetch" / "ud_english_ewt.log").read_text()
    assert log.count("<- verified store") == 3
    # the same files (same inodes and sizes); Snakemake touches a job's outputs when it ends, so only their times
    # are new
    assert {name: stat[:2] for name, stat in raw_files(fetched).items()} == {
        name: stat[:2] for name, stat in before.items()
    }


def test_corrupted_mirror_fails_fetch_and_leaves_nothing(repo_root, mirror, tmp_path):
    broken = tmp_path / "mirror"
    shutil.copytree(mirror / "ud_english_ewt", broken / "ud_english_ewt")
    dev = broken / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    dev.write_bytes(dev.read_bytes().replace(b"\tNOUN\t", b"\tVERB\t", 1))
    workdir = tmp_path / "run"
    workdir.mkdir()
    result = snakemake(repo_root, workdir, "--cores", "1", "fetch_ud_english_ewt", mirror=broken)
    log = (workdir / "results" / "logs" / "fetch" / "ud_english_ewt.log").read_text()
    assert result.returncode != 0
    assert str(dev) in log and "expected 531a54ff" in log
    # a user's error, not a bug: one line in the log (which the default profile prints), no traceback
    assert "Traceback" not in log and "Traceback" not in result.stdout + result.stderr
    assert (
        "ERROR decoders.rule.fetch_ud_english_ewt: ChecksumError: ud_english_ewt/en_ewt-ud-dev.conllu" in log
    )
    assert "UD_English-EWT/15d613d8447b3478787d4c278730a1e48a945efb/en_ewt-ud-dev.conllu" in log
    raw = workdir / "data" / "raw" / "ud_english_ewt"
    assert not raw.exists() or list(raw.iterdir()) == []


def test_malformed_conllu_fails_prepare_naming_file_and_line(repo_root, mirror, tmp_path):
    """A CoNLL-U line with a bad head in a (consistently hashed) corpus file fails prepare at that line."""
    workdir = tmp_path / "run"
    raw = workdir / "data" / "raw" / "ud_english_ewt"
    raw.mkdir(parents=True)
    lines = (mirror / "ud_english_ewt" / "en_ewt-ud-dev.conllu").read_text(encoding="utf-8").splitlines(True)
    bad_line = next(i for i, line in enumerate(lines) if line[:1].isdigit() and "\t" in line)
    columns = lines[bad_line].split("\t")
    columns[6] = "x"
    lines[bad_line] = "\t".join(columns)
    (raw / "en_ewt-ud-dev.conllu").write_text("".join(lines), encoding="utf-8")
    (raw / "en_ewt-ud-test.conllu").write_bytes(
        (mirror / "ud_english_ewt" / "en_ewt-ud-test.conllu").read_bytes()
    )
    (raw / "en_ewt-ud-train.conllu").write_bytes(
        gzip.decompress((mirror / "ud_english_ewt" / "en_ewt-ud-train.conllu.gz").read_bytes())
    )
    # the files are taken as they are (no fetch job runs): their outputs exist and nothing is older than them
    result = snakemake(
        repo_root,
        workdir,
        "--cores",
        "1",
        "data/prepared/ewt/dev.parquet",
        "--allowed-rules",
        "prepare_conllu",
    )
    log = (workdir / "results" / "logs" / "prepare" / "ewt.log").read_text()
    assert result.returncode != 0
    assert f"en_ewt-ud-dev.conllu, line {bad_line + 1}" in log
    assert not (workdir / "data" / "prepared" / "ewt" / "dev.parquet").exists()


def test_unknown_config_key_fails_at_load(repo_root, tmp_path):
    overlay = tmp_path / "bad.yaml"
    overlay.write_text("datasets:\n  wsj:\n    limt: 3\n")
    result = snakemake(repo_root, tmp_path, "-n", overlays=(overlay,))
    assert result.returncode != 0
    assert (
        "datasets.wsj: Additional properties are not allowed ('limt' was unexpected)"
        in result.stdout + result.stderr
    )


def test_decode_and_gather_a_sharded_instance_set(repo_root, tmp_path):
    """decode.smk: one job per shard (hard time limit, provenance), then a gather in instance-set order."""
    from decoders.chains.decoders import decode_viterbi
    from decoders.chains.instance import ChainInstance, ChainScores
    from decoders.harness.instances import write_instance_shards
    from decoders.harness.records import read_records

    rng = np.random.default_rng(7)
    scores = ChainScores(rng.normal(size=(3, 3)))

    def sentence(n):
        theta = rng.normal(size=(n, 3))
        return ChainInstance(theta, scores, decode_viterbi(ChainInstance(theta, scores)).structure)

    instances = [(f"s{i}", n, sentence(n)) for i, n in enumerate([5, 50, 7, 30, 2])]
    instances.insert(2, ("slow", 3, sentence(3)))  # toy-viterbi sleeps 60 s on 3 tokens
    base = tmp_path / "results" / "instances" / "chains" / "toyset"
    write_instance_shards(instances, [base / f"shard-{i}.pkl" for i in range(2)], base / "index.tsv")
    overlay = tmp_path / "decode.yaml"
    overlay.write_text(
        "harness: {time_limit: 4, shards: 2}\n"  # a replacement worker's warm-up fits in 5 s on a busy machine
        "chains:\n  variants:\n"
        "    toy: {decoder: toy-viterbi, params: {sleep_tokens: 3}, module: workflow_toys}\n"
    )
    target = "results/runs/chains/toyset/toy.parquet"
    env = {"PYTHONPATH": str(repo_root / "tests")}
    result = snakemake(repo_root, tmp_path, "--cores", "2", target, overlays=(overlay,), env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    records = read_records(tmp_path / target)
    assert list(records["instance_id"]) == [item[0] for item in instances]
    by_id = records.set_index("instance_id")
    assert by_id.loc["slow", "status"] == "timeout" and np.isnan(by_id.loc["slow", "objective"])
    solved = by_id.drop(index="slow")
    # the chains experiment's verify and evaluate applied to the outside module's answers
    assert (solved["status"] == "optimal").all() and (solved["correct"] == solved["total"]).all()
    for instance_id, _, instance in instances:
        if instance_id != "slow":
            assert by_id.loc[instance_id, "objective"] == pytest.approx(decode_viterbi(instance).objective)
    assert set(records["params"]) == {'{"sleep_tokens":3}'}
    for shard in range(2):
        provenance = json.loads(
            (tmp_path / "results/runs/chains/toyset/toy" / f"shard-{shard}.json").read_text()
        )
        assert provenance["threads"]["NUMBA_NUM_THREADS"] == "1" and provenance["seed"] == 13
        assert provenance["extra"]["variant"]["decoder"] == "toy-viterbi"
        assert provenance["extra"]["harness"]["verifier"] == ["decoders.chains.decoders.verify"]


def test_unknown_variant_is_named(repo_root, tmp_path):
    result = snakemake(repo_root, tmp_path, "-n", "results/runs/chains/toyset/nope.parquet")
    assert result.returncode != 0
    assert "experiments.chains.variants: no variant 'nope'" in result.stdout + result.stderr
