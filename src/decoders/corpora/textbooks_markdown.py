"""MkDocs Markdown articles (cp-algorithms) as section units, parsed with markdown-it-py.

The decisions (what a unit is, what is stripped, what is an error) are listed in
:mod:`decoders.corpora.textbooks`. markdown-it-py (CommonMark, with tables, without indented code and
setext headings) finds the headings, paragraphs, lists, quotes, tables, fenced code, code spans, links,
images, emphasis, escapes, entities and HTML tags (read inline, tag by tag: HTML blocks are off, so a
``<div>`` line does not swallow the lines after it, and the text between tags is Markdown). Three plug-in
rules teach markdown-it what MkDocs and MathJax add to Markdown: admonitions and
content tabs (``!!! note "Title"``, ``=== "C++"``, whose indented content is parsed as Markdown), display
maths blocks and inline maths (``$..$``, ``$$..$$``, ``\\(..\\)``, ``\\[..\\]``, ``\\begin{..}..\\end{..}``).
A core rule drops heading attribute lists (``## Title { #id }``). Front matter (``---`` lines) is cut before
parsing: markdown-it-py itself has no front matter rule, and would read it as a rule and a heading.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from decoders.checks import checked
from decoders.corpora.textbooks_text import code_text, math_text, read_text, tidy, tidy_title
from decoders.errors import CorpusFormatError

__all__ = ["markdown_units"]

_ADMONITION = re.compile(r'(?:!!!|\?\?\?\+?)\s*[\w-]*(?:\s+"(.*)")?\s*')
_TAB = re.compile(r'===\+?\s+".*"\s*')
_HEADING_ATTRS = re.compile(r"\s*\{\s*(?::\s*)?(?:[#.][\w-]|data-)[^{}]*\}\s*$")
_HEADING_CLOSE = re.compile(r"\s+#+\s*$")
_MATH_BEGIN = re.compile(r"\\begin\{([\w*]+)\}")
_PAIRED_MATH = {"$$": "$$", "$": "$", "\\[": "\\]", "\\(": "\\)"}
_LOOSE_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_HIDDEN_HTML = re.compile(r"<(script|style)\b", re.I)
# A dollar escaped from MathJax, a maths line break and stray closers go like the maths they belong with.
_DROPPED_ESCAPES = ("\\$", "\\\\", "\\]", "\\)")


# --------------------------------------------------------------------------------------------------------
# Plug-in rules


def _mkdocs_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """An admonition or content tab marker line; the lines indented below it are its content."""
    line = state.src[state.bMarks[start] + state.tShift[start] : state.eMarks[start]]
    admonition = _ADMONITION.fullmatch(line)
    if admonition is None and _TAB.fullmatch(line) is None:
        return False
    if silent:
        return True
    indent = state.sCount[start] + 4
    stop = start + 1
    while stop < end and (state.isEmpty(stop) or state.sCount[stop] >= indent):
        stop += 1
    while stop > start + 1 and state.isEmpty(stop - 1):
        stop -= 1
    token = state.push("mkdocs_open", "div", 1)
    token.map = [start, stop]
    token.meta = {"title": (admonition.group(1) or "") if admonition else None}
    saved = state.blkIndent, state.lineMax, state.parentType
    state.blkIndent, state.lineMax, state.parentType = indent, stop, "mkdocs"
    state.md.block.tokenize(state, start + 1, stop)
    state.blkIndent, state.lineMax, state.parentType = saved
    state.push("mkdocs_close", "div", -1)
    state.line = stop
    return True


def _math_opening(text: str, pos: int) -> tuple[str, str] | None:
    """The maths delimiter at ``pos`` and the one that closes it, if any."""
    for opener, closer in _PAIRED_MATH.items():
        if text.startswith(opener, pos):
            return opener, closer
    begin = _MATH_BEGIN.match(text, pos)
    return (begin.group(0), f"\\end{{{begin.group(1)}}}") if begin else None


def _math_close(text: str, opener: str, closer: str, start: int) -> int:
    """Offset of the closing delimiter (a ``$`` escaped as ``\\$`` does not close), or -1."""
    close = text.find(closer, start)
    while close > 0 and closer.startswith("$") and text[close - 1] == "\\":
        close = text.find(closer, close + 1)
    return close


def _math_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Display maths that starts a line and ends a line (``$$``, ``\\[``, ``\\begin{..}``) is one block."""
    begin = state.bMarks[start] + state.tShift[start]
    opening = _math_opening(state.src, begin)
    if opening is None or opening[0] in ("$", "\\("):
        return False
    opener, closer = opening
    close = _math_close(state.src, opener, closer, begin + len(opener))
    stop = start
    while stop < end and state.eMarks[stop] < close:
        stop += 1
    if close < 0 or stop >= end or state.src[close + len(closer) : state.eMarks[stop]].strip():
        return False  # not closed within the container, or text follows: inline maths
    if not silent:
        state.push("math_block", "", 0).map = [start, stop + 1]
        state.line = stop + 1
    return True


