"""The MinDR heuristics and baselines of section 6 on the connected graph (``G`` plus a connection overlay).

* hitting distance (section 5.2): one multi-source BFS per set gives every candidate's hitting distance
  ``d(x, X_j)`` to every set; each set takes its candidate of least average hitting distance.
* greedy: a random start, then each next set's candidate nearest (in summed distance) to those chosen so far,
  then the start set chosen again the same way (the only random choice is replaced).
* degree / PageRank: each set's candidate of highest degree in the connected graph / highest PageRank.

Ties always go to the earliest candidate position (``np.argmin`` / ``np.argmax`` return the first extreme),
in every heuristic including greedy's steps and the degree / PageRank maxima. The NEL sets list candidates in
retrieval rank order, so a tie goes to the better-ranked candidate: the paper leaves the choice among tied
candidates open ("any such element, if there are many"), and the ranking is the one gold-free information
that orders them (vertex ids would be arbitrary). Unreachable pairs count :func:`~decoders.linking.cost.
unreachable_cost` (``n``), as in the cost.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from decoders.linking.distances import group_distances
from decoders.linking.overlay import Overlay


def _offsets(sets: Sequence[np.ndarray]) -> np.ndarray:
    offsets = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=offsets[1:])
    return offsets


def _finite(distances: np.ndarray, n: int) -> np.ndarray:
    out = distances.astype(np.int64)
    out[out < 0] = n
    return out


def _argmin_per_set(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per set, the position of its least score (the first one on ties)."""
    return np.array([int(np.argmin(scores[a:b])) for a, b in zip(offsets[:-1], offsets[1:], strict=True)])


def _argmax_per_set(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per set, the position of its greatest score (the first one on ties)."""
    return np.array([int(np.argmax(scores[a:b])) for a, b in zip(offsets[:-1], offsets[1:], strict=True)])


def hitting_distances(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """``H[j, c]`` = hitting distance of the ``c``-th candidate (sets concatenated) to set ``j`` (-1 if none).

    One multi-source BFS per set, each stopping once every candidate is reached.
    """
    candidates = np.concatenate(sets).astype(np.int32)
    return group_distances(indptr, indices, _offsets(sets), candidates, candidates, overlay)


def hitting_distance_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """Per set, the candidate of least average hitting distance to all the sets."""
    n = indptr.shape[0] - 1
    scores = _finite(hitting_distances(indptr, indices, overlay, sets), n).sum(axis=0)
    return _argmin_per_set(scores, _offsets(sets))


def greedy_positions(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    rng: np.random.Generator,
) -> np.ndarray:
    """The greedy baseline: random start set and candidate, the others in cyclic order, then the start again.

    One BFS per chosen vertex (stopping once all candidates are reached) gives its distance to every candidate.
    """
    n = indptr.shape[0] - 1
    k = len(sets)
    offsets = _offsets(sets)
    candidates = np.concatenate(sets).astype(np.int32)
    single = np.array([0, 1], dtype=np.int64)
    positions = np.zeros(k, dtype=np.int64)
    rows = np.zeros(
        (k, candidates.size), dtype=np.int64
    )  # rows[i] = distances from the vertex chosen in set i

    def choose(i: int, position: int) -> None:
        positions[i] = position
        source = np.array([sets[i][position]], dtype=np.int32)
        rows[i] = _finite(group_distances(indptr, indices, single, source, candidates, overlay)[0], n)

    start = int(rng.integers(k))
    choose(start, int(rng.integers(len(sets[start]))))
    total = rows[start].copy()
    for step in range(1, k):
        i = (start + step) % k
        choose(i, int(np.argmin(total[offsets[i] : offsets[i + 1]])))
        total += rows[i]
    others = total - rows[start]
    positions[start] = int(np.argmin(others[offsets[start] : offsets[start + 1]]))
    return positions


def degree_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """Per set, the candidate of highest degree in ``G`` plus the overlay."""
    candidates = np.concatenate(sets).astype(np.int64)
    degree = indptr[candidates + 1] - indptr[candidates]
    slots = np.searchsorted(overlay.nodes, candidates).clip(max=max(overlay.nodes.size - 1, 0))
    if overlay.nodes.size:
        has = overlay.nodes[slots] == candidates
        degree = degree + np.where(has, overlay.indptr[slots + 1] - overlay.indptr[slots], 0)
    return _argmax_per_set(degree, _offsets(sets))


def score_positions(scores: np.ndarray, sets: Sequence[np.ndarray]) -> np.ndarray:
    """Per set, the candidate with the highest per-vertex ``scores`` (e.g. a PageRank vector)."""
    return _argmax_per_set(scores[np.concatenate(sets)], _offsets(sets))
