"""LaTeX chapter files as section units, parsed with pylatexenc's LatexWalker.

The decisions (what a unit is, what is stripped, what is an error) are listed in
:mod:`decoders.corpora.textbooks`. Here pylatexenc tokenises and nests the source (macros and their
arguments, environments, groups, maths, comments with the spaces they swallow, specials such as ``~`` and
````` `` `````); the argument signatures below tell it which arguments each command takes, and
:class:`_Renderer` turns the node tree into plain text by tables of what each command stands for.
pylatexenc's parse errors become CorpusFormatErrors at the line where the unclosed construct opens. The few
argument parsers written here are for text that is not LaTeX at all (code environments, whose end
pylatexenc only finds for ``verbatim``; ``\\verb`` closed on its line; ODS ``#code#``) and for ``\\def``'s
parameter text, which pylatexenc's argument specifications cannot describe. latex2text is not used: its
defaults (``\\ldots`` -> "…", ``--`` -> "–", ``\\index{x}`` -> "x", ``$O(n)$`` -> "O(n)") are not the units'
text, and overriding them command by command makes the same tables as the ones here.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexSpecialsNode,
    LatexWalker,
    LatexWalkerParseError,
)
from pylatexenc.macrospec import (
    EnvironmentSpec,
    LatexContextDb,
    MacroSpec,
    MacroStandardArgsParser,
    ParsedMacroArgs,
    SpecialsSpec,
)

from decoders.checks import checked
from decoders.corpora.textbooks_text import code_text, math_text, read_text, tidy, tidy_title
from decoders.errors import CorpusFormatError

__all__ = ["latex_units"]

# Environments dropped with their content: maths, figures, tables, drawings, code.
_DROP_ENVS = frozenset(
    {
        "equation", "align", "alignat", "eqnarray", "gather", "multline", "flalign", "displaymath", "math",
        "array", "matrix", "bmatrix", "pmatrix", "vmatrix", "cases", "split",
        "figure", "table", "wrapfigure", "subfigure", "tabular", "tabularx", "longtable", "threeparttable",
        "tablenotes", "tikzpicture", "scope", "picture", "lstlisting", "verbatim", "minted", "Verbatim",
        "algorithm", "algorithmic", "comment",
    }
)  # fmt: skip
# Environments whose content is not LaTeX: it may hold unbalanced braces, % and $.
_VERBATIM_ENVS = ("lstlisting", "verbatim", "minted", "Verbatim", "comment")
# Environments with a mandatory argument that is not text (after the optional one every environment may have).
_ENV_ARGS = ("multicols", "minipage")

# Commands whose last argument is text to keep.
_KEEP_ARG = frozenset(
    {
        "emph", "textbf", "textit", "textrm", "textsf", "textsl", "textsc", "textup", "textmd", "textnormal",
        "underline", "uline", "mbox", "hbox", "fbox", "text", "key", "javaonly", "notpcode", "MakeUppercase",
    }
)  # fmt: skip
# Commands dropped with their arguments: (optional arguments allowed, mandatory arguments).
_DROP_ARGS: dict[str, tuple[int, int]] = {
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
_DEFINITIONS = ("newcommand", "renewcommand", "providecommand")  # \newcommand{\name}[n][default]{body}
# Commands that stand for text.
_TEXT = {
    "ldots": "...", "dots": "...", "cdots": "...", "LaTeX": "LaTeX", "TeX": "TeX", "etal": "et al.",
    "lang": "Java", "cent": "cent", "textasciitilde": "~", "textendash": "-", "textemdash": "-",
    "slash": "/", "i": "i", "j": "j", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "S": "§", "quad": " ", "qquad": " ",
    "enspace": " ", "newline": " ", "linebreak": " ", "par": "\n\n", "centering": "",
}  # fmt: skip
# Letters made by a command: as in TeX, the spaces after them are swallowed (na\\"\\i ve -> naïve).
_GLYPHS = frozenset({"i", "j", "ss", "o", "O", "ae", "AE", "oe", "OE", "aa", "AA", "l", "L"})
# Headings inside a section: their text stays as a paragraph of the body.
_HEADINGS = frozenset({"subsection", "subsubsection", "paragraph", "subparagraph"})
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "d": "\u0323", "b": "\u0331",
    "r": "\u030a", "t": "\u0361",
}  # fmt: skip
# Control symbols (\%, \\, ...) that stand for text; any other one stands for nothing.
_SYMBOLS = {"%": "%", "&": "&", "#": "#", "_": "_", "\\": " ", "\n": " ", " ": " ", ",": " "}
# Specials (active characters and ligatures) and their text; ODS adds "#" for its #code#. Dashes are not
# specials: any run of them (en, em, or longer) is one hyphen, in the text nodes.
_SPECIALS = {"~": " ", "&": " ", "``": '"', "''": '"'}
_CLOSING_MATH = {"$": "$", "$$": "$$", "\\[": "\\]", "\\(": "\\)"}
_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n)+")
_DASHES = re.compile(r"-{2,}")


def _spaces(text: str) -> str:
    """Source whitespace as TeX reads it: a blank line ends a paragraph, a lone line break is a space."""
    return "\n\n".join(part.replace("\n", " ") for part in _BLANK_LINES.split(text))


# --------------------------------------------------------------------------------------------------------
# Arguments that pylatexenc's argument specifications ("*[{") cannot describe


class _Malformed(LatexWalkerParseError):
    """A parse error raised by the parsers below, already worded as the CorpusFormatError message."""


def _raw_args(w: LatexWalker, parsing_state, start: int, stop: int) -> ParsedMacroArgs:
    """The raw text ``w.s[start:stop]`` as the single argument of a command or environment."""
    node = w.make_node(
        LatexCharsNode, parsing_state=parsing_state, chars=w.s[start:stop], pos=start, len=stop - start
    )
    return ParsedMacroArgs(argspec="{", argnlist=[node])


class _VerbatimEnvironment(MacroStandardArgsParser):
    """The content of a code environment, up to its ``\\end{name}``, as raw text (never parsed)."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def parse_args(self, w, pos, parsing_state=None):
        end = w.s.find(f"\\end{{{self.name}}}", pos)
        if end < 0:
            begin = w.s.rfind("\\begin", 0, pos)
            raise _Malformed(f"\\begin{{{self.name}}} is never closed", w.s, begin)
        return _raw_args(w, parsing_state, pos, end), pos, end - pos


