"""Tables and figures of the `titles` experiment (Deshpande et al. 2007) from its gathered result records.

Records carry, per test title, the decode seconds, the path's objective (and the ILP's bound), ``rouge_l``,
``k`` and the realised ``title``; colour-coding's stats hold ``iterations`` and ``first_found`` (the iteration
that first produced its final answer). "% optimal" compares a variant's objective with the certified optimum
of the configured exact variant (``experiments.titles.exact``) on the titles where that optimum is certified.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from decoders.harness.instances import read_instance_shard
from decoders.harness.records import mark_exact, read_records
from decoders.io import read_json, write_text_atomic
from decoders.papers import paper_rows, paper_value
from decoders.tables.captions import caption
from decoders.tables.coverage import coverage, ratio_timing, timing_mode
from decoders.tables.crosscheck import Certified, cross_check, cross_check_counts, cross_check_note
from decoders.tables.intervals import ratio_of_totals
from decoders.tables.ratios import interval_bounds, interval_note, load_noise, matched_sides, records_interval
from decoders.tables.writers import rounded, save_figure, write_table
from decoders.titles.decoders import VERIFY_RTOL, title_text

#: The experiment's section of the results page: its heading and figures (title, file under results/, and
#: optionally the table the figure goes with: it is shown only when that table is).
PAGE = {
    "heading": "titles: selection and ordering by colour-coding, ILP and beam (Deshpande et al. 2007)",
    "figures": [
        ("Fig. 2: % of titles solved exactly vs colour-coding iterations", "figures/titles/figure2.png"),
        ("Median seconds per title vs title length k", "figures/titles/time_vs_k.png"),
    ],
}

# Our variant name -> the paper's Table 1 row.
PAPER_NAMES = {
    "colour-coding": "color-coding",
    "ilp-cp-sat": "ilp",
    "beam-1": "beam-1",
    "beam-80": "beam-80",
    "beam-smallest": "beam-1345",
}


#: The variants whose optima are certified (the project's exact decoders: the ILP by any of its three solvers,
#: colour-coding with its certificate, exhaustive search). Every optimal claim is cross-checked against them
#: on the same title (:mod:`decoders.tables.crosscheck`): ``verify`` proves a title optimal from the instance
#: alone only while it can enumerate every ordering
#: (:data:`decoders.titles.decoders.VERIFY_BRUTE_FORCE_PATHS`). Held here, not in the config, so that an
#: overlay cannot take a claim out of the check.
CERTIFIED = Certified(
    ("ilp-cp-sat", "ilp-scip", "ilp-highs", "colour-coding-certified", "exhaustive"), rtol=VERIFY_RTOL
)


def load_runs(paths: Iterable[str]) -> pd.DataFrame:
    """The records of ``paths``, every optimal claim cross-checked against :data:`CERTIFIED` (a claim below a
    certified optimum becomes an ``error``)."""
    return cross_check(pd.concat([read_records(path) for path in paths], ignore_index=True), CERTIFIED)


def _stats(frame: pd.DataFrame, key: str) -> pd.Series:
    return frame["stats"].map(lambda s: json.loads(s).get(key) if isinstance(s, str) else None)


def _params(frame: pd.DataFrame) -> pd.Series:
    return frame["params"].map(lambda s: json.loads(s) if isinstance(s, str) else {})


def table1(
    records: pd.DataFrame, settings: Mapping[str, Any], noise: pd.DataFrame | None = None, seed: int = 0
) -> pd.DataFrame:
    """One row per (dataset, variant) in the configured order, with the paper's row beside it, and the variant's
    speed-up over the exact reference (the ILP): its summed seconds over the variant's on the same titles, with
    the 95% interval of :func:`decoders.tables.ratios.records_interval` (the ``noise`` jobs' retimings, bootstrap
    seeded with ``seed``). Each row has its errors, timeouts, partial mark and timing mode
    (:mod:`decoders.tables.coverage`; the timing names the ILP's too where the speed-up mixes two clocks)."""
    marked = mark_exact(records, settings["exact"])
    paper = {row["decoder"]: row for row in paper_rows("titles", "table1")}
    exact_mode = {
        dataset: timing_mode(group)
        for dataset, group in records[records["variant"] == settings["exact"]].groupby("dataset", sort=False)
    }
    order = list(dict.fromkeys([*settings["runs"], settings["exact"]]))
    rows = []
    for (dataset, variant), group in marked.groupby(["dataset", "variant"], sort=False):
        exact = group["exact"].dropna().astype(bool)
        width = _params(group).map(lambda p: p.get("width")).dropna()
        name = PAPER_NAMES.get(variant)
        row = paper.get(name, {}) if name else {}
        rows.append(
            {
                "dataset": dataset,
                "variant": variant,
                "beam_width": int(width.iloc[0]) if len(width) else None,
                "titles": len(group),
                "mean_s": group["seconds"].mean(),
                "seconds_are": "lower bound" if (group["status"] == "timeout").any() else "exact",
                "median_s": group["seconds"].median(),
                "max_s": group["seconds"].max(),
                "rouge_l": group["rouge_l"].mean(),
                "optimal_pct": 100.0 * exact.mean() if len(exact) else np.nan,
                "certified_titles": len(exact),
                "self_certified_pct": 100.0 * (group["status"] == "optimal").mean(),
                **coverage(group),
                "timing": ratio_timing(timing_mode(group), exact_mode.get(dataset, "")),
                **_speedup(records, noise, seed, dataset, variant, settings["exact"]),
                "paper_row": name or "",
                "paper_mean_s": row.get("mean_s"),
                "paper_median_s": row.get("median_s"),
                "paper_rouge_l": row.get("rouge_l"),
                "paper_optimal_pct": row.get("optimal_pct"),
            }
        )
    table = pd.DataFrame(rows)
    table["_order"] = table["variant"].map({v: i for i, v in enumerate(order)})
    return table.sort_values(["dataset", "_order"]).drop(columns="_order").reset_index(drop=True)


def _speedup(
    records: pd.DataFrame, noise: pd.DataFrame | None, seed: int, dataset: str, variant: str, exact: str
) -> dict[str, float]:
    """``speedup_vs_ilp`` and its interval: ``exact``'s total seconds over ``variant``'s on the same titles."""
    found = matched_sides(records, dataset, variant, exact)
    if found is None or variant == exact:
        estimate = 1.0 if variant == exact else np.nan
        return {
            "speedup_vs_ilp": estimate,
            "speedup_vs_ilp_lo": np.nan,
            "speedup_vs_ilp_hi": np.nan,
            "speedup_is": "exact" if variant == exact else "",
        }
    low, high = interval_bounds(
        lambda frame: matched_sides(frame, dataset, variant, exact), records, noise, seed
    )
    return {
        "speedup_vs_ilp": ratio_of_totals(*found),
        "speedup_vs_ilp_lo": low,
        "speedup_vs_ilp_hi": high,
        "speedup_is": _censored_kind(records, dataset, variant, exact),
    }


def _censored_kind(records: pd.DataFrame, dataset: str, variant: str, exact: str) -> str:
    """What ``exact``'s summed seconds over ``variant``'s are when titles hit the time limit: a timeout counts at
    its recorded seconds, below its true time, so the ratio is an ``upper bound`` when only ``variant`` timed out,
    a ``lower bound`` when only the reference did, ``neither bound`` when both did, else ``exact``."""
    here = records[records["dataset"] == dataset]
    ours = bool((here.loc[here["variant"] == variant, "status"] == "timeout").any())
    theirs = bool((here.loc[here["variant"] == exact, "status"] == "timeout").any())
    return {(False, False): "exact", (True, False): "upper bound", (False, True): "lower bound"}.get(
        (ours, theirs), "neither bound"
    )


def _ratio_text(
    records: pd.DataFrame,
    noise: pd.DataFrame | None,
    seed: int,
    dataset: str,
    variant: str,
    exact: str,
    ratio: Mapping[str, float],
) -> str:
    """``"<m>x median [lo, hi], <t>x mean [lo, hi]"``: the ILP's median (mean) seconds over ``variant``'s on the
    same titles, each with its 95% interval (:func:`decoders.tables.ratios.records_interval`)."""
    parts = []
    for statistic, name in (("median", "median_ratio"), ("total", "mean_ratio")):
        bracket = _k_interval(records, noise, seed, dataset, variant, exact, None, statistic)
        parts.append(f"{ratio[name]:.1f}x {'mean' if statistic == 'total' else 'median'}{bracket}")
    return ", ".join(parts)


def _k_interval(
    records: pd.DataFrame,
    noise: pd.DataFrame | None,
    seed: int,
    dataset: str,
    variant: str,
    exact: str,
    k: int | None,
    statistic: str = "median",
) -> str:
    """`` [lo, hi]``: the 95% interval of the ILP's median (``statistic``) seconds over ``variant``'s on the
    titles of length ``k`` (None: every title; for one length the noise term comes from the whole set's
    retimings: the sample barely holds one length); "" without one."""

    def whole(frame: pd.DataFrame) -> Any:
        return matched_sides(frame, dataset, variant, exact)

    found = records_interval(
        whole if k is None else (lambda frame: whole(frame[frame["k"] == k])),
        records,
        noise,
        seed=seed,
        statistic=statistic,
        noise_comparison=whole,
    )
    return "" if found is None else f" [{found.low:.1f}, {found.high:.1f}]"


def speed_ratio(
    table: pd.DataFrame, fast: str = "colour-coding", slow: str = "ilp-cp-sat"
) -> dict[str, float]:
    """Median and mean seconds of ``slow`` over ``fast`` per dataset (the paper: ILP median / CC median = 5.9)."""
    out = {}
    for dataset, group in table.groupby("dataset"):
        rows = group.set_index("variant")
        if fast in rows.index and slow in rows.index:
            out[dataset] = {
                "median_ratio": rows.loc[slow, "median_s"] / rows.loc[fast, "median_s"],
                "mean_ratio": rows.loc[slow, "mean_s"] / rows.loc[fast, "mean_s"],
            }
    return out


def ratio_by_k(records: pd.DataFrame, fast: str, slow: str = "ilp-cp-sat") -> pd.DataFrame:
    """Median seconds per title length ``k`` of ``fast`` and ``slow`` and their ratio, per dataset."""
    medians = records[records["variant"].isin([fast, slow])].groupby(["dataset", "k", "variant"])["seconds"]
    table = medians.median().unstack("variant")
    if fast not in table or slow not in table:
        return pd.DataFrame(columns=["dataset", "k", fast, slow, "ratio"])
    table = table[[fast, slow]].dropna().reset_index()
    table["ratio"] = table[slow] / table[fast]
    return table


def units_table(scorer_stats: Iterable[str | Path], instance_stats: Iterable[str | Path]) -> pd.DataFrame:
    """Our units' statistics beside the paper's (section 6)."""
    paper = paper_value("titles.corpus")
    rows = [
        {
            "dataset": "paper",
            "sections": paper["sections"],
            "train": paper["train_sections"],
            "test": paper["test_sections"],
            "mean_body_words": paper["mean_section_words"],
            "mean_title_words": paper["mean_title_words"],
            "mean_title_content_words": paper["mean_title_content_words"],
            "mean_vertices": None,
            "mean_classes": None,
        }
    ]
    for scorer_path, instance_path in zip(scorer_stats, instance_stats, strict=True):
        scorer = read_json(scorer_path)
        instances = read_json(instance_path)
        all_units = scorer["all_units"]
        rows.append(
            {
                "dataset": Path(scorer_path).parent.name,
                "sections": all_units["sections"],
                "train": scorer["train_units"]["sections"],
                "test": instances["instances"],
                "mean_body_words": all_units["mean_section_words"],
                "mean_title_words": all_units["mean_title_words"],
                "mean_title_content_words": all_units["mean_title_content_words"],
                "mean_vertices": instances["mean"]["n"],
                "mean_classes": instances["mean"]["classes"],
            }
        )
    return pd.DataFrame(rows)


def figure2(records: pd.DataFrame, settings: Mapping[str, Any], path, variant: str = "colour-coding"):
    """% of titles whose exact solution colour-coding has found after i iterations (the paper's Fig. 2)."""
    marked = mark_exact(records, settings["exact"])
    cc = marked[(marked["variant"] == variant) & marked["exact"].notna()].copy()
    cc["first_found"] = _stats(cc, "first_found")
    cc["iterations"] = _stats(cc, "iterations")
    frames = []
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for dataset, group in cc.groupby("dataset"):
        found = group.loc[group["exact"].astype(bool), "first_found"].astype(float)
        top = int(max(group["iterations"].max(), found.max() if len(found) else 1))
        steps = np.arange(1, top + 1)
        pct = [100.0 * (found <= i).sum() / len(group) for i in steps]
        frames.append(pd.DataFrame({"dataset": dataset, "iteration": steps, "exact_pct": pct}))
        ax.step(steps, pct, where="post", label=f"{dataset} (ours, {len(group)} titles)")
    text = paper_value("titles.text")
    ax.scatter(
        [text["cc_iterations_for_90pct_titles"], text["cc_iterations_for_all_titles"]],
        [90, 100],
        marker="x",
        color="black",
        label="paper: 90% / 100% of titles",
        zorder=3,
        clip_on=False,  # the 100% marker sits on the axis' top
    )
    ax.set_xscale("log")
    ax.set_xlabel("colour-coding iterations")
    ax.set_ylabel("% of titles solved exactly")
    ax.set_ylim(0, 104)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    save_figure(fig, path)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def time_vs_k(records: pd.DataFrame, path) -> None:
    """Median decode seconds per title length k, one line per variant (log scale)."""
    fig = Figure(figsize=(8, 4))
    ax = fig.subplots()
    for (dataset, variant), group in records.groupby(["dataset", "variant"], sort=False):
        medians = group.groupby("k")["seconds"].median()
        ax.plot(medians.index, medians.to_numpy(), marker="o", label=f"{variant} ({dataset})")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("title length k (content words)")
    ax.set_ylabel("median seconds per title")
    ax.grid(alpha=0.3)
    ax.legend(
        fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0)
    )  # beside the curves, never on them
    save_figure(fig, path)


