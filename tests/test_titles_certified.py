"""Colour-coding that certifies itself (decoders.titles.certified): its bound is never below the true optimum and
a certified answer is always optimal, checked against brute force in exact rational arithmetic on small word
graphs with ties, repeated classes, missing edges and magnitudes from 1e-9 to 1e12 (mixed within one graph), and
against the numba enumeration on larger ones where the class relaxation has to work; rounding that hides a
better title must not be certified; bad parameters are refused by name."""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

import numpy as np
import pytest
from adversarial import MAGNITUDES, entries
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decoders.errors import ConfigError
from decoders.harness.protocol import get_decoder
from decoders.titles.certified import certified_colour_coding
from decoders.titles.decoders import verify
from decoders.titles.exhaustive import exhaustive
from decoders.titles.instance import TitleInstance, path_magnitude, path_score

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DECODER = "colour-coding-certified"


def _instance(klass, start, edge, end, k: int) -> TitleInstance:
    n = len(klass)
    return TitleInstance(
        words=tuple(f"w{v}" for v in range(n)),
        klass=np.asarray(klass, dtype=np.int64),
        start=np.asarray(start, dtype=np.float64),
        edge=np.asarray(edge, dtype=np.float64),
        end=np.asarray(end, dtype=np.float64),
        k=k,
        start_aux=np.full(n, -1),
        edge_aux=np.full((n, n), -1),
        end_aux=np.full(n, -1),
        aux_words=(),
        reference="",
    )


def exact_terms(instance: TitleInstance, path) -> list[Fraction] | None:
    """The title's terms as exact rationals (None when an edge is missing)."""
    path = [int(v) for v in path]
    values = [
        instance.start[path[0]],
        *(instance.edge[a, b] for a, b in itertools.pairwise(path)),
        instance.end[path[-1]],
    ]
    if any(v == -math.inf for v in values):
        return None
    return [Fraction(float(v)) for v in values]


def exact_optimum(instance: TitleInstance) -> tuple[tuple[int, ...] | None, Fraction | None]:
    """The best title and its exact score by enumerating every ordered choice of k words (no decoder code)."""
    best, best_score = None, None
    klass = instance.klass.tolist()
    for path in itertools.permutations(range(instance.n), instance.k):
        if len({klass[v] for v in path}) < instance.k:
            continue
        terms = exact_terms(instance, path)
        if terms is None:
            continue
        score = sum(terms, Fraction(0))
        if best_score is None or score > best_score:
            best, best_score = path, score
    return best, best_score


def assert_sound(instance: TitleInstance, solution, optimum: Fraction | None) -> None:
    """The bound holds exactly; a title scores what it says; ``optimal`` is the optimum within 1e-9 of the title's
    own sum |terms|, and the harness's verifier accepts it."""
    if optimum is None:  # no title exists
        assert solution.structure is None and solution.objective == -math.inf
        if solution.status == "optimal":
            assert solution.bound == -math.inf and verify(instance, solution) is None
        return
    assert solution.bound is not None and Fraction(solution.bound) >= optimum, (
        solution.bound,
        float(optimum),
    )
    if solution.structure is None:
        assert solution.status != "optimal"
        return
    terms = exact_terms(instance, solution.structure)
    assert terms is not None and len({int(instance.klass[v]) for v in solution.structure}) == instance.k
    assert solution.objective == path_score(instance, solution.structure)
    if solution.status == "optimal":
        magnitude = sum(abs(t) for t in terms)
        assert optimum - sum(terms, Fraction(0)) <= Fraction(1e-9) * magnitude, (
            solution.objective,
            float(optimum),
        )
        assert verify(instance, solution) is None


@st.composite
def graphs(draw) -> TitleInstance:
    """n <= 7 words over repeated classes, every k from 1 to one past the classes; ties (small integers),
    missing edges, one magnitude per array or one per entry."""
    n = draw(st.integers(1, 7))
    n_classes = draw(st.integers(1, n))
    klass = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    k = draw(st.integers(1, len(set(klass)) + 1))
    forbid = draw(st.booleans())
    return _instance(
        klass, draw(entries((n,), forbid)), draw(entries((n, n), forbid)), draw(entries((n,), forbid)), k
    )


