"""The titles experiment's model steps: train the two scorers, build the test sections' word graphs, score titles.

:func:`train` fits the selection classifier on the training sections, the bigram model on the bodies of all
sections (train and test, as the paper) and picks the auxiliary words from the training titles;
:func:`build_instances` turns sections into :class:`~decoders.titles.instance.TitleInstance` graphs;
:func:`rouge_l` scores a decoded title against the true one.
"""

from __future__ import annotations

import logging
import math
import pickle
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from rouge_score import rouge_scorer

from decoders.checks import check_float, check_text, check_texts
from decoders.corpora.textbooks import textbook_stats
from decoders.errors import ConfigError, CorpusFormatError
from decoders.io import write_bytes_atomic
from decoders.titles.checks import check_frame
from decoders.titles.graph import auxiliary_words, build_instance, title_length
from decoders.titles.instance import TitleInstance
from decoders.titles.language_model import BigramLM, estimate_bigram_lm, lm_tokens, sentences
from decoders.titles.selection import SelectionModel, train_selection

__all__ = [
    "DEFAULT_OPTIONS",
    "TitleModel",
    "build_instances",
    "rouge_l",
    "selection_accuracy",
    "train",
    "unit_statistics",
]

log = logging.getLogger(__name__)

# aux_words: how many auxiliary words (the paper: 24); C: inverse L2 strength of the selection classifier;
# seed: the classifier's random_state.
DEFAULT_OPTIONS: dict[str, Any] = {"aux_words": 24, "C": 1.0, "seed": 0}


@dataclass(eq=False)
class TitleModel:
    """Everything a title graph is built from: the selection classifier (with its stemmer and IDF table), the
    bigram model and the auxiliary words; ``options`` as trained, ``train_seconds`` how long it took."""

    selection: SelectionModel
    lm: BigramLM
    aux_words: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    train_seconds: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.selection, SelectionModel):
            raise ValueError(
                f"TitleModel.selection must be a SelectionModel; got {type(self.selection).__name__}"
            )
        if not isinstance(self.lm, BigramLM):
            raise ValueError(f"TitleModel.lm must be a BigramLM; got {type(self.lm).__name__}")
        self.aux_words = tuple(check_texts(self.aux_words, "TitleModel.aux_words"))
        if not isinstance(self.options, dict):
            raise ValueError(f"TitleModel.options must be a dict; got {type(self.options).__name__}")
        self.train_seconds = check_float(self.train_seconds, "TitleModel.train_seconds", minimum=0.0)

    def save(self, path: str | Path) -> None:
        """Pickle the model to ``path``, atomically."""
        write_bytes_atomic(path, pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL))

    @classmethod
    def load(cls, path: str | Path) -> TitleModel:
        """Read a model written by :meth:`save`; CorpusFormatError when the file holds something else."""
        try:
            model = pickle.loads(Path(path).read_bytes())
        except FileNotFoundError:
            raise
        except Exception as error:  # a garbled pickle fails in any of a dozen ways
            raise CorpusFormatError(path, None, f"not a pickled title model ({error})") from None
        if not isinstance(model, cls):
            raise CorpusFormatError(path, None, f"holds a {type(model).__name__}, not a TitleModel")
        return model


