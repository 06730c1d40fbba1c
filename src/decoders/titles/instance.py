"""The scored instance every title decoder receives: one test section's word graph (Deshpande et al. 2007, sec. 2).

Vertices ``0..n-1`` are the section's unique content words; ``klass[v]`` is the equivalence class (stem) of
``v``. A title is a path ``s -> p_0 -> ... -> p_{k-1} -> t`` through ``k`` inner vertices of pairwise distinct
classes (hence acyclic). Vertex weights are shifted onto incoming edges (the paper's section 2.1), so the score
of a path is ``start[p_0] + sum_i edge[p_i, p_{i+1}] + end[p_{k-1}]``:

- ``start[u]``: edge ``s -> u`` (selection of ``u`` plus the bigram of ``u`` after the title start);
- ``edge[v, u]``: edge ``v -> u`` (selection of ``u`` plus the ordering score of ``u`` after ``v``); ``-inf`` on
  the diagonal and wherever no edge exists; an edge between two vertices of one class is never used;
- ``end[v]``: edge ``v -> t`` (the bigram of the title end after ``v``).

Each edge may route through one auxiliary word (a preposition or article, ``v -> x -> u``); the instance keeps
the best route's weight and, in ``*_aux``, the index into ``aux_words`` of the word it went through (-1: direct),
so that the realised title can include it. Decoders maximise; they never look at ``words`` or ``reference``.

**Validation**, once, at construction (outside every timed decoder), with the field, index and value named:
``klass`` and the ``*_aux`` arrays hold integer ids (floats are refused, never truncated; bools are refused),
classes are non-negative, auxiliary indices lie in ``-1..len(aux_words)-1``; ``start``, ``edge`` and ``end``
are real with the shapes ``(n,)``, ``(n, n)``, ``(n,)``. **A missing (forbidden) edge is written ``-inf``** in
any of the three; every decoder supports it (exhaustive search, colour-coding and beam search never extend over
it, the ILP leaves it out of its model), so nobody needs a large negative stand-in. NaN and ``+inf`` are
refused, and so is a finite weight so large that a sum over the graph's ``(n + 2)^2`` edges could overflow
(:func:`weight_limit`: a title's score, and every bound on it, stays finite). ``k`` is an integer >= 1;
``words`` and ``aux_words`` are sequences of strings and ``reference`` a string. Class ids keep their values
(they need not be contiguous); :attr:`TitleInstance.class_index` numbers the classes ``0..c-1`` for the
decoders, so that no table they allocate grows with the ids. An instance on which no title can exist for plain
reasons (``k`` above the number of words or of distinct classes, or no walk of ``k`` words from ``s`` to ``t``
over finite edges) is accepted but marked (:attr:`TitleInstance.infeasible`), and every decoder answers it at
once.

The functions that take a path (:func:`path_score`, :func:`path_magnitude`, :func:`realise`) refuse one that is
not ``k`` distinct word ids in range, naming it; :func:`path_problem` returns the reason instead (a path that is
not a 1-d integer array is a ValueError there too).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from decoders.checks import check_ids, check_int, check_text, check_texts
from decoders.titles.checks import check_path

_CLASS_INDEX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""TitleInstance -> its :attr:`~TitleInstance.class_index` (outside the instance, whose ``vars`` stay its fields
and the cached :attr:`~TitleInstance.infeasible`)."""


