"""The one place where Numba compilation flags are set.

``JIT`` is for every compiled function: ``cache=True`` writes compiled code next to the
sources (or to ``NUMBA_CACHE_DIR``) so each CLI call and each Dask worker loads it instead of
recompiling; ``nogil=True`` lets threads of a Dask worker run kernels side by side;
``error_model="numpy"`` makes integer division by zero a value, not an exception check on
every division in the hot loop; ``no_cfunc_wrapper=True`` skips the C-callable wrapper Numba
otherwise builds for every function (only first-class function values use it, none here).

``KERNEL_JIT`` adds ``_nrt=False`` for hot kernels that never allocate (the flit engine and the
routing functions it calls): without Numba's runtime, arrays are not reference-counted at
every function boundary, which measured twice as fast on the flit engine
(bench/flit_speed.py). Such kernels must receive every array they use, scratch included.
"""

from netsim_fast import _cache
from netsim_fast._stage import StageCompiler

_cache.install()  # before any kernel module decorates a function: a cache entry goes stale with any kernel source

JIT = dict(cache=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True)
# Compiled as stages (_stage.py) when other kernels call them: LLVM IR linked into the calling
# kernel, whose machine code is generated once; a call from Python compiles the usual way.
# No CPython wrapper: a call from Python goes to a twin compiled with one (_stage.py), so a
# function only other kernels call never builds it (every wrapper built was also linked into
# the calling kernel and optimised there: about 0.3 s of the flagship's cold compile).
KERNEL_JIT = dict(JIT, _nrt=False, pipeline_class=StageCompiler, no_cpython_wrapper=True)
# Stages that only other kernels call (the cycle's phases under ``advance``); the wrapper's
# unboxing of FlitState's many arrays cost about a fifth of the flagship's cold compile
# (bench/flit_startup.py). Kept as a name for what they are.
KERNEL_STAGE_JIT = dict(KERNEL_JIT)
# Per-router stage bodies inlined into the one loop over routers that calls them: a real call
# per router and stage would cost more than the stage's work. LLVM inlines them (alwaysinline):
# inlining at Numba IR level ran type inference over each body again in the caller, which cost
# more compile time for the same machine code (bench/flit_startup.py, bench/flit_speed.py).
KERNEL_INLINE = dict(KERNEL_STAGE_JIT, forceinline=True)
# The flit engine's router stages on several threads (flit/parallel.py): a kernel of its own,
# compiled only when a run asks for threads, so a one-thread run never pays for it.
PARALLEL_JIT = dict(KERNEL_JIT, parallel=True)
