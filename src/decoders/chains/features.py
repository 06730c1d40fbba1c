"""Token features of the linear-chain tagger, their vocabulary, and the compact sparse matrix of a split.

:func:`token_features` gives every token a list of binary feature strings (the usual feature set of
Ratnaparkhi/Collins-style POS taggers: the word, its lower-cased form, prefixes and suffixes, its shape,
spelling flags and a window of neighbouring words). The same strings are what a CRFsuite peer is trained on
(each string is an attribute of value 1), so both taggers see identical inputs. The Python binding takes the
strings as they are; CRFsuite's text data format needs ``\\`` and ``:`` inside a name escaped as ``\\\\``
and ``\\:`` (words such as ``:`` give names like ``w=:``). Start/end weights have no CRFsuite counterpart;
the ``BOS``/``EOS`` features give it the same information.

:class:`FeatureVocabulary` maps strings to ids; it is built on the training split only, keeping strings that
occur at least ``min_count`` times, and silently drops unknown strings at test time. A :class:`FeatureMatrix`
stores a split in CSR form: ``ids`` (int32, every token's feature ids, concatenated), ``token_offsets``
(token ``t`` owns ``ids[token_offsets[t]:token_offsets[t + 1]]``) and ``sentence_offsets`` (sentence ``s``
owns tokens ``sentence_offsets[s]:sentence_offsets[s + 1]``). Both are saved as ``.npz`` files.
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decoders.checks import check_ids, check_int
from decoders.errors import CorpusFormatError
from decoders.io import load_npz, save_npz

__all__ = [
    "BOS",
    "EOS",
    "FeatureMatrix",
    "FeatureVocabulary",
    "fit_features",
    "token_features",
    "word_shape",
]

BOS = "<s>"
"""The neighbouring-word value before the first token of a sentence."""
EOS = "</s>"
"""The neighbouring-word value after the last token of a sentence."""
_AFFIX_LENGTHS = (1, 2, 3, 4)
_UNKNOWN = -1


def word_shape(word: str) -> str:
    """Character classes of ``word``: upper case -> ``X``, lower case -> ``x``, digit -> ``d``, others kept.

    ``word_shape("Vinken") == "Xxxxxx"``, ``word_shape("12-3") == "dd-d"``.
    """
    if not isinstance(word, str):
        raise ValueError(f"word must be a string; got {word!r}")
    return "".join("X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit() else c for c in word)


@functools.lru_cache(maxsize=1 << 18)
def _word_features(word: str) -> tuple[str, ...]:
    """The features that depend on the word alone (cached: words repeat, so most tokens are cache hits)."""
    lower = word.lower()
    shape = word_shape(word)
    features = ["bias", f"w={word}", f"lw={lower}"]
    features += [f"p{k}={word[:k]}" for k in _AFFIX_LENGTHS if k <= len(word)]
    features += [f"s{k}={word[-k:]}" for k in _AFFIX_LENGTHS if k <= len(word)]
    features += [f"shape={shape}", f"sshape={''.join(key for key, _ in itertools.groupby(shape))}"]
    has_alnum = False
    flags = {"digit": False, "upper": False, "hyphen": "-" in word}
    for char in word:
        if char.isdigit():
            flags["digit"] = True
        if char.isupper():
            flags["upper"] = True
        has_alnum = has_alnum or char.isalnum()
    flags["title"] = word[:1].isupper()
    flags["allcaps"] = word.isupper()
    flags["punct"] = not has_alnum
    features += [name for name, value in flags.items() if value]
    return tuple(features)


def token_features(words: Sequence[str]) -> list[list[str]]:
    """The feature strings of every token of one sentence (one list per token, no duplicates in a list).

    Per token: ``bias``; ``w=`` word and ``lw=`` lower-cased word; ``p1=``..``p4=`` prefixes and ``s1=``..``s4=``
    suffixes (those not longer than the word); ``shape=`` (:func:`word_shape`) and ``sshape=`` (the shape with
    runs collapsed, ``Xx`` for ``Vinken``); flags ``digit``, ``upper``, ``hyphen``, ``title`` (first character
    upper case), ``allcaps``, ``punct`` (no letter or digit), present only when true; the lower-cased words at
    offsets -2..+2 (``w-2=``, ``w-1=``, ``w+1=``, ``w+2=``, :data:`BOS`/:data:`EOS` beyond the sentence);
    the word bigrams ``w-1|w=`` and ``w|w+1=``; the 3-suffixes of the neighbours (``s3-1=``, ``s3+1=``);
    and ``BOS``/``EOS`` on the first/last token.
    """
    _check_words(words, "words")
    return _token_features(words)


def _token_features(words: Sequence[str]) -> list[list[str]]:
    """:func:`token_features` of checked words."""
    lowers = [word.lower() for word in words]
    padded = [BOS, BOS, *lowers, EOS, EOS]
    suffixes = [BOS, *(lower[-3:] for lower in lowers), EOS]
    last = len(words) - 1
    result = []
    for i, word in enumerate(words):
        prev2, prev1, current, next1, next2 = padded[i : i + 5]
        features = list(_word_features(word))
        features += [
            f"w-2={prev2}",
            f"w-1={prev1}",
            f"w+1={next1}",
            f"w+2={next2}",
            f"w-1|w={prev1}|{current}",
            f"w|w+1={current}|{next1}",
            f"s3-1={suffixes[i]}",
            f"s3+1={suffixes[i + 2]}",
        ]
        if i == 0:
            features.append("BOS")
        if i == last:
            features.append("EOS")
        result.append(features)
    return result


def _check_words(words: Sequence[str], name: str) -> None:
    """A sentence: a list (tuple, array) of strings."""
    if isinstance(words, str) or not isinstance(words, list | tuple | np.ndarray):
        raise ValueError(f"{name} must be a list of words (strings); got {type(words).__name__}")
    for i, word in enumerate(words):
        if not isinstance(word, str):
            raise ValueError(f"{name}[{i}] must be a string; got {word!r}")


def _sentence_features(words: Sequence[str], number: int) -> list[list[str]]:
    """token_features of the ``number``-th sentence (0-based); a sentence must have at least one word."""
    _check_words(words, f"sentence {number} (0-based)")
    if len(words) == 0:
        raise ValueError(f"sentence {number} (0-based) has no words")
    return _token_features(words)


# --------------------------------------------------------------------------- vocabulary


class FeatureVocabulary:
    """Feature strings and their ids (ids are positions in :attr:`names`, in first-occurrence order)."""

    def __init__(self, names: Iterable[str]):
        if isinstance(names, str):
            raise ValueError("names must be an iterable of feature strings, not one string")
        self.names: list[str] = list(names)
        for i, name in enumerate(self.names):
            if not isinstance(name, str):
                raise ValueError(f"names[{i}] must be a feature string; got {name!r}")
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        if len(self.index) != len(self.names):
            raise ValueError("feature names must be unique")

    def __len__(self) -> int:
        return len(self.names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FeatureVocabulary) and self.names == other.names

    __hash__ = None  # type: ignore[assignment]  # mutable container semantics

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]], min_count: int = 1) -> FeatureVocabulary:
        """The features of ``sentences`` (lists of words) that occur at least ``min_count`` times."""
        return fit_features(sentences, min_count)[0]

    def transform(self, sentences: Iterable[Sequence[str]]) -> FeatureMatrix:
        """The feature matrix of ``sentences`` (lists of words); features not in the vocabulary are dropped."""
        lookup = self.index.get
        ids, per_token, per_sentence = _feature_ids(
            sentences, lambda token: map(lookup, token, itertools.repeat(_UNKNOWN, len(token)))
        )
        return _matrix_from_lists(ids, per_token, per_sentence, keep=None)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The vocabulary as two arrays: UTF-8 bytes of all names and their offsets (compact in .npz)."""
        encoded = [name.encode("utf-8") for name in self.names]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return {
            "feature_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
            "feature_offsets": offsets,
        }

    @classmethod
    def from_arrays(cls, blob: np.ndarray, offsets: np.ndarray) -> FeatureVocabulary:
        """Inverse of :meth:`to_arrays`."""
        data = blob.tobytes()
        bounds = offsets.tolist()
        return cls(data[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds))

    def save(self, path: str | Path) -> None:
        """Write the vocabulary to ``path`` (.npz), atomically."""
        save_npz(path, self.to_arrays())

    @classmethod
    def load(cls, path: str | Path) -> FeatureVocabulary:
        """Read a vocabulary written by :meth:`save`; CorpusFormatError names a bad file."""
        arrays = load_npz(path, ("feature_bytes", "feature_offsets"))
        offsets = arrays["feature_offsets"]
        blob = arrays["feature_bytes"]
        if offsets.ndim != 1 or len(offsets) < 1 or offsets[0] != 0 or offsets[-1] != blob.size:
            raise CorpusFormatError(path, None, "feature offsets do not cover the feature bytes")
        if (np.diff(offsets) < 0).any():
            raise CorpusFormatError(path, None, "feature offsets are not increasing")
        try:
            return cls.from_arrays(blob, offsets)
        except (UnicodeDecodeError, ValueError) as exc:
            raise CorpusFormatError(path, None, f"bad feature names: {exc}") from exc


