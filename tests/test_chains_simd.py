"""The vector intrinsics of decoders.chains.simd against numpy, and eq. 14's kept lists built from them."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from decoders.chains.colgen import _DOM, _KEPT, _NKEPT, _setup, _transition_tables, _workspace
from decoders.chains.simd import (
    BLOCK_VECTORS,
    HOST_LANES,
    TWO_BEST_VECTORS,
    argmax_block,
    argmax_vector,
    kept_best,
    max_block,
    max_plus,
    max_vector,
    trailing_zeros,
    two_best_block,
)


@numba.njit
def _words(a, row_a, b, row_b, count, cut):
    words = (count + 63) // 64 + 1
    bits = np.zeros(words, dtype=np.int64)
    args = np.zeros(words, dtype=np.int64)
    tops = np.zeros(words)
    for word in range(words):
        bits[word], args[word], tops[word] = kept_best(a, row_a, b, row_b, count, cut, word)
    return bits, args, tops


def _expected(a, row_a, b, row_b, count, cut):
    kept = np.flatnonzero(a[row_a, :count] + b[row_b, :count] >= cut)
    words = (count + 63) // 64 + 1
    bits = np.zeros(words, dtype=np.uint64)
    args = 64 * np.arange(words) + 64
    tops = np.full(words, -np.inf)
    for x in kept:
        bits[x // 64] |= np.uint64(1) << np.uint64(x % 64)
        if a[row_a, x] > tops[x // 64]:  # the first label of the word that attains its best a
            tops[x // 64] = a[row_a, x]
            args[x // 64] = x
    return bits.view(np.int64), args, tops


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 7, 8, 9, 45, 63, 64, 65, 127, 128, 130])
def test_kept_best_sets_the_bit_of_every_label_at_or_above_the_cut_and_finds_the_best(width):
    rng = np.random.default_rng(width)
    a = rng.normal(size=(3, width))
    a[2] = np.round(a[2])  # ties in a: the first label that attains the best wins
    b = np.round(rng.normal(size=(2, width)), 1)
    for row_a in range(3):
        for row_b in range(2):
            for cut in (
                -np.inf,
                -0.5,
                0.0,
                0.7,
                np.inf,
                a[row_a, width // 2] + b[row_b, width // 2],
            ):  # a tie too
                for count in {width, max(width - 3, 0), width // 2}:
                    got = _words(a, row_a, b, row_b, count, cut)
                    for got_part, expected_part in zip(
                        got, _expected(a, row_a, b, row_b, count, cut), strict=True
                    ):
                        np.testing.assert_array_equal(got_part, expected_part)


def test_kept_best_keeps_ties_and_sets_the_sign_bit():
    a = np.zeros((1, 64))
    b = np.zeros((1, 64))
    bits, args, tops = _words(a, 0, b, 0, 64, 0.0)
    assert (bits[0], args[0], tops[0]) == (-1, 0, 0.0)  # all 64 bits, the sign bit included
    b[0, 63] = -10.0
    a[0, 63] = 5.0  # the best a fails the cut: the best kept one is label 0
    a[0, 10] = -0.0  # equal to 0.0: still not the first
    bits, args, tops = _words(a, 0, b, 0, 64, 0.0)
    assert (bits[0], args[0], tops[0]) == ((1 << 63) - 1, 0, 0.0)
    # ties between lanes, blocks of four and the scalar tail: the lowest label wins wherever it sits
    for labels in ([5, 2], [2, 5], [7, 4, 44], [44, 3], [44, 43], [1, 41]):
        a = np.zeros((1, 45))
        a[0, labels] = 1.0
        bits, args, tops = _words(a, 0, np.zeros((1, 45)), 0, 45, 0.0)
        assert (args[0], tops[0]) == (min(labels), 1.0), labels


@numba.njit
def _max_plus(a, row_a, b, row_b, count):
    return max_plus(a, row_a, b, row_b, count)


@pytest.mark.parametrize("width", [0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 16, 45, 64, 130])
def test_max_plus_is_the_largest_sum_whatever_the_width(width):
    rng = np.random.default_rng(width)
    a = rng.normal(size=(2, max(width, 1)))
    b = rng.normal(size=(3, max(width, 1)))
    for row_a in range(2):
        for row_b in range(3):
            for count in {width, width // 2}:
                expected = (a[row_a, :count] + b[row_b, :count]).max() if count else -np.inf
                assert _max_plus(a, row_a, b, row_b, count) == expected
    if width:  # the largest sum in any lane or the scalar tail
        for x in range(width):
            c = -np.ones((1, width))
            c[0, x] = 1.0
            assert _max_plus(c, 0, c, 0, width) == 2.0


@numba.njit
def _zeros(values):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = trailing_zeros(values[i])
    return out


def test_trailing_zeros_is_the_lowest_set_bit_and_64_for_zero():
    values = np.array([0, 1, 2, 12, -1, np.iinfo(np.int64).min, 1 << 40, -(1 << 62)], dtype=np.int64)
    np.testing.assert_array_equal(_zeros(values), [64, 0, 1, 2, 0, 63, 40, 62])


def test_other_layouts_are_refused_when_the_kernel_compiles():
    a = np.zeros((4, 6))
    with pytest.raises(TypingError, match="C-contiguous float64 matrix"):
        _words(np.asfortranarray(a), 0, a, 0, 6, 0.0)
    with pytest.raises(TypingError, match="C-contiguous float64 matrix"):
        _words(a.astype(np.float32), 0, a, 0, 6, 0.0)
    with pytest.raises(TypingError, match="C-contiguous float64 matrix"):
        _max_plus(a, 0, np.asfortranarray(a), 0, 6)


@pytest.mark.parametrize("n_labels", [1, 2, 7, 45, 64, 65, 130])
@pytest.mark.parametrize("n", [1, 2, 5])
def test_eq14_kept_lists_are_every_label_that_passes_the_cut_in_order(n_labels, n):
    """_setup's kept lists (built from the bit masks) hold exactly the labels whose upper bound reaches the cut,
    in increasing order, whatever the number of 64-label words and kept labels (the branch-free part takes 8)."""
    rng = np.random.default_rng(n_labels * 10 + n)
    tau = rng.normal(size=(n_labels, n_labels))
    tables = _transition_tables(tau)
    for scale in (0.1, 1.0, 30.0):  # few to almost all labels kept
        theta = np.ascontiguousarray(rng.normal(scale=scale, size=(n, n_labels)))
        theta[:, ::3] = np.round(theta[:, ::3], 1)  # ties for the seed
        msg, lab, vec, cnt, in_dom, flags, scr, cc = _workspace(n, n_labels)
        _setup(theta, tables, True, 0.0, lab, cnt, in_dom, vec)
        for i in range(n):
            if n == 1:
                low, high = np.zeros(n_labels), np.zeros(n_labels)
            elif i == 0:
                low, high = tau.min(axis=1), tau.max(axis=1)
            elif i == n - 1:
                low, high = tau.min(axis=0), tau.max(axis=0)
            else:
                low, high = tau.min(axis=0) + tau.min(axis=1), tau.max(axis=0) + tau.max(axis=1)
            lo = (theta[i] + low).max()
            upper = theta[i] + high
            kept = lab[_KEPT, i, : cnt[_NKEPT, i]]
            # the cut lies within a rounding slack below lo: every label clearly above it is kept, every label
            # clearly below it dropped, and the list is increasing without repeats
            assert set(np.flatnonzero(upper >= lo - 1e-6)) <= set(kept.tolist())
            assert set(kept.tolist()) <= set(np.flatnonzero(upper >= lo - 1e-9 * (1 + abs(lo)) - 1e-6))
            assert np.all(np.diff(kept) > 0)
            # the seed: the first kept label with the best theta_i
            assert lab[_DOM, i, 0] == kept[np.argmax(theta[i, kept])]


@numba.njit
def _blocked_step(score, tau, n_prev, b0, best, arg, vectors_only):
    if vectors_only:
        argmax_vector(score, tau, n_prev, b0, best, arg)
    else:
        argmax_block(score, tau, n_prev, b0, best, arg)


@numba.njit
def _blocked_max(score, tau, n_prev, b0, best, vectors_only):
    if vectors_only:
        max_vector(score, tau, n_prev, b0, best)
    else:
        max_block(score, tau, n_prev, b0, best)


@pytest.mark.parametrize("vectors_only", [False, True])
def test_register_blocked_steps_are_the_max_plus_step_with_the_first_argument(vectors_only):
    """Integer scores (ties everywhere) and forbidden (-inf) cells, whole rows of -inf included: the maxima equal
    numpy's, the argument is the first predecessor attaining each maximum, and nothing outside the block is
    written."""
    rng = np.random.default_rng(7)
    span = HOST_LANES * (1 if vectors_only else BLOCK_VECTORS)
    for n_prev in (1, 2, 5, 17, 45):
        width = 2 * span + HOST_LANES
        score = rng.integers(-2, 3, size=n_prev).astype(np.float64)
        score[rng.random(n_prev) < 0.2] = -np.inf
        tau = rng.integers(-2, 3, size=(n_prev, width)).astype(np.float64)
        tau[rng.random(tau.shape) < 0.3] = -np.inf
        tau[:, span + 1] = -np.inf  # a successor no predecessor reaches: argument 0, as the loops give
        for b0 in (0, span, span + HOST_LANES):
            if b0 + span > width:
                continue
            best = np.full(width, 99.0)
            arg = np.full(width, -7, dtype=np.int32)
            _blocked_step(score, tau, n_prev, b0, best, arg, vectors_only)
            cells = score[:, None] + tau[:, b0 : b0 + span]
            np.testing.assert_array_equal(best[b0 : b0 + span], cells.max(axis=0))
            np.testing.assert_array_equal(
                arg[b0 : b0 + span], cells.argmax(axis=0)
            )  # numpy: the first maximum
            outside = np.r_[0:b0, b0 + span : width]
            assert np.all(best[outside] == 99.0) and np.all(arg[outside] == -7)
            only = np.full(width, 99.0)
            _blocked_max(score, tau, n_prev, b0, only, vectors_only)
            np.testing.assert_array_equal(only, best)


def test_register_blocked_steps_refuse_other_layouts_when_compiling():
    with pytest.raises(TypingError, match="arg must be"):
        _blocked_step(np.zeros(2), np.zeros((2, 64)), 2, 0, np.zeros(64), np.zeros(64, dtype=np.int64), True)
    with pytest.raises(TypingError, match="C-contiguous"):
        _blocked_max(np.zeros(4)[::2], np.zeros((2, 64)), 2, 0, np.zeros(64), True)


@numba.njit
def _two_best(score1, score2, prev, tau, b0, best1, best2, arg1, arg2):
    two_best_block(score1, score2, prev, tau, b0, best1, best2, arg1, arg2)


def test_register_blocked_two_best_step_keeps_the_two_best_candidates_in_code_order():
    """Candidates 2k (score1[k] + tau) and 2k + 1 (score2[k] + tau, never above the first): best1/best2 are the
    two largest, ties to the smaller code; codes of -inf values are not compared (they stay 0)."""
    rng = np.random.default_rng(11)
    span = HOST_LANES * TWO_BEST_VECTORS
    for n_prev in (1, 2, 6, 23):
        width = 3 * span
        prev = rng.integers(0, width, size=n_prev).astype(np.int64)  # rows of tau, in any order
        score1 = rng.integers(-2, 3, size=n_prev).astype(np.float64)
        score2 = score1 - rng.integers(0, 2, size=n_prev)
        score2[rng.random(n_prev) < 0.3] = -np.inf
        tau = rng.integers(-2, 3, size=(width, width)).astype(np.float64)
        tau[rng.random(tau.shape) < 0.3] = -np.inf
        b0 = span
        out = [
            np.full(width, 5.0),
            np.full(width, 5.0),
            np.full(width, -1, np.int32),
            np.full(width, -1, np.int32),
        ]
        _two_best(score1, score2, prev, tau, b0, *out)
        for b in range(b0, b0 + span):
            values = np.empty(2 * n_prev)
            values[0::2] = score1 + tau[prev, b]
            values[1::2] = score2 + tau[prev, b]
            order = np.lexsort((np.arange(2 * n_prev), -values))  # value descending, then code ascending
            for rank, (best, arg) in enumerate(((out[0], out[2]), (out[1], out[3]))):
                expected = values[order[rank]] if rank < len(order) else -np.inf
                assert best[b] == expected
                if expected > -np.inf:
                    assert arg[b] == order[rank]
        outside = np.r_[0:b0, b0 + span : width]
        assert np.all(out[0][outside] == 5.0) and np.all(out[3][outside] == -1)
