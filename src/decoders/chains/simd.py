"""Vector code numba does not write by itself, as numba intrinsics (LLVM IR through llvmlite).

Numba (LLVM) vectorises elementwise loops, such as Viterbi's running maxima, but neither a floating-point maximum
over a row (without fastmath it may not reorder the maxima, and with it numba 0.68 still emits scalar code) nor a
comparison whose results are packed into bits. Eq. 14's set-up needs both for every token: the best lower bound
over all labels (:func:`max_plus`), then every label tested against the cut, with the best kept label by
``theta`` (:func:`kept_best`). Here they run four labels per instruction: vector additions, maxima (compare and
select, which x86 does in one instruction) and comparisons read as the bits of one integer, which
:func:`trailing_zeros` turns back into label ids.

The arrays must be C-contiguous float64 matrices (a ChainInstance's ``theta``, ``_transition_tables``' array):
other layouts are refused when the calling kernel compiles. The intrinsics trust their row and column
arguments, as the kernels do.
"""

from __future__ import annotations

from llvmlite import binding, ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

_LANES = 4  # float64 lanes per vector (256-bit vectors, as numba's own vectorised loops use)
_DOUBLE = ir.DoubleType()
_VECTOR = ir.VectorType(_DOUBLE, _LANES)
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
_MINUS_INF = float("-inf")


def _row(context, builder, array_type, array, row):
    """A pointer to ``array[row, 0]`` of a C-contiguous float64 matrix."""
    array = context.make_array(array_type)(context, builder, array)
    row_stride = cgutils.unpack_tuple(builder, array.strides, 2)[0]
    data = builder.bitcast(array.data, ir.IntType(8).as_pointer())
    return builder.bitcast(builder.gep(data, [builder.mul(row, row_stride)]), _DOUBLE.as_pointer())


def _check_matrix(name, array_type):
    if not (
        isinstance(array_type, types.Array)
        and array_type.ndim == 2
        and array_type.layout == "C"
        and array_type.dtype == types.float64
    ):
        raise TypingError(f"{name} must be a C-contiguous float64 matrix, got {array_type}")


def _i64(value):
    return ir.Constant(_I64, value)


def _splat(builder, value, vector_type=_VECTOR):
    vector = builder.insert_element(ir.Constant(vector_type, ir.Undefined), value, ir.Constant(_I32, 0))
    lanes = ir.Constant(ir.VectorType(_I32, _LANES), [0] * _LANES)
    return builder.shuffle_vector(vector, ir.Constant(vector_type, ir.Undefined), lanes)


def _load(builder, row, at, vector=True):
    pointer = builder.gep(row, [at])
    if vector:
        return builder.load(builder.bitcast(pointer, _VECTOR.as_pointer()), align=8)
    return builder.load(pointer)


def _max(builder, a, b):
    """``a`` if ``a > b`` else ``b``: one vmaxpd (or maxsd) on x86, never a NaN check (the data hold none)."""
    return builder.select(builder.fcmp_ordered(">", a, b), a, b)


def _lane_max(builder, vector):
    best = builder.extract_element(vector, ir.Constant(_I32, 0))
    for lane in range(1, _LANES):
        best = _max(builder, best, builder.extract_element(vector, ir.Constant(_I32, lane)))
    return best


def _cttz(builder, value):
    """The trailing zero bits of an int64 (64 for 0)."""
    count = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(_I64, [_I64, ir.IntType(1)]), "llvm.cttz.i64"
    )
    return builder.call(count, [value, ir.Constant(ir.IntType(1), 0)])


def _bits(builder, lanes):
    """A vector of i1 as the low bits of an int64."""
    return builder.zext(builder.bitcast(lanes, ir.IntType(_LANES)), _I64)