def fit_features(
    sentences: Iterable[Sequence[str]], min_count: int = 1
) -> tuple[FeatureVocabulary, FeatureMatrix]:
    """Build the vocabulary of a training split and its feature matrix in one pass over the sentences.

    Features occurring fewer than ``min_count`` times (token occurrences) are left out of both.
    """
    check_int(min_count, "min_count", minimum=1)
    raw_index: defaultdict[str, int] = defaultdict(itertools.count().__next__)  # new name -> next id
    lookup = raw_index.__getitem__
    ids, per_token, per_sentence = _feature_ids(sentences, lambda token: map(lookup, token))
    raw_names = list(raw_index)
    counts = np.bincount(np.asarray(ids, dtype=np.int64), minlength=len(raw_names))
    keep = counts >= min_count
    vocabulary = FeatureVocabulary(itertools.compress(raw_names, keep.tolist()))
    return vocabulary, _matrix_from_lists(ids, per_token, per_sentence, keep=keep)


# --------------------------------------------------------------------------- matrix


@dataclass(frozen=True, eq=False)
class FeatureMatrix:
    """The features of a split in CSR form (see the module docstring)."""

    ids: np.ndarray
    token_offsets: np.ndarray
    sentence_offsets: np.ndarray

    def __post_init__(self) -> None:
        ids = check_ids(self.ids, "ids", ndim=1)
        if len(ids) and ids.max() > np.iinfo(np.int32).max:
            raise ValueError(f"ids must fit int32; got {int(ids.max())}")
        object.__setattr__(self, "ids", np.ascontiguousarray(ids, dtype=np.int32))
        object.__setattr__(
            self, "token_offsets", np.ascontiguousarray(check_ids(self.token_offsets, "token_offsets"))
        )
        object.__setattr__(
            self,
            "sentence_offsets",
            np.ascontiguousarray(check_ids(self.sentence_offsets, "sentence_offsets")),
        )
        problem = self._problem()
        if problem:
            raise ValueError(f"inconsistent feature matrix: {problem}")

    def _problem(self) -> str | None:
        tok, sen = self.token_offsets, self.sentence_offsets
        if self.ids.ndim != 1 or tok.ndim != 1 or sen.ndim != 1 or len(tok) < 1 or len(sen) < 1:
            return "expected three 1-d arrays with non-empty offsets"
        if tok[0] != 0 or tok[-1] != len(self.ids) or (np.diff(tok) < 0).any():
            return "token offsets must rise from 0 to the number of feature ids"
        if sen[0] != 0 or sen[-1] != len(tok) - 1 or (np.diff(sen) <= 0).any():
            return "sentence offsets must rise strictly from 0 to the number of tokens"
        if len(self.ids) and self.ids.min() < 0:
            return f"ids[{int(np.argmax(self.ids < 0))}] is a negative feature id"
        return None

    @property
    def n_sentences(self) -> int:
        return len(self.sentence_offsets) - 1

    @property
    def n_tokens(self) -> int:
        return len(self.token_offsets) - 1

    def sentence_lengths(self) -> np.ndarray:
        return np.diff(self.sentence_offsets)

    def token_ids(self, token: int) -> np.ndarray:
        """The feature ids of one token (global token index)."""
        token = check_int(token, "token", minimum=0)
        if token >= self.n_tokens:
            raise ValueError(f"token {token} out of range 0..{self.n_tokens - 1}")
        return self.ids[self.token_offsets[token] : self.token_offsets[token + 1]]

    def sentence_slice(self, sentence: int) -> slice:
        """The global token indices of one sentence."""
        sentence = check_int(sentence, "sentence", minimum=0)
        if sentence >= self.n_sentences:
            raise ValueError(f"sentence {sentence} out of range 0..{self.n_sentences - 1}")
        return slice(int(self.sentence_offsets[sentence]), int(self.sentence_offsets[sentence + 1]))

    @functools.cached_property
    def _max_id(self) -> int:
        return int(self.ids.max()) if len(self.ids) else -1

    def max_id(self) -> int:
        """The largest feature id (-1 when there are none); computed once."""
        return self._max_id

    def save(self, path: str | Path) -> None:
        """Write the matrix to ``path`` (.npz), atomically."""
        save_npz(
            path,
            {"ids": self.ids, "token_offsets": self.token_offsets, "sentence_offsets": self.sentence_offsets},
        )

    @classmethod
    def load(cls, path: str | Path) -> FeatureMatrix:
        """Read a matrix written by :meth:`save`; CorpusFormatError names a bad or inconsistent file."""
        arrays = load_npz(path, ("ids", "token_offsets", "sentence_offsets"))
        try:
            return cls(arrays["ids"], arrays["token_offsets"], arrays["sentence_offsets"])
        except ValueError as exc:
            raise CorpusFormatError(path, None, str(exc)) from exc


