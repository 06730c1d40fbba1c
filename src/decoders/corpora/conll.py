"""CoNLL-U (Universal Dependencies) and CoNLL-X (Danish DDT) readers producing the sentence table.

Both formats are parsed by the ``conllu`` library. The library neither reports line numbers nor rejects
short lines, so every line it reads first passes through :class:`_CheckedLines`, which checks the column
count and the ID/HEAD syntax and remembers which line each token came from; later checks (token numbering,
head range, missing tags) can then name the file and line too. Multiword-token ranges (``3-4``) and empty
nodes (``5.1``) are dropped.

The DDT release has no train/test split; :func:`split_cdt` makes one by whole source documents, using the
per-file sentence counts in the mirror's ``sources.tsv``.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, TextIO

import conllu
import pandas as pd
from conllu.exceptions import ParseException
from conllu.parser import DEFAULT_FIELD_PARSERS

from decoders.checks import checked
from decoders.corpora.sentences import (
    doc_id_from_sent_id,
    file_stem,
    sentence_frame,
    split_by_document,
    validate_sentences,
)
from decoders.errors import ConfigError, CorpusFormatError

__all__ = [
    "CDT_TEST_SENTENCES",
    "assign_cdt_documents",
    "read_cdt_sources",
    "read_conllu",
    "read_conllx",
    "split_cdt",
    "verify_cdt_sources",
]

CONLLU_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
CONLLX_FIELDS = ("id", "form", "lemma", "cpostag", "postag", "feats", "head", "deprel", "phead", "pdeprel")
CDT_TEST_SENTENCES = 322  # test size of the CoNLL-X 2006 shared task's Danish data

# ID column: a word (1, 2, ...), a multiword range (3-4) or an empty node (5.1); CoNLL-X has words only.
_CONLLU_ID = re.compile(r"[1-9]\d*(?:-[1-9]\d*)?|\d+\.[1-9]\d*")
_CONLLX_ID = re.compile(r"[1-9]\d*")
_CONLLU_HEAD = re.compile(r"0|[1-9]\d*|_")  # "_" is legal on ranges and empty nodes, checked later for words
_CONLLX_HEAD = re.compile(r"0|[1-9]\d*")


def _raw(line: list[str], i: int) -> str:
    return line[i]


def _field_parsers(fields: tuple[str, ...]) -> dict[str, Callable[[list[str], int], Any]]:
    """conllu field parsers: IDs and heads as ints, XPOS nullable, every other column kept as text.

    Giving a parser for every field stops conllu from also splitting FEATS/MISC/DEPS, which nothing uses.
    """
    parsers: dict[str, Callable[[list[str], int], Any]] = dict.fromkeys(fields, _raw)
    for name in ("id", "head", "xpos"):
        if name in fields:
            parsers[name] = DEFAULT_FIELD_PARSERS[name]
    return parsers


def _open_text(path: Path) -> TextIO:
    """Open a corpus file as UTF-8 text, decompressing it when the name ends in ``.gz``."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


class _CheckedLines:
    """The lines of a CoNLL file as ``conllu.parse_incr`` reads them, checked and numbered on the way.

    ``parse_incr`` reads one sentence block up to its closing blank line (or the end of the file) before it
    yields the parsed sentence, so when a sentence arrives, :attr:`token_lines` holds the line numbers of
    exactly its token lines, in order, and :attr:`block_start` the number of its first line.
    """

    def __init__(
        self, handle: TextIO, path: Path, id_pattern: re.Pattern[str], head_pattern: re.Pattern[str]
    ):
        self._handle = handle
        self._path = path
        self._id = id_pattern
        self._head = head_pattern
        self._in_block = False
        self.line_number = 0
        self.block_start = 0
        self.token_lines: list[int] = []

    def __iter__(self) -> _CheckedLines:
        return self

    def __next__(self) -> str:
        try:
            line = next(self._handle)
        except UnicodeDecodeError as error:
            # text is decoded in chunks, so the bad byte is somewhere after the last line handed out
            raise CorpusFormatError(
                self._path, None, f"not valid UTF-8 after line {self.line_number}: {error}"
            ) from error
        self.line_number += 1
        if not line.strip():
            self._in_block = False
            return line
        if not self._in_block:
            self._in_block = True
            self.block_start = self.line_number
            self.token_lines = []
        if not line.startswith("#"):
            self._check(line.rstrip("\r\n"))
            self.token_lines.append(self.line_number)
        return line

    def read(self, size: int = -1) -> str:
        """The rest of the file (all lines checked); ``parse_incr`` only needs this method to exist."""
        text = "".join(self)
        return text if size < 0 else text[:size]

    def _check(self, line: str) -> None:
        columns = line.split("\t")
        if len(columns) != 10:
            raise CorpusFormatError(
                self._path, self.line_number, f"expected 10 tab-separated columns, found {len(columns)}"
            )
        if "  " in line:
            # conllu also splits columns at two or more spaces; such a line would be read misaligned
            raise CorpusFormatError(self._path, self.line_number, "two consecutive spaces inside a column")
        if not self._id.fullmatch(columns[0]):
            raise CorpusFormatError(self._path, self.line_number, f"invalid token ID {columns[0]!r}")
        if not self._head.fullmatch(columns[6]):
            raise CorpusFormatError(self._path, self.line_number, f"invalid HEAD {columns[6]!r}")


