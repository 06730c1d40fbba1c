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
* ``rather_than``: the hand-crafted "A ... rather than A" factor of Figure 3: for ``rather`` ``than`` followed by a
  preposition A2 and an earlier preposition A1 of the same form, the arcs ``A1 -> than``, ``than -> rather``,
  ``than -> A2``.

Candidates are enumerated over the arcs a pruning mask allows. Chains that no projective tree contains (an arc
covering one of its head's ancestors, e.g. ``g -> h -> m`` with ``g`` between ``h`` and ``m``) are left out: they
never fire, but their bound terms would loosen the relaxation (measured on wsj dev without pruning: 22% of the
positive factor score). Only candidates with a non-zero score become factors.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.bnb.search import Factors
from decoders.checks import check_ids, check_int, check_range
from decoders.parsing.checks import (
    check_allowed,
    check_heads,
    check_scored,
    check_size,
    check_tokens,
    check_weights,
)
from decoders.parsing.features import COARSE, LOWER, N_ATTRIBUTES, POS, _emit

GROUPS = ("grandchild", "great_grandchild", "sibling", "tri_sibling", "comb", "rather_than")
GROUP_ID = {name: index for index, name in enumerate(GROUPS)}
WIDTH = {"grandchild": 2, "great_grandchild": 3, "sibling": 2, "tri_sibling": 3, "comb": 4, "rather_than": 3}
MAX_WIDTH = 4
#: Room for one factor's features (7 templates, each plain and with the arcs' direction pattern).
MAX_FACTOR_FEATURES = 14
WIDTH_BY_ID = np.array([WIDTH[name] for name in GROUPS], dtype=np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _tag(tokens: np.ndarray, row: int, nodes: np.ndarray, j: int) -> int:
    return tokens[row, nodes[j]] if j < nodes.shape[0] else 0


@numba.njit(cache=True, nogil=True)
def _factor_nodes(group: int, heads: np.ndarray, mods: np.ndarray) -> np.ndarray:
    """The words of a factor in the group's order: a chain from its top (g, h, m / gg, g, h, m), a head then its
    modifiers (siblings, comb), or A1, than, rather, A2 (rather_than)."""
    width = WIDTH_BY_ID[group]
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
    others (up to two); the first two nodes' lower-cased words. Each plain and with the arcs' directions."""
    base = 200 + 20 * group
    pattern = 0
    for j in range(WIDTH_BY_ID[group]):
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


def _check_word_ids(rather: int, than: int) -> tuple[int, int]:
    return check_int(rather, "rather", minimum=-1), check_int(than, "than", minimum=-1)


def candidates(tokens: np.ndarray, allowed: np.ndarray, group: int, rather: int, than: int):
    """Every factor of ``group`` (an id of :data:`GROUPS`) whose arcs ``allowed`` (a bool (n + 1, n + 1) mask)
    keeps: (heads, mods), rows padded with 0 to MAX_WIDTH.

    ``rather``/``than``: the lower-cased word ids of "rather" and "than" (for ``rather_than``; -1 if unseen)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    allowed = check_allowed(allowed, n=tokens.shape[1] - 1)
    return _candidates(tokens, allowed, _check_group(group), *_check_word_ids(rather, than))


@numba.njit(cache=True, nogil=True)
def _candidates(tokens: np.ndarray, allowed: np.ndarray, group: int, rather: int, than: int):
    """:func:`candidates`' kernel."""
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
    else:  # rather_than: A1 -> than, than -> rather (just before it), than -> A2 (just after it)
        for t in range(3, n):
            if tokens[LOWER, t] != than or tokens[LOWER, t - 1] != rather or than < 0 or rather < 0:
                continue
            if not (allowed[t, t - 1] and allowed[t, t + 1]):
                continue
            for a1 in range(1, t - 1):
                same = tokens[LOWER, a1] == tokens[LOWER, t + 1] and tokens[POS, a1] == tokens[POS, t + 1]
                if same and allowed[a1, t]:
                    hs[0], ms[0], hs[1], ms[1], hs[2], ms[2] = a1, t, t, t - 1, t, t + 1
                    heads, mods, count = _push(heads, mods, count, hs, ms)
    return heads[:count], mods[:count]


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
    width = int(WIDTH_BY_ID[group])
    if heads.shape != mods.shape or heads.shape[1] < width:
        raise ValueError(
            f"heads and mods must have one shape (F, >= {width}); got {heads.shape} and {mods.shape}"
        )
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
    rather: int,
    than: int,
) -> tuple[Factors, np.ndarray]:
    """The factors of ``groups`` (names of :data:`GROUPS`) with a non-zero score over the allowed arcs, and each
    one's group id."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    weights = check_weights(weights, finite=False)
    allowed = check_allowed(allowed, n=tokens.shape[1] - 1)
    if isinstance(groups, str) or any(name not in GROUP_ID for name in groups):
        raise ValueError(f"groups must be names of factor groups {list(GROUPS)}, got {groups!r}")
    rather, than = _check_word_ids(rather, than)
    all_heads, all_mods, all_sizes, all_scores, all_groups = [], [], [], [], []
    for name in groups:
        group = GROUP_ID[name]
        heads, mods = _candidates(tokens, allowed, group, rather, than)
        scores = check_scored(_score_candidates(tokens, weights, group, heads, mods), what="factor score")
        keep = scores != 0.0
        all_heads.append(heads[keep])
        all_mods.append(mods[keep])
        all_scores.append(scores[keep])
        all_sizes.append(np.full(int(keep.sum()), WIDTH[name], dtype=np.int64))
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
    tokens: np.ndarray, tree: np.ndarray, size: int, groups: np.ndarray, rather: int, than: int
) -> np.ndarray:
    """The feature indices of every factor of ``groups`` (ids) that the tree (full head array) fires; ``size``:
    the factors' hash space (a power of two)."""
    tokens = check_tokens(tokens, N_ATTRIBUTES)
    tree = check_heads(tree, "tree", n=tokens.shape[1] - 1)
    groups = check_range(check_ids(groups, "groups", ndim=1), "groups", 0, len(GROUPS) - 1)
    return _fired_features(tokens, tree, check_size(size), groups, *_check_word_ids(rather, than))


@numba.njit(cache=True, nogil=True)
def _fired_features(
    tokens: np.ndarray, tree: np.ndarray, size: int, groups: np.ndarray, rather: int, than: int
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
        heads, mods = _candidates(tokens, allowed, group, rather, than)
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
