"""Which ports of a booksim router have something to pass on, so that stage 12 and the write
phase visit only those (in ascending order, as the scans of every port they replace did).

Three masks in the router's record (``b.node``), a bit per port:
- ``cmsg_ports``: input ports whose VCs sent a flit on in this internal step (``b.cmsg``);
- ``cq_ports``: input ports with credit messages queued (``b.cq``);
- ``of_ports``: output ports with flits in their output FIFO (``b.of``).

Ports ``SHARED`` and up share bit ``SHARED``, which stays set once set, so those ports are
scanned as before; 31-bit masks keep every value positive, so the same code runs compiled and
as plain Python (queues.py's words do the same). ``--check-invariants`` checks the masks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_INLINE
from netsim_fast.flit.booksim.state import NONE

SHARED = 31


@njit(**KERNEL_INLINE)
def mark_port(mask, port):
    """``mask`` with ``port`` marked."""
    return mask | (np.int64(1) << min(port, SHARED))


@njit(**KERNEL_INLINE)
def unmark_port(mask, port):
    """``mask`` without ``port``, which has nothing left (a shared bit stays)."""
    return mask & ~(np.int64(1) << port) if port < SHARED else mask


@njit(**KERNEL_INLINE)
def next_marked_port(mask, after, n_ports):
    """The first port after ``after`` (NONE: from port 0) that ``mask`` marks, NONE if none: a
    port of the shared bit whenever it is set."""
    nxt = after + 1
    if nxt >= SHARED:
        return nxt if nxt < n_ports and (mask >> SHARED) & 1 else NONE
    m = mask & ~((np.int64(1) << nxt) - 1)
    return NONE if m == 0 else lowest_set_bit(m)
