"""The baseline's errors in cross-validation on the training split, the evidence Qian and Liu (2013, section
4.3) designed their hand-crafted factors from: the training sentences are cut into contiguous folds, the
pruner and the second-order baseline are trained on the other folds and parse the held-out one, and
every wrongly attached scored word is listed with its context; :func:`error_patterns` counts them by (modifier
tag, gold head tag, predicted head tag) and direction, most frequent first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from decoders.bnb.model import prune_heads
from decoders.bnb.pipeline import encode_split, load_splits, tags_of, train_parser
from decoders.checks import checked
from decoders.io import read_parquet, write_parquet_atomic
from decoders.parsing.perceptron import LocalStructure


def _tag(tags: list[str], position: int) -> str:
    return "ROOT" if position == 0 else tags[position - 1]


@checked(
    frames="splits",
    table="frame",
    language="text",
    folds="positive",
    epochs="positive",
    k="positive?",
    seed="count",
    pruner="mapping",
    progress="flag",
)
def cross_validation_errors(
    frames: Mapping[str, pd.DataFrame],
    table: pd.DataFrame,
    *,
    language: str,
    folds: int,
    epochs: int,
    bits: int,
    k: int | None,
    seed: int,
    pruner: Mapping[str, Any] | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """One row per wrongly attached scored word of every held-out training fold. ``pruner``: the pruner's
    ``structure`` and ``epochs`` (default: a first-order perceptron trained ``epochs`` passes)."""
    pruner = pruner or {"structure": {"order": 1}, "epochs": epochs}
    train = frames["train"]
    tags, _ = tags_of(table, "train", train, "<tags>")
    train = train.assign(_tags=tags)
    rows = []
    for fold, held in enumerate(np.array_split(np.arange(len(train)), folds)):
        rest = train.drop(train.index[held]).reset_index(drop=True)
        cut = max(1, len(rest) // 20)
        parts = {"train": rest.iloc[:-cut], "dev": rest.iloc[-cut:], "test": train.iloc[held]}
        parts = {name: part.reset_index(drop=True) for name, part in parts.items()}
        sub = pd.concat(
            [
                pd.DataFrame({"split": name, "sent_id": part["sent_id"].astype(str), "tags": part["_tags"]})
                for name, part in parts.items()
            ],
            ignore_index=True,
        )
        sub["coarse"] = (
            table[table["split"] == "train"].set_index("sent_id").loc[sub["sent_id"], "coarse"].to_numpy()
        )
        common = {"language": language, "epochs": epochs, "bits": bits, "seed": seed, "progress": progress}
        first, _ = train_parser(
            parts,
            sub,
            structure=pruner["structure"],
            k=k,
            pruner=None,
            **{**common, "epochs": pruner["epochs"]},
        )
        base, _ = train_parser(parts, sub, structure={"order": 2}, k=k, pruner=first, **common)
        sentences = encode_split(parts, sub, "test", base.vocabulary, language, "<tags>")
        decoder = LocalStructure(2)
        for (_, row), sentence in zip(parts["test"].iterrows(), sentences, strict=True):
            allowed = prune_heads(sentence.tokens, first.numerator, k)
            predicted = decoder.decode(sentence.tokens, base.numerator, allowed)
            words, fine = list(row["words"]), list(row["_tags"])
            for m in np.nonzero((predicted[1:] != sentence.gold[1:]) & sentence.scored)[0] + 1:
                gold, guess = int(sentence.gold[m]), int(predicted[m])
                rows.append(
                    {
                        "fold": fold,
                        "sent_id": sentence.sent_id,
                        "word": words[m - 1],
                        "tag": fine[m - 1],
                        "gold_head_tag": _tag(fine, gold),
                        "predicted_head_tag": _tag(fine, guess),
                        "gold_head_word": "ROOT" if gold == 0 else words[gold - 1],
                        "predicted_head_word": "ROOT" if guess == 0 else words[guess - 1],
                        "gold_direction": "left" if gold < m else "right",
                        "predicted_direction": "left" if guess < m else "right",
                        "gold_distance": abs(gold - m),
                        "predicted_distance": abs(guess - m),
                    }
                )
    return pd.DataFrame(rows)


@checked(errors="frame", top="count")
def error_patterns(errors: pd.DataFrame, top: int = 40) -> pd.DataFrame:
    """The most frequent (modifier tag, gold head tag, predicted head tag, directions) error patterns, with an
    example word and the share of all errors."""
    keys = ["tag", "gold_head_tag", "predicted_head_tag", "gold_direction", "predicted_direction"]
    grouped = errors.groupby(keys, sort=False)
    counts = grouped.size().rename("errors").reset_index()
    examples = grouped["word"].agg(lambda words: ", ".join(pd.Series(words).value_counts().index[:5]))
    counts = counts.merge(examples.rename("frequent_words").reset_index(), on=keys)
    counts["share_pct"] = 100.0 * counts["errors"] / max(len(errors), 1)
    return counts.sort_values("errors", ascending=False, kind="stable").head(top).reset_index(drop=True)


@checked(splits="path_mapping", tags="path", errors_out="path")
def errors_job(
    splits: Mapping[str, str], tags: str, errors_out: str, *, dev_fraction: float, **options: Any
) -> None:
    """The workflow's stage: every cross-validation error of a dataset's training split."""
    frames = load_splits(splits, dev_fraction=dev_fraction)
    write_parquet_atomic(errors_out, cross_validation_errors(frames, read_parquet(tags), **options))
