"""Prepare steps: corpus files in data/raw -> normalised splits in data/prepared/<dataset>/ plus stats.json.

One function per reader kind (the ``reader`` of a dataset in config.yaml). Each takes the input paths by role
and the output paths by name (as the Snakemake rule names them), writes every output atomically, and returns
the stats it wrote. ``stats.json`` holds ``splits`` (the rows of the corpora table: one per split, with the
table's count columns), ``details`` (everything the reader measured) and ``notes`` (how the split was made).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from decoders.corpora import elevant, wikispeedia
from decoders.io import write_json_atomic, write_parquet_atomic

log = logging.getLogger(__name__)

Paths = Mapping[str, str | Path]


def _write_stats(path: str | Path, dataset: str, reader: str, splits, details=None, notes=()) -> dict:
    stats = {
        "dataset": dataset,
        "reader": reader,
        "splits": splits,
        "details": details or {},
        "notes": list(notes),
    }
    write_json_atomic(path, stats)
    return stats


def prepare_wikispeedia(dataset: str, inputs: Paths, outputs: Paths) -> dict[str, Any]:
    """Articles (with plaintext) and the symmetrised largest connected component as CSR arrays."""
    articles = wikispeedia.read_articles(inputs["articles"])
    links = wikispeedia.read_links(inputs["links"], articles)
    graph = wikispeedia.undirected_lcc(len(articles), links)
    articles = articles.assign(text=wikispeedia.read_plaintext(inputs["plaintext"], articles))
    vertex = pd.Series(graph.new_ids(len(articles)), index=articles.index).astype("Int64")
    articles = articles.assign(vertex=vertex.mask(vertex < 0))  # graph vertex; NA outside the component
    details = wikispeedia.graph_stats(articles, links, graph)
    graph.save(outputs["graph"])
    write_parquet_atomic(outputs["articles"], articles)
    splits = {
        "directed": {"nodes": details["nodes"], "edges": details["directed_links"]},
        "graph": {"nodes": details["lcc_nodes"], "edges": details["lcc_edges"]},
    }
    notes = [
        "directed: the hyperlinks as published; graph: symmetrised, self loops and duplicates dropped, "
        f"largest connected component ({details['components']} components in all); edges are undirected.",
    ]
    return _write_stats(outputs["stats"], dataset, "wikispeedia", splits, details, notes)


def prepare_elevant(
    dataset: str, inputs: Paths, outputs: Paths, *, articles: str | Path, limit: int | None = None
) -> dict[str, Any]:
    """Documents and gold mentions of every benchmark, gold names mapped to Wikispeedia articles."""
    documents, mentions = [], []
    for benchmark, path in inputs.items():
        docs = elevant.read_documents(path, benchmark)
        ments = elevant.read_benchmark(path, benchmark)
        if limit is not None:
            docs = docs.iloc[:limit]
            ments = ments[ments["doc_id"].isin(docs["doc_id"])]
        documents.append(docs)
        mentions.append(ments)
    documents_frame = pd.concat(documents, ignore_index=True)
    mentions_frame = pd.concat(mentions, ignore_index=True)
    titles = pd.read_parquet(articles, columns=["node", "title"]).set_index("node")["title"]
    mentions_frame["node"] = elevant.map_to_titles(mentions_frame, titles)
    details = elevant.elevant_stats(documents_frame, mentions_frame, mentions_frame["node"])
    write_parquet_atomic(outputs["documents"], documents_frame)
    write_parquet_atomic(outputs["mentions"], mentions_frame)
    splits = {
        name: {"documents": d["docs"], "mentions": d["mentions"], "mapped_mentions": d["mapped_mentions"]}
        for name, d in details.items()
    }
    splits["all"] = {key: sum(row[key] for row in splits.values()) for key in next(iter(splits.values()))}
    notes = [
        "mapped_mentions: gold names matched to a Wikispeedia title (exactly, else after Unicode/case "
        "normalisation); NIL mentions never map.",
    ]
    return _write_stats(outputs["stats"], dataset, "elevant", splits, details, notes)
