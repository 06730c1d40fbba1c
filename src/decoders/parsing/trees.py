"""Dependency trees as head arrays: validity, projectivity, attachment scores, and enumeration (for the harness's
certificate checks on short sentences, and a brute-force reference for tests).

A tree over a sentence of ``n`` words is an integer array ``heads`` of length ``n + 1``: ``heads[m]`` is the
head of word ``m`` (words are 1-based, 0 is the artificial root) and ``heads[0] = -1``. Every tree here is
single-rooted, as in the papers (Qian and Liu 2013, section 2.1: the root has exactly one modifier): exactly
one word has head 0. The sentence tables of :mod:`decoders.corpora.sentences` hold ``heads[1:]`` as a list.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from decoders.checks import check_ids, check_int
from decoders.parsing.checks import check_heads

#: Gold tags whose words UAS ignores: English PTB tags (Koo and Collins 2010, followed by Qian and Liu 2013),
#: Chinese CTB / UD GSD (PU, i.e. UPOS PUNCT).
PUNCTUATION_TAGS: dict[str, frozenset[str]] = {
    "en": frozenset({"``", "''", ":", ",", "."}),
    "zh": frozenset({"PU", "PUNCT"}),
}


def as_heads(heads: Sequence[int] | np.ndarray, *, name: str = "heads") -> np.ndarray:
    """``heads[1:]`` as read from a sentence table (or a full array with ``heads[0] = -1``) -> full int64 array
    (integers only; ``name`` names the argument in errors)."""
    array = np.asarray(heads)
    if array.size == 0:
        array = array.astype(np.int64)
    array = check_ids(array, name, ndim=1)
    if len(array) and array[0] == -1:
        return array.copy()
    return np.concatenate([np.array([-1], dtype=np.int64), array])


def tree_error(heads: np.ndarray, *, single_root: bool = True) -> str | None:
    """Why ``heads`` (full array) is not a single-rooted tree over its words (with ``single_root=False``: an
    arborescence rooted at 0, which may take several modifiers), or None if it is one. ``heads``: a 1-d integer
    array (anything else is a ValueError: the reasons returned are about its values)."""
    heads = check_ids(heads, "heads", ndim=1)
    n = len(heads) - 1
    if n < 0 or heads[0] != -1:
        return "heads[0] must be -1 (the root has no head)"
    if n == 0:
        return None
    words = heads[1:]
    if words.min() < 0 or words.max() > n:
        bad = int(np.flatnonzero((words < 0) | (words > n))[0]) + 1
        return f"word {bad} has head {int(heads[bad])}, outside 0..{n}"
    if np.any(words == np.arange(1, n + 1)):
        return f"word {int(np.flatnonzero(words == np.arange(1, n + 1))[0]) + 1} is its own head"
    roots = int(np.count_nonzero(words == 0))
    if single_root and roots != 1:
        return f"{roots} words attach to the root; a tree has exactly one"
    for start in range(1, n + 1):  # every word reaches the root within n steps, else it is on a cycle
        node, steps = start, 0
        while node != 0 and steps <= n:
            node, steps = int(heads[node]), steps + 1
        if node != 0:
            return f"word {start} is on a cycle"
    return None


def structure_error(
    structure: Any, n: int, *, single_root: bool = True
) -> tuple[np.ndarray | None, str | None]:
    """(full head array, None) when a decoder's ``structure`` (one head per word, 0 the root) is a tree over ``n``
    words (with ``single_root=False``: an arborescence), else (None, the reason): the wrong length or type, a head
    out of range, a loop, a cycle (:func:`tree_error`)."""
    heads = np.asarray(structure)
    if heads.shape == (0,):
        heads = heads.astype(np.int64)  # np.asarray([]) is float64: an empty list holds no bad head
    if heads.shape != (n,) or heads.dtype.kind not in "iu":
        return None, f"structure must hold {n} integer heads; got shape {heads.shape}, dtype {heads.dtype}"
    heads = np.concatenate([[-1], heads.astype(np.int64)])
    problem = tree_error(heads, single_root=single_root)
    if problem is not None:
        return None, f"not {'a tree' if single_root else 'an arborescence'}: {problem}"
    return heads, None


def is_projective(heads: np.ndarray) -> bool:
    """Whether no two arcs cross (arcs drawn above the sentence, the root at position 0); ``heads``: a full head
    array."""
    heads = check_heads(heads)
    n = len(heads) - 1
    if n < 2:
        return True
    modifiers = np.arange(1, n + 1)
    lo = np.minimum(heads[1:], modifiers)
    hi = np.maximum(heads[1:], modifiers)
    # arcs a and b cross when lo_a < lo_b < hi_a < hi_b
    return not np.any((lo[:, None] < lo[None, :]) & (lo[None, :] < hi[:, None]) & (hi[:, None] < hi[None, :]))


def punctuation_form_mask(words: Sequence[str]) -> np.ndarray:
    """True for the words UAS scores under the CoNLL-X/2007 evaluation script's rule: a word is punctuation
    when every character of its form is a Unicode punctuation character (category P*)."""
    _check_strings(words, "words")
    return np.array(
        [not all(unicodedata.category(ch).startswith("P") for ch in word) for word in words], dtype=bool
    )


def attachment_mask(tags: Sequence[str], punctuation: Iterable[str]) -> np.ndarray:
    """True for the words UAS scores: those whose gold tag is not punctuation."""
    _check_strings(tags, "tags")
    punct = frozenset(punctuation)
    return np.array([tag not in punct for tag in tags], dtype=bool)


def attachment_counts(
    predicted: Sequence[int] | np.ndarray, gold: Sequence[int] | np.ndarray, scored: np.ndarray
) -> tuple[int, int]:
    """(correct heads, scored words) of one sentence; ``predicted``/``gold`` as ``heads[1:]`` or full arrays."""
    predicted_heads, gold_heads = as_heads(predicted, name="predicted")[1:], as_heads(gold, name="gold")[1:]
    scored = np.asarray(scored)
    if scored.dtype != np.bool_ or scored.ndim != 1:
        raise ValueError(f"scored must be a 1-d bool mask, got {scored.dtype} of shape {scored.shape}")
    if len(predicted_heads) != len(gold_heads) or len(gold_heads) != len(scored):
        raise ValueError(
            f"predicted ({len(predicted_heads)}), gold ({len(gold_heads)}) and scored ({len(scored)}) lengths differ"
        )
    return int(np.count_nonzero((predicted_heads == gold_heads) & scored)), int(np.count_nonzero(scored))


def _check_strings(values: Sequence[str], name: str) -> None:
    if isinstance(values, str) or not all(isinstance(value, str) for value in values):
        raise ValueError(f"{name} must be a sequence of strings, got {values!r:.80}")


def all_trees(n: int, *, projective: bool = True, single_root: bool = True) -> Iterator[np.ndarray]:
    """Every single-rooted tree over ``n`` words (projective ones only by default; ``single_root=False``: every
    arborescence rooted at 0), as full head arrays.

    Brute force over all ``(n + 1) ** n`` head assignments, for tests on short sentences (n <= 6).
    """
    n = check_int(n, "n", minimum=0)
    if n > 7:
        raise ValueError(f"all_trees enumerates (n + 1) ** n assignments; n = {n} is too many")
    return _all_trees(n, projective, single_root)


def _all_trees(n: int, projective: bool, single_root: bool) -> Iterator[np.ndarray]:
    for choice in itertools.product(range(n + 1), repeat=n):
        heads = np.array((-1, *choice), dtype=np.int64)
        if tree_error(heads, single_root=single_root) is None and (not projective or is_projective(heads)):
            yield heads


def enumerate_trees(
    n: int, allowed: np.ndarray | None = None, *, projective: bool = True, single_root: bool = True
) -> np.ndarray:
    """Every tree over ``n`` words whose arcs ``allowed`` permits (``allowed[h, m]``; None: every arc), as the
    rows of a ``(trees, n + 1)`` int64 array of full head arrays; single-rooted and projective by default, as
    :func:`all_trees`, which filters every head assignment and is kept as the slow reference.

    Projective trees are built span by span (a head's dependents' subtrees partition the span they cover, in
    order), so only trees are ever made: 3,876 single-rooted ones at n = 7, where :func:`all_trees` tests 8^7
    assignments. Other trees come from the assignments over the allowed heads, checked for cycles all at once
    (a head array applied to itself n times sends every word to the root), for n <= 7 ((n + 1)^n rows)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    n = int(n)
    if allowed is None:
        allowed = np.ones((n + 1, n + 1), dtype=bool)
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.shape != (n + 1, n + 1):
        raise ValueError(f"allowed must have shape ({n + 1}, {n + 1}), got {allowed.shape}")
    allowed = allowed.copy()
    allowed[:, 0] = False
    allowed[np.arange(n + 1), np.arange(n + 1)] = False
    if n == 0:
        return np.full((1, 1), -1, dtype=np.int64)
    if projective:
        return _projective_trees(n, allowed, single_root)
    if n > 7:
        raise ValueError(f"enumerate_trees(projective=False) takes n <= 7, got {n}")
    choices = [np.flatnonzero(allowed[:, m]) for m in range(1, n + 1)]
    if any(len(heads) == 0 for heads in choices):
        return np.empty((0, n + 1), dtype=np.int64)
    grid = np.stack(np.meshgrid(*choices, indexing="ij"), axis=-1).reshape(-1, n)
    heads = np.concatenate([np.zeros((len(grid), 1), dtype=np.int64), grid.astype(np.int64)], axis=1)
    if single_root:
        heads = heads[np.count_nonzero(heads[:, 1:] == 0, axis=1) == 1]
    reached = np.broadcast_to(np.arange(n + 1), heads.shape)
    for _ in range(n):
        reached = np.take_along_axis(heads, reached, axis=1)
    heads = heads[(reached == 0).all(axis=1)]
    heads[:, 0] = -1
    return heads


