"""Every public function and class of the linking package checks its inputs (issue robust-scale).

The table :data:`ENTRIES` has one entry per public callable, found by importing the modules: a new public
function without an entry fails :func:`test_every_public_callable_has_an_entry`. An entry gives valid arguments
(the call must succeed) and, per class of bad input (a wrong shape, a NaN where numbers are taken, an id out of
range where ids are taken), the argument to replace, its bad value and the name the error must give; or the
reason that class does not apply. Bad input must raise ValueError (or the package's DecodersError), never crash
the compiled BFS / DFS / PageRank kernels (before this table, an out-of-range source, neighbour id or vertex and a
decreasing ``indptr`` were segmentation faults) or return a silent result. Further tests below: malformed CSR and
out-of-range vertex ids (negative and past the graph) in every function that takes them, empty candidate sets,
zero and negative limits, and a deadline already passed.
"""

from __future__ import annotations

import atexit
import math
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from public_inputs import (
    CLASSES,
    assert_every_public_callable_has_an_entry,
    assert_no_public_compiled_kernel,
    assert_refused_by_name,
    bad_calls,
    resolve,
    valid_calls,
)

from decoders.corpora.wikispeedia import Graph
from decoders.errors import DecodersError
from decoders.harness.protocol import Solution, get_decoder
from decoders.linking.instance import LinkingInstance
from decoders.linking.overlay import Overlay, overlay_from_edges
from decoders.linking.retrieval import build_index

MODULES = tuple(
    f"decoders.linking.{name}"
    for name in (
        "connection", "cost", "decoders", "decomposable", "distances", "elevant_sets", "exact", "exact_scip",
        "heuristics",
        "instance", "jobs", "nel", "overlay", "pagerank", "retrieval", "scaling", "spanning_tree", "sweep",
        "synthetic",
    )
)  # fmt: skip


_DIR = Path(tempfile.mkdtemp(prefix="linking-public-inputs-"))
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)


def graph_of(n: int, edges: list[tuple[int, int]]) -> Graph:
    rows = [a for a, b in edges] + [b for a, b in edges]
    cols = [b for a, b in edges] + [a for a, b in edges]
    adjacency = sp.csr_array((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))
    adjacency.sum_duplicates()
    adjacency.sort_indices()
    return Graph(
        adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int32), np.arange(n, dtype=np.int32)
    )


# the graph: the path 0-1-2-3-4 and the leaf 5 on 2 (a tree: every instance on it is decomposable)
N = 6
GRAPH = graph_of(N, [(0, 1), (1, 2), (2, 3), (3, 4), (2, 5)])
INDPTR, INDICES = GRAPH.indptr, GRAPH.indices
GRAPH_PATH = str(_DIR / "graph.npz")
GRAPH.save(GRAPH_PATH)
CSR = {"indptr": INDPTR, "indices": INDICES}

SETS = (np.array([0, 4], np.int32), np.array([1, 5], np.int32), np.array([3], np.int32))
FAR_SETS = (np.array([0, 4]), np.array([1, 9]), np.array([3]))
DEC_SETS = (np.array([0, 1], np.int32), np.array([3], np.int32), np.array([5], np.int32))
NAN_SETS = [np.array([0.0, np.nan])]
FLAT_SETS = [np.array([[0, 1]])]
INSTANCE = LinkingInstance(GRAPH_PATH, SETS, np.array([0, 1, 0]), ("a", "b", "c"), "doc")
DEC_INSTANCE = LinkingInstance(GRAPH_PATH, DEC_SETS, np.array([0, 0, 0]), ("a", "b", "c"), "dec")
OVERLAY = overlay_from_edges([0, 1], [4, 5])  # the maximal connection of SETS
FAR_OVERLAY = Overlay(np.array([0, 9]), np.array([0, 1, 2]), np.array([9, 0]))  # well formed, vertex 9 of 6
MUTATED = Graph(INDPTR.copy(), INDICES.copy(), GRAPH.original_node.copy())
MUTATED.indices[0] = 9  # the arrays of a Graph are mutable: its checks at construction do not cover this
BAD_INDICES = INDICES.copy()
BAD_INDICES[3] = N
SCORES = np.linspace(0.1, 0.6, N)


def stale(sets) -> LinkingInstance:
    """An instance whose sets were changed after construction (or unpickled from an old graph's file)."""
    return LinkingInstance._trusted(
        GRAPH_PATH, tuple(sets), np.zeros(len(sets), np.int32), ("m",) * len(sets), "d"
    )


STALE_FAR = stale(FAR_SETS)


def nan_at(array, index) -> np.ndarray:
    out = np.array(array, dtype=float)
    out[index] = np.nan
    return out


# a toy corpus: five articles on the path Star - Sun - Solar System - Iron - Planet
TITLES = ["Star", "Sun", "Solar System", "Iron", "Planet"]
TEXTS = [
    "A star is a ball of plasma such as the sun. A planet orbits it.",
    "The sun is the star at the centre of the solar system.",
    "The solar system is the sun and its planets.",
    "Iron is a metal made inside a star.",
    "A planet orbits a star in a planetary system.",
]
TOY = graph_of(5, [(0, 1), (1, 2), (2, 3), (3, 4)])
TOY_PATH = str(_DIR / "toy.npz")
TOY.save(TOY_PATH)
TOY_INDEX = build_index(TITLES, TEXTS, np.arange(5))
ARTICLES = pd.DataFrame(
    {"node": np.arange(5), "name": [t.replace(" ", "_") for t in TITLES], "title": TITLES, "text": TEXTS}
)
LINKS = np.array([[0, 1], [0, 4], [1, 2], [2, 1], [3, 0]])
DOCUMENTS = pd.DataFrame({"benchmark": ["toy"], "doc_id": [1], "title": ["Our star"]})


def mentions(node=(1, 1, 3)) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "benchmark": ["toy"] * 3,
            "doc_id": [1] * 3,
            "start": [0, 10, 30],
            "surface": ["Sun", "our star", "iron"],
            "node": pd.array(list(node), dtype="Int64"),
        }
    )


def located(start=(0, 5)) -> pd.DataFrame:
    return pd.DataFrame({"source": [0, 0], "target": [1, 4], "start": list(start), "end": [3, 9]})


def articles_with(vertex) -> pd.DataFrame:
    return pd.DataFrame({"vertex": vertex, "title": TITLES[:3], "text": TEXTS[:3]})


LINKING = {
    "variants": {"greedy-max": {"algorithm": "greedy", "params": {"connection": "maximal"}}},
    "sweep": {"variants": ["greedy-max"], "candidates": [2, 5], "datasets": ["toy"]},
}


def linking_with(candidates) -> dict:
    return {**LINKING, "sweep": {**LINKING["sweep"], "candidates": candidates}}


