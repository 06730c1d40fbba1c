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
text is read as text.

Malformed input raises CorpusFormatError naming the file and line: unbalanced braces (a ``\\section{...}``
title included), ``\\begin``/``\\end`` that do not pair, unterminated maths, code (``\\verb``, ODS ``#``,
lstlisting, Markdown fences), front matter or HTML comments, a title that is empty as plain text, a second
``\\chapter`` in a file, and a Markdown file without a ``# `` title or with a ``## `` before it.

:func:`split_units` keeps the paper's protocol (first sections train, the rest test) within each book;
cp-algorithms has no book order of its own in the mirror, so the caller's file order (the registry's,
alphabetical by path) is its book order.
"""

from __future__ import annotations

import bisect
import gzip
import html
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from decoders.errors import ConfigError, CorpusFormatError

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


def words(text: str) -> list[str]:
    """The words of ``text`` as written: runs of letters and digits (an inner apostrophe is kept)."""
    return _WORD.findall(text)


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
# Shared text helpers


@dataclass(frozen=True)
class _Unit:
    """One section of one file before it gets its source-wide position."""

    number: int
    title: str
    body: str


class _Lines:
    """Offset -> 1-based line number in a text, for error messages."""

    def __init__(self, text: str):
        self._starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def _read_text(path: Path) -> str:
    """The file's text; a ``.gz`` suffix means gzip-compressed (the mirror's storage form)."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                return handle.read()
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CorpusFormatError(path, None, f"not UTF-8 text ({error})") from None


def _blank_out(text: str) -> str:
    """A replacement for removed text that keeps its line breaks, so later line numbers stay right."""
    return "\n" * text.count("\n")


_CODE_WORDS = re.compile(r"[A-Za-z0-9_]+(?: [A-Za-z0-9_]+)*", re.ASCII)
_CODE_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(.*\)", re.ASCII | re.S)


def _code_text(code: str) -> str:
    """What stays of inline code: an identifier or number as is, a call's name, nothing otherwise."""
    code = code.strip()
    if _CODE_WORDS.fullmatch(code):
        return code
    call = _CODE_CALL.fullmatch(code)
    return call.group(1) if call else ""


_SIMPLE_MATH = re.compile(r"[A-Za-z0-9]+")


def _math_text(math_source: str) -> str:
    """Inline maths that is one letter/number token (``$n$``, ``$B$``, ``$2$``) stays as text; else dropped."""
    inner = math_source.replace("#", "").strip()
    return inner if _SIMPLE_MATH.fullmatch(inner) else " "


_SPACES = re.compile(r"\s+")
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;:.]?\s*\)|\[\s*[,;:.]?\s*\]")
_SPACE_BEFORE = re.compile(r"\s+([,;:!?)\]]|\.(?!\.))")
_SPACE_AFTER = re.compile(r"([(\[])\s+")
_REPEATED_PUNCT = re.compile(r"([,;:])(?:\s*[,;:])+")
_HAS_WORD = re.compile(r"[^\W_]")


