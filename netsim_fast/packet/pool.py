"""Ring buffers carved out of one pool: the queues of the packet engine.

Each bag (a link's queue, or one distance class of it) owns a power-of-two ring
``[off, off + cap)`` of the pool ``ring[S, W]``: the packet engine's entries are one int32
packet id (W = 1), so a cache line holds 16 of them and the queued packets' entries fit in
the core's cache more often. A full ring moves to a new ring of twice the size at the
pool's top (bump allocation); when the top reaches the end, every ring is compacted to the bottom with its
capacity shrunk to the smallest power of two (>= 2) holding its entries. After a compaction
the live capacity is below twice the Q packets queued; the ring being grown is then either
no longer full, or full with a power-of-two length n and doubles to 2n, so the pool needs
at most ``2 Q + n <= 3 P`` entries: a pool of ``4 P + c B + 64`` (B bags, first rings of
c <= 64 entries) never runs out, and the P + cB spare entries make compaction rare
(amortised O(1) per push).

With ``free`` (int64[64], all -1 at first), a grown ring's old block goes on the free list of
its capacity (linked through its first entry) and a ring that grows takes a block of its new
capacity from there before the top: srpf/lrpf's many bags keep growing, and without reuse
their dead blocks filled the pool and forced a compaction (a copy of every entry) again and
again. A compaction empties the lists, so the bound above holds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT

# bag[g, .] fields
BG_OFF = 0   # first pool index of the ring
BG_CAP = 1   # ring capacity (0 or a power of two)
BG_HEAD = 2  # ring index of the first entry
BG_LEN = 3   # entries
BG_FIELDS = 4
# ring[i, .] fields: the packet engine's rings hold the packet id alone (int32); the functions
# here copy whole entries, whatever their width
RG_PKT = 0

MIN_CAP = 2
FIRST_CAP = 8  # the packet kernel's first ring for a bag (fewer grows than from MIN_CAP)


def pool_size(n_packets: int, n_bags: int, first_cap: int = MIN_CAP) -> int:
    """Pool entries that can never run out (see the module docstring); the ``first_cap *
    n_bags`` spare entries give every bag a first ring of ``first_cap`` entries before the
    first compaction (a compaction shrinks rings to ``MIN_CAP``; ``first_cap`` <= 64)."""
    return 4 * int(n_packets) + first_cap * int(n_bags) + 64


@njit(**JIT)
def _pow2_at_least(n):
    cap = MIN_CAP
    while cap < n:
        cap *= 2
    return cap


@njit(**JIT)
def _log2(cap):
    k = 0
    while (1 << k) < cap:
        k += 1
    return k


@njit(**JIT)
def _compact(bag, ring, counters, top_slot):
    """Copy every non-empty ring to the bottom of the pool in queue order, head at 0."""
    total = 0
    for g in range(bag.shape[0]):
        total += bag[g, BG_LEN]
    tmp = np.empty((total, ring.shape[1]), ring.dtype)
    pos = 0
    for g in range(bag.shape[0]):
        n = bag[g, BG_LEN]
        off = bag[g, BG_OFF]
        mask = bag[g, BG_CAP] - 1
        head = bag[g, BG_HEAD]
        for i in range(n):
            j = off + ((head + i) & mask)
            for c in range(ring.shape[1]):
                tmp[pos + i, c] = ring[j, c]
        pos += n
    top = 0
    pos = 0
    for g in range(bag.shape[0]):
        n = bag[g, BG_LEN]
        if n == 0:
            bag[g, BG_OFF] = 0
            bag[g, BG_CAP] = 0
            bag[g, BG_HEAD] = 0
            continue
        cap = _pow2_at_least(n)
        ring[top:top + n] = tmp[pos:pos + n]
        bag[g, BG_OFF] = top
        bag[g, BG_CAP] = cap
        bag[g, BG_HEAD] = 0
        top += cap
        pos += n
    counters[top_slot] = top


@njit(**JIT)
def grow_bag(bag, ring, counters, top_slot, g, free=None):
    """Give bag ``g`` (full) a ring of twice the capacity, entries kept in queue order;
    ``free``: the free lists of blocks by capacity (module docstring)."""
    n = bag[g, BG_LEN]
    new_cap = max(MIN_CAP, 2 * bag[g, BG_CAP])
    top = -1
    if free is not None:
        top = free[_log2(new_cap)]
        if top >= 0:
            free[_log2(new_cap)] = ring[top, 0]
    if top < 0:
        if counters[top_slot] + new_cap > ring.shape[0]:
            _compact(bag, ring, counters, top_slot)
            if free is not None:
                free[:] = -1
            if bag[g, BG_LEN] < bag[g, BG_CAP]:
                return  # compaction rounded its capacity up: room already
            new_cap = max(MIN_CAP, 2 * bag[g, BG_CAP])  # an empty bag was shrunk to no ring
        top = counters[top_slot]
        counters[top_slot] = top + new_cap
    off = bag[g, BG_OFF]
    cap = bag[g, BG_CAP]
    mask = cap - 1
    head = bag[g, BG_HEAD]
    for i in range(n):
        j = off + ((head + i) & mask)
        for c in range(ring.shape[1]):
            ring[top + i, c] = ring[j, c]
    if free is not None and cap > 0:
        ring[off, 0] = free[_log2(cap)]
        free[_log2(cap)] = off
    bag[g, BG_OFF] = top
    bag[g, BG_CAP] = new_cap
    bag[g, BG_HEAD] = 0
