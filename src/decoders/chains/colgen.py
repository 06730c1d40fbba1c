"""Exact MAP inference in chains by column generation (Belanger et al. 2012, sections 3-5, Fig. 1), numba kernels.

Column generation (CG) solves the chain LP over *restricted domains* ``D_i`` (initially ``{argmax theta_i}``,
or the best label eq. 14 keeps when it rules the argmax out) by max-product messages, asks a reduced-cost
oracle for labels that could improve the objective, adds them, and repeats until no edge setting has positive
reduced cost: the restricted solution is then the exact optimum.

**Messages.** Positions are ``0..n-1``, edge ``i`` joins ``i`` and ``i+1``; the objective is
``sum_i theta_i(y_i) + sum_i tau(y_i, y_{i+1})``.  Eq. 7 and eq. 11 are
``alpha_0 = 0``, ``alpha_{i+1}(b) = max_{a in D_i} alpha_i(a) + theta_i(a) + tau(a, b)`` and
``beta_{n-1} = 0``, ``beta_{i-1}(a) = max_{b in D_i} beta_i(b) + theta_i(b) + tau(a, b)``.  Labels outside
``D_i`` get their duals from the same update over the neighbour's restricted domain (section 4.2), so that
un-generated labels have informative reduced costs.  Messages are stored *normalised*: ``alpha_i = O_i +
a_i`` with ``O_{i+1} = O_i + M_i`` and ``M_i = max_{x in D_i} a_i(x) + theta_i(x)``, i.e.
``a_{i+1}(b) = max_{a in D_i} (a_i(a) + theta_i(a) - M_i) + tau(a, b)`` (``beta`` likewise with ``K_i``).  Every
reduced cost is free of the offsets ``O``, and the restricted optimum is ``N+ = sum_i M_i``.  This is what makes
the warm start of section 4.2 cheap: behind a domain of size one ``a_{i+1} = tau(d, .)`` whatever happens
upstream, so a change in one domain re-computes messages only until they come out identical again, and the
oracle re-prices only edges whose messages changed (section 4.3).

**Reduced costs** ``R_i(a, b) = w tau(a, b) + P_i(a) + Q_{i+1}(b)`` (the eq. 13 split), oracle scale:

* eq. 12 (``reduced_cost=0``, the paper's CG; the value is ``2R``, ``w = 2``):
  ``P_i = theta_i + a_i - b_i - M_i``, ``Q_{i+1} = theta_{i+1} + b_{i+1} - a_{i+1} - K_{i+1}``;
* eq. 8 (``reduced_cost=1``, CG-alpha, ``w = 1``): ``P_i = a_i + theta_i - M_i``, ``Q_{i+1} = -a_{i+1}``;
* eq. 9 (``reduced_cost=2``, CG-alpha+theta, ``w = 1``): the LP that bills half of each local score to either
  adjacent edge (phantom edges at both ends); its forward messages are
  ``a'_{i+1}(b) = max_a (a'_i(a) + theta_i(a) / 2 - M'_i) + tau(a, b) + theta_{i+1}(b) / 2``, ``a'_0 = theta_0 / 2``,
  ``P_i = a'_i + theta_i / 2 - M'_i``, ``Q_{i+1} = theta_{i+1} / 2 - a'_{i+1}``.  With max-product duals
  ``a' = a + theta / 2``, so eq. 9 prices every pair exactly as eq. 8 does (up to rounding, which ``eps``
  below absorbs): the two LPs differ only in how they are written down and generate the same columns.

**Certified bound.** Telescoping the sums of ``R`` along any sequence ``y`` gives, for *any* message values,

    score(y) = N + sum_i R_i(y_i, y_{i+1}) + rho_start(y_0) + rho_end(y_{n-1})                          (*)

(``R`` in its own units, i.e. half the oracle value for eq. 12).  For eq. 8 and 9: ``N = N+``,
``rho_end(x) = a_{n-1}(x) + g theta_{n-1}(x) - M_{n-1}`` (``g = 1``, resp. ``1/2``), ``rho_start = 0``.  For
eq. 12: ``N = (N+ + N-) / 2`` with ``N- = sum_i K_i``, ``rho_end = (a_{n-1} + theta_{n-1} - M_{n-1}) / 2`` and
``rho_start = (b_0 + theta_0 - K_0) / 2``.  Proof for eq. 8: ``sum_{i<n-1} alpha_i(y_i) + theta_i(y_i) +
tau(y_i, y_{i+1}) - alpha_{i+1}(y_{i+1})`` telescopes to ``score(y) - theta_{n-1}(y_{n-1}) - alpha_{n-1}(y_{n-1})``
because ``alpha_0 = 0``, and ``alpha_{n-1} = O_{n-1} + a_{n-1}`` with ``O_{n-1} + M_{n-1} = N+``; the beta sum
telescopes the same way from the right, eq. 12 averages the two, eq. 9 is eq. 8 with halves.  The ``rho`` are
the reduced costs of the LP's phantom edges at the chain's ends, and the oracle prices them like edges (for
eq. 8 this is necessary: without them the last label could never change).  Hence

    max_y score(y) <= N + sum_i max_{a,b} R_i(a, b) + max_x rho_start(x) + max_x rho_end(x),

the Lagrangian (dual) bound that CG-DG uses.  Pairs inside the restricted LP have ``R <= 0`` (the messages
maximise over them) and the oracle finds every pair above its threshold ``eps`` (Fig. 1 discards only pairs
whose upper bound is ``<= eps``), so each maximum is known exactly when it exceeds ``eps`` and is ``<= eps``
otherwise.  ``eps = 1e-11 (max |theta| + max |tau|)``, both maxima taken over what can be in the optimum (the
best kept ``theta_i`` per token; the oracle's transition bounds ``U_tau`` of the model, except those of a side of a
label that is wholly forbidden), absorbs rounding (eq. 9's tight pairs otherwise come out at ``+-1 ulp`` and would
be generated for nothing); an entry that only forbids something never widens it.

**Certificate.**  (*) holds for whatever values the messages hold, so rounding enters only where the reduced
costs and the oracle's bounds are summed from them; :func:`_rounding` bounds that error ``E`` by the magnitudes
involved.  At convergence ``optimum <= N + terms (eps + E) / w`` (plus the rounding of ``N``'s sum), and CG
reports ``optimal`` (bound = score) only when that is within ``1e-9`` of the sum of ``|terms|`` of the sequence's
score; otherwise (huge magnitudes that cancel) exact Viterbi decides (``fallback``), so a rounding error can
never certify a wrong sequence.  CG-DG reports this bound.

**Forbidden transitions** are ``-inf`` in ``tau``.  The LP runs on ``tau'``, ``tau`` with every ``-inf`` raised to
a finite floor far below the finite entries (:func:`_transition_tables`): the restricted LPs stay feasible and the
messages finite.  ``tau' >= tau``, with equality on every feasible sequence, so the optimum of ``tau'`` is the true
optimum whenever it uses no floor transition; the kernel scores its answer with the true ``tau`` and falls back to
Viterbi when it does (a floor not deep enough for that sentence).

**Eq. 14 pruning** restricts the oracle and the out-of-domain messages to labels that are not provably
suboptimal: ``x'`` at position ``i`` is dropped when some ``x`` has ``theta_i(x) + in_min(x) + out_min(x) >
theta_i(x') + in_max(x') + out_max(x') + margin`` (transition terms omitted at the chain's ends): swapping
``x'`` for ``x`` then gains more than ``margin`` in any sequence. The best lower bound over all ``x`` is used;
section 4.3 takes the local argmax's, which keeps half as many labels again at 343 labels. With ``margin = 0``
every optimal sequence uses kept labels only, so the maxima above may be taken over kept labels; the 2-best
oracle uses ``margin = delta``, which keeps every label of every sequence within ``delta`` of the optimum.

**Entry points.** :func:`column_generation` and :func:`cg_two_best` (Python, rich results with statistics; they
check every argument once per call); the private kernels, which trust their arguments (the decoders pass a
ChainInstance's, checked at construction): :func:`_cg_kernel` and :func:`_two_best_kernel` (the same as single numba
calls, usable inside numba loops);
:func:`_cg_packed` (:func:`_cg_kernel` with one array to box: the decoders' call from Python);
:func:`_cg_labels` (labels and score only: the leanest call, for timing loops).  The kernels take ``theta``
C-contiguous (the Python entry points make it so) and the transition data as :func:`_transition_tables` packs it
(``ChainScores.cg_tables``).  ``theta`` must be finite and the chain feasible (some sequence avoids every forbidden
transition): ``ChainInstance`` and the Python entry points check both once, outside the kernels (a scan of
``theta`` inside the kernel cost 6% of a POS sentence's decode).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from decoders.chains.checks import check_chain, check_flag, check_gap, check_reduced_cost
from decoders.chains.simd import kept_best, max_plus, trailing_zeros
from decoders.chains.viterbi import _viterbi, _viterbi_2best
from decoders.checks import check_float
from decoders.harness.loops import cycles

#: ``reduced_cost`` codes: eq. 12 (two-sided, the default CG), eq. 8 (CG-alpha), eq. 9 (CG-alpha+theta).
EQ12, EQ8, EQ9 = 0, 1, 2

_SOLVED, _PENDING = 1, 2  # in_dom: 0 = not generated, 1 = in the solved restricted LP, 2 = added this round
_EPS = 1e-11  # the oracle's threshold, relative to the scale of what can be in the optimum (module docstring)

# Work arrays, packed so that kernels take few arrays and make no views (see the performance note below):
_A, _B, _P, _Q = 0, 1, 2, 3  # msg (4, n, L) float: normalised alpha and beta, the oracle's P and Q (eq. 13)
_BP, _DOM, _KEPT = 0, 1, 2  # lab (3, n, L + 1) uint32: back-pointers (first: C' of i - 1), domains, eq. 14
_M, _K, _U, _U2 = 0, 1, 2, 3  # vec (4, n) float: M_i, K_i, max P_i, U' of edge i - 1 in the first round
_DSZ, _NKEPT, _NC2 = 0, 1, 2  # cnt (3, n) int64: domain sizes, survivor counts, |C'| of edge i - 1 (round 1)
# flags (4, n) int8: the domain grew this round; forward (a, M), backward (b, K) messages changed; _forward wrote
# back-pointers at this position (until it does, every label's is the first restricted LP's, d_{j-1})
_GROWN, _FWD, _BWD, _TRACED = 0, 1, 2, 3
# _transition_tables rows (_T_TAU_T + 2L, L), all of the finite stand-in tau' (forbidden transitions at the floor):
# eq. 14's transition terms per token kind (OUT_MAX and IN_MAX are also the oracle's U_tau), max |tau'| per row and
# per column, then scalars, each in column 0 of its own row (so that any L >= 1 holds them): eq. 14's rounding
# slack max_x |in_min| + |in_max| + |out_min| + |out_max|, the floor (-inf when nothing is forbidden), max |tau'|,
# the transition scale of eps (the largest |in_max| and |out_max| that is not the floor), and per token kind (lone,
# first, last, inner) the largest upper transition term of eq. 14; then tau' transposed, tab[_T_TAU_T + b, a] =
# tau'[a, b] (columns read contiguously), then tau' itself, tab[_T_TAU_T + L + a, b] = tau'[a, b]
_T_ZERO, _T_OUT_MIN, _T_OUT_MAX, _T_IN_MIN, _T_IN_MAX = range(5)
_T_INNER_MIN, _T_INNER_MAX, _T_ROW_ABS, _T_COL_ABS = range(5, 9)
_T_SLACK, _T_FLOOR, _T_TAU_ABS, _T_TAU_SCALE, _T_HI_MAX, _T_TAU_T = 9, 10, 11, 12, 13, 17  # _T_HI_MAX + kind
_LONE, _FIRST, _LAST, _INNER = range(4)  # token kinds: rows _T_HI_MAX + kind
_UNIT = 2.0**-53  # unit roundoff of float64
#: What a profile (:func:`_cg_profile`) counts: time-stamp-counter cycles spent in each phase of CG, then the
#: rounds (restricted LP solves) and tokens decoded.
PHASES = (
    "workspace",
    "setup (eq. 14)",
    "first restricted LP",
    "forward messages",
    "backward messages",
    "reduced-cost oracle",
    "end pricing",
    "bookkeeping",
    "trace and certificate",
)
_PH_WORK, _PH_SETUP, _PH_FIRST, _PH_FWD, _PH_BWD, _PH_ORACLE, _PH_ENDS, _PH_BOOK, _PH_CERT = range(9)
_PH_ROUNDS, _PH_TOKENS = 9, 10
_CERT_RTOL = 1e-9  # certified optimal: within this share of the solution's magnitude (= harness EXACT_RTOL)
_FLOOR_DEPTH = 1e3  # the floor lies this many ranges of the finite tau below its minimum


class CGResult(NamedTuple):
    """Column generation's answer and its statistics (section 7 reports all of them)."""

    labels: np.ndarray  # int64[n], the best sequence found (optimal when ``converged``)
    score: float  # its model score
    bound: float  # certified upper bound on the optimum (dual objective); == score when converged
    converged: bool  # False only when CG-DG stopped on the duality gap
    iterations: int  # restricted LP solves (= oracle rounds)
    oracle_calls: int  # edge oracles run (edges whose reduced costs cannot have changed are skipped)
    oracle_candidates: np.ndarray  # int64[oracle_calls]: candidate pairs |C| x |C'| evaluated by each call
    domain_sizes: np.ndarray  # int64[n], final |D_i|
    messages_recomputed: int  # position message vectors (a_i or b_i) computed over all iterations
    fallback: bool  # True when the certificate did not hold in floating point and Viterbi decided instead


