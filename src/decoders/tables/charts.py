"""Interactive versions of the workflow's matplotlib figures: a plotly.js figure spec (``{"data", "layout"}``, plain
JSON, no plotly import) read off a drawn ``matplotlib.figure.Figure``, so the explorer can show every figure as a
chart a reader can zoom, hover and toggle, from the same numbers as the PNG beside it.

:func:`figure_spec` converts what the workflow's figures draw: lines (``plot``, ``axhline``, ``errorbar``'s line),
steps (``step``), markers (``scatter``), line segments (``errorbar``'s bars), filled areas (``fill_between``), rectangles (``bar``,
``barh``), images (``imshow``), texts and annotations; titles, axis labels, log scales, limits and category tick
labels. Every position goes through the artist's own transform to display coordinates and back through the axes'
data transform, so an ``axhline`` (drawn in axes coordinates across the x range) lands where the PNG shows it.
Artists of other kinds are listed in the spec's ``unconverted`` (the explorer says so beside the chart; the PNG
stays the reference). :func:`write_figure_spec` writes the spec atomically beside the PNG as
``<stem>.plotly.json`` (:data:`SUFFIX`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from decoders.io import write_text_atomic

#: the spec's file name beside the figure: ``figure2.png`` -> ``figure2.plotly.json``
SUFFIX = ".plotly.json"
#: pixels per inch of the figure's size, for the chart's height
PIXELS_PER_INCH = 100


def spec_path(path: str | Path) -> Path:
    """Where the spec of the figure at ``path`` goes."""
    path = Path(path)
    return path.with_name(path.stem + SUFFIX)


def _number(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _numbers(values: Any) -> list[float | None]:
    return [_number(v) for v in np.asarray(values, dtype=float).ravel()]


def _colour(rgba: Any) -> str | None:
    from matplotlib.colors import to_rgba

    try:
        r, g, b, a = to_rgba(rgba)
    except (TypeError, ValueError):
        return None
    return f"rgba({round(r * 255)},{round(g * 255)},{round(b * 255)},{a:.3g})"


def _first_colour(colours: Any) -> str | None:
    colours = np.asarray(colours)
    if colours.size == 0:
        return None
    return _colour(colours.reshape(-1, 4)[0]) if colours.ndim == 2 else _colour(colours)


def _to_data(ax, transform, points: np.ndarray) -> np.ndarray:
    """``points`` (n x 2) in ``transform``'s coordinates as data coordinates of ``ax``."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(points) == 0 or transform == ax.transData:
        return points
    with np.errstate(all="ignore"):
        return ax.transData.inverted().transform(transform.transform(points))


class _Legend:
    """Legend entries: a trace is named by its artist's label (or its container's: an errorbar's line has the
    container's label), and the legend shows each label once."""

    def __init__(self) -> None:
        self.shown: set[str] = set()
        self.labels: dict[int, str] = {}

    def label(self, artist) -> str | None:
        label = self.labels.get(id(artist)) or artist.get_label()
        return None if not label or str(label).startswith("_") else str(label)

    def name(self, trace: dict, artist) -> dict:
        label = self.label(artist)
        trace["showlegend"] = label is not None and label not in self.shown
        if label is not None:
            trace["name"] = label
            trace["legendgroup"] = label
            self.shown.add(label)
        return trace


_DASHES = {"--": "dash", ":": "dot", "-.": "dashdot"}
#: matplotlib's step draw styles (``step(where=...)``) as plotly line shapes
_STEPS = {"steps-post": "hv", "steps-pre": "vh", "steps": "vh", "steps-mid": "hvh"}
_SYMBOLS = {"o": "circle", "s": "square", "^": "triangle-up", "v": "triangle-down", "D": "diamond", "x": "x",
            "+": "cross", "*": "star", ".": "circle", "d": "diamond-tall"}  # fmt: skip


