"""Treebank readers (CoNLL-U, CoNLL-X, NLTK WSJ sample, UniversalNER) and the sentence table they share."""

from __future__ import annotations

import gzip
import hashlib
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decoders.corpora.conll import (
    assign_cdt_documents,
    read_cdt_sources,
    read_conllu,
    read_conllx,
    split_cdt,
    verify_cdt_sources,
)
from decoders.corpora.sentences import (
    SENTENCE_COLUMNS,
    read_sentences,
    sentence_frame,
    sentence_stats,
    split_by_document,
)
from decoders.corpora.uner import join_uner_ud, read_iob2
from decoders.corpora.wsj import compare_with_treebank, read_wsj, split_wsj
from decoders.errors import ConfigError, CorpusFormatError

IOB2_TAGS = {"O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"}


# --------------------------------------------------------------------------- real corpora, read once


@pytest.fixture(scope="module")
def ewt(mirror: Path) -> dict[str, pd.DataFrame]:
    folder = mirror / "ud_english_ewt"
    return {
        "train": read_conllu(folder / "en_ewt-ud-train.conllu.gz"),
        "dev": read_conllu(folder / "en_ewt-ud-dev.conllu"),
        "test": read_conllu(folder / "en_ewt-ud-test.conllu"),
    }


@pytest.fixture(scope="module")
def ddt(mirror: Path) -> pd.DataFrame:
    return read_conllx(mirror / "cdt_danish_ddt_v1" / "ddt-v1-da.conll.gz")


@pytest.fixture(scope="module")
def wsj(mirror: Path) -> pd.DataFrame:
    folder = mirror / "ptb_wsj_sample_nltk"
    return read_wsj(folder / "dependency_treebank.zip", folder / "treebank.zip")


@pytest.fixture(scope="module")
def uner(mirror: Path) -> dict[str, pd.DataFrame]:
    folder = mirror / "uner_english_ewt"
    return {split: read_iob2(folder / f"en_ewt-ud-{split}.iob2") for split in ("dev", "test")}


