"""Adversarial inputs for every exact parsing decoder (Eisner, the second- and third-order DPs' backbones,
branch and bound, the CP-SAT audit): ties, magnitudes from 1e-9 to 1e12, forbidden (-inf) arcs mixed with
ordinary ones, one-word sentences and sentences with no tree left; every certified answer must match brute
force over all projective trees, every bound must hold, and bad model files and instances must be refused with
the field named."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from adversarial import entries
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decoders.bnb.audit import solve_exact
from decoders.bnb.instance import ParseInstance
from decoders.bnb.search import Backbone, Factors, branch_and_bound
from decoders.errors import CorpusFormatError
from decoders.parsing.eisner import eisner
from decoders.parsing.features import Vocabulary
from decoders.parsing.model import ParserModel
from decoders.parsing.second_order import second_order
from decoders.parsing.trees import all_trees, is_projective, tree_error

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def _trees(n: int) -> list[np.ndarray]:
    return list(all_trees(n))


@st.composite
def backbones(draw, second: bool = True):
    n = draw(st.integers(1, 5))
    arc = draw(entries((n + 1, n + 1), forbid=draw(st.booleans())))
    if not second:
        return Backbone(arc)
    parts = [draw(entries((n + 1,) * 3, forbid=False)) for _ in range(3)]
    return Backbone(arc, *parts)


@st.composite
def factor_sets(draw, n: int, integer: bool = False):
    arcs = [(h, m) for h in range(n + 1) for m in range(1, n + 1) if h != m]
    count = draw(st.integers(0, 6))
    if not arcs or not count:
        return Factors.empty(2)
    rows = [draw(st.lists(st.sampled_from(arcs), min_size=1, max_size=3, unique=True)) for _ in range(count)]
    width = max(len(row) for row in rows)
    heads = np.zeros((count, width), dtype=np.int64)
    mods = np.zeros((count, width), dtype=np.int64)
    for c, row in enumerate(rows):
        for j, (h, m) in enumerate(row):
            heads[c, j], mods[c, j] = h, m
    if integer:
        score = np.array(draw(st.lists(st.integers(-3, 3), min_size=count, max_size=count)), dtype=float)
    else:
        score = draw(entries((count,), forbid=False))
    return Factors(heads, mods, np.array([len(r) for r in rows]), score)


def _best(backbone: Backbone, factors: Factors) -> tuple[float, float]:
    """The brute-force optimum and the magnitude of the terms (for a relative rounding tolerance)."""
    scores = [backbone.score(t) + factors.total(t) for t in _trees(backbone.n)]
    return max(scores), backbone.magnitude() + float(np.abs(factors.score).sum())


def _check_tree(heads: np.ndarray, backbone: Backbone) -> None:
    assert tree_error(heads) is None and is_projective(heads)
    assert np.isfinite(backbone.arc[heads[1:], np.arange(1, backbone.n + 1)]).all()


@SETTINGS
@given(backbones(second=False))
def test_eisner_against_brute_force(backbone):
    heads, score = eisner(backbone.arc)
    best, magnitude = _best(backbone, Factors.empty())
    if best == -np.inf:
        assert score == -np.inf
        return
    _check_tree(heads, backbone)
    assert abs(score - best) <= 1e-9 * magnitude
    assert abs(backbone.score(heads) - best) <= 1e-9 * magnitude


@SETTINGS
@given(backbones())
def test_second_order_against_brute_force(backbone):
    heads, score = second_order(backbone.arc, backbone.sib, backbone.inner, backbone.outer)
    best, magnitude = _best(backbone, Factors.empty())
    if best == -np.inf:
        assert score == -np.inf
        return
    _check_tree(heads, backbone)
    assert abs(score - best) <= 1e-9 * magnitude
    assert abs(backbone.score(heads) - best) <= 1e-9 * magnitude


@SETTINGS
@given(st.data())
def test_branch_and_bound_certifies_only_the_optimum(data):
    """Arbitrary float scores (grid None): a certified tree scores the brute-force optimum up to rounding and
    the bound is never below it, whatever the magnitudes."""
    backbone = data.draw(backbones(second=data.draw(st.booleans())))
    factors = data.draw(factor_sets(backbone.n))
    result = branch_and_bound(backbone, factors, grid=None, max_nodes=2000)
    best, magnitude = _best(backbone, factors)
    if best == -np.inf:
        assert result.objective == -np.inf
        return
    _check_tree(result.heads, backbone)
    tolerance = 1e-9 * magnitude
    assert result.bound >= best - tolerance
    assert abs(backbone.score(result.heads) + factors.total(result.heads) - result.objective) <= tolerance
    if result.optimal:
        assert result.objective >= best - tolerance


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_audit_on_integer_ties_and_forbidden_arcs(data):
    n = data.draw(st.integers(1, 4))
    values = st.integers(-3, 3)
    arc = np.array(data.draw(st.lists(values, min_size=(n + 1) ** 2, max_size=(n + 1) ** 2)), float)
    arc = arc.reshape(n + 1, n + 1)
    arc[
        np.array(data.draw(st.lists(st.booleans(), min_size=arc.size, max_size=arc.size))).reshape(arc.shape)
    ] = -np.inf
    parts = [
        np.array(data.draw(st.lists(values, min_size=(n + 1) ** 3, max_size=(n + 1) ** 3)), float).reshape(
            (n + 1,) * 3
        )
        for _ in range(3)
    ]
    backbone = Backbone(arc, *parts)
    factors = data.draw(factor_sets(n, integer=True))
    best, _ = _best(backbone, factors)
    result = solve_exact(backbone, factors, time_limit=30)
    if best == -np.inf:
        assert result.status == "infeasible"
        return
    assert result.status == "optimal" and result.objective == best == result.bound
    _check_tree(result.heads, backbone)


def test_bad_model_files_and_instances_are_refused(tmp_path):
    vocabulary = Vocabulary({"w:a": 5})
    for numerator, match in ((np.array([0.0, np.nan]), "finite"), (np.array([0.0, 0.5]), "integer")):
        with pytest.raises(ValueError, match=match):
            ParserModel(numerator, 1, vocabulary, {"order": 1})
    with pytest.raises(ValueError, match="power-of-two"):
        ParserModel(np.zeros(3), 1, vocabulary, {"order": 1})
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(CorpusFormatError, match="bad.npz"):
        ParserModel.load(tmp_path / "bad.npz")
    tokens = np.ones((4, 3), dtype=np.int64)
    allowed = np.zeros((3, 3), dtype=bool)
    allowed[0, 1] = allowed[1, 2] = True
    gold = np.array([-1, 0, 1])
    scored = np.ones(2, dtype=bool)
    for bad, match in [
        ({"tokens": tokens.astype(float)}, "tokens"),
        ({"tokens": tokens[:, :1]}, "n >= 1"),
        ({"gold": np.array([-1, 0, 5])}, "gold"),
        ({"gold": np.array([-1, 2, 1])}, "gold"),
        ({"scored": np.ones(3, dtype=bool)}, "scored"),
        ({"allowed": allowed.astype(int)}, "allowed"),
        ({"k": 0}, "k must"),
        ({"k": True}, "k must"),
        ({"model": ""}, "model"),
    ]:
        fields = {"tokens": tokens, "gold": gold, "scored": scored, "allowed": allowed, "model": "m.npz"}
        with pytest.raises(ValueError, match=match):
            ParseInstance(**{**fields, **bad})


SCALES = (1e-12, 1e-9, 1e-6, 1e-3, 1e3, 1e6, 1e9, 1e12)


def _random_problem(rng: np.random.Generator, n: int, forbid: bool) -> tuple[Backbone, Factors]:
    arc = rng.normal(size=(n + 1, n + 1))
    if forbid:
        arc[rng.random(arc.shape) < 0.2] = -np.inf
    parts = [rng.normal(size=(n + 1,) * 3) for _ in range(3)]
    count = int(rng.integers(0, 5))
    heads = rng.integers(0, n + 1, size=(count, 2))
    mods = rng.integers(1, n + 1, size=(count, 2))
    mods[heads == mods] = 1 + (mods[heads == mods] % n)  # no self-loops
    heads[heads == mods] = 0
    factors = (
        Factors(heads, mods, np.full(count, 2), rng.normal(size=count) * 2) if count else Factors.empty(2)
    )
    return Backbone(arc, *parts), factors


def _scaled(backbone: Backbone, factors: Factors, scale: float) -> tuple[Backbone, Factors]:
    parts = (backbone.sib * scale, backbone.inner * scale, backbone.outer * scale)
    if not len(factors.score):
        return Backbone(backbone.arc * scale, *parts), factors
    return Backbone(backbone.arc * scale, *parts), Factors(
        factors.heads, factors.mods, factors.size, factors.score * scale
    )


def test_the_answer_does_not_depend_on_the_units_of_the_scores():
    """Every score times any constant from 1e-12 to 1e12 (forbidden arcs kept): Eisner, the second-order DP and
    branch and bound give the same tree and status, and the objective times the constant."""
    rng = np.random.default_rng(29)
    for trial in range(12):
        n = int(rng.integers(2, 6))
        backbone, factors = _random_problem(rng, n, forbid=trial % 3 == 0)
        reference = (
            eisner(backbone.arc),
            second_order(backbone.arc, backbone.sib, backbone.inner, backbone.outer),
            branch_and_bound(backbone, factors, grid=None),
        )
        assert reference[2].optimal
        for scale in SCALES:
            big, bigger = _scaled(backbone, factors, scale)
            results = (
                eisner(big.arc),
                second_order(big.arc, big.sib, big.inner, big.outer),
                branch_and_bound(big, bigger, grid=None),
            )
            for (heads, score), (ref_heads, ref_score) in zip(results[:2], reference[:2], strict=True):
                assert np.array_equal(heads, ref_heads), (trial, scale)
                assert score / scale == pytest.approx(ref_score, rel=1e-9)
            assert results[2].optimal, (trial, scale)
            assert np.array_equal(results[2].heads, reference[2].heads), (trial, scale)
            assert results[2].objective / scale == pytest.approx(reference[2].objective, rel=1e-9)
