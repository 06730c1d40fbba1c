r"""Training the linear-chain scorer: structured SVM by stochastic subgradient descent, averaged perceptron.

Structured SVM (the paper's POS model, section 7 and Fig. 2). With weights ``w = (W_e, W_t)``: ``W_e`` the
emission weights together with the start and end vectors, ``W_t`` the transitions ``tau``, training
sentences ``(x_s, y_s)``, ``s = 1..N``, and ``Phi`` the feature counts, the objective minimised is

    F(w) = sum_s max_y [w . Phi(x_s, y) + Delta(y, y_s)] - w . Phi(x_s, y_s)
           + lambda_e / 2 ||W_e||^2 + lambda_t / 2 ||W_t||^2

with the Hamming loss ``Delta`` (number of wrong tokens). The hinge terms are *summed*, not averaged, over
sentences: this is the ``1/2 ||w||^2 + C sum_s xi_s`` form of SVM-struct with ``C = 1/lambda``, so
``lambda = 0.1`` means little regularisation (C = 10) and ``lambda = 10`` strong regularisation (C = 0.1).
That makes the sweep of Fig. 2 (``lambda_t`` from 0.1 to 10 at ``lambda_e = 0.1``) go from nearly free
transitions to transitions shrunk well towards zero, while the emission part is unchanged.

Stochastic subgradient descent takes one sentence ``s`` at a time (a fresh random order every epoch, from
``seed``) and steps on ``F_s(w) = hinge_s(w) + (lambda_e/2N) ||W_e||^2 + (lambda_t/2N) ||W_t||^2``:

    W_e <- (1 - eta_t lambda_e / N) W_e - eta_t g_e,    W_t <- (1 - eta_t lambda_t / N) W_t - eta_t g_t,
    eta_t = eta_0 / (1 + eta_0 mu t),    mu = min(lambda_e, lambda_t) / N,

with ``t`` the number of steps taken so far and ``g = Phi(x_s, y_hat) - Phi(x_s, y_s)`` the subgradient of
the hinge, ``y_hat`` the loss-augmented Viterbi labels (Viterbi on ``theta + 1 - onehot(y_s)``). This is the
``1 / (mu t)`` schedule of Pegasos/Bottou for the per-sentence strong convexity ``mu``, capped at ``eta_0``
early on (default ``eta_0 = 0.1``: on the WSJ sample it reached a lower objective after 15-40 epochs than
0.01, 0.3 or 1). The paper trains with a 0/1 loss; the Hamming loss is the usual choice for taggers.

The L2 shrinkage is lazy: each block is stored as ``scale * V``; shrinking multiplies ``scale`` and a sparse
update adds ``+-eta/scale`` to a few entries of ``V`` (``scale`` is folded into ``V`` when it falls below
1e-4), so a step costs the features of one sentence, not ``F x L``. With ``average=True`` the returned
weights are the average of all iterates (averaged SGD), kept lazily as ``(A + B V) / t``: a sparse step
``V += D`` does ``A -= B D`` and then ``B += scale``; folding the scale into ``V`` first flushes
``A += B V``, ``B = 0`` (otherwise ``A`` and ``B V`` would grow huge and cancel).

The averaged perceptron is the same loop without loss augmentation and without shrinkage, with ``eta = 1``.
Both loops run an epoch per numba call; a ``tqdm`` bar reports epochs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from decoders.chains.checks import check_flag, check_label_names
from decoders.chains.features import FeatureMatrix, FeatureVocabulary, fit_features
from decoders.chains.model import ChainModel, _gather_emissions, label_inventory, sentence_labels
from decoders.chains.viterbi import _viterbi
from decoders.checks import check_ids
from decoders.errors import ConfigError

__all__ = ["ssvm_objective", "train_chain_model", "train_perceptron", "train_ssvm"]

# positions in the float64 state vector of the epoch kernel
_SCALE_E, _SCALE_T, _SUM_E, _SUM_T, _STEPS = range(5)
_RESCALE_BELOW = 1e-4  # when a scale falls below this, fold it into V (O(size) work, rare)


# --------------------------------------------------------------------------- numba kernels


@numba.njit(cache=True, nogil=True)
def _add_to_row(
    weights: np.ndarray, sums: np.ndarray, row: int, up: int, down: int, delta: float, weight_sum: float
) -> None:
    """``weights[row, up] += delta``, ``weights[row, down] -= delta``, and the lazy average's ``A -= B D``."""
    weights[row, up] += delta
    weights[row, down] -= delta
    if weight_sum != 0.0:
        sums[row, up] -= weight_sum * delta
        sums[row, down] += weight_sum * delta


