"""Tables and figures of the `chains` experiment (Belanger et al. 2012) from its gathered result records.

Records carry, per sentence, the decode seconds, the objective and its certified bound, ``correct``/``total``
tokens and the decoder's stats (``domain_sizes`` per token, ``iterations``, ``oracle_candidates`` per oracle
call for column generation). Speeds are sentences per second of decoding time (the sum of the per-sentence
timings of one job, one thread, JIT warmed up), so they compare decoders, not the machine's start-up costs.
A sentence's time comes from the decoder's compiled timing loop where it has one (the median over
``harness.repeats`` loop calls of the mean of ``harness.loop_repeats`` decodes inside numba);
``stats.call_seconds`` keeps the median time of single calls from Python (``call_*`` columns), which adds the
interpreter's ~1-2 us per call to every decoder.

Speed-ups over Viterbi are paired where the records allow it: a job timed with ``harness.reference`` carries,
per sentence, ``stats.reference_seconds``, Viterbi's loop timed just before the variant's in the same process,
and the speed-up is the sum of those over the sum of the variant's seconds. Without them (older runs, call
timings) it is the ratio of the two jobs' sentences/s. Every speed ratio is printed with the ends of its 95%
interval (``<column>_lo``, ``<column>_hi``): a paired bootstrap over sentences plus the run-to-run noise that
the noise jobs measured by timing a sample again in separate processes (:mod:`decoders.tables.ratios`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from decoders.harness.records import mark_exact, read_records
from decoders.io import read_json
from decoders.papers import paper_rows, paper_value
from decoders.seeds import seed_rows, seeded_name
from decoders.tables.captions import caption
from decoders.tables.coverage import FAILED, LOOP, coverage, failures_text, finished, timing_mode
from decoders.tables.crosscheck import Certified, cross_check, cross_check_counts, cross_check_note
from decoders.tables.intervals import ratio_interval, ratio_of_totals
from decoders.tables.ratios import (
    Comparison,
    Sides,
    instance_seconds,
    interval_bounds,
    interval_note,
    load_noise,
    matched_sides,
    sides,
)
from decoders.tables.writers import rounded, save_figure, write_table

#: Columns of the tables derived from the clock (times, rates, speed-ups, what the pairing costs): two runs of the
#: same workflow agree on every other column.
CLOCK_COLUMNS = re.compile(r"seconds|per_s|speedup|vs_crfsuite|pairing|timing|_cpc|clock_ghz|_pct_of_")

#: The experiment's section of the results page: its heading and figures (title, file under results/, and
#: optionally the table the figure goes with: it is shown only when that table is).
PAGE = {
    "heading": "chains: MAP inference in chains by column generation (Belanger et al. 2012)",
    "figures": [
        ("Fig. 2: transition L2 vs accuracy and CG speed", "figures/chains/figure2.png"),
        (
            "CG statistics: domain sizes, rounds per sentence, candidates per oracle call",
            "figures/chains/cg_statistics.png",
        ),
        ("Speed-up over Viterbi by sentence length", "figures/chains/speed_by_length.png"),
        ("Where column generation spends its time", "figures/chains/cg_phases.png", "cg_phases"),
    ],
}

REFERENCE = "viterbi"

#: The speed-up over the reference and the ends of its 95% interval, as the tables print them.
SPEEDUP = ["speedup", "speedup_lo", "speedup_hi"]

#: What a narrower table shows of :func:`variant_summary`'s coverage columns
#: (:mod:`decoders.tables.coverage`).
COVERAGE = [FAILED, "partial", "timing"]

# Our variant name -> the paper's row name, where the paper has the row.
PAPER_NAMES = {"cg-01": "cg"}


def variant_summary(
    records: pd.DataFrame, reference: str = REFERENCE, noise: pd.DataFrame | None = None, seed: int = 0
) -> pd.DataFrame:
    """One row per (dataset, variant): sentences, their errors and timeouts, whether that leaves the row
    ``partial`` and how it was timed (:mod:`decoders.tables.coverage`), % exact against the reference,
    sentences/s (compiled loop and per Python call), token accuracy, and the speed-ups over the reference with
    their 95% intervals (``speedup_lo``/``_hi``, ``call_speedup_lo``/``_hi``:
    :func:`decoders.tables.intervals.records_interval` over the run's ``records`` and the ``noise`` jobs'
    retimings, bootstrap seeded with ``seed``). ``speedup`` sets both sides in one clock
    (:func:`speedup_column`)."""
    frames = []
    for _, group in records.groupby("dataset", sort=False):
        has_reference = (group["variant"] == reference).any()
        marked = mark_exact(group, reference) if has_reference else group.assign(exact=pd.NA)
        frames.append(marked)
    marked = pd.concat(frames, ignore_index=True)
    rows = []
    for (dataset, variant), group in marked.groupby(["dataset", "variant"], sort=False):
        exact = group["exact"].astype("boolean")
        seconds = group["seconds"].sum()
        pairs = zip(group["stats"], group["seconds"], strict=True)
        call_seconds = sum(json.loads(stats).get("call_seconds", own) for stats, own in pairs)
        rows.append(
            {
                "dataset": dataset,
                "variant": variant,
                "sentences": len(group),
                "exact_pct": 100.0 * float(exact.mean()) if exact.notna().all() else np.nan,
                "sent_per_s": len(group) / seconds if seconds > 0 else np.nan,
                "call_sent_per_s": len(group) / call_seconds if call_seconds > 0 else np.nan,
                "token_acc": _accuracy(group),
                **coverage(group),
                FAILED: failures_text(group),
            }
        )
    summary = pd.DataFrame(rows)
    indexed = summary.set_index(["dataset", "variant"])
    for column, speedup in (("sent_per_s", "speedup"), ("call_sent_per_s", "call_speedup")):
        summary[speedup] = [
            getattr(row, column) / indexed[column].get((row.dataset, reference), np.nan)
            for row in summary.itertuples()
        ]
    # a speed-up in one clock: the loops' where the variant was timed beside the reference or both by their
    # loops, else the single calls' (a per-call time over a compiled loop's would flatter the loop)
    alike = [speedup_column(records, row.dataset, row.variant, reference) for row in summary.itertuples()]
    summary["speedup"] = summary["speedup"].where(np.array(alike) == "seconds", summary["call_speedup"])
    paired = {}
    pairing = {}
    for key, group in marked.groupby(["dataset", "variant"], sort=False):
        reference_seconds = paired_reference_seconds(group)
        if reference_seconds is not None:
            paired[key] = reference_seconds.sum() / group["seconds"].sum()
        alone = [json.loads(stats).get("unpaired_seconds") for stats in group["stats"]]
        if alone and all(value is not None for value in alone):
            pairing[key] = 100.0 * (group["seconds"].sum() / sum(alone) - 1.0)
    summary["speedup"] = [paired.get((row.dataset, row.variant), row.speedup) for row in summary.itertuples()]
    summary["pairing_pct"] = [pairing.get((row.dataset, row.variant), np.nan) for row in summary.itertuples()]
    for column, column_of in (("speedup", None), ("call_speedup", "call_seconds")):
        bounds = [
            interval_bounds(
                speedup_comparison(records, row.dataset, row.variant, reference, column_of),
                records,
                noise,
                seed,
            )
            if row.variant != reference
            else (np.nan, np.nan)
            for row in summary.itertuples()
        ]
        summary[f"{column}_lo"], summary[f"{column}_hi"] = [b[0] for b in bounds], [b[1] for b in bounds]
    return summary


def speedup_comparison(
    records: pd.DataFrame,
    dataset: str,
    variant: str,
    reference: str = REFERENCE,
    column: str | None = None,
) -> Comparison:
    """The comparison (:mod:`decoders.tables.ratios`) whose ratio of totals is ``variant``'s speed-up over
    ``reference``, its kind decided once on the run's ``records`` so that the noise jobs' records are measured
    the same way: in ``column`` (default: :func:`speedup_column`, one clock for both sides), paired (the
    reference timed beside the variant in its process, ``stats.reference_seconds``, over the variant's own)
    where every record of the run has the pair and ``column`` is ``seconds``; otherwise the reference's own
    records over the variant's, matched by instance."""
    column = column or speedup_column(records, dataset, variant, reference)
    if column == "seconds" and instance_seconds(records, dataset, variant, "reference_seconds") is not None:
        return lambda frame: sides(
            [instance_seconds(frame, dataset, variant, "reference_seconds")],
            [instance_seconds(frame, dataset, variant)],
        )
    return lambda frame: matched_sides(frame, dataset, variant, reference, column)


def speedup_column(records: pd.DataFrame, dataset: str, variant: str, reference: str = REFERENCE) -> str:
    """The time a speed-up of ``variant`` over ``reference`` on ``dataset`` is taken in, the same on both
    sides: ``seconds`` where every record of the variant has the reference timed beside it or both were timed
    by their compiled loops (:func:`decoders.tables.coverage.timing_mode`), else ``call_seconds`` (single calls
    from Python: a loop-timed record keeps its per-call time there, a per-call record's is its ``seconds``)."""
    if instance_seconds(records, dataset, variant, "reference_seconds") is not None:
        return "seconds"
    of_set = records[records["dataset"] == dataset]
    modes = {timing_mode(of_set[of_set["variant"] == name]) for name in (variant, reference)}
    return "seconds" if modes == {LOOP} else "call_seconds"


def through_reference_sides(
    frame: pd.DataFrame, fast: tuple[str, str], slow: tuple[str, str]
) -> Sides | None:
    """The seconds whose ratio of totals is the speed-up of ``fast`` over ``slow`` (each an (instance set,
    variant): another variant, or the same variant on the same sentences scored by another model) when each was
    timed beside the reference in its own job: (reference beside fast / fast) / (reference beside slow / slow),
    over the same instances, so that each job's process speed cancels against its own reference."""
    return sides(
        [instance_seconds(frame, *fast, "reference_seconds"), instance_seconds(frame, *slow)],
        [instance_seconds(frame, *fast), instance_seconds(frame, *slow, "reference_seconds")],
    )


def paired_reference_seconds(group: pd.DataFrame) -> pd.Series | None:
    """Per record, the reference's seconds timed beside the variant's (``stats.reference_seconds``), indexed like
    ``group``; None unless every record has one."""
    values = [json.loads(stats).get("reference_seconds") for stats in group["stats"]]
    if not values or any(value is None for value in values):
        return None
    return pd.Series(values, index=group.index, dtype=float)


def _accuracy(group: pd.DataFrame) -> float:
    if "correct" not in group or "total" not in group or group["total"].sum() == 0:
        return np.nan
    return 100.0 * group["correct"].sum() / group["total"].sum()


def with_paper(summary: pd.DataFrame, table: str, task: str) -> pd.DataFrame:
    """Add the paper's % exact, sentences/s and speed-up over Viterbi (from ``chains.<table>``) beside ours."""
    paper = {row["decoder"]: row for row in paper_rows("chains", table)}
    viterbi = paper.get("viterbi", {}).get("sent_per_s")
    out = summary.assign(task=task)
    names = out["variant"].map(lambda v: PAPER_NAMES.get(v, v))
    out["paper_exact_pct"] = names.map(lambda v: paper.get(v, {}).get("exact_pct"))
    out["paper_sent_per_s"] = names.map(lambda v: paper.get(v, {}).get("sent_per_s"))
    out["paper_speedup"] = out["paper_sent_per_s"] / viterbi if viterbi else np.nan
    return out


def table1(
    summary: pd.DataFrame,
    pos_datasets: Iterable[str],
    joint_datasets: Iterable[str],
    variants: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Table 1: exactness and speed of the one-best decoders (default: all but the 2-best oracles), POS (left)
    and joint POS x NER (right)."""
    if variants is None:
        one_best = summary[~summary["variant"].str.contains("2best|-01", regex=True)]
    else:
        one_best = summary[summary["variant"].isin(list(variants))]
    parts = [
        with_paper(one_best[one_best["dataset"] == d], "table1_pos", "POS")
        for d in pos_datasets
        if d in set(one_best["dataset"])
    ] + [
        with_paper(one_best[one_best["dataset"] == d], "table1_pos_ner", "POS x NER")
        for d in joint_datasets
        if d in set(one_best["dataset"])
    ]
    columns = [
        "task",
        "dataset",
        "variant",
        "sentences",
        "errors",
        "timeouts",
        "partial",
        "timing",
        "exact_pct",
        "sent_per_s",
        *SPEEDUP,
        "pairing_pct",
        "call_sent_per_s",
        "call_speedup",
        "call_speedup_lo",
        "call_speedup_hi",
        "token_acc",
        "paper_exact_pct",
        "paper_sent_per_s",
        "paper_speedup",
    ]
    return _rounded(pd.concat(parts, ignore_index=True)[columns]) if parts else pd.DataFrame(columns=columns)


def table2a(
    summary: pd.DataFrame,
    pos_datasets: Iterable[str],
    joint_datasets: Iterable[str],
    records: pd.DataFrame | None = None,
    noise: pd.DataFrame | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Table 2A: throughput of the 0/1-loss oracles (2-best decoding) beside the paper's, with each oracle's
    speed-up over Viterbi 2-best (the paper's comparison), paired through the reference both were timed beside
    (:func:`through_reference_sides`), with its 95% interval, where ``records`` are given."""
    paper = {PAPER_NAMES.get(r["decoder"], r["decoder"]): r for r in paper_rows("chains", "table2a_two_best")}
    oracle = summary[summary["variant"].str.contains("2best|-01", regex=True)].copy()
    pos, joint = set(pos_datasets), set(joint_datasets)
    oracle["task"] = oracle["dataset"].map(lambda d: "POS" if d in pos else "POS x NER" if d in joint else "")
    key = oracle["variant"].map(lambda v: PAPER_NAMES.get(v, v))
    oracle["paper_sent_per_s"] = [
        paper.get(name, {}).get("pos_sent_per_s" if task == "POS" else "pos_ner_sent_per_s")
        for name, task in zip(key, oracle["task"], strict=True)
    ]
    two_best = "viterbi-2best"
    paper_two_best = oracle["task"].map(
        lambda task: paper.get(two_best, {}).get("pos_sent_per_s" if task == "POS" else "pos_ner_sent_per_s")
    )
    oracle["paper_speedup_vs_2best"] = oracle["paper_sent_per_s"] / paper_two_best.astype(float)
    columns = ["speedup_vs_2best", "speedup_vs_2best_lo", "speedup_vs_2best_hi"]
    for column in columns:
        oracle[column] = np.nan
    if records is not None:
        for index, row in oracle.iterrows():
            if row["variant"] == two_best:
                oracle.loc[index, "speedup_vs_2best"] = 1.0
                continue
            pair = (row["dataset"], row["variant"]), (row["dataset"], two_best)
            found = through_reference_sides(records, *pair)
            if found is None:
                continue
            low, high = interval_bounds(
                lambda frame, pair=pair: through_reference_sides(frame, *pair), records, noise, seed
            )
            oracle.loc[index, columns] = [ratio_of_totals(*found), low, high]
    return _rounded(
        oracle[
            [
                "task",
                "dataset",
                "variant",
                "sentences",
                *COVERAGE,
                "sent_per_s",
                *SPEEDUP,
                *columns,
                "paper_sent_per_s",
                "paper_speedup_vs_2best",
            ]
        ]
    )


def table2b(summary: pd.DataFrame, pos_datasets: Iterable[str]) -> pd.DataFrame:
    """Table 2B: column generation with the reduced costs of eqs. 12, 8 and 9 on POS, with each one's paired
    speed-up over Viterbi and its interval (from :func:`variant_summary`)."""
    equations = {"cg": 12, "cg-alpha": 8, "cg-alpha+theta": 9}
    paper = {row["decoder"]: row["sent_per_s"] for row in paper_rows("chains", "table2b_reduced_costs")}
    rows = summary[summary["variant"].isin(equations) & summary["dataset"].isin(list(pos_datasets))].copy()
    rows["equation"] = rows["variant"].map(equations)
    rows["paper_sent_per_s"] = rows["variant"].map(paper)
    return _rounded(
        rows[
            [
                "dataset",
                "variant",
                "equation",
                "sentences",
                *COVERAGE,
                "exact_pct",
                "sent_per_s",
                *SPEEDUP,
                "paper_sent_per_s",
            ]
        ]
    )


def cg_statistics(records: pd.DataFrame) -> pd.DataFrame:
    """The column-generation statistics the paper quotes (section 7), per dataset and CG variant."""
    rows = []
    for (dataset, variant), group in records.groupby(["dataset", "variant"], sort=False):
        stats = [json.loads(s) for s in group["stats"]]
        sizes = np.concatenate([np.asarray(s.get("domain_sizes", []), dtype=np.int64) for s in stats] or [[]])
        if sizes.size == 0:
            continue
        row = {
            "dataset": dataset,
            "variant": variant,
            FAILED: failures_text(group),
            "tokens": int(sizes.size),
            "domain_1_pct": 100.0 * float((sizes == 1).mean()),
            "domain_le3_pct": 100.0 * float((sizes <= 3).mean()),
            "domain_le5_pct": 100.0 * float((sizes <= 5).mean()),
        }
        iterations = np.asarray([s["iterations"] for s in stats if "iterations" in s], dtype=np.int64)
        if iterations.size:
            row |= {
                "mean_iterations": float(iterations.mean()),
                "max_iterations": int(iterations.max()),
                "one_iteration_pct": 100.0 * float((iterations == 1).mean()),
            }
        calls = [c for s in stats for c in s.get("oracle_candidates", [])]
        if calls:
            calls_arr = np.asarray(calls, dtype=np.int64)
            row |= {
                "oracle_calls": int(calls_arr.size),
                "oracle_le5_pct": 100.0 * float((calls_arr <= 5).mean()),
            }
        rows.append(row)
    text = paper_value("chains.text")
    notes_row = {
        "dataset": "paper (WSJ POS)",
        "variant": "cg / viterbi+p",
        "domain_1_pct": text["tokens_domain_size_1_pct"],
        "domain_le3_pct": text["tokens_domain_size_le3_pct"],
        "domain_le5_pct": text["viterbi_p_le5_labels_tokens_pct"],
        "max_iterations": text["max_cg_iterations"],
        "one_iteration_pct": text["cg_done_after_one_iteration_pct"],
        "oracle_le5_pct": text["oracle_le5_candidates_pct"],
    }
    return _rounded(pd.DataFrame([*rows, notes_row]))


#: Upper ends of the sentence-length buckets of :func:`speed_by_length` (tokens); the last bucket is open.
LENGTH_BUCKETS = (5, 10, 20, 40)


def speed_by_length(
    records: pd.DataFrame,
    datasets: Iterable[str],
    variants: Iterable[str] = ("viterbi+p", "cg"),
    noise: pd.DataFrame | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Speed-ups over Viterbi per sentence-length bucket (and over all sentences), from the same per-sentence
    timings as Table 1: a bucket's speed-up is Viterbi's summed seconds (timed beside the variant where the
    records have them) over the variant's on its sentences, with its 95% interval (``<variant>_speedup_lo``,
    ``_hi``: the bucket's sentences resampled, the run-to-run noise of the whole set's speed-up).
    Column generation pays a fixed cost per sentence and per round, Viterbi one per token, so short sentences
    gain least; ``cg_iterations`` is the mean number of CG rounds in the bucket; ``<variant>_errors/timeouts``
    the variant's failed sentences in it. Each speed-up is in one clock (:func:`speedup_column`)."""
    variants = list(variants)
    edges = [0, *LENGTH_BUCKETS, np.inf]
    names = [f"{lo + 1}-{hi}" for lo, hi in zip(edges[:-2], edges[1:-1], strict=True)]
    names.append(f">{LENGTH_BUCKETS[-1]}")
    rows = []
    for dataset in datasets:
        chosen = records[(records["dataset"] == dataset) & records["variant"].isin([REFERENCE, *variants])]
        seconds = chosen.pivot(index="instance_id", columns="variant", values="seconds")
        if REFERENCE not in seconds or seconds.empty:
            continue
        sizes = chosen.drop_duplicates("instance_id").set_index("instance_id")["size"].reindex(seconds.index)
        bucket = pd.cut(sizes, edges, labels=names)
        iterations = pd.Series(np.nan, index=seconds.index)
        cg = chosen[chosen["variant"] == "cg"]
        if len(cg):
            iterations = pd.Series(
                [json.loads(s)["iterations"] for s in cg["stats"]], index=cg["instance_id"]
            ).reindex(seconds.index)
        groups = [(name, bucket == name) for name in names] + [("all", bucket.notna())]
        for name, mask in groups:
            if not mask.any():
                continue
            part = seconds[mask]
            row = {
                "dataset": dataset,
                "tokens": name,
                "sentences": int(mask.sum()),
                "sentences_pct": 100.0 * float(mask.mean()),
                "cg_iterations": float(iterations[mask].mean()),
                "viterbi_sent_per_s": len(part) / part[REFERENCE].sum(),
            }
            for variant in variants:
                comparison = speedup_comparison(chosen, dataset, variant)
                found = comparison(chosen)
                if variant not in part or found is None:
                    continue
                ids = part.index
                own = chosen[(chosen["variant"] == variant) & chosen["instance_id"].isin(ids)]
                row[f"{variant}_{FAILED}"] = failures_text(own)
                row[f"{variant}_speedup"] = ratio_of_totals(found[0].loc[ids], found[1].loc[ids])
                row[f"{variant}_speedup_lo"], row[f"{variant}_speedup_hi"] = interval_bounds(
                    lambda frame, c=comparison, i=ids: _restricted(c(frame), i),
                    chosen,
                    noise,
                    seed,
                    noise_comparison=comparison,
                )
            rows.append(row)
    return _rounded(pd.DataFrame(rows))


def _restricted(pair: Sides | None, ids: pd.Index) -> Sides | None:
    """Both sides on the instances ``ids`` only."""
    return None if pair is None else (pair[0].loc[ids], pair[1].loc[ids])


def speed_by_length_figure(table: pd.DataFrame, path) -> None:
    """Speed-up over Viterbi per sentence-length bucket: one panel per dataset, one line per variant."""
    datasets = list(dict.fromkeys(table["dataset"]))
    columns = [c for c in table.columns if c.endswith("_speedup")]
    fig = Figure(figsize=(4 * max(len(datasets), 1), 3.2))
    axes = fig.subplots(1, max(len(datasets), 1), squeeze=False)
    for ax, dataset in zip(axes[0], datasets, strict=False):
        rows = table[(table["dataset"] == dataset) & (table["tokens"] != "all")]
        for column in columns:
            line = ax.plot(rows["tokens"], rows[column], marker="o", label=column.removesuffix("_speedup"))
            if f"{column}_lo" in rows:  # the 95% intervals as a band
                ax.fill_between(
                    rows["tokens"],
                    rows[f"{column}_lo"],
                    rows[f"{column}_hi"],
                    color=line[0].get_color(),
                    alpha=0.2,
                )
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("sentence length (tokens)")
        ax.set_ylabel("speed-up over Viterbi")
        ax.set_title(dataset)
        ax.legend()
    save_figure(fig, path, dpi=150)


PROFILE = "cg-profile"


def cg_phases(records: pd.DataFrame) -> pd.DataFrame:
    """Where column generation spends its time, per dataset: each phase's share of the time-stamp-counter cycles
    that ``cg-profile`` counted over the test sentences, its cycles per token, and its share of CG's time per
    sentence in Table 1 (``cg``'s mean seconds, timed without the counter), in microseconds."""
    rows = []
    for dataset, group in records[records["variant"] == PROFILE].groupby("dataset", sort=False):
        cycles: dict[str, float] = {}
        for stats in finished(group)["stats"]:  # a failed sentence counted no cycles
            for phase, value in json.loads(stats)["phase_cycles"]:  # [phase, cycles] pairs, in CG's order
                cycles[phase] = cycles.get(phase, 0.0) + value
        total = sum(cycles.values())
        tokens = float(finished(group)["size"].sum())
        cg = records[(records["dataset"] == dataset) & (records["variant"] == "cg")]
        seconds = float(cg["seconds"].mean()) if len(cg) else np.nan
        for phase, value in [*cycles.items(), ("all", total)]:
            share = value / total if total > 0 else np.nan
            rows.append(
                {
                    "dataset": dataset,
                    "phase": phase,
                    "sentences": len(group),
                    FAILED: failures_text(group),
                    "cycles_per_token": value / tokens,
                    "share_pct": 100.0 * share,
                    "cg_us_per_sentence": 1e6 * seconds * share,
                }
            )
    table = pd.DataFrame(rows, columns=_PHASE_COLUMNS)
    return table.round({"cycles_per_token": 1, "share_pct": 1, "cg_us_per_sentence": 2})


_PHASE_COLUMNS = [
    "dataset",
    "phase",
    "sentences",
    FAILED,
    "cycles_per_token",
    "share_pct",
    "cg_us_per_sentence",
]


def cg_phases_figure(table: pd.DataFrame, path) -> None:
    """CG's phases as one stacked bar of cycles per token per dataset."""
    fig = Figure(figsize=(7, 0.9 + 0.5 * max(table["dataset"].nunique(), 1)))
    ax = fig.subplots()
    parts = table[table["phase"] != "all"]
    datasets = list(dict.fromkeys(parts["dataset"]))
    phases = list(dict.fromkeys(parts["phase"]))
    left = np.zeros(len(datasets))
    for phase in phases:
        values = np.array(
            [
                parts[(parts["dataset"] == d) & (parts["phase"] == phase)]["cycles_per_token"].sum()
                for d in datasets
            ]
        )
        ax.barh(datasets, values, left=left, label=phase)
        left += values
    ax.set_xlabel("cycles per token (time-stamp counter)")
    ax.invert_yaxis()
    if phases:
        ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.35))
    else:
        ax.text(0.5, 0.5, "no profile records", ha="center", va="center", transform=ax.transAxes)
    save_figure(fig, path, dpi=150)


