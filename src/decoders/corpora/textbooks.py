"""Textbook sections as (title, body) units for the ``titles`` experiment (Deshpande et al. 2007, section 6).

The paper generates a section's title from its body, on 547 sections of an algorithms textbook. The open
stand-ins are three textbooks: Open Data Structures (``ods``, LaTeX), the Competitive Programmer's Handbook
(``cphb``, LaTeX) and cp-algorithms (``cp_algorithms``, MkDocs Markdown). Each is turned into one unit per
section, with title and body as plain text.

What a unit is (the decisions, kept the same across the three books):

* LaTeX: one unit per ``\\section`` (starred or not); ``\\subsection``, ``\\subsubsection`` and
  ``\\paragraph`` belong to their section and their headings stay in the body as a line of text, as in the
  paper's sections. The text of a chapter before its first section is a unit of its own, numbered 0 and
  titled with the chapter title (so chapters without sections, like ODS "Why This Book?" and the cphb
  preface, are kept); it is left out when empty. Text before the first ``\\chapter`` or ``\\section`` of a
  file has no title and is ignored. One ``\\chapter`` per file.
* Markdown: the ``# Title`` line names the article, and one unit per ``## `` section; ``###`` and deeper
  headings stay in their section's body. The article's text before its first ``##`` is unit 0 with the
  article title (an article without ``##`` is therefore one unit); it is left out when empty. A second
  ``# `` heading starts a section like ``##`` does (one article has ``# Problems:``).
* Section ids are ``<source>/<chapter>/<n>``: ``<chapter>`` is the file name without extension (for
  cp-algorithms the path below ``src/``, e.g. ``cp_algorithms/graph/breadth-first-search/2``) and ``n`` the
  1-based number of the section in its file, 0 for the chapter's opening text.

What is stripped (titles and bodies alike): maths (``$..$``, ``$$..$$``, ``\\[..\\]``, ``\\(..\\)``, maths
environments) except inline maths that is a single letter/number token, which is kept as text ("$B$-Trees"
-> "B-Trees", "$O(n)$ algorithm" -> "algorithm"); code (verbatim/lstlisting/minted, ``\\codeimport`` and
friends, fenced code blocks); figures, tables, tikz; comments; labels, references, citations, index entries
and footnotes; HTML tags, comments and scripts; images; Markdown link targets (the link text stays);
admonition and tab markers (an admonition's quoted title stays as a line). Formatting commands keep their
text (``\\emph``, ``\\textbf``, cphb's ``\\key``, ...). Inline code (ODS ``#..#``, ``\\texttt``, Markdown
backticks) keeps its text only when it is a plain identifier or number (``#ArrayStack#`` -> "ArrayStack");
a call keeps its name (``#add(i,x)#`` -> "add") and anything else is dropped. ODS is read as its Java
edition: ``\\javaonly`` and ``\\notpcode`` text stays, ``\\cpponly`` and ``\\pcodeonly`` text goes.
Whitespace is normalised: paragraphs are separated by one newline, words by one space. In LaTeX only a
blank source line (or a list, theorem or heading) ends a paragraph, so dropped lines (``\\index``, comments,
code) do not split one. Markdown code must be fenced: MkDocs indents admonition and tab content, so indented
text is read as text (the admonition's or tab's content, as Markdown).

How: the parsing is done by libraries. LaTeX (:mod:`decoders.corpora.textbooks_latex`) is parsed by
pylatexenc's LatexWalker, told which arguments each command takes; Markdown
(:mod:`decoders.corpora.textbooks_markdown`) by markdown-it-py as CommonMark with tables, so CommonMark's
rules decide what is emphasis, a link, a code span, an HTML tag or a block (a ``[text][ref]`` without a
``[ref]:`` definition is not a link and stays as written; a table runs to the next blank line). HTML is read
inline, tag by tag, as the text around it is; plug-in rules add MkDocs admonitions and tabs and the maths.

Malformed input raises CorpusFormatError naming the file and line: unbalanced braces (a ``\\section{...}``
title included), ``\\begin``/``\\end`` that do not pair, unterminated maths, code (``\\verb``, ODS ``#``,
lstlisting, Markdown fences), front matter or HTML comments, a title that is empty as plain text, a second
``\\chapter`` in a file, and a Markdown file without a ``# `` title or with a ``## `` before it. A LaTeX file
is parsed whole, so this holds for its text before the first heading too; in Markdown, inline maths, HTML
comments and scripts must end in the paragraph they start in.

:func:`split_units` keeps the paper's protocol (first sections train, the rest test) within each book;
cp-algorithms has no book order of its own in the mirror, so the caller's file order (the registry's,
alphabetical by path) is its book order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from decoders.checks import checked
from decoders.corpora.textbooks_latex import latex_units
from decoders.corpora.textbooks_markdown import markdown_units
from decoders.errors import ConfigError

__all__ = [
    "COLUMNS",
    "SOURCES",
    "content_words",
    "latex_units",
    "markdown_units",
    "read_textbook",
    "select_units",
    "split_units",
    "textbook_stats",
    "words",
]

SOURCES = ("ods", "cphb", "cp_algorithms")
COLUMNS = ["source", "section_id", "title", "body", "position"]


# --------------------------------------------------------------------------------------------------------
# Words


_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s$")


@checked(text="text")
def words(text: str) -> list[str]:
    """The words of ``text`` as written: runs of letters and digits (an inner apostrophe is kept)."""
    return _WORD.findall(text)


@checked(text="text")
def content_words(text: str) -> list[str]:
    """Lower-cased words that are alphabetic and not in scikit-learn's ENGLISH_STOP_WORDS.

    A possessive "'s" is dropped first, so "Johnson's" counts as the content word "johnson".
    """
    found = []
    for word in words(text):
        word = _POSSESSIVE.sub("", word.lower())
        if word.isalpha() and word not in ENGLISH_STOP_WORDS:
            found.append(word)
    return found


# --------------------------------------------------------------------------------------------------------
# Books


def _chapter_key(source: str, path: Path) -> str:
    """The file part of a section id: the file name without extensions, or cp-algorithms' path below src/."""
    name = path.name.removesuffix(".gz")
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if source != "cp_algorithms":
        return stem
    parts = path.parts[:-1]
    below = parts[len(parts) - parts[::-1].index("src") :] if "src" in parts else parts[-1:]
    return "/".join([*below, stem])


