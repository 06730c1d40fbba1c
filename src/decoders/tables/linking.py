"""Tables of the `linking` experiment (Blanco, Boldi and Marino) from its gathered records and measurements.

Records carry, per document, the chosen positions (``structure``), the distance cost (``objective``, on the
graph connected as the variant says), ``fair`` and ``k``. Variants are named ``<algorithm>-max`` /
``<algorithm>-min`` (maximal / minimal connection of every candidate set). The distance-cost ratio of a
solution is 100 x its cost over the least cost any heuristic found for that document under the same connection
(the paper's definition, section 6); beyond the paper, the ratio to the exact optimum is given where CP-SAT
certified it. The value is the share of fair candidates chosen. ``retrieval`` (each set's first candidate, the
BM25 ranking alone) is a considered algorithm like the heuristics. Its choice does not depend on the
connection, so its value is the same in both columns; its ratio is not, since the cost is measured on the
graph connected as the variant says.

The candidate-count sweep (:mod:`decoders.linking.sweep`) gives, per algorithm and number ``c`` of candidates
kept per set, the value and distance cost over documents, with the share of mentions whose target falls outside
the top ``c`` and the value a perfect chooser among the top ``c`` would reach (the ceiling).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from decoders.harness.instances import read_instance_shard
from decoders.harness.records import read_records
from decoders.io import read_json, read_parquet
from decoders.linking.cost import distance_cost
from decoders.linking.scaling import PEERS
from decoders.linking.sweep import parse_sweep_variant
from decoders.papers import paper_rows, paper_value
from decoders.tables.captions import caption
from decoders.tables.coverage import FAILED, failures_text, finished, partial
from decoders.tables.crosscheck import Certified, cross_check, cross_check_counts, cross_check_note
from decoders.tables.intervals import BOOTSTRAP_SAMPLES, process_log_ratio, ratio_interval
from decoders.tables.writers import rounded, save_figure, write_table

#: The experiment's section of the results page: its heading and figures (title, file under results/, and
#: optionally the table the figure goes with: it is shown only when that table is).
PAGE = {
    "heading": "linking: entity linking by graph-distance minimisation (Blanco, Boldi and Marino)",
    "figures": [
        ("Value vs candidates kept per mention (Wikispeedia)", "figures/linking/sweep.png", "sweep"),
    ],
}

CONNECTIONS = {"max": "maximal", "min": "minimal"}
EXACT = "exact"
#: the exact MinDR solvers on the same model (algorithm name -> solver): CP-SAT and its peer SCIP
EXACT_SOLVERS = {EXACT: "cpsat", "exact-scip": "scip"}


#: The variants whose optima are certified (CP-SAT's and SCIP's exact MinDR). Every optimal claim is cross-checked
#: against them on the same document and problem (:mod:`decoders.tables.crosscheck`; MinDR is a minimisation):
#: ``verify`` already proves a choice optimal from the instance while it can enumerate
#: (:data:`decoders.linking.decoders.VERIFY_ENUMERATE` choices), and beyond only that no single set can move
#: to lower the cost; there the cross-check is the proof, elsewhere a second opinion.
CERTIFIED = Certified(
    ("exact-max", "exact-min", "exact-scip-max", "exact-scip-min"),
    sense="min",
    keys=("dataset", "instance_id", "problem"),
)


def _problem(stats: str) -> str:
    """The problem a record's decoder solved, as ``verify`` reads it from its stats: the connection (maximal
    unless named) and the cut of every candidate set (none unless named)."""
    values = json.loads(stats) if stats else {}
    return f"{values.get('connection', 'maximal')}, max_candidates {values.get('max_candidates')}"


def load_runs(paths: Iterable[str]) -> pd.DataFrame:
    """The records of ``paths`` with their ``problem`` (connection and candidate cut), every optimal claim
    cross-checked against :data:`CERTIFIED` (a claim above a certified minimum becomes an ``error``), and the
    variant's name split into ``algorithm`` and ``connection``."""
    records = pd.concat([read_records(path) for path in paths], ignore_index=True)
    records = cross_check(records.assign(problem=records["stats"].map(_problem)), CERTIFIED)
    split = records["variant"].str.rsplit("-", n=1, expand=True)
    return records.assign(algorithm=split[0], connection=split[1])


