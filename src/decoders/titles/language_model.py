"""The ordering scorer of the titles experiment: a bigram language model with Simple Good-Turing smoothing.

Deshpande et al. (2007, sec. 6) score word order with "a bigram language model with Good-Turing smoothing"
estimated on the body text of all sections. Here:

* Tokens are the lower-cased words of :func:`decoders.corpora.textbooks.words` with a possessive "'s"
  removed (so they match the content words the title graph is built from); every sentence (and, when
  scoring, every title) is wrapped in ``<s> ... </s>``.
* :func:`simple_good_turing` is Gale & Sampson's (1995) Simple Good-Turing estimator: the averaged
  counts-of-counts ``Z_r`` are fitted by a line in log-log space, Turing's estimate ``(r+1) N_{r+1} / N_r``
  is used for small ``r`` until it no longer differs significantly (1.96 standard deviations) from the
  smoothed (LGT) estimate, which is used from there on; the unseen types share ``N_1 / N``.
* The unigram distribution is SGT over the predicted tokens (words and ``</s>``); the unseen mass ``N_1 / N``
  goes to one type ``<unk>`` that stands for every word not seen in training.
* The bigram distribution is Katz-style back-off with SGT discounts: a bigram seen ``r`` times after ``v``
  gets ``d_r r / c(v)`` with ``d_r = min(1, r*/r)`` from SGT over all bigram types; what is left after ``v``,
  ``1 - sum_seen d_r r / c(v)``, is spread over the words never seen after ``v`` in proportion to their
  unigram probability (divided by the unigram mass of those words, so that ``P(. | v)`` sums to one over
  the vocabulary, ``</s>`` and ``<unk>``). A context never seen (an unknown word) backs off to the unigram.
  A context already followed by every word of positive unigram probability (possible only in a corpus
  without singletons, where ``<unk>`` gets nothing) has its seen bigrams renormalised instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from decoders.checks import (
    check_finite,
    check_float,
    check_ids,
    check_range,
    check_text,
    check_texts,
    float_array,
)
from decoders.corpora.textbooks import words

__all__ = [
    "BOS",
    "EOS",
    "UNK",
    "BigramLM",
    "GoodTuring",
    "estimate_bigram_lm",
    "lm_tokens",
    "sentences",
    "simple_good_turing",
]

BOS, EOS, UNK = "<s>", "</s>", "<unk>"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_POSSESSIVE = re.compile(r"['’]s$")


def sentences(text: str) -> list[str]:
    """The sentences of a body: each line (paragraph or heading) split after ``.``, ``!`` or ``?`` followed by
    a capital or digit; empty pieces are dropped."""
    text = check_text(text, "text")
    found = []
    for line in text.split("\n"):
        found.extend(piece for piece in _SENTENCE_END.split(line.strip()) if piece)
    return found


def lm_tokens(text: str) -> list[str]:
    """The language model's tokens of a text: lower-cased words, possessive "'s" removed."""
    text = check_text(text, "text")
    tokens = (_POSSESSIVE.sub("", word.lower()) for word in words(text))
    return [token for token in tokens if token]


# --------------------------------------------------------------------------------------------------------
# Simple Good-Turing


