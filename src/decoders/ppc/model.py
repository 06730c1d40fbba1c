"""Grandparent scores factored by templates (Riedel et al. 2012, eqs. 4-6) and their offline bounds (eqs. 12-13).

A sentence's tokens carry attributes (:data:`ATTRIBUTES`: lower-cased form, lemma, POS, coarse POS, and the
set of morphological features), encoded by a :class:`Lexicon` built on the training split (0 = not used by a
template, :data:`UNKNOWN` for unseen strings, :data:`ROOT` for token 0). A grandparent template picks one
attribute of each of ``g``, ``p`` and ``c`` (or none) and conjoins them with the relative positions
``d_gpc = (g > p, g > c, p > c)`` (eq. 6); a feature is one such tuple, packed into one int64 key. The feature
set is that of the training split's gold parts, indexed once (sorted keys); a key outside it has weight 0, so
every bound below is exact arithmetic on known weights (hashing would let unseen keys collide with seen ones).

Bounds (eqs. 12-13), computed once from the weights: per template, the largest weight over every value ``g``
could take and every relation it could have, for each (``p`` attribute, ``c`` attribute, ``p > c``), floored at
0 (an attribute value outside the index scores 0): ``sbar_t(., p, c) >= max_g s_t(g, p, c)`` per template t,
and their sum bounds ``max_g s(g, p, c)`` (eq. 9's arc filter); likewise ``sbar_t(g, p, .)`` over every ``c``.
Pricing bounds a part by ``sum_t min(sbar_t(g, p, .), sbar_t(., p, c))``, never above eq. 11's
``min(sbar(g, p, .), sbar(., p, c))``. A set-valued attribute (the morphological features, used on ``p`` only)
contributes one feature per element, so its bound is the sum of its elements' bounds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from decoders.checks import check_ids, check_int, check_path, check_range
from decoders.errors import CorpusFormatError
from decoders.io import load_npz, save_npz
from decoders.parsing.checks import check_heads
from decoders.parsing.features import Vocabulary

FORM, LEMMA, POS, COARSE, FEATS = range(5)
ATTRIBUTES = ("form", "lemma", "pos", "coarse", "feats")
NOT_USED, UNKNOWN, ROOT = 0, 1, 2
_FIRST_ID = 3
_BITS = 17  # attribute ids below 2^17; templates below 2^6; 3 relation bits: 6 + 3 * 17 + 3 = 60 bits
MAX_ID = 1 << _BITS

#: (name, attribute of g, of p, of c); None leaves the token out. FEATS appears on p only (see module doc).
TEMPLATES: tuple[tuple[str, int | None, int | None, int | None], ...] = (
    ("gp.pp.cp", POS, POS, POS),
    ("gc.pc.cc", COARSE, COARSE, COARSE),
    ("gw.pp.cp", FORM, POS, POS),
    ("gp.pw.cp", POS, FORM, POS),
    ("gp.pp.cw", POS, POS, FORM),
    ("gl.pc.cc", LEMMA, COARSE, COARSE),
    ("gc.pl.cc", COARSE, LEMMA, COARSE),
    ("gc.pc.cl", COARSE, COARSE, LEMMA),
    ("gp.cp", POS, None, POS),
    ("gw.cw", FORM, None, FORM),
    ("gl.cl", LEMMA, None, LEMMA),
    ("gc.cw", COARSE, None, FORM),
    ("gw.cc", FORM, None, COARSE),
    ("gp.pf.cp", POS, FEATS, POS),
    ("gc.pf.cc", COARSE, FEATS, COARSE),
)


class Lexicon:
    """String -> id per attribute; ids from :data:`_FIRST_ID`, unseen strings -> :data:`UNKNOWN`."""

    def __init__(self, ids: Sequence[dict[str, int]] | None = None):
        if ids is not None and (
            isinstance(ids, str | bytes)
            or not isinstance(ids, Sequence)
            or len(ids) != len(ATTRIBUTES)
            or not all(isinstance(table, dict) for table in ids)
        ):
            raise ValueError(
                f"ids must be {len(ATTRIBUTES)} dicts (one per attribute) or None; got {ids!r:.80}"
            )
        self.ids = [dict(table) for table in ids] if ids is not None else [{} for _ in ATTRIBUTES]

    @classmethod
    def build(cls, sentences: Iterable[dict[str, Sequence[str]]]) -> Lexicon:
        """From training sentences (mappings with ``words``, ``tags``, ``coarse_tags`` and, when the treebank
        has them, ``lemmas`` and ``feats``)."""
        lexicon = cls()
        for sentence in sentences:
            for attribute, values in enumerate(_values(sentence)):
                table = lexicon.ids[attribute]
                for value in values if attribute != FEATS else (f for word in values for f in word):
                    if value not in table:
                        if len(table) + _FIRST_ID >= MAX_ID:
                            raise ValueError(
                                f"more than {MAX_ID - _FIRST_ID} distinct {ATTRIBUTES[attribute]} values"
                            )
                        table[value] = len(table) + _FIRST_ID
        return lexicon

    def encode(self, sentence: dict[str, Sequence[str]]) -> SentenceAttributes:
        values = _values(sentence)
        n = len(values[FORM])
        single = np.full((4, n + 1), ROOT, dtype=np.int64)
        for attribute in (FORM, LEMMA, POS, COARSE):
            table = self.ids[attribute]
            single[attribute, 1:] = [table.get(v, UNKNOWN) for v in values[attribute]]
        feats = [[self.ids[FEATS].get(f, UNKNOWN) for f in word] for word in values[FEATS]]
        offsets = np.zeros(n + 2, dtype=np.int64)
        offsets[2:] = np.cumsum([len(word) for word in feats])
        flat = np.array([f for word in feats for f in word], dtype=np.int64)
        return SentenceAttributes(single, offsets, flat)


def _values(sentence: dict[str, Sequence[str]]) -> list[Sequence]:
    """(forms lower-cased, lemmas, POS, coarse POS, feature lists) of a sentence; a treebank without lemmas
    or features gives the lower-cased form as lemma and no features."""
    forms = [w.lower() for w in sentence["words"]]
    lemmas = sentence.get("lemmas")
    lemmas = (
        forms
        if lemmas is None
        else [lemma if lemma != "_" else form for lemma, form in zip(lemmas, forms, strict=True)]
    )
    feats = sentence.get("feats")
    feats = [[] for _ in forms] if feats is None else [_features(f) for f in feats]
    return [forms, lemmas, list(sentence["tags"]), list(sentence["coarse_tags"]), feats]


def _features(text: str) -> list[str]:
    """A FEATS cell as a list; ``_`` is none, and the DDT's per-token ``id=<k>`` (an identifier, not a
    morphological feature) is dropped."""
    if text in ("_", ""):
        return []
    return [f for f in text.split("|") if not f.startswith("id=")]


@dataclass(frozen=True)
class SentenceAttributes:
    """Per token 0..n: ``single[attribute, i]`` for FORM, LEMMA, POS, COARSE; the features of token ``i`` are
    ``feats[offsets[i]:offsets[i + 1]]`` (none for the root)."""

    single: np.ndarray
    offsets: np.ndarray
    feats: np.ndarray

    def __post_init__(self) -> None:
        single, offsets, feats = self.single, self.offsets, self.feats
        for name, array, ndim in (("single", single, 2), ("offsets", offsets, 1), ("feats", feats, 1)):
            if not isinstance(array, np.ndarray) or array.dtype.kind not in "iu" or array.ndim != ndim:
                raise ValueError(f"SentenceAttributes.{name} must be a {ndim}-d integer array")
        if single.shape[0] != len(ATTRIBUTES) - 1 or single.shape[1] < 1:
            raise ValueError(
                f"SentenceAttributes.single must have shape ({len(ATTRIBUTES) - 1}, n + 1); got {single.shape}"
            )
        n = single.shape[1] - 1
        if offsets.shape != (n + 2,) or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
            raise ValueError(f"SentenceAttributes.offsets must be {n + 2} non-decreasing offsets from 0")
        if offsets[-1] != len(feats):
            raise ValueError(
                f"SentenceAttributes.offsets end at {offsets[-1]}, not at len(feats) = {len(feats)}"
            )
        for name, array in (("single", single), ("feats", feats)):
            if array.size and (array.min() < 1 or array.max() >= MAX_ID):
                raise ValueError(f"SentenceAttributes.{name} holds an id outside 1..{MAX_ID - 1}")

    @property
    def n(self) -> int:
        return self.single.shape[1] - 1


def _relation(g: np.ndarray, p: np.ndarray, c: np.ndarray) -> np.ndarray:
    return 4 * (g > p) + 2 * (g > c) + (p > c)


def _pack(t: int, a_g: np.ndarray, a_p: np.ndarray, a_c: np.ndarray, relation: np.ndarray) -> np.ndarray:
    return (((np.int64(t) << _BITS | a_g) << _BITS | a_p) << _BITS | a_c) << 3 | relation


def part_keys(
    tokens: SentenceAttributes, g: np.ndarray, p: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every feature key of the parts ``(g[k], p[k], c[k])``: (keys, part index of each key)."""
    if not isinstance(tokens, SentenceAttributes):
        raise ValueError(f"tokens must be SentenceAttributes; got {type(tokens).__name__}")
    g, p, c = part_ids(tokens.n, g, p, c)
    relation = _relation(g, p, c)
    zero = np.zeros(len(g), dtype=np.int64)
    keys, owners = [], []
    index = np.arange(len(g))
    for t, (_, ag, ap, ac) in enumerate(TEMPLATES):
        a_g = tokens.single[ag, g] if ag is not None else zero
        a_c = tokens.single[ac, c] if ac is not None else zero
        if ap == FEATS:
            counts = tokens.offsets[p + 1] - tokens.offsets[p]
            owner = np.repeat(index, counts)
            starts = np.repeat(tokens.offsets[p], counts)
            within = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
            a_p = tokens.feats[starts + within]
            keys.append(_pack(t, a_g[owner], a_p, a_c[owner], relation[owner]))
            owners.append(owner)
        else:
            a_p = tokens.single[ap, p] if ap is not None else zero
            keys.append(_pack(t, a_g, a_p, a_c, relation))
            owners.append(index)
    return np.concatenate(keys), np.concatenate(owners)


