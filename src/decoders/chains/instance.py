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
from typing import Any

import numpy as np

from decoders.chains.checks import (
    MAX_ENUMERATION,
    MAX_MAGNITUDE,
    _check_feasible,
    _check_magnitude,
    _longest_walk,
    _refuse,
    check_chain,
    check_label_names,
    check_labels,
    check_tau,
    check_theta,
    real_array,
)
from decoders.checks import check_ids, check_int

__all__ = [
    "MAX_MAGNITUDE",
    "ChainInstance",
    "ChainScores",
    "FeatureInstance",
    "brute_force",
    "sequence_score",
]


@dataclass(frozen=True, eq=False)
class ChainScores:
    """Transition scores ``tau[a, b]`` (label a followed by b) and their offline bounds.

    ``in_max[b] = max_a tau[a, b]``, ``in_min[b] = min_a tau[a, b]``, ``out_max[a] = max_b tau[a, b]``,
    ``out_min[a] = min_b tau[a, b]``: the data-independent maxima and minima of eq. 14 and of the reduced-cost
    oracle's bounds U_tau (Fig. 1). ``labels`` names the L labels (distinct strings); without names (None, the
    default: scores of one's own rather than a trained model's) label ``i`` is named ``str(i)``.
    """

    tau: np.ndarray
    labels: tuple[str, ...] | None = None
    in_min: np.ndarray = field(init=False)
    in_max: np.ndarray = field(init=False)
    out_min: np.ndarray = field(init=False)
    out_max: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        tau = real_array(self.tau, "ChainScores.tau")
        if self.labels is None:
            tau = check_tau(tau, "ChainScores.tau")
            labels = tuple(str(i) for i in range(tau.shape[0]))
        else:
            labels = check_label_names(self.labels, "ChainScores.labels")
        if tau.ndim != 2 or tau.shape[0] != tau.shape[1] or tau.shape[0] != len(labels):
            raise ValueError(
                f"ChainScores.tau must be L x L with L = {len(labels)} labels; got shape {tau.shape}"
            )
        tau = check_tau(tau, "ChainScores.tau")
        object.__setattr__(self, "labels", labels)
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
        return _longest_walk(self.tau)

    @cached_property
    def padded_tau(self) -> np.ndarray:
        """``tau`` padded with -inf to a width the Viterbi kernels vectorise without a remainder
        (``decoders.chains.viterbi._padded_tau``), computed once per model; the kernels' answers are the same."""
        from decoders.chains.viterbi import _padded_tau  # deferred: numba is needed only by the kernels

        return _padded_tau(self.tau)

    @cached_property
    def cg_tables(self) -> np.ndarray:
        """The bounds and ``tau`` transposed, packed as column generation reads them
        (``decoders.chains.colgen._transition_tables``), computed once per model rather than per sentence."""
        from decoders.chains.colgen import _transition_tables  # deferred: numba is needed only by CG

        return _transition_tables(self.tau)


@dataclass(frozen=True, eq=False)
class ChainInstance:
    """One sentence: ``theta`` (n x L emission scores, start/end folded in), the shared scores, gold label ids.

    Checked once, at construction (the decoders, which take an instance, check nothing per call), and frozen.
    """

    theta: np.ndarray
    scores: ChainScores
    gold: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.scores, ChainScores):
            raise ValueError(f"ChainInstance.scores must be a ChainScores; got {type(self.scores).__name__}")
        n_labels = self.scores.n_labels
        theta = check_theta(self.theta, n_labels, "ChainInstance.theta")
        _check_magnitude(theta, self.scores.tau, "ChainInstance.theta and tau")
        _check_feasible(theta.shape[0], self.scores.longest_walk, "ChainInstance.theta")
        object.__setattr__(self, "theta", theta)
        if self.gold is not None:
            gold = np.asarray(self.gold)
            if gold.dtype.kind not in "iu":
                raise ValueError(f"ChainInstance.gold must hold integer label ids; got dtype {gold.dtype}")
            if gold.shape != (theta.shape[0],):
                raise ValueError(
                    f"ChainInstance.gold must have one label id per token; got shape {gold.shape}"
                )
            outside = (gold < -1) | (gold >= n_labels)  # -1: a gold label the model does not know
            _refuse(gold, "ChainInstance.gold", outside, f"a label id outside -1..{n_labels - 1}")
            object.__setattr__(self, "gold", gold.astype(np.int64))

    @property
    def n_tokens(self) -> int:
        return self.theta.shape[0]


