"""Branch and bound against brute force over every projective tree of short random sentences."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from decoders.bnb import search
from decoders.bnb.search import Backbone, Factors, branch_and_bound, project_rows_to_simplex
from decoders.parsing.trees import all_trees, is_projective, tree_error


def _random_factors(rng, n, count, width=3, magnitude=5):
    """Random factors over arcs of the complete graph: sizes 2..width, integer scores of both signs."""
    arcs = [(h, m) for h in range(n + 1) for m in range(1, n + 1) if h != m]
    heads = np.zeros((count, width), dtype=np.int64)
    mods = np.zeros((count, width), dtype=np.int64)
    size = np.minimum(rng.integers(2, width + 1, size=count), len(arcs))
    for c in range(count):
        chosen = rng.choice(len(arcs), size=size[c], replace=False)
        for j, a in enumerate(chosen):
            heads[c, j], mods[c, j] = arcs[a]
    score = rng.integers(-magnitude, magnitude + 1, size=count).astype(float)
    return Factors(heads, mods, size, score)


def _tree_factors(rng, n, count):
    """Factors that real trees fire: grandchild chains g->h->m and sibling pairs h->a, h->b."""
    rows = []
    for _ in range(count):
        h, a, b = rng.choice(n + 1, size=3, replace=False)
        if rng.random() < 0.5 and a != 0 and b != 0:
            rows.append([(h, a), (a, b)])  # grandchild
        elif a != 0 and b != 0:
            rows.append([(h, a), (h, b)])  # sibling
    width = 2
    heads = np.array([[arc[0] for arc in row] for row in rows], dtype=np.int64).reshape(-1, width)
    mods = np.array([[arc[1] for arc in row] for row in rows], dtype=np.int64).reshape(-1, width)
    score = rng.integers(-6, 7, size=len(rows)).astype(float)
    return Factors(heads, mods, np.full(len(rows), width), score)


def _backbone(rng, n, second, forbid):
    arc = rng.integers(-5, 6, size=(n + 1, n + 1)).astype(float)
    arc[rng.random(arc.shape) < forbid] = -np.inf
    if not second:
        return Backbone(arc)
    parts = [rng.integers(-3, 4, size=(n + 1,) * 3).astype(float) for _ in range(3)]
    return Backbone(arc, *parts)


@functools.cache
def _trees(n):
    return list(all_trees(n))


def _brute(backbone, factors, n):
    best = -np.inf
    for heads in _trees(n):
        best = max(best, backbone.score(heads) + factors.total(heads))
    return best


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize(("step_rule", "fixing"), [("normalized", True), ("paper", False), ("paper", True)])
def test_branch_and_bound_certifies_the_brute_force_optimum(seed, step_rule, fixing):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2 if seed % 4 >= 2 else 1, 7))
    backbone = _backbone(rng, n, second=seed % 2 == 0, forbid=0.25 if seed % 3 == 0 else 0.0)
    factors = _random_factors(rng, n, 12) if seed % 4 < 2 else _tree_factors(rng, n, 15)
    result = branch_and_bound(backbone, factors, grid=1.0, step_rule=step_rule, fixing=fixing)
    best = _brute(backbone, factors, n)
    assert result.optimal
    if best == -np.inf:
        assert result.objective == -np.inf
        return
    assert result.objective == best and result.bound >= best
    assert tree_error(result.heads) is None and is_projective(result.heads)
    assert backbone.score(result.heads) + factors.total(result.heads) == best
    assert result.stats["dp_calls"] >= 1


def test_without_factors_the_backbone_optimum_is_certified_at_the_root():
    rng = np.random.default_rng(3)
    backbone = _backbone(rng, 8, second=True, forbid=0.0)
    result = branch_and_bound(backbone, Factors.empty(), grid=1.0)
    assert result.optimal and result.stats["nodes"] == 1
    assert result.objective == backbone.solve(backbone.arc)[1]


def test_a_node_limit_gives_a_valid_uncertified_bound():
    rng = np.random.default_rng(8)
    n = 6
    backbone = _backbone(rng, n, second=False, forbid=0.0)
    factors = _random_factors(rng, n, 40, magnitude=20)
    result = branch_and_bound(backbone, factors, grid=1.0, max_nodes=1, max_iterations=2)
    best = _brute(backbone, factors, n)
    assert result.bound >= best >= result.objective
    if not result.optimal:
        assert result.bound > result.objective
    assert result.stats["time_limit_stop"] == 0  # the node limit is not the deadline


def test_a_deadline_gives_a_valid_bound_and_says_so():
    rng = np.random.default_rng(8)
    n = 6
    backbone = _backbone(rng, n, second=False, forbid=0.0)
    factors = _random_factors(rng, n, 40, magnitude=20)
    result = branch_and_bound(backbone, factors, grid=1.0, max_iterations=2, deadline=0.0)  # long past
    best = _brute(backbone, factors, n)
    assert result.bound >= best >= result.objective
    assert not result.optimal and result.stats["time_limit_stop"] == 1
    ample = branch_and_bound(backbone, factors, grid=1.0, max_iterations=2)
    assert ample.optimal and ample.stats["time_limit_stop"] == 0


def test_simplex_projection_against_a_direct_minimisation():
    rng = np.random.default_rng(0)
    values = rng.normal(scale=2, size=(50, 4))
    size = rng.integers(1, 5, size=50)
    projected = project_rows_to_simplex(values, size)
    for row, r, got in zip(values, size, projected, strict=True):
        assert np.all(got[r:] == 0) and got[:r].sum() == pytest.approx(1.0) and np.all(got >= 0)
        # no point of a fine grid on the simplex is closer to the row
        distance = np.sum((got[:r] - row[:r]) ** 2)
        for point in itertools.product(np.linspace(0, 1, 11), repeat=r - 1):
            if sum(point) <= 1 + 1e-12:
                candidate = np.array([*point, 1 - sum(point)])
                assert distance <= np.sum((candidate - row[:r]) ** 2) + 1e-12


def test_branching_is_exercised_and_still_exact():
    """Factors that dominate the backbone: the root bound is not tight, the search has to branch."""
    branched = fixed_out = 0
    for seed in range(40):
        rng = np.random.default_rng(500 + seed)
        n = int(rng.integers(4, 7))
        backbone = _backbone(rng, n, second=seed % 2 == 0, forbid=0.0)
        factors = _random_factors(rng, n, 40, magnitude=20) if seed % 2 else _tree_factors(rng, n, 40)
        result = branch_and_bound(backbone, factors, grid=1.0, max_iterations=5)
        assert result.optimal and result.objective == _brute(backbone, factors, n)
        branched += result.stats["nodes"] > 1
        fixed_out += result.stats["arcs_fixed_out"]
    assert branched >= 10, branched
    assert fixed_out > 0  # reduced-cost fixing took part


@pytest.mark.parametrize("step_rule", ["paper", "normalized"])
def test_the_step_follows_rush_et_al_from_the_rules_initial_step(monkeypatch, step_rule):
    """Section 4.4: the step starts at max_c 1 / |phi_c| ("paper"; 1 for the normalised subgradient) and follows
    Rush et al. (2010): alpha_0 / (1 + t), t the number of times the bound got worse."""
    kernel, seen = search._subgradient, []

    def spy(*args):
        calls = kernel(*args)
        state = args[13]
        seen.append((state[search._STEP], state[search._INITIAL], state[search._INCREASES]))
        return calls

    monkeypatch.setattr(search, "_subgradient", spy)
    for seed in range(60):  # seeds 24 (paper) and 40 (normalized) make the bound worse more than twice
        rng = np.random.default_rng(seed)
        backbone, drawn = _backbone(rng, 7, second=True, forbid=0.0), _random_factors(rng, 7, 20)
        factors = Factors(drawn.heads, drawn.mods, drawn.size, drawn.score * 0.37)
        seen.clear()
        branch_and_bound(backbone, factors, step_rule=step_rule, fixing=False, max_iterations=100)
        nonzero = np.abs(factors.score[factors.score != 0])
        initial = 1.0 / nonzero.min() if step_rule == "paper" else 1.0
        for step, first, increases in seen:
            assert first == pytest.approx(initial, rel=1e-12)
            assert step == pytest.approx(first / (1.0 + increases), rel=1e-12)
        if any(increases >= 2 for _, _, increases in seen):
            return
    pytest.fail("no instance made the bound worse twice: the schedule was not exercised")


def test_an_unknown_step_rule_is_refused():
    with pytest.raises(ValueError, match="step_rule"):
        branch_and_bound(Backbone(np.zeros((3, 3))), Factors.empty(), step_rule="fast")


@pytest.mark.parametrize("seed", range(40))
def test_the_cp_sat_audit_finds_the_brute_force_optimum(seed):
    """The audit's integer program (decoders.bnb.audit), which shares no code with B&B, against enumeration:
    second-order parts of both signs with ties, forbidden arcs, random and tree-shaped factors."""
    from decoders.bnb.audit import solve_exact

    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 7))
    backbone = _backbone(rng, n, second=True, forbid=0.3 if seed % 3 == 0 else 0.0)
    factors = _random_factors(rng, n, 10) if seed % 2 else _tree_factors(rng, n, 12)
    result = solve_exact(backbone, factors, time_limit=60)
    best = _brute(backbone, factors, n)
    if best == -np.inf:
        assert result.status == "infeasible" and result.heads is None
        return
    assert result.status == "optimal" and result.objective == best == result.bound
    assert tree_error(result.heads) is None and is_projective(result.heads)
    assert backbone.score(result.heads) + factors.total(result.heads) == best


def test_the_audit_refuses_scores_it_cannot_represent():
    from decoders.bnb.audit import solve_exact

    rng = np.random.default_rng(0)
    backbone = _backbone(rng, 3, second=True, forbid=0.0)
    backbone.sib[1, 2, 1] = 0.5
    with pytest.raises(ValueError, match="integer scores"):
        solve_exact(backbone, Factors.empty(), time_limit=5)
    backbone.sib[1, 2, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        solve_exact(backbone, Factors.empty(), time_limit=5)
    with pytest.raises(ValueError, match="second-order"):
        solve_exact(Backbone(backbone.arc), Factors.empty(), time_limit=5)


@pytest.mark.parametrize("seed", range(1, 21, 2))
def test_tight_search_limits_still_give_a_valid_bound(seed):
    """Training's limits (one node, one subgradient step) stop the search early: the answer is a tree, its
    bound is still valid, and it is marked optimal only if it is (a +inf bound used to crash the grid rounding)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    backbone = _backbone(rng, n, second=True, forbid=0.0)
    factors = _random_factors(rng, n, 25)
    best = _brute(backbone, factors, n)
    for nodes, iterations in ((1, 1), (2, 1), (2, 3), (3, 2), (5, 1)):
        result = branch_and_bound(backbone, factors, grid=1.0, max_nodes=nodes, max_iterations=iterations)
        assert tree_error(result.heads) is None and result.bound >= best >= result.objective
        assert not result.optimal or result.objective == best