def _tidy_paragraph(text: str) -> str:
    """One paragraph on one line, without the gaps and empty brackets that removed maths leaves."""
    text = _SPACES.sub(" ", text)
    text = _EMPTY_BRACKETS.sub(" ", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    text = _REPEATED_PUNCT.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()


def _tidy(text: str) -> str:
    """Normalise whitespace: blank-line separated paragraphs become lines; paragraphs without words go."""
    paragraphs = (_tidy_paragraph(part) for part in re.split(r"\n\s*\n", text))
    return "\n".join(part for part in paragraphs if _HAS_WORD.search(part))


def _tidy_title(text: str) -> str:
    return _tidy_paragraph(text.replace("\n", " "))


# --------------------------------------------------------------------------------------------------------
# LaTeX

# Environments dropped with their content: maths, figures, tables, drawings, code.
_LATEX_DROP_ENVS = frozenset(
    {
        "equation", "align", "alignat", "eqnarray", "gather", "multline", "flalign", "displaymath", "math",
        "array", "matrix", "bmatrix", "pmatrix", "vmatrix", "cases", "split",
        "figure", "table", "wrapfigure", "subfigure", "tabular", "tabularx", "longtable", "threeparttable",
        "tablenotes", "tikzpicture", "scope", "picture", "lstlisting", "verbatim", "minted", "Verbatim",
        "algorithm", "algorithmic", "comment",
    }
)  # fmt: skip
# Environments that are never parsed as LaTeX: their text may hold unbalanced braces, % and $.
_LATEX_VERBATIM_ENVS = ("lstlisting", "verbatim", "minted", "Verbatim", "comment")
# Mandatory arguments after \begin{env} that are not text.
_LATEX_ENV_ARGS = {"multicols": 1, "minipage": 1}

# Commands whose last argument is text to keep.
_LATEX_KEEP_ARG = frozenset(
    {
        "emph", "textbf", "textit", "textrm", "textsf", "textsl", "textsc", "textup", "textmd", "textnormal",
        "underline", "uline", "mbox", "hbox", "fbox", "text", "key", "javaonly", "notpcode", "MakeUppercase",
        "centering",
    }
)  # fmt: skip
# Commands dropped with their arguments: (optional arguments allowed, mandatory arguments).
_LATEX_DROP_ARGS: dict[str, tuple[int, int]] = {
    **dict.fromkeys(
        ["index", "label", "chaplabel", "seclabel", "figlabel", "thmlabel", "lemlabel", "exclabel", "eqlabel"]
        + ["tablabel", "prplabel", "corlabel", "ref", "eqref", "pageref", "autoref", "cref", "Cref", "figref"]
        + ["secref", "chapref", "lemref", "thmref", "excref", "sref", "myeqref", "tabref", "prpref", "corref"]
        + ["codeimport", "javaimport", "cppimport", "pcodeimport", "cpponly", "pcodeonly", "url", "input"]
        + ["include", "newlength", "vspace", "hspace", "pagenumbering", "thispagestyle", "pagestyle"]
        + ["phantom", "hphantom", "vphantom", "tikzset", "usetikzlibrary", "tnote", "markright"]
        + ["bibliography", "bibliographystyle", "usepackage", "nocite"],
        (0, 1),
    ),
    **dict.fromkeys(["cite", "footnote", "footnotetext", "includegraphics", "caption"], (1, 1)),
    **dict.fromkeys(["setlength", "addtolength", "settowidth", "setcounter", "addtocounter"], (0, 2)),
    **dict.fromkeys(["markboth", "scalebox"], (0, 2)),
    **dict.fromkeys(["addcontentsline", "resizebox"], (0, 3)),
}
# Commands that stand for text.
_LATEX_TEXT = {
    "ldots": "...", "dots": "...", "cdots": "...", "LaTeX": "LaTeX", "TeX": "TeX", "etal": "et al.",
    "lang": "Java", "cent": "cent", "textasciitilde": "~", "textendash": "-", "textemdash": "-",
    "slash": "/", "i": "i", "j": "j", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "S": "§", "quad": " ", "qquad": " ",
    "enspace": " ", "newline": " ", "linebreak": " ", "par": "\n\n",
}  # fmt: skip
# Letters made by a command: as in TeX, the spaces after them are swallowed (na\\"\\i ve -> naïve).
_LATEX_GLYPHS = frozenset({"i", "j", "ss", "o", "O", "ae", "AE", "oe", "OE", "aa", "AA", "l", "L"})
# Headings inside a section: their text stays as a paragraph of the body.
_LATEX_HEADINGS = frozenset({"subsection", "subsubsection", "paragraph", "subparagraph"})
_LATEX_DEFINITIONS = frozenset({"newcommand", "renewcommand", "providecommand", "def"})
_LATEX_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "d": "\u0323", "b": "\u0331",
    "r": "\u030a", "t": "\u0361",
}  # fmt: skip
_LATEX_SYMBOLS = {"%": "%", "&": "&", "#": "#", "_": "_", "\\": " ", "\n": " ", " ": " ", ",": " "}

