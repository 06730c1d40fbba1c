"""ELEVANT entity-linking benchmarks (``*.benchmark.jsonl``) and their mapping onto Wikispeedia articles.

Each line is one document: ``id``, ``title``, ``text``, ``evaluation_span`` and ``labels``, every label a gold
mention with ``id``, ``span`` ``[start, end]`` (character offsets into ``text``), ``entity_id`` (a Wikidata
QID, or ``<NIL>`` / ``<NO_MAPPING>`` for mentions without a linkable entity), ``name``, ``type`` and,
for nested mentions, ``parent`` / ``children``.

Gold labels are Wikidata QIDs, not Wikipedia titles, so the linking experiment reaches the Wikispeedia graph
only through the label's English ``name`` (:func:`map_to_titles`).
"""

from __future__ import annotations

import gzip
import json
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import checked
from decoders.errors import CorpusFormatError

__all__ = [
    "elevant_stats",
    "lookup_titles",
    "map_to_titles",
    "normalise_title",
    "read_benchmark",
    "read_documents",
]

_MENTION_COLUMNS = [
    "benchmark",
    "doc_id",
    "mention_id",
    "start",
    "end",
    "surface",
    "qid",
    "name",
    "nested",
    "nil",
]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require(document: dict[str, Any], key: str, kind: type, path: Path, line: int, where: str) -> Any:
    """``document[key]``, or a CorpusFormatError if it is missing or not of type ``kind``."""
    if key not in document:
        raise CorpusFormatError(path, line, f"{where}: missing key {key!r}")
    value = document[key]
    valid = _is_int(value) if kind is int else isinstance(value, kind)
    if not valid:
        raise CorpusFormatError(path, line, f"{where}: {key!r} should be {kind.__name__}, got {value!r}")
    return value


