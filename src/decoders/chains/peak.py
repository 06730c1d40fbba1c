"""What this CPU allows for Viterbi's work: measured peaks of the add-and-max over label pairs, in cells per cycle.

A cell is one label pair ``(a, b)`` of one step of a max-product recurrence: ``score[a] + tau[a, b]``, then a
maximum over ``a``. Viterbi (:func:`decoders.chains.viterbi._viterbi`) does ``(n - 1) L^2`` cells per sentence of
n tokens and L labels, and also keeps each maximum's argument (its back-pointers) and carries each step's
maxima into the next. Two peaks bound what the same work can reach here, measured, not taken from a manual:

* :func:`max_plus_seconds` -- the max-plus kernel: the same add-and-max over the same (padded) ``tau`` and a sentence's
  shape, in the loop layout of Viterbi's (blocks of successors whose maxima stay in registers while the
  predecessors stream past), in cache, but with no argument kept and no dependence between steps (step i reads ``theta[i - 1]`` as its
  scores, not step i - 1's maxima). It has no data dependence that Viterbi lacks, so Viterbi cannot beat it by
  more than timing noise.
* :func:`register_cells_per_second` -- the vector units' throughput for the add-and-max: independent chains of
  ``acc = max(acc + c, d)`` on whole vectors held in registers (no loads or stores), as wide as the CPU's widest
  float64 vectors (:data:`LANES`); one cell per lane per add-and-max.

Cycles are the core's own, measured: :func:`clock_hz` times a chain of dependent 64-bit integer multiplies, whose
latency is 3 cycles on every x86-64 core since 2008 (Intel's Core 2 and later, AMD's Bulldozer and Zen) and on
the common 64-bit Arm cores; so the clock is measured under the same load as the kernels, turbo included,
rather than read from ``/proc/cpuinfo`` (a nominal or sampled rate). :func:`measure` repeats all three and gives
each repeat, so a table can show their spread. Measured on this machine (AMD EPYC, Zen 3, AVX2; niced, shared
with other jobs): about 3.2 GHz (``/proc/cpuinfo`` says 2445 MHz), a register peak of about 4 cells per cycle
(one vector add and one vector maximum of 4 lanes per cycle) and a max-plus kernel of 1.3-1.5 cells per cycle
at L = 45-343.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from llvmlite import binding, ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from decoders.chains.simd import BLOCK_VECTORS, HOST_LANES, max_block, max_vector

binding.initialize_native_asmparser()  # numba sets up LLVM without it; the multiply chain is inline assembly

#: float64 lanes of the widest vectors this CPU has (:data:`decoders.chains.simd.HOST_LANES`).
LANES = HOST_LANES
#: Independent accumulators of the register peak: enough to cover an add's latency (3-4 cycles) plus a
#: maximum's at two of each per cycle, and few enough (with the two constants) for 16 vector registers.
CHAINS = 12
#: Add-and-max steps per chain in one pass of the register peak's loop (unrolled: the loop's own counter and
#: branch then cost under a percent).
UNROLL = 8
#: Latency in cycles of a 64-bit integer multiply (``imul r64, r64``; Arm's ``mul``): see the module docstring.
MULTIPLY_LATENCY = 3


@intrinsic
def _register_chains(typingctx, count, start):
    """``count`` passes of :data:`UNROLL` add-and-max steps on each of :data:`CHAINS` vectors of :data:`LANES`
    float64 (``acc = max(acc + c, d)``, ``c = -0.5``, ``d = start``), all in registers; returns the sum of the
    accumulators' lanes (so that no step can be dropped). Without fast-math, LLVM may neither reassociate nor
    fold the steps: each is one vector add and one vector maximum."""
    if not isinstance(count, types.Integer) or start != types.float64:
        raise TypingError(f"_register_chains(count: int, start: float64), got ({count}, {start})")
    signature = types.float64(count, start)

    def codegen(context, builder, sig, args):
        count_v, start_v = args
        double = ir.DoubleType()
        vector_type = ir.VectorType(double, LANES)
        lanes_zero = ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES)

        def splat(value):
            vector = builder.insert_element(
                ir.Constant(vector_type, ir.Undefined), value, ir.Constant(ir.IntType(32), 0)
            )
            return builder.shuffle_vector(vector, ir.Constant(vector_type, ir.Undefined), lanes_zero)

        step = splat(ir.Constant(double, -0.5))
        floor = splat(start_v)
        accumulators = [
            cgutils.alloca_once_value(builder, splat(builder.fadd(start_v, ir.Constant(double, float(k)))))
            for k in range(CHAINS)
        ]
        with cgutils.for_range(builder, count_v):
            values = [builder.load(acc) for acc in accumulators]
            for _ in range(UNROLL):
                sums = [builder.fadd(value, step) for value in values]
                values = [builder.select(builder.fcmp_ordered(">", s, floor), s, floor) for s in sums]
            for acc, value in zip(accumulators, values, strict=True):
                builder.store(value, acc)
        total = ir.Constant(double, 0.0)
        for acc in accumulators:
            value = builder.load(acc)
            for lane in range(LANES):
                total = builder.fadd(total, builder.extract_element(value, ir.Constant(ir.IntType(32), lane)))
        return total

    return signature, codegen


@numba.njit(cache=True, nogil=True)
def _register_loop(count: int, start: float) -> float:
    return _register_chains(count, start)


#: The multiply instruction of the chain, by architecture (AT&T syntax on x86: source, then destination).
_MULTIPLY_ASM = {"x86_64": "imulq $2, $0", "aarch64": "mul $0, $1, $2"}


@intrinsic
def _multiply_chain_asm(typingctx, count, x, k):
    """``count`` dependent multiplies ``x *= k`` written as the machine's multiply instruction (inline assembly:
    the compiler can neither fold nor reorder the chain, as it may a loop of integer multiplies in IR)."""
    if not all(isinstance(t, types.Integer) for t in (count, x, k)):
        raise TypingError(f"_multiply_chain(count, x, k) takes integers, got ({count}, {x}, {k})")
    arch = binding.get_process_triple().split("-")[0]
    if arch not in _MULTIPLY_ASM:
        raise TypingError(f"no multiply chain for the architecture {arch!r} (known: {sorted(_MULTIPLY_ASM)})")
    signature = types.int64(count, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        count_v, x_v, k_v = args
        i64 = ir.IntType(64)
        value = cgutils.alloca_once_value(builder, x_v)
        step = ir.FunctionType(i64, [i64, i64])
        with cgutils.for_range(builder, count_v):
            for _ in range(UNROLL):
                result = builder.asm(step, _MULTIPLY_ASM[arch], "=r,0,r", [builder.load(value), k_v], False)
                builder.store(result, value)
        return builder.load(value)

    return signature, codegen


@numba.njit(cache=True, nogil=True)
def _multiply_chain(passes: int, x: int, k: int) -> int:
    """``x * k ** (passes * UNROLL)`` (wrapping), by that many dependent multiplies."""
    return _multiply_chain_asm(passes, x, k)


@numba.njit(cache=True, nogil=True)
def _max_plus_kernel(theta: np.ndarray, tau: np.ndarray, out: np.ndarray) -> float:
    """``out[i, b] = max_a theta[i - 1, a] + tau[a, b]`` for ``1 <= i < n``, ``a < L``, ``b <`` tau's width (the
    max-plus product of each row of ``theta`` with ``tau``: one add and one maximum per cell, steps independent),
    in Viterbi's register-blocked layout (:func:`decoders.chains.simd.max_block`, then single vectors, then single
    labels); returns ``out[n - 1, 0]``."""
    n, n_labels = theta.shape
    width = tau.shape[1]
    block = BLOCK_VECTORS * HOST_LANES
    blocked = width - width % block
    vectors = width - width % HOST_LANES
    for i in range(1, n):
        score = theta[i - 1]
        best = out[i]
        for b0 in range(0, blocked, block):
            max_block(score, tau, n_labels, b0, best)
        for b0 in range(blocked, vectors, HOST_LANES):
            max_vector(score, tau, n_labels, b0, best)
        for b in range(vectors, width):
            top = score[0] + tau[0, b]
            for a in range(1, n_labels):
                v = score[a] + tau[a, b]
                top = v if v > top else top
            best[b] = top
    return out[n - 1, 0]


@numba.njit(cache=True, nogil=True)
def _max_plus_loop(repeats: int, theta: np.ndarray, tau: np.ndarray, out: np.ndarray) -> float:
    total = 0.0
    for _ in range(repeats):
        total += _max_plus_kernel(theta, tau, out)
    return total


def _seconds(call, *args) -> float:
    start = time.perf_counter()
    call(*args)
    return time.perf_counter() - start


#: Multiply passes of one clock measurement (each :data:`UNROLL` multiplies): 600,000 cycles, 0.2 ms at 3 GHz.
CLOCK_PASSES = 25_000
#: Passes of one register-peak measurement: 1.5 million cells, about 0.1 ms at 4 cells per cycle and 3 GHz.
REGISTER_PASSES = 4_000


def clock_hz(passes: int = CLOCK_PASSES) -> float:
    """The core's cycles per second, from the time of ``passes * UNROLL`` dependent integer multiplies."""
    seconds = _seconds(_multiply_chain, passes, 3, 0x5851F42D4C957F2D)
    return MULTIPLY_LATENCY * passes * UNROLL / seconds


