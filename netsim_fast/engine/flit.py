"""The flit engine's kernel: ``advance`` runs a batch of cycles over a ``FlitState``.

One cycle runs the stages of docs/flit-engine.md in order: arrivals, release, then (``lanes``)
ejection, link traversal, crossbar or (``iq``) switch allocation, then routing and output-VC
allocation, then injection. Between cycles the kernel applies the stop rule, the deadlock
watchdog and, in debug mode, the conservation checks. It returns an ``ERR_*`` code; the context
of an error (cycle, lane, packet) is left in ``cnt[C_ERR_*]`` for ``engine.flit_run`` to report.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.engine.flit_state import (
    C_CYCLE, C_DELIVERED, C_DONE, C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT, C_FLITS_IN, C_FLITS_OUT,
    C_QUEUED, C_WIN_OPEN, ERR_CONSERVATION, ERR_CREDIT, ERR_DEADLOCK, ERR_OK, ERR_OVERFLOW, NONE,
    ROUTER_LANES,
    STOP_ALL, STOP_WINDOW,
)
from netsim_fast.engine.flit_stages import (
    arrivals, crossbar, eject_lanes, injection, link_traversal, release, routing, switch_iq,
)

WATCHDOG_PERIOD = 64  # cycles between deadlock scans (a scan touches every lane)


@njit(**KERNEL_JIT)
def _watchdog(s, p, t):
    """A lane holding flits whose front has not advanced for deadlock_cycles: deadlock."""
    limit = p.deadlock_cycles
    for lane in range(s.in_len.shape[0]):
        if s.in_len[lane] > 0 and t - s.in_last[lane] >= limit:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = lane
            s.cnt[C_ERR_PKT] = s.in_pkt[lane, s.in_head[lane]]
            return ERR_DEADLOCK
        if p.router == ROUTER_LANES and s.ol_len[lane] > 0 and t - s.ol_last[lane] >= limit:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = -1 - lane  # negative: an output lane
            s.cnt[C_ERR_PKT] = s.ol_pkt[lane, s.ol_head[lane]]
            return ERR_DEADLOCK
    return ERR_OK


@njit(**KERNEL_JIT)
def _check_invariants(s, p, topo, t):
    """Debug mode, after every cycle: no lane over capacity, flits conserved, credits conserved
    per (link, VC)."""
    buffered = 0
    for lane in range(s.in_len.shape[0]):
        if s.in_len[lane] > p.buf or (p.router == ROUTER_LANES and s.ol_len[lane] > p.out_buf):
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = lane
            return ERR_OVERFLOW
        buffered += s.in_len[lane]
        if p.router == ROUTER_LANES:
            buffered += s.ol_len[lane]
    on_links = 0
    for slot in range(p.ring):
        on_links += s.ev_flit_n[slot] + s.ev_eject_n[slot]
    if s.cnt[C_FLITS_IN] != s.cnt[C_FLITS_OUT] + buffered + on_links:
        s.cnt[C_ERR_CYCLE] = t
        return ERR_CONSERVATION
    # credits: counter + flits in flight to the lane + flits in the lane + credits in flight == B
    held = s.scratch[0]
    held[:] = 0
    for slot in range(p.ring):
        for i in range(s.ev_flit_n[slot]):
            held[s.ev_flit[slot, i, 0]] += 1
    returning = s.scratch[1]
    returning[:] = 0
    for slot in range(p.ring):
        for i in range(s.ev_credit_n[slot]):
            returning[s.ev_credit[slot, i]] += 1
    v, ports = p.n_vcs, p.n_ports
    for node in range(p.n_nodes):
        for port in range(ports - 1):
            nb = topo.nbr[node, port]
            if nb < 0:
                continue
            for vc in range(v):
                out = (node * ports + port) * v + vc
                down = (nb * ports + topo.nbr_in_port[node, port]) * v + vc
                total = s.out_credits[out] + held[down] + s.in_len[down] + returning[out]
                if total != p.buf or s.out_credits[out] < 0:
                    s.cnt[C_ERR_CYCLE] = t
                    s.cnt[C_ERR_LANE] = out
                    return ERR_CREDIT
    return ERR_OK


@njit(**KERNEL_JIT)
def _stop_rule_met(s, p, t):
    if p.stop_mode == STOP_WINDOW:
        return t + 1 >= p.win_end and s.cnt[C_WIN_OPEN] == 0
    if p.stop_mode == STOP_ALL:
        return s.cnt[C_DELIVERED] >= p.n_total
    return False


@njit(**KERNEL_JIT)
def _sample_window(s, p, t):
    """At the last cycle of a window: flits in the network and packets waiting at sources."""
    w = t // p.window
    s.ts_in_flight[w] = s.cnt[C_FLITS_IN] - s.cnt[C_FLITS_OUT]
    s.ts_queued[w] = s.cnt[C_QUEUED]


@njit(**KERNEL_JIT)
def advance(s, p, topo, t_end):
    """Simulate cycles ``cnt[C_CYCLE] .. t_end - 1`` (fewer if the stop rule is met or an error
    occurs). Returns ``ERR_OK`` or an ``ERR_*`` code; ``cnt[C_CYCLE]`` is the next cycle."""
    t = s.cnt[C_CYCLE]
    while t < t_end:
        w = t // p.window
        arrivals(s, p, t, t % p.ring)
        release(s, p, t)
        credit_slot = (t + p.credit_delay) % p.ring
        if p.router == ROUTER_LANES:
            err = eject_lanes(s, p, t, w)
            if err != ERR_OK:
                return err
            link_traversal(s, p, t, w, (t + p.t_link) % p.ring)
            crossbar(s, p, t, credit_slot)
        else:
            err = switch_iq(s, p, t, w, (t + p.t_crossbar + p.t_link) % p.ring, credit_slot,
                            (t + p.t_crossbar) % p.ring)
            if err != ERR_OK:
                return err
        err = routing(s, p, topo, t)
        if err != ERR_OK:
            return err
        injection(s, p, t, w)
        if (t + 1) % p.window == 0:
            _sample_window(s, p, t)
        if p.debug:
            err = _check_invariants(s, p, topo, t)
            if err != ERR_OK:
                return err
        if t % WATCHDOG_PERIOD == 0 and t > 0:
            err = _watchdog(s, p, t)
            if err != ERR_OK:
                s.cnt[C_CYCLE] = t + 1
                return err
        t += 1
        s.cnt[C_CYCLE] = t
        if _stop_rule_met(s, p, t - 1):
            s.cnt[C_DONE] = 1
            _sample_window(s, p, t - 1)
            return ERR_OK
    return ERR_OK
