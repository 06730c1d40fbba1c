"""The instance every linking decoder receives: candidate sets of a document's mentions on a shared graph.

MinDR (Blanco, Boldi and Marino, section 2): given an undirected graph and sets ``X_1..X_k`` of candidate
vertices (one set per mention), choose one ``x_i`` from each set minimising ``sum_{i<j} d(x_i, x_j)`` (hop
distances). The graph is shared by every instance of a set and can be Wikipedia-sized, so an instance carries
only the path of the saved graph (:class:`decoders.corpora.wikispeedia.Graph` ``.npz``); :func:`load_graph`
reads it once per process (a decode worker's warm-up call pays for it, the timed calls do not).

A decoder's ``structure`` is an int array of length ``k``: the position, within each set, of the chosen
candidate (so that ``sets[i][structure[i]]`` is the chosen vertex and ``structure[i] == gold[i]`` means fair).

Order within a set is meaningful: the NEL sets (:mod:`decoders.linking.nel`, :mod:`decoders.linking.elevant_sets`)
list candidates in retrieval rank order, best first, as a retrieval system hands them over, and every decoder
breaks ties by that order (the earliest position wins). :meth:`LinkingInstance.truncated` keeps a prefix, i.e.
the top ``c`` of the ranking. The planted instances of :mod:`decoders.linking.synthetic` have no ranking and keep
their sets sorted by vertex id (ties there go to the lowest id, which the random graph gives no meaning).
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import InitVar, dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from decoders.checks import check_int, check_path
from decoders.corpora.wikispeedia import Graph
from decoders.linking.checks import check_positions, check_sets, integer_array


def _path(path, name: str) -> str:
    """A graph path as a string (a ``str`` or ``os.PathLike``): :func:`decoders.checks.check_path`."""
    return check_path(path, name)


@lru_cache(maxsize=2)
def _load_graph(path: str) -> Graph:
    return Graph.load(path)


def load_graph(path: str) -> Graph:
    """The graph saved at ``path``, read (and checked: :meth:`Graph.load`) once per process (keyed by the path
    string)."""
    return _load_graph(_path(path, "path"))


def graph_order(path: str) -> int:
    """Number of vertices of the graph saved at ``path`` (a :meth:`Graph.save` ``.npz``), read from the shape of
    its ``indptr`` array alone (the ``.npy`` header, not the arrays), once per path and process.

    Raises FileNotFoundError naming the path when there is no such file, ValueError when it is not a saved graph.
    """
    return _graph_order(_path(path, "path"))


@lru_cache(maxsize=64)
def _graph_order(path: str) -> int:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"LinkingInstance.graph_path = {path!r}: no graph file there")
    try:
        with zipfile.ZipFile(path) as archive, archive.open("indptr.npy") as handle:
            version = np.lib.format.read_magic(handle)
            readers = {
                (1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0,
            }
            if version not in readers:
                raise ValueError(f".npy format version {version}")
            shape, _, dtype = readers[version](handle)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise ValueError(
            f"LinkingInstance.graph_path = {path!r} is not a saved Graph (.npz with indptr, indices, "
            f"original_node): {exc}"
        ) from None
    if len(shape) != 1 or shape[0] < 1 or np.dtype(dtype).kind not in "iu":
        raise ValueError(
            f"LinkingInstance.graph_path = {path!r} is not a saved Graph: indptr has shape {shape}, dtype {dtype}"
        )
    return int(shape[0]) - 1


def rank_of(candidates: np.ndarray, vertex: int) -> int:
    """Position of ``vertex`` in the candidate array ``candidates`` (1-d vertex ids, ranked, not sorted), or -1 if
    absent."""
    candidates = integer_array(candidates, "candidates")
    vertex = check_int(vertex, "vertex")
    where = np.flatnonzero(candidates == vertex)
    return int(where[0]) if where.size else -1


def _refuse(array: np.ndarray, field_name: str, bad: np.ndarray, what: str) -> None:
    """Raise a ValueError naming the field, the first offending position and its value, if ``bad`` has any."""
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{field_name}{list(where)} = {array[where].item()!r} is {what}")


def _integer_array(field_name: str, values, what: str) -> np.ndarray:
    """``values`` as a 1-d numpy array of integers, else a ValueError naming the field (floats such as 2.0 and
    booleans are refused, never truncated or read as 0/1)."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{field_name} must be a 1-d array of {what}; got shape {array.shape}")
    if array.size and array.dtype.kind not in "iu":
        raise ValueError(
            f"{field_name} must hold integer {what}; got dtype {array.dtype} ({field_name}[0] = {array[0].item()!r})"
        )
    return array


