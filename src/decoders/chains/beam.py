"""Left-to-right beam search for linear chains (numba kernel), the approximate baseline of Table 1.

After each token the beam holds the ``width`` best partial sequences: it extends every kept prefix by every
label and keeps the ``width`` best extensions. Candidates are ranked by score, then by label id, then by the rank
of the prefix they extend (ties by label id, deterministic). A candidate's score is ``(prefix + tau) + theta``,
the same additions in the same order as :func:`decoders.chains.viterbi.viterbi`, so when the beam finds the
optimal sequence it reports Viterbi's score bit for bit. Width 1 is greedy left-to-right decoding; a width of at
least ``L ** (n - 1)`` keeps every prefix until the last token and is therefore exact.

The kernel :func:`_beam_search` trusts its arguments (the decoder passes a ChainInstance's, checked at
construction); :func:`beam_search` checks raw arrays and the width once per call, then runs it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from decoders.chains.checks import check_chain, check_width


@numba.njit(cache=True, nogil=True, inline="always")
def _ranks_before(
    score: float, label: int, parent: int, other_score: float, other_label: int, other_parent: int
) -> bool:
    """Whether candidate (score, label, parent) ranks strictly before the other: higher score, then smaller ids."""
    if score != other_score:
        return score > other_score
    if label != other_label:
        return label < other_label
    return parent < other_parent


@numba.njit(cache=True, nogil=True, inline="always")
def _insert(
    scores: np.ndarray,
    labels: np.ndarray,
    parents: np.ndarray,
    count: int,
    score: float,
    label: int,
    parent: int,
) -> int:
    """Insert a candidate into the ranked arrays holding ``count`` entries (capacity = their length).

    When full, the candidate replaces the last entry if it ranks before it and is dropped otherwise. Returns the
    new count.
    """
    capacity = scores.shape[0]
    if count == capacity:
        last = capacity - 1
        if not _ranks_before(score, label, parent, scores[last], labels[last], parents[last]):
            return count
        pos = last
    else:
        pos = count
        count += 1
    while pos > 0 and _ranks_before(score, label, parent, scores[pos - 1], labels[pos - 1], parents[pos - 1]):
        scores[pos] = scores[pos - 1]
        labels[pos] = labels[pos - 1]
        parents[pos] = parents[pos - 1]
        pos -= 1
    scores[pos] = score
    labels[pos] = label
    parents[pos] = parent
    return count


@numba.njit(cache=True, nogil=True)
def _beam_search(theta: np.ndarray, tau: np.ndarray, width: int) -> tuple[np.ndarray, float]:
    """The kernel of :func:`beam_search`, on checked arguments (a ChainInstance's ``theta`` and ``tau``).

    Costs O(n width L) score evaluations plus the insertions into the beam (O(width) each, few once it is full).
    """
    if width < 1:
        raise ValueError("beam width must be at least 1")
    n, n_labels = theta.shape
    # No beam ever holds more than L ** n prefixes: size the arrays by that, not by a huge width.
    capacity = 1
    for _ in range(n):
        capacity = width if capacity > width // n_labels else min(capacity * n_labels, width)
    scores = np.empty(capacity, dtype=np.float64)
    kept_labels = np.empty((n, capacity), dtype=np.int64)
    kept_parents = np.empty((n, capacity), dtype=np.int64)
    next_scores = np.empty(capacity, dtype=np.float64)

    row = theta[0]
    count = 0
    floor = -np.inf  # candidates below the full beam's last entry cannot enter; -inf while it has room
    for b in range(n_labels):
        if row[b] >= floor:
            count = _insert(scores, kept_labels[0], kept_parents[0], count, row[b], b, 0)
            if count == capacity:
                floor = scores[capacity - 1]
    for i in range(1, n):
        row = theta[i]
        labels_i = kept_labels[i]
        parents_i = kept_parents[i]
        new_count = 0
        floor = -np.inf
        for k in range(count):
            s = scores[k]
            tau_row = tau[kept_labels[i - 1, k]]
            for b in range(n_labels):
                value = (s + tau_row[b]) + row[b]
                if value >= floor:
                    new_count = _insert(next_scores, labels_i, parents_i, new_count, value, b, k)
                    if new_count == capacity:
                        floor = next_scores[capacity - 1]
        scores, next_scores = next_scores, scores
        count = new_count
    labels = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n - 1, -1, -1):
        labels[i] = kept_labels[i, k]
        k = kept_parents[i, k]
    return labels, scores[0]


def beam_search(theta: Any, tau: Any, width: int) -> tuple[np.ndarray, float]:
    """The best sequence a beam of ``width`` (an integer >= 1) partial sequences finds (int64[n]) and its score;
    the score is ``-inf`` when every prefix the beam kept ran into a forbidden (``-inf``) transition.

    ``theta`` and ``tau`` are checked as :func:`decoders.chains.viterbi.viterbi` checks them; a ValueError names
    the argument otherwise.
    """
    theta, tau = check_chain(theta, tau)
    return _beam_search(theta, tau, check_width(width))