def _math_inline(state: StateInline, silent: bool) -> bool:
    """Maths inside a paragraph; inline maths that is one token stays as text (see ``math_text``)."""
    src, pos = state.src, state.pos
    if src.startswith(_DROPPED_ESCAPES, pos):
        if not silent:
            state.push("text", "", 0).content = " "
        state.pos += 2
        return True
    opening = _math_opening(src, pos)
    if opening is None:
        return False
    opener, closer = opening
    close = _math_close(src, opener, closer, pos + len(opener))
    if close < 0 and opener in ("\\[", "\\("):  # an escaped bracket, not maths
        if not silent:
            state.push("text", "", 0).content = opener[1]
        state.pos += 2
        return True
    if close < 0:
        if silent:
            return False
        token = state.push("math_error", "", 0)
        token.meta = {"offset": pos, "opener": opener}
        state.pos = state.posMax
        return True
    if not silent:
        inner = src[pos + len(opener) : close]
        state.push("text", "", 0).content = math_text(inner) if opener == "$" else " "
    state.pos = close + len(closer)
    return True


def _heading_attributes(state: StateCore) -> None:
    """Drop attribute lists (``{ #id .class data-x=.. }``) and closing ``#``s, in either order."""
    for opening, token in pairwise(state.tokens):
        if opening.type == "heading_open":
            text = _HEADING_CLOSE.sub("", token.content)
            token.content = _HEADING_CLOSE.sub("", _HEADING_ATTRS.sub("", text))


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table").disable(["code", "lheading", "html_block"])
    terminates = {"alt": ["paragraph", "reference", "blockquote", "list"]}
    md.block.ruler.before("fence", "mkdocs", _mkdocs_block, terminates)
    md.block.ruler.before("fence", "math_block", _math_block, terminates)
    md.inline.ruler.before("escape", "math", _math_inline)
    md.core.ruler.after("block", "heading_attributes", _heading_attributes)
    return md


_MD = _parser()


# --------------------------------------------------------------------------------------------------------
# Tokens to text


