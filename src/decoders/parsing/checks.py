"""Input checks of the parsers' public functions (arc scores, score cubes, head arrays, token arrays, hashed weight
vectors), built on the shared checks of :mod:`decoders.checks`."""

from __future__ import annotations

from typing import Any

import numpy as np

from decoders.checks import check_finite, check_ids, check_int, check_range, first_index, float_array


def check_arc_scores(scores: Any, name: str = "scores", *, n: int | None = None) -> np.ndarray:
    """``scores`` as a float (n + 1, n + 1) array (``n + 1 >= 1``; of that ``n`` when given): finite or ``-inf``
    (the arc is forbidden); NaN and ``+inf`` are errors."""
    scores = float_array(scores, name)
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1] or scores.shape[0] < 1:
        raise ValueError(f"{name} must be a square (n + 1, n + 1) array; got shape {scores.shape}")
    if n is not None and scores.shape[0] != n + 1:
        raise ValueError(f"{name} must have shape ({n + 1}, {n + 1}); got {scores.shape}")
    return check_finite(scores, name, forbid=True)


def check_cube(part: Any, name: str, shape: tuple[int, ...], *, forbid: bool = True) -> np.ndarray:
    """``part`` as a float array of ``shape`` (a second- or third-order score cube), finite or (``forbid``)
    ``-inf``."""
    part = float_array(part, name)
    if part.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}; got {part.shape}")
    return check_finite(part, name, forbid=forbid)


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
        raise ValueError(f"{name}{first_index(tokens < 1)} is {int(tokens.min())}; ids start at 1")
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
    weights = float_array(weights, name)
    check_size(len(weights), f"len({name})")
    if finite:
        check_finite(weights, name)
    return weights


def check_scored(values: np.ndarray, name: str = "weights", what: str = "score") -> np.ndarray:
    """Scores computed from ``name`` have no NaN or ``+inf`` (``-inf`` marks forbidden arcs): else some weight
    the sentence reads is not finite."""
    bad = np.isnan(values) | (values == np.inf)
    if np.any(bad):
        where = first_index(bad) if np.ndim(values) else ""
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
