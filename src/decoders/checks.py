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
import inspect
import os
import reprlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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


def check_mapping(value: Any, name: str) -> Mapping:
    """``value`` as it is when it is a mapping (a dict, a config section), else a ValueError naming it (never
    ``'list' object has no attribute 'get'`` from deep inside)."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a mapping; got {type(value).__name__}")
    return value


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


def check_frame(value: Any, name: str) -> pd.DataFrame:
    """``value`` when it is a :class:`pandas.DataFrame`, else a ValueError naming it."""
    if not isinstance(value, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame; got {type(value).__name__}")
    return value


def check_frames(value: Any, name: str) -> Mapping:
    """A mapping of split names to DataFrames (``frames["train"]``...), else a ValueError naming the entry."""
    for key, frame in check_mapping(value, name).items():
        check_frame(frame, f"{name}[{key!r}]")
    return value


#: the splits of a parsing or tagging dataset (:data:`decoders.parsing.treebank.SPLITS`)
SPLIT_NAMES = ("train", "dev", "test")


def check_splits(value: Any, name: str) -> Mapping:
    """A mapping of the splits train, dev and test to DataFrames (what ``load_splits`` returns), else a
    ValueError naming the argument or the split that is missing or not a frame (never a KeyError)."""
    check_frames(value, name)
    missing = [split for split in SPLIT_NAMES if split not in value]
    if missing:
        raise ValueError(f"{name} lacks the split(s) {', '.join(missing)}; got {sorted(map(str, value))}")
    return value


def check_paths(value: Any, name: str) -> list[str]:
    """A sequence of paths (a single path is not one: it would be read letter by letter)."""
    return [check_path(path, f"{name}[{i}]") for i, path in enumerate(check_sequence(value, name))]


def check_path_mapping(value: Any, name: str) -> Mapping:
    """A mapping of names to paths (the ``splits`` of a Snakemake job: split name -> parquet file)."""
    for key, path in check_mapping(value, name).items():
        check_path(path, f"{name}[{key!r}]")
    return value


#: What :func:`checked` can check an argument as: each takes ``(value, name)`` and raises a ValueError naming it.
CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "path": check_path,
    "paths": check_paths,
    "path_mapping": check_path_mapping,
    "mapping": check_mapping,
    "frame": check_frame,
    "frames": check_frames,
    "splits": check_splits,
    "text": check_text,
    "texts": check_texts,
    "sequence": check_sequence,
    "int": check_int,
    "count": lambda value, name: check_int(value, name, minimum=0),
    "positive": lambda value, name: check_int(value, name, minimum=1),
    "number": check_float,
    "flag": lambda value, name: _check_flag(value, name),
}


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be true or false; got {value!r}")
    return bool(value)


_F = TypeVar("_F", bound=Callable[..., Any])

#: the kinds whose check iterates over the argument: a generator is made a list first, and that list passed on
_ITERATED = frozenset({"sequence", "paths", "texts", "sequence?", "paths?", "texts?"})


def checked(**kinds: str | type | tuple[type, ...]) -> Callable[[_F], _F]:
    """Decorator of a public function: before it runs, each argument named in ``kinds`` is checked as the kind
    given (a key of :data:`CHECKS`, ending in ``?`` when None is allowed too, or a class or tuple of classes the
    argument must be an instance of), a ValueError naming the argument; an argument left at its default (None,
    most often) is not checked. The arguments are passed on as given (a generator checked element by element is
    passed on as the list it gave), so a valid call behaves as before; the checks run once per call, in Python,
    never inside a compiled kernel."""

    def decorate(func: _F) -> _F:
        signature = inspect.signature(func)
        unknown = set(kinds) - set(signature.parameters)
        if unknown:
            raise TypeError(f"checked: {func.__qualname__} has no argument(s) {sorted(unknown)}")
        defaults = {name: p.default for name, p in signature.parameters.items()}

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            consumed = False
            for name, kind in kinds.items():
                if name not in bound.arguments or bound.arguments[name] is defaults[name]:
                    continue
                value = bound.arguments[name]
                if kind in _ITERATED and isinstance(value, Iterator):  # checking would consume a generator
                    value = bound.arguments[name] = list(value)
                    consumed = True
                if isinstance(kind, str) and kind.endswith("?"):  # "int?": None or an int
                    if value is not None:
                        CHECKS[kind[:-1]](value, name)
                elif isinstance(kind, str):
                    CHECKS[kind](value, name)
                elif not isinstance(value, kind):
                    expected = " or ".join(
                        "None" if k is type(None) else k.__name__
                        for k in (kind if isinstance(kind, tuple) else (kind,))
                    )
                    raise ValueError(f"{name} must be a {expected}; got {type(value).__name__}")
            return func(*bound.args, **bound.kwargs) if consumed else func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
