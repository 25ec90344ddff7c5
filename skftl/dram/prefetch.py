"""Software prefetch for numba kernels: ``prefetch(a, i)`` asks the CPU to start
loading the cache line of ``a[i]`` and returns at once (LLVM's ``llvm.prefetch``:
read, keep in all cache levels). Unlike a load whose
value is used, a prefetch does not hold back the instructions after it while the
line comes from DRAM, so the work on earlier operations overlaps the misses of later
ones. Indices are not checked or wrapped: pass valid non-negative indices (a bad one
only prefetches a useless address, a prefetch never faults).
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def _emit(context, builder, aryty, ary_val, idx_vals, idx_types):
    ary = context.make_array(aryty)(context, builder, ary_val)
    idx = [
        context.cast(builder, v, t, types.intp) for v, t in zip(idx_vals, idx_types, strict=True)
    ]
    ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx, wraparound=False)
    i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
    # (address, 0 = read, 3 = keep in every cache level, 1 = data cache)
    builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
    return context.get_dummy_value()


@intrinsic
def prefetch(typingctx, arr, i):
    sig = types.void(arr, i)

    def codegen(context, builder, sig, args):
        return _emit(context, builder, sig.args[0], args[0], args[1:], sig.args[1:])

    return sig, codegen
