"""The bnb experiment's stages, each called by one thin workflow script: the tags sentences are parsed with, a
trained parser model, the instance sets the decoders read, and the oracles that bound every UAS.

Splits are the prepared ones; a treebank without a dev split (the WSJ sample) gives its last training documents
(``dev_fraction`` of its sentences, :func:`decoders.corpora.sentences.split_by_document`) to dev, which picks
the perceptron's epoch. Training sentences whose gold tree is not projective are left out (counted in the
model's history): every parser here is projective. English coarse tags are the first two characters of the
fine tag (section 4.2's "simple mapping table"); other languages keep the treebank's coarse tags (UPOS).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.bnb.factors import PATTERNS, pattern_counts
from decoders.bnb.instance import ParseInstance
from decoders.bnb.model import NonLocalStructure, prune_heads, structure_of
from decoders.bnb.tagging import coarse_of, jackknife_tags, predict_tags, tag_accuracy, train_tagger
from decoders.checks import checked
from decoders.errors import ConfigError, CorpusFormatError
from decoders.harness.instances import write_instance_shards
from decoders.io import read_json, read_parquet, write_json_atomic, write_parquet_atomic
from decoders.parsing.eisner import eisner
from decoders.parsing.features import Vocabulary
from decoders.parsing.model import ParserModel, fixed_point
from decoders.parsing.perceptron import AveragedWeights, LocalStructure, train
from decoders.parsing.pruning import train_head_classifier
from decoders.parsing.treebank import (
    SPLITS,
    ParseSentence,
    gold_trees,
    load_splits,
    parse_sentences,
    projective_flags,
    uas,
)
from decoders.parsing.udpipe import parse_udpipe_each, train_udpipe

log = logging.getLogger(__name__)


def _coarse(tags: Sequence[Sequence[str]], frame: pd.DataFrame, language: str) -> list[list[str]]:
    if language == "en":
        return [[coarse_of(tag) for tag in sentence] for sentence in tags]
    return frame["coarse_tags"].tolist()


@checked(
    frames="splits",
    mode="text",
    language="text",
    tagger="mapping",
    folds="positive",
    min_count="count",
    seed="count",
)
def tag_splits(
    frames: Mapping[str, pd.DataFrame],
    *,
    mode: str,
    language: str,
    tagger: Mapping[str, Any],
    folds: int,
    min_count: int,
    seed: int,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The tags every split is parsed with and their accuracy. ``gold``: the treebank's fine tags;
    ``predicted``: the chains tagger, jackknifed (``folds``) on train and trained on all of train for dev and
    test, as Qian and Liu (2013) do for English."""
    if mode not in ("gold", "predicted"):
        raise ConfigError(f"experiments.bnb.tags: {mode!r} is not 'gold' or 'predicted'")
    if mode == "predicted" and language != "en":
        raise ConfigError(
            f"experiments.bnb.tags: predicted tags need a coarse-tag mapping, known for English only; "
            f"language {language!r} parses with gold tags"
        )
    started = time.perf_counter()
    if mode == "predicted":
        train_frame = frames["train"]
        tags = {"train": jackknife_tags(train_frame, tagger, folds=folds, min_count=min_count, seed=seed)}
        model = train_tagger(train_frame, tagger, min_count=min_count, seed=seed)
        for split in ("dev", "test"):
            tags[split] = predict_tags(model, frames[split]["words"].tolist())
    else:
        tags = {split: frame["tags"].tolist() for split, frame in frames.items()}
    rows, accuracy = [], {}
    for split in SPLITS:
        frame = frames[split]
        accuracy[split] = tag_accuracy(tags[split], frame["tags"].tolist())
        coarse = _coarse(tags[split], frame, language)
        rows.append(
            pd.DataFrame(
                {
                    "split": split,
                    "sent_id": frame["sent_id"].astype(str),
                    "tags": tags[split],
                    "coarse": coarse,
                }
            )
        )
        log.info("%s: %d sentences, tag accuracy %.2f%%", split, len(frame), accuracy[split])
    summary = {
        "mode": mode,
        "folds": folds if mode == "predicted" else None,
        "accuracy": accuracy,
        "sentences": {split: len(frames[split]) for split in SPLITS},
        "seconds": time.perf_counter() - started,
    }
    return pd.concat(rows, ignore_index=True), summary