@pytest.fixture(scope="module")
def joined(uner: dict[str, pd.DataFrame], ewt: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {split: join_uner_ud(uner[split], ewt[split]) for split in ("dev", "test")}


# --------------------------------------------------------------------------- CoNLL-U, real counts


def test_ewt_counts(ewt: dict[str, pd.DataFrame]) -> None:
    expected = {
        "train": {"sentences": 12544, "tokens": 204577, "documents": 540, "tags": 49, "coarse_tags": 17},
        "dev": {"sentences": 2001, "tokens": 25147, "documents": 318, "tags": 49, "coarse_tags": 17},
        "test": {"sentences": 2077, "tokens": 25094, "documents": 316, "tags": 48, "coarse_tags": 17},
    }
    for split, stats in expected.items():
        assert sentence_stats(ewt[split]) == stats, split
    first = ewt["dev"].iloc[0]
    assert first["sent_id"] == "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713-0001"
    assert first["doc_id"] == "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713"
    assert first["words"] == ["From", "the", "AP", "comes", "this", "story", ":"]
    assert first["tags"] == ["IN", "DT", "NNP", "VBZ", "DT", "NN", ":"]
    assert first["coarse_tags"] == ["ADP", "DET", "PROPN", "VERB", "DET", "NOUN", "PUNCT"]
    assert first["heads"] == [3, 3, 4, 0, 6, 4, 4]
    assert first["deprels"] == ["case", "det", "obl", "root", "det", "nsubj", "punct"]
    assert list(ewt["train"].columns) == list(SENTENCE_COLUMNS)


@pytest.mark.parametrize(
    ("relative", "tags_from", "sentences", "tokens", "tags", "coarse", "first_id"),
    [
        ("ud_chinese_gsd/v1.4/zh-ud-train.conllu", "xpos", 3997, 98608, 42, 15, "zh-ud-train-1"),
        ("ud_chinese_gsd/v1.4/zh-ud-dev.conllu", "xpos", 500, 12663, 37, 15, "zh-ud-dev-1"),
        ("ud_chinese_gsd/v1.4/zh-ud-test.conllu", "xpos", 500, 12012, 35, 15, "zh-ud-test-1"),
        ("ud_italian_partut/it_partut-ud-train.conllu", "xpos", 1781, 48934, 34, 15, "it_partut-ud-3"),
        ("ud_italian_partut/it_partut-ud-dev.conllu", "xpos", 156, 2984, 33, 15, "it_partut-ud-2"),
        ("ud_italian_partut/it_partut-ud-test.conllu", "xpos", 153, 3640, 32, 14, "it_partut-ud-1"),
        ("ud_hungarian_szeged/hu_szeged-ud-train.conllu", "upos", 910, 20166, 16, 16, "train-1"),
        ("ud_hungarian_szeged/hu_szeged-ud-dev.conllu", "upos", 441, 11418, 16, 16, "dev-1"),
        ("ud_hungarian_szeged/hu_szeged-ud-test.conllu", "upos", 449, 10448, 16, 16, "test-1"),
    ],
)
def test_other_ud_counts(
    mirror: Path,
    relative: str,
    tags_from: str,
    sentences: int,
    tokens: int,
    tags: int,
    coarse: int,
    first_id: str,
) -> None:
    frame = read_conllu(mirror / relative, tags_from=tags_from)
    stats = sentence_stats(frame)
    assert (stats["sentences"], stats["tokens"], stats["tags"], stats["coarse_tags"]) == (
        sentences,
        tokens,
        tags,
        coarse,
    )
    assert frame["sent_id"].iloc[0] == first_id


def test_hungarian_has_no_xpos(mirror: Path) -> None:
    path = mirror / "ud_hungarian_szeged" / "hu_szeged-ud-train.conllu"
    with pytest.raises(
        CorpusFormatError, match=r"hu_szeged-ud-train\.conllu, line 3: XPOS is '_'.*tags_from='upos'"
    ):
        read_conllu(path)
    frame = read_conllu(path, tags_from="upos", limit=5)
    assert len(frame) == 5
    assert frame["tags"].tolist() == frame["coarse_tags"].tolist()


def test_limit_and_bad_arguments(mirror: Path) -> None:
    path = mirror / "ud_english_ewt" / "en_ewt-ud-dev.conllu"
    assert len(read_conllu(path, limit=3)) == 3
    with pytest.raises(ConfigError):
        read_conllu(path, limit=0)
    with pytest.raises(ConfigError):
        read_conllu(path, tags_from="feats")


# --------------------------------------------------------------------------- CoNLL-U, synthetic

CONLLU = """\
# newdoc id = docA
# sent_id = docA-1
1-2	don't	_	_	_	_	_	_	_	_
1	do	do	AUX	VBP	_	3	aux	_	_
2	n't	not	PART	RB	_	3	advmod	_	_
3	go	go	VERB	VB	_	0	root	_	_
3.1	went	go	VERB	VBD	_	_	_	0:root	_

# sent_id = docA-2
1	Yes	yes	INTJ	UH	_	0	root	_	_

# newdoc id = docB
# sent_id = docB-1
1	No	no	INTJ	UH	_	0	root	_	_
"""


def _write(path: Path, text: str) -> Path:
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["tiny.conllu", "tiny.conllu.gz"])
def test_conllu_drops_ranges_and_empty_nodes(tmp_path: Path, name: str) -> None:
    frame = read_conllu(_write(tmp_path / name, CONLLU))
    assert frame["sent_id"].tolist() == ["docA-1", "docA-2", "docB-1"]
    assert frame["doc_id"].tolist() == ["docA", "docA", "docB"]
    assert frame["words"].iloc[0] == ["do", "n't", "go"]
    assert frame["heads"].iloc[0] == [3, 3, 0]
    assert frame["tags"].iloc[0] == ["VBP", "RB", "VB"]


def test_morphology_columns_and_their_round_trip(tmp_path: Path, mirror: Path) -> None:
    frame = read_conllu(
        _write(tmp_path / "tiny.conllu", CONLLU.replace("VBP\t_", "VBP\tMood=Ind")), morphology=True
    )
    assert list(frame.columns)[-2:] == ["lemmas", "feats"]
    assert frame["lemmas"].iloc[0] == ["do", "not", "go"]
    assert frame["feats"].iloc[0] == ["Mood=Ind", "_", "_"]
    assert "lemmas" not in read_conllu(tmp_path / "tiny.conllu").columns
    frame.to_parquet(tmp_path / "m.parquet", index=False)
    assert read_sentences(tmp_path / "m.parquet").to_dict("list") == frame.to_dict("list")
    ddt = read_conllx(mirror / "cdt_danish_ddt_v1" / "ddt-v1-da.conll.gz", limit=2, morphology=True)
    assert ddt["lemmas"].map(len).tolist() == ddt["words"].map(len).tolist()
    assert all(feats for sentence in ddt["feats"] for feats in sentence)
    with pytest.raises(ConfigError, match="morphology"):
        read_conllu(tmp_path / "tiny.conllu", morphology="yes")