def sequence_score(theta: Any, tau: Any, labels: Any) -> float:
    """The model score of a label sequence (the objective every decoder maximises); ``-inf`` when it uses a
    forbidden transition.

    ``theta`` (n x L, finite) and ``tau`` (L x L, finite or ``-inf``) are checked as :class:`ChainInstance` checks
    them (feasibility aside); ``labels`` must hold one label id in ``0..L-1`` per token.
    """
    theta, tau = check_chain(theta, tau, feasible=False)
    labels = check_labels(labels, theta.shape[0], tau.shape[0])
    return float(theta[np.arange(len(labels)), labels].sum() + tau[labels[:-1], labels[1:]].sum())


def brute_force(theta: Any, tau: Any, k: int = 2) -> list[tuple[float, np.ndarray]]:
    """The ``k`` best label sequences by enumeration (tests only: L ** n sequences, at most 2^22), best first.

    Ties are broken towards the lexicographically smallest sequence; sequences that use a forbidden transition
    score ``-inf`` (and are listed last).
    """
    theta, tau = check_chain(theta, tau, feasible=False)
    k = check_int(k, "k", minimum=1)
    n, n_labels = theta.shape
    if n_labels**n > MAX_ENUMERATION:
        raise ValueError(
            f"theta: brute force would enumerate {n_labels}^{n} label sequences; at most {MAX_ENUMERATION} allowed"
        )
    grids = np.indices((n_labels,) * n).reshape(n, -1).T
    totals = theta[np.arange(n), grids].sum(axis=1)
    if n > 1:
        totals = totals + tau[grids[:, :-1], grids[:, 1:]].sum(axis=1)
    order = np.lexsort((*(grids[:, i] for i in reversed(range(n))), -totals))[:k]
    return [(float(totals[j]), grids[j].copy()) for j in order]


@dataclass(frozen=True, eq=False)
class FeatureInstance:
    """One sentence before scoring, for the variants whose timing includes scoring (and for CRFsuite).

    ``ids``/``token_offsets``: the tokens' feature ids under the model's vocabulary (token t owns
    ``ids[token_offsets[t]:token_offsets[t + 1]]``); ``strings``: the same features as strings, CRFsuite's input;
    ``model``/``crfsuite``: paths of the trained models, which a decoding worker loads once (untimed warm-up);
    ``gold``: label ids (-1 for a label the model does not know).

    Shapes, dtypes and ranges are checked at construction; what depends on the model (feature ids below its
    feature count, gold ids below its label count, a feasible length) when a decoder first scores the instance
    with it (:func:`decoders.chains.decoders._theta`, once per instance and model).
    """

    ids: np.ndarray
    token_offsets: np.ndarray
    strings: list[list[str]]
    model: str
    crfsuite: str | None
    gold: np.ndarray
    _checked_model = None  # the model the instance was last checked against (not a field; never pickled)

    def __post_init__(self) -> None:
        ids = check_ids(self.ids, "FeatureInstance.ids", ndim=1)
        _refuse(ids, "FeatureInstance.ids", (ids < 0) | (ids > np.iinfo(np.int32).max), "not a feature id")
        offsets = check_ids(self.token_offsets, "FeatureInstance.token_offsets", ndim=1)
        if len(offsets) < 2 or offsets[0] != 0 or offsets[-1] != len(ids) or (np.diff(offsets) < 0).any():
            raise ValueError(
                f"FeatureInstance.token_offsets must rise from 0 to the number of feature ids ({len(ids)}) over "
                f"n >= 1 tokens; got {offsets.tolist()[:10]}"
            )
        n = len(offsets) - 1
        strings = self.strings
        if not isinstance(strings, list | tuple) or len(strings) != n:
            raise ValueError(f"FeatureInstance.strings must be a list of {n} token feature lists")
        for t, token in enumerate(strings):
            if not isinstance(token, list | tuple) or not all(isinstance(name, str) for name in token):
                raise ValueError(f"FeatureInstance.strings[{t}] must be a list of feature strings")
        if not isinstance(self.model, str):
            raise ValueError(f"FeatureInstance.model must be a path (str); got {self.model!r}")
        if self.crfsuite is not None and not isinstance(self.crfsuite, str):
            raise ValueError(f"FeatureInstance.crfsuite must be a path (str) or None; got {self.crfsuite!r}")
        gold = check_ids(self.gold, "FeatureInstance.gold", ndim=1)
        if gold.shape != (n,):
            raise ValueError(
                f"FeatureInstance.gold must have one label id per token ({n}); got shape {gold.shape}"
            )
        _refuse(gold, "FeatureInstance.gold", gold < -1, "not a label id (-1: unknown)")
        object.__setattr__(self, "ids", np.ascontiguousarray(ids, dtype=np.int32))
        object.__setattr__(self, "token_offsets", np.ascontiguousarray(offsets))
        object.__setattr__(self, "gold", gold)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_checked_model", None)  # a model is checked again in the process that unpickles it
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    @property
    def n_tokens(self) -> int:
        return len(self.token_offsets) - 1