PEAK = "viterbi-peak"


def viterbi_peak(records: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """How close Viterbi comes to this CPU's peak for its work, per dataset, from the ``viterbi-peak`` records
    (:func:`decoders.chains.decoders.decode_viterbi_peak`): Viterbi's cells (label pairs) per cycle, the
    max-plus kernel's and the register-only add-and-max's, all at the core clock measured in the same job on the
    same sentence, and Viterbi's share of each peak with its 95% interval (a bootstrap over sentences, both sides
    of a sentence together). Per sentence, the clock is the median of its measurements and each peak the median
    of its; a dataset's cells per cycle are its cells over its cycles (ratio of totals), with the quartiles of
    the sentences' values beside them. Sentences of one token (no cells) and sentences whose Viterbi was not
    timed by its compiled loop (a per-call time would include the peaks' measurement) are left out."""
    rows = []
    for dataset, group in records[records["variant"] == PEAK].groupby("dataset", sort=False):
        measured = []
        for record in finished(group).itertuples():
            stats = json.loads(record.stats)
            if not stats.get("cells") or "clock_hz" not in stats or "loop_repeats" not in stats:
                continue
            hz = float(np.median(stats["clock_hz"]))
            cells = float(stats["cells"])
            measured.append(
                {
                    "instance_id": record.instance_id,
                    "cells": cells,
                    "hz": hz,
                    "labels": stats["labels"],
                    "width": stats["width"],
                    "viterbi": float(record.seconds) * hz,
                    "max_plus": float(np.median(stats["max_plus_seconds"])) * hz,
                    "register": cells * hz / float(np.median(stats["register_cells_per_second"])),
                }
            )
        row: dict = {"dataset": dataset, "sentences": len(measured), FAILED: failures_text(group)}
        if measured:
            frame = pd.DataFrame(measured).set_index("instance_id")
            row |= {"labels": int(frame["labels"].max()), "width": int(frame["width"].max())}
            row |= _quartiles("clock_ghz", frame["hz"] / 1e9, frame["hz"].median() / 1e9)
            for name in ("viterbi", "max_plus", "register"):
                per_sentence = frame["cells"] / frame[name]
                row |= _quartiles(f"{name}_cpc", per_sentence, frame["cells"].sum() / frame[name].sum())
            for name in ("max_plus", "register"):
                share = ratio_interval(frame[name], frame["viterbi"], None, seed=seed)
                row |= {
                    f"viterbi_pct_of_{name}": 100.0 * share.estimate,
                    f"viterbi_pct_of_{name}_lo": 100.0 * share.low,
                    f"viterbi_pct_of_{name}_hi": 100.0 * share.high,
                }
        rows.append(row)
    table = pd.DataFrame(rows, columns=_PEAK_COLUMNS)
    return table.round({c: 2 for c in _PEAK_COLUMNS if c.endswith(("cpc", "q1", "q3", "ghz"))}).round(
        {c: 1 for c in _PEAK_COLUMNS if "_pct_" in c}
    )


def _quartiles(name: str, values: pd.Series, estimate: float) -> dict[str, float]:
    """``name`` (the dataset's estimate) and ``name_q1``/``name_q3`` (the quartiles of the sentences' values)."""
    q1, q3 = np.percentile(values.to_numpy(dtype=float), [25, 75])
    return {name: float(estimate), f"{name}_q1": float(q1), f"{name}_q3": float(q3)}


_PEAK_COLUMNS = [
    "dataset",
    "sentences",
    FAILED,
    "labels",
    "width",
    *(f"clock_ghz{end}" for end in ("", "_q1", "_q3")),
    *(f"{name}_cpc{end}" for name in ("viterbi", "max_plus", "register") for end in ("", "_q1", "_q3")),
    *(f"viterbi_pct_of_{name}{end}" for name in ("max_plus", "register") for end in ("", "_lo", "_hi")),
]


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype.kind == "f":
            ratio = "speedup" in column or "vs_" in column  # a speed ratio or an end of its interval
            out[column] = out[column].round(2 if ratio or column.endswith(("pct", "acc")) else 1)
    return out.reset_index(drop=True)


#: The variants whose optima are certified (Viterbi, pruned or not, and column generation run to convergence,
#: whatever else they compute). ``verify`` already proves every optimal claim from the instance (it runs its
#: own Viterbi), so the cross-check of :mod:`decoders.tables.crosscheck` against these is a second opinion.
CERTIFIED = Certified(
    (
        "viterbi",
        "viterbi+p",
        "cg",
        "cg-dg",
        "cg-alpha",
        "cg-alpha+theta",
        "viterbi-2best",
        "viterbi+p-2best",
        "cg-01",
        "cg-profile",
        "viterbi-peak",
        "cg+scoring",
        "viterbi+scoring",
    )
)


def load_runs(paths: Iterable[str]) -> pd.DataFrame:
    """The records of ``paths``, every optimal claim cross-checked against :data:`CERTIFIED` (a claim below a
    certified optimum becomes an ``error``)."""
    return cross_check(pd.concat([read_records(path) for path in paths], ignore_index=True), CERTIFIED)


def peer_table(
    summary: pd.DataFrame,
    records: pd.DataFrame | None = None,
    noise: pd.DataFrame | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Tagging throughput including scoring: our scorer + CG / Viterbi vs CRFsuite, on the same sentences. With
    ``records``, ``vs_crfsuite`` gets its 95% interval: CRFsuite's seconds over the variant's, matched by sentence
    (the two are timed in separate jobs: no compiled loop to pair them in one process)."""
    rows = summary[summary["dataset"].str.endswith("~features")].copy()
    crf = rows[rows["variant"] == PEER].set_index("dataset")
    # in one clock: a row timed otherwise than CRFsuite (by a compiled loop) compares its single calls
    alike = rows["timing"] == rows["dataset"].map(crf["timing"])
    ours = rows["sent_per_s"].where(alike, rows["call_sent_per_s"])
    theirs = rows["dataset"].map(crf["sent_per_s"]).where(alike, rows["dataset"].map(crf["call_sent_per_s"]))
    rows["vs_crfsuite"] = ours.astype(float) / theirs.astype(float)  # float even when there is no row
    bounds = [
        interval_bounds(speedup_comparison(records, row.dataset, row.variant, PEER), records, noise, seed)
        if records is not None and row.variant != PEER
        else (np.nan, np.nan)
        for row in rows.itertuples()
    ]
    rows["vs_crfsuite_lo"], rows["vs_crfsuite_hi"] = [b[0] for b in bounds], [b[1] for b in bounds]
    rows["dataset"] = rows["dataset"].str.removesuffix("~features")
    columns = ["sent_per_s", "vs_crfsuite", "vs_crfsuite_lo", "vs_crfsuite_hi", "token_acc"]
    return _rounded(rows[["dataset", "variant", "sentences", *COVERAGE, *columns]])


#: The peer of the scoring-included comparison.
PEER = "crfsuite"


def figure2(
    summary: pd.DataFrame,
    settings: dict,
    path,
    records: pd.DataFrame | None = None,
    noise: pd.DataFrame | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Accuracy vs decoding speed as the transition L2 grows (paper's Fig. 2, one panel per dataset of
    ``figure2.datasets``); returns the points, with each variant's speed-up over Viterbi under the same model
    and, with ``records``, its speed under each model over its speed under the tables' model (the paper's "4x
    gain in speed"), paired through Viterbi (:func:`through_reference_sides`) with its 95% interval."""
    figure = settings["figure2"]
    models = settings["models"]
    points = []
    for dataset in figure["datasets"]:
        for model in figure["models"]:
            name = dataset if model == settings["model"] else f"{dataset}~{model}"
            rows = summary[summary["dataset"] == name].set_index("variant")
            for variant in figure["variants"]:
                if variant in rows.index:
                    row = rows.loc[variant]
                    gain = _model_gain(records, noise, seed, dataset, name, variant)
                    points.append(
                        {
                            "dataset": dataset,
                            "model": model,
                            "lambda_t": models[model].get("lambda_t", np.nan),
                            "variant": variant,
                            **{column: row[column] for column in COVERAGE},
                            "sent_per_s": row["sent_per_s"],
                            "speedup": row["speedup"],
                            "speedup_lo": row["speedup_lo"],
                            "speedup_hi": row["speedup_hi"],
                            **gain,
                            "token_acc": row["token_acc"],
                        }
                    )
    frame = pd.DataFrame(points)
    datasets = list(dict.fromkeys(frame["dataset"])) if len(frame) else []
    fig = Figure(figsize=(5.5 * max(len(datasets), 1), 4))
    axes = fig.subplots(1, max(len(datasets), 1), squeeze=False)
    for ax, dataset in zip(axes[0], datasets, strict=False):
        speedups = []
        for variant, group in frame[frame["dataset"] == dataset].groupby("variant", sort=False):
            group = group.sort_values("lambda_t")
            ax.plot(group["sent_per_s"], group["token_acc"], marker="o", label=variant)
            if variant == REFERENCE:
                continue  # Viterbi's speed does not depend on the weights: its points need no labels
            # the coefficient beside each point, on the side away from its line: above a point at least as high
            # as its neighbours' mean along the line, below otherwise; speed-ups in the box
            accuracy = group["token_acc"].to_numpy()
            for i, row in enumerate(group.itertuples()):
                neighbours = [accuracy[j] for j in (i - 1, i + 1) if 0 <= j < len(accuracy)]
                above = not neighbours or accuracy[i] >= np.mean(neighbours)
                ax.annotate(
                    f"{row.lambda_t:g}",
                    (row.sent_per_s, row.token_acc),
                    textcoords="offset points",
                    xytext=(0, 7 if above else -8),
                    ha="center",
                    va="bottom" if above else "top",
                    fontsize=8,
                )
            speedups += [
                f"{row.lambda_t:g}: {row.speedup:.2f}x" + _bracket(row.speedup_lo, row.speedup_hi)
                for row in group.itertuples()
                if np.isfinite(row.speedup)
            ]
        if speedups:
            ax.text(
                0.98,
                0.03,
                f"{REFERENCE} -> CG speed-up\nby transition L2\n" + "\n".join(speedups),
                transform=ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=8,
                bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.9},
            )
        accuracy = frame.loc[frame["dataset"] == dataset, "token_acc"]
        span = max(accuracy.max() - accuracy.min(), 0.4)  # a flat curve stays flat, not blown up to the axis
        ax.set_ylim(accuracy.min() - 1.4 * span, accuracy.max() + 0.3 * span)  # room for legend and box below
        ax.set_xlim(left=0, right=frame.loc[frame["dataset"] == dataset, "sent_per_s"].max() * 1.08)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value / 1000:g}k" if value else "0"))
        ax.set_xlabel("sentences per second (one thread)")
        ax.set_ylabel("token accuracy (%)")
        ax.set_title(f"{dataset}: accuracy and speed as the transition L2 grows")
        ax.legend(loc="lower left")
    save_figure(fig, path, dpi=150)
    return _rounded(frame)