@dataclass(eq=False)
class TitleInstance:
    """One test section: the weighted word graph, the title length ``k`` to decode, and the reference title."""

    words: tuple[str, ...]  # vertex v's surface word
    klass: np.ndarray  # int32 (n,): equivalence class id of each vertex, 0..n_classes-1
    start: np.ndarray  # float64 (n,)
    edge: np.ndarray  # float64 (n, n)
    end: np.ndarray  # float64 (n,)
    k: int
    start_aux: np.ndarray  # int32 (n,), -1 = direct
    edge_aux: np.ndarray  # int32 (n, n), -1 = direct
    end_aux: np.ndarray  # int32 (n,), -1 = direct
    aux_words: tuple[str, ...]
    reference: str  # the section's true title, as written

    def __post_init__(self) -> None:
        self.words = tuple(check_texts(self.words, "TitleInstance.words"))
        self.aux_words = tuple(check_texts(self.aux_words, "TitleInstance.aux_words"))
        self.reference = check_text(self.reference, "TitleInstance.reference")
        n = len(self.words)
        if isinstance(self.k, bool) or not isinstance(self.k, int | np.integer) or self.k < 1:
            raise ValueError(f"TitleInstance.k must be an integer >= 1; got {self.k!r}")
        self.k = int(self.k)
        self.klass = _ids("klass", self.klass, (n,), 0, None)
        limit = weight_limit(n)
        self.start = _weights("start", self.start, (n,), limit)
        self.edge = _weights("edge", self.edge, (n, n), limit)
        self.end = _weights("end", self.end, (n,), limit)
        last_aux = len(self.aux_words) - 1
        self.start_aux = _ids("start_aux", self.start_aux, (n,), -1, last_aux)
        self.edge_aux = _ids("edge_aux", self.edge_aux, (n, n), -1, last_aux)
        self.end_aux = _ids("end_aux", self.end_aux, (n,), -1, last_aux)
        _ = self.class_index, self.infeasible  # decided once, here, outside every timed decoder

    @property
    def n(self) -> int:
        """Number of word vertices (s and t not counted)."""
        return len(self.words)

    @property
    def n_classes(self) -> int:
        """One more than the largest class id (the ids need not all be used; see ``distinct_classes``)."""
        return int(self.klass.max()) + 1 if self.n else 0

    @property
    def distinct_classes(self) -> int:
        return int(self.class_index.max()) + 1 if self.n else 0

    @property
    def class_index(self) -> np.ndarray:
        """int32 (n,): the class of each vertex numbered ``0..distinct_classes-1`` in the order of the ids (the
        same partition as ``klass``). The decoders index their per-class tables with it, so a large class id
        never makes a large table. Computed once per instance (at construction; after unpickling, on first use)
        and kept beside it, not in its fields."""
        index = _CLASS_INDEX.get(self)
        if index is None:
            index = np.unique(self.klass, return_inverse=True)[1].reshape(-1).astype(np.int32)
            _CLASS_INDEX[self] = index
        return index

    @cached_property
    def infeasible(self) -> str | None:
        """Why no title can exist, when that is plain from the sizes and the edges alone (None otherwise): ``k``
        exceeds the number of words or of distinct classes, or no walk ``s -> v_1 .. v_k -> t`` over finite edges
        between words of different classes exists. Every decoder answers such an instance at once (no title,
        objective and bound ``-inf``, status ``optimal``: the reason is its certificate)."""
        n, k = self.n, self.k
        if k > n:
            return f"k = {k} exceeds the {n} words"
        if k > self.distinct_classes:
            return f"k = {k} exceeds the {self.distinct_classes} distinct classes"
        allowed = np.isfinite(self.edge) & (self.klass[:, None] != self.klass[None, :])
        reach = np.isfinite(self.start)  # words that end a finite walk of 1, 2, .. words from s
        for _ in range(1, k):
            if not reach.any():
                break
            reach = allowed[reach].any(axis=0)
        if not (reach & np.isfinite(self.end)).any():
            return f"no walk of k = {k} words from s to t uses only finite edges between distinct classes"
        return None


def check_instance(value: Any, name: str = "instance") -> TitleInstance:
    """``value`` itself, when it is a :class:`~decoders.titles.instance.TitleInstance` (validated when built)."""
    if not isinstance(value, TitleInstance):
        raise ValueError(f"{name} must be a TitleInstance; got {type(value).__name__}")
    return value


def _ids(name: str, values, shape: tuple[int, ...], lowest: int, highest: int | None) -> np.ndarray:
    """An integer id array of ``shape`` as int32, refusing other dtypes (floats are never truncated, bools are
    not ids) and ids outside ``lowest..highest``, with the field, the index and the value named."""
    array = np.asarray(values)
    field_name = f"TitleInstance.{name}"
    if array.dtype.kind not in "iu" and not (array.size == 0 and array.dtype.kind in "iuf"):
        raise ValueError(f"{field_name} must hold integer ids; got dtype {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{field_name} must have shape {shape} for {shape[0]} words; got {array.shape}")
    array = array.astype(np.int64)
    _refuse(array, field_name, array < lowest, f"below {lowest}")
    if highest is not None:
        _refuse(array, field_name, array > highest, f"outside {lowest}..{highest}")
    _refuse(array, field_name, array > np.iinfo(np.int32).max, "too large an id")
    return np.ascontiguousarray(array, dtype=np.int32)