_COMMAND = re.compile(r"[A-Za-z]+")
_DASHES = re.compile(r"-+")
_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n)+")
_STRUCTURE = re.compile(r"\\(chapter|section)(?![A-Za-z])\s*(\*?)")
_VERBATIM_BEGIN = re.compile(r"\\begin\{(" + "|".join(_LATEX_VERBATIM_ENVS) + r")\}")
_VERB = re.compile(r"\\verb\*?(?![A-Za-z])")


def _latex_clean_lines(text: str, path: Path, hash_code: bool) -> str:
    """Remove comments, verbatim environments and ``\\verb`` text; every line break is kept.

    Done line by line before any parsing because code may hold characters (``%``, braces, ``$``) that
    mean something else in LaTeX. With ``hash_code`` (ODS) a ``%`` between ``#`` marks is code, not a comment.
    """
    out: list[str] = []
    verbatim: str | None = None
    verbatim_line = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if verbatim is not None:
            end = line.find(f"\\end{{{verbatim}}}")
            if end < 0:
                out.append("%")  # a comment mark: the removed line does not become a blank line
                continue
            line = line[end + len(verbatim) + 6 :]
            verbatim = None
            if not line.strip():
                out.append("%")
                continue
        kept: list[str] = []
        pos, in_code = 0, False
        while pos < len(line):
            char = line[pos]
            if char == "\\":
                begin = _VERBATIM_BEGIN.match(line, pos)
                if begin and not in_code:
                    end = line.find(f"\\end{{{begin.group(1)}}}", begin.end())
                    if end < 0:
                        verbatim, verbatim_line = begin.group(1), number
                        kept.append("%")
                        break
                    pos = end + len(begin.group(1)) + 6
                    continue
                verb = _VERB.match(line, pos)
                if verb and not in_code:
                    if verb.end() >= len(line):
                        raise CorpusFormatError(path, number, "\\verb without a delimiter")
                    close = line.find(line[verb.end()], verb.end() + 1)
                    if close < 0:
                        raise CorpusFormatError(path, number, "unterminated \\verb")
                    pos = close + 1
                    continue
                kept.append(line[pos : pos + 2])
                pos += 2
                continue
            if char == "#" and hash_code:
                in_code = not in_code
            elif char == "%" and not in_code:
                kept.append("%")  # the parser lets it swallow the line break, as TeX does
                break
            kept.append(char)
            pos += 1
        out.append("".join(kept))
    if verbatim is not None:
        raise CorpusFormatError(path, verbatim_line, f"\\begin{{{verbatim}}} is never closed")
    return "\n".join(out)


