"""Chains: Viterbi, Viterbi+P (eq. 14 pruning), 2-best variants and beam search against brute force.

Reference order: every exact kernel breaks ties towards the lexicographically smallest *reversed* sequence, which
is ``brute_force`` on the reversed chain (``theta[::-1]``, ``tau.T``). Integer-valued scores make every sum
exact, so instances with many ties compare labels exactly; continuous scores compare scores to 1e-12.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from decoders.chains.beam import _beam_search, beam_search
from decoders.chains.instance import ChainScores, brute_force, sequence_score
from decoders.chains.viterbi import (
    PAD,
    _padded_tau,
    _prune_domains,
    _viterbi,
    _viterbi_2best,
    _viterbi_domains,
    _viterbi_domains_2best,
    _viterbi_pruned,
    _viterbi_pruned_2best,
    viterbi,
    viterbi_2best,
)

SHAPES = [(n, n_labels) for n in range(1, 7) for n_labels in range(1, 6)]


def reference(theta: np.ndarray, tau: np.ndarray, k: int = 2) -> list[tuple[float, np.ndarray]]:
    """The k best sequences by enumeration, ties ordered as the kernels order them (reversed-lexicographic)."""
    return [(score, labels[::-1].copy()) for score, labels in brute_force(theta[::-1], tau.T, k)]


def instance(rng: np.random.Generator, n: int, n_labels: int, integer: bool) -> tuple[np.ndarray, np.ndarray]:
    """Random theta (n x L) and tau (L x L): small integers (many ties, exact sums) or standard normal."""
    if integer:
        return (
            rng.integers(-3, 4, size=(n, n_labels)).astype(np.float64),
            rng.integers(-2, 3, size=(n_labels, n_labels)).astype(np.float64),
        )
    return rng.normal(size=(n, n_labels)), rng.normal(size=(n_labels, n_labels))


def bounds(tau: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    scores = ChainScores(tau, tuple(str(x) for x in range(tau.shape[0])))
    return scores.in_min, scores.in_max, scores.out_min, scores.out_max


def cases(seed: int, repeats: int):
    """(theta, tau) for every shape with n <= 6, L <= 5, integer and continuous, ``repeats`` times each."""
    rng = np.random.default_rng(seed)
    for (n, n_labels), integer, _ in itertools.product(SHAPES, (True, False), range(repeats)):
        yield instance(rng, n, n_labels, integer)


def assert_same(found: tuple[np.ndarray, float], expected: tuple[float, np.ndarray]) -> None:
    labels, score = found
    assert labels.dtype == np.int64
    np.testing.assert_array_equal(labels, expected[1])
    assert score == pytest.approx(expected[0], rel=1e-12, abs=1e-12)


# --- Viterbi ------------------------------------------------------------------------------------------------


def test_viterbi_matches_brute_force():
    for theta, tau in cases(seed=1, repeats=8):
        labels, score = viterbi(theta, tau)
        assert_same((labels, score), reference(theta, tau, 1)[0])
        assert score == pytest.approx(sequence_score(theta, tau, labels), rel=1e-12, abs=1e-12)


def test_viterbi_breaks_ties_towards_smaller_labels_from_the_end():
    # All-zero scores: every sequence ties, the kernels return all zeros; with label 1 favoured at the last
    # token only, the rest stay at 0.
    theta = np.zeros((4, 3))
    tau = np.zeros((3, 3))
    np.testing.assert_array_equal(viterbi(theta, tau)[0], [0, 0, 0, 0])
    theta[3, 1] = 1.0
    np.testing.assert_array_equal(viterbi(theta, tau)[0], [0, 0, 0, 1])


def test_viterbi_at_realistic_size_matches_an_independent_numpy_viterbi():
    rng = np.random.default_rng(7)
    for n_labels in (45, 50):
        tau = rng.normal(size=(n_labels, n_labels))
        for n in (1, 2, 25):
            theta = rng.normal(size=(n, n_labels))
            alpha = theta[0]
            back = []
            for i in range(1, n):
                cand = alpha[:, None] + tau
                back.append(cand.argmax(axis=0))
                alpha = cand.max(axis=0) + theta[i]
            labels = [int(alpha.argmax())]
            for pointers in reversed(back):
                labels.append(int(pointers[labels[-1]]))
            found, score = viterbi(theta, tau)
            np.testing.assert_array_equal(found, labels[::-1])
            assert score == alpha.max()  # same additions in the same order: bit-identical


# --- eq. 14 pruning ---------------------------------------------------------------------------------------


def numpy_prune(theta: np.ndarray, tau: np.ndarray, dominators: int) -> list[np.ndarray]:
    """Eq. 14 by the letter: keep x' unless at least ``dominators`` labels x have LB(x) > UB(x')."""
    n = theta.shape[0]
    domains = []
    for i in range(n):
        lower = theta[i].copy()
        upper = theta[i].copy()
        if i > 0:
            lower += tau.min(axis=0)
            upper += tau.max(axis=0)
        if i < n - 1:
            lower += tau.min(axis=1)
            upper += tau.max(axis=1)
        beaten_by = (lower[:, None] > upper[None, :]).sum(axis=0)
        domains.append(np.flatnonzero(beaten_by < dominators))
    return domains


def split(offsets: np.ndarray, domain: np.ndarray) -> list[np.ndarray]:
    return [domain[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


@pytest.mark.parametrize("dominators", [1, 2])
def test_prune_domains_is_eq_14(dominators):
    for theta, tau in cases(seed=2, repeats=6):
        offsets, domain = _prune_domains(theta, *bounds(tau), dominators)
        assert offsets[0] == 0 and np.all(np.diff(offsets) >= 1)
        for found, expected in zip(split(offsets, domain), numpy_prune(theta, tau, dominators), strict=True):
            np.testing.assert_array_equal(found, expected)


def test_prune_domains_rejects_other_dominator_counts():
    theta = np.zeros((2, 2))
    with pytest.raises(ValueError, match="dominators"):
        _prune_domains(theta, *bounds(np.zeros((2, 2))), 3)


def test_pruned_domains_keep_the_best_and_the_two_best():
    for theta, tau in cases(seed=3, repeats=8):
        top = reference(theta, tau, 2)
        one = split(*_prune_domains(theta, *bounds(tau), 1))
        two = split(*_prune_domains(theta, *bounds(tau), 2))
        # Every optimal sequence survives one dominator; every sequence scoring >= the second best survives two.
        for score, labels in brute_force(theta, tau, theta.shape[1] ** theta.shape[0]):
            if score >= top[0][0]:
                assert all(labels[i] in one[i] for i in range(len(labels)))
            if len(top) > 1 and score >= top[1][0]:
                assert all(labels[i] in two[i] for i in range(len(labels)))


def test_one_dominator_can_drop_the_second_best():
    # One token, labels scoring 1 and 0: one dominator prunes label 1, which the second-best sequence uses.
    theta = np.array([[1.0, 0.0]])
    tau = np.zeros((2, 2))
    offsets, domain = _prune_domains(theta, *bounds(tau), 1)
    np.testing.assert_array_equal(domain, [0])
    offsets, domain = _prune_domains(theta, *bounds(tau), 2)
    np.testing.assert_array_equal(domain, [0, 1])
    labels1, score1, labels2, score2, sizes = _viterbi_pruned_2best(theta, tau, *bounds(tau))
    np.testing.assert_array_equal(labels2, [1])
    assert (score1, score2) == (1.0, 0.0)
    np.testing.assert_array_equal(sizes, [2])


def test_viterbi_pruned_equals_viterbi():
    for theta, tau in cases(seed=4, repeats=8):
        labels, score, sizes = _viterbi_pruned(theta, tau, *bounds(tau))
        expected_labels, expected_score = viterbi(theta, tau)
        np.testing.assert_array_equal(labels, expected_labels)
        assert score == expected_score
        offsets, _ = _prune_domains(theta, *bounds(tau), 1)
        np.testing.assert_array_equal(sizes, np.diff(offsets))
        assert sizes.dtype == np.int64 and np.all((sizes >= 1) & (sizes <= theta.shape[1]))


def test_viterbi_pruned_prunes_peaked_scores_and_stays_exact():
    # Peaked emissions (as from a trained tagger) against small transitions: most domains shrink to a few
    # labels, on both sides of the dense/gather switch, and the result is still exactly Viterbi's.
    rng = np.random.default_rng(5)
    for n_labels in (45, 120):
        tau = rng.normal(scale=0.5, size=(n_labels, n_labels))
        all_sizes = []
        for n in (1, 3, 25, 40):
            theta = rng.normal(scale=3.0, size=(n, n_labels))
            labels, score, sizes = _viterbi_pruned(theta, tau, *bounds(tau))
            expected_labels, expected_score = viterbi(theta, tau)
            np.testing.assert_array_equal(labels, expected_labels)
            assert score == expected_score
            first, second, labels2, score2, _ = _viterbi_pruned_2best(theta, tau, *bounds(tau))
            full = viterbi_2best(theta, tau)
            np.testing.assert_array_equal(first, full[0])
            np.testing.assert_array_equal(labels2, full[2])
            assert (second, score2) == (full[1], full[3])
            all_sizes.append(sizes)
        sizes = np.concatenate(all_sizes)
        assert sizes.max() > 0.2 * n_labels and sizes.min() < 0.2 * n_labels  # both step kinds ran
        assert sizes.mean() < 0.5 * n_labels


# --- restricted domains -------------------------------------------------------------------------------------


def random_domains(rng: np.random.Generator, n: int, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    sizes = rng.integers(1, n_labels + 1, size=n)
    parts = [np.sort(rng.choice(n_labels, size, replace=False)) for size in sizes]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), np.concatenate(parts).astype(np.int64)


def test_viterbi_domains_equal_viterbi_with_the_other_labels_forbidden():
    rng = np.random.default_rng(6)
    for n, n_labels, integer in itertools.product((1, 2, 5, 12), (1, 3, 8, 30), (True, False)):
        for _ in range(4):
            theta, tau = instance(rng, n, n_labels, integer)
            offsets, domain = random_domains(rng, n, n_labels)
            masked = np.full_like(theta, -np.inf)
            for i, labels in enumerate(split(offsets, domain)):
                masked[i, labels] = theta[i, labels]
            labels, score = _viterbi_domains(theta, tau, offsets, domain)
            expected_labels, expected_score = _viterbi(masked, tau)  # -inf in theta: the kernel
            np.testing.assert_array_equal(labels, expected_labels)
            assert score == expected_score
            two = _viterbi_domains_2best(theta, tau, offsets, domain)
            expected = _viterbi_2best(masked, tau)
            np.testing.assert_array_equal(two[0], expected[0])
            np.testing.assert_array_equal(two[2], expected[2])
            assert (two[1], two[3]) == (expected[1], expected[3])
            if np.all(np.diff(offsets) == 1):
                assert len(two[2]) == 0 and two[3] == -np.inf


# --- 2-best -------------------------------------------------------------------------------------------------


def test_viterbi_2best_matches_brute_force():
    for theta, tau in cases(seed=8, repeats=8):
        labels1, score1, labels2, score2 = viterbi_2best(theta, tau)
        top = reference(theta, tau, 2)
        assert_same((labels1, score1), top[0])
        best_labels, best_score = viterbi(theta, tau)
        np.testing.assert_array_equal(labels1, best_labels)
        assert score1 == best_score
        if theta.shape[1] == 1:
            assert len(top) == 1 and labels2.shape == (0,) and score2 == -np.inf
            continue
        assert_same((labels2, score2), top[1])
        assert not np.array_equal(labels1, labels2)
        assert score1 >= score2
        assert score2 == pytest.approx(sequence_score(theta, tau, labels2), rel=1e-12, abs=1e-12)


def test_viterbi_pruned_2best_equals_viterbi_2best():
    for theta, tau in cases(seed=9, repeats=8):
        labels1, score1, labels2, score2, sizes = _viterbi_pruned_2best(theta, tau, *bounds(tau))
        expected = viterbi_2best(theta, tau)
        np.testing.assert_array_equal(labels1, expected[0])
        np.testing.assert_array_equal(labels2, expected[2])
        assert (score1, score2) == (expected[1], expected[3])
        offsets, _ = _prune_domains(theta, *bounds(tau), 2)
        np.testing.assert_array_equal(sizes, np.diff(offsets))


def test_two_best_with_a_tie_for_first():
    # Two sequences tie for best: both are reported, the reversed-lexicographically smaller one first.
    theta = np.array([[1.0, 1.0], [0.0, -5.0]])
    tau = np.zeros((2, 2))
    labels1, score1, labels2, score2 = viterbi_2best(theta, tau)
    np.testing.assert_array_equal(labels1, [0, 0])
    np.testing.assert_array_equal(labels2, [1, 0])
    assert score1 == score2 == 1.0
    pruned = _viterbi_pruned_2best(theta, tau, *bounds(tau))
    np.testing.assert_array_equal(pruned[2], [1, 0])


small_int_chain = st.integers(1, 5).flatmap(
    lambda n: st.integers(1, 4).flatmap(
        lambda n_labels: st.tuples(
            arrays(np.float64, (n, n_labels), elements=st.integers(-4, 4).map(float)),
            arrays(np.float64, (n_labels, n_labels), elements=st.integers(-3, 3).map(float)),
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(small_int_chain)
def test_exact_kernels_agree_with_brute_force_on_tied_integer_chains(chain):
    theta, tau = chain
    top = reference(theta, tau, 2)
    assert_same(viterbi(theta, tau), top[0])
    labels, score, _ = _viterbi_pruned(theta, tau, *bounds(tau))
    assert_same((labels, score), top[0])
    for labels1, score1, labels2, score2, *_ in (
        viterbi_2best(theta, tau),
        _viterbi_pruned_2best(theta, tau, *bounds(tau)),
    ):
        assert_same((labels1, score1), top[0])
        if len(top) == 1:
            assert labels2.shape == (0,) and score2 == -np.inf
        else:
            assert_same((labels2, score2), top[1])


# --- padded transition matrices (the decoders' tau) ----------------------------------------------------------


def padded_results(theta: np.ndarray, tau: np.ndarray, wide: np.ndarray) -> list[tuple[tuple, tuple]]:
    """Every exact kernel's answer on ``tau`` and on its padded ``wide``, as pairs."""
    pairs = []
    for kernel, extra in (
        (_viterbi, ()),
        (_viterbi_2best, ()),
        (_viterbi_pruned, bounds(tau)),
        (_viterbi_pruned_2best, bounds(tau)),
    ):
        pairs.append((kernel(theta, tau, *extra), kernel(theta, wide, *extra)))
    n, n_labels = theta.shape
    rng = np.random.default_rng(n * 31 + n_labels)
    keep = rng.random((n, n_labels)) < 0.6
    keep[np.arange(n), rng.integers(0, n_labels, n)] = True  # never an empty domain
    domain = np.flatnonzero(keep.ravel()) % n_labels
    offsets = np.concatenate([[0], np.cumsum(keep.sum(axis=1))])
    for kernel in (_viterbi_domains, _viterbi_domains_2best):
        pairs.append((kernel(theta, tau, offsets, domain), kernel(theta, wide, offsets, domain)))
    return pairs