def _model_gain(
    records: pd.DataFrame | None, noise: pd.DataFrame | None, seed: int, base: str, name: str, variant: str
) -> dict[str, float]:
    """``speedup_vs_base_model`` and its interval for one point of Fig. 2 (NaN without paired records)."""
    if name == base:
        return dict(zip(BASE_MODEL_GAIN, (1.0, np.nan, np.nan), strict=True))
    pair = (name, variant), (base, variant)
    found = None if records is None else through_reference_sides(records, *pair)
    if found is None:
        return dict.fromkeys(BASE_MODEL_GAIN, np.nan)
    low, high = interval_bounds(lambda frame: through_reference_sides(frame, *pair), records, noise, seed)
    return dict(zip(BASE_MODEL_GAIN, (ratio_of_totals(*found), low, high), strict=True))


#: Fig. 2's speed under a model over the speed under the tables' model, and the ends of its interval.
BASE_MODEL_GAIN = ["speedup_vs_base_model", "speedup_vs_base_model_lo", "speedup_vs_base_model_hi"]


def _bracket(low: float, high: float) -> str:
    """`` [low, high]`` of an interval, empty without one."""
    return f" [{low:.2f}, {high:.2f}]" if np.isfinite(low) and np.isfinite(high) else ""


def cg_statistics_figure(records: pd.DataFrame, path) -> None:
    """The statistics of section 7 as distributions, one line or bar group per dataset: final restricted-domain
    sizes per token (CG, and Viterbi+P's eq. 14 survivors), CG rounds per sentence, and candidate pairs per
    oracle call (cumulative, with the paper's "at most 5 in 86% of the calls")."""
    chosen = records[records["variant"].isin(["cg", "viterbi+p"]) & ~records["dataset"].str.contains("~")]
    datasets = list(dict.fromkeys(chosen["dataset"]))
    colours = {d: f"C{k}" for k, d in enumerate(datasets)}
    fig = Figure(figsize=(14, 3.6))
    sizes_ax, rounds_ax, calls_ax = fig.subplots(1, 3)
    width = 0.8 / max(len(datasets), 1)
    for k, dataset in enumerate(datasets):
        for variant, group in chosen[chosen["dataset"] == dataset].groupby("variant", sort=False):
            stats = [json.loads(s) for s in group["stats"]]
            sizes = np.concatenate([np.asarray(s["domain_sizes"], dtype=np.int64) for s in stats])
            shares = np.bincount(np.minimum(sizes, 10), minlength=11)[1:] / len(sizes) * 100
            style = "-" if variant == "cg" else "--"
            sizes_ax.plot(
                range(1, 11), shares, style, marker="o", color=colours[dataset], label=f"{dataset} {variant}"
            )
            if variant != "cg":
                continue
            rounds = np.minimum([s["iterations"] for s in stats], 4)
            shares = np.bincount(rounds, minlength=5)[1:] / len(rounds) * 100
            offset = (k - (len(datasets) - 1) / 2) * width
            rounds_ax.bar(np.arange(1, 5) + offset, shares, width, color=colours[dataset], label=dataset)
            calls = np.concatenate([np.asarray(s["oracle_candidates"], dtype=np.int64) for s in stats])
            limits = np.arange(0, 21)
            cumulative = [(calls <= c).mean() * 100 for c in limits]
            calls_ax.step(limits, cumulative, where="post", color=colours[dataset], label=dataset)
    text = paper_value("chains.text")
    calls_ax.plot([5], [text["oracle_le5_candidates_pct"]], "k*", markersize=10, label="paper (WSJ): <= 5")
    sizes_ax.set_xticks(range(1, 11), [*map(str, range(1, 10)), ">=10"])
    sizes_ax.set(xlabel="labels per token (CG: final domain; dashed: Viterbi+P)", ylabel="% of tokens")
    rounds_ax.set_xticks(range(1, 5), ["1", "2", "3", ">=4"])
    rounds_ax.set(xlabel="CG rounds (restricted LP solves)", ylabel="% of sentences")
    calls_ax.set_xticks(range(0, 21, 5))
    calls_ax.set(xlabel="candidate pairs per oracle call", ylabel="% of oracle calls with at most that many")
    # sizes: colour = dataset, line style = decoder, each said once (a short legend line hides a dashed style)
    handles = [Line2D([], [], color=colours[d], marker="o", label=d) for d in datasets]
    handles += [
        Line2D([], [], color="black", linestyle=s, label=v) for s, v in (("-", "CG"), ("--", "Viterbi+P"))
    ]
    sizes_ax.legend(handles=handles, fontsize=7, handlelength=3.5)
    for ax in (rounds_ax, calls_ax):
        ax.legend(fontsize=7)
    save_figure(fig, path, dpi=150)


