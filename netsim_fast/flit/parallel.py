"""The flit engine on several threads, with the same result as on one (``--threads N``).

A cycle's router stages (flit/kernel.py ``router_range``) are the bulk of the work, and a
router there writes only its own records and the delivered packets' (its terminals eject in
the router loop where that gives the same result: flit/eject.py), except for four things: the
events it sends (flits to the next router, credits upstream, ejected flits), the counters and
time series it adds to, and its scratch. So the routers are cut into ``N`` contiguous ranges, one per thread
(``numba.prange``, Numba's default threading layer), each with its own event rings, counters, series and scratch
(``ThreadScratch``). Each thread also takes the cycle's arrivals (stage 1) for its own
routers, reading every thread's rings, so the flits and credits stay where they were written
until a run returns (``_flush``); arrivals commute with release and (where it is a pass of
its own) ejection, which run first, on one thread. After the routers, the threads' ejected flits are appended to the
state's ring thread by thread, which is router order, the order one thread appends them in,
and their counts are added. What else runs before and after the routers runs on one thread.

What this needs of a run, checked up front (config/run_control.py): the ``lanes`` or ``iq``
router (the booksim router keeps state of its own) and no routing that reads other routers'
state as it decides (``ugal-g``, the idealised global reference: one thread sees the routers
before it already moved in this cycle, several threads would not).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from netsim_fast import _arrays as aligned
from netsim_fast._jit import KERNEL_JIT, KERNEL_STAGE_JIT, PARALLEL_JIT
from netsim_fast.flit.kernel import (
    cycle_done, cycle_end, prefetches, release_and_eject, router_range, router_slots,
)
from netsim_fast.flit.state import C_CYCLE, C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT, C_LAST_DELIVERY, ERR_OK
from netsim_fast.flit.traverse import arrive_range


class ThreadScratch(NamedTuple):
    """Per thread (leading axis): the state's arrays of the same names, and the router ranges."""

    bounds: np.ndarray       # int64[N + 1] thread i runs routers bounds[i] .. bounds[i+1] - 1
    err: np.ndarray          # int64[N] each thread's error code in this cycle
    base: np.ndarray         # int64[C] the counters before the cycle's router stages
    cnt: np.ndarray          # int64[N, C]
    ev_flit: np.ndarray
    ev_flit_n: np.ndarray
    ev_credit: np.ndarray
    ev_credit_n: np.ndarray
    ev_eject: np.ndarray
    ev_eject_n: np.ndarray
    ts_link: np.ndarray      # int64[N, W]
    ts_injected: np.ndarray
    ts_accepted: np.ndarray
    cls_out: np.ndarray      # int64[N, K]
    rows: np.ndarray
    req_vc: np.ndarray
    req_out: np.ndarray
    va_lane: np.ndarray


LINE = 64  # bytes in a cache line


def _per_thread(a: np.ndarray, n: int) -> np.ndarray:
    """``n`` zeroed copies of ``a``'s shape, one per thread, each on cache lines of its own: the
    first axis is lengthened (nothing reads past ``a``'s length) until a copy fills whole lines.
    Two threads then never write the same line: their counters and ring counts, written at
    every flit-hop, would otherwise bounce between the cores."""
    inner = int(np.prod(a.shape[1:], dtype=np.int64)) * a.itemsize
    first = a.shape[0]
    while (first * inner) % LINE:
        first += 1
    return aligned.zeros((n, first) + a.shape[1:], a.dtype)


def thread_bounds(n_nodes: int, threads: int) -> np.ndarray:
    """Contiguous router ranges of (nearly) equal size, in router order, split at multiples of
    eight routers: each thread then tests whole words of ``FlitState.active_words`` that no other
    thread writes."""
    cuts = (np.linspace(0, n_nodes, threads + 1) / 8).round().astype(np.int64) * 8
    cuts[-1] = n_nodes
    return np.minimum(cuts, n_nodes)


def new_thread_scratch(state, n_nodes: int, threads: int) -> ThreadScratch:
    """Scratch for ``threads`` threads, shaped after ``state`` (remade when the state grows)."""
    fields = {f: _per_thread(getattr(state, f), threads)
              for f in ("ev_flit", "ev_flit_n", "ev_credit", "ev_credit_n", "ev_eject", "ev_eject_n", "ts_link",
                        "ts_injected", "ts_accepted", "cls_out", "rows", "req_vc", "req_out", "va_lane", "cnt")}
    return ThreadScratch(bounds=thread_bounds(n_nodes, threads), err=np.zeros(threads, np.int64),
                         base=np.zeros_like(state.cnt), **fields)


@njit(**KERNEL_STAGE_JIT)
def _append(dst, dst_n, src, src_n):
    """Append the events of every slot of ``src`` (one thread's ring) to ``dst``, then empty it."""
    for slot in range(dst_n.shape[0]):  # src_n may be longer (_per_thread)
        k = dst_n[slot]
        for i in range(src_n[slot]):
            dst[slot, k] = src[slot, i]
            k += 1
        dst_n[slot] = k
        src_n[slot] = 0


