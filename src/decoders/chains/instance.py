"""The scored instance every chain decoder receives: emission scores of one sentence and the shared transitions.

The model's score of a label sequence ``y`` (label ids, one per token) is
``sum_i theta[i, y_i] + sum_i tau[y_i, y_{i+1}]``, exactly the paper's objective (section 3): the model's
start and end transition weights are folded into the first and last rows of ``theta`` when an instance is
built, so decoders see only ``theta`` and ``tau``. ``tau`` and its offline bounds (section 4.3) are data
independent: one :class:`ChainScores` is shared by every instance of a dataset (pickle stores it once per shard).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np


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
        tau = np.ascontiguousarray(self.tau, dtype=np.float64)
        if tau.ndim != 2 or tau.shape[0] != tau.shape[1] or tau.shape[0] != len(self.labels):
            raise ValueError(f"tau must be L x L with L = {len(self.labels)} labels; got shape {tau.shape}")
        object.__setattr__(self, "tau", tau)
        object.__setattr__(self, "in_min", tau.min(axis=0))
        object.__setattr__(self, "in_max", tau.max(axis=0))
        object.__setattr__(self, "out_min", tau.min(axis=1))
        object.__setattr__(self, "out_max", tau.max(axis=1))

    @property
    def n_labels(self) -> int:
        return self.tau.shape[0]

    @cached_property
    def cg_tables(self) -> np.ndarray:
        """The bounds and ``tau`` transposed, packed as column generation reads them
        (``decoders.chains.colgen.transition_tables``), computed once per model rather than per sentence."""
        from decoders.chains.colgen import transition_tables  # deferred: numba is needed only by CG

        return transition_tables(self.tau, self.in_min, self.in_max, self.out_min, self.out_max)


@dataclass(eq=False)
class ChainInstance:
    """One sentence: ``theta`` (n x L emission scores, start/end folded in), the shared scores, gold label ids."""

    theta: np.ndarray
    scores: ChainScores
    gold: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.theta = np.ascontiguousarray(self.theta, dtype=np.float64)
        if self.theta.ndim != 2 or self.theta.shape[1] != self.scores.n_labels or self.theta.shape[0] < 1:
            raise ValueError(f"theta must be n x {self.scores.n_labels} with n >= 1; got {self.theta.shape}")
        if not np.isfinite(self.theta).all():
            raise ValueError("theta must be finite (column generation's kernels rely on it)")
        if self.gold is not None:
            self.gold = np.asarray(self.gold, dtype=np.int64)
            if self.gold.shape != (self.theta.shape[0],):
                raise ValueError(f"gold must have one label id per token; got shape {self.gold.shape}")

    @property
    def n_tokens(self) -> int:
        return self.theta.shape[0]


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
