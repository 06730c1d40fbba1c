"""The non-local factor groups of Qian and Liu (2013, section 4.3), their hashed features and candidates.

A factor is a set of arcs that fires when all of them are in the tree; its score is the summed weight of its
features (templates of its words' attributes, see :mod:`decoders.parsing.features`, under template ids of its
own group). Groups:

* ``grandchild``: every chain ``g -> h -> m`` (all grandchildren, not only Carreras' outermost ones);
* ``great_grandchild``: every chain ``gg -> g -> h -> m``;
* ``sibling``: every pair of modifiers ``a < b`` of one head, on either side (both sides: what a projective DP
  cannot score, section 4.5);
* ``tri_sibling``: every triple of modifiers ``a < b < c`` of one head;
* ``comb``: a head with four consecutive words ``i .. i+3`` as modifiers (section 4.3: "more than 3 consecutive
  modifiers"; a longer run fires every window of four);
* ``hand_crafted``: section 4.3's hand-crafted factors, one per pattern of :data:`PATTERNS` (a lexical or tag
  trigger and the arcs of its most frequent gold configuration on wsj train; the baseline's cross-validation
  errors they target in :data:`PATTERN_NOTES`). Every pattern has weights of its own (its id is part of each
  feature) and lexical templates of its own words (Ratnaparkhi-style for the PP quadruples). A candidate's row
  has at most 3 arcs (its size: the leading non-zero ``mods``) and its pattern id in ``heads[:, 3]``. The
  triggers read :data:`LEXICON`'s vocabulary ids (:func:`lexicon_ids`; -1 for an unseen entry, which never
  matches).

Candidates are enumerated over the arcs a pruning mask allows. Chains that no projective tree contains (an arc
covering one of its head's ancestors, e.g. ``g -> h -> m`` with ``g`` between ``h`` and ``m``) are left out: they
never fire, but their bound terms would loosen the relaxation (measured on wsj dev without pruning: 22% of the
positive factor score). Only candidates with a non-zero score become factors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numba
import numpy as np

from decoders.bnb.search import Factors
from decoders.checks import check_ids, check_int, check_pair, check_range, check_sequence
from decoders.parsing.checks import (
    check_allowed,
    check_heads,
    check_scored,
    check_size,
    check_tokens,
    check_weights,
)
from decoders.parsing.features import COARSE, LOWER, N_ATTRIBUTES, POS, _emit

GROUPS = ("grandchild", "great_grandchild", "sibling", "tri_sibling", "comb", "hand_crafted")
GROUP_ID = {name: index for index, name in enumerate(GROUPS)}
#: Arcs per factor (``hand_crafted``: at most; a factor's own size is its number of leading non-zero mods).
WIDTH = {"grandchild": 2, "great_grandchild": 3, "sibling": 2, "tri_sibling": 3, "comb": 4, "hand_crafted": 3}
MAX_WIDTH = 4
HAND_CRAFTED = GROUP_ID["hand_crafted"]
#: Features of one factor per group: 7 templates, each plain and with the arcs' direction pattern; the
#: hand-crafted patterns add 5 lexical templates.
FACTOR_FEATURES = {name: 24 if name == "hand_crafted" else 14 for name in GROUPS}
MAX_FACTOR_FEATURES = max(FACTOR_FEATURES.values())
WIDTH_BY_ID = np.array([WIDTH[name] for name in GROUPS], dtype=np.int64)

#: The hand-crafted patterns (ids in this order). Positions: words of the trigger; arcs ``head -> modifier``.
PATTERNS = (
    "rather_than",  # A1 ... rather than A2 (A1, A2 one form and tag): A1 -> than, than -> rather, than -> A2
    "nnp_flat",  # a run of 2-4 NNP/NNPS (not after DT): its last word heads the others
    "det_nnp",  # DT + a run of 2-3 NNP/NNPS: the run's last word heads DT and the run
    "det_nn_nn",  # DT NN1 NN2 (NN/NNS, no noun after): NN2 -> DT, NN2 -> NN1
    "jj_nn_nn",  # JJ NN1 NN2 (NN/NNS, no noun after): NN2 -> JJ, NN2 -> NN1
    "cd_percent",  # CD %: % -> CD
    "in_cd_percent",  # IN CD %: IN -> %, % -> CD
    "month_date",  # Month CD (, CD): Month -> CD (and Month -> ",", Month -> CD)
    "quotes",  # `` ... '' (the next one, within 40 words): one word h heads both marks (h free)
    "pp_verb",  # V .. N1 P .. N2 (N1 just before the IN P, V the nearest verb before it, N2 the end of the first noun
    "pp_noun",  # run in the 4 words after P): verb attachment V -> N1, V -> P, P -> N2; noun: V -> N1, N1 -> P,
    "pp_verb_ud",  # P -> N2; and the same as UD attaches them (the preposition a `case` of its object):
    "pp_noun_ud",  # V -> N1, N2 -> P, V -> N2 and V -> N1, N2 -> P, N1 -> N2
)
PATTERN_ID = {name: index for index, name in enumerate(PATTERNS)}
#: The baseline's cross-validation errors on wsj train (word tag, gold head tag -> predicted head tag) each targets.
PATTERN_NOTES = {
    "rather_than": "Figure 3's A ... rather than A",
    "nnp_flat": "NNP NNP->NNP (162)",
    "det_nnp": "DT NNP->NNP (27), NNP NNP->NNP",
    "det_nn_nn": "DT NN->NN (84), NN NN->IN (38)",
    "jj_nn_nn": "JJ NN->NN (43)",
    "cd_percent": "CD NN->NN (26)",
    "in_cd_percent": "NN IN->NN (51, %)",
    "month_date": "NNP IN->NN (35, October)",
    "quotes": "quote marks on different heads",
    "pp_verb": "IN VBD->NN (64), IN VB->NN (56), IN VBZ->NN (49), IN VBN->NN (45)",
    "pp_noun": "IN NN->VB (61), IN NN->VBD (40), IN NN->VBN (36), IN NN->NN (59)",
    "pp_verb_ud": "the PP attachments as UD (ewt) annotates them",
    "pp_noun_ud": "the PP attachments as UD (ewt) annotates them",
}
_MONTHS = (
    "jan.", "feb.", "mar.", "apr.", "may", "jun.", "jul.", "aug.", "sep.", "sept.", "oct.", "nov.", "dec.",
    "january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
    "december",
)  # fmt: skip
#: The vocabulary keys the hand-crafted triggers read (lower-cased words ``l:``, fine tags ``p:``), in this order.
LEXICON = (
    ("l:rather", "l:than", "l:%", "l:,", "p:DT", "p:JJ", "p:CD", "p:IN", "p:NNP", "p:NNPS", "p:NN", "p:NNS")
    + ("p:VB", "p:VBD", "p:VBZ", "p:VBN", "p:VBP", "p:VBG", "p:``", "p:''")
    + tuple(f"l:{month}" for month in _MONTHS)
)
_RATHER, _THAN, _PERCENT, _COMMA, _DT, _JJ, _CD, _IN = range(8)
_PROPER, _COMMON, _VERBS = (8, 10), (10, 12), (12, 18)
_NOUNS = (8, 12)
_OPEN, _CLOSE = 18, 19
_MONTH = (20, len(LEXICON))


def _check_groups(groups: Any, name: str = "groups") -> tuple[str, ...]:
    """``groups`` as a tuple of names of :data:`GROUPS` (a list or tuple, not a string), else a ValueError."""
    if (
        isinstance(groups, str)
        or not isinstance(groups, tuple | list)
        or any(not isinstance(group, str) or group not in GROUP_ID for group in groups)
    ):
        raise ValueError(f"{name} must be names of factor groups {list(GROUPS)}, got {groups!r}")
    return tuple(groups)


def lexicon_ids(ids: dict[str, int]) -> np.ndarray:
    """:data:`LEXICON`'s ids in a vocabulary's ``ids`` (-1 for a key it lacks)."""
    if not isinstance(ids, Mapping):
        raise ValueError(f"ids must be a vocabulary's mapping of keys to ids; got {type(ids).__name__}")
    return np.array([ids.get(key, -1) for key in LEXICON], dtype=np.int64)


def check_lexicon(lexicon: np.ndarray, name: str = "lexicon") -> np.ndarray:
    """ValueError unless ``lexicon`` is an int64 vector of len(LEXICON) ids (-1: unseen)."""
    array = check_ids(lexicon, name, ndim=1)
    if array.shape != (len(LEXICON),):
        raise ValueError(f"{name} must be a vector of {len(LEXICON)} vocabulary ids, got shape {array.shape}")
    return check_range(array, name, -1, np.iinfo(np.int64).max)


@numba.njit(cache=True, nogil=True, inline="always")
def _tag(tokens: np.ndarray, row: int, nodes: np.ndarray, j: int) -> int:
    return tokens[row, nodes[j]] if j < nodes.shape[0] else 0


@numba.njit(cache=True, nogil=True, inline="always")
def _width(group: int, mods: np.ndarray) -> int:
    """A factor's number of arcs: its group's width, or for a hand-crafted one its leading non-zero mods."""
    if group != HAND_CRAFTED:
        return WIDTH_BY_ID[group]
    width = 0
    while width < 3 and mods[width] > 0:
        width += 1
    return width


@numba.njit(cache=True, nogil=True)
def _factor_nodes(group: int, heads: np.ndarray, mods: np.ndarray) -> np.ndarray:
    """The words of a factor in the group's order: a chain from its top (g, h, m / gg, g, h, m), a head then its
    modifiers (siblings, comb), or the first arc's head then every arc's modifier (hand-crafted: A1, than,
    rather, A2; V, N1, P, N2 for the PP quadruples)."""
    width = _width(group, mods)
    nodes = np.empty(width + 1, dtype=np.int64)
    nodes[0] = heads[0]
    for j in range(width):
        nodes[j + 1] = mods[j]
    return nodes


@numba.njit(cache=True, nogil=True)
def _factor_features(
    tokens: np.ndarray, group: int, heads: np.ndarray, mods: np.ndarray, mask: np.uint64, out: np.ndarray
) -> int:
    """Write the feature indices of one factor (its arcs ``heads[j] -> mods[j]``, in the group's order) into
    ``out``; return how many were written.

    Every group: the POS and the coarse POS of its first four nodes (:func:`factor_nodes`), and of its last
    four; the first and last nodes' POS; the first and last nodes' lower-cased words with the POS of the
    others (up to two); the first two nodes' lower-cased words. Each plain and with the arcs' directions.
    Hand-crafted factors: under template ids of their pattern (``heads[3]``), and the lower-cased words of
    nodes (0, 2), (1, 2), (2, 3), (0, 2, 3) and (1, 2, 3) (for a PP quadruple V N1 P N2: V P, N1 P, P N2,
    V P N2, N1 P N2)."""
    width = _width(group, mods)
    base = 1000 + 20 * heads[3] if group == HAND_CRAFTED else 200 + 20 * group
    pattern = 0
    for j in range(width):
        pattern = pattern * 2 + (1 if heads[j] < mods[j] else 0)
    nodes = _factor_nodes(group, heads, mods)
    last = nodes[-4:] if nodes.shape[0] > 4 else nodes[1:]
    first, final = nodes[0], nodes[nodes.shape[0] - 1]
    k = 0
    for t, row in enumerate((POS, COARSE)):
        k = _emit(out, k, base + t, _tag(tokens, row, nodes, 0), _tag(tokens, row, nodes, 1),
                 _tag(tokens, row, nodes, 2), _tag(tokens, row, nodes, 3), pattern, mask)  # fmt: skip
        k = _emit(out, k, base + 2 + t, _tag(tokens, row, last, 0), _tag(tokens, row, last, 1),
                 _tag(tokens, row, last, 2), _tag(tokens, row, last, 3), pattern, mask)  # fmt: skip
    k = _emit(out, k, base + 4, tokens[POS, first], tokens[POS, final], 0, 0, pattern, mask)
    middle = nodes[1:-1]
    k = _emit(out, k, base + 5, tokens[LOWER, first], tokens[LOWER, final], _tag(tokens, POS, middle, 0),
             _tag(tokens, POS, middle, 1), pattern, mask)  # fmt: skip
    k = _emit(out, k, base + 6, tokens[LOWER, nodes[0]], tokens[LOWER, nodes[1]], 0, 0, pattern, mask)
    if group == HAND_CRAFTED:
        w0, w1 = _tag(tokens, LOWER, nodes, 0), _tag(tokens, LOWER, nodes, 1)
        w2, w3 = _tag(tokens, LOWER, nodes, 2), _tag(tokens, LOWER, nodes, 3)
        k = _emit(out, k, base + 7, w0, w2, 0, 0, pattern, mask)
        k = _emit(out, k, base + 8, w1, w2, 0, 0, pattern, mask)
        k = _emit(out, k, base + 9, w2, w3, 0, 0, pattern, mask)
        k = _emit(out, k, base + 10, w0, w2, w3, 0, pattern, mask)
        k = _emit(out, k, base + 11, w1, w2, w3, 0, pattern, mask)
    return k


@numba.njit(cache=True, nogil=True)
def _push(heads: np.ndarray, mods: np.ndarray, count: int, hs: np.ndarray, ms: np.ndarray):
    """Append one candidate (rows grow by doubling); returns the arrays and the new count."""
    if count == heads.shape[0]:
        bigger_h = np.zeros((2 * count, MAX_WIDTH), dtype=np.int64)
        bigger_m = np.zeros((2 * count, MAX_WIDTH), dtype=np.int64)
        bigger_h[:count] = heads
        bigger_m[:count] = mods
        heads, mods = bigger_h, bigger_m
    heads[count] = hs
    mods[count] = ms
    return heads, mods, count + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _inside(word: int, a: int, b: int) -> bool:
    """Whether ``word`` lies strictly between ``a`` and ``b``: an arc ``a -> b`` (or ``b -> a``) covers it, so in a
    projective tree it descends from the arc's head and cannot be one of the head's ancestors."""
    return min(a, b) < word < max(a, b)


def _check_group(group: int, name: str = "group") -> int:
    return check_range(np.array([check_int(group, name)]), name, 0, len(GROUPS) - 1)[0].item()


def candidates(tokens: np.ndarray, allowed: np.ndarray, group: int, lexicon: np.ndarray):
    """Every factor of ``group`` (an id of :data:`GROUPS`) whose arcs ``allowed`` (a bool (n + 1, n + 1) mask)
    keeps: (heads, mods), rows padded with 0 to MAX_WIDTH (hand-crafted: the pattern id in ``heads[:, 3]``).

    ``lexicon``: :data:`LEXICON`'s vocabulary ids (:func:`lexicon_ids`), read by the hand-crafted triggers."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    allowed = check_allowed(allowed, n=tokens.shape[1] - 1)
    return _candidates(tokens, allowed, _check_group(group), check_lexicon(lexicon))


@numba.njit(cache=True, nogil=True)
def _marks(tokens: np.ndarray, row: int, lexicon: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Per position 0 .. n + 3 (the root and three past the end: False), whether the word has one of
    ``lexicon[lo:hi]`` (a -1 entry matches nothing) in ``row``."""
    n = tokens.shape[1] - 1
    out = np.zeros(n + 4, dtype=np.bool_)
    for i in range(1, n + 1):
        for k in range(lo, hi):
            out[i] |= lexicon[k] >= 0 and tokens[row, i] == lexicon[k]
    return out


@numba.njit(cache=True, nogil=True)
def _add(heads, mods, count, allowed, pattern, h0, m0, h1, m1, h2, m2):  # noqa: PLR0913
    """Push the hand-crafted factor of ``pattern`` with arcs ``h0 -> m0`` (and ``h1 -> m1``, ``h2 -> m2`` when
    their modifier is not 0) if ``allowed`` keeps all of them."""
    hs = np.zeros(MAX_WIDTH, dtype=np.int64)
    ms = np.zeros(MAX_WIDTH, dtype=np.int64)
    hs[0], ms[0], hs[1], ms[1], hs[2], ms[2] = h0, m0, h1, m1, h2, m2
    for j in range(3):
        if ms[j] == 0:
            hs[j] = 0
            continue
        if hs[j] == ms[j] or not allowed[hs[j], ms[j]]:
            return heads, mods, count
    hs[3] = pattern
    return _push(heads, mods, count, hs, ms)


@numba.njit(cache=True, nogil=True)
def _hand_crafted(tokens: np.ndarray, allowed: np.ndarray, lexicon: np.ndarray):
    """The hand-crafted candidates (:data:`PATTERNS`, in the order of their trigger's first word)."""
    n = tokens.shape[1] - 1
    heads = np.zeros((64, MAX_WIDTH), dtype=np.int64)
    mods = np.zeros((64, MAX_WIDTH), dtype=np.int64)
    count = 0
    rather, than = (
        _marks(tokens, LOWER, lexicon, _RATHER, _THAN),
        _marks(tokens, LOWER, lexicon, _THAN, _PERCENT),
    )
    percent, comma = (
        _marks(tokens, LOWER, lexicon, _PERCENT, _COMMA),
        _marks(tokens, LOWER, lexicon, _COMMA, _DT),
    )
    month = _marks(tokens, LOWER, lexicon, _MONTH[0], _MONTH[1])
    dt, jj = _marks(tokens, POS, lexicon, _DT, _JJ), _marks(tokens, POS, lexicon, _JJ, _CD)
    cd, prep = _marks(tokens, POS, lexicon, _CD, _IN), _marks(tokens, POS, lexicon, _IN, _PROPER[0])
    proper, common = _marks(tokens, POS, lexicon, *_PROPER), _marks(tokens, POS, lexicon, *_COMMON)
    noun, verb = proper | common, _marks(tokens, POS, lexicon, *_VERBS)
    opening, closing = (
        _marks(tokens, POS, lexicon, _OPEN, _CLOSE),
        _marks(tokens, POS, lexicon, _CLOSE, _MONTH[0]),
    )
    for i in range(1, n + 1):
        # rather_than: "rather" "than" at i - 1, i; A2 at i + 1, A1 before "rather" (Figure 3)
        if 3 <= i < n and than[i] and rather[i - 1]:
            for a1 in range(1, i - 1):
                if tokens[LOWER, a1] == tokens[LOWER, i + 1] and tokens[POS, a1] == tokens[POS, i + 1]:
                    heads, mods, count = _add(heads, mods, count, allowed, 0, a1, i, i, i - 1, i, i + 1)
        # nnp_flat / det_nnp: a maximal run i .. j of proper nouns
        if proper[i] and not proper[i - 1]:
            j = i
            while proper[j + 1]:
                j += 1
            length = j - i + 1
            h1, h2 = (j if length >= 3 else 0), (j if length == 4 else 0)
            if dt[i - 1] and 2 <= length <= 3:
                heads, mods, count = _add(
                    heads, mods, count, allowed, 2, j, i - 1, j, i, h1, i + 1 if h1 else 0
                )
            elif not dt[i - 1] and 2 <= length <= 4:
                m1, m2 = (i + 1 if h1 else 0), (i + 2 if h2 else 0)
                heads, mods, count = _add(heads, mods, count, allowed, 1, j, i, h1, m1, h2, m2)
        # det_nn_nn / jj_nn_nn: DT (JJ) NN1 NN2, no noun after NN2
        if common[i + 1] and common[i + 2] and not noun[i + 3] and (dt[i] or jj[i]):
            pattern = 3 if dt[i] else 4
            heads, mods, count = _add(heads, mods, count, allowed, pattern, i + 2, i, i + 2, i + 1, 0, 0)
        # cd_percent / in_cd_percent: (IN) CD %
        if cd[i] and percent[i + 1]:
            heads, mods, count = _add(heads, mods, count, allowed, 5, i + 1, i, 0, 0, 0, 0)
            if prep[i - 1]:
                heads, mods, count = _add(heads, mods, count, allowed, 6, i - 1, i + 1, i + 1, i, 0, 0)
        # month_date: Month CD (, CD)
        if month[i] and cd[i + 1]:
            if comma[i + 2] and cd[i + 3]:
                heads, mods, count = _add(heads, mods, count, allowed, 7, i, i + 1, i, i + 2, i, i + 3)
            else:
                heads, mods, count = _add(heads, mods, count, allowed, 7, i, i + 1, 0, 0, 0, 0)
        # quotes: `` at i, the next '' at j within 40 words (no `` between), both on one head h
        if opening[i]:
            for j in range(i + 1, min(n, i + 40) + 1):
                if opening[j]:
                    break
                if closing[j]:
                    for h in range(n + 1):
                        if h != i and h != j:
                            heads, mods, count = _add(heads, mods, count, allowed, 8, h, i, h, j, 0, 0)
                    break
        # PP quadruples: P (IN) at i, N1 at i - 1, V the nearest verb before N1, N2 the end of the first noun
        # run in i + 1 .. i + 4
        if prep[i] and noun[i - 1]:
            v = 0
            for k in range(i - 2, 0, -1):
                if verb[k]:
                    v = k
                    break
            n2 = 0
            for k in range(i + 1, min(n, i + 4) + 1):
                if noun[k]:
                    n2 = k
                    break
            if v > 0 and n2 > 0:
                while noun[n2 + 1]:
                    n2 += 1
                n1 = i - 1
                heads, mods, count = _add(heads, mods, count, allowed, 9, v, n1, v, i, i, n2)
                heads, mods, count = _add(heads, mods, count, allowed, 10, v, n1, n1, i, i, n2)
                heads, mods, count = _add(heads, mods, count, allowed, 11, v, n1, n2, i, v, n2)
                heads, mods, count = _add(heads, mods, count, allowed, 12, v, n1, n2, i, n1, n2)
    return heads[:count], mods[:count]


@numba.njit(cache=True, nogil=True)
def _candidates(tokens: np.ndarray, allowed: np.ndarray, group: int, lexicon: np.ndarray):
    """:func:`candidates`' kernel."""
    if group == HAND_CRAFTED:
        return _hand_crafted(tokens, allowed, lexicon)
    n = tokens.shape[1] - 1
    heads = np.zeros((64, MAX_WIDTH), dtype=np.int64)
    mods = np.zeros((64, MAX_WIDTH), dtype=np.int64)
    hs = np.zeros(MAX_WIDTH, dtype=np.int64)
    ms = np.zeros(MAX_WIDTH, dtype=np.int64)
    count = 0
    if group == 0 or group == 1:  # chains g -> h -> m (and gg -> g -> h -> m), projective ones only
        for top in range(n + 1):
            for g in range(1, n + 1):
                if g == top or not allowed[top, g]:
                    continue
                for h in range(1, n + 1):
                    if h in (top, g) or not allowed[g, h] or _inside(top, g, h):
                        continue
                    if group == 0:
                        hs[0], ms[0], hs[1], ms[1] = top, g, g, h
                        heads, mods, count = _push(heads, mods, count, hs, ms)
                        continue
                    for m in range(1, n + 1):
                        if m in (top, g, h) or not allowed[h, m] or _inside(top, h, m) or _inside(g, h, m):
                            continue
                        hs[0], ms[0], hs[1], ms[1], hs[2], ms[2] = top, g, g, h, h, m
                        heads, mods, count = _push(heads, mods, count, hs, ms)
    elif group == 2 or group == 3:  # modifiers a < b (< c) of one head, either side
        for h in range(n + 1):
            for a in range(1, n + 1):
                if a == h or not allowed[h, a]:
                    continue
                for b in range(a + 1, n + 1):
                    if b == h or not allowed[h, b]:
                        continue
                    if group == 2:
                        hs[0], ms[0], hs[1], ms[1] = h, a, h, b
                        heads, mods, count = _push(heads, mods, count, hs, ms)
                        continue
                    for c in range(b + 1, n + 1):
                        if c != h and allowed[h, c]:
                            hs[0], ms[0], hs[1], ms[1], hs[2], ms[2] = h, a, h, b, h, c
                            heads, mods, count = _push(heads, mods, count, hs, ms)
    elif group == 4:  # comb: h and the four consecutive words i .. i+3
        for h in range(n + 1):
            for i in range(1, n - 2):
                ok = True
                for j in range(4):
                    if i + j == h or not allowed[h, i + j]:
                        ok = False
                if ok:
                    for j in range(4):
                        hs[j], ms[j] = h, i + j
                    heads, mods, count = _push(heads, mods, count, hs, ms)
    return heads[:count], mods[:count]


def _sizes(mods: np.ndarray) -> np.ndarray:
    """Hand-crafted factors' arcs: the leading positive ``mods`` of each row (at least one)."""
    positive = mods[:, :3] > 0
    sizes = np.cumprod(positive, axis=1).sum(axis=1)
    if (sizes == 0).any() or (positive.sum(axis=1) != sizes).any():
        raise ValueError("a hand-crafted factor's mods must be 1 to 3 leading positions, then zeros")
    return sizes.astype(np.int64)


def score_candidates(
    tokens: np.ndarray, weights: np.ndarray, group: int, heads: np.ndarray, mods: np.ndarray
) -> np.ndarray:
    """The summed feature weight of each candidate factor of ``group`` (its arcs ``heads[c, j] -> mods[c, j]``,
    (F, >= the group's width) arrays of the sentence's positions, as :func:`candidates` gives them); a weight
    they read that is not finite is a ValueError."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    n = tokens.shape[1] - 1
    weights = check_weights(weights, finite=False)
    group = _check_group(group)
    heads, mods = check_ids(heads, "heads", ndim=2), check_ids(mods, "mods", ndim=2)
    width = MAX_WIDTH if group == HAND_CRAFTED else int(WIDTH_BY_ID[group])
    if heads.shape != mods.shape or heads.shape[1] < width:
        raise ValueError(
            f"heads and mods must have one shape (F, >= {width}); got {heads.shape} and {mods.shape}"
        )
    if group == HAND_CRAFTED:
        check_range(heads[:, 3], "heads[:, 3] (pattern ids)", 0, len(PATTERNS) - 1)
        valid = np.arange(3)[None, :] < _sizes(mods)[:, None]
        check_range(np.where(valid, heads[:, :3], 0), "heads", 0, n)
        check_range(np.where(valid, mods[:, :3], 1), "mods", 1, n)
    else:
        check_range(heads[:, :width], "heads", 0, n)
        check_range(mods[:, :width], "mods", 1, n)
    return check_scored(_score_candidates(tokens, weights, group, heads, mods), what="factor score")


@numba.njit(cache=True, nogil=True)
def _score_candidates(
    tokens: np.ndarray, weights: np.ndarray, group: int, heads: np.ndarray, mods: np.ndarray
):
    """:func:`score_candidates`' kernel."""
    mask = np.uint64(weights.shape[0] - 1)
    out = np.empty(MAX_FACTOR_FEATURES, dtype=np.int64)
    scores = np.zeros(heads.shape[0])
    for c in range(heads.shape[0]):
        count = _factor_features(tokens, group, heads[c], mods[c], mask, out)
        total = 0.0
        for i in range(count):
            total += weights[out[i]]
        scores[c] = total
    return scores


def sentence_factors(
    tokens: np.ndarray,
    weights: np.ndarray,
    allowed: np.ndarray,
    groups: tuple[str, ...],
    lexicon: np.ndarray,
) -> tuple[Factors, np.ndarray]:
    """The factors of ``groups`` (names of :data:`GROUPS`) with a non-zero score over the allowed arcs, and each
    one's group id."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    weights = check_weights(weights, finite=False)
    allowed = check_allowed(allowed, n=tokens.shape[1] - 1)
    groups = _check_groups(groups)
    lexicon = check_lexicon(lexicon)
    all_heads, all_mods, all_sizes, all_scores, all_groups = [], [], [], [], []
    for name in groups:
        group = GROUP_ID[name]
        heads, mods = _candidates(tokens, allowed, group, lexicon)
        scores = check_scored(_score_candidates(tokens, weights, group, heads, mods), what="factor score")
        keep = scores != 0.0
        all_heads.append(heads[keep])
        all_mods.append(mods[keep])
        all_scores.append(scores[keep])
        sizes = _sizes(mods[keep]) if group == HAND_CRAFTED else np.full(int(keep.sum()), WIDTH[name])
        all_sizes.append(sizes.astype(np.int64))
        all_groups.append(np.full(int(keep.sum()), group, dtype=np.int64))
    if not groups:
        return Factors.empty(MAX_WIDTH), np.zeros(0, dtype=np.int64)
    factors = Factors(
        np.concatenate(all_heads),
        np.concatenate(all_mods),
        np.concatenate(all_sizes),
        np.concatenate(all_scores),
    )
    return factors, np.concatenate(all_groups)


def fired_features(
    tokens: np.ndarray, tree: np.ndarray, size: int, groups: np.ndarray, lexicon: np.ndarray
) -> np.ndarray:
    """The feature indices of every factor of ``groups`` (ids) that the tree (full head array) fires; ``size``:
    the factors' hash space (a power of two)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    tree = check_heads(tree, "tree", n=tokens.shape[1] - 1)
    groups = check_range(check_ids(groups, "groups", ndim=1), "groups", 0, len(GROUPS) - 1)
    return _fired_features(tokens, tree, check_size(size), groups, check_lexicon(lexicon))


@numba.njit(cache=True, nogil=True)
def _fired_features(
    tokens: np.ndarray, tree: np.ndarray, size: int, groups: np.ndarray, lexicon: np.ndarray
) -> np.ndarray:
    """:func:`fired_features`' kernel."""
    n = tree.shape[0] - 1
    allowed = np.zeros((n + 1, n + 1), dtype=np.bool_)
    for m in range(1, n + 1):
        allowed[tree[m], m] = True
    mask = np.uint64(size - 1)
    pieces = []
    total = 0
    out = np.empty(MAX_FACTOR_FEATURES, dtype=np.int64)
    for group in groups:
        heads, mods = _candidates(tokens, allowed, group, lexicon)
        for c in range(heads.shape[0]):
            count = _factor_features(tokens, group, heads[c], mods[c], mask, out)
            pieces.append(out[:count].copy())
            total += count
    result = np.empty(total, dtype=np.int64)
    k = 0
    for piece in pieces:
        result[k : k + piece.shape[0]] = piece
        k += piece.shape[0]
    return result


def pattern_counts(sentences, lexicon: np.ndarray) -> dict[str, dict[str, int]]:
    """Per hand-crafted pattern, over ``sentences`` (pairs of tokens and gold tree as a full head array): its
    candidates over every arc (``candidates``) and the factors the gold tree fires (``fired``)."""
    lexicon = check_lexicon(lexicon)
    counts = {name: {"candidates": 0, "fired": 0} for name in PATTERNS}
    for index, pair in enumerate(check_sequence(sentences, "sentences")):
        tokens, tree = check_pair(pair, f"sentences[{index}]", "(tokens, tree)")
        tokens = check_tokens(tokens, N_ATTRIBUTES)
        n = tokens.shape[1] - 1
        tree = check_heads(tree, "tree", n=n)
        everything = np.ones((n + 1, n + 1), dtype=bool)
        np.fill_diagonal(everything, False)
        everything[:, 0] = False
        gold = np.zeros((n + 1, n + 1), dtype=bool)
        gold[tree[1:], np.arange(1, n + 1)] = True
        for key, allowed in (("candidates", everything), ("fired", gold)):
            heads, _ = _candidates(tokens, allowed, HAND_CRAFTED, lexicon)
            for pattern in heads[:, 3]:
                counts[PATTERNS[pattern]][key] += 1
    return counts
