"""POS tags for parsing: the chains experiment's tagger (an SSVM linear chain decoded by Viterbi), applied as
Qian and Liu (2013, section 4.2) do for English: training sentences get tags from a tagger trained on the other
folds (k-fold jackknifing), dev and test sentences from a tagger trained on all of train. Coarse tags of
predicted English tags are the first two characters of the PTB tag (NN, VB, JJ, RB, PR, WP, ...), the "simple
mapping table" of section 4.2."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from decoders.chains.model import ChainModel
from decoders.chains.train import train_chain_model
from decoders.checks import check_sequence, check_text, checked
from decoders.errors import ConfigError

log = logging.getLogger(__name__)


def coarse_of(tag: str) -> str:
    """The coarse tag of a PTB-style fine tag: its first two characters (punctuation tags stay whole). Called once
    per token: checked inline, not through :func:`decoders.checks.checked`'s signature binding."""
    tag = check_text(tag, "tag")
    return tag[:2] if tag[:1].isalpha() else tag


@checked(frame="frame", spec="mapping", min_count="count", seed="count")
def train_tagger(frame: pd.DataFrame, spec: Mapping[str, Any], *, min_count: int, seed: int) -> ChainModel:
    """A chains scorer (config: experiments.chains.models.<name>) trained on the sentences' fine tags."""
    if "method" not in spec:
        raise ConfigError(
            f"the tagger's spec needs a 'method' (a chains training method); got keys {sorted(spec)}"
        )
    options = {key: value for key, value in spec.items() if key != "method"}
    model, _ = train_chain_model(
        frame[["sent_id", "doc_id", "words", "coarse_tags", "tags", "heads", "deprels"]],
        method=spec["method"],
        min_count=min_count,
        seed=seed,
        progress=False,
        **options,
    )
    return model


@checked(model=ChainModel, words="sequence")
def predict_tags(model: ChainModel, words: Sequence[Sequence[str]]) -> list[list[str]]:
    """Viterbi tags of every sentence (each a sequence of words: a ValueError naming the first that is not)."""
    for i, sentence in enumerate(words):
        check_sequence(sentence, f"words[{i}]")
    matrix = model.featurize(words)
    labels = model.decode_labels(model.predict(matrix))
    out, start = [], 0
    for sentence in words:
        out.append(labels[start : start + len(sentence)])
        start += len(sentence)
    return out


@checked(frame="frame", spec="mapping", folds="int", min_count="count", seed="count")
def jackknife_tags(
    frame: pd.DataFrame, spec: Mapping[str, Any], *, folds: int, min_count: int, seed: int
) -> list[list[str]]:
    """Tags of every sentence from a tagger trained on the other ``folds - 1`` contiguous folds."""
    if folds < 2 or folds > len(frame):
        raise ValueError(f"jackknifing needs 2 <= folds <= {len(frame)} sentences, got {folds}")
    tags: list[list[str]] = [[] for _ in range(len(frame))]
    for number, held in enumerate(np.array_split(np.arange(len(frame)), folds), start=1):
        rest = frame.drop(frame.index[held])
        model = train_tagger(rest, spec, min_count=min_count, seed=seed)
        for index, predicted in zip(
            held, predict_tags(model, frame["words"].iloc[held].tolist()), strict=True
        ):
            tags[index] = predicted
        log.info("jackknife fold %d/%d: %d sentences tagged", number, folds, len(held))
    return tags


@checked(predicted="sequence", gold="sequence")
def tag_accuracy(predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """Token accuracy (%) of predicted tags (``predicted`` and ``gold``: the same number of sentences, each of the
    same length; a ValueError naming the first that differs)."""
    predicted, gold = check_sequence(predicted, "predicted"), check_sequence(gold, "gold")
    if len(predicted) != len(gold):
        raise ValueError(f"predicted has {len(predicted)} sentences, gold {len(gold)}")
    for i, (ps, gs) in enumerate(zip(predicted, gold, strict=True)):
        check_sequence(ps, f"predicted[{i}]")
        if len(check_sequence(gs, f"gold[{i}]")) != len(ps):
            raise ValueError(f"predicted[{i}] has {len(ps)} tags, gold[{i}] {len(gs)}")
    pairs = [(p, g) for ps, gs in zip(predicted, gold, strict=True) for p, g in zip(ps, gs, strict=True)]
    return 100.0 * sum(p == g for p, g in pairs) / len(pairs) if pairs else float("nan")
