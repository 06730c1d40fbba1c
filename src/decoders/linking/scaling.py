"""Measurements for the linking scaling table: graph size, build cost, BFS, hitting distance and PageRank.

Blanco et al. run on a 3.7M-vertex, 36M-edge Wikipedia graph. These functions time the operations every
linking decoder relies on, on synthetic graphs of growing size built by :func:`~decoders.linking.synthetic.
synthetic_graph` (up to that size), with the package's numba kernels, and the same BFS and PageRank with
networkx on the largest graph it holds comfortably (networkx needs ~330 bytes per edge). Each measurement is
one tidy row ``graph, nodes, edges, operation, library, seconds, bytes`` (``bytes`` = array sizes for the
CSR graph, resident-memory growth for networkx, the process's peak RSS for ``peak_rss``; None if not
measured). Timings are medians over ``repeats`` runs after a warm-up call that compiles the numba kernels.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from decoders.checks import check_int, check_text
from decoders.corpora.wikispeedia import Graph
from decoders.linking.checks import check_graph, check_vertex, integer_array
from decoders.linking.connection import _connect
from decoders.linking.distances import _bfs_distances, _multi_source_bfs
from decoders.linking.heuristics import _hitting_distance_positions
from decoders.linking.instance import LinkingInstance, check_instance
from decoders.linking.pagerank import _pagerank
from decoders.linking.synthetic import plant_instances, synthetic_graph

__all__ = [
    "ROW_COLUMNS",
    "graph_rows",
    "hitting_distance_choice",
    "networkx_rows",
    "peak_rss_bytes",
    "scaling_table",
]

ROW_COLUMNS = ["graph", "nodes", "edges", "operation", "library", "seconds", "bytes"]


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far (``ru_maxrss`` is in KiB on Linux)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _current_rss_bytes() -> int | None:
    """Resident set size now (Linux ``/proc/self/statm``), or None where that file does not exist."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _median_seconds(call: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _row(name: str, graph_size: tuple[int, int], operation: str, library: str, seconds, nbytes) -> dict:
    return dict(zip(ROW_COLUMNS, (name, *graph_size, operation, library, seconds, nbytes), strict=True))


def hitting_distance_choice(graph: Graph, instance: LinkingInstance) -> np.ndarray:
    """The hitting-distance decoder's choice (paper, section 5) on an in-memory graph: maximal connection of
    the sets, one multi-source BFS per set, each set's candidate with the least average hitting distance to
    the others (:func:`decoders.linking.heuristics.hitting_distance_positions`, as the registered decoder
    does). Returns positions within the sets; the operation timed as ``hitting_distance``. The instance's sets
    must be vertices of ``graph`` (which need not be saved: the scaling table's graphs are not)."""
    graph = check_graph(graph)
    return _hitting_distance_choice(graph, check_instance(instance, graph.n_nodes))


def _hitting_distance_choice(graph: Graph, instance: LinkingInstance) -> np.ndarray:
    """:func:`hitting_distance_choice` on a checked graph and instance (the timed operation)."""
    overlay = _connect(graph, instance.sets, "maximal")
    return _hitting_distance_positions(graph.indptr, graph.indices, overlay, instance.sets)


def graph_rows(
    name: str, graph: Graph, instances: Sequence[LinkingInstance], *, source: int = 0, repeats: int = 3
) -> list[dict[str, Any]]:
    """BFS from ``source``, hitting distance (median seconds per instance) and PageRank on the CSR graph,
    plus the graph's array size. The kernels are compiled on a two-vertex graph before the clock starts. The
    arguments are checked once, before (``instances``' sets must be vertices of ``graph``, ``source`` one of
    them, ``repeats`` >= 1); the clock times the kernels alone."""
    name = check_text(name, "name")
    graph = check_graph(graph)
    if isinstance(instances, str | bytes | LinkingInstance) or not isinstance(instances, Iterable):
        raise ValueError(f"instances must be a sequence of LinkingInstance, got {type(instances).__name__}")
    instances = [check_instance(inst, graph.n_nodes, f"instances[{i}]") for i, inst in enumerate(instances)]
    source = check_vertex(source, "source", graph.n_nodes)
    repeats = check_int(repeats, "repeats", minimum=1)
    tiny = np.array([0, 1, 2], dtype=np.int64), np.array([1, 0], dtype=np.int32)
    _bfs_distances(*tiny, 0)
    _multi_source_bfs(*tiny, np.array([0], dtype=np.int32))
    _pagerank(*tiny)
    size = (graph.n_nodes, graph.n_edges)
    nbytes = graph.indptr.nbytes + graph.indices.nbytes + graph.original_node.nbytes
    rows = [_row(name, size, "graph_arrays", "numpy", None, nbytes)]
    seconds = _median_seconds(lambda: _bfs_distances(graph.indptr, graph.indices, source), repeats)
    rows.append(_row(name, size, "bfs", "numba", seconds, None))
    if instances:
        per_instance = [_median_seconds(lambda i=i: _hitting_distance_choice(graph, i), 1) for i in instances]
        rows.append(_row(name, size, "hitting_distance", "numba", float(np.median(per_instance)), None))
    seconds = _median_seconds(lambda: _pagerank(graph.indptr, graph.indices), repeats)
    rows.append(_row(name, size, "pagerank", "numba", seconds, None))
    return rows


