"""UniversalNER IOB2 files and their join with the UD treebank they annotate (joint POS/NER dataset).

A ``.iob2`` file has ``# sent_id`` / ``# text`` (and optional ``# newdoc id``) comments, then one row per
word: ``index<TAB>token<TAB>IOB2 tag<TAB>-<TAB>annotator``, with a blank line after each sentence. The sent_ids
are UD sent_ids, so NER tags join onto a UD frame by sent_id and word position.

UNER English EWT was annotated on an older UD EWT commit than the mirror's UD files; a handful of sentences
were re-tokenised since. :func:`join_uner_ud` keeps a sentence only when both sides have the same word forms,
drops the rest and records how many (3 of 2,001 in dev, 3 of 2,077 in test on the mirror).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pandas as pd

from decoders.checks import checked
from decoders.corpora.sentences import NER_COLUMN, doc_id_from_sent_id, file_stem, validate_sentences
from decoders.errors import CorpusFormatError

__all__ = ["MAX_DROPPED_FRACTION", "join_uner_ud", "read_iob2"]

MAX_DROPPED_FRACTION = 0.01  # more unalignable sentences than this means the wrong UD file or split
_TAG = re.compile(r"O|[BI]-[^\s-][^\s]*")
_IOB2_COLUMNS = ["sent_id", "doc_id", "words", NER_COLUMN]


@checked(path="path")
def read_iob2(path: str | Path) -> pd.DataFrame:
    """Read a UniversalNER ``.iob2`` file (plain or ``.gz``) into ``sent_id``, ``doc_id``, ``words``, ``ner``.

    ``doc_id`` follows ``# newdoc id`` (carried forward), else the sent_id before its last ``-``. Token
    indices must run 1..n, tags must be ``O``, ``B-X`` or ``I-X``. An ``I-X`` that does not continue an
    ``X`` entity is turned into ``B-X`` (the reading conlleval gives it) so every gold sequence is valid
    IOB2; the number of such repairs is ``attrs["iob2_repaired"]``.
    """
    path = Path(path)
    stem = file_stem(path)
    rows: list[dict[str, Any]] = []
    repaired = 0
    doc_id: str | None = None
    sent_id: str | None = None
    words: list[str] = []
    tags: list[str] = []
    start = 0  # first line of the current sentence block; 0 between blocks

    def finish() -> None:
        if sent_id is None:
            raise CorpusFormatError(path, start, "sentence without a '# sent_id' comment")
        if not words:
            raise CorpusFormatError(path, start, f"sentence {sent_id!r} has no tokens")
        document = doc_id or doc_id_from_sent_id(sent_id, stem)
        rows.append({"sent_id": sent_id, "doc_id": document, "words": words, NER_COLUMN: tags})

    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for number, raw in enumerate(handle, start=1):
                line = raw.rstrip("\r\n")
                if not line.strip():
                    if start:
                        finish()
                    sent_id, words, tags, start = None, [], [], 0
                    continue
                start = start or number
                if line.startswith("#"):
                    if words:
                        raise CorpusFormatError(path, number, "comment line inside a sentence")
                    key, _, value = line[1:].partition("=")
                    key, value = key.strip(), value.strip()
                    if key == "newdoc id" and value:
                        doc_id = value
                    elif key == "sent_id":
                        if not value:
                            raise CorpusFormatError(path, number, "empty sent_id")
                        sent_id = value
                    continue
                word, tag, was_repaired = _parse_token_line(path, number, line, words, tags)
                repaired += was_repaired
                words.append(word)
                tags.append(tag)
    except UnicodeDecodeError as error:
        # text is decoded in chunks, so the bad byte is somewhere after the last line handed out
        raise CorpusFormatError(path, None, f"not valid UTF-8 after line {number}: {error}") from error
    if start:
        finish()
    frame = pd.DataFrame(rows, columns=_IOB2_COLUMNS)
    for column in ("sent_id", "doc_id"):
        frame[column] = frame[column].astype("str")
    duplicated = frame["sent_id"].duplicated()
    if duplicated.any():
        raise CorpusFormatError(path, None, f"sent_id {frame['sent_id'][duplicated].iloc[0]!r} occurs twice")
    frame.attrs["source"] = str(path)
    frame.attrs["iob2_repaired"] = repaired
    return frame


def _parse_token_line(
    path: Path, number: int, line: str, words: list[str], tags: list[str]
) -> tuple[str, str, bool]:
    """Parse the token row at line ``number``: (word, IOB2 tag, whether an ``I-X`` was made ``B-X``)."""
    columns = line.split("\t")
    if len(columns) != 5:
        raise CorpusFormatError(
            path,
            number,
            f"expected index, token, tag, '-' and annotator columns, found {len(columns)}",
        )
    index, word, tag = columns[0], columns[1], columns[2]
    if index != str(len(words) + 1):
        raise CorpusFormatError(path, number, f"token index {index!r}, expected {len(words) + 1}")
    if not _TAG.fullmatch(tag):
        raise CorpusFormatError(path, number, f"{tag!r} is not an IOB2 tag (O, B-X or I-X)")
    if tag.startswith("I-") and (not tags or tags[-1][2:] != tag[2:]):
        return word, "B-" + tag[2:], True
    return word, tag, False


@checked(uner="frame", ud="frame", max_dropped_fraction="number")
def join_uner_ud(
    uner: pd.DataFrame, ud: pd.DataFrame, max_dropped_fraction: float = MAX_DROPPED_FRACTION
) -> pd.DataFrame:
    """Attach the UNER tags of ``uner`` (from :func:`read_iob2`) to the UD sentence table ``ud`` (same split).

    Returns the UD rows of the UNER sentences, in UNER order, with a ``ner`` column. A UNER sentence is
    dropped when UD lacks its sent_id or when the two disagree in length or in any word form. The counts
    (``uner_sentences``, ``joined``, ``missing_in_ud``, ``token_mismatch``, ``dropped_entities``) and the
    dropped sent_ids are stored in ``attrs["uner_join"]``. Raises :class:`CorpusFormatError` when more than
    ``max_dropped_fraction`` of the UNER sentences are dropped: that is a wrong file, not UD drift.
    """
    source = uner.attrs.get("source", "<uner>")
    merged = uner.loc[:, ["sent_id", "words", NER_COLUMN]].merge(
        ud, on="sent_id", how="left", suffixes=("_uner", ""), indicator=True, validate="one_to_one"
    )
    present = (merged["_merge"] == "both").to_numpy()
    aligned = [
        bool(found) and a == b
        for found, a, b in zip(present, merged["words_uner"], merged["words"], strict=True)
    ]
    keep = pd.Series(aligned, index=merged.index)
    dropped = merged.loc[~keep]
    report = {
        "uner_sentences": len(uner),
        "joined": int(keep.sum()),
        "missing_in_ud": int((~present).sum()),
        "token_mismatch": int((present & ~keep.to_numpy()).sum()),
        "dropped_entities": int(dropped[NER_COLUMN].explode().astype("str").str.startswith("B-").sum()),
        "dropped_sent_ids": dropped["sent_id"].tolist(),
    }
    if len(dropped) > max_dropped_fraction * len(uner):
        raise CorpusFormatError(
            source,
            None,
            f"{len(dropped)} of {len(uner)} UNER sentences do not align with the UD frame "
            f"({report['missing_in_ud']} missing, {report['token_mismatch']} with other tokens): wrong UD file?",
        )
    joined = merged.loc[keep].drop(columns=["words_uner", "_merge"])
    joined = validate_sentences(joined, source=source)
    joined.attrs = {"source": source, "uner_join": report}
    return joined