@njit(**KERNEL_STAGE_JIT)
def _append_pairs(dst, dst_n, src, src_n):
    """``_append`` for a ring whose events are rows (the flit ring: lane, flit)."""
    for slot in range(dst_n.shape[0]):
        k = dst_n[slot]
        for i in range(src_n[slot]):
            for j in range(src.shape[2]):
                dst[slot, k, j] = src[slot, i, j]
            k += 1
        dst_n[slot] = k
        src_n[slot] = 0


@njit(**KERNEL_STAGE_JIT)
def _arrivals_range(s, p, t, slot, lo, hi, x):
    """Stage 1 (flit/traverse.py ``arrivals``) for routers ``lo .. hi - 1`` alone, from the
    state's rings and every thread's. Their order does not matter: a lane takes at most one
    flit per cycle (from its one link), and what arrivals add to a router's records (flits,
    waiting heads, credits, dirty ports) commutes."""
    per_router = p.n_ports * p.n_vcs
    first, last = lo * per_router, hi * per_router
    inl, in_buf, nodes, wait_bits, outl = s.inl, s.in_buf, s.node, s.wait_bits, s.outl
    arrive_range(inl, in_buf, nodes, wait_bits, outl, s.active, s.pkt, p, t, first, last, s.ev_flit[slot],
                 s.ev_flit_n[slot], s.ev_credit[slot], s.ev_credit_n[slot])
    for i in range(x.err.shape[0]):
        arrive_range(inl, in_buf, nodes, wait_bits, outl, s.active, s.pkt, p, t, first, last, x.ev_flit[i, slot],
                     x.ev_flit_n[i, slot], x.ev_credit[i, slot], x.ev_credit_n[i, slot])


@njit(**KERNEL_STAGE_JIT)
def _arrived(s, x, slot):
    """Every thread has taken its arrivals of ``slot``: the slot is free for new events."""
    s.ev_flit_n[slot] = 0
    s.ev_credit_n[slot] = 0
    for i in range(x.err.shape[0]):
        x.ev_flit_n[i, slot] = 0
        x.ev_credit_n[i, slot] = 0


@njit(**KERNEL_STAGE_JIT)
def _flush(s, x):
    """The threads' flits and credits still in flight into the state's rings, where the other
    readers of a state (the debug checks, flit/deadlock.py, flit/retire.py) look for them."""
    for i in range(x.err.shape[0]):
        _append_pairs(s.ev_flit, s.ev_flit_n, x.ev_flit[i], x.ev_flit_n[i])
        _append(s.ev_credit, s.ev_credit_n, x.ev_credit[i], x.ev_credit_n[i])


@njit(**KERNEL_STAGE_JIT)
def _merge(s, x, w, n_threads):
    """After the threads: their ejected flits in thread (router) order, their counter deltas and
    series added (the last delivery cycle: the latest of theirs); the first thread in router order
    that failed gives the error and its context, as one thread running the routers in order
    would have stopped there. Their flits and
    credits stay in their rings until ``_flush``: the threads take them from there."""
    err = ERR_OK
    for i in range(n_threads):
        if x.err[i] != ERR_OK:
            err = x.err[i]
            for c in (C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT):
                s.cnt[c] = x.cnt[i, c]
            break
    for i in range(n_threads):
        _append(s.ev_eject, s.ev_eject_n, x.ev_eject[i], x.ev_eject_n[i])
        s.ts_link[w] += x.ts_link[i, w]
        s.ts_injected[w] += x.ts_injected[i, w]
        s.ts_accepted[w] += x.ts_accepted[i, w]
        x.ts_link[i, w] = 0
        x.ts_injected[i, w] = 0
        x.ts_accepted[i, w] = 0
        for k in range(s.cls_out.shape[0]):
            s.cls_out[k] += x.cls_out[i, k]
            x.cls_out[i, k] = 0
    if err == ERR_OK:
        for c in range(s.cnt.shape[0]):
            total = 0
            for i in range(n_threads):
                total += x.cnt[i, c] - x.base[c]
            s.cnt[c] = x.base[c] + total
        last = x.base[C_LAST_DELIVERY]  # the one counter that is a maximum, not a sum
        for i in range(n_threads):
            last = max(last, x.cnt[i, C_LAST_DELIVERY])
        s.cnt[C_LAST_DELIVERY] = last
    return err


@njit(**KERNEL_JIT)
def advance_threads(s, p, topo, t_end, x):
    """``flit.kernel.advance`` with arrivals and the router stages on ``len(x.err)`` threads."""
    err = _advance_threads(s, p, topo, t_end, x)
    _flush(s, x)
    return err


