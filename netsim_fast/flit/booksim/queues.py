"""Which stage queue each input VC of the booksim router waits in (``ivc.queue``, state.Q_*),
and, per router, which of its VCs wait in one at all.

``b.qmask`` holds one bit per VC lane, set while its queue is not ``Q_NONE``: bit ``lane % 32``
of word ``lane // 32`` (words of 32 lanes keep every value positive, so the same code runs
compiled and as plain Python). A router's internal step then visits only its waiting VCs, in
ascending order, rather than scanning all P x V of them: at 30 % of capacity a 16x16 torus
router with 20 VCs has about two waiting. ``set_queue`` is the one place a VC's queue changes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_INLINE
from netsim_fast.flit.booksim.state import Q_NONE


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
def waiting_vcs(b, base, pv, act):
    """Write to ``act`` the indices ``k`` (lane ``base + k``) of the router's VCs that wait in
    some queue, ascending; return how many."""
    n = 0
    end = base + pv
    for w in range(base >> 5, ((end - 1) >> 5) + 1):
        first = w << 5
        m = b.qmask[w]
        if first < base:  # bits of the routers before
            m &= ~((np.int64(1) << (base - first)) - 1)
        if end - first < 32:  # ... and after
            m &= (np.int64(1) << (end - first)) - 1
        while m != 0:
            act[n] = first + lowest_set_bit(m) - base
            n += 1
            m &= m - 1
    return n
