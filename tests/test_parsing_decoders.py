"""Parsing kernels against brute force over every projective tree of short random sentences."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.eisner import eisner, tree_score
from decoders.parsing.second_order import second_order, second_order_max_marginals, second_order_score
from decoders.parsing.third_order import third_order, third_order_features
from decoders.parsing.trees import (
    all_trees,
    as_heads,
    attachment_counts,
    enumerate_trees,
    is_projective,
    tree_error,
)


def _brute_first_order(scores):
    best, arg = -np.inf, None
    for heads in all_trees(scores.shape[0] - 1):
        value = tree_score(scores, heads)
        if value > best:
            best, arg = value, heads
    return best, arg


def _random_scores(rng, n, forbid=0.0, ties=False):
    scores = (
        rng.integers(-3, 4, size=(n + 1, n + 1)).astype(float) if ties else rng.normal(size=(n + 1, n + 1))
    )
    scores[rng.random(scores.shape) < forbid] = -np.inf
    return scores


def test_tree_checks_and_counts():
    assert tree_error(as_heads([2, 0, 2])) is None and is_projective(as_heads([2, 0, 2]))
    assert "2 words attach to the root" in tree_error(as_heads([0, 0]))
    assert "cycle" in tree_error(as_heads([2, 3, 2, 0]))
    assert "outside 0..2" in tree_error(as_heads([3, 0]))
    assert not is_projective(as_heads([3, 4, 0, 3]))  # 1<-3 and 2<-4 cross
    assert sum(1 for _ in all_trees(3)) == 7  # single-rooted projective trees over 3 words (3 + 1 + 3)
    assert attachment_counts([2, 0, 2], [2, 0, 1], np.array([True, True, False])) == (2, 2)
    with pytest.raises(ValueError, match="lengths differ"):
        attachment_counts([0], [2, 0], np.array([True, True]))


def _tree_set(trees):
    return {tuple(int(h) for h in tree) for tree in trees}


@pytest.mark.parametrize("seed", range(4))
def test_enumerate_trees_equals_the_filtered_assignments(seed):
    rng = np.random.default_rng(seed)
    for n in range(6):
        allowed = rng.random((n + 1, n + 1)) < (0.4 if seed % 2 else 0.8)
        for projective in (True, False):
            for single_root in (True, False):
                kinds = {"projective": projective, "single_root": single_root}
                made = enumerate_trees(n, allowed, **kinds)
                expected = [t for t in all_trees(n, **kinds) if allowed[t[1:], np.arange(1, n + 1)].all()]
                assert made.dtype == np.int64 and made.shape == (len(expected), n + 1), (n, kinds)
                assert _tree_set(made) == _tree_set(expected), (n, kinds)


def test_enumerate_trees_counts_edges_and_errors():
    # single-rooted projective trees: 1, 2, 7, 30, 143, 728, 3876 (n = 1..7); arborescences (n + 1)^(n - 1)
    assert [len(enumerate_trees(n)) for n in range(1, 8)] == [1, 2, 7, 30, 143, 728, 3876]
    assert len(enumerate_trees(6, projective=False, single_root=False)) == 7**5
    assert len(enumerate_trees(5, projective=False)) == 5**4
    assert _tree_set(enumerate_trees(6)) == _tree_set(all_trees(6))
    assert enumerate_trees(0).tolist() == [[-1]]
    assert enumerate_trees(3, np.zeros((4, 4), dtype=bool)).shape == (0, 4)
    only_chain = np.zeros((4, 4), dtype=bool)
    only_chain[0, 1] = only_chain[1, 2] = only_chain[2, 3] = True
    for projective in (True, False):
        assert enumerate_trees(3, only_chain, projective=projective).tolist() == [[-1, 0, 1, 2]]
    with pytest.raises(ValueError, match="n must be"):
        enumerate_trees(-1)
    with pytest.raises(ValueError, match="shape"):
        enumerate_trees(3, np.ones((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="n <= 7"):
        enumerate_trees(8, projective=False)


@pytest.mark.parametrize("seed", range(40))
def test_eisner_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    scores = _random_scores(rng, n, forbid=0.3 * (seed % 2), ties=seed % 3 == 0)
    heads, score = eisner(scores)
    best, _ = _brute_first_order(scores)
    if best == -np.inf:
        assert score == -np.inf and np.all(heads[1:] == -1)
        return
    assert tree_error(heads) is None and is_projective(heads)
    assert score == pytest.approx(best, rel=1e-12) and tree_score(scores, heads) == pytest.approx(
        score, rel=1e-12
    )


def test_eisner_edge_cases():
    heads, score = eisner(np.zeros((1, 1)))
    assert score == 0.0 and heads.tolist() == [-1]
    heads, score = eisner(np.array([[0.0, 5.0], [0.0, 0.0]]))
    assert heads.tolist() == [-1, 0] and score == 5.0
    big = np.full((4, 4), 1e300)
    assert eisner(big)[1] == pytest.approx(3e300)


def _second_order_scores(rng, n, forbid=0.0, ties=False):
    shape3 = (n + 1, n + 1, n + 1)
    if ties:
        parts = [
            rng.integers(-2, 3, size=shape).astype(float)
            for shape in [(n + 1, n + 1), shape3, shape3, shape3]
        ]
    else:
        parts = [rng.normal(size=(n + 1, n + 1)), *(rng.normal(size=shape3) for _ in range(3))]
    parts[0][rng.random((n + 1, n + 1)) < forbid] = -np.inf
    return parts


def _slow_second_order_score(arc, sib, inner, outer, heads):
    """The part definitions written out independently of the kernel's helper."""
    n = len(heads) - 1
    total = 0.0
    for m in range(1, n + 1):
        h = heads[m]
        between = range(min(h, m) + 1, max(h, m))
        siblings = [k for k in between if heads[k] == h]
        s = (max(siblings) if m > h else min(siblings)) if siblings else h
        inside = [k for k in between if heads[k] == m]
        ci = (min(inside) if m > h else max(inside)) if inside else m
        beyond = [k for k in (range(m + 1, n + 1) if m > h else range(1, m)) if heads[k] == m]
        co = (max(beyond) if m > h else min(beyond)) if beyond else m
        total += arc[h, m] + sib[h, m, s] + inner[h, m, ci] + outer[h, m, co]
    return total