@checked(table="frame", split="text", frame="frame", source="text")
def tags_of(table: pd.DataFrame, split: str, frame: pd.DataFrame, source: str) -> tuple[list, list]:
    """(tags, coarse) of a split's sentences from a tags table, checked against the sentences themselves."""
    part = table[table["split"] == split]
    if part["sent_id"].tolist() != frame["sent_id"].astype(str).tolist():
        raise CorpusFormatError(source, None, f"the {split} tags do not belong to these {split} sentences")
    tags, coarse = part["tags"].map(list).tolist(), part["coarse"].map(list).tolist()
    for sent_id, words, fine in zip(frame["sent_id"], frame["words"], tags, strict=True):
        if len(words) != len(fine):
            raise CorpusFormatError(
                source, None, f"{split} sentence {sent_id}: tags and words differ in length"
            )
    return tags, coarse


@checked(frames="splits", table="frame", split="text", vocabulary=Vocabulary, language="text", source="text")
def encode_split(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    split: str,
    vocabulary: Vocabulary,
    language: str,
    source: str,
) -> list[ParseSentence]:
    tags, coarse = tags_of(table, split, frames[split], source)
    return parse_sentences(
        frames[split], vocabulary, language=language, tags=tags, coarse_tags=coarse, source=source
    )


@checked(frames="splits", table="frame", source="text")
def train_vocabulary(frames: Mapping[str, pd.DataFrame], table: pd.DataFrame, source: str) -> Vocabulary:
    """The vocabulary every model of a dataset is trained with: train's words and the tags the parsers read."""
    tags, coarse = tags_of(table, "train", frames["train"], source)
    return Vocabulary.build(zip(frames["train"]["words"], tags, coarse, strict=True))


