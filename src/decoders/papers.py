"""The numbers the five papers report, looked up by dotted key (``bnb.setup.dp_calls_no_prune_english``).

Each experiment's package holds its paper's numbers in ``paper_numbers.yaml`` (the corpora package: the sizes of
corpora the papers cite), transcribed once; this module merges them. A file's top-level keys are its own (its
experiment, ``papers`` naming its paper, ``supplement`` for numbers the shared transcription lacks); two files
claiming the same key are an error. Every layer may read it: it imports nothing of the project's.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml

FILE = "paper_numbers.yaml"
#: Top-level keys every file may add to (keyed by experiment inside).
SHARED_KEYS = ("papers", "supplement")


@cache
def paper_numbers() -> dict[str, Any]:
    """Every package's paper numbers, merged (see the module's docstring)."""
    merged: dict[str, Any] = {key: {} for key in SHARED_KEYS}
    owner: dict[str, str] = {}
    for package in sorted(resources.files("decoders").iterdir(), key=lambda path: path.name):
        source = package / FILE
        if not package.is_dir() or not source.is_file():
            continue
        where = f"decoders/{package.name}/{FILE}"
        numbers = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
        if not isinstance(numbers, dict):
            raise ValueError(f"{where}: expected a mapping at the top level")
        for key, value in numbers.items():
            if key in SHARED_KEYS:
                clash = set(value) & set(merged[key])
                if clash:
                    raise ValueError(f"{where}: {key}.{sorted(clash)[0]} is given by another package too")
                merged[key].update(value)
            elif key in owner:
                raise ValueError(f"{where}: {key!r} is given by decoders/{owner[key]}/{FILE} too")
            else:
                owner[key] = package.name
                merged[key] = value
    return merged


def paper_name(experiment: str) -> str:
    """The paper an experiment reproduces, as the tables cite it (``Qian and Liu 2013``)."""
    return paper_numbers()["papers"][experiment]


def _lookup(node: Any, key: str) -> Any:
    for i, part in enumerate(key.split(".")):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"the paper numbers have no {'.'.join(key.split('.')[: i + 1])!r}")
        node = node[part]
    return node


def paper_value(key: str) -> Any:
    """The value at a dotted key such as ``chains.setup.test_sentences``, in the shared transcription's part of
    the paper numbers or else its ``supplement``; KeyError names the missing part."""
    try:
        return _lookup(paper_numbers(), key)
    except KeyError:
        try:
            return _lookup(paper_numbers()["supplement"], key)
        except KeyError:
            pass
        raise


def paper_rows(experiment: str, table: str) -> list[dict[str, Any]]:
    """The rows of one of a paper's tables (e.g. ``chains``, ``table1_pos``) as dicts."""
    rows = paper_value(f"{experiment}.{table}")
    if not isinstance(rows, list):
        raise KeyError(f"the paper numbers: {experiment}.{table} is not a table (list of rows)")
    return rows
