"""The linear-chain scorer: emission weights over sparse token features, start/end vectors, transitions.

The score of labels ``y`` (ids) for a sentence whose token ``i`` has feature ids ``F_i`` is

    start[y_0] + sum_i sum_{f in F_i} W[f, y_i] + sum_i tau[y_i, y_{i+1}] + end[y_{n-1}].

:meth:`ChainModel.emissions` returns ``theta[i, y] = sum_{f in F_i} W[f, y]`` with ``start`` added to the
first row and ``end`` to the last, so that ``decoders.chains.instance.sequence_score(theta, tau, y)`` is
exactly this score and every decoder sees the paper's objective. The label inventory of a dataset is its
fine tags (``tags`` column), or for the joint POS x NER task every pair ``TAG|NER`` of the training split's
tag set and NER tag set (the full cross product: the chain's label domain, section 7 of the paper).
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd

from decoders.chains.checks import (
    MAX_MAGNITUDE,
    _check_feasible,
    _refuse,
    check_label_names,
    check_tau,
    real_array,
)
from decoders.chains.features import FeatureMatrix, FeatureVocabulary
from decoders.chains.instance import ChainInstance, ChainScores
from decoders.chains.viterbi import _viterbi
from decoders.checks import check_ids, check_int, check_range
from decoders.corpora.sentences import NER_COLUMN
from decoders.errors import CorpusFormatError
from decoders.io import load_npz, save_npz

__all__ = ["JOINT_SEPARATOR", "MAX_WEIGHT", "ChainModel", "label_inventory", "sentence_labels"]

JOINT_SEPARATOR = "|"
"""Separates the POS tag from the NER tag in a joint label: ``NNP|B-PER``."""

MAX_WEIGHT = MAX_MAGNITUDE / 2.0**64
"""The largest magnitude of a model's weights, start, end and finite transitions: a token's theta sums at most its
features' weights plus start and end, so a sentence of n tokens with at most k features each has
``n x (max |theta| + 2 max |tau|) <= n (k + 4) MAX_WEIGHT``, within ``MAX_MAGNITUDE`` whenever ``n (k + 4) <= 2^64``
(always: n and k are array lengths). Every instance the model scores can then be decoded without overflow."""


def _check_frame(frame: Any) -> None:
    """A sentence table: a DataFrame whose ``tags`` (and ``ner``, if present) hold one string per token."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame of sentences; got {type(frame).__name__}")
    if "tags" not in frame.columns:
        raise ValueError(f"frame must have a 'tags' column; got columns {list(frame.columns)}")
    columns = ["tags", NER_COLUMN] if NER_COLUMN in frame.columns else ["tags"]
    for column in columns:
        for number, tags in enumerate(frame[column]):
            if isinstance(tags, str) or not isinstance(tags, list | tuple | np.ndarray):
                raise ValueError(
                    f"frame['{column}'] of sentence {number} must be a list of strings; got {tags!r}"
                )
            if not all(isinstance(tag, str) for tag in tags):
                raise ValueError(
                    f"frame['{column}'] of sentence {number} must hold strings; got {list(tags)!r}"
                )
            if column == NER_COLUMN and len(tags) != len(frame["tags"].iloc[number]):
                raise ValueError(
                    f"frame: sentence {number} has {len(tags)} NER tags for {len(frame['tags'].iloc[number])} tags"
                )


def sentence_labels(frame: pd.DataFrame) -> list[list[str]]:
    """The gold label sequence of every sentence: the fine tags, or ``TAG|NER`` when ``ner`` is a column."""
    _check_frame(frame)
    if NER_COLUMN not in frame.columns:
        return [list(tags) for tags in frame["tags"]]
    return [
        [f"{tag}{JOINT_SEPARATOR}{ner}" for tag, ner in zip(tags, ners, strict=True)]
        for tags, ners in zip(frame["tags"], frame[NER_COLUMN], strict=True)
    ]


def label_inventory(frame: pd.DataFrame) -> tuple[str, ...]:
    """The label set of a (training) sentence table, sorted; the tag x NER cross product for joint tables."""
    _check_frame(frame)
    tags = sorted(set(itertools.chain.from_iterable(frame["tags"])))
    if NER_COLUMN not in frame.columns:
        return tuple(tags)
    ners = sorted(set(itertools.chain.from_iterable(frame[NER_COLUMN])))
    return tuple(f"{tag}{JOINT_SEPARATOR}{ner}" for tag in tags for ner in ners)


# --------------------------------------------------------------------------- numba kernels


