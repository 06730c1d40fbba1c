"""ppc's data flow: prepared treebanks -> a first-order MST parser and a grandparent parser -> test instances.

Treebanks are read with their lemmas and morphological features (config ``morphology: true``) and their gold
trees as arborescences rooted at 0 (the DDT's sentences may have several root modifiers; the LPs allow it, as in
the paper). Every training tree is used, projective or not (the parsers are non-projective). UAS ignores
punctuation as the CoNLL-X/2007 evaluation script does: words whose form is all punctuation characters.

Training (:mod:`decoders.ppc.training`): the first-order model first (the MST row: a per-word head classifier,
the epoch of lowest dev log-loss kept, its weights scaled), then the grandparent model, which keeps those arc
weights and learns grandparent weights with the full LP over each training sentence's ``train_k`` best
first-order heads per word plus the gold arcs (with ``train_k`` null, parse, price and cut over every arc), the
epoch of best dev UAS kept, dev decoded over every arc. Decoding the test set is never pruned.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import checked
from decoders.errors import ConfigError
from decoders.harness.instances import write_instance_shards
from decoders.io import read_json, write_json_atomic, write_parquet_atomic
from decoders.parsing.features import Vocabulary, arc_scores
from decoders.parsing.model import ParserModel, fixed_point
from decoders.parsing.mst import chu_liu_edmonds
from decoders.parsing.perceptron import AveragedWeights, train
from decoders.parsing.pruning import top_k_heads, train_head_classifier
from decoders.parsing.treebank import gold_trees, load_splits
from decoders.parsing.trees import punctuation_form_mask
from decoders.parsing.udpipe import parse_udpipe_each, train_udpipe
from decoders.ppc.instance import PPCInstance
from decoders.ppc.model import GrandparentIndex, GrandparentParser, Lexicon
from decoders.ppc.training import Encoded, GrandparentLP, every_arc

log = logging.getLogger(__name__)


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return frame.to_dict("records")


@checked(frame="frame", vocabulary=Vocabulary, lexicon=Lexicon, source="text")
def encode(
    frame: pd.DataFrame, vocabulary: Vocabulary, lexicon: Lexicon, source: str = "<sentences>"
) -> list[tuple[Encoded, np.ndarray, np.ndarray]]:
    """(encoded sentence, gold full head array, words UAS scores) per sentence."""
    trees = gold_trees(frame, source, single_root=False)
    out = []
    for row, gold in zip(_rows(frame), trees, strict=True):
        tokens = Encoded(
            vocabulary.encode(row["words"], row["tags"], row["coarse_tags"]), lexicon.encode(row)
        )
        out.append((tokens, gold, punctuation_form_mask(row["words"])))
    return out


@checked(predicted="sequence", data="sequence")
def uas_of(predicted: Sequence[np.ndarray], data: Sequence[tuple[Encoded, np.ndarray, np.ndarray]]) -> float:
    """Unlabelled attachment score (%) of ``predicted`` full head arrays against ``data``'s gold trees (the same
    number of sentences, each ``(tokens, gold, scored)`` with heads of its length: a ValueError naming the first
    that differs)."""
    if len(predicted) != len(data):
        raise ValueError(f"predicted has {len(predicted)} head arrays, data {len(data)} sentences")
    for i, (heads, item) in enumerate(zip(predicted, data, strict=True)):
        if not isinstance(item, tuple | list) or len(item) != 3:
            raise ValueError(f"data[{i}] must be a (tokens, gold, scored) triple; got {type(item).__name__}")
        if np.shape(heads) != np.shape(item[1]):
            raise ValueError(
                f"predicted[{i}] has shape {np.shape(heads)}, its gold heads {np.shape(item[1])}"
            )
    correct = total = 0
    for heads, (_, gold, scored) in zip(predicted, data, strict=True):
        correct += int(np.count_nonzero((heads[1:] == gold[1:]) & scored))
        total += int(np.count_nonzero(scored))
    return 100.0 * correct / total if total else float("nan")


@checked(tokens=Encoded, weights=np.ndarray, k="positive", gold=np.ndarray)
def prune(tokens: Encoded, weights: np.ndarray, k: int, gold: np.ndarray | None = None) -> np.ndarray:
    """The ``k`` best first-order heads per word plus the MST's arcs (and ``gold``'s, for training)."""
    n = tokens.arc_tokens.shape[1] - 1
    scores = arc_scores(tokens.arc_tokens, weights, np.ones((n + 1, n + 1), dtype=bool))
    allowed = top_k_heads(scores, k, chu_liu_edmonds(scores)[0])
    if gold is not None:
        allowed[gold[1:], np.arange(1, n + 1)] = True
    return allowed


@checked(frames="splits", epochs="positive", seed="count", first_order="mapping", progress="flag")
def train_parsers(
    frames: Mapping[str, pd.DataFrame],
    *,
    bits: int,
    epochs: int,
    train_k: int | None,
    seed: int,
    first_order: Mapping[str, Any],
    epoch_tolerance: float = 0.0,
    progress: bool = False,
) -> tuple[ParserModel, GrandparentParser, dict[str, Any]]:
    """The first-order MST parser and the grandparent parser, trained on train, epochs chosen on dev
    (:func:`choose_epoch`).

    ``first_order``: the head classifier's ``learning_rate`` and ``epochs`` and the ``scale`` its weights are
    multiplied by to become arc scores (they are log-probabilities up to a constant: the grandparent perceptron's
    unit steps must not swamp them)."""
    scale = _check_training_options(bits, train_k, epoch_tolerance, first_order)
    train_rows = _rows(frames["train"])
    vocabulary = Vocabulary.build((r["words"], r["tags"], r["coarse_tags"]) for r in train_rows)
    lexicon = Lexicon.build(train_rows)
    data = {split: encode(frames[split], vocabulary, lexicon, split) for split in ("train", "dev")}
    history: dict[str, Any] = {"sentences": {split: len(rows) for split, rows in data.items()}}
    arc_weights, numerator, denominator, history["first_order"] = _train_first_order(
        data, bits=bits, seed=seed, first_order=first_order, scale=scale, progress=progress
    )
    grand, index, history["grandparent"] = _train_grandparent(
        data,
        arc_weights,
        bits=bits,
        epochs=epochs,
        train_k=train_k,
        seed=seed,
        epoch_tolerance=epoch_tolerance,
        progress=progress,
    )
    meta = {
        "bits": bits,
        "train_k": train_k,
        "epochs": epochs,
        "seed": seed,
        "first_order": dict(first_order),
    }
    first_model = ParserModel(numerator, denominator, vocabulary, {"kind": "mst"}, meta)
    parser = GrandparentParser(grand.numerator, grand.denominator, vocabulary, lexicon, index, bits, meta)
    return first_model, parser, history


def _check_training_options(
    bits: int, train_k: int | None, epoch_tolerance: float, first_order: Mapping[str, Any]
) -> float:
    """Check ``bits``, ``train_k``, ``epoch_tolerance`` and the first-order ``scale``, a ConfigError naming each;
    returns the scale."""
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 30:
        raise ConfigError(f"experiments.ppc.bits must be an integer in 1..30, got {bits!r}")
    if train_k is not None and (isinstance(train_k, bool) or not isinstance(train_k, int) or train_k < 1):
        raise ConfigError(f"experiments.ppc.train_k must be a positive integer or null, got {train_k!r}")
    _check_tolerance(epoch_tolerance)
    scale = first_order.get("scale")
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not np.isfinite(scale) or scale <= 0:
        raise ConfigError(f"experiments.ppc.first_order.scale must be a positive number, got {scale!r}")
    return scale


def _train_first_order(
    data: Mapping[str, list[tuple[Encoded, np.ndarray, np.ndarray]]],
    *,
    bits: int,
    seed: int,
    first_order: Mapping[str, Any],
    scale: float,
    progress: bool,
) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """Train the head classifier and scale it into arc weights: (arc weights, their fixed-point numerator and
    denominator, the history's ``first_order`` entry with the dev UAS of the MST parser)."""
    start = time.perf_counter()
    try:
        classifier, rows, best = train_head_classifier(
            [(x.arc_tokens, g) for x, g, _ in data["train"]],
            [(x.arc_tokens, g) for x, g, _ in data["dev"]],
            size=1 << bits,
            epochs=first_order["epochs"],
            learning_rate=first_order["learning_rate"],
            seed=seed,
            progress=progress,
        )
        arc_weights = scale * classifier
        numerator, denominator = fixed_point(arc_weights, "the head classifier")
    except ValueError as exc:
        raise ConfigError(f"experiments.ppc.first_order {dict(first_order)}: {exc}") from exc
    dev_trees = [
        chu_liu_edmonds(arc_scores(x.arc_tokens, arc_weights, every_arc(x.arc_tokens.shape[1] - 1)))[0]
        for x, _, _ in data["dev"]
    ]
    record = {
        "epochs": rows,
        "best_epoch": best,
        "dev_uas": uas_of(dev_trees, data["dev"]),
        "seconds": time.perf_counter() - start,
    }
    return arc_weights, numerator, denominator, record


def _train_grandparent(
    data: Mapping[str, list[tuple[Encoded, np.ndarray, np.ndarray]]],
    arc_weights: np.ndarray,
    *,
    bits: int,
    epochs: int,
    train_k: int | None,
    seed: int,
    epoch_tolerance: float,
    progress: bool,
) -> tuple[AveragedWeights, GrandparentIndex, dict[str, Any]]:
    """Train the grandparent perceptron from the arc weights and choose its epoch on dev: (the chosen averaged
    weights, the grandparent feature index, the history's ``grandparent`` entry)."""
    start = time.perf_counter()
    index = GrandparentIndex.build((x.attributes, g) for x, g, _ in data["train"])
    shape = GrandparentLP(index, bits)
    if train_k is None:
        training = [(x, g) for x, g, _ in data["train"]]
    else:
        training = [(x, g, prune(x, arc_weights, train_k, g)) for x, g, _ in data["train"]]

    integral = []  # per epoch: % of dev sentences whose LP solution is integral
    averages: list[AveragedWeights] = []  # per epoch: the averaged weights

    def dev_lp(averaged: AveragedWeights) -> float:
        """Dev UAS of the grandparent LP over every arc, as the test sets are decoded."""
        results = [shape.solve(x, averaged.numerator) for x, _, _ in data["dev"]]
        integral.append(100.0 * sum(r.integral for r in results) / max(len(results), 1))
        averages.append(AveragedWeights(averaged.numerator.copy(), averaged.denominator))
        return uas_of([r.heads for r in results], data["dev"])

    _, log_grand = train(
        training, shape, epochs=epochs, size=shape.size, seed=seed, evaluate=dev_lp, progress=progress,
        initial=shape.initial(arc_weights),
    )  # fmt: skip
    for row, pct in zip(log_grand.epochs, integral, strict=True):
        row["dev_integral_pct"] = pct
    chosen = choose_epoch(log_grand.epochs, epoch_tolerance)
    record = {
        "epochs": log_grand.epochs,
        "best_epoch": chosen,
        "best_uas_epoch": log_grand.best_epoch,
        "epoch_tolerance": epoch_tolerance,
        "seconds": time.perf_counter() - start,
        "features": len(index),
        "train_k": train_k,
    }
    return averages[chosen - 1], index, record


@checked(epochs="sequence")
def choose_epoch(epochs: Sequence[Mapping[str, float]], tolerance: float) -> int:
    """The grandparent parser's epoch (1-based): among the epochs whose dev UAS is within ``tolerance`` points of
    the best, the one whose dev LPs are most often integral (then the higher UAS, then the earlier). Dev UAS
    differences of a few words are noise; fractional LPs are what the paper's models have few of."""
    _check_tolerance(tolerance)
    if not epochs:
        raise ValueError("epochs must hold at least one epoch's dev results; got none")
    for i, row in enumerate(epochs):
        if not isinstance(row, Mapping) or not {"dev_uas", "dev_integral_pct"} <= set(row):
            raise ValueError(f"epochs[{i}] must be a mapping with dev_uas and dev_integral_pct; got {row!r}")
    best = max(row["dev_uas"] for row in epochs)
    near = [i for i, row in enumerate(epochs) if row["dev_uas"] >= best - tolerance]
    return 1 + max(near, key=lambda i: (epochs[i]["dev_integral_pct"], epochs[i]["dev_uas"], -i))


def _check_tolerance(tolerance: float) -> None:
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not tolerance >= 0:
        raise ConfigError(f"experiments.ppc.epoch_tolerance must be a number >= 0, got {tolerance!r}")


@checked(splits="path_mapping", first_out="path", model_out="path", history_out="path")
def train_job(
    splits: Mapping[str, str],
    first_out: str,
    model_out: str,
    history_out: str,
    *,
    dev_fraction: float,
    **options: Any,
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    first, parser, history = train_parsers(frames, **options)
    first.save(first_out)
    parser.save(model_out)
    write_json_atomic(history_out, history)


@checked(splits="path_mapping", first_path="path", model_path="path", shard_paths="paths", index_path="path")
def instances_job(
    splits: Mapping[str, str],
    first_path: str,
    model_path: str,
    shard_paths: Sequence[str | Path],
    index_path: str,
    *,
    dev_fraction: float,
) -> None:
    """The test sentences as :class:`PPCInstance` shards (model files by path: decoders load them once)."""
    frames = load_splits(splits, dev_fraction=dev_fraction)
    parser = GrandparentParser.load(model_path)
    items = []
    for row, (tokens, gold, scored) in zip(
        _rows(frames["test"]), encode(frames["test"], parser.vocabulary, parser.lexicon, "test"), strict=True
    ):
        instance = PPCInstance(
            tokens.arc_tokens, tokens.attributes, gold, scored, str(model_path), str(first_path)
        )
        items.append((str(row["sent_id"]), instance.n**3, instance))  # the full LP grows with n^3 parts
    write_instance_shards(items, shard_paths, index_path)


@checked(splits="path_mapping", model_out="path", training_out="path", parser_options="text", seed="count")
def udpipe_train_job(
    splits: Mapping[str, str],
    model_out: str,
    training_out: str,
    *,
    dev_fraction: float,
    parser_options: str,
    seed: int,
) -> None:
    """The peer's training: UDPipe 1 on every training tree (a non-projective transition system; the
    treebank's own tags), dev for its early stopping."""
    frames = load_splits(splits, dev_fraction=dev_fraction)
    training = train_udpipe(
        frames["train"], model_out, heldout=frames["dev"], parser_options=parser_options, seed=seed
    )
    write_json_atomic(training_out, training)


@checked(splits="path_mapping", model="path", training="path", records_out="path", summary_out="path")
def udpipe_job(
    splits: Mapping[str, str],
    model: str,
    training: str,
    records_out: str,
    summary_out: str,
    *,
    dev_fraction: float,
) -> None:
    """The peer parsing the test sentences (timed: UDPipe's parser calls); per sentence the correct and scored
    words (punctuation by form, as for every ppc row) and its parser seconds."""
    frames = load_splits(splits, dev_fraction=dev_fraction)
    test = frames["test"]
    heads, each = parse_udpipe_each(model, test)
    seconds = float(sum(each))
    rows = []
    for sent_id, words, gold, predicted, own in zip(
        test["sent_id"], test["words"], test["heads"], heads, each, strict=True
    ):
        scored = punctuation_form_mask(words)
        right = (np.asarray(predicted) == np.asarray(gold)) & scored
        rows.append(
            {
                "instance_id": str(sent_id),
                "words": len(words),
                "correct": int(right.sum()),
                "total": int(scored.sum()),
                "seconds": own,
            }
        )
    write_parquet_atomic(records_out, pd.DataFrame(rows))
    write_json_atomic(
        summary_out,
        {
            "training": read_json(training),
            "test_sentences": len(test),
            "parse_seconds": seconds,
            "sentences_per_s": len(test) / seconds if seconds > 0 else float("nan"),
        },
    )