def test_conllu_doc_id_fallbacks(tmp_path: Path) -> None:
    with_ids = "# sent_id = email-7-0001\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    assert read_conllu(_write(tmp_path / "a.conllu", with_ids))["doc_id"].tolist() == ["email-7"]
    no_ids = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n1\tYo\tyo\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    frame = read_conllu(_write(tmp_path / "b-train.conllu", no_ids))
    assert frame["sent_id"].tolist() == ["b-train-1", "b-train-2"]
    assert frame["doc_id"].tolist() == ["b-train", "b-train"]


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("3\tgo\tgo\tVERB\tVB\t_\t0", "expected 10 tab-separated columns, found 7"),
        ("3\tgo\tgo\tVERB\tVB\t_\tx\troot\t_\t_", "invalid HEAD 'x'"),
        ("3\tgo\tgo\tVERB\tVB\t_\t-1\troot\t_\t_", "invalid HEAD '-1'"),
        ("three\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "invalid token ID 'three'"),
        ("4\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "word ID 4 out of sequence, expected 3"),
        ("3\tgo\tgo\tVERB\tVB\t_\t7\troot\t_\t_", "HEAD 7 outside 0..3"),
        ("3\tgo\tgo\tVERB\tVB\t_\t_\troot\t_\t_", "HEAD is '_' on a word"),
        ("3\tgo\tgo\tVERB\t_\t_\t0\troot\t_\t_", "XPOS is '_'"),
        ("3\tgo\tgo\t_\tVB\t_\t0\troot\t_\t_", "UPOS is '_'"),
    ],
)
@pytest.mark.parametrize("name", ["bad.conllu", "bad.conllu.gz"])
def test_conllu_malformed_line(tmp_path: Path, name: str, bad_line: str, message: str) -> None:
    text = CONLLU.replace("3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", bad_line)
    path = _write(tmp_path / name, text)
    with pytest.raises(CorpusFormatError, match=rf"{name}, line 6: {message}"):
        read_conllu(path)


