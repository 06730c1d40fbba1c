"""Column generation for chains (decoders.chains.colgen): exactness, certified bounds, CG-DG and the 0/1 oracle.

Run as a script (``python tests/test_chains_colgen.py``) to benchmark CG against Viterbi on synthetic chains
that mimic a trained tagger (see :func:`peaked_chain`); the benchmark is not a test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from decoders.chains.colgen import (
    _T_FLOOR,
    _T_HI_MAX,
    _T_SLACK,
    _T_TAU_ABS,
    _T_TAU_SCALE,
    _T_TAU_T,
    EQ8,
    EQ9,
    EQ12,
    PHASES,
    _cg_kernel,
    _cg_labels,
    _cg_packed,
    _cg_profile,
    _transition_tables,
    cg_two_best,
    column_generation,
)
from decoders.chains.instance import ChainInstance, ChainScores, brute_force, sequence_score
from decoders.chains.viterbi import _viterbi, viterbi
from decoders.errors import ConfigError

VARIANTS = (EQ12, EQ8, EQ9)
TOL = 1e-9


def peaked_chain(
    rng: np.random.Generator,
    n: int,
    n_labels: int,
    *,
    margin: float = 6.0,
    noise: float = 1.0,
    ambiguity: float = 0.15,
    tau_scale: float = 0.5,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores shaped like a trained tagger's: each token's (hidden) gold label leads its noisy emission scores by
    ``margin``, an ``ambiguity`` share of tokens has a rival label nearly as strong, transitions are small.
    Returns ``(theta, tau)``."""
    theta = rng.normal(0.0, noise, (n, n_labels))
    rows = np.arange(n)
    theta[rows, rng.integers(n_labels, size=n)] += margin
    rival = rows[rng.random(n) < ambiguity]
    theta[rival, rng.integers(n_labels, size=rival.size)] += margin + rng.normal(0.0, 0.5, rival.size)
    return theta, rng.normal(0.0, tau_scale, (n_labels, n_labels))


def small_chains():
    """Hypothesis strategy: (theta, tau) with L <= 5 labels, n <= 6 tokens (brute force stays cheap)."""
    values = st.floats(-4.0, 4.0, allow_nan=False, allow_infinity=False, width=64)

    @st.composite
    def build(draw):
        n_labels = draw(st.integers(1, 5))
        n = draw(st.integers(1, 6))
        theta = draw(arrays(np.float64, (n, n_labels), elements=values))
        tau = draw(arrays(np.float64, (n_labels, n_labels), elements=values))
        return theta, tau

    return build()


def check_stats(result, n: int, n_labels: int, reduced_cost: int) -> None:
    """Statistics that every run must satisfy."""
    assert result.iterations >= 1
    assert result.oracle_calls == result.oracle_candidates.shape[0]
    assert result.oracle_calls >= n - 1  # the first round prices every edge
    assert result.oracle_calls <= result.iterations * (n - 1)
    assert np.all(result.oracle_candidates >= 0)
    assert result.domain_sizes.shape == (n,)
    assert np.all(result.domain_sizes >= 1) and np.all(result.domain_sizes <= n_labels)
    first_round = 2 * n if reduced_cost == EQ12 else n  # the first round computes every message vector
    assert result.messages_recomputed >= first_round


# --------------------------------------------------------------------------- exactness


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_chains(), st.sampled_from(VARIANTS), st.booleans())
def test_exact_against_brute_force(chain, reduced_cost, prune):
    theta, tau = chain
    optimum = brute_force(theta, tau, 1)[0][0]
    result = column_generation(theta, tau, reduced_cost=reduced_cost, prune=prune)
    assert result.converged
    assert result.score == pytest.approx(optimum, abs=TOL)
    assert sequence_score(theta, tau, result.labels) == pytest.approx(result.score, abs=TOL)
    assert result.bound == result.score
    check_stats(result, *theta.shape, reduced_cost)


