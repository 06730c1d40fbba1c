"""Averaged structured perceptron (Collins 2002) for the first- and second-order parsers, hashed features.

Weights stay integers: an update adds +1 for each feature of the gold tree and -1 for each of the predicted
tree, so the running weights ``w`` and the sum ``u`` of ``c * update`` (c = updates so far, the standard
averaging trick) are exact in float64. The averaged weights are ``(c w - u) / c``; :class:`AveragedWeights`
keeps the integer numerator and the denominator (examples seen) apart, so that tree scores are integers divided
by one known number (Qian and Liu 2013, section 4.4, tighten B&B upper bounds to that grid).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
from tqdm.auto import tqdm

from decoders.parsing.eisner import eisner
from decoders.parsing.features import arc_scores, second_order_scores, tree_features
from decoders.parsing.second_order import second_order

log = logging.getLogger(__name__)


@dataclass
class AveragedWeights:
    """Averaged weights as ``numerator / denominator`` (integer-valued float64 array, positive integer)."""

    numerator: np.ndarray
    denominator: int
    order: int

    @property
    def weights(self) -> np.ndarray:
        return self.numerator / self.denominator


@dataclass
class TrainingLog:
    """What training did: per epoch the updates and the dev UAS of the averaged weights."""

    epochs: list[dict[str, float]] = field(default_factory=list)
    best_epoch: int = 0


@numba.njit(cache=True, nogil=True)
def _update(weights: np.ndarray, sums: np.ndarray, indices: np.ndarray, sign: float, step: float) -> None:
    for i in indices:
        weights[i] += sign
        sums[i] += sign * step


def decode(
    tokens: np.ndarray, weights: np.ndarray, order: int, allowed: np.ndarray | None = None
) -> np.ndarray:
    """The best projective tree under ``weights`` (full head array), first- or second-order."""
    n = tokens.shape[1] - 1
    mask = np.ones((n + 1, n + 1), dtype=bool) if allowed is None else allowed
    arc = arc_scores(tokens, weights, mask)
    if order == 1:
        return eisner(arc)[0]
    return second_order(arc, *second_order_scores(tokens, weights, arc))[0]


def train(
    sentences: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    order: int,
    epochs: int,
    size: int,
    seed: int,
    evaluate: Callable[[AveragedWeights], float] | None = None,
    progress: bool = True,
) -> tuple[AveragedWeights, TrainingLog]:
    """Train on ``(tokens, gold full head array)`` pairs (projective gold trees), ``epochs`` passes in a seeded
    random order; with ``evaluate`` (e.g. dev UAS of averaged weights) the epoch that scores best is returned."""
    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order!r}")
    if size <= 0 or size & (size - 1):
        raise ValueError(f"the weight vector's size must be a power of two, got {size}")
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    rng = np.random.default_rng(seed)
    weights = np.zeros(size)
    sums = np.zeros(size)
    step = 1.0  # c: examples seen so far + 1
    history = TrainingLog()
    best: AveragedWeights | None = None
    best_score = -np.inf
    for epoch in range(1, epochs + 1):
        order_of_visit = rng.permutation(len(sentences))
        mistakes = 0
        for index in tqdm(
            order_of_visit, desc=f"perceptron epoch {epoch}", disable=not progress, mininterval=5
        ):
            tokens, gold = sentences[index]
            predicted = decode(tokens, weights, order)
            if not np.array_equal(predicted, gold):
                mistakes += 1
                _update(weights, sums, tree_features(tokens, gold, size, order == 2), 1.0, step)
                _update(weights, sums, tree_features(tokens, predicted, size, order == 2), -1.0, step)
            step += 1.0
        # the mean of the weights after each of the step - 1 examples so far: sum_t w_t = step * w - sums
        averaged = AveragedWeights(step * weights - sums, int(step) - 1, order)
        row = {"epoch": epoch, "sentences": len(sentences), "mistakes": mistakes}
        if evaluate is not None:
            row["dev_uas"] = evaluate(averaged)
        history.epochs.append(row)
        log.info("epoch %d: %s", epoch, row)
        score = row.get("dev_uas", epoch)
        if score > best_score:
            best, best_score, history.best_epoch = averaged, score, epoch
    assert best is not None
    return best, history