class _LatexText:
    """Converts spans of one cleaned LaTeX file to plain text (see the module docstring for the rules)."""

    def __init__(self, text: str, path: Path, hash_code: bool):
        self.text = text
        self.path = path
        self.hash_code = hash_code
        self.lines = _Lines(text)
        specials = r"\n\\{}$%~&`'\-" + ("#" if hash_code else "")
        self._special = re.compile(f"[{specials}]")

    def error(self, offset: int, message: str) -> CorpusFormatError:
        return CorpusFormatError(self.path, self.lines.line(offset), message)

    def convert(self, start: int, end: int) -> str:
        out: list[str] = []
        self._parse(start, end, None, start, out)
        return "".join(out)

    # -- scanning helpers ----------------------------------------------------------------------------

    def match_brace(self, open_pos: int, end: int) -> int:
        """Offset of the ``}`` that closes the ``{`` at ``open_pos`` (escaped braces do not count)."""
        depth, pos, text = 0, open_pos, self.text
        while pos < end:
            char = text[pos]
            if char == "\\":
                pos += 2
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return pos
            pos += 1
        raise self.error(open_pos, "unbalanced braces: '{' is never closed")

    def skip_spaces(self, pos: int, end: int, newlines: bool = True) -> int:
        chars = " \t\n" if newlines else " \t"
        while pos < end and self.text[pos] in chars:
            pos += 1
        return pos

    def optional_arg(self, pos: int, end: int) -> tuple[tuple[int, int] | None, int]:
        """An optional ``[...]`` argument at ``pos`` (on the same line): its span and the offset after it."""
        start = self.skip_spaces(pos, end, newlines=False)
        if start >= end or self.text[start] != "[":
            return None, pos
        depth, cursor = 0, start
        while cursor < end:
            char = self.text[cursor]
            if char == "\\":
                cursor += 2
                continue
            if char == "{":
                cursor = self.match_brace(cursor, end) + 1
                continue
            if char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
                if depth == 0:
                    return (start + 1, cursor), cursor + 1
            cursor += 1
        raise self.error(start, "unbalanced brackets: '[' is never closed")

    def _required(self, pos: int, end: int) -> tuple[tuple[int, int], int]:
        """A mandatory argument: a ``{...}`` group, a control sequence or one character."""
        start = self.skip_spaces(pos, end)
        if start >= end:
            raise self.error(pos, "missing argument at the end of the text")
        char = self.text[start]
        if char == "{":
            close = self.match_brace(start, end)
            return (start + 1, close), close + 1
        if char == "\\":
            name = _COMMAND.match(self.text, start + 1)
            if name is None:
                return (start, start + 2), start + 2
            return (start, name.end()), self.skip_spaces(name.end(), end, newlines=False)
        return (start, start + 1), start + 1

    def _env_name(self, pos: int, end: int) -> tuple[str, int]:
        (start, stop), after = self._required(pos, end)
        return self.text[start:stop].strip(), after

    def _find_end(self, name: str, pos: int, end: int, begin_pos: int) -> int:
        """Offset just after the ``\\end{name}`` that closes an environment opened before ``pos``."""
        marker = re.compile(r"\\(begin|end)\s*\{" + re.escape(name) + r"\}")
        depth = 1
        for found in marker.finditer(self.text, pos, end):
            depth += 1 if found.group(1) == "begin" else -1
            if depth == 0:
                return found.end()
        raise self.error(begin_pos, f"\\begin{{{name}}} is never closed")

    def _find_math_end(self, delimiter: str, pos: int, end: int, open_pos: int) -> int:
        """Offset of the closing maths delimiter; escaped characters (``\\$``) are skipped over."""
        cursor = pos
        while cursor < end:
            char = self.text[cursor]
            if char == "\\" and not (delimiter.startswith("\\") and self.text.startswith(delimiter, cursor)):
                cursor += 2
                continue
            if self.text.startswith(delimiter, cursor):
                return cursor
            cursor += 1
        raise self.error(open_pos, f"maths opened with '{delimiter}' is never closed")

    # -- the parser ----------------------------------------------------------------------------------

    def _parse(self, pos: int, end: int, closer: str | None, open_pos: int, out: list[str]) -> int:
        """Append the text of ``text[pos:end]`` to ``out`` until ``closer`` ('}' or an environment name)."""
        text = self.text
        while pos < end:
            found = self._special.search(text, pos, end)
            if found is None:
                out.append(text[pos:end])
                pos = end
                break
            out.append(text[pos : found.start()])
            pos = found.start()
            char = text[pos]
            if char == "\\":
                if text.startswith("\\end", pos) and not text[pos + 4 : pos + 5].isalpha():
                    name, after = self._env_name(pos + 4, end)
                    if closer == f"env:{name}":
                        return after
                    raise self.error(pos, f"\\end{{{name}}} without a matching \\begin{{{name}}}")
                pos = self._command(pos, end, out)
            elif char == "{":
                pos = self._parse(pos + 1, end, "}", pos, out)
            elif char == "}":
                if closer == "}":
                    return pos + 1
                raise self.error(pos, "unbalanced braces: '}' without a matching '{'")
            elif char == "$":
                delimiter = "$$" if text.startswith("$$", pos) else "$"
                close = self._find_math_end(delimiter, pos + len(delimiter), end, pos)
                inner = text[pos + len(delimiter) : close]
                out.append(_math_text(inner) if delimiter == "$" else " ")
                pos = close + len(delimiter)
            elif char == "#":
                close = text.find("#", pos + 1, end)
                newline = text.find("\n", pos + 1, end)
                if close < 0 or 0 <= newline < close:
                    raise self.error(pos, "code opened with '#' is not closed on the same line")
                out.append(_code_text(text[pos + 1 : close].replace("\\_", "_")))
                pos = close + 1
            elif char == "\n":  # only a blank line in the source ends a paragraph
                blank = _BLANK_LINES.match(text, pos, end)
                out.append("\n\n" if blank else " ")
                pos = blank.end() if blank else pos + 1
            elif char == "%":  # a comment's remains: it swallows its line break, as in TeX
                pos += 1
                if text.startswith("\n", pos):
                    blank = _BLANK_LINES.match(text, pos, end)
                    if blank:  # ... but a blank line after it still ends the paragraph
                        out.append("\n\n")
                    pos = self.skip_spaces(blank.end() if blank else pos + 1, end, newlines=False)
            elif char in "~&":
                out.append(" ")
                pos += 1
            elif char in "`'":
                pair = text[pos : pos + 2]
                out.append('"' if pair in ("``", "''") else char)
                pos += 2 if pair in ("``", "''") else 1
            else:  # '-': en and em dashes become a hyphen
                run = _DASHES.match(text, pos, end)
                assert run is not None
                out.append("-")
                pos = run.end()
        if closer == "}":
            raise self.error(open_pos, "unbalanced braces: '{' is never closed")
        if closer is not None:
            raise self.error(open_pos, f"\\begin{{{closer[4:]}}} is never closed")
        return pos

    def _command(self, pos: int, end: int, out: list[str]) -> int:
        """Handle the control sequence at ``pos``; return the offset after it and its arguments."""
        text = self.text
        name_match = _COMMAND.match(text, pos + 1, end)
        if name_match is None:  # a control symbol: \%, \\, \{, \', ...
            symbol = text[pos + 1 : pos + 2]
            if symbol in _LATEX_ACCENTS:
                return self._accent(symbol, pos + 2, end, out)
            if symbol in ("[", "("):
                closer = "\\]" if symbol == "[" else "\\)"
                close = self._find_math_end(closer, pos + 2, end, pos)
                out.append(" ")
                return close + 2
            out.append(_LATEX_SYMBOLS.get(symbol, ""))
            return pos + 2
        name = name_match.group(0)
        after = name_match.end()
        if text.startswith("*", after):
            after += 1
        if name == "begin":
            return self._begin(pos, after, end, out)
        if name in _LATEX_ACCENTS and len(name) == 1:
            return self._accent(name, after, end, out)
        if name in _LATEX_KEEP_ARG or name in _LATEX_HEADINGS or name == "texttt":
            _, after = self.optional_arg(after, end)
            if name == "centering" and not text.startswith("{", self.skip_spaces(after, end)):
                return after
            (start, stop), after = self._required(after, end)
            if name == "texttt":
                out.append(_code_text(self.convert(start, stop)))
            elif name in _LATEX_HEADINGS:
                out.append("\n\n" + _tidy_title(self.convert(start, stop)) + "\n\n")
            else:
                self._parse(start, stop, None, start, out)
            return after
        if name in _LATEX_DROP_ARGS:
            optional, required = _LATEX_DROP_ARGS[name]
            for _ in range(optional):
                _, after = self.optional_arg(after, end)
            for _ in range(required):
                _, after = self._required(after, end)
            return after
        if name in _LATEX_DEFINITIONS:
            _, after = self._required(after, end)  # the macro's name
            while True:  # [number of arguments][default]
                span, after = self.optional_arg(after, end)
                if span is None:
                    break
            if name == "def":  # \def\name#1#2{...}: skip the parameter text
                while after < end and text[after] != "{":
                    after += 1
            _, after = self._required(after, end)
            return after
        if name == "href":
            _, after = self._required(after, end)
            (start, stop), after = self._required(after, end)
            self._parse(start, stop, None, start, out)
            return after
        if name == "item":
            out.append("\n\n")
            span, after = self.optional_arg(after, end)
            if span is not None:
                self._parse(span[0], span[1], None, span[0], out)
                out.append(" ")
            return after
        if name in ("chapter", "section"):
            raise self.error(pos, f"\\{name} inside a group or environment")
        out.append(_LATEX_TEXT.get(name, " "))
        return self.skip_spaces(after, end, newlines=False) if name in _LATEX_GLYPHS else after

    def _begin(self, pos: int, after: int, end: int, out: list[str]) -> int:
        name, after = self._env_name(after, end)
        if name.rstrip("*") in _LATEX_DROP_ENVS:
            out.append(" ")
            return self._find_end(name, after, end, pos)
        _, after = self.optional_arg(after, end)
        for _ in range(_LATEX_ENV_ARGS.get(name, 0)):
            _, after = self._required(after, end)
        out.append("\n\n")
        after = self._parse(after, end, f"env:{name}", pos, out)
        out.append("\n\n")
        return after

    def _accent(self, accent: str, pos: int, end: int, out: list[str]) -> int:
        """``\\'e``, ``\\v{a}``: the letter with a combining accent, composed (NFC)."""
        (start, stop), after = self._required(pos, end)
        base = self.convert(start, stop)
        if base:
            out.append(unicodedata.normalize("NFC", base[0] + _LATEX_ACCENTS[accent] + base[1:]))
        return after