class _Renderer:
    """Plain text of markdown-it tokens, by the rules of the module docstring of decoders.corpora.textbooks."""

    def __init__(self, path: Path, lines: list[str]):
        self.path = path
        self.lines = lines

    def error(self, line: int, message: str) -> CorpusFormatError:
        return CorpusFormatError(self.path, line + 1, message)

    def inline(self, token: Token) -> str:
        """The text of an inline token: code spans filtered; images, HTML, scripts and autolinks dropped."""
        parts: list[str] = []
        closing: str | None = None  # what ends a dropped stretch: "</script", "</style" or "link"
        for child in token.children or []:
            kind = child.type
            if closing is not None:
                if child.content.lower().startswith(closing) or (kind == "link_close" and closing == "link"):
                    closing = None
            elif kind == "text":
                if "<!--" in child.content:  # markdown-it found no end of the comment in its paragraph
                    raise self.error(self.line(token, "<!--"), "HTML comment '<!--' is never closed")
                # Unmatched backticks are not text either; nor is a tag CommonMark's grammar rejects
                # (cp-algorithms has <img alt=""x"">), which markdown-it leaves as text.
                parts.append(_LOOSE_TAG.sub(" ", child.content.replace("`", "")))
            elif kind == "code_inline":
                parts.append(" " + code_text(child.content) + " ")
            elif kind in ("softbreak", "hardbreak"):
                parts.append("\n")
            elif kind in ("image", "html_inline"):
                parts.append(" ")
                hidden = _HIDDEN_HTML.match(child.content)
                closing = "</" + hidden.group(1).lower() if hidden else None
            elif kind == "link_open" and child.markup == "autolink":
                parts.append(" ")
                closing = "link"
            elif kind == "math_error":
                opener = child.meta["opener"]
                raise self.error(self.line(token, opener), f"maths opened with '{opener}' is never closed")
        if closing is not None and closing != "link":
            raise self.error(self.line(token, closing[2:]), f"<{closing[2:]}> is never closed")
        return "".join(parts)

    @staticmethod
    def line(token: Token, found: str) -> int:
        """The 0-based source line of the first ``found`` in an inline token."""
        return token.map[0] + token.content.count("\n", 0, max(token.content.find(found), 0))

    def fence(self, token: Token) -> str:
        last = self.lines[token.map[1] - 1].strip() if token.map[1] - 1 > token.map[0] else ""
        marker = token.markup
        if not (last.startswith(marker[0] * len(marker)) and not last.strip(marker[0])):
            raise self.error(token.map[0], f"code fence {marker} is never closed")
        return "\n\n"

    def block(self, node: SyntaxTreeNode) -> str:
        """The text of a block and the blocks in it, each a paragraph of its own; tables are dropped."""
        if node.type == "inline":
            return self.inline(node.token)
        if node.type == "fence":
            return self.fence(node.token)
        if node.type in ("table", "math_block", "hr"):
            return "\n\n"
        text = "".join(self.block(child) for child in node.children)
        if node.type == "mkdocs" and node.meta["title"] is not None:  # an admonition's title
            title = _MD.parseInline(node.meta["title"])[0]
            title.map = node.map
            text = self.inline(title) + "\n\n" + text
        return "\n\n" + text + "\n\n"


def _front_matter(lines: list[str], path: Path) -> None:
    """Blank out a leading ``---`` .. ``---`` (or ``...``) block in place (markdown-it would parse it)."""
    if not lines or lines[0].strip() != "---":
        return
    closing = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if closing is None:
        raise CorpusFormatError(path, 1, "front matter '---' is never closed")
    lines[: closing + 1] = [""] * (closing + 1)


def _is_section_heading(node: SyntaxTreeNode, lines: list[str]) -> bool:
    """A ``# `` or ``## `` heading (of the top level) written at the start of its line."""
    return node.type == "heading" and node.tag in ("h1", "h2") and lines[node.map[0]].startswith("#")


@checked(path="path")
def markdown_units(path: str | Path) -> list[tuple[int, str, str]]:
    """The units of one Markdown article as ``(number, title, body)``; see the module docstring.

    Raises CorpusFormatError on an unterminated front matter, code fence, HTML comment or maths, on an
    article without a ``# `` title line, on a section before it, or on a title that is empty as text.
    """
    path = Path(path)
    lines = read_text(path).split("\n")
    _front_matter(lines, path)
    tree = SyntaxTreeNode(_MD.parse("\n".join(lines)))
    renderer = _Renderer(path, lines)

    sections: list[tuple[int, str, list[str]]] = []  # (number, title, body parts)
    for node in tree.children:
        if not _is_section_heading(node, lines):
            text = renderer.block(node)  # text before the title (an HTML redirect) belongs to no section
            if sections:
                sections[-1][2].append(text)
            continue
        title = tidy_title(renderer.inline(node.children[0].token))
        if not title:
            raise renderer.error(node.map[0], "the heading is empty as plain text")
        if node.tag == "h2" and not sections:
            raise renderer.error(node.map[0], "a '## ' section before the article's '# ' title")
        sections.append((len(sections), title, []))
    if not sections:
        raise CorpusFormatError(path, None, "no '# ' title line")
    units = []
    for number, title, parts in sections:
        body = tidy("".join(parts))
        if number > 0 or body:
            units.append((number, title, body))
    return units
