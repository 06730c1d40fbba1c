"""Captions of every table and figure, declared once: ``<experiment>.yaml`` in this folder (``shared.yaml`` for
the corpora, cost and resource tables and the report's front page).

An entry is ``<output>: {caption: <prose>, columns: {<column>: <what it holds>}}`` (``columns`` for tables
only). The results page prints the prose and one line per column under the table
(:func:`decoders.tables.writers.write_table`, which refuses a declared column the table lacks), and the Snakemake
report shows the same text (:meth:`Caption.rst`, written for each ``report()`` output by the workflow). The text
is reStructuredText as the report reads it: literals in double backquotes, which the page prints as Markdown
code.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from decoders.errors import ConfigError

FOLDER = Path(__file__).parent


@dataclass(frozen=True)
class Caption:
    """One output's caption: ``text`` (what the table or figure shows) and, for a table, ``columns``."""

    text: str
    columns: dict[str, str] = field(default_factory=dict)

    def markdown(self) -> str:
        """The prose as the results page prints it."""
        return _markdown(self.text)

    def column_notes(self, present: Iterable[str] | None = None) -> list[str]:
        """One Markdown line per declared column (of those ``present``, when given): ``name: what it holds``."""
        shown = set(self.columns if present is None else present)
        return [f"{name}: {_markdown(text)}" for name, text in self.columns.items() if name in shown]

    def rst(self) -> str:
        """The report's caption: the prose, then the columns as a list."""
        lines = [self.text.strip()]
        if self.columns:
            lines.append("")
            lines += [f"- ``{name}``: {' '.join(text.split())}" for name, text in self.columns.items()]
        return "\n".join(lines) + "\n"


def _markdown(text: str) -> str:
    return " ".join(text.replace("``", "`").split())


@functools.cache
def _load(experiment: str) -> dict[str, Caption]:
    path = FOLDER / f"{experiment}.yaml"
    if not path.is_file():
        raise ConfigError(f"{path}: no captions for experiment {experiment!r} (one file per experiment)")
    with path.open(encoding="utf-8") as handle:
        entries = yaml.safe_load(handle) or {}
    captions = {}
    for key, entry in entries.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("caption"), str):
            raise ConfigError(f"{path}: {key}: needs `caption: <text>`")
        unknown = set(entry) - {"caption", "columns"}
        if unknown:
            raise ConfigError(f"{path}: {key}: unknown keys {sorted(unknown)} (caption, columns)")
        columns = entry.get("columns") or {}
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in columns.items()):
            raise ConfigError(f"{path}: {key}.columns: maps column names to text")
        captions[key] = Caption(entry["caption"], dict(columns))
    return captions


def captions(experiment: str) -> dict[str, Caption]:
    """Every caption ``<experiment>.yaml`` declares, by output name."""
    return dict(_load(experiment))


def caption(experiment: str, key: str) -> Caption:
    """The caption of output ``key`` of ``experiment``; ConfigError naming the file when it has none."""
    found = _load(experiment)
    if key not in found:
        raise ConfigError(f"{FOLDER / f'{experiment}.yaml'}: no caption for {key!r}")
    return found[key]