@dataclass(eq=False)
class LinkingInstance:
    """One document: ``sets[i]`` = candidate vertices of mention ``i`` (distinct, int32), ``gold[i]`` = position
    of the fair candidate in ``sets[i]`` (-1 when the link target is not among the candidates).

    Validated once, at construction (decoders and their timed kernels trust it): the graph file exists and its
    vertex count ``n`` is read from the array header (:func:`graph_order`); there is at least one set; every set
    is a non-empty 1-d array of distinct integer vertex ids in ``0..n-1`` (floats, booleans, -1 and ids past
    ``n - 1`` are refused, never truncated or wrapped); ``gold`` holds one integer per set in ``-1..size-1``;
    ``mentions`` one string per set. Errors are ValueError (FileNotFoundError for a missing graph file) naming
    the field, the index and the offending value. ``n_vertices`` is for a caller that holds the graph in memory
    (:func:`decoders.linking.synthetic.plant_instances` on the scaling table's unsaved graphs): it stands in for
    the file when there is none yet, and must agree with the file when there is one.
    """

    graph_path: str
    sets: tuple[np.ndarray, ...]
    gold: np.ndarray  # int32 (k,)
    mentions: tuple[str, ...]  # surface text of each mention (for reports; decoders ignore it)
    document: str  # document id / title
    n_vertices: InitVar[int | None] = None

    def __post_init__(self, n_vertices: int | None) -> None:
        if isinstance(self.graph_path, os.PathLike):
            self.graph_path = os.fspath(self.graph_path)
        if not isinstance(self.graph_path, str):
            raise ValueError(f"LinkingInstance.graph_path must be a path; got {self.graph_path!r}")
        n = self._graph_order(n_vertices)
        if isinstance(self.sets, np.ndarray) and self.sets.ndim < 2:
            raise ValueError(
                f"LinkingInstance.sets must be a sequence of candidate arrays; got an array of shape {self.sets.shape}"
            )
        if isinstance(self.sets, str | bytes | dict):
            raise ValueError(
                f"LinkingInstance.sets must be a sequence of candidate arrays; got {self.sets!r}"
            )
        try:
            sets = tuple(self.sets)
        except TypeError:
            raise ValueError(
                f"LinkingInstance.sets must be a sequence of candidate arrays; got {type(self.sets).__name__}"
            ) from None
        k = len(sets)
        if k < 1:
            raise ValueError(
                "LinkingInstance.sets is empty: a linking instance needs at least one candidate set"
            )
        checked = []
        for i, candidates in enumerate(sets):
            field_name = f"LinkingInstance.sets[{i}]"
            array = np.asarray(candidates)
            if array.ndim == 1 and array.size == 0:
                raise ValueError(f"{field_name} is empty: every mention needs at least one candidate")
            array = _integer_array(field_name, array, "vertex ids")
            outside = (array < 0) | (array > n - 1)
            _refuse(array, field_name, outside, f"not a vertex of the graph {self.graph_path} (0..{n - 1})")
            _, first = np.unique(array, return_index=True)
            if first.size != array.size:
                repeated = np.ones(array.size, dtype=bool)
                repeated[first] = False
                position = int(np.flatnonzero(repeated)[0])
                earlier = int(np.flatnonzero(array == array[position])[0])
                raise ValueError(
                    f"{field_name}[{position}] = {array[position].item()!r} repeats {field_name}[{earlier}]: "
                    "candidates must be distinct"
                )
            checked.append(np.ascontiguousarray(array, dtype=np.int32))
        self.sets = tuple(checked)
        gold = _integer_array("LinkingInstance.gold", self.gold, "positions")
        if gold.shape != (k,):
            raise ValueError(
                f"LinkingInstance.gold must have one position per set ({k}); got shape {gold.shape}"
            )
        sizes = np.array([s.size for s in self.sets])
        outside = (gold < -1) | (gold >= sizes)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"LinkingInstance.gold[{i}] = {gold[i].item()!r} is not a position in LinkingInstance.sets[{i}] "
                f"(-1..{sizes[i] - 1}; -1: the target is not among the candidates)"
            )
        self.gold = np.ascontiguousarray(gold, dtype=np.int32)
        if isinstance(self.mentions, str) or not hasattr(self.mentions, "__len__") or len(self.mentions) != k:
            raise ValueError(
                f"LinkingInstance.mentions must have one entry per set ({k}); got {self.mentions!r}"
            )
        self.mentions = tuple(self.mentions)
        for i, mention in enumerate(self.mentions):
            if not isinstance(mention, str):
                raise ValueError(f"LinkingInstance.mentions[{i}] must be a string, got {mention!r}")
        if not isinstance(self.document, str):
            raise ValueError(f"LinkingInstance.document must be a string, got {self.document!r}")

    def _graph_order(self, n_vertices: int | None) -> int:
        """The graph's vertex count: from the file's header, or ``n_vertices`` when there is no file (yet)."""
        if n_vertices is None:
            return graph_order(self.graph_path)
        if isinstance(n_vertices, bool) or not isinstance(n_vertices, int | np.integer) or n_vertices < 1:
            raise ValueError(f"LinkingInstance n_vertices must be a positive integer; got {n_vertices!r}")
        if os.path.exists(self.graph_path) and graph_order(self.graph_path) != n_vertices:
            raise ValueError(
                f"LinkingInstance n_vertices = {n_vertices} but the graph {self.graph_path} has "
                f"{graph_order(self.graph_path)} vertices"
            )
        return int(n_vertices)

    @classmethod
    def _trusted(cls, graph_path: str, sets, gold, mentions, document) -> LinkingInstance:
        """An instance derived from a validated one (no second validation: e.g. :meth:`truncated`, which runs
        inside the timed decoders)."""
        instance = object.__new__(cls)
        instance.graph_path, instance.sets, instance.gold = graph_path, tuple(sets), gold
        instance.mentions, instance.document = mentions, document
        return instance

    @property
    def k(self) -> int:
        """Number of mentions (candidate sets)."""
        return len(self.sets)

    @property
    def n_candidates(self) -> int:
        return int(sum(s.size for s in self.sets))

    @property
    def graph(self) -> Graph:
        return load_graph(self.graph_path)

    def chosen_vertices(self, structure) -> np.ndarray:
        """Vertices picked by a decoder's ``structure`` (integer positions within the sets, one per set)."""
        positions = check_positions(structure, "structure", [s.size for s in self.sets])
        return np.array([s[p] for s, p in zip(self.sets, positions, strict=True)], dtype=np.int32)

    def truncated(self, max_candidates: int | None) -> LinkingInstance:
        """The instance with every set cut to its first ``max_candidates`` candidates (the top of the ranking).

        Positions keep their meaning (a prefix is kept), so a solution of the truncated instance is one of this
        instance too; a gold position past the cut becomes -1 (the target is not among the candidates). Returns
        the instance itself when nothing is cut (``None``, or no set longer than ``max_candidates``).
        """
        if max_candidates is not None and (
            isinstance(max_candidates, bool)
            or not isinstance(max_candidates, int | np.integer)
            or max_candidates < 1
        ):
            raise ValueError(f"max_candidates must be None or an integer, at least 1; got {max_candidates!r}")
        if max_candidates is None or all(s.size <= max_candidates for s in self.sets):
            return self
        return LinkingInstance._trusted(
            self.graph_path,
            tuple(np.ascontiguousarray(s[:max_candidates]) for s in self.sets),
            np.where(self.gold < max_candidates, self.gold, -1).astype(np.int32),
            self.mentions,
            self.document,
        )

    def gold_structure(self) -> np.ndarray | None:
        """The ground-truth solution (every fair candidate), or None when some mention's target is missing."""
        return None if (self.gold < 0).any() else self.gold.copy()


