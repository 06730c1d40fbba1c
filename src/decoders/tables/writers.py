"""Write one table three ways: CSV (for tools), Markdown (for the results page), LaTeX (for papers); save a
figure without leaving a half-written file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from decoders.io import atomic_path, write_text_atomic
from decoders.tables.captions import Caption

TABLE_SUFFIXES = (".csv", ".md", ".tex")


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
    that a table with rows lacks is an error: the caption has drifted from the table.
    """
    stem = Path(stem)
    if caption is not None:
        missing = [name for name in caption.columns if name not in frame.columns]
        if missing and not frame.empty:  # an empty table is one not measured in this run
            raise ValueError(f"{stem.name}: its caption declares columns the table lacks: {missing}")
        notes = [*caption.column_notes(frame.columns), *notes]
    paths = [stem.with_suffix(s) for s in TABLE_SUFFIXES]
    write_text_atomic(paths[0], frame.to_csv(index=False))
    shown = frame.astype(object).where(frame.notna(), "")
    # "g" keeps six significant digits; a float column reaching 1e6 (e.g. sentences per second) would print in
    # exponent form, so it is shown without decimals instead
    formats = [
        ".0f" if frame[c].dtype.kind == "f" and frame[c].abs().max() >= 1e6 else "g" for c in frame.columns
    ]
    md = [f"### {title}", ""]
    if caption is not None:
        md += [caption.markdown(), ""]
    md += [shown.to_markdown(index=False, floatfmt=formats), ""]
    md += [f"- {note}" for note in notes]
    write_text_atomic(paths[1], "\n".join(md).rstrip() + "\n")
    latex = shown.to_latex(index=False, caption=title, label=f"tab:{stem.name}", escape=True, longtable=False)
    comments = ([caption.markdown()] if caption is not None else []) + list(notes)
    if comments:
        latex += "% " + "\n% ".join(comments) + "\n"
    write_text_atomic(paths[2], latex)
    return paths


def save_figure(fig, path: str | Path, dpi: int = 120) -> None:
    """Lay out a ``matplotlib.figure.Figure`` and write it atomically, in the format of ``path``'s suffix."""
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=Path(path).suffix.lstrip("."))


def rounded(frame: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """A copy with every float column rounded to ``digits`` (missing values stay missing)."""
    out = frame.copy()
    for column in out.select_dtypes("float").columns:
        out[column] = out[column].round(digits)
    return out
