"""Captions are declared once (decoders/tables/captions/*.yaml): every report() caption of the workflow is one of
them and every one of them is used; the results page prints the same text under its table, with one line per
declared column, and a declared column the table lacks is an error."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from decoders.errors import ConfigError
from decoders.tables import captions as captions_module
from decoders.tables.captions import Caption, caption, captions
from decoders.tables.writers import write_table

ROOT = Path(__file__).resolve().parents[1]
CALL = re.compile(r'report_caption\("([\w-]+)", "([\w-]+)"\)')


def _workflow_calls() -> set[tuple[str, str]]:
    files = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
    return {match.groups() for path in files for match in CALL.finditer(path.read_text(encoding="utf-8"))}


def test_every_report_caption_is_declared_and_every_declared_caption_is_used():
    calls = _workflow_calls()
    assert ("shared", "workflow") in calls and ("bnb", "table2") in calls
    for experiment, key in sorted(calls):
        assert caption(experiment, key).text.strip(), (experiment, key)
    declared = {
        (path.stem, key)
        for path in sorted(captions_module.FOLDER.glob("*.yaml"))
        for key in captions(path.stem)
    }
    assert declared - calls == set(), "captions no report() output uses"


def test_write_table_prints_the_caption_and_its_columns(tmp_path):
    text = Caption("What the table shows, with ``literals``.", {"b": "the b column", "a": "the a column"})
    frame = pd.DataFrame({"a": [1.5], "b": ["x"]})
    csv, md, tex = write_table(frame, tmp_path / "t", title="T", caption=text, notes=["a note of this run"])
    lines = md.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["### T", "", "What the table shows, with `literals`."]
    assert lines[-3:] == ["- b: the b column", "- a: the a column", "- a note of this run"]
    assert "% What the table shows" in tex.read_text(encoding="utf-8")
    assert (
        text.rst()
        == "What the table shows, with ``literals``.\n\n- ``b``: the b column\n- ``a``: the a column\n"
    )
    with pytest.raises(ValueError, match=r"t: its caption declares columns the table lacks: \['c'\]"):
        write_table(frame, tmp_path / "t", title="T", caption=Caption("x", {"c": "gone"}))
    # an empty table (not measured in this run) is written, with the notes of the columns it has
    empty = pd.DataFrame({"a": []})
    md = write_table(empty, tmp_path / "e", title="E", caption=text)[1].read_text(encoding="utf-8")
    assert "- a: the a column" in md and "- b:" not in md


def test_a_malformed_or_missing_caption_is_an_error_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(captions_module, "FOLDER", tmp_path)
    captions_module._load.cache_clear()
    try:
        (tmp_path / "exp.yaml").write_text("t1: {caption: text, colums: {}}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match=r"exp\.yaml: t1: unknown keys \['colums'\]"):
            caption("exp", "t1")
        captions_module._load.cache_clear()
        (tmp_path / "exp.yaml").write_text("t1: {columns: {a: b}}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match=r"exp\.yaml: t1: needs `caption: <text>`"):
            caption("exp", "t1")
        captions_module._load.cache_clear()
        (tmp_path / "exp.yaml").write_text("t1: {caption: text}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match=r"exp\.yaml: no caption for 't2'"):
            caption("exp", "t2")
        with pytest.raises(ConfigError, match=r"other\.yaml: no captions for experiment 'other'"):
            caption("other", "t1")
    finally:
        captions_module._load.cache_clear()