def part_ids(n: int, g, p, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``g``, ``p``, ``c`` as C-contiguous int64 arrays of one length, checked: one-dimensional integers, each a
    token of the sentence (``0..n``); a ValueError names the argument otherwise."""
    n = check_int(n, "n", minimum=0)
    out = [
        np.ascontiguousarray(check_range(check_ids(x, f"part ids {name}", ndim=1), f"part ids {name}", 0, n))
        for name, x in (("g", g), ("p", p), ("c", c))
    ]
    if not len(out[0]) == len(out[1]) == len(out[2]):
        raise ValueError(f"part ids g, p, c must have one length; got {[len(x) for x in out]}")
    return out[0], out[1], out[2]


#: TEMPLATES as an array: per template the attribute of g, p and c, -1 for none
_TEMPLATE_ATTRIBUTES = np.array([[-1 if a is None else a for a in t[1:]] for t in TEMPLATES], dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _score_parts(
    g: np.ndarray,
    p: np.ndarray,
    c: np.ndarray,
    single: np.ndarray,
    offsets: np.ndarray,
    feats: np.ndarray,
    templates: np.ndarray,
    keys: np.ndarray,
    weights: np.ndarray,
) -> np.ndarray:
    """Each part's score: the weights of its feature keys (:func:`part_keys`'s keys, in the same order, so the
    same sums) found in the sorted ``keys`` by binary search; a key outside them weighs 0."""
    out = np.zeros(g.shape[0])
    size = keys.shape[0]
    for k in range(g.shape[0]):
        gk, pk, ck = g[k], p[k], c[k]
        relation = 4 * np.int64(gk > pk) + 2 * np.int64(gk > ck) + np.int64(pk > ck)
        total = 0.0
        for t in range(templates.shape[0]):
            a_g = single[templates[t, 0], gk] if templates[t, 0] >= 0 else 0
            a_c = single[templates[t, 2], ck] if templates[t, 2] >= 0 else 0
            if templates[t, 1] == FEATS:
                first, last = offsets[pk], offsets[pk + 1]
            else:
                first, last = 0, 1
            for f in range(first, last):
                if templates[t, 1] == FEATS:
                    a_p = feats[f]
                elif templates[t, 1] >= 0:
                    a_p = single[templates[t, 1], pk]
                else:
                    a_p = 0
                key = (((((np.int64(t) << _BITS) | a_g) << _BITS | a_p) << _BITS | a_c) << 3) | relation
                low, high = 0, size
                while low < high:
                    middle = (low + high) >> 1
                    if keys[middle] < key:
                        low = middle + 1
                    else:
                        high = middle
                if low < size and keys[low] == key:
                    total += weights[low]
        out[k] = total
    return out


@dataclass(frozen=True)
class GrandparentIndex:
    """The sorted feature keys of the training split's gold grandparent parts."""

    keys: np.ndarray

    def __post_init__(self) -> None:
        keys = self.keys
        if not isinstance(keys, np.ndarray) or keys.ndim != 1 or (keys.size and keys.dtype != np.int64):
            raise ValueError("GrandparentIndex.keys must be a one-dimensional int64 array")
        if np.any(np.diff(keys) <= 0):
            raise ValueError("GrandparentIndex.keys must be strictly increasing (sorted, no repeats)")

    @classmethod
    def build(cls, sentences: Iterable[tuple[SentenceAttributes, np.ndarray]]) -> GrandparentIndex:
        """From (attributes, gold full head array) pairs."""
        found = [np.zeros(0, dtype=np.int64)]
        for tokens, heads in sentences:
            g, p, c = gold_parts(heads)
            found.append(part_keys(tokens, g, p, c)[0])
        return cls(np.unique(np.concatenate(found)))

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Each key's index, -1 for keys outside the index."""
        keys = np.asarray(keys)
        if keys.ndim != 1 or (keys.size and keys.dtype.kind not in "iu"):
            raise ValueError(f"keys must be a one-dimensional integer array; got {keys.dtype} {keys.shape}")
        at = np.searchsorted(self.keys, keys)
        at = np.minimum(at, max(len(self.keys) - 1, 0))
        found = (self.keys[at] == keys) if len(self.keys) else np.zeros(len(keys), dtype=bool)
        return np.where(found, at, -1)


