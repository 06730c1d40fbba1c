"""Entity-linking instances from Wikispeedia's own hyperlinks (links as labels).

Blanco et al.'s NEL set (Kulkarni et al.'s annotations over a 2013 Wikipedia) is not open, so the instances
here come from the articles themselves: in a source article, every article it links to whose title (or the
title without its parenthesised part: ``Java (programming language)`` -> ``Java``) occurs in the body as
whole words is a mention at its first occurrence, and the link target is the fair candidate. Candidates are
the BM25 top-k articles for the mention text (:mod:`decoders.linking.retrieval`), so a mention whose target
BM25 misses keeps ``gold = -1``, as in the paper's setting where retrieval fixes the candidate sets. By
default the sets of a document are made disjoint (:func:`~decoders.linking.retrieval.disjoint_candidates`),
like the paper's dictionary candidates; a target given to another mention that way is missing too. Each set
keeps BM25's rank order (best first), as the paper's ranked BM25F top-100 lists do, and decoders break ties by
it; no gold information enters the order.

Documents and mentions are sampled with a fixed seed so that the number of mentions per instance follows
the paper's (mean 11.73, at most 53): a target size is drawn per document from a log-normal clipped to
2..53 and that many of the document's mentions are kept, in text order.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import check_float, check_int, check_text
from decoders.corpora.wikispeedia import Graph
from decoders.linking.checks import check_graph, check_span, integer_array
from decoders.linking.instance import LinkingInstance, _path, rank_of
from decoders.linking.retrieval import ArticleIndex, disjoint_candidates, first_candidates, top_candidates
from decoders.papers import paper_value

__all__ = [
    "body_start",
    "find_link_mentions",
    "find_phrase",
    "non_overlapping",
    "sample_sizes",
    "strip_parenthesised",
    "wikispeedia_instances",
]

_PARENTHESISED = re.compile(r"\s*\([^()]*\)")
MENTION_COLUMNS = ["source", "target", "start", "end", "surface", "matched"]


def _links(links, name: str) -> np.ndarray:
    """An ``(m, 2)`` integer array of article nodes (>= 0)."""
    links = integer_array(links, name, ndim=2) if np.asarray(links).size else np.zeros((0, 2), dtype=np.int64)
    if links.shape[1] != 2:
        raise ValueError(f"{name} must have shape (m, 2) (source, target), got {links.shape}")
    return check_span(links, name, 0, np.iinfo(np.int64).max)


def _frame(frame, name: str, columns: tuple[str, ...]) -> pd.DataFrame:
    """A DataFrame holding ``columns``."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    if missing := [c for c in columns if c not in frame.columns]:
        raise ValueError(f"{name} lacks columns {missing}")
    return frame


def strip_parenthesised(title: str) -> str:
    """The title without parenthesised parts (``Mercury (planet)`` -> ``Mercury``), white space collapsed."""
    title = check_text(title, "title")
    return " ".join(_PARENTHESISED.sub("", title).split())


def body_start(text: str) -> int:
    """Offset where the article body starts: after the Schools-Wikipedia header (``#copyright``, the
    title, ``Related subjects: ...``), so that the title line and category list are not taken as mentions.
    Texts without that header start at 0."""
    text = check_text(text, "text")
    marker = text.find("Related subjects:")
    if marker < 0:
        return 0
    end = text.find("\n\n", marker)
    return len(text) if end < 0 else end


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def find_phrase(haystack: str, phrase: str) -> int:
    """First whole-word occurrence of ``phrase`` in ``haystack`` (both lower-cased, single-spaced), or -1.

    Whole word: the characters on either side, if any, are not word characters (``\\w``), the boundary
    rule of a regular expression's ``\\b`` for phrases that start and end with a word character.
    """
    haystack = check_text(haystack, "haystack")
    phrase = check_text(phrase, "phrase")
    if not phrase:
        raise ValueError("cannot search for an empty phrase")
    at = haystack.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        if (at == 0 or not _is_word_char(haystack[at - 1])) and (
            end == len(haystack) or not _is_word_char(haystack[end])
        ):
            return at
        at = haystack.find(phrase, at + 1)
    return -1


