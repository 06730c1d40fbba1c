"""First-order pre-pruning (Martins et al. 2009; Qian and Liu 2013, section 4.4): per word, the k best heads of
a simple classifier.

The classifier (:func:`train_head_classifier`) is log-linear: each word picks its head among every other position
(root included) with probability proportional to exp(arc score), on the first-order arc features; it is trained
by stochastic gradient descent on the gold heads' log-loss. It ranks heads per word, which is what pruning asks
of it: a perceptron trained to decode whole trees ranks them far worse (measured on wsj dev: the gold head among
the top 10 for 95.5% of words with the first-order perceptron, 99.3% with this classifier).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numba
import numpy as np
from tqdm.auto import tqdm

from decoders.checks import check_float, check_int, check_pair, check_sequence
from decoders.parsing.checks import check_arc_scores, check_heads, check_scored, check_tokens, check_weights
from decoders.parsing.features import N_ATTRIBUTES, _arc_features, _max_arc_features, arc_scores

log = logging.getLogger(__name__)

#: ``k`` values whose recall (gold head among a word's k best) the classifier's training history reports.
RECALL_AT = (1, 3, 5, 10, 20)


def top_k_heads(scores: np.ndarray, k: int | None, tree: np.ndarray) -> np.ndarray:
    """Per word, the ``k`` heads of highest first-order score (ties: smaller head), plus the arcs of ``tree``
    (a full head array, the best first-order tree), so that a tree always remains; ``None`` keeps every arc.
    Returns the allowed arcs as an (n + 1, n + 1) bool mask (no arc into the root, no self-loop)."""
    scores = check_arc_scores(scores)
    n = scores.shape[0] - 1
    if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
        raise ValueError(f"k must be a positive number of heads per word or None, got {k!r}")
    everything = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(everything, False)
    everything[:, 0] = False
    if k is None or k >= n:
        return everything
    tree = check_heads(tree, "tree", n=n)
    masked = np.where(everything, scores, -np.inf)
    order = np.argsort(-masked[:, 1:], axis=0, kind="stable")[:k]  # rows: heads, per word column
    allowed = np.zeros((n + 1, n + 1), dtype=bool)
    allowed[order, np.arange(1, n + 1)[None, :]] = True
    allowed[tree[1:], np.arange(1, n + 1)] = True
    return allowed & everything


def _check_example(tokens: np.ndarray, gold: np.ndarray, where: str = "") -> tuple[np.ndarray, np.ndarray]:
    """A (tokens, gold full head array) pair checked; ``where`` names the example in messages."""
    tokens = check_tokens(tokens, N_ATTRIBUTES, f"tokens{where}")
    return tokens, check_heads(gold, f"gold{where}", n=tokens.shape[1] - 1)


def head_log_loss(tokens: np.ndarray, gold: np.ndarray, weights: np.ndarray, rate: float) -> float:
    """The sentence's summed log-loss -log p(gold[m] | m) over its words, each word's head distribution a
    softmax of arc scores over every other position; with ``rate`` > 0, one gradient step of that size per word,
    taken after the word's loss is read (stochastic gradient descent, in place on ``weights``, a float64 vector
    of power-of-two size). A loss that is not finite (a weight the sentence reads is not) is a ValueError."""
    tokens, gold = _check_example(tokens, gold)
    if not isinstance(weights, np.ndarray) or weights.dtype != np.float64:
        raise ValueError("weights must be a float64 array (they are updated in place)")
    weights = check_weights(weights, finite=False)
    loss = _head_log_loss(tokens, gold, weights, check_float(rate, "rate", minimum=0.0))
    check_scored(np.float64(loss), what="log-loss")
    return loss


@numba.njit(cache=True, nogil=True)
def _head_log_loss(tokens: np.ndarray, gold: np.ndarray, weights: np.ndarray, rate: float) -> float:
    """:func:`head_log_loss`'s kernel."""
    n = tokens.shape[1] - 1
    mask = np.uint64(weights.shape[0] - 1)
    room = _max_arc_features(n)
    features = np.empty((n + 1, room), dtype=np.int64)
    counts = np.zeros(n + 1, dtype=np.int64)
    scores = np.empty(n + 1)
    loss = 0.0
    for m in range(1, n + 1):
        top = -np.inf
        for h in range(n + 1):
            if h == m:
                continue
            counts[h] = _arc_features(tokens, h, m, mask, features[h])
            total = 0.0
            for i in range(counts[h]):
                total += weights[features[h, i]]
            scores[h] = total
            top = max(top, total)
        partition = 0.0
        for h in range(n + 1):
            if h != m:
                partition += np.exp(scores[h] - top)
        loss += np.log(partition) + top - scores[gold[m]]
        if rate <= 0.0:
            continue
        for h in range(n + 1):
            if h == m:
                continue
            gradient = np.exp(scores[h] - top) / partition - (1.0 if h == gold[m] else 0.0)
            for i in range(counts[h]):
                weights[features[h, i]] -= rate * gradient
    return loss