def _sentences(
    path: Path, fields: tuple[str, ...], id_pattern: re.Pattern[str], head_pattern: re.Pattern[str]
) -> Iterator[tuple[conllu.TokenList, _CheckedLines]]:
    """Parse a CoNLL file sentence by sentence; yield each sentence with the line tracker (see above)."""
    with _open_text(path) as handle:
        lines = _CheckedLines(handle, path, id_pattern, head_pattern)
        sentences = conllu.parse_incr(lines, fields=fields, field_parsers=_field_parsers(fields))
        while True:
            try:
                sentence = next(sentences)
            except StopIteration:
                return
            except ParseException as error:
                raise CorpusFormatError(
                    path, lines.block_start, f"in the sentence starting here: {error}"
                ) from error
            if not sentence:
                raise CorpusFormatError(path, lines.block_start, "comment lines not followed by any token")
            yield sentence, lines


def _check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"limit must be a positive int or None, got {limit!r}")


def _words_of(
    sentence: conllu.TokenList, token_lines: list[int], path: Path
) -> list[tuple[conllu.Token, int]]:
    """The sentence's word tokens (ranges and empty nodes dropped) with their line numbers.

    Checks that the words are numbered 1..n and every head is an integer in 0..n.
    """
    words = [
        (token, line) for token, line in zip(sentence, token_lines, strict=True) if type(token["id"]) is int
    ]
    for expected, (token, line) in enumerate(words, start=1):
        if token["id"] != expected:
            raise CorpusFormatError(path, line, f"word ID {token['id']} out of sequence, expected {expected}")
    n = len(words)
    if n == 0:
        raise CorpusFormatError(path, token_lines[0], "sentence has no words (only ranges or empty nodes)")
    for token, line in words:
        head = token["head"]
        if head is None:
            raise CorpusFormatError(path, line, "HEAD is '_' on a word")
        if head > n:
            raise CorpusFormatError(path, line, f"HEAD {head} outside 0..{n}")
    return words


def _require_tag(value: str | None, name: str, path: Path, line: int, hint: str = "") -> str:
    if value is None or value == "_":
        raise CorpusFormatError(path, line, f"{name} is '_'{hint}")
    return value


def _row(
    sent_id: str,
    doc_id: str,
    words: list[tuple[Any, int]],
    coarse: list[str],
    tags: list[str],
    morphology: bool = False,
) -> dict:
    """A sentence-table row from the checked word tokens (with their line numbers) of a sentence; with
    ``morphology`` also each word's LEMMA and FEATS as written (``_`` where the treebank has none)."""
    row = {
        "sent_id": sent_id,
        "doc_id": doc_id,
        "words": [token["form"] for token, _ in words],
        "coarse_tags": coarse,
        "tags": tags,
        "heads": [token["head"] for token, _ in words],
        "deprels": [token["deprel"] for token, _ in words],
    }
    if morphology:
        row["lemmas"] = [token["lemma"] for token, _ in words]
        row["feats"] = [token["feats"] for token, _ in words]
    return row


def _check_morphology(morphology: bool) -> None:
    if not isinstance(morphology, bool):
        raise ConfigError(f"morphology must be true or false, got {morphology!r}")


def _frame(rows: list[dict[str, Any]], path: Path) -> pd.DataFrame:
    frame = sentence_frame(rows, source=path)
    frame.attrs["source"] = str(path)
    return frame