def networkx_rows(name: str, graph: Graph, *, source: int = 0, repeats: int = 3) -> list[dict[str, Any]]:
    """The same graph as a ``networkx.Graph``: build time and resident-memory growth, BFS
    (``single_source_shortest_path_length``) and ``pagerank`` (its scipy power iteration)."""
    name = check_text(name, "name")
    graph = check_graph(graph)
    source = check_vertex(source, "source", graph.n_nodes)
    repeats = check_int(repeats, "repeats", minimum=1)
    size = (graph.n_nodes, graph.n_edges)
    rows_of = np.repeat(np.arange(graph.n_nodes, dtype=np.int64), graph.degrees())
    upper = rows_of < graph.indices
    edges = np.column_stack([rows_of[upper], graph.indices[upper]])
    del rows_of, upper
    before = _current_rss_bytes()
    start = time.perf_counter()
    nx_graph = nx.Graph()
    nx_graph.add_nodes_from(range(graph.n_nodes))
    nx_graph.add_edges_from(edges.tolist())
    seconds = time.perf_counter() - start
    after = _current_rss_bytes()
    grown = after - before if before is not None and after is not None else None
    rows = [_row(name, size, "build", "networkx", seconds, grown)]
    seconds = _median_seconds(lambda: nx.single_source_shortest_path_length(nx_graph, source), repeats)
    rows.append(_row(name, size, "bfs", "networkx", seconds, None))
    seconds = _median_seconds(lambda: nx.pagerank(nx_graph, alpha=0.85, tol=1e-10, max_iter=200), repeats)
    rows.append(_row(name, size, "pagerank", "networkx", seconds, None))
    return rows


def _networkx_size(sizes: Sequence[tuple[int, int]], networkx_max_edges: int) -> tuple[int, int] | None:
    """The largest ``(nodes, edges)`` of ``sizes`` with at most ``networkx_max_edges`` edges (None: none)."""
    small = [size for size in sizes if size[1] <= networkx_max_edges]
    return max(small, key=lambda size: size[1]) if small else None


def scaling_table(
    degrees: np.ndarray,
    sizes: Sequence[tuple[int, int]],
    *,
    networkx_max_edges: int = 1_000_000,
    n_instances: int = 10,
    seed: int = 0,
    repeats: int = 3,
) -> pd.DataFrame:
    """Build a synthetic graph for each ``(nodes, edges)`` in ``sizes`` (Wikispeedia-shaped ``degrees``), time
    its construction and the operations of :func:`graph_rows` on ``n_instances`` planted instances, and add
    :func:`networkx_rows` for the largest size with at most ``networkx_max_edges`` edges. Rows also record
    ``peak_rss`` after each build (the process's peak so far, so sizes should be given in increasing order).
    ``degrees`` and ``sizes`` are checked as :func:`~decoders.linking.synthetic.synthetic_graph` checks them,
    the counts as integers (``n_instances`` and ``repeats`` >= 1, the others >= 0), before any graph is built.
    """
    degrees = integer_array(degrees, "degrees")
    if isinstance(sizes, str | bytes) or not hasattr(sizes, "__iter__"):
        raise ValueError(f"sizes must be a sequence of (nodes, edges) pairs, got {sizes!r}")
    sizes = list(sizes)
    for i, size in enumerate(sizes):
        if isinstance(size, str | bytes) or not hasattr(size, "__len__") or len(size) != 2:
            raise ValueError(f"sizes[{i}] must be a (nodes, edges) pair, got {size!r}")
        check_int(size[0], f"sizes[{i}][0] (nodes)", minimum=2)
        check_int(size[1], f"sizes[{i}][1] (edges)", minimum=1)
    sizes = [(int(a), int(b)) for a, b in sizes]
    networkx_max_edges = check_int(networkx_max_edges, "networkx_max_edges", minimum=0)
    n_instances = check_int(n_instances, "n_instances", minimum=1)
    seed = check_int(seed, "seed", minimum=0)
    repeats = check_int(repeats, "repeats", minimum=1)
    frames: list[dict[str, Any]] = []
    networkx_size = _networkx_size(sizes, networkx_max_edges)
    for n_nodes, n_edges in sizes:
        name = f"synthetic-{n_nodes}-{n_edges}"
        start = time.perf_counter()
        graph = synthetic_graph(n_nodes, n_edges, degrees=degrees, seed=seed)
        seconds = time.perf_counter() - start
        size = (graph.n_nodes, graph.n_edges)
        frames.append(_row(name, size, "build", "numpy+numba", seconds, None))
        frames.append(_row(name, size, "peak_rss", "process", None, peak_rss_bytes()))
        instances = [inst for _, _, inst in plant_instances(graph, name, n_instances, seed=seed)]
        frames.extend(graph_rows(name, graph, instances, repeats=repeats))
        if (n_nodes, n_edges) == networkx_size:
            frames.extend(networkx_rows(name, graph, repeats=repeats))
        del graph, instances
    return pd.DataFrame(frames, columns=ROW_COLUMNS)