def assert_bit_identical(plain: tuple, padded: tuple) -> None:
    assert len(plain) == len(padded)
    for a, b in zip(plain, padded, strict=True):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b or (np.isnan(a) and np.isnan(b)), (a, b)  # exact: same bits, -inf included


def test_padded_tau_is_tau_then_minus_inf_on_an_aligned_vector_width():
    tau = np.arange(25, dtype=float).reshape(5, 5)
    tau[1, 2] = -np.inf
    for pad in (1, 4, 8):
        wide = _padded_tau(tau, pad)
        width = -(-5 // pad) * pad
        assert wide.shape == (width, width) and wide.flags.c_contiguous and wide.ctypes.data % 64 == 0
        np.testing.assert_array_equal(wide[:5, :5], tau)
        assert np.all(wide[5:] == -np.inf) and np.all(wide[:, 5:] == -np.inf)
    assert _padded_tau(tau).shape[0] % PAD == 0
    assert ChainScores(tau).padded_tau.shape == _padded_tau(tau).shape


@pytest.mark.parametrize("pad", [4, 8, 16])
def test_padded_kernels_equal_unpadded_bit_for_bit_and_brute_force_with_ties_and_forbidden(pad):
    """Integer scores (many ties), a quarter of the transitions forbidden (-inf), every padding width: every
    kernel returns on the padded tau exactly what it returns on tau, and that is brute force's answer."""
    rng = np.random.default_rng(pad)
    checked = 0
    for _ in range(150):
        n, n_labels = int(rng.integers(1, 6)), int(rng.integers(1, 10))
        if n_labels**n > 20_000:
            continue
        theta = rng.integers(-2, 3, size=(n, n_labels)).astype(np.float64)
        tau = rng.integers(-2, 3, size=(n_labels, n_labels)).astype(np.float64)
        tau[rng.random((n_labels, n_labels)) < 0.25] = -np.inf
        top = reference(theta, tau, 2)
        if top[0][0] == -np.inf:
            continue  # no feasible sequence: the kernels' precondition
        pairs = padded_results(theta, tau, _padded_tau(tau, pad))
        for plain, padded in pairs:
            assert_bit_identical(plain, padded)
        assert_same(pairs[0][1], top[0])
        labels1, score1, labels2, score2 = pairs[1][1]
        assert_same((labels1, score1), top[0])
        if len(top) > 1 and top[1][0] > -np.inf:
            assert_same((labels2, score2), top[1])
        else:
            assert labels2.shape == (0,) and score2 == -np.inf
        checked += 1
    assert checked > 60


def test_padded_kernels_equal_unpadded_at_model_sizes():
    """Continuous scores at the datasets' label counts (45, 50, 343 and a width already a multiple of 8), some
    transitions forbidden and the emissions peaked (so pruning takes every path: gathered, dense and full
    steps): answers bit for bit the same padded and unpadded."""
    rng = np.random.default_rng(5)
    for n_labels in (45, 48, 50, 343):
        n = 30
        theta = rng.normal(size=(n, n_labels))
        theta[::3, rng.integers(0, n_labels)] += 6.0
        theta[1::3] *= 0.01  # flat tokens: nearly nothing pruned
        tau = rng.normal(size=(n_labels, n_labels)) * 0.5
        tau[rng.random((n_labels, n_labels)) < 0.1] = -np.inf
        for pad in (4, 8):
            for plain, padded in padded_results(theta, tau, _padded_tau(tau, pad)):
                assert_bit_identical(plain, padded)


# --- beam search ----------------------------------------------------------------------------------------------


def greedy(theta: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, float]:
    """Left-to-right greedy decoding, first (smallest) label on ties, scores summed like the kernels."""
    labels = [int(np.argmax(theta[0]))]
    score = theta[0, labels[0]]
    for i in range(1, theta.shape[0]):
        candidates = (score + tau[labels[-1]]) + theta[i]
        labels.append(int(np.argmax(candidates)))
        score = candidates[labels[-1]]
    return np.array(labels), float(score)


def python_beam(theta: np.ndarray, tau: np.ndarray, width: int) -> tuple[np.ndarray, float]:
    """Beam search by the letter: rank all extensions by (score desc, label, prefix rank), keep ``width``."""
    beam = sorted(
        ((float(theta[0, b]), b, 0, (b,)) for b in range(theta.shape[1])), key=lambda c: (-c[0], c[1])
    )
    beam = beam[:width]
    for i in range(1, theta.shape[0]):
        extended = [
            (float((score + tau[labels[-1], b]) + theta[i, b]), b, rank, (*labels, b))
            for rank, (score, _, _, labels) in enumerate(beam)
            for b in range(theta.shape[1])
        ]
        beam = sorted(extended, key=lambda c: (-c[0], c[1], c[2]))[:width]
    return np.array(beam[0][3]), beam[0][0]


def test_beam_matches_a_plain_python_beam_including_ties():
    for theta, tau in cases(seed=13, repeats=4):
        for width in (1, 2, 3, 4, 7):
            labels, score = beam_search(theta, tau, width)
            expected_labels, expected_score = python_beam(theta, tau, width)
            np.testing.assert_array_equal(labels, expected_labels)
            assert score == expected_score


def test_beam_is_feasible_and_never_beats_the_optimum():
    for theta, tau in cases(seed=10, repeats=4):
        optimum = viterbi(theta, tau)[1]
        for width in (1, 2, 3, 5):
            labels, score = beam_search(theta, tau, width)
            assert labels.dtype == np.int64 and labels.shape == (theta.shape[0],)
            assert np.all((labels >= 0) & (labels < theta.shape[1]))
            assert score == pytest.approx(sequence_score(theta, tau, labels), rel=1e-12, abs=1e-12)
            assert score <= optimum + 1e-12


def test_beam_width_one_is_greedy():
    rng = np.random.default_rng(11)
    for (n, n_labels), integer in itertools.product([*SHAPES, (25, 45)], (True, False)):
        theta, tau = instance(rng, n, n_labels, integer)
        labels, score = beam_search(theta, tau, 1)
        expected_labels, expected_score = greedy(theta, tau)
        np.testing.assert_array_equal(labels, expected_labels)
        assert score == expected_score


def test_wide_beam_is_exact():
    for theta, tau in cases(seed=12, repeats=4):
        n, n_labels = theta.shape
        best_labels, best_score = viterbi(theta, tau)
        top = reference(theta, tau, 2)
        unique = len(top) == 1 or top[0][0] - top[1][0] > 1e-9
        for width in (n_labels ** (n - 1), 10**15):
            labels, score = beam_search(theta, tau, width)
            assert score == best_score  # same additions in the same order as Viterbi
            if unique:
                np.testing.assert_array_equal(labels, best_labels)


def test_beam_narrower_than_exhaustive_can_miss_the_optimum():
    # Greedy takes label 0 at the first token (2 > 1), then pays -10 for the transition; the optimum starts
    # with label 1. A beam of 2 keeps both prefixes and finds it.
    theta = np.array([[2.0, 1.0], [0.0, 0.0]])
    tau = np.array([[-10.0, -10.0], [0.0, 0.0]])
    assert beam_search(theta, tau, 1)[1] == -8.0
    labels, score = beam_search(theta, tau, 2)
    np.testing.assert_array_equal(labels, [1, 0])
    assert score == 1.0


def test_beam_rejects_a_width_below_one():
    with pytest.raises(ValueError, match="width"):
        beam_search(np.zeros((2, 2)), np.zeros((2, 2)), 0)
    with pytest.raises(ValueError, match="width"):  # the kernel too (once per call, before its loops)
        _beam_search(np.zeros((2, 2)), np.zeros((2, 2)), 0)