def _line(ax, line, axes: dict, legend: _Legend) -> dict | None:
    xy = _to_data(ax, line.get_transform(), np.asarray(line.get_xydata(), dtype=float))
    if len(xy) == 0:
        return None
    style, marker = line.get_linestyle(), line.get_marker()
    drawn = style not in ("None", "none", "", " ")
    marked = marker not in (None, "None", "none", "", " ")
    if not drawn and not marked:
        return None
    colour = _colour(line.get_color())
    trace = {
        "type": "scatter",
        "mode": "+".join(m for m, on in (("lines", drawn), ("markers", marked)) if on),
        "x": _numbers(xy[:, 0]),
        "y": _numbers(xy[:, 1]),
        **axes,
    }
    if drawn:
        trace["line"] = {"color": colour, "width": line.get_linewidth(), "dash": _DASHES.get(style, "solid")}
        shape = _STEPS.get(line.get_drawstyle())
        if shape:
            trace["line"]["shape"] = shape
    if marked:
        trace["marker"] = {
            "color": _colour(line.get_markerfacecolor()) or colour,
            "size": max(float(line.get_markersize()), 2.0),
            "symbol": _SYMBOLS.get(str(marker), "circle"),
        }
    if line.get_alpha() is not None:
        trace["opacity"] = float(line.get_alpha())
    return legend.name(trace, line)


def _markers(ax, collection, axes: dict, legend: _Legend) -> dict | None:
    xy = _to_data(ax, collection.get_offset_transform(), collection.get_offsets())
    if len(xy) == 0:
        return None
    faces = np.asarray(collection.get_facecolors())
    sizes = np.asarray(collection.get_sizes(), dtype=float)
    marker: dict[str, Any] = {"size": float(max(math.sqrt(sizes[0]), 2.0)) if sizes.size else 6.0}
    if faces.ndim == 2 and len(faces) == len(xy) and len(faces) > 1:
        marker["color"] = [_colour(face) for face in faces]
    else:
        marker["color"] = _first_colour(faces) or _first_colour(collection.get_edgecolors())
    trace = {"type": "scatter", "mode": "markers", "x": _numbers(xy[:, 0]), "y": _numbers(xy[:, 1]), "marker": marker,
             **axes}  # fmt: skip
    if collection.get_alpha() is not None:
        trace["opacity"] = float(collection.get_alpha())
    return legend.name(trace, collection)


def _segments(ax, collection, axes: dict, legend: _Legend) -> dict | None:
    x: list[float | None] = []
    y: list[float | None] = []
    for segment in collection.get_segments():
        xy = _to_data(ax, collection.get_transform(), segment)
        x += [*_numbers(xy[:, 0]), None]
        y += [*_numbers(xy[:, 1]), None]
    if not x:
        return None
    widths = collection.get_linewidths()
    trace = {
        "type": "scatter",
        "mode": "lines",
        "x": x,
        "y": y,
        "line": {
            "color": _first_colour(collection.get_colors()),
            "width": float(widths[0]) if len(widths) else 1.0,
        },
        "hoverinfo": "skip",
        **axes,
    }
    return legend.name(trace, collection)


def _areas(ax, collection, axes: dict, legend: _Legend) -> dict | None:
    x: list[float | None] = []
    y: list[float | None] = []
    for path in collection.get_paths():
        xy = _to_data(ax, collection.get_transform(), path.vertices)
        x += [*_numbers(xy[:, 0]), None]
        y += [*_numbers(xy[:, 1]), None]
    if not x:
        return None
    colour = _first_colour(collection.get_facecolors())
    trace = {
        "type": "scatter",
        "mode": "lines",
        "fill": "toself",
        "fillcolor": colour,
        "line": {"width": 0, "color": colour},
        "x": x,
        "y": y,
        "hoverinfo": "skip",
        **axes,
    }
    if collection.get_alpha() is not None:
        trace["opacity"] = float(collection.get_alpha())
    return legend.name(trace, collection)


def _bars(ax, container, axes: dict, legend: _Legend) -> dict | None:
    """A ``BarContainer`` (``bar`` / ``barh``) as one plotly bar trace with the rectangles' own bases and widths."""
    patches = [p for p in container.patches if p.get_visible()]
    if not patches:
        return None
    horizontal = getattr(container, "orientation", "vertical") == "horizontal"
    corners = np.array([[p.get_x(), p.get_y()] for p in patches], dtype=float)
    sizes = np.array([[p.get_width(), p.get_height()] for p in patches], dtype=float)
    start = _to_data(ax, patches[0].get_data_transform(), corners)
    end = _to_data(ax, patches[0].get_data_transform(), corners + sizes)
    along, across = (1, 0) if horizontal else (0, 1)
    trace = {
        "type": "bar",
        "orientation": "h" if horizontal else "v",
        "base": _numbers(start[:, across]),
        "width": _numbers(end[:, along] - start[:, along]),
        ("y" if horizontal else "x"): _numbers((start[:, along] + end[:, along]) / 2),
        ("x" if horizontal else "y"): _numbers(end[:, across] - start[:, across]),
        "marker": {"color": [_colour(p.get_facecolor()) for p in patches]},
        **axes,
    }
    return legend.name(trace, container)


