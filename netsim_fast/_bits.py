"""Bit scans shared by the engines' kernels: the lowest and the highest set bit of a word.

Compiled, each is one instruction (Numba's ``trailing_zeros`` / ``leading_zeros`` intrinsics,
through an overload that is compiled into the calling kernel). The intrinsics have no Python
form, so the plain functions below are what runs under ``NUMBA_DISABLE_JIT=1`` (the ``nojit``
tests); ``tests/test_bits.py`` checks that the two forms agree.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import overload


def lowest_set_bit(x):
    """Index of the lowest set bit of a non-zero integer word (its trailing zeros)."""
    x = int(x)
    return (x & -x).bit_length() - 1


def highest_set_bit(x):
    """Index of the highest set bit of a positive int64."""
    return int(x).bit_length() - 1


@overload(lowest_set_bit, jit_options=dict(_nrt=False))
def _lowest_set_bit_compiled(x):
    return lambda x: np.int64(trailing_zeros(x))


@overload(highest_set_bit, jit_options=dict(_nrt=False))
def _highest_set_bit_compiled(x):
    return lambda x: np.int64(63 - leading_zeros(np.uint64(x)))
