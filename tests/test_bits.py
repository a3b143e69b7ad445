"""``_bits``: the plain forms (run under NUMBA_DISABLE_JIT=1) and the compiled ones (Numba's
bit-scan intrinsics, through overloads) agree, on every single-bit word and on random words."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from netsim_fast._bits import highest_set_bit, lowest_set_bit
from netsim_fast._jit import JIT, KERNEL_JIT


@njit(**dict(KERNEL_JIT, cache=False))
def _lowest_in_kernel(mask):  # the flit engine's kernels: no NRT
    return lowest_set_bit(mask)


@njit(**dict(JIT, cache=False))
def _lowest_unsigned(mask):  # the packet engine's: uint64 words
    return lowest_set_bit(np.uint64(mask))


@njit(**dict(JIT, cache=False))
def _highest(x):
    return highest_set_bit(x)


def test_each_single_bit():
    for bit in range(63):
        word = np.int64(1) << bit
        assert lowest_set_bit(word) == _lowest_in_kernel(word) == _lowest_unsigned(word) == bit
        assert highest_set_bit(word) == _highest(word) == bit


@given(st.integers(min_value=1, max_value=(1 << 63) - 1))
def test_any_word(word):
    lowest = next(bit for bit in range(63) if word >> bit & 1)
    highest = max(bit for bit in range(63) if word >> bit & 1)
    assert lowest_set_bit(np.int64(word)) == _lowest_in_kernel(np.int64(word)) == lowest
    assert _lowest_unsigned(np.int64(word)) == lowest
    assert highest_set_bit(np.int64(word)) == _highest(np.int64(word)) == highest