def test_conllu_comments_without_tokens(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.conllu", CONLLU + "\n# sent_id = orphan\n")
    with pytest.raises(
        CorpusFormatError, match=r"c\.conllu, line 16: comment lines not followed by any token"
    ):
        read_conllu(path)


# --------------------------------------------------------------------------- CoNLL-X / DDT


def test_ddt_counts_and_split(mirror: Path, ddt: pd.DataFrame) -> None:
    folder = mirror / "cdt_danish_ddt_v1"
    assert sentence_stats(ddt) == {
        "sentences": 5638,
        "tokens": 100195,
        "documents": 1,
        "tags": 143,
        "coarse_tags": 25,
    }
    first = ddt.iloc[0]
    assert first["words"][:4] == ["To", "kendte", "russiske", "historikere"]
    assert first["coarse_tags"][:2] == ["AC", "AN"]
    assert first["tags"][:2] == ["AC---U=--", "ANP[CN]PU=[DI]U"]
    assert first["heads"][:4] == [10, 1, 1, 1]
    assert first["deprels"][:2] == ["subj", "mod"]
    assert verify_cdt_sources(folder / "ddt-v1-da.conll.gz", folder / "sources.tsv") == 536

    parts = split_cdt(ddt, folder / "sources.tsv")
    assert list(parts) == ["train", "test"]
    assert {name: len(part) for name, part in parts.items()} == {"train": 5313, "test": 325}
    assert parts["train"]["doc_id"].nunique() == 504
    assert parts["test"]["doc_id"].nunique() == 32
    assert parts["test"]["doc_id"].iloc[0] == "1467-da"
    assert parts["train"]["sent_id"].iloc[:2].tolist() == ["0001-da-1", "0001-da-2"]
    assert sentence_stats(parts["test"])["tokens"] == 5956
    coarse_only = read_conllx(folder / "ddt-v1-da.conll.gz", limit=2, tags_from="cpostag")
    assert coarse_only["tags"].tolist() == coarse_only["coarse_tags"].tolist()


def test_cdt_sources_must_add_up(mirror: Path, ddt: pd.DataFrame, tmp_path: Path) -> None:
    sources = mirror / "cdt_danish_ddt_v1" / "sources.tsv"
    assert len(read_cdt_sources(sources)) == 536
    with pytest.raises(
        CorpusFormatError, match=r"sources\.tsv: per-file sentence counts add up to 5638, but"
    ):
        assign_cdt_documents(ddt.iloc[:-1], sources)
    bad = tmp_path / "sources.tsv"
    bad.write_text("path\tsentences\na/0001-da.conll\t3\na/0002-da.conll\tmany\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"sources\.tsv, line 3: sentence count 'many'"):
        read_cdt_sources(bad)


def test_cdt_verify_detects_reordering(tmp_path: Path) -> None:
    one = "1\tJa\tja\tI\tI\t_\t0\tROOT\t_\t_\n\n"
    two = "1\tNej\tnej\tI\tI\t_\t0\tROOT\t_\t_\n\n1\tTak\ttak\tI\tI\t_\t0\tROOT\t_\t_\n\n"
    digest = {text: hashlib.sha256(text.encode()).hexdigest() for text in (one, two)}
    sources = tmp_path / "sources.tsv"
    sources.write_text(
        f"path\tsha256\tsentences\nx/0001-da.conll\t{digest[one]}\t1\nx/0002-da.conll\t{digest[two]}\t2\n",
        encoding="utf-8",
    )
    good = _write(tmp_path / "good.conll", one + two)
    assert verify_cdt_sources(good, sources) == 2
    parts = assign_cdt_documents(read_conllx(good), sources)
    assert parts["doc_id"].tolist() == ["0001-da", "0002-da", "0002-da"]
    swapped = _write(tmp_path / "swapped.conll.gz", two + one)
    with pytest.raises(
        CorpusFormatError, match=r"swapped\.conll\.gz: sentences 1\.\.1 are not the content of"
    ):
        verify_cdt_sources(swapped, sources)


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("2\tkom\tkomme\tV\tVA\t_\t0\tROOT\t_", "expected 10 tab-separated columns, found 9"),
        ("2\tkom\tkomme\tV\tVA\t_\t_\tROOT\t_\t_", "invalid HEAD '_'"),
        ("2-3\tkom\tkomme\tV\tVA\t_\t0\tROOT\t_\t_", "invalid token ID '2-3'"),
        ("2\tkom\tkomme\tV\t_\t_\t0\tROOT\t_\t_", "POSTAG is '_'"),
        ("2\tkom\tkomme\tV\tVA\t_\t3\tROOT\t_\t_", "HEAD 3 outside 0..2"),
    ],
)
def test_conllx_malformed_line(tmp_path: Path, bad_line: str, message: str) -> None:
    text = (
        "1\tHan\than\tP\tPP\t_\t2\tsubj\t_\t_\n2\tkom\tkomme\tV\tVA\t_\t0\tROOT\t_\t_\n\n"
        "1\tJa\tja\tI\tI\t_\t0\tROOT\t_\t_\n"
    )
    path = _write(tmp_path / "bad.conll", text.replace("2\tkom\tkomme\tV\tVA\t_\t0\tROOT\t_\t_", bad_line))
    with pytest.raises(CorpusFormatError, match=rf"bad\.conll, line 2: {message}"):
        read_conllx(path)


# --------------------------------------------------------------------------- WSJ sample