#: The seeds table's measures: Table 1's accuracy claims (token accuracy, % exact against Viterbi), in %.
SEED_MEASURES = ("token_acc", "exact_pct")


def seeds_table(
    records: pd.DataFrame,
    settings: dict,
    run_seed: int,
    histories: dict[str, dict] | None = None,
    reference: str = REFERENCE,
) -> pd.DataFrame:
    """The seed variance of the trained model (config/chains.yaml ``seeds``): per dataset, measure (token
    accuracy, % exact against ``reference``) and variant, its value with the model trained with each seed
    (``seed_<n>`` columns; instance set ``<dataset>~<model>.seed<n>``, the run's seed the dataset's own set) and
    their spread; then each variant's token accuracy minus the first variant's, seed by seed; a variant's row
    has its errors/timeouts over every seed's sentences. ``histories`` ("<dataset>/<model name>" -> training
    history) give the training minutes of each seed."""
    spec = settings.get("seeds")
    if not spec:
        return pd.DataFrame()
    histories = histories or {}
    rows = []
    for dataset in spec["datasets"]:
        sets = {seed: _seed_set(dataset, settings["model"], seed, run_seed) for seed in spec["seeds"]}
        minutes = [
            sum(epoch["seconds"] for epoch in histories[key]["epochs"]) / 60.0
            for key in (
                f"{dataset}/{seeded_name(settings['model'], seed, run_seed)}" for seed in spec["seeds"]
            )
            if key in histories
        ]
        per_seed = {
            seed: _seed_summary(records, name, spec["variants"], reference) for seed, name in sets.items()
        }
        of_sets = records[records["dataset"].isin(list(sets.values()))]
        failed = {v: failures_text(of_sets[of_sets["variant"] == v]) for v in spec["variants"]}
        for measure in SEED_MEASURES:
            values = {
                variant: {seed: _summary_value(per_seed[seed], variant, measure) for seed in sets}
                for variant in spec["variants"]
            }
            keys = {"dataset": dataset, "measure": measure}
            mean_minutes = float(np.mean(minutes)) if minutes else np.nan
            measure_rows = seed_rows(keys, "variant", values, dict.fromkeys(values, mean_minutes))
            # % exact against Viterbi: the exact decoders' 100 by definition, so no difference rows
            rows += [
                {**row, FAILED: failed.get(row["variant"], "")}
                for row in measure_rows
                if measure == "token_acc" or " - " not in row["variant"]
            ]
    return pd.DataFrame(rows)


