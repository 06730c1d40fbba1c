"""Chu-Liu-Edmonds against enumeration of every arborescence, and against ufal.chu_liu_edmonds."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.mst import chu_liu_edmonds
from decoders.parsing.trees import all_trees


def _arborescences(n: int):
    return all_trees(n, projective=False, single_root=False)


def _best(scores: np.ndarray) -> float:
    n = scores.shape[0] - 1
    return max(float(scores[h[1:], np.arange(1, n + 1)].sum()) for h in _arborescences(n))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_mst_is_the_best_arborescence(n):
    rng = np.random.default_rng(n)
    for trial in range(60 if n < 5 else 25):
        kind = trial % 3
        scores = (
            rng.normal(size=(n + 1, n + 1))
            if kind == 0
            else rng.integers(-2, 3, (n + 1, n + 1)).astype(float)
        )
        if kind == 2:  # forbidden arcs, and huge and tiny magnitudes
            scores[rng.random((n + 1, n + 1)) < 0.3] = -np.inf
            scores *= rng.choice([1e-300, 1.0, 1e300], size=scores.shape)
        heads, value = chu_liu_edmonds(scores)
        best = _best(np.where(np.isnan(scores), -np.inf, scores))
        if best == -np.inf:
            assert value == -np.inf and np.all(heads[1:] == -1)
            continue
        assert value == pytest.approx(best, rel=1e-12)
        assert heads[0] == -1
        assert value == pytest.approx(float(scores[heads[1:], np.arange(1, n + 1)].sum()), rel=1e-12)
        assert any(np.array_equal(heads, tree) for tree in _arborescences(n))


def test_mst_agrees_with_ufal_on_longer_sentences():
    ufal = pytest.importorskip("ufal.chu_liu_edmonds")
    rng = np.random.default_rng(7)
    for n in (6, 15, 40, 80):
        scores = rng.normal(size=(n + 1, n + 1))
        np.fill_diagonal(scores, -np.inf)
        scores[:, 0] = -np.inf
        heads, value = chu_liu_edmonds(scores)
        theirs, _ = ufal.chu_liu_edmonds(np.where(np.isfinite(scores.T), scores.T, np.nan))
        assert value == pytest.approx(
            float(scores[np.asarray(theirs)[1:], np.arange(1, n + 1)].sum()), rel=1e-12
        )


def test_mst_of_an_empty_sentence():
    heads, value = chu_liu_edmonds(np.zeros((1, 1)))
    assert heads.tolist() == [-1] and value == 0.0
