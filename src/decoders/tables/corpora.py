"""The corpora table: one row per prepared dataset and split, beside the sizes the papers report."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from decoders.papers import paper_name, paper_value

# Count columns, in table order; a dataset fills those that apply to it.
COUNT_COLUMNS = [
    "documents",
    "sentences",
    "tokens",
    "tags",
    "joint_labels",
    "units",
    "mean_title_words",
    "mean_body_words",
    "nodes",
    "edges",
    "mentions",
    "mapped_mentions",
]

# What each paper reports about the corpus our dataset stands in for: (dataset, split) -> [(label, key)].
PAPER_SIZES: dict[tuple[str, str], list[tuple[str, str]]] = {
    ("wsj", "test"): [
        ("test sentences", "chains.setup.test_sentences"),
        ("POS labels", "chains.setup.pos_labels"),
        ("test sentences (PTB sec. 23)", "bnb.text.dp_calls_no_prune_english.sentences"),
    ],
    ("ewt", "test"): [
        ("test sentences", "chains.setup.test_sentences"),
        ("POS labels", "chains.setup.pos_labels"),
    ],
    ("ewt-ner", "test"): [("POS x NER labels", "chains.setup.pos_ner_labels")],
    ("gsd", "test"): [("CTB5 test sentences", "bnb.text.dp_calls_no_prune_chinese.sentences")],
    ("ddt", "train"): [("train sentences", "cited_corpora.conllx_danish.train_sentences")],
    ("ddt", "test"): [("test sentences", "cited_corpora.conllx_danish.test_sentences")],
    ("textbooks", "all"): [
        ("sections", "titles.corpus.sections"),
        ("mean section words", "titles.corpus.mean_section_words"),
        ("mean title words", "titles.corpus.mean_title_words"),
    ],
    ("textbooks", "train"): [("sections", "titles.corpus.train_sections")],
    ("textbooks", "test"): [("sections", "titles.corpus.test_sections")],
    ("wikispeedia", "graph"): [
        ("vertices", "linking.setup.graph_vertices"),
        ("edges", "linking.setup.graph_edges"),
    ],
    ("elevant", "all"): [
        ("instances", "linking.setup.instances"),
        ("mean mentions per instance", "linking.setup.mean_entities"),
    ],
}


def paper_sizes(dataset: str, split: str) -> str:
    """Human-readable sizes of the papers' corpora for this row, each with the paper it comes from."""
    parts = []
    for label, key in PAPER_SIZES.get((dataset, split), []):
        value = paper_value(key)
        shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
        parts.append(f"{label} {shown} ({paper_name(key.split('.')[0])})")
    return "; ".join(parts)


def load_stats(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    stats = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            stats.append(json.load(handle))
    return stats


def corpora_table(stats: list[dict[str, Any]], experiments: dict[str, Any]) -> pd.DataFrame:
    """One row per (dataset, split) from the prepare steps' stats.json contents."""
    used_by: dict[str, list[str]] = {}
    for experiment, spec in experiments.items():
        for dataset in spec.get("datasets", []):
            used_by.setdefault(dataset, []).append(experiment)
    rows = []
    for entry in stats:
        dataset = entry["dataset"]
        for split, counts in entry["splits"].items():
            unknown = set(counts) - set(COUNT_COLUMNS)
            if unknown:
                raise ValueError(f"stats of {dataset}/{split}: unknown count columns {sorted(unknown)}")
            rows.append(
                {
                    "dataset": dataset,
                    "split": split,
                    "used_by": ", ".join(used_by.get(dataset, [])),
                    **counts,
                    "paper": paper_sizes(dataset, split),
                }
            )
    columns = (
        ["dataset", "split", "used_by"] + [c for c in COUNT_COLUMNS if any(c in r for r in rows)] + ["paper"]
    )
    frame = pd.DataFrame(rows, columns=columns)  # no rows: a run whose experiments read no corpus
    for column in COUNT_COLUMNS:
        if column in frame and column not in ("mean_title_words", "mean_body_words"):
            frame[column] = frame[column].astype("Int64")
    return frame


#: What the count columns hold that their names do not say; each is a column only when some dataset has it, so
#: its line is a note of the run rather than a column of the caption (decoders/tables/captions/shared.yaml).
COUNT_NOTES = {
    "tags": "distinct fine-grained tags in the split",
    "joint_labels": "size of the POS x NER label domain (tags x NER labels)",
    "units": "textbook sections",
    "mean_title_words": "mean words per section title",
    "mean_body_words": "mean words per section body",
    "nodes": "graph nodes",
    "edges": "graph edges",
    "mentions": "entity mentions",
    "mapped_mentions": "entity mentions mapped to a Wikispeedia article",
}


def corpora_notes(stats: list[dict[str, Any]]) -> list[str]:
    """One line per count column the table has (:data:`COUNT_NOTES`), then each dataset's own notes."""
    present = {column for entry in stats for counts in entry["splits"].values() for column in counts}
    notes = [f"{column}: {text}." for column, text in COUNT_NOTES.items() if column in present]
    for entry in stats:
        notes += [f"{entry['dataset']}: {note}" for note in entry.get("notes", [])]
    return notes