@numba.njit(cache=True, nogil=True)
def _fold_scale(
    weights: np.ndarray, sums: np.ndarray, state: np.ndarray, sum_slot: int, scale: float, average: bool
) -> None:
    """Fold a small ``scale`` into ``weights`` (the caller resets it to 1).

    The lazy average ``A + B V`` is first flushed into ``A`` (``B = 0``): keeping ``B / scale`` instead
    would let ``A`` and ``B V`` grow huge and cancel, losing all precision after a few rescalings.
    """
    if average:
        sums += state[sum_slot] * weights
        state[sum_slot] = 0.0
    weights *= scale


@numba.njit(cache=True, nogil=True)
def _epoch(
    order: np.ndarray,
    ids: np.ndarray,
    token_offsets: np.ndarray,
    sentence_offsets: np.ndarray,
    gold: np.ndarray,
    emission: np.ndarray,
    emission_sums: np.ndarray,
    transition: np.ndarray,
    transition_sums: np.ndarray,
    state: np.ndarray,
    eta0: float,
    mu: float,
    shrink_e: float,
    shrink_t: float,
    loss_augmented: bool,
    average: bool,
    rescale_below: float,
) -> tuple[int, int, float]:
    """One pass over the sentences in ``order``; updates the arrays and ``state`` in place.

    Returns the number of sentences with a (margin) violation, the number of wrongly decoded tokens and
    the sum of the hinge losses (perceptron: of the score gaps), each measured before the sentence's step.
    """
    n_rows = emission.shape[0]
    start_row, end_row = n_rows - 2, n_rows - 1
    violations = 0
    token_errors = 0
    loss = 0.0
    for s in order:
        first, stop = sentence_offsets[s], sentence_offsets[s + 1]
        n = stop - first
        y = gold[first:stop]
        scale_e, scale_t = state[_SCALE_E], state[_SCALE_T]
        theta = _gather_emissions(
            emission, emission[start_row], emission[end_row], ids, token_offsets, first, stop
        )
        theta *= scale_e
        gold_score = 0.0
        for i in range(n):
            gold_score += theta[i, y[i]]
        for i in range(n - 1):
            gold_score += scale_t * transition[y[i], y[i + 1]]
        if loss_augmented:
            theta += 1.0
            for i in range(n):
                theta[i, y[i]] -= 1.0
        # Viterbi maximises theta + scale_t * T; dividing by scale_t > 0 keeps the argmax
        y_hat, best = _viterbi(theta / scale_t, transition)
        loss += best * scale_t - gold_score
        errors = 0
        for i in range(n):
            if y_hat[i] != y[i]:
                errors += 1
        # one step: shrink (every step), then the sparse subgradient update (on a violation)
        eta = eta0 / (1.0 + eta0 * mu * state[_STEPS])
        scale_e *= 1.0 - eta * shrink_e
        scale_t *= 1.0 - eta * shrink_t
        sum_e = state[_SUM_E] if average else 0.0
        sum_t = state[_SUM_T] if average else 0.0
        if errors > 0:
            violations += 1
            token_errors += errors
            delta_e = eta / scale_e
            for i in range(n):
                a, b = y[i], y_hat[i]
                if a == b:
                    continue
                t = first + i
                for k in range(token_offsets[t], token_offsets[t + 1]):
                    _add_to_row(emission, emission_sums, ids[k], a, b, delta_e, sum_e)
                if i == 0:
                    _add_to_row(emission, emission_sums, start_row, a, b, delta_e, sum_e)
                if i == n - 1:
                    _add_to_row(emission, emission_sums, end_row, a, b, delta_e, sum_e)
            delta_t = eta / scale_t
            for i in range(n - 1):
                a0, a1, b0, b1 = y[i], y[i + 1], y_hat[i], y_hat[i + 1]
                if a0 == b0 and a1 == b1:
                    continue
                transition[a0, a1] += delta_t
                transition[b0, b1] -= delta_t
                if average:
                    transition_sums[a0, a1] -= sum_t * delta_t
                    transition_sums[b0, b1] += sum_t * delta_t
        if average:
            state[_SUM_E] += scale_e
            state[_SUM_T] += scale_t
        if scale_e < rescale_below:
            _fold_scale(emission, emission_sums, state, _SUM_E, scale_e, average)
            scale_e = 1.0
        if scale_t < rescale_below:
            _fold_scale(transition, transition_sums, state, _SUM_T, scale_t, average)
            scale_t = 1.0
        state[_SCALE_E], state[_SCALE_T] = scale_e, scale_t
        state[_STEPS] += 1.0
    return violations, token_errors, loss