def _options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(f"titles options must be a mapping, not {type(options).__name__}")
    merged = {**DEFAULT_OPTIONS, **(options or {})}
    unknown = set(merged) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ConfigError(f"unknown titles model option(s): {', '.join(sorted(map(str, unknown)))}")
    aux, c, seed = merged["aux_words"], merged["C"], merged["seed"]
    if isinstance(aux, bool) or not isinstance(aux, int) or aux < 0:
        raise ConfigError(f"titles option aux_words must be a non-negative integer, not {aux!r}")
    if isinstance(c, bool) or not isinstance(c, int | float) or not 0 < c < math.inf:
        raise ConfigError(f"titles option C must be a positive number, not {c!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"titles option seed must be an integer >= 0, not {seed!r}")
    return merged


def train(
    train_units: pd.DataFrame, all_units: pd.DataFrame, options: Mapping[str, Any] | None = None
) -> TitleModel:
    """Fit the title scorers: selection on ``train_units``; the bigram model and the IDF table on the bodies of
    ``all_units`` (the train and test sections); auxiliary words from the training titles."""
    options = _options(options)
    check_frame(train_units, "train_units", ("body", "title"))
    check_frame(all_units, "all_units", ("body",))
    if train_units.empty or all_units.empty:
        raise ConfigError("titles: no sections to train on")
    started = time.perf_counter()
    all_bodies = all_units["body"].tolist()
    selection = train_selection(
        train_units["body"].tolist(),
        train_units["title"].tolist(),
        all_bodies,
        C=float(options["C"]),
        seed=options["seed"],
    )
    lm = estimate_bigram_lm(lm_tokens(sentence) for body in all_bodies for sentence in sentences(body))
    aux = auxiliary_words(train_units["title"].tolist(), all_bodies, options["aux_words"])
    seconds = time.perf_counter() - started
    log.info(
        "titles model: %d training sections, LM vocabulary %d, %d auxiliary words, %.1f s",
        len(train_units), lm.size, len(aux), seconds,
    )  # fmt: skip
    return TitleModel(selection, lm, aux, options, seconds)


def build_instances(model: TitleModel, units: pd.DataFrame) -> list[tuple[str, int, TitleInstance]]:
    """``(section_id, size, instance)`` for every section, ``size = n * k`` (vertices times title length,
    what the decoders' work grows with); ``k`` is the number of content words of the true title."""
    _model(model)
    check_frame(units, "units", ("section_id", "body", "title"))
    check_texts(units["body"].tolist(), "units.body")
    check_texts(units["title"].tolist(), "units.title")
    records = units.to_dict("records")
    scored = model.selection.log_probabilities([unit["body"] for unit in records])
    scores: list[dict[str, float]] = [{} for _ in records]
    for unit, stem, log_prob in zip(scored["unit"], scored["stem"], scored["log_prob"], strict=True):
        scores[unit][stem] = log_prob
    items = []
    for unit, selection_scores in zip(records, scores, strict=True):
        instance = build_instance(
            unit,
            model.selection,
            model.lm,
            model.aux_words,
            title_length(unit["title"]),
            selection_scores=selection_scores,
        )
        items.append((str(unit["section_id"]), instance.n * instance.k, instance))
    return items


def unit_statistics(units: pd.DataFrame) -> dict[str, float | int]:
    """The corpus numbers the paper reports in section 6, under its keys (paper_numbers.yaml
    ``titles.corpus``): ``sections``, ``mean_section_words``, ``mean_title_words``,
    ``mean_title_content_words``."""
    check_frame(units, "units", ("body", "title"))
    check_texts(units["body"].tolist(), "units.body")
    check_texts(units["title"].tolist(), "units.title")
    stats = textbook_stats(units)
    keys = ("sections", "mean_section_words", "mean_title_words", "mean_title_content_words")
    return {key: stats[key] for key in keys}


def selection_accuracy(model: TitleModel, units: pd.DataFrame) -> dict[str, float]:
    """The selection classifier's quality on labelled sections (see :meth:`SelectionModel.quality`)."""
    _model(model)
    check_frame(units, "units", ("body", "title"))
    check_texts(units["body"].tolist(), "units.body")
    check_texts(units["title"].tolist(), "units.title")
    return model.selection.quality(units["body"].tolist(), units["title"].tolist())


_ROUGE = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l(reference: str, words: list[str]) -> float:
    """ROUGE-L F-measure (``rouge-score``'s ``rougeL``, no stemming, its default lower-casing tokenizer) of a
    decoded title's ``words`` against the reference title."""
    reference, words = check_text(reference, "reference"), check_texts(words, "words")
    return float(_ROUGE.score(reference, " ".join(words))["rougeL"].fmeasure)


def _model(value: Any) -> TitleModel:
    if not isinstance(value, TitleModel):
        raise ValueError(f"model must be a TitleModel; got {type(value).__name__}")
    return value
