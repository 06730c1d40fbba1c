"""The prepared sentence table every treebank reader returns, its statistics, and a document-based splitter.

One row per sentence; the columns are :data:`SENTENCE_COLUMNS` in that order (plus ``ner`` for the joint
POS/NER dataset). ``heads`` are 1-based with 0 for the root, so a sentence of ``n`` words has heads in
``0..n``. Frames are written to parquet by the workflow; :func:`read_sentences` reads them back with plain
Python lists in the list columns (``pd.read_parquet`` alone gives numpy arrays).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from decoders.checks import checked
from decoders.errors import ConfigError, CorpusFormatError
from decoders.io import parquet_errors

__all__ = [
    "LIST_COLUMNS",
    "MORPHOLOGY_COLUMNS",
    "NER_COLUMN",
    "OPTIONAL_COLUMNS",
    "SENTENCE_COLUMNS",
    "doc_id_from_sent_id",
    "file_stem",
    "read_sentences",
    "sentence_frame",
    "sentence_stats",
    "split_by_document",
    "validate_sentences",
]

SENTENCE_COLUMNS: tuple[str, ...] = ("sent_id", "doc_id", "words", "coarse_tags", "tags", "heads", "deprels")
NER_COLUMN = "ner"
#: Per-word lemmas and morphological features (the raw FEATS text, ``_`` for none), for treebanks read with
#: ``morphology`` (the ppc experiment's grandparent templates use them).
MORPHOLOGY_COLUMNS: tuple[str, ...] = ("lemmas", "feats")
OPTIONAL_COLUMNS: tuple[str, ...] = (NER_COLUMN, *MORPHOLOGY_COLUMNS)
LIST_COLUMNS: tuple[str, ...] = ("words", "coarse_tags", "tags", "heads", "deprels", *OPTIONAL_COLUMNS)
_STRING_COLUMNS = ("sent_id", "doc_id")


@checked(path="path")
def file_stem(path: str | Path) -> str:
    """The file name without a trailing ``.gz`` and without its format suffix: ``en_ewt-ud-train``."""
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    return Path(name).stem


@checked(sent_id="text", default="text")
def doc_id_from_sent_id(sent_id: str, default: str) -> str:
    """The document part of a UD-style sentence id (the prefix before the last ``-``), else ``default``."""
    prefix, sep, _ = sent_id.rpartition("-")
    return prefix if sep and prefix else default


def _columns_for(present: Iterable[str]) -> list[str]:
    """The sentence columns plus the optional ones among ``present``, in the canonical order."""
    present = set(present)
    return [*SENTENCE_COLUMNS, *(column for column in OPTIONAL_COLUMNS if column in present)]


@checked(rows="sequence")
def sentence_frame(rows: Iterable[Mapping[str, Any]], *, source: str | Path = "<sentences>") -> pd.DataFrame:
    """Build and check a sentence table from one mapping per sentence (keys: the sentence columns).

    An optional column (``ner``, ``lemmas``, ``feats``) is included when the first row has it (then every row
    must). ``source`` names the corpus file in error messages.
    """
    rows = list(rows)
    for number, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ValueError(
                f"rows[{number}] must be a mapping of a sentence's columns; got {type(row).__name__}"
            )
    columns = _columns_for(rows[0] if rows else ())
    data: dict[str, list[Any]] = {column: [] for column in columns}
    for number, row in enumerate(rows, start=1):
        missing = [column for column in columns if column not in row]
        if missing:
            raise CorpusFormatError(source, None, f"sentence row {number} lacks column(s) {missing}")
        for column in columns:
            data[column].append(row[column])
    frame = pd.DataFrame(data, columns=columns)
    for column in _STRING_COLUMNS:
        frame[column] = frame[column].astype("str")
    return validate_sentences(frame, source=source)


@checked(frame="frame")
def validate_sentences(frame: pd.DataFrame, *, source: str | Path = "<sentences>") -> pd.DataFrame:
    """Check the sentence-table contract and return the frame with its columns in the canonical order.

    Checked: the columns exist, ``sent_id`` is unique, every sentence has at least one word, all list
    columns of a row have the same length, and every head lies in ``0..n``.
    """
    columns = _columns_for(frame.columns)
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise CorpusFormatError(source, None, f"sentence table lacks column(s) {missing}")
    frame = frame.loc[:, columns]
    duplicated = frame["sent_id"].duplicated()
    if duplicated.any():
        first = frame["sent_id"][duplicated].iloc[0]
        raise CorpusFormatError(source, None, f"sent_id {first!r} occurs more than once")
    if frame.empty:
        return frame.reset_index(drop=True)
    lengths = frame["words"].map(len).to_numpy(dtype=np.int64)
    if (lengths == 0).any():
        first = frame["sent_id"].iloc[int(np.argmax(lengths == 0))]
        raise CorpusFormatError(source, None, f"sentence {first!r} has no words")
    for column in columns[3:]:
        other = frame[column].map(len).to_numpy(dtype=np.int64)
        if not np.array_equal(other, lengths):
            first = frame["sent_id"].iloc[int(np.argmax(other != lengths))]
            raise CorpusFormatError(
                source, None, f"sentence {first!r}: column {column!r} does not have one entry per word"
            )
    heads = np.fromiter(itertools.chain.from_iterable(frame["heads"]), dtype=np.int64, count=lengths.sum())
    bad = (heads < 0) | (heads > np.repeat(lengths, lengths))
    if bad.any():
        owner = np.repeat(np.arange(len(frame)), lengths)[int(np.argmax(bad))]
        raise CorpusFormatError(
            source,
            None,
            f"sentence {frame['sent_id'].iloc[owner]!r}: a head lies outside 0..{lengths[owner]}",
        )
    return frame.reset_index(drop=True)


@checked(path="path")
def read_sentences(path: str | Path) -> pd.DataFrame:
    """Read a sentence table written with ``DataFrame.to_parquet``; list cells come back as Python lists.
    CorpusFormatError names a file that cannot be read (truncated, or a page whose CRC fails)."""
    with parquet_errors(path):
        table = pq.read_table(path, page_checksum_verification=True)
    frame = pd.DataFrame(
        {
            name: (table.column(name).to_pylist() if name in LIST_COLUMNS else table.column(name).to_pandas())
            for name in table.column_names
        }
    )
    for column in _STRING_COLUMNS:
        if column in frame.columns:
            frame[column] = frame[column].astype("str")
    return validate_sentences(frame, source=path)


@checked(frame="frame")
def sentence_stats(frame: pd.DataFrame) -> dict[str, int]:
    """Corpus size and label-set sizes of a sentence table.

    Always: ``sentences``, ``tokens``, ``documents``, ``tags`` (distinct fine tags), ``coarse_tags``. With a
    ``ner`` column also ``ner_labels`` (distinct IOB2 tags), ``entities`` (number of ``B-`` tags),
    ``joint_labels`` = ``tags * ner_labels`` (the full cross product, which is the label domain of the joint
    POS/NER chain) and ``joint_pairs_observed`` (distinct (tag, ner) pairs that actually occur).
    """
    tags = frame["tags"].explode()
    stats = {
        "sentences": len(frame),
        "tokens": int(frame["words"].map(len).sum()),
        "documents": int(frame["doc_id"].nunique()),
        "tags": int(tags.nunique()),
        "coarse_tags": int(frame["coarse_tags"].explode().nunique()),
    }
    if NER_COLUMN in frame.columns:
        ner = frame[NER_COLUMN].explode()
        stats["ner_labels"] = int(ner.nunique())
        stats["entities"] = int(ner.astype("str").str.startswith("B-").sum())
        stats["joint_labels"] = stats["tags"] * stats["ner_labels"]
        pairs = pd.DataFrame({"tag": tags.to_numpy(), "ner": ner.to_numpy()}).dropna()
        stats["joint_pairs_observed"] = len(pairs.drop_duplicates())
    return stats


def _target(size: int | float, total: int, name: str) -> int:
    """A split size as a sentence count: an int as given, a float in (0, 1) as that share of ``total``."""
    if isinstance(size, bool) or not isinstance(size, (int, float)):
        raise ConfigError(f"{name} size must be an int or a float in (0, 1), got {size!r}")
    if isinstance(size, float):
        if not 0.0 < size < 1.0:
            raise ConfigError(f"{name} size as a fraction must lie in (0, 1), got {size!r}")
        return math.ceil(size * total)
    if size < 0:
        raise ConfigError(f"{name} size must not be negative, got {size!r}")
    return size


@checked(frame="frame")
def split_by_document(
    frame: pd.DataFrame, test: int | float, dev: int | float = 0
) -> dict[str, pd.DataFrame]:
    """Split a sentence table into train/(dev/)test by whole documents, deterministically.

    Rule: sort the distinct ``doc_id`` values as strings; take whole documents from the end of that list for
    ``test`` until it holds at least ``test`` sentences, then, from the end of what remains, for ``dev``
    until it holds at least ``dev`` sentences; everything else is ``train``. Sizes are sentence counts, or
    shares of all sentences when given as floats in (0, 1). ``dev`` is returned only when asked for. Rows
    keep their original order inside each part. Raises :class:`ConfigError` when train would be empty.
    """
    total = len(frame)
    test_target = _target(test, total, "test")
    dev_target = _target(dev, total, "dev")
    if test_target == 0:
        raise ConfigError("test size must be at least one sentence")
    sizes = frame.groupby("doc_id", sort=True).size()
    from_end = sizes.to_numpy()[::-1].cumsum()
    # searchsorted gives the first position where the running total from the end reaches the target
    n_test = int(np.searchsorted(from_end, test_target)) + 1
    n_dev = 0
    if dev_target and n_test < len(sizes):
        n_dev = int(np.searchsorted(from_end, from_end[n_test - 1] + dev_target)) + 1 - n_test
    if n_test + n_dev >= len(sizes):
        raise ConfigError(
            f"a document split with test >= {test_target} and dev >= {dev_target} sentences leaves no "
            f"training documents ({total} sentences in {len(sizes)} documents)"
        )
    docs = sizes.index.to_numpy()[::-1]
    part = pd.Series("train", index=sizes.index)
    part.loc[docs[:n_test]] = "test"
    part.loc[docs[n_test : n_test + n_dev]] = "dev"
    assigned = frame["doc_id"].map(part).to_numpy()
    names = ["train", "dev", "test"] if dev_target else ["train", "test"]
    return {name: frame[assigned == name].reset_index(drop=True) for name in names}