@intrinsic
def max_plus(typingctx, a, row_a, b, row_b, count):
    """``max_x a[row_a, x] + b[row_b, x]`` over ``x < count`` (``-inf`` when ``count`` is 0), by two vector
    accumulators (a maximum's latency is several cycles, its throughput two per cycle)."""
    _check_matrix("a", a)
    _check_matrix("b", b)
    signature = types.float64(a, types.intp, b, types.intp, types.intp)

    def codegen(context, builder, sig, args):
        array_a, index_a, array_b, index_b, count_v = args
        row_a = _row(context, builder, sig.args[0], array_a, index_a)
        row_b = _row(context, builder, sig.args[2], array_b, index_b)
        low = _splat(builder, ir.Constant(_DOUBLE, _MINUS_INF))
        acc0 = cgutils.alloca_once_value(builder, low)
        acc1 = cgutils.alloca_once_value(builder, low)
        pairs = builder.sdiv(count_v, _i64(2 * _LANES))
        with cgutils.for_range(builder, pairs) as loop:
            at = builder.mul(loop.index, _i64(2 * _LANES))
            for acc, offset in ((acc0, 0), (acc1, _LANES)):
                x = builder.add(at, _i64(offset))
                total = builder.fadd(_load(builder, row_a, x), _load(builder, row_b, x))
                builder.store(_max(builder, builder.load(acc), total), acc)
        done = builder.mul(pairs, _i64(2 * _LANES))
        with builder.if_then(builder.icmp_signed("<=", builder.add(done, _i64(_LANES)), count_v)):
            total = builder.fadd(_load(builder, row_a, done), _load(builder, row_b, done))
            builder.store(_max(builder, builder.load(acc0), total), acc0)
        best = cgutils.alloca_once_value(
            builder, _lane_max(builder, _max(builder, builder.load(acc0), builder.load(acc1)))
        )
        tail = builder.add(
            done, builder.mul(builder.sdiv(builder.sub(count_v, done), _i64(_LANES)), _i64(_LANES))
        )
        with cgutils.for_range_slice(builder, tail, count_v, _i64(1), inc=True) as (x, _):
            total = builder.fadd(_load(builder, row_a, x, False), _load(builder, row_b, x, False))
            builder.store(_max(builder, builder.load(best), total), best)
        return builder.load(best)

    return signature, codegen