def gold_parts(heads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grandparent parts (g, p, c) of a tree (full head array): every c whose head p is a word."""
    heads = check_heads(heads)
    c = np.flatnonzero(heads[1:] > 0) + 1
    p = heads[c]
    return heads[p], p, c


def _group_max(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique keys and, per key, max(0, the largest value)."""
    if len(keys) == 0:
        return keys, values
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.maximum(np.maximum.reduceat(values, starts), 0.0)


@dataclass(frozen=True)
class GrandparentBounds:
    """Eqs. 12-13 as lookup tables: per template, (key without g, max weight) and (key without c, max weight)."""

    child_keys: np.ndarray
    child_values: np.ndarray
    parent_keys: np.ndarray
    parent_values: np.ndarray

    @classmethod
    def build(cls, index: GrandparentIndex, weights: np.ndarray) -> GrandparentBounds:
        keys = index.keys
        relation = keys & 7
        a_c = (keys >> 3) & (MAX_ID - 1)
        a_p = (keys >> (3 + _BITS)) & (MAX_ID - 1)
        a_g = (keys >> (3 + 2 * _BITS)) & (MAX_ID - 1)
        t = keys >> (3 + 3 * _BITS)
        zero = np.zeros_like(keys)
        child = _pack_many(t, zero, a_p, a_c, relation & 1)  # p > c is known given (p, c)
        parent = _pack_many(t, a_g, a_p, zero, (relation >> 2) & 1)  # g > p is known given (g, p)
        ck, cv = _group_max(child, weights)
        pk, pv = _group_max(parent, weights)
        return cls(ck, cv, pk, pv)


def _pack_many(t, a_g, a_p, a_c, relation):
    return (((t << _BITS | a_g) << _BITS | a_p) << _BITS | a_c) << 3 | relation


def _table(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    if len(keys) == 0:
        return np.zeros(len(query))
    at = np.minimum(np.searchsorted(keys, query), len(keys) - 1)
    return np.where(keys[at] == query, values[at], 0.0)


class GrandparentModel:
    """One sentence's grandparent scores (:class:`decoders.ppc.lp.GrandparentScores`): exact scores from the
    index and weights, counted in ``scored``; the bounds of every (p, c) and (g, p) pair from the tables
    (``bounds``; without them only the full LP, which prices nothing, can use the model)."""

    def __init__(
        self,
        tokens: SentenceAttributes,
        index: GrandparentIndex,
        weights: np.ndarray,
        bounds: GrandparentBounds | None = None,
    ):
        if not isinstance(tokens, SentenceAttributes) or not isinstance(index, GrandparentIndex):
            raise ValueError("GrandparentModel needs SentenceAttributes and a GrandparentIndex")
        weights = np.asarray(weights)
        if weights.shape != (len(index),) or weights.dtype.kind not in "iuf":
            raise ValueError(
                f"weights must be one number per index key ({len(index)}); got shape {weights.shape}"
            )
        self.tokens, self.index, self.bounds = tokens, index, bounds
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.scored = 0

    def score(self, g: np.ndarray, p: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The parts' exact scores (a compiled loop over :func:`part_keys`'s keys; counted in ``scored``)."""
        t = self.tokens
        g, p, c = part_ids(t.n, g, p, c)
        self.scored += len(g)
        return _score_parts(
            g, p, c, t.single, t.offsets, t.feats, _TEMPLATE_ATTRIBUTES, self.index.keys, self.weights
        )

    def _pair_bounds(self, keys_of, table_keys, table_values) -> np.ndarray:
        if self.bounds is None:
            raise ValueError("this grandparent model was built without bounds; pricing needs them")
        side = self.tokens.n + 1
        first, second = np.divmod(np.arange(side * side), side)
        keys, owners = keys_of(first, second)
        values = _table(table_keys, table_values, keys)
        template = keys >> (3 + 3 * _BITS)
        cells = template * (side * side) + owners
        flat = np.bincount(cells, weights=values, minlength=len(TEMPLATES) * side * side)
        return flat.reshape(len(TEMPLATES), side, side)

    def child_bounds(self) -> np.ndarray:
        """``[t, p, c]``: per template t, the largest weight any g could fire with p and c (summed over the
        features a set-valued attribute fires)."""

        def keys_of(p, c):
            keys, owners = part_keys(self.tokens, np.zeros_like(p), p, c)
            return _strip(keys, keep_g=False), owners

        return self._pair_bounds(keys_of, self.bounds.child_keys, self.bounds.child_values)

    def parent_bounds(self) -> np.ndarray:
        """``[t, g, p]``: per template t, the largest weight any c could fire with g and p."""

        def keys_of(g, p):
            keys, owners = part_keys(self.tokens, g, p, np.zeros_like(p))
            return _strip(keys, keep_g=True), owners

        return self._pair_bounds(keys_of, self.bounds.parent_keys, self.bounds.parent_values)


def _strip(keys: np.ndarray, keep_g: bool) -> np.ndarray:
    """A part key reduced to a bound-table key: without g's attribute and relation bits but p > c (child), or
    without c's attribute and relation bits but g > p (parent)."""
    relation = keys & 7
    if keep_g:
        low = ((keys >> 3) >> _BITS) << _BITS  # c's attribute cleared
        return (low << 3) | ((relation >> 2) & 1)
    t_and_g = keys >> (3 + 2 * _BITS)
    t = t_and_g >> _BITS
    rest = (keys >> 3) & ((1 << (2 * _BITS)) - 1)  # a_p, a_c
    return (((t << _BITS) << (2 * _BITS) | rest) << 3) | (relation & 1)


_FILE_ARRAYS = (
    "numerator", "denominator", "vocabulary", "lexicon", "index", "bits", "meta",
    "child_keys", "child_values", "parent_keys", "parent_values",
)  # fmt: skip


@dataclass
class GrandparentParser:
    """A trained grandparent parser on disk: the averaged weights' numerator (hashed arc features in
    ``[0, 2^bits)``, then one weight per index key), the arc vocabulary, the attribute lexicon, the index, and
    the bounds of eqs. 12-13 computed from the weights when the model is written (offline)."""

    numerator: np.ndarray
    denominator: int
    vocabulary: Vocabulary
    lexicon: Lexicon
    index: GrandparentIndex
    bits: int
    meta: dict = field(default_factory=dict)
    bounds: GrandparentBounds | None = None

    def __post_init__(self) -> None:
        numerator = self.numerator
        if not isinstance(numerator, np.ndarray) or numerator.ndim != 1 or numerator.dtype.kind not in "iuf":
            raise ValueError(
                f"numerator must be a one-dimensional array of numbers; got {type(numerator).__name__}"
            )
        check_int(self.bits, "bits")
        if not 1 <= self.bits <= 30:
            raise ValueError(f"bits must lie in 1..30, got {self.bits}")
        if not isinstance(self.index, GrandparentIndex):
            raise ValueError(f"index must be a GrandparentIndex; got {type(self.index).__name__}")
        if len(self.numerator) < (1 << self.bits) + len(self.index):
            raise ValueError("the weight vector has no room for the grandparent features")
        if not np.isfinite(self.numerator).all():
            raise ValueError("weights must be finite")
        check_int(self.denominator, "denominator", minimum=1)
        for name, kind in (("vocabulary", Vocabulary), ("lexicon", Lexicon)):
            if not isinstance(getattr(self, name), kind):
                raise ValueError(
                    f"{name} must be a {kind.__name__}; got {type(getattr(self, name)).__name__}"
                )
        if not isinstance(self.meta, dict):
            raise ValueError(f"meta must be a dict; got {type(self.meta).__name__}")
        if self.bounds is not None and not isinstance(self.bounds, GrandparentBounds):
            raise ValueError(f"bounds must be GrandparentBounds or None; got {type(self.bounds).__name__}")
        if self.bounds is None:
            self.bounds = GrandparentBounds.build(self.index, self.grandparent_weights)

    @property
    def arc_weights(self) -> np.ndarray:
        return self.numerator[: 1 << self.bits]

    @property
    def grandparent_weights(self) -> np.ndarray:
        start = 1 << self.bits
        return self.numerator[start : start + len(self.index)]

    def scores(self, attributes: SentenceAttributes) -> GrandparentModel:
        """One sentence's grandparent scores with the offline bounds (scoring is counted by the result)."""
        return GrandparentModel(attributes, self.index, self.grandparent_weights, self.bounds)

    def save(self, path: str | Path) -> None:
        b = self.bounds
        save_npz(
            path,
            {
                "numerator": self.numerator,
                "denominator": np.asarray(self.denominator, dtype=np.int64),
                "vocabulary": np.asarray(json.dumps(self.vocabulary.ids)),
                "lexicon": np.asarray(json.dumps(self.lexicon.ids)),
                "index": self.index.keys,
                "bits": np.asarray(self.bits, dtype=np.int64),
                "meta": np.asarray(json.dumps(self.meta, sort_keys=True)),
                "child_keys": b.child_keys,
                "child_values": b.child_values,
                "parent_keys": b.parent_keys,
                "parent_values": b.parent_values,
            },
        )

    @classmethod
    def load(cls, path: str | Path) -> GrandparentParser:
        """Read a model written by :meth:`save`; CorpusFormatError names a missing, bad or inconsistent file."""
        path = check_path(path, "path")
        if not Path(path).is_file():
            raise CorpusFormatError(path, None, "no grandparent parser at this path")
        arrays = load_npz(path, _FILE_ARRAYS)
        try:
            bounds = GrandparentBounds(
                arrays["child_keys"], arrays["child_values"], arrays["parent_keys"], arrays["parent_values"]
            )
            return cls(
                arrays["numerator"].astype(np.float64),
                int(arrays["denominator"]),
                Vocabulary(json.loads(str(arrays["vocabulary"]))),
                Lexicon(json.loads(str(arrays["lexicon"]))),
                GrandparentIndex(arrays["index"].astype(np.int64)),
                int(arrays["bits"]),
                json.loads(str(arrays["meta"])),
                bounds,
            )
        except (ValueError, TypeError) as exc:
            raise CorpusFormatError(path, None, f"not a grandparent parser: {exc}") from exc
