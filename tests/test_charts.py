"""The interactive spec read off a matplotlib figure (decoders.tables.charts): every kind of artist the workflow's
figures draw lands where the PNG shows it, with its label, colour and axis settings; other artists are named."""

from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402

from decoders.tables.charts import figure_spec, spec_path, write_figure_spec  # noqa: E402
from decoders.tables.writers import save_figure  # noqa: E402


def by_name(spec, name):
    return [trace for trace in spec["data"] if trace.get("name") == name]


def test_lines_markers_and_an_axes_spanning_line_on_a_log_axis():
    fig, ax = plt.subplots()
    ax.plot([10, 100, 1000], [1.0, 2.0, 4.0], "o--", color="red", label="cg")
    ax.plot([10, 1000], [3.0, 3.0], color="blue", label="cg")  # the same label again: one legend entry
    ax.scatter([20, 200], [0.5, 5.0], s=25, color="green", label="points")
    ax.axhline(1.0, color="grey", linestyle=":")
    ax.step([10, 50], [0.2, 0.4], where="post", label="steps")
    ax.plot(["a", "b"], [0.1, 0.1], label="categories")  # category data: numbers 0, 1 in the chart
    ax.set_xscale("log")
    ax.set_xlim(5, 2000)
    ax.set_xlabel("length")
    ax.set_ylabel("speed-up")
    ax.set_title("speed")
    spec = figure_spec(fig)
    plt.close(fig)
    first, second = by_name(spec, "cg")
    assert first["x"] == [10, 100, 1000] and first["y"] == [1.0, 2.0, 4.0]
    assert first["mode"] == "lines+markers" and first["line"]["dash"] == "dash"
    assert first["line"]["color"] == "rgba(255,0,0,1)" and first["marker"]["symbol"] == "circle"
    assert first["showlegend"] and not second["showlegend"] and "shape" not in first["line"]
    assert by_name(spec, "steps")[0]["line"]["shape"] == "hv" and by_name(spec, "steps")[0]["x"] == [10, 50]
    assert by_name(spec, "categories")[0]["x"] == [0, 1]
    (points,) = by_name(spec, "points")
    assert points["mode"] == "markers" and points["x"] == [20, 200] and points["marker"]["size"] == 5.0
    # axhline: drawn in axes coordinates across the x range, here in data coordinates at the limits
    (line,) = [t for t in spec["data"] if "name" not in t]
    assert line["x"] == pytest.approx([5, 2000]) and line["y"] == pytest.approx([1.0, 1.0])
    assert line["line"]["dash"] == "dot"
    xaxis, yaxis = spec["layout"]["xaxis"], spec["layout"]["yaxis"]
    assert xaxis["type"] == "log" and xaxis["range"] == pytest.approx([math.log10(5), math.log10(2000)])
    assert xaxis["title"]["text"] == "length" and yaxis["title"]["text"] == "speed-up"
    assert yaxis["type"] == "linear" and "tickvals" not in xaxis
    assert any(note["text"] == "speed" for note in spec["layout"]["annotations"])
    assert spec["unconverted"] == []