@intrinsic
def kept_best(typingctx, a, row_a, b, row_b, count, cut, word):
    """Eq. 14's test for the labels ``x`` of word ``word`` (``64 word <= x < min(count, 64 word + 64)``):
    ``(bits, arg, top)``, where bit ``j`` of ``bits`` is ``a[row_a, x] + b[row_b, x] >= cut`` for label
    ``64 word + j`` (higher bits 0), ``top`` is the largest ``a[row_a, x]`` of those labels and ``arg`` the first
    of them that attains it (``top = -inf`` and ``arg = 64 word + 64`` when none passes)."""
    _check_matrix("a", a)
    _check_matrix("b", b)
    result = types.Tuple((types.int64, types.int64, types.float64))
    signature = result(a, types.intp, b, types.intp, types.intp, types.float64, types.intp)

    def codegen(context, builder, sig, args):
        array_a, index_a, array_b, index_b, count_v, cut_v, word_v = args
        row_a = _row(context, builder, sig.args[0], array_a, index_a)
        row_b = _row(context, builder, sig.args[2], array_b, index_b)
        first = builder.mul(word_v, _i64(64))
        width = builder.sub(count_v, first)
        width = builder.select(builder.icmp_signed(">", width, _i64(64)), _i64(64), width)
        blocks = builder.sdiv(width, _i64(_LANES))
        tail = builder.mul(blocks, _i64(_LANES))
        cut_vector = _splat(builder, cut_v)
        low = _splat(builder, ir.Constant(_DOUBLE, _MINUS_INF))
        index_type = ir.VectorType(_I64, _LANES)
        mask = cgutils.alloca_once_value(builder, _i64(0))
        acc = cgutils.alloca_once_value(builder, low)
        # per lane, the first label that holds its maximum (64 until a kept label does)
        where = cgutils.alloca_once_value(builder, ir.Constant(index_type, [64] * _LANES))
        offsets = ir.Constant(index_type, list(range(_LANES)))
        with cgutils.for_range(builder, blocks) as loop:  # the cut, and the best a among the labels kept
            bit = builder.mul(loop.index, _i64(_LANES))
            at = builder.add(first, bit)
            left = _load(builder, row_a, at)
            kept = builder.fcmp_ordered(">=", builder.fadd(left, _load(builder, row_b, at)), cut_vector)
            builder.store(builder.or_(builder.load(mask), builder.shl(_bits(builder, kept), bit)), mask)
            candidate = builder.select(kept, left, low)
            better = builder.fcmp_ordered(">", candidate, builder.load(acc))
            builder.store(builder.select(better, candidate, builder.load(acc)), acc)
            labels = builder.add(_splat(builder, bit, index_type), offsets)
            builder.store(builder.select(better, labels, builder.load(where)), where)
        values = builder.load(acc)
        top = cgutils.alloca_once_value(builder, _lane_max(builder, values))
        best = builder.load(top)
        arg = cgutils.alloca_once_value(builder, _i64(64))
        for lane in range(_LANES):  # the first label among the lanes that reach the maximum
            lane_index = ir.Constant(_I32, lane)
            label = builder.extract_element(builder.load(where), lane_index)
            hit = builder.fcmp_ordered("==", builder.extract_element(values, lane_index), best)
            hit = builder.and_(hit, builder.icmp_signed("<", label, builder.load(arg)))
            builder.store(builder.select(hit, label, builder.load(arg)), arg)
        with cgutils.for_range_slice(builder, tail, width, _i64(1), inc=True) as (bit, _):  # later labels
            at = builder.add(first, bit)
            left = _load(builder, row_a, at, False)
            kept = builder.fcmp_ordered(">=", builder.fadd(left, _load(builder, row_b, at, False)), cut_v)
            builder.store(builder.or_(builder.load(mask), builder.shl(builder.zext(kept, _I64), bit)), mask)
            better = builder.and_(kept, builder.fcmp_ordered(">", left, builder.load(top)))
            builder.store(builder.select(better, left, builder.load(top)), top)
            builder.store(builder.select(better, bit, builder.load(arg)), arg)
        bits = builder.load(mask)
        best = builder.load(top)
        arg = builder.add(first, builder.load(arg))
        return context.make_tuple(builder, sig.return_type, [bits, arg, best])

    return signature, codegen


@intrinsic
def trailing_zeros(typingctx, bits):
    """The number of trailing zero bits of an int64 (64 for 0): the lowest set bit's position."""
    if bits != types.int64:
        raise TypingError(f"bits must be int64, got {bits}")

    def codegen(context, builder, sig, args):
        return _cttz(builder, args[0])

    return types.int64(types.int64), codegen


#: float64 lanes of the widest vectors this CPU has (AVX-512: 8, AVX: 4, else 2: SSE2 or Arm's NEON): the width of
#: the register-blocked max-plus steps below (and of Viterbi's padding, ``decoders.chains.viterbi.PAD``).
HOST_LANES = (
    8
    if "+avx512f" in binding.get_host_cpu_features().flatten()
    else (4 if "+avx" in binding.get_host_cpu_features().flatten() else 2)
)
#: Vectors of successors one register-blocked step keeps in registers (their maxima and arguments: 12 of 16
#: AVX2 registers). Measured on this machine (Zen 3, AVX2; niced, shared; n = 24, L = 45, 50, 343), Viterbi's
#: cells per cycle with 2, 3, 4 and 6 vectors: 1.31-1.38, 1.27-1.55, 1.43-1.65, 1.48-1.75.
BLOCK_VECTORS = 6


def _array_data(context, builder, array_type, array):
    return context.make_array(array_type)(context, builder, array).data