def latex_units(path: str | Path, hash_code: bool = False) -> list[tuple[int, str, str]]:
    """The units of one LaTeX chapter file as ``(number, title, body)``; see the module docstring.

    ``hash_code`` turns on ODS's ``#code#`` notation. Raises CorpusFormatError on unbalanced braces or
    environments, unterminated maths or code, a title that is empty as text, or a second ``\\chapter``.
    """
    path = Path(path)
    cleaned = _latex_clean_lines(_read_text(path), path, hash_code)
    converter = _LatexText(cleaned, path, hash_code)
    end = len(cleaned)

    # Each heading: (kind, title, offset where its text starts, offset of the command).
    headings: list[tuple[str, str, int, int]] = []
    for found in _STRUCTURE.finditer(cleaned):
        if headings and found.start() < headings[-1][2]:
            continue  # inside the previous heading's title
        _, after = converter.optional_arg(found.end(), end)
        brace = converter.skip_spaces(after, end)
        if brace >= end or cleaned[brace] != "{":
            raise converter.error(found.start(), f"\\{found.group(1)} without a {{title}}")
        try:
            close = converter.match_brace(brace, end)
        except CorpusFormatError:
            raise converter.error(
                found.start(), f"unbalanced braces in the \\{found.group(1)}{{...}} title"
            ) from None
        title = _tidy_title(converter.convert(brace + 1, close))
        if not title:
            raise converter.error(found.start(), f"the \\{found.group(1)} title is empty as plain text")
        if found.group(1) == "chapter" and any(kind == "chapter" for kind, *_ in headings):
            raise converter.error(found.start(), "a second \\chapter in one file (one chapter per file)")
        headings.append((found.group(1), title, close + 1, found.start()))

    units: list[tuple[int, str, str]] = []
    number = 0
    for index, (kind, title, start, _) in enumerate(headings):
        stop = headings[index + 1][3] if index + 1 < len(headings) else end
        body = _tidy(converter.convert(start, stop))
        if kind == "section":
            number += 1
            units.append((number, title, body))
        elif body:
            units.append((0, title, body))
    return units


