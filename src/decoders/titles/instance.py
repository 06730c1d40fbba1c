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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
        n = len(self.words)
        self.klass = np.ascontiguousarray(self.klass, dtype=np.int32)
        self.start = np.ascontiguousarray(self.start, dtype=np.float64)
        self.edge = np.ascontiguousarray(self.edge, dtype=np.float64)
        self.end = np.ascontiguousarray(self.end, dtype=np.float64)
        self.start_aux = np.ascontiguousarray(self.start_aux, dtype=np.int32)
        self.edge_aux = np.ascontiguousarray(self.edge_aux, dtype=np.int32)
        self.end_aux = np.ascontiguousarray(self.end_aux, dtype=np.int32)
        shapes = {
            "klass": (self.klass, (n,)),
            "start": (self.start, (n,)),
            "edge": (self.edge, (n, n)),
            "end": (self.end, (n,)),
            "start_aux": (self.start_aux, (n,)),
            "edge_aux": (self.edge_aux, (n, n)),
            "end_aux": (self.end_aux, (n,)),
        }
        for name, (array, shape) in shapes.items():
            if array.shape != shape:
                raise ValueError(
                    f"TitleInstance.{name} must have shape {shape} for {n} words; got {array.shape}"
                )
        if n and (self.klass.min() < 0):
            raise ValueError("TitleInstance.klass must be non-negative class ids")
        if self.k < 1:
            raise ValueError(f"TitleInstance.k must be >= 1; got {self.k}")
        if np.isnan(self.start).any() or np.isnan(self.edge).any() or np.isnan(self.end).any():
            raise ValueError("TitleInstance weights must not be NaN (use -inf for a missing edge)")

    @property
    def n(self) -> int:
        """Number of word vertices (s and t not counted)."""
        return len(self.words)

    @property
    def n_classes(self) -> int:
        return int(self.klass.max()) + 1 if self.n else 0


def path_problem(instance: TitleInstance, path) -> str | None:
    """Why ``path`` is not a feasible title of ``instance`` (None when it is): wrong length, a vertex out of range,
    two vertices of one class, or an edge of weight -inf."""
    path = np.asarray(path)
    if path.ndim != 1 or path.shape[0] != instance.k:
        return f"a title has k = {instance.k} words; got {path.shape[0] if path.ndim == 1 else path.shape}"
    if path.size and (path.min() < 0 or path.max() >= instance.n):
        return f"vertex out of range 0..{instance.n - 1}: {path.tolist()}"
    classes = instance.klass[path]
    if np.unique(classes).size != classes.size:
        return f"repeated equivalence class on the path {path.tolist()} (classes {classes.tolist()})"
    if not np.isfinite(path_score(instance, path)):
        return f"the path {path.tolist()} uses a missing edge (weight -inf)"
    return None


def path_score(instance: TitleInstance, path) -> float:
    """Score of ``s -> path -> t`` (no feasibility check)."""
    path = np.asarray(path, dtype=np.int64)
    return float(instance.start[path[0]] + instance.edge[path[:-1], path[1:]].sum() + instance.end[path[-1]])


def realise(instance: TitleInstance, path) -> list[str]:
    """The title's words: the path's vertices with the auxiliary word of every edge that routes through one."""
    path = [int(v) for v in path]
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
