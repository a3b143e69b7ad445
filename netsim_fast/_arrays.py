"""Arrays that start on a cache line.

NumPy aligns an array's data on 16 bytes only. The engines' state is record arrays whose
records are sized to share no cache line (a 64-byte lane record is one line), which holds only
if the array starts on a line: from an address 16 bytes past one, every such record straddled
two lines and each access to it touched both. That costs most where the state does not fit in
a core's cache: on the 64x64 torus, starting the flit engine's arrays on a line cut the time of
a flit-hop by a third (README, "Performance").

With ``huge=True``, an array of 2 MiB or more starts on a 2 MiB boundary instead, in memory of
its own that the kernel is asked to back with 2 MiB pages (Linux transparent huge pages,
``madvise``; elsewhere, or if the kernel declines, ordinary pages). The flit engine's state
asks for it: the 64x64 torus's 17 MiB of state is touched at random every cycle, which in
4 KiB pages needs more address translations than the TLB holds (bench/flit_speed.py --against
main, 5 pairs, 2026-11-27: 0.93x the time per flit-hop on the 64x64 torus, 1.0x on the 16x16
and 32x32). The packet engine does not: it touches its fresh arrays page by page in setup, and
a huge page costs the zeroing of 2 MiB at its first touch (its setup went from 1.3 to 2.2 ms).
"""

from __future__ import annotations

import mmap

import numpy as np

LINE = 64  # bytes in a cache line (x86-64, ARMv8 Neoverse)
HUGE = 2 << 20  # bytes in a huge page (x86-64, ARMv8 with 4 KiB base pages)


def zeros(shape, dtype, huge: bool = False) -> np.ndarray:
    """``np.zeros(shape, dtype)``, C-contiguous, whose data starts on a cache line (``huge``: in
    huge pages from 2 MiB up, see above)."""
    return _on_a_line(np.zeros, shape, dtype, huge)


def empty(shape, dtype) -> np.ndarray:
    """``np.empty`` on a cache line: for arrays the caller fills, whose pages should not all be
    touched (zeroed) up front."""
    return _on_a_line(np.empty, shape, dtype, False)


def _on_a_line(allocate, shape, dtype, huge: bool) -> np.ndarray:
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if huge and size >= HUGE and hasattr(mmap, "MADV_HUGEPAGE"):
        return _in_huge_pages(size).view(dtype).reshape(shape)
    raw = allocate(size + LINE, np.uint8)
    start = -raw.ctypes.data % LINE
    return raw[start: start + size].view(dtype).reshape(shape)


def _in_huge_pages(size: int) -> np.ndarray:
    """``size`` zero bytes on a huge-page boundary, in an anonymous mapping (zeroed by the
    kernel, pages touched only when written) advised to use huge pages; the array keeps the
    mapping alive."""
    mapping = mmap.mmap(-1, size + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    mapping.madvise(mmap.MADV_HUGEPAGE)
    raw = np.frombuffer(mapping, np.uint8)
    start = -raw.ctypes.data % HUGE
    return raw[start: start + size]


def full(shape, value, dtype) -> np.ndarray:
    """``np.full`` on a cache line."""
    out = zeros(shape, dtype)
    out[...] = value
    return out


def records(shape, dtype, huge: bool = False) -> np.ndarray:
    """Zeroed records on a cache line, as a ``np.recarray`` (so that plain Python under
    ``NUMBA_DISABLE_JIT=1`` reads ``lanes[i].len`` as the kernels do)."""
    return zeros(shape, dtype, huge).view(np.recarray)