class TwoBestResult(NamedTuple):
    """The 0/1-loss oracle's answer: the best sequence and the best other sequence within ``delta`` of it."""

    best: np.ndarray  # int64[n]
    best_score: float
    second: np.ndarray | None  # int64[n], or None when no other sequence scores >= best_score - delta
    second_score: float | None
    domain_sizes: np.ndarray  # int64[n], |D_i| after the delta expansion (the 2-best search space)
    cg: CGResult  # the column generation run that certified the best sequence


# --------------------------------------------------------------------------- profile


@numba.njit(cache=True, nogil=True)
def _tick(prof):
    """The time-stamp counter with a profile (an int64 array of counters); 0 without one (``None``, the decoders'
    case, where numba prunes the branch at compile time: the profile costs the decoders nothing)."""
    if prof is None:
        return 0
    return cycles()


@numba.njit(cache=True, nogil=True)
def _lap(prof, phase, start):
    """Add the cycles since ``start`` to ``prof[phase]`` and return the counter (nothing and 0 without a profile)."""
    if prof is None:
        return 0
    now = cycles()
    prof[phase] += now - start
    return now


# --------------------------------------------------------------------------- set-up
#
# Performance note: at 45 labels the arithmetic is so cheap that bookkeeping dominates.  Kernels are called once
# per round (never per edge or label), index packed arrays directly instead of taking views, and avoid ``break``
# out of loops: every view, and every array argument of a kernel whose reference counts numba cannot prune (a
# ``break`` prevents the pruning), costs a pair of atomic reference-count updates.  Seen from Python, every
# argument costs ~0.04 us to dispatch and every returned array ~0.35 us to box (a 45-label sentence takes ~3 us
# in all), hence :func:`_transition_tables` and :func:`_cg_packed`.  Label ids, and the counts and rows computed
# from them, index as unsigned integers: numba tests every signed index for a negative value (then adds the
# dimension), which cost CG 10% on WSJ (label ids were int32); a loop counter from ``range`` needs no cast, LLVM
# knows it is not negative.  (Beware numba's types: a uint64 plus a signed integer or a bool is a float64.)