def ground_truth(shards: Mapping[str, Iterable[str]]) -> pd.DataFrame:
    """Distance cost of the fair candidates of every document whose targets are all among its candidates."""
    rows = []
    for dataset, paths in shards.items():
        for path in paths:
            for instance_id, _, instance in read_instance_shard(path):
                gold = instance.gold_structure()
                if gold is None:
                    continue
                vertices = instance.chosen_vertices(gold)
                for short, connection in CONNECTIONS.items():
                    rows.append(
                        {
                            "dataset": dataset,
                            "instance_id": instance_id,
                            "algorithm": "ground-truth",
                            "connection": short,
                            "objective": distance_cost(instance, vertices, connection),
                            "fair": instance.k,
                            "k": instance.k,
                            "status": "feasible",
                        }
                    )
    return pd.DataFrame(rows)


def _mean_se(values: pd.Series) -> tuple[float, float]:
    values = values.dropna().astype(float)
    if values.empty:
        return math.nan, math.nan
    se = values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return float(values.mean()), float(se)


def ratios(records: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, document, algorithm, connection): cost, ratio to the best heuristic, ratio to the optimum."""
    columns = ["dataset", "instance_id", "algorithm", "connection", "objective", "fair", "k", "status"]
    frame = pd.concat([records[columns], truth[columns]], ignore_index=True)
    keys = ["dataset", "instance_id", "connection"]
    heuristic = ~frame["algorithm"].isin([*EXACT_SOLVERS, "ground-truth"]) & frame["objective"].notna()
    best = frame[heuristic].groupby(keys)["objective"].min().rename("best")
    # either solver's certified optimum (the cross-check has turned any disagreement into an error)
    optimum = (
        frame[frame["algorithm"].isin(list(EXACT_SOLVERS)) & (frame["status"] == "optimal")]
        .groupby(keys)["objective"]
        .min()
        .rename("optimum")
    )
    frame = frame.join(best, on=keys).join(optimum, on=keys)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["ratio"] = np.where(frame["best"] > 0, 100.0 * frame["objective"] / frame["best"], 100.0)
        frame["ratio_to_optimum"] = np.where(
            frame["optimum"] > 0, 100.0 * frame["objective"] / frame["optimum"], 100.0
        )
    frame.loc[frame["optimum"].isna(), "ratio_to_optimum"] = np.nan
    frame.loc[frame["best"].isna(), "ratio"] = np.nan
    frame["value"] = frame["fair"] / frame["k"]
    return frame


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, algorithm): ratio and value (mean, standard error) per connection, the ratio to
    the certified optimum, the errors and timeouts per connection and the partial mark
    (:mod:`decoders.tables.coverage`), and the paper's numbers."""
    paper = {row["heuristic"]: row for row in paper_rows("linking", "table1")}
    order = [
        "spanning-tree",
        "hitting-distance",
        "greedy",
        "degree",
        "pagerank",
        "retrieval",
        *EXACT_SOLVERS,
        "ground-truth",
    ]
    rows = []
    for (dataset, algorithm), group in frame.groupby(["dataset", "algorithm"], sort=False):
        row: dict[str, Any] = {"dataset": dataset, "algorithm": algorithm}
        for short in CONNECTIONS:
            part = group[group["connection"] == short]
            row[f"ratio_{short}"], row[f"ratio_{short}_se"] = _mean_se(part["ratio"])
            if algorithm != "ground-truth":
                row[f"value_{short}"], row[f"value_{short}_se"] = _mean_se(part["value"])
            row[f"ratio_to_optimum_{short}"] = _mean_se(part["ratio_to_optimum"])[0]
            row[f"documents_{short}"] = len(part)
            row[f"{FAILED}_{short}"] = failures_text(part) if algorithm != "ground-truth" else ""
        row["partial"] = partial(group)
        exact_rows = group[group["algorithm"].isin(list(EXACT_SOLVERS))]
        row["optimal_pct"] = (
            100.0 * (exact_rows["status"] == "optimal").mean() if len(exact_rows) else math.nan
        )
        known = paper.get(algorithm, {})
        for key in ("ratio_max", "ratio_min", "value_max", "value_min"):
            row[f"paper_{key}"] = known.get(key)
        rows.append(row)
    table = pd.DataFrame(rows)
    table["_order"] = table["algorithm"].map({a: i for i, a in enumerate(order)})
    return table.sort_values(["dataset", "_order"]).drop(columns="_order").reset_index(drop=True)