def _projective_trees(n: int, allowed: np.ndarray, single_root: bool) -> np.ndarray:
    arcs = allowed.tolist()
    forests: dict[tuple[int, int, int], list[tuple[tuple[int, int], ...]]] = {}

    def subtrees(root: int, start: int, end: int) -> list[tuple[tuple[int, int], ...]]:
        """Trees rooted at ``root`` spanning words start..end, as (modifier, head) pairs."""
        left, right = forest(root, start, root - 1), forest(root, root + 1, end)
        return [a + b for a in left for b in right]

    def forest(head: int, start: int, end: int) -> list[tuple[tuple[int, int], ...]]:
        """Subtrees of ``head``'s dependents spanning start..end in order."""
        key = (head, start, end)
        if key not in forests:
            if start > end:
                forests[key] = [()]
            else:
                made = []
                for split in range(start, end + 1):  # the first dependent's subtree spans start..split
                    rest = forest(head, split + 1, end)
                    if not rest:
                        continue
                    for modifier in range(start, split + 1):
                        if arcs[head][modifier]:
                            for tree in subtrees(modifier, start, split):
                                made.extend(((modifier, head), *tree, *others) for others in rest)
                forests[key] = made
        return forests[key]

    if single_root:
        found = [
            ((root, 0), *tree) for root in range(1, n + 1) if arcs[0][root] for tree in subtrees(root, 1, n)
        ]
    else:
        found = forest(0, 1, n)
    heads = np.full((len(found), n + 1), -1, dtype=np.int64)
    for row, tree in enumerate(found):
        for modifier, head in tree:
            heads[row, modifier] = head
    return heads