@numba.njit(cache=True, nogil=True)
def _transition_tables(tau: np.ndarray) -> np.ndarray:
    """What CG reads besides ``theta`` and ``tau``, packed as one ``(10 + 2L, L)`` array (``ChainScores.cg_tables``
    caches it per model; one argument is cheaper to pass than five): rows ``_T_*`` -- zero, ``out_min``,
    ``out_max``, ``in_min``, ``in_max``, ``in_min + out_min`` and ``in_max + out_max``, i.e. eq. 14's lower and
    upper transition terms for a lone token, the first, the last and an inner token (``_T_OUT_MAX`` and
    ``_T_IN_MAX`` are also the oracle's bounds ``U_tau``), the largest ``|tau'|`` of every row and column, the
    scales (see the constants above), then ``tau'`` transposed and ``tau'``.

    ``tau'`` is ``tau`` with every forbidden transition (``-inf``) raised to a finite floor, ``_FLOOR_DEPTH``
    ranges of the finite entries below their minimum: CG solves the chain with ``tau'``, whose optimum is the
    true one whenever it uses no floor transition (``tau' >= tau``, equal on every feasible sequence); the
    kernel checks that and falls back to Viterbi otherwise.  ``tau`` must hold no NaN or ``+inf``
    (``ChainScores`` refuses them)."""
    n_labels = tau.shape[0]
    low = np.inf
    high = -np.inf
    for a in range(n_labels):
        for b in range(n_labels):
            if tau[a, b] > -np.inf:
                low = min(low, tau[a, b])
                high = max(high, tau[a, b])
    floor = -np.inf
    if low == np.inf:  # everything forbidden: only one-token sentences are feasible
        low = high = 0.0
    tables = np.zeros((_T_TAU_T + 2 * n_labels, n_labels))
    for a in range(n_labels):
        for b in range(n_labels):
            t = tau[a, b]
            if t == -np.inf:
                floor = low - _FLOOR_DEPTH * (1.0 + high - low)
                t = floor
            tables[_T_TAU_T + b, a] = t
            tables[_T_TAU_T + n_labels + a, b] = t
    sur = tables[_T_TAU_T + n_labels :]
    scale = 0.0
    for x in range(n_labels):
        tables[_T_OUT_MIN, x] = sur[x].min()
        tables[_T_OUT_MAX, x] = sur[x].max()
        tables[_T_IN_MIN, x] = sur[:, x].min()
        tables[_T_IN_MAX, x] = sur[:, x].max()
        tables[_T_ROW_ABS, x] = np.abs(sur[x]).max()
        tables[_T_COL_ABS, x] = np.abs(sur[:, x]).max()
    tau_abs = 0.0
    tau_scale = 0.0
    for x in range(n_labels):
        tables[_T_INNER_MIN, x] = tables[_T_IN_MIN, x] + tables[_T_OUT_MIN, x]
        tables[_T_INNER_MAX, x] = tables[_T_IN_MAX, x] + tables[_T_OUT_MAX, x]
        total = abs(tables[_T_IN_MIN, x]) + abs(tables[_T_IN_MAX, x])
        scale = max(scale, total + abs(tables[_T_OUT_MIN, x]) + abs(tables[_T_OUT_MAX, x]))
        tau_abs = max(tau_abs, tables[_T_ROW_ABS, x])
        for bound in (tables[_T_IN_MAX, x], tables[_T_OUT_MAX, x]):
            if bound > floor:  # a label whose every entry on one side is forbidden never uses that side
                tau_scale = max(tau_scale, abs(bound))
    tables[_T_SLACK, 0] = scale
    tables[_T_FLOOR, 0] = floor
    tables[_T_TAU_ABS, 0] = tau_abs
    tables[_T_TAU_SCALE, 0] = tau_scale
    for kind, row in ((_FIRST, _T_OUT_MAX), (_LAST, _T_IN_MAX), (_INNER, _T_INNER_MAX)):
        tables[_T_HI_MAX + kind, 0] = tables[row].max()
    return tables


@numba.njit(cache=True, nogil=True, inline="always")
def _eq14_rows(n, i):
    """Eq. 14's rows of ``tab`` for token ``i`` of ``n``: ``(lower terms, upper terms, token kind)``; no transition
    terms for a single token, one side at either end."""
    if n == 1:
        return _T_ZERO, _T_ZERO, _LONE
    if i == 0:
        return _T_OUT_MIN, _T_OUT_MAX, _FIRST
    if i == n - 1:
        return _T_IN_MIN, _T_IN_MAX, _LAST
    return _T_INNER_MIN, _T_INNER_MAX, _INNER


@numba.njit(cache=True, nogil=True, inline="always")
def _append_kept(lab, i, k, bits, first):
    """Append label ``first + j`` for every set bit ``j`` of ``bits`` to ``i``'s kept list from position ``k``, in
    increasing order, and return the new length: branch-free for the usual few labels (when none is left, the id
    written at the end, 64 past ``first``, is overwritten by the next word's or never read: the list has L + 1
    columns), in a loop beyond."""
    for _ in range(8):
        lab[_KEPT, i, k] = first + trailing_zeros(bits)
        k += np.uint64(bits != 0)
        bits &= bits - 1
    while bits != 0:
        lab[_KEPT, i, k] = first + trailing_zeros(bits)
        k += np.uint64(1)
        bits &= bits - 1
    return k


@numba.njit(cache=True, nogil=True)
def _setup(theta, tab, prune, margin, lab, cnt, in_dom, vec):
    """List the labels eq. 14 keeps (``margin`` as in the module docstring), seed ``D_i`` with the first best
    kept label by ``theta_i`` and return ``(eps, E, S)`` (``theta`` is checked once, outside the timed kernel: by
    the Python entry points and by ``ChainInstance``).  ``eps`` is relative to what can be in the optimum: the best
    kept ``theta_i`` and the transitions of labels that can be used, never an entry that only forbids something.
    ``E`` and ``S`` are :func:`_rounding`'s bounds taken a priori, free here and loose: a normalised message is a
    transition plus at most one ``theta`` (``S <= max |tau'| + max |theta|`` over kept labels), and a kept label's
    ``theta_i`` lies between the cut less the largest upper transition term and the best kept ``theta_i``, so no
    pass over the kept labels is needed; the certificate computes the tight bounds only when these do not
    suffice.  Eq. 14 keeps a label unless it loses by more than a slack that covers the rounding of both sums:
    only a label within that slack of the cut can flip.  ``tab`` is :func:`_transition_tables`' array (eq. 14's
    transition terms: none for a single token, one side at either end).  The seed is ``argmax theta_i`` (section
    4.1) unless eq. 14 proved that label suboptimal, when the best label that can still be optimal is the better
    start.  Both passes over the labels run four labels per instruction (:mod:`decoders.chains.simd`): the lower
    bound's maximum (:func:`~decoders.chains.simd.max_plus`), then the cut as bit masks with the best kept label
    (:func:`~decoders.chains.simd.kept_best`), which the kept list is read from."""
    n, n_labels = theta.shape
    slack = 8.0 * _UNIT * (margin + 4.0 * tab[_T_SLACK, 0])
    theta_scale = 0.0  # the best kept theta_i, largest over i
    theta_kept = 0.0  # a bound on every kept label's |theta_i|
    one_word = n_labels <= 64
    if prune:
        # every token's cut first (in vec[_M], which the first restricted LP overwrites), then, with up to 64
        # labels, every token's test (the bits in cnt[_NKEPT], the seed in D_i): no token's maximum waits for the
        # previous token's test or its kept list, so the processor overlaps their latencies
        for i in range(n):
            lo = max_plus(theta, i, tab, _eq14_rows(n, i)[0], n_labels)
            vec[_M, i] = lo - margin - 1e-9 * (1.0 + abs(lo)) - slack  # the slack only keeps more labels
        if one_word:
            for i in range(n):
                bits, arg, top = kept_best(theta, i, tab, _eq14_rows(n, i)[1], n_labels, vec[_M, i], 0)
                cnt[_NKEPT, i] = bits
                lab[_DOM, i, 0] = arg
                theta_scale = max(theta_scale, abs(top))
    for i in range(n):
        if prune:
            kind = _eq14_rows(n, i)[2]
            cut = vec[_M, i]
            if one_word:
                k = _append_kept(lab, i, np.uint64(0), cnt[_NKEPT, i], 0)
            else:
                k = np.uint64(0)
                top = -np.inf
                arg = 0
                for word in range(
                    (n_labels + 63) // 64
                ):  # the kept labels as bits, four labels per comparison
                    bits, first_best, best = kept_best(
                        theta, i, tab, _eq14_rows(n, i)[1], n_labels, cut, word
                    )
                    better = best > top  # the first word that holds the best kept theta_i
                    top = best if better else top
                    arg = first_best if better else arg
                    k = _append_kept(lab, i, k, bits, 64 * word)
                theta_scale = max(theta_scale, abs(top))
                lab[_DOM, i, 0] = arg
            # a kept theta_i >= cut - its upper term >= cut - the largest one, up to the rounding of that test
            hi = tab[_T_HI_MAX + kind, 0]
            theta_kept = max(theta_kept, (1.0 + 8.0 * _UNIT) * abs(cut - hi) + 8.0 * _UNIT * abs(hi))
        else:
            arg = 0
            top = theta[i, 0]
            for x in range(n_labels):
                lab[_KEPT, i, x] = x
                t = theta[i, x]
                theta_kept = max(theta_kept, abs(t))
                better = t > top
                top = t if better else top
                arg = x if better else arg
            k = np.uint64(n_labels)
            theta_scale = max(theta_scale, abs(top))
            lab[_DOM, i, 0] = arg
        cnt[_DSZ, i] = 1
        cnt[_NKEPT, i] = k
        in_dom[i, lab[_DOM, i, 0]] = _SOLVED
    theta_kept = max(theta_kept, theta_scale)  # kept labels' theta_i lie between the two bounds
    tau_kept = tab[_T_TAU_ABS, 0]
    big_s = (1.0 + 8.0 * _UNIT) * (tau_kept + theta_kept)
    error = 16.0 * _UNIT * (2.0 * tau_kept + 2.0 * theta_kept + 6.0 * big_s)
    return _EPS * (theta_scale + tab[_T_TAU_SCALE, 0]), error, big_s


