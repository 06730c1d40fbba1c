"""Write one table three ways: CSV (for tools), Markdown (for the results page), LaTeX (for papers); save a
figure without leaving a half-written file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from decoders.io import atomic_path, write_text_atomic

TABLE_SUFFIXES = (".csv", ".md", ".tex")


def write_table(frame: pd.DataFrame, stem: str | Path, *, title: str, notes: list[str] = ()) -> list[Path]:
    """Write ``<stem>.csv``, ``<stem>.md`` and ``<stem>.tex``; return their paths.

    Missing values print as empty cells; the Markdown and LaTeX versions carry the title and the notes (what
    the table's numbers are, where the paper's come from) under the table.
    """
    stem = Path(stem)
    paths = [stem.with_suffix(s) for s in TABLE_SUFFIXES]
    write_text_atomic(paths[0], frame.to_csv(index=False))
    shown = frame.astype(object).where(frame.notna(), "")
    # "g" keeps six significant digits; a float column reaching 1e6 (e.g. sentences per second) would print in
    # exponent form, so it is shown without decimals instead
    formats = [
        ".0f" if frame[c].dtype.kind == "f" and frame[c].abs().max() >= 1e6 else "g" for c in frame.columns
    ]
    md = [f"### {title}", "", shown.to_markdown(index=False, floatfmt=formats), ""]
    md += [f"- {note}" for note in notes]
    write_text_atomic(paths[1], "\n".join(md).rstrip() + "\n")
    latex = shown.to_latex(index=False, caption=title, label=f"tab:{stem.name}", escape=True, longtable=False)
    if notes:
        latex += "% " + "\n% ".join(notes) + "\n"
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