def check_instance(instance: Any, order: int, name: str = "instance"):
    """A :class:`~decoders.linking.instance.LinkingInstance` whose sets are (still) distinct vertex ids of a graph
    of ``order`` vertices and whose gold holds one position per set: O(candidates), so that an instance changed or
    unpickled after its construction cannot send an id past the graph into the kernels. Returns the instance, or
    a copy holding the canonical arrays (int32, contiguous) when its own are not."""
    if not isinstance(instance, LinkingInstance):
        raise ValueError(f"{name} must be a LinkingInstance, got {type(instance).__name__}")
    order = check_int(order, "order", minimum=0)
    sets = check_sets(instance.sets, f"{name}.sets", order)
    gold = integer_array(instance.gold, f"{name}.gold")
    if gold.shape != (len(sets),):
        raise ValueError(f"{name}.gold must have one position per set ({len(sets)}), got shape {gold.shape}")
    if isinstance(instance.sets, tuple) and all(a is b for a, b in zip(sets, instance.sets, strict=True)):
        return instance
    return LinkingInstance._trusted(
        instance.graph_path, tuple(sets), gold.astype(np.int32), instance.mentions, instance.document
    )


def instance_and_graph(instance: Any, name: str = "instance"):
    """``(instance, graph)``: the instance checked by :func:`check_instance` against its graph, which is loaded
    (once per process, checked when read: :meth:`~decoders.corpora.wikispeedia.Graph.load`)."""
    if not isinstance(instance, LinkingInstance):
        raise ValueError(f"{name} must be a LinkingInstance, got {type(instance).__name__}")
    graph = instance.graph
    return check_instance(instance, graph.n_nodes, name), graph