def _read_documents_raw(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """Parse and check every document of a benchmark file; return ``(line number, document)`` pairs."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    documents: list[tuple[int, dict[str, Any]]] = []
    seen: dict[int, int] = {}
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                document = json.loads(raw)
            except UnicodeDecodeError as exc:
                raise CorpusFormatError(path, number, f"not valid UTF-8 ({exc.reason})") from None
            except json.JSONDecodeError as exc:
                raise CorpusFormatError(
                    path, number, f"malformed JSON ({exc.msg} at column {exc.colno})"
                ) from None
            if not isinstance(document, dict):
                raise CorpusFormatError(path, number, "expected one JSON object per line")
            doc_id = _require(document, "id", int, path, number, "document")
            if doc_id in seen:
                raise CorpusFormatError(
                    path, number, f"document id {doc_id} already used on line {seen[doc_id]}"
                )
            seen[doc_id] = number
            _require(document, "title", str, path, number, f"document {doc_id}")
            text = _require(document, "text", str, path, number, f"document {doc_id}")
            labels = _require(document, "labels", list, path, number, f"document {doc_id}")
            label_ids = set()
            for label in labels:
                _check_label(label, text, path, number, doc_id, label_ids)
            documents.append((number, document))
    return documents


def _check_label(label: Any, text: str, path: Path, line: int, doc_id: int, label_ids: set[int]) -> None:
    """Check one gold label: integer id unique in its document, span inside the text, QID and name strings."""
    where = f"document {doc_id}, label"
    if not isinstance(label, dict):
        raise CorpusFormatError(path, line, f"{where}: expected a JSON object, got {label!r}")
    label_id = _require(label, "id", int, path, line, where)
    where = f"document {doc_id}, label {label_id}"
    if label_id in label_ids:
        raise CorpusFormatError(path, line, f"{where}: label id used twice")
    label_ids.add(label_id)
    span = _require(label, "span", list, path, line, where)
    if len(span) != 2 or not all(_is_int(x) for x in span):
        raise CorpusFormatError(path, line, f"{where}: span should be [start, end] integers, got {span!r}")
    start, end = span
    if not 0 <= start < end <= len(text):
        raise CorpusFormatError(
            path, line, f"{where}: span [{start}, {end}] is empty or outside the text (length {len(text)})"
        )
    _require(label, "entity_id", str, path, line, where)
    _require(label, "name", str, path, line, where)
    parent = label.get("parent")
    if parent is not None and not _is_int(parent):
        raise CorpusFormatError(path, line, f"{where}: parent should be a label id, got {parent!r}")


@checked(path="path", benchmark="text")
def read_documents(path: str | Path, benchmark: str) -> pd.DataFrame:
    """One row per document: ``benchmark, doc_id, title, text`` in file order (the whole file is checked)."""
    documents = _read_documents_raw(path)
    return pd.DataFrame(
        {
            "benchmark": pd.Series([benchmark] * len(documents), dtype="str"),
            "doc_id": pd.Series([d["id"] for _, d in documents], dtype=np.int64),
            "title": pd.Series([d["title"] for _, d in documents], dtype="str"),
            "text": pd.Series([d["text"] for _, d in documents], dtype="str"),
        }
    )


@checked(path="path", benchmark="text")
def read_benchmark(path: str | Path, benchmark: str) -> pd.DataFrame:
    """One row per gold mention, in file order.

    Columns: ``benchmark``, ``doc_id``, ``mention_id`` (the label id), ``start``, ``end`` (character offsets,
    end exclusive), ``surface`` (``text[start:end]``), ``qid`` (``entity_id`` as given, including ``<NIL>`` /
    ``<NO_MAPPING>``), ``name``, ``nested`` (the mention lies inside another one: it has a ``parent``) and
    ``nil`` (``qid`` is not a Wikidata QID, so the mention has no gold entity to link to).
    """
    rows: list[tuple[Any, ...]] = []
    for _, document in _read_documents_raw(path):
        text = document["text"]
        for label in document["labels"]:
            start, end = label["span"]
            qid = label["entity_id"]
            rows.append(
                (
                    benchmark,
                    document["id"],
                    label["id"],
                    start,
                    end,
                    text[start:end],
                    qid,
                    label["name"],
                    label.get("parent") is not None,
                    not _is_qid(qid),
                )
            )
    frame = pd.DataFrame.from_records(rows, columns=_MENTION_COLUMNS)
    return frame.astype(
        {
            "benchmark": "str",
            "doc_id": np.int64,
            "mention_id": np.int64,
            "start": np.int64,
            "end": np.int64,
            "surface": "str",
            "qid": "str",
            "name": "str",
            "nested": bool,
            "nil": bool,
        }
    )


def _is_qid(value: str) -> bool:
    return len(value) > 1 and value[0] == "Q" and value[1:].isdigit()


_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
_QUOTES = {ord("\u2018"): "'", ord("\u2019"): "'", ord("\u201c"): '"', ord("\u201d"): '"', ord("_"): " "}


@checked(title="text")
def normalise_title(title: str) -> str:
    """The key of the second matching pass of :func:`map_to_titles`.

    Unicode NFKD with combining marks dropped (``Édouard`` -> ``Edouard``), every dash variant -> ``-``,
    curly quotes -> straight ones, ``_`` -> space, case folded, runs of white space collapsed, ends stripped.
    """
    decomposed = unicodedata.normalize("NFKD", title)
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(plain.translate(_DASHES).translate(_QUOTES).casefold().split())


@checked(names=pd.Series, titles=pd.Series)
def lookup_titles(names: pd.Series, titles: pd.Series) -> pd.Series:
    """Each name's Wikispeedia node, nullable ``Int64`` aligned with ``names`` (missing: no article).

    ``titles`` holds article titles indexed by node (``read_articles(...).set_index("node")["title"]``). A name
    (``_`` read as a space, as in Wikipedia's URLs) is first looked up exactly among the titles; failing that,
    its :func:`normalise_title` key is looked up among the titles' keys, and it maps only if exactly one title
    has that key (Wikispeedia holds both ``Polish–Muscovite War (1605–1618)`` and the hyphenated spelling,
    which share a key). Wikispeedia has no redirect pages, so a name maps only to an article of that title.
    """
    if not titles.is_unique:
        raise ValueError("titles must be unique to be used as a lookup")
    exact = pd.Series(titles.index, index=pd.Index(titles.to_numpy()))
    keys = pd.Series(titles.index, index=pd.Index([normalise_title(t) for t in titles]))
    keys = keys[~keys.index.duplicated(keep=False)]
    spaced = names.astype("str").str.replace("_", " ", regex=False)
    by_exact = spaced.map(exact).astype("Int64")
    by_key = spaced.map(normalise_title).map(keys).astype("Int64")
    return by_exact.fillna(by_key).rename("node")


@checked(mentions="frame", titles=pd.Series)
def map_to_titles(mentions: pd.DataFrame, titles: pd.Series) -> pd.Series:
    """Map each mention's gold ``name`` to a Wikispeedia node; nullable ``Int64``, aligned with ``mentions``.

    Rule: a mention whose ``qid`` is not a Wikidata QID (``<NIL>``, ``<NO_MAPPING>``) maps to nothing;
    otherwise its ``name`` maps by :func:`lookup_titles`. Names are Wikidata labels, so an ambiguous label maps
    to the article of that exact title (``Apple`` for Apple Inc. maps to the fruit): the mapping is by name,
    not by identity.
    """
    has_qid = mentions["qid"].map(_is_qid).astype(bool)
    return lookup_titles(mentions["name"], titles).where(has_qid, pd.NA)


@checked(documents="frame", mentions="frame", nodes=pd.Series)
def elevant_stats(
    documents: pd.DataFrame, mentions: pd.DataFrame, nodes: pd.Series
) -> dict[str, dict[str, Any]]:
    """Per-benchmark sizes and Wikispeedia coverage, keyed by benchmark.

    ``nodes`` is :func:`map_to_titles` of ``mentions``. For each benchmark: ``docs``, ``mentions``,
    ``nil_mentions`` (no QID), ``nested_mentions``, ``distinct_entities`` (distinct QIDs),
    ``mapped_mentions``, ``mapped_share`` (of all mentions), ``mapped_share_linkable`` (of mentions with a
    QID), ``distinct_mapped_nodes`` and ``docs_with_2_mapped`` (documents with at least two mapped
    mentions, the ones where graph distances between candidates mean something).
    """
    frame = mentions.assign(node=nodes.to_numpy(), mapped=nodes.notna().to_numpy())
    stats: dict[str, dict[str, Any]] = {}
    for benchmark, docs in documents.groupby("benchmark", sort=True):
        group = frame[frame["benchmark"] == benchmark]
        linkable = group[~group["nil"]]
        mapped = group[group["mapped"]]
        per_doc = mapped.groupby("doc_id").size()
        stats[str(benchmark)] = {
            "docs": len(docs),
            "mentions": len(group),
            "nil_mentions": int(group["nil"].sum()),
            "nested_mentions": int(group["nested"].sum()),
            "distinct_entities": int(linkable["qid"].nunique()),
            "mapped_mentions": len(mapped),
            "mapped_share": len(mapped) / len(group) if len(group) else 0.0,
            "mapped_share_linkable": len(mapped) / len(linkable) if len(linkable) else 0.0,
            "distinct_mapped_nodes": int(mapped["node"].nunique()),
            "docs_with_2_mapped": int((per_doc >= 2).sum()),
        }
    return stats