@pytest.mark.parametrize("reduced_cost", VARIANTS)
@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("kind", ["uniform", "peaked", "harsh"])
def test_exact_against_viterbi(reduced_cost, prune, kind):
    rng = np.random.default_rng([reduced_cost, int(prune), len(kind)])
    for _ in range(4):
        if kind == "uniform":
            theta, tau = rng.normal(size=(30, 45)), rng.normal(size=(45, 45))
        elif kind == "peaked":
            theta, tau = peaked_chain(rng, 30, 45)
        else:
            theta, tau = peaked_chain(rng, 30, 45, margin=3.0, ambiguity=0.3, tau_scale=1.0)
        labels, score = viterbi(theta, tau)
        result = column_generation(theta, tau, reduced_cost=reduced_cost, prune=prune)
        np.testing.assert_array_equal(result.labels, labels)
        assert result.score == pytest.approx(score, abs=TOL)
        check_stats(result, 30, 45, reduced_cost)


def test_exact_at_343_labels_and_lean_entry_point():
    rng = np.random.default_rng(343)
    for _ in range(3):
        theta, tau = peaked_chain(rng, 25, 343, tau_scale=0.3)
        labels, score = viterbi(theta, tau)
        result = column_generation(theta, tau)
        np.testing.assert_array_equal(result.labels, labels)
        lean_labels, lean_score = _cg_labels(theta, tau, _transition_tables(tau), EQ12, 0.0, True)
        np.testing.assert_array_equal(lean_labels, labels)
        assert lean_score == result.score
        assert (
            np.mean(result.domain_sizes == 1) > 0.5
        )  # the point of the method: most domains stay singletons


@pytest.mark.parametrize("reduced_cost", VARIANTS)
def test_the_last_label_can_change(reduced_cost):
    """The optimum differs from the local argmax only at the last token: no edge of eq. 8 has positive reduced
    cost there (the forward message absorbs the transition), only the phantom end edge does."""
    theta = np.array([[1.0, 0.0], [1.0, 0.9]])
    tau = np.array([[0.0, 5.0], [0.0, 0.0]])
    result = column_generation(theta, tau, reduced_cost=reduced_cost)
    np.testing.assert_array_equal(result.labels, [0, 1])
    assert result.score == pytest.approx(6.9)
    assert result.iterations == 2


def test_single_token_and_single_label():
    theta = np.array([[0.5, 2.0, 2.0, -1.0]])
    result = column_generation(theta, np.zeros((4, 4)))
    assert result.labels.tolist() == [1] and result.score == 2.0 and result.iterations == 1
    assert result.oracle_calls == 0
    theta = np.array([[0.3], [-0.2], [1.0]])
    tau = np.array([[0.7]])
    result = column_generation(theta, tau)
    assert result.labels.tolist() == [0, 0, 0] and result.score == pytest.approx(2.5)


def test_warm_start_skips_unchanged_edges():
    """Section 4.2/4.3: after the first round only edges whose messages changed are priced again, and only the
    message vectors that can have changed are recomputed."""
    rng = np.random.default_rng(7)
    multi = 0
    for _ in range(40):
        theta, tau = peaked_chain(rng, 30, 45)
        result = column_generation(theta, tau)
        if result.iterations > 1:
            multi += 1
            assert result.oracle_calls < result.iterations * 29
            assert result.messages_recomputed < result.iterations * 2 * 30
    assert multi >= 5


def test_seed_skips_a_label_eq14_rules_out():
    """The first token's argmax (label 0) has transitions so bad that eq. 14 drops it; seeding with the best kept
    label instead makes the first restricted LP optimal at once."""
    theta = np.array([[1.0, 0.9], [0.0, 0.5]])
    tau = np.array([[-10.0, -10.0], [0.0, 0.0]])
    result = column_generation(theta, tau)
    np.testing.assert_array_equal(result.labels, [1, 1])
    assert result.score == pytest.approx(1.4)
    assert result.iterations == 1 and result.domain_sizes.tolist() == [1, 1]
    unpruned = column_generation(theta, tau, prune=False)  # seeds the argmax: one more round
    np.testing.assert_array_equal(unpruned.labels, [1, 1])
    assert unpruned.iterations == 2


