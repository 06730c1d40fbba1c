"""Averaged structured perceptron (Collins 2002) for the first- and second-order parsers, hashed features.

Weights stay integers: an update adds +1 for each feature of the gold tree and -1 for each of the predicted
tree, so the running weights ``w`` and the sum ``u`` of ``c * update`` (c = updates so far, the standard
averaging trick) are exact in float64. The averaged weights are ``(c w - u) / c``; :class:`AveragedWeights`
keeps the integer numerator and the denominator (examples seen) apart, so that tree scores are integers divided
by one known number (Qian and Liu 2013, section 4.4, tighten B&B upper bounds to that grid).

A structure decoded by an LP relaxation may instead offer ``decode_relaxed`` (:class:`RelaxedStructure`): the
update then subtracts the features of the LP's own solution, each weighted by its part's value, and a sentence
counts as a mistake unless that solution is integral and is the gold tree (Martins et al. 2009's relaxed
training). Fractional solutions are then penalised as such, which is what teaches the weights to make the LP
integral; the weights are no longer integers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numba
import numpy as np
from tqdm.auto import tqdm

from decoders.checks import check_finite, check_int, check_pair, check_sequence, float_array
from decoders.parsing.checks import check_allowed, check_heads, check_tokens
from decoders.parsing.eisner import _eisner
from decoders.parsing.features import N_ATTRIBUTES, arc_scores, second_order_scores, tree_features
from decoders.parsing.second_order import _second_order
from decoders.parsing.third_order import third_order, third_order_features

log = logging.getLogger(__name__)


class Structure(Protocol):
    """What the perceptron needs of a model's structure: its best tree under given weights (over the ``allowed``
    arcs, every arc when None), and the feature indices of a tree (the parts it scores, repeated as often as
    they fire)."""

    def decode(
        self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray | None = None
    ) -> np.ndarray: ...

    def features(self, tokens: np.ndarray, heads: np.ndarray, size: int) -> np.ndarray: ...


class IncumbentStructure(Structure, Protocol):
    """A structure whose search can start from the gold tree as its best tree so far: returns its best tree
    and whether the search finished."""

    def decode_against(
        self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray | None, gold: np.ndarray
    ) -> tuple[np.ndarray, bool]: ...


@dataclass(frozen=True)
class RelaxedSolution:
    """An LP relaxation's solution for a sentence: the tree read from it, whether it is integral, its objective
    under the weights it was decoded with, and the feature indices of its parts with each part's value (features
    below the structure's ``fixed_weights`` may be left out: they are never updated)."""

    heads: np.ndarray
    integral: bool
    score: float
    indices: np.ndarray
    values: np.ndarray


class RelaxedStructure(Structure, Protocol):
    """A structure whose training decoder is an LP relaxation, updated on the relaxed solution."""

    def decode_relaxed(
        self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray | None = None
    ) -> RelaxedSolution: ...


def _fixed_weights(structure: Structure) -> int:
    """A structure may keep its first ``fixed_weights`` weights as given (``initial``): they score trees but are
    never updated."""
    return int(getattr(structure, "fixed_weights", 0))


@dataclass(frozen=True)
class LocalStructure:
    """First-order (Eisner), second-order (Carreras-style DP) or third-order (Koo and Collins 2010 Model 1)
    parsing over every arc, or over ``allowed``."""

    order: int

    def __post_init__(self) -> None:
        if (
            isinstance(self.order, bool)
            or not isinstance(self.order, int | np.integer)
            or self.order not in (1, 2, 3)
        ):
            raise ValueError(f"order must be 1, 2 or 3, got {self.order!r}")

    def decode(
        self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray | None = None
    ) -> np.ndarray:
        """The best projective tree under ``weights`` (full head array). The scoring functions check the
        arguments and the scores they compute; the DPs then run on them unchecked."""
        tokens = check_tokens(tokens, N_ATTRIBUTES)
        n = tokens.shape[1] - 1
        mask = np.ones((n + 1, n + 1), dtype=bool) if allowed is None else allowed
        if self.order == 3:
            return third_order(tokens, weights, mask)[0]
        arc = arc_scores(tokens, weights, mask)
        if self.order == 1:
            return _eisner(arc)[0]
        return _second_order(arc, *second_order_scores(tokens, weights, arc))[0]

    def features(self, tokens: np.ndarray, heads: np.ndarray, size: int) -> np.ndarray:
        if self.order == 3:
            return third_order_features(tokens, heads, size)
        return tree_features(tokens, heads, size, self.order == 2)