@pytest.mark.parametrize("seed", range(12))
def test_a_memory_budget_stops_the_search_with_a_valid_bound(seed):
    """A budget too small for any level after the root stops a search that needs to branch: a tree, a valid
    bound, ``memory_stop`` in the stats, never a false certificate; without a budget, or with an ample one,
    the same search runs to the brute-force optimum (children share their parent's arrays until bounded, so
    nothing a child does can change its sibling's start)."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(4, 8))
    backbone = _backbone(rng, n, second=seed % 2 == 0, forbid=0.0)
    factors = _random_factors(rng, n, 40, magnitude=30)
    best = _brute(backbone, factors, n)
    full = branch_and_bound(backbone, factors, grid=1.0, max_iterations=2, max_open_bytes=None)
    ample = branch_and_bound(backbone, factors, grid=1.0, max_iterations=2, max_open_bytes=1 << 30)
    assert full.optimal and full.objective == best and full.stats["memory_stop"] == 0
    assert np.array_equal(ample.heads, full.heads) and ample.stats == full.stats
    tight = branch_and_bound(backbone, factors, grid=1.0, max_iterations=2, max_open_bytes=1)
    assert tree_error(tight.heads) is None and tight.bound >= best >= tight.objective
    assert backbone.score(tight.heads) + factors.total(tight.heads) == tight.objective
    if full.stats["nodes"] > 1:  # the search had to branch: the budget stopped it at the root
        assert tight.stats["memory_stop"] == 1 and tight.stats["nodes"] == 1
        assert not tight.optimal or tight.objective == best
    else:
        assert tight.optimal and tight.stats["memory_stop"] == 0


@pytest.mark.parametrize("seed", range(40))
def test_an_incumbent_tree_prunes_without_changing_the_optimum(seed):
    """Training's search (gold as incumbent): a finished search returns a brute-force optimum (the incumbent or
    a tree scoring as much when the incumbent is one); a search stopped at one node returns the incumbent or a
    tree scoring at least as much, with its exact score."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    backbone = _backbone(rng, n, second=seed % 2 == 0, forbid=0.0)
    factors = _random_factors(rng, n, 12) if seed % 4 < 2 else _tree_factors(rng, n, 15)
    trees = _trees(n)
    values = [backbone.score(heads) + factors.total(heads) for heads in trees]
    # the best tree as incumbent on even seeds, a random one on odd seeds
    incumbent = trees[int(np.argmax(values))] if seed % 2 == 0 else trees[int(rng.integers(len(trees)))]
    start = backbone.score(incumbent) + factors.total(incumbent)
    for result in (
        branch_and_bound(backbone, factors, grid=1.0, incumbent=incumbent),
        branch_and_bound(backbone, factors, grid=None, incumbent=incumbent),
    ):
        assert result.optimal and result.objective == max(values) and result.bound >= max(values)
        assert backbone.score(result.heads) + factors.total(result.heads) == max(values)
    stopped = branch_and_bound(
        backbone, factors, grid=1.0, incumbent=incumbent, max_nodes=1, max_iterations=1
    )
    assert stopped.objective >= start and stopped.bound >= max(values)
    assert backbone.score(stopped.heads) + factors.total(stopped.heads) == stopped.objective


