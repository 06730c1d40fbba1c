"""Tables and figures of the `bnb` experiment (Qian and Liu 2013) from its gathered result records.

Records are per test sentence of an instance set ``<dataset>~<model>~<k>``: decode seconds (pruning and scoring
included), ``correct``/``total`` scored words (UAS without punctuation), status (``optimal`` = certified), and
the B&B's ``dp_calls``, ``nodes``, ``subgradient_iterations`` and ``factors`` in its stats. UAS differences between a
model and the baseline carry a paired bootstrap interval (sentences resampled together for both models).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from decoders.bnb.errors import error_patterns
from decoders.harness.records import read_records
from decoders.tables.papers import paper_rows, paper_value
from decoders.tables.writers import rounded, save_figure, write_table

# Our model name -> the paper's Table 2 row.
PAPER_SYSTEMS = {
    "baseline": "baseline-2nd-order",
    "grandchild": "bnb+all-grandchild",
    "great-grandchild": "bnb+all-great-grandchild",
    "sibling": "bnb+all-sibling",
    "tri-sibling": "bnb+all-tri-sibling",
    "comb": "bnb+comb",
    "hand-crafted": "bnb+hand-craft",
    "full": "bnb+grandchild+sibling+comb+hand-craft",
    "third-order": "3rd-order-reimplementation",
}
#: Which of the paper's corpora a dataset stands in for.
PAPER_CORPUS = {"wsj": "ptb", "ewt": "ptb", "gsd": "ctb"}
BOOTSTRAP_SAMPLES = 1000


def pruning_label(k: int | None) -> str:
    return "unpruned" if k is None else f"k{k}"


def load_runs(paths: Iterable[str]) -> pd.DataFrame:
    return load_runs_frame(pd.concat([read_records(path) for path in paths], ignore_index=True))


def load_runs_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Records with the instance set split into dataset, model and k, and the B&B statistics as columns."""
    parts = frame["dataset"].str.split("~", expand=True)
    frame = frame.rename(columns={"dataset": "set"})
    frame["dataset"], frame["model"], frame["pruning"] = parts[0], parts[1], parts[2]
    stats = frame["stats"].map(json.loads)
    for key in (
        "dp_calls",
        "nodes",
        "subgradient_iterations",
        "factors",
        "words",
        "fixing_passes",
        "memory_stop",
    ):
        frame[key] = stats.map(lambda s, key=key: s.get(key)).astype(float)
    # a sentence left without a tree (a hard timeout: no evaluation) counts with none of its scored words
    # correct, their number taken from any run of the same dataset that evaluated it
    known = frame.groupby(["dataset", "instance_id"])["total"].transform("max")
    missing = frame["total"].isna() & known.notna()
    frame["total"] = frame["total"].fillna(known)
    frame.loc[missing, "correct"] = 0.0
    return frame


def uas_of(group: pd.DataFrame) -> float:
    total = group["total"].sum()
    return 100.0 * group["correct"].sum() / total if total else float("nan")


def paired_bootstrap(
    ours: pd.DataFrame, base: pd.DataFrame, *, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0
) -> tuple[float, float, float]:
    """UAS(ours) - UAS(base) in points and its 95% percentile interval, resampling sentences jointly."""
    joined = ours[["instance_id", "correct", "total"]].merge(
        base[["instance_id", "correct"]], on="instance_id", suffixes=("", "_base")
    )
    if len(joined) != len(ours) or len(joined) != len(base):
        raise ValueError("paired bootstrap: the two runs cover different sentences")
    correct = joined["correct"].to_numpy(float)
    correct_base = joined["correct_base"].to_numpy(float)
    total = joined["total"].to_numpy(float)
    delta = 100.0 * (correct.sum() - correct_base.sum()) / total.sum()
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(joined), size=(samples, len(joined)))
    deltas = 100.0 * (correct[picks].sum(1) - correct_base[picks].sum(1)) / total[picks].sum(1)
    low, high = np.percentile(deltas, [2.5, 97.5])
    return float(delta), float(low), float(high)


def _certified(group: pd.DataFrame) -> float:
    return 100.0 * float((group["status"] == "optimal").mean())


def _paper(model: str, dataset: str) -> float | None:
    system = PAPER_SYSTEMS.get(model)
    corpus = PAPER_CORPUS.get(dataset)
    for row in paper_rows("bnb", "table2_uas"):
        if row["system"] == system and corpus:
            return row.get(corpus)
    return None


