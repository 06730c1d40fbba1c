"""Entity-linking sets with Wikipedia-title gold, as entity-fishing packages them (IITB, ACE 2004, AQUAINT,
WNED-CWEB, WNED-WIKI).

A set is one XML file, ``<set>.xml``: a root element holding one ``<document docName="...">`` per document, each
with ``<annotation>`` children of ``<mention>`` (the text as annotated), ``<wikiName>`` (the English Wikipedia
title of the gold entity; empty or ``NIL`` for none), ``<offset>`` and ``<length>`` (characters into the
document's raw text); and a folder ``RawText/`` holding each document's raw text under its ``docName``.

What the files hold, measured on the mirror's copies (entity-fishing at 52b0970): IITB has 19,751 annotations in
104 documents, 7,652 of them NIL and 1,443 repeating the span of an earlier annotation of the same document (its
annotators' overlapping work); every IITB mention equals the raw text at its offset. WNED-CWEB has 22 and WNED-WIKI
11 annotations whose mention differs from the raw text there, and WNED-WIKI 13 documents without a raw text (and
one ``docName`` used twice). The reader keeps what the files say and marks those cases (``matches``, ``repeat``,
the statistics), so that the instance builder decides what to use and the tables can count it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import checked
from decoders.corpora.elevant import lookup_titles
from decoders.errors import CorpusFormatError

__all__ = ["NIL_TITLES", "gold_nodes", "read_set", "set_stats"]

#: wikiName values that mean "no entity" (compared after stripping white space)
NIL_TITLES = frozenset({"", "NIL", "--NME--"})

_FIELDS = ("mention", "wikiName", "offset", "length")


def _field(annotation: ET.Element, name: str, path: Path, where: str) -> str:
    """The text of ``annotation``'s child ``name`` ('' when the child is empty); an error if it is missing."""
    child = annotation.find(name)
    if child is None:
        raise CorpusFormatError(path, None, f"{where}: missing <{name}>")
    return child.text or ""


def _integer(value: str, name: str, path: Path, where: str) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise CorpusFormatError(
            path, None, f"{where}: <{name}> should be an integer, got {value!r}"
        ) from None
    if number < 0:
        raise CorpusFormatError(path, None, f"{where}: <{name}> is {number}, should be >= 0")
    return number


def _read_text(raw_dir: Path, name: str, xml_path: Path) -> str | None:
    """A document's raw text, None when the set holds no file for it. The name must be a plain file name."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise CorpusFormatError(xml_path, None, f"document {name!r}: docName is not a file name")
    file = raw_dir / name
    if not file.is_file():
        return None
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusFormatError(file, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None


@checked(xml_path="path", benchmark="text")
def read_set(xml_path: str | Path, benchmark: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read one set: ``(documents, mentions)``, both in file order.

    ``documents``: ``benchmark``, ``doc_id`` (the ``docName``), ``title`` (the same), ``text`` (the raw text from
    ``RawText/`` beside the XML file, '' where the set has none) and ``has_text`` (it has one; the annotations
    of a document without one are left out: their offsets point into nothing).

    ``mentions``: ``benchmark``, ``doc_id``, ``mention_id`` (the annotation's index in its document, from 0),
    ``start``, ``end`` (character offsets, end exclusive), ``surface`` (the raw text there), ``mention`` (the
    XML's own mention text), ``matches`` (the two agree), ``wiki_title`` (the gold title as given, or '' for
    NIL), ``nil`` and ``repeat`` (an earlier annotation of the document has the same span).

    A malformed file, a missing field, a non-integer or negative offset or length, a span that is empty or ends
    past the raw text, and a ``docName`` used twice raise :class:`CorpusFormatError` naming the file, the
    document and the annotation.
    """
    xml_path = Path(xml_path)
    raw_dir = xml_path.parent / "RawText"
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError as exc:
        line, column = exc.position
        raise CorpusFormatError(
            xml_path, line, f"malformed XML ({exc.msg.split(':')[0]}, column {column})"
        ) from None
    except FileNotFoundError:
        raise CorpusFormatError(xml_path, None, "no such file") from None
    documents: list[tuple[str, str]] = []
    rows: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for number, document in enumerate(root, start=1):
        if document.tag != "document":
            raise CorpusFormatError(
                xml_path, None, f"element {number} is <{document.tag}>, expected <document>"
            )
        name = document.get("docName")
        if name is None:
            raise CorpusFormatError(xml_path, None, f"document {number} has no docName")
        if name in seen:
            raise CorpusFormatError(
                xml_path, None, f"document {name!r} (element {number}): docName used twice"
            )
        seen.add(name)
        text = _read_text(raw_dir, name, xml_path)
        documents.append((name, text))
        if text is not None:
            rows.extend(_annotations(document, name, text, xml_path))
    return _frames(benchmark, documents, rows)


def _annotations(document: ET.Element, name: str, text: str, path: Path) -> list[tuple[Any, ...]]:
    """The rows of one document's annotations (see :func:`read_set`)."""
    rows: list[tuple[Any, ...]] = []
    spans: set[tuple[int, int]] = set()
    for index, annotation in enumerate(document.findall("annotation")):
        where = f"document {name!r}, annotation {index}"
        mention, title, offset, length = (_field(annotation, f, path, where) for f in _FIELDS)
        start = _integer(offset, "offset", path, where)
        size = _integer(length, "length", path, where)
        end = start + size
        if size == 0 or end > len(text):
            raise CorpusFormatError(
                path,
                None,
                f"{where}: span [{start}, {end}) is empty or past the raw text ({len(text)} characters)",
            )
        title = title.strip()
        nil = title in NIL_TITLES
        surface = text[start:end]
        rows.append(
            (
                name,
                index,
                start,
                end,
                surface,
                mention,
                surface == mention,
                "" if nil else title,
                nil,
                (start, end) in spans,
            )
        )
        spans.add((start, end))
    return rows