# --------------------------------------------------------------------------- entry points


def test_transition_tables_layout_and_cache():
    rng = np.random.default_rng(4)
    tau = rng.normal(size=(6, 6))
    scores = ChainScores(tau, tuple("abcdef"))
    tables = _transition_tables(tau)
    assert tables.shape == (_T_TAU_T + 2 * 6, 6)
    expected = [
        np.zeros(6),
        tau.min(axis=1),
        tau.max(axis=1),
        tau.min(axis=0),
        tau.max(axis=0),
        tau.min(axis=0) + tau.min(axis=1),
        tau.max(axis=0) + tau.max(axis=1),
        np.abs(tau).max(axis=1),
        np.abs(tau).max(axis=0),
    ]
    np.testing.assert_array_equal(tables[:9], np.array(expected))
    scale = (
        np.abs(tau.min(axis=0)) + np.abs(tau.max(axis=0)) + np.abs(tau.min(axis=1)) + np.abs(tau.max(axis=1))
    )
    assert tables[_T_SLACK, 0] == pytest.approx(scale.max(), rel=1e-15)
    assert tables[_T_FLOOR, 0] == -np.inf  # nothing forbidden: no floor
    assert tables[_T_TAU_ABS, 0] == np.abs(tau).max()
    assert tables[_T_TAU_SCALE, 0] == max(np.abs(tau.max(axis=0)).max(), np.abs(tau.max(axis=1)).max())
    hi_max = [0.0, tau.max(axis=1).max(), tau.max(axis=0).max(), (tau.max(axis=0) + tau.max(axis=1)).max()]
    np.testing.assert_array_equal(tables[_T_HI_MAX : _T_HI_MAX + 4, 0], hi_max)
    np.testing.assert_array_equal(tables[_T_TAU_T : _T_TAU_T + 6], tau.T)
    np.testing.assert_array_equal(tables[_T_TAU_T + 6 :], tau)
    assert scores.cg_tables is scores.cg_tables  # computed once per model
    np.testing.assert_array_equal(scores.cg_tables, tables)


def test_transition_tables_raise_forbidden_transitions_to_a_finite_floor():
    tau = np.array([[0.5, -np.inf], [-2.0, 1.0]])
    tables = _transition_tables(tau)
    floor = -2.0 - 1e3 * (1.0 + 3.0)
    assert tables[_T_FLOOR, 0] == floor
    np.testing.assert_array_equal(tables[_T_TAU_T + 2 :], [[0.5, floor], [-2.0, 1.0]])
    np.testing.assert_array_equal(tables[1], [floor, -2.0])  # out_min of the stand-in
    assert tables[_T_TAU_ABS, 0] == -floor
    assert tables[_T_TAU_SCALE, 0] == 1.0  # the floor never sets the scale of eps
    assert np.isfinite(tables).all()


def test_transition_tables_of_one_label_hold_every_scalar_in_its_own_row():
    # one label: each scalar has a row of its own, so that none overwrites tau' (a single column holds them all)
    tau = np.array([[-3.0]])
    tables = _transition_tables(tau)
    assert tables.shape == (_T_TAU_T + 2, 1)
    np.testing.assert_array_equal(tables[_T_TAU_T:, 0], [-3.0, -3.0])
    assert tables[_T_FLOOR, 0] == -np.inf and tables[_T_TAU_ABS, 0] == 3.0
    for reduced_cost in VARIANTS:
        result = column_generation(np.array([[1.0], [2.0], [0.5]]), tau, reduced_cost=reduced_cost)
        assert result.labels.tolist() == [0, 0, 0] and result.converged and not result.fallback
        assert result.score == result.bound == 1.0 - 3.0 + 2.0 - 3.0 + 0.5


