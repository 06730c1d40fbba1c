"""Titles decoders (Deshpande et al. 2007): colour-coding, ILP (CP-SAT, SCIP, HiGHS), beam and exhaustive agree."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

from decoders.errors import ConfigError
from decoders.harness.protocol import get_decoder, known_decoders
from decoders.titles.beam import beam_search, reaches, smallest_optimal_width
from decoders.titles.colour_coding import (
    choose_colours,
    colour_coding,
    colourful_probability,
    iterations_for,
)
from decoders.titles.decoders import evaluate, title_text
from decoders.titles.exhaustive import exhaustive
from decoders.titles.ilp import build_model, solve
from decoders.titles.instance import TitleInstance, path_problem, path_score


def random_instance(
    seed: int, n: int | None = None, k: int | None = None, missing: float = 0.2
) -> TitleInstance:
    """Random word graph: classes of 1-3 members, log-probability-like weights, some missing (-inf) edges."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 10)) if n is None else n
    k = int(rng.integers(2, 5)) if k is None else k
    sizes = []
    while sum(sizes) < n:
        sizes.append(int(rng.integers(1, 4)))
    sizes[-1] -= sum(sizes) - n
    klass = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    edge = 2.0 * np.log(rng.random((n, n)))
    edge[rng.random((n, n)) < missing] = -np.inf
    np.fill_diagonal(edge, -np.inf)
    start = np.log(rng.random(n))
    start[rng.random(n) < missing / 2] = -np.inf
    end = np.log(rng.random(n))
    direct = np.full(n, -1, dtype=np.int32)
    return TitleInstance(
        words=tuple(f"w{v}" for v in range(n)),
        klass=klass,
        start=start,
        edge=edge,
        end=end,
        k=k,
        start_aux=direct,
        edge_aux=np.full((n, n), -1, dtype=np.int32),
        end_aux=direct.copy(),
        aux_words=(),
        reference="w0 w1",
    )


SEEDS = range(30)


@pytest.mark.parametrize("seed", SEEDS)
def test_decoders_agree_on_the_optimum(seed: int) -> None:
    instance = random_instance(seed)
    path, optimum, _ = exhaustive(instance)
    decoded = {
        "colour-coding": get_decoder("titles", "colour-coding")(instance, iterations=300, seed=seed),
        "cp-sat": get_decoder("titles", "ilp")(instance, solver="cp-sat"),
        "scip": get_decoder("titles", "ilp")(instance, solver="scip"),
        "highs": get_decoder("titles", "ilp")(instance, solver="highs"),
        "beam": get_decoder("titles", "beam")(instance, width=10_000),
        "exhaustive": get_decoder("titles", "exhaustive")(instance),
    }
    if path is None:  # no feasible title: every decoder that finished says so
        assert optimum == -math.inf
        for name, solution in decoded.items():
            assert solution.structure is None and solution.objective == -math.inf, name
        return
    assert path_problem(instance, path) is None
    assert path_score(instance, path) == pytest.approx(optimum, rel=1e-12)
    for name, solution in decoded.items():
        assert path_problem(instance, solution.structure) is None, name
        assert solution.objective == pytest.approx(path_score(instance, solution.structure), rel=1e-12), name
        assert solution.objective == pytest.approx(optimum, rel=1e-9), name
    for name in ("cp-sat", "scip", "highs", "exhaustive"):
        assert decoded[name].status == "optimal", name
        assert decoded[name].bound >= optimum - 1e-9, name
    # CP-SAT solves the rounded weights: its bound is widened by at most (k+1)/scale above the optimum
    assert decoded["cp-sat"].bound <= optimum + (instance.k + 1) / 1e6 + 1e-9
    assert decoded["colour-coding"].status == "feasible"
    assert decoded["beam"].status == "feasible"


def test_no_feasible_title() -> None:
    """Fewer classes than k: nothing to find; exact decoders say so with objective -inf."""
    fields = vars(random_instance(3, n=6, k=4)).copy()
    fields.pop("infeasible")
    fields["klass"] = np.array([0, 0, 1, 1, 2, 2], dtype=np.int32)
    instance = TitleInstance(**fields)
    assert "distinct classes" in instance.infeasible
    assert exhaustive(instance)[0] is None
    for solution in (
        get_decoder("titles", "exhaustive")(instance),
        get_decoder("titles", "ilp")(instance, solver="cp-sat"),
        get_decoder("titles", "ilp")(instance, solver="scip"),
        get_decoder("titles", "ilp")(instance, solver="highs"),
        get_decoder("titles", "beam")(instance, width=100),
        get_decoder("titles", "colour-coding")(instance, iterations=20),
    ):
        assert solution.structure is None
        assert solution.objective == -math.inf
    solution = get_decoder("titles", "beam")(instance, width=3)
    assert title_text(instance, solution.structure) == ""
    assert math.isnan(evaluate(instance, solution)["rouge_l"])


