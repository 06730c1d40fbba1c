"""Treebank sentences as parser input: encoded tokens, gold trees, projectivity, the words UAS scores.

A :class:`ParseSentence` holds what every parser needs of one sentence; :func:`parse_sentences` builds them from
a prepared sentence table (:mod:`decoders.corpora.sentences`) with given tags (gold, or predicted ones from
an experiment's tagger). UAS ignores punctuation by the gold tag, as Qian and Liu (2013) do (English:
`` '' : , . ; Chinese: PU, UPOS PUNCT).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.corpora.sentences import read_sentences, split_by_document
from decoders.errors import ConfigError, CorpusFormatError
from decoders.parsing.checks import check_heads, check_tokens
from decoders.parsing.features import N_ATTRIBUTES, Vocabulary
from decoders.parsing.trees import PUNCTUATION_TAGS, as_heads, attachment_mask, is_projective, tree_error

SPLITS = ("train", "dev", "test")


def load_splits(paths: Mapping[str, str | Path], *, dev_fraction: float) -> dict[str, pd.DataFrame]:
    """train/dev/test sentence tables from the prepared files (``dev`` carved from train when absent, a
    ``dev_fraction`` in (0, 1) of it)."""
    if (
        isinstance(dev_fraction, bool)
        or not isinstance(dev_fraction, int | float)
        or not 0.0 < float(dev_fraction) < 1.0
    ):
        raise ValueError(f"dev_fraction must be a number in (0, 1), got {dev_fraction!r}")
    frames = {split: read_sentences(path) for split, path in paths.items()}
    if "train" not in frames or "test" not in frames:
        raise ConfigError(f"a parsing dataset needs train and test splits; got {sorted(frames)}")
    if "dev" not in frames:
        parts = split_by_document(frames["train"], test=dev_fraction)
        frames["train"], frames["dev"] = parts["train"], parts["test"]
    return {split: frames[split] for split in SPLITS}


def split_inputs(inputs: Any) -> dict[str, str]:
    """The prepared split files among a job's named inputs."""
    return {split: str(inputs.get(split)) for split in SPLITS if inputs.get(split) is not None}


@dataclass(frozen=True)
class ParseSentence:
    """``tokens`` (:meth:`Vocabulary.encode`), ``gold`` (full head array), ``scored`` (the words UAS counts)."""

    sent_id: str
    tokens: np.ndarray
    gold: np.ndarray
    scored: np.ndarray

    def __post_init__(self) -> None:
        tokens = check_tokens(self.tokens, N_ATTRIBUTES)
        check_heads(self.gold, "gold", n=tokens.shape[1] - 1)
        scored = np.asarray(self.scored)
        if scored.dtype != np.bool_ or scored.shape != (tokens.shape[1] - 1,):
            raise ValueError(f"scored must be a bool mask of {tokens.shape[1] - 1} words, got {scored.shape}")

    @property
    def n(self) -> int:
        return len(self.gold) - 1


def punctuation_tags(language: str) -> frozenset[str]:
    if language not in PUNCTUATION_TAGS:
        raise ValueError(f"no punctuation rule for language {language!r}; known: {sorted(PUNCTUATION_TAGS)}")
    return PUNCTUATION_TAGS[language]


def gold_trees(
    frame: pd.DataFrame, source: str = "<sentences>", *, single_root: bool = True
) -> list[np.ndarray]:
    """Every sentence's gold tree as a full head array; a sentence that is not a single-rooted tree (with
    ``single_root=False``: not an arborescence rooted at 0), or whose heads are not one per word, is a
    CorpusFormatError naming it."""
    trees = []
    words = frame["words"] if "words" in frame else [None] * len(frame)
    for sent_id, heads, forms in zip(frame["sent_id"], frame["heads"], words, strict=True):
        tree = as_heads(heads)
        if forms is not None and len(tree) != len(forms) + 1:
            raise CorpusFormatError(
                source, None, f"sentence {sent_id}: {len(tree) - 1} heads for {len(forms)} words"
            )
        problem = tree_error(tree, single_root=single_root)
        if problem is not None:
            raise CorpusFormatError(source, None, f"sentence {sent_id}: {problem}")
        trees.append(tree)
    return trees


def projective_flags(trees: Iterable[np.ndarray]) -> np.ndarray:
    """Per tree (full head array), whether it is projective."""
    return np.array([is_projective(tree) for tree in trees], dtype=bool)


def parse_sentences(
    frame: pd.DataFrame,
    vocabulary: Vocabulary,
    *,
    language: str,
    tags: Sequence[Sequence[str]] | None = None,
    coarse_tags: Sequence[Sequence[str]] | None = None,
    source: str = "<sentences>",
) -> list[ParseSentence]:
    """Encode a sentence table with ``tags``/``coarse_tags`` (default: the table's own); UAS masks come from the
    table's gold fine tags and coarse tags (a word is punctuation if either is a punctuation tag)."""
    punct = punctuation_tags(language)
    tags = frame["tags"].tolist() if tags is None else tags
    coarse_tags = frame["coarse_tags"].tolist() if coarse_tags is None else coarse_tags
    out = []
    rows = zip(
        frame["sent_id"], frame["words"], tags, coarse_tags, frame["tags"], frame["coarse_tags"], strict=True
    )
    for tree, (sent_id, words, fine, coarse, gold_fine, gold_coarse) in zip(
        gold_trees(frame, source), rows, strict=True
    ):
        scored = attachment_mask(gold_fine, punct) & attachment_mask(gold_coarse, punct)
        out.append(ParseSentence(str(sent_id), vocabulary.encode(words, fine, coarse), tree, scored))
    return out


def uas(predicted: Sequence[np.ndarray], sentences: Sequence[ParseSentence]) -> float:
    """Unlabelled attachment score (%) over the scored words of ``sentences``; ``predicted``: a full head array per
    sentence."""
    correct = total = 0
    for index, (heads, sentence) in enumerate(zip(predicted, sentences, strict=True)):
        heads = check_heads(heads, f"predicted[{index}]", n=sentence.n)
        correct += int(np.count_nonzero((heads[1:] == sentence.gold[1:]) & sentence.scored))
        total += int(np.count_nonzero(sentence.scored))
    return 100.0 * correct / total if total else float("nan")
