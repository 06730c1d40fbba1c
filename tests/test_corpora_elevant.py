"""ELEVANT benchmark reader: counts on the real files, the Wikispeedia title mapping, malformed inputs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from decoders.corpora.elevant import (
    elevant_stats,
    map_to_titles,
    normalise_title,
    read_benchmark,
    read_documents,
)
from decoders.corpora.wikispeedia import read_articles
from decoders.errors import CorpusFormatError

BENCHMARKS = ["kore50", "msnbc", "msnbc-updated", "spotlight", "reuters-128"]

# measured on the mirror; docs / mentions agree with the folder's MANIFEST.md
FIELDS = (
    "docs", "mentions", "nil_mentions", "nested_mentions", "distinct_entities", "mapped_mentions",
    "distinct_mapped_nodes", "docs_with_2_mapped",
)  # fmt: skip
ROWS = {
    "kore50": (50, 144, 1, 0, 126, 34, 25, 7),
    "msnbc": (20, 755, 89, 10, 285, 128, 46, 14),
    "msnbc-updated": (20, 739, 86, 0, 287, 113, 41, 15),
    "spotlight": (58, 330, 4, 6, 246, 56, 41, 18),
    "reuters-128": (128, 880, 257, 0, 284, 99, 47, 19),
}
EXPECTED = {benchmark: dict(zip(FIELDS, row, strict=True)) for benchmark, row in ROWS.items()}


@pytest.fixture(scope="module")
def real(mirror: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = mirror / "el_benchmarks_elevant"
    documents = pd.concat(
        [read_documents(folder / f"{b}.benchmark.jsonl", b) for b in BENCHMARKS], ignore_index=True
    )
    mentions = pd.concat(
        [read_benchmark(folder / f"{b}.benchmark.jsonl", b) for b in BENCHMARKS], ignore_index=True
    )
    return documents, mentions


@pytest.fixture(scope="module")
def titles(mirror: Path) -> pd.Series:
    return read_articles(mirror / "wikispeedia" / "articles.tsv").set_index("node")["title"]


def test_real_counts_and_columns(real: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    documents, mentions = real
    assert list(documents.columns) == ["benchmark", "doc_id", "title", "text"]
    assert list(mentions.columns) == [
        "benchmark", "doc_id", "mention_id", "start", "end", "surface", "qid", "name", "nested", "nil"
    ]  # fmt: skip
    for benchmark, expected in EXPECTED.items():
        assert (documents["benchmark"] == benchmark).sum() == expected["docs"], benchmark
        group = mentions[mentions["benchmark"] == benchmark]
        assert len(group) == expected["mentions"], benchmark
        assert int(group["nil"].sum()) == expected["nil_mentions"], benchmark
        assert int(group["nested"].sum()) == expected["nested_mentions"], benchmark
    first = mentions.iloc[0]
    assert (first["benchmark"], first["doc_id"], first["mention_id"]) == ("kore50", 0, 0)
    assert (first["start"], first["end"], first["surface"]) == (19, 24, "Steve")
    assert (first["qid"], first["name"]) == ("Q19837", "Steve Jobs")
    assert set(mentions.loc[mentions["nil"], "qid"]) == {"<NIL>", "<NO_MAPPING>"}


def test_real_surfaces_are_text_slices(real: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    documents, mentions = real
    joined = mentions.merge(documents, on=["benchmark", "doc_id"], validate="many_to_one")
    slices = [text[s:e] for text, s, e in zip(joined["text"], joined["start"], joined["end"], strict=True)]
    assert slices == joined["surface"].tolist()
    nested = mentions[mentions["nested"]]
    assert nested.iloc[0][["benchmark", "doc_id", "mention_id"]].tolist() == ["msnbc", 0, 11]


def test_real_mapping_to_wikispeedia(real: tuple[pd.DataFrame, pd.DataFrame], titles: pd.Series) -> None:
    documents, mentions = real
    nodes = map_to_titles(mentions, titles)
    assert nodes.dtype == "Int64" and nodes.index.equals(mentions.index)
    assert nodes.notna().sum() == sum(e["mapped_mentions"] for e in EXPECTED.values())
    assert not nodes[mentions["nil"]].notna().any()
    first = mentions.index[(mentions["name"] == "Bill Gates")][0]
    assert titles[nodes[first]] == "Bill Gates"
    stats = elevant_stats(documents, mentions, nodes)
    assert sorted(stats) == sorted(BENCHMARKS)
    for benchmark, expected in EXPECTED.items():
        got = stats[benchmark]
        assert {key: got[key] for key in expected} == expected, benchmark
        assert got["mapped_share"] == pytest.approx(expected["mapped_mentions"] / expected["mentions"])
        linkable = expected["mentions"] - expected["nil_mentions"]
        assert got["mapped_share_linkable"] == pytest.approx(expected["mapped_mentions"] / linkable)
    # the normalised pass only adds lower-case Wikidata labels such as "house" -> "House"
    spotlight = mentions["benchmark"] == "spotlight"
    exact = mentions["name"].isin(set(titles)) & ~mentions["nil"]
    assert int((nodes.notna() & ~exact & spotlight).sum()) == 29
    assert int((nodes.notna() & exact & spotlight).sum()) == 27


# --- mapping rule on synthetic titles ----------------------------------------------------------------------


def test_normalise_title() -> None:
    assert normalise_title("Édouard  Manet ") == "edouard manet"
    assert normalise_title("Wave–particle_duality") == "wave-particle duality"
    assert normalise_title("Rock ’n’ Roll") == "rock 'n' roll"
    assert normalise_title("STRASSE") == normalise_title("straße")


def test_map_to_titles_rule() -> None:
    titles = pd.Series(
        ["Apple", "Édouard Manet", "War (1605–1618)", "War (1605-1618)", "house"], index=[10, 11, 12, 13, 14]
    )
    mentions = pd.DataFrame(
        {
            "name": [
                "Apple",
                "edouard manet",
                "war (1605-1618)",
                "War (1605-1618)",
                "House",
                "Unknown",
                "Apple",
            ],
            "qid": ["Q312", "Q1", "Q2", "Q3", "Q4", "<NIL>", "<NO_MAPPING>"],
        },
        index=[5, 6, 7, 8, 9, 10, 11],
    )
    nodes = map_to_titles(mentions, titles)
    # exact; normalised; ambiguous key -> none; exact wins over an ambiguous key; normalised; NIL; NO_MAPPING
    assert nodes.tolist() == [10, 11, pd.NA, 13, 14, pd.NA, pd.NA]
    assert nodes.index.tolist() == [5, 6, 7, 8, 9, 10, 11]
    with pytest.raises(ValueError, match="unique"):
        map_to_titles(mentions, pd.Series(["A", "A"]))


# --- malformed inputs --------------------------------------------------------------------------------------


def _doc(doc_id: int = 0, text: str = "Bill met Steve.", labels: list | None = None) -> dict:
    if labels is None:
        labels = [
            {
                "id": 0,
                "span": [0, 4],
                "entity_id": "Q5284",
                "name": "Bill Gates",
                "type": "Q5",
                "children": [1],
            },
            {"id": 1, "span": [0, 4], "entity_id": "Q5284", "name": "Bill Gates", "type": "Q5", "parent": 0},
            {"id": 2, "span": [9, 14], "entity_id": "<NIL>", "name": "Unknown", "type": "OTHER"},
        ]
    return {
        "id": doc_id,
        "title": f"doc {doc_id}",
        "text": text,
        "evaluation_span": [0, len(text)],
        "labels": labels,
    }


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_synthetic_file_and_gzip(tmp_path: Path) -> None:
    lines = [json.dumps(_doc(0)), "", json.dumps(_doc(1, "Nothing here.", []))]
    plain = _write(tmp_path / "x.benchmark.jsonl", lines)
    gz = tmp_path / "x.benchmark.jsonl.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, gz):
        mentions = read_benchmark(path, "x")
        assert mentions["surface"].tolist() == ["Bill", "Bill", "Steve"]
        assert mentions["nested"].tolist() == [False, True, False]
        assert mentions["nil"].tolist() == [False, False, True]
        documents = read_documents(path, "x")
        assert documents["doc_id"].tolist() == [0, 1] and documents["title"].tolist() == ["doc 0", "doc 1"]
    stats = elevant_stats(documents, mentions, pd.Series([1, 1, pd.NA], dtype="Int64"))
    assert stats["x"]["docs"] == 2 and stats["x"]["docs_with_2_mapped"] == 1
    assert stats["x"]["distinct_entities"] == 1 and stats["x"]["mapped_share"] == pytest.approx(2 / 3)


def _label(**change: object) -> list[dict]:
    label = {"id": 0, "span": [0, 4], "entity_id": "Q1", "name": "Bill", "type": "Q5"}
    label.update(change)
    return [label]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"id": 1, "title": "t", "text": "x", "labels": [', "malformed JSON"),
        ("[1, 2]", "one JSON object per line"),
        (json.dumps(_doc(0)), "document id 0 already used on line 1"),
        (json.dumps({"id": 1, "title": "t", "labels": []}), "document 1: missing key 'text'"),
        (json.dumps({**_doc(1), "id": "1"}), "'id' should be int"),
        (json.dumps(_doc(1, "Bill", _label(span=[2, 9]))), r"span \[2, 9\] is empty or outside the text"),
        (json.dumps(_doc(1, "Bill", _label(span=[3, 3]))), r"span \[3, 3\] is empty"),
        (json.dumps(_doc(1, "Bill", _label(span=[0]))), "span should be"),
        (json.dumps(_doc(1, "Bill", _label(entity_id=None))), "label 0: 'entity_id' should be str"),
        (json.dumps(_doc(1, "Bill", _label() + _label())), "label 0: label id used twice"),
        (json.dumps(_doc(1, "Bill", _label(parent="x"))), "parent should be a label id"),
    ],
)
def test_malformed_lines(tmp_path: Path, bad: str, message: str) -> None:
    path = _write(tmp_path / "bad.benchmark.jsonl", [json.dumps(_doc(0)), "", bad])
    for reader in (read_benchmark, read_documents):
        with pytest.raises(CorpusFormatError, match=message) as info:
            reader(path, "bad")
        assert info.value.line == 3 and info.value.path == str(path)


def test_non_utf8_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.benchmark.jsonl"
    path.write_bytes(json.dumps(_doc(0)).encode() + b'\n{"id": 1, "title": "\xe9"}\n')
    with pytest.raises(CorpusFormatError, match="line 2: not valid UTF-8"):
        read_benchmark(path, "latin1")


def test_elevant_functions_name_a_wrong_argument() -> None:
    """Found here: each gave pathlib's TypeError, unicodedata's or an AttributeError from deep inside."""
    from decoders.corpora import elevant

    frame = pd.DataFrame({"a": [1]})
    for call, words in [
        (lambda: elevant.read_documents(None, "kore50"), "path must be a path"),
        (lambda: elevant.read_benchmark("x.jsonl", 5), "benchmark must be a string"),
        (lambda: elevant.normalise_title(None), "title must be a string"),
        (lambda: elevant.map_to_titles([1], pd.Series(dtype=str)), "mentions must be a pandas DataFrame"),
        (lambda: elevant.map_to_titles(frame, ["Star"]), "titles must be a Series"),
        (
            lambda: elevant.elevant_stats(frame, None, pd.Series(dtype=str)),
            "mentions must be a pandas DataFrame",
        ),
    ]:
        with pytest.raises(ValueError, match=words):
            call()
