"""What the linking experiment's workflow jobs do (workflow/rules/linking.smk calls these through thin scripts).

prepared Wikispeedia graph + articles -> BM25 index -> NEL instance sets (Wikispeedia hyperlinks, ELEVANT);
Wikispeedia's degrees -> a synthetic Wikipedia-size graph -> planted instances and the scaling measurements.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import checked
from decoders.corpora.wikispeedia import Graph, read_links
from decoders.errors import ConfigError
from decoders.harness.instances import read_instance_shard, write_instance_shards
from decoders.harness.provenance import collect_provenance, write_provenance
from decoders.io import read_json, read_parquet, write_json_atomic, write_parquet_atomic
from decoders.linking.checks import INT32_MAX, check_span
from decoders.linking.elevant_sets import elevant_instances
from decoders.linking.nel import wikispeedia_instances
from decoders.linking.retrieval import ArticleIndex, build_index
from decoders.linking.scaling import (
    PEERS,
    _networkx_size,
    graph_rows,
    peak_rss_bytes,
    peer_rows,
    peer_version,
    scaling_table,
)
from decoders.linking.synthetic import plant_instances, synthetic_graph

log = logging.getLogger(__name__)


def article_index(articles: pd.DataFrame) -> ArticleIndex:
    """BM25 over the title and plaintext of every article in the graph (``vertex`` set: a vertex id, integral
    and >= 0, or missing for an article outside the graph)."""
    if not isinstance(articles, pd.DataFrame):
        raise ValueError(f"articles must be a pandas DataFrame, got {type(articles).__name__}")
    if missing := {"vertex", "title", "text"} - set(articles.columns):
        raise ValueError(f"articles lack columns {sorted(missing)}")
    inside = articles[articles["vertex"].notna()]
    try:
        vertices = inside["vertex"].astype("Int64").to_numpy(dtype=np.int64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"articles['vertex'] must hold vertex ids (integers) or missing values: {exc}"
        ) from None
    check_span(vertices, "articles['vertex']", 0, INT32_MAX)
    return build_index(inside["title"].tolist(), inside["text"].tolist(), vertices)


def _write_set(
    instances, shard_paths: Sequence[str], index_path, stats_path, stats: Mapping[str, Any]
) -> None:
    if not instances:
        raise ValueError(f"no instances for {index_path}: every document was filtered out")
    write_instance_shards(instances, shard_paths, index_path)
    write_json_atomic(stats_path, dict(stats))


@checked(
    articles_path="path",
    graph_path="path",
    links_path="path",
    shard_paths="paths",
    index_path="path",
    stats_path="path",
    options="mapping",
    seed="count",
)
def build_wikispeedia_set(
    articles_path, graph_path: str, links_path, shard_paths, index_path, stats_path, *, options, seed: int
) -> None:
    """NEL instances from the articles' own hyperlinks (see :func:`decoders.linking.nel.wikispeedia_instances`)."""
    articles = read_parquet(articles_path)
    graph = Graph.load(graph_path)
    links = read_links(links_path, articles)
    started = time.perf_counter()
    index = article_index(articles)
    log.info("BM25 index of %d articles in %.1f s", graph.n_nodes, time.perf_counter() - started)
    instances, stats = wikispeedia_instances(
        articles,
        links,
        graph,
        str(graph_path),
        index=index,
        n_documents=options.get("documents", 400),
        candidates=options.get("candidates", 100),
        seed=seed,
        disjoint=options.get("disjoint", True),
        pool=options.get("pool"),
    )
    _write_set(instances, shard_paths, index_path, stats_path, stats)
    log.info("%d Wikispeedia instances", len(instances))


@checked(
    documents_path="path",
    mentions_path="path",
    articles_path="path",
    graph_path="path",
    shard_paths="paths",
    index_path="path",
    stats_path="path",
    options="mapping",
)
def build_document_set(
    documents_path,
    mentions_path,
    articles_path,
    graph_path: str,
    shard_paths,
    index_path,
    stats_path,
    *,
    options,
) -> None:
    """Instances of a benchmark's documents (ELEVANT's, IITB's, ...) with >= 2 mentions mapped to Wikispeedia
    articles."""
    articles = read_parquet(articles_path)
    graph = Graph.load(graph_path)
    mentions = read_parquet(mentions_path)
    if (
        "repeat" in mentions
    ):  # an entity-fishing span annotated again: one mention (the first carries the gold)
        mentions = mentions[~mentions["repeat"]].reset_index(drop=True)
    instances, stats = elevant_instances(
        read_parquet(documents_path),
        mentions,
        graph,
        str(graph_path),
        index=article_index(articles),
        candidates=options.get("candidates", 100),
        disjoint=options.get("disjoint", True),
        pool=options.get("pool"),
    )
    _write_set(instances, shard_paths, index_path, stats_path, stats)
    log.info("%d instances of benchmark documents", len(instances))


@checked(degrees_graph="path", graph_out="path", stats_out="path", options="mapping", seed="count")
def build_synthetic_graph(
    degrees_graph, graph_out, stats_out, *, options: Mapping[str, Any], seed: int
) -> None:
    """The Wikipedia-size graph, with its build time, peak memory and array size."""
    missing = [key for key in ("nodes", "edges") if key not in options]
    if missing:
        raise ConfigError(
            f"the synthetic graph's options need {' and '.join(missing)}; got {sorted(options)}"
        )
    degrees = Graph.load(degrees_graph).degrees()
    started = time.perf_counter()
    graph = synthetic_graph(options["nodes"], options["edges"], degrees=degrees, seed=seed)
    seconds = time.perf_counter() - started
    graph.save(graph_out)
    stats = {
        "nodes": graph.n_nodes,
        "edges": graph.n_edges,
        "build_seconds": seconds,
        "peak_rss_bytes": peak_rss_bytes(),
        "graph_bytes": int(graph.indptr.nbytes + graph.indices.nbytes + graph.original_node.nbytes),
        "degree": {
            "mean": float(graph.degrees().mean()),
            "median": float(np.median(graph.degrees())),
            "max": int(graph.degrees().max()),
        },
        "seed": seed,
    }
    write_json_atomic(stats_out, stats)
    log.info("synthetic graph %s", stats)