@SETTINGS
@given(
    graphs(),
    st.booleans(),
    st.sampled_from([None, "k"]),
    st.sampled_from([None, 1, 3]),
    st.integers(0, 5),
)
def test_bound_holds_and_certificates_are_optimal(instance, relaxation, colours, iterations, seed):
    best, optimum = exact_optimum(instance)
    params = {"relaxation": relaxation, "seed": seed, "iterations": iterations}
    if colours == "k" and instance.infeasible is None:
        params["colours"] = instance.k  # fewer colours than classes: colourings are real restrictions
    solution = get_decoder("titles", DECODER)(instance, **params)
    assert_sound(instance, solution, optimum)
    if relaxation and iterations is None and _one_scale(instance, best):
        assert solution.status == "optimal"  # the class relaxation is exact: it certifies in the end


def _one_scale(instance: TitleInstance, best) -> bool:
    """Whether the bound's allowance for rounding (~1e-14 of the terms' magnitudes) must lie within the
    certificate's tolerance (1e-10 of the best title's magnitude): nonzero weights within a factor 1e3 of each
    other and a best title (if any) with a nonzero term."""
    weights = np.concatenate([instance.start, instance.edge.ravel(), instance.end])
    weights = np.abs(weights[np.isfinite(weights) & (weights != 0)])
    if best is not None and not any(exact_terms(instance, best)):
        return False
    return weights.size == 0 or weights.max() <= 1e3 * weights.min()


@pytest.mark.parametrize("seed", range(40))
def test_larger_graphs_certify_the_optimum(seed):
    """12-16 words, classes of 1-3 words, k = 3-6, a fifth of the edges missing, walks that repeat classes:
    the walk bound alone is often loose here, so the class relaxation must close the gap."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(12, 17)), int(rng.integers(3, 7))
    klass = rng.integers(0, int(rng.integers(n // 3, n)), n)
    scale = rng.choice(MAGNITUDES, size=(n, n)) if seed % 2 else 1.0
    edge = np.round(2.0 * np.log(rng.random((n, n))), 1 if seed % 3 == 0 else 12) * scale  # ties when rounded
    edge[rng.random((n, n)) < 0.2] = -np.inf
    instance = _instance(klass, np.log(rng.random(n)), edge, np.log(rng.random(n)), k)
    path, optimum, _ = exhaustive(instance)
    solution = get_decoder("titles", DECODER)(instance, seed=seed)
    if path is None:
        assert solution.structure is None and solution.status == "optimal"
        return
    magnitude = path_magnitude(instance, path)
    assert solution.bound >= optimum - 1e-12 * magnitude
    assert solution.status == "optimal" and verify(instance, solution) is None
    assert solution.objective >= optimum - 1e-9 * magnitude


def _cycle_instance(n: int = 8) -> TitleInstance:
    """The best walk of 4 words is a -> b -> c -> a (class of a repeated three apart, beyond the walk bound's
    reach); the best title is a -> b -> c -> d; the other words (n - 4) score low everywhere."""
    edge = np.full((n, n), -10.0)
    np.fill_diagonal(edge, -np.inf)
    edge[0, 1] = edge[1, 2] = edge[2, 0] = 0.0
    edge[2, 3] = -1.0
    start = np.full(n, -5.0)
    start[0] = 0.0
    return _instance(np.arange(n), start, edge, np.zeros(n), 4)


def test_class_relaxation_certifies_what_the_walk_bound_cannot():
    instance = _cycle_instance()
    walk_only = certified_colour_coding(instance, relaxation=False, colours=4, iterations=7)
    assert walk_only.walk_bound >= 0.0 and not walk_only.certified and walk_only.completed == 7
    assert walk_only.path.tolist() == [0, 1, 2, 3] and walk_only.score == -1.0  # found, not proven
    relaxed = certified_colour_coding(instance, colours=4, iterations=7)
    assert relaxed.certified and relaxed.rounds >= 1 and relaxed.score == -1.0
    assert -1.0 <= relaxed.bound <= -1.0 + 1e-12  # the raised weights: never below the optimum
    solution = get_decoder("titles", DECODER)(instance, colours=4)
    assert solution.status == "optimal" and solution.stats["certified"] and verify(instance, solution) is None
    assert get_decoder("titles", DECODER)(instance, colours=4, relaxation=False).status == "feasible"


def test_one_colour_per_class_is_one_exact_colouring():
    """No more classes than the paper's r: each class its own colour, one colouring, certified by itself."""
    instance = _cycle_instance(4)
    result = certified_colour_coding(instance, relaxation=False)  # r >= 4 colours for k = 4
    assert result.certified and result.completed == 1 and result.iterations == 1 and result.score == -1.0