@numba.njit(cache=True, nogil=True)
def _hinge_sum(
    weights: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    tau: np.ndarray,
    ids: np.ndarray,
    token_offsets: np.ndarray,
    sentence_offsets: np.ndarray,
    gold: np.ndarray,
) -> float:
    """Sum over sentences of the Hamming-loss structured hinge, by loss-augmented Viterbi."""
    total = 0.0
    for s in range(sentence_offsets.shape[0] - 1):
        first, stop = sentence_offsets[s], sentence_offsets[s + 1]
        n = stop - first
        y = gold[first:stop]
        theta = _gather_emissions(weights, start, end, ids, token_offsets, first, stop)
        gold_score = 0.0
        for i in range(n):
            gold_score += theta[i, y[i]]
            theta[i] += 1.0
            theta[i, y[i]] -= 1.0
        for i in range(n - 1):
            gold_score += tau[y[i], y[i + 1]]
        _, best = _viterbi(theta, tau)
        total += max(best - gold_score, 0.0)
    return total


# --------------------------------------------------------------------------- Python API


def ssvm_objective(
    model: ChainModel, matrix: FeatureMatrix, gold: np.ndarray, lambda_e: float, lambda_t: float
) -> float:
    """The structured SVM objective ``F(w)`` of the module docstring for ``model`` on a training set."""
    if not isinstance(model, ChainModel):
        raise ValueError(f"model must be a ChainModel; got {type(model).__name__}")
    if not np.isfinite(model.tau).all():
        raise ValueError("model.tau forbids transitions (-inf): the structured SVM objective is not defined")
    _check_lambdas(lambda_e, lambda_t)
    gold = _check_data(matrix, gold, model.n_labels, model.n_features)
    hinge = _hinge_sum(
        model.weights,
        model.start,
        model.end,
        model.tau,
        matrix.ids,
        matrix.token_offsets,
        matrix.sentence_offsets,
        gold,
    )
    emission_norm = float(np.sum(model.weights**2) + np.sum(model.start**2) + np.sum(model.end**2))
    return hinge + 0.5 * lambda_e * emission_norm + 0.5 * lambda_t * float(np.sum(model.tau**2))