def test_wsj_counts_crosscheck_and_split(wsj: pd.DataFrame) -> None:
    assert sentence_stats(wsj) == {
        "sentences": 3914,
        "tokens": 94084,
        "documents": 199,
        "tags": 45,
        "coarse_tags": 45,
    }
    first = wsj.iloc[0]
    assert (first["sent_id"], first["doc_id"]) == ("wsj_0001-0001", "wsj_0001")
    assert first["words"][:3] == ["Pierre", "Vinken", ","]
    assert first["tags"][:3] == ["NNP", "NNP", ","]
    assert first["heads"][:3] == [2, 8, 2]
    assert set(wsj["deprels"].explode()) == {"_"}
    assert wsj.attrs["treebank_check"] == {
        "documents": 199,
        "sentences": 3914,
        "sentence_disagreements": 0,
        "token_disagreements": 0,
    }
    parts = split_wsj(wsj)
    assert {name: len(part) for name, part in parts.items()} == {"train": 3518, "test": 396}
    assert parts["train"]["doc_id"].iloc[-1] == "wsj_0171"
    assert parts["test"]["doc_id"].iloc[0] == "wsj_0172"
    assert parts["test"]["doc_id"].nunique() == 28


def test_wsj_crosscheck_counts_and_raises(mirror: Path, wsj: pd.DataFrame) -> None:
    treebank = mirror / "ptb_wsj_sample_nltk" / "treebank.zip"
    one_off = wsj.copy()
    one_off.at[0, "tags"] = ["NN"] + one_off.at[0, "tags"][1:]
    report = compare_with_treebank(one_off, treebank)
    assert (report["sentence_disagreements"], report["token_disagreements"]) == (1, 1)
    systematic = wsj.assign(tags=wsj["tags"].map(lambda tags: ["NN"] * len(tags)))
    with pytest.raises(CorpusFormatError, match=r"treebank\.zip: \d+ of 3914 sentences differ"):
        compare_with_treebank(systematic, treebank)


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("board\tNN", "expected word<TAB>tag<TAB>head, found 2 column"),
        ("board\tNN\tnine", "head 'nine' is not a non-negative integer"),
        ("board\tNN\t9", "head 9 outside 0..3"),
    ],
)
def test_dp_malformed_line(tmp_path: Path, bad_line: str, message: str) -> None:
    archive = tmp_path / "dependency_treebank.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(
            "dependency_treebank/wsj_0001.dp", "Hi\tUH\t0\n\nThe\tDT\t2\nboard\tNN\t3\nmet\tVBD\t0\n"
        )
        handle.writestr(
            "dependency_treebank/wsj_0002.dp", f"Hi\tUH\t0\n\nThe\tDT\t2\n{bad_line}\nmet\tVBD\t0\n"
        )
    with pytest.raises(
        CorpusFormatError,
        match=rf"dependency_treebank\.zip::dependency_treebank/wsj_0002\.dp, line 4: {message}",
    ):
        read_wsj(archive)


# --------------------------------------------------------------------------- UniversalNER


def test_uner_read_and_join(uner: dict[str, pd.DataFrame], ewt: dict[str, pd.DataFrame], joined) -> None:
    assert {split: len(frame) for split, frame in uner.items()} == {"dev": 2001, "test": 2077}
    assert {split: int(frame["words"].map(len).sum()) for split, frame in uner.items()} == {
        "dev": 25149,
        "test": 25097,
    }
    assert uner["dev"].attrs["iob2_repaired"] == 0
    expected = {
        "dev": {"sentences": 1998, "tokens": 25093, "documents": 318, "tags": 49, "coarse_tags": 17,
                "ner_labels": 7, "entities": 966, "joint_labels": 343, "joint_pairs_observed": 86},
        "test": {"sentences": 2074, "tokens": 25058, "documents": 316, "tags": 48, "coarse_tags": 17,
                 "ner_labels": 7, "entities": 1084, "joint_labels": 336, "joint_pairs_observed": 88},
    }  # fmt: skip
    for split in ("dev", "test"):
        frame = joined[split]
        assert sentence_stats(frame) == expected[split], split
        assert list(frame.columns) == [*SENTENCE_COLUMNS, "ner"]
        report = frame.attrs["uner_join"]
        assert (report["joined"], report["missing_in_ud"], report["token_mismatch"]) == (len(frame), 0, 3)
        # every label pair is (XPOS from UD, IOB2 tag from UNER), position by position
        ud = ewt[split].set_index("sent_id").loc[frame["sent_id"]]
        assert frame["tags"].tolist() == ud["tags"].tolist()
        ner = uner[split].set_index("sent_id").loc[frame["sent_id"], "ner"]
        assert frame["ner"].tolist() == ner.tolist()
        assert set(frame["ner"].explode()) == IOB2_TAGS
    assert joined["test"].attrs["uner_join"]["dropped_entities"] == 4
    # the full joint domain over both splits: all 49 XPOS tags x 7 IOB2 tags
    both = pd.concat([joined["dev"], joined["test"]], ignore_index=True)
    assert sentence_stats(both)["joint_labels"] == 343 == 49 * 7