@checked(path="path", tags_from="text")
def read_conllu(
    path: str | Path,
    limit: int | None = None,
    tags_from: Literal["xpos", "upos"] = "xpos",
    morphology: bool = False,
) -> pd.DataFrame:
    """Read a CoNLL-U file (plain or ``.gz``) into the sentence table.

    ``coarse_tags`` is UPOS; ``tags`` is XPOS, or UPOS again with ``tags_from="upos"`` for treebanks that
    annotate no XPOS (UD Hungarian Szeged): a missing XPOS is an error rather than a silent ``_`` tag.
    ``sent_id`` comes from ``# sent_id`` (else ``<file stem>-<k>``, k counting from 1); ``doc_id`` from the
    last ``# newdoc id`` seen, else the sent_id before its last ``-``, else the file stem. ``limit`` stops
    after that many sentences. ``morphology`` adds the ``lemmas`` and ``feats`` columns.
    """
    if tags_from not in ("xpos", "upos"):
        raise ConfigError(f"tags_from must be 'xpos' or 'upos', got {tags_from!r}")
    _check_limit(limit)
    _check_morphology(morphology)
    path = Path(path)
    stem = file_stem(path)
    hint = "; this treebank may have no XPOS: read it with tags_from='upos'"
    rows: list[dict[str, Any]] = []
    doc_id: str | None = None
    for sentence, lines in _sentences(path, CONLLU_FIELDS, _CONLLU_ID, _CONLLU_HEAD):
        metadata = sentence.metadata
        if metadata.get("newdoc id"):
            doc_id = metadata["newdoc id"]
        sent_id = metadata.get("sent_id")
        if sent_id:
            sentence_doc = doc_id or doc_id_from_sent_id(sent_id, stem)
        else:
            sent_id = f"{stem}-{len(rows) + 1}"
            sentence_doc = doc_id or stem
        words = _words_of(sentence, lines.token_lines, path)
        upos = [_require_tag(token["upos"], "UPOS", path, line) for token, line in words]
        if tags_from == "xpos":
            tags = [_require_tag(token["xpos"], "XPOS", path, line, hint) for token, line in words]
        else:
            tags = upos
        rows.append(_row(sent_id, sentence_doc, words, upos, list(tags), morphology))
        if limit is not None and len(rows) >= limit:
            break
    return _frame(rows, path)


@checked(path="path", tags_from="text")
def read_conllx(
    path: str | Path,
    limit: int | None = None,
    tags_from: Literal["postag", "cpostag"] = "postag",
    morphology: bool = False,
) -> pd.DataFrame:
    """Read a CoNLL-X file (10 columns, CPOSTAG/POSTAG; plain or ``.gz``) into the sentence table.

    ``coarse_tags`` is CPOSTAG, ``tags`` POSTAG (or CPOSTAG again with ``tags_from="cpostag"``). The format
    has no sentence ids or document marks: ``sent_id`` is ``<file stem>-<k>`` (k from 1) and ``doc_id`` the
    file stem; :func:`assign_cdt_documents` replaces both for the DDT concatenation. ``morphology`` adds the
    ``lemmas`` and ``feats`` columns.
    """
    if tags_from not in ("postag", "cpostag"):
        raise ConfigError(f"tags_from must be 'postag' or 'cpostag', got {tags_from!r}")
    _check_limit(limit)
    _check_morphology(morphology)
    path = Path(path)
    stem = file_stem(path)
    rows: list[dict[str, Any]] = []
    for sentence, lines in _sentences(path, CONLLX_FIELDS, _CONLLX_ID, _CONLLX_HEAD):
        words = _words_of(sentence, lines.token_lines, path)
        coarse = [_require_tag(token["cpostag"], "CPOSTAG", path, line) for token, line in words]
        if tags_from == "postag":
            tags = [_require_tag(token["postag"], "POSTAG", path, line) for token, line in words]
        else:
            tags = list(coarse)
        rows.append(_row(f"{stem}-{len(rows) + 1}", stem, words, coarse, tags, morphology))
        if limit is not None and len(rows) >= limit:
            break
    return _frame(rows, path)


@checked(path="path")
def read_cdt_sources(path: str | Path) -> pd.DataFrame:
    """The DDT source index (``sources.tsv``): columns ``path``, ``doc_id`` (file stem), ``sentences`` and
    ``sha256`` (empty when the index has no such column).

    Rows are in the order the files were concatenated into ``ddt-v1-da.conll``.
    """
    path = Path(path)
    required = ("path", "sentences")
    records: list[dict[str, Any]] = []
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = [name for name in required if name not in (reader.fieldnames or [])]
        if missing:
            raise CorpusFormatError(path, 1, f"header lacks column(s) {missing}")
        for row in reader:
            line = reader.line_num
            count = row["sentences"]
            if count is None or not count.isdigit() or int(count) < 1:
                raise CorpusFormatError(path, line, f"sentence count {count!r} is not a positive integer")
            if not row["path"]:
                raise CorpusFormatError(path, line, "empty path")
            records.append(
                {
                    "path": row["path"],
                    "doc_id": file_stem(row["path"]),
                    "sentences": int(count),
                    "sha256": row.get("sha256") or "",
                }
            )
    sources = pd.DataFrame(records, columns=["path", "doc_id", "sentences", "sha256"])
    if sources.empty:
        raise CorpusFormatError(path, None, "no source files listed")
    duplicated = sources["doc_id"].duplicated()
    if duplicated.any():
        raise CorpusFormatError(
            path, None, f"document {sources['doc_id'][duplicated].iloc[0]!r} listed twice"
        )
    return sources


