"""``prefetch(arr, i)``: ask the CPU to start loading row ``i`` of ``arr`` into the cache
(``prefetch_at(arr, i, j)``: element ``arr[i, j]`` of a 2-D array).

The packet kernel learns which packet rows and queue entries it will touch a step before it
touches them (a packet popped in the send step is read again in the arrive step); a prefetch
there lets those cache misses overlap instead of stalling one at a time. It is only a hint:
no result depends on it (LLVM's ``llvm.prefetch``, one ``prefetcht0``).
"""

from __future__ import annotations

from numba import config as numba_config

if numba_config.DISABLE_JIT:
    def prefetch(arr, i):
        """No-op in plain Python."""

    def prefetch_at(arr, i, j):
        """No-op in plain Python."""
else:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def _prefetch(builder, context, aryty, ary_value, idx):
        """Emit ``llvm.prefetch`` (read, high locality) of the element at ``idx`` (intp values)."""
        ary = context.make_array(aryty)(context, builder, ary_value)
        ptr = cgutils.get_item_pointer2(
            context, builder, data=ary.data, shape=cgutils.unpack_tuple(builder, ary.shape),
            strides=cgutils.unpack_tuple(builder, ary.strides), layout=aryty.layout,
            inds=idx, wraparound=False, boundscheck=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])

    @intrinsic
    def prefetch(typingctx, arr, i):
        """Prefetch ``arr[i]`` (``arr[i, 0]`` for a 2-D array) for reading, high locality."""
        def codegen(context, builder, sig, args):
            aryty = sig.args[0]
            idx = [context.cast(builder, args[1], sig.args[1], types.intp)]
            idx += [context.get_constant(types.intp, 0)] * (aryty.ndim - 1)
            _prefetch(builder, context, aryty, args[0], idx)
            return context.get_dummy_value()
        return types.void(arr, i), codegen

    @intrinsic
    def prefetch_at(typingctx, arr, i, j):
        """Prefetch ``arr[i, j]`` of a 2-D array for reading, high locality."""
        def codegen(context, builder, sig, args):
            idx = [context.cast(builder, args[k], sig.args[k], types.intp) for k in (1, 2)]
            _prefetch(builder, context, sig.args[0], args[0], idx)
            return context.get_dummy_value()
        return types.void(arr, i, j), codegen
