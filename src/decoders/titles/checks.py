"""Input checks of the titles package's public functions, built on the shared checks of :mod:`decoders.checks`.

:class:`~decoders.titles.instance.TitleInstance` checks its fields once, at construction; the functions that take
an instance check only that it is one (:func:`~decoders.titles.instance.check_instance`), and those that take a
path check it against the instance (:func:`check_path`): O(k), outside every compiled loop. Each error is a ValueError naming the argument.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from decoders.checks import check_ids, check_range

if TYPE_CHECKING:
    from decoders.titles.instance import TitleInstance


def check_path(instance: TitleInstance, path: Any, name: str = "path") -> np.ndarray:
    """``path`` as int64: a 1-d integer array of ``instance.k`` distinct word ids in ``0..n-1``. Whether it is a
    title (classes pairwise distinct, no edge of weight ``-inf``) is :func:`~decoders.titles.instance.path_problem`'s
    to say: a path that repeats a class still has a score and words."""
    path = np.asarray(path)
    if path.size == 0 and path.dtype.kind == "f":  # [] is float64 to numpy: an empty list of ids
        path = path.astype(np.int64)
    path = check_ids(path, name, ndim=1)
    if path.shape[0] != instance.k:
        raise ValueError(f"{name} must hold k = {instance.k} word ids; got {path.shape[0]}")
    check_range(path, name, 0, instance.n - 1)
    _, first, counts = np.unique(path, return_index=True, return_counts=True)
    if (counts > 1).any():
        repeated = int(path[first[counts > 1][0]])
        where = np.flatnonzero(path == repeated).tolist()
        raise ValueError(f"{name} repeats word {repeated} (positions {where})")
    return path


def check_real(value: Any, name: str) -> float:
    """A real number (``-inf`` and ``+inf`` allowed, not NaN) as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number; got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} is NaN")
    return value


def check_frame(value: Any, name: str, columns: Sequence[str]) -> pd.DataFrame:
    """A DataFrame with ``columns`` (the text ones checked by whoever reads them)."""
    if not isinstance(value, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame; got {type(value).__name__}")
    missing = [column for column in columns if column not in value.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {', '.join(missing)}")
    return value


def check_mapping(value: Any, name: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a mapping; got {type(value).__name__}")
    return value
