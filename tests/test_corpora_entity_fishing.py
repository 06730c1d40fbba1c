"""The entity-fishing reader (IITB, ACE 2004, AQUAINT ...): hand-written sets, its errors, and the mirror's files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from decoders.corpora.entity_fishing import gold_nodes, read_set, set_stats
from decoders.errors import CorpusFormatError

MIRROR = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "el_benchmarks_entity_fishing"

TEXT_A = "KABUL (Reuters) - U.S. troops in Afghanistan. Reuters said so."
TEXT_B = "Nothing to see."


def annotation(mention: str, title: str, offset: int, length: int | None = None) -> str:
    length = len(mention) if length is None else length
    return (
        f"<annotation><mention>{mention}</mention><wikiName>{title}</wikiName>"
        f"<offset>{offset}</offset><length>{length}</length></annotation>"
    )


def write_set(
    folder: Path, documents: dict[str, list[str]], texts: dict[str, str], name: str = "toy"
) -> Path:
    """A set folder ``folder/name`` with ``name.xml`` and ``RawText/``; returns the XML file's path."""
    root = folder / name
    (root / "RawText").mkdir(parents=True)
    for doc, text in texts.items():
        (root / "RawText" / doc).write_text(text, encoding="utf-8")
    body = "".join(
        f'<document docName="{doc}">{"".join(annotations)}</document>'
        for doc, annotations in documents.items()
    )
    xml = root / f"{name}.xml"
    xml.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<toy.entityAnnotations>{body}</toy.entityAnnotations>\n'
    )
    return xml


@pytest.fixture()
def toy(tmp_path: Path) -> Path:
    return write_set(
        tmp_path,
        {
            "a.txt": [
                annotation("KABUL", "Kabul", 0),
                annotation("Reuters", "Reuters", 7),
                annotation("Reuters", "", 7),  # the same span again, NIL this time
                annotation("U.S.", "United_States", 18),
                annotation("Afghanistan", "NIL", 33),
                annotation("troops", "Soldier", 23),
            ],
            "b.txt": [annotation("Nothing", "Nothing", 0)],
            "gone.txt": [annotation("x", "X", 0)],
        },
        {"a.txt": TEXT_A, "b.txt": TEXT_B},
    )


def test_a_hand_written_set_reads_in_file_order(toy: Path) -> None:
    documents, mentions = read_set(toy, "toy")
    assert documents["doc_id"].tolist() == ["a.txt", "b.txt", "gone.txt"]
    assert documents["has_text"].tolist() == [True, True, False]
    assert documents.loc[0, "text"] == TEXT_A and documents.loc[2, "text"] == ""
    assert mentions["doc_id"].tolist() == ["a.txt"] * 6 + ["b.txt"]  # the document without text has none
    assert mentions["mention_id"].tolist() == [0, 1, 2, 3, 4, 5, 0]
    assert mentions["surface"].tolist()[:4] == ["KABUL", "Reuters", "Reuters", "U.S."]
    assert mentions["matches"].all()
    assert mentions["wiki_title"].tolist() == [
        "Kabul",
        "Reuters",
        "",
        "United_States",
        "",
        "Soldier",
        "Nothing",
    ]
    assert mentions["nil"].tolist() == [False, False, True, False, True, False, False]
    assert mentions["repeat"].tolist() == [False, False, True, False, False, False, False]
    row = mentions.iloc[3]
    assert (row["start"], row["end"]) == (18, 22) and TEXT_A[row["start"] : row["end"]] == "U.S."


def test_gold_nodes_map_titles_once_per_span(toy: Path) -> None:
    _, mentions = read_set(toy, "toy")
    titles = pd.Series(
        ["Kabul", "Reuters", "United States", "Nothing", "Soldier"], index=[10, 11, 12, 13, 14]
    )
    nodes = gold_nodes(mentions, titles)
    # underscores read as spaces; NIL never maps; the repeated span carries nothing
    assert nodes.tolist() == [10, 11, pd.NA, 12, pd.NA, 14, 13]
    documents, _ = read_set(toy, "toy")
    stats = set_stats(documents, mentions, nodes)["toy"]
    assert stats["docs"] == 3 and stats["docs_without_text"] == 1
    assert stats["mentions"] == 7 and stats["nil_mentions"] == 2 and stats["repeated_spans"] == 1
    assert stats["linkable_mentions"] == 5 and stats["mapped_mentions"] == 5
    assert stats["mapped_share"] == 1.0 and stats["docs_with_2_mapped"] == 1
    assert stats["disagreeing_spans"] == 0


