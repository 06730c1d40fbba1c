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

The public functions check their arguments once per call (:mod:`decoders.linking.checks`); the decoders call
the private versions on a checked instance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from decoders.checks import check_finite, float_array
from decoders.linking.checks import check_csr, check_sets
from decoders.linking.distances import _group_distances
from decoders.linking.overlay import Overlay, check_overlay


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


def _hitting_distances(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    candidates = np.concatenate(sets).astype(np.int32)
    return _group_distances(indptr, indices, _offsets(sets), candidates, candidates, overlay)


def _hitting_distance_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    n = indptr.shape[0] - 1
    scores = _finite(_hitting_distances(indptr, indices, overlay, sets), n).sum(axis=0)
    return _argmin_per_set(scores, _offsets(sets))


def _greedy_positions(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    rng: np.random.Generator,
) -> np.ndarray:
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
        rows[i] = _finite(_group_distances(indptr, indices, single, source, candidates, overlay)[0], n)

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


def _degree_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    candidates = np.concatenate(sets).astype(np.int64)
    degree = indptr[candidates + 1] - indptr[candidates]
    if overlay is not None and overlay.nodes.size:
        slots = np.searchsorted(overlay.nodes, candidates).clip(max=overlay.nodes.size - 1)
        has = overlay.nodes[slots] == candidates
        degree = degree + np.where(has, overlay.indptr[slots + 1] - overlay.indptr[slots], 0)
    return _argmax_per_set(degree, _offsets(sets))


def _score_positions(scores: np.ndarray, sets: Sequence[np.ndarray]) -> np.ndarray:
    return _argmax_per_set(scores[np.concatenate(sets)], _offsets(sets))


# --------------------------------------------------------------------------- public, checking wrappers


def _checked(indptr, indices, overlay, sets):
    """The CSR graph, the overlay (None: no added edge) and the candidate sets (non-empty arrays of distinct
    vertex ids), checked once (:mod:`decoders.linking.checks`)."""
    indptr, indices = check_csr(indptr, indices)
    n = indptr.size - 1
    return indptr, indices, check_overlay(overlay, n), check_sets(sets, "sets", n)


def hitting_distances(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """``H[j, c]`` = hitting distance of the ``c``-th candidate (sets concatenated) to set ``j`` (-1 if none).

    One multi-source BFS per set, each stopping once every candidate is reached.
    """
    return _hitting_distances(*_checked(indptr, indices, overlay, sets))


def hitting_distance_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """Per set, the candidate of least average hitting distance to all the sets."""
    return _hitting_distance_positions(*_checked(indptr, indices, overlay, sets))


def greedy_positions(
    indptr: np.ndarray,
    indices: np.ndarray,
    overlay: Overlay,
    sets: Sequence[np.ndarray],
    rng: np.random.Generator,
) -> np.ndarray:
    """The greedy baseline: random start set and candidate (drawn from ``rng``, a numpy Generator), the others
    in cyclic order, then the start again.

    One BFS per chosen vertex (stopping once all candidates are reached) gives its distance to every candidate.
    """
    checked = _checked(indptr, indices, overlay, sets)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return _greedy_positions(*checked, rng)


def degree_positions(
    indptr: np.ndarray, indices: np.ndarray, overlay: Overlay, sets: Sequence[np.ndarray]
) -> np.ndarray:
    """Per set, the candidate of highest degree in ``G`` plus the overlay."""
    return _degree_positions(*_checked(indptr, indices, overlay, sets))


def score_positions(scores: np.ndarray, sets: Sequence[np.ndarray]) -> np.ndarray:
    """Per set, the candidate with the highest per-vertex ``scores`` (e.g. a PageRank vector: one finite real
    number per vertex; ``sets`` hold vertex ids below ``len(scores)``).

    Only the order of the scores matters (``np.argmax``, the first maximum on ties), so scores multiplied by a
    positive constant give the same positions wherever the product keeps their order.
    """
    scores = float_array(scores, "scores")
    if scores.ndim != 1:
        raise ValueError(f"scores must be 1-dimensional (one per vertex), got shape {scores.shape}")
    check_finite(scores, "scores")
    return _score_positions(scores, check_sets(sets, "sets", scores.size))
