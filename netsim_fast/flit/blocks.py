"""Arrivals block by block: a cycle's flits and credits are sorted by the block of routers
they reach, and each block's are taken just before the block's own stages (flit/kernel.py).

Arrivals touch only the records of the router they reach, and a router's stages read what
arrived in earlier cycles and this one's arrivals at that router, so taking a block's arrivals
just before the block's stages gives the same result as taking them all first. On a network
whose state does not stay in the cache from the arrivals pass to the router loop (the 64x64
torus: 17 MiB against 1 MiB of L2), the records an arrival touched are then still in cache
when the router's stages read them. The sort is a counting sort by block (two passes over the
events), which keeps the tight loop over many arrivals that lets their cache misses overlap.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_INLINE, KERNEL_STAGE_JIT
from netsim_fast.flit.traverse import arrive_range

BLOCK_ROUTERS = 256  # routers per block: a 2-D torus's block of records (~4.5 KB a router) about fills L2
BLOCK_SHIFT = 40     # lane * arr_magic >> BLOCK_SHIFT is lane // (routers per block * lanes per router)
# Blocks from this many lanes up. bench/flit_speed.py --against main, 3 pairs, 2026-11-27: the
# 64x64 torus (81,920 lanes) 0.897x the time per flit-hop, 16x16x16 (114,688) 0.914x, the
# 16k-terminal dragonfly (255,936) 0.936x; but the 32x32 (20,480 lanes, whose 5 MiB of state
# stays in the L3 between the passes) 1.069x: there the sort costs more than it saves. At 3 % of
# capacity on the 64x64 (few arrivals, few records touched) 1.03x.
BLOCK_MIN_LANES = 65536


def block_params(n_routers: int, lanes_per_router: int) -> dict:
    """``arr_block`` and ``arr_magic`` of FlitParams: blocks only for networks of at least
    BLOCK_MIN_LANES lanes, and only where the multiply-shift gives the exact quotient for every lane."""
    import numpy as np

    if n_routers <= BLOCK_ROUTERS or n_routers * lanes_per_router < BLOCK_MIN_LANES:
        return dict(arr_block=0, arr_magic=0)
    divisor = BLOCK_ROUTERS * lanes_per_router
    magic = -(-(1 << BLOCK_SHIFT) // divisor)
    lanes = np.arange(n_routers * lanes_per_router + 1, dtype=np.int64)
    if not np.array_equal((lanes * magic) >> BLOCK_SHIFT, lanes // divisor):
        return dict(arr_block=0, arr_magic=0)
    return dict(arr_block=BLOCK_ROUTERS, arr_magic=magic)


@njit(**KERNEL_INLINE)
def _block(lane, magic):
    return (lane * magic) >> BLOCK_SHIFT


@njit(**KERNEL_STAGE_JIT)
def sort_arrivals(s, p, slot):
    """The slot's flits and credits into ``s.blk_flit`` and ``s.blk_credit``, by block, in ring
    order within a block; ``s.blk_off[0 or 1, b]`` is where block ``b``'s start. Empties the slot."""
    off = s.blk_off
    nb = off.shape[1] - 1
    flits, n_flits = s.ev_flit[slot], s.ev_flit_n[slot]
    credits, n_credits = s.ev_credit[slot], s.ev_credit_n[slot]
    for b in range(nb + 1):
        off[0, b] = 0
        off[1, b] = 0
    for i in range(n_flits):
        off[0, _block(flits[i, 0], p.arr_magic) + 1] += 1
    for i in range(n_credits):
        off[1, _block(credits[i], p.arr_magic) + 1] += 1
    for b in range(nb):
        off[0, b + 1] += off[0, b]
        off[1, b + 1] += off[1, b]
    # scatter, each block's next free place counted up from its start, then restored
    for i in range(n_flits):
        b = _block(flits[i, 0], p.arr_magic)
        k = off[0, b]
        s.blk_flit[k, 0] = flits[i, 0]
        s.blk_flit[k, 1] = flits[i, 1]
        off[0, b] = k + 1
    for i in range(n_credits):
        b = _block(credits[i], p.arr_magic)
        k = off[1, b]
        s.blk_credit[k] = credits[i]
        off[1, b] = k + 1
    for b in range(nb, 0, -1):
        off[0, b] = off[0, b - 1]
        off[1, b] = off[1, b - 1]
    off[0, 0] = 0
    off[1, 0] = 0
    s.ev_flit_n[slot] = 0
    s.ev_credit_n[slot] = 0


@njit(**KERNEL_STAGE_JIT)
def arrive_block(s, p, t, b):
    """The sorted arrivals of block ``b`` (``sort_arrivals``)."""
    off = s.blk_off
    f0, f1, c0, c1 = off[0, b], off[0, b + 1], off[1, b], off[1, b + 1]
    arrive_range(s.inl, s.in_buf, s.node, s.outl, p, t, 0, s.inl.shape[0], s.blk_flit[f0:f1], f1 - f0,
                 s.blk_credit[c0:c1], c1 - c0)
