"""Adversarial inputs for every exact chains decoder: ties, magnitudes from 1e-9 to 1e12, forbidden (-inf)
transitions mixed with ordinary ones, one token and one label; every certified answer must match brute force,
every bound must hold, the harness's verifier must accept every certificate, and bad input must be refused with
the field named."""

from __future__ import annotations

import numpy as np
import pytest
from adversarial import entries
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from decoders.chains.decoders import verify
from decoders.chains.instance import ChainInstance, ChainScores, brute_force, sequence_score
from decoders.errors import ConfigError
from decoders.harness.protocol import get_decoder

EXACT = {
    "viterbi": {},
    "viterbi+p": {},
    "cg": {},
    "cg/eq8": {"reduced_cost": "eq8"},
    "cg/eq9": {"reduced_cost": "eq9"},
    "cg-2best": {"delta": 1.0},
    "viterbi-2best": {},
    "viterbi+p-2best": {},
}
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def chains(draw):
    """``(theta, tau)`` with L <= 4 labels and n <= 5 tokens (brute force stays cheap)."""
    n_labels = draw(st.integers(1, 4))
    n = draw(st.integers(1, 5))
    theta = draw(entries((n, n_labels), forbid=False))
    tau = draw(entries((n_labels, n_labels), forbid=draw(st.booleans())))
    return theta, tau


def _instance(theta: np.ndarray, tau: np.ndarray) -> ChainInstance:
    return ChainInstance(theta, ChainScores(tau, tuple(str(x) for x in range(tau.shape[0]))))


def _feasible(theta: np.ndarray, tau: np.ndarray) -> bool:
    return brute_force(theta, tau, 1)[0][0] > -np.inf


def _tolerance(theta: np.ndarray, tau: np.ndarray, labels: np.ndarray) -> float:
    labels = np.asarray(labels)
    terms = np.concatenate([theta[np.arange(len(labels)), labels], tau[labels[:-1], labels[1:]]])
    return 1e-9 * float(np.abs(terms).sum())  # relative only: tiny magnitudes are tested too


def _decode(name: str, instance: ChainInstance):
    decoder = name.split("/")[0]
    return get_decoder("chains", decoder)(instance, **EXACT.get(name, {}))


@SETTINGS
@given(chains())
def test_exact_decoders_match_brute_force_and_their_certificates_hold(chain):
    theta, tau = chain
    if not _feasible(theta, tau):
        with pytest.raises(ValueError, match="forbidden"):
            _instance(theta, tau)
        return
    instance = _instance(theta, tau)
    ranked = brute_force(theta, tau, 2)
    best_score, best = ranked[0]
    for name in EXACT:
        solution = _decode(name, instance)
        assert solution.status == "optimal", name
        labels = np.asarray(solution.structure)
        tol = _tolerance(theta, tau, best) + _tolerance(theta, tau, labels)
        assert abs(solution.objective - best_score) <= tol, (name, solution.objective, best_score)
        assert abs(sequence_score(theta, tau, labels) - solution.objective) <= tol, name
        assert solution.bound == solution.objective
        assert verify(instance, solution) is None, name
        if name.endswith("2best") and len(ranked) > 1:
            second_score = ranked[1][0]
            delta = EXACT[name].get("delta", np.inf)
            within = second_score > -np.inf and second_score >= best_score - delta
            clear = abs(second_score - (best_score - delta)) > tol or delta == np.inf
            if clear and within:
                assert solution.stats["second"] is not None, name
                assert abs(solution.stats["second_score"] - second_score) <= tol + _tolerance(
                    theta, tau, ranked[1][1]
                ), name
            elif clear:
                assert solution.stats["second"] is None, name


@SETTINGS
@given(chains(), st.sampled_from([1e-4, 0.0015, 0.1, 0.5]), st.sampled_from(["eq12", "eq8", "eq9"]))
def test_cg_dg_bound_holds_and_beam_stays_feasible(chain, gap, reduced_cost):
    theta, tau = chain
    assume(_feasible(theta, tau))
    instance = _instance(theta, tau)
    best_score, best = brute_force(theta, tau, 1)[0]
    tol = _tolerance(theta, tau, best)
    solution = get_decoder("chains", "cg")(instance, gap=gap, reduced_cost=reduced_cost)
    assert solution.bound >= best_score - tol  # the certified bound never cuts off the optimum
    assert solution.objective <= best_score + tol
    assert abs(solution.objective - sequence_score(theta, tau, solution.structure)) <= tol + _tolerance(
        theta, tau, solution.structure
    )
    if solution.status == "optimal":
        assert abs(solution.objective - best_score) <= tol + _tolerance(theta, tau, solution.structure)
    for width in (1, 2, 10):
        beam = get_decoder("chains", "beam")(instance, width=width)
        if beam.status == "error":  # every prefix it kept ran into a forbidden transition
            assert np.isneginf(tau).any() and beam.structure is None and "forbidden" in beam.stats["error"]
        else:
            assert beam.status == "feasible" and beam.objective <= best_score + tol
            rescored = sequence_score(theta, tau, beam.structure)
            assert abs(rescored - beam.objective) <= 2 * _tolerance(theta, tau, beam.structure)