def register_cells_per_second(passes: int = REGISTER_PASSES) -> float:
    """Cells per second of the register-only add-and-max (:data:`CHAINS` chains of :data:`LANES`-wide vectors)."""
    return passes * UNROLL * CHAINS * LANES / _seconds(_register_loop, passes, 1.0)


def max_plus_seconds(theta: np.ndarray, tau: np.ndarray, products: int) -> float:
    """Seconds per max-plus product of a sentence (:func:`_max_plus_kernel` on ``theta`` and ``tau``), the mean
    over ``products`` products in one compiled loop."""
    out = np.empty((theta.shape[0], tau.shape[1]), dtype=np.float64)
    return _seconds(_max_plus_loop, products, theta, tau, out) / products


def measure(theta: np.ndarray, tau: np.ndarray, repeats: int, min_seconds: float) -> dict[str, list[float]]:
    """``repeats`` measurements, interleaved, of the clock (``clock_hz``), of the register peak
    (``register_cells_per_second``) and of the max-plus kernel on a sentence's ``theta`` (n x L, n >= 2,
    C-contiguous float64) over ``tau`` (L x L or padded wider, -inf outside L x L): ``max_plus_seconds``, seconds
    per product, each timed over as many products as take ``min_seconds`` (the first, untimed call sizes the loop
    and compiles it). Cells per cycle are the caller's: cells over seconds times a clock (the median of the
    sentence's, so that one measurement a stall slows cannot inflate the peaks)."""
    if isinstance(repeats, bool) or not isinstance(repeats, int | np.integer) or not 1 <= repeats <= 1000:
        raise ValueError(f"repeats must be an integer in 1..1000; got {repeats!r}")
    if isinstance(min_seconds, bool) or not isinstance(min_seconds, int | float) or not 0 < min_seconds <= 1:
        raise ValueError(f"min_seconds must be a number of seconds in (0, 1]; got {min_seconds!r}")
    theta = np.asarray(theta)
    tau = np.asarray(tau)
    if theta.ndim != 2 or theta.shape[0] < 2 or theta.dtype != np.float64 or not theta.flags.c_contiguous:
        raise ValueError(f"theta must be a C-contiguous float64 n x L matrix with n >= 2; got {theta.shape}")
    n_labels = theta.shape[1]
    if tau.ndim != 2 or tau.shape[0] < n_labels or tau.shape[1] < n_labels or tau.dtype != np.float64:
        raise ValueError(f"tau must be float64 and at least {n_labels} x {n_labels}; got {tau.shape}")
    tau = np.ascontiguousarray(tau)
    products = max(1, int(min_seconds / max(max_plus_seconds(theta, tau, 1), 1e-9)))
    out: dict[str, list[float]] = {"clock_hz": [], "register_cells_per_second": [], "max_plus_seconds": []}
    for _ in range(int(repeats)):
        out["clock_hz"].append(clock_hz())
        out["register_cells_per_second"].append(register_cells_per_second())
        out["max_plus_seconds"].append(max_plus_seconds(theta, tau, products))
    return out
