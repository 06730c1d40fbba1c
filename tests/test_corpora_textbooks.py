"""Textbook section reader: stripping rules on synthetic LaTeX/Markdown, errors, and the real mirror's counts."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from decoders.corpora.textbooks import (
    COLUMNS,
    content_words,
    latex_units,
    markdown_units,
    read_textbook,
    select_units,
    split_units,
    textbook_stats,
    words,
)
from decoders.errors import ConfigError, CorpusFormatError


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def latex(tmp_path: Path, text: str, hash_code: bool = False) -> list[tuple[int, str, str]]:
    return latex_units(write(tmp_path, "chapter.tex", text), hash_code=hash_code)


def latex_body(tmp_path: Path, body: str, hash_code: bool = False) -> str:
    """The body of a single section holding ``body``."""
    units = latex(tmp_path, "\\section{S}\n" + body, hash_code)
    assert [number for number, _, _ in units] == [1]
    return units[0][2]


def markdown(tmp_path: Path, text: str) -> list[tuple[int, str, str]]:
    return markdown_units(write(tmp_path, "src/topic/article.md", text))


def markdown_body(tmp_path: Path, body: str) -> str:
    units = markdown(tmp_path, "# Article\n\n## Section\n\n" + body)
    assert [number for number, _, _ in units] == [1]
    return units[0][2]


# --------------------------------------------------------------------------------------------------------
# Words


def test_words_and_content_words():
    assert words("Red-Black Trees: Dijkstra's O(n) 2-4 algorithm") == [
        "Red", "Black", "Trees", "Dijkstra's", "O", "n", "2", "4", "algorithm",
    ]  # fmt: skip
    assert content_words("The Need for Efficiency") == ["need", "efficiency"]
    assert content_words("Kruskal's algorithm in 2 steps") == ["kruskal", "algorithm", "steps"]
    assert content_words("Why This Book?") == ["book"]
    assert content_words("2-4 Trees and B-Trees") == ["trees", "b", "trees"]


# --------------------------------------------------------------------------------------------------------
# LaTeX: units


def test_latex_units_chapter_intro_sections_and_subsections(tmp_path):
    units = latex(
        tmp_path,
        "\\markboth{Untitled}{} Text before the chapter has no title and is dropped.\n"
        "\\chapter{Graphs}\n\\chaplabel{graphs}\nA graph is a pair.\n"
        "\\section{Breadth-First Search}\nWe visit neighbours.\n"
        "\\subsection{Analysis}\nIt takes linear time.\n"
        "\\subsubsection{Remarks}\nA remark.\n"
        "\\section*{Notes}\n\\paragraph{History:} It is old.\n"
        "\\section[Short]{Depth-First Search}\nWe go deep.\n",
    )
    assert units == [
        (0, "Graphs", "A graph is a pair."),
        (
            1,
            "Breadth-First Search",
            "We visit neighbours.\nAnalysis\nIt takes linear time.\nRemarks\nA remark.",
        ),
        (2, "Notes", "History:\nIt is old."),
        (3, "Depth-First Search", "We go deep."),
    ]


def test_latex_empty_chapter_intro_is_dropped_and_chapter_without_sections_kept(tmp_path):
    assert latex(tmp_path, "\\chapter{Heaps}\n\\label{x}\n\\section{Binary Heaps}\nText.\n") == [
        (1, "Binary Heaps", "Text.")
    ]
    assert latex(tmp_path, "\\chapter*{Preface}\n\\addcontentsline{toc}{chapter}{Preface}\nWelcome.\n") == [
        (0, "Preface", "Welcome.")
    ]


def test_latex_title_maths_code_and_commands(tmp_path):
    units = latex(
        tmp_path,
        "\\chapter{Trees}\n"
        "\\section{#ArrayStack#: Fast \\emph{Stack} Operations}\nx\n"
        "\\section{The $O(n)$ algorithm}\nx\n"
        "\\section{Amortized Analysis of $B$-Trees}\nx\n"
        "\\section{Analysis of #merge(h1,h2)# in \\texttt{C++}\\label{s}}\nx\n",
        hash_code=True,
    )
    assert [title for _, title, _ in units] == [
        "ArrayStack: Fast Stack Operations",
        "The algorithm",
        "Amortized Analysis of B-Trees",
        "Analysis of merge in",
    ]


# --------------------------------------------------------------------------------------------------------
# LaTeX: stripping rules


def test_latex_maths_is_dropped_unless_a_single_token(tmp_path):
    body = latex_body(
        tmp_path,
        "For $n$ items in $O(n \\log n)$ time, the $k$-th value, $$\\sum_i x_i$$ and\n"
        "\\[ a = b \\] and \\(c\\) then\n\\begin{equation*} e^{x} \\end{equation*}\n"
        "\\begin{align} y &= z \\end{align} done (at $x$ = $\\{1\\}$).",
    )
    assert body == "For n items in time, the k-th value, and and then done (at x =)."


def test_latex_comments(tmp_path):
    body = latex_body(tmp_path, "Costs 5\\% more.% a comment\n% a whole comment line\nSame paragraph.\n")
    assert body == "Costs 5% more.Same paragraph."
    body = latex_body(tmp_path, "One,\n% comment\n  \t\nTwo with #a%b# code.\n", hash_code=True)
    assert body == "One,\nTwo with code."
    body = latex_body(tmp_path, "Glued%\n   together, as in TeX.\n")
    assert body == "Gluedtogether, as in TeX."


def test_latex_formatting_commands_keep_their_text(tmp_path):
    body = latex_body(
        tmp_path,
        "An \\emph{array}, \\textbf{bold \\textit{nested}}, \\key{key word}, \\mbox{box} and "
        "\\href{http://x.org}{link text}; \\LaTeX\\ and \\ldots{} and ``quoted'' -- dash~here.",
    )
    assert (
        body == 'An array, bold nested, key word, box and link text; LaTeX and ... and "quoted" - dash here.'
    )


def test_latex_inline_code_keeps_identifiers_and_call_names(tmp_path):
    body = latex_body(
        tmp_path,
        "Use \\texttt{push\\_back}, \\texttt{search(k)}, \\texttt{a[k]}, #ArrayStack#, #n#, #add(i,x)#,\n"
        "#a.length# and \\texttt{long long}.",
        hash_code=True,
    )
    assert body == "Use push_back, search, ArrayStack, n, add, and long long."


def test_latex_references_citations_index_footnotes_labels_are_dropped(tmp_path):
    body = latex_body(
        tmp_path,
        "See \\figref{f}, \\secref{s} and \\ref{r}\\cite[p.~3]{knuth}.\\footnote{A footnote \\url{http://x}.}\n"
        "\\index{arrays}\n\\label{here}\nThe end \\eqref{e}.",
    )
    assert body == "See, and. The end."


def test_latex_figures_tables_tikz_and_code_are_dropped(tmp_path):
    body = latex_body(
        tmp_path,
        "Before.\n\\begin{figure}\\centering\\includegraphics[width=2cm]{f}\\caption[s]{Cap}\\end{figure}\n"
        "\\begin{tikzpicture}\\node at (0,0) {$x$};\\end{tikzpicture}\n"
        "\\begin{tabular}{|l|}a & b \\\\ \\hline\\end{tabular}\n"
        "\\begin{lstlisting}\nint f() { return a % b; } // $ {\n\\end{lstlisting}\n"
        "\\codeimport{ods/ArrayStack.add(i,x)} \\verb|{%$| After.",
    )
    assert body == "Before. After."


def test_latex_ods_editions_lists_and_accents(tmp_path):
    body = latex_body(
        tmp_path,
        "\\javaonly{Java text.}\n\\cpponly{C++ text.}\n\\pcodeonly{Pseudocode.}\n\\notpcode{Not pseudocode.}\n"
        "\\begin{itemize}\n  \\item First\n  \\item[(b)] Second\n\\end{itemize}\n"
        "\\begin{thm}[Name]\\label{t} A theorem.\\end{thm}\n"
        "P\\v{a}tra\\c{s}cu, Erd\\H{o}s, \\'{e}t\\'e, na\\\"\\i ve.",
        hash_code=True,
    )
    assert body == "Java text. Not pseudocode.\nFirst\n(b) Second\nA theorem.\nPǎtraşcu, Erdős, été, naïve."


def test_latex_blank_lines_alone_separate_paragraphs(tmp_path):
    body = latex_body(tmp_path, "First   line\n\\index{x}\ncontinues.\n\n\n  Second\tparagraph.\n")
    assert body == "First line continues.\nSecond paragraph."


def test_latex_definitions_dashes_and_starred_commands(tmp_path):
    body = latex_body(
        tmp_path,
        "\\def\\pair#1#2{(#1, #2)}\\newcommand{\\hint}[1][x]{\\int_1^k #1}%\n"
        "Length $n$, ---- or \\verb*|{%| and \\vspace*{2pt}\\clearpage text\\\\[2pt] \\ss{} \\o\n",
    )
    assert body == "Length n, - or and text [2pt] ß ø"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcdefXYZ .,;:\n", max_size=200))  # no "!!!" / "???": admonitions
def test_latex_and_markdown_keep_plain_prose_words(tmp_path_factory, prose):
    tmp_path = tmp_path_factory.mktemp("prose")
    expected = words(prose)
    units = latex(tmp_path, "\\section{S}\n" + prose)
    assert words(units[0][2]) == expected
    units = markdown(tmp_path, "# Title\n\n" + prose)
    assert words(units[0][2] if units else "") == expected


# --------------------------------------------------------------------------------------------------------
# LaTeX: errors


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "\\chapter{C}\nText.\n\\section{Unbalanced {title}\nBody.\n",
            3,
            "unbalanced braces in the \\section",
        ),
        ("\\section{S}\nBody {with an open group.\n\nMore.\n", 2, "'{' is never closed"),
        ("\\section{S}\nBody} with a stray brace.\n", 2, "'}' without a matching '{'"),
        ("\\section{S}\nText\n\\begin{lstlisting}\ncode\n", 3, "\\begin{lstlisting} is never closed"),
        ("\\section{S}\n\\begin{itemize}\\item a\n\\end{enumerate}\n", 3, "\\end{enumerate} without"),
        ("\\section{S}\n\\begin{figure}\nx\n", 2, "\\begin{figure} is never closed"),
        ("\\section{S}\nText $x + y\nmore.\n", 2, "maths opened with '$' is never closed"),
        ("\\section{S}\nText \\[ x + y\n", 2, "maths opened with '\\]' is never closed"),
        ("\\chapter{A}\nx\n\\chapter{B}\ny\n", 3, "a second \\chapter"),
        ("\\section{$O(n)$}\nx\n", 1, "title is empty"),
        ("\\section{S}\nAn #unclosed code\n", 2, "code opened with '#'"),
        ("\\section{S}\nSee \\verb|code\n", 2, "unterminated \\verb"),
    ],
)
def test_latex_format_errors_name_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path, "bad.tex", text)
    with pytest.raises(CorpusFormatError) as caught:
        latex_units(path, hash_code=True)
    assert caught.value.line == line
    assert caught.value.path == str(path)
    assert message in str(caught.value)
    assert f"bad.tex, line {line}:" in str(caught.value)


# --------------------------------------------------------------------------------------------------------
# Markdown: units


def test_markdown_units_front_matter_intro_sections_and_deeper_headings(tmp_path):
    units = markdown(
        tmp_path,
        "---\ntags:\n  - Translated\ne_maxx_link: bfs\n---\n<!--?title Ignored -->\n\n"
        "# Breadth-first search\n\nIntro text.\n\n"
        "## Description of the $O(n)$ algorithm { #desc data-toc-label='Description <script>O(n)</script>' }\n"
        "Body one.\n\n### A subsection { #sub }\n\nMore.\n\n"
        "## Integral flow theorem ## { #integral-theorem}\n\nBody two.\n\n"
        "# Problems:\n- Item one\n",
    )
    assert units == [
        (0, "Breadth-first search", "Intro text."),
        (1, "Description of the algorithm", "Body one.\nA subsection\nMore."),
        (2, "Integral flow theorem", "Body two."),
        (3, "Problems:", "Item one"),
    ]


def test_markdown_article_without_sections_is_one_unit_and_empty_intro_dropped(tmp_path):
    assert markdown(tmp_path, "# Segment to line\n\nText.\n\n### Two-dimensional case\n\nMore.\n") == [
        (0, "Segment to line", "Text.\nTwo-dimensional case\nMore.")
    ]
    assert markdown(tmp_path, "# Article\n\n## First\n\nText.\n\n## Empty\n\n") == [
        (1, "First", "Text."),
        (2, "Empty", ""),
    ]


# --------------------------------------------------------------------------------------------------------
# Markdown: stripping rules


def test_markdown_code_blocks_tabs_and_inline_code(tmp_path):
    body = markdown_body(
        tmp_path,
        'Before.\n\n=== "C++"\n    ```cpp\n    int main() { return 0; } // $ {\n    ```\n'
        '=== "Java"\n    ~~~java\n    class A {}\n    ~~~\n\n````\n```\nnested fence\n```\n````\n\n'
        "Use `queue`, `push_back`, `f(x)`, `vector<int>` and ``a`b``.\n",
    )
    assert body == "Before.\nUse queue, push_back, f, and."


def test_markdown_maths_is_dropped_unless_a_single_token(tmp_path):
    body = markdown_body(
        tmp_path,
        "For $n$ vertices in $O(n + m)$ time, costs \\$5, the $k$-th one.\n\n"
        "$$\n\\sum_{i} {a_i} < b\n$$\n\nthen \\[ \\binom n k \\] and \\begin{align} x &= y \\end{align} end.\n",
    )
    assert body == "For n vertices in time, costs 5, the k-th one.\nthen and end."


def test_markdown_links_images_html_and_emphasis(tmp_path):
    body = markdown_body(
        tmp_path,
        'See [the BFS article](../graph/bfs.md) and ![an image](img/x.png "title") here, '
        "[SPOJ #1 [Difficulty: easy]](http://spoj.com/1), [ref link][1] and <https://example.org>.\n"
        '<div style="text-align: center;"><img src="x.png" alt="x"><br/></div>\n\n'
        "<script>var x = '<b>';</script>**Bold**, *italic*, __strong__, _em_ and snake_case_word; "
        "Hardy &amp; Wright, a\\*b.\n\n[1]: http://example.org/ref\n",
    )
    assert body == (
        "See the BFS article and here, SPOJ #1 [Difficulty: easy], ref link and.\n"
        "Bold, italic, strong, em and snake_case_word; Hardy & Wright, a*b."
    )


def test_markdown_admonitions_tables_lists_and_quotes(tmp_path):
    body = markdown_body(
        tmp_path,
        '!!! info "Definition"\n    A **graph** is a pair.\n\n??? note\n    Hidden proof.\n\n'
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n* First item\n- Second item\n1. Third item\n\n"
        "> Quoted text.\n\n---\n\nLast.\n",
    )
    assert (
        body
        == "Definition\nA graph is a pair.\nHidden proof.\nFirst item\nSecond item\nThird item\nQuoted text.\nLast."
    )


def test_markdown_emphasis_around_maths_admonition_title_links_and_loose_tags(tmp_path):
    body = markdown_body(
        tmp_path,
        'The **borders $(l, r)$** of, counted **$+\\ k$** times; <img src="x.png" alt=""A"">\n\n'
        '!!! example "[GCJ 2019](http://x/y)"\n    Text.\n',
    )
    assert body == "The borders of, counted times;\nGCJ 2019\nText."


# --------------------------------------------------------------------------------------------------------
# Markdown: errors


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("# A\n\n## S\n\nText.\n\n```cpp\nint x;\n", 7, "code fence ``` is never closed"),
        ("# A\n\n    ~~~~\n    code\n    ~~~\n", 3, "code fence ~~~~ is never closed"),
        ("---\ntags: []\n# A\n", 1, "front matter"),
        ("# A\n\n## S\n\nCosts $5 and\nmore.\n", 5, "maths opened with '$' is never closed"),
        ("# A\n\n<!-- open comment\n\ntext\n", 3, "'<!--' is never closed"),
        ("Some text.\n\n## S\n\nBody.\n", 3, "before the article's '# ' title"),
        ("# A\n\n## $O(n)$\n\nBody.\n", 3, "heading is empty"),
    ],
)
def test_markdown_format_errors_name_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path, "bad.md", text)
    with pytest.raises(CorpusFormatError) as caught:
        markdown_units(path)
    assert caught.value.line == line
    assert message in str(caught.value)
    assert f"bad.md, line {line}:" in str(caught.value)


def test_markdown_without_title_is_an_error(tmp_path):
    path = write(tmp_path, "bad.md", "Just text.\n")
    with pytest.raises(CorpusFormatError, match="no '# ' title line"):
        markdown_units(path)


# --------------------------------------------------------------------------------------------------------
# read_textbook


def test_read_textbook_ids_positions_columns_and_gzip(tmp_path):
    first = write(tmp_path, "src/graph/bfs.md", "# BFS\n\nIntro.\n\n## Algorithm\n\nSteps.\n")
    second = write(tmp_path, "src/algebra/gcd.md", "# GCD\n\n## Euclid\n\nDivide.\n")
    gz = tmp_path / "gz" / "src" / "algebra" / "gcd.md.gz"
    gz.parent.mkdir(parents=True)
    gz.write_bytes(gzip.compress(second.read_bytes()))

    frame = read_textbook("cp_algorithms", [first, second])
    assert list(frame.columns) == COLUMNS
    assert frame["section_id"].tolist() == [
        "cp_algorithms/graph/bfs/0", "cp_algorithms/graph/bfs/1", "cp_algorithms/algebra/gcd/1",
    ]  # fmt: skip
    assert frame["position"].tolist() == [0, 1, 2]
    assert frame["title"].tolist() == ["BFS", "Algorithm", "Euclid"]
    assert set(frame["source"]) == {"cp_algorithms"}

    from_gz = read_textbook("cp_algorithms", [gz])
    pd.testing.assert_frame_equal(from_gz, frame.iloc[2:].reset_index(drop=True).assign(position=[0]))

    tex = write(tmp_path, "chapter07.tex", "\\chapter{DP}\nIntro.\n\\section{Coins}\nText.\n")
    assert read_textbook("cphb", [tex])["section_id"].tolist() == ["cphb/chapter07/0", "cphb/chapter07/1"]


def test_read_textbook_rejects_bad_arguments(tmp_path):
    tex = write(tmp_path, "arrays.tex", "\\section{S}\nText.\n")
    with pytest.raises(ConfigError, match="unknown textbook source"):
        read_textbook("clrs", [tex])
    with pytest.raises(ConfigError, match="no files"):
        read_textbook("ods", [])
    with pytest.raises(ConfigError, match="occurs twice"):
        read_textbook("ods", [tex, tex])


# --------------------------------------------------------------------------------------------------------
# select_units, split_units, textbook_stats


def units_frame(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    frame = pd.DataFrame(
        [(source, f"{source}/c/{i}", title, body) for i, (source, title, body) in enumerate(rows)],
        columns=COLUMNS[:-1],
    )
    frame["position"] = frame.groupby("source").cumcount()
    return frame


def test_select_units_thresholds():
    frame = units_frame(
        [
            ("ods", "Hash Tables", "word " * 100),
            ("ods", "Hash Tables", "word " * 99),
            ("ods", "The And", "word " * 150),  # only stop words in the title
            ("ods", "B-Trees", "word " * 100),
        ]
    )
    selected = select_units(frame)
    assert selected["section_id"].tolist() == ["ods/c/0", "ods/c/3"]
    assert selected["position"].tolist() == [0, 3]
    assert select_units(frame, min_body_words=99, min_title_content_words=2)["section_id"].tolist() == [
        "ods/c/0",
        "ods/c/1",
        "ods/c/3",
    ]
    assert select_units(frame, min_title_content_words=0)["section_id"].tolist() == [
        "ods/c/0",
        "ods/c/2",
        "ods/c/3",
    ]


def test_split_units_first_part_of_each_source_in_book_order():
    frame = units_frame(
        [("ods", f"T{i}", "b") for i in range(10)] + [("cphb", f"U{i}", "b") for i in range(7)]
    )
    parts = split_units(frame.iloc[::-1])  # sources keep their order of appearance, units their book order
    assert parts["train"]["section_id"].tolist() == [f"cphb/c/{i}" for i in range(10, 14)] + [
        f"ods/c/{i}" for i in range(7)
    ]
    assert parts["test"]["section_id"].tolist() == [f"cphb/c/{i}" for i in range(14, 17)] + [
        "ods/c/7",
        "ods/c/8",
        "ods/c/9",
    ]
    assert list(parts["train"].columns) == COLUMNS
    assert len(split_units(frame, train_fraction=0.5)["train"]) == 5 + 3
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ConfigError, match="train_fraction"):
            split_units(frame, train_fraction=bad)


def test_textbook_stats_exact_values():
    frame = units_frame(
        [
            ("ods", "Hash Tables", "one two three"),
            ("ods", "Trees of Trees", "one two"),
            ("cphb", "Sorting", "one"),
            ("cphb", "The Merge-Sort Algorithm in C++", "a b c d e f"),
        ]
    )
    stats = textbook_stats(frame)
    assert stats == {
        "sections": 4,
        "mean_section_words": 3.0,
        "mean_title_words": (2 + 3 + 1 + 6) / 4,
        "mean_title_content_words": (2 + 2 + 1 + 4) / 4,
        "shortest_title_words": 1,
        "longest_title_words": 6,
        "titles_without_repeated_words_pct": 75.0,
        "lm_body_tokens": 12,
    }
    with pytest.raises(ConfigError):
        textbook_stats(frame.iloc[:0])


# --------------------------------------------------------------------------------------------------------
# The real textbooks in the mirror


BOOKS = {"ods": "textbook_ods", "cphb": "textbook_cphb", "cp_algorithms": "textbook_cp_algorithms"}
SUFFIX = {"ods": ".tex", "cphb": ".tex", "cp_algorithms": ".md"}


def book_paths(mirror: Path, source: str) -> list[Path]:
    """The book's chapter files in registry order (for cphb the preface first, as in the book)."""
    corpus = BOOKS[source]
    registry = yaml.safe_load((mirror / "registry.yaml").read_text(encoding="utf-8"))
    names = [name for name in registry[corpus]["files"] if name.endswith(SUFFIX[source])]
    names.sort(key=lambda name: name != "preface.tex")
    paths = []
    for name in names:
        stored = mirror / corpus / registry[corpus]["files"][name]["stored"]
        paths.append(stored)
    return paths


