"""Write one table three ways: CSV (for tools), Markdown (for the results page), LaTeX (for papers); save a
figure without leaving a half-written file."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from decoders.checks import checked
from decoders.io import atomic_path, write_text_atomic
from decoders.tables.captions import Caption
from decoders.tables.charts import write_figure_spec
from decoders.tier import QUICK_NOTE, is_quick

TABLE_SUFFIXES = (".csv", ".md", ".tex")


#: Significant digits a page shows of a measured number: timings vary by a few percent between runs, and
#: accuracies over a few thousand words are known to about a tenth of a point, so more digits would be noise.
SHOWN_DIGITS = 4


def shown_number(value: float) -> str:
    """``value`` as a page shows it: :data:`SHOWN_DIGITS` significant digits in fixed notation (never an
    exponent), trailing zeros dropped, whole numbers without a point; empty for a missing value. Anything but a
    real number or None (a string, a bool, an array) is a ValueError naming ``value``."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise ValueError(f"value must be a real number or None; got {value!r}")
    value = None if value is None else float(value)
    if value is None or not math.isfinite(value):
        return "" if value is None or math.isnan(value) else str(value)
    if value == 0 or value.is_integer():
        return f"{value:.0f}"
    decimals = min(max(SHOWN_DIGITS - 1 - math.floor(math.log10(abs(value))), 0), 12)
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _alignment(frame: pd.DataFrame) -> list[str]:
    """Numbers to the right, the rest to the left (the numbers are shown as text, so tabulate cannot tell)."""
    return ["right" if frame[c].dtype.kind in "fiu" else "left" for c in frame.columns]


@checked(frame="frame", stem="path", title="text", caption=Caption, notes="texts")
def write_table(
    frame: pd.DataFrame,
    stem: str | Path,
    *,
    title: str,
    caption: Caption | None = None,
    notes: Sequence[str] = (),
) -> list[Path]:
    """Write ``<stem>.csv``, ``<stem>.md`` and ``<stem>.tex``; return their paths.

    Missing values print as empty cells. The Markdown and LaTeX versions carry the title, the caption's prose
    (:mod:`decoders.tables.captions`, the text the report shows too), one line per column it declares, and the
    run's own ``notes`` (what this run's numbers say, where the paper's come from). A column the caption declares
    that a table with rows lacks is an error: the caption has drifted from the table. A quick-tier run's table
    says so in its title and first note (:mod:`decoders.tier`).
    """
    stem = Path(stem)
    if is_quick():
        title, notes = f"{title} [quick tier]", [QUICK_NOTE, *notes]
    if caption is not None:
        missing = [name for name in caption.columns if name not in frame.columns]
        if missing and not frame.empty:  # an empty table is one not measured in this run
            raise ValueError(f"{stem.name}: its caption declares columns the table lacks: {missing}")
        notes = [*caption.column_notes(frame.columns), *notes]
    paths = [stem.with_suffix(s) for s in TABLE_SUFFIXES]
    write_text_atomic(paths[0], frame.to_csv(index=False))  # the CSV keeps every digit
    shown = frame.astype(object).where(frame.notna(), "")
    for column in frame.columns:
        if frame[column].dtype.kind == "f":
            shown[column] = [shown_number(value) for value in frame[column]]
    md = [f"### {title}", ""]
    if caption is not None:
        md += [caption.markdown(), ""]
    md += [shown.to_markdown(index=False, disable_numparse=True, colalign=_alignment(frame)), ""]
    md += [f"- {note}" for note in notes]
    write_text_atomic(paths[1], "\n".join(md).rstrip() + "\n")
    latex = shown.to_latex(index=False, caption=title, label=f"tab:{stem.name}", escape=True, longtable=False)
    comments = ([caption.markdown()] if caption is not None else []) + list(notes)
    if comments:
        latex += "% " + "\n% ".join(comments) + "\n"
    write_text_atomic(paths[2], latex)
    return paths


@checked(path="path", dpi="positive")
def save_figure(fig, path: str | Path, dpi: int = 120) -> None:
    """Lay out a ``matplotlib.figure.Figure`` and write it atomically, in the format of ``path``'s suffix, with its
    interactive spec beside it first (:func:`decoders.tables.charts.write_figure_spec`: the explorer's chart)."""
    if not (hasattr(fig, "tight_layout") and hasattr(fig, "savefig")):
        raise ValueError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    fig.tight_layout()
    write_figure_spec(fig, path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=Path(path).suffix.lstrip("."))


@checked(frame="frame", digits="int")
def rounded(frame: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """A copy with every float column rounded to ``digits`` (missing values stay missing)."""
    out = frame.copy()
    for column in out.select_dtypes("float").columns:
        out[column] = out[column].round(digits)
    return out