@checked(
    graph_path="path",
    shard_paths="paths",
    index_path="path",
    stats_path="path",
    options="mapping",
    seed="count",
)
def build_synthetic_set(graph_path: str, shard_paths, index_path, stats_path, *, options, seed: int) -> None:
    """Instances planted on the synthetic graph: a tight cluster of fair candidates among random ones."""
    graph = Graph.load(graph_path)
    instances = plant_instances(
        graph,
        str(graph_path),
        options.get("instances", 10),
        sets=options.get("sets", 12),
        candidates=options.get("candidates", 100),
        seed=seed,
    )
    stats = {
        "instances": len(instances),
        "sets": options.get("sets", 12),
        "candidates": options.get("candidates", 100),
    }
    _write_set(instances, shard_paths, index_path, stats_path, stats)


@checked(
    graph_path="path",
    graph_stats="path",
    shard_paths="paths",
    degrees_graph="path",
    output="path",
    provenance="path",
    options="mapping",
    seed="count",
    config="mapping",
)
def scaling(
    graph_path: str,
    graph_stats: str,
    shard_paths: Sequence[str],
    degrees_graph,
    output,
    provenance,
    *,
    options: Mapping[str, Any],
    seed: int,
    config: Mapping[str, Any],
) -> pd.DataFrame:
    """The scaling table: smaller synthetic graphs built and timed here (networkx, igraph and networkit on the
    largest one networkx can hold), then BFS, hitting distance and PageRank on the Wikipedia-size graph built by
    its own job. One thread (the kernels are serial; networkit's set to one); the provenance JSON records the
    machine, the settings and the peers' versions."""
    degrees = Graph.load(degrees_graph).degrees()
    sizes = [tuple(size) for size in options.get("sizes", [])]
    table = scaling_table(
        degrees,
        sizes,
        networkx_max_edges=options.get("networkx_max_edges", 1_000_000),
        seed=seed,
        repeats=options.get("repeats", 3),
    )
    graph = Graph.load(graph_path)
    instances = [inst for path in shard_paths for _, _, inst in read_instance_shard(path)]
    built = read_json(graph_stats)
    name = f"synthetic-{graph.n_nodes}-{graph.n_edges}"
    size = {"graph": name, "nodes": graph.n_nodes, "edges": graph.n_edges}
    rows = [
        {
            **size,
            "operation": "build",
            "library": "numpy+numba",
            "seconds": built["build_seconds"],
            "bytes": None,
        },
        {
            **size,
            "operation": "peak_rss",
            "library": "process",
            "seconds": None,
            "bytes": built["peak_rss_bytes"],
        },
        *graph_rows(name, graph, instances, repeats=options.get("repeats", 3)),
    ]
    table = pd.concat([table, pd.DataFrame(rows)], ignore_index=True)
    write_parquet_atomic(output, table)
    write_provenance(
        provenance,
        collect_provenance(
            seed=seed, config=dict(config), extra={"scaling": dict(options), "peers": _peer_versions()}
        ),
    )
    log.info("scaling:\n%s", table.to_string())
    return table


def _peer_versions() -> dict[str, str]:
    """The scaling table's peers and their versions (also under the provenance's ``packages``)."""
    return {library: peer_version(library) for library in PEERS}


@checked(
    degrees_graph="path",
    output="path",
    provenance="path",
    options="mapping",
    process="count",
    seed="count",
    config="mapping",
)
def scaling_noise(
    degrees_graph,
    output,
    provenance,
    *,
    options: Mapping[str, Any],
    process: int,
    seed: int,
    config: Mapping[str, Any],
) -> pd.DataFrame:
    """The scaling table's comparison with its peers (networkx, igraph, networkit) timed again, for the
    ``process``-th of ``scaling.processes`` jobs of its own: the largest graph of ``scaling.sizes`` that networkx holds, built
    again from the same seed, BFS and PageRank with our kernels and with each peer (``scaling.repeats`` each, as
    the scaling job times them). The spread of a peer's seconds over ours between these processes is the
    run-to-run noise of that ratio's interval (decoders.tables.linking.scaling_table). Writes the rows with a
    ``process`` column, and a provenance JSON."""
    sizes = [tuple(size) for size in options.get("sizes", [])]
    size = _networkx_size(sizes, options.get("networkx_max_edges", 1_000_000))
    if size is None:
        raise ConfigError(
            "experiments.linking.scaling: no size has at most networkx_max_edges edges; nothing to time again"
        )
    repeats = options.get("repeats", 3)
    graph = synthetic_graph(*size, degrees=Graph.load(degrees_graph).degrees(), seed=seed)
    name = f"synthetic-{size[0]}-{size[1]}"
    rows = graph_rows(name, graph, [], repeats=repeats)
    for library in PEERS:
        rows += peer_rows(library, name, graph, repeats=repeats)
    frame = pd.DataFrame(rows).assign(process=process)
    write_parquet_atomic(output, frame)
    write_provenance(
        provenance,
        collect_provenance(
            seed=seed,
            config=dict(config),
            extra={"scaling": dict(options), "process": process, "peers": _peer_versions()},
        ),
    )
    log.info("scaling noise process %d:\n%s", process, frame.to_string())
    return frame