@pytest.fixture(scope="module")
def books(mirror) -> dict[str, pd.DataFrame]:
    return {source: read_textbook(source, book_paths(mirror, source)) for source in BOOKS}


# source: (files, units, units after select_units, train, test)
REAL_COUNTS = {
    "ods": (15, 72, 70, 49, 21),
    "cphb": (31, 149, 137, 95, 42),
    "cp_algorithms": (164, 809, 443, 310, 133),
}


@pytest.mark.parametrize("source", list(BOOKS))
def test_real_unit_counts_and_splits(mirror, books, source):
    files, units, selected, train, test = REAL_COUNTS[source]
    assert len(book_paths(mirror, source)) == files
    frame = books[source]
    assert len(frame) == units
    assert frame["position"].tolist() == list(range(units))
    assert frame["section_id"].is_unique
    chosen = select_units(frame)
    assert len(chosen) == selected
    parts = split_units(chosen)
    assert (len(parts["train"]), len(parts["test"])) == (train, test)
    assert parts["train"]["position"].max() < parts["test"]["position"].min()


def test_real_known_units(books):
    by_id = pd.concat(books.values()).set_index("section_id")["title"]
    assert by_id["ods/why/0"] == "Why This Book?"
    assert by_id["ods/arrays/1"] == "ArrayStack: Fast Stack Operations Using an Array"
    assert by_id["ods/btree/2"] == "B-Trees"
    assert by_id["cphb/preface/0"] == "Preface"
    assert by_id["cphb/chapter05/1"] == "Generating subsets"
    assert by_id["cphb/chapter13/1"] == "Bellman–Ford algorithm"
    assert by_id["cp_algorithms/graph/breadth-first-search/0"] == "Breadth-first search"
    assert by_id["cp_algorithms/graph/breadth-first-search/1"] == "Description of the algorithm"
    assert by_id["cp_algorithms/graph/edmonds_karp/4"] == "Integral flow theorem"
    assert by_id["cp_algorithms/algebra/phi-function/3"] == "Euler totient function from 1 to n in"


