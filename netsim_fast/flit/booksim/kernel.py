"""The booksim router's kernel: ``advance`` runs a batch of cycles of BookSim2's cycle loop.

One cycle (docs/booksim-router.md, section 3): terminals read (deliveries, injection credits);
routers read (input queuing of flits and credits, ``router.read_inputs``); packets created now
join their source queues (the flit engine's ``release``); terminals inject; every router runs
its internal step and write phase (``router.router_step``). The time series, the deadlock
watchdog and the stop rule are the flit engine's (flit/kernel.py).
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.flit.booksim.invariants import check_invariants
from netsim_fast.flit.booksim.router import read_inputs, router_step
from netsim_fast.flit.booksim.terminal import inject, read_terminals
from netsim_fast.flit.kernel import WATCHDOG_PERIOD, _sample_window, _stop_rule_met, _watchdog
from netsim_fast.flit.source import release
from netsim_fast.flit.state import C_CYCLE, C_DONE, ERR_DEADLOCK, ERR_OK


@njit(**KERNEL_JIT)
def advance(s, b, p, bp, topo, t_end):
    """Simulate cycles ``cnt[C_CYCLE] .. t_end - 1`` (fewer if the stop rule is met or an error
    occurs). Returns ``ERR_OK`` or an ``ERR_*`` code; ``cnt[C_CYCLE]`` is the next cycle."""
    cnt, nodes = s.cnt, s.node
    t = cnt[C_CYCLE]
    while t < t_end:
        w = t // p.window
        slot = t % bp.ring
        err = read_terminals(s, b, p, bp, t, w, slot)
        if err != ERR_OK:
            return err
        err = read_inputs(s, b, p, bp, topo, t, slot)
        if err != ERR_OK:
            return err
        err = release(s, p, t)
        if err != ERR_OK:
            return err
        inject(s, b, p, bp, topo, t, w, slot)
        b.acc[0] += bp.internal_speedup
        steps = int(b.acc[0])
        b.acc[0] -= steps
        for node in range(p.n_nodes):
            if nodes[node].flits > 0 or b.node[node].credits_queued > 0:
                err = router_step(s, b, p, bp, topo, t, w, slot, node, steps)
                if err != ERR_OK:
                    return err
        if (t + 1) % p.window == 0:
            _sample_window(cnt, s.ts_in_flight, s.ts_queued, t, p.window)
        if p.debug:
            err = check_invariants(s, b, p, bp, t, b.dbg_held, b.dbg_terminal)
            if err != ERR_OK:
                return err
        if t % WATCHDOG_PERIOD == 0 and t > 0:
            err = _watchdog(s, p, t)
            if err != ERR_OK:
                cnt[C_CYCLE] = t + 1
                return ERR_DEADLOCK
        t += 1
        cnt[C_CYCLE] = t
        if _stop_rule_met(cnt, p, t - 1):
            cnt[C_DONE] = 1
            _sample_window(cnt, s.ts_in_flight, s.ts_queued, t - 1, p.window)
            return ERR_OK
    return ERR_OK