def examples(records: pd.DataFrame, shards: Iterable[str], count: int = 12, seed: int = 0) -> pd.DataFrame:
    """The true title beside each variant's realised title, for a fixed sample of test sections (none where
    the variant's record is an error)."""
    instances = {}
    for path in shards:
        dataset = Path(path).parent.name
        instances.update({(dataset, i): inst for i, _, inst in read_instance_shard(path)})
    ids = sorted({(d, i) for d, i in zip(records["dataset"], records["instance_id"], strict=True)})
    rng = np.random.default_rng(seed)
    chosen = [ids[j] for j in sorted(rng.choice(len(ids), size=min(count, len(ids)), replace=False))]
    # an error's structure (if it kept one) was rejected: no title for it
    kept = records[records["status"] != "error"]
    structures = kept.set_index(["dataset", "instance_id", "variant"])["structure"]
    rows = []
    for dataset, instance_id in chosen:
        instance = instances[(dataset, instance_id)]
        row = {"dataset": dataset, "section": instance_id, "k": instance.k, "reference": instance.reference}
        for variant in records["variant"].unique():
            structure = json.loads(structures.get((dataset, instance_id, variant), "null"))
            row[variant] = title_text(instance, structure)
        rows.append(row)
    return pd.DataFrame(rows)


def write_titles_outputs(
    run_paths: Iterable[str],
    settings: Mapping[str, Any],
    *,
    noise_paths: Iterable[str] = (),
    seed: int = 0,
    scorer_stats: Iterable[str],
    instance_stats: Iterable[str],
    beam_searches: Iterable[str],
    shards: Iterable[str],
    tables: str | Path,
    figures: str | Path,
) -> None:
    """Every titles table and figure; the speed-ups' intervals from the noise jobs' retimings (``noise_paths``)
    and bootstrap seed ``seed``."""
    records = load_runs(run_paths)
    noise = load_noise(noise_paths)
    tables, figures = Path(tables), Path(figures)
    table = table1(records, settings, noise, seed)
    ratios = speed_ratio(table)
    notes = [
        f"Exact reference (optimal_pct, certified_titles): {settings['exact']}.",
        interval_note(settings, seed, noise),
        cross_check_note(cross_check_counts(records, CERTIFIED), CERTIFIED),
    ]
    for dataset, ratio in ratios.items():
        notes.append(
            f"{dataset}: ILP (CP-SAT) / colour-coding = "
            + _ratio_text(records, noise, seed, dataset, "colour-coding", settings["exact"], ratio)
            + f" (paper: {57.3 / 9.7:.1f}x median, {6536.2 / 73.8:.1f}x mean)."
        )
    certified = "colour-coding-certified"
    for dataset, ratio in speed_ratio(table, fast=certified).items():
        by_k = ratio_by_k(records[records["dataset"] == dataset], certified)
        slowest = by_k.loc[by_k["ratio"].idxmin()] if len(by_k) else None
        notes.append(
            f"{dataset}: ILP (CP-SAT) / {certified} = "
            + _ratio_text(records, noise, seed, dataset, certified, settings["exact"], ratio)
            + (
                f"; per k (medians) from {slowest['ratio']:.1f}x"
                f"{_k_interval(records, noise, seed, dataset, certified, settings['exact'], int(slowest['k']))}"
                f" (k = {int(slowest['k'])}) up, faster at every k: {'yes' if (by_k['ratio'] > 1).all() else 'no'}"
                if slowest is not None
                else ""
            )
        )
    for search in beam_searches:
        found = read_json(search)
        notes.append(
            f"{Path(search).parent.name}: smallest beam width optimal on all {found['titles_with_certified_optimum']}"
            f" certified titles: {found['width']} (paper: {paper_value('titles.text.smallest_beam_all_optimal')})"
            + ("" if found["optimal_on_all"] else f"; not reached within {found['max_width']}")
        )
    write_table(
        rounded(table),
        tables / "table1",
        title="titles: Table 1 (decoding test titles)",
        caption=caption("titles", "table1"),
        notes=notes,
    )
    write_table(
        rounded(units_table(scorer_stats, instance_stats)),
        tables / "units",
        title="titles: sections, splits and word graphs (ours beside the paper's)",
        caption=caption("titles", "units"),
    )
    points = figure2(records, settings, figures / "figure2.png")
    write_text_atomic(tables / "figure2.csv", points.to_csv(index=False))
    time_vs_k(records, figures / "time_vs_k.png")
    write_table(
        examples(records, shards),
        tables / "examples",
        title="titles: example titles",
        caption=caption("titles", "examples"),
    )