@pytest.mark.parametrize("reduced_cost", VARIANTS)
def test_profile_decodes_as_cg_does_and_counts_every_phase(reduced_cost):
    """The profiled kernel returns the lean kernel's answer and counts rounds and tokens; the cg-profile decoder
    returns cg's solution with the mean cycles of every phase, by name."""
    from decoders.chains.decoders import decode_cg, decode_cg_profile

    rng = np.random.default_rng(12)
    name = {EQ12: "eq12", EQ8: "eq8", EQ9: "eq9"}[reduced_cost]
    theta, tau = peaked_chain(rng, 20, 45, margin=1.0, ambiguity=0.6, tau_scale=1.0)
    tables = _transition_tables(tau)
    counters = np.zeros(len(PHASES) + 2, dtype=np.int64)
    labels, score = _cg_profile(counters, theta, tau, tables, reduced_cost, 0.0)
    lean_labels, lean_score = _cg_labels(theta, tau, tables, reduced_cost, 0.0, True)
    np.testing.assert_array_equal(labels, lean_labels)
    assert score == lean_score
    assert counters[len(PHASES)] == column_generation(theta, tau, reduced_cost=reduced_cost).iterations
    assert counters[len(PHASES) + 1] == 20 and (counters >= 0).all()
    instance = ChainInstance(theta, ChainScores(tau, tuple(str(label) for label in range(45))))
    profiled = decode_cg_profile(instance, reduced_cost=name, decodes=3)
    plain = decode_cg(instance, reduced_cost=name)
    np.testing.assert_array_equal(profiled.structure, plain.structure)
    assert (profiled.objective, profiled.bound, profiled.status) == (
        plain.objective,
        plain.bound,
        plain.status,
    )
    pairs = profiled.stats["phase_cycles"]
    assert [phase for phase, _ in pairs] == list(PHASES) and profiled.stats["profiled_decodes"] == 3
    cycles = dict(pairs)
    assert cycles["setup (eq. 14)"] > 0 and cycles["reduced-cost oracle"] > 0
    for bad in (0, 1.5, True, 10**7):
        with pytest.raises(ConfigError, match="decodes"):
            decode_cg_profile(instance, decodes=bad)


@pytest.mark.parametrize("reduced_cost", VARIANTS)
def test_packed_kernel_and_decoder_agree_with_column_generation(reduced_cost):
    from decoders.chains.decoders import decode_cg

    rng = np.random.default_rng(11)
    name = {EQ12: "eq12", EQ8: "eq8", EQ9: "eq9"}[reduced_cost]
    for _ in range(5):
        theta, tau = peaked_chain(rng, 20, 45, margin=3.0, ambiguity=0.3, tau_scale=1.0)
        scores = ChainScores(tau, tuple(str(label) for label in range(45)))
        full = column_generation(theta, tau, reduced_cost=reduced_cost)
        labels, score, bound, converged, iterations, candidates, sizes, messages, fallback = _cg_kernel(
            theta, tau, scores.cg_tables, reduced_cost, 0.0, True
        )
        packed, *packed_rest = _cg_packed(theta, tau, scores.cg_tables, reduced_cost, 0.0, True)
        assert (score, bound, converged, iterations, messages, fallback) == tuple(packed_rest)
        assert not fallback  # ordinary scores: CG certifies its own optimum
        np.testing.assert_array_equal(packed, np.concatenate([labels, sizes, candidates]))
        np.testing.assert_array_equal(full.labels, labels)
        np.testing.assert_array_equal(full.oracle_candidates, candidates)
        assert full.oracle_calls == len(candidates)
        solution = decode_cg(ChainInstance(theta, scores), reduced_cost=name)
        np.testing.assert_array_equal(solution.structure, labels)
        assert solution.objective == score and solution.bound == score and solution.status == "optimal"
        assert solution.stats["iterations"] == iterations and solution.stats["messages"] == messages
        np.testing.assert_array_equal(solution.stats["domain_sizes"], sizes)
        np.testing.assert_array_equal(solution.stats["oracle_candidates"], candidates)