@checked(frame="frame", sources_tsv="path")
def assign_cdt_documents(frame: pd.DataFrame, sources_tsv: str | Path) -> pd.DataFrame:
    """Give each sentence of the DDT concatenation its source document.

    The k-th sentence of document ``0001-da`` gets ``doc_id`` ``"0001-da"`` and ``sent_id`` ``"0001-da-k"``.
    The per-file counts in ``sources_tsv`` must add up to the number of sentences in ``frame``.
    """
    sources = read_cdt_sources(sources_tsv)
    expected = int(sources["sentences"].sum())
    if expected != len(frame):
        raise CorpusFormatError(
            sources_tsv,
            None,
            f"per-file sentence counts add up to {expected}, but the treebank has {len(frame)} sentences",
        )
    counts = sources["sentences"].to_numpy()
    doc_ids = sources["doc_id"].to_numpy().repeat(counts)
    ordinal = pd.Series(doc_ids).groupby(doc_ids, sort=False).cumcount().to_numpy() + 1
    result = frame.copy()
    result["doc_id"] = pd.array(doc_ids, dtype="str")
    result["sent_id"] = pd.array([f"{doc}-{k}" for doc, k in zip(doc_ids, ordinal, strict=True)], dtype="str")
    return validate_sentences(result, source=frame.attrs.get("source", "<ddt>"))


@checked(conll_path="path", sources_tsv="path")
def verify_cdt_sources(conll_path: str | Path, sources_tsv: str | Path) -> int:
    """Check that the DDT concatenation is exactly the listed source files, in order; return their number.

    Cuts the raw bytes of ``conll_path`` (plain or ``.gz``) into consecutive runs of blank-line-terminated
    sentences with the per-file counts of ``sources_tsv`` and compares each run with the file's sha256. This
    proves the document assignment of :func:`assign_cdt_documents` rather than only the total count.
    """
    conll_path = Path(conll_path)
    sources = read_cdt_sources(sources_tsv)
    if (sources["sha256"] == "").any():
        raise CorpusFormatError(sources_tsv, None, "a sha256 is missing for some source file")
    opener = gzip.open if conll_path.suffix == ".gz" else open
    with opener(conll_path, "rb") as handle:
        data = handle.read()
    blocks = data.split(b"\n\n")
    start = 0
    for source, count, digest in zip(sources["path"], sources["sentences"], sources["sha256"], strict=True):
        chunk = b"\n\n".join(blocks[start : start + count]) + b"\n\n"
        if start + count > len(blocks) or hashlib.sha256(chunk).hexdigest() != digest:
            raise CorpusFormatError(
                conll_path, None, f"sentences {start + 1}..{start + count} are not the content of {source}"
            )
        start += count
    if data[len(b"\n\n".join(blocks[:start])) + 2 :]:
        raise CorpusFormatError(conll_path, None, f"content after the {len(sources)} listed source files")
    return len(sources)


@checked(frame="frame", sources_tsv_path="path", test_sentences="positive")
def split_cdt(
    frame: pd.DataFrame, sources_tsv_path: str | Path, test_sentences: int = CDT_TEST_SENTENCES
) -> dict[str, pd.DataFrame]:
    """Assign DDT documents (see :func:`assign_cdt_documents`) and split them into ``train`` and ``test``.

    Rule (:func:`decoders.corpora.sentences.split_by_document`): sort the document ids (``0001-da`` ...
    ``1551-da``, i.e. the source file order) and move whole documents from the end of the list into test
    until it holds at least ``test_sentences`` sentences (default 322, the CoNLL-X 2006 test size); the
    rest is train. On the mirror's release: 5,313 train / 325 test sentences (32 test documents,
    ``1467-da`` ... ``1551-da``). The release has 5,638
    sentences, more than the 5,512 of CoNLL-X 2006, so train is larger than the shared task's 5,190.
    """
    return split_by_document(assign_cdt_documents(frame, sources_tsv_path), test=test_sentences)
