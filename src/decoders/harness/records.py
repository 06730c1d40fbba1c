"""Result records: one row per (experiment, dataset, decoder variant, instance), stored as parquet.

The columns are :data:`RECORD_COLUMNS` followed by the task's numeric evaluation columns (e.g. ``correct,
total``). ``params``, ``structure`` and ``stats`` are canonical JSON strings (sorted keys) so that records from
every experiment share one schema. Whether a run found the optimum (``exact``) is decided at aggregation by
:func:`mark_exact`, never by the decoder.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import check_float, check_int, check_mapping, check_path, check_sequence, check_text
from decoders.errors import CorpusFormatError, DecodersError
from decoders.harness.protocol import STATUSES, Solution
from decoders.io import read_parquet, write_parquet_atomic

RECORD_COLUMNS: tuple[str, ...] = (
    "experiment",
    "dataset",
    "variant",
    "params",
    "instance_id",
    "size",
    "seconds",
    "status",
    "objective",
    "bound",
    "structure",
    "stats",
)
TEXT_COLUMNS = ("experiment", "dataset", "variant", "params", "instance_id", "status", "structure", "stats")
FLOAT_COLUMNS = ("seconds", "objective", "bound")
KEY_COLUMNS = ("experiment", "dataset", "variant", "instance_id")
EXACT_RTOL = 1e-9
CLOCK_STATS = frozenset(
    {
        "call_seconds",
        "clock_hz",
        "harness_cold_start",
        "jit_retimed_seconds",
        "jit_seconds",
        "loop_repeats",
        "max_plus_seconds",
        "reference_loop_repeats",
        "reference_seconds",
        "register_cells_per_second",
        "timing_repeats",
        "unpaired_seconds",
        "verify_seconds",
    }
)
"""The ``stats`` keys the runner writes that depend on the clock (times; how many timed calls fitted in a limit;
whether a call compiled, which depends on numba's cache; a worker restarted cold after a timeout): two runs of
the same variant on the same instances agree on every other field of a record but ``seconds``. Comparisons of
runs (a cluster run against a local one) leave these out."""


class RecordError(DecodersError, ValueError):
    """A result record frame or file lacks a column, has a wrong dtype or holds an invalid value."""


def to_json(value: Any) -> str:
    """Canonical compact JSON (sorted keys); numpy arrays and scalars become lists and numbers."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_json_value)


def _json_value(value: Any) -> Any:
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, tuple | set | frozenset):
        return sorted(value) if isinstance(value, set | frozenset) else list(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store a {type(value).__name__} as JSON")


def make_record(
    *,
    experiment: str,
    dataset: str,
    variant: str,
    params: Mapping[str, Any],
    instance_id: str,
    size: int,
    seconds: float,
    solution: Solution,
    evaluation: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One result row as a dict in column order: the record columns, then the evaluation columns. ``params`` and
    ``evaluation`` mappings, ``size`` an integer >= 0, ``seconds`` a finite number >= 0, ``solution`` a
    :class:`~decoders.harness.protocol.Solution` (each a ValueError naming it)."""
    params = check_mapping(params, "params")
    if evaluation is not None:
        check_mapping(evaluation, "evaluation")
    size = check_int(size, "size", minimum=0)
    seconds = check_float(seconds, "seconds", minimum=0)
    if not isinstance(solution, Solution):
        raise ValueError(f"solution must be a Solution; got {type(solution).__name__}")
    record: dict[str, Any] = {
        "experiment": str(experiment),
        "dataset": str(dataset),
        "variant": str(variant),
        "params": to_json(dict(params)),
        "instance_id": str(instance_id),
        "size": int(size),
        "seconds": float(seconds),
        "status": solution.status,
        "objective": float(solution.objective),
        "bound": math.nan if solution.bound is None else float(solution.bound),
        "structure": to_json(solution.structure),
        "stats": to_json(solution.stats),
    }
    for key, value in (evaluation or {}).items():
        if key in record:
            raise RecordError(f"evaluation column {key!r} clashes with a record column")
        if isinstance(value, bool | np.bool_):
            value = int(value)
        if not isinstance(value, numbers.Real):
            raise RecordError(
                f"evaluation column {key!r} of instance {instance_id!r} must be a number; "
                f"got {type(value).__name__}"
            )
        record[str(key)] = value
    return record


def records_frame(records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A validated record frame from rows made by :func:`make_record` (an empty frame keeps the schema)."""
    rows = check_sequence(records, "records")
    for number, row in enumerate(rows):
        check_mapping(row, f"records[{number}]")
    extra: dict[str, None] = {}
    for row in rows:
        extra.update(dict.fromkeys(key for key in row if key not in RECORD_COLUMNS))
    columns = [*RECORD_COLUMNS, *extra]
    frame = pd.DataFrame.from_records(rows, columns=columns)
    frame = frame.astype({name: "str" for name in TEXT_COLUMNS} | {"size": "int64"})
    frame = frame.astype(dict.fromkeys(FLOAT_COLUMNS, "float64"))
    if not rows:
        frame = frame.astype(dict.fromkeys(extra, "float64"))
    validate_records(frame)
    return frame


def validate_records(frame: pd.DataFrame, *, source: str | Path | None = None) -> None:
    """Check columns, dtypes, statuses and uniqueness of a record frame; RecordError names what is wrong."""
    where = f"{source}: " if source is not None else ""
    if not isinstance(frame, pd.DataFrame):
        raise RecordError(
            f"{where}frame must be a pandas DataFrame of result records; got {type(frame).__name__}"
        )
    missing = [name for name in RECORD_COLUMNS if name not in frame.columns]
    if missing:
        raise RecordError(f"{where}result records lack the column(s) {', '.join(missing)}")
    for name in TEXT_COLUMNS:
        column = frame[name]
        if not pd.api.types.is_string_dtype(column.dtype) or column.isna().any():
            raise RecordError(f"{where}column {name!r} must hold strings without missing values")
    if not pd.api.types.is_integer_dtype(frame["size"].dtype):
        raise RecordError(f"{where}column 'size' must be integer; got {frame['size'].dtype}")
    for name in (*FLOAT_COLUMNS, *(c for c in frame.columns if c not in RECORD_COLUMNS)):
        dtype = frame[name].dtype
        if not pd.api.types.is_numeric_dtype(dtype):
            raise RecordError(f"{where}column {name!r} must be numeric; got {dtype}")
    bad_status = ~frame["status"].isin(STATUSES)
    if bad_status.any():
        values = sorted(set(frame.loc[bad_status, "status"]))
        raise RecordError(
            f"{where}column 'status' holds {', '.join(map(repr, values))}; allowed: {', '.join(STATUSES)}"
        )
    seconds = frame["seconds"]
    if seconds.isna().any() or (seconds < 0).any():
        raise RecordError(f"{where}column 'seconds' must be non-negative and not NaN")
    # A certified optimum has a value; a feasible structure may come without one (a peer tagger whose own
    # model score is not comparable with ours, e.g. CRFsuite).
    optimal = frame["status"] == "optimal"
    if frame.loc[optimal, "objective"].isna().any():
        ids = frame.loc[optimal & frame["objective"].isna(), "instance_id"].tolist()
        raise RecordError(f"{where}column 'objective' is NaN for optimal instance(s) {_some(ids)}")
    duplicated = frame.duplicated(list(KEY_COLUMNS), keep=False)
    if duplicated.any():
        ids = frame.loc[duplicated, "instance_id"].unique().tolist()
        raise RecordError(f"{where}instance(s) recorded twice for the same variant: {_some(ids)}")


def write_records(path: str | Path, frame: pd.DataFrame) -> None:
    """Validate ``frame`` and write it atomically as parquet, record columns first."""
    path = check_path(path)
    validate_records(frame)
    extra = [name for name in frame.columns if name not in RECORD_COLUMNS]
    write_parquet_atomic(path, frame[[*RECORD_COLUMNS, *extra]].reset_index(drop=True))


def read_records(path: str | Path) -> pd.DataFrame:
    """Read and validate a record file written by :func:`write_records`."""
    path = check_path(path)
    try:
        frame = read_parquet(path)
    except (OSError, CorpusFormatError) as exc:
        raise RecordError(f"{path}: cannot read result records: {exc}") from exc
    validate_records(frame, source=path)
    return frame


def without_clock(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without what depends on the clock: the ``seconds`` column and the :data:`CLOCK_STATS` keys of
    ``stats``. Two runs of a variant on the same instances give equal frames."""

    def drop_clock(text: str) -> str:
        return to_json({key: value for key, value in json.loads(text).items() if key not in CLOCK_STATS})

    if not isinstance(frame, pd.DataFrame) or not {"seconds", "stats"} <= set(frame.columns):
        raise RecordError(
            f"frame must be a record frame (with seconds and stats); got {type(frame).__name__}"
        )
    return frame.drop(columns=["seconds"]).assign(stats=frame["stats"].map(drop_clock))


def mark_exact(frame: pd.DataFrame, reference_variant: str, *, rtol: float = EXACT_RTOL) -> pd.DataFrame:
    """Add a nullable boolean column ``exact`` comparing each row with the certified optimum.

    The reference is the ``reference_variant`` row of the same (experiment, dataset, instance_id) with status
    ``optimal``. A row is exact when ``|objective - reference| <= rtol * max(|reference|, 1)`` (relative, with an
    absolute floor so that optima at zero compare sensibly); rows without an objective are not exact; ``exact``
    is missing (NA) where no certified reference exists.
    """
    validate_records(frame)
    check_text(reference_variant, "reference_variant")
    rtol = check_float(rtol, "rtol", minimum=0)
    if not (frame["variant"] == reference_variant).any():
        variants = ", ".join(sorted(frame["variant"].unique()))
        raise RecordError(
            f"reference variant {reference_variant!r} not in the records (variants: {variants})"
        )
    keys = ["experiment", "dataset", "instance_id"]
    certified = (frame["variant"] == reference_variant) & (frame["status"] == "optimal")
    reference = frame.loc[certified, [*keys, "objective"]].rename(columns={"objective": "_reference"})
    joined = frame[keys].merge(reference, on=keys, how="left", validate="many_to_one")
    ref = joined["_reference"].to_numpy(dtype=float)
    objective = frame["objective"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        close = np.abs(objective - ref) <= rtol * np.maximum(np.abs(ref), 1.0)
    result = frame.copy()
    result["exact"] = pd.arrays.BooleanArray(close, np.isnan(ref))
    return result


def _some(ids: list[Any], limit: int = 10) -> str:
    shown = ", ".join(map(str, ids[:limit]))
    return shown if len(ids) <= limit else f"{shown} (and {len(ids) - limit} more)"