def test_a_large_negative_transition_does_not_swamp_a_small_reduced_cost():
    """The smallest case of the reported bug: -1e9 once widened CG's tolerance to 1e-2 and CG certified [0, 0]."""
    theta = np.array([[0.0, -5.0], [0.003, 0.0]])
    for forbid in (-1e9, -1e12, -np.inf):
        instance = _instance(theta, np.array([[0.0, 0.007], [forbid, forbid]]))
        for name in ("cg", "cg/eq8", "cg/eq9", "cg-2best"):
            solution = _decode(name, instance)
            assert solution.structure.tolist() == [0, 1], (name, forbid)
            assert solution.objective == pytest.approx(0.007, abs=1e-15)
            assert verify(instance, solution) is None


def test_cg_falls_back_to_viterbi_where_rounding_could_fake_its_certificate():
    """Huge magnitudes that cancel: CG either certifies the brute-force optimum or lets Viterbi decide."""
    rng = np.random.default_rng(7)
    fallbacks = 0
    for _ in range(300):
        n_labels, n = rng.integers(2, 5), rng.integers(2, 6)
        theta = rng.integers(-3, 4, (n, n_labels)) * rng.choice([1e-9, 1.0, 1e12], (n, n_labels))
        tau = rng.integers(-3, 4, (n_labels, n_labels)) * rng.choice([1e-9, 1.0, 1e12], (n_labels, n_labels))
        instance = _instance(theta, tau)
        best_score, best = brute_force(theta, tau, 1)[0]
        solution = _decode("cg", instance)
        labels = np.asarray(solution.structure)
        assert abs(solution.objective - best_score) <= _tolerance(theta, tau, best) + _tolerance(
            theta, tau, labels
        )
        fallbacks += solution.stats["viterbi_fallback"]
    assert fallbacks < 300  # CG certifies most of them itself


def test_forbidden_transitions_on_a_longer_tag_set():
    """A BIO-like constraint set at 12 labels and 30 tokens: every exact decoder agrees with Viterbi."""
    rng = np.random.default_rng(3)
    tau = rng.normal(0.0, 0.5, (12, 12))
    tau[rng.random((12, 12)) < 0.4] = -np.inf
    np.fill_diagonal(tau, 0.0)  # every label may repeat: any length is feasible
    for _ in range(20):
        theta = rng.normal(0.0, 1.0, (30, 12))
        theta[np.arange(30), rng.integers(12, size=30)] += 4.0
        instance = _instance(theta, tau)
        reference = _decode("viterbi", instance)
        for name in EXACT:
            solution = _decode(name, instance)
            assert solution.objective == pytest.approx(reference.objective, rel=1e-12), name
            assert verify(instance, solution) is None


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("theta", "tau", "message"),
    [
        (np.zeros((2, 2)), np.array([[0.0, np.nan], [0.0, 0.0]]), r"ChainScores.tau\[0, 1\] = nan is NaN"),
        (np.zeros((2, 2)), np.array([[0.0, np.inf], [0.0, 0.0]]), r"tau\[0, 1\] = inf is \+inf"),
        (np.array([[0.0, np.nan]]), np.zeros((2, 2)), r"ChainInstance.theta\[0, 1\] = nan is a non-finite"),
        (np.array([[0.0, np.inf]]), np.zeros((2, 2)), r"theta\[0, 1\] = inf is a non-finite"),
        (np.array([[0.0, -np.inf]]), np.zeros((2, 2)), r"theta\[0, 1\] = -inf is a non-finite"),
        (np.zeros((0, 2)), np.zeros((2, 2)), "n >= 1 tokens"),
        (np.zeros((2, 3)), np.zeros((2, 2)), r"theta must be n x 2"),
        (np.zeros((2, 2)), np.zeros((2, 3)), "tau must be L x L"),
        (np.zeros((2, 0)), np.zeros((0, 0)), "at least one label"),
        (np.array([["a", "b"]]), np.zeros((2, 2)), "theta must hold real numbers"),
        (np.zeros((3, 2)), np.array([[-np.inf, 0.0], [-np.inf, -np.inf]]), "no label sequence longer than 2"),
        (np.zeros((2, 1)), np.array([[-np.inf]]), "no label sequence longer than 1"),
        (np.full((2, 2), 1e308), np.zeros((2, 2)), "could overflow"),  # Viterbi's sum was inf, CG crashed
        (np.zeros((3, 2)), np.array([[1e301, -np.inf], [0.0, 0.0]]), "could overflow"),
    ],
)
def test_bad_instances_are_refused_naming_the_field(theta, tau, message):
    with pytest.raises(ValueError, match=message):
        ChainInstance(theta, ChainScores(tau, tuple(str(x) for x in range(np.shape(tau)[0]))))


