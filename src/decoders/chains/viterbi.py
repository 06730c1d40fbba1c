"""The Viterbi family for linear chains (numba kernels): exact 1-best and 2-best, over full or pruned domains.

Every kernel maximises ``sum_i theta[i, y_i] + sum_i tau[y_i, y_{i+1}]`` exactly (max-product dynamic
programming over forward messages, then back-tracing).

Ties are broken deterministically and identically by every kernel here: among sequences of equal score the one
with the smaller *last* label wins, then the smaller second-to-last label, and so on (the lexicographic order of
the reversed sequences). The DP gets this by keeping the first (smallest) predecessor that attains a maximum.
Eq. 14 pruning never removes a label used by an optimal sequence (with two dominators: by any sequence scoring
at least the second best), so the pruned kernels return exactly what their unpruned counterparts return.

Kernels:

* :func:`_viterbi` -- the baseline every speed-up is measured against, O(n L^2), tuned (see its docstring).
* :func:`_prune_domains` -- eq. 14 of Belanger et al. (2012) with the offline transition bounds.
* :func:`_viterbi_domains` / :func:`_viterbi_pruned` -- Viterbi over restricted domains, O(sum |D_i||D_i+1|).
* :func:`_viterbi_2best` / :func:`_viterbi_domains_2best` / :func:`_viterbi_pruned_2best` -- the best and the
  second-best *distinct* sequences (the paper's footnote 1: every maximisation becomes a two-best one).

No kernel uses fastmath: each candidate costs one addition and comparisons, in the order of the textbook
recurrence, so all kernels agree bit for bit. Scores are assumed finite; a sequence scoring ``-inf`` counts as
infeasible (never reported as a second best).

The kernels are private: they index without bounds checks and trust their arguments (n >= 1 tokens, ``theta``
n x L and finite, ``tau`` L x L without NaN or ``+inf``, sums that cannot overflow), which
:class:`~decoders.chains.instance.ChainInstance` checks once at construction, so the decoders call them directly.
The public :func:`viterbi` and :func:`viterbi_2best` check raw arrays the same way
(:func:`decoders.chains.checks.check_chain`), once per call, then call the kernels.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from decoders.chains.checks import check_chain
from decoders.chains.simd import (
    BLOCK_VECTORS,
    HOST_LANES,
    TWO_BEST_VECTORS,
    argmax_block,
    argmax_vector,
    two_best_block,
)

# A restricted step reads whole rows of tau (contiguous, vectorised: |D_i-1| L cells) instead of gathering
# tau[D_i-1, D_i] (|D_i-1| |D_i| cells) once the successor domain holds more than this share of the labels.
# Measured on this machine (n = 25, L = 45 and 343, 1-best and 2-best): a gathered cell costs about five
# contiguous ones (at L = 343 each one is a cache line from L2), and the two break even near 20%. The dense step
# then costs at most 5 |D_i-1| |D_i| cells, so a step stays O(|D_i-1| |D_i|), never O(L^2) for small domains.
_DENSE_SHARE = 0.2
_UNIT = 2.0**-53  # unit roundoff of float64
#: The kernels' ``tau`` may be wider than L (the decoders pass :func:`_padded_tau`, its width a multiple of
#: ``PAD``): the vectorised loops over successors then end on whole vectors, with no scalar remainder, and the
#: extra columns are -inf, so no padding label ever wins a maximum (a strict ``>`` keeps the first real one) and
#: the answers are the unpadded ones bit for bit. ``PAD`` is the CPU's float64 vector width
#: (:data:`decoders.chains.simd.HOST_LANES`: 4 with AVX2, 8 with AVX-512). Measured on this machine (AMD EPYC, Zen 3,
#: AVX2; niced, the machine shared; n = 24, L = 45, 50 and 343, compiled loops, medians of 40-60 alternations):
#: padding to 4 gave 1.03-1.17x on L = 45 and 50 for the four kernels and nothing measurable on L = 343; to 8 no
#: more than to 4, and on L = 50 (56 columns) from 0.87x to 1.02x across runs. The larger gains are elsewhere:
#: selects in place of branches in the row steps (1.2-1.5x: LLVM made the branches masked stores, slow on this
#: CPU) and the register blocking of :func:`_viterbi` (2-2.8x; docs/chains.md#viterbi-peak).
PAD = HOST_LANES


#: Bytes of a cache line: the padded ``tau`` starts on one, so that every row starts on a vector boundary.
_LINE = 64


def _padded_tau(tau: np.ndarray, pad: int = PAD) -> np.ndarray:
    """``tau`` (L x L) padded with -inf to ``P x P``, P the multiple of ``pad`` at or above L (C order, its data
    starting on a cache-line boundary)."""
    n_labels = tau.shape[0]
    width = -(-n_labels // pad) * pad
    raw = np.empty(width * width + _LINE // 8, dtype=np.float64)
    start = (-raw.ctypes.data % _LINE) // 8
    out = raw[start : start + width * width].reshape(width, width)
    out[:] = -np.inf
    out[:n_labels, :n_labels] = tau
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _step_rows(
    score: np.ndarray, prev: np.ndarray, tau: np.ndarray, best: np.ndarray, arg: np.ndarray
) -> None:
    """One max-product step over whole rows: ``best[b] = max_k score[k] + tau[prev[k], b]`` for every label b.

    ``arg[b]`` is the first k attaining the maximum (``prev`` is non-empty). Predecessors are the outer loop and
    successors the inner one, so the inner loop streams a contiguous row of ``tau`` and updates running maxima,
    which LLVM vectorises; the updates are selects and plain stores (branches would be masked stores: see
    :data:`PAD`). The first row initialises
    the maxima; then four predecessors are merged per pass (a tournament that keeps the smaller k on ties),
    quartering the loads and stores of the running maxima; two, then one, finish the rest. ``b`` runs over the
    whole width of ``tau`` (padded: :func:`_padded_tau`), so ``best`` and ``arg`` must be that long.
    """
    width = tau.shape[1]
    n_prev = prev.shape[0]
    s0 = score[0]
    row0 = tau[prev[0]]
    for b in range(width):
        best[b] = s0 + row0[b]
        arg[b] = 0
    k = 1
    while k + 3 < n_prev:
        row0 = tau[prev[k]]
        row1 = tau[prev[k + 1]]
        row2 = tau[prev[k + 2]]
        row3 = tau[prev[k + 3]]
        s0 = score[k]
        s1 = score[k + 1]
        s2 = score[k + 2]
        s3 = score[k + 3]
        for b in range(width):
            v0 = s0 + row0[b]
            v1 = s1 + row1[b]
            v2 = s2 + row2[b]
            v3 = s3 + row3[b]
            c = v1 > v0
            w0 = v1 if c else v0
            q0 = k + 1 if c else k
            c = v3 > v2
            w1 = v3 if c else v2
            q1 = k + 3 if c else k + 2
            c = w1 > w0
            v = w1 if c else w0
            q = q1 if c else q0
            old = best[b]
            better = v > old
            best[b] = v if better else old
            arg[b] = q if better else arg[b]
        k += 4
    if k + 1 < n_prev:
        row0 = tau[prev[k]]
        row1 = tau[prev[k + 1]]
        s0 = score[k]
        s1 = score[k + 1]
        for b in range(width):
            v0 = s0 + row0[b]
            v1 = s1 + row1[b]
            c = v1 > v0
            v = v1 if c else v0
            q = k + 1 if c else k
            old = best[b]
            better = v > old
            best[b] = v if better else old
            arg[b] = q if better else arg[b]
        k += 2
    if k < n_prev:
        s0 = score[k]
        row0 = tau[prev[k]]
        for b in range(width):
            v = s0 + row0[b]
            old = best[b]
            better = v > old
            best[b] = v if better else old
            arg[b] = k if better else arg[b]


@numba.njit(cache=True, nogil=True, inline="always")
def _step_gather(
    score: np.ndarray, prev: np.ndarray, cur: np.ndarray, tau: np.ndarray, best: np.ndarray, arg: np.ndarray
) -> None:
    """One max-product step between domains: ``best[j] = max_k score[k] + tau[prev[k], cur[j]]``, first k kept.

    Costs ``|prev| |cur|``; same loop layout and tournament as :func:`_step_rows`, reading ``tau`` by gather.
    """
    m = cur.shape[0]
    best[:m] = -np.inf
    arg[:m] = 0
    n_prev = prev.shape[0]
    k = 0
    while k + 3 < n_prev:
        row0 = tau[prev[k]]
        row1 = tau[prev[k + 1]]
        row2 = tau[prev[k + 2]]
        row3 = tau[prev[k + 3]]
        s0 = score[k]
        s1 = score[k + 1]
        s2 = score[k + 2]
        s3 = score[k + 3]
        for j in range(m):
            x = cur[j]
            v0 = s0 + row0[x]
            v1 = s1 + row1[x]
            v2 = s2 + row2[x]
            v3 = s3 + row3[x]
            c = v1 > v0
            w0 = v1 if c else v0
            q0 = k + 1 if c else k
            c = v3 > v2
            w1 = v3 if c else v2
            q1 = k + 3 if c else k + 2
            c = w1 > w0
            v = w1 if c else w0
            q = q1 if c else q0
            old = best[j]
            better = v > old
            best[j] = v if better else old
            arg[j] = q if better else arg[j]
        k += 4
    while k < n_prev:
        s0 = score[k]
        row0 = tau[prev[k]]
        for j in range(m):
            v = s0 + row0[cur[j]]
            old = best[j]
            better = v > old
            best[j] = v if better else old
            arg[j] = k if better else arg[j]
        k += 1


@numba.njit(cache=True, nogil=True, inline="always")
def _step_tail(
    score: np.ndarray, tau: np.ndarray, n_prev: int, start: int, best: np.ndarray, arg: np.ndarray
):
    """The max-product step for successors ``start <= b <`` tau's width, one at a time (what is left of an
    unpadded ``tau`` after the whole vectors): the first predecessor attaining each maximum, as the blocks."""
    for b in range(start, tau.shape[1]):
        top = score[0] + tau[0, b]
        where = 0
        for a in range(1, n_prev):
            v = score[a] + tau[a, b]
            if v > top:
                top = v
                where = a
        best[b] = top
        arg[b] = where


@numba.njit(cache=True, nogil=True)
def _viterbi(theta: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, float]:
    """The best label sequence (int64[n]) and its score; O(n L^2), vectorised and blocked in registers.

    ``tau`` is L x L, or padded wider with -inf (:func:`_padded_tau`; the decoders pass the padded one): the
    answer is the same bit for bit. Each step computes ``best[b] = max_a score[a] + tau[a, b]`` with the first
    maximising ``a`` for a block of successors at a time (:data:`decoders.chains.simd.BLOCK_VECTORS` vectors),
    whose maxima and arguments stay in registers while every predecessor's row segment streams past
    (:func:`decoders.chains.simd.argmax_block`): per cell one add, one compare and two selects, and no load or
    store of the running maxima. Then single vectors, then (unpadded ``tau`` only) single labels. Measured on
    this machine (niced, shared): 2-2.8x the cells per cycle of the previous kernel (predecessors outside,
    successors inside, running maxima in memory) at L = 45 and 50, 1.8x at L = 343 (docs/chains.md#viterbi-peak).
    """
    n, n_labels = theta.shape
    width = tau.shape[1]
    block = BLOCK_VECTORS * HOST_LANES
    blocked = width - width % block
    vectors = width - width % HOST_LANES
    score = theta[0].copy()
    best = np.empty(width, dtype=np.float64)
    back = np.empty((n, width), dtype=np.int32)
    for i in range(1, n):
        arg = back[i]
        for b0 in range(0, blocked, block):
            argmax_block(score, tau, n_labels, b0, best, arg)
        for b0 in range(blocked, vectors, HOST_LANES):
            argmax_vector(score, tau, n_labels, b0, best, arg)
        _step_tail(score, tau, n_labels, vectors, best, arg)
        for b in range(n_labels):
            score[b] = best[b] + theta[i, b]
    labels = np.empty(n, dtype=np.int64)
    last = 0
    for b in range(1, n_labels):
        if score[b] > score[last]:
            last = b
    labels[n - 1] = last
    for i in range(n - 1, 0, -1):
        labels[i - 1] = back[i, labels[i]]
    return labels, score[last]


@numba.njit(cache=True, nogil=True, inline="always")
def _max_of_sum(row: np.ndarray, shift: np.ndarray) -> float:
    """``max_x row[x] + shift[x]`` (-inf if empty).

    Four independent running maxima keep the loop from being bound by the latency of one long chain of
    comparisons; max is exact, so the grouping cannot change the result.
    """
    m0 = -np.inf
    m1 = -np.inf
    m2 = -np.inf
    m3 = -np.inf
    size = row.shape[0]
    x = 0
    while x + 3 < size:
        m0 = max(m0, row[x] + shift[x])
        m1 = max(m1, row[x + 1] + shift[x + 1])
        m2 = max(m2, row[x + 2] + shift[x + 2])
        m3 = max(m3, row[x + 3] + shift[x + 3])
        x += 4
    while x < size:
        m0 = max(m0, row[x] + shift[x])
        x += 1
    return max(max(m0, m1), max(m2, m3))


@numba.njit(cache=True, nogil=True, inline="always")
def _second_of_sum(row: np.ndarray, shift: np.ndarray, first: float) -> float:
    """The second largest ``row[x] + shift[x]`` given the largest ``first``: ``first`` again on a tie for it."""
    ties = 0
    below = -np.inf
    for x in range(row.shape[0]):
        value = row[x] + shift[x]
        ties += value == first
        below = max(below, value if value < first else -np.inf)
    return first if ties > 1 else below


@numba.njit(cache=True, nogil=True)
def _prune_domains(
    theta: np.ndarray,
    in_min: np.ndarray,
    in_max: np.ndarray,
    out_min: np.ndarray,
    out_max: np.ndarray,
    dominators: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 14 pruning: the labels each token may still take, as CSR ``(offsets int64[n+1], domain int64[...])``.

    Token i's domain is ``domain[offsets[i]:offsets[i+1]]`` (ascending label ids, never empty). With
    ``LB(x) = theta_i(x) + min_a tau(a, x) + min_b tau(x, b)`` and ``UB`` the same with maxima (the tau terms
    that do not exist at the first / last token left out), label x' is removed when ``dominators`` (1 or 2)
    distinct labels x have ``LB(x) > UB(x')``. One dominator keeps every optimal sequence (putting x for x'
    raises any sequence's score); two keep every sequence scoring at least the second best (the two
    replacements give two distinct strictly better sequences), which is what 2-best search needs. The comparison
    carries a slack that covers the rounding of both sums (a few ulps of the magnitudes involved), so rounding
    never removes a label; forbidden transitions (``-inf``) give ``UB = -inf`` to a label no label can reach or
    leave (removed) and ``LB = -inf`` to every label with one (it dominates nothing).
    """
    if dominators != 1 and dominators != 2:
        raise ValueError("dominators must be 1 or 2")
    n, n_labels = theta.shape
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    domain = np.empty(n * n_labels, dtype=np.int64)
    # The bounds' tau terms (LB in rows 0-3, UB in rows 4-7) for an inner token, the first, the last and a lone
    # token; one allocation, as this runs once per sentence.
    shifts = np.empty((8, n_labels), dtype=np.float64)
    scale = 0.0  # the largest finite |in_min| + |in_max| + |out_min| + |out_max|: rounding of the shifts
    for x in range(n_labels):
        total = 0.0
        for v in (in_min[x], in_max[x], out_min[x], out_max[x]):
            total += abs(v) if v > -np.inf else 0.0
        scale = max(scale, total)
        shifts[0, x] = in_min[x] + out_min[x]
        shifts[1, x] = out_min[x]
        shifts[2, x] = in_min[x]
        shifts[3, x] = 0.0
        shifts[4, x] = in_max[x] + out_max[x]
        shifts[5, x] = out_max[x]
        shifts[6, x] = in_max[x]
        shifts[7, x] = 0.0
    size = 0
    for i in range(n):
        case = 3 if n == 1 else (1 if i == 0 else (2 if i == n - 1 else 0))
        row = theta[i]
        shift_l = shifts[case]
        shift_u = shifts[4 + case]
        threshold = _max_of_sum(row, shift_l)
        if dominators == 2:
            threshold = _second_of_sum(row, shift_l, threshold)
        threshold -= 8.0 * _UNIT * (abs(threshold) + 4.0 * scale) if threshold > -np.inf else 0.0
        for x in range(n_labels):  # branch-free compaction: write every label, advance past the kept ones
            domain[size] = x
            upper = row[x] + shift_u[x]
            size += not threshold > upper + 8.0 * _UNIT * abs(upper)
        offsets[i + 1] = size
    return offsets, domain[:size]


@numba.njit(cache=True, nogil=True)
def _viterbi_domains(
    theta: np.ndarray, tau: np.ndarray, offsets: np.ndarray, domain: np.ndarray
) -> tuple[np.ndarray, float]:
    """Viterbi restricted to per-token domains (CSR as from :func:`_prune_domains`: ascending, non-empty).

    Messages and back-pointers are indexed by position within the domains, so the cost is
    ``O(sum_i |D_i-1| |D_i|)``; a step whose successor domain is large reads whole rows of ``tau`` instead of
    gathering (``|D_i-1| L`` contiguous cells, cheaper than ``|D_i-1| |D_i|`` gathered ones there).
    """
    n, n_labels = theta.shape
    width = tau.shape[1]
    work = np.empty((3, width), dtype=np.float64)  # one allocation: it runs once per sentence
    score = work[0]
    best = work[1]
    dense_best = work[2]
    # a step over whole rows writes `width` back-pointers from its token's start: past its own into the next
    # token's (which that token's step writes again) or, at the last token, into the slack; the dense scratch
    # comes after that
    back = np.empty(offsets[n] + 2 * width, dtype=np.int32)
    dense_arg = back[offsets[n] + width :]
    prev = domain[offsets[0] : offsets[1]]
    for j in range(prev.shape[0]):
        score[j] = theta[0, prev[j]]
    for i in range(1, n):
        cur = domain[offsets[i] : offsets[i + 1]]
        arg = back[offsets[i] : offsets[i + 1]]
        m = cur.shape[0]
        if m == n_labels:  # positions are labels: no copy
            _step_rows(score, prev, tau, best, back[offsets[i] : offsets[i] + width])
        elif m > _DENSE_SHARE * n_labels:
            _step_rows(score, prev, tau, dense_best, dense_arg)
            for j in range(m):
                best[j] = dense_best[cur[j]]
                arg[j] = dense_arg[cur[j]]
        else:
            _step_gather(score, prev, cur, tau, best, arg)
        for j in range(m):
            score[j] = best[j] + theta[i, cur[j]]
        prev = cur
    last = 0
    for j in range(1, prev.shape[0]):
        if score[j] > score[last]:
            last = j
    total = score[last]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        labels[i] = domain[offsets[i] + last]
        if i > 0:
            last = back[offsets[i] + last]
    return labels, total


@numba.njit(cache=True, nogil=True)
def _viterbi_pruned(
    theta: np.ndarray,
    tau: np.ndarray,
    in_min: np.ndarray,
    in_max: np.ndarray,
    out_min: np.ndarray,
    out_max: np.ndarray,
) -> tuple[np.ndarray, float, np.ndarray]:
    """Viterbi+P: eq. 14 pruning (one dominator) then Viterbi over the pruned domains.

    Returns ``(labels int64[n], score, sizes int64[n])``, ``sizes[i]`` being token i's pruned domain size;
    labels and score equal :func:`_viterbi`'s.
    """
    offsets, domain = _prune_domains(theta, in_min, in_max, out_min, out_max, 1)
    labels, total = _viterbi_domains(theta, tau, offsets, domain)
    return labels, total, np.diff(offsets)


# 2-best: every state keeps its two best prefixes; predecessor k offers its best (code 2k) and its second best
# (code 2k + 1). Candidates are visited in code order and only a strictly better one displaces a kept one, so
# ties keep the smaller code. The updates are written as selects, not branches, so the inner loops vectorise
# (measured: ~2.5x faster than the branchy form; unrolling over predecessors as in _step_rows made it slower).


@numba.njit(cache=True, nogil=True)
def _step2_rows(
    score1: np.ndarray,
    score2: np.ndarray,
    prev: np.ndarray,
    tau: np.ndarray,
    best1: np.ndarray,
    best2: np.ndarray,
    arg1: np.ndarray,
    arg2: np.ndarray,
) -> None:
    """One 2-best step over whole rows of ``tau`` (its whole width): the two best extensions into every label b.

    Whole vectors of successors go through :func:`decoders.chains.simd.two_best_block` (the running two best in
    registers while the predecessors stream past); what an unpadded ``tau`` leaves after them, through the same
    selects one label at a time."""
    n_labels = tau.shape[1]
    block = TWO_BEST_VECTORS * HOST_LANES
    vectors = n_labels - n_labels % block
    for b0 in range(0, vectors, block):
        two_best_block(score1, score2, prev, tau, b0, best1, best2, arg1, arg2)
    if vectors == n_labels:
        return
    best1[vectors:n_labels] = -np.inf
    best2[vectors:n_labels] = -np.inf
    arg1[vectors:n_labels] = 0
    arg2[vectors:n_labels] = 0
    for k in range(prev.shape[0]):
        s1 = score1[k]
        s2 = score2[k]
        row = tau[prev[k]]
        code1 = np.int32(2 * k)
        code2 = np.int32(2 * k + 1)
        for b in range(vectors, n_labels):
            c1 = s1 + row[b]
            c2 = s2 + row[b]
            b1 = best1[b]
            g1 = arg1[b]
            new1 = c1 > b1
            x = c2 if new1 else c1
            y = b1 if new1 else best2[b]
            kx = code2 if new1 else code1
            ky = g1 if new1 else arg2[b]
            take = x > y
            best2[b] = x if take else y
            arg2[b] = kx if take else ky
            best1[b] = c1 if new1 else b1
            arg1[b] = code1 if new1 else g1


@numba.njit(cache=True, nogil=True)
def _step2_gather(
    score1: np.ndarray,
    score2: np.ndarray,
    prev: np.ndarray,
    cur: np.ndarray,
    tau: np.ndarray,
    best1: np.ndarray,
    best2: np.ndarray,
    arg1: np.ndarray,
    arg2: np.ndarray,
) -> None:
    """One 2-best step between domains (``|prev| |cur|`` gathered cells), same updates as :func:`_step2_rows`."""
    m = cur.shape[0]
    best1[:m] = -np.inf
    best2[:m] = -np.inf
    arg1[:m] = 0
    arg2[:m] = 0
    for k in range(prev.shape[0]):
        s1 = score1[k]
        s2 = score2[k]
        row = tau[prev[k]]
        code1 = np.int32(2 * k)
        code2 = np.int32(2 * k + 1)
        for j in range(m):
            t = row[cur[j]]
            c1 = s1 + t
            c2 = s2 + t
            b1 = best1[j]
            g1 = arg1[j]
            new1 = c1 > b1
            x = c2 if new1 else c1
            y = b1 if new1 else best2[j]
            kx = code2 if new1 else code1
            ky = g1 if new1 else arg2[j]
            take = x > y
            best2[j] = x if take else y
            arg2[j] = kx if take else ky
            best1[j] = c1 if new1 else b1
            arg1[j] = code1 if new1 else g1


@numba.njit(cache=True, nogil=True)
def _two_best_final(score1: np.ndarray, score2: np.ndarray, m: int) -> tuple[int, float, int, float]:
    """The two best final states ``(code1, top1, code2, top2)`` among the first m positions."""
    top1 = -np.inf
    top2 = -np.inf
    code1 = 0
    code2 = 0
    for j in range(m):
        c1 = score1[j]
        if c1 > top1:
            if score2[j] > top1:
                top2 = score2[j]
                code2 = 2 * j + 1
            else:
                top2 = top1
                code2 = code1
            top1 = c1
            code1 = 2 * j
        elif c1 > top2:
            top2 = c1
            code2 = 2 * j
    return code1, top1, code2, top2


@numba.njit(cache=True, nogil=True)
def _trace_two_best(back: np.ndarray, offsets: np.ndarray, domain: np.ndarray, code: int) -> np.ndarray:
    """Follow 2-best back-pointers from the final state ``code``: the label sequence (int64[n]).

    ``back[rank, offsets[i] + j]`` is the code of the prefix kept as rank ``rank`` at token i, domain
    position j.
    """
    n = offsets.shape[0] - 1
    labels = np.empty(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        j = code // 2
        labels[i] = domain[offsets[i] + j]
        if i > 0:
            code = back[code % 2, offsets[i] + j]
    return labels


@numba.njit(cache=True, nogil=True)
def _viterbi_domains_2best(
    theta: np.ndarray, tau: np.ndarray, offsets: np.ndarray, domain: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray, float]:
    """2-best Viterbi over per-token domains (CSR as from :func:`_prune_domains`: ascending, non-empty).

    Returns ``(labels1, score1, labels2, score2)``: the best and the second-best distinct sequences, best
    first; ``labels2`` is empty and ``score2 = -inf`` when the domains admit a single sequence. Cost
    ``O(sum_i |D_i-1| |D_i|)``, with the same dense/gather choice per step as :func:`_viterbi_domains`.
    """
    n, n_labels = theta.shape
    width = tau.shape[1]
    score1 = np.empty(width, dtype=np.float64)
    score2 = np.empty(width, dtype=np.float64)
    best1 = np.empty(width, dtype=np.float64)
    best2 = np.empty(width, dtype=np.float64)
    # slack of `width` after the last token: a step over whole rows writes `width` back-pointers from its token's
    # start (past its own into the next token's, which that token's step writes again)
    back = np.empty((2, offsets[n] + width), dtype=np.int32)
    dense1 = np.empty(width, dtype=np.float64)
    dense2 = np.empty(width, dtype=np.float64)
    dense_arg1 = np.empty(width, dtype=np.int32)
    dense_arg2 = np.empty(width, dtype=np.int32)
    full = offsets[n] == n * n_labels  # every domain is all labels: positions are labels, no copies needed
    prev = domain[offsets[0] : offsets[1]]
    for j in range(prev.shape[0]):
        score1[j] = theta[0, prev[j]]
        score2[j] = -np.inf
    for i in range(1, n):
        cur = domain[offsets[i] : offsets[i + 1]]
        arg1 = back[0, offsets[i] : offsets[i + 1]]
        arg2 = back[1, offsets[i] : offsets[i + 1]]
        m = cur.shape[0]
        if full:
            rows1 = back[0, offsets[i] : offsets[i] + width]
            rows2 = back[1, offsets[i] : offsets[i] + width]
            _step2_rows(score1, score2, prev, tau, best1, best2, rows1, rows2)
        elif m > _DENSE_SHARE * n_labels:
            _step2_rows(score1, score2, prev, tau, dense1, dense2, dense_arg1, dense_arg2)
            for j in range(m):
                x = cur[j]
                best1[j] = dense1[x]
                best2[j] = dense2[x]
                arg1[j] = dense_arg1[x]
                arg2[j] = dense_arg2[x]
        else:
            _step2_gather(score1, score2, prev, cur, tau, best1, best2, arg1, arg2)
        for j in range(m):
            th = theta[i, cur[j]]
            score1[j] = best1[j] + th
            score2[j] = best2[j] + th
        prev = cur
    code1, top1, code2, top2 = _two_best_final(score1, score2, prev.shape[0])
    labels1 = _trace_two_best(back, offsets, domain, code1)
    if top2 == -np.inf:
        return labels1, top1, np.empty(0, dtype=np.int64), top2
    return labels1, top1, _trace_two_best(back, offsets, domain, code2), top2


@numba.njit(cache=True, nogil=True)
def _viterbi_2best(theta: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, float]:
    """The best and second-best distinct sequences over all labels, O(n L^2).

    Returns ``(labels1, score1, labels2, score2)`` as :func:`_viterbi_domains_2best` (``labels2`` empty and
    ``score2 = -inf`` when L = 1); ``labels1``/``score1`` equal :func:`_viterbi`'s.
    """
    n, n_labels = theta.shape
    offsets = np.arange(n + 1) * n_labels
    domain = np.empty(n * n_labels, dtype=np.int64)
    for i in range(n):
        domain[i * n_labels : (i + 1) * n_labels] = np.arange(n_labels)
    return _viterbi_domains_2best(theta, tau, offsets, domain)


@numba.njit(cache=True, nogil=True)
def _viterbi_pruned_2best(
    theta: np.ndarray,
    tau: np.ndarray,
    in_min: np.ndarray,
    in_max: np.ndarray,
    out_min: np.ndarray,
    out_max: np.ndarray,
) -> tuple[np.ndarray, float, np.ndarray, float, np.ndarray]:
    """Viterbi+P 2-best: eq. 14 pruning with two dominators, then 2-best Viterbi over the pruned domains.

    Returns ``(labels1, score1, labels2, score2, sizes int64[n])``; the sequences and scores equal
    :func:`_viterbi_2best`'s.
    """
    offsets, domain = _prune_domains(theta, in_min, in_max, out_min, out_max, 2)
    labels1, score1, labels2, score2 = _viterbi_domains_2best(theta, tau, offsets, domain)
    return labels1, score1, labels2, score2, np.diff(offsets)


# --------------------------------------------------------------------------- public, checked entry points


def viterbi(theta: Any, tau: Any) -> tuple[np.ndarray, float]:
    """The best label sequence (int64[n]) and its score, by exact Viterbi (ties as in the module docstring).

    ``theta`` is n x L (n >= 1 tokens) of finite scores; ``tau`` is L x L, ``-inf`` marking a forbidden
    transition; some label sequence must avoid every forbidden transition, and the scores must be small enough
    that no sum overflows (``decoders.chains.checks.MAX_MAGNITUDE``). A ValueError names the argument otherwise.
    """
    theta, tau = check_chain(theta, tau)
    return _viterbi(theta, tau)


def viterbi_2best(theta: Any, tau: Any) -> tuple[np.ndarray, float, np.ndarray, float]:
    """The best and the second-best distinct label sequences and their scores, ``(labels1, score1, labels2,
    score2)``; ``labels2`` is empty and ``score2 = -inf`` when no other feasible sequence exists. Arguments as
    for :func:`viterbi`."""
    theta, tau = check_chain(theta, tau)
    return _viterbi_2best(theta, tau)