def test_colour_choice_lies_in_k_to_2k_and_minimises_the_papers_formula() -> None:
    for k in range(1, 13):
        r = choose_colours(k)
        assert k <= r <= 2 * k
        cost = {q: 2.0**q / colourful_probability(k, q) for q in range(k, 2 * k + 1)}
        assert cost[r] == min(cost.values())
    # by hand, k = 3: 2^3 / (6/27) = 36 < 2^4 / (24/64) = 42.7 < 2^5 / (60/125) = 66.7
    assert choose_colours(3) == 3
    assert choose_colours(4) == 5


def test_iterations_formula_matches_a_hand_computation() -> None:
    # k = 3, r = 3: p = 3!/3^3 = 2/9; T = ceil(ln 1e-3 / ln(7/9)) = ceil(6.9078 / 0.25131) = ceil(27.49) = 28
    assert colourful_probability(3, 3) == pytest.approx(2 / 9)
    assert iterations_for(3, 3, 1e-3) == 28
    # k = 4, r = 5: p = 5*4*3*2 / 5^4 = 0.192; T = ceil(6.9078 / 0.21319) = ceil(32.40) = 33
    assert iterations_for(4, 5, 1e-3) == 33
    assert iterations_for(1, 1, 1e-3) == 1
    with pytest.raises(ConfigError, match="failure_probability"):
        iterations_for(3, 3, 0.0)
    with pytest.raises(ConfigError, match="colourful"):
        iterations_for(4, 3, 1e-3)


def test_colour_coding_defaults_stats_and_determinism() -> None:
    instance = random_instance(7, n=9, k=3)
    _, optimum, _ = exhaustive(instance)
    first = get_decoder("titles", "colour-coding")(instance, seed=5)
    again = get_decoder("titles", "colour-coding")(instance, seed=5)
    assert first.stats["r"] == choose_colours(3)
    assert first.stats["iterations"] == iterations_for(3, choose_colours(3), 1e-3)
    assert first.stats["completed"] == first.stats["iterations"]
    assert 1 <= first.stats["first_found"] <= first.stats["iterations"]
    assert first.stats["states"] > 0
    assert first.objective == pytest.approx(optimum, rel=1e-9)
    assert np.array_equal(first.structure, again.structure)
    assert first.stats == again.stats
    fixed = colour_coding(instance, colours=5, iterations=4, seed=1)
    assert fixed.colours == 5 and fixed.iterations == 4 and fixed.completed == 4
    with pytest.raises(ConfigError, match="colours"):
        colour_coding(instance, colours=2)


def test_colour_coding_and_beam_honour_a_past_deadline() -> None:
    instance = random_instance(11, n=9, k=4)
    past = time.perf_counter() - 1.0
    solution = get_decoder("titles", "colour-coding")(instance, deadline=past)
    assert solution.status == "timeout" and solution.structure is None and math.isnan(solution.objective)
    assert solution.stats["completed"] == 0
    assert get_decoder("titles", "beam")(instance, width=4, deadline=past).status == "timeout"
    assert get_decoder("titles", "ilp")(instance, deadline=past).status == "timeout"


@pytest.mark.parametrize("solver", ["cp-sat", "scip", "highs"])
def test_ilp_honours_a_tiny_deadline(solver: str) -> None:
    instance = random_instance(21, n=60, k=8, missing=0.05)
    began = time.perf_counter()
    solution = get_decoder("titles", "ilp")(instance, solver=solver, deadline=began + 0.3)
    elapsed = time.perf_counter() - began
    assert solution.status in ("timeout", "optimal")
    assert elapsed < 10.0  # the solver stops near its 0.3 s; building the model stays outside it
    assert solution.stats["variables"] == 2 * build_model(instance).n_edges
    if solution.structure is not None:
        assert path_problem(instance, solution.structure) is None
        if solution.bound is not None:
            assert solution.bound >= solution.objective - 1e-9


@pytest.mark.parametrize("k", [1, 2, 3])
def test_ilp_model_sizes_and_solver_check(k: int) -> None:
    instance = random_instance(2, n=6, k=k, missing=0.0)
    model = build_model(instance)
    distinct = (instance.klass[:, None] != instance.klass[None, :]).sum()
    inner = distinct if k > 1 else 0  # a one-word title uses no inner edge, so the model has none
    assert model.n_edges == 6 + inner + 6  # s -> v, v -> u across classes, v -> t
    # rows: (2), (3), (4), (5) per word, (6) per class, (7) strengthened: one per s- and t-edge, one per inner
    # edge for k = 2 (f = 2 I), two for k > 2 (2 I <= f <= k I), (8-11) per word and t, (12), (13)
    per_inner = {1: 0, 2: 1, 3: 2}[k]
    assert model.n_constraints == 3 + 6 + instance.n_classes + 12 + per_inner * inner + 7 + 2
    with pytest.raises(ConfigError, match="cp-sat"):
        solve(instance, solver="glpk")


