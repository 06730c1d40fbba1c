"""The results page as one HTML file (the Snakemake report's readable view of every table): tables rendered, the
page's markers dropped, figures embedded, nothing fetched; a missing figure or a page that is not text named."""

from __future__ import annotations

import base64

import pytest

from decoders.tables.results_page import page_html, write_page_html

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _page(tmp_path):
    (tmp_path / "figures" / "chains").mkdir(parents=True)
    (tmp_path / "figures" / "chains" / "figure2.png").write_bytes(PNG)
    text = (
        "# Results\n\n<!-- scoreboard: start -->\n\n| id | verdict |\n|:--|:--|\n| a <b> & c | reproduced |\n"
        "<!-- scoreboard: end -->\n\n## chains\n\n#### Table 1\n\n| variant | s |\n|:--|--:|\n| cg | 1.5 |\n\n"
        "![Fig. 2](figures/chains/figure2.png)\n\n*Fig. 2*\n"
    )
    (tmp_path / "RESULTS.md").write_text(text, encoding="utf-8")
    return tmp_path / "RESULTS.md"


def test_tables_render_figures_embed_and_markers_drop(tmp_path):
    page = _page(tmp_path)
    write_page_html(page, tmp_path / "RESULTS.html")
    html = (tmp_path / "RESULTS.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count("<table>") == 2
    assert '<td style="text-align:left">cg</td>' in html and '<td style="text-align:right">1.5</td>' in html
    assert "a &lt;b&gt; &amp; c" in html  # text, never markup
    assert "<!--" not in html and "scoreboard: start" not in html
    assert f'src="data:image/png;base64,{base64.b64encode(PNG).decode()}"' in html
    assert "figures/chains" not in html.split("<body>")[1].replace("alt=", "")  # nothing to fetch
    assert "http" not in html


def test_a_missing_figure_and_bad_arguments_are_named(tmp_path):
    page = _page(tmp_path)
    (tmp_path / "figures" / "chains" / "figure2.png").unlink()
    with pytest.raises(FileNotFoundError, match="figure2.png: a figure of the results page is missing"):
        write_page_html(page, tmp_path / "RESULTS.html")
    assert not (tmp_path / "RESULTS.html").exists()  # nothing half-written
    with pytest.raises(TypeError, match="markdown must be a str"):
        page_html(b"# Results", tmp_path)
    with pytest.raises(FileNotFoundError):
        write_page_html(tmp_path / "missing.md", tmp_path / "out.html")
    # a figure elsewhere (a URL) is left as it is; an empty page is a document without tables
    assert 'src="https://example.org/a.png"' in page_html("![a](https://example.org/a.png)", tmp_path)
    assert "<table>" not in page_html("", tmp_path) and page_html("", tmp_path).startswith("<!DOCTYPE html>")