def table2(records: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    """UAS per model at the configured k, its paired-bootstrap difference to the baseline (and to the ``control``
    model, when configured: the baseline trained as long as the factor models), the paper's UAS."""
    k = pruning_label(settings["k"])
    control = settings.get("control")
    rows = []
    for dataset in settings["datasets"]:
        at_k = records[(records["dataset"] == dataset) & (records["pruning"] == k)]

        def run_of(model: str, at_k: pd.DataFrame = at_k) -> pd.DataFrame:
            return at_k[(at_k["model"] == model) & (at_k["variant"] == settings["table2"].get(model))]

        base = run_of("baseline")
        reference = run_of(control) if control else base.iloc[:0]
        for model, variant in settings["table2"].items():
            group = run_of(model)
            if group.empty:
                continue
            delta = low = high = float("nan")
            if model != "baseline" and not base.empty:
                delta, low, high = paired_bootstrap(group, base)
            versus = {}
            if control:
                compared = model not in ("baseline", control) and not reference.empty
                difference = paired_bootstrap(group, reference) if compared else (float("nan"),) * 3
                versus = dict(
                    zip(("vs_control", "control_ci_low", "control_ci_high"), difference, strict=True)
                )
            rows.append(
                {
                    "dataset": dataset,
                    "model": model,
                    "decoder": variant,
                    "sentences": len(group),
                    "uas": uas_of(group),
                    "vs_baseline": delta,
                    "ci_low": low,
                    "ci_high": high,
                    **versus,
                    "certified_pct": _certified(group),
                    "words_per_s": group["size"].sum() / group["seconds"].sum(),
                    "paper_uas": _paper(model, dataset),
                }
            )
    return pd.DataFrame(rows)


def _oracle_pct(path: Path | None, column: str) -> float | None:
    if path is None:
        return None
    oracle = pd.read_parquet(path)
    return 100.0 * oracle[column].sum() / oracle["scored"].sum()


def table3(
    records: pd.DataFrame,
    settings: Mapping[str, Any],
    peers: Mapping[str, Path],
    oracles: Mapping[str, Path] | None = None,
) -> pd.DataFrame:
    """UAS and words/s of the table-3 model per pruning k, the UDPipe peer, the paper's rows beside;
    ``oracles`` (instance-set name -> oracle.parquet) adds each k's pruned projective oracle UAS."""
    oracles = oracles or {}
    spec = settings["table3"]
    paper = {row["system"]: row for row in paper_rows("bnb", "table3_pruning")}
    rows = []
    for dataset in settings["datasets"]:
        corpus = PAPER_CORPUS.get(dataset)
        ours = records[
            (records["dataset"] == dataset)
            & (records["model"] == spec["model"])
            & (records["variant"] == spec["variant"])
        ]
        unpruned = ours[ours["pruning"] == "unpruned"]
        unpruned_speed = (
            unpruned["size"].sum() / unpruned["seconds"].sum() if not unpruned.empty else float("nan")
        )
        for k in spec["pruning"]:
            group = ours[ours["pruning"] == pruning_label(k)]
            if group.empty:
                continue
            speed = group["size"].sum() / group["seconds"].sum()
            row = paper.get("bnb-no-prune" if k is None else f"bnb-k{k}", {})
            rows.append(
                {
                    "dataset": dataset,
                    "system": f"{spec['model']} B&B {'no pruning' if k is None else f'k = {k}'}",
                    "uas": uas_of(group),
                    "words_per_s": speed,
                    "vs_unpruned": speed / unpruned_speed,
                    "certified_pct": _certified(group),
                    "pruned_oracle_uas": _oracle_pct(
                        oracles.get(f"{dataset}~{spec['model']}~{pruning_label(k)}"), "pruned_oracle"
                    ),
                    "paper_uas": row.get(f"{corpus}_uas") if corpus else None,
                    "paper_words_per_s": row.get(f"{corpus}_words_per_s") if corpus else None,
                }
            )
        if dataset in peers:
            records_path = peers[dataset]
            peer = pd.read_parquet(records_path)
            summary = json.loads(records_path.with_suffix(".json").read_text(encoding="utf-8"))
            row = paper.get("turboparser-full", {})
            rows.append(
                {
                    "dataset": dataset,
                    "system": "UDPipe 1 (peer; paper: TurboParser full)",
                    "uas": uas_of(peer),
                    "words_per_s": summary["words_per_s"],
                    "vs_unpruned": summary["words_per_s"] / unpruned_speed,
                    "certified_pct": None,
                    "pruned_oracle_uas": None,
                    "paper_uas": row.get(f"{corpus}_uas") if corpus else None,
                    "paper_words_per_s": row.get(f"{corpus}_words_per_s") if corpus else None,
                }
            )
    return pd.DataFrame(rows)


def _peer_options(peers: Mapping[str, Path]) -> str:
    """The parser options the peer models were trained with, from their summaries."""
    options = set()
    for path in peers.values():
        summary = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        options.add(summary["training"].get("parser_options") or "default options")
    return "; ".join(f"`{option}`" for option in sorted(options)) or "not run"


def statistics(records: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    """Per B&B run: DP calls (and reduced-cost fixing's outside passes), nodes and subgradient iterations per
    sentence, factors, words per second, % certified, timeouts (the time limit), memory stops (the search's
    memory limit for one level's nodes)."""
    bnb = records[records["variant"].map(lambda v: settings["variants"][v]["decoder"] == "bnb")]
    rows = []
    for (dataset, model, pruning, variant), group in bnb.groupby(
        ["dataset", "model", "pruning", "variant"], sort=False
    ):
        rows.append(
            {
                "dataset": dataset,
                "model": model,
                "pruning": pruning,
                "variant": variant,
                "sentences": len(group),
                "dp_calls_mean": group["dp_calls"].mean(),
                "dp_calls_median": group["dp_calls"].median(),
                "dp_calls_max": group["dp_calls"].max(),
                "fixing_passes_mean": group["fixing_passes"].fillna(0).mean(),
                "nodes_mean": group["nodes"].mean(),
                "nodes_max": group["nodes"].max(),
                "iterations_mean": group["subgradient_iterations"].mean(),
                "factors_mean": group["factors"].mean(),
                "words_per_s": group["size"].sum() / group["seconds"].sum(),
                "certified_pct": _certified(group),
                "timeouts": int((group["status"] == "timeout").sum()),
                "memory_stops": int(group["memory_stop"].fillna(0).sum()),
                "errors": int((group["status"] == "error").sum()),
            }
        )
    return pd.DataFrame(rows)


def audit(records: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    """The exactness audit: per pruning k, the sentences the independent exact solver finished and whether its
    optimum equals the objective of the table-3 B&B run on each sentence both certified."""
    spec, bnb = settings["audit"], settings["table3"]
    rows = []
    for dataset in settings["datasets"]:
        for k in spec["pruning"]:
            label = pruning_label(k)
            at = records[(records["dataset"] == dataset) & (records["pruning"] == label)]
            exact = at[(at["model"] == spec["model"]) & (at["variant"] == spec["variant"])]
            ours = at[(at["model"] == bnb["model"]) & (at["variant"] == bnb["variant"])]
            if exact.empty:
                continue
            both = exact[["instance_id", "status", "objective", "seconds"]].merge(
                ours[["instance_id", "status", "objective"]], on="instance_id", suffixes=("_exact", "_bnb")
            )
            certified = both[(both["status_exact"] == "optimal") & (both["status_bnb"] == "optimal")]
            skipped = exact["stats"].map(lambda text: bool(json.loads(text).get("not_attempted")))
            rows.append(
                {
                    "dataset": dataset,
                    "pruning": label,
                    "sentences": len(exact),
                    "exact_finished": int((exact["status"] == "optimal").sum()),
                    "exact_timeouts": int(((exact["status"] == "timeout") & ~skipped).sum()),
                    "exact_not_attempted": int(skipped.sum()),
                    "bnb_certified": int((both["status_bnb"] == "optimal").sum()),
                    "both_certified": len(certified),
                    "agree": int((certified["objective_exact"] == certified["objective_bnb"]).sum()),
                    "exact_mean_seconds": exact.loc[~skipped, "seconds"].mean(),
                }
            )
    return pd.DataFrame(rows)


def tagging_table(summaries: Iterable[str | Path]) -> pd.DataFrame:
    rows = []
    for path in summaries:
        summary = json.loads(Path(path).read_text(encoding="utf-8"))
        row = {"dataset": Path(path).parent.name, "tags": summary["mode"], "folds": summary["folds"]}
        for split, accuracy in summary["accuracy"].items():
            row[f"{split}_accuracy"] = accuracy
            row[f"{split}_sentences"] = summary["sentences"][split]
        row["minutes"] = summary["seconds"] / 60
        rows.append(row)
    return pd.DataFrame(rows)


def training_table(histories: Iterable[str | Path], oracles: Mapping[str, Path]) -> pd.DataFrame:
    """Per model: epochs tried, the chosen one, its dev UAS, training minutes, non-projective trees left out,
    the model training started from, the backbone's perceptron step against the factors' (non-local models), the
    share of its training searches (last epoch) that stopped unsettled; for the head classifier its dev recall at
    k; per dataset the projective oracle UAS of the test set (the most any projective parser can get)."""
    oracle_uas = {}
    for dataset, path in oracles.items():
        oracle = pd.read_parquet(path)
        oracle_uas[dataset] = 100.0 * oracle["oracle"].sum() / oracle["scored"].sum()
    rows = []
    for path in histories:
        history = json.loads(Path(path).read_text(encoding="utf-8"))
        dataset = Path(path).parent.name
        best, last = history["epochs"][history["best_epoch"] - 1], history["epochs"][-1]
        rows.append(
            {
                "dataset": dataset,
                "model": Path(path).name.removesuffix(".history.json"),
                "epochs": len(history["epochs"]),
                "best_epoch": history["best_epoch"],
                "dev_uas": best.get("dev_uas"),
                "train_sentences": history["train_sentences"],
                "non_projective_left_out": history["non_projective_left_out"],
                "train_k": history["k"],
                "minutes": history["seconds"] / 60,
                "started_from": Path(history["start_from"]).stem if history.get("start_from") else None,
                "backbone_step": history.get("backbone_step"),
                "unsettled_searches_pct": 100.0 * last["unsettled_searches"] / last["sentences"]
                if "unsettled_searches" in last
                else None,
                # the head classifier (pruner): dev recall of the gold head among each word's k best
                **{column: best[column] for column in best if column.startswith("dev_recall_at_")},
                "test_projective_oracle_uas": oracle_uas.get(dataset),
            }
        )
    return pd.DataFrame(rows)


def by_length(records: pd.DataFrame, settings: Mapping[str, Any], path: str | Path, column: str, label: str):
    """Figs. 4 and 5: mean seconds (or DP calls) per sentence length, one line per pruning k, one panel per
    dataset, for the table-3 model."""
    spec = settings["table3"]
    ours = records[(records["model"] == spec["model"]) & (records["variant"] == spec["variant"])]
    datasets = [d for d in settings["datasets"] if d in set(ours["dataset"])]
    fig = Figure(figsize=(4.5 * max(len(datasets), 1), 3.8))
    axes = np.atleast_1d(fig.subplots(1, max(len(datasets), 1), squeeze=False)[0])
    for ax, dataset in zip(axes, datasets, strict=False):
        for k in spec["pruning"]:
            group = ours[(ours["dataset"] == dataset) & (ours["pruning"] == pruning_label(k))]
            if group.empty:
                continue
            means = group.groupby("size")[column].mean()
            ax.plot(
                means.index, means.to_numpy(), marker=".", lw=1, label="no pruning" if k is None else f"k={k}"
            )
        ax.set_title(dataset)
        ax.set_xlabel("sentence length (words)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    save_figure(fig, path)


def write_bnb_outputs(
    run_paths: Iterable[str],
    settings: Mapping[str, Any],
    *,
    peers: Iterable[str],
    errors: Iterable[str],
    tag_summaries: Iterable[str],
    histories: Iterable[str],
    oracles: Iterable[str],
    tables: str | Path,
    figures: str | Path,
) -> None:
    """Every bnb table and figure."""
    records = load_runs(run_paths)
    tables, figures = Path(tables), Path(figures)
    peer_files = {Path(p).parent.name: Path(p) for p in peers}
    oracle_sets = {Path(p).parent.name: Path(p) for p in oracles}
    oracle_files = {name.split("~")[0]: path for name, path in oracle_sets.items()}  # unpruned: any set's
    time_note = (
        "words/s: test words over summed decode seconds (pruning and scoring included), one thread, "
        "JIT warmed up."
    )
    write_table(
        rounded(table2(records, settings)),
        tables / "table2",
        title=f"bnb: Table 2 (UAS per factor set, k = {settings['k']})",
        notes=[
            "UAS: scored words (punctuation by gold tag excluded: English `` '' : , .; Chinese PU/PUNCT).",
            f"vs_baseline: UAS difference to the second-order baseline in points; ci_low/ci_high: 95% paired "
            f"bootstrap interval ({BOOTSTRAP_SAMPLES} resamples of the test sentences).",
            "certified_pct: sentences whose decoder returned a certified optimum (UB = LB for B&B); a sentence "
            "left without a tree (the worker stopped at the time limit's grace) counts with no word correct.",
            "paper_uas: the paper's Table 2 on PTB (for wsj and ewt) or CTB5 (for gsd).",
            time_note,
        ],
    )
    write_table(
        rounded(table3(records, settings, peer_files, oracle_sets)),
        tables / "table3",
        title="bnb: Table 3 (accuracy and speed per pre-pruning k)",
        notes=[
            time_note,
            "words/s at every k include pruning: each sentence's timed decode call runs the pruner on it (the head "
            "classifier's first-order scores of every arc, then the k best heads per word it keeps) before parsing "
            "over the kept arcs; the no-pruning rows run no pruner.",
            "pruned_oracle_uas: the best projective tree within the pruning's arcs (the most any parser can get "
            "at that k).",
            "UDPipe: its parser calls only (one per sentence), trained on the same split with the same tags "
            f"(Parsito, {_peer_options(peer_files)}); TurboParser/AD3 do not install on this Python. Where the "
            "baseline is more than 2 UAS above it, UDPipe is the weaker parser here: a greedy transition-based "
            "parser with one hidden layer and word embeddings learnt from these treebanks alone, trained for the "
            "passes above (config.yaml's `udpipe` has what more passes and the fine tags measured).",
            f"paper: PTB/CTB5 ({paper_value('bnb.text.hardware')}); speeds are properties of a CPU.",
        ],
    )
    write_table(
        rounded(statistics(records, settings)),
        tables / "statistics",
        title="bnb: branch and bound statistics per sentence",
        notes=[
            "paper, no pruning: "
            f"{paper_value('bnb.text.dp_calls_no_prune_english.per_sentence')} DP calls per sentence (English), "
            f"{paper_value('bnb.text.dp_calls_no_prune_chinese.per_sentence')} (Chinese).",
            "timeouts: sentences stopped at the time limit; memory_stops: searches stopped (uncertified) before a "
            "level whose nodes would need more than the variant's max_open_mb.",
        ],
    )
    write_table(
        rounded(audit(records, settings)),
        tables / "audit",
        title="bnb: exactness audit (CP-SAT on the whole model vs B&B's certified optima)",
        notes=[
            "agree: sentences where both certified an optimum and the two objectives are equal (integer scores "
            "in the units of the model's weight numerator, compared exactly).",
            "exact_timeouts: sentences CP-SAT did not prove within the per-sentence limit; exact_not_attempted: "
            "sentences longer than its max_words (config.yaml), not given to it.",
        ],
    )
    top = settings["error_analysis"].get("top", 40)
    patterns = [
        error_patterns(pd.read_parquet(path), top).assign(dataset=Path(path).parent.name) for path in errors
    ]
    write_table(
        rounded(pd.concat(patterns, ignore_index=True) if patterns else pd.DataFrame({"dataset": []})),
        tables / "errors",
        title="bnb: the baseline's most frequent errors in cross-validation on train",
        notes=[
            f"{settings['error_analysis']['folds']}-fold cross-validation on the training split: the pruner and the "
            "baseline trained on the other folds parse the held-out one; share_pct: of all its errors."
        ],
    )
    write_table(
        rounded(tagging_table(tag_summaries)), tables / "tagging", title="bnb: POS tags the parsers read"
    )
    write_table(
        rounded(training_table(histories, oracle_files)),
        tables / "training",
        title="bnb: training (averaged perceptron, epoch by dev UAS) and the projective oracle",
    )
    by_length(records, settings, figures / "figure4.png", "seconds", "mean seconds per sentence")
    by_length(records, settings, figures / "figure5.png", "dp_calls", "mean DP calls per sentence")
