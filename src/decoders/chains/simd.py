"""Vector code numba does not write by itself, as numba intrinsics (LLVM IR through llvmlite).

Numba (LLVM) vectorises elementwise loops, such as Viterbi's running maxima, but not a comparison whose results
are packed into bits, so eq. 14's test of every label against the cut would run one label at a time.
:func:`mask_ge` makes it four labels per instruction: vector additions and comparisons whose results are read as
the bits of one integer, which :func:`trailing_zeros` turns back into label ids.

The arrays must be C-contiguous float64 matrices (a ChainInstance's ``theta``, ``_transition_tables``' array):
other layouts are refused when the calling kernel compiles. The intrinsics trust their row and column
arguments, as the kernels do.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

_LANES = 4  # float64 lanes per vector (256-bit vectors, as numba's own vectorised loops use)
_VECTOR = ir.VectorType(ir.DoubleType(), _LANES)
_I64 = ir.IntType(64)


def _row(context, builder, array_type, array, row):
    """A pointer to ``array[row, 0]`` of a C-contiguous float64 matrix."""
    array = context.make_array(array_type)(context, builder, array)
    row_stride = cgutils.unpack_tuple(builder, array.strides, 2)[0]
    data = builder.bitcast(array.data, ir.IntType(8).as_pointer())
    return builder.bitcast(builder.gep(data, [builder.mul(row, row_stride)]), ir.DoubleType().as_pointer())


def _check_matrix(name, array_type):
    if not (
        isinstance(array_type, types.Array)
        and array_type.ndim == 2
        and array_type.layout == "C"
        and array_type.dtype == types.float64
    ):
        raise TypingError(f"{name} must be a C-contiguous float64 matrix, got {array_type}")


@intrinsic
def mask_ge(typingctx, a, row_a, b, row_b, count, cut, word):
    """The bits of ``a[row_a, x] + b[row_b, x] >= cut`` for the labels ``x`` of word ``word``: bit ``j`` of the
    int64 result is label ``64 word + j``, for ``x < count`` (higher bits are 0)."""
    _check_matrix("a", a)
    _check_matrix("b", b)
    signature = types.int64(a, types.intp, b, types.intp, types.intp, types.float64, types.intp)

    def codegen(context, builder, sig, args):
        array_a, index_a, array_b, index_b, count_v, cut_v, word_v = args
        row_a = _row(context, builder, sig.args[0], array_a, index_a)
        row_b = _row(context, builder, sig.args[2], array_b, index_b)
        first = builder.mul(word_v, ir.Constant(_I64, 64))
        width = builder.sub(count_v, first)
        width = builder.select(
            builder.icmp_signed(">", width, ir.Constant(_I64, 64)), ir.Constant(_I64, 64), width
        )
        mask = cgutils.alloca_once_value(builder, ir.Constant(_I64, 0))
        splat = builder.insert_element(
            ir.Constant(_VECTOR, ir.Undefined), cut_v, ir.Constant(ir.IntType(32), 0)
        )
        lanes = ir.Constant(ir.VectorType(ir.IntType(32), _LANES), [0] * _LANES)
        splat = builder.shuffle_vector(splat, ir.Constant(_VECTOR, ir.Undefined), lanes)
        blocks = builder.sdiv(width, ir.Constant(_I64, _LANES))
        with cgutils.for_range(builder, blocks) as loop:
            bit = builder.mul(loop.index, ir.Constant(_I64, _LANES))
            at = builder.add(first, bit)
            left = builder.load(builder.bitcast(builder.gep(row_a, [at]), _VECTOR.as_pointer()), align=8)
            right = builder.load(builder.bitcast(builder.gep(row_b, [at]), _VECTOR.as_pointer()), align=8)
            kept = builder.fcmp_ordered(">=", builder.fadd(left, right), splat)
            bits = builder.zext(builder.bitcast(kept, ir.IntType(_LANES)), _I64)
            builder.store(builder.or_(builder.load(mask), builder.shl(bits, bit)), mask)
        tail = builder.mul(blocks, ir.Constant(_I64, _LANES))
        with cgutils.for_range_slice(builder, tail, width, ir.Constant(_I64, 1), inc=True) as (bit, _):
            at = builder.add(first, bit)
            total = builder.fadd(
                builder.load(builder.gep(row_a, [at])), builder.load(builder.gep(row_b, [at]))
            )
            kept = builder.zext(builder.fcmp_ordered(">=", total, cut_v), _I64)
            builder.store(builder.or_(builder.load(mask), builder.shl(kept, bit)), mask)
        return builder.load(mask)

    return signature, codegen


@intrinsic
def trailing_zeros(typingctx, bits):
    """The number of trailing zero bits of an int64 (64 for 0): the lowest set bit's position."""
    if bits != types.int64:
        raise TypingError(f"bits must be int64, got {bits}")

    def codegen(context, builder, sig, args):
        count = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_I64, [_I64, ir.IntType(1)]), "llvm.cttz.i64"
        )
        return builder.call(count, [args[0], ir.Constant(ir.IntType(1), 0)])

    return types.int64(types.int64), codegen