# --------------------------------------------------------------------------------------------------------
# Markdown (MkDocs, as cp-algorithms writes it)

_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_INLINE_SCAN = re.compile(r"<!--|<script\b|<style\b|`+|\$\$|\$|\\begin\{[\w*]+\}|\\[\[\]()$\\]", re.I)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_HEADING_ATTRS = re.compile(r"\s*\{\s*(?::\s*)?(?:[#.][\w-]|data-)[^{}]*\}\s*$")
_HEADING_CLOSE = re.compile(r"\s+#+\s*$")
_ADMONITION = re.compile(r'^\s*(?:!!!|\?\?\?\+?)\s*[\w-]*(?:\s+"(.*)")?\s*$')
_TAB = re.compile(r'^\s*===\+?\s+".*"\s*$')
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")
_REF_DEFINITION = re.compile(r"^\s*\[[^\]]+\]:\s*\S+")
_RULE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE_MARK = re.compile(r"^\s*(?:>\s?)+")
_URL = r"\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
_IMAGE = re.compile(r"!\[[^\]]*\](?:" + _URL + r"|\[[^\]]*\])")
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\](?:" + _URL + r"|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.I)
_HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _markdown_strip_fences(lines: list[str], path: Path, first: int) -> None:
    """Blank out fenced code blocks (``` or ~~~, possibly indented) in place, from line index ``first``."""
    index = first
    while index < len(lines):
        opened = _FENCE_OPEN.match(lines[index])
        if opened is None or (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            index += 1
            continue
        fence = opened.group(1)
        closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        start = index
        lines[index] = ""
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            lines[index] = ""
            index += 1
        if index >= len(lines):
            raise CorpusFormatError(path, start + 1, f"code fence {fence} is never closed")
        lines[index] = ""
        index += 1


def _markdown_inline_scan(text: str, path: Path) -> str:
    """Remove HTML comments, scripts, maths and code spans (keeping simple ones as text and line breaks)."""
    lines = _Lines(text)
    out: list[str] = []
    pos = 0
    while True:
        found = _INLINE_SCAN.search(text, pos)
        if found is None:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos : found.start()])
        token, start = found.group(0), found.start()
        if token == "<!--":
            close = text.find("-->", found.end())
            if close < 0:
                raise CorpusFormatError(path, lines.line(start), "HTML comment '<!--' is never closed")
            out.append(_blank_out(text[start:close]))
            pos = close + 3
        elif token.lower() in ("<script", "<style"):
            closing = re.compile(r"</" + token[1:] + r"\s*>", re.I)
            close = closing.search(text, found.end())
            if close is None:
                raise CorpusFormatError(path, lines.line(start), f"{token}> is never closed")
            out.append(" " + _blank_out(text[start : close.start()]))
            pos = close.end()
        elif token[0] == "`":
            paragraph_end = text.find("\n\n", found.end())
            limit = len(text) if paragraph_end < 0 else paragraph_end
            close = text.find(token, found.end(), limit)
            while close >= 0 and text.startswith("`", close + len(token)):
                close = text.find(token, close + len(token) + 1, limit)
            if close < 0:  # a backtick run without a partner in its paragraph is literal text; drop it
                pos = found.end()
                continue
            out.append(" " + _code_text(text[found.end() : close]) + " ")
            pos = close + len(token)
        elif token.startswith("\\begin"):  # a bare LaTeX maths environment, e.g. \begin{align}
            closing = "\\end" + token[6:]
            close = text.find(closing, found.end())
            if close < 0:
                raise CorpusFormatError(path, lines.line(start), f"{token} is never closed")
            out.append(" " + _blank_out(text[start:close]) + " ")
            pos = close + len(closing)
        elif token in ("\\$", "\\\\", "\\]", "\\)"):
            out.append(" ")
            pos = found.end()
        else:  # maths: $$..$$, $..$, \[..\], \(..\)
            closer = {"$$": "$$", "$": "$", "\\[": "\\]", "\\(": "\\)"}[token]
            close = found.end()
            while True:
                close = text.find(closer, close)
                if close < 0 or text[close - 1] != "\\" or closer.startswith("\\"):
                    break
                close += 1
            if close < 0:
                if token in ("\\[", "\\("):  # an escaped bracket, not maths
                    out.append(token[1])
                    pos = found.end()
                    continue
                raise CorpusFormatError(
                    path, lines.line(start), f"maths opened with '{token}' is never closed"
                )
            inner = text[found.end() : close]
            out.append(_math_text(inner) if token == "$" else " " + _blank_out(inner) + " ")
            pos = close + len(closer)


