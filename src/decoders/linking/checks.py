"""Input checks of the linking package: CSR graphs, vertex ids, candidate sets, overlays and instances.

The BFS, DFS and PageRank kernels (numba) index the CSR arrays without bounds checks: a vertex id past the graph,
an ``indptr`` that decreases or ends past ``indices``, or a neighbour id out of range reads and writes outside the
arrays (a crash, or a silently wrong distance). Every public function of the package passes its arguments through
these checks once per call (numpy, vectorised, outside the kernels' loops) and hands the kernels the canonical
dtypes (``indptr`` int64, ``indices`` and vertex ids int32, contiguous). Errors are ValueError naming the argument
and, where there is one, the offending index and value. The decoders' timed paths call the private, trusting
versions on an instance and a graph that were checked when they were built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from decoders.checks import check_int, check_range
from decoders.corpora.wikispeedia import Graph

INT32_MAX = int(np.iinfo(np.int32).max)


def integer_array(array: Any, name: str, *, ndim: int | None = 1) -> np.ndarray:
    """``array`` as a numpy array of an integer dtype (no copy; booleans, floats and strings are refused)."""
    if isinstance(array, str | bytes):
        raise ValueError(f"{name} must be an integer array, got a string {array!r}")
    array = np.asarray(array)
    if array.dtype == np.bool_ or array.dtype.kind not in "iu":
        if array.size == 0 and array.dtype.kind == "f" and (ndim is None or array.ndim == ndim):
            return array.astype(np.int64)  # np.asarray([]) is float64: an empty list holds no bad id
        raise ValueError(f"{name} must be an integer array, got dtype {array.dtype}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    return array


def check_span(array: np.ndarray, name: str, lo: int, hi: int) -> np.ndarray:
    """Every entry of the integer ``array`` in ``lo..hi`` (min and max first: no temporaries when it holds)."""
    if array.size and (array.min() < lo or array.max() > hi):
        if hi < lo:
            raise ValueError(f"{name} must be empty (nothing lies in {lo}..{hi}), got {array.size} entries")
        check_range(array, name, lo, hi)
    return array


def check_offsets(ptr: Any, name: str, total: int, total_name: str) -> np.ndarray:
    """A CSR offset array: 1-d integers, at least one entry, ``ptr[0] == 0``, non-decreasing, ``ptr[-1] == total``
    (the length of ``total_name``); returned as int64."""
    ptr = integer_array(ptr, name)
    if ptr.size < 1:
        raise ValueError(f"{name} must have at least one entry (0 for no rows), got shape {ptr.shape}")
    if ptr[0] != 0:
        raise ValueError(f"{name}[0] is {ptr[0].item()}; CSR offsets start at 0")
    drops = ptr[1:] < ptr[:-1]
    if drops.any():
        i = int(np.argmax(drops)) + 1
        raise ValueError(
            f"{name}[{i}] is {ptr[i].item()} < {name}[{i - 1}] = {ptr[i - 1].item()}: offsets must be non-decreasing"
        )
    if ptr[-1] != total:
        raise ValueError(f"{name}[-1] is {ptr[-1].item()} but {total_name} has {total} entries")
    return np.ascontiguousarray(ptr, dtype=np.int64)


def check_csr(
    indptr: Any, indices: Any, *, names: tuple[str, str] = ("indptr", "indices"), sorted_rows: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """A CSR graph: ``indptr`` offsets over ``indices`` (see :func:`check_offsets`), neighbour ids in
    ``0..n-1`` with ``n = len(indptr) - 1``; with ``sorted_rows`` every neighbour list strictly increasing (the
    binary searches of :mod:`decoders.linking.connection` need it). Returns ``(indptr int64, indices int32)``."""
    ptr_name, ids_name = names
    ids = integer_array(indices, ids_name)
    ptr = check_offsets(indptr, ptr_name, ids.size, ids_name)
    n = ptr.size - 1
    if n > INT32_MAX:
        raise ValueError(f"{ptr_name} describes {n} vertices; vertex ids must fit in int32")
    check_span(ids, ids_name, 0, n - 1)
    ids = np.ascontiguousarray(ids, dtype=np.int32)
    if sorted_rows and ids.size > 1:
        bad = ids[1:] <= ids[:-1]
        starts = ptr[1:-1]
        starts = starts[(starts > 0) & (starts < ids.size)]
        bad[starts - 1] = False  # a row's first neighbour is not compared with the previous row's last
        if bad.any():
            e = int(np.argmax(bad)) + 1
            v = int(np.searchsorted(ptr, e, side="right")) - 1
            raise ValueError(
                f"{ids_name}[{e}] = {ids[e]} follows {ids[e - 1]} in the neighbour list of vertex {v}: neighbour "
                "lists must be strictly increasing (sorted, no repeated edge)"
            )
    return ptr, ids


def check_graph(graph: Any, name: str = "graph") -> Graph:
    """A :class:`~decoders.corpora.wikispeedia.Graph` whose CSR arrays are (still) well formed with sorted
    neighbour lists (O(n + m), vectorised; its arrays are mutable, so they are checked again here)."""
    if not isinstance(graph, Graph):
        raise ValueError(f"{name} must be a decoders.corpora.wikispeedia.Graph, got {type(graph).__name__}")
    indptr, indices = check_csr(
        graph.indptr, graph.indices, names=(f"{name}.indptr", f"{name}.indices"), sorted_rows=True
    )
    del indptr, indices
    return graph


def check_vertex(value: Any, name: str, order: int) -> int:
    """One vertex id in ``0..order-1``."""
    value = check_int(value, name)
    if not 0 <= value < order:
        raise ValueError(f"{name} is {value}, outside 0..{order - 1} (the graph's vertices)")
    return value


def check_vertices(
    array: Any, name: str, order: int | None, *, ndim: int = 1, distinct: bool = False
) -> np.ndarray:
    """Vertex ids in ``0..order-1`` (``order`` None: any id >= 0 that fits int32), as contiguous int32;
    ``distinct``: no id twice."""
    array = integer_array(array, name, ndim=ndim)
    check_span(array, name, 0, INT32_MAX if order is None else order - 1)
    array = np.ascontiguousarray(array, dtype=np.int32)
    if distinct and array.size > 1:
        flat = array.ravel()
        _, first = np.unique(flat, return_index=True)
        if first.size != flat.size:
            repeated = np.ones(flat.size, dtype=bool)
            repeated[first] = False
            at = int(np.argmax(repeated))
            earlier = int(np.argmax(flat == flat[at]))
            raise ValueError(f"{name}[{at}] = {flat[at]} repeats {name}[{earlier}]: the ids must be distinct")
    return array


def check_sets(sets: Any, name: str, order: int | None, *, distinct: bool = True) -> list[np.ndarray]:
    """Candidate sets: a non-empty sequence of non-empty 1-d vertex-id arrays (see :func:`check_vertices`)."""
    if isinstance(sets, str | bytes | dict) or (isinstance(sets, np.ndarray) and sets.ndim < 2):
        shape = sets.shape if isinstance(sets, np.ndarray) else type(sets).__name__
        raise ValueError(f"{name} must be a sequence of candidate arrays, got {shape}")
    try:
        sets = list(sets)
    except TypeError:
        raise ValueError(
            f"{name} must be a sequence of candidate arrays, got {type(sets).__name__}"
        ) from None
    if not sets:
        raise ValueError(f"{name} is empty: at least one candidate set is needed")
    out = []
    for i, candidates in enumerate(sets):
        array = check_vertices(candidates, f"{name}[{i}]", order, distinct=distinct)
        if array.size == 0:
            raise ValueError(f"{name}[{i}] is empty: every mention needs at least one candidate")
        out.append(array)
    return out


def check_positions(structure: Any, name: str, sizes: Sequence[int]) -> np.ndarray:
    """One position per set, ``structure[i]`` in ``0..sizes[i]-1``, as int64."""
    positions = integer_array(structure, name)
    if positions.shape != (len(sizes),):
        raise ValueError(f"{name} must have one position per set ({len(sizes)}), got shape {positions.shape}")
    sizes = np.asarray(sizes, dtype=np.int64)
    bad = (positions < 0) | (positions >= sizes)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name}[{i}] is {positions[i].item()}, outside 0..{sizes[i] - 1} (set {i}'s positions)"
        )
    return positions.astype(np.int64)