# --------------------------------------------------------------------------- bounds and CG-DG


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_chains(), st.sampled_from(VARIANTS), st.sampled_from([0.02, 0.2, 0.9]))
def test_gap_stop_bound_is_certified(chain, reduced_cost, gap):
    theta, tau = chain
    optimum = brute_force(theta, tau, 1)[0][0]
    result = column_generation(theta, tau, reduced_cost=reduced_cost, gap=gap)
    assert result.bound >= optimum - TOL
    assert result.bound >= result.score
    assert sequence_score(theta, tau, result.labels) == pytest.approx(result.score, abs=TOL)
    if result.converged:
        assert result.score == pytest.approx(optimum, abs=TOL)
    else:
        assert result.bound - result.score <= gap * abs(result.bound) + TOL


@pytest.mark.parametrize("reduced_cost", VARIANTS)
def test_duality_gap_stop(reduced_cost):
    rng = np.random.default_rng(15)
    gap = 0.05
    early = 0
    for _ in range(30):
        theta, tau = peaked_chain(rng, 30, 45, margin=3.0, ambiguity=0.3, tau_scale=1.0)
        optimum = viterbi(theta, tau)[1]
        result = column_generation(theta, tau, reduced_cost=reduced_cost, gap=gap)
        assert result.bound >= optimum - TOL
        assert optimum - result.score <= gap * abs(result.bound) + TOL
        if not result.converged:
            early += 1
            assert result.bound - result.score <= gap * abs(result.bound) + TOL
        exact = column_generation(theta, tau, reduced_cost=reduced_cost)
        assert result.iterations <= exact.iterations
    assert early > 0  # the gap stop did trigger


# --------------------------------------------------------------------------- 0/1-loss oracle


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_chains(), st.sampled_from(VARIANTS), st.booleans(), st.sampled_from([0.0, 0.1, 0.5, 2.0, 8.0]))
def test_two_best_against_brute_force(chain, reduced_cost, prune, delta):
    theta, tau = chain
    ranked = brute_force(theta, tau, 2)
    result = cg_two_best(theta, tau, delta, reduced_cost=reduced_cost, prune=prune)
    assert result.best_score == pytest.approx(ranked[0][0], abs=TOL)
    assert sequence_score(theta, tau, result.best) == pytest.approx(result.best_score, abs=TOL)
    assert result.cg.converged and result.cg.score == pytest.approx(ranked[0][0], abs=TOL)
    assert np.all(result.domain_sizes >= result.cg.domain_sizes)
    if len(ranked) > 1 and ranked[1][0] >= ranked[0][0] - delta + TOL:
        assert result.second is not None
        assert result.second_score == pytest.approx(ranked[1][0], abs=TOL)
        assert sequence_score(theta, tau, result.second) == pytest.approx(result.second_score, abs=TOL)
        assert not np.array_equal(result.second, result.best)
    elif len(ranked) == 1 or ranked[1][0] < ranked[0][0] - delta - TOL:
        assert result.second is None and result.second_score is None


def test_two_best_on_peaked_chains():
    """Larger chains: the second best found within delta beats every single-token change of the best."""
    rng = np.random.default_rng(2)
    found = 0
    for _ in range(20):
        theta, tau = peaked_chain(rng, 12, 45)
        best_labels, best_score = viterbi(theta, tau)
        result = cg_two_best(theta, tau, 1.5)
        np.testing.assert_array_equal(result.best, best_labels)
        assert result.best_score == pytest.approx(best_score, abs=TOL)
        neighbours = []
        for i in range(12):
            for label in range(45):
                if label != best_labels[i]:
                    changed = best_labels.copy()
                    changed[i] = label
                    neighbours.append(sequence_score(theta, tau, changed))
        closest = max(neighbours)
        if result.second is None:
            assert closest < best_score - 1.5
        else:
            found += 1
            assert result.second_score >= best_score - 1.5
            assert result.second_score >= closest - TOL
    assert found > 0


# --------------------------------------------------------------------------- errors


