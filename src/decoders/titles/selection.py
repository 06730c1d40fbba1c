"""The selection scorer of the titles experiment: P(stem appears in the title), a maximum-entropy classifier.

Deshpande et al. (2007, sec. 6), after Banko et al. (2000): every stem of a section body is described by
positional and distributional features ("location of the first sentence that contains the stem and its
TF*IDF") and a maximum-entropy (logistic regression) classifier estimates the probability that the stem
occurs in the title. A stem's equivalence class is the set of the body's content words
(:func:`decoders.corpora.textbooks.content_words`) with that Porter stem (nltk's ``PorterStemmer``, the
NLTK-extensions mode). A (section, stem) pair is positive when the stem is one of the title's content-word
stems; title stems that do not occur in the body cannot be selected and are not examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from nltk.stem.porter import PorterStemmer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, log_loss, roc_auc_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from decoders.checks import check_float, check_ids, check_int, check_range, check_texts
from decoders.corpora.textbooks import content_words
from decoders.titles.checks import check_frame, check_mapping
from decoders.titles.language_model import sentences

__all__ = [
    "FEATURES",
    "SelectionModel",
    "Stemmer",
    "body_tokens",
    "stem_features",
    "train_selection",
]

# The classifier's inputs, per (section, stem); see stem_features.
FEATURES = (
    "first_sentence_log",  # log(1 + index of the first sentence holding the stem)
    "first_sentence_rel",  # that index / number of sentences
    "in_first_sentence",  # 1 if the stem occurs in the first sentence
    "first_position_rel",  # first occurrence / number of content words
    "last_position_rel",  # last occurrence / number of content words
    "sentence_spread",  # share of the sentences holding the stem
    "tf_log",  # log term frequency
    "tf_rel",  # term frequency / number of content words
    "idf",  # log((1 + sections) / (1 + sections holding the stem)) + 1, over all sections' bodies
    "tfidf",  # tf_rel * idf
    "tfidf_rank_log",  # log of the stem's rank by tfidf in its section (1 = highest)
    "tfidf_rank_rel",  # that rank / number of stems in the section
    "forms",  # number of distinct surface words in the class
    "stem_length",  # characters in the stem
)


@dataclass
class Stemmer:
    """Porter stems of lower-cased words, cached per distinct word (the vocabulary is small)."""

    mode: str = PorterStemmer.NLTK_EXTENSIONS
    _cache: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        modes = (
            PorterStemmer.ORIGINAL_ALGORITHM,
            PorterStemmer.MARTIN_EXTENSIONS,
            PorterStemmer.NLTK_EXTENSIONS,
        )
        if not isinstance(self.mode, str) or self.mode not in modes:
            raise ValueError(f"Stemmer.mode must be one of {', '.join(modes)}; got {self.mode!r}")
        if not isinstance(self._cache, dict):
            raise ValueError(f"Stemmer._cache must be a dict; got {type(self._cache).__name__}")

    @cached_property
    def _stemmer(self) -> PorterStemmer:
        return PorterStemmer(mode=self.mode)

    def stems(self, tokens: Sequence[str]) -> list[str]:
        tokens = check_texts(tokens, "tokens")
        missing = set(tokens).difference(self._cache)
        self._cache.update((word, self._stemmer.stem(word)) for word in missing)
        return [self._cache[word] for word in tokens]

    def __getstate__(self) -> dict:
        return {"mode": self.mode, "_cache": {}}


def body_tokens(bodies: Sequence[str], stemmer: Stemmer) -> tuple[pd.DataFrame, np.ndarray]:
    """The content words of each body in text order: a frame with columns ``unit`` (index into ``bodies``),
    ``sentence`` (index of its sentence in the body), ``position`` (index among the body's content words),
    ``word`` and ``stem``; and the number of sentences of each body."""
    bodies, stemmer = check_texts(bodies, "bodies"), _stemmer(stemmer)
    units, sentence_ids, tokens = [], [], []
    n_sentences = np.zeros(len(bodies), dtype=np.int64)
    for unit, body in enumerate(bodies):
        pieces = sentences(body)
        n_sentences[unit] = len(pieces)
        for index, sentence in enumerate(pieces):
            found = content_words(sentence)
            tokens.extend(found)
            units.extend([unit] * len(found))
            sentence_ids.extend([index] * len(found))
    frame = pd.DataFrame(
        {
            "unit": np.asarray(units, dtype=np.int64),
            "sentence": np.asarray(sentence_ids, dtype=np.int64),
            "word": pd.Series(tokens, dtype=object),
            "stem": pd.Series(stemmer.stems(tokens), dtype=object),
        }
    )
    frame.insert(2, "position", frame.groupby("unit").cumcount().astype(np.int64))
    return frame, n_sentences


def document_frequencies(bodies: Sequence[str], stemmer: Stemmer) -> tuple[dict[str, int], int]:
    """In how many of ``bodies`` each stem occurs, and the number of bodies (for IDF)."""
    bodies = check_texts(bodies, "bodies")
    tokens, _ = body_tokens(bodies, stemmer)
    df = tokens.drop_duplicates(["unit", "stem"])["stem"].value_counts()
    return {str(stem): int(count) for stem, count in df.items()}, len(bodies)


def stem_features(
    tokens: pd.DataFrame, n_sentences: np.ndarray, df: dict[str, int], n_documents: int
) -> pd.DataFrame:
    """One row per (unit, stem) of ``tokens`` (see :func:`body_tokens`), in order of first occurrence, with
    the columns ``unit``, ``stem`` and :data:`FEATURES`. ``df``/``n_documents`` give the IDF.

    Checked first, a ValueError naming each: ``tokens`` has the columns of :func:`body_tokens`, its units index
    ``n_sentences`` (integers) and its sentence ids lie below their unit's count; ``n_documents`` is an integer
    >= 1 and ``df`` maps stems to integer counts in ``0..n_documents``."""
    tokens = check_frame(tokens, "tokens", ("unit", "sentence", "position", "word", "stem"))
    n_sentences = np.asarray(n_sentences)
    if n_sentences.size == 0 and n_sentences.dtype.kind == "f":
        n_sentences = n_sentences.astype(np.int64)
    n_sentences = check_range(
        check_ids(n_sentences, "n_sentences", ndim=1), "n_sentences", 0, np.iinfo(np.int64).max
    )
    n_documents = check_int(n_documents, "n_documents", minimum=1)
    df = dict(check_mapping(df, "df"))
    for stem, count in df.items():
        if (
            isinstance(count, bool)
            or not isinstance(count, int | np.integer)
            or not 0 <= count <= n_documents
        ):
            raise ValueError(f"df[{stem!r}] must be a count in 0..{n_documents}; got {count!r}")
    for column in ("unit", "sentence", "position"):
        check_ids(tokens[column].to_numpy(), f"tokens.{column}", ndim=1)
    units = tokens["unit"].to_numpy(dtype=np.int64)
    check_range(units, "tokens.unit", 0, n_sentences.size - 1)
    sentence = tokens["sentence"].to_numpy(dtype=np.int64)
    if len(tokens) and ((sentence < 0) | (sentence >= n_sentences[units])).any():
        row = int(np.flatnonzero((sentence < 0) | (sentence >= n_sentences[units]))[0])
        raise ValueError(
            f"tokens.sentence[{row}] is {int(sentence[row])}, outside 0..{int(n_sentences[units[row]]) - 1} "
            f"(n_sentences of unit {int(units[row])})"
        )
    grouped = tokens.groupby(["unit", "stem"], sort=False)
    frame = grouped.agg(
        tf=("position", "size"),
        first_position=("position", "min"),
        last_position=("position", "max"),
        first_sentence=("sentence", "min"),
        sentences_with=("sentence", "nunique"),
        forms=("word", "nunique"),
    ).reset_index()
    unit_words = tokens.groupby("unit").size().reindex(frame["unit"]).to_numpy(dtype=np.float64)
    unit_sentences = n_sentences[frame["unit"].to_numpy()].astype(np.float64)
    document_frequency = frame["stem"].map(df).fillna(0).to_numpy(dtype=np.float64)
    frame["first_sentence_log"] = np.log1p(frame["first_sentence"])
    frame["first_sentence_rel"] = frame["first_sentence"] / unit_sentences
    frame["in_first_sentence"] = (frame["first_sentence"] == 0).astype(np.float64)
    frame["first_position_rel"] = frame["first_position"] / unit_words
    frame["last_position_rel"] = frame["last_position"] / unit_words
    frame["sentence_spread"] = frame["sentences_with"] / unit_sentences
    frame["tf_log"] = np.log(frame["tf"])
    frame["tf_rel"] = frame["tf"] / unit_words
    frame["idf"] = np.log((1.0 + n_documents) / (1.0 + document_frequency)) + 1.0
    frame["tfidf"] = frame["tf_rel"] * frame["idf"]
    rank = frame.groupby("unit")["tfidf"].rank(method="min", ascending=False)
    frame["tfidf_rank_log"] = np.log(rank)
    frame["tfidf_rank_rel"] = rank / frame.groupby("unit")["stem"].transform("size")
    frame["stem_length"] = frame["stem"].str.len()
    frame["forms"] = frame["forms"].astype(np.float64)
    return frame[["unit", "stem", *FEATURES]]


def title_stems(titles: Sequence[str], stemmer: Stemmer) -> list[set[str]]:
    """The set of content-word stems of each title."""
    titles, stemmer = check_texts(titles, "titles"), _stemmer(stemmer)
    return [set(stemmer.stems(content_words(title))) for title in titles]


def _labels(features: pd.DataFrame, stems: list[set[str]]) -> np.ndarray:
    """1 where the row's stem is among its unit's title stems."""
    pairs = pd.DataFrame(
        [(unit, stem) for unit, found in enumerate(stems) for stem in found], columns=["unit", "stem"]
    ).assign(label=1)
    merged = features[["unit", "stem"]].merge(pairs, on=["unit", "stem"], how="left")
    return merged["label"].fillna(0).to_numpy(dtype=np.int64)


@dataclass(eq=False)
class SelectionModel:
    """The trained classifier with the stemmer and the document frequencies its IDF feature uses."""

    classifier: Pipeline
    stemmer: Stemmer
    df: dict[str, int]
    n_documents: int

    def __post_init__(self) -> None:
        if not isinstance(self.classifier, Pipeline):
            raise ValueError(
                f"SelectionModel.classifier must be a Pipeline; got {type(self.classifier).__name__}"
            )
        _stemmer(self.stemmer, "SelectionModel.stemmer")
        check_mapping(self.df, "SelectionModel.df")
        self.n_documents = check_int(self.n_documents, "SelectionModel.n_documents", minimum=1)

    def features(self, bodies: Sequence[str]) -> pd.DataFrame:
        tokens, n_sentences = body_tokens(bodies, self.stemmer)
        return stem_features(tokens, n_sentences, self.df, self.n_documents)

    def log_probabilities(self, bodies: Sequence[str]) -> pd.DataFrame:
        """``unit, stem, log_prob``: log P(stem in the title) for every stem of every body."""
        features = self.features(bodies)
        log_prob = self.classifier.predict_log_proba(features[list(FEATURES)].to_numpy())[:, 1]
        return features[["unit", "stem"]].assign(log_prob=log_prob)

    def quality(self, bodies: Sequence[str], titles: Sequence[str]) -> dict[str, float]:
        """How well the classifier picks title stems on labelled sections.

        ``precision_at_k``/``recall_at_k``: micro-averaged over sections, the top-k stems by probability
        (k = number of distinct title stems) against the title's stems; ``coverage``: share of title stems
        that occur in the body (the most any selection can recall); ``average_precision``, ``roc_auc`` and
        ``log_loss`` over all (section, stem) pairs; ``positives`` and ``pairs`` their counts.
        """
        bodies, titles = check_texts(bodies, "bodies"), check_texts(titles, "titles")
        if len(bodies) != len(titles) or not bodies:
            raise ValueError(
                f"quality needs one title per body, and a body; got {len(bodies)} and {len(titles)}"
            )
        scored = self.log_probabilities(bodies)
        stems = title_stems(titles, self.stemmer)
        labels = _labels(scored, stems)
        wanted = np.array([len(found) for found in stems], dtype=np.int64)
        rank = scored.groupby("unit")["log_prob"].rank(method="first", ascending=False).to_numpy()
        top = rank <= wanted[scored["unit"].to_numpy()]
        hits = int((top & (labels == 1)).sum())
        probability = np.exp(scored["log_prob"].to_numpy())
        return {
            "sections": len(bodies),
            "pairs": len(scored),
            "positives": int(labels.sum()),
            "title_stems": int(wanted.sum()),
            "coverage": float(labels.sum() / wanted.sum()),
            "precision_at_k": float(hits / top.sum()),
            "recall_at_k": float(hits / wanted.sum()),
            "average_precision": float(average_precision_score(labels, probability)),
            "roc_auc": float(roc_auc_score(labels, probability)),
            "log_loss": float(log_loss(labels, probability, labels=[0, 1])),
        }


def train_selection(
    bodies: Sequence[str],
    titles: Sequence[str],
    idf_bodies: Sequence[str],
    *,
    C: float = 1.0,
    seed: int = 0,
    stemmer: Stemmer | None = None,
) -> SelectionModel:
    """Fit the classifier on the (body, title) training sections; IDF is counted over ``idf_bodies``.

    The features are standardised before the L2-regularised logistic regression (``C`` its inverse
    strength, a positive number); classes are not reweighted, so the output stays a calibrated probability.
    """
    bodies, titles = check_texts(bodies, "bodies"), check_texts(titles, "titles")
    idf_bodies = check_texts(idf_bodies, "idf_bodies")
    C = check_float(C, "C", positive=True)
    seed = check_int(seed, "seed", minimum=0)
    if stemmer is not None:
        _stemmer(stemmer)
    if len(bodies) != len(titles) or not bodies:
        raise ValueError("train_selection needs as many titles as bodies, and at least one")
    stemmer = stemmer or Stemmer()
    df, n_documents = document_frequencies(idf_bodies, stemmer)
    tokens, n_sentences = body_tokens(bodies, stemmer)
    features = stem_features(tokens, n_sentences, df, n_documents)
    labels = _labels(features, title_stems(titles, stemmer))
    if labels.min() == labels.max():
        raise ValueError("the training sections give only one class of (section, stem) examples")
    classifier = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=2000, random_state=seed))
    classifier.fit(features[list(FEATURES)].to_numpy(), labels)
    return SelectionModel(classifier, stemmer, df, n_documents)


def _stemmer(value, name: str = "stemmer") -> Stemmer:
    if not isinstance(value, Stemmer):
        raise ValueError(f"{name} must be a Stemmer; got {type(value).__name__}")
    return value