def _image(ax, image, axes: dict) -> dict | None:
    values = np.asarray(image.get_array(), dtype=float)
    if values.ndim != 2 or values.size == 0:
        return None
    left, right, bottom, top = image.get_extent()
    rows, columns = values.shape
    dx, dy = (right - left) / columns, (top - bottom) / rows  # signed: an inverted axis keeps its order
    upper = image.origin == "upper"
    return {
        "type": "heatmap",
        "z": [_numbers(row) for row in (values[::-1] if upper else values)],
        "x0": left + dx / 2,
        "dx": dx,
        # rows from the one drawn at ``bottom`` (an upper-origin image's last row) to the one at ``top``
        "y0": bottom + dy / 2,
        "dy": dy,
        "colorscale": "Viridis",
        "showscale": False,
        **axes,
    }


def _axis_coordinate(value: float, log: bool) -> float | None:
    """A data coordinate as plotly places an annotation on its axis (log axes in log10)."""
    if log:
        return math.log10(value) if value > 0 and math.isfinite(value) else None
    return _number(value)


def _tick_labels(axis) -> dict[str, Any]:
    """Tick values and labels when matplotlib's labels are words (categories), not numbers plotly would print."""
    texts = [tick.get_text() for tick in axis.get_ticklabels()]
    locations = list(axis.get_ticklocs())
    if not texts or len(texts) != len(locations) or not any(texts):
        return {}

    def numeric(text: str) -> bool:
        try:
            float(
                text.replace("\u2212", "-")
                .replace("$", "")
                .replace("{", "")
                .replace("}", "")
                .replace(",", "")
            )
        except ValueError:
            return not text.strip() or "^" in text or "%" in text
        return True

    if all(numeric(text) for text in texts):
        return {}
    return {"tickmode": "array", "tickvals": _numbers(locations), "ticktext": texts}


def _axis_layout(ax, which: str, domain: list[float], anchor: str) -> dict[str, Any]:
    axis = ax.xaxis if which == "x" else ax.yaxis
    scale = ax.get_xscale() if which == "x" else ax.get_yscale()
    low, high = ax.get_xlim() if which == "x" else ax.get_ylim()
    log = scale == "log"
    layout: dict[str, Any] = {
        "type": "log" if log else "linear",
        "domain": domain,
        "anchor": anchor,
        "title": {"text": axis.get_label().get_text()},
        "automargin": True,
        "showgrid": True,
        "zeroline": False,
    }
    ends = [_axis_coordinate(low, log), _axis_coordinate(high, log)]
    if None not in ends and ends[0] != ends[1]:
        layout["range"] = ends
    layout.update(_tick_labels(axis))
    return layout


def _domains(axes_list) -> list[tuple[list[float], list[float]]]:
    """Each axes' box in the figure, stretched so the axes together fill plotly's [0, 1] x [0, 1] paper."""
    if not axes_list:
        return []
    boxes = np.array([ax.get_position().bounds for ax in axes_list], dtype=float)  # x0, y0, width, height
    x0, y0 = boxes[:, 0].min(), boxes[:, 1].min()
    x1, y1 = (boxes[:, 0] + boxes[:, 2]).max(), (boxes[:, 1] + boxes[:, 3]).max()
    width, height = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    out = []
    for bx, by, bw, bh in boxes:
        xs = [round(float((bx - x0) / width), 4), round(float((bx + bw - x0) / width), 4)]
        ys = [round(float((by - y0) / height), 4), round(float((by + bh - y0) / height), 4)]
        out.append((xs, ys))
    return out