@pytest.mark.parametrize("seed", range(60))
def test_second_order_dp_equals_brute_force(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 7))
    arc, sib, inner, outer = _second_order_scores(rng, n, forbid=0.3 * (seed % 2), ties=seed % 3 == 0)
    heads, score = second_order(arc, sib, inner, outer)
    values = [(_slow_second_order_score(arc, sib, inner, outer, t), t) for t in all_trees(n)]
    best = max(v for v, _ in values)
    if best == -np.inf:
        assert score == -np.inf and np.all(heads[1:] == -1)
        return
    assert tree_error(heads) is None and is_projective(heads)
    assert score == pytest.approx(best, rel=1e-12, abs=1e-12)
    assert second_order_score(arc, sib, inner, outer, heads) == pytest.approx(score, rel=1e-12, abs=1e-12)
    for value, tree in values[:50]:
        assert second_order_score(arc, sib, inner, outer, tree) == pytest.approx(value, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_second_order_max_marginals_equal_brute_force(seed):
    """Per arc, the best tree through it (the outside pass), against enumeration with the independent scorer."""
    rng = np.random.default_rng(3000 + seed)
    n = int(rng.integers(1, 7))
    arc, sib, inner, outer = _second_order_scores(rng, n, forbid=0.3 * (seed % 2), ties=seed % 3 == 0)
    expected = np.full((n + 1, n + 1), -np.inf)
    for tree in all_trees(n):
        value = _slow_second_order_score(arc, sib, inner, outer, tree)
        for m in range(1, n + 1):
            expected[tree[m], m] = max(expected[tree[m], m], value)
    got = second_order_max_marginals(arc, sib, inner, outer)
    assert np.array_equal(np.isfinite(got), np.isfinite(expected))
    finite = np.isfinite(expected)
    assert got[finite] == pytest.approx(expected[finite], rel=1e-12, abs=1e-12)
    if finite.any():
        assert got.max() == pytest.approx(second_order(arc, sib, inner, outer)[1], rel=1e-12, abs=1e-12)


def test_second_order_with_zero_higher_parts_is_eisner():
    rng = np.random.default_rng(5)
    for n in (1, 2, 9, 25):
        arc = rng.normal(size=(n + 1, n + 1))
        zeros = np.zeros((n + 1, n + 1, n + 1))
        heads, score = second_order(arc, zeros, zeros, zeros)
        assert score == pytest.approx(eisner(arc)[1], rel=1e-12)


@pytest.mark.parametrize("seed", range(24))
def test_third_order_dp_equals_brute_force(seed):
    """Model 1 over hashed features: the DP's optimum is the largest summed feature weight over every projective
    tree the mask allows, and the tree it returns scores exactly that."""
    rng = np.random.default_rng(2000 + seed)
    n = int(rng.integers(1, 7))
    tokens = rng.integers(5, 12, size=(4, n + 1))
    tokens[:, 0] = 2
    weights = rng.normal(size=1 << 10) if seed % 3 else rng.integers(-2, 3, size=1 << 10).astype(float)
    allowed = rng.random((n + 1, n + 1)) < (0.7 if seed % 2 else 1.0)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    heads, score = third_order(tokens, weights, allowed)
    feasible = [t for t in all_trees(n) if allowed[t[1:], np.arange(1, n + 1)].all()]
    if not feasible:
        assert score == -np.inf
        return
    values = [weights[third_order_features(tokens, t, weights.size)].sum() for t in feasible]
    assert score == pytest.approx(max(values), rel=1e-9, abs=1e-9)
    assert (
        tree_error(heads) is None and is_projective(heads) and allowed[heads[1:], np.arange(1, n + 1)].all()
    )
    assert weights[third_order_features(tokens, heads, weights.size)].sum() == pytest.approx(
        score, rel=1e-9, abs=1e-9
    )