def _max_plus_step(vectors: int, keep_arg: bool):
    """The intrinsic ``step(score, tau, n_prev, b0, best[, arg])``: for the ``vectors * HOST_LANES`` successors
    ``b0 <= b < b0 + vectors * HOST_LANES``, ``best[b] = max_{a < n_prev} score[a] + tau[a, b]`` and (with
    ``keep_arg``) ``arg[b]`` the first ``a`` attaining it (int32), keeping the running maxima and arguments in
    registers over all predecessors: per predecessor one broadcast of ``score[a]``, then per vector one load of
    ``tau``, one add, one compare and two selects (the arguments are carried as float64, exact below 2^53, so
    that they select on the compare's own mask). A strict ``>`` over ascending ``a`` keeps the first maximum, as
    :func:`decoders.chains.viterbi._viterbi`'s loops do, so the answers are the same bit for bit. ``score`` and
    ``best`` are float64 vectors, ``tau`` a C-contiguous float64 matrix at least ``b0 + vectors * HOST_LANES``
    wide, ``arg`` int32; ``n_prev >= 1``; nothing is bounds-checked."""
    lanes = HOST_LANES
    vector = ir.VectorType(_DOUBLE, lanes)
    index_vector = ir.VectorType(_I32, lanes)
    broadcast = ir.Constant(ir.VectorType(_I32, lanes), [0] * lanes)

    def check(score, tau, n_prev, b0, best, arg):
        for name, array, dtype, ndim in (
            ("score", score, types.float64, 1),
            ("tau", tau, types.float64, 2),
            ("best", best, types.float64, 1),
            ("arg", arg, types.int32, 1),
        ):
            if array is None:
                continue
            if not (isinstance(array, types.Array) and array.dtype == dtype and array.ndim == ndim):
                raise TypingError(f"{name} must be a {ndim}-d {dtype} array, got {array}")
            if array.layout != "C":
                raise TypingError(f"{name} must be C-contiguous, got {array}")
        if not isinstance(n_prev, types.Integer) or not isinstance(b0, types.Integer):
            raise TypingError(f"n_prev and b0 must be integers, got {n_prev}, {b0}")

    def codegen(context, builder, sig, args):
        score_v, tau_v, n_prev_v, b0_v, best_v = args[:5]
        score_p = _array_data(context, builder, sig.args[0], score_v)
        tau_a = context.make_array(sig.args[1])(context, builder, tau_v)
        stride = cgutils.unpack_tuple(builder, tau_a.strides, 2)[0]
        tau_p = builder.bitcast(tau_a.data, ir.IntType(8).as_pointer())
        best_p = _array_data(context, builder, sig.args[4], best_v)
        b0_v = builder.sext(b0_v, _I64) if b0_v.type.width < 64 else b0_v
        n_prev_v = builder.sext(n_prev_v, _I64) if n_prev_v.type.width < 64 else n_prev_v

        def splat(value):
            one = builder.insert_element(ir.Constant(vector, ir.Undefined), value, ir.Constant(_I32, 0))
            return builder.shuffle_vector(one, ir.Constant(vector, ir.Undefined), broadcast)

        def at(k):
            return builder.add(b0_v, _i64(k * lanes))

        def row_vector(a, k):
            row = builder.bitcast(builder.gep(tau_p, [builder.mul(a, stride)]), _DOUBLE.as_pointer())
            return builder.load(builder.bitcast(builder.gep(row, [at(k)]), vector.as_pointer()), align=8)

        first = splat(builder.load(score_p))
        maxima = [
            cgutils.alloca_once_value(builder, builder.fadd(first, row_vector(_i64(0), k)))
            for k in range(vectors)
        ]
        argmax = [
            cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * lanes)) for _ in range(vectors)
        ]
        with cgutils.for_range_slice(builder, _i64(1), n_prev_v, _i64(1), inc=True) as (a, _):
            s = splat(builder.load(builder.gep(score_p, [a])))
            q = splat(builder.sitofp(a, _DOUBLE)) if keep_arg else None
            for k in range(vectors):
                value = builder.fadd(s, row_vector(a, k))
                old = builder.load(maxima[k])
                better = builder.fcmp_ordered(">", value, old)
                builder.store(builder.select(better, value, old), maxima[k])
                if keep_arg:
                    builder.store(builder.select(better, q, builder.load(argmax[k])), argmax[k])
        for k in range(vectors):
            target = builder.bitcast(builder.gep(best_p, [at(k)]), vector.as_pointer())
            builder.store(builder.load(maxima[k]), target, align=8)
        if keep_arg:
            arg_p = _array_data(context, builder, sig.args[5], args[5])
            for k in range(vectors):
                target = builder.bitcast(builder.gep(arg_p, [at(k)]), index_vector.as_pointer())
                builder.store(builder.fptosi(builder.load(argmax[k]), index_vector), target, align=4)
        return context.get_dummy_value()

    if keep_arg:

        @intrinsic
        def step(typingctx, score, tau, n_prev, b0, best, arg):
            check(score, tau, n_prev, b0, best, arg)
            return types.void(score, tau, n_prev, b0, best, arg), codegen

    else:

        @intrinsic
        def step(typingctx, score, tau, n_prev, b0, best):
            check(score, tau, n_prev, b0, best, None)
            return types.void(score, tau, n_prev, b0, best), codegen

    return step


