"""``flits.lowest_set_bit``: the plain form (run under NUMBA_DISABLE_JIT=1) and the compiled one
(Numba's trailing-zeros intrinsic, through an overload) agree on every mask the link arbiter
can hold (at most 32 VCs, rotated into a 64-bit word)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.flit.flits import lowest_set_bit


@njit(**dict(KERNEL_JIT, cache=False))
def _compiled(mask):
    return lowest_set_bit(mask)


def test_each_single_bit():
    for bit in range(63):
        mask = np.int64(1) << bit
        assert lowest_set_bit(mask) == bit
        assert _compiled(mask) == bit


@given(st.integers(min_value=1, max_value=(1 << 63) - 1))
def test_any_mask(mask):
    expected = next(bit for bit in range(63) if mask >> bit & 1)
    assert lowest_set_bit(np.int64(mask)) == expected
    assert _compiled(np.int64(mask)) == expected
