"""Which stage queue each input VC of the booksim router waits in (``ivc.queue``, state.Q_*),
and, per router, which of its VCs wait in one at all.

``b.qmask`` holds, for each queue ``q``, one bit per VC lane, set while the VC waits in ``q``:
bit ``lane % 32`` of ``b.qmask[q, lane // 32]`` (words of 32 lanes keep every value positive,
so the same code runs compiled and as plain Python; row ``Q_NONE`` takes the bits of VCs in no
queue and is never read). A router's internal step then visits only its waiting VCs, in
ascending order, rather than scanning all P x V of them (below saturation few wait), and it
needs no VC's record to tell which queue it waits in. ``set_queue`` is the one place a VC's
queue changes.

``stage_lists`` lists them, once per internal step, one list per stage (rows of ``b.act``),
so that each stage visits only the VCs of its queue. A stage reads its list after
earlier stages of the step moved some VCs on; that cannot hide a VC from it: a VC enters a
queue during the step only from another (never from none), and the one that can receive VCs
before its stage reads them (VC allocation's, from routing; the switch's, from VC allocation
or a dropped held connection) only receives VCs that its stage's check of the due cycle skips.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_INLINE
from netsim_fast.flit.booksim.state import Q_HOLD, Q_ROUTE, Q_SA, Q_VA

# rows of ``b.act``: routing, VC allocation, switch allocation (with speculation, the VCs in VC
# allocation too), held switch
L_ROUTE, L_VA, L_SW, L_HOLD = 0, 1, 2, 3


@njit(**KERNEL_INLINE)
def set_queue(b, lane, q):
    """VC ``lane`` now waits in queue ``q`` (``Q_NONE``: in none)."""
    bit = np.int64(1) << (lane & 31)
    w = lane >> 5
    b.qmask[b.ivc[lane].queue, w] &= ~bit
    b.qmask[q, w] |= bit
    b.ivc[lane].queue = q


@njit(**KERNEL_INLINE)
def _list_bits(m, first, base, act, row, n):
    """Append to ``act[row, n:]`` the router indices of the lanes whose bits ``m`` sets (word
    starting at lane ``first``), ascending; return the new count."""
    while m != 0:
        act[row, n] = first + lowest_set_bit(m) - base
        m &= m - 1
        n += 1
    return n


@njit(**KERNEL_INLINE)
def stage_lists(b, base, pv, spec):
    """Write to the rows of ``b.act`` the indices ``k`` (lane ``base + k``) of the router's VCs
    in each stage's queue, ascending; return the four counts (``L_*`` order)."""
    act, qmask = b.act, b.qmask
    n_rt, n_va, n_sw, n_hold = 0, 0, 0, 0
    end = base + pv
    for w in range(base >> 5, ((end - 1) >> 5) + 1):
        first = w << 5
        window = np.int64(0xFFFFFFFF)
        if first < base:  # bits of the routers before
            window &= ~((np.int64(1) << (base - first)) - 1)
        if end - first < 32:  # ... and after
            window &= (np.int64(1) << (end - first)) - 1
        va = qmask[Q_VA, w] & window
        n_rt = _list_bits(qmask[Q_ROUTE, w] & window, first, base, act, L_ROUTE, n_rt)
        n_va = _list_bits(va, first, base, act, L_VA, n_va)
        n_sw = _list_bits((qmask[Q_SA, w] & window) | (va if spec else 0), first, base, act, L_SW, n_sw)
        n_hold = _list_bits(qmask[Q_HOLD, w] & window, first, base, act, L_HOLD, n_hold)
    return n_rt, n_va, n_sw, n_hold