# --------------------------------------------------------------------------- restricted LP (messages)


@numba.njit(cache=True, nogil=True)
def _first_round(theta, tab, rc, g, h, msg, vec, lab, cnt, thr):
    """The first restricted LP (all domains singletons ``{d_j}``) in closed form, fused with the oracle's ``P``
    and ``Q``: ``a_j = tau(d_{j-1}, .) + h theta_j``, ``b_j = tau(., d_{j+1})``, bit-identical to what
    :func:`_forward` and :func:`_backward` compute, and with the oracle's test of ``C'`` at threshold ``thr``
    (what :func:`_oracle_round` does first, in the same order: the loop over a token's kept labels is then made
    once).  Returns the number of message vectors computed."""
    n, n_labels = theta.shape
    tt = _T_TAU_T + n_labels  # tau' by rows
    two = rc == EQ12
    w = 2.0 if two else 1.0
    u_left = -np.inf  # max P_{j-1}
    for j in range(n):
        dl = lab[_DOM, j - 1, 0] if j > 0 else -1
        dj = lab[_DOM, j, 0]
        dr = lab[_DOM, j + 1, 0] if j < n - 1 else -1
        # tau'(d_{j-1}, .) and tau'(., d_{j+1}) (rows of tab; at the ends its zero row: 0.0 + 0.0 is 0.0 exactly)
        left = np.uint64(tt + dl) if dl >= 0 else np.uint64(_T_ZERO)
        right = np.uint64(_T_TAU_T + dr) if dr >= 0 else np.uint64(_T_ZERO)
        # M_j and K_j exactly as the general passes compute them (their normalising base is exactly 0 here)
        mj = ((0.0 + tab[left, dj]) + h * theta[j, dj]) + g * theta[j, dj]
        kj = (0.0 + tab[right, dj]) + theta[j, dj]
        vec[_M, j] = mj
        vec[_K, j] = kj
        u = -np.inf
        n2 = np.uint64(0)  # (unsigned counts index without a test for negative values)
        u2 = -np.inf
        for k in range(cnt[_NKEPT, j]):
            x = lab[_KEPT, j, k]
            t = theta[j, x]
            al = (0.0 + tab[left, x]) + h * t
            msg[_A, j, x] = al  # (back-pointers: d_{j-1}, not stored; see _TRACED)
            if two:
                be = 0.0 + tab[right, x]
                msg[_B, j, x] = be
                p = t + al - be - mj
                q = t + be - al - kj
            else:
                p = al + g * t - mj
                q = h * t - al
            msg[_P, j, x] = p
            msg[_Q, j, x] = q
            u = p if p > u else u
            # the oracle's test of C' for edge j - 1 (max P_{j-1} is known): the list in lab[_BP, j], which the
            # first round does not use, its U' in vec[_U2, j]
            lab[_BP, j, n2] = x
            ok = q + u_left + w * tab[_T_IN_MAX, x] > thr
            n2 += np.uint64(ok)
            u2 = q if ok and q > u2 else u2
        vec[_U, j] = u
        vec[_U2, j] = u2
        cnt[_NC2, j] = n2
        u_left = u
    return 2 * n if two else n


@numba.njit(cache=True, nogil=True)
def _forward(theta, tab, g, h, msg, vec, lab, cnt, in_dom, flags, scr):
    """Re-solve the forward messages (eq. 7; eq. 9's when ``g = h = 1/2``) and ``M`` after domains grew, where
    they can have changed; ``flags[_FWD, j]`` tells whether ``a_j`` or ``M_j`` changed.  Returns the number of
    position vectors recomputed.  A label newly added to ``D_j`` keeps its value: it was computed by the same
    update as an out-of-domain dual.  Ties go to the smaller label id."""
    n, n_labels = theta.shape
    tt = _T_TAU_T + n_labels  # tau' by rows
    recomputed = 0
    prop = False  # a_{j-1} changed on D_{j-1}, or M_{j-1} changed
    for j in range(n):
        any_changed = False
        dom_changed = False
        if j > 0 and (flags[_GROWN, j - 1] or prop):
            recomputed += 1
            flags[_TRACED, j] = True
            d = cnt[_DSZ, j - 1]
            mm = vec[_M, j - 1]
            for m in range(d):
                a = lab[_DOM, j - 1, m]
                scr[m] = msg[_A, j - 1, a] + g * theta[j - 1, a] - mm
            for k in range(cnt[_NKEPT, j]):
                x = lab[_KEPT, j, k]
                best = -np.inf
                arg = -1
                for m in range(d):
                    a = lab[_DOM, j - 1, m]
                    v = scr[m] + tab[np.uint64(tt + a), x]
                    if v > best or (v == best and a < arg):
                        best = v
                        arg = a
                v = best + h * theta[j, x]
                if v != msg[_A, j, x]:
                    any_changed = True
                    dom_changed |= in_dom[j, x] == _SOLVED
                msg[_A, j, x] = v
                lab[_BP, j, x] = arg
        m_changed = False
        if dom_changed or flags[_GROWN, j]:
            best = -np.inf
            for m in range(cnt[_DSZ, j]):
                x = lab[_DOM, j, m]
                best = max(best, msg[_A, j, x] + g * theta[j, x])
            m_changed = best != vec[_M, j]
            vec[_M, j] = best
        flags[_FWD, j] = any_changed or m_changed
        prop = dom_changed or m_changed
    return recomputed


