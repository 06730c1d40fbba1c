"""The linking sweep's generated variants, its per-document frame, table and figure (small synthetic records)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from decoders.errors import ConfigError
from decoders.linking.sweep import parse_sweep_variant, sweep_runs, sweep_variant_name, sweep_variants
from decoders.tables.linking import CEILING, scaling_table, sweep_figure, sweep_frame, sweep_table

LINKING = {
    "variants": {
        "hitting-distance-max": {"decoder": "hitting-distance", "params": {"connection": "maximal"}},
        "greedy-max": {"decoder": "greedy", "params": {"connection": "maximal", "seed": 13}},
    },
    "sweep": {"candidates": [3, 10], "variants": ["hitting-distance-max", "greedy-max"], "datasets": ["w"]},
}


def test_sweep_variants_copy_the_base_with_max_candidates() -> None:
    variants = sweep_variants(LINKING)
    assert list(variants) == [
        "hitting-distance-top3-max",
        "hitting-distance-top10-max",
        "greedy-top3-max",
        "greedy-top10-max",
    ]
    assert variants["greedy-top10-max"] == {
        "decoder": "greedy",
        "params": {"connection": "maximal", "seed": 13, "max_candidates": 10},
    }
    assert "max_candidates" not in LINKING["variants"]["greedy-max"]["params"]  # the base is untouched
    assert sweep_variants({"variants": LINKING["variants"]}) == {}
    with pytest.raises(ConfigError, match="'degree-max' is not one of"):
        sweep_variants({**LINKING, "sweep": {"candidates": [3], "variants": ["degree-max"], "datasets": []}})


def test_sweep_runs_lists_every_variant_on_every_dataset() -> None:
    runs = sweep_runs({**LINKING, "sweep": {**LINKING["sweep"], "datasets": ["w", "e"]}})
    assert len(runs) == 8 and runs[0] == "results/runs/linking/w/hitting-distance-top3-max.parquet"
    assert runs[-1] == "results/runs/linking/e/greedy-top10-max.parquet"
    assert sweep_runs({"variants": {}}) == []


def test_sweep_variant_names_round_trip() -> None:
    name = sweep_variant_name("hitting-distance-max", 25)
    assert name == "hitting-distance-top25-max"
    assert parse_sweep_variant(name) == ("hitting-distance", 25, "max")
    assert parse_sweep_variant("hitting-distance-max") is None
    assert parse_sweep_variant("spanning-tree-min") is None
    with pytest.raises(ConfigError, match="<algorithm>-<connection>"):
        sweep_variant_name("retrieval", 3)


def records(rows: list[tuple[str, str, int, int, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["variant", "instance_id", "fair", "k", "objective"]).assign(
        dataset="w", status="feasible"
    )


# gold positions: doc a has targets at ranks 0, 4 and one missing; doc b at ranks 0 and 2
GOLDS = {("w", "a"): np.array([0, 4, -1]), ("w", "b"): np.array([0, 2])}


def test_sweep_frame_and_table() -> None:
    runs = records(
        [
            ("retrieval-top3-max", "a", 1, 3, 4.0),
            ("retrieval-top3-max", "b", 1, 2, 2.0),
            ("retrieval-top10-max", "a", 1, 3, 5.0),
            ("retrieval-top10-max", "b", 1, 2, 3.0),
            ("hitting-distance-top3-max", "a", 1, 3, 2.0),
            ("hitting-distance-top3-max", "b", 2, 2, 1.0),
        ]
    )
    frame = sweep_frame(runs, GOLDS)
    mine = frame[frame["algorithm"] != CEILING].set_index(["algorithm", "candidates", "instance_id"])
    # top 3: doc a keeps only its rank-0 target (rank 4 cut, one never retrieved); doc b keeps both
    assert mine.loc[("retrieval", 3, "a"), "outside"] == 2 and mine.loc[("retrieval", 3, "b"), "outside"] == 0
    assert mine.loc[("retrieval", 10, "a"), "outside"] == 1
    assert mine.loc[("hitting-distance", 3, "b"), "value"] == 1.0
    ceiling = frame[frame["algorithm"] == CEILING].set_index(["candidates", "instance_id"])
    assert len(ceiling) == 4 and ceiling["cost"].isna().all()
    assert ceiling.loc[(3, "a"), "value"] == pytest.approx(1 / 3) and ceiling.loc[(10, "a"), "value"] == 2 / 3

    table = sweep_table(frame)
    assert table["algorithm"].tolist() == ["hitting-distance", "retrieval", "retrieval", CEILING, CEILING]
    assert table["candidates"].tolist() == [3, 3, 10, 3, 10]
    retrieval3 = table.iloc[1]
    assert retrieval3["value"] == pytest.approx((1 / 3 + 1 / 2) / 2) and retrieval3["documents"] == 2
    assert retrieval3["value_se"] == pytest.approx(np.std([1 / 3, 1 / 2], ddof=1) / np.sqrt(2))
    assert retrieval3["cost"] == 3.0 and retrieval3["connection"] == "maximal"
    assert retrieval3["target_outside_share"] == pytest.approx(2 / 5)
    assert table.iloc[2]["target_outside_share"] == pytest.approx(1 / 5)
    assert table.iloc[3]["value"] == pytest.approx((1 / 3 + 1) / 2)


def test_sweep_frame_rejects_foreign_records() -> None:
    with pytest.raises(ValueError, match="not sweep variants"):
        sweep_frame(records([("retrieval-max", "a", 1, 3, 4.0)]), GOLDS)
    with pytest.raises(ValueError, match="not in the instance shards"):
        sweep_frame(records([("retrieval-top3-max", "z", 1, 3, 4.0)]), GOLDS)


def test_sweep_figure_is_written(tmp_path) -> None:
    runs = records(
        [(f"{a}-top{c}-max", d, 1, 2, 1.0) for a in ("greedy", "retrieval") for c in (3, 10) for d in "b"]
    )
    path = tmp_path / "figures" / "sweep.png"
    path.parent.mkdir()
    sweep_figure(sweep_table(sweep_frame(runs, GOLDS)), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def _scaling(path, bfs: tuple[float, float], pagerank: tuple[float, float], process: int | None = None):
    """Scaling rows of one graph (ours: numba kernels; networkx), BFS and PageRank seconds of each."""
    rows = [
        ("g", 10, 20, "bfs", "numba", bfs[0], None),
        ("g", 10, 20, "pagerank", "numba", pagerank[0], None),
        ("g", 10, 20, "graph_arrays", "numpy", None, 240.0),
        ("g", 10, 20, "build", "networkx", 0.5, 1e6),
        ("g", 10, 20, "bfs", "networkx", bfs[1], None),
        ("g", 10, 20, "pagerank", "networkx", pagerank[1], None),
        ("big", 100, 200, "bfs", "numba", 1.0, None),
    ]
    frame = pd.DataFrame(
        rows, columns=["graph", "nodes", "edges", "operation", "library", "seconds", "bytes"]
    )
    if process is not None:
        frame = frame.assign(process=process)
    frame.to_parquet(path)
    return path


def test_scaling_ratios_of_networkx_to_ours_with_their_run_to_run_interval(tmp_path) -> None:
    run = _scaling(tmp_path / "run.parquet", bfs=(0.01, 0.5), pagerank=(0.1, 4.0))
    alone = scaling_table(run).set_index(["graph", "library"])
    networkx = alone.loc[("g", "networkx")]
    assert networkx["bfs_over_ours"] == pytest.approx(50.0)
    assert networkx["pagerank_over_ours"] == pytest.approx(40.0)
    assert math.isnan(networkx["bfs_over_ours_lo"])  # timed once: no interval
    assert math.isnan(alone.loc[("g", "ours"), "bfs_over_ours"])  # on networkx's row only
    assert math.isnan(alone.loc[("big", "ours"), "bfs_over_ours"])  # a graph networkx did not run on
    # two retimings: BFS 40x and 62.5x, PageRank 40x as in the run (no spread)
    noise = [
        _scaling(tmp_path / "p1.parquet", bfs=(0.01, 0.4), pagerank=(0.1, 4.0), process=1),
        _scaling(tmp_path / "p2.parquet", bfs=(0.008, 0.5), pagerank=(0.2, 8.0), process=2),
    ]
    table = scaling_table(run, noise, seed=3).set_index(["graph", "library"])
    networkx = table.loc[("g", "networkx")]
    assert networkx["pagerank_over_ours_lo"] == pytest.approx(40.0)
    assert networkx["pagerank_over_ours_hi"] == pytest.approx(40.0)
    # independently: the run's log ratio plus s * t(2) quantiles, s over the three processes' log ratios
    logs = np.log([50.0, 40.0, 62.5])
    spread = stats.t.ppf(0.975, 2) * logs.std(ddof=1)
    low, high = networkx["bfs_over_ours_lo"], networkx["bfs_over_ours_hi"]
    assert low == pytest.approx(50.0 * math.exp(-spread), rel=0.1)
    assert high == pytest.approx(50.0 * math.exp(spread), rel=0.1)


def test_scaling_ratios_of_every_peer(tmp_path) -> None:
    run = _scaling(tmp_path / "run.parquet", bfs=(0.01, 0.5), pagerank=(0.1, 4.0))
    frame = pd.read_parquet(run)
    igraph = frame[frame["library"] == "networkx"].assign(library="igraph")
    igraph["seconds"] = igraph["seconds"] / 10  # igraph ten times faster than networkx
    pd.concat([frame, igraph]).to_parquet(run)
    table = scaling_table(run).set_index(["graph", "library"])
    assert table.loc[("g", "igraph"), "bfs_over_ours"] == pytest.approx(5.0)
    assert table.loc[("g", "igraph"), "pagerank_over_ours"] == pytest.approx(4.0)
    assert table.loc[("g", "networkx"), "bfs_over_ours"] == pytest.approx(50.0)


def test_exact_table_sets_the_solvers_side_by_side() -> None:
    from decoders.tables.linking import exact_summary, exact_table

    rows = [
        ("exact", "max", "a", "optimal", 7.0, 7.0, 1.5),
        ("exact-scip", "max", "a", "optimal", 7.0, 7.0, 0.5),
        ("exact", "max", "b", "timeout", 20.0, 10.0, 30.0),
        ("exact-scip", "max", "b", "timeout", float("nan"), 0.0, 30.0),
        ("greedy", "max", "b", "feasible", 25.0, float("nan"), 0.1),
    ]
    records = pd.DataFrame(
        rows, columns=["algorithm", "connection", "instance_id", "status", "objective", "bound", "seconds"]
    ).assign(dataset="elevant", k=3)
    table = exact_table(records).set_index("instance_id")
    assert list(table.index) == ["a", "b"] and set(table["connection"]) == {"maximal"}
    assert table.loc["a", "cpsat_gap"] == 0.0 and table.loc["a", "scip_seconds"] == 0.5
    assert table.loc["b", "cpsat_gap"] == pytest.approx(0.5) and math.isnan(table.loc["b", "scip_gap"])
    notes = exact_summary(table.reset_index(), 30)
    assert "cpsat, maximal connection: 1 of 2 documents proved optimal, 1 censored" in notes[0]
    assert "scip, maximal connection: 1 of 2 documents proved optimal, 1 censored" in notes[1]
    assert "(1 with bound 0, 1 without a solution)" in notes[1]