LEFTOVER_MARKUP = re.compile(r"[\\${}]|```|~~~|</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>|\]\(")


def test_real_titles_and_bodies_are_plain_text(books):
    frame = pd.concat(books.values(), ignore_index=True)
    assert (frame["title"].str.len() > 0).all()
    assert not frame["title"].str.contains("\n").any()
    for column in ("title", "body"):
        leftovers = frame[frame[column].str.contains(LEFTOVER_MARKUP)]
        assert leftovers.empty, leftovers[["section_id", column]].head().to_string()
    assert not frame["body"].str.contains(r"  |^ | $|\n\n", regex=True).any()


def test_real_stats(books):
    frame = pd.concat(books.values(), ignore_index=True)
    chosen = select_units(frame)
    stats = textbook_stats(chosen)
    assert stats["sections"] == 650
    assert stats["lm_body_tokens"] == 274_893
    assert stats["mean_section_words"] == pytest.approx(274_893 / 650)
    assert stats["mean_title_words"] == pytest.approx(1946 / 650)
    assert stats["mean_title_content_words"] == pytest.approx(1558 / 650)
    assert (stats["shortest_title_words"], stats["longest_title_words"]) == (1, 12)
    assert stats["titles_without_repeated_words_pct"] == pytest.approx(100 * 642 / 650)
    per_source = {source: textbook_stats(select_units(books[source])) for source in BOOKS}
    assert {source: s["lm_body_tokens"] for source, s in per_source.items()} == {
        "ods": 56_252,
        "cphb": 57_220,
        "cp_algorithms": 161_421,
    }


