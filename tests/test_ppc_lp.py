"""The grandparent LPs against enumeration of every tree, and parse, price and cut against the full LP."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.trees import all_trees
from decoders.ppc.lp import (
    POLYTOPES,
    DenseGrandparents,
    all_parts,
    audit,
    brute_force,
    integer_program,
    parse_price_cut,
    violated_cycles,
)


def _trees(n: int):
    return all_trees(n, projective=False, single_root=False)


def _tree_score(arc, gp, heads):
    n = len(heads) - 1
    total = float(arc[heads[1:], np.arange(1, n + 1)].sum())
    for c in range(1, n + 1):
        p = heads[c]
        if p > 0:
            total += gp[heads[p], p, c]
    return total


def _best_tree(arc, gp):
    n = arc.shape[0] - 1
    best, arg = -np.inf, None
    for heads in _trees(n):
        if np.isfinite(arc[heads[1:], np.arange(1, n + 1)]).all():
            value = _tree_score(arc, gp, heads)
            if value > best:
                best, arg = value, heads
    return best, arg


def _instance(rng, n, kind):
    arc = rng.normal(size=(n + 1, n + 1))
    gp = rng.normal(size=(n + 1,) * 3)
    if kind == "ties":
        arc, gp = np.round(arc), np.round(gp)
    elif kind == "forbidden":
        arc[rng.random((n + 1, n + 1)) < 0.35] = -np.inf
    elif kind == "rooted":  # the root may head one word only: the start parts (0, h, m) rarely fit a tree
        keep = rng.integers(1, n + 1)
        arc[0, np.arange(n + 1) != keep] = -np.inf
        arc[rng.random((n + 1, n + 1)) < 0.2] = -np.inf
    elif kind == "magnitudes":
        arc *= 1e6
        gp *= 1e-6
    np.fill_diagonal(arc, -np.inf)
    arc[:, 0] = -np.inf
    return arc, gp


KINDS = ("normal", "ties", "forbidden", "rooted", "magnitudes")
PRICING = (  # the paper's start and full pricing; the first-order tree's start; its parts only; partial pricing
    {},
    {"start": "mst"},
    {"start": "tree"},
    {"start": "mst", "columns_per_word": 1},
    {"start": "tree", "columns_per_word": 4},
    {"start": "root", "columns_per_word": 0.3},
    {
        "start": "tree",
        "columns_per_word": 4,
        "rows": "lean",
        "primal": True,
    },  # the lean rows, primal re-solves
    {"start": "tree", "columns_per_word": 2, "rows": "lean", "no_gp": False, "primal": True},
    {"rows": "lean", "tighten": False},
    {"primal": True},  # the paper's rows and cuts, re-solved by the primal simplex
)


@pytest.mark.parametrize("polytope", POLYTOPES)
@pytest.mark.parametrize("kind", KINDS)
def test_full_lp_bounds_every_tree_and_is_exact_when_integral(polytope, kind):
    rng = np.random.default_rng(POLYTOPES.index(polytope) * 10 + KINDS.index(kind))
    for n in (1, 2, 3, 4):
        for _ in range(6):
            arc, gp = _instance(rng, n, kind)
            best, tree = _best_tree(arc, gp)
            result = brute_force(arc, DenseGrandparents(gp), polytope=polytope)
            if tree is None:
                assert result.objective == -np.inf and result.optimal
                continue
            assert result.optimal, result.status
            tolerance = 1e-6 * (1 + abs(best))
            assert result.objective >= best - tolerance  # a relaxation
            assert result.bound >= result.objective - tolerance
            if result.integral:  # an integral optimum is the best tree, and the tree read off it scores it
                assert result.objective == pytest.approx(best, rel=1e-6, abs=1e-6)
                assert _tree_score(arc, gp, result.heads) == pytest.approx(best, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("polytope", POLYTOPES)
@pytest.mark.parametrize("kind", KINDS)
def test_the_lean_rows_give_the_papers_optimum(polytope, kind):
    """Leaving out implied rows (all) or rows that cannot bind given a score's sign (arcgp) keeps the LP optimum
    of the paper's rows, and the lean solution satisfies every one of the paper's rows."""
    rng = np.random.default_rng(500 + POLYTOPES.index(polytope) * 10 + KINDS.index(kind))
    for n in (2, 3, 5, 8, 12):
        for _ in range(3):
            arc, gp = _instance(rng, n, kind)
            if kind == "ties":
                gp[rng.random(gp.shape) < 0.3] = 0.0  # parts scoring exactly 0 keep every row
            paper = brute_force(arc, DenseGrandparents(gp), polytope=polytope, rows="paper")
            lean = brute_force(arc, DenseGrandparents(gp), polytope=polytope, rows="lean")
            assert lean.status == paper.status == "optimal"
            if paper.objective == -np.inf:
                assert lean.objective == -np.inf
                continue
            scale = 1.0 + np.abs(arc[np.isfinite(arc)]).sum() + np.abs(gp).sum()
            assert abs(lean.objective - paper.objective) <= 1e-9 * scale
            assert lean.bound >= paper.objective - 1e-9 * scale
            z, values = lean.arc_values, np.zeros_like(gp)
            values[tuple(lean.parts.T)] = lean.part_values
            g, p_, c = lean.parts.T
            slack = 1e-7
            if polytope != "onegp":  # ArcGP and GPArc, every part
                assert (z[g, p_] + z[p_, c] - values[g, p_, c] <= 1 + slack).all()
                assert (values[g, p_, c] <= np.minimum(z[g, p_], z[p_, c]) + slack).all()
            if polytope != "arcgp":  # OneGP and NoGP
                assert np.allclose(values.sum(axis=0)[1:, :], z[1:, :], atol=slack)
                assert (values.sum(axis=2) <= n * z + slack).all()
            assert lean.stats["max_violation"] <= 1e-6


def test_an_unknown_row_set_is_refused():
    arc, gp = _instance(np.random.default_rng(0), 3, "normal")
    with pytest.raises(ValueError, match="rows must be one of"):
        brute_force(arc, DenseGrandparents(gp), rows="minimal")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("options", PRICING, ids=str)
def test_parse_price_cut_reaches_the_full_lp_scoring_fewer_parts(kind, options):
    rng = np.random.default_rng(100 + KINDS.index(kind))
    fewer = 0
    for n in (1, 2, 3, 5, 8, 12):
        for _ in range(4):
            arc, gp = _instance(rng, n, kind)
            full = brute_force(arc, DenseGrandparents(gp))
            scorer = DenseGrandparents(gp)
            ppc = parse_price_cut(arc, scorer, **options)
            assert ppc.optimal == full.optimal
            if full.objective == -np.inf:
                assert ppc.objective == -np.inf
                continue
            assert ppc.objective == pytest.approx(full.objective, rel=1e-6, abs=1e-6)
            assert ppc.bound >= full.objective - 1e-6 * (1 + abs(full.objective))
            assert ppc.stats["parts_scored"] == scorer.scored <= full.stats["parts_scored"]
            assert ppc.stats["parts_added"] <= ppc.stats["parts_scored"] + ppc.stats["cuts"]
            phases = [
                ppc.stats[f"seconds_{phase}"] for phase in ("setup", "lp", "pricing", "scoring", "update")
            ]
            assert min(phases) >= 0.0 and ppc.stats["lp_solves"] >= 1
            fewer += ppc.stats["parts_scored"] < full.stats["parts_scored"]
    assert fewer > 0


def test_a_loose_bound_only_costs_scoring():
    """Bounds far above the scores make pricing score more parts, never change the optimum."""
    rng = np.random.default_rng(5)
    arc, gp = _instance(rng, 7, "normal")

    class Loose(DenseGrandparents):
        def child_bounds(self):
            return super().child_bounds() + 10.0

        def parent_bounds(self):
            return super().parent_bounds() + 10.0

    tight, loose = parse_price_cut(arc, DenseGrandparents(gp)), parse_price_cut(arc, Loose(gp))
    assert loose.objective == pytest.approx(tight.objective, rel=1e-9)
    assert loose.stats["parts_scored"] >= tight.stats["parts_scored"]


class Terms(DenseGrandparents):
    """Scores as a sum of dense terms, each bounded on its own (as the templates of the factored model), or,
    ``whole``, by the sums of those bounds (eq. 11 as written)."""

    def __init__(self, terms, whole=False):
        super().__init__(np.sum(terms, axis=0))
        self.terms, self.whole = np.asarray(terms), whole

    def child_bounds(self):
        bounds = self.terms.max(axis=1)
        return bounds.sum(axis=0) if self.whole else bounds

    def parent_bounds(self):
        bounds = self.terms.max(axis=3)
        return bounds.sum(axis=0) if self.whole else bounds


def test_bounds_per_term_reach_the_full_lp_scoring_no_more():
    """With each term's bounds, pricing bounds a part by the sum of the terms' minima: the same optimum, and
    (full pricing adds the same parts either way) never more parts scored than with the sums of those bounds."""
    rng = np.random.default_rng(300)
    fewer = 0
    for kind in KINDS:
        for n in (3, 5, 7):
            arc, gp = _instance(rng, n, kind)
            split = rng.dirichlet(np.ones(3), size=gp.shape).transpose(3, 0, 1, 2)
            terms = split * gp[None] + rng.normal(size=(3, *gp.shape)) * (kind != "ties")
            terms[0] += gp - terms.sum(axis=0)  # the terms add up to gp (up to rounding)
            scorer, whole = Terms(terms), Terms(terms, whole=True)
            full = brute_force(arc, DenseGrandparents(scorer.scores))
            by_term, by_sum = parse_price_cut(arc, scorer), parse_price_cut(arc, whole)
            assert by_term.optimal == by_sum.optimal == full.optimal
            if full.objective == -np.inf:
                continue
            assert by_term.objective == pytest.approx(full.objective, rel=1e-6, abs=1e-6)
            assert by_term.stats["parts_added"] == by_sum.stats["parts_added"]
            assert scorer.scored <= whole.scored
            fewer += scorer.scored < whole.scored
    assert fewer > 0


def test_bounds_of_mismatched_shapes_are_refused():
    rng = np.random.default_rng(6)
    arc, gp = _instance(rng, 3, "normal")

    class Mismatched(DenseGrandparents):
        def child_bounds(self):
            return np.stack([super().child_bounds()] * 2)

    with pytest.raises(ValueError, match="child and parent bounds have 2 and 1 terms"):
        parse_price_cut(arc, Mismatched(gp))


def test_all_parts_are_the_grandparent_triples():
    arc_id = np.full((4, 4), -1)
    for h, m in [(0, 1), (1, 2), (2, 3), (3, 2), (0, 3)]:
        arc_id[h, m] = 1
    assert all_parts(arc_id).tolist() == [[0, 1, 2], [0, 3, 2], [1, 2, 3]]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_bad_scores_are_refused(bad):
    arc = np.zeros((3, 3))
    arc[1, 2] = bad
    with pytest.raises(ValueError, match=r"arc\[1, 2\]"):
        brute_force(arc, DenseGrandparents(np.zeros((3, 3, 3))))
    gp = np.zeros((3, 3, 3))
    gp[0, 1, 2] = bad
    with pytest.raises(ValueError, match=r"grandparent score \[0, 1, 2\]"):
        DenseGrandparents(gp)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("options", PRICING, ids=str)
def test_the_audit_finds_nothing_missing_at_convergence_and_catches_a_missing_column(kind, options):
    rng = np.random.default_rng(200 + KINDS.index(kind))
    for n in (3, 6, 9):
        arc, gp = _instance(rng, n, kind)
        result = parse_price_cut(arc, DenseGrandparents(gp), **options)
        if result.objective == -np.inf:
            continue
        checked = audit(arc, DenseGrandparents(gp), result)
        # the solver's duals are exact to its tolerances, relative to the largest score (arc or part)
        tolerance = 1e-6 * (1 + max(np.abs(gp).max(), np.abs(arc[np.isfinite(arc)]).max()))
        assert checked["max_reduced_cost"] <= tolerance
        assert checked["max_arcgp_violation"] <= 1e-6
    # a part the pricing could not see (its bound lies below its score) is found by the audit
    arc, gp = _instance(np.random.default_rng(9), 6, "normal")

    class Blind(DenseGrandparents):
        def child_bounds(self):
            return np.full_like(super().child_bounds(), -1e9)

    blind = parse_price_cut(arc, Blind(gp))
    assert audit(arc, DenseGrandparents(gp), blind)["max_reduced_cost"] > 0


@pytest.mark.parametrize("scale", [1e-9, 1e12])
def test_no_optimal_claim_below_the_best_tree_at_any_magnitude(scale):
    """HiGHS's tolerances are absolute: with every score near 1e-9 an unscaled solve stopped far from the LP
    optimum and a 1e-6 absolute gap called it optimal. An optimal LP value is never below the best tree."""
    rng = np.random.default_rng(3)
    certified = 0
    for _ in range(15):
        arc, gp = _instance(rng, 4, "normal")
        arc, gp = arc * scale, gp * scale
        best, _ = _best_tree(arc, gp)
        for result in (brute_force(arc, DenseGrandparents(gp)), parse_price_cut(arc, DenseGrandparents(gp))):
            certified += result.optimal
            if result.optimal:
                assert result.objective >= best - 1e-6 * abs(best)
    assert certified > 0


@pytest.mark.parametrize("kind", KINDS)
def test_the_integer_program_finds_the_best_tree(kind):
    """Against enumeration, fractional LPs included (5-word sentences with strong grandparent scores give some)."""
    rng = np.random.default_rng(40 + KINDS.index(kind))
    solved = 0
    for n in (1, 2, 3, 4, 5):
        for _ in range(8):
            arc, gp = _instance(rng, n, kind)
            gp *= 3.0
            best, _ = _best_tree(arc, gp)
            result = integer_program(arc, DenseGrandparents(gp))
            solved += result.stats["ilp_solved"]
            if not np.isfinite(best):
                assert result.objective == -np.inf
                continue
            assert result.status == "optimal"
            assert result.objective == pytest.approx(
                best, rel=1e-9, abs=1e-9 * np.abs(arc[np.isfinite(arc)]).max()
            )
            assert _tree_score(arc, gp, result.heads) == pytest.approx(result.objective, rel=1e-12, abs=1e-12)
            assert result.bound >= result.objective
    if kind != "magnitudes":  # (there, grandparent scores are too small to make an LP fractional)
        assert solved > 0  # some LP was fractional, so the MIP itself was checked


@pytest.mark.parametrize(
    "bad",
    [{"start": "leaf"}, {"columns_per_word": 0}, {"columns_per_word": float("nan")}, {"rows": "minimal"}],
)
def test_bad_pricing_options_are_refused(bad):
    arc, gp = _instance(np.random.default_rng(0), 3, "normal")
    with pytest.raises(ValueError, match=next(iter(bad))):
        parse_price_cut(arc, DenseGrandparents(gp), **bad)


@pytest.fixture
def loose_tolerances(monkeypatch):
    """Every LP model solves at feasibility tolerances of 1e-3 until refined."""
    from decoders.ppc import lp

    build = lp._Model.__init__

    def loose(self, *args, **kwargs):
        build(self, *args, **kwargs)
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            self.highs.setOptionValue(option, 1e-3)

    monkeypatch.setattr(lp._Model, "__init__", loose)


def test_a_certificate_that_does_not_close_at_the_solver_tolerances_is_refined(loose_tolerances):
    """BF solved at loose feasibility tolerances (1e-3, as summed reduced costs over a million columns act at
    HiGHS's defaults) leaves certified bounds above the objective: BF re-solves at 1e-10 and certifies them."""
    rng = np.random.default_rng(0)
    refined = 0
    for _ in range(12):
        arc, gp = _instance(rng, int(rng.integers(4, 10)), "normal")
        best, _ = _best_tree(arc, gp) if arc.shape[0] <= 6 else (-np.inf, None)
        for polytope in POLYTOPES:
            result = brute_force(arc, DenseGrandparents(gp), polytope=polytope)
            assert result.optimal and result.status == "optimal"
            assert result.objective >= best - 1e-6 * (1 + abs(best))
            refined += bool(result.stats.get("refined"))
    assert refined > 0


def test_parse_price_cut_refines_a_certificate_that_does_not_close(loose_tolerances):
    """Parse, price and cut at loose tolerances: when pricing finds nothing but the certified bound stays above
    the objective, one more round at HiGHS's tightest tolerances closes it (ours and the paper's)."""
    rng = np.random.default_rng(3)
    refined = 0
    for _ in range(10):
        arc, gp = _instance(rng, int(rng.integers(5, 10)), "normal")
        full = brute_force(arc, DenseGrandparents(gp))
        for options in (
            {},
            {"start": "tree", "columns_per_word": 4, "rows": "lean", "no_gp": False, "primal": True},
        ):
            result = parse_price_cut(arc, DenseGrandparents(gp), **options)
            assert result.status == "optimal"
            assert result.objective == pytest.approx(full.objective, rel=1e-6)
            refined += result.stats["refined"]
    assert refined > 0


def test_the_cut_step_finds_every_arc_pair_that_violates_arc_gp():
    """The separation of section 4.4 (pairs of arcs with a positive value) against its definition over every
    (g, p, c): both arcs on, together above 1, p a word, g != c, the part absent from the model and from the
    columns priced in the same round."""
    from decoders.ppc.lp import FEASIBILITY, INTEGRALITY, _Model, _violated_arc_gp

    rng = np.random.default_rng(77)
    for _ in range(200):
        n = int(rng.integers(1, 9))
        arc, _ = _instance(rng, n, "forbidden")
        model = _Model(arc, "all", 1.0)
        parts = all_parts(model.arc_id)
        present = parts[rng.random(len(parts)) < 0.3]
        model.add_parts(present, np.zeros(len(present)))
        x = np.zeros(len(model.cost))
        x[: model.arcs] = rng.choice([0.0, 1e-9, 0.3, 0.6, 1.0], model.arcs)
        new = parts[rng.random(len(parts)) < 0.2]
        side = n + 1
        z = model.arc_matrix(x)
        on = z > INTEGRALITY
        violated = on[:, :, None] & on[None, :, :] & (z[:, :, None] + z[None, :, :] > 1.0 + FEASIBILITY)
        violated[:, 0, :] = False
        violated &= ~model.present
        violated[np.arange(side), :, np.arange(side)] = False
        for g, p, c in new:
            violated[g, p, c] = False
        expected = sorted(map(tuple, np.argwhere(violated).tolist()))
        assert sorted(map(tuple, _violated_arc_gp(model, x, new).tolist())) == expected


def _worst_cycles(z: np.ndarray) -> dict[frozenset, float]:
    """Every set S of words (no root) with its cycle inequality's excess sum_{h, m in S} z_hm - (|S| - 1)."""
    n = z.shape[0] - 1
    out = {}
    for mask in range(1, 1 << n):
        words = [w + 1 for w in range(n) if mask >> w & 1]
        out[frozenset(words)] = float(z[np.ix_(words, words)].sum()) - (len(words) - 1)
    return out


def test_violated_cycles_finds_a_violated_set_for_every_word_in_one():
    rng = np.random.default_rng(7)
    for trial in range(300):
        n = int(rng.integers(1, 7))
        z = np.zeros((n + 1, n + 1))
        for m in range(1, n + 1):  # one head per word in total: one head, two halves, or random weights
            heads = rng.choice([h for h in range(n + 1) if h != m], size=min(n, 1 + trial % 3), replace=False)
            z[heads, m] = rng.random(len(heads)) if trial % 3 == 2 else 1.0
            z[:, m] /= z[:, m].sum()
        excess = _worst_cycles(z)
        found = violated_cycles(z)
        for words in found:  # every set returned is violated, and holds no root
            assert 0 not in words
            assert excess[frozenset(words.tolist())] > 1e-6 - 1e-12
        in_violated = {w for words, e in excess.items() if e > 1e-5 for w in words}
        assert in_violated <= {int(w) for words in found for w in words}


def test_violated_cycles_refuses_bad_arrays():
    for bad in (np.zeros((2, 3)), np.full((3, 3), np.nan), np.zeros(3)):
        with pytest.raises(ValueError, match="finite square"):
            violated_cycles(bad)


@pytest.mark.parametrize("kind", KINDS)
def test_cycle_cuts_leave_no_cycle_and_stay_between_the_best_tree_and_the_full_lp(kind):
    rng = np.random.default_rng(900 + KINDS.index(kind))
    for n in (2, 3, 4, 5):
        for _ in range(5):
            arc, gp = _instance(rng, n, kind)
            best, tree = _best_tree(arc, gp)
            full = brute_force(arc, DenseGrandparents(gp))
            cut = brute_force(arc, DenseGrandparents(gp), cycle_cuts=True)
            assert cut.optimal, cut.status
            if tree is None:
                assert cut.objective == -np.inf
                continue
            tolerance = 1e-6 * (1 + abs(best))
            assert best - tolerance <= cut.objective <= full.objective + tolerance
            assert cut.bound >= cut.objective - tolerance
            assert max(_worst_cycles(cut.arc_values).values()) <= 1e-6
            if cut.integral:
                assert cut.objective == pytest.approx(best, rel=1e-6, abs=1e-6)
            assert cut.stats["cycle_cuts"] >= 0 and "cycle_cuts" not in full.stats


@pytest.mark.parametrize("kind", KINDS)
def test_cycle_cuts_on_arcs_alone_give_the_best_arborescence(kind):
    """With every grandparent score 0, OneHead and every cycle inequality describe the arborescences' hull
    (Edmonds), so the LP optimum is the best first-order tree's score, whatever the flow rows allowed."""
    rng = np.random.default_rng(950 + KINDS.index(kind))
    for n in (2, 3, 4, 6, 8):
        for _ in range(4):
            arc, _ = _instance(rng, n, kind)
            gp = np.zeros((n + 1,) * 3)
            cut = brute_force(arc, DenseGrandparents(gp), cycle_cuts=True)
            best = _best_tree(arc, gp)[0] if n <= 6 else None
            if best is None:
                from decoders.parsing.mst import chu_liu_edmonds

                best = chu_liu_edmonds(arc)[1]
            assert cut.optimal, cut.status
            if best == -np.inf:
                assert cut.objective == -np.inf
                continue
            assert cut.objective == pytest.approx(best, rel=1e-6, abs=1e-6)


OURS = {"start": "tree", "columns_per_word": 4, "rows": "lean", "no_gp": False, "primal": True}
SCALES = (1e-12, 1e-9, 1e-6, 1e-3, 1e3, 1e6, 1e9, 1e12)


@pytest.mark.parametrize(
    "method",
    [
        lambda a, g: brute_force(a, DenseGrandparents(g)),
        lambda a, g: parse_price_cut(a, DenseGrandparents(g)),
        lambda a, g: parse_price_cut(a, DenseGrandparents(g), **OURS),
        lambda a, g: integer_program(a, DenseGrandparents(g), **OURS),
    ],
    ids=["full-lp", "ppc-paper", "ppc", "ilp"],
)
def test_the_answer_does_not_depend_on_the_units_of_the_scores(method):
    """Every score times any constant from 1e-12 to 1e12: the same status and tree, the objective times the
    constant (pricing's tolerance is relative: an absolute one stopped PPC early below 1e-8)."""
    rng = np.random.default_rng(41)
    for trial in range(12):
        arc, gp = _instance(rng, int(rng.integers(2, 6)), KINDS[trial % len(KINDS)])
        reference = method(arc, gp)
        assert reference.optimal
        for scale in SCALES:
            result = method(arc * scale, gp * scale)
            assert result.status == reference.status, (trial, scale)
            if reference.objective == -np.inf:
                assert result.objective == -np.inf
                continue
            assert result.objective / scale == pytest.approx(reference.objective, rel=1e-6, abs=1e-9)
            if reference.integral:
                assert np.array_equal(result.heads, reference.heads), (trial, scale)


@pytest.mark.parametrize("polytope", POLYTOPES)
@pytest.mark.parametrize("arc_unit, gp_unit", [(1e-6, 1e6), (1e6, 1e-6), (1e-12, 1.0), (1.0, 1e-12)])
def test_mixed_magnitudes_certify_or_say_why_not(polytope, arc_unit, gp_unit):
    """Arc and grandparent scores 1e12 apart: an optimal answer is never below the best tree (the ILP's is the
    best tree); an answer not certified says that the solver's precision is why (``precision_limited``)."""
    rng = np.random.default_rng(61)
    for trial in range(10):
        arc, gp = _instance(rng, int(rng.integers(2, 6)), KINDS[trial % 4])
        arc, gp = arc * arc_unit, gp * gp_unit
        best, _ = _best_tree(arc, gp)
        results = [brute_force(arc, DenseGrandparents(gp), polytope=polytope)]
        if polytope == "all":
            results += [
                parse_price_cut(arc, DenseGrandparents(gp), **OURS),
                integer_program(arc, DenseGrandparents(gp), **OURS),
            ]
        for i, result in enumerate(results):
            if not result.optimal:
                assert result.status == "feasible" and result.stats["precision_limited"]
                continue
            if best > -np.inf:
                assert result.objective >= best - 1e-6 * abs(best)
                if i == 2:
                    assert result.objective == pytest.approx(best, rel=1e-6)