EXACT_FIELDS = ("status", "objective", "bound", "gap", "seconds")


def exact_table(records: pd.DataFrame) -> pd.DataFrame:
    """The exact solvers side by side, one row per (dataset, document, connection): ``k`` and, per solver of
    :data:`EXACT_SOLVERS` (prefix ``cpsat_`` / ``scip_``), its status, objective, bound, relative gap
    ``(objective - bound) / objective`` (0 for a proved optimum or a zero cost; NaN without a solution) and
    seconds. Both run on the same model, the same hint and the same time limit (``harness.time_limit``)."""
    exact = records[records["algorithm"].isin(list(EXACT_SOLVERS))]
    columns = ["dataset", "instance_id", "connection", "k"]
    if exact.empty:
        return pd.DataFrame(columns=columns)
    rows: dict[tuple, dict[str, Any]] = {}
    for record in exact.itertuples(index=False):
        key = (record.dataset, record.instance_id, CONNECTIONS.get(record.connection, record.connection))
        row = rows.setdefault(key, dict(zip(columns, (*key, record.k), strict=True)))
        prefix = EXACT_SOLVERS[record.algorithm]
        objective, bound = float(record.objective), float(record.bound)
        if math.isnan(objective):
            gap = math.nan
        elif objective == 0.0:
            gap = 0.0
        else:
            gap = (objective - bound) / objective
        values = (record.status, objective, bound, gap, float(record.seconds))
        row.update({f"{prefix}_{field}": value for field, value in zip(EXACT_FIELDS, values, strict=True)})
    table = pd.DataFrame(list(rows.values()))
    return table.sort_values(["dataset", "connection", "k", "instance_id"]).reset_index(drop=True)


def exact_summary(table: pd.DataFrame, time_limit: float | None) -> list[str]:
    """Notes under the exact table: per solver and connection, documents proved optimal, censored at the time
    limit (and of those, with bound 0: no lower bound at all), without any solution, and the solver's total
    seconds (what it adds to a run)."""
    notes = []
    limit = f" (time limit {time_limit:g} s per document)" if time_limit is not None else ""
    for prefix in EXACT_SOLVERS.values():
        if f"{prefix}_status" not in table:
            continue
        for connection, part in table.groupby("connection"):
            status = part[f"{prefix}_status"].dropna()
            censored = status == "timeout"
            zero = censored & (part.loc[status.index, f"{prefix}_bound"] == 0.0)
            missing = part.loc[status.index, f"{prefix}_objective"].isna()
            notes.append(
                f"{prefix}, {connection} connection: {int((status == 'optimal').sum())} of {len(status)} documents"
                f" proved optimal, {int(censored.sum())} censored at the limit{limit} ({int(zero.sum())} with bound"
                f" 0, {int(missing.sum())} without a solution), {part[f'{prefix}_seconds'].sum():.0f} s in all."
            )
    return notes