def find_link_mentions(texts: pd.Series, titles: pd.Series, links: np.ndarray) -> pd.DataFrame:
    """Locate every link's target in its source article's body.

    ``texts`` and ``titles`` are indexed by article node; ``links`` is an ``(m, 2)`` array of
    ``(source, target)`` nodes. The body (after :func:`body_start`) has its white-space runs collapsed to
    single spaces, since the plaintext is wrapped and a title may straddle a line break. For each link the
    first whole-word, case-insensitive occurrence of the target title is searched in it; failing that, of
    the title without its parenthesised part. Returns one row per link, grouped by source, with columns
    ``source, target, start, end`` (offsets into the collapsed body; -1 if not found), ``surface`` (the
    occurrence as written; empty if not found) and ``matched`` (``title``, ``stripped`` or ``none``).
    Every node of ``links`` must be in the index of both ``texts`` and ``titles`` (strings).
    """
    links = _links(links, "links")
    for name, series, column in (("texts", texts, 0), ("titles", titles, None)):
        if not isinstance(series, pd.Series):
            raise ValueError(
                f"{name} must be a pandas Series indexed by article node, got {type(series).__name__}"
            )
        nodes = links.ravel() if column is None else links[:, column]
        known = series.index.get_indexer(nodes) >= 0 if nodes.size else np.ones(0, dtype=bool)
        if not known.all():
            at = int(np.argmax(~known))
            row, col = (at // 2, at % 2) if column is None else (at, column)
            raise ValueError(
                f"links[{row}, {col}] = {nodes[at]} is not an article node of {name} (its index)"
            )
        needed = series if column is None else series.loc[np.unique(nodes)]
        bad = ~np.array([isinstance(value, str) for value in needed.tolist()], dtype=bool)
        if bad.any():
            at = int(np.argmax(bad))
            raise ValueError(f"{name}[{needed.index[at]!r}] must be a string, got {needed.iloc[at]!r}")
    rows: list[tuple[int, int, int, int, str, str]] = []
    keys = {node: " ".join(title.lower().split()) for node, title in titles.items()}
    stripped_keys = {node: strip_parenthesised(title).lower() for node, title in titles.items()}
    order = np.argsort(links[:, 0], kind="stable")
    previous = None
    body = low = ""
    for source, target in links[order].tolist():
        if source != previous:
            text = texts[source]
            body = " ".join(text[body_start(text) :].split())
            low = body.lower()
            if len(low) != len(body):  # a character whose lower case has another length: offsets differ
                low = "".join(char if len(char.lower()) != 1 else char.lower() for char in body)
            previous = source
        key, kind = keys[target], "title"
        at = find_phrase(low, key)
        if at < 0 and stripped_keys[target] and stripped_keys[target] != key:
            key, kind = stripped_keys[target], "stripped"
            at = find_phrase(low, key)
        if at < 0:
            rows.append((source, target, -1, -1, "", "none"))
        else:
            rows.append((source, target, at, at + len(key), body[at : at + len(key)], kind))
    frame = pd.DataFrame.from_records(rows, columns=MENTION_COLUMNS)
    return frame.astype({"source": np.int64, "target": np.int64, "start": np.int64, "end": np.int64})


def non_overlapping(mentions: pd.DataFrame) -> pd.DataFrame:
    """Keep, per source, a set of mentions whose spans do not overlap: by start, the longest first (ties by
    target node), each kept unless it overlaps one kept before. Rows come back sorted by source and start.
    ``mentions`` has integer columns ``source, target, start, end`` (:func:`find_link_mentions`)."""
    mentions = _frame(mentions, "mentions", ("source", "target", "start", "end"))
    for column in ("source", "target", "start", "end"):
        integer_array(mentions[column].to_numpy(), f"mentions[{column!r}]")
    ordered = mentions.assign(length=mentions["end"] - mentions["start"]).sort_values(
        ["source", "start", "length", "target"], ascending=[True, True, False, True], kind="stable"
    )
    keep = np.zeros(len(ordered), dtype=bool)
    reach = -1
    previous_source = None
    for i, (source, start, end) in enumerate(
        zip(ordered["source"].tolist(), ordered["start"].tolist(), ordered["end"].tolist(), strict=True)
    ):
        if source != previous_source:
            previous_source, reach = source, -1
        if start >= reach:
            keep[i] = True
            reach = end
    return ordered[keep].drop(columns="length").reset_index(drop=True)


def sample_sizes(
    rng: np.random.Generator, n: int, mean: float, maximum: int, sigma: float = 0.6
) -> np.ndarray:
    """``n`` instance sizes from a log-normal with the given mean, rounded and clipped to ``2..maximum``
    (``rng`` a numpy Generator, ``n`` >= 0 and ``maximum`` >= 2 integers, ``mean`` > 0 and ``sigma`` >= 0
    finite)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    n = check_int(n, "n", minimum=0)
    mean = check_float(mean, "mean", positive=True)
    maximum = check_int(maximum, "maximum", minimum=2)
    sigma = check_float(sigma, "sigma", minimum=0.0)
    mu = np.log(mean) - sigma**2 / 2
    return np.clip(np.rint(rng.lognormal(mu, sigma, size=n)), 2, maximum).astype(np.int64)


def _paper_setup() -> dict[str, Any]:
    keys = ("instances_used", "mean_entities", "max_entities", "mean_candidates", "max_candidates")
    return {key: paper_value(f"linking.setup.{key}") for key in keys}


def wikispeedia_instances(
    articles: pd.DataFrame,
    links: np.ndarray,
    graph: Graph,
    graph_path: str,
    *,
    index: ArticleIndex,
    n_documents: int = 400,
    candidates: int = 100,
    seed: int = 0,
    mean_mentions: float | None = None,
    max_mentions: int | None = None,
    disjoint: bool = True,
    pool: int | None = None,
) -> tuple[list[tuple[str, int, LinkingInstance]], dict[str, Any]]:
    """NEL instances from the hyperlinks of ``n_documents`` sampled articles, and their statistics.

    ``articles`` has columns ``node, title, text`` (:func:`~decoders.corpora.wikispeedia.read_articles` plus
    ``read_plaintext``); ``links`` is :func:`~decoders.corpora.wikispeedia.read_links`'s array; ``graph`` the
    undirected LCC saved at ``graph_path``; ``index`` the BM25 index over the graph's articles.
    Links are taken once each, between distinct articles of the graph. ``n_documents`` target sizes are
    drawn from a log-normal (mean ``mean_mentions``, clipped to 2..``max_mentions``; by default the paper's
    11.73 and 53); for each, an unused article with at least that many (non-overlapping) mentions is drawn
    (the one with the most if none has enough) and that many of its mentions are kept, chosen at random, in
    text order. Candidate sets are the BM25 top ``candidates`` for the mention text in rank order (best
    first), the order every decoder breaks ties by (:mod:`decoders.linking.instance`). With ``disjoint`` a vertex retrieved for several
    mentions of a document stays only with the mention that ranks it best (ties: the earlier one), and a
    target so removed counts as missing (``gold = -1``); with ``pool`` > ``candidates`` the BM25 ranking is
    taken that deep first, so that each set is refilled up to ``candidates`` after the disjoint step. A
    mention left without candidates is dropped, and a document left with fewer than two mentions too. Returns ``(instance_id, size, instance)`` triples (id =
    the article's URL name, size = total candidates, the decoding work) and a statistics dict with the
    paper's numbers beside the measured ones; ``candidates_removed``, ``mentions_emptied`` and
    ``gold_removed`` count what ``disjoint`` took away.
    """
    articles = _frame(articles, "articles", ("node", "name", "title", "text"))
    graph = check_graph(graph)
    graph_path = _path(graph_path, "graph_path")
    if not isinstance(index, ArticleIndex):
        raise ValueError(f"index must be an ArticleIndex, got {type(index).__name__}")
    n_documents, candidates, seed, mean_mentions, max_mentions, pool = _check_sampling_options(
        n_documents, candidates, seed, mean_mentions, max_mentions, pool, disjoint
    )
    links = _check_article_links(articles, links, graph)
    mean_mentions = paper_value("linking.setup.mean_entities") if mean_mentions is None else mean_mentions
    max_mentions = paper_value("linking.setup.max_entities") if max_mentions is None else max_mentions
    vertex_of = graph.new_ids(len(articles))
    texts = articles.set_index("node")["text"]
    titles = articles.set_index("node")["title"]
    names = articles.set_index("node")["name"]

    graph_links, located, mentions = _graph_link_mentions(texts, titles, links, vertex_of)
    per_document = mentions.groupby("source").size()
    eligible = per_document.index[per_document >= 2].to_numpy()

    if not 1 <= n_documents <= eligible.size:
        raise ValueError(f"n_documents must lie in 1..{eligible.size} (articles with two mentions)")
    rng = np.random.default_rng(seed)
    sizes = sample_sizes(rng, n_documents, mean_mentions, max_mentions)
    picked = _pick_documents(rng, sizes, mentions, per_document)
    sample = pd.concat(picked, ignore_index=True)

    ranked, retrieved = _retrieve_candidates(index, sample, candidates, pool, disjoint)
    target_vertex = vertex_of[sample["target"].to_numpy()]
    hit = ranked == target_vertex[:, None]
    rank = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)  # the target's BM25 rank, before disjoint
    kept = (retrieved == target_vertex[:, None]).any(axis=1)
    matched = (ranked >= 0).any(axis=1)
    usable = (retrieved >= 0).any(axis=1)

    instances = _document_instances(sample, retrieved, target_vertex, kept, usable, graph_path, titles, names)
    stats = {
        **_corpus_stats(graph, graph_links, located, mentions, eligible, picked),
        **_retrieval_stats(ranked, retrieved, rank, kept, matched, usable, disjoint),
        **_instance_stats(instances, rank[matched]),
        "paper": _paper_setup(),
    }
    return instances, stats


def _check_sampling_options(
    n_documents, candidates, seed, mean_mentions, max_mentions, pool, disjoint
) -> tuple[int, int, int, float | None, int | None, int | None]:
    """Check the sampling and retrieval options; return them checked (``disjoint`` is only checked)."""
    n_documents = check_int(n_documents, "n_documents", minimum=1)
    candidates = check_int(candidates, "candidates", minimum=1)
    seed = check_int(seed, "seed", minimum=0)
    if mean_mentions is not None:
        mean_mentions = check_float(mean_mentions, "mean_mentions", positive=True)
    if max_mentions is not None:
        max_mentions = check_int(max_mentions, "max_mentions", minimum=2)
    if pool is not None:
        pool = check_int(pool, "pool", minimum=1)
    if not isinstance(disjoint, bool | np.bool_):
        raise ValueError(f"disjoint must be a bool, got {disjoint!r}")
    return n_documents, candidates, seed, mean_mentions, max_mentions, pool


def _check_article_links(articles: pd.DataFrame, links, graph: Graph) -> np.ndarray:
    """Check that article nodes, ``links`` and the graph's original nodes agree; the checked links."""
    nodes = integer_array(articles["node"].to_numpy(), "articles['node']")
    if not np.array_equal(nodes, np.arange(len(articles))):
        raise ValueError("articles['node'] must be 0..len(articles)-1 in order (read_articles' numbering)")
    links = _links(links, "links")
    check_span(links, "links", 0, len(articles) - 1)
    if graph.original_node.size and (
        graph.original_node.min() < 0 or graph.original_node.max() >= len(articles)
    ):
        raise ValueError(f"graph.original_node must name article nodes 0..{len(articles) - 1}")
    return links


def _graph_link_mentions(
    texts: pd.Series, titles: pd.Series, links: np.ndarray, vertex_of: np.ndarray
) -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame]:
    """Locate the links between distinct graph articles: (links, located ones, non-overlapping mentions)."""
    directed = np.unique(np.asarray(links, dtype=np.int64), axis=0)
    in_graph = (vertex_of[directed[:, 0]] >= 0) & (vertex_of[directed[:, 1]] >= 0)
    graph_links = directed[in_graph & (directed[:, 0] != directed[:, 1])]
    found = find_link_mentions(texts, titles, graph_links)
    located = found[found["matched"] != "none"]
    return graph_links, located, non_overlapping(located)


def _pick_documents(
    rng: np.random.Generator, sizes: np.ndarray, mentions: pd.DataFrame, per_document: pd.Series
) -> list[pd.DataFrame]:
    """Draw an unused document per target size and that many of its mentions (text order), a frame each."""
    available = per_document[per_document >= 2]
    groups = dict(tuple(mentions.groupby("source")))
    picked: list[pd.DataFrame] = []
    for size in sizes.tolist():
        # a document drawn among the unused ones with at least `size` mentions, so that sizes follow the draw
        fits = available.index[available.to_numpy() >= size]
        if fits.size == 0:
            fits = available.index[available.to_numpy() == available.max()]
        source = int(fits[rng.integers(fits.size)])
        available = available.drop(source)
        group = groups[source]
        rows = np.sort(rng.choice(len(group), size=min(size, len(group)), replace=False))
        picked.append(group.iloc[rows])
    return picked


def _retrieve_candidates(
    index: ArticleIndex, sample: pd.DataFrame, candidates: int, pool: int | None, disjoint: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Retrieve BM25 candidates per sampled mention: (top ``candidates``, sets after the disjoint step)."""
    deep = top_candidates(index, sample["surface"].tolist(), k=max(pool or candidates, candidates))
    ranked = deep[:, :candidates]
    retrieved = (
        first_candidates(disjoint_candidates(deep, sample["source"].to_numpy()), candidates)
        if disjoint
        else ranked
    )
    return ranked, retrieved


def _document_instances(
    sample: pd.DataFrame,
    retrieved: np.ndarray,
    target_vertex: np.ndarray,
    kept: np.ndarray,
    usable: np.ndarray,
    graph_path,
    titles: pd.Series,
    names: pd.Series,
) -> list[tuple[str, int, LinkingInstance]]:
    """Build an ``(instance_id, size, instance)`` per sampled document with two mentions with candidates."""
    instances: list[tuple[str, int, LinkingInstance]] = []
    for source, rows in sample.groupby("source", sort=True).indices.items():
        rows = rows[usable[rows]]
        if rows.size < 2:
            continue
        sets = tuple(retrieved[r][retrieved[r] >= 0] for r in rows)  # BM25 rank order, best first
        gold = [
            rank_of(s, t) if kept[r] else -1 for s, t, r in zip(sets, target_vertex[rows], rows, strict=True)
        ]
        instance = LinkingInstance(
            graph_path=str(graph_path),
            sets=sets,
            gold=np.array(gold),
            mentions=tuple(sample["surface"].iloc[rows]),
            document=str(titles[source]),
        )
        instances.append((str(names[source]), instance.n_candidates, instance))
    return instances


def _corpus_stats(
    graph: Graph,
    graph_links: np.ndarray,
    located: pd.DataFrame,
    mentions: pd.DataFrame,
    eligible: np.ndarray,
    picked: list[pd.DataFrame],
) -> dict[str, Any]:
    """Statistics of the links, their mentions and the documents sampled."""
    kinds = located["matched"].value_counts()
    return {
        "graph_documents": int(graph.n_nodes),
        "graph_links": len(graph_links),
        "links_title_found": int(kinds.get("title", 0)),
        "links_stripped_found": int(kinds.get("stripped", 0)),
        "links_found_share": len(located) / len(graph_links),
        "mentions_non_overlapping": len(mentions),
        "documents_with_2_mentions": int(eligible.size),
        "documents_sampled": len(picked),
    }


def _retrieval_stats(
    ranked: np.ndarray,
    retrieved: np.ndarray,
    rank: np.ndarray,
    kept: np.ndarray,
    matched: np.ndarray,
    usable: np.ndarray,
    disjoint: bool,
) -> dict[str, Any]:
    """Statistics of the retrieval: mentions without candidates and what the disjoint step took away."""
    return {
        "mentions_without_candidates": int((~matched).sum()),
        "disjoint": bool(disjoint),
        "candidates_removed": int((ranked >= 0).sum() - (retrieved >= 0).sum()),
        "candidates_removed_share": float(1 - (retrieved >= 0).sum() / max(int((ranked >= 0).sum()), 1)),
        "mentions_emptied": int((matched & ~usable).sum()),
        "gold_removed": int(((rank >= 0) & ~kept).sum()),
    }


def _instance_stats(
    instances: list[tuple[str, int, LinkingInstance]], matched_rank: np.ndarray
) -> dict[str, Any]:
    """Statistics of the instances; ``matched_rank`` holds the gold BM25 ranks of mentions with candidates."""
    set_sizes = np.array([s.size for _, _, inst in instances for s in inst.sets])
    ks = np.array([inst.k for _, _, inst in instances])
    golds = np.concatenate([inst.gold for _, _, inst in instances])
    return {
        "instances": len(instances),
        "mean_mentions": float(ks.mean()),
        "max_mentions": int(ks.max()),
        "mean_candidates": float(set_sizes.mean()),
        "min_candidates": int(set_sizes.min()),
        "max_candidates": int(set_sizes.max()),
        "gold_missing": int((golds < 0).sum()),
        "gold_missing_share": float((golds < 0).mean()),
        "gold_rank_1_share": float((matched_rank == 0).mean()),
        "gold_in_top_10_share": float(((matched_rank >= 0) & (matched_rank < 10)).mean()),
        "instances_with_all_gold": int(sum(inst.gold_structure() is not None for _, _, inst in instances)),
    }