def test_a_tree_that_ties_with_the_incumbent_replaces_it():
    """At zero scores every tree ties: the search returns the first tree it meets, not the incumbent, so that
    a perceptron starting from zero weights still updates."""
    backbone = Backbone(np.zeros((5, 5)), *(np.zeros((5, 5, 5)) for _ in range(3)))
    incumbent = np.array([-1, 2, 0, 2, 3])  # not the tree the DP breaks ties to (0 -> 1 -> 2 -> 3 -> 4)
    result = branch_and_bound(backbone, Factors.empty(), grid=1.0, incumbent=incumbent)
    assert result.optimal and result.objective == 0.0
    assert not np.array_equal(result.heads, incumbent) and tree_error(result.heads) is None


@pytest.mark.parametrize(
    ("n", "incumbent"),
    [
        (3, [-1, 0, 0, 1]),  # two roots
        (3, [-1, 2, 0, 1, 1]),  # another sentence's length
        (3, [-1, 2, 3, 1]),  # a cycle
        (4, [-1, 3, 0, 2, 1]),  # arcs 0 -> 2 and 3 -> 1 cross
        (3, [-1, 0, 1, 7]),  # a head outside the sentence
    ],
)
def test_an_incumbent_that_is_no_projective_tree_of_the_sentence_is_refused(n, incumbent):
    rng = np.random.default_rng(0)
    backbone = _backbone(rng, n, second=True, forbid=0.0)
    with pytest.raises(ValueError, match="incumbent"):
        branch_and_bound(backbone, Factors.empty(), grid=1.0, incumbent=incumbent)
