"""Entity-linking instances from benchmark documents on Wikispeedia: the ELEVANT benchmarks (KORE50, MSNBC,
Reuters-128, Spotlight) and the entity-fishing sets (IITB, ACE 2004, AQUAINT; their gold is a Wikipedia title,
mapped by :func:`decoders.corpora.entity_fishing.gold_nodes`, a span annotated twice counting once).

ELEVANT's gold entities are Wikidata items; :func:`decoders.corpora.elevant.map_to_titles` reaches a
Wikispeedia article through the item's English name, and only mentions whose article lies in the graph (the
LCC) can be linked there. A document is an instance when at least two of its mentions are so mapped (the
paper likewise drops instances left with one set); its candidate sets are the BM25 top-k articles for each
mapped mention's surface text (``Steve``, not the gold name ``Steve Jobs``), so retrieval may miss the gold
article (``gold = -1``); by default the sets of a document are made disjoint
(:func:`~decoders.linking.retrieval.disjoint_candidates`), which may take the gold article from a mention too.
Coverage per benchmark is reported because it is low: Wikispeedia holds 4.6k articles.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import check_int
from decoders.corpora.wikispeedia import Graph
from decoders.linking.checks import check_graph
from decoders.linking.instance import LinkingInstance, _path, rank_of
from decoders.linking.retrieval import ArticleIndex, disjoint_candidates, first_candidates, top_candidates
from decoders.papers import paper_value

__all__ = ["elevant_instances"]


def elevant_instances(
    documents: pd.DataFrame,
    mentions: pd.DataFrame,
    graph: Graph,
    graph_path: str,
    *,
    index: ArticleIndex,
    candidates: int = 100,
    disjoint: bool = True,
    pool: int | None = None,
) -> tuple[list[tuple[str, int, LinkingInstance]], dict[str, Any]]:
    """Instances of the ELEVANT documents with at least two mentions mapped into the graph, and coverage.

    ``documents`` has ``benchmark, doc_id, title`` (:func:`~decoders.corpora.elevant.read_documents`);
    ``mentions`` has ``benchmark, doc_id, start, surface`` and ``node``, the Wikispeedia article node of the
    gold entity or missing (:func:`~decoders.corpora.elevant.map_to_titles`). Mentions are taken in text
    order. ``pool`` (> ``candidates``) ranks deeper first so that sets are refilled after the disjoint step.
    With ``disjoint`` a vertex retrieved for several mentions of a document stays only with the mention
    that ranks it best (ties: the earlier one). A mention left without candidates is dropped. Instance id
    ``<benchmark>-<doc_id>``, size = total candidates. Candidate sets keep BM25's rank order, best first
    (the order decoders break ties by; see :mod:`decoders.linking.instance`).

    Statistics per benchmark: ``docs``, ``mentions``, ``mapped_mentions`` (gold article in the graph),
    ``coverage`` (their share of all mentions), ``linkable_mentions`` (those not NIL, where ``mentions`` has a
    ``nil`` column) and ``mapped_share_linkable`` (the mapped ones' share of them), ``docs_kept``, ``instance_mentions``, ``mean_mentions``,
    ``max_mentions``, ``mean_candidates``, ``gold_missing`` (instance mentions whose gold article is not among
    their candidates), ``candidates_removed`` and ``gold_removed`` (by ``disjoint``, over the mapped mentions
    of documents with two of them); and ``all`` for the union, with the paper's numbers under ``paper``.
    """
    _check_frames(documents, mentions)
    graph = check_graph(graph)
    graph_path = _path(graph_path, "graph_path")
    if not isinstance(index, ArticleIndex):
        raise ValueError(f"index must be an ArticleIndex, got {type(index).__name__}")
    candidates = check_int(candidates, "candidates", minimum=1)
    if pool is not None:
        pool = check_int(pool, "pool", minimum=1)
    if not isinstance(disjoint, bool | np.bool_):
        raise ValueError(f"disjoint must be a bool, got {disjoint!r}")
    nodes = _mention_nodes(mentions)
    frame, chosen = _map_mentions(mentions, nodes, graph)

    deep = top_candidates(index, chosen["surface"].tolist(), k=max(pool or candidates, candidates))
    ranked = deep[:, :candidates]
    document_of = chosen.groupby(["benchmark", "doc_id"], sort=True).ngroup().to_numpy()
    retrieved = first_candidates(disjoint_candidates(deep, document_of), candidates) if disjoint else ranked
    gold_vertex = chosen["vertex"].to_numpy()[:, None]
    found = (retrieved == gold_vertex).any(axis=1)
    removed_gold = (ranked == gold_vertex).any(axis=1) & ~found
    removed = (ranked >= 0).sum(axis=1) - (retrieved >= 0).sum(axis=1)
    matched = (ranked >= 0).any(axis=1)
    usable = (retrieved >= 0).any(axis=1)
    titles = documents.set_index(["benchmark", "doc_id"])["title"]

    instances, benchmark_of = _document_instances(chosen, retrieved, found, usable, graph_path, titles)

    stats: dict[str, Any] = {}
    for benchmark in [*sorted(documents["benchmark"].unique()), "all"]:
        stats[str(benchmark)] = _benchmark_stats(
            benchmark, documents, frame, chosen, instances, benchmark_of, removed, removed_gold
        )
    stats["all"]["mentions_without_candidates"] = int((~matched).sum())
    stats["all"]["mentions_emptied"] = int((matched & ~usable).sum())
    stats["all"]["disjoint"] = bool(disjoint)
    stats["paper"] = {
        key: paper_value(f"linking.setup.{key}")
        for key in ("instances_used", "mean_entities", "max_entities", "mean_candidates", "max_candidates")
    }
    return instances, stats


def _check_frames(documents: pd.DataFrame, mentions: pd.DataFrame) -> None:
    """Check that ``documents`` and ``mentions`` are DataFrames with the columns read here."""
    if not isinstance(documents, pd.DataFrame) or not isinstance(mentions, pd.DataFrame):
        raise ValueError("documents and mentions must be pandas DataFrames")
    if missing := {"benchmark", "doc_id", "title"} - set(documents.columns):
        raise ValueError(f"documents lack columns {sorted(missing)}")
    required = {"benchmark", "doc_id", "start", "surface", "node"}
    if missing := required - set(mentions.columns):
        raise ValueError(f"mentions lack columns {sorted(missing)}")


def _mention_nodes(mentions: pd.DataFrame) -> pd.Series:
    """Read the mentions' article nodes (nullable integers >= 0), checking that mapped ones have a surface."""
    try:
        nodes = mentions["node"].astype("Int64")
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"mentions['node'] must hold article nodes (integers) or missing values: {exc}"
        ) from None
    if (nodes.dropna() < 0).any():
        at = int(np.argmax((nodes.fillna(0) < 0).to_numpy()))
        raise ValueError(f"mentions['node'][{at}] is {nodes.iloc[at]}: article nodes are >= 0")
    if not all(isinstance(text, str) for text in mentions.loc[nodes.notna().to_numpy(), "surface"].tolist()):
        raise ValueError("mentions['surface'] must hold strings (on every mention with a node)")
    return nodes