def gold_head_ranks(tokens: np.ndarray, gold: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per word (1..n), how many heads score strictly more than its gold head under ``weights``."""
    tokens, gold = _check_example(tokens, gold)
    n = tokens.shape[1] - 1
    everything = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(everything, False)
    everything[:, 0] = False
    scores = arc_scores(tokens, weights, everything)
    words = np.arange(1, n + 1)
    return (scores[:, 1:] > scores[gold[1:], words][None, :]).sum(axis=0)


def train_head_classifier(
    sentences: Sequence[tuple[np.ndarray, np.ndarray]],
    dev: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    size: int,
    epochs: int,
    learning_rate: float,
    seed: int,
    progress: bool = True,
) -> tuple[np.ndarray, list[dict], int]:
    """Train the per-word head classifier on ``(tokens, gold full head array)`` pairs: ``epochs`` passes in a
    seeded random order, step ``learning_rate / epoch``, from zero weights. Returns the weights of the epoch with
    the lowest dev log-loss, one history row per epoch (train and dev loss per word, dev recall at
    :data:`RECALL_AT`) and that epoch's number."""
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size <= 0 or size & (size - 1):
        raise ValueError(f"the weight vector's size must be a power of two, got {size}")
    check_int(epochs, "epochs", minimum=1)
    if (
        isinstance(learning_rate, bool)
        or not isinstance(learning_rate, int | float | np.number)
        or not (np.isfinite(learning_rate) and learning_rate > 0)
    ):
        raise ValueError(
            f"the head classifier's learning_rate must be a positive number, got {learning_rate!r}"
        )
    check_int(seed, "seed", minimum=0)
    sentences, dev = check_sequence(sentences, "sentences"), check_sequence(dev, "dev")
    if not dev:
        raise ValueError("the head classifier needs dev sentences to pick its epoch")
    sentences = [
        _check_example(*check_pair(pair, f"sentences[{i}]"), f" of sentences[{i}]")
        for i, pair in enumerate(sentences)
    ]
    dev = [_check_example(*check_pair(pair, f"dev[{i}]"), f" of dev[{i}]") for i, pair in enumerate(dev)]
    rng = np.random.default_rng(seed)
    weights = np.zeros(size)
    train_words = sum(tokens.shape[1] - 1 for tokens, _ in sentences)
    dev_words = sum(tokens.shape[1] - 1 for tokens, _ in dev)
    history: list[dict] = []
    best, best_loss, best_epoch = weights.copy(), np.inf, 0
    for epoch in range(1, epochs + 1):
        rate = learning_rate / epoch
        loss = 0.0
        for index in tqdm(
            rng.permutation(len(sentences)),
            desc=f"head classifier epoch {epoch}",
            disable=not progress,
            mininterval=5,
        ):
            tokens, gold = sentences[index]
            loss += _head_log_loss(tokens, gold, weights, rate)
        if not np.isfinite(loss) or not np.isfinite(weights).all():
            raise ValueError(
                f"the head classifier diverged in epoch {epoch} (loss {loss}): lower its learning_rate "
                f"({learning_rate})"
            )
        ranks = np.concatenate([gold_head_ranks(tokens, gold, weights) for tokens, gold in dev])
        dev_loss = sum(_head_log_loss(tokens, gold, weights, 0.0) for tokens, gold in dev) / max(dev_words, 1)
        row = {
            "epoch": epoch,
            "train_loss": loss / max(train_words, 1),
            "dev_loss": dev_loss,
            **{f"dev_recall_at_{k}": float(100 * np.mean(ranks < k)) for k in RECALL_AT},
        }
        history.append(row)
        log.info("head classifier epoch %d: %s", epoch, row)
        if dev_loss < best_loss:
            best, best_loss, best_epoch = weights.copy(), dev_loss, epoch
    return best, history, best_epoch