def train_ssvm(
    matrix: FeatureMatrix,
    gold: np.ndarray,
    labels: Sequence[str],
    vocabulary: FeatureVocabulary,
    *,
    lambda_e: float = 0.1,
    lambda_t: float = 0.1,
    epochs: int = 20,
    learning_rate: float = 0.1,
    average: bool = True,
    seed: int = 0,
    progress: bool = True,
    track_objective: bool = False,
) -> tuple[ChainModel, list[dict[str, Any]]]:
    """A structured SVM (objective and schedule in the module docstring), and one history row per epoch.

    ``gold`` holds the label id (into ``labels``) of every token of ``matrix``, flat. ``learning_rate`` is
    ``eta_0``. With ``track_objective`` each history row also has the objective ``F`` of the weights that
    would be returned after that epoch (one more pass over the data per epoch).
    """
    _check_options(epochs, learning_rate, seed)
    _check_lambdas(lambda_e, lambda_t)
    n_sentences = matrix.n_sentences
    if n_sentences and learning_rate * max(lambda_e, lambda_t) / n_sentences >= 1.0:
        raise ConfigError(
            f"learning_rate * max(lambda_e, lambda_t) / sentences must be < 1 (a step would flip the weights' "
            f"sign): {learning_rate} * {max(lambda_e, lambda_t)} / {n_sentences}"
        )
    options = {
        "method": "ssvm",
        "lambda_e": lambda_e,
        "lambda_t": lambda_t,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "average": average,
        "seed": seed,
    }
    mu = min(lambda_e, lambda_t) / n_sentences if n_sentences else 0.0
    per_sentence = (lambda_e / n_sentences, lambda_t / n_sentences) if n_sentences else (0.0, 0.0)
    objective = (
        (lambda model: ssvm_objective(model, matrix, gold, lambda_e, lambda_t))
        if check_flag(track_objective, "track_objective")
        else None
    )
    return _train(
        matrix, gold, labels, vocabulary, options, learning_rate, mu, per_sentence, True, progress, objective
    )


def train_perceptron(
    matrix: FeatureMatrix,
    gold: np.ndarray,
    labels: Sequence[str],
    vocabulary: FeatureVocabulary,
    *,
    epochs: int = 10,
    average: bool = True,
    seed: int = 0,
    progress: bool = True,
) -> tuple[ChainModel, list[dict[str, Any]]]:
    """A (by default averaged) structured perceptron with Viterbi decoding, and one history row per epoch."""
    _check_options(epochs, 1.0, seed)
    options = {"method": "perceptron", "epochs": epochs, "average": average, "seed": seed}
    return _train(matrix, gold, labels, vocabulary, options, 1.0, 0.0, (0.0, 0.0), False, progress, None)


def train_chain_model(
    frame: pd.DataFrame, *, method: str = "ssvm", min_count: int = 1, **options: Any
) -> tuple[ChainModel, list[dict[str, Any]]]:
    """Featurise a training sentence table and train on it (``method``: ``ssvm`` or ``perceptron``).

    The labels are the table's fine tags, or joint ``TAG|NER`` labels when it has a ``ner`` column
    (:func:`decoders.chains.model.sentence_labels`); ``options`` go to :func:`train_ssvm` or
    :func:`train_perceptron`. The model's ``meta`` records ``min_count`` and the feature count too.
    """
    trainers = {"ssvm": train_ssvm, "perceptron": train_perceptron}
    if not isinstance(method, str) or method not in trainers:
        raise ConfigError(f"training method must be one of {sorted(trainers)}, got {method!r}")
    if isinstance(min_count, bool) or not isinstance(min_count, int | np.integer) or min_count < 1:
        raise ConfigError(f"min_count must be an int >= 1, got {min_count!r}")
    labels = label_inventory(frame)  # checks the frame and its tags
    if "words" not in frame.columns:
        raise ValueError(f"frame must have a 'words' column; got columns {list(frame.columns)}")
    index = {label: i for i, label in enumerate(labels)}
    vocabulary, matrix = fit_features(frame["words"], min_count)  # checks the words
    for number, (words, tags) in enumerate(zip(frame["words"], frame["tags"], strict=True)):
        if len(words) != len(tags):
            raise ValueError(
                f"frame: sentence {number} (0-based) has {len(words)} words but {len(tags)} tags"
            )
    gold = np.fromiter(
        (index[label] for sentence in sentence_labels(frame) for label in sentence),
        dtype=np.int64,
        count=matrix.n_tokens,
    )
    model, history = trainers[method](matrix, gold, labels, vocabulary, **options)
    model.meta.update({"min_count": min_count, "features": len(vocabulary)})
    return model, history


