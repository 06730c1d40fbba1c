"""The sixth experiment's table: how often each variant picks the best item."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from decoders.harness.records import read_records
from decoders.tables.captions import caption
from decoders.tables.writers import write_table

PAGE = {"heading": "sixth: the best item of a scored set", "figures": []}


def write_sixth_tables(runs: Iterable[str], out: str | Path) -> None:
    records = pd.concat([read_records(path) for path in runs], ignore_index=True)
    table = records.groupby("variant", as_index=False).agg(
        instances=("instance_id", "size"), correct_pct=("correct", "mean")
    )
    table["correct_pct"] *= 100.0
    write_table(table, Path(out).with_suffix(""), title="sixth: Table 1", caption=caption("sixth", "table1"))