@checked(
    frames="splits",
    table="frame",
    structure="mapping",
    language="text",
    epochs="positive",
    k="positive?",
    pruner=(ParserModel, type(None)),
    seed="count",
    search="mapping",
    start=ParserModel,
    start_source="text",
    source="text",
    progress="flag",
)
def train_parser(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    *,
    structure: Mapping[str, Any],
    language: str,
    epochs: int,
    bits: int,
    k: int | None,
    pruner: ParserModel | None,
    seed: int,
    search: Mapping[str, int] | None = None,
    start: ParserModel | None = None,
    start_source: str = "<start model>",
    source: str = "<tags>",
    progress: bool = True,
    backbone_step: int = 1,
) -> tuple[ParserModel, dict[str, Any]]:
    """Train one parser (``structure``: ``{"order": 1|2|3}`` or ``{"groups": [...]}``) with the averaged
    perceptron on train's projective trees; the epoch with the best dev UAS is kept. With a ``pruner`` (the
    first-order model) training and dev decoding see the arcs :func:`prune_heads` keeps at ``k`` (training
    sentences also keep their gold arcs, so that the gold tree stays reachable). Branch and bound inside training
    starts from the gold tree as its incumbent (:meth:`NonLocalStructure.decode_against`); ``search``
    (``max_nodes``, ``max_iterations``) bounds it: a search stopped before it finds a tree scoring at least as
    much as gold, or proves there is none, gives no update (dev decoding, which only picks the epoch, uses the
    same limits); the test decoders search without them. ``start``: a model trained on the same data whose
    running weights training continues from (the non-local models start from the baseline's: their factor
    weights start at zero, where branch and bound is exact, instead of every weight at once). ``{"classifier":
    "heads", ...}`` trains the pruner instead (:func:`_head_classifier`; ``k``, ``pruner`` and ``start`` unused).
    ``backbone_step`` (non-local models): each update moves the backbone's weights by this integer and the
    factors' by 1, the start model's weights scaled to match, so the factors learn at 1/backbone_step of the
    backbone's rate (a group whose factors a tree fires many times over, such as tri-siblings, otherwise moves
    many times more weights per update than the backbone does)."""
    if isinstance(bits, bool) or not isinstance(bits, int | np.integer) or not 1 <= bits <= 30:
        raise ConfigError(f"experiments.bnb.features.bits must lie in 1..30, got {bits!r}")
    started = time.perf_counter()
    vocabulary, sentences, kept, meta = _training_data(frames, table, language, source)
    if "classifier" in structure:
        return _head_classifier(
            kept, sentences["dev"], vocabulary, structure, meta, epochs, bits, seed, progress, started
        )
    shape, training_shape, size = _training_shapes(structure, vocabulary, bits, search, backbone_step)
    initial = average = None
    if start is not None:
        initial, average = _start_weights(
            start, start_source, vocabulary, structure, shape, bits, size, backbone_step
        )
    data, dev_masks = _pruned_data(kept, sentences["dev"], pruner, k)
    averaged, history = train(
        data,
        training_shape,
        epochs=epochs,
        size=size,
        seed=seed,
        evaluate=_dev_evaluation(training_shape, sentences["dev"], dev_masks),
        progress=progress,
        initial=initial,
        average=average,
        step_below=(size // 2, backbone_step) if isinstance(shape, NonLocalStructure) else None,
    )
    meta.update(
        {
            "epochs": history.epochs,
            "best_epoch": history.best_epoch,
            "k": k if pruner is not None else None,
            "training_search": dict(search) if training_shape is not shape else None,
            "start_from": start_source if start is not None else None,
            "backbone_step": backbone_step,
            "seconds": time.perf_counter() - started,
        }
    )
    model = ParserModel(
        averaged.numerator, averaged.denominator, vocabulary, dict(structure), meta, history.last_weights
    )
    return model, meta


def _training_data(
    frames: Mapping[str, pd.DataFrame], table: pd.DataFrame, language: str, source: str
) -> tuple[Vocabulary, dict[str, list[ParseSentence]], list[ParseSentence], dict[str, Any]]:
    """The vocabulary, every split encoded, train's projective sentences and the counts kept of them."""
    vocabulary = train_vocabulary(frames, table, source)
    sentences = {split: encode_split(frames, table, split, vocabulary, language, source) for split in SPLITS}
    projective = projective_flags(s.gold for s in sentences["train"])
    kept = [s for s, flag in zip(sentences["train"], projective, strict=True) if flag]
    meta = {
        "train_sentences": len(sentences["train"]),
        "non_projective_left_out": int((~projective).sum()),
        "dev_sentences": len(sentences["dev"]),
        "language": language,
    }
    return vocabulary, sentences, kept, meta


def _training_shapes(
    structure: Mapping[str, Any],
    vocabulary: Vocabulary,
    bits: int,
    search: Mapping[str, int] | None,
    backbone_step: int,
) -> tuple[LocalStructure | NonLocalStructure, LocalStructure | NonLocalStructure, int]:
    """The model's structure, the one training decodes with, its weight size; checks backbone_step."""
    shape = structure_of(dict(structure), vocabulary)
    if isinstance(backbone_step, bool) or not isinstance(backbone_step, int) or backbone_step < 1:
        raise ConfigError(f"backbone_step must be an integer >= 1, got {backbone_step!r}")
    if backbone_step != 1 and not isinstance(shape, NonLocalStructure):
        raise ConfigError(f"backbone_step applies to non-local (groups) models only, not {dict(structure)}")
    training_shape = shape
    if isinstance(shape, NonLocalStructure) and search:
        training_shape = replace(shape, **dict(search))
    # a non-local model has two hash spaces of 2^bits (the backbone's features, the factors'; NonLocalStructure)
    size = 1 << (bits + 1 if isinstance(shape, NonLocalStructure) else bits)
    return shape, training_shape, size


def _start_weights(
    start: ParserModel,
    start_source: str,
    vocabulary: Vocabulary,
    structure: Mapping[str, Any],
    shape: LocalStructure | NonLocalStructure,
    bits: int,
    size: int,
    backbone_step: int,
) -> tuple[np.ndarray, AveragedWeights]:
    """The running weights and average from the start model (factors' at zero); ConfigError if unfit."""
    if start.running is None:
        raise ConfigError(f"{start_source} holds no running weights to start training from (retrain it)")
    if start.vocabulary.ids != vocabulary.ids or start.running.shape != (1 << bits,):
        raise ConfigError(
            f"{start_source} was trained on other data or another feature space (vocabulary or "
            f"experiments.bnb.feature_bits differ): it cannot start this model's training"
        )
    if start.structure.get("order") != 2 or not (
        isinstance(shape, NonLocalStructure) or dict(structure) == {"order": 2}
    ):
        raise ConfigError(
            f"{start_source} ({start.structure}) can only start a non-local model, as its second-order part, "
            f"or a second-order model (its continuation: an equal-training reference)"
        )
    # the start model's weights are the backbone's; the factors' weights (if any) start at zero; the average
    # goes on counting the start model's examples (one longer training, the factors joining after its kept
    # epoch)
    pad = np.zeros(size - start.running.shape[0])
    initial = np.concatenate([start.running * backbone_step, pad])
    average = AveragedWeights(np.concatenate([start.numerator * backbone_step, pad]), start.denominator)
    return initial, average


def _pruned_data(
    kept: Sequence[ParseSentence], dev: Sequence[ParseSentence], pruner: ParserModel | None, k: int | None
) -> tuple[list[tuple], list[np.ndarray | None]]:
    """Training examples and dev masks with the pruner's arcs at k (training keeps gold's arcs)."""
    first_order = pruner.numerator if pruner is not None else None

    def allowed(sentence: ParseSentence, gold: bool) -> np.ndarray | None:
        if first_order is None:
            return None
        mask = prune_heads(sentence.tokens, first_order, k)
        if gold:
            mask[sentence.gold[1:], np.arange(1, sentence.n + 1)] = True
        return mask

    data = [(s.tokens, s.gold, allowed(s, True)) for s in kept]
    dev_masks = [allowed(s, False) for s in dev]
    return data, dev_masks


def _dev_evaluation(
    shape: LocalStructure | NonLocalStructure,
    dev: Sequence[ParseSentence],
    dev_masks: Sequence[np.ndarray | None],
) -> Callable[[AveragedWeights], float]:
    """The dev UAS of averaged weights (dev decoded with ``shape``), by which the epoch is picked."""

    def evaluate(averaged: AveragedWeights) -> float:
        predicted = [
            shape.decode(s.tokens, averaged.numerator, mask) for s, mask in zip(dev, dev_masks, strict=True)
        ]
        return uas(predicted, dev)

    return evaluate


def _head_classifier(
    kept: Sequence[ParseSentence],
    dev: Sequence[ParseSentence],
    vocabulary: Vocabulary,
    structure: Mapping[str, Any],
    meta: dict[str, Any],
    epochs: int,
    bits: int,
    seed: int,
    progress: bool,
    started: float,
) -> tuple[ParserModel, dict[str, Any]]:
    """The pruner of section 4.4 (:mod:`decoders.parsing.pruning`): ``{"classifier": "heads", "learning_rate":
    r}``, trained on the projective training trees, the epoch of lowest dev log-loss kept."""
    if structure.get("classifier") != "heads" or set(structure) - {"classifier", "learning_rate"}:
        raise ConfigError(
            f"a classifier model is {{classifier: heads, learning_rate: r}}, got {dict(structure)}"
        )
    rate = structure.get("learning_rate", 0.1)
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not (np.isfinite(rate) and rate > 0):
        raise ConfigError(f"the head classifier's learning_rate must be a positive number, got {rate!r}")
    try:
        weights, history, best = train_head_classifier(
            [(s.tokens, s.gold) for s in kept],
            [(s.tokens, s.gold) for s in dev],
            size=1 << bits,
            epochs=epochs,
            learning_rate=float(rate),
            seed=seed,
            progress=progress,
        )
    except ValueError as exc:
        raise ConfigError(f"head classifier {dict(structure)}: {exc}") from exc
    try:
        numerator, denominator = fixed_point(weights, "the head classifier")
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    meta.update({"epochs": history, "best_epoch": best, "k": None, "seconds": time.perf_counter() - started})
    model = ParserModel(numerator, denominator, vocabulary, dict(structure), meta)
    return model, meta


@checked(
    frames="splits",
    table="frame",
    model_path="path",
    pruner_path="path",
    k="positive?",
    language="text",
    shard_paths="paths",
    index_path="path",
    source="text",
)
def build_instances(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    *,
    model_path: str | Path,
    pruner_path: str | Path,
    k: int | None,
    language: str,
    shard_paths: Sequence[str | Path],
    index_path: str | Path,
    source: str = "<tags>",
) -> pd.DataFrame:
    """The test split as :class:`ParseInstance` shards for one model at pruning ``k``, and per sentence the
    projective oracle (the most correct scored heads any projective tree has) with and without the pruning.

    Each instance records the pruner's file and ``k`` beside the arcs they keep (None: unpruned, every arc): the
    decoders prune the sentence again inside their timed call and check it against those arcs."""
    model = ParserModel.load(model_path)
    pruner = ParserModel.load(pruner_path)
    if pruner.vocabulary.ids != model.vocabulary.ids:
        raise ConfigError(
            f"{pruner_path} and {model_path} were trained on different data (vocabularies differ)"
        )
    sentences = encode_split(frames, table, "test", model.vocabulary, language, source)
    model_file = str(Path(model_path).resolve())
    pruner_file = None if k is None else str(Path(pruner_path).resolve())
    items, oracle = [], []
    for sentence in sentences:
        allowed = prune_heads(sentence.tokens, pruner.numerator, k)
        instance = ParseInstance(
            sentence.tokens, sentence.gold, sentence.scored, allowed, model_file, k, pruner_file
        )
        items.append((sentence.sent_id, sentence.n, instance))
        oracle.append(
            {
                "instance_id": sentence.sent_id,
                "words": sentence.n,
                "scored": int(sentence.scored.sum()),
                "projective": bool(projective_flags([sentence.gold])[0]),
                "oracle": oracle_correct(sentence, None),
                "pruned_oracle": oracle_correct(sentence, allowed),
            }
        )
    write_instance_shards(items, shard_paths, index_path)
    log.info("%d test sentences in %d shards (k = %s)", len(items), len(shard_paths), k)
    return pd.DataFrame(oracle)


@checked(sentence=ParseSentence, allowed=(np.ndarray, type(None)))
def oracle_correct(sentence: ParseSentence, allowed: np.ndarray | None) -> int:
    """The most scored words any projective tree over ``allowed`` (every arc: None) attaches correctly."""
    n = sentence.n
    scores = np.zeros((n + 1, n + 1))
    modifiers = np.arange(1, n + 1)
    scores[sentence.gold[1:], modifiers] = sentence.scored.astype(float)
    scores[:, 0] = -np.inf
    scores[modifiers, modifiers] = -np.inf
    if allowed is not None:
        scores[~allowed] = -np.inf
    return int(round(eisner(scores)[1]))


@checked(frames="splits", table="frame", language="text", source="text")
def factor_counts(
    frames: Mapping[str, pd.DataFrame], table: pd.DataFrame, *, language: str, source: str = "<tags>"
) -> pd.DataFrame:
    """Per split and hand-crafted pattern (:data:`decoders.bnb.factors.PATTERNS`, in order): the split's
    ``sentences``, the pattern's ``candidates`` over every arc and the factors the gold trees fire (``gold``;
    :func:`decoders.bnb.factors.pattern_counts`), read as the hand-crafted model reads them: with the tags the
    parsers read and the training vocabulary's lexicon ids. Every sentence counts (non-projective training trees,
    which training leaves out, included)."""
    vocabulary = train_vocabulary(frames, table, source)
    lexicon = structure_of({"groups": ["hand_crafted"]}, vocabulary).lexicon_array
    rows = []
    for split in SPLITS:
        sentences = encode_split(frames, table, split, vocabulary, language, source)
        counts = pattern_counts([(s.tokens, s.gold) for s in sentences], lexicon)
        rows += [
            {"split": split, "pattern": name, "sentences": len(sentences), **counts[name]}
            for name in PATTERNS
        ]
    return pd.DataFrame(rows).rename(columns={"fired": "gold"})


def _tagged(frames: Mapping[str, pd.DataFrame], table: pd.DataFrame, source: str) -> dict[str, pd.DataFrame]:
    tagged = {}
    for split in SPLITS:
        tags, coarse = tags_of(table, split, frames[split], source)
        tagged[split] = frames[split].assign(tags=tags, coarse_tags=coarse)
    return tagged


@checked(
    frames="splits", table="frame", model_path="path", parser_options="text", seed="count", source="text"
)
def train_udpipe_peer(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    *,
    model_path: str | Path,
    parser_options: str,
    seed: int,
    source: str = "<tags>",
) -> dict[str, Any]:
    """The peer's training (not timed against anything, so it runs beside other jobs): UDPipe 1 on train's
    projective trees with the bnb tags, dev for its early stopping. Returns what was done."""
    tagged = _tagged(frames, table, source)
    train_frame = tagged["train"][projective_flags(gold_trees(frames["train"], source))]
    return train_udpipe(
        train_frame, model_path, heldout=tagged["dev"], parser_options=parser_options, seed=seed
    )


@checked(
    frames="splits", table="frame", model_path="path", training="mapping", language="text", source="text"
)
def run_udpipe(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    *,
    model_path: str | Path,
    training: dict[str, Any],
    language: str,
    source: str = "<tags>",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The peer parsing the test sentences with the bnb tags (timed: UDPipe's parser calls only); per sentence
    the correct and scored words and the parser's seconds (a speed ratio against the peer resamples them), and
    what was measured."""
    tagged = _tagged(frames, table, source)
    test = frames["test"]
    heads, each = parse_udpipe_each(
        model_path,
        test,
        tags=tagged["test"]["tags"].tolist(),
        coarse_tags=tagged["test"]["coarse_tags"].tolist(),
    )
    sentences = parse_sentences(test, Vocabulary(), language=language, source=source)
    rows = []
    for sentence, predicted, own in zip(sentences, heads, each, strict=True):
        right = (np.asarray(predicted) == sentence.gold[1:]) & sentence.scored
        rows.append(
            {
                "instance_id": sentence.sent_id,
                "words": sentence.n,
                "correct": int(right.sum()),
                "total": int(sentence.scored.sum()),
                "seconds": own,
            }
        )
    seconds = float(sum(each))
    words = int(sum(sentence.n for sentence in sentences))
    summary = {
        "training": training,
        "test_sentences": len(sentences),
        "test_words": words,
        "parse_seconds": seconds,
        "words_per_s": words / seconds if seconds > 0 else float("nan"),
    }
    return pd.DataFrame(rows), summary


@checked(table="frame", summary="mapping", tags_path="path", summary_path="path")
def write_tags(table: pd.DataFrame, summary: Mapping[str, Any], tags_path, summary_path) -> None:
    write_parquet_atomic(tags_path, table)
    write_json_atomic(summary_path, dict(summary))


# File-level stages, one per workflow rule (workflow/rules/bnb.smk).


@checked(splits="path_mapping", tags_out="path", summary_out="path")
def tags_job(splits: Mapping[str, str], tags_out: str, summary_out: str, **options: Any) -> None:
    if "dev_fraction" not in options:
        raise ConfigError(
            "tags_job needs dev_fraction (the share of train carved out as dev when there is none)"
        )
    dev_fraction = options.pop("dev_fraction")
    frames = load_splits(splits, dev_fraction=dev_fraction)
    table, summary = tag_splits(frames, **options)
    write_tags(table, {**summary, "dev_fraction": dev_fraction}, tags_out, summary_out)


@checked(
    splits="path_mapping", tags="path", model_out="path", history_out="path", pruner="path?", start="path?"
)
def train_job(
    splits: Mapping[str, str],
    tags: str,
    model_out: str,
    history_out: str,
    *,
    pruner: str | None,
    dev_fraction: float,
    start: str | None = None,
    **options: Any,
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    model, meta = train_parser(
        frames,
        read_parquet(tags),
        pruner=ParserModel.load(pruner) if pruner else None,
        start=ParserModel.load(start) if start else None,
        start_source=start or "<start model>",
        source=tags,
        **options,
    )
    model.save(model_out)
    write_json_atomic(history_out, {"structure": model.structure, **meta})


@checked(splits="path_mapping", tags="path", oracle_out="path")
def instances_job(
    splits: Mapping[str, str],
    tags: str,
    oracle_out: str,
    *,
    dev_fraction: float,
    **options: Any,
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    oracle = build_instances(frames, read_parquet(tags), source=tags, **options)
    write_parquet_atomic(oracle_out, oracle)


@checked(frames="splits", table="frame", shares="sequence", source="text")
def learning_curve(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    *,
    shares: Sequence[float],
    source: str = "<tags>",
    **options: Any,
) -> pd.DataFrame:
    """Dev UAS of one model (``options``: :func:`train_parser`'s) trained on the first ``share`` of the training
    split's documents, for each share in (0, 1] (dev and its tags as they are): how much the training set's size
    moves the accuracy."""
    train_frame = frames["train"]
    documents = train_frame["doc_id"].drop_duplicates().tolist()
    rows = []
    for share in shares:
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
            raise ConfigError(f"experiments.bnb.learning_curve.shares: {share!r} is not in (0, 1]")
        kept = set(documents[: max(1, round(share * len(documents)))])
        subset = train_frame[train_frame["doc_id"].isin(kept)]
        ids = set(subset["sent_id"].astype(str))
        tags = table[(table["split"] != "train") | table["sent_id"].astype(str).isin(ids)]
        _, meta = train_parser({**frames, "train": subset}, tags, source=source, progress=False, **options)
        best = meta["epochs"][meta["best_epoch"] - 1]
        rows.append(
            {
                "share": float(share),
                "documents": len(kept),
                "train_sentences": meta["train_sentences"],
                "best_epoch": meta["best_epoch"],
                "dev_uas": best["dev_uas"],
            }
        )
    return pd.DataFrame(rows)


@checked(splits="path_mapping", tags="path", curve_out="path", pruner="path?", shares="sequence")
def learning_curve_job(
    splits: Mapping[str, str],
    tags: str,
    curve_out: str,
    *,
    pruner: str | None,
    dev_fraction: float,
    shares: Sequence[float],
    **options: Any,
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    curve = learning_curve(
        frames,
        read_parquet(tags),
        shares=shares,
        source=tags,
        pruner=ParserModel.load(pruner) if pruner else None,
        **options,
    )
    write_parquet_atomic(curve_out, curve)


@checked(splits="path_mapping", tags="path", counts_out="path", language="text")
def factor_counts_job(
    splits: Mapping[str, str], tags: str, counts_out: str, *, dev_fraction: float, language: str
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    write_parquet_atomic(
        counts_out, factor_counts(frames, read_parquet(tags), language=language, source=tags)
    )


@checked(splits="path_mapping", tags="path", model_out="path", training_out="path")
def udpipe_train_job(
    splits: Mapping[str, str],
    tags: str,
    model_out: str,
    training_out: str,
    *,
    dev_fraction: float,
    **options: Any,
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    training = train_udpipe_peer(frames, read_parquet(tags), model_path=model_out, source=tags, **options)
    write_json_atomic(training_out, training)


@checked(
    splits="path_mapping",
    tags="path",
    model="path",
    training="path",
    records_out="path",
    summary_out="path",
    language="text",
)
def udpipe_job(
    splits: Mapping[str, str],
    tags: str,
    model: str,
    training: str,
    records_out: str,
    summary_out: str,
    *,
    dev_fraction: float,
    language: str,
) -> None:
    frames = load_splits(splits, dev_fraction=dev_fraction)
    done = read_json(training)
    records, summary = run_udpipe(
        frames, read_parquet(tags), model_path=model, training=done, language=language, source=tags
    )
    write_parquet_atomic(records_out, records)
    write_json_atomic(summary_out, summary)