def _seed_set(dataset: str, model: str, seed: int, run_seed: int) -> str:
    """The instance set of ``dataset`` scored by ``model`` trained with ``seed`` (the run's seed: the dataset's)."""
    return dataset if seed == run_seed else f"{dataset}~{seeded_name(model, seed, run_seed)}"


def _seed_summary(records: pd.DataFrame, name: str, variants: list[str], reference: str) -> pd.DataFrame:
    """Token accuracy and % exact of ``variants`` on instance set ``name`` (empty when the set has no records);
    % exact needs the reference's records on the set."""
    of_set = records[(records["dataset"] == name) & records["variant"].isin([*variants, reference])]
    if of_set.empty:
        return pd.DataFrame(columns=["variant", *SEED_MEASURES])
    marked = (
        mark_exact(of_set, reference)
        if (of_set["variant"] == reference).any()
        else of_set.assign(exact=pd.NA)
    )
    rows = []
    for variant, group in marked.groupby("variant", sort=False):
        exact = group["exact"].astype("boolean")
        exact_pct = 100.0 * float(exact.mean()) if exact.notna().all() else np.nan
        rows.append({"variant": variant, "token_acc": _accuracy(group), "exact_pct": exact_pct})
    return pd.DataFrame(rows)


def _summary_value(summary: pd.DataFrame, variant: str, measure: str) -> float:
    values = summary.loc[summary["variant"] == variant, measure]
    return float(values.iloc[0]) if len(values) else np.nan