# Units as the hand-written reader (before pylatexenc and markdown-it-py) gave them on the mirror's files:
# section id -> (title, number of words in the body, its first 60 and last 40 characters, one inner line).
REFERENCE_UNITS = {
    "ods/why/0": (
        "Why This Book?", 344, "There are plenty of books that teach introductory data stru",
        "t, or my pulse, (whichever comes first) has waned.", None,
    ),
    "ods/arrays/1": (
        "ArrayStack: Fast Stack Operations Using an Array", 857,
        "An ArrayStack implements the list interface using an array a", "ese operations will run in amortized time.",
        "The ArrayStack is an efficient way to implement a Stack. In particular, we can implement p",
    ),
    "ods/hashing/2": (
        "LinearHashTable: Linear Probing", 1724, "The ChainedHashTable data structure uses an array of lists, ",
        "or this are provided at the end of this chapter.", None,
    ),
    "ods/btree/2": (
        "B-Trees", 3356, "In this section, we discuss a generalization of binary trees,",
        "e spent performing splits, merges, and borrows.", None,
    ),
    "cphb/preface/0": (
        "Preface", 148, "The purpose of this book is to give you a thorough introducti",
        "the book to.\nHelsinki, August 2019 Antti Laaksonen", None,
    ),
    "cphb/chapter05/1": (
        "Generating subsets", 314, "We first consider the problem of generating all subsets of a",
        "or that contains the elements in the subset.", "Method 1",
    ),
    "cphb/chapter13/1": (
        "Bellman–Ford algorithm", 686, "The Bellman–Ford algorithm finds shortest paths from a starti",
        "slow as the original Bellman–Ford algorithm.",
        "Let us consider how the Bellman–Ford algorithm works in the following graph:",
    ),
    "cphb/chapter22/2": (
        "Catalan numbers", 429, "The Catalan number equals the number of valid parenthesis exp",
        "for, the binary trees are\nand the rooted trees are", None,
    ),
    "cp_algorithms/graph/breadth-first-search/1": (
        "Description of the algorithm", 285, "The algorithm takes as input an unweighted graph and the id o",
        "ch vertex the vertex from which we reached it).", None,
    ),
    "cp_algorithms/algebra/phi-function/3": (
        "Euler totient function from 1 to n in", 208, "If we need the totient of all numbers between 1 and n, then ",
        "e overall complexity for the range computation is.", None,
    ),
    "cp_algorithms/algebra/continued-fractions/4": (
        "Trees of continued fractions", 999, "There are two major ways to unite all possible continued frac",
        "ring differs through the bit-reversal permutation.", "GCJ 2019, Round 2 - New Elements: Part 2",
    ),
    "cp_algorithms/graph/2SAT/1": (
        "Algorithm:", 695, "First we need to convert the problem to a different form, the",
        "e above criterion for the existence of a solution.",
        "It is worth paying attention to the property of ",
    ),
    "cp_algorithms/data_structures/fenwick/2": (
        "Implementation", 475, "Finding sum in one-dimensional array\nHere we present an imple",
        "ns, however it uses one-based indexing internally.", "Finding sum in one-dimensional array",
    ),
    "cp_algorithms/sequences/longest_increasing_subsequence/0": (
        "Longest increasing subsequence", 10, "This article has been moved to a Longest increasing subseque",
        "s been moved to a Longest increasing subsequence.", None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("section_id", list(REFERENCE_UNITS))
def test_real_units_match_the_reference(books, section_id):
    """The library-based readers give the units the hand-written reader gave (titles, body words and ends)."""
    frame = pd.concat(books.values()).set_index("section_id")
    title, body_words, head, tail, inner = REFERENCE_UNITS[section_id]
    unit = frame.loc[section_id]
    assert unit["title"] == title
    assert len(words(unit["body"])) == body_words
    assert unit["body"].startswith(head)
    assert unit["body"].endswith(tail)
    if inner is not None:
        assert any(line.startswith(inner) for line in unit["body"].split("\n"))


def test_textbook_functions_name_a_wrong_argument() -> None:
    """Found here: a text that is not a string gave re's or str's TypeError, a path that is not one pathlib's,
    a frame that is not one an AttributeError."""
    from decoders.corpora import textbooks, textbooks_latex, textbooks_markdown, textbooks_text

    for call, message in [
        (lambda: textbooks.words(None), "text must be a string"),
        (lambda: textbooks.content_words(["a"]), "text must be a string"),
        (lambda: textbooks.read_textbook("ods", "book.tex"), "paths must be a sequence"),
        (lambda: textbooks.read_textbook(5, []), "source must be a string"),
        (lambda: textbooks.select_units([1]), "df must be a pandas DataFrame"),
        (lambda: textbooks.select_units(pd.DataFrame(), min_body_words="100"), "min_body_words"),
        (lambda: textbooks.split_units(pd.DataFrame(), train_fraction=float("nan")), "train_fraction"),
        (lambda: textbooks.textbook_stats(None), "df must be a pandas DataFrame"),
        (lambda: textbooks_latex.latex_units(None), "path must be a path"),
        (lambda: textbooks_latex.latex_units("a.tex", hash_code=1), "hash_code must be true or false"),
        (lambda: textbooks_markdown.markdown_units(3), "path must be a path"),
        (lambda: textbooks_text.read_text(True), "path must be a path"),
        (lambda: textbooks_text.code_text(5), "code must be a string"),
        (lambda: textbooks_text.math_text(None), "math_source must be a string"),
        (lambda: textbooks_text.tidy(b"x"), "text must be a string"),
        (lambda: textbooks_text.tidy_paragraph(1.5), "text must be a string"),
        (lambda: textbooks_text.tidy_title([]), "text must be a string"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()


def test_read_text_takes_a_string_path(tmp_path: Path) -> None:
    """Found here: read_text("file.md") failed with 'str' object has no attribute 'suffix'."""
    from decoders.corpora.textbooks_text import read_text

    (tmp_path / "a.md").write_text("text", encoding="utf-8")
    assert read_text(str(tmp_path / "a.md")) == read_text(tmp_path / "a.md") == "text"
