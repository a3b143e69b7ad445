"""Arrivals block by block, for large networks: a cycle's flits and credits are sorted by the
block of routers they reach, and each block takes its own just before its routers' stages.

Arrivals touch only the records of the router they reach, and a router's stages read what
arrived in earlier cycles and this cycle's arrivals at that router, so taking a block's
arrivals just before the block's stages gives the same result as taking them all first
(flit/kernel.py ``advance``). Where the state does not stay in the cache from the arrivals pass
to the router loop (the 64x64 torus: 17 MiB against 1 MiB of L2), the records an arrival
touched are then still in cache when the router's stages read them. The sort is a counting
sort by block (two passes over the events), which keeps the tight loop over many arrivals
that lets their cache misses overlap. Not with ``ugal-g``, whose routers read the others'
state as they decide, nor on several threads (flit/parallel.py has its own arrivals).

This is a kernel of its own (``advance_blocks``, compiled only when a run uses it) with its own
scratch, so the one-thread kernel of every other run is unchanged: putting the scratch into
FlitState and FlitParams, with the blocked path pruned where unused, still made the 16x16 and
32x32 tori 2-4 % slower (bench/flit_speed.py --against main, 5 pairs, 2026-11-27).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from netsim_fast import _arrays as aligned
from netsim_fast._jit import KERNEL_INLINE, KERNEL_JIT, KERNEL_STAGE_JIT
from netsim_fast.flit.kernel import (
    cycle_done, cycle_end, prefetches, release_and_eject, router_range, router_slots, router_stages,
)
from netsim_fast.flit.state import C_CYCLE, ERR_OK
from netsim_fast.flit.traverse import arrivals, arrive_range

BLOCK_ROUTERS = 256  # routers per block: a 2-D torus's block of records (~4.5 KB a router) about fills L2
BLOCK_SHIFT = 40     # lane * magic >> BLOCK_SHIFT is lane // (routers per block * lanes per router)
# Blocks from this many lanes up. bench/flit_speed.py --against main, 3 pairs, 2026-11-27: the
# 64x64 torus (81,920 lanes) 0.897x the time per flit-hop, 16x16x16 (114,688) 0.914x, the
# 16k-terminal dragonfly (255,936) 0.936x; but the 32x32 (20,480 lanes, whose 5 MiB of state
# stays in the L3 between the passes) 1.069x: there the sort costs more than it saves. At 3 % of
# capacity on the 64x64 (few arrivals, few records touched) 1.03x.
BLOCK_MIN_LANES = 65536
# A cycle goes block by block with at least one arrival per this many routers: in quieter cycles
# the sort cost more than the cache saved (64x64 at 3 % of capacity, about one arrival per four
# routers: 1.065x the time per flit-hop with every cycle sorted, 1.03x with this rule, 3 pairs)
MIN_ARRIVALS_PER = 2


class BlockScratch(NamedTuple):
    block: int           # routers per block
    quiet: int           # a cycle with fewer arrivals (flits and credits) takes them all first
    magic: int           # lane * magic >> BLOCK_SHIFT is the lane's block
    flits: np.ndarray    # int64[cap, 2] the cycle's arriving flits (lane, flit), block after block
    credits: np.ndarray  # int32[cap2] ... its arriving credits (output lane)
    off: np.ndarray      # int64[2, nb + 1] where each block's flits (row 0) and credits (row 1) start


def block_magic(n_routers: int, lanes_per_router: int) -> int:
    """Routers per block for a network, 0 for none: blocks only from BLOCK_MIN_LANES lanes, and
    only where the multiply-shift gives the exact quotient for every lane (checked)."""
    if n_routers <= BLOCK_ROUTERS or n_routers * lanes_per_router < BLOCK_MIN_LANES:
        return 0
    divisor = BLOCK_ROUTERS * lanes_per_router
    magic = -(-(1 << BLOCK_SHIFT) // divisor)
    lanes = np.arange(n_routers * lanes_per_router + 1, dtype=np.int64)
    return magic if np.array_equal((lanes * magic) >> BLOCK_SHIFT, lanes // divisor) else 0


def blocked_advance(cfg, params):
    """The ``advance`` of a one-thread run whose arrivals go block by block, or None."""
    if cfg.routing == "ugal-g" or cfg.router == "booksim":
        return None
    magic = block_magic(params.n_nodes, params.n_ports * params.n_vcs)
    return BlockedAdvance(BLOCK_ROUTERS, magic) if magic else None


class BlockedAdvance:
    """``advance(state, params, topo_arrays, t_end)`` with arrivals block by block, for run_flit."""

    def __init__(self, block: int, magic: int):
        self.block, self.magic, self._scratch = block, magic, None

    def __call__(self, state, params, topo_arrays, t_end) -> int:
        if self._scratch is None:
            blocks = -(-params.n_nodes // self.block)
            self._scratch = BlockScratch(
                block=self.block, quiet=params.n_nodes // MIN_ARRIVALS_PER, magic=self.magic,
                flits=aligned.zeros(state.ev_flit.shape[1:], np.int64),
                credits=aligned.zeros(state.ev_credit.shape[1], np.int32), off=np.zeros((2, blocks + 1), np.int64))
        return advance_blocks(state, params, topo_arrays, t_end, self._scratch)


@njit(**KERNEL_INLINE)
def _block(lane, magic):
    return (lane * magic) >> BLOCK_SHIFT


@njit(**KERNEL_STAGE_JIT)
def sort_arrivals(s, x, slot):
    """The slot's flits and credits into ``x.flits`` and ``x.credits``, by block, in ring order
    within a block; ``x.off[row, b]`` is where block ``b``'s start. Empties the slot."""
    off = x.off
    nb = off.shape[1] - 1
    flits, n_flits = s.ev_flit[slot], s.ev_flit_n[slot]
    credits, n_credits = s.ev_credit[slot], s.ev_credit_n[slot]
    for b in range(nb + 1):
        off[0, b] = 0
        off[1, b] = 0
    for i in range(n_flits):  # count, one block later
        off[0, _block(flits[i, 0], x.magic) + 1] += 1
    for i in range(n_credits):
        off[1, _block(credits[i], x.magic) + 1] += 1
    for b in range(nb):  # starts
        off[0, b + 1] += off[0, b]
        off[1, b + 1] += off[1, b]
    for i in range(n_flits):  # scatter, each block's start counted up to its end (the next's start)
        b = _block(flits[i, 0], x.magic)
        k = off[0, b]
        x.flits[k, 0] = flits[i, 0]
        x.flits[k, 1] = flits[i, 1]
        off[0, b] = k + 1
    for i in range(n_credits):
        b = _block(credits[i], x.magic)
        k = off[1, b]
        x.credits[k] = credits[i]
        off[1, b] = k + 1
    for b in range(nb, 0, -1):  # back to starts
        off[0, b] = off[0, b - 1]
        off[1, b] = off[1, b - 1]
    off[0, 0] = 0
    off[1, 0] = 0
    s.ev_flit_n[slot] = 0
    s.ev_credit_n[slot] = 0