def test_a_span_given_two_titles_takes_the_first_that_maps(tmp_path: Path) -> None:
    xml = write_set(
        tmp_path,
        {"a.txt": [annotation("Reuters", "Reuters agency", 7), annotation("Reuters", "Reuters", 7)]},
        {"a.txt": TEXT_A},
    )
    documents, mentions = read_set(xml, "toy")
    titles = pd.Series(["Reuters", "Reuters agency"], index=[0, 1])
    assert gold_nodes(mentions, titles).tolist() == [1, pd.NA]
    assert gold_nodes(mentions, titles.iloc[:1]).tolist() == [0, pd.NA]  # the first does not map: the second
    assert set_stats(documents, mentions, gold_nodes(mentions, titles))["toy"]["disagreeing_spans"] == 1


def test_a_mention_that_differs_from_the_text_is_marked(tmp_path: Path) -> None:
    xml = write_set(tmp_path, {"a.txt": [annotation("Kabul", "Kabul", 0)]}, {"a.txt": TEXT_A})
    _, mentions = read_set(xml, "toy")
    assert mentions["surface"].tolist() == ["KABUL"] and mentions["mention"].tolist() == ["Kabul"]
    assert not mentions["matches"].any()


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ([annotation("KABUL", "Kabul", 0, 0)], r"document 'a.txt', annotation 1: span \[0, 0\) is empty"),
        (
            [annotation("x", "X", len(TEXT_A))],
            r"span \[62, 63\) is empty or past the raw text \(62 characters\)",
        ),
        (
            ["<annotation><mention>x</mention><offset>0</offset><length>1</length></annotation>"],
            "missing <wikiName>",
        ),
        (
            [annotation("x", "X", 0).replace("<offset>0", "<offset>zero")],
            "<offset> should be an integer, got 'zero'",
        ),
        ([annotation("x", "X", 0).replace("<length>1", "<length>-1")], "<length> is -1, should be >= 0"),
    ],
)
def test_bad_annotations_name_the_file_document_and_annotation(
    tmp_path: Path, annotations: list[str], expected: str
) -> None:
    xml = write_set(tmp_path, {"a.txt": [annotation("KABUL", "Kabul", 0), *annotations]}, {"a.txt": TEXT_A})
    with pytest.raises(CorpusFormatError, match=expected) as error:
        read_set(xml, "toy")
    assert str(xml) in str(error.value) and "document 'a.txt', annotation 1" in str(error.value)


def test_bad_files_are_named(tmp_path: Path) -> None:
    xml = write_set(tmp_path, {"a.txt": []}, {"a.txt": TEXT_A})
    xml.write_text("<root><document docName='a.txt'></root>")
    with pytest.raises(CorpusFormatError, match=r"toy.xml, line 1: malformed XML \(mismatched tag, column"):
        read_set(xml, "toy")
    xml.write_text("<root><doc docName='a.txt'/></root>")
    with pytest.raises(CorpusFormatError, match="element 1 is <doc>, expected <document>"):
        read_set(xml, "toy")
    xml.write_text("<root><document/></root>")
    with pytest.raises(CorpusFormatError, match="document 1 has no docName"):
        read_set(xml, "toy")
    xml.write_text("<root><document docName='a.txt'/><document docName='a.txt'/></root>")
    with pytest.raises(CorpusFormatError, match=r"document 'a.txt' \(element 2\): docName used twice"):
        read_set(xml, "toy")
    xml.write_text("<root><document docName='../a.txt'/></root>")
    with pytest.raises(CorpusFormatError, match="docName is not a file name"):
        read_set(xml, "toy")
    xml.write_text("<root><document docName='a.txt'/></root>")
    (xml.parent / "RawText" / "a.txt").write_bytes(b"caf\xe9")
    with pytest.raises(CorpusFormatError, match=r"RawText/a.txt: not valid UTF-8"):
        read_set(xml, "toy")
    with pytest.raises(CorpusFormatError, match="missing.xml: no such file"):
        read_set(tmp_path / "missing.xml", "toy")


def test_bad_arguments_are_named(toy: Path) -> None:
    with pytest.raises((TypeError, ValueError), match="xml_path"):
        read_set(3, "toy")
    with pytest.raises((TypeError, ValueError), match="benchmark"):
        read_set(toy, 3)
    _, mentions = read_set(toy, "toy")
    with pytest.raises(ValueError, match=r"mentions lack columns \['repeat'\]"):
        gold_nodes(mentions.drop(columns="repeat"), pd.Series(["A"]))
    with pytest.raises(ValueError, match="titles must be unique"):
        gold_nodes(mentions, pd.Series(["A", "A"]))


