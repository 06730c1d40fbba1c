"""Input checks shared by the public functions of every experiment: each takes an argument as given, returns it in
the form the compiled kernels read (no copy when it already is), or raises ValueError naming the argument and, where
there is one, the offending index and value.

The kernels (numba) index arrays without bounds checks, so a wrong shape or an id out of range reads outside an
array (a garbage score or a crash) and a NaN or ``+inf`` score makes every comparison false (a structure never
chosen, or an infinite objective). Every check here is vectorised numpy over the argument, done once per public
call, outside the kernels' loops.
"""

from __future__ import annotations

import functools
import os
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd


def first_index(bad: np.ndarray) -> str:
    """The first True index of ``bad`` as ``[i, j, ...]``."""
    return "[" + ", ".join(str(int(i)) for i in np.argwhere(bad)[0]) + "]"


def check_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """``value`` as a Python int (a bool is not one), at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_float(value: Any, name: str, *, minimum: float | None = None, positive: bool = False) -> float:
    """``value`` as a finite float (at least ``minimum``; above 0 with ``positive``)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def float_array(array: Any, name: str) -> np.ndarray:
    array = np.asarray(array)
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)
    ):
        raise ValueError(f"{name} must hold real numbers, got dtype {array.dtype}")
    return np.asarray(array, dtype=np.float64)


def check_finite(array: np.ndarray, name: str, *, forbid: bool = False) -> np.ndarray:
    """``array`` has no NaN and no ``+inf`` (and no ``-inf`` unless ``forbid``: then ``-inf`` means forbidden)."""
    bad = np.isnan(array) | (array == np.inf) if forbid else ~np.isfinite(array)
    if bad.any():
        where = first_index(bad)
        allowed = "finite, or -inf to forbid" if forbid else "finite"
        raise ValueError(f"{name}{where} is {array[tuple(np.argwhere(bad)[0])]}; allowed: {allowed}")
    return array


def check_ids(array: Any, name: str, *, ndim: int | None = None) -> np.ndarray:
    """``array`` as int64 (an integer dtype; no float ids)."""
    array = np.asarray(array)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array, got dtype {array.dtype}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    return np.asarray(array, dtype=np.int64)


def check_range(array: np.ndarray, name: str, lo: int, hi: int, *, offset: int = 0) -> np.ndarray:
    """Every entry of ``array`` in ``lo..hi`` (``offset`` is added to the first index reported)."""
    bad = (array < lo) | (array > hi)
    if bad.any():
        index = np.argwhere(bad)[0]
        index[0] += offset
        where = "[" + ", ".join(str(int(i)) for i in index) + "]"
        value = array[tuple(np.argwhere(bad)[0])]
        raise ValueError(f"{name}{where} is {int(value)}, outside {lo}..{hi}")
    return array


def check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string; got {type(value).__name__}")
    return value


def check_texts(values: Any, name: str) -> list[str]:
    """A sequence of strings (a string itself is not one: it would be read letter by letter) as a list."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray | pd.Series):
        raise ValueError(f"{name} must be a sequence of strings; got {type(values).__name__}")
    values = list(values)
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise ValueError(f"{name}[{i}] must be a string; got {value!r}")
    return values


def check_sequence(values: Any, name: str) -> list:
    """Any iterable but a string, bytes or a mapping (which would be read letter by letter or key by key) as a
    list; anything else (a number, None) is a ValueError naming the argument."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a sequence; got {type(values).__name__}")
    return list(values)


def check_pair(value: Any, name: str, what: str = "(tokens, heads)") -> tuple:
    """``value`` as a tuple of two (a list or tuple of length 2), else a ValueError naming it."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ValueError(f"{name} must be a {what} pair; got {type(value).__name__}")
    return tuple(value)


def check_deadline(value: Any, name: str = "deadline") -> float | None:
    """A decoder's deadline: None (no deadline), or an absolute :func:`time.perf_counter` value; ``+inf`` is
    None, ``-inf`` (or any time past) has already passed; NaN and anything not a number are a ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be None or a time.perf_counter() value; got {value!r}")
    value = float(value)
    if np.isnan(value):
        raise ValueError(f"{name} is NaN; a deadline is a time.perf_counter() value (or None)")
    return None if value == np.inf else value


def check_path(value: Any, name: str = "path") -> str:
    """A file path (a str or an :class:`os.PathLike` giving one) as a str; anything else (an array, None, a
    number, bytes) is a ValueError naming the argument, never the cache's or ``open``'s TypeError."""
    path = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(path, str):
        raise ValueError(f"{name} must be a path (str or os.PathLike), got {reprlib.repr(value)}")
    return path


_Loaded = TypeVar("_Loaded")


def cached_by_path(
    maxsize: int, name: str = "path"
) -> Callable[[Callable[[str], _Loaded]], Callable[[Any], _Loaded]]:
    """``functools.lru_cache(maxsize)`` of a loader of one path argument, keyed by the path as
    :func:`check_path` gives it (so a wrong argument is a ValueError naming ``name``, not ``unhashable type``,
    and ``Path(p)`` and ``p`` share an entry); ``cache_clear`` and ``cache_info`` as the cache's."""

    def decorate(load: Callable[[str], _Loaded]) -> Callable[[Any], _Loaded]:
        cached = functools.lru_cache(maxsize=maxsize)(load)

        @functools.wraps(load)
        def checked(path: Any) -> _Loaded:
            return cached(check_path(path, name))

        checked.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        checked.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return checked

    return decorate