def figure_spec(fig) -> dict[str, Any]:
    """The plotly.js spec (``data``, ``layout``, ``unconverted``) of a matplotlib figure (module docstring). The
    figure is drawn first (its limits and tick labels are those of the PNG)."""
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.container import BarContainer, ErrorbarContainer
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text

    if not (hasattr(fig, "get_axes") and hasattr(fig, "draw_without_rendering")):
        raise ValueError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    fig.draw_without_rendering()  # limits, layout and tick labels as the PNG has them
    axes_list = [ax for ax in fig.get_axes() if ax.get_visible() and ax.get_label() != "<colorbar>"]
    data: list[dict[str, Any]] = []
    layout: dict[str, Any] = {
        "height": round(float(fig.get_figheight()) * PIXELS_PER_INCH * 1.2),
        "margin": {"t": 40, "r": 10, "b": 50, "l": 60},
        "hovermode": "closest",
        "annotations": [],
        "legend": {"orientation": "h", "y": -0.15},
    }
    unconverted: set[str] = set()
    legend = _Legend()
    titles = []
    for number, (ax, (xdomain, ydomain)) in enumerate(
        zip(axes_list, _domains(axes_list), strict=True), start=1
    ):
        suffix = "" if number == 1 else str(number)
        refs = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        layout[f"xaxis{suffix}"] = _axis_layout(ax, "x", xdomain, f"y{suffix}")
        layout[f"yaxis{suffix}"] = _axis_layout(ax, "y", ydomain, f"x{suffix}")
        title = ax.get_title() or ax.get_title(loc="left") or ax.get_title(loc="right")
        if title:
            titles.append(
                {
                    "text": title,
                    "xref": "paper",
                    "yref": "paper",
                    "x": sum(xdomain) / 2,
                    "y": ydomain[1],
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": 13},
                }
            )
        in_bars = {id(p) for c in ax.containers if isinstance(c, BarContainer) for p in c.patches}
        for container in ax.containers:
            if isinstance(container, BarContainer):
                trace = _bars(ax, container, refs, legend)
                if trace:
                    data.append(trace)
            elif isinstance(container, ErrorbarContainer):
                line = container.lines[0]
                if line is not None and container.get_label():
                    legend.labels[id(line)] = container.get_label()
            else:
                unconverted.add(type(container).__name__)
        for artist in ax.get_children():
            if not artist.get_visible():
                continue
            trace = None
            if isinstance(artist, Line2D):
                trace = _line(ax, artist, refs, legend)
            elif isinstance(artist, PathCollection):
                trace = _markers(ax, artist, refs, legend)
            elif isinstance(artist, LineCollection):
                trace = _segments(ax, artist, refs, legend)
            elif isinstance(artist, PolyCollection):
                trace = _areas(ax, artist, refs, legend)
            elif isinstance(artist, AxesImage):
                trace = _image(ax, artist, refs)
            elif isinstance(artist, Rectangle):
                if id(artist) not in in_bars and artist is not ax.patch:
                    unconverted.add("Rectangle")
            elif isinstance(artist, Text):
                text = artist.get_text()
                if not text or artist in (ax.title, ax._left_title, ax._right_title):
                    continue
                # where the PNG shows the text (an annotation's text, not the point it annotates)
                box = artist.get_window_extent()
                centre = np.array([[(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]])
                with np.errstate(all="ignore"):
                    xy = ax.transData.inverted().transform(centre)
                x = _axis_coordinate(xy[0, 0], ax.get_xscale() == "log")
                y = _axis_coordinate(xy[0, 1], ax.get_yscale() == "log")
                if x is not None and y is not None:
                    layout["annotations"].append(
                        {
                            "text": text,
                            "x": x,
                            "y": y,
                            "xref": refs["xaxis"],
                            "yref": refs["yaxis"],
                            "showarrow": False,
                            "font": {"size": 10},
                        }
                    )
            else:
                kind = type(artist).__name__
                if kind not in ("Spine", "XAxis", "YAxis", "Legend", "Polygon") and not kind.endswith("Tick"):
                    unconverted.add(kind)
            if trace:
                data.append(trace)
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    if suptitle:
        layout["title"] = {"text": suptitle}
        layout["margin"]["t"] = 70
    layout["annotations"] += titles
    return {"data": data, "layout": layout, "unconverted": sorted(unconverted)}


def write_figure_spec(fig, path: str | Path) -> Path:
    """Write :func:`figure_spec` of ``fig`` atomically as the spec beside the figure at ``path``; returns its path."""
    target = spec_path(path)
    write_text_atomic(target, json.dumps(figure_spec(fig), separators=(",", ":"), allow_nan=False) + "\n")
    return target