@numba.njit(cache=True, nogil=True)
def _backward(theta, tab, msg, vec, lab, cnt, in_dom, flags, scr):
    """Re-solve the backward messages (eq. 11) and ``K`` like :func:`_forward`, from the right."""
    n = theta.shape[0]
    recomputed = 0
    prop = False
    for j in range(n - 1, -1, -1):
        any_changed = False
        dom_changed = False
        if j < n - 1 and (flags[_GROWN, j + 1] or prop):
            recomputed += 1
            d = cnt[_DSZ, j + 1]
            kk = vec[_K, j + 1]
            for m in range(d):
                b = lab[_DOM, j + 1, m]
                scr[m] = msg[_B, j + 1, b] + theta[j + 1, b] - kk
            for k in range(cnt[_NKEPT, j]):
                x = lab[_KEPT, j, k]
                best = -np.inf
                for m in range(d):
                    best = max(best, scr[m] + tab[np.uint64(_T_TAU_T + lab[_DOM, j + 1, m]), x])
                if best != msg[_B, j, x]:
                    any_changed = True
                    dom_changed |= in_dom[j, x] == _SOLVED
                msg[_B, j, x] = best
        k_changed = False
        if dom_changed or flags[_GROWN, j]:
            best = -np.inf
            for m in range(cnt[_DSZ, j]):
                x = lab[_DOM, j, m]
                best = max(best, msg[_B, j, x] + theta[j, x])
            k_changed = best != vec[_K, j]
            vec[_K, j] = best
        flags[_BWD, j] = any_changed or k_changed
        prop = dom_changed or k_changed
    return recomputed


# --------------------------------------------------------------------------- reduced-cost oracle


@numba.njit(cache=True, nogil=True)
def _oracle_round(theta, tab, rc, g, h, msg, vec, lab, cnt, in_dom, flags, every, fresh, thr, cc, log, at):
    """One round of Fig. 1's ReducedCostOracle over the edges: generate both labels of every pair whose reduced
    cost (oracle scale) exceeds ``thr``.  Labels join as pending (``in_dom = 2``), so that the whole round prices
    one restricted LP.

    Per edge ``i``, bounding first, with the offline bounds ``U_tau(., b) = in_max[b]``, ``U_tau(a, .) =
    out_max[a]`` (rows of ``tab``): ``C'`` = labels ``b`` that could exceed ``thr`` paired with the best ``P``, ``C`` = labels
    ``a`` that could with the best ``Q`` over ``C'``; every pair above ``thr`` lies in ``C x C'``, where ``R`` is
    evaluated exactly (pairs already in the restricted LP are skipped).  Unless ``every``, edges whose messages
    did not change since they were last priced are skipped (section 4.3): their reduced costs are unchanged and
    all positive ones were generated then.  ``P``, ``Q``, ``max P``, ``C'`` and ``U'`` come from
    :func:`_first_round` when ``fresh`` (``thr`` must then be the one it tested), else they are computed here
    from the messages.  ``log[at:]`` receives ``|C| |C'|`` per edge.
    Returns ``(edges priced, sum of their largest reduced costs above thr, number of such edges)``.
    """
    n, n_labels = theta.shape
    tt = _T_TAU_T + n_labels  # tau' by rows
    two = rc == EQ12
    w = 2.0 if two else 1.0
    calls = 0
    found = 0.0
    n_found = 0
    for i in range(n - 1):
        j = i + 1
        if not (every or flags[_FWD, i] or flags[_FWD, j] or (two and (flags[_BWD, i] or flags[_BWD, j]))):
            continue
        if fresh:
            n2 = np.uint64(cnt[_NC2, j])  # C' and U' from _first_round (priced at thr)
            u2 = vec[_U2, j]
        else:
            mi = vec[_M, i]
            u = -np.inf
            if two:
                kj = vec[_K, j]
                for k in range(cnt[_NKEPT, i]):
                    a = lab[_KEPT, i, k]
                    p = theta[i, a] + msg[_A, i, a] - msg[_B, i, a] - mi
                    msg[_P, i, a] = p
                    u = p if p > u else u
                for k in range(cnt[_NKEPT, j]):
                    b = lab[_KEPT, j, k]
                    msg[_Q, j, b] = theta[j, b] + msg[_B, j, b] - msg[_A, j, b] - kj
            else:
                for k in range(cnt[_NKEPT, i]):
                    a = lab[_KEPT, i, k]
                    p = msg[_A, i, a] + g * theta[i, a] - mi
                    msg[_P, i, a] = p
                    u = p if p > u else u
                for k in range(cnt[_NKEPT, j]):
                    b = lab[_KEPT, j, k]
                    msg[_Q, j, b] = h * theta[j, b] - msg[_A, j, b]
            # C' (branch-free: most labels fail) and U' = max Q over C'; then C
            n2 = np.uint64(0)
            u2 = -np.inf
            for k in range(cnt[_NKEPT, j]):
                b = lab[_KEPT, j, k]
                q = msg[_Q, j, b]
                cc[1, n2] = b
                ok = q + u + w * tab[_T_IN_MAX, b] > thr
                n2 += np.uint64(ok)
                u2 = q if ok and q > u2 else u2
        n1 = np.uint64(0)
        if n2 != 0:
            for k in range(cnt[_NKEPT, i]):
                a = lab[_KEPT, i, k]
                cc[0, n1] = a
                n1 += np.uint64(msg[_P, i, a] + u2 + w * tab[_T_OUT_MAX, a] > thr)
        log[at + calls] = n1 * n2
        calls += 1
        best = -np.inf
        for s in range(n1):
            a = cc[0, s]
            pa = msg[_P, i, a]
            row = np.uint64(tt + a)  # tau'(a, .)
            a_in = in_dom[i, a] == _SOLVED
            for t in range(n2):
                b = lab[_BP, j, t] if fresh else cc[1, t]
                if a_in and in_dom[j, b] == _SOLVED:
                    continue  # already a column of the restricted LP
                r = w * tab[row, b] + pa + msg[_Q, j, b]
                if r > thr:
                    best = max(best, r)
                    if in_dom[i, a] == 0:
                        in_dom[i, a] = _PENDING
                        lab[_DOM, i, cnt[_DSZ, i]] = a
                        cnt[_DSZ, i] += 1
                        flags[_GROWN, i] = True
                    if in_dom[j, b] == 0:
                        in_dom[j, b] = _PENDING
                        lab[_DOM, j, cnt[_DSZ, j]] = b
                        cnt[_DSZ, j] += 1
                        flags[_GROWN, j] = True
        if best > thr:
            found += best
            n_found += 1
    return calls, found, n_found


@numba.njit(cache=True, nogil=True)
def _price_end(theta, g, msg, vec, lab, cnt, in_dom, flags, thr):
    """Price the phantom edge after the last position (``rho_end``, oracle scale): generate every label above
    ``thr``; return the largest value (``-inf`` if none)."""
    last = theta.shape[0] - 1
    mm = vec[_M, last]
    best = -np.inf
    for k in range(cnt[_NKEPT, last]):
        x = lab[_KEPT, last, k]
        if in_dom[last, x] != _SOLVED:
            r = msg[_A, last, x] + g * theta[last, x] - mm
            if r > thr:
                best = max(best, r)
                if in_dom[last, x] == 0:
                    in_dom[last, x] = _PENDING
                    lab[_DOM, last, cnt[_DSZ, last]] = x
                    cnt[_DSZ, last] += 1
                    flags[_GROWN, last] = True
    return best


@numba.njit(cache=True, nogil=True)
def _price_start(theta, msg, vec, lab, cnt, in_dom, flags, thr):
    """Price the phantom edge before the first position (``rho_start`` of eq. 12), like :func:`_price_end`."""
    kk = vec[_K, 0]
    best = -np.inf
    for k in range(cnt[_NKEPT, 0]):
        x = lab[_KEPT, 0, k]
        if in_dom[0, x] != _SOLVED:
            r = msg[_B, 0, x] + theta[0, x] - kk
            if r > thr:
                best = max(best, r)
                if in_dom[0, x] == 0:
                    in_dom[0, x] = _PENDING
                    lab[_DOM, 0, cnt[_DSZ, 0]] = x
                    cnt[_DSZ, 0] += 1
                    flags[_GROWN, 0] = True
    return best