def test_join_rejects_systematic_mismatch(
    uner: dict[str, pd.DataFrame], ewt: dict[str, pd.DataFrame]
) -> None:
    with pytest.raises(
        CorpusFormatError, match=r"en_ewt-ud-dev\.iob2: 2001 of 2001 UNER sentences do not align"
    ):
        join_uner_ud(uner["dev"], ewt["test"])


IOB2 = """\
# newdoc id = d1
# sent_id = d1-0001
# text = Ann met Bob Lee
1\tAnn\tB-PER\t-\tx
2\tmet\tO\t-\t-
3\tBob\tI-PER\t-\tx
4\tLee\tI-PER\t-\tx

# sent_id = d1-0002
1\tOK\tO\t-\t-
"""


def test_iob2_synthetic_and_repair(tmp_path: Path) -> None:
    frame = read_iob2(_write(tmp_path / "x.iob2", IOB2))
    assert read_iob2(_write(tmp_path / "x.iob2.gz", IOB2)).equals(frame)
    assert frame["sent_id"].tolist() == ["d1-0001", "d1-0002"]
    assert frame["doc_id"].tolist() == ["d1", "d1"]
    assert frame["ner"].iloc[0] == ["B-PER", "O", "B-PER", "I-PER"]
    assert frame.attrs["iob2_repaired"] == 1


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("2\tmet\tO\t-\t-", "2\tmet\tO\t-", 5, "expected index, token, tag.*found 4"),
        ("2\tmet\tO\t-\t-", "2\tmet\tB-\t-\t-", 5, "'B-' is not an IOB2 tag"),
        ("2\tmet\tO\t-\t-", "3\tmet\tO\t-\t-", 5, "token index '3', expected 2"),
        ("# sent_id = d1-0002\n", "", 9, "sentence without a '# sent_id' comment"),
    ],
)
def test_iob2_malformed(tmp_path: Path, old: str, new: str, line: int, message: str) -> None:
    path = _write(tmp_path / "bad.iob2", IOB2.replace(old, new))
    with pytest.raises(CorpusFormatError, match=rf"bad\.iob2, line {line}: {message}"):
        read_iob2(path)


# --------------------------------------------------------------------------- sentence table


def test_parquet_round_trip(tmp_path: Path, joined: dict[str, pd.DataFrame], wsj: pd.DataFrame) -> None:
    for name, frame in {"joint": joined["dev"], "wsj": wsj}.items():
        path = tmp_path / f"{name}.parquet"
        frame.to_parquet(path, index=False)
        back = read_sentences(path)
        assert list(back.columns) == list(frame.columns)
        assert back.to_dict("list") == frame.to_dict("list")
        plain = pd.read_parquet(path)
        assert plain["heads"].map(list).tolist() == frame["heads"].tolist()
        assert plain["words"].map(list).tolist() == frame["words"].tolist()


def test_sentence_frame_checks_and_stats() -> None:
    row = {
        "sent_id": "s1",
        "doc_id": "d",
        "words": ["a", "b"],
        "coarse_tags": ["X", "X"],
        "tags": ["A", "B"],
        "heads": [0, 1],
        "deprels": ["root", "dep"],
        "ner": ["B-PER", "I-PER"],
    }
    frame = sentence_frame([row, {**row, "sent_id": "s2", "ner": ["O", "B-LOC"]}])
    assert sentence_stats(frame) == {
        "sentences": 2,
        "tokens": 4,
        "documents": 1,
        "tags": 2,
        "coarse_tags": 1,
        "ner_labels": 4,
        "entities": 2,
        "joint_labels": 8,
        "joint_pairs_observed": 4,
    }
    with pytest.raises(CorpusFormatError, match="sent_id 's1' occurs more than once"):
        sentence_frame([row, row], source="x")
    with pytest.raises(CorpusFormatError, match="column 'tags' does not have one entry per word"):
        sentence_frame([{**row, "tags": ["A"]}])
    with pytest.raises(CorpusFormatError, match=r"a head lies outside 0\.\.2"):
        sentence_frame([{**row, "heads": [0, 3]}])
    with pytest.raises(CorpusFormatError, match="has no words"):
        sentence_frame(
            [{**row, **dict.fromkeys(["words", "coarse_tags", "tags", "heads", "deprels", "ner"], [])}]
        )


