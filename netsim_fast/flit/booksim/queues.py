"""Which stage queue each input VC of the booksim router waits in (``ivc.queue``, state.Q_*),
and, per router, which of its VCs wait in one at all.

``b.qmask`` holds one bit per VC lane, set while its queue is not ``Q_NONE``: bit ``lane % 32``
of word ``lane // 32`` (words of 32 lanes keep every value positive, so the same code runs
compiled and as plain Python). A router's internal step then visits only its waiting VCs, in
ascending order, rather than scanning all P x V of them (below saturation few wait).
``set_queue`` is the one place a VC's queue changes.

``stage_lists`` sorts them, once per internal step, into one list per stage (rows of
``b.act``), so that each stage visits only the VCs of its queue. A stage reads its list after
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
from netsim_fast.flit.booksim.state import Q_HOLD, Q_NONE, Q_ROUTE, Q_SA, Q_VA

# rows of ``b.act``: routing, VC allocation, switch allocation (with speculation, the VCs in VC
# allocation too), held switch
L_ROUTE, L_VA, L_SW, L_HOLD = 0, 1, 2, 3


@njit(**KERNEL_INLINE)
def set_queue(b, lane, q):
    """VC ``lane`` now waits in queue ``q`` (``Q_NONE``: in none)."""
    b.ivc[lane].queue = q
    bit = np.int64(1) << (lane & 31)
    if q == Q_NONE:
        b.qmask[lane >> 5] &= ~bit
    else:
        b.qmask[lane >> 5] |= bit


@njit(**KERNEL_INLINE)
def stage_lists(b, base, pv, spec):
    """Write to the rows of ``b.act`` the indices ``k`` (lane ``base + k``) of the router's VCs
    in each stage's queue, ascending; return the four counts (``L_*`` order)."""
    act = b.act
    n_rt, n_va, n_sw, n_hold = 0, 0, 0, 0
    end = base + pv
    for w in range(base >> 5, ((end - 1) >> 5) + 1):
        first = w << 5
        m = b.qmask[w]
        if first < base:  # bits of the routers before
            m &= ~((np.int64(1) << (base - first)) - 1)
        if end - first < 32:  # ... and after
            m &= (np.int64(1) << (end - first)) - 1
        while m != 0:
            k = first + lowest_set_bit(m) - base
            m &= m - 1
            q = b.ivc[base + k].queue
            if q == Q_SA or (spec and q == Q_VA):
                act[L_SW, n_sw] = k
                n_sw += 1
            if q == Q_VA:
                act[L_VA, n_va] = k
                n_va += 1
            elif q == Q_ROUTE:
                act[L_ROUTE, n_rt] = k
                n_rt += 1
            elif q == Q_HOLD:
                act[L_HOLD, n_hold] = k
                n_hold += 1
    return n_rt, n_va, n_sw, n_hold