@njit(**KERNEL_STAGE_JIT)
def blocks_stages(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, x):
    """flit/kernel.py ``arrivals`` and ``router_stages``, block by block, in a cycle with at
    least one arrival for every two routers; in a quieter cycle (at low load) the sort would
    cost more than the cache saves, and the cycle takes all its arrivals first. Either way
    gives the same result, so the choice may change from cycle to cycle."""
    slot = t % p.ring
    n_arrivals = s.ev_flit_n[slot] + s.ev_credit_n[slot]
    prefetch = prefetches(p, n_arrivals)
    if n_arrivals < x.quiet:
        arrivals(s, p, t, slot)
        return router_stages(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, prefetch)
    sort_arrivals(s, x, slot)
    lo = 0
    b = 0
    while lo < p.n_nodes:
        hi = min(p.n_nodes, lo + x.block)
        f0, f1, c0, c1 = x.off[0, b], x.off[0, b + 1], x.off[1, b], x.off[1, b + 1]
        arrive_range(s.inl, s.in_buf, s.node, s.wait_bits, s.outl, s.active, s.pkt, p, t, 0, s.inl.shape[0],
                     x.flits[f0:f1], f1 - f0, x.credits[c0:c1], c1 - c0)
        err = router_range(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, lo, hi, prefetch, s.ev_flit,
                           s.ev_flit_n, s.ev_credit, s.ev_credit_n, s.ev_eject, s.ev_eject_n, s.ts_link,
                           s.ts_injected, s.ts_accepted, s.cls_out, s.cnt, s.rows, s.req_vc, s.req_out, s.va_lane)
        if err != ERR_OK:
            return err
        lo = hi
        b += 1
    return ERR_OK


@njit(**KERNEL_JIT)
def advance_blocks(s, p, topo, t_end, x):
    """flit/kernel.py ``advance`` with the arrivals block by block (release and ejection first:
    they commute with arrivals, kernel.py ``release_and_eject``). The cycle loop is
    ``advance``'s, as in flit/parallel.py: each is its own top-level kernel, compiled only for
    the runs that use it."""
    t = s.cnt[C_CYCLE]
    while t < t_end:
        w = t // p.window
        err = release_and_eject(s, p, t, w)
        if err != ERR_OK:
            return err
        arrival_slot, credit_slot, eject_slot = router_slots(p, t)
        err = blocks_stages(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, x)
        if err != ERR_OK:
            return err
        err = cycle_end(s, p, topo, t)
        if err != ERR_OK:
            return err
        if cycle_done(s, p, t):
            return ERR_OK
        t += 1
    return ERR_OK