def _path_columns(model, path) -> np.ndarray:
    """I and f columns of ``s -> path -> t`` for a path of any length (f counts down to 1 at the last edge)."""
    nodes = [model.n, *path, model.n + 1]
    values = np.zeros(model.n_variables)
    for position, (a, b) in enumerate(itertools.pairwise(nodes)):
        e = int(np.flatnonzero((model.tail == a) & (model.head == b))[0])
        values[e] = 1.0
        values[e + model.n_edges] = len(nodes) - 1 - position
    return values


def _rows_hold(model, values: np.ndarray) -> bool:
    activity = model.matrix @ values
    return bool(np.all(activity >= model.lower - 1e-9) and np.all(activity <= model.upper + 1e-9))


@pytest.mark.parametrize("seed", range(6))
def test_strengthened_rows_keep_every_title(seed: int) -> None:
    """The strengthened (7) is a valid inequality: every feasible title, written as its I and f columns,
    satisfies every row; a path reusing a class, or one of the wrong length, does not."""
    instance = random_instance(200 + seed, n=7, k=3, missing=0.0)
    model = build_model(instance)
    titles = 0
    repeats = 0
    for path in itertools.permutations(range(instance.n), instance.k):
        classes = instance.klass[list(path)]
        if np.any(classes[1:] == classes[:-1]):
            continue  # uses a same-class edge, which the model does not even have
        values = _path_columns(model, path)
        if path_problem(instance, path) is None:
            titles += 1
            assert np.array_equal(model.columns(np.array(path)), values)
            assert _rows_hold(model, values), path
        else:  # the first and last word share a class: (6) rules it out
            repeats += 1
            assert not _rows_hold(model, values), path
    assert titles > 0 and repeats > 0
    other = next(v for v in range(instance.n) if instance.klass[v] != instance.klass[0])
    assert not _rows_hold(model, _path_columns(model, [0, other]))  # k - 1 words
    with pytest.raises(ValueError, match="does not have"):
        model.columns(np.array([0, 0, other]))  # no edge 0 -> 0


@pytest.mark.parametrize("solver", ["cp-sat", "scip", "highs"])
def test_ilp_uses_the_beam_hint_and_falls_back_to_it(solver: str) -> None:
    instance = random_instance(5, n=9, k=3)
    _, optimum, _ = exhaustive(instance)
    beam_path, beam_score, _ = beam_search(instance, 80)
    solution = get_decoder("titles", "ilp")(instance, solver=solver)
    assert solution.stats["hint"] == "beam-80" and solution.stats["from_hint"] is False
    assert solution.stats["hint_score"] == pytest.approx(beam_score)
    assert solution.status == "optimal" and solution.objective == pytest.approx(optimum, rel=1e-9)
    # the deadline has passed before the solver starts: the hint's path comes back, marked as a timeout
    late = get_decoder("titles", "ilp")(instance, solver=solver, deadline=time.perf_counter() - 1.0)
    assert late.status == "timeout" and late.stats["from_hint"] is True
    assert np.array_equal(late.structure, beam_path) and late.objective == pytest.approx(beam_score)
    plain = get_decoder("titles", "ilp")(instance, solver=solver, hint_width=None)
    assert plain.stats["hint"] is None and plain.stats["hint_score"] is None
    assert plain.objective == pytest.approx(optimum, rel=1e-9)


def test_smallest_optimal_width() -> None:
    widths = []
    for seed in range(40):
        instance = random_instance(100 + seed)
        _, optimum, _ = exhaustive(instance)
        width = smallest_optimal_width(instance, optimum)
        widths.append(width)
        assert reaches(beam_search(instance, width)[1], optimum)
        if width > 1:
            assert not reaches(beam_search(instance, width - 1)[1], optimum)
            assert smallest_optimal_width(instance, optimum, max_width=width - 1) is None
    assert max(widths) > 1, "the random instances should include some where greedy search fails"
    with pytest.raises(ValueError, match="width"):
        beam_search(random_instance(0), 0)


def test_exhaustive_refuses_huge_searches() -> None:
    instance = random_instance(1, n=9, k=4)
    with pytest.raises(ValueError, match="max_paths"):
        exhaustive(instance, max_paths=9**4 - 1)
    assert exhaustive(instance, max_paths=9**4)[0] is not None


def test_evaluate_realises_auxiliary_words_and_scores_rouge_l() -> None:
    instance = random_instance(4, n=5, k=2, missing=0.0)
    instance.words = ("binary", "search", "trees", "heaps", "sorting")
    instance.aux_words = ("of", "the")
    instance.start_aux[:] = 1
    instance.edge_aux[:] = 0
    instance.reference = "The Binary Search Tree"
    solution = get_decoder("titles", "exhaustive")(instance)
    solution.structure = np.array([0, 1])
    result = evaluate(instance, solution)
    assert title_text(instance, solution.structure) == "the binary of search"
    # LCS "the binary search" = 3 tokens of 4 on both sides
    assert result["rouge_l"] == pytest.approx(0.75)
    assert result["k"] == 2


def test_all_decoders_are_registered() -> None:
    assert {"colour-coding", "ilp", "beam", "exhaustive"} <= set(known_decoders("titles"))