# --------------------------------------------------------------------------- column generation


@numba.njit(cache=True, nogil=True)
def _score(theta, tau, labels):
    """The model score of ``labels`` (valid ids), summed in sequence order."""
    total = theta[0, np.uint64(labels[0])]
    for i in range(1, labels.shape[0]):
        b = np.uint64(labels[i])
        total += tau[np.uint64(labels[i - 1]), b] + theta[i, b]
    return total


@numba.njit(cache=True, nogil=True)
def _magnitude(theta, tau, labels):
    """``sum |terms|`` of the score of ``labels``: the scale the certificate's tolerance is relative to."""
    total = abs(theta[0, labels[0]])
    for i in range(1, labels.shape[0]):
        total += abs(tau[labels[i - 1], labels[i]]) + abs(theta[i, labels[i]])
    return total


@numba.njit(cache=True, nogil=True)
def _rounding(theta, tab, two, msg, vec, lab, cnt):
    """A bound ``E`` on the rounding error of every reduced cost (oracle scale) and bound test the oracle made on
    the final restricted LP, and ``S``, the largest message magnitude.

    The identity (*) holds for whatever values the messages hold, so rounding enters the certificate only where
    ``P``, ``Q``, ``R`` and the oracle's bounds are summed from them: at most six additions of terms no larger
    than ``S`` (messages, ``M``, ``K``), ``Theta`` (``theta`` of kept labels) and ``T`` (``tau'`` between labels
    kept at adjacent positions, and the kept labels' ``U_tau``), hence ``|error| <= 16 u (w T + 2 Theta + 6 S)``
    with room to spare.  A pass over the kept labels, made once per decode."""
    n, n_labels = theta.shape
    big_s = 0.0
    big_theta = 0.0
    big_t = 0.0
    row_prev = 0.0
    for i in range(n):
        big_s = max(big_s, abs(vec[_M, i]))
        if two:
            big_s = max(big_s, abs(vec[_K, i]))
        row = 0.0
        col = 0.0
        for k in range(cnt[_NKEPT, i]):
            x = lab[_KEPT, i, k]
            big_s = max(big_s, abs(msg[_A, i, x]))
            if two:
                big_s = max(big_s, abs(msg[_B, i, x]))
            big_theta = max(big_theta, abs(theta[i, x]))
            row = max(row, tab[_T_ROW_ABS, x])
            col = max(col, tab[_T_COL_ABS, x])
            if i > 0:
                big_t = max(big_t, abs(tab[_T_IN_MAX, x]))
            if i < n - 1:
                big_t = max(big_t, abs(tab[_T_OUT_MAX, x]))
        if i > 0:
            big_t = max(big_t, min(row_prev, col))  # |tau'(a, b)| <= both its row's and its column's maximum
        row_prev = row
    w = 2.0 if two else 1.0
    return 16.0 * _UNIT * (w * big_t + 2.0 * big_theta + 6.0 * big_s), big_s


@numba.njit(cache=True, nogil=True)
def _workspace(n, n_labels):
    """The packed work arrays of one chain (``in_dom`` and ``flags`` zeroed).  (Carving them out of one
    allocation was measured slower.)"""
    msg = np.empty((4, n, n_labels))
    lab = np.empty((3, n, n_labels + 1), dtype=np.uint32)  # + 1: room for _setup's branch-free writes
    vec = np.empty((4, n))
    cnt = np.empty((3, n), dtype=np.int64)
    in_dom = np.zeros((n, n_labels), dtype=np.int8)
    flags = np.zeros((4, n), dtype=np.int8)
    scr = np.empty(n_labels)
    cc = np.empty((2, n_labels), dtype=np.uint32)
    return msg, lab, vec, cnt, in_dom, flags, scr, cc


@numba.njit(cache=True, nogil=True)
def _run(
    prof,
    theta,
    tau,
    tab,
    rc,
    gap,
    prune,
    margin,
    msg,
    lab,
    vec,
    cnt,
    in_dom,
    flags,
    scr,
    cc,
):
    """Column generation on a fresh workspace.  Returns ``(labels, score, bound, converged, iterations,
    oracle_calls, oracle_candidates, messages_recomputed, eps, fallback)``; the workspace holds the final
    restricted LP, whose reduced costs are known to within ``eps`` plus the rounding bound of :func:`_rounding`.

    ``tau`` is the true transition matrix (``-inf`` = forbidden), used for the score; the LP runs on ``tab``'s
    finite ``tau'``.  On convergence the certificate is checked as the module docstring says, with every rounding
    error bounded: ``optimum <= N + terms (eps + E) / w`` (``N`` summed exactly up to ``n^2 u S``) must be within
    ``_CERT_RTOL`` of the sequence's magnitude of its score.  When it is not (huge finite magnitudes that cancel),
    or when the sequence uses a forbidden transition, exact Viterbi decides instead (``fallback``; the answer is
    still certified: Viterbi's score is the optimum)."""
    if rc != EQ12 and rc != EQ8 and rc != EQ9:
        raise ValueError("reduced_cost must be 0 (eq. 12), 1 (eq. 8) or 2 (eq. 9)")
    t = _tick(prof)
    eps, error, big_s = _setup(theta, tab, prune, margin, lab, cnt, in_dom, vec)
    t = _lap(prof, _PH_SETUP, t)
    n = theta.shape[0]
    two = rc == EQ12
    g = 0.5 if rc == EQ9 else 1.0
    h = 0.5 if rc == EQ9 else 0.0
    terms = n + 1 if two else n  # priced terms: n - 1 edges and one (eq. 8, 9) or two (eq. 12) phantom ends
    log = np.empty(4 * n + 8, dtype=np.int64)  # |C| |C'| of every oracle call (grown when needed)
    n_log = 0
    iterations = 0
    messages = 0
    first = True
    converged = False
    stop = False
    found = 0.0
    n_found = 0
    while not stop:  # (no ``break``: it would defeat numba's reference-count pruning)
        iterations += 1
        if first:
            messages += _first_round(theta, tab, rc, g, h, msg, vec, lab, cnt, eps)
            t = _lap(prof, _PH_FIRST, t)
        else:
            messages += _forward(theta, tab, g, h, msg, vec, lab, cnt, in_dom, flags, scr)
            t = _lap(prof, _PH_FWD, t)
            if two:
                messages += _backward(theta, tab, msg, vec, lab, cnt, in_dom, flags, scr)
                t = _lap(prof, _PH_BWD, t)
        flags[_GROWN, :] = 0
        if n_log + n > log.shape[0]:
            grown = np.empty(2 * (n_log + n), dtype=np.int64)
            grown[:n_log] = log[:n_log]
            log = grown
        calls, found, n_found = _oracle_round(
            theta, tab, rc, g, h, msg, vec, lab, cnt, in_dom, flags, first, first, eps, cc, log, n_log
        )
        n_log += calls
        t = _lap(prof, _PH_ORACLE, t)
        if first or flags[_FWD, n - 1]:  # section 4.3 again: unchanged ends need no pricing
            best = _price_end(theta, g, msg, vec, lab, cnt, in_dom, flags, eps)
            if best > eps:
                found += best
                n_found += 1
        if two and (first or flags[_BWD, 0]):
            best = _price_start(theta, msg, vec, lab, cnt, in_dom, flags, eps)
            if best > eps:
                found += best
                n_found += 1
        t = _lap(prof, _PH_ENDS, t)
        if n_found == 0:
            converged = stop = True
        elif gap > 0.0:
            bound = _dual_bound(vec, two, eps + error, found, n_found, terms, big_s)
            score = 0.0
            for j in range(n):
                score += vec[_M, j]
            stop = bound - score <= gap * abs(bound)
        if not stop:
            for i in range(n):  # promote this round's labels into the restricted LP
                if flags[_GROWN, i]:
                    for k in range(cnt[_DSZ, i]):
                        x = lab[_DOM, i, k]
                        if in_dom[i, x] == _PENDING:
                            in_dom[i, x] = _SOLVED
            first = False
        t = _lap(prof, _PH_BOOK, t)

    labels = np.empty(n, dtype=np.int64)
    last = n - 1
    top = -np.inf
    for k in range(cnt[_DSZ, last]):
        x = lab[_DOM, last, k]
        if in_dom[last, x] == _SOLVED:
            v = msg[_A, last, x] + g * theta[last, x]
            if v > top or (v == top and x < labels[last]):
                top = v
                labels[last] = x
    for j in range(last, 0, -1):
        labels[j - 1] = lab[_BP, j, np.uint64(labels[j])] if flags[_TRACED, j] else lab[_DOM, j - 1, 0]
    score = _score(theta, tau, labels)
    bound = _dual_bound(vec, two, eps + error, found, n_found, terms, big_s)
    fallback = score == -np.inf  # the LP's answer uses a forbidden transition (its floor was not deep enough)
    # |score| <= the magnitude of its terms (up to n u of either, hence the factor): the magnitude's pass over the
    # sequence is made only when the score's own size does not certify
    if converged and not fallback and bound - score > _CERT_RTOL * (1.0 - 1e-6) * abs(score):
        tolerance = _CERT_RTOL * _magnitude(theta, tau, labels)
        if bound - score > tolerance:  # the a-priori rounding bounds are loose: measure the tight ones
            error, big_s = _rounding(theta, tab, two, msg, vec, lab, cnt)
            bound = _dual_bound(vec, two, eps + error, found, n_found, terms, big_s)
            fallback = bound - score > tolerance
    if fallback:
        labels, score = _viterbi(theta, tau)
        converged = True
    bound = score if converged else max(bound, score)
    if prof is not None:
        _lap(prof, _PH_CERT, t)
        prof[_PH_ROUNDS] += iterations
        prof[_PH_TOKENS] += n
    return labels, score, bound, converged, iterations, n_log, log[:n_log], messages, eps, fallback