class _Verb(MacroStandardArgsParser):
    """``\\verb|code|`` (or ``\\verb*``): any delimiter, closed on the same line."""

    def parse_args(self, w, pos, parsing_state=None):
        start = pos + 1 if w.s.startswith("*", pos) else pos
        line_end = w.s.find("\n", start)
        line_end = len(w.s) if line_end < 0 else line_end
        if start >= line_end:
            raise _Malformed("\\verb without a delimiter", w.s, pos)
        close = w.s.find(w.s[start], start + 1, line_end)
        if close < 0:
            raise _Malformed("unterminated \\verb", w.s, pos)
        return _raw_args(w, parsing_state, start + 1, close), pos, close + 1 - pos


class _HashCode(MacroStandardArgsParser):
    """ODS ``#code#``: raw text up to the next ``#`` on the same line (so ``%`` in it is not a comment)."""

    def parse_args(self, w, pos, parsing_state=None):
        close = w.s.find("#", pos)
        newline = w.s.find("\n", pos)
        if close < 0 or 0 <= newline < close:
            raise _Malformed("code opened with '#' is not closed on the same line", w.s, pos - 1)
        return _raw_args(w, parsing_state, pos, close), pos, close + 1 - pos


class _Star(MacroStandardArgsParser):
    """An unknown command takes no arguments; a ``*`` right after its name belongs to it (``\\vspace*``)."""

    def parse_args(self, w, pos, parsing_state=None):
        return ParsedMacroArgs(), pos, 1 if w.s.startswith("*", pos) else 0


class _Definition(MacroStandardArgsParser):
    """``\\def\\name#1#2{body}``: the parameter text runs up to the body's brace."""

    def parse_args(self, w, pos, parsing_state=None):
        _, name_pos, name_len = w.get_latex_expression(pos, parsing_state=parsing_state)
        brace = w.s.find("{", name_pos + name_len)
        if brace < 0:
            raise _Malformed("\\def without a {body}", w.s, pos)
        body, body_pos, body_len = w.get_latex_braced_group(brace, parsing_state=parsing_state)
        return ParsedMacroArgs(argspec="{", argnlist=[body]), pos, body_pos + body_len - pos