@dataclass(frozen=True)
class GoodTuring:
    """Simple Good-Turing estimates for the counts ``r`` observed in a frequency table.

    ``r_star[i]`` is the adjusted count of a type seen ``r[i]`` times, ``p[i]`` the probability of one such
    type (renormalised so that all seen types share ``1 - p0``), ``p0`` the total probability of all unseen
    types (``N_1 / N``); ``turing[i]`` says whether ``r_star[i]`` is Turing's estimate (else the LGT one).
    """

    r: np.ndarray  # int64, ascending
    n_r: np.ndarray  # int64: number of types seen r times
    r_star: np.ndarray
    p: np.ndarray
    p0: float
    intercept: float
    slope: float
    turing: np.ndarray

    def __post_init__(self) -> None:
        r = check_ids(self.r, "GoodTuring.r", ndim=1)
        if r.size == 0 or r[0] < 1 or (np.diff(r) <= 0).any():
            raise ValueError(f"GoodTuring.r must be positive counts in increasing order; got {r.tolist()}")
        size = (r.size,)
        n_r = check_ids(self.n_r, "GoodTuring.n_r", ndim=1)
        turing = np.asarray(self.turing)
        arrays = {"r_star": self.r_star, "p": self.p}
        arrays = {key: check_finite(float_array(value, f"GoodTuring.{key}"), f"GoodTuring.{key}")
                  for key, value in arrays.items()}  # fmt: skip
        shapes = {"n_r": n_r.shape, "turing": turing.shape, **{key: a.shape for key, a in arrays.items()}}
        for key, shape in shapes.items():
            if shape != size:
                raise ValueError(f"GoodTuring.{key} must have the shape {size} of GoodTuring.r; got {shape}")
        if turing.dtype != np.bool_:
            raise ValueError(f"GoodTuring.turing must be boolean; got dtype {turing.dtype}")
        check_range(n_r, "GoodTuring.n_r", 1, np.iinfo(np.int64).max)
        for key in ("p0", "intercept", "slope"):
            check_float(getattr(self, key), f"GoodTuring.{key}")
        if not 0.0 <= self.p0 <= 1.0 or ((arrays["p"] < 0) | (arrays["p"] > 1)).any():
            raise ValueError("GoodTuring.p0 and GoodTuring.p must be probabilities (in [0, 1])")

    def _rows(self, counts: np.ndarray) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.int64)
        rows = np.searchsorted(self.r, counts).clip(0, len(self.r) - 1)
        if not np.array_equal(self.r[rows], counts):
            raise ValueError("counts not in the estimated frequency table")
        return rows

    def probability(self, counts: np.ndarray) -> np.ndarray:
        """The probability of one type for each of ``counts`` (each must occur in the table)."""
        return self.p[self._rows(counts)]

    def discount(self, counts: np.ndarray) -> np.ndarray:
        """``min(1, r*/r)`` for each of ``counts``: the share of its count a seen type keeps."""
        rows = self._rows(counts)
        return np.minimum(1.0, self.r_star[rows] / self.r[rows])


def simple_good_turing(counts: np.ndarray) -> GoodTuring:
    """Gale & Sampson's Simple Good-Turing estimator over the positive type counts ``counts``.

    Raises ValueError when fewer than two distinct counts occur (no line can be fitted) or when the fitted
    log-log slope is not below -1 (Gale & Sampson: the smoothed estimates are then not usable, as they would
    not discount large counts). ``counts`` must be a 1-d integer array (a ValueError naming it otherwise).
    """
    counts = np.asarray(counts)
    if counts.size == 0 and counts.dtype.kind == "f":  # [] is float64 to numpy
        counts = counts.astype(np.int64)
    counts = check_ids(counts, "counts", ndim=1)
    if counts.size == 0 or counts.min() < 1:
        where = "" if counts.size == 0 else f"; counts[{int(np.argmin(counts))}] is {int(counts.min())}"
        raise ValueError(f"Simple Good-Turing needs positive type counts{where}")
    r, n_r = np.unique(counts, return_counts=True)
    if r.size < 2:
        raise ValueError("Simple Good-Turing needs at least two distinct counts to fit its line")
    previous = np.concatenate(([0], r[:-1]))
    following = np.concatenate((r[1:], [2 * r[-1] - previous[-1]]))
    z = n_r / (0.5 * (following - previous))
    slope, intercept = np.polyfit(np.log(r), np.log(z), 1)
    if slope >= -1.0:
        raise ValueError(f"Simple Good-Turing: log-log slope {slope:.3f} is not below -1")
    lgt = (r + 1) * ((r + 1) / r) ** slope  # (r+1) S(r+1) / S(r) with S(r) = exp(intercept + slope log r)
    has_next = np.concatenate((r[1:] == r[:-1] + 1, [False]))
    n_next = np.where(has_next, np.concatenate((n_r[1:], [0])), 0)
    turing_estimate = (r + 1) * n_next / n_r
    spread = 1.96 * np.sqrt((r + 1) ** 2 * n_next / n_r**2 * (1 + n_next / n_r))
    turing = np.cumprod(has_next & (np.abs(turing_estimate - lgt) > spread)).astype(bool)
    r_star = np.where(turing, turing_estimate, lgt)
    total = float((r * n_r).sum())
    p0 = float(n_r[0] / total) if r[0] == 1 else 0.0
    p = (1.0 - p0) * r_star / float((n_r * r_star).sum())
    return GoodTuring(r, n_r, r_star, p, p0, float(intercept), float(slope), turing)


