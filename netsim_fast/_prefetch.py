"""A hint to the CPU to start loading memory a kernel will read soon (x86 ``prefetcht0``).

Networks whose state outgrows the L2 (the 64x64 torus) spend much of a flit-hop waiting on
loads whose address is known a router ahead. ``prefetch_row(a, i)`` asks for the cache line
holding the start of row ``i`` of array ``a`` (along its first axis: a record, or a lane's
buffer); ``prefetch_rows(a, first, n)`` for every line of rows ``first .. first + n - 1``
(records need not start on a line: a router's five 40-byte port records span four). A
prefetch never faults, even past the array's end, and changes no value, so results are the
same with or without it.

Compiled, they are LLVM's ``llvm.prefetch`` intrinsic, through overloads compiled into the
calling kernel; the plain functions below, no-ops, are what runs under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

LINE = 64  # bytes in a cache line


def prefetch_row(a, i):
    """Start loading the cache line that holds the start of row ``i`` of ``a`` (its first axis)
    into the cache; a no-op in Python."""


def prefetch_rows(a, first, n):
    """Start loading every cache line of rows ``first .. first + n - 1`` of ``a``; a no-op in Python."""


@intrinsic
def _prefetch_byte(typingctx, a, i, offset):
    """Prefetch the line holding byte ``offset`` of row ``i`` of ``a``."""
    if not isinstance(a, types.Array) or not isinstance(i, types.Integer) or not isinstance(offset, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        skip = context.cast(builder, args[2], signature.args[2], types.intp)
        stride = cgutils.unpack_tuple(builder, array.strides)[0]
        byte = ir.IntType(8).as_pointer()
        address = builder.gep(builder.bitcast(array.data, byte), [builder.add(builder.mul(row, stride), skip)])
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
                                              "llvm.prefetch.p0")
        builder.call(hint, [address, i32(0), i32(3), i32(1)])  # a read, kept in every cache level, data
        return context.get_dummy_value()

    return types.void(a, i, offset), codegen


@overload(prefetch_row, jit_options=dict(_nrt=False))
def _prefetch_row_overload(a, i):
    return lambda a, i: _prefetch_byte(a, i, 0)


@overload(prefetch_rows, jit_options=dict(_nrt=False))
def _prefetch_rows_overload(a, first, n):
    def impl(a, first, n):
        span = n * a.strides[0]
        for offset in range(0, span, LINE):
            _prefetch_byte(a, first, offset)
        _prefetch_byte(a, first, span - 1)  # the last line, when the rows do not start on one

    return impl