@dataclass
class AveragedWeights:
    """Averaged weights as ``numerator / denominator`` (a float64 array, integer-valued unless the structure
    was trained on relaxed solutions; a positive integer)."""

    numerator: np.ndarray
    denominator: int

    @property
    def weights(self) -> np.ndarray:
        return self.numerator / self.denominator


@dataclass
class TrainingLog:
    """What training did: per epoch the updates and the dev UAS of the averaged weights; ``last_weights``: the
    running (not averaged) weights at the end of the kept epoch, from which another training can continue."""

    epochs: list[dict[str, float]] = field(default_factory=list)
    best_epoch: int = 0
    last_weights: np.ndarray | None = None


@numba.njit(cache=True, nogil=True)
def _update(
    weights: np.ndarray, sums: np.ndarray, indices: np.ndarray, values: np.ndarray, step: float
) -> None:
    for j in range(indices.shape[0]):
        weights[indices[j]] += values[j]
        sums[indices[j]] += values[j] * step


def _prediction(
    structure: Structure, tokens, gold: np.ndarray, weights: np.ndarray, allowed, size: int
) -> tuple[bool, np.ndarray, np.ndarray, float, bool]:
    """Whether the prediction differs from gold, its feature indices and values, its score, and whether the
    decoder settled it (False: a search with gold as incumbent stopped before it could tell)."""
    relaxed = getattr(structure, "decode_relaxed", None)
    if relaxed is not None:
        solution = relaxed(tokens, weights, allowed)
        wrong = not (solution.integral and np.array_equal(solution.heads, gold))
        return wrong, solution.indices, solution.values, solution.score, True
    against = getattr(structure, "decode_against", None)
    settled = True
    if against is not None:
        predicted, settled = against(tokens, weights, allowed, gold)
    else:
        predicted = structure.decode(tokens, weights, allowed)
    if np.array_equal(predicted, gold):
        return False, predicted[:0], np.zeros(0), 0.0, settled
    indices = structure.features(tokens, predicted, size)
    return True, indices, np.ones(len(indices)), float(weights[indices].sum()), settled


def _check_example(example: tuple, index: int) -> tuple:
    """A training example ``(tokens, gold[, allowed])`` checked once, before any epoch: ``gold`` a full head array,
    ``allowed`` None or a bool mask of its sentence (the tokens are the structure's to read, and check)."""
    if not isinstance(example, tuple | list) or len(example) not in (2, 3):
        raise ValueError(
            f"sentences[{index}] must be (tokens, gold[, allowed]), got {type(example).__name__}"
        )
    gold = check_heads(example[1], f"gold of sentences[{index}]")
    if len(example) == 2 or example[2] is None:
        return (example[0], gold, *example[2:])
    return example[0], gold, check_allowed(example[2], f"allowed of sentences[{index}]", n=len(gold) - 1)


def train(
    sentences: Sequence[tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, np.ndarray | None]],
    structure: Structure,
    *,
    epochs: int,
    size: int,
    seed: int,
    evaluate: Callable[[AveragedWeights], float] | None = None,
    progress: bool = True,
    initial: np.ndarray | None = None,
    average: AveragedWeights | None = None,
    step_below: tuple[int, int] | None = None,
) -> tuple[AveragedWeights, TrainingLog]:
    """Train on ``(tokens, gold full head array[, allowed arcs])`` (projective gold trees; ``allowed``, when
    given, restricts decoding, as pre-pruning does, and should keep the gold arcs), ``epochs`` passes in a
    seeded random order, from zero weights or ``initial`` (a structure's ``fixed_weights`` first weights stay as
    given); with ``evaluate`` (e.g. dev UAS of averaged weights) the epoch that scores best is returned.
    ``average``, with ``initial``: the averaged weights of the training that ended at ``initial``, which this one
    continues: the returned average then counts that training's examples too, as one longer training would.
    ``step_below = (boundary, r)``: every update moves the weights of features below ``boundary`` by the integer
    ``r``, the rest by 1 (a non-local model's backbone half learns r times as fast as its factors)."""
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size <= 0 or size & (size - 1):
        raise ValueError(f"the weight vector's size must be a power of two, got {size}")
    check_int(epochs, "epochs", minimum=1)
    check_int(seed, "seed", minimum=0)
    if not callable(getattr(structure, "features", None)) or not any(
        callable(getattr(structure, name, None)) for name in ("decode", "decode_relaxed")
    ):
        raise ValueError(
            f"structure must be a Structure (decode and features); got {type(structure).__name__}"
        )
    if evaluate is not None and not callable(evaluate):
        raise ValueError(f"evaluate must be a function of the averaged weights or None; got {evaluate!r}")
    if average is not None and not isinstance(average, AveragedWeights):
        raise ValueError(f"average must be AveragedWeights or None; got {type(average).__name__}")
    sentences = [
        _check_example(example, index) for index, example in enumerate(check_sequence(sentences, "sentences"))
    ]
    boundary, rate = (
        check_pair(step_below, "step_below", "(boundary, step)") if step_below is not None else (0, 1)
    )
    check_int(boundary, "step_below's boundary", minimum=0)
    if isinstance(rate, bool) or not isinstance(rate, int | np.integer) or rate < 1:
        raise ValueError(f"step_below's step must be an integer >= 1, got {rate!r}")
    rng = np.random.default_rng(seed)
    fixed = _fixed_weights(structure)
    weights, sums, step = _starting_weights(size, initial, average)
    history = TrainingLog()
    best: AveragedWeights | None = None
    best_score = -np.inf
    for epoch in range(1, epochs + 1):
        order_of_visit = rng.permutation(len(sentences))
        mistakes, skipped, unsettled, step = _train_epoch(
            sentences, order_of_visit, structure, weights, sums, step,
            size=size, fixed=fixed, boundary=boundary, rate=rate, epoch=epoch, progress=progress,
        )  # fmt: skip
        # the mean of the weights after each of the step - 1 examples so far: sum_t w_t = step * w - sums
        averaged = AveragedWeights(step * weights - sums, int(step) - 1)
        row = {
            "epoch": epoch,
            "sentences": len(sentences),
            "mistakes": mistakes,
            "not_violations": skipped,
            "unsettled_searches": unsettled,
        }
        if evaluate is not None:
            row["dev_uas"] = evaluate(averaged)
        history.epochs.append(row)
        log.info("epoch %d: %s", epoch, row)
        score = row.get("dev_uas", epoch)
        if score > best_score:
            best, best_score, history.best_epoch = averaged, score, epoch
            history.last_weights = weights.copy()
    assert best is not None
    return best, history