@njit(**PARALLEL_JIT)
def _advance_threads(s, p, topo, t_end, x):
    n_threads = x.err.shape[0]
    t = s.cnt[C_CYCLE]
    while t < t_end:
        w = t // p.window
        # release and ejection first, then arrivals on the threads: they commute (kernel.py)
        err = release_and_eject(s, p, t, w)
        if err != ERR_OK:
            return err
        slot = t % p.ring
        n_arrivals = s.ev_flit_n[slot] + s.ev_credit_n[slot]
        for i in range(n_threads):
            n_arrivals += x.ev_flit_n[i, slot] + x.ev_credit_n[i, slot]
        prefetch = prefetches(p, n_arrivals)
        arrival_slot, credit_slot, eject_slot = router_slots(p, t)
        for c in range(s.cnt.shape[0]):
            x.base[c] = s.cnt[c]
            for i in range(n_threads):
                x.cnt[i, c] = s.cnt[c]
        for i in prange(n_threads):
            _arrivals_range(s, p, t, slot, x.bounds[i], x.bounds[i + 1], x)
            x.err[i] = router_range(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, x.bounds[i],
                                    x.bounds[i + 1], prefetch, x.ev_flit[i], x.ev_flit_n[i], x.ev_credit[i],
                                    x.ev_credit_n[i], x.ev_eject[i], x.ev_eject_n[i], x.ts_link[i], x.ts_injected[i],
                                    x.ts_accepted[i], x.cls_out[i], x.cnt[i], x.rows[i], x.req_vc[i], x.req_out[i],
                                    x.va_lane[i])
        _arrived(s, x, slot)
        err = _merge(s, x, w, n_threads)
        if err != ERR_OK:
            return err
        if p.debug:  # the invariant checks count the flits and credits in flight in the state's rings
            _flush(s, x)
        err = cycle_end(s, p, topo, t)
        if err != ERR_OK:
            return err
        if cycle_done(s, p, t):
            return ERR_OK
        t += 1
    return ERR_OK


# Automatic choice: two threads from this many routers up. bench/flit_threads.py on a quiet
# machine (2026-11-27, against a busy loop's 1.98x): 2.0x on the 64x64 torus, 1.86x on the
# 32x32 (1,024 routers), 1.29x on the 16x16, whose 35-microsecond cycles leave little work
# per hand-over; so networks below 1,024 routers keep one thread unless --threads says otherwise.
AUTO_THREADS_ROUTERS = 1024


def run_threads(cfg, n_routers: int) -> int:
    """The threads a run uses: ``cfg.threads`` if given, else 2 for networks of at least
    ``AUTO_THREADS_ROUTERS`` routers when a second core is idle (the load average leaves one
    free) and the routing allows it, else 1. With no idle core the threads hand over every
    cycle to a thread that waits for a core: bench/flit_threads.py --load 2 measured 1.14x where a busy loop
    gained 1.42x (2026-11-26)."""
    if cfg.threads is not None:
        return cfg.threads
    if cfg.router == "booksim" or cfg.routing == "ugal-g" or n_routers < AUTO_THREADS_ROUTERS:
        return 1
    cores = os.cpu_count() or 1
    busy = os.getloadavg()[0] if hasattr(os, "getloadavg") else float(cores)
    return 2 if cores >= 2 and busy <= cores - 1.5 else 1


class ThreadedAdvance:
    """``advance(state, params, topo_arrays, t_end)`` on ``threads`` threads, for run_flit."""

    def __init__(self, threads: int):
        self.threads = threads
        self._scratch = None
        # The threads meet twice a cycle. OpenMP's waiting threads spin for GOMP_SPINCOUNT
        # rounds (300,000 by default) before they sleep, which on a machine with no idle core
        # keeps the pair waiting for each other's core; 20,000 still hands over fast when a core
        # is free (bench/flit_threads.py, with and without --load). Read when OpenMP starts, so
        # set before the first parallel launch; a value in the environment wins.
        os.environ.setdefault("GOMP_SPINCOUNT", "20000")

    def __call__(self, state, params, topo_arrays, t_end) -> int:
        import threading

        import numba

        if threading.current_thread() is not threading.main_thread():
            # one parallel launch at a time (Numba's workqueue layer, where OpenMP is missing, takes
            # no other); in a worker thread (a threaded sweep) the one-thread kernel gives the same result
            from netsim_fast.flit.kernel import advance

            return advance(state, params, topo_arrays, t_end)
        x = self._scratch
        if x is None:
            x = self._scratch = new_thread_scratch(state, params.n_nodes, self.threads)
        elif x.ts_link.shape[1] < state.ts_link.shape[0]:  # the series grew (they double): only they follow
            x = self._scratch = x._replace(ts_link=_per_thread(state.ts_link, self.threads),
                                           ts_injected=_per_thread(state.ts_injected, self.threads),
                                           ts_accepted=_per_thread(state.ts_accepted, self.threads))
        previous = numba.get_num_threads()
        numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
        try:
            return advance_threads(state, params, topo_arrays, t_end, x)
        finally:
            numba.set_num_threads(previous)
