"""Plain-text helpers shared by the textbook readers (:mod:`decoders.corpora.textbooks`)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from decoders.checks import checked
from decoders.errors import CorpusFormatError


@checked(path="path")
def read_text(path: Path) -> str:
    """The file's text; a ``.gz`` suffix means gzip-compressed (the mirror's storage form)."""
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                return handle.read()
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CorpusFormatError(path, None, f"not UTF-8 text ({error})") from None


_CODE_WORDS = re.compile(r"[A-Za-z0-9_]+(?: [A-Za-z0-9_]+)*", re.ASCII)
_CODE_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(.*\)", re.ASCII | re.S)


@checked(code="text")
def code_text(code: str) -> str:
    """What stays of inline code: an identifier or number as is, a call's name, nothing otherwise."""
    code = code.strip()
    if _CODE_WORDS.fullmatch(code):
        return code
    call = _CODE_CALL.fullmatch(code)
    return call.group(1) if call else ""


_SIMPLE_MATH = re.compile(r"[A-Za-z0-9]+")


@checked(math_source="text")
def math_text(math_source: str) -> str:
    """Inline maths that is one letter/number token (``$n$``, ``$B$``, ``$2$``) stays as text; else dropped."""
    inner = math_source.replace("#", "").strip()
    return inner if _SIMPLE_MATH.fullmatch(inner) else " "


_SPACES = re.compile(r"\s+")
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;:.]?\s*\)|\[\s*[,;:.]?\s*\]")
_SPACE_BEFORE = re.compile(r"\s+([,;:!?)\]]|\.(?!\.))")
_SPACE_AFTER = re.compile(r"([(\[])\s+")
_REPEATED_PUNCT = re.compile(r"([,;:])(?:\s*[,;:])+")
_HAS_WORD = re.compile(r"[^\W_]")


@checked(text="text")
def tidy_paragraph(text: str) -> str:
    """One paragraph on one line, without the gaps and empty brackets that removed maths leaves."""
    text = _SPACES.sub(" ", text)
    text = _EMPTY_BRACKETS.sub(" ", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    text = _REPEATED_PUNCT.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()


@checked(text="text")
def tidy(text: str) -> str:
    """Normalise whitespace: blank-line separated paragraphs become lines; paragraphs without words go."""
    paragraphs = (tidy_paragraph(part) for part in re.split(r"\n\s*\n", text))
    return "\n".join(part for part in paragraphs if _HAS_WORD.search(part))


@checked(text="text")
def tidy_title(text: str) -> str:
    return tidy_paragraph(text.replace("\n", " "))