def test_bad_gold_and_decoder_parameters_are_refused():
    scores = ChainScores(np.zeros((3, 3)), ("a", "b", "c"))
    with pytest.raises(ValueError, match=r"gold\[1\] = 3 is a label id outside -1..2"):
        ChainInstance(np.zeros((2, 3)), scores, gold=[0, 3])
    with pytest.raises(ValueError, match="gold must hold integer label ids"):
        ChainInstance(np.zeros((2, 3)), scores, gold=[0.0, 1.5])
    with pytest.raises(ValueError, match="scores must be a ChainScores"):
        ChainInstance(np.zeros((2, 3)), np.zeros((3, 3)))
    instance = ChainInstance(np.zeros((2, 3)), scores)
    bad = [
        ("cg", {"gap": -0.1}, "gap"),
        ("cg", {"gap": float("nan")}, "gap"),
        ("cg", {"gap": 1.0}, "gap"),
        ("cg", {"reduced_cost": "eq13"}, "reduced_cost"),
        ("cg-2best", {"delta": -1.0}, "delta"),
        ("cg-2best", {"delta": float("inf")}, "delta"),
        ("beam", {"width": 0}, "width"),
        ("beam", {"width": 2.5}, "width"),
        ("beam", {"width": True}, "width"),
    ]
    for name, params, key in bad:
        with pytest.raises(ConfigError, match=key):
            get_decoder("chains", name)(instance, **params)


def test_verify_rejects_tampered_certificates():
    rng = np.random.default_rng(5)
    theta, tau = rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    instance = _instance(theta, tau)
    good = _decode("viterbi", instance)
    assert verify(instance, good) is None
    labels = np.asarray(good.structure)
    worse = labels.copy()
    worse[0] = (worse[0] + 1) % 3
    score = sequence_score(theta, tau, worse)
    cases = [
        (type(good)(worse, score, score, "optimal"), "Viterbi finds"),
        (type(good)(labels, good.objective + 1e-6, good.objective + 1e-6, "optimal"), "structure scores"),
        (type(good)(labels, good.objective, good.objective + 1.0, "optimal"), "bound"),
        (type(good)(labels, good.objective, None, "optimal"), "bound"),
        (type(good)(np.array([0, 1, 2]), 0.0, 0.0, "optimal"), "must be 4 integer label ids"),
        (type(good)(np.array([0, 1, 2, 3]), 0.0, 0.0, "optimal"), "outside 0..2"),
        (type(good)(labels.astype(float), good.objective, good.objective, "optimal"), "integer label ids"),
    ]
    for solution, reason in cases:
        assert reason in (verify(instance, solution) or ""), reason
    two = _decode("viterbi-2best", instance)
    two.stats["second_score"] += 1e-3
    assert "second_score" in verify(instance, two)
    two = _decode("viterbi-2best", instance)
    two.stats["second"] = two.structure
    assert "equals the best" in verify(instance, two)


SCALES = (1e-12, 1e-9, 1e-6, 1e-3, 1e3, 1e6, 1e9, 1e12)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_the_answer_does_not_depend_on_the_units_of_the_scores(name):
    """Every score times any constant from 1e-12 to 1e12 (forbidden transitions kept): the same status and
    labels, the objective times the constant."""
    rng = np.random.default_rng(17)
    for trial in range(15):
        n_labels, n = int(rng.integers(1, 6)), int(rng.integers(1, 9))
        theta, tau = rng.normal(size=(n, n_labels)), rng.normal(size=(n_labels, n_labels))
        if trial % 3 == 0:
            tau[rng.random((n_labels, n_labels)) < 0.3] = -np.inf
        if not _feasible(theta, tau):
            continue
        reference = _decode(name, _instance(theta, tau))
        assert reference.status == "optimal"
        for scale in SCALES:
            solution = _decode(name, _instance(theta * scale, tau * scale))
            assert solution.status == reference.status, (trial, scale)
            assert np.array_equal(solution.structure, reference.structure), (trial, scale)
            assert solution.objective / scale == pytest.approx(reference.objective, rel=1e-9, abs=1e-300)