@numba.njit(cache=True, nogil=True)
def _gather_emissions(
    weights: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    ids: np.ndarray,
    token_offsets: np.ndarray,
    first: int,
    stop: int,
) -> np.ndarray:
    """theta for tokens ``first..stop-1``: per token the sum of its features' weight rows, start/end folded.

    ``weights`` may have rows beyond the feature ids (training keeps start/end as its last two rows). A kernel
    without bounds checks: callers pass feature ids checked against ``weights`` (:meth:`ChainModel.emissions`).
    """
    n_labels = weights.shape[1]
    theta = np.zeros((stop - first, n_labels))
    for t in range(first, stop):
        row = theta[t - first]
        for k in range(token_offsets[t], token_offsets[t + 1]):
            feature_row = weights[ids[k]]
            for label in range(n_labels):
                row[label] += feature_row[label]
    theta[0] += start
    theta[stop - first - 1] += end
    return theta


@numba.njit(cache=True, nogil=True)
def _predict_all(
    weights: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    tau: np.ndarray,
    ids: np.ndarray,
    token_offsets: np.ndarray,
    sentence_offsets: np.ndarray,
) -> np.ndarray:
    """Viterbi labels of every token of a matrix (flat, in token order)."""
    labels = np.empty(token_offsets.shape[0] - 1, dtype=np.int64)
    for s in range(sentence_offsets.shape[0] - 1):
        first, stop = sentence_offsets[s], sentence_offsets[s + 1]
        theta = _gather_emissions(weights, start, end, ids, token_offsets, first, stop)
        best, _ = _viterbi(theta, tau)
        labels[first:stop] = best
    return labels


# --------------------------------------------------------------------------- model

_ARRAYS = ("weights", "start", "end", "tau", "labels", "feature_bytes", "feature_offsets", "meta")


