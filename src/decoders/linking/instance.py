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

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from decoders.corpora.wikispeedia import Graph


@lru_cache(maxsize=2)
def load_graph(path: str) -> Graph:
    """The graph saved at ``path``, read once per process (keyed by the path string)."""
    return Graph.load(path)


def rank_of(candidates: np.ndarray, vertex: int) -> int:
    """Position of ``vertex`` in the candidate array ``candidates`` (ranked, not sorted), or -1 if absent."""
    where = np.flatnonzero(np.asarray(candidates) == vertex)
    return int(where[0]) if where.size else -1


@dataclass(eq=False)
class LinkingInstance:
    """One document: ``sets[i]`` = candidate vertices of mention ``i`` (distinct, int32), ``gold[i]`` = position
    of the fair candidate in ``sets[i]`` (-1 when the link target is not among the candidates)."""

    graph_path: str
    sets: tuple[np.ndarray, ...]
    gold: np.ndarray  # int32 (k,)
    mentions: tuple[str, ...]  # surface text of each mention (for reports; decoders ignore it)
    document: str  # document id / title

    def __post_init__(self) -> None:
        self.sets = tuple(np.ascontiguousarray(s, dtype=np.int32) for s in self.sets)
        self.gold = np.ascontiguousarray(self.gold, dtype=np.int32)
        k = len(self.sets)
        if k < 1:
            raise ValueError("a linking instance needs at least one candidate set")
        if self.gold.shape != (k,) or len(self.mentions) != k:
            raise ValueError(
                f"gold and mentions must have one entry per set ({k}); got {self.gold.shape}, "
                f"{len(self.mentions)}"
            )
        for i, candidates in enumerate(self.sets):
            if candidates.ndim != 1 or candidates.size == 0:
                raise ValueError(f"candidate set {i} must be a non-empty 1-d array")
            if np.unique(candidates).size != candidates.size:
                raise ValueError(f"candidate set {i} repeats a vertex")
            if not -1 <= int(self.gold[i]) < candidates.size:
                raise ValueError(f"gold[{i}] = {int(self.gold[i])} is not a position in set {i}")

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
        """Vertices picked by a decoder's ``structure`` (positions within the sets)."""
        positions = np.asarray(structure, dtype=np.int64)
        if positions.shape != (self.k,):
            raise ValueError(
                f"a linking solution has one position per set ({self.k}); got shape {positions.shape}"
            )
        sizes = np.array([s.size for s in self.sets])
        if (positions < 0).any() or (positions >= sizes).any():
            raise ValueError(f"positions {positions.tolist()} out of range for set sizes {sizes.tolist()}")
        return np.array([s[p] for s, p in zip(self.sets, positions, strict=True)], dtype=np.int32)

    def truncated(self, max_candidates: int | None) -> LinkingInstance:
        """The instance with every set cut to its first ``max_candidates`` candidates (the top of the ranking).

        Positions keep their meaning (a prefix is kept), so a solution of the truncated instance is one of this
        instance too; a gold position past the cut becomes -1 (the target is not among the candidates). Returns
        the instance itself when nothing is cut (``None``, or no set longer than ``max_candidates``).
        """
        if max_candidates is not None and max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, got {max_candidates}")
        if max_candidates is None or all(s.size <= max_candidates for s in self.sets):
            return self
        return LinkingInstance(
            graph_path=self.graph_path,
            sets=tuple(s[:max_candidates] for s in self.sets),
            gold=np.where(self.gold < max_candidates, self.gold, -1),
            mentions=self.mentions,
            document=self.document,
        )

    def gold_structure(self) -> np.ndarray | None:
        """The ground-truth solution (every fair candidate), or None when some mention's target is missing."""
        return None if (self.gold < 0).any() else self.gold.copy()
