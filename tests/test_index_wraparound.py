"""Kernels index arrays without Python's negative-index wraparound (_stage.UnwrappedLower); a
negative constant still counts from the end, and other compiled code keeps the wraparound."""

import re

import numpy as np
from numba import njit

from netsim_fast._jit import JIT, KERNEL_JIT
from netsim_fast._stage import python_twin

# not cached: Numba shows no IR for code loaded from its cache
KERNEL = dict(KERNEL_JIT, cache=False)
PLAIN = dict(JIT, cache=False)


@njit(**KERNEL)
def _kernel_read(a, i):
    return a[i]


@njit(**KERNEL)
def _kernel_last(a):
    return a[-1]


@njit(**PLAIN)
def _plain_read(a, i):
    return a[i]


def _selects(dispatcher) -> int:
    """``select`` instructions in the LLVM IR of the function's own body (the wraparound's)."""
    (ir,) = dispatcher.inspect_llvm().values()
    body = ir.split("define ")[1]  # the function itself, not its CPython wrapper
    return len(re.findall(r"= select ", body))


def test_a_kernel_reads_its_index_as_it_is():
    a = np.arange(10, dtype=np.int64)
    assert _kernel_read(a, 3) == 3
    assert _plain_read(a, 3) == 3
    assert _selects(python_twin(_kernel_read)) == 0
    assert _selects(_plain_read) >= 1  # the same body through Numba's own pipeline wraps negatives


def test_a_negative_constant_still_counts_from_the_end():
    assert _kernel_last(np.arange(10, dtype=np.int64)) == 9


def test_other_compiled_code_keeps_the_wraparound():
    assert _plain_read(np.arange(10, dtype=np.int64), -1) == 9
    assert njit(lambda a, i: a[i])(np.arange(5.0), -2) == 3.0