def test_bars_categories_errorbars_areas_texts_and_subplots():
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
    left.barh(["wsj", "ewt"], [2.0, 3.0], left=[1.0, 0.5], label="oracle", color="orange")
    left.bar([0.5], [0.0], width=0.1)  # a second container, unlabelled
    right.errorbar([1, 2, 3], [1.0, 2.0, 1.5], yerr=[0.1, 0.2, 0.3], label="mean", color="black")
    right.fill_between([1, 2, 3], [0.5, 1.5, 1.0], [1.5, 2.5, 2.0], alpha=0.2, label="band")
    right.text(2, 2.2, "peak")
    right.set_yscale("log")
    fig.suptitle("two panels")
    fig.tight_layout()
    spec = figure_spec(fig)
    plt.close(fig)
    (bars,) = by_name(spec, "oracle")
    assert bars["type"] == "bar" and bars["orientation"] == "h"
    assert bars["base"] == [1.0, 0.5] and bars["x"] == [2.0, 3.0] and bars["y"] == [0.0, 1.0]
    assert bars["width"] == pytest.approx([0.8, 0.8])
    assert spec["layout"]["yaxis"]["ticktext"] == ["wsj", "ewt"] and spec["layout"]["yaxis"]["tickvals"] == [
        0,
        1,
    ]
    (mean,) = by_name(spec, "mean")
    assert mean["y"] == [1.0, 2.0, 1.5] and mean["xaxis"] == "x2" and mean["yaxis"] == "y2"
    # the error bars: one segment per point, separated by gaps
    bars2 = [t for t in spec["data"] if t.get("hoverinfo") == "skip" and "fill" not in t]
    assert (
        len(bars2) == 1
        and bars2[0]["y"][:3] == pytest.approx([0.9, 1.1, None])
        and bars2[0]["x"][:2] == [1, 1]
    )
    (band,) = by_name(spec, "band")
    assert (
        band["fill"] == "toself"
        and band["opacity"] == 0.2
        and min(v for v in band["y"] if v is not None) == 0.5
    )
    peak = [note for note in spec["layout"]["annotations"] if note["text"] == "peak"]
    assert peak and peak[0]["xref"] == "x2" and peak[0]["y"] == pytest.approx(math.log10(2.2), abs=0.05)
    assert spec["layout"]["title"]["text"] == "two panels" and spec["layout"]["yaxis2"]["type"] == "log"
    # the panels side by side, filling the paper between them
    x1, x2 = spec["layout"]["xaxis"]["domain"], spec["layout"]["xaxis2"]["domain"]
    assert x1[0] == 0 and x2[1] == 1 and x1[1] < x2[0]
    assert spec["layout"]["yaxis"]["domain"] == [0, 1] == spec["layout"]["yaxis2"]["domain"]


def test_non_finite_values_are_gaps_and_other_artists_are_named(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [1.0, np.nan, np.inf], label="gappy")
    ax.add_patch(Circle((0.5, 0.5), 0.1))
    ax.imshow(np.arange(6.0).reshape(2, 3), extent=(0, 3, 0, 2), origin="lower")
    path = write_figure_spec(fig, tmp_path / "f.png")
    plt.close(fig)
    assert path == tmp_path / "f.plotly.json" == spec_path(tmp_path / "f.png")
    spec = json.loads(path.read_text())  # strict JSON: no NaN or Infinity
    assert by_name(spec, "gappy")[0]["y"] == [1.0, None, None]
    (heatmap,) = [t for t in spec["data"] if t["type"] == "heatmap"]
    assert heatmap["z"] == [[0, 1, 2], [3, 4, 5]] and heatmap["x0"] == 0.5 and heatmap["dx"] == 1.0
    assert heatmap["y0"] == 0.5 and heatmap["dy"] == 1.0
    assert spec["unconverted"] == ["Circle"]


def test_an_empty_figure_and_bad_arguments():
    fig = plt.figure()
    assert figure_spec(fig)["data"] == []
    plt.close(fig)
    with pytest.raises(ValueError, match="matplotlib Figure"):
        figure_spec("figure.png")
    with pytest.raises(ValueError, match="matplotlib Figure"):
        write_figure_spec(None, "x.png")


def test_save_figure_writes_the_spec_beside_the_png(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="y = x")
    save_figure(fig, tmp_path / "sub" / "line.png")
    plt.close(fig)
    assert (tmp_path / "sub" / "line.png").read_bytes()[:4] == b"\x89PNG"
    spec = json.loads((tmp_path / "sub" / "line.plotly.json").read_text())
    assert by_name(spec, "y = x")[0]["x"] == [0, 1]
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["line.plotly.json", "line.png"]
