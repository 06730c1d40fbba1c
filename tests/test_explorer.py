"""The explorer's site from a results page: tables with captions and notes, CSVs, per-instance data from the
published records; sections without records say so; bad input is refused by name."""

from __future__ import annotations

import csv
import json

import pytest
from explorer_toys import DATASETS, PAGE_TEXT, VARIANTS, toy_page

from decoders.errors import ConfigError
from decoders.tables.explorer import build, figure_charts, main, page_sections, prose, run_records


def test_sections_scoreboard_first_with_captions_and_notes():
    found = page_sections(PAGE_TEXT)
    assert [s.heading.split(":")[0] for s in found] == ["Scoreboard", "Corpora", "chains", "titles"]
    scoreboard = found[0].tables[0]
    assert scoreboard.title.startswith("Scoreboard")
    assert scoreboard.header[:3] == ["id", "claim", "paper"]
    assert [row[0] for row in scoreboard.rows] == ["toy-fast", "toy-exact"]
    assert scoreboard.caption == ["- Verdicts are computed from the tables, never typed."]
    chains = found[2]
    assert chains.experiment == "chains" and found[1].experiment is None
    provenance, table1 = chains.tables
    assert provenance.header[0] == "provenance"
    assert table1.anchor == "table-1-exactness-and-speed"  # where the scoreboard's link points
    assert table1.caption == ["The caption: speeds by dataset."]
    assert len(table1.rows) == 6 and table1.rows[1][:2] == ["wsj", "cg"]
    assert table1.notes[0].startswith("- sent_per_s") and table1.notes[-1].startswith("![speed")


def test_records_from_the_published_archive(tmp_path):
    page = toy_page(tmp_path / "page")
    frame, source = run_records(page, "chains")
    assert source.endswith("records.tar.xz")
    assert len(frame) == sum(DATASETS.values()) * len(VARIANTS)
    assert set(frame["variant"]) == set(VARIANTS)
    assert not frame.duplicated(["dataset", "variant", "instance_id"]).any()
    assert run_records(page, "titles") == (None, None)


def test_records_from_a_run_folder(tmp_path):
    """results/ as the page folder: the run's records under results/runs/ (gathered, or shards only)."""
    page = toy_page(tmp_path / "page")
    import tarfile

    with tarfile.open(page / "records" / "chains" / "records.tar.xz") as tar:
        tar.extractall(tmp_path / "run", filter="data")
    frame, source = run_records(tmp_path / "run" / "results", "chains")
    assert source.endswith("runs/chains")
    assert len(frame) == sum(DATASETS.values()) * len(VARIANTS)
    assert not frame.duplicated(["dataset", "variant", "instance_id"]).any()


def test_build_writes_tables_csvs_records_and_data(tmp_path):
    page = toy_page(tmp_path / "page")
    index = build(page)
    out = page / "explorer"
    assert index == out / "index.html"
    text = index.read_text()
    assert text.count('class="table-block"') == 6
    assert 'id="table-1-exactness-and-speed"' in text and 'href="#table-1-exactness-and-speed"' in text
    assert 'src="../figures/chains/speed.png"' in text
    assert "need a page published with its records" in text  # titles has none
    assert text.index("Scoreboard") < text.index("Prepared corpora") < text.index("Table 1: exactness")
    for name in ("plotly.min.js", "explorer.js", "explorer.css"):
        assert (out / "assets" / name).stat().st_size > 1000
    csvs = sorted((out / "tables").glob("*.csv"))
    assert len(csvs) == 6
    with csvs[3].open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:2] == ["dataset", "variant"] and rows[2][:2] == ["wsj", "cg"] and len(rows) == 7
    data_line, figures_line = (out / "data.js").read_text().splitlines()
    data = json.loads(data_line.removeprefix("window.EXPLORER_DATA = ").rstrip(";"))
    figures = json.loads(figures_line.removeprefix("window.EXPLORER_FIGURES = ").rstrip(";"))
    assert (
        list(figures) == ["figures/chains/speed.png"]
        and len(figures["figures/chains/speed.png"]["data"]) == 3
    )
    assert text.count('class="figure-block"') == 1 and 'data-chart="figures/chains/speed.png"' in text
    chains = data["chains"]
    assert chains["variants"] == sorted(VARIANTS) and chains["quality"] == "token accuracy"
    assert len(chains["id"]) == len(chains["seconds"]) == 210
    assert all(0 < q <= 1 for q in chains["qualityValues"])
    assert (out / "records" / "chains.parquet").is_file()
    assert "../records/chains/records.tar.xz" in text


def test_shared_assets_and_rebuild_replaces(tmp_path):
    page = toy_page(tmp_path / "page")
    index = build(page, tmp_path / "site", assets=tmp_path / "shared")
    assert (tmp_path / "shared" / "plotly.min.js").is_file()
    assert not (tmp_path / "site" / "assets").exists()
    assert 'src="../shared/plotly.min.js"' in index.read_text()
    (tmp_path / "site" / "stale.txt").write_text("x")
    build(page, tmp_path / "site", assets=tmp_path / "shared")
    assert not (tmp_path / "site" / "stale.txt").exists()


def test_bad_input_named(tmp_path, capsys):
    with pytest.raises(ConfigError, match="no results page"):
        build(tmp_path)
    (tmp_path / "RESULTS.md").write_text("# Results\n\nno tables\n")
    with pytest.raises(ConfigError, match="no Markdown table"):
        build(tmp_path)
    assert main([str(tmp_path)]) == 2
    assert "no Markdown table" in capsys.readouterr().err
    figures = tmp_path / "figures" / "chains"
    figures.mkdir(parents=True)
    assert figure_charts(tmp_path) == {}  # a spec needs its PNG beside it
    (figures / "speed.plotly.json").write_text("{not json")
    assert figure_charts(tmp_path) == {}
    (figures / "speed.png").write_bytes(b"\x89PNG")
    with pytest.raises(ConfigError, match=r"speed\.plotly\.json: not a chart spec"):
        figure_charts(tmp_path)
    (figures / "speed.plotly.json").write_text('{"data": {}}')
    with pytest.raises(ConfigError, match="no list under 'data'"):
        figure_charts(tmp_path)
    (figures / "speed.plotly.json").write_text('{"data": [], "layout": {}, "unconverted": ["Circle"]}')
    assert figure_charts(tmp_path) == {
        "figures/chains/speed.png": {"data": [], "layout": {}, "unconverted": ["Circle"]}
    }
    html_text = prose(["![speed](figures/chains/speed.png)"], {}, figure_charts(tmp_path))
    assert 'data-chart="figures/chains/speed.png"' in html_text and "Not in the chart: Circle" in html_text
    assert prose(["![speed](figures/chains/speed.png)"], {}) == (
        '<figure><img src="figures/chains/speed.png" alt="speed" loading="lazy"></figure>'
    )
    bad = tmp_path / "records" / "chains"
    bad.mkdir(parents=True)
    (bad / "records.tar.xz").write_bytes(b"not xz")
    with pytest.raises(ConfigError, match="records.tar.xz: cannot read"):
        run_records(tmp_path, "chains")


def test_single_file_needs_nothing_beside_it(tmp_path):
    page = toy_page(tmp_path / "page")
    single = tmp_path / "report" / "explorer.html"
    single.parent.mkdir()
    build(page, tmp_path / "site", single=single)
    text = single.read_text()
    assert "<script src=" not in text and "<link rel=" not in text
    assert text.count('href="data:text/csv;base64,') == 6
    assert 'src="data:image/png;base64,' in text
    assert "window.EXPLORER_DATA" in text and "Plotly" in text
