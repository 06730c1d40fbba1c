"""The NLTK sample of the Penn Treebank WSJ (wsj_0001-wsj_0199) as a dependency treebank.

``dependency_treebank.zip`` holds one ``.dp`` file per WSJ document: ``word<TAB>PTB tag<TAB>head`` per line,
a blank line between sentences, heads 1-based with 0 for the root. There are no dependency labels, so
``deprels`` are ``_``, and ``coarse_tags`` repeat the PTB tag.

Optionally the words and tags are cross-checked against the constituency trees of ``treebank.zip``
(``treebank/combined/*.mrg``, with ``-NONE-`` trace leaves removed): on the mirror's files every sentence
agrees, so sentence-count differences raise and token differences raise above 1% of sentences.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from decoders.checks import checked
from decoders.corpora.sentences import sentence_frame, split_by_document
from decoders.errors import CorpusFormatError

__all__ = ["WSJ_TEST_FRACTION", "compare_with_treebank", "read_wsj", "split_wsj"]

WSJ_TEST_FRACTION = 0.1
_DP_MEMBER = re.compile(r"(?:.*/)?(wsj_\d{4})\.dp")
_MRG_MEMBER = re.compile(r"(?:.*/)?combined/(wsj_\d{4})\.mrg")
_LEAF = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")  # (TAG word): PTB escapes brackets in words as -LRB- etc.
_HEAD = re.compile(r"0|[1-9]\d*")
_MAX_DISAGREEMENT = 0.01  # share of sentences whose words/tags may differ before the difference is systematic


def _members(archive: zipfile.ZipFile, pattern: re.Pattern[str]) -> dict[str, str]:
    """Document id -> member name for the archive members matching ``pattern``, sorted by document id."""
    found = {}
    for name in archive.namelist():
        match = pattern.fullmatch(name)
        if match:
            found[match.group(1)] = name
    return dict(sorted(found.items()))


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        raise CorpusFormatError(path, None, f"not a zip archive: {error}") from error


def _member_text(archive: zipfile.ZipFile, path: Path, member: str) -> str:
    where = f"{path}::{member}"
    try:
        return archive.read(member).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusFormatError(where, None, f"not valid UTF-8: {error}") from error


def _dp_sentences(text: str, where: str) -> list[list[tuple[str, str, int]]]:
    """The sentences of one ``.dp`` file as (word, tag, head) triples; errors name ``where`` and the line."""
    sentences: list[list[tuple[str, str, int]]] = []
    current: list[tuple[str, str, int]] = []
    lines: list[int] = []

    def close() -> None:
        for (_, _, head), line in zip(current, lines, strict=True):
            if head > len(current):
                raise CorpusFormatError(where, line, f"head {head} outside 0..{len(current)}")
        sentences.append(list(current))

    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            if current:
                close()
                current, lines = [], []
            continue
        columns = line.split("\t")
        if len(columns) != 3:
            raise CorpusFormatError(
                where, number, f"expected word<TAB>tag<TAB>head, found {len(columns)} column(s)"
            )
        word, tag, head = columns
        if not word or not tag:
            raise CorpusFormatError(where, number, "empty word or tag")
        if not _HEAD.fullmatch(head):
            raise CorpusFormatError(where, number, f"head {head!r} is not a non-negative integer")
        current.append((word, tag, int(head)))
        lines.append(number)
    if current:
        close()
    return sentences


@checked(dependency_zip="path", treebank_zip="path")
def read_wsj(dependency_zip: str | Path, treebank_zip: str | Path | None = None) -> pd.DataFrame:
    """Read the NLTK WSJ dependency sample into the sentence table.

    ``doc_id`` is the file name (``wsj_0001``), ``sent_id`` ``wsj_0001-0001`` (k-th sentence, from 1). With
    ``treebank_zip`` the result of :func:`compare_with_treebank` is stored in ``attrs["treebank_check"]``.
    """
    dependency_zip = Path(dependency_zip)
    rows: list[dict[str, Any]] = []
    with _open_zip(dependency_zip) as archive:
        members = _members(archive, _DP_MEMBER)
        if not members:
            raise CorpusFormatError(dependency_zip, None, "no wsj_NNNN.dp files in the archive")
        for doc_id, member in members.items():
            where = f"{dependency_zip}::{member}"
            sentences = _dp_sentences(_member_text(archive, dependency_zip, member), where)
            if not sentences:
                raise CorpusFormatError(where, None, "no sentences")
            for k, sentence in enumerate(sentences, start=1):
                words, tags, heads = (list(column) for column in zip(*sentence, strict=True))
                rows.append(
                    {
                        "sent_id": f"{doc_id}-{k:04d}",
                        "doc_id": doc_id,
                        "words": words,
                        "coarse_tags": list(tags),
                        "tags": tags,
                        "heads": heads,
                        "deprels": ["_"] * len(words),
                    }
                )
    frame = sentence_frame(rows, source=dependency_zip)
    frame.attrs["source"] = str(dependency_zip)
    if treebank_zip is not None:
        frame.attrs["treebank_check"] = compare_with_treebank(frame, treebank_zip)
    return frame


def _mrg_sentences(text: str, where: str) -> list[list[tuple[str, str]]]:
    """(word, tag) leaves of each tree in a ``.mrg`` file, ``-NONE-`` traces removed.

    Every tree starts with ``(`` in the first column and its continuation lines are indented.
    """
    trees: list[str] = []
    for line in text.splitlines():
        if line.startswith("("):
            trees.append(line)
        elif line.strip():
            if not trees:
                raise CorpusFormatError(where, None, "text before the first tree")
            trees[-1] += "\n" + line
    for number, tree in enumerate(trees, start=1):
        if tree.count("(") != tree.count(")"):
            raise CorpusFormatError(where, None, f"tree {number} has unbalanced brackets")
    return [[(word, tag) for tag, word in _LEAF.findall(tree) if tag != "-NONE-"] for tree in trees]


@checked(frame="frame", treebank_zip="path")
def compare_with_treebank(frame: pd.DataFrame, treebank_zip: str | Path) -> dict[str, int]:
    """Compare the words and tags of a :func:`read_wsj` frame with ``combined/*.mrg`` (traces removed).

    Returns ``documents``, ``sentences``, ``sentence_disagreements`` (sentences whose (word, tag) sequence
    differs) and ``token_disagreements`` (differing positions in equally long sentences, plus every token of
    sentences of different length). Raises :class:`CorpusFormatError` when the difference is systematic: a
    document is missing, its sentence count differs, or more than 1% of the sentences disagree.
    """
    treebank_zip = Path(treebank_zip)
    report = {"documents": 0, "sentences": 0, "sentence_disagreements": 0, "token_disagreements": 0}
    with _open_zip(treebank_zip) as archive:
        members = _members(archive, _MRG_MEMBER)
        for doc_id, group in frame.groupby("doc_id", sort=True):
            if doc_id not in members:
                raise CorpusFormatError(treebank_zip, None, f"no combined/{doc_id}.mrg in the archive")
            where = f"{treebank_zip}::{members[doc_id]}"
            trees = _mrg_sentences(_member_text(archive, treebank_zip, members[doc_id]), where)
            if len(trees) != len(group):
                raise CorpusFormatError(
                    where, None, f"{len(trees)} trees, but the dependency file has {len(group)} sentences"
                )
            report["documents"] += 1
            for words, tags, leaves in zip(group["words"], group["tags"], trees, strict=True):
                report["sentences"] += 1
                pairs = list(zip(words, tags, strict=True))
                if pairs == leaves:
                    continue
                report["sentence_disagreements"] += 1
                if len(pairs) == len(leaves):
                    report["token_disagreements"] += sum(a != b for a, b in zip(pairs, leaves, strict=True))
                else:
                    report["token_disagreements"] += max(len(pairs), len(leaves))
    if report["sentence_disagreements"] > _MAX_DISAGREEMENT * report["sentences"]:
        raise CorpusFormatError(
            treebank_zip,
            None,
            f"{report['sentence_disagreements']} of {report['sentences']} sentences differ in words or tags "
            "from the dependency sample",
        )
    return report


@checked(frame="frame")
def split_wsj(frame: pd.DataFrame, test: int | float = WSJ_TEST_FRACTION) -> dict[str, pd.DataFrame]:
    """Split the WSJ sample into ``train`` and ``test`` by whole documents.

    Rule (:func:`decoders.corpora.sentences.split_by_document`): documents in file order (wsj_0001 ...
    wsj_0199); the last ones go to test until it holds at least ``test`` sentences (default 10% of the
    sentences, i.e. 392 of 3,914). On the mirror's sample that is wsj_0172-wsj_0199 (28 documents, 396
    sentences) for test and wsj_0001-wsj_0171 (171 documents, 3,518 sentences) for train.
    """
    return split_by_document(frame, test=test)