# --------------------------------------------------------------------------------------------------------
# Bigram model


@dataclass(eq=False)
class BigramLM:
    """A bigram model over ``vocabulary`` (ids ``0, 1, 2`` are ``<s>``, ``</s>``, ``<unk>``).

    ``log_unigram[w]`` is the back-off distribution (``-inf`` for ``<s>``, which is never predicted);
    ``log_alpha[v]`` the back-off weight of context ``v`` (0 for a context never seen); ``keys`` the sorted
    seen bigrams ``v * V + w`` and ``log_seen`` their discounted log probabilities.
    """

    vocabulary: tuple[str, ...]
    log_unigram: np.ndarray
    log_alpha: np.ndarray
    keys: np.ndarray
    log_seen: np.ndarray
    unigram_sgt: GoodTuring
    bigram_sgt: GoodTuring

    def __post_init__(self) -> None:
        """Checks every field (shapes, ids, no NaN or ``+inf`` among the log probabilities), naming it."""
        self.vocabulary = tuple(check_texts(self.vocabulary, "BigramLM.vocabulary"))
        size = len(self.vocabulary)
        if self.vocabulary[:3] != (BOS, EOS, UNK):
            raise ValueError(
                f"BigramLM.vocabulary must start with {BOS}, {EOS}, {UNK}; got {self.vocabulary[:3]}"
            )
        for key in ("log_unigram", "log_alpha", "log_seen"):
            values = check_finite(
                float_array(getattr(self, key), f"BigramLM.{key}"), f"BigramLM.{key}", forbid=True
            )
            setattr(self, key, values)
        for key in ("log_unigram", "log_alpha"):
            if getattr(self, key).shape != (size,):
                raise ValueError(f"BigramLM.{key} must have shape ({size},), one per vocabulary entry")
        keys = np.asarray(self.keys)
        if keys.size == 0 and keys.dtype.kind == "f":
            keys = keys.astype(np.int64)
        self.keys = check_range(check_ids(keys, "BigramLM.keys", ndim=1), "BigramLM.keys", 0, size * size - 1)
        if (np.diff(self.keys) <= 0).any():
            raise ValueError("BigramLM.keys must be sorted, without repeats")
        if self.log_seen.shape != self.keys.shape:
            raise ValueError(f"BigramLM.log_seen must have the shape {self.keys.shape} of BigramLM.keys")
        for key in ("unigram_sgt", "bigram_sgt"):
            if not isinstance(getattr(self, key), GoodTuring):
                raise ValueError(
                    f"BigramLM.{key} must be a GoodTuring; got {type(getattr(self, key)).__name__}"
                )
        self._ids = {token: i for i, token in enumerate(self.vocabulary)}

    def __getstate__(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key != "_ids"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    @property
    def size(self) -> int:
        return len(self.vocabulary)

    def ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Vocabulary ids of ``tokens``; an unknown token is ``<unk>``."""
        tokens = check_texts(tokens, "tokens")
        unknown = self._ids[UNK]
        return np.fromiter(
            (self._ids.get(token, unknown) for token in tokens), dtype=np.int64, count=len(tokens)
        )

    def log_prob_ids(self, previous: np.ndarray, following: np.ndarray) -> np.ndarray:
        """``log P(following | previous)`` elementwise (numpy broadcasting) for vocabulary ids (integers in
        ``0..size-1``, each array a ValueError naming it otherwise)."""
        checked = []
        for name, ids in (("previous", previous), ("following", following)):
            ids = np.asarray(ids)
            if ids.size == 0 and ids.dtype.kind == "f":
                ids = ids.astype(np.int64)
            checked.append(check_range(check_ids(ids, name), name, 0, self.size - 1))
        try:
            previous, following = np.broadcast_arrays(*checked)
        except ValueError:
            raise ValueError(
                f"previous and following must broadcast together; got shapes {checked[0].shape} and "
                f"{checked[1].shape}"
            ) from None
        backed_off = self.log_alpha[previous] + self.log_unigram[following]
        key = previous * self.size + following
        rows = np.searchsorted(self.keys, key).clip(0, max(len(self.keys) - 1, 0))
        seen = self.keys[rows] == key
        return np.where(seen, self.log_seen[rows], backed_off)

    def log_prob(self, previous: Sequence[str], following: Sequence[str]) -> np.ndarray:
        """``log P(following[i] | previous[i])`` for two equally long token sequences."""
        previous, following = check_texts(previous, "previous"), check_texts(following, "following")
        if len(previous) != len(following):
            raise ValueError(f"previous and following differ in length: {len(previous)} != {len(following)}")
        return self.log_prob_ids(self.ids(previous), self.ids(following))

    def log_prob_matrix(self, previous: Sequence[str], following: Sequence[str]) -> np.ndarray:
        """The ``(len(previous), len(following))`` matrix of ``log P(following[j] | previous[i])``."""
        return self.log_prob_ids(self.ids(previous)[:, None], self.ids(following)[None, :])

    def sentence_log_prob(self, tokens: Sequence[str]) -> float:
        """``log P(<s> tokens </s>)``."""
        sequence = [BOS, *check_texts(tokens, "tokens"), EOS]
        return float(self.log_prob(sequence[:-1], sequence[1:]).sum())


def estimate_bigram_lm(token_sentences: Iterable[Sequence[str]]) -> BigramLM:
    """Estimate the model on tokenised sentences (see :func:`lm_tokens`); each is wrapped in ``<s> .. </s>``."""
    flat: list[str] = []
    if isinstance(token_sentences, str | bytes) or not isinstance(token_sentences, Iterable):
        raise ValueError(
            f"token_sentences must be an iterable of token lists; got {type(token_sentences).__name__}"
        )
    for i, tokens in enumerate(token_sentences):
        tokens = check_texts(tokens, f"token_sentences[{i}]")
        if tokens:
            flat.append(BOS)
            flat.extend(tokens)
            flat.append(EOS)
    if not flat:
        raise ValueError("the language model needs at least one non-empty sentence")
    specials = [BOS, EOS, UNK]
    others = sorted(set(flat).difference(specials))
    vocabulary = (*specials, *others)
    size = len(vocabulary)
    ids = pd.Index(vocabulary).get_indexer(pd.Index(flat, dtype=object)).astype(np.int64)
    previous, following = ids[:-1], ids[1:]
    inside = previous != 1  # "</s> <s>" joins two sentences: not a bigram
    previous, following = previous[inside], following[inside]

    unigram_counts = np.bincount(following, minlength=size)
    unigram_sgt = simple_good_turing(unigram_counts[unigram_counts > 0])
    unigram = np.zeros(size)
    unigram[unigram_counts > 0] = unigram_sgt.probability(unigram_counts[unigram_counts > 0])
    unigram[2] = unigram_sgt.p0

    keys, counts = np.unique(previous * size + following, return_counts=True)
    bigram_sgt = simple_good_turing(counts)
    context, word = keys // size, keys % size
    context_total = np.bincount(context, weights=counts, minlength=size)
    seen = bigram_sgt.discount(counts) * counts / context_total[context]
    seen_mass = np.bincount(context, weights=seen, minlength=size)
    seen_unigram = np.bincount(context, weights=unigram[word], minlength=size)
    observed = context_total > 0
    left = 1.0 - seen_mass
    if (left[observed] <= 0).any():
        bad = vocabulary[int(np.flatnonzero(observed & (left <= 0))[0])]
        raise ValueError(f"Good-Turing leaves no probability for unseen words after {bad!r}")
    # A context followed by every word of positive unigram probability has no unseen word to give its
    # left-over mass to (only possible when no word is a singleton, so <unk> has probability 0): its seen
    # bigrams are renormalised instead.
    unseen_unigram = 1.0 - seen_unigram
    full = observed & (unseen_unigram <= 1e-12)
    seen = seen / np.where(full, seen_mass, 1.0)[context]
    alpha = np.ones(size)
    open_contexts = observed & ~full
    alpha[open_contexts] = left[open_contexts] / unseen_unigram[open_contexts]
    alpha[full] = 0.0
    with np.errstate(divide="ignore"):
        return BigramLM(
            vocabulary, np.log(unigram), np.log(alpha), keys, np.log(seen), unigram_sgt, bigram_sgt
        )