def test_rejects_bad_input():
    theta, tau = np.zeros((3, 4)), np.zeros((4, 4))
    with pytest.raises(ValueError, match=r"theta\[0, 1\] = nan is a non-finite score"):
        column_generation(np.array([[0.0, np.nan, 1.0, 0.0]] * 3), tau)
    with pytest.raises(ValueError, match="non-finite"):
        column_generation(np.array([[0.0, -np.inf, 1.0, 0.0]] * 3), tau)
    bad_tau = tau.copy()
    bad_tau[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"tau\[1, 2\] = inf is \+inf"):
        column_generation(theta, bad_tau)
    with pytest.raises(ValueError, match="reduced_cost"):
        column_generation(theta, tau, reduced_cost=3)
    with pytest.raises(ValueError, match="theta must be n x 5"):
        column_generation(theta, np.zeros((5, 5)))
    for gap in (-0.1, float("nan"), 1.0):
        with pytest.raises(ValueError, match="gap"):
            column_generation(theta, tau, gap=gap)
    with pytest.raises(ValueError, match="delta"):
        cg_two_best(theta, tau, -1.0)


# --------------------------------------------------------------------------- benchmark (not a test)


def _benchmark() -> None:  # pragma: no cover - run by hand
    """Sentences per second of CG (three reduced costs, CG-DG) and Viterbi on synthetic tagger-like chains, in a
    numba loop (no Python call overhead) and through the Python entry points; best of repeated runs."""
    import time

    import numba
    from numba.typed import List

    @numba.njit
    def loop_viterbi(thetas, tau):
        total = 0.0
        for theta in thetas:
            total += _viterbi(theta, tau)[1]
        return total

    @numba.njit
    def loop_cg(thetas, tau, tables, reduced_cost, gap):
        total = 0.0
        for theta in thetas:
            total += _cg_labels(theta, tau, tables, reduced_cost, gap, True)[1]
        return total

    def python_loop(kernel, thetas, *args):
        return [kernel(theta, *args) for theta in thetas]

    def best_of(function, *args, repeats=15):
        function(*args)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            function(*args)
            times.append(time.perf_counter() - start)
        return min(times)

    settings_grid = [
        ("sharp", dict(margin=8.0, ambiguity=0.05, tau_scale=0.2)),
        ("peaked", dict(margin=6.0, ambiguity=0.15, tau_scale=0.5)),
        ("harsh", dict(margin=4.0, ambiguity=0.3, tau_scale=1.0)),
    ]
    for n_labels, count in ((45, 400), (343, 100)):
        for name, options in settings_grid:
            rng = np.random.default_rng(0)
            _, tau = peaked_chain(rng, 1, n_labels, **options)
            tables = _transition_tables(tau)
            thetas = List([peaked_chain(rng, 25, n_labels, **options)[0] for _ in range(count)])
            viterbi_s = best_of(loop_viterbi, thetas, tau, repeats=5 if n_labels > 100 else 15) / count
            line = f"L={n_labels:3d} {name:6s}: viterbi {1 / viterbi_s:9.0f}/s"
            for label, reduced_cost, gap in (("cg", EQ12, 0.0), ("cg-a", EQ8, 0.0), ("cg-a+t", EQ9, 0.0)):
                cg_s = best_of(loop_cg, thetas, tau, tables, reduced_cost, gap) / count
                line += f" | {label} {1 / cg_s:8.0f}/s x{viterbi_s / cg_s:5.1f}"
            cg_s = best_of(loop_cg, thetas, tau, tables, EQ12, 0.0015) / count
            line += f" | cg-dg x{viterbi_s / cg_s:5.1f}"
            python_v = best_of(python_loop, _viterbi, thetas, tau, repeats=5) / count
            python_cg = best_of(python_loop, _cg_kernel, thetas, tau, tables, EQ12, 0.0, True) / count
            line += f" | from Python: x{python_v / python_cg:5.1f}"
            results = [column_generation(theta, tau) for theta in thetas]
            sizes = np.concatenate([result.domain_sizes for result in results])
            line += (
                f" | |D|=1 {np.mean(sizes == 1):.2f}, iters {np.mean([r.iterations for r in results]):.2f}"
            )
            print(line, flush=True)


if __name__ == "__main__":
    _benchmark()