def _frames(
    benchmark: str, documents: list[tuple[str, str | None]], rows: list[tuple[Any, ...]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    docs = pd.DataFrame(
        {
            "benchmark": pd.Series([benchmark] * len(documents), dtype="str"),
            "doc_id": pd.Series([n for n, _ in documents], dtype="str"),
            "title": pd.Series([n for n, _ in documents], dtype="str"),
            "text": pd.Series([t or "" for _, t in documents], dtype="str"),
            "has_text": pd.Series([t is not None for _, t in documents], dtype=bool),
        }
    )
    columns = [
        "doc_id",
        "mention_id",
        "start",
        "end",
        "surface",
        "mention",
        "matches",
        "wiki_title",
        "nil",
        "repeat",
    ]
    mentions = pd.DataFrame.from_records(rows, columns=columns)
    mentions.insert(0, "benchmark", benchmark)
    return docs, mentions.astype(
        {
            "benchmark": "str",
            "doc_id": "str",
            "mention_id": np.int64,
            "start": np.int64,
            "end": np.int64,
            "surface": "str",
            "mention": "str",
            "matches": bool,
            "wiki_title": "str",
            "nil": bool,
            "repeat": bool,
        }
    )


@checked(mentions="frame", titles=pd.Series)
def gold_nodes(mentions: pd.DataFrame, titles: pd.Series) -> pd.Series:
    """Each mention's gold Wikispeedia node, nullable ``Int64`` aligned with ``mentions`` (missing: none).

    ``titles`` holds article titles indexed by node. A span annotated several times (``repeat``) is one mention:
    its first annotation carries the node of the first of its titles, in file order, that maps
    (:func:`~decoders.corpora.elevant.lookup_titles`); the repeats carry none. NIL titles never map. Where the
    annotators gave one span two titles that both map, the first is the gold one (:func:`set_stats` counts such
    spans as ``disagreeing_spans``).
    """
    missing = {"doc_id", "start", "end", "wiki_title", "nil", "repeat"} - set(mentions.columns)
    if missing:
        raise ValueError(f"mentions lack columns {sorted(missing)}")
    mapped = lookup_titles(mentions["wiki_title"], titles).where(~mentions["nil"].to_numpy(dtype=bool), pd.NA)
    spans = [mentions["doc_id"], mentions["start"], mentions["end"]]
    first = mapped.groupby(spans, sort=False).transform("first")
    return first.where(~mentions["repeat"].to_numpy(dtype=bool), pd.NA).astype("Int64").rename("node")


@checked(documents="frame", mentions="frame", nodes=pd.Series)
def set_stats(documents: pd.DataFrame, mentions: pd.DataFrame, nodes: pd.Series) -> dict[str, dict[str, Any]]:
    """Per-set sizes and Wikispeedia coverage, keyed by benchmark.

    ``nodes`` is :func:`gold_nodes` of ``mentions``. For each set: ``docs``, ``docs_without_text``, ``mentions``
    (annotations of the documents with a text),
    ``nil_mentions``, ``repeated_spans``, ``disagreeing_spans`` (spans given two different non-NIL titles),
    ``mismatched_spans`` (mention text differs from the raw text there), ``linkable_mentions`` (spans with a
    non-NIL title), ``distinct_entities`` (distinct gold titles),
    ``mapped_mentions`` (linkable and mapped), ``mapped_share`` (of linkable mentions),
    ``distinct_mapped_entities``, ``mean_mapped_per_doc`` and ``docs_with_2_mapped``.
    """
    frame = mentions.assign(node=nodes.to_numpy())
    stats: dict[str, dict[str, Any]] = {}
    for benchmark, docs in documents.groupby("benchmark", sort=True):
        group = frame[frame["benchmark"] == benchmark]
        titled = group[~group["nil"]]
        per_span = titled.groupby(["doc_id", "start", "end"], sort=False)["wiki_title"].nunique()
        linkable = group[~group["repeat"]].merge(
            per_span.rename("titles").reset_index(), on=["doc_id", "start", "end"], how="inner"
        )
        mapped = group[group["node"].notna()]
        per_doc = mapped.groupby("doc_id").size()
        stats[str(benchmark)] = {
            "docs": len(docs),
            "docs_without_text": int((~docs["has_text"]).sum()),
            "mentions": len(group),
            "nil_mentions": int(group["nil"].sum()),
            "repeated_spans": int(group["repeat"].sum()),
            "disagreeing_spans": int((per_span > 1).sum()),
            "mismatched_spans": int((~group["matches"]).sum()),
            "linkable_mentions": len(linkable),
            "distinct_entities": int(titled["wiki_title"].nunique()),
            "mapped_mentions": len(mapped),
            "mapped_share": len(mapped) / len(linkable) if len(linkable) else 0.0,
            "distinct_mapped_entities": int(mapped["node"].nunique()),
            "mean_mapped_per_doc": len(mapped) / len(docs) if len(docs) else 0.0,
            "docs_with_2_mapped": int((per_doc >= 2).sum()),
        }
    return stats