def _context(hash_code: bool) -> LatexContextDb:
    """The commands, environments and specials of the three books, with their argument signatures."""
    macros = [MacroSpec(name, "*[{") for name in {*_KEEP_ARG, *_HEADINGS, "texttt", "chapter", "section"}]
    macros += [MacroSpec(name, "*" + "[" * opt + "{" * req) for name, (opt, req) in _DROP_ARGS.items()]
    macros += [MacroSpec(accent, "{") for accent in _ACCENTS]
    macros += [MacroSpec("href", "{{"), MacroSpec("item", "["), MacroSpec("verb", _Verb())]
    macros += [MacroSpec(name, "*{[[{") for name in _DEFINITIONS] + [MacroSpec("def", _Definition())]
    environments = [EnvironmentSpec(name, _VerbatimEnvironment(name)) for name in _VERBATIM_ENVS]
    environments += [EnvironmentSpec(name, "[{") for name in _ENV_ARGS]
    specials = [SpecialsSpec(chars) for chars in _SPECIALS]
    if hash_code:
        specials.append(SpecialsSpec("#", _HashCode()))
    context = LatexContextDb()
    context.add_context_category("textbooks", macros=macros, environments=environments, specials=specials)
    context.set_unknown_macro_spec(MacroSpec("", _Star()))
    context.set_unknown_environment_spec(EnvironmentSpec("", "["))  # theorem names and the like
    return context


_CONTEXTS = {hash_code: _context(hash_code) for hash_code in (False, True)}


# --------------------------------------------------------------------------------------------------------
# Nodes to text


class _Renderer:
    """Plain text of pylatexenc nodes, by the rules of the module docstring of decoders.corpora.textbooks."""

    def __init__(self, walker: LatexWalker, path: Path):
        self.walker = walker
        self.path = path

    def error(self, pos: int, message: str) -> CorpusFormatError:
        return CorpusFormatError(self.path, self.walker.pos_to_lineno_colno(pos)[0], message)

    def text(self, nodes) -> str:
        return "".join(self.node(node) for node in nodes if node is not None)

    def node(self, node) -> str:
        if isinstance(node, LatexCharsNode):
            return _spaces(_DASHES.sub("-", node.chars))
        if isinstance(node, LatexGroupNode):
            return self.text(node.nodelist)
        if isinstance(node, LatexCommentNode):  # swallows its line break, but a blank line after it stays
            return "\n\n" if node.comment_post_space.count("\n") > 1 else ""
        if isinstance(node, LatexMathNode):
            if node.delimiters[0] != "$":
                return " "
            return math_text(self.walker.s[node.pos + 1 : node.pos + node.len - 1])
        if isinstance(node, LatexSpecialsNode):
            if node.specials_chars == "#":
                return code_text(node.nodeargd.argnlist[0].chars.replace("\\_", "_"))
            return _SPECIALS[node.specials_chars]
        if isinstance(node, LatexEnvironmentNode):
            if node.environmentname.rstrip("*") in _DROP_ENVS:
                return " "
            return "\n\n" + self.text(node.nodelist) + "\n\n"
        return self.macro(node)

    def macro(self, node: LatexMacroNode) -> str:
        name = node.macroname
        args = node.nodeargd.argnlist if node.nodeargd is not None else []
        if name in ("chapter", "section"):
            raise self.error(node.pos, f"\\{name} inside a group or environment")
        if name in _KEEP_ARG:
            return self.node(args[-1])
        if name == "texttt":
            return code_text(self.node(args[-1]))
        if name in _HEADINGS:
            return "\n\n" + tidy_title(self.node(args[-1])) + "\n\n"
        if name == "href":
            return self.node(args[1])
        if name == "item":
            return "\n\n" + (self.node(args[0]) + " " if args[0] is not None else "")
        if name in _ACCENTS:
            base = self.node(args[0])
            return unicodedata.normalize("NFC", base[0] + _ACCENTS[name] + base[1:]) if base else ""
        if name in _DROP_ARGS or name in _DEFINITIONS or name in ("def", "verb"):
            return ""
        if not name[0].isalpha():
            return _SYMBOLS.get(name, "")
        # The spaces after a command name are text (a line break a space), except after a letter.
        after = node.macro_post_space.lstrip(" \t") if name in _GLYPHS else node.macro_post_space
        return _TEXT.get(name, " ") + _spaces(after)