def weight_limit(n: int) -> float:
    """The largest magnitude a finite weight of an ``n``-word instance may have: ``(n + 2)^2`` of them, each
    raised by the certified decoder's rounding margin, still sum to a finite float (``n``: an integer >= 0)."""
    n = check_int(n, "n", minimum=0)
    return float(np.finfo(np.float64).max) / (4.0 * (n + 2) ** 2)


def _weights(name: str, values, shape: tuple[int, ...], limit: float) -> np.ndarray:
    """Real weights of ``shape`` as float64: ``-inf`` (no edge) allowed, NaN, ``+inf`` and finite weights above
    ``limit`` in magnitude refused."""
    array = np.asarray(values)
    field_name = f"TitleInstance.{name}"
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{field_name} must hold real numbers; got dtype {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{field_name} must have shape {shape} for {shape[0]} words; got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    _refuse(array, field_name, np.isnan(array), "NaN")
    _refuse(array, field_name, array == np.inf, "+inf (write a missing edge as -inf)")
    _refuse(
        array,
        field_name,
        np.isfinite(array) & (np.abs(array) > limit),
        f"too large: with {shape[0]} words a weight's magnitude must be at most {limit:.3g} (sums overflow)",
    )
    return array


def _refuse(array: np.ndarray, field_name: str, bad: np.ndarray, what: str) -> None:
    """Raise a ValueError naming the field, the first offending position and its value, if ``bad`` has any."""
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{field_name}{list(where)} = {array[where].item()!r} is {what}")


def path_problem(instance: TitleInstance, path) -> str | None:
    """Why ``path`` is not a feasible title of ``instance`` (None when it is): wrong length, a vertex out of range,
    two vertices of one class, or an edge of weight -inf. ``path`` must be a 1-d array of integers (anything else
    is a ValueError naming it: the reasons returned are about its values)."""
    check_instance(instance)
    path = np.asarray(path)
    if path.size == 0 and path.dtype.kind == "f":  # [] is float64 to numpy
        path = path.astype(np.int64)
    path = check_ids(path, "path", ndim=1)
    if path.shape[0] != instance.k:
        return f"a title has k = {instance.k} words; got {path.shape[0]}"
    if path.min() < 0 or path.max() >= instance.n:
        return f"vertex out of range 0..{instance.n - 1}: {path.tolist()}"
    classes = instance.klass[path]
    if np.unique(classes).size != classes.size:
        return f"repeated equivalence class on the path {path.tolist()} (classes {classes.tolist()})"
    if not np.isfinite(_score(instance, path)):
        return f"the path {path.tolist()} uses a missing edge (weight -inf)"
    return None


def path_score(instance: TitleInstance, path) -> float:
    """Score of ``s -> path -> t``: ``path`` must be ``k`` distinct word ids in range (a ValueError naming it
    otherwise); whether it is a title is :func:`path_problem`'s to say (an edge of weight ``-inf`` gives
    ``-inf``)."""
    check_instance(instance)
    return _score(instance, check_path(instance, path))


def path_magnitude(instance: TitleInstance, path) -> float:
    """``sum |terms|`` of the path's score: the scale every tolerance on that score is relative to (``path`` as
    for :func:`path_score`)."""
    check_instance(instance)
    return _magnitude(instance, check_path(instance, path))


def realise(instance: TitleInstance, path) -> list[str]:
    """The title's words: the path's vertices with the auxiliary word of every edge that routes through one
    (``path`` as for :func:`path_score`)."""
    check_instance(instance)
    path = check_path(instance, path).tolist()
    out: list[str] = []

    def aux(index: int) -> None:
        if index >= 0:
            out.append(instance.aux_words[index])

    aux(int(instance.start_aux[path[0]]))
    for position, v in enumerate(path):
        out.append(instance.words[v])
        if position + 1 < len(path):
            aux(int(instance.edge_aux[v, path[position + 1]]))
    aux(int(instance.end_aux[path[-1]]))
    return out


def _score(instance: TitleInstance, path: np.ndarray) -> float:
    """:func:`path_score` of a path already checked (the decoders' own paths)."""
    path = np.asarray(path, dtype=np.int64)
    return float(instance.start[path[0]] + instance.edge[path[:-1], path[1:]].sum() + instance.end[path[-1]])


def _magnitude(instance: TitleInstance, path: np.ndarray) -> float:
    """:func:`path_magnitude` of a path already checked."""
    path = np.asarray(path, dtype=np.int64)
    terms = np.concatenate(
        [instance.start[path[:1]], instance.edge[path[:-1], path[1:]], instance.end[path[-1:]]]
    )
    return float(np.abs(terms).sum())