def _oracle(sizes: dict[str, int], test: int, dev: int) -> dict[str, set[str]] | None:
    """Reference for the splitter's documented rule, written as a plain loop; None when train is empty."""
    remaining = sorted(sizes)
    parts: dict[str, set[str]] = {}
    for name, target in (("test", test), ("dev", dev)):
        if name == "dev" and not dev:
            continue
        taken, count = set(), 0
        while remaining and count < target:
            doc = remaining.pop()
            taken.add(doc)
            count += sizes[doc]
        parts[name] = taken
    if not remaining:
        return None
    parts["train"] = set(remaining)
    return parts


@settings(max_examples=150, deadline=None)
@given(
    sizes=st.dictionaries(
        st.text("abcxyz019", min_size=1, max_size=4), st.integers(1, 9), min_size=1, max_size=12
    ),
    test=st.integers(1, 40),
    dev=st.integers(0, 20),
    seed=st.randoms(use_true_random=False),
)
def test_split_by_document_properties(sizes: dict[str, int], test: int, dev: int, seed) -> None:
    doc_ids = [doc for doc, size in sizes.items() for _ in range(size)]
    seed.shuffle(doc_ids)
    frame = pd.DataFrame(
        {"sent_id": [f"s{i}" for i in range(len(doc_ids))], "doc_id": pd.array(doc_ids, dtype="str")}
    )
    expected = _oracle(sizes, test, dev)
    if expected is None:
        with pytest.raises(ConfigError, match="leaves no training documents"):
            split_by_document(frame, test=test, dev=dev)
        return
    parts = split_by_document(frame, test=test, dev=dev)
    again = split_by_document(frame, test=test, dev=dev)
    assert all(parts[name].equals(again[name]) for name in parts)  # deterministic
    assert set(parts) == set(expected)
    for name, part in parts.items():
        assert set(part["doc_id"]) == expected[name], name
        # rows keep their original order
        assert part["sent_id"].map(lambda s: int(s[1:])).is_monotonic_increasing
    ids = pd.concat([part["sent_id"] for part in parts.values()])
    assert ids.is_unique and set(ids) == set(frame["sent_id"])  # disjoint and complete
    owners = pd.concat([part[["doc_id"]].assign(part=name) for name, part in parts.items()])
    assert (owners.groupby("doc_id")["part"].nunique() == 1).all()  # no document is split
    assert len(parts["test"]) >= test and (not dev or len(parts["dev"]) >= dev)


def test_split_fraction_and_bad_sizes(wsj: pd.DataFrame) -> None:
    parts = split_by_document(wsj, test=0.1, dev=0.1)
    assert {name: len(part) for name, part in parts.items()} == {"train": 3098, "dev": 420, "test": 396}
    for bad in (0, -1, 1.5, "10", True):
        with pytest.raises(ConfigError):
            split_by_document(wsj, test=bad)


def test_invalid_utf8_names_the_file(tmp_path: Path) -> None:
    conll = tmp_path / "latin1.conllu"
    conll.write_bytes(CONLLU.replace("Yes", "J\xe4").encode("latin-1"))
    with pytest.raises(CorpusFormatError, match=r"latin1\.conllu: not valid UTF-8 after line \d+"):
        read_conllu(conll)
    iob2 = tmp_path / "latin1.iob2"
    iob2.write_bytes(IOB2.replace("Ann", "\xc5se").encode("latin-1"))
    with pytest.raises(CorpusFormatError, match=r"latin1\.iob2: not valid UTF-8 after line \d+"):
        read_iob2(iob2)
    archive = tmp_path / "dependency_treebank.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("dependency_treebank/wsj_0001.dp", "K\xf6ln\tNNP\t0\n".encode("latin-1"))
    with pytest.raises(CorpusFormatError, match=r"zip::dependency_treebank/wsj_0001\.dp: not valid UTF-8"):
        read_wsj(archive)


