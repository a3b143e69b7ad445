"""The one place where Numba compilation flags are set.

Every kernel in routing/ and engine/ decorates with ``@njit(**JIT)``. ``cache=True`` writes
compiled code next to the sources (or to ``NUMBA_CACHE_DIR``) so that each CLI call and each
Dask worker loads it instead of recompiling; ``nogil=True`` lets threads of a Dask worker run
kernels side by side; ``error_model="numpy"`` makes integer division by zero a value, not an
exception check on every division in the hot loop.
"""

JIT = dict(cache=True, nogil=True, error_model="numpy", _nrt=False)