# --------------------------------------------------------------------------------------------------------
# Parse errors


_CLOSING_ENVIRONMENT = re.compile(r"closing environment: '([^']*)'")
_CONTEXT_NAME = re.compile(r'"(?:\\begin\{)?([^"{}]*)\}?"')


def _parse_error(walker: LatexWalker, path: Path, error: LatexWalkerParseError) -> CorpusFormatError:
    """pylatexenc's parse error as a CorpusFormatError naming the line where the broken construct opens."""

    def at(pos: int, message: str) -> CorpusFormatError:
        return CorpusFormatError(path, walker.pos_to_lineno_colno(pos)[0], message)

    if isinstance(error, _Malformed):
        return at(error.pos, error.msg)
    if "mismatching closing brace" in error.msg:
        return at(error.pos, "unbalanced braces: '}' without a matching '{'")
    if closing := _CLOSING_ENVIRONMENT.search(error.msg):
        name = closing.group(1)
        return at(error.pos, f"\\end{{{name}}} without a matching \\begin{{{name}}}")
    if not error.open_contexts:
        return at(error.pos or 0, error.msg)
    what, pos, _, _ = error.open_contexts[0]  # the innermost construct left open
    found = _CONTEXT_NAME.search(what)
    name = found.group(1) if found else ""
    if what.startswith("math mode"):
        return at(pos, f"maths opened with '{_CLOSING_MATH[name]}' is never closed")
    if what.startswith("begin environment"):
        return at(pos, f"\\begin{{{name}}} is never closed")
    if what.startswith("arguments of macro") and name in ("chapter", "section"):
        return at(pos, f"unbalanced braces in the \\{name}{{...}} title")
    return at(pos, "unbalanced braces: '{' is never closed")


# --------------------------------------------------------------------------------------------------------
# Units


@checked(path="path", hash_code="flag")
def latex_units(path: str | Path, hash_code: bool = False) -> list[tuple[int, str, str]]:
    """The units of one LaTeX chapter file as ``(number, title, body)``; see the module docstring.

    ``hash_code`` turns on ODS's ``#code#`` notation. Raises CorpusFormatError on unbalanced braces or
    environments, unterminated maths or code, a title that is empty as text, or a second ``\\chapter``.
    """
    path = Path(path)
    walker = LatexWalker(read_text(path), latex_context=_CONTEXTS[hash_code], tolerant_parsing=False)
    try:
        nodes, _, _ = walker.get_latex_nodes()
    except LatexWalkerParseError as error:
        raise _parse_error(walker, path, error) from None
    renderer = _Renderer(walker, path)

    # Each heading: (kind, title, index of the node after it).
    headings: list[tuple[str, str, int]] = []
    for index, node in enumerate(nodes):
        if not (isinstance(node, LatexMacroNode) and node.macroname in ("chapter", "section")):
            continue
        kind, title_node = node.macroname, node.nodeargd.argnlist[-1]
        if not isinstance(title_node, LatexGroupNode):
            raise renderer.error(node.pos, f"\\{kind} without a {{title}}")
        title = tidy_title(renderer.node(title_node))
        if not title:
            raise renderer.error(node.pos, f"the \\{kind} title is empty as plain text")
        if kind == "chapter" and any(previous == "chapter" for previous, _, _ in headings):
            raise renderer.error(node.pos, "a second \\chapter in one file (one chapter per file)")
        headings.append((kind, title, index + 1))

    units: list[tuple[int, str, str]] = []
    number = 0
    for position, (kind, title, start) in enumerate(headings):
        stop = headings[position + 1][2] - 1 if position + 1 < len(headings) else len(nodes)
        body = tidy(renderer.text(nodes[start:stop]))
        if kind == "section":
            number += 1
            units.append((number, title, body))
        elif body:
            units.append((0, title, body))
    return units