@pytest.mark.parametrize("bad", [None, 5, True, 1.5, [b"x"], {"path": "x"}])
def test_readers_name_a_path_that_is_not_one(tmp_path: Path, bad) -> None:
    """Found here: each gave pathlib's or open()'s TypeError ("expected str, bytes or os.PathLike object"), and a
    bool or an int was opened as a file descriptor (True read stdout's)."""
    import numpy as np

    from decoders.corpora import conll, sentences, uner, wsj

    frame = pd.DataFrame({"sent_id": []})
    for call, name in [
        (lambda: conll.read_conllu(bad), "path"),
        (lambda: conll.read_conllx(bad), "path"),
        (lambda: conll.read_cdt_sources(bad), "path"),
        (lambda: conll.assign_cdt_documents(frame, bad), "sources_tsv"),
        (lambda: conll.verify_cdt_sources(bad, "s.tsv"), "conll_path"),
        (lambda: conll.split_cdt(frame, bad), "sources_tsv_path"),
        (lambda: sentences.read_sentences(bad), "path"),
        (lambda: sentences.file_stem(bad), "path"),
        (lambda: uner.read_iob2(bad), "path"),
        (lambda: wsj.read_wsj(bad), "dependency_zip"),
        (lambda: wsj.read_wsj("d.zip", np.zeros(2)), "treebank_zip"),
        (lambda: wsj.compare_with_treebank(frame, bad), "treebank_zip"),
    ]:
        with pytest.raises(ValueError, match=f"{name} must be a path"):
            call()


def test_corpus_functions_name_a_wrong_argument(tmp_path: Path) -> None:
    """Found here: a frame that is not one gave AttributeErrors, a sentence id that is not a string a TypeError,
    a prepare step's inputs without a role a KeyError, its limit or sample anything."""
    from decoders.corpora import conll, prepare, sentences, uner, wsj

    frame = pd.DataFrame({"a": [1]})
    for call, words, error in [
        (lambda: sentences.doc_id_from_sent_id(5, "d"), "sent_id must be a string", ValueError),
        (lambda: sentences.sentence_frame(5), "rows must be a sequence", ValueError),
        (lambda: sentences.sentence_frame([5]), r"rows\[0\] must be a mapping", ValueError),
        (lambda: sentences.validate_sentences([1]), "frame must be a pandas DataFrame", ValueError),
        (lambda: sentences.sentence_stats(None), "frame must be a pandas DataFrame", ValueError),
        (lambda: sentences.split_by_document("f", 0.1), "frame must be a pandas DataFrame", ValueError),
        (lambda: conll.read_conllu("x.conllu", tags_from=["upos"]), "tags_from must be a string", ValueError),
        (lambda: conll.split_cdt(frame, "s.tsv", test_sentences=0), "test_sentences", ValueError),
        (lambda: uner.join_uner_ud(frame, None), "ud must be a pandas DataFrame", ValueError),
        (
            lambda: uner.join_uner_ud(frame, frame, max_dropped_fraction="1"),
            "max_dropped_fraction",
            ValueError,
        ),
        (lambda: wsj.split_wsj([1]), "frame must be a pandas DataFrame", ValueError),
        (lambda: prepare.sample_split(frame, -1, 0), "size must be an integer >= 1", ValueError),
        (lambda: prepare.sample_split(frame, 1, "0"), "seed must be an integer", ValueError),
        (lambda: prepare.prepare_conllu("d", {}, {}), "d: inputs has no 'train'", ConfigError),
        (lambda: prepare.prepare_conllu("d", ["x"], {}), "inputs must be a mapping", ValueError),
        (lambda: prepare.prepare_conllu(5, {}, {}), "dataset must be a string", ValueError),
        (lambda: prepare.prepare_conllx("d", {"treebank": "t"}, {}, limit=0), "limit must be", ValueError),
        (lambda: prepare.prepare_wsj("d", {}, {}, sample={"test": "5"}), r"sample\['test'\]", ValueError),
        (lambda: prepare.prepare_uner("d", {}, {}, seed=-1), "seed must be an integer >= 0", ValueError),
        (lambda: prepare.prepare_wikispeedia("d", {}, {}), "d: inputs has no 'articles'", ConfigError),
    ]:
        with pytest.raises(error, match=words):
            call()