#: Register-blocked max-plus steps with arguments (Viterbi's) over :data:`BLOCK_VECTORS` vectors and over one,
#: and without (the max-plus peak's, ``decoders.chains.peak``).
argmax_block = _max_plus_step(BLOCK_VECTORS, True)
argmax_vector = _max_plus_step(1, True)
max_block = _max_plus_step(BLOCK_VECTORS, False)
max_vector = _max_plus_step(1, False)


#: Vectors of successors one register-blocked 2-best step keeps in registers (two maxima and two arguments
#: each). Measured on this machine (Zen 3, AVX2; niced, shared; n = 24): 2-best Viterbi 1.32-1.41x faster than
#: its row-by-row loops with 1 vector, 1.27-1.35x with 2, 1.12-1.20x with 3 at L = 45 and 50; 1.0x at L = 343.
TWO_BEST_VECTORS = 1


def _two_best_step(vectors: int):
    """The intrinsic ``step(score1, score2, prev, tau, b0, best1, best2, arg1, arg2)``: one 2-best max-product step
    for the ``vectors * HOST_LANES`` successors from ``b0``, over the predecessors ``prev`` (row ids of ``tau``,
    int64), the running two best and their codes in registers. Predecessor position ``k`` offers its best
    (``score1[k]``, code ``2k``) and its second best (``score2[k]``, code ``2k + 1``), visited in code order;
    only a strictly better candidate displaces a kept one, exactly as
    :func:`decoders.chains.viterbi._step2_rows`' loop (whose selects these are), so the results are the same bit
    for bit. ``best1``/``best2`` float64, ``arg1``/``arg2`` int32; ``prev`` non-empty; nothing is bounds-checked."""
    lanes = HOST_LANES
    vector = ir.VectorType(_DOUBLE, lanes)
    index_vector = ir.VectorType(_I32, lanes)
    broadcast = ir.Constant(ir.VectorType(_I32, lanes), [0] * lanes)

    def codegen(context, builder, sig, args):
        def data(i):
            return context.make_array(sig.args[i])(context, builder, args[i])

        score1_p, score2_p = data(0).data, data(1).data
        prev = data(2)
        n_prev = cgutils.unpack_tuple(builder, prev.shape, 1)[0]
        tau_a = data(3)
        stride = cgutils.unpack_tuple(builder, tau_a.strides, 2)[0]
        tau_p = builder.bitcast(tau_a.data, ir.IntType(8).as_pointer())
        b0 = args[4]
        b0 = builder.sext(b0, _I64) if b0.type.width < 64 else b0
        outputs = [data(i).data for i in (5, 6, 7, 8)]

        def splat(value):
            one = builder.insert_element(ir.Constant(vector, ir.Undefined), value, ir.Constant(_I32, 0))
            return builder.shuffle_vector(one, ir.Constant(vector, ir.Undefined), broadcast)

        def at(k):
            return builder.add(b0, _i64(k * lanes))

        low = ir.Constant(vector, [_MINUS_INF] * lanes)
        zero = ir.Constant(vector, [0.0] * lanes)
        kept = [
            [cgutils.alloca_once_value(builder, start) for _ in range(vectors)]
            for start in (low, low, zero, zero)
        ]
        with cgutils.for_range(builder, n_prev) as loop:
            k = loop.index
            row_id = builder.load(builder.gep(prev.data, [k]))
            row = builder.bitcast(builder.gep(tau_p, [builder.mul(row_id, stride)]), _DOUBLE.as_pointer())
            s1 = splat(builder.load(builder.gep(score1_p, [k])))
            s2 = splat(builder.load(builder.gep(score2_p, [k])))
            code1 = splat(builder.sitofp(builder.mul(k, _i64(2)), _DOUBLE))
            code2 = splat(builder.sitofp(builder.add(builder.mul(k, _i64(2)), _i64(1)), _DOUBLE))
            for v in range(vectors):
                t = builder.load(builder.bitcast(builder.gep(row, [at(v)]), vector.as_pointer()), align=8)
                c1, c2 = builder.fadd(s1, t), builder.fadd(s2, t)
                b1, b2, g1, g2 = (builder.load(acc[v]) for acc in kept)
                new1 = builder.fcmp_ordered(">", c1, b1)
                x, y = builder.select(new1, c2, c1), builder.select(new1, b1, b2)
                kx, ky = builder.select(new1, code2, code1), builder.select(new1, g1, g2)
                take = builder.fcmp_ordered(">", x, y)
                builder.store(builder.select(new1, c1, b1), kept[0][v])
                builder.store(builder.select(take, x, y), kept[1][v])
                builder.store(builder.select(new1, code1, g1), kept[2][v])
                builder.store(builder.select(take, kx, ky), kept[3][v])
        for v in range(vectors):
            for index, (acc, out) in enumerate(zip(kept, outputs, strict=True)):
                value = builder.load(acc[v])
                if index >= 2:  # the codes, back to int32
                    target = builder.bitcast(builder.gep(out, [at(v)]), index_vector.as_pointer())
                    builder.store(builder.fptosi(value, index_vector), target, align=4)
                else:
                    target = builder.bitcast(builder.gep(out, [at(v)]), vector.as_pointer())
                    builder.store(value, target, align=8)
        return context.get_dummy_value()

    @intrinsic
    def step(typingctx, score1, score2, prev, tau, b0, best1, best2, arg1, arg2):
        for name, array, dtype, ndim in (
            ("score1", score1, types.float64, 1),
            ("score2", score2, types.float64, 1),
            ("prev", prev, types.int64, 1),
            ("tau", tau, types.float64, 2),
            ("best1", best1, types.float64, 1),
            ("best2", best2, types.float64, 1),
            ("arg1", arg1, types.int32, 1),
            ("arg2", arg2, types.int32, 1),
        ):
            if not (isinstance(array, types.Array) and array.dtype == dtype and array.ndim == ndim):
                raise TypingError(f"{name} must be a {ndim}-d {dtype} array, got {array}")
            if array.layout != "C":
                raise TypingError(f"{name} must be C-contiguous, got {array}")
        if not isinstance(b0, types.Integer):
            raise TypingError(f"b0 must be an integer, got {b0}")
        return types.void(score1, score2, prev, tau, b0, best1, best2, arg1, arg2), codegen

    return step


#: The register-blocked 2-best step over :data:`TWO_BEST_VECTORS` vectors of successors.
two_best_block = _two_best_step(TWO_BEST_VECTORS)