def _map_mentions(
    mentions: pd.DataFrame, nodes: pd.Series, graph: Graph
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Map mentions to graph vertices: (all mentions in text order, those of documents with two mapped)."""
    n_original = int(max(graph.original_node.max(), nodes.max(skipna=True) if nodes.notna().any() else 0)) + 1
    vertex_of = graph.new_ids(n_original)
    vertex = np.full(len(mentions), -1, dtype=np.int32)
    mapped = nodes.notna().to_numpy()
    vertex[mapped] = vertex_of[nodes[mapped].to_numpy(dtype=np.int64)]
    frame = mentions.assign(vertex=vertex).sort_values(["benchmark", "doc_id", "start"], kind="stable")
    linked = frame[frame["vertex"] >= 0]
    per_doc = linked.groupby(["benchmark", "doc_id"]).size()
    kept_docs = per_doc.index[per_doc >= 2]
    in_kept = pd.MultiIndex.from_frame(linked[["benchmark", "doc_id"]]).isin(kept_docs)
    return frame, linked[in_kept].reset_index(drop=True)


def _document_instances(
    chosen: pd.DataFrame,
    retrieved: np.ndarray,
    found: np.ndarray,
    usable: np.ndarray,
    graph_path,
    titles: pd.Series,
) -> tuple[list[tuple[str, int, LinkingInstance]], list[str]]:
    """Build an instance per document with two mentions with candidates: (instances, their benchmarks)."""
    instances: list[tuple[str, int, LinkingInstance]] = []
    benchmark_of: list[str] = []
    for (benchmark, doc_id), rows in chosen.groupby(["benchmark", "doc_id"], sort=True).indices.items():
        rows = rows[usable[rows]]
        if rows.size < 2:
            continue
        sets = tuple(retrieved[r][retrieved[r] >= 0] for r in rows)  # BM25 rank order, best first
        gold = [
            rank_of(s, chosen["vertex"].iat[r]) if found[r] else -1 for s, r in zip(sets, rows, strict=True)
        ]
        instance = LinkingInstance(
            graph_path=str(graph_path),
            sets=sets,
            gold=np.array(gold),
            mentions=tuple(chosen["surface"].iloc[rows]),
            document=str(titles.get((benchmark, doc_id), f"{benchmark} {doc_id}")),
        )
        instances.append((f"{benchmark}-{doc_id}", instance.n_candidates, instance))
        benchmark_of.append(str(benchmark))
    return instances, benchmark_of


def _benchmark_stats(
    benchmark: str,
    documents: pd.DataFrame,
    frame: pd.DataFrame,
    chosen: pd.DataFrame,
    instances: list[tuple[str, int, LinkingInstance]],
    benchmark_of: list[str],
    removed: np.ndarray,
    removed_gold: np.ndarray,
) -> dict[str, Any]:
    """Coverage and instance statistics of one benchmark (``"all"``: of every benchmark)."""
    every = benchmark == "all"
    own = [inst for inst, b in zip(instances, benchmark_of, strict=True) if every or b == benchmark]
    ks = np.array([inst.k for _, _, inst in own], dtype=np.int64)
    sizes = np.array([s.size for _, _, inst in own for s in inst.sets], dtype=np.int64)
    golds = np.concatenate([inst.gold for _, _, inst in own]) if own else np.empty(0, dtype=np.int32)
    group = frame if every else frame[frame["benchmark"] == benchmark]
    n_mentions = len(group)
    n_mapped = int((group["vertex"] >= 0).sum())
    n_linkable = int((~group["nil"].astype(bool)).sum()) if "nil" in group else n_mentions
    in_group = np.ones(len(chosen), dtype=bool) if every else (chosen["benchmark"] == benchmark).to_numpy()
    return {
        "docs": int(len(documents) if every else (documents["benchmark"] == benchmark).sum()),
        "mentions": n_mentions,
        "mapped_mentions": n_mapped,
        "coverage": n_mapped / n_mentions if n_mentions else 0.0,
        "linkable_mentions": n_linkable,
        "mapped_share_linkable": n_mapped / n_linkable if n_linkable else 0.0,
        "docs_kept": len(own),
        "instance_mentions": int(ks.sum()),
        "mean_mentions": float(ks.mean()) if own else 0.0,
        "max_mentions": int(ks.max()) if own else 0,
        "mean_candidates": float(sizes.mean()) if own else 0.0,
        "gold_missing": int((golds < 0).sum()),
        "candidates_removed": int(removed[in_group].sum()),
        "gold_removed": int(removed_gold[in_group].sum()),
    }