def jaccard(records: pd.DataFrame) -> pd.DataFrame:
    """Mean Jaccard coefficient between the candidates degree and hitting distance choose (paper: 0.3), over
    the documents both finished (an error has no choice to compare)."""
    rows = []
    for (dataset, connection), group in finished(records).groupby(["dataset", "connection"]):
        chosen = {
            algorithm: part.set_index("instance_id")["structure"]
            for algorithm, part in group.groupby("algorithm")
        }
        if "degree" not in chosen or "hitting-distance" not in chosen:
            continue
        both = chosen["degree"].index.intersection(chosen["hitting-distance"].index)
        values = []
        for instance_id in both:
            a = json.loads(chosen["degree"][instance_id])
            b = json.loads(chosen["hitting-distance"][instance_id])
            # a pair (set, position): two mentions choosing the same article are different choices
            sa, sb = set(enumerate(a)), set(enumerate(b))
            values.append(len(sa & sb) / len(sa | sb))
        mean, se = _mean_se(pd.Series(values))
        rows.append(
            {
                "dataset": dataset,
                "connection": CONNECTIONS[connection],
                "documents": len(values),
                "jaccard": mean,
                "jaccard_se": se,
                "paper": paper_value("linking.text.jaccard_degree_vs_hitting_distance"),
            }
        )
    return pd.DataFrame(rows)


def instances_table(instance_stats: Iterable[str | Path]) -> pd.DataFrame:
    """Instance statistics of each set beside the paper's (11.73 mentions, 95.9 candidates on average)."""
    setup = paper_value("linking.setup")
    rows = [
        {
            "set": "paper",
            "instances": setup["instances_used"],
            "mean_mentions": setup["mean_entities"],
            "max_mentions": setup["max_entities"],
            "mean_candidates": setup["mean_candidates"],
            "max_candidates": setup["max_candidates"],
        }
    ]
    for path in instance_stats:
        stats = read_json(path)
        flat = dict(stats.get("all", stats))
        flat.setdefault("instances", flat.get("docs_kept"))
        row = {"set": Path(path).parent.name}
        for key in (
            "instances",
            "mean_mentions",
            "max_mentions",
            "mean_candidates",
            "max_candidates",
            "gold_missing_share",
            "gold_rank_1_share",
            "links_found_share",
            "coverage",
            "mapped_share_linkable",
        ):
            value = flat.get(key)
            if isinstance(value, int | float):
                row[key] = value
        rows.append(row)
    return pd.DataFrame(rows)


CEILING = "top-c ceiling"
SWEEP_ORDER = [
    "hitting-distance",
    "greedy",
    "degree",
    "pagerank",
    "retrieval",
    "spanning-tree",
    EXACT,
    CEILING,
]


def gold_positions(shards: Mapping[str, Iterable[str]]) -> dict[tuple[str, str], np.ndarray]:
    """``(dataset, instance_id)`` -> the gold position of every mention (-1: target not retrieved)."""
    return {
        (dataset, instance_id): instance.gold
        for dataset, paths in shards.items()
        for path in paths
        for instance_id, _, instance in read_instance_shard(path)
    }


def sweep_frame(records: pd.DataFrame, golds: Mapping[tuple[str, str], np.ndarray]) -> pd.DataFrame:
    """One row per (dataset, document, algorithm, c) of the sweep's records, plus the ceiling's rows.

    Columns ``value`` (fair / k: the denominator counts every mention, as in Table 1), ``cost`` (the distance
    cost on the instance cut to its top ``c``, connected as the variant says), ``connection``, ``k`` and
    ``outside`` (mentions whose target is not among the top ``c``) and ``status``. The ceiling (algorithm
    ``top-c ceiling``, cost NaN) is the value of choosing the target wherever it is among the top ``c``.
    """
    parsed = records["variant"].map(parse_sweep_variant)
    if parsed.isna().any():
        raise ValueError(f"not sweep variants: {sorted(records.loc[parsed.isna(), 'variant'].unique())}")
    frame = pd.DataFrame(
        {
            "dataset": records["dataset"].to_numpy(),
            "instance_id": records["instance_id"].to_numpy(),
            "algorithm": [p[0] for p in parsed],
            "candidates": [p[1] for p in parsed],
            "connection": [p[2] for p in parsed],
            "value": (records["fair"] / records["k"]).to_numpy(),
            "cost": records["objective"].to_numpy(),
            "k": records["k"].to_numpy(),
            "status": records["status"].to_numpy(),
        }
    )
    keys = list(zip(frame["dataset"], frame["instance_id"], strict=True))
    if missing := sorted({key for key in keys if key not in golds}):
        raise ValueError(f"sweep records of documents not in the instance shards: {missing[:5]}")
    inside = np.array(
        [
            int(((golds[key] >= 0) & (golds[key] < c)).sum())
            for key, c in zip(keys, frame["candidates"], strict=True)
        ]
    )
    frame["outside"] = frame["k"].to_numpy() - inside
    ceiling = (
        frame.assign(value=inside / frame["k"].to_numpy(), cost=math.nan, algorithm=CEILING, status="")
        .drop_duplicates(["dataset", "instance_id", "candidates", "connection"])
        .reset_index(drop=True)
    )
    return pd.concat([frame, ceiling], ignore_index=True)


