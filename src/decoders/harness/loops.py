"""Compiled timing loops (see :func:`decoders.harness.protocol.register`'s ``timing_loop``).

A decoder that takes microseconds is dominated, when called from Python, by the call itself (argument checks,
numba's dispatch and the boxing of results: ~1-2 us). :func:`compiled_loop` makes a numba function that calls a
compiled kernel ``repeats`` times on the same arguments without leaving compiled code and returns the sum of the
objectives, so that the runner can time the kernel the way a compiled program (the papers' Java or C++) would
run it.

:func:`cycles` reads the processor's time-stamp counter from compiled code, for per-phase profiles of a kernel
(a few tens of cycles per read: for shares of a kernel's time, not for timing it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def compiled_loop(kernel: Any) -> Callable[..., float]:
    """``loop(repeats, *args) -> float``: ``sum(kernel(*args)[1] for each of repeats calls)``, in numba.

    ``kernel`` is a numba-compiled function returning a tuple whose second item is the score (every chains
    kernel does). Summing the scores keeps the calls observable, so the compiler cannot drop them.
    """

    @numba.njit(nogil=True)
    def loop(repeats, *args):
        total = 0.0
        for _ in range(repeats):
            total += kernel(*args)[1]
        return total

    return loop


@intrinsic
def cycles(typingctx):
    """The time-stamp counter (``llvm.readcyclecounter``) as int64, read from compiled code."""

    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(function, [])

    return types.int64(), codegen