def test_rounding_that_hides_a_better_title_is_not_certified():
    """Title (0, 1, 2) scores 1e20 + 1 - 1e20 = 1 exactly but 0 in floating point; title (3, 4, 5) scores 0.5.
    Floating-point scores prefer the second; the bound must still cover 1, so that one may not be certified
    (the first may: it is the optimum, and 1 is within 1e-10 of its own sum |terms|)."""
    n = 6
    edge = np.full((n, n), -np.inf)
    edge[0, 1], edge[1, 2] = 1.0, -1e20
    edge[3, 4] = edge[4, 5] = 0.0
    start = np.array([1e20, -np.inf, -np.inf, 0.5, -np.inf, -np.inf])
    end = np.array([-np.inf, -np.inf, 0.0, -np.inf, -np.inf, 0.0])
    instance = _instance(np.arange(n), start, edge, end, 3)
    best, optimum = exact_optimum(instance)
    assert best == (0, 1, 2) and optimum == 1
    solution = get_decoder("titles", DECODER)(instance)
    assert_sound(instance, solution, optimum)
    assert solution.bound >= 1.0
    if tuple(solution.structure) == (3, 4, 5):
        assert solution.status == "feasible"
    for seed in range(20):  # colourings that separate 0 from 1 or 2 find only (3, 4, 5)
        result = certified_colour_coding(instance, colours=3, iterations=5, seed=seed, relaxation=False)
        assert result.bound >= 1.0
        if result.path.tolist() == [3, 4, 5]:
            assert not result.certified


def test_a_label_limit_keeps_the_bound_valid():
    instance = _cycle_instance()
    result = certified_colour_coding(instance, colours=4, iterations=3, max_labels=1)
    assert result.bound >= -1.0 and (not result.certified or result.score == -1.0)


def test_a_passed_deadline_is_a_timeout_with_a_valid_bound():
    instance = _cycle_instance()
    solution = get_decoder("titles", DECODER)(instance, colours=4, deadline=time.perf_counter() - 1.0)
    assert solution.status == "timeout" and solution.bound >= -1.0


def test_infeasible_sizes_are_answered_at_once():
    instance = _instance([0, 0, 1], np.zeros(3), np.zeros((3, 3)), np.zeros(3), 3)
    solution = get_decoder("titles", DECODER)(instance)
    assert solution.status == "optimal" and solution.structure is None and solution.bound == -math.inf


def test_no_title_hidden_by_classes_is_certified_as_none():
    """The only walk of 4 words from s to t returns to the class it started in: no title, proven by the DP."""
    edge = np.full((3, 3), -np.inf)
    edge[0, 1] = edge[1, 2] = 0.0
    instance = _instance(
        [0, 1, 0], np.array([0.0, -np.inf, -np.inf]), edge, np.array([-np.inf, -np.inf, 0.0]), 3
    )
    assert instance.infeasible is not None  # k = 3 > 2 distinct classes: plain from the sizes
    edge = np.full((5, 5), -np.inf)
    edge[0, 1] = edge[1, 2] = edge[2, 3] = 0.0
    start = np.array([0.0, -np.inf, -np.inf, -np.inf, -np.inf])
    end = np.array([-np.inf, -np.inf, -np.inf, 0.0, -np.inf])
    instance = _instance([0, 1, 2, 0, 3], start, edge, end, 4)  # word 4 (class 3) has no edges
    assert instance.infeasible is None
    solution = get_decoder("titles", DECODER)(instance, colours=4)
    assert solution.status == "optimal" and solution.structure is None and solution.bound == -math.inf
    assert verify(instance, solution) is None


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"failure_probability": 0.0}, "failure_probability"),
        ({"failure_probability": "0.1"}, "failure_probability"),
        ({"seed": -1}, "seed"),
        ({"colours": 1}, "colours"),
        ({"colours": 63}, "colours"),
        ({"iterations": 0}, "iterations"),
        ({"relaxation": "yes"}, "relaxation"),
        ({"max_labels": 0}, "max_labels"),
        ({"max_labels": 1.5}, "max_labels"),
    ],
)
def test_bad_parameters_are_refused_naming_the_key(params, key):
    with pytest.raises(ConfigError, match=key):
        get_decoder("titles", DECODER)(_cycle_instance(), **params)