@numba.njit(cache=True, nogil=True)
def _dual_bound(vec, two, slack, found, n_found, terms, big_s):
    """The certified upper bound (*) on the optimum after an oracle round that found ``n_found`` terms above its
    threshold summing to ``found`` (oracle scale): the restricted optimum ``N`` (its float sum is within
    ``n^2 u S`` of the exact one) plus every priced term's largest reduced cost, each known to within ``slack``
    (the threshold plus the rounding bound ``E``)."""
    n = vec.shape[1]
    total = 0.0
    other = 0.0
    for j in range(n):
        total += vec[_M, j]
        if two:
            other += vec[_K, j]
    centre = 0.5 * (total + other) if two else total
    w = 2.0 if two else 1.0
    return centre + (found + terms * slack) / w + (n + 1.0) ** 2 * _UNIT * big_s


@numba.njit(cache=True, nogil=True)
def _cg_kernel(
    theta: np.ndarray, tau: np.ndarray, tables: np.ndarray, reduced_cost: int, gap: float, prune: bool
) -> tuple:
    """Column generation in one numba call; see :func:`column_generation`.  ``tables`` is
    :func:`_transition_tables`' array (``ChainScores.cg_tables``).

    Returns ``(labels, score, bound, converged, iterations, oracle_candidates, domain_sizes,
    messages_recomputed, fallback)``; ``oracle_calls`` is ``len(oracle_candidates)``.
    """
    n, n_labels = theta.shape
    msg, lab, vec, cnt, in_dom, flags, scr, cc = _workspace(n, n_labels)
    labels, score, bound, converged, iterations, calls, log, messages, eps, fallback = _run(
        None, theta, tau, tables, reduced_cost, gap, prune, 0.0, msg, lab, vec, cnt, in_dom, flags, scr, cc
    )
    return labels, score, bound, converged, iterations, log, cnt[_DSZ], messages, fallback


@numba.njit(cache=True, nogil=True)
def _cg_packed(
    theta: np.ndarray, tau: np.ndarray, tables: np.ndarray, reduced_cost: int, gap: float, prune: bool
) -> tuple[np.ndarray, float, float, bool, int, int, bool]:
    """:func:`_cg_kernel` for callers in Python: its three arrays packed into one, because numba spends about
    as long boxing each returned array (~0.35 us) as CG takes per token, while slicing in Python is cheaper.

    Returns ``(packed, score, bound, converged, iterations, messages_recomputed, fallback)``; ``packed`` is int64
    ``[labels (n), domain_sizes (n), oracle_candidates (oracle_calls)]``.
    """
    n, n_labels = theta.shape
    msg, lab, vec, cnt, in_dom, flags, scr, cc = _workspace(n, n_labels)
    labels, score, bound, converged, iterations, calls, log, messages, eps, fallback = _run(
        None, theta, tau, tables, reduced_cost, gap, prune, 0.0, msg, lab, vec, cnt, in_dom, flags, scr, cc
    )
    packed = np.empty(2 * n + calls, dtype=np.int64)
    for i in range(n):
        packed[i] = labels[i]
        packed[n + i] = cnt[_DSZ, i]
    for c in range(calls):
        packed[2 * n + c] = log[c]
    return packed, score, bound, converged, iterations, messages, fallback


@numba.njit(cache=True, nogil=True)
def _cg_labels(
    theta: np.ndarray, tau: np.ndarray, tables: np.ndarray, reduced_cost: int, gap: float, prune: bool
) -> tuple[np.ndarray, float]:
    """Like :func:`_cg_kernel` but returns only ``(labels, score)``: the lean entry point for timing runs."""
    n, n_labels = theta.shape
    msg, lab, vec, cnt, in_dom, flags, scr, cc = _workspace(n, n_labels)
    result = _run(
        None, theta, tau, tables, reduced_cost, gap, prune, 0.0, msg, lab, vec, cnt, in_dom, flags, scr, cc
    )
    return result[0], result[1]


@numba.njit(cache=True, nogil=True)
def _cg_profile(
    prof: np.ndarray, theta: np.ndarray, tau: np.ndarray, tables: np.ndarray, reduced_cost: int, gap: float
) -> tuple[np.ndarray, float]:
    """:func:`_cg_labels` (eq. 14 pruning on) that adds the cycles of each of its :data:`PHASES` to ``prof``
    (int64, ``len(PHASES) + 2`` counters: the phases, then rounds and tokens).  The counter's reads cost a few
    percent of a decode: a profile gives the phases' shares, the decoders' timing loops give the time."""
    n, n_labels = theta.shape
    t = _tick(prof)
    msg, lab, vec, cnt, in_dom, flags, scr, cc = _workspace(n, n_labels)
    _lap(prof, _PH_WORK, t)
    result = _run(
        prof, theta, tau, tables, reduced_cost, gap, True, 0.0, msg, lab, vec, cnt, in_dom, flags, scr, cc
    )
    return result[0], result[1]


# --------------------------------------------------------------------------- 0/1-loss oracle


