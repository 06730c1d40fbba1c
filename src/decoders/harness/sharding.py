"""Splitting instances into shards (one decoding job each) and gathering the shards' records back.

Shards are deterministic functions of the instance order (and sizes), so a shard job rerun on another machine
decodes exactly the same instances.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from decoders.checks import check_int, check_path, check_sequence
from decoders.harness.records import KEY_COLUMNS, RecordError, read_records, validate_records

T = TypeVar("T")


def _check_n_shards(n_shards: int) -> None:
    if isinstance(n_shards, bool) or not isinstance(n_shards, int) or n_shards < 1:
        raise ValueError(f"n_shards must be a positive integer; got {n_shards!r}")


def shard_of(index: int, n_shards: int) -> int:
    """The shard of the ``index``-th instance under round-robin dealing."""
    _check_n_shards(n_shards)
    return check_int(index, "index", minimum=0) % n_shards


def split_into_shards(
    items: Sequence[T], n_shards: int, size: Callable[[T], float] | None = None
) -> list[list[T]]:
    """Split ``items`` into exactly ``n_shards`` lists (some empty if there are fewer items than shards).

    Without ``size`` items are dealt round-robin (:func:`shard_of`). With ``size`` the shards are balanced by
    total size: items in order of decreasing size (ties: earlier first) go to the currently lightest shard
    (ties: lowest shard number), so long instances are spread over the shards. Each shard keeps the items in
    their original order.
    """
    _check_n_shards(n_shards)
    items = check_sequence(items, "items")
    if size is not None and not callable(size):
        raise ValueError(f"size must be None or a function of an item; got {type(size).__name__}")
    if size is None:
        assignment = [shard_of(index, n_shards) for index in range(len(items))]
    else:
        sizes = [_size(size(item), index) for index, item in enumerate(items)]
        order = sorted(range(len(items)), key=lambda index: (-sizes[index], index))
        loads = [(0.0, shard) for shard in range(n_shards)]
        assignment = [0] * len(items)
        for index in order:
            load, shard = heapq.heappop(loads)
            assignment[index] = shard
            heapq.heappush(loads, (load + sizes[index], shard))
    shards: list[list[T]] = [[] for _ in range(n_shards)]
    for item, shard in zip(items, assignment, strict=True):
        shards[shard].append(item)
    return shards


def _size(value: Any, index: int) -> float:
    """An item's size as a finite float >= 0 (a NaN would sort anywhere and unbalance the shards silently)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"size(items[{index}]) must be a number; got {value!r}")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"size(items[{index}]) must be finite and >= 0; got {value!r}")
    return float(value)


def _natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that compares digit runs as numbers ("s-9" before "s-10")."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def gather_shards(
    shards: Iterable[pd.DataFrame | str | Path], expected_ids: Sequence[str] | None = None
) -> pd.DataFrame:
    """Concatenate shard record frames (or parquet paths) into one validated frame.

    Fails, naming the ids, when an instance appears twice for the same (experiment, dataset, variant) or, with
    ``expected_ids``, when an expected instance is missing or an unexpected one is present. Rows come back
    grouped by (experiment, dataset, variant) in order of first appearance and, within a group, in the order
    of ``expected_ids`` (without it: natural order of the instance ids).
    """
    frames = [
        item if isinstance(item, pd.DataFrame) else read_records(check_path(item, f"shards[{number}]"))
        for number, item in enumerate(check_sequence(shards, "shards"))
    ]
    if not frames:
        raise RecordError("no shards to gather")
    for frame in frames:
        validate_records(frame)
    non_empty = [frame for frame in frames if len(frame)]
    combined = pd.concat(non_empty or frames[:1], ignore_index=True)
    duplicated = combined.duplicated(list(KEY_COLUMNS), keep=False)
    if duplicated.any():
        ids = combined.loc[duplicated, "instance_id"].unique().tolist()
        raise RecordError(f"instance(s) present in more than one shard: {_listing(ids)}")
    groups = ["experiment", "dataset", "variant"]
    if expected_ids is not None:
        expected = check_sequence(expected_ids, "expected_ids")
        if len(set(expected)) != len(expected):
            raise ValueError("expected_ids contains duplicates")
        position = {instance_id: rank for rank, instance_id in enumerate(expected)}
        unexpected = combined.loc[~combined["instance_id"].isin(position), "instance_id"].unique().tolist()
        if unexpected:
            raise RecordError(f"shards hold instance(s) not expected: {_listing(unexpected)}")
        for key, group in combined.groupby(groups, sort=False):
            present = set(group["instance_id"])
            missing = [instance_id for instance_id in expected if instance_id not in present]
            if missing:
                raise RecordError(
                    f"instance(s) missing from the shards of {'/'.join(key)}: {_listing(missing)}"
                )
        if combined.empty and expected:
            raise RecordError(f"instance(s) missing from the shards: {_listing(expected)}")
        rank = combined["instance_id"].map(position)
    else:
        ordered = sorted(combined["instance_id"].unique(), key=_natural_key)
        rank = combined["instance_id"].map({instance_id: i for i, instance_id in enumerate(ordered)})
    group_rank = combined.groupby(groups, sort=False).ngroup()
    order = pd.DataFrame({"group": group_rank, "rank": rank}).sort_values(["group", "rank"], kind="stable")
    return combined.loc[order.index].reset_index(drop=True)


def _listing(ids: list[Any], limit: int = 20) -> str:
    shown = ", ".join(map(str, ids[:limit]))
    return shown if len(ids) <= limit else f"{shown} (and {len(ids) - limit} more)"
