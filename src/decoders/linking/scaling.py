"""Measurements for the linking scaling table: graph size, build cost, BFS, hitting distance and PageRank.

Blanco et al. run on a 3.7M-vertex, 36M-edge Wikipedia graph. These functions time the operations every
linking decoder relies on, on synthetic graphs of growing size built by :func:`~decoders.linking.synthetic.
synthetic_graph` (up to that size), with the package's numba kernels, and the same BFS and PageRank with
networkx, igraph and networkit (the peers, :data:`PEERS`) on the largest graph networkx holds comfortably
(networkx needs ~330 bytes per edge): the same graph, the same BFS source, one thread (networkit's thread count
is set to 1; igraph and networkx are serial). Every peer's BFS distances are checked equal to ours and its
PageRank within :func:`_pagerank_l1_bound` of ours (L1) before its timings are kept (RuntimeError otherwise).
Each measurement is one tidy row ``graph, nodes, edges, operation, library, seconds, bytes`` (``bytes`` = array sizes for the
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
    "PEERS",
    "networkx_rows",
    "peak_rss_bytes",
    "peer_rows",
    "scaling_table",
]

ROW_COLUMNS = ["graph", "nodes", "edges", "operation", "library", "seconds", "bytes"]

#: The libraries a user would pick instead of ours, timed on the same graph (:func:`peer_rows`)
PEERS = ("networkx", "igraph", "networkit")
#: PageRank settings every implementation runs with (ours: L1 change below ``n * tol``, as networkx)
DAMPING, PAGERANK_TOL, PAGERANK_MAX_ITER = 0.85, 1e-10, 200


def _pagerank_l1_bound(n_nodes: int) -> float:
    """How far (L1) a peer's PageRank vector may lie from ours on an ``n_nodes`` graph: power iteration stopped at
    an L1 change below ``n * tol`` lies within ``damping / (1 - damping)`` times that change of the fixed point,
    and each of the two vectors may be that far off (igraph's PRPACK solves directly: its error is far smaller);
    plus float64 rounding over n terms."""
    return 2.0 * DAMPING / (1.0 - DAMPING) * n_nodes * PAGERANK_TOL + n_nodes * 1e-15


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


def _edge_list(graph: Graph) -> np.ndarray:
    """Every undirected edge once, ``u < v``, as an (m, 2) int64 array."""
    rows_of = np.repeat(np.arange(graph.n_nodes, dtype=np.int64), graph.degrees())
    upper = rows_of < graph.indices
    return np.column_stack([rows_of[upper], graph.indices[upper].astype(np.int64)])


def _networkx(graph: Graph, edges: np.ndarray, source: int):
    nx_graph = nx.Graph()
    nx_graph.add_nodes_from(range(graph.n_nodes))
    nx_graph.add_edges_from(edges.tolist())

    def distances():
        found = nx.single_source_shortest_path_length(nx_graph, source)
        out = np.full(graph.n_nodes, -1, dtype=np.int64)
        out[np.fromiter(found.keys(), np.int64, len(found))] = np.fromiter(
            found.values(), np.int64, len(found)
        )
        return out

    def rank():
        found = nx.pagerank(nx_graph, alpha=DAMPING, tol=PAGERANK_TOL, max_iter=PAGERANK_MAX_ITER)
        return np.array([found[v] for v in range(graph.n_nodes)])

    return (
        lambda: nx.single_source_shortest_path_length(nx_graph, source),
        lambda: nx.pagerank(nx_graph, alpha=DAMPING, tol=PAGERANK_TOL, max_iter=PAGERANK_MAX_ITER),
        distances,
        rank,
    )


def _igraph(graph: Graph, edges: np.ndarray, source: int):
    import igraph as ig

    ig_graph = ig.Graph(n=graph.n_nodes, edges=edges, directed=False)

    def distances():
        found = np.asarray(ig_graph.distances(source=source)[0], dtype=np.float64)
        return np.where(np.isfinite(found), found, -1).astype(np.int64)

    return (
        lambda: ig_graph.distances(source=source),
        lambda: ig_graph.pagerank(damping=DAMPING, implementation="prpack"),
        distances,
        lambda: np.asarray(ig_graph.pagerank(damping=DAMPING, implementation="prpack")),
    )


def _networkit(graph: Graph, edges: np.ndarray, source: int):
    import networkit as nk

    nk.setNumberOfThreads(1)
    nk_graph = nk.Graph(graph.n_nodes)
    nk_graph.addEdges((edges[:, 0].astype(np.uint64), edges[:, 1].astype(np.uint64)))

    def bfs():
        search = nk.distance.BFS(nk_graph, source, storePaths=False)
        search.run()
        return search

    def pagerank():
        # stop when the L1 change falls below n * tol (ours and networkx's rule); no vertex of the synthetic
        # graphs is isolated, and on an isolated vertex networkit's sink handling differs from ours
        search = nk.centrality.PageRank(
            nk_graph,
            damp=DAMPING,
            tol=graph.n_nodes * PAGERANK_TOL,
            distributeSinks=nk.centrality.SinkHandling.DistributeSinks,
        )
        search.norm = nk.centrality.Norm.L1_NORM
        search.maxIterations = PAGERANK_MAX_ITER
        search.run()
        return search

    def distances():
        found = np.asarray(bfs().getDistances(), dtype=np.float64)
        return np.where(found < 1e300, found, -1).astype(np.int64)

    return bfs, pagerank, distances, lambda: np.asarray(pagerank().scores())


_BUILDERS = {"networkx": _networkx, "igraph": _igraph, "networkit": _networkit}


def peer_version(library: str) -> str:
    """The installed version of a peer of :data:`PEERS` (for the provenance)."""
    if library not in PEERS:
        raise ValueError(f"library must be one of {', '.join(PEERS)}; got {library!r}")
    import importlib

    return str(importlib.import_module(library).__version__)


def peer_rows(
    library: str, name: str, graph: Graph, *, source: int = 0, repeats: int = 3
) -> list[dict[str, Any]]:
    """The same graph in ``library`` (one of :data:`PEERS`): build time and resident-memory growth, BFS from
    ``source`` and PageRank (damping 0.85; networkx and networkit stop at an L1 change below ``n * 1e-10`` as
    ours does, igraph's PRPACK solves to its own precision), one thread. Before anything is timed the peer's
    BFS distances must equal ours and its PageRank lie within :func:`_pagerank_l1_bound` of ours (RuntimeError naming
    the library otherwise): the same query, the same answer."""
    if not isinstance(library, str) or library not in PEERS:
        raise ValueError(f"library must be one of {', '.join(PEERS)}; got {library!r}")
    name = check_text(name, "name")
    graph = check_graph(graph)
    source = check_vertex(source, "source", graph.n_nodes)
    repeats = check_int(repeats, "repeats", minimum=1)
    size = (graph.n_nodes, graph.n_edges)
    edges = _edge_list(graph)
    before = _current_rss_bytes()
    start = time.perf_counter()
    bfs, pagerank, distances, rank = _BUILDERS[library](graph, edges, source)
    seconds = time.perf_counter() - start
    after = _current_rss_bytes()
    grown = after - before if before is not None and after is not None else None
    del edges
    ours = _bfs_distances(graph.indptr, graph.indices, source)
    theirs = distances()
    if not np.array_equal(theirs, ours):
        wrong = int(np.flatnonzero(theirs != ours)[0])
        raise RuntimeError(
            f"{library}'s BFS from {source} gives vertex {wrong} distance {theirs[wrong]}, ours {ours[wrong]}"
        )
    ours_rank = _pagerank(graph.indptr, graph.indices, DAMPING, PAGERANK_TOL, PAGERANK_MAX_ITER)
    gap, bound = float(np.abs(rank() - ours_rank).sum()), _pagerank_l1_bound(graph.n_nodes)
    if not gap <= bound:
        raise RuntimeError(
            f"{library}'s PageRank differs from ours by {gap:.3g} in L1 norm, more than both stopping rules"
            f" allow ({bound:.3g})"
        )
    rows = [_row(name, size, "build", library, seconds, grown)]
    rows.append(_row(name, size, "bfs", library, _median_seconds(bfs, repeats), None))
    rows.append(_row(name, size, "pagerank", library, _median_seconds(pagerank, repeats), None))
    return rows


def networkx_rows(name: str, graph: Graph, *, source: int = 0, repeats: int = 3) -> list[dict[str, Any]]:
    """The same graph as a ``networkx.Graph``: build time and resident-memory growth, BFS
    (``single_source_shortest_path_length``) and ``pagerank`` (its scipy power iteration); :func:`peer_rows`."""
    return peer_rows("networkx", name, graph, source=source, repeats=repeats)


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
    :func:`peer_rows` of every peer (:data:`PEERS`) for the largest size with at most ``networkx_max_edges`` edges. Rows also record
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
            for library in PEERS:
                frames.extend(peer_rows(library, name, graph, repeats=repeats))
        del graph, instances
    return pd.DataFrame(frames, columns=ROW_COLUMNS)