@numba.njit(cache=True, nogil=True)
def _restricted_two_best(theta, tau, lab, cnt):
    """Exact 2-best Viterbi inside the restricted domains: every state keeps its two best distinct paths.

    Returns ``(best, best_score, second, second_score)``; ``second_score`` is ``-inf`` when the restricted space
    holds a single sequence.
    """
    n = theta.shape[0]
    width = 1
    for i in range(n):
        width = max(width, cnt[_DSZ, i])
    s = np.full((n, width, 2), -np.inf)
    back = np.zeros((n, width, 2), dtype=np.int64)  # predecessor state: index * 2 + rank
    for k in range(cnt[_DSZ, 0]):
        s[0, k, 0] = theta[0, lab[_DOM, 0, k]]
    for j in range(1, n):
        for kb in range(cnt[_DSZ, j]):
            b = lab[_DOM, j, kb]
            v1 = v2 = -np.inf
            p1 = p2 = 0
            for ka in range(cnt[_DSZ, j - 1]):
                t = tau[lab[_DOM, j - 1, ka], b]
                for r in range(2):
                    v = s[j - 1, ka, r] + t
                    if v > v1:
                        v2, p2 = v1, p1
                        v1, p1 = v, ka * 2 + r
                    elif v > v2:
                        v2, p2 = v, ka * 2 + r
            s[j, kb, 0] = v1 + theta[j, b]
            s[j, kb, 1] = v2 + theta[j, b]
            back[j, kb, 0] = p1
            back[j, kb, 1] = p2
    e1 = e2 = -1
    v1 = v2 = -np.inf
    for k in range(cnt[_DSZ, n - 1]):
        for r in range(2):
            v = s[n - 1, k, r]
            if v > v1:
                v2, e2 = v1, e1
                v1, e1 = v, k * 2 + r
            elif v > v2:
                v2, e2 = v, k * 2 + r
    paths = np.empty((2, n), dtype=np.int64)
    ends = (e1, e2)
    for p in range(2):
        state = ends[p]
        if state < 0:
            continue
        for j in range(n - 1, -1, -1):
            k = state // 2
            paths[p, j] = lab[_DOM, j, k]
            state = back[j, k, state % 2]
    best = paths[0].copy()
    if e2 < 0:
        return best, _score(theta, tau, best), best, -np.inf
    second = paths[1].copy()
    return best, _score(theta, tau, best), second, _score(theta, tau, second)


@numba.njit(cache=True, nogil=True)
def _two_best_kernel(
    theta: np.ndarray,
    tau: np.ndarray,
    tables: np.ndarray,
    delta: float,
    reduced_cost: int,
    prune: bool,
) -> tuple:
    """The 0/1-loss oracle (section 5) in one numba call; see :func:`cg_two_best`.

    Returns ``(best, best_score, second, second_score, has_second, domain_sizes, cg_stats, cg_domain_sizes)``:
    ``has_second`` tells whether ``second`` scores ``>= best_score - delta``, ``domain_sizes`` are taken after
    the delta expansion, ``cg_stats`` is ``(labels, score, bound, converged, iterations, oracle_candidates,
    messages_recomputed, fallback)`` of the column generation run; ``tables`` as for :func:`_cg_kernel`.  When
    CG fell back to Viterbi, so does the 2-best search (every label in every domain).
    """
    if not delta >= 0.0 or not np.isfinite(delta):
        raise ValueError("delta must be finite and >= 0")
    rc = reduced_cost
    n, n_labels = theta.shape
    msg, lab, vec, cnt, in_dom, flags, scr, cc = _workspace(n, n_labels)
    labels, score, bound, converged, iterations, calls, log, messages, eps, fallback = _run(
        None, theta, tau, tables, rc, 0.0, prune, delta, msg, lab, vec, cnt, in_dom, flags, scr, cc
    )
    cg_sizes = cnt[_DSZ].copy()
    stats = (labels, score, bound, converged, iterations, log, messages, fallback)
    if fallback:  # CG could not certify its optimum: exact 2-best Viterbi over every label
        best, best_score, second, second_score = _viterbi_2best(theta, tau)
        has_second = second_score > -np.inf and second_score >= best_score - delta
        return best, best_score, second, second_score, has_second, np.full(n, n_labels), stats, cg_sizes
    g = 0.5 if rc == EQ9 else 1.0
    h = 0.5 if rc == EQ9 else 0.0
    two = rc == EQ12
    w = 2.0 if two else 1.0
    # At convergence every term of (*) is <= eps + E (E: the rounding bound of _rounding) and they sum to
    # score(y) - optimum, so every edge and end of a sequence within delta of the optimum has reduced cost >=
    # -delta - (n + 1) (eps + E): generate all of those (in oracle scale), then search the domains exactly.
    error = _rounding(theta, tables, two, msg, vec, lab, cnt)[0]
    thr = -w * (delta + (n + 2) * (eps + error)) - error
    flags[_GROWN, :] = 0
    _oracle_round(
        theta, tables, rc, g, h, msg, vec, lab, cnt, in_dom, flags, True, False, thr, cc,
        np.empty(n, dtype=np.int64), 0,
    )  # fmt: skip
    _price_end(theta, g, msg, vec, lab, cnt, in_dom, flags, thr)
    if two:
        _price_start(theta, msg, vec, lab, cnt, in_dom, flags, thr)
    best, best_score, second, second_score = _restricted_two_best(theta, tau, lab, cnt)
    has_second = second_score > -np.inf and second_score >= best_score - delta
    return best, best_score, second, second_score, has_second, cnt[_DSZ].copy(), stats, cg_sizes


# --------------------------------------------------------------------------- Python entry points


def column_generation(
    theta: np.ndarray,
    tau: np.ndarray,
    *,
    reduced_cost: int = EQ12,
    gap: float = 0.0,
    prune: bool = True,
) -> CGResult:
    """MAP labels of one chain by column generation (Fig. 1): exact, or within ``gap`` of the optimum (CG-DG).

    ``reduced_cost``: 0 = eq. 12 (two-sided, the paper's CG), 1 = eq. 8 (CG-alpha), 2 = eq. 9 (CG-alpha+theta).
    ``gap`` is a fraction (the paper's 0.15% is ``0.0015``): stop once ``bound - score <= gap * |bound|`` for the
    certified bound of the module docstring; ``gap = 0`` runs to convergence.  ``prune`` applies eq. 14 to the
    oracle's search.  ``tau`` may forbid transitions with ``-inf``.
    Under exact ties the optimal sequence returned may differ from :func:`viterbi`'s.
    ``theta`` and ``tau`` are checked as :func:`decoders.chains.viterbi.viterbi` checks them, and the options
    too; a ValueError names the argument otherwise.
    """
    reduced_cost = check_reduced_cost(reduced_cost)
    gap = check_gap(gap)
    prune = check_flag(prune, "prune")
    theta, tau = check_chain(theta, tau)
    packed, score, bound, converged, iterations, messages, fallback = _cg_packed(
        theta, tau, _transition_tables(tau), reduced_cost, gap, prune
    )
    n = theta.shape[0]
    calls = packed.shape[0] - 2 * n
    return CGResult(
        packed[:n],
        score,
        bound,
        converged,
        iterations,
        calls,
        packed[2 * n :],
        packed[n : 2 * n],
        messages,
        fallback,
    )


def cg_two_best(
    theta: np.ndarray,
    tau: np.ndarray,
    delta: float,
    *,
    reduced_cost: int = EQ12,
    prune: bool = True,
) -> TwoBestResult:
    """The 0/1-loss oracle of section 5: the best sequence and, if one exists, the best *other* sequence whose
    score is ``>= best_score - delta`` (exact and certified; otherwise ``second`` is None).

    CG runs to convergence (eq. 14 pruning relaxed by ``delta``), every edge setting with reduced cost
    ``>= -delta`` is generated, and exact 2-best search runs inside the resulting domains.  ``delta`` is a
    finite number >= 0; the other arguments as for :func:`column_generation`.
    """
    delta = check_float(delta, "delta", minimum=0.0)
    reduced_cost = check_reduced_cost(reduced_cost)
    prune = check_flag(prune, "prune")
    theta, tau = check_chain(theta, tau)
    best, best_score, second, second_score, has_second, dsz, stats, cg_sizes = _two_best_kernel(
        theta, tau, _transition_tables(tau), delta, reduced_cost, prune
    )
    labels, score, bound, converged, iterations, cand, messages, fallback = stats
    cg = CGResult(labels, score, bound, converged, iterations, len(cand), cand, cg_sizes, messages, fallback)
    if not has_second:
        return TwoBestResult(best, best_score, None, None, dsz, cg)
    return TwoBestResult(best, best_score, second, second_score, dsz, cg)