class ChainModel:
    """Emission weights ``W`` (F x L), ``start`` and ``end`` (L), transitions ``tau`` (L x L), label names.

    ``vocabulary`` maps feature strings to rows of ``W``, so a saved model featurises new text by itself
    (:meth:`featurize`). ``meta`` records how the model was trained (JSON-serialisable).
    """

    def __init__(
        self,
        weights: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        tau: np.ndarray,
        labels: Sequence[str],
        vocabulary: FeatureVocabulary,
        meta: dict[str, Any] | None = None,
    ):
        if not isinstance(vocabulary, FeatureVocabulary):
            raise ValueError(f"vocabulary must be a FeatureVocabulary; got {type(vocabulary).__name__}")
        if meta is not None and not isinstance(meta, dict):
            raise ValueError(f"meta must be a dict or None; got {type(meta).__name__}")
        self.labels = check_label_names(labels, "labels")
        n_labels = len(self.labels)
        self.weights = real_array(weights, "weights")
        self.start = real_array(start, "start")
        self.end = real_array(end, "end")
        self.tau = real_array(tau, "tau")
        self.vocabulary = vocabulary
        self.meta = dict(meta or {})
        if self.weights.shape != (len(vocabulary), n_labels):
            raise ValueError(
                f"weights must be {len(vocabulary)} features x {n_labels} labels; got {self.weights.shape}"
            )
        if self.start.shape != (n_labels,) or self.end.shape != (n_labels,):
            raise ValueError(
                f"start and end must have {n_labels} entries; got shapes {self.start.shape}, {self.end.shape}"
            )
        if self.tau.shape != (n_labels, n_labels):
            raise ValueError(f"tau must be {n_labels} x {n_labels}; got {self.tau.shape}")
        for name in ("weights", "start", "end"):
            values = getattr(self, name)
            _refuse(values, name, ~np.isfinite(values), "not finite")
            _refuse(
                values,
                name,
                np.abs(values) > MAX_WEIGHT,
                f"past MAX_WEIGHT = {MAX_WEIGHT:.3g} (could overflow)",
            )
        check_tau(self.tau, "tau")  # finite or -inf (forbidden)
        _refuse(
            self.tau,
            "tau",
            np.isfinite(self.tau) & (np.abs(self.tau) > MAX_WEIGHT),
            f"past MAX_WEIGHT = {MAX_WEIGHT:.3g} (could overflow)",
        )
        self.label_index = {label: i for i, label in enumerate(self.labels)}

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_features(self) -> int:
        return len(self.vocabulary)

    @functools.cached_property
    def scores(self) -> ChainScores:
        """The transitions and their offline bounds, one object shared by every instance of this model."""
        return ChainScores(self.tau, self.labels)

    # ----------------------------------------------------------------- inputs

    def featurize(self, sentences: Iterable[Sequence[str]]) -> FeatureMatrix:
        """The feature matrix of ``sentences`` (lists of words) under this model's vocabulary."""
        return self.vocabulary.transform(sentences)

    def encode_labels(self, label_sequences: Iterable[Sequence[str]]) -> np.ndarray:
        """Label ids of every token, flat in token order (int64); ValueError names a label the model lacks."""
        index = self.label_index
        flat = list(itertools.chain.from_iterable(label_sequences))
        try:
            return np.fromiter((index[label] for label in flat), dtype=np.int64, count=len(flat))
        except KeyError as exc:
            raise ValueError(
                f"label {exc.args[0]!r} is not one of the model's {self.n_labels} labels"
            ) from None

    def decode_labels(self, ids: np.ndarray) -> list[str]:
        """Label names of label ids (a 1-d array of ids in ``0..L-1``)."""
        ids = check_range(check_ids(ids, "ids", ndim=1), "ids", 0, self.n_labels - 1)
        names = np.asarray(self.labels, dtype=object)
        return names[ids].tolist()

    # ----------------------------------------------------------------- scores

    def _check(self, matrix: FeatureMatrix) -> None:
        if not isinstance(matrix, FeatureMatrix):
            raise ValueError(f"matrix must be a FeatureMatrix; got {type(matrix).__name__}")
        if matrix.max_id() >= self.n_features:
            raise ValueError(
                f"feature id {matrix.max_id()} out of range: the model has {self.n_features} features"
            )

    def emissions(self, matrix: FeatureMatrix, sentence_index: int) -> np.ndarray:
        """theta (n x L) of one sentence of ``matrix``, start and end folded into the first and last rows."""
        self._check(matrix)
        sentence_index = check_int(sentence_index, "sentence_index")
        if not 0 <= sentence_index < matrix.n_sentences:
            raise ValueError(f"sentence_index {sentence_index} out of range 0..{matrix.n_sentences - 1}")
        span = matrix.sentence_slice(sentence_index)
        return _gather_emissions(
            self.weights, self.start, self.end, matrix.ids, matrix.token_offsets, span.start, span.stop
        )

    def instance(
        self, matrix: FeatureMatrix, sentence_index: int, gold: np.ndarray | None = None
    ) -> ChainInstance:
        """The scored instance of one sentence (``gold``: its label ids, optional)."""
        return ChainInstance(self.emissions(matrix, sentence_index), self.scores, gold)

    def instances(self, matrix: FeatureMatrix, gold: np.ndarray | None = None) -> list[ChainInstance]:
        """Instances of every sentence of ``matrix``; ``gold`` is flat (one label id per token) or None."""
        self._check(matrix)
        if gold is not None:
            gold = check_ids(gold, "gold")
            if gold.shape != (matrix.n_tokens,):
                raise ValueError(
                    f"gold must have one label id per token ({matrix.n_tokens}); got shape {gold.shape}"
                )
        return [
            self.instance(matrix, s, None if gold is None else gold[matrix.sentence_slice(s)])
            for s in range(matrix.n_sentences)
        ]

    def predict(self, matrix: FeatureMatrix) -> np.ndarray:
        """Viterbi label ids of every token of ``matrix`` (flat, int64)."""
        self._check(matrix)
        if matrix.n_sentences:
            _check_feasible(int(matrix.sentence_lengths().max()), self.scores.longest_walk, "matrix")
        return _predict_all(
            self.weights,
            self.start,
            self.end,
            self.tau,
            matrix.ids,
            matrix.token_offsets,
            matrix.sentence_offsets,
        )

    def accuracy(self, matrix: FeatureMatrix, gold: np.ndarray) -> float:
        """Token accuracy of Viterbi decoding against flat gold label ids."""
        self._check(matrix)
        gold = check_ids(gold, "gold")
        if gold.shape != (matrix.n_tokens,):
            raise ValueError(
                f"gold must have one label id per token ({matrix.n_tokens}); got shape {gold.shape}"
            )
        return float(np.mean(self.predict(matrix) == gold)) if len(gold) else float("nan")

    # ----------------------------------------------------------------- files

    def save(self, path: str | Path) -> None:
        """Write the model to ``path`` (.npz, compressed), atomically."""
        save_npz(
            path,
            {
                "weights": self.weights,
                "start": self.start,
                "end": self.end,
                "tau": self.tau,
                "labels": np.asarray(self.labels, dtype=np.str_),
                **self.vocabulary.to_arrays(),
                "meta": np.asarray(json.dumps(self.meta, sort_keys=True)),
            },
        )

    @classmethod
    def load(cls, path: str | Path) -> ChainModel:
        """Read a model written by :meth:`save`; CorpusFormatError names a bad or inconsistent file."""
        arrays = load_npz(path, _ARRAYS)
        try:
            vocabulary = FeatureVocabulary.from_arrays(arrays["feature_bytes"], arrays["feature_offsets"])
            return cls(
                arrays["weights"],
                arrays["start"],
                arrays["end"],
                arrays["tau"],
                arrays["labels"].tolist(),
                vocabulary,
                json.loads(str(arrays["meta"])),
            )
        except (ValueError, UnicodeDecodeError) as exc:
            raise CorpusFormatError(path, None, f"not a chain model: {exc}") from exc