def _check_options(epochs: int, learning_rate: float, seed: int) -> None:
    if isinstance(epochs, bool) or not isinstance(epochs, int | np.integer) or epochs < 1:
        raise ConfigError(f"epochs must be an int >= 1, got {epochs!r}")
    if (
        isinstance(learning_rate, bool)
        or not isinstance(learning_rate, int | float | np.integer | np.floating)
        or not 0 < learning_rate < np.inf
    ):
        raise ConfigError(f"learning_rate must be a finite number > 0, got {learning_rate!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"seed must be an int >= 0, got {seed!r}")


def _check_lambdas(lambda_e: float, lambda_t: float) -> None:
    for name, value in (("lambda_e", lambda_e), ("lambda_t", lambda_t)):
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float | np.integer | np.floating)
            or not 0 <= value < np.inf
        ):
            raise ConfigError(f"{name} must be a finite number >= 0, got {value!r}")


def _check_data(matrix: FeatureMatrix, gold: np.ndarray, n_labels: int, n_features: int) -> np.ndarray:
    if not isinstance(matrix, FeatureMatrix):
        raise ValueError(f"matrix must be a FeatureMatrix; got {type(matrix).__name__}")
    gold = np.ascontiguousarray(check_ids(gold, "gold"))
    if gold.shape != (matrix.n_tokens,):
        raise ValueError(f"gold must have one label id per token ({matrix.n_tokens}); got shape {gold.shape}")
    if len(gold) and (gold.min() < 0 or gold.max() >= n_labels):
        raise ValueError(f"gold label ids must lie in 0..{n_labels - 1}")
    if matrix.max_id() >= n_features:
        raise ValueError(f"feature id {matrix.max_id()} out of range: the vocabulary has {n_features}")
    return gold


def _train(
    matrix: FeatureMatrix,
    gold: np.ndarray,
    labels: Sequence[str],
    vocabulary: FeatureVocabulary,
    options: dict[str, Any],
    eta0: float,
    mu: float,
    shrink: tuple[float, float],
    loss_augmented: bool,
    progress: bool,
    objective: Any,
) -> tuple[ChainModel, list[dict[str, Any]]]:
    """The epoch loop shared by both methods; returns the model and the per-epoch history."""
    labels = check_label_names(labels, "labels")
    if not isinstance(vocabulary, FeatureVocabulary):
        raise ValueError(f"vocabulary must be a FeatureVocabulary; got {type(vocabulary).__name__}")
    n_labels, n_features = len(labels), len(vocabulary)
    gold = _check_data(matrix, gold, n_labels, n_features)
    average = check_flag(options["average"], "average")
    progress = check_flag(progress, "progress")
    emission = np.zeros((n_features + 2, n_labels))  # rows F and F + 1: the start and end vectors
    transition = np.zeros((n_labels, n_labels))
    emission_sums = np.zeros_like(emission) if average else np.zeros((0, 0))
    transition_sums = np.zeros_like(transition) if average else np.zeros((0, 0))
    state = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    rng = np.random.default_rng(options["seed"])
    history: list[dict[str, Any]] = []

    def current_model() -> ChainModel:
        if average and state[_STEPS] > 0:
            w_e = (emission_sums + state[_SUM_E] * emission) / state[_STEPS]
            w_t = (transition_sums + state[_SUM_T] * transition) / state[_STEPS]
        else:
            w_e, w_t = state[_SCALE_E] * emission, state[_SCALE_T] * transition
        return ChainModel(w_e[:-2], w_e[-2], w_e[-1], w_t, labels, vocabulary, options)

    bar = tqdm(range(1, options["epochs"] + 1), desc=f"train {options['method']}", disable=not progress)
    for epoch in bar:
        began = time.perf_counter()
        violations, token_errors, loss = _epoch(
            rng.permutation(matrix.n_sentences),
            matrix.ids,
            matrix.token_offsets,
            matrix.sentence_offsets,
            gold,
            emission,
            emission_sums,
            transition,
            transition_sums,
            state,
            eta0,
            mu,
            shrink[0],
            shrink[1],
            loss_augmented,
            average,
            _RESCALE_BELOW,
        )
        row: dict[str, Any] = {
            "epoch": epoch,
            "seconds": time.perf_counter() - began,
            "violations": int(violations),
            "token_errors": int(token_errors),
            "loss": float(loss),
        }
        if objective is not None:
            row["objective"] = objective(current_model())
        history.append(row)
        bar.set_postfix(violations=row["violations"], token_errors=row["token_errors"])
    return current_model(), history