def seed_notes(seeds: pd.DataFrame) -> list[str]:
    """What the seed spread says of Table 1's single-seed accuracy claims: per variant, the range of its token
    accuracy over seeds, and per difference row whether its sign holds on every seed."""
    if seeds.empty:
        return ["not measured: config/chains.yaml has no `seeds` entry"]
    lines = []
    accuracy = seeds[seeds["measure"] == "token_acc"]
    for row in accuracy.itertuples():
        known = [
            v for c, v in zip(seeds.columns, row[1:], strict=True) if c.startswith("seed_") and np.isfinite(v)
        ]
        if " - " in row.variant:
            signs = {np.sign(v) for v in known}
            held = "its sign holds on every seed" if len(signs) == 1 and 0 not in signs else "its sign varies"
            lines.append(
                f"{row.dataset}: token accuracy {row.variant} over {row.seeds} seeds: mean {row.mean:+.2f} points, "
                f"from {min(known, default=np.nan):+.2f} to {max(known, default=np.nan):+.2f}; {held}."
            )
        else:
            lines.append(
                f"{row.dataset}: {row.variant}'s token accuracy over {row.seeds} seeds ranges over {row.range:.2f}"
                " points: a difference in Table 1 smaller than that is within what a change of seed alone makes."
            )
    return lines