def _feature_ids(
    sentences: Iterable[Sequence[str]], token_ids: Callable[[list[str]], Iterable[int]]
) -> tuple[list[int], list[int], list[int]]:
    """Every token's feature ids (``token_ids`` maps a token's feature strings to ids), the feature count of
    each token and the token count of each sentence."""
    ids: list[int] = []
    per_token: list[int] = []
    per_sentence: list[int] = []
    for number, words in enumerate(sentences):
        features = _sentence_features(words, number)
        per_sentence.append(len(features))
        for token in features:
            per_token.append(len(token))
            ids.extend(token_ids(token))
    return ids, per_token, per_sentence


def _matrix_from_lists(
    ids: list[int], per_token: list[int], per_sentence: list[int], keep: np.ndarray | None
) -> FeatureMatrix:
    """Assemble a FeatureMatrix from raw ids, dropping unknown ids (-1) or ids whose ``keep`` is False.

    With ``keep``, raw ids are renumbered to positions among the kept ones (so they match the vocabulary).
    """
    raw = np.asarray(ids, dtype=np.int64)
    counts = np.asarray(per_token, dtype=np.int64)
    if keep is not None:
        remap = np.where(keep, np.cumsum(keep) - 1, _UNKNOWN)
        raw = remap[raw]
    kept = raw != _UNKNOWN
    owner = np.repeat(np.arange(len(counts)), counts)
    kept_per_token = np.bincount(owner[kept], minlength=len(counts))
    token_offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(kept_per_token, out=token_offsets[1:])
    sentence_offsets = np.zeros(len(per_sentence) + 1, dtype=np.int64)
    np.cumsum(per_sentence, out=sentence_offsets[1:])
    return FeatureMatrix(raw[kept].astype(np.int32), token_offsets, sentence_offsets)
