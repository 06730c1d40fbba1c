"""Input checks shared by the parsers' public functions: each takes an argument as given, returns it in the form
the compiled kernels read (no copy when it already is), or raises ValueError naming the argument and, where there
is one, the offending index and value.

The kernels (numba) index arrays without bounds checks, so a wrong shape or an id out of range reads outside an
array (a garbage score or a crash) and a NaN or ``+inf`` score makes every comparison false (a tree never
chosen, or an infinite objective). Every check here is vectorised numpy over the argument, done once per public
call, outside the kernels' loops.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _first(bad: np.ndarray) -> str:
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


def _float_array(array: Any, name: str) -> np.ndarray:
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
        where = _first(bad)
        allowed = "finite, or -inf to forbid" if forbid else "finite"
        raise ValueError(f"{name}{where} is {array[tuple(np.argwhere(bad)[0])]}; allowed: {allowed}")
    return array


def check_arc_scores(scores: Any, name: str = "scores", *, n: int | None = None) -> np.ndarray:
    """``scores`` as a float (n + 1, n + 1) array (``n + 1 >= 1``; of that ``n`` when given): finite or ``-inf``
    (the arc is forbidden); NaN and ``+inf`` are errors."""
    scores = _float_array(scores, name)
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1] or scores.shape[0] < 1:
        raise ValueError(f"{name} must be a square (n + 1, n + 1) array; got shape {scores.shape}")
    if n is not None and scores.shape[0] != n + 1:
        raise ValueError(f"{name} must have shape ({n + 1}, {n + 1}); got {scores.shape}")
    return check_finite(scores, name, forbid=True)


def check_cube(part: Any, name: str, shape: tuple[int, ...], *, forbid: bool = True) -> np.ndarray:
    """``part`` as a float array of ``shape`` (a second- or third-order score cube), finite or (``forbid``)
    ``-inf``."""
    part = _float_array(part, name)
    if part.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}; got {part.shape}")
    return check_finite(part, name, forbid=forbid)


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


def check_heads(heads: Any, name: str = "heads", *, n: int | None = None) -> np.ndarray:
    """``heads`` as an int64 full head array of length ``n + 1`` (any length >= 1 when ``n`` is None): every
    word's head in ``0..n`` and not the word itself (``heads[0]``, the root's, is not read)."""
    heads = check_ids(heads, name, ndim=1)
    if len(heads) < 1 or (n is not None and len(heads) != n + 1):
        expected = "n + 1 >= 1" if n is None else str(n + 1)
        raise ValueError(f"{name} must be a full head array of length {expected}; got length {len(heads)}")
    size = len(heads) - 1
    check_range(heads[1:], name, 0, size, offset=1)
    loops = heads[1:] == np.arange(1, size + 1)
    if loops.any():
        m = int(np.flatnonzero(loops)[0]) + 1
        raise ValueError(f"{name}[{m}] is {m}: a word cannot head itself")
    return heads


def check_tokens(tokens: Any, rows: int, name: str = "tokens", *, n: int | None = None) -> np.ndarray:
    """``tokens`` as an int64 (rows, n + 1) array of ids >= 1 (column 0 the root; of that ``n`` when given). It is
    not converted: the kernels are compiled for int64."""
    if not isinstance(tokens, np.ndarray) or tokens.dtype != np.int64 or tokens.ndim != 2:
        kind = (
            f"dtype {tokens.dtype}, shape {tokens.shape}" if isinstance(tokens, np.ndarray) else type(tokens)
        )
        raise ValueError(f"{name} must be a 2-d int64 array; got {kind}")
    if tokens.shape[0] != rows or tokens.shape[1] < 1 or (n is not None and tokens.shape[1] != n + 1):
        columns = "n + 1 >= 1" if n is None else str(n + 1)
        raise ValueError(f"{name} must have shape ({rows}, {columns}); got {tokens.shape}")
    if tokens.size and tokens.min() < 1:
        raise ValueError(f"{name}{_first(tokens < 1)} is {int(tokens.min())}; ids start at 1")
    return tokens


def check_size(size: Any, name: str = "size") -> int:
    """A weight vector's size: a power of two (features are hashed to ``index & (size - 1)``)."""
    size = check_int(size, name, minimum=1)
    if size & (size - 1):
        raise ValueError(
            f"{name} must be a power of two (hashed indices are masked with size - 1), got {size}"
        )
    return size


def check_weights(weights: Any, name: str = "weights", *, finite: bool = True) -> np.ndarray:
    """``weights`` as a 1-d float64 vector of power-of-two size (the same array when it already is one, so that
    in-place updates reach the caller's). ``finite``: every weight is checked (O(size)); the hot scoring wrappers
    pass False and check the scores they compute instead (:func:`check_scored`), which costs O(n^2) per call."""
    if not isinstance(weights, np.ndarray) or weights.ndim != 1:
        shape = weights.shape if isinstance(weights, np.ndarray) else type(weights).__name__
        raise ValueError(f"{name} must be a 1-d array, got {shape}")
    weights = _float_array(weights, name)
    check_size(len(weights), f"len({name})")
    if finite:
        check_finite(weights, name)
    return weights


def check_scored(values: np.ndarray, name: str = "weights", what: str = "score") -> np.ndarray:
    """Scores computed from ``name`` have no NaN or ``+inf`` (``-inf`` marks forbidden arcs): else some weight
    the sentence reads is not finite."""
    bad = np.isnan(values) | (values == np.inf)
    if np.any(bad):
        where = _first(bad) if np.ndim(values) else ""
        raise ValueError(
            f"{name} must be finite: the {what}{where} computed from them is {np.asarray(values)[bad][0]}"
        )
    return values


def check_allowed(allowed: Any, name: str = "allowed", *, n: int) -> np.ndarray:
    """``allowed`` as a bool (n + 1, n + 1) arc mask."""
    allowed = np.asarray(allowed)
    if allowed.dtype != np.bool_:
        raise ValueError(f"{name} must be a bool array, got dtype {allowed.dtype}")
    if allowed.shape != (n + 1, n + 1):
        raise ValueError(f"{name} must have shape ({n + 1}, {n + 1}); got {allowed.shape}")
    return allowed


def check_parts(
    arc: np.ndarray, sib: np.ndarray, inner: np.ndarray, outer: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The DP's four score arrays checked: ``arc`` (n + 1, n + 1) and ``sib``, ``inner``, ``outer`` (n + 1, n + 1,
    n + 1), floats, finite or ``-inf``; ValueError naming the first that is not."""
    arc = check_arc_scores(arc, "arc")
    side = arc.shape[0]
    cube = (side, side, side)
    return (
        arc,
        check_cube(sib, "sib", cube),
        check_cube(inner, "inner", cube),
        check_cube(outer, "outer", cube),
    )