def sweep_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, connection, algorithm, c): value and cost (mean, standard error over documents), the
    documents, their errors and timeouts and the partial mark (:mod:`decoders.tables.coverage`), and the share
    of mentions whose target lies outside the top ``c``."""
    rows = []
    for (dataset, connection, algorithm, c), group in frame.groupby(
        ["dataset", "connection", "algorithm", "candidates"], sort=False
    ):
        value, value_se = _mean_se(group["value"])
        cost, cost_se = _mean_se(group["cost"])
        rows.append(
            {
                "dataset": dataset,
                "connection": CONNECTIONS.get(connection, connection),
                "algorithm": algorithm,
                "candidates": int(c),
                "value": value,
                "value_se": value_se,
                "cost": cost,
                "cost_se": cost_se,
                "documents": len(group),
                FAILED: failures_text(group) if algorithm != CEILING else "",
                "partial": partial(group) if algorithm != CEILING else "",
                "target_outside_share": float(group["outside"].sum() / group["k"].sum()),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    rank = {a: i for i, a in enumerate(SWEEP_ORDER)}
    table["_order"] = table["algorithm"].map(lambda a: rank.get(a, len(rank)))
    return (
        table.sort_values(["dataset", "connection", "_order", "candidates"])
        .drop(columns="_order")
        .reset_index(drop=True)
    )


def sweep_figure(table: pd.DataFrame, path: str | Path) -> None:
    """Value against the number of candidates kept (log x), one line per algorithm, one panel per dataset and
    connection; the ceiling dashed."""
    panels = list(table.groupby(["dataset", "connection"], sort=False))
    fig = Figure(figsize=(6 * len(panels), 4))
    axes = np.atleast_1d(fig.subplots(1, len(panels), squeeze=False).ravel())
    for ax, ((dataset, connection), group) in zip(axes, panels, strict=True):
        for algorithm, line in group.groupby("algorithm", sort=False):
            style = {"linestyle": "--", "color": "black"} if algorithm == CEILING else {"marker": "o"}
            ax.errorbar(
                line["candidates"],
                line["value"],
                yerr=line["value_se"].fillna(0),
                label=algorithm,
                capsize=2,
                **style,
            )
        ax.set_xscale("log")
        ticks = sorted(group["candidates"].unique())
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_xlabel("candidates kept per mention (top c of the BM25 ranking)")
        ax.set_ylabel("value (share of mentions linked to the target)")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{dataset}, {connection} connection")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    save_figure(fig, path)


OURS = {"numpy": "ours", "numpy+numba": "ours", "numba": "ours", "process": "ours"}


#: The operations timed with our kernels and with each peer on the same graph: the scaling table's ratios.
COMPARED = ("bfs", "pagerank")


def scaling_table(
    measurements: str | Path, noise_paths: Iterable[str | Path] = (), seed: int = 0
) -> pd.DataFrame:
    """The scaling measurements: one row per (graph, implementation), the operations as columns; on each peer's
    row, its seconds over ours for each of :data:`COMPARED` with their 95% intervals (:func:`peer_ratios`, from
    the noise jobs' retimings ``noise_paths``, seed ``seed``)."""
    frame = read_parquet(measurements)
    frame = frame.assign(library=frame["library"].map(lambda x: OURS.get(x, x)))
    keys = ["graph", "nodes", "edges", "library"]
    seconds = frame.dropna(subset=["seconds"]).pivot_table(
        index=keys, columns="operation", values="seconds", aggfunc="first"
    )
    nbytes = frame.dropna(subset=["bytes"]).pivot_table(
        index=keys, columns="operation", values="bytes", aggfunc="first"
    )
    seconds.columns = [f"{c}_s" for c in seconds.columns]
    nbytes.columns = [f"{'memory' if c == 'build' else c}_MB" for c in nbytes.columns]
    table = seconds.join(nbytes / 1e6, how="outer").reset_index()
    noise = [read_parquet(path) for path in noise_paths]
    ratios = peer_ratios(table, [_seconds_by_library(part) for part in noise], seed)
    if not ratios.empty:
        table = table.merge(ratios, on=["graph", "library"], how="left")
    return table.sort_values(["edges", "library"], ascending=[True, False]).reset_index(drop=True)


def _seconds_by_library(frame: pd.DataFrame) -> pd.DataFrame:
    """One noise process's measurements as the table's rows: ``<operation>_s`` per (graph, library)."""
    frame = frame.dropna(subset=["seconds"]).assign(library=frame["library"].map(lambda x: OURS.get(x, x)))
    wide = frame.pivot_table(
        index=["graph", "library"], columns="operation", values="seconds", aggfunc="first"
    )
    wide.columns = [f"{c}_s" for c in wide.columns]
    return wide.reset_index()


def peer_ratios(table: pd.DataFrame, processes: list[pd.DataFrame], seed: int) -> pd.DataFrame:
    """Per graph and peer (:data:`decoders.linking.scaling.PEERS`: networkx, igraph, networkit) that ran on it
    (its ``library`` row): ``<operation>_over_ours``, the peer's median seconds over ours on the same graph in the
    same job, and its 95% interval (``_lo``, ``_hi``). There is one graph and one measurement of each side, so
    the interval is the run-to-run noise alone: the ratio's spread between separate processes (each row of
    ``processes``, the scaling noise jobs, plus the run itself), drawn as s * t(k - 1) around the run's log
    ratio (:func:`decoders.tables.intervals.ratio_interval` over that one graph); NaN without at least one
    retiming."""
    rows = []
    for graph, rows_of in table.groupby("graph", sort=False):
        by = rows_of.set_index("library")
        if "ours" not in by.index:
            continue
        for peer in PEERS:
            if peer not in by.index:
                continue
            row: dict[str, Any] = {"graph": graph, "library": peer}
            for operation in COMPARED:
                column = f"{operation}_s"
                if column not in by:
                    continue
                theirs, ours = pd.Series([by.loc[peer, column]]), pd.Series([by.loc["ours", column]])
                logs = [process_log_ratio(theirs, ours)]
                for part in processes:
                    again = part[part["graph"] == graph].set_index("library")
                    if {peer, "ours"} <= set(again.index) and column in again:
                        logs.append(
                            process_log_ratio(
                                pd.Series([again.loc[peer, column]]), pd.Series([again.loc["ours", column]])
                            )
                        )
                found = ratio_interval(theirs, ours, logs if len(logs) > 1 else None, seed=seed)
                name = f"{operation}_over_ours"
                row[name] = found.estimate
                row[f"{name}_lo"] = found.low if len(logs) > 1 else np.nan
                row[f"{name}_hi"] = found.high if len(logs) > 1 else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def scaling_note(processes: int, seed: int) -> str:
    """How the scaling table's intervals were made, or that it has none."""
    if processes < 1:
        return "`*_lo`, `*_hi`: no interval: this run timed the comparison with the peers once (scaling.processes 0)."
    return (
        f"`*_lo`, `*_hi`: 95% interval of a peer's seconds over ours: the run's ratio times exp(s * t(k - 1)), "
        f"{BOOTSTRAP_SAMPLES} draws, where s is the standard deviation of the log ratio over k = {processes + 1} "
        f"separate processes ({processes} job(s) that rebuild the graph from the seed and time both again, plus the "
        f"run itself; seed {seed}); percentile interval. One graph: no instances to resample."
    )


def write_linking_outputs(
    run_paths: Iterable[str],
    settings: Mapping[str, Any],
    *,
    instance_stats: Iterable[str],
    shards: Mapping[str, Iterable[str]],
    scaling: str | Path,
    graph_stats: str | Path,
    tables: str | Path,
    sweep_paths: Iterable[str] = (),
    figures: str | Path | None = None,
    scaling_noise: Iterable[str] = (),
    seed: int = 0,
) -> None:
    """Every linking table; with ``sweep_paths`` (the sweep's gathered records) also the sweep's table and,
    into ``figures``, its figure ``sweep.png``; ``scaling_noise``: the scaling noise jobs' measurements, for the
    intervals of the scaling table's ratios (bootstrap seed ``seed``)."""
    tables = Path(tables)
    records = load_runs(run_paths)
    nel = records[records["dataset"].isin(list(shards))]
    frame = ratios(nel, ground_truth(shards))
    setup = paper_value("linking.setup")
    write_table(
        rounded(table1(frame)),
        tables / "table1",
        title="linking: Table 1",
        caption=caption("linking", "table1"),
        notes=[
            f"The paper's graph: Wikipedia 2013, {setup['graph_vertices']:,} vertices and"
            f" {setup['graph_edges']:,} edges.",
            cross_check_note(cross_check_counts(records, CERTIFIED), CERTIFIED),
        ],
    )
    exact = exact_table(records)
    write_table(
        rounded(exact),
        tables / "exact",
        title="linking: the exact solvers per document (CP-SAT and SCIP on the same model)",
        caption=caption("linking", "exact"),
        notes=exact_summary(exact, (settings.get("harness") or {}).get("time_limit")),
    )
    write_table(
        rounded(jaccard(nel)),
        tables / "jaccard",
        title="linking: Jaccard coefficient between degree's and hitting distance's choices",
        caption=caption("linking", "jaccard"),
    )
    write_table(
        rounded(instances_table(instance_stats)),
        tables / "instances",
        title="linking: instance sets",
        caption=caption("linking", "instances"),
    )
    built = read_json(graph_stats)
    synthetic = settings.get("synthetic") or {}
    scaling_noise = list(scaling_noise)
    scaling_frame = rounded(scaling_table(scaling, scaling_noise, seed))
    scaling_notes = [
        f"Largest graph: {built['nodes']:,} nodes, {built['edges']:,} edges, built in"
        f" {built['build_seconds']:.0f} s, arrays {built['graph_bytes'] / 1e6:.0f} MB, peak memory of"
        f" its build {built['peak_rss_bytes'] / 1e9:.2f} GB; its planted instances have"
        f" {synthetic.get('sets', 12)} sets x {synthetic.get('candidates', 100)} candidates. The paper's graph:"
        f" {setup['graph_vertices']:,} vertices, {setup['graph_edges']:,} edges.",
        scaling_note(len(scaling_noise), seed),
    ]
    if "memory_MB" in scaling_frame:
        scaling_notes.append("memory_MB: a peer's resident-memory growth while it builds its graph.")
    write_table(
        scaling_frame,
        tables / "scaling",
        title="linking: scaling on synthetic Wikipedia-shaped graphs (one thread)",
        caption=caption("linking", "scaling"),
        notes=scaling_notes,
    )
    sweep_paths = list(sweep_paths)
    if sweep_paths:
        sweep = sweep_table(sweep_frame(load_runs(sweep_paths), gold_positions(shards)))
        write_table(
            rounded(sweep),
            tables / "sweep",
            title="linking: value and distance cost against the number of candidates per mention",
            caption=caption("linking", "sweep"),
            notes=[f"The ceiling is the algorithm `{CEILING}` (no cost)."],
        )
        sweep_figure(sweep, Path(figures if figures is not None else tables) / "sweep.png")
