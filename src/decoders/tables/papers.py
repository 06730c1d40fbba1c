"""The numbers the five papers report (paper_numbers.yaml, transcribed once), looked up by dotted key."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml

PAPERS = {
    "titles": "Deshpande et al. 2007",
    "chains": "Belanger et al. 2012",
    "bnb": "Qian and Liu 2013",
    "ppc": "Riedel et al. 2012",
    "linking": "Blanco et al. 2014",
    "cited_corpora": "cited corpus",
}


@cache
def paper_numbers() -> dict[str, Any]:
    text = resources.files("decoders.tables").joinpath("paper_numbers.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _lookup(node: Any, key: str) -> Any:
    for i, part in enumerate(key.split(".")):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"paper_numbers.yaml has no {'.'.join(key.split('.')[: i + 1])!r}")
        node = node[part]
    return node


def paper_value(key: str) -> Any:
    """The value at a dotted key such as ``chains.setup.test_sentences``, in the shared transcription's part of
    paper_numbers.yaml or else its ``supplement``; KeyError names the missing part."""
    try:
        return _lookup(paper_numbers(), key)
    except KeyError:
        try:
            return _lookup(paper_numbers().get("supplement", {}), key)
        except KeyError:
            pass
        raise


def paper_rows(experiment: str, table: str) -> list[dict[str, Any]]:
    """The rows of one of a paper's tables (e.g. ``chains``, ``table1_pos``) as dicts."""
    rows = paper_value(f"{experiment}.{table}")
    if not isinstance(rows, list):
        raise KeyError(f"paper_numbers.yaml: {experiment}.{table} is not a table (list of rows)")
    return rows