def _starting_weights(
    size: int, initial: np.ndarray | None, average: AveragedWeights | None
) -> tuple[np.ndarray, np.ndarray, float]:
    """The running weights, the sums ``u`` and the step ``c`` to start from: zero weights, or ``initial``, or the
    state of the training that ended at ``initial`` with the averaged weights ``average``."""
    weights = np.zeros(size) if initial is None else np.array(float_array(initial, "initial"), dtype=float)
    if weights.shape != (size,):
        raise ValueError(f"initial weights must have shape ({size},), got {weights.shape}")
    check_finite(weights, "initial")
    sums = weights.copy()  # so that the average counts the initial weights once per example, like any w_t
    step = 1.0  # c: examples seen so far + 1
    if average is not None:  # resume: numerator = step * w - sums after `denominator` examples
        if initial is None:
            raise ValueError("an average to continue needs the running weights it ended at (initial)")
        if average.numerator.shape != (size,) or average.denominator < 1:
            raise ValueError(
                f"the average to continue must have shape ({size},) and a positive denominator, got "
                f"{average.numerator.shape} / {average.denominator}"
            )
        step = float(average.denominator + 1)
        sums = step * weights - average.numerator
    return weights, sums, step


def _train_epoch(
    sentences: list[tuple],
    order_of_visit: np.ndarray,
    structure: Structure,
    weights: np.ndarray,
    sums: np.ndarray,
    step: float,
    *,
    size: int,
    fixed: int,
    boundary: int,
    rate: int,
    epoch: int,
    progress: bool,
) -> tuple[int, int, int, float]:
    """One pass over the sentences in ``order_of_visit``, updating ``weights`` and ``sums`` in place: (mistakes,
    updates skipped as not violations, unsettled searches, the step after it)."""
    mistakes = skipped = unsettled = 0
    for index in tqdm(order_of_visit, desc=f"perceptron epoch {epoch}", disable=not progress, mininterval=5):
        tokens, gold, *allowed = sentences[index]
        wrong, predicted, values, score, settled = _prediction(
            structure, tokens, gold, weights, allowed[0] if allowed else None, size
        )
        unsettled += not settled
        if wrong:
            mistakes += 1
            gold_features = structure.features(tokens, gold, size)
            # an inexact decoder (a search stopped at its limit, a tree read from a fractional LP) may return
            # a tree that scores below gold: updating on it is not a perceptron step (Huang et al. 2012)
            if score >= weights[gold_features].sum():
                gold_kept = gold_features[gold_features >= fixed]
                _update(weights, sums, gold_kept, np.where(gold_kept < boundary, rate, 1.0), step)
                keep = predicted >= fixed
                kept = predicted[keep]
                _update(weights, sums, kept, -values[keep] * np.where(kept < boundary, rate, 1.0), step)
            else:
                skipped += 1
        step += 1.0
    return mistakes, skipped, unsettled, step
