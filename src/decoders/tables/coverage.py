"""What a table row's numbers cover and how its times were taken, from the records' ``status`` and ``stats``.

A variant's speed or accuracy is only comparable with another's when both were measured on every instance the
variant was given and with the same clock. Every experiment's tables therefore show, per variant row:

- its ``errors`` and ``timeouts`` (records of status ``error`` / ``timeout``; one compact ``errors/timeouts``
  column where a table is too wide),
- ``partial``: :data:`PARTIAL` where some of its instances ended in an error or a timeout, so that its times
  and accuracies are not those of a complete run (the captions say how each table counts those instances),
- ``timing``: how its decode times were taken: :data:`LOOP` (the decoder's compiled timing loop, the records
  carry ``stats.loop_repeats``), :data:`CALL` (single calls from Python) or :data:`MIXED`; a speed ratio
  against a reference timed in another mode says so (:func:`ratio_timing`).
"""

from __future__ import annotations

import json

import pandas as pd

#: Statuses of an instance the decoder finished (a structure it stands by, certified or not).
FINISHED = ("optimal", "feasible")

#: The mark of a row whose numbers cover fewer instances than the variant was given.
PARTIAL = "*"

LOOP = "loop"
CALL = "call"
MIXED = "loop+call"

#: The compact column of a wide table: ``<errors>/<timeouts>``.
FAILED = "errors/timeouts"


def failures(group: pd.DataFrame) -> dict[str, int]:
    """``errors`` and ``timeouts``: the records of ``group`` with status ``error`` and ``timeout``."""
    status = group["status"]
    return {"errors": int((status == "error").sum()), "timeouts": int((status == "timeout").sum())}


def failures_text(group: pd.DataFrame) -> str:
    """``"<errors>/<timeouts>"`` of ``group`` (:data:`FAILED`), for a table too wide for two columns."""
    counts = failures(group)
    return f"{counts['errors']}/{counts['timeouts']}"


def finished(group: pd.DataFrame) -> pd.DataFrame:
    """The records of ``group`` whose instance the decoder finished (status in :data:`FINISHED`)."""
    return group[group["status"].isin(FINISHED)]


def partial(group: pd.DataFrame) -> str:
    """:data:`PARTIAL` when some record of ``group`` is an error or a timeout, else ``""``."""
    return PARTIAL if len(finished(group)) < len(group) else ""


def timing_mode(group: pd.DataFrame) -> str:
    """How the decode times of ``group`` were taken: :data:`LOOP` when every finished record (every record,
    when none finished) carries ``stats.loop_repeats``, :data:`CALL` when none does, :data:`MIXED` otherwise.
    Failed records are left out: the runner times only a finished decode by a loop."""
    timed = finished(group)
    if timed.empty:
        timed = group
    looped = {_looped(stats) for stats in timed["stats"]}
    if looped == {True}:
        return LOOP
    return MIXED if looped == {True, False} else CALL


def _looped(stats: object) -> bool:
    return isinstance(stats, str) and bool(stats) and "loop_repeats" in json.loads(stats)


def ratio_timing(mode: str, *reference_modes: str) -> str:
    """The ``timing`` of a row whose speed ratios set its time against references' (timed in
    ``reference_modes``; an empty one: no reference): ``mode`` when all were timed alike, else
    ``"<mode> (ratio vs <other modes>)"``: a ratio that mixes two clocks."""
    others = sorted({other for other in reference_modes if other and other != mode})
    return f"{mode} (ratio vs {', '.join(others)})" if others else mode


def coverage(group: pd.DataFrame, *, compact: bool = False, timed: bool = True) -> dict[str, object]:
    """The coverage columns of one variant's row: ``errors`` and ``timeouts`` (or ``errors/timeouts`` when
    ``compact``), ``partial`` and, when the row reports times (``timed``), ``timing``."""
    counts = {FAILED: failures_text(group)} if compact else failures(group)
    out: dict[str, object] = {**counts, "partial": partial(group)}
    if timed:
        out["timing"] = timing_mode(group)
    return out