def _markdown_inline(text: str) -> str:
    """Plain text of Markdown inline markup: images go, links keep their text, tags and emphasis go."""
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(" ", text)
    text = _HTML_TAG.sub(" ", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _ESCAPE.sub(r"\1", text)
    return html.unescape(text)


def _markdown_heading_text(text: str) -> str:
    """A heading without its attribute list ``{ #id ... }`` and closing ``##`` (in either order)."""
    return _HEADING_CLOSE.sub("", _HEADING_ATTRS.sub("", _HEADING_CLOSE.sub("", text)))


def _markdown_heading(text: str) -> str:
    return _tidy_title(_markdown_inline(_markdown_heading_text(text)))


def markdown_units(path: str | Path) -> list[tuple[int, str, str]]:
    """The units of one Markdown article as ``(number, title, body)``; see the module docstring.

    Raises CorpusFormatError on an unterminated front matter, code fence, HTML comment or maths, on an
    article without a ``# `` title line, on a section before it, or on a title that is empty as text.
    """
    path = Path(path)
    lines = _read_text(path).split("\n")
    first = 0
    if lines and lines[0].strip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if closing is None:
            raise CorpusFormatError(path, 1, "front matter '---' is never closed")
        for index in range(closing + 1):
            lines[index] = ""
        first = closing + 1
    _markdown_strip_fences(lines, path, first)
    lines = _markdown_inline_scan("\n".join(lines), path).split("\n")

    article: str | None = None
    sections: list[tuple[int, str, list[str]]] = []  # (number, title, body lines)
    for number, line in enumerate(lines, start=1):
        heading = _HEADING.match(line)
        if heading and len(heading.group(1)) <= 2:
            title = _markdown_heading(heading.group(2))
            if not title:
                raise CorpusFormatError(path, number, "the heading is empty as plain text")
            if len(heading.group(1)) == 1 and article is None:
                article = title
                sections.append((0, title, []))
            elif article is None:
                raise CorpusFormatError(path, number, "a '## ' section before the article's '# ' title")
            else:
                sections.append((len(sections), title, []))
            continue
        if not sections:
            continue  # text before the title (e.g. an HTML redirect) belongs to no section
        body = sections[-1][2]
        if heading:
            body.append("\n\n" + _markdown_heading_text(heading.group(2)) + "\n\n")
        elif admonition := _ADMONITION.match(line):
            body.append("\n\n" + (admonition.group(1) or "") + "\n\n")
        elif _TAB.match(line) or _TABLE_ROW.match(line) or _TABLE_RULE.match(line):
            body.append("\n")
        elif _REF_DEFINITION.match(line) or _RULE.match(line) or not line.strip():
            body.append("\n\n")
        elif _LIST_MARK.match(line):
            body.append("\n\n" + _LIST_MARK.sub("", line) + "\n")
        else:
            body.append(_QUOTE_MARK.sub("", line) + "\n")
    if article is None:
        raise CorpusFormatError(path, None, "no '# ' title line")

    units = []
    for number, title, body_lines in sections:
        text = "".join(body_lines)
        body = _tidy(_markdown_inline(text))
        if number > 0 or body:
            units.append((number, title, body))
    return units


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


def select_units(
    df: pd.DataFrame, min_body_words: int = 100, min_title_content_words: int = 1
) -> pd.DataFrame:
    """Units whose body has at least ``min_body_words`` words and title at least ``min_title_content_words``
    content words (see :func:`content_words`); order and ``position`` are kept, the index is reset."""
    keep = (_word_counts(df["body"]) >= min_body_words) & (
        _content_counts(df["title"]) >= min_title_content_words
    )
    return df[keep].reset_index(drop=True)


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
