"""The scored instance every chain decoder receives: emission scores of one sentence and the shared transitions.

The model's score of a label sequence ``y`` (label ids, one per token) is
``sum_i theta[i, y_i] + sum_i tau[y_i, y_{i+1}]``, exactly the paper's objective (section 3): the model's
start and end transition weights are folded into the first and last rows of ``theta`` when an instance is
built, so decoders see only ``theta`` and ``tau``. ``tau`` and its offline bounds (section 4.3) are data
independent: one :class:`ChainScores` is shared by every instance of a dataset (pickle stores it once per shard).

**Forbidden transitions** are written ``-inf`` in ``tau`` (never a large negative stand-in, whose magnitude would
otherwise enter every tolerance): every exact decoder supports them, and a sequence that uses one is infeasible.
``theta`` must be finite, and an instance's scores small enough that no sum the decoders form can overflow
(:data:`MAX_MAGNITUDE`). NaN and ``+inf`` are refused everywhere. Both classes validate once, at
construction, outside the timed decoders; an instance whose length no label sequence can have without a
forbidden transition is refused there too (:attr:`ChainScores.longest_walk`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

#: The largest ``n x (max |theta| + 2 max finite |tau|)`` an instance may have: sums of a sequence's scores, the
#: decoders' bounds (sums of maxima and minima) and their differences then stay far from float overflow (~1.8e308).
MAX_MAGNITUDE = 2.0**1000


@dataclass(frozen=True, eq=False)
class ChainScores:
    """Transition scores ``tau[a, b]`` (label a followed by b) and their offline bounds.

    ``in_max[b] = max_a tau[a, b]``, ``in_min[b] = min_a tau[a, b]``, ``out_max[a] = max_b tau[a, b]``,
    ``out_min[a] = min_b tau[a, b]``: the data-independent maxima and minima of eq. 14 and of the reduced-cost
    oracle's bounds U_tau (Fig. 1).
    """

    tau: np.ndarray
    labels: tuple[str, ...]
    in_min: np.ndarray = field(init=False)
    in_max: np.ndarray = field(init=False)
    out_min: np.ndarray = field(init=False)
    out_max: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        tau = _float_array("ChainScores.tau", self.tau)
        if len(self.labels) < 1:
            raise ValueError("ChainScores.labels must name at least one label")
        if tau.ndim != 2 or tau.shape[0] != tau.shape[1] or tau.shape[0] != len(self.labels):
            raise ValueError(
                f"ChainScores.tau must be L x L with L = {len(self.labels)} labels; got shape {tau.shape}"
            )
        _refuse(tau, "ChainScores.tau", np.isnan(tau), "NaN")
        _refuse(tau, "ChainScores.tau", tau == np.inf, "+inf (write a forbidden transition as -inf)")
        object.__setattr__(self, "tau", tau)
        object.__setattr__(self, "in_min", tau.min(axis=0))
        object.__setattr__(self, "in_max", tau.max(axis=0))
        object.__setattr__(self, "out_min", tau.min(axis=1))
        object.__setattr__(self, "out_max", tau.max(axis=1))

    @property
    def n_labels(self) -> int:
        return self.tau.shape[0]

    @cached_property
    def longest_walk(self) -> float:
        """The largest number of transitions a label sequence can make without a forbidden one (``inf`` when the
        allowed transitions have a cycle): a sentence of ``n`` tokens is feasible iff ``n - 1 <= longest_walk``."""
        allowed = np.isfinite(self.tau)
        if allowed.all():
            return np.inf
        # Repeatedly drop labels that cannot be left (or entered): what remains lies on a cycle.
        alive = np.ones(self.n_labels, dtype=bool)
        length = np.zeros(self.n_labels)  # longest walk starting at each label, over dropped labels only
        while True:
            sub = allowed & alive[None, :]
            sinks = alive & ~sub.any(axis=1)
            if not sinks.any():
                break
            alive &= ~sinks
            # a label dropped now has every allowed successor dropped earlier, whose walks are final
            for x in np.flatnonzero(sinks):
                successors = np.flatnonzero(allowed[x])
                length[x] = 1 + length[successors].max() if successors.size else 0
        return np.inf if alive.any() else float(length.max())

    @cached_property
    def cg_tables(self) -> np.ndarray:
        """The bounds and ``tau`` transposed, packed as column generation reads them
        (``decoders.chains.colgen.transition_tables``), computed once per model rather than per sentence."""
        from decoders.chains.colgen import transition_tables  # deferred: numba is needed only by CG

        return transition_tables(self.tau)


@dataclass(eq=False)
class ChainInstance:
    """One sentence: ``theta`` (n x L emission scores, start/end folded in), the shared scores, gold label ids."""

    theta: np.ndarray
    scores: ChainScores
    gold: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.scores, ChainScores):
            raise TypeError(f"ChainInstance.scores must be a ChainScores; got {type(self.scores).__name__}")
        self.theta = _float_array("ChainInstance.theta", self.theta)
        n_labels = self.scores.n_labels
        if self.theta.ndim != 2 or self.theta.shape[1] != n_labels or self.theta.shape[0] < 1:
            raise ValueError(
                f"ChainInstance.theta must be n x {n_labels} (the labels of tau) with n >= 1 tokens; "
                f"got shape {self.theta.shape}"
            )
        _refuse(self.theta, "ChainInstance.theta", ~np.isfinite(self.theta), "a non-finite score")
        tau = self.scores.tau
        theta_max = float(np.abs(self.theta).max())
        tau_max = float(np.abs(tau[np.isfinite(tau)]).max(initial=0.0))
        if self.theta.shape[0] * (theta_max + 2.0 * tau_max) > MAX_MAGNITUDE:
            raise ValueError(
                f"ChainInstance.theta and tau: scores this large (max |theta| {theta_max:.3g}, max finite |tau| "
                f"{tau_max:.3g}, {self.theta.shape[0]} tokens) could overflow a sequence's score or the decoders' "
                f"bounds; keep n x (max |theta| + 2 max |tau|) <= {MAX_MAGNITUDE:.3g}"
            )
        if self.theta.shape[0] - 1 > self.scores.longest_walk:
            raise ValueError(
                f"ChainInstance.theta has {self.theta.shape[0]} tokens, but no label sequence longer than "
                f"{int(self.scores.longest_walk) + 1} avoids the forbidden (-inf) transitions of tau"
            )
        if self.gold is not None:
            gold = np.asarray(self.gold)
            if gold.dtype.kind not in "iu":
                raise ValueError(f"ChainInstance.gold must hold integer label ids; got dtype {gold.dtype}")
            if gold.shape != (self.theta.shape[0],):
                raise ValueError(
                    f"ChainInstance.gold must have one label id per token; got shape {gold.shape}"
                )
            outside = (gold < -1) | (gold >= n_labels)  # -1: a gold label the model does not know
            _refuse(gold, "ChainInstance.gold", outside, f"a label id outside -1..{n_labels - 1}")
            self.gold = gold.astype(np.int64)

    @property
    def n_tokens(self) -> int:
        return self.theta.shape[0]


def _float_array(field_name: str, values) -> np.ndarray:
    """``values`` as a C-contiguous float64 array; a ValueError naming the field for anything non-numeric."""
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{field_name} must hold real numbers; got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.float64)


def _refuse(array: np.ndarray, field_name: str, bad: np.ndarray, what: str) -> None:
    """Raise a ValueError naming the field, the first offending position and its value, if ``bad`` has any."""
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{field_name}{list(where)} = {array[where].item()!r} is {what}")


def sequence_score(theta: np.ndarray, tau: np.ndarray, labels: np.ndarray) -> float:
    """The model score of a label sequence (the objective every decoder maximises)."""
    labels = np.asarray(labels, dtype=np.int64)
    return float(theta[np.arange(len(labels)), labels].sum() + tau[labels[:-1], labels[1:]].sum())


def brute_force(theta: np.ndarray, tau: np.ndarray, k: int = 2) -> list[tuple[float, np.ndarray]]:
    """The ``k`` best label sequences by enumeration (tests only: L ** n sequences), best first.

    Ties are broken towards the lexicographically smallest sequence.
    """
    n, n_labels = theta.shape
    grids = np.indices((n_labels,) * n).reshape(n, -1).T
    totals = theta[np.arange(n), grids].sum(axis=1)
    if n > 1:
        totals = totals + tau[grids[:, :-1], grids[:, 1:]].sum(axis=1)
    order = np.lexsort((*(grids[:, i] for i in reversed(range(n))), -totals))[:k]
    return [(float(totals[j]), grids[j].copy()) for j in order]


@dataclass(eq=False)
class FeatureInstance:
    """One sentence before scoring, for the variants whose timing includes scoring (and for CRFsuite).

    ``ids``/``token_offsets``: the tokens' feature ids under the model's vocabulary (token t owns
    ``ids[token_offsets[t]:token_offsets[t + 1]]``); ``strings``: the same features as strings, CRFsuite's input;
    ``model``/``crfsuite``: paths of the trained models, which a decoding worker loads once (untimed warm-up).
    """

    ids: np.ndarray
    token_offsets: np.ndarray
    strings: list[list[str]]
    model: str
    crfsuite: str | None
    gold: np.ndarray

    @property
    def n_tokens(self) -> int:
        return len(self.token_offsets) - 1
