"""Arrays that start on a cache line.

NumPy aligns an array's data on 16 bytes only. The engines' state is record arrays whose
records are sized to share no cache line (a 64-byte lane record is one line), which holds only
if the array starts on a line: from an address 16 bytes past one, every such record straddled
two lines and each access to it touched both. That costs most where the state does not fit in
a core's cache: on the 64x64 torus, starting the flit engine's arrays on a line cut the time of
a flit-hop by a third (README, "Performance").
"""

from __future__ import annotations

import numpy as np

LINE = 64  # bytes in a cache line (x86-64, ARMv8 Neoverse)


def zeros(shape, dtype) -> np.ndarray:
    """``np.zeros(shape, dtype)``, C-contiguous, whose data starts on a cache line."""
    return _on_a_line(np.zeros, shape, dtype)


def empty(shape, dtype) -> np.ndarray:
    """``np.empty`` on a cache line: for arrays the caller fills, whose pages should not all be
    touched (zeroed) up front."""
    return _on_a_line(np.empty, shape, dtype)


def _on_a_line(allocate, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = allocate(size + LINE, np.uint8)
    start = -raw.ctypes.data % LINE
    return raw[start: start + size].view(dtype).reshape(shape)


def full(shape, value, dtype) -> np.ndarray:
    """``np.full`` on a cache line."""
    out = zeros(shape, dtype)
    out[...] = value
    return out


def records(shape, dtype) -> np.ndarray:
    """Zeroed records on a cache line, as a ``np.recarray`` (so that plain Python under
    ``NUMBA_DISABLE_JIT=1`` reads ``lanes[i].len`` as the kernels do)."""
    return zeros(shape, dtype).view(np.recarray)