def _write_seeds(
    records: pd.DataFrame,
    settings: dict,
    seed_runs: Iterable[str],
    seed_histories: Iterable[str],
    run_seed: int,
    tables: Path,
) -> None:
    """The seeds table from the run's records (its own seed) and the seed study's."""
    seed_runs = list(seed_runs)
    both = pd.concat([records, load_runs(seed_runs)], ignore_index=True) if seed_runs else records
    histories = {f"{Path(p).parent.name}/{Path(p).name.removesuffix('.history.json')}": read_json(p)
                 for p in seed_histories}  # fmt: skip
    seeds = seeds_table(both, settings, run_seed, histories)
    write_table(
        rounded(seeds, 2),
        tables / "seeds",
        title="chains: seed variance of the trained model (test token accuracy, % exact)",
        caption=caption("chains", "seeds"),
        notes=seed_notes(seeds),
    )


def write_chains_outputs(
    run_paths: Iterable[str],
    settings: dict,
    *,
    tables,
    figures,
    noise_paths: Iterable[str] = (),
    seed: int = 0,
    seed_runs: Iterable[str] = (),
    seed_histories: Iterable[str] = (),
) -> None:
    """Every chains table (CSV, Markdown, LaTeX) and figure from the gathered run records, the speed-ups with
    95% intervals from the noise jobs' retimings (``noise_paths``) and bootstrap seed ``seed`` (the run's seed,
    which is also the seed the tables' model was trained with); the seeds table from ``seed_runs`` and
    ``seed_histories``, the seed study's records and training histories."""
    tables, figures = Path(tables), Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    records = load_runs(run_paths)
    _write_seeds(records, settings, seed_runs, seed_histories, seed, tables)
    noise = load_noise(noise_paths)
    method = interval_note(settings, seed, noise)
    summary = variant_summary(records, noise=noise, seed=seed)
    pos, joint = settings["pos"], settings["joint"]
    write_table(
        table1(summary, pos, joint, settings["runs"]["table1"]),
        tables / "table1",
        title="Table 1: exactness and speed",
        caption=caption("chains", "table1"),
        notes=[
            f"Datasets: POS {', '.join(pos)}; POS x NER {', '.join(joint)} (trained on UNER dev, tested on UNER test).",
            method,
            cross_check_note(cross_check_counts(records, CERTIFIED), CERTIFIED),
        ],
    )
    write_table(
        table2a(summary, pos, joint, records, noise, seed),
        tables / "table2a",
        title="Table 2A: 0/1-loss oracles",
        caption=caption("chains", "table2"),
        notes=[method],
    )
    write_table(
        table2b(summary, pos),
        tables / "table2b",
        title="Table 2B: reduced-cost formulations",
        caption=caption("chains", "table2b"),
        notes=[method],
    )
    write_table(
        cg_statistics(records),
        tables / "cg_statistics",
        title="Column generation statistics",
        caption=caption("chains", "cg_statistics"),
        # columns a table lacks when no decoder recorded those statistics: explained here, not in the caption
        notes=[
            "tokens: tokens whose final domain size was recorded.",
            "mean_iterations: mean CG rounds (restricted LP solves) per sentence.",
            "oracle_calls: edge oracle calls in all (an edge whose reduced costs cannot have changed is skipped).",
        ],
    )
    write_table(
        peer_table(summary, records, noise, seed),
        tables / "peer",
        title="Tagging with scoring: ours vs CRFsuite",
        caption=caption("chains", "peer"),
        notes=[method],
    )
    points = figure2(summary, settings, figures / "figure2.png", records, noise, seed)
    write_table(
        points,
        tables / "figure2",
        title="Figure 2: transition L2 vs speed and accuracy",
        caption=caption("chains", "figure2_points"),
        notes=[method],
    )
    cg_statistics_figure(records, figures / "cg_statistics.png")
    by_length = speed_by_length(records, [*pos, *joint], noise=noise, seed=seed)
    write_table(
        by_length,
        tables / "speed_by_length",
        title="Speed-up over Viterbi by sentence length",
        caption=caption("chains", "speed_by_length"),
        # one column per variant that ran (viterbi+p_speedup, cg_speedup): explained here, not in the caption
        notes=[
            "`<variant>_speedup`: Viterbi's summed seconds over the variant's on the bucket's sentences, Viterbi"
            " timed beside the variant where the records have it (as in Table 1); `<variant>_speedup_lo`, `_hi`:"
            " its 95% interval, the bucket's sentences resampled, the noise term the whole set's;"
            " `<variant>_errors/timeouts`: the variant's sentences of the bucket that ended in an error or a"
            " timeout (counted in the speed-up at their recorded seconds: not a complete run's where not"
            " 0/0).",
            method,
        ],
    )
    speed_by_length_figure(by_length, figures / "speed_by_length.png")
    phases = cg_phases(records)
    write_table(
        phases,
        tables / "cg_phases",
        title="Where column generation spends its time",
        caption=caption("chains", "cg_phases"),
    )
    cg_phases_figure(phases, figures / "cg_phases.png")
    write_table(
        viterbi_peak(records, seed),
        tables / "viterbi_peak",
        title="How close Viterbi is to this CPU's peak",
        caption=caption("chains", "viterbi_peak"),
        notes=[
            "`*_lo`, `*_hi`: 95% interval of the share: 2000 bootstrap resamples of the sentences (Viterbi and the"
            f" peaks of a sentence together; seed {seed}); percentile interval. No run-to-run term: Viterbi and"
            " the peaks are timed in the same job, sentence by sentence, and the noise jobs do not retime this"
            " profile."
        ],
    )