NA_RECORD = "n/a: a record of results this package computes, not an input API"
NA_FILES = "n/a: reads a job's files; the functions it calls check their arguments (their own entries)"
NO_FLOATS = "n/a: takes no floats"
NO_IDS = "n/a: takes no ids"
NO_ARGS = "n/a: takes no arguments"


def decoder_entry(**valid) -> tuple[dict, dict]:
    return (
        {"instance": INSTANCE, **valid},
        {"shape": ("instance", SETS, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("instance", STALE_FAR, "instance.sets[1][1]")},
    )  # fmt: skip


def csr_entry(**valid) -> tuple[dict, dict]:
    """A function of (indptr, indices, overlay, sets)."""
    return (
        {**CSR, "overlay": OVERLAY, "sets": SETS, **valid},
        {"shape": ("indices", INDICES[:-1], "indptr[-1]"), "nan": ("sets", NAN_SETS, "sets[0]"),
         "id": ("sets", FAR_SETS, "sets[1][1]")},
    )  # fmt: skip


#: name -> (valid kwargs, {class: (argument, bad value, name in the message) or reason}); ``valid`` None: the
#: valid call needs files, and is not made.
ENTRIES: dict[str, tuple[dict | None, dict]] = {
    # connection
    "decoders.linking.connection.induced_edges": (
        {**CSR, "vertices": np.array([1, 2, 3])},
        {"shape": ("vertices", np.array([[1, 2]]), "vertices"), "nan": ("vertices", np.array([1.0, np.nan]), "vertices"),
         "id": ("vertices", np.array([1, 9]), "vertices[1]")},
    ),
    "decoders.linking.connection.induced_components": (
        {**CSR, "vertices": np.array([1, 2, 4]), "overlay": OVERLAY},
        {"shape": ("vertices", np.array([[1, 2]]), "vertices"), "nan": ("vertices", np.array([np.nan]), "vertices"),
         "id": ("overlay", FAR_OVERLAY, "overlay.nodes[1]")},
    ),
    "decoders.linking.connection.set_components": (
        {"graph": GRAPH, "candidates": np.array([0, 1, 4])},
        {"shape": ("graph", (INDPTR, INDICES), "graph"), "nan": ("candidates", [0.0, np.nan], "candidates"),
         "id": ("candidates", np.array([0, -1]), "candidates[1]")},
    ),
    "decoders.linking.connection.maximal_connection": (
        {"graph": GRAPH, "sets": SETS},
        {"shape": ("sets", FLAT_SETS, "sets[0]"), "nan": ("sets", NAN_SETS, "sets[0]"),
         "id": ("sets", FAR_SETS, "sets[1][1]")},
    ),
    "decoders.linking.connection.minimal_connection": (
        {"graph": GRAPH, "sets": SETS},
        {"shape": ("sets", FLAT_SETS, "sets[0]"), "nan": ("sets", NAN_SETS, "sets[0]"),
         "id": ("graph", MUTATED, "graph.indices[0]")},
    ),
    "decoders.linking.connection.connect": (
        {"graph": GRAPH, "sets": SETS, "connection": "minimal"},
        {"shape": ("sets", FLAT_SETS, "sets[0]"), "nan": ("connection", math.nan, "connection"),
         "id": ("sets", FAR_SETS, "sets[1][1]")},
    ),
    # cost
    "decoders.linking.cost.unreachable_cost": (
        {"graph": GRAPH},
        {"shape": ("graph", np.zeros(3), "graph"), "nan": NO_FLOATS, "id": ("graph", MUTATED, "graph.indices[0]")},
    ),
    "decoders.linking.cost.finite_distances": (
        {"distances": np.array([[0, -1], [1, 0]]), "graph": GRAPH},
        {"shape": "n/a: distances of any shape", "nan": ("distances", np.array([0.0, np.nan]), "distances"),
         "id": ("distances", np.array([[0, -2]]), "distances[0, 1]")},
    ),
    "decoders.linking.cost.resolve_connection": (
        {"instance": INSTANCE, "connection": "minimal"},
        {"shape": ("instance", SETS, "instance"), "nan": ("connection", math.nan, "connection"),
         "id": ("connection", FAR_OVERLAY, "connection.nodes[1]")},
    ),
    "decoders.linking.cost.vertex_distance_matrix": (
        {"graph": GRAPH, "overlay": OVERLAY, "vertices": np.array([0, 3, 5])},
        {"shape": ("vertices", np.array([[0, 3]]), "vertices"), "nan": ("vertices", [0.0, np.nan], "vertices"),
         "id": ("overlay", FAR_OVERLAY, "overlay.nodes[1]")},
    ),
    "decoders.linking.cost.distance_cost": (
        {"instance": INSTANCE, "vertices": np.array([0, 1, 3]), "connection": "maximal"},
        {"shape": ("vertices", np.array([0, 1]), "vertices"), "nan": ("vertices", [0.0, 1.0, np.nan], "vertices"),
         "id": ("vertices", np.array([0, 1, 6]), "vertices[2]")},
    ),
    # decoders
    "decoders.linking.decoders.decode_spanning_tree": decoder_entry(),
    "decoders.linking.decoders.decode_hitting_distance": decoder_entry(),
    "decoders.linking.decoders.decode_greedy": decoder_entry(seed=3),
    "decoders.linking.decoders.decode_degree": decoder_entry(),
    "decoders.linking.decoders.decode_pagerank": decoder_entry(),
    "decoders.linking.decoders.decode_retrieval": decoder_entry(),
    "decoders.linking.decoders.decode_decomposable": decoder_entry(instance=DEC_INSTANCE),
    "decoders.linking.decoders.decode_exact": decoder_entry(connection="minimal"),
    "decoders.linking.decoders.decode_exact_scip": decoder_entry(connection="minimal"),
    "decoders.linking.decoders.evaluate": (
        {"instance": INSTANCE, "solution": Solution(np.array([0, 1, 0]), 3.0)},
        {"shape": ("solution", Solution(np.array([0, 1]), 3.0), "solution.structure"),
         "nan": ("solution", Solution(np.array([0.0, np.nan, 0.0]), 3.0), "solution.structure"),
         "id": ("solution", Solution(np.array([0, 2, 0]), 3.0), "solution.structure[1]")},
    ),
    "decoders.linking.decoders.check_structure": (
        {"instance": INSTANCE, "structure": np.array([0, 0, 0])},
        {"shape": ("instance", SETS, "instance"),
         "nan": "n/a: a bad structure is the reason it returns (tests/test_user_decoders.py)",
         "id": "n/a: a bad structure is the reason it returns (tests/test_user_decoders.py)"},
    ),
    "decoders.linking.decoders.exact_check": (
        {"instance": INSTANCE, "solution": Solution(np.array([0, 0, 0]), 7.0, 7.0, "optimal", {}), "time_limit": 5.0},
        {"shape": ("solution", (np.array([0, 0, 0]), 7.0), "solution"),
         "nan": "n/a: a NaN objective is compared, not refused (verify runs first and rejects it)",
         "id": "n/a: the claim's structure was checked by check_structure and verify before"},
    ),
    "decoders.linking.decoders.verify": (
        {"instance": INSTANCE, "solution": Solution(np.array([0, 0, 0]), 7.0, 7.0, "optimal", {})},
        {"shape": ("solution", (np.array([0, 0, 0]), 7.0), "solution"),
         "nan": "n/a: a NaN objective, bound or structure is a reason it returns (tested below)",
         "id": ("instance", STALE_FAR, "instance.sets[1][1]")},
    ),
    "decoders.linking.decoders.graph_pagerank": (
        {"graph_path": GRAPH_PATH},
        {"shape": ("graph_path", [GRAPH_PATH], "graph_path"), "nan": ("graph_path", math.nan, "graph_path"),
         "id": NO_IDS},
    ),
    # decomposable
    "decoders.linking.decomposable.NotDecomposableError": (None, dict.fromkeys(CLASSES, "n/a: an exception class")),
    "decoders.linking.decomposable.decomposable_mindr": (
        {**CSR, "sets": DEC_SETS},
        {"shape": ("sets", FLAT_SETS, "sets[0]"), "nan": ("sets", NAN_SETS, "sets[0]"),
         "id": ("groups", [[0, 1], [3]], "groups[1][0]")},
    ),
    # distances
    "decoders.linking.distances.bfs_until": (
        {**CSR, "sources": np.array([0]), "targets": np.array([3])},
        {"shape": ("sources", np.array([[0]]), "sources"), "nan": ("targets", np.array([np.nan]), "targets"),
         "id": ("targets", np.array([3, 6]), "targets[1]")},
    ),
    "decoders.linking.distances.multi_source_bfs": (
        {**CSR, "sources": np.array([0, 4]), "overlay": OVERLAY},
        {"shape": ("sources", np.array([[0]]), "sources"), "nan": ("sources", np.array([np.nan]), "sources"),
         "id": ("sources", np.array([0, -2]), "sources[1]")},
    ),
    "decoders.linking.distances.bfs_distances": (
        {**CSR, "source": 0},
        {"shape": ("source", np.array([0, 1]), "source"), "nan": ("source", math.nan, "source"),
         "id": ("source", N, "source")},
    ),
    "decoders.linking.distances.group_distances": (
        {**CSR, "group_ptr": np.array([0, 1, 3]), "group_vertices": np.array([0, 3, 5]), "targets": np.array([1, 4])},
        {"shape": ("group_ptr", np.array([0, 1]), "group_ptr[-1]"),
         "nan": ("group_vertices", np.array([0.0, np.nan, 1.0]), "group_vertices"),
         "id": ("group_vertices", np.array([0, 3, 6]), "group_vertices[2]")},
    ),
    "decoders.linking.distances.pairwise_distances": (
        {**CSR, "sources": np.array([0, 5]), "targets": np.array([3, 4])},
        {"shape": ("sources", np.array([[0, 5]]), "sources"), "nan": ("sources", [0.0, np.nan], "sources"),
         "id": ("sources", np.array([0, 6]), "sources[1]")},
    ),
    # elevant_sets
    "decoders.linking.elevant_sets.elevant_instances": (
        {"documents": DOCUMENTS, "mentions": mentions(), "graph": TOY, "graph_path": TOY_PATH, "index": TOY_INDEX,
         "candidates": 5},
        {"shape": ("mentions", mentions().drop(columns="node"), "node"), "nan": ("candidates", math.nan, "candidates"),
         "id": ("mentions", mentions((1, -1, 3)), "mentions['node'][1]")},
    ),
    # exact
    "decoders.linking.exact.ExactResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.linking.exact.candidate_distances": csr_entry(),
    "decoders.linking.exact.exact_mindr": (
        {**CSR, "overlay": OVERLAY, "sets": SETS, "hint": np.array([0, 0, 0])},
        {"shape": ("hint", np.array([0, 0]), "hint"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("hint", np.array([0, 2, 0]), "hint[1]")},
    ),
    # exact_scip
    "decoders.linking.exact_scip.exact_mindr_scip": (
        {**CSR, "overlay": OVERLAY, "sets": SETS, "hint": np.array([0, 0, 0])},
        {"shape": ("hint", np.array([0, 0]), "hint"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("hint", np.array([0, 2, 0]), "hint[1]")},
    ),
    "decoders.linking.exact_scip.mindr_matrix": (
        {"sizes": [2, 3]},
        {"shape": ("sizes", [[2, 3]], "sizes"), "nan": ("sizes", [2.0, math.nan], "sizes"),
         "id": ("sizes", [2, 0], "sizes[1]")},
    ),
    "decoders.linking.exact_scip.scip_version": ({}, dict.fromkeys(CLASSES, NO_ARGS)),
    # heuristics
    "decoders.linking.heuristics.hitting_distances": csr_entry(),
    "decoders.linking.heuristics.hitting_distance_positions": csr_entry(),
    "decoders.linking.heuristics.greedy_positions": csr_entry(rng=np.random.default_rng(0)),
    "decoders.linking.heuristics.degree_positions": csr_entry(),
    "decoders.linking.heuristics.score_positions": (
        {"scores": SCORES, "sets": SETS},
        {"shape": ("scores", SCORES.reshape(N, 1), "scores"), "nan": ("scores", nan_at(SCORES, 3), "scores[3]"),
         "id": ("sets", FAR_SETS, "sets[1][1]")},
    ),
    # instance
    "decoders.linking.instance.LinkingInstance": (
        {"graph_path": GRAPH_PATH, "sets": SETS, "gold": np.array([0, 1, 0]), "mentions": ("a", "b", "c"),
         "document": "doc"},
        {"shape": ("gold", np.array([0, 1]), "gold"), "nan": ("gold", np.array([0.0, np.nan, 0.0]), "gold"),
         "id": ("sets", FAR_SETS, "sets[1][1]")},
    ),
    "decoders.linking.instance.check_instance": (
        {"instance": INSTANCE, "order": N},
        {"shape": ("instance", np.zeros(3), "instance"), "nan": ("order", math.nan, "order"),
         "id": ("order", 3, "instance.sets[0][1]")},
    ),
    "decoders.linking.instance.instance_and_graph": (
        {"instance": INSTANCE},
        {"shape": ("instance", np.zeros(3), "instance"), "nan": "n/a: takes an instance (check_instance's entry)",
         "id": "n/a: the order is its graph's own (check_instance's entry)"},
    ),
    "decoders.linking.instance.graph_order": (
        {"path": GRAPH_PATH},
        {"shape": ("path", [GRAPH_PATH], "path"), "nan": ("path", math.nan, "path"), "id": NO_IDS},
    ),
    "decoders.linking.instance.load_graph": (
        {"path": GRAPH_PATH},
        {"shape": ("path", [GRAPH_PATH], "path"), "nan": ("path", math.nan, "path"), "id": NO_IDS},
    ),
    "decoders.linking.instance.rank_of": (
        {"candidates": np.array([4, 2, 7]), "vertex": 2},
        {"shape": ("candidates", np.array([[4, 2]]), "candidates"), "nan": ("vertex", math.nan, "vertex"),
         "id": "n/a: an absent vertex is its answer (-1)"},
    ),
    # jobs
    "decoders.linking.jobs.article_index": (
        {"articles": articles_with([0, 1, np.nan])},
        {"shape": ("articles", articles_with([0, 1, 2]).drop(columns="text"), "text"),
         "nan": ("articles", articles_with([0, 1.5, np.nan]), "articles['vertex']"),
         "id": ("articles", articles_with([0, -1, np.nan]), "articles['vertex'][1]")},
    ),
    "decoders.linking.jobs.build_wikispeedia_set": (None, dict.fromkeys(CLASSES, NA_FILES)),
    "decoders.linking.jobs.build_document_set": (None, dict.fromkeys(CLASSES, NA_FILES)),
    "decoders.linking.jobs.build_synthetic_graph": (None, dict.fromkeys(CLASSES, NA_FILES)),
    "decoders.linking.jobs.build_synthetic_set": (None, dict.fromkeys(CLASSES, NA_FILES)),
    "decoders.linking.jobs.scaling": (None, dict.fromkeys(CLASSES, NA_FILES)),
    "decoders.linking.jobs.scaling_noise": (None, dict.fromkeys(CLASSES, NA_FILES)),
    # nel
    "decoders.linking.nel.strip_parenthesised": (
        {"title": "Mercury (planet)"},
        {"shape": ("title", ["Mercury"], "title"), "nan": ("title", math.nan, "title"), "id": NO_IDS},
    ),
    "decoders.linking.nel.body_start": (
        {"text": "Related subjects: x\n\nBody"},
        {"shape": ("text", ["Body"], "text"), "nan": ("text", math.nan, "text"), "id": NO_IDS},
    ),
    "decoders.linking.nel.find_phrase": (
        {"haystack": "the sun is", "phrase": "sun"},
        {"shape": ("phrase", ["sun"], "phrase"), "nan": ("haystack", math.nan, "haystack"), "id": NO_IDS},
    ),
    "decoders.linking.nel.find_link_mentions": (
        {"texts": pd.Series(TEXTS), "titles": pd.Series(TITLES), "links": LINKS},
        {"shape": ("links", np.array([0, 1]), "links"), "nan": ("links", np.array([[0.0, np.nan]]), "links"),
         "id": ("links", np.array([[0, 1], [0, 7]]), "links[1, 1]")},
    ),
    "decoders.linking.nel.non_overlapping": (
        {"mentions": located()},
        {"shape": ("mentions", located().drop(columns="end"), "end"),
         "nan": ("mentions", located((0.0, np.nan)), "mentions['start']"),
         "id": "n/a: compares offsets, indexes nothing"},
    ),
    "decoders.linking.nel.sample_sizes": (
        {"rng": np.random.default_rng(0), "n": 3, "mean": 11.7, "maximum": 53},
        {"shape": "n/a: takes numbers", "nan": ("mean", math.nan, "mean"), "id": ("maximum", 1, "maximum")},
    ),
    "decoders.linking.nel.wikispeedia_instances": (
        {"articles": ARTICLES, "links": LINKS, "graph": TOY, "graph_path": TOY_PATH, "index": TOY_INDEX,
         "n_documents": 1, "candidates": 3, "mean_mentions": 2.0, "max_mentions": 2},
        {"shape": ("links", np.array([0, 1]), "links"), "nan": ("mean_mentions", math.nan, "mean_mentions"),
         "id": ("links", np.array([[0, 1], [0, 9]]), "links[1, 1]")},
    ),
    # overlay
    "decoders.linking.overlay.Overlay": (
        {"nodes": [0, 4], "indptr": [0, 1, 2], "indices": [4, 0]},
        {"shape": ("indptr", [0, 1], "Overlay.indptr"), "nan": ("indices", [4.0, np.nan], "Overlay.indices"),
         "id": ("nodes", [0, -4], "Overlay.nodes[1]")},
    ),
    "decoders.linking.overlay.check_overlay": (
        {"overlay": OVERLAY, "order": N},
        {"shape": ("overlay", np.zeros(3), "overlay"), "nan": ("order", math.nan, "order"),
         "id": ("overlay", FAR_OVERLAY, "overlay.nodes[1]")},
    ),
    "decoders.linking.overlay.empty_overlay": ({}, dict.fromkeys(CLASSES, NO_ARGS)),
    "decoders.linking.overlay.overlay_from_edges": (
        {"u": [0, 1], "v": [4, 5]},
        {"shape": ("v", [4], "u and v"), "nan": ("u", [0.0, np.nan], "u"), "id": ("v", [4, -5], "v[1]")},
    ),
    # pagerank
    "decoders.linking.pagerank.pagerank": (
        dict(CSR),
        {"shape": ("indptr", INDPTR[:-1], "indptr[-1]"), "nan": ("damping", math.nan, "damping"),
         "id": ("indices", BAD_INDICES, "indices[3]")},
    ),
    # retrieval
    "decoders.linking.retrieval.ArticleIndex": (
        {"retriever": TOY_INDEX.retriever, "tokenizer": TOY_INDEX.tokenizer, "vertices": TOY_INDEX.vertices},
        {"shape": ("vertices", TOY_INDEX.vertices[:2], "ArticleIndex.vertices"),
         "nan": ("vertices", nan_at(np.arange(5), 1), "ArticleIndex.vertices"),
         "id": ("vertices", np.array([0, -1, 2, 3, 4]), "ArticleIndex.vertices[1]")},
    ),
    "decoders.linking.retrieval.build_index": (
        {"titles": TITLES, "texts": TEXTS, "vertices": np.arange(5)},
        {"shape": ("vertices", np.arange(2), "vertices"), "nan": ("vertices", nan_at(np.arange(5), 4), "vertices"),
         "id": ("vertices", np.array([0, 1, 2, 3, -4]), "vertices[4]")},
    ),
    "decoders.linking.retrieval.top_candidates": (
        {"index": TOY_INDEX, "queries": ["sun"], "k": 2},
        {"shape": ("queries", "sun", "queries"), "nan": ("k", math.nan, "k"), "id": ("k", 6, "k")},
    ),
    "decoders.linking.retrieval.disjoint_candidates": (
        {"retrieved": np.array([[0, 1], [1, -1]]), "documents": ["a", "a"]},
        {"shape": ("documents", ["a"], "documents"), "nan": ("retrieved", np.array([[0.0, np.nan]]), "retrieved"),
         "id": ("retrieved", np.array([[0, -2]]), "retrieved[0, 1]")},
    ),
    "decoders.linking.retrieval.first_candidates": (
        {"retrieved": np.array([[0, 1], [1, -1]]), "k": 1},
        {"shape": ("retrieved", np.array([0, 1]), "retrieved"), "nan": ("k", math.nan, "k"),
         "id": ("retrieved", np.array([[0, -3]]), "retrieved[0, 1]")},
    ),
    # scaling
    "decoders.linking.scaling.peak_rss_bytes": ({}, dict.fromkeys(CLASSES, NO_ARGS)),
    "decoders.linking.scaling.hitting_distance_choice": (
        {"graph": GRAPH, "instance": INSTANCE},
        {"shape": ("instance", SETS, "instance"), "nan": NO_FLOATS,
         "id": ("instance", STALE_FAR, "instance.sets[1][1]")},
    ),
    "decoders.linking.scaling.graph_rows": (
        {"name": "g", "graph": GRAPH, "instances": [INSTANCE], "repeats": 1},
        {"shape": ("instances", INSTANCE, "instances"), "nan": ("repeats", math.nan, "repeats"),
         "id": ("source", N, "source")},
    ),
    "decoders.linking.scaling.networkx_rows": (
        {"name": "g", "graph": GRAPH, "repeats": 1},
        {"shape": ("graph", (INDPTR, INDICES), "graph"), "nan": ("repeats", math.nan, "repeats"),
         "id": ("source", -1, "source")},
    ),
    "decoders.linking.scaling.peer_rows": (
        {"library": "igraph", "name": "g", "graph": GRAPH, "repeats": 1},
        {"shape": ("graph", (INDPTR, INDICES), "graph"), "nan": ("repeats", math.nan, "repeats"),
         "id": ("library", "graph-tool", "library")},
    ),
    "decoders.linking.scaling.peer_version": (
        {"library": "networkit"},
        {"shape": ("library", ["networkit"], "library"), "nan": NO_FLOATS, "id": ("library", "snap", "library")},
    ),
    "decoders.linking.scaling.scaling_table": (
        {"degrees": np.array([1, 2, 3, 2]), "sizes": [(120, 240)], "n_instances": 1, "repeats": 1,
         "networkx_max_edges": 0},
        {"shape": ("sizes", [(120,)], "sizes[0]"), "nan": ("degrees", np.array([1.0, np.nan]), "degrees"),
         "id": ("n_instances", 0, "n_instances")},
    ),
    # spanning_tree
    "decoders.linking.spanning_tree.overlap_groups": (
        {"sets": SETS},
        {"shape": ("sets", FLAT_SETS, "sets[0]"), "nan": ("sets", NAN_SETS, "sets[0]"),
         "id": ("sets", [np.array([-1])], "sets[0][0]")},
    ),
    "decoders.linking.spanning_tree.listed_once": (
        {"vertices": np.array([3, 1, 3])},
        {"shape": ("vertices", np.array([[3]]), "vertices"), "nan": ("vertices", [3.0, np.nan], "vertices"),
         "id": ("vertices", np.array([3, -1]), "vertices[1]")},
    ),
    "decoders.linking.spanning_tree.tree_edges": (
        {**CSR, "overlay": None, "group_vertices": [np.array([0, 1]), np.array([5])]},
        {"shape": ("group_vertices", FLAT_SETS, "group_vertices[0]"),
         "nan": ("group_vertices", NAN_SETS, "group_vertices[0]"),
         "id": ("group_vertices", [np.array([0]), np.array([6])], "group_vertices[1][0]")},
    ),
    "decoders.linking.spanning_tree.spanning_tree_positions": csr_entry(),
    # sweep
    "decoders.linking.sweep.sweep_variant_name": (
        {"base": "greedy-max", "candidates": 10},
        {"shape": ("base", ["greedy-max"], "variants"), "nan": ("candidates", math.nan, "candidates"),
         "id": ("candidates", 0, "candidates")},
    ),
    "decoders.linking.sweep.parse_sweep_variant": (
        {"name": "greedy-top10-max"},
        {"shape": ("name", ["greedy-top10-max"], "variant name"), "nan": ("name", math.nan, "variant name"),
         "id": NO_IDS},
    ),
    "decoders.linking.sweep.sweep_variants": (
        {"linking": LINKING},
        {"shape": ("linking", [LINKING], "experiments.linking"),
         "nan": ("linking", linking_with([2, math.nan]), "candidates[1]"),
         "id": ("linking", linking_with([0]), "candidates[0]")},
    ),
    "decoders.linking.sweep.sweep_runs": (
        {"linking": LINKING},
        {"shape": ("linking", {**LINKING, "sweep": {**LINKING["sweep"], "datasets": "toy"}}, "datasets"),
         "nan": ("linking", linking_with([math.nan]), "candidates[0]"),
         "id": ("linking", linking_with([-1]), "candidates[0]")},
    ),
    # synthetic
    "decoders.linking.synthetic.synthetic_graph": (
        {"n_nodes": 20, "n_edges": 30, "degrees": np.array([1, 2, 3]), "seed": 0},
        {"shape": ("degrees", np.array([[1, 2]]), "degrees"), "nan": ("degrees", np.array([1.0, np.nan]), "degrees"),
         "id": ("n_edges", 5, "n_edges")},
    ),
    "decoders.linking.synthetic.plant_instances": (
        {"graph": GRAPH, "graph_path": GRAPH_PATH, "n_instances": 1, "sets": 2, "candidates": 2},
        {"shape": ("graph", (INDPTR, INDICES), "graph"), "nan": ("candidates", math.nan, "candidates"),
         "id": ("n_instances", 0, "n_instances")},
    ),
}  # fmt: skip


def test_every_public_callable_has_an_entry():
    assert_every_public_callable_has_an_entry(MODULES, ENTRIES)


def test_no_public_compiled_kernel_is_left():
    assert_no_public_compiled_kernel(MODULES)


@pytest.mark.parametrize("qualified", valid_calls(ENTRIES))
def test_valid_arguments_are_accepted(qualified):
    resolve(qualified)(**ENTRIES[qualified][0])


@pytest.mark.parametrize(("qualified", "kind"), bad_calls(ENTRIES))
def test_bad_arguments_are_refused_by_name(qualified, kind):
    valid, cases = ENTRIES[qualified]
    assert_refused_by_name(qualified, valid, cases[kind])


# --------------------------------------------------------------------------- malformed CSR

CSR_ENTRIES = sorted(
    name
    for name, (valid, _) in ENTRIES.items()
    if valid is not None and "indptr" in valid and not name.endswith("Overlay")
)
MALFORMED = {
    "indptr decreasing": ({"indptr": np.array([0, 1, 3, 2, 6, 9, 10])}, "indptr[3] is 2 < indptr[2] = 3"),
    "indptr not from 0": ({"indptr": INDPTR + 1}, "indptr[0] is 1"),
    "indptr past indices": (
        {"indptr": np.r_[INDPTR[:-1], INDPTR[-1] + 2]},
        "indptr[-1] is 12 but indices has 10",
    ),
    "indices short": ({"indices": INDICES[:-2]}, "indptr[-1] is 10 but indices has 8"),
    "indptr empty": ({"indptr": np.zeros(0, np.int64), "indices": np.zeros(0, np.int32)}, "indptr must have"),
    "indptr floats": ({"indptr": INDPTR.astype(float)}, "indptr must be an integer array"),
    "indptr 2-d": ({"indptr": INDPTR.reshape(1, -1)}, "indptr must be 1-dimensional"),
    "indices past n": ({"indices": BAD_INDICES}, "indices[3] is 6, outside 0..5"),
    "indices negative": (
        {"indices": np.where(np.arange(INDICES.size) == 4, -1, INDICES)},
        "indices[4] is -1",
    ),
    "indices NaN": ({"indices": nan_at(INDICES, 2)}, "indices must be an integer array"),
    "indices booleans": ({"indices": INDICES > 2}, "indices must be an integer array"),
}


@pytest.mark.parametrize("qualified", CSR_ENTRIES)
@pytest.mark.parametrize("what", sorted(MALFORMED))
def test_malformed_csr_is_refused(qualified, what):
    change, message = MALFORMED[what]
    with pytest.raises(ValueError, match=re.escape(message)):
        resolve(qualified)(**{**ENTRIES[qualified][0], **change})


def test_graph_arrays_changed_after_construction_are_refused():
    from decoders.linking.connection import connect

    unsorted = Graph(INDPTR.copy(), INDICES.copy(), GRAPH.original_node.copy())
    unsorted.indices[[1, 2]] = unsorted.indices[[2, 1]]  # vertex 1's neighbours 0, 2 -> 2, 0
    with pytest.raises(
        ValueError, match=r"graph.indices\[2\] = 0 follows 2 in the neighbour list of vertex 1"
    ):
        connect(unsorted, SETS, "maximal")
    with pytest.raises(ValueError, match=r"graph.indices\[0\] is 9, outside 0..5"):
        connect(MUTATED, SETS, "maximal")


# --------------------------------------------------------------------------- vertex ids out of range

SETS_AND_OVERLAY = ("sets", "overlay")
#: entry -> the arguments that carry vertex ids of the graph (an overlay is added where it is optional)
ID_TESTS = {
    "connection.induced_edges": ("vertices",),
    "connection.induced_components": ("vertices", "overlay"),
    "connection.set_components": ("graph", "candidates"),
    "connection.maximal_connection": ("graph", "sets"),
    "connection.minimal_connection": ("graph", "sets"),
    "connection.connect": ("graph", "sets"),
    "cost.unreachable_cost": ("graph",),
    "cost.finite_distances": ("graph",),
    "cost.vertex_distance_matrix": ("graph", "overlay", "vertices"),
    "cost.distance_cost": ("vertices",),
    "decomposable.decomposable_mindr": SETS_AND_OVERLAY,
    "distances.bfs_until": ("sources", "targets", "overlay"),
    "distances.multi_source_bfs": ("sources", "overlay"),
    "distances.bfs_distances": ("source", "overlay"),
    "distances.group_distances": ("group_vertices", "targets", "overlay"),
    "distances.pairwise_distances": ("sources", "targets", "overlay"),
    "elevant_sets.elevant_instances": ("graph",),
    "exact.candidate_distances": SETS_AND_OVERLAY,
    "exact.exact_mindr": SETS_AND_OVERLAY,
    "exact_scip.exact_mindr_scip": SETS_AND_OVERLAY,
    "heuristics.hitting_distances": SETS_AND_OVERLAY,
    "heuristics.hitting_distance_positions": SETS_AND_OVERLAY,
    "heuristics.greedy_positions": SETS_AND_OVERLAY,
    "heuristics.degree_positions": SETS_AND_OVERLAY,
    "heuristics.score_positions": ("sets",),
    "instance.LinkingInstance": ("sets",),
    "overlay.check_overlay": ("overlay",),
    "nel.wikispeedia_instances": ("graph",),
    "scaling.hitting_distance_choice": ("graph",),
    "scaling.graph_rows": ("graph", "source"),
    "scaling.networkx_rows": ("graph", "source"),
    "scaling.peer_rows": ("graph", "source"),
    "spanning_tree.tree_edges": ("group_vertices", "overlay"),
    "spanning_tree.spanning_tree_positions": SETS_AND_OVERLAY,
    "synthetic.plant_instances": ("graph",),
}


def _with_id(value, argument: str, vertex: int):
    """``value`` with one vertex id replaced by ``vertex``."""
    if argument == "source":
        return vertex
    if argument == "overlay":
        return Overlay._make(
            (np.array([0, vertex], np.int32), np.array([0, 1, 2]), np.array([vertex, 0], np.int32))
        )
    if argument == "graph":
        graph = Graph(value.indptr.copy(), value.indices.copy(), value.original_node.copy())
        graph.indices[1] = vertex
        return graph
    if isinstance(value, list | tuple):
        out = [np.array(s) for s in value]
        out[-1][-1] = vertex
        return out
    out = np.array(value)
    out[-1] = vertex
    return out


#: vertex ids with no graph to be out of (only negative ids are refused: their entries' "id" case)
NO_ORDER = (
    "Overlay",
    "overlay_from_edges",
    "listed_once",
    "overlap_groups",
    "rank_of",
    "ArticleIndex",
    "build_index",
)


def test_every_function_taking_vertex_ids_is_in_the_id_table():
    takes = {
        "sources",
        "targets",
        "vertices",
        "candidates",
        "group_vertices",
        "source",
        "overlay",
        "graph",
        "sets",
    }
    for name, (valid, _) in ENTRIES.items():
        if valid is not None and takes & set(valid) and not name.endswith((*NO_ORDER, "sweep_variant_name")):
            assert name.removeprefix("decoders.linking.") in ID_TESTS, name


@pytest.mark.parametrize("short", sorted(ID_TESTS))
@pytest.mark.parametrize("where", ["negative", "past the graph"])
def test_vertex_ids_out_of_range_are_refused_in_every_argument(short, where):
    qualified = f"decoders.linking.{short}"
    valid = ENTRIES[qualified][0]
    order = TOY.n_nodes if valid.get("graph") is TOY else N
    vertex = -1 if where == "negative" else order
    for argument in ID_TESTS[short]:
        args = {**valid, argument: _with_id(valid.get(argument), argument, vertex)}
        with pytest.raises(
            ValueError, match=rf"(is {vertex}, outside 0\.\.{order - 1}|{vertex} is not a vertex)"
        ):
            resolve(qualified)(**args)


def test_an_overlay_with_a_negative_id_cannot_be_built():
    with pytest.raises(ValueError, match=r"Overlay.indices\[1\] is -1"):
        Overlay(np.array([0, 4]), np.array([0, 1, 2]), np.array([4, -1]))
    with pytest.raises(
        ValueError, match=r"Overlay.nodes\[1\] = 0 follows 4: nodes must be strictly increasing"
    ):
        Overlay(np.array([4, 0]), np.array([0, 1, 2]), np.array([0, 4]))
    with pytest.raises(ValueError, match=r"Overlay.indptr\[2\] is 1 < Overlay.indptr\[1\] = 2"):
        Overlay(np.array([0, 4]), np.array([0, 2, 1, 2]), np.array([4, 0]))


def test_every_decoder_refuses_an_instance_changed_after_construction():
    changed = LinkingInstance(
        GRAPH_PATH, tuple(s.copy() for s in SETS), np.zeros(3, int), ("a", "b", "c"), "doc"
    )
    changed.sets[1][0] = 99  # in place: the instance checked its sets when built, not since
    for name in ("spanning-tree", "hitting-distance", "greedy", "degree", "pagerank", "retrieval", "exact"):
        with pytest.raises(ValueError, match=r"instance.sets\[1\]\[0\] is 99, outside 0..5"):
            get_decoder("linking", name)(changed)
    with pytest.raises(ValueError, match=r"instance.sets\[1\]\[0\] is 99"):
        get_decoder("linking", "decomposable")(changed)


# --------------------------------------------------------------------------- empty inputs

SET_ENTRIES = sorted(
    name
    for name, (valid, _) in ENTRIES.items()
    if valid is not None and "sets" in valid and not name.endswith("plant_instances")  # there, a count
)


@pytest.mark.parametrize("qualified", SET_ENTRIES)
def test_empty_candidate_sets_are_refused(qualified):
    valid = ENTRIES[qualified][0]
    with pytest.raises(ValueError, match=r"sets is empty"):
        resolve(qualified)(**{**valid, "sets": []})
    with pytest.raises(ValueError, match=r"sets\[1\] is empty"):
        resolve(qualified)(**{**valid, "sets": [SETS[0], np.array([], np.int32), SETS[2]]})
    if not qualified.endswith("overlap_groups"):  # groups sets by shared vertices: a repeat changes nothing
        with pytest.raises(ValueError, match=r"sets\[0\]\[1\] = 0 repeats .*sets\[0\]\[0\]"):
            resolve(qualified)(**{**valid, "sets": [np.array([0, 0]), *SETS[1:]]})


def test_instances_without_mentions_or_candidates_are_refused():
    with pytest.raises(ValueError, match="LinkingInstance.sets is empty"):
        LinkingInstance(GRAPH_PATH, (), np.zeros(0, np.int32), (), "doc")
    with pytest.raises(ValueError, match=r"LinkingInstance.sets\[1\] is empty"):
        LinkingInstance(
            GRAPH_PATH, (SETS[0], np.array([], np.int32)), np.zeros(2, np.int32), ("a", "b"), "doc"
        )
    with pytest.raises(ValueError, match=r"LinkingInstance.mentions\[1\] must be a string"):
        LinkingInstance(GRAPH_PATH, SETS, np.zeros(3, np.int32), ("a", None, "c"), "doc")
    with pytest.raises(ValueError, match="LinkingInstance.sets must be a sequence"):
        LinkingInstance(GRAPH_PATH, 3, np.zeros(3, np.int32), ("a", "b", "c"), "doc")


def test_empty_searches_and_queries_are_answered():
    from decoders.linking.distances import group_distances, multi_source_bfs
    from decoders.linking.retrieval import top_candidates

    assert (multi_source_bfs(INDPTR, INDICES, np.array([], np.int32)) == -1).all()
    assert group_distances(INDPTR, INDICES, [0], [], [1, 2]).shape == (0, 2)
    assert top_candidates(TOY_INDEX, [], k=2).shape == (0, 2)


# --------------------------------------------------------------------------- limits and parameters


def test_zero_and_negative_limits_are_refused():
    from decoders.linking import nel, pagerank, retrieval, scaling, synthetic

    for bad in (0, -1, 1.5, True, math.nan):
        with pytest.raises(ValueError, match="max_iter"):
            pagerank.pagerank(INDPTR, INDICES, max_iter=bad)
        with pytest.raises(ValueError, match="repeats"):
            scaling.networkx_rows("g", GRAPH, repeats=bad)
        with pytest.raises(ValueError, match="k"):
            retrieval.first_candidates(np.array([[0, 1]]), bad)
        with pytest.raises(ValueError, match="k"):
            retrieval.top_candidates(TOY_INDEX, ["sun"], k=bad)
        with pytest.raises(ValueError, match="n_instances"):
            synthetic.plant_instances(GRAPH, GRAPH_PATH, bad, sets=2, candidates=2)
        with pytest.raises(ValueError, match="max_candidates"):
            INSTANCE.truncated(bad)
        with pytest.raises(ValueError, match="title_weight"):
            retrieval.build_index(TITLES, TEXTS, np.arange(5), title_weight=bad)
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        nel.sample_sizes(np.random.default_rng(0), -1, 11.7, 53)
    for damping in (-0.1, 1.5, math.inf, math.nan):
        with pytest.raises(ValueError, match="damping"):
            pagerank.pagerank(INDPTR, INDICES, damping=damping)
    for tol in (0.0, -1e-9, math.inf, math.nan):
        with pytest.raises(ValueError, match="tol"):
            pagerank.pagerank(INDPTR, INDICES, tol=tol)
    assert pagerank.pagerank(INDPTR, INDICES, damping=0.0).sum() == pytest.approx(1.0)


def test_groups_must_partition_the_sets():
    from decoders.linking.decomposable import decomposable_mindr

    for groups, message in (
        ([[0, 1]], "groups leave set 2 out"),
        ([[0, 1], [1, 2]], r"groups\[1\]\[0\] = 1: set 1 is already in groups\[0\]"),
        ([[0], [], [1, 2]], r"groups\[1\] is empty"),
        ([[0, 1.0], [2]], r"groups\[0\]\[1\] is 1.0, not a set index"),
        ("012", "groups must be a sequence"),
    ):
        with pytest.raises(ValueError, match=message):
            decomposable_mindr(INDPTR, INDICES, DEC_SETS, groups=groups)
    assert decomposable_mindr(INDPTR, INDICES, DEC_SETS, groups=[[2], [0], [1]]).tolist() == [1, 0, 0]


def test_tree_edges_refuses_groups_that_share_a_vertex():
    from decoders.linking.spanning_tree import tree_edges

    with pytest.raises(ValueError, match=r"vertex 1 is listed twice \(in groups \[0, 1\]\)"):
        tree_edges(INDPTR, INDICES, None, [np.array([0, 1]), np.array([1, 5])])


def test_verify_reports_nan_and_wrong_structures_as_reasons():
    from decoders.linking.decoders import verify

    good = get_decoder("linking", "exact")(INSTANCE, connection="maximal")
    assert good.status == "optimal" and verify(INSTANCE, good) is None
    positions, stats = good.structure, dict(good.stats)
    assert "structure costs" in verify(INSTANCE, Solution(positions, math.nan, good.bound, "feasible", stats))
    assert "bound" in verify(INSTANCE, Solution(positions, good.objective, math.nan, "optimal", stats))
    assert "integer positions" in verify(
        INSTANCE, Solution(positions.astype(float), good.objective, good.bound)
    )
    assert "structure[1] = 5 is not a position" in verify(
        INSTANCE, Solution(np.array([0, 5, 0]), good.objective, good.bound, "optimal", stats)
    )


# --------------------------------------------------------------------------- a deadline already passed


def test_the_exact_decoder_past_its_deadline_returns_a_valid_structure_or_none():
    from decoders.linking.cost import distance_cost
    from decoders.linking.decoders import verify

    for connection in ("maximal", "minimal"):
        solution = get_decoder("linking", "exact")(
            INSTANCE, deadline=time.perf_counter() - 1.0, connection=connection
        )
        assert solution.status in ("feasible", "timeout"), solution.status
        if solution.structure is None:
            assert solution.status == "timeout" and math.isnan(solution.objective)
            assert solution.bound is not None and solution.bound >= 0.0
        else:
            positions = np.asarray(solution.structure)
            assert positions.shape == (3,) and all(
                0 <= p < s.size for p, s in zip(positions, SETS, strict=True)
            )
            vertices = INSTANCE.chosen_vertices(positions)
            assert solution.objective == distance_cost(INSTANCE, vertices, connection)
    optimal = get_decoder("linking", "exact")(INSTANCE, deadline=time.perf_counter() + 60.0)
    assert optimal.status == "optimal" and verify(INSTANCE, optimal) is None


def test_exact_mindr_past_its_deadline_returns_no_solution():
    from decoders.linking.exact import exact_mindr

    result = exact_mindr(INDPTR, INDICES, OVERLAY, SETS, deadline=time.perf_counter() - 1.0)
    assert result.positions is None and not result.optimal and result.bound == 0.0
    assert result.stats["solver_status"] == "NOT_STARTED"


@pytest.mark.parametrize(
    "name", ["spanning-tree", "hitting-distance", "greedy", "degree", "pagerank", "retrieval"]
)
def test_heuristics_past_a_deadline_still_return_a_valid_structure(name):
    """The heuristics do not stop early: a passed deadline changes nothing, and ``feasible`` comes with a
    valid structure whose objective is its cost."""
    from decoders.linking.cost import distance_cost

    solution = get_decoder("linking", name)(INSTANCE, deadline=time.perf_counter() - 1.0)
    assert solution.status == "feasible" and solution.bound is None
    vertices = INSTANCE.chosen_vertices(solution.structure)
    assert solution.objective == distance_cost(INSTANCE, vertices, "maximal")


@pytest.mark.parametrize("bad", [5, None, 1.5, object()])
def test_graph_rows_refuses_instances_that_are_not_a_sequence(bad):
    """Found here: a number or None gave ``TypeError: ... object is not iterable``."""
    from decoders.linking.scaling import graph_rows

    with pytest.raises(ValueError, match="instances must be a sequence of LinkingInstance"):
        graph_rows("toy", GRAPH, bad)


@pytest.mark.parametrize("bad", [np.zeros(3), None, 3, b"graph.npz"])
def test_graph_paths_must_be_paths(bad):
    from decoders.linking.instance import graph_order, load_graph

    for call in (load_graph, graph_order):
        with pytest.raises(ValueError, match=re.escape("path must be a path (str or os.PathLike)")):
            call(bad)


def test_jobs_name_a_path_or_option_that_is_wrong():
    """Found here: an array, None or a number where a job takes a path gave numpy's or pathlib's TypeError
    ("expected str, bytes or os.PathLike object"), options that are not a mapping an AttributeError, a
    synthetic graph's options without nodes a KeyError."""
    from decoders.linking import jobs

    out = str(_DIR / "out")
    calls = [
        (lambda: jobs.build_synthetic_graph(np.zeros(2), out, out, options={}, seed=0), "degrees_graph"),
        (lambda: jobs.build_synthetic_graph(GRAPH_PATH, None, out, options={}, seed=0), "graph_out"),
        (lambda: jobs.build_synthetic_graph(GRAPH_PATH, out, out, options=[1], seed=0), "options must be a"),
        (
            lambda: jobs.build_synthetic_graph(GRAPH_PATH, out, out, options={}, seed=0),
            "need nodes and edges",
        ),
        (lambda: jobs.build_synthetic_graph(GRAPH_PATH, out, out, options={}, seed="0"), "seed must be"),
        (
            lambda: jobs.build_synthetic_set(GRAPH_PATH, out, out, out, options={}, seed=0),
            "shard_paths must be",
        ),
        (
            lambda: jobs.build_synthetic_set(GRAPH_PATH, [3], out, out, options={}, seed=0),
            r"shard_paths\[0\]",
        ),
        (
            lambda: jobs.build_wikispeedia_set(5, GRAPH_PATH, out, [out], out, out, options={}, seed=0),
            "articles_path must be a path",
        ),  # fmt: skip
        (
            lambda: jobs.build_document_set(out, None, out, GRAPH_PATH, [out], out, out, options={}),
            "mentions_path must be a path",
        ),  # fmt: skip
        (
            lambda: jobs.scaling(
                GRAPH_PATH, out, [out], GRAPH_PATH, out, True, options={}, seed=0, config={}
            ),
            "provenance must be a path",
        ),  # fmt: skip
        (
            lambda: jobs.scaling(
                GRAPH_PATH, out, [out], GRAPH_PATH, out, out, options={}, seed=0, config=None
            ),
            "config must be a mapping",
        ),  # fmt: skip
        (lambda: Graph.load(np.zeros(2)), "path must be a path"),
    ]
    for call, words in calls:
        with pytest.raises((ValueError, DecodersError), match=words):
            call()