@pytest.mark.skipif(
    not MIRROR.is_dir(), reason="the corpus mirror ../shared/corpora is not beside the repository"
)
@pytest.mark.parametrize(
    ("name", "documents", "annotations", "nil", "repeats", "mismatched"),
    [("iitb", 104, 19751, 7652, 1443, 0), ("ace", 36, 306, 49, 0, 0), ("aquaint", 50, 727, 0, 0, 0)],
)
def test_the_mirror_sets_read_whole(name, documents, annotations, nil, repeats, mismatched) -> None:
    """The counts of the mirror's MANIFEST (annotations, non-NIL) and of the module's docstring."""
    docs, mentions = read_set(MIRROR / name / f"{name}.xml", name)
    assert len(docs) == documents and docs["has_text"].all()
    assert len(mentions) == annotations
    assert int(mentions["nil"].sum()) == nil and int(mentions["repeat"].sum()) == repeats
    assert int((~mentions["matches"]).sum()) == mismatched
    assert (mentions["end"] > mentions["start"]).all()
    texts = docs.set_index("doc_id")["text"]
    sample = mentions.sample(50, random_state=0)
    for row in sample.itertuples():
        assert texts[row.doc_id][row.start : row.end] == row.surface


@pytest.mark.skipif(
    not MIRROR.is_dir(), reason="the corpus mirror ../shared/corpora is not beside the repository"
)
def test_iitb_maps_to_wikispeedia_as_the_issue_measured() -> None:
    """IITB on Wikispeedia's 4,604 titles: about 18% of its titled spans map, about 420 distinct entities."""
    from decoders.corpora.wikispeedia import read_articles

    articles = read_articles(MIRROR.parent / "wikispeedia" / "articles.tsv")
    titles = articles.set_index("node")["title"]
    docs, mentions = read_set(MIRROR / "iitb" / "iitb.xml", "iitb")
    stats = set_stats(docs, mentions, gold_nodes(mentions, titles))["iitb"]
    assert stats["distinct_entities"] == 3794
    assert 0.17 < stats["mapped_share"] < 0.19 and 400 < stats["distinct_mapped_entities"] < 440
    assert stats["docs_with_2_mapped"] == 100


def test_prepare_reads_the_named_sets_samples_and_maps(tmp_path: Path) -> None:
    """The prepare step finds each set's XML among the corpus's files, samples its documents (seeded), maps the
    gold titles, and names a set it cannot find or a bad option."""
    from decoders.corpora.prepare import prepare_entity_fishing
    from decoders.errors import ConfigError

    corpus = tmp_path / "corpus"
    first = write_set(
        corpus,
        {
            f"d{i}.txt": [annotation("KABUL", "Kabul", 0), annotation("Reuters", "Reuters", 7)]
            for i in range(6)
        },
        {f"d{i}.txt": TEXT_A for i in range(6)},
        name="one",
    )
    second = write_set(
        corpus, {"b.txt": [annotation("Nothing", "Nothing", 0)]}, {"b.txt": TEXT_B}, name="two"
    )
    files = [first, second, *sorted((corpus / "one" / "RawText").iterdir())]
    articles = tmp_path / "articles.parquet"
    pd.DataFrame({"node": [0, 1], "title": ["Kabul", "Reuters"]}).to_parquet(articles)
    inputs = {"files": [str(f) for f in files], "articles": str(articles)}
    out = tmp_path / "out"
    outputs = {name: str(out / f"{name}.parquet") for name in ("documents", "mentions")}
    outputs["stats"] = str(out / "stats.json")
    stats = prepare_entity_fishing("sets", inputs, outputs, sets=["one", "two"], sample={"test": 4}, seed=13)
    documents, mentions = pd.read_parquet(outputs["documents"]), pd.read_parquet(outputs["mentions"])
    assert stats["splits"]["one"] == {"documents": 4, "mentions": 8, "mapped_mentions": 8}
    assert stats["splits"]["two"] == {"documents": 1, "mentions": 1, "mapped_mentions": 0}
    assert stats["splits"]["all"]["documents"] == 5 and len(documents) == 5
    assert set(mentions["doc_id"]) <= set(documents["doc_id"]) and mentions["node"].notna().sum() == 8
    assert any("seeded sample (seed 13) of at most 4" in note and "one 6" in note for note in stats["notes"])
    again = prepare_entity_fishing("sets", inputs, outputs, sets=["one"], limit=2)
    assert again["splits"] == {"one": {"documents": 2, "mentions": 4, "mapped_mentions": 4}}
    with pytest.raises(
        ConfigError, match=r"datasets.sets.sets: 'three' needs exactly one file three/three.xml"
    ):
        prepare_entity_fishing("sets", inputs, outputs, sets=["three"])
    with pytest.raises(ConfigError, match="datasets.sets.sets: a non-empty list of set names"):
        prepare_entity_fishing("sets", inputs, outputs, sets=[])
    with pytest.raises(ConfigError, match="datasets.sets.sample: no split train"):
        prepare_entity_fishing("sets", inputs, outputs, sets=["one"], sample={"train": 2})
    with pytest.raises(ConfigError, match="sets: inputs has no 'articles'"):
        prepare_entity_fishing("sets", {"files": inputs["files"]}, outputs, sets=["one"])