_READERS: dict[str, Callable[[Path], list[tuple[int, str, str]]]] = {
    "ods": lambda path: latex_units(path, hash_code=True),
    "cphb": lambda path: latex_units(path, hash_code=False),
    "cp_algorithms": markdown_units,
}


@checked(source="text", paths="paths")
def read_textbook(source: str, paths: list[Path]) -> pd.DataFrame:
    """All sections of one textbook, one row each, in book order (the order of ``paths``).

    Columns ``source, section_id, title, body, position`` where ``position`` is the row's 0-based index in
    book order. ``source`` is one of ``ods``, ``cphb``, ``cp_algorithms``; files may be gzip-compressed.
    """
    if source not in _READERS:
        raise ConfigError(f"unknown textbook source {source!r}; expected one of {', '.join(SOURCES)}")
    if not paths:
        raise ConfigError(f"no files given for textbook {source!r}")
    rows = []
    for path in map(Path, paths):
        key = _chapter_key(source, path)
        for number, title, body in _READERS[source](path):
            rows.append((source, f"{source}/{key}/{number}", title, body))
    frame = pd.DataFrame(rows, columns=COLUMNS[:-1])
    duplicated = frame["section_id"][frame["section_id"].duplicated()]
    if not duplicated.empty:
        raise ConfigError(
            f"textbook {source!r}: section id {duplicated.iloc[0]} occurs twice (a file given twice?)"
        )
    frame["position"] = range(len(frame))
    return frame


# --------------------------------------------------------------------------------------------------------
# Selection, split, statistics


def _word_counts(texts: pd.Series) -> pd.Series:
    return texts.str.count(_WORD.pattern).astype("int64")


def _content_counts(texts: pd.Series) -> pd.Series:
    return texts.map(lambda text: len(content_words(text))).astype("int64")


@checked(df="frame", min_body_words="count", min_title_content_words="count")
def select_units(
    df: pd.DataFrame, min_body_words: int = 100, min_title_content_words: int = 1
) -> pd.DataFrame:
    """Units whose body has at least ``min_body_words`` words and title at least ``min_title_content_words``
    content words (see :func:`content_words`); order and ``position`` are kept, the index is reset."""
    keep = (_word_counts(df["body"]) >= min_body_words) & (
        _content_counts(df["title"]) >= min_title_content_words
    )
    return df[keep].reset_index(drop=True)


@checked(df="frame", train_fraction="number")
def split_units(df: pd.DataFrame, train_fraction: float = 0.7) -> dict[str, pd.DataFrame]:
    """``{"train": ..., "test": ...}``: within each source, in book order, the first units train, the rest test.

    The paper trained on the first 382 of 547 sections and tested on the rest; likewise here the first
    ``floor(train_fraction * n)`` units of each source (by ``position``) are training units, so every book is
    in both parts and the split never depends on anything but the book order.
    """
    if not 0.0 < train_fraction < 1.0:
        raise ConfigError(f"train_fraction must lie strictly between 0 and 1, not {train_fraction}")
    ordered = df.assign(_source_order=pd.factorize(df["source"])[0]).sort_values(
        ["_source_order", "position"], kind="stable"
    )
    rank = ordered.groupby("source", sort=False).cumcount()
    sizes = ordered.groupby("source", sort=False)["source"].transform("size")
    train_sizes = (sizes * train_fraction + 1e-9).map(math.floor)
    is_train = rank < train_sizes
    ordered = ordered.drop(columns="_source_order")
    return {
        "train": ordered[is_train].reset_index(drop=True),
        "test": ordered[~is_train].reset_index(drop=True),
    }


@checked(df="frame")
def textbook_stats(df: pd.DataFrame) -> dict[str, float | int]:
    """The corpus statistics of the paper's section 6, keyed like ``paper-numbers.yaml`` ``titles.corpus``.

    ``sections`` units; ``mean_section_words`` body words per unit; ``mean_title_words`` and
    ``mean_title_content_words`` per title; ``shortest_title_words`` / ``longest_title_words``;
    ``titles_without_repeated_words_pct`` the share of titles in which no content word occurs twice;
    ``lm_body_tokens`` the number of body words (what the paper's bigram model is estimated on).
    """
    if df.empty:
        raise ConfigError("no textbook units to describe")
    body_words = _word_counts(df["body"])
    title_words = _word_counts(df["title"])
    title_content = df["title"].map(content_words)
    repeated = title_content.map(lambda found: len(found) != len(set(found)))
    return {
        "sections": len(df),
        "mean_section_words": float(body_words.mean()),
        "mean_title_words": float(title_words.mean()),
        "mean_title_content_words": float(title_content.map(len).mean()),
        "shortest_title_words": int(title_words.min()),
        "longest_title_words": int(title_words.max()),
        "titles_without_repeated_words_pct": float(100.0 * (~repeated).mean()),
        "lm_body_tokens": int(body_words.sum()),
    }
