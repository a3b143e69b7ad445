"""The flit engine's kernel: ``advance`` runs a batch of cycles over a ``FlitState``.

One cycle runs the stages of docs/flit-engine.md in order: arrivals, release, then (``lanes``)
ejection (in the router loop, just before each router's stages, where that gives the same
result: flit/eject.py), link traversal, crossbar or (``iq``) switch allocation, then routing and output-VC
allocation, then injection. Between cycles the kernel applies the stop rule, the deadlock
watchdog and, in debug mode, the conservation checks. It returns an ``ERR_*`` code; the context
of an error (cycle, lane, packet) is left in ``cnt[C_ERR_*]`` for ``engine.flit_run`` to report.

The stages live along the pipeline: flit/traverse.py (arrivals, link, crossbar, iq switch),
flit/eject.py (ejection), flit/route.py (routing units), flit/allocate.py (output-VC
allocation), flit/source.py (release, injection), on the shared operations of flit/flits.py.
Every stage takes the state ``s`` (``FlitState``), the parameters ``p`` (``FlitParams``) and
the cycle ``t``, or (the per-router ``*_node`` stages, inlined into ``router_stages``) the
arrays they touch and the router. Routers only touch their own lanes within a stage, so the
visiting order of routers does not change the result; within a router, round-robin pointers
fix the order.

Speed notes (bench/flit_speed.py):
- stage functions read the record arrays out of ``s`` once, at their top, and per-flit helpers
  take plain arrays (a tuple argument would be unpacked member by member at every call);
- no integer division on the per-flit path: ring pointers and round-robin indices wrap by
  comparison, the lane a credit or a flit goes to is a constant field of the lane record, and
  a flit carries its tail bit so the packet length is not looked up at every hop;
- the time-series window index ``w`` and the ring slots are computed once per cycle.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_INLINE, KERNEL_JIT, KERNEL_STAGE_JIT
from netsim_fast._prefetch import prefetch_row, prefetch_rows
from netsim_fast.flit.allocate import allocate_vcs
from netsim_fast.flit.eject import eject_iq, eject_lanes, eject_node
from netsim_fast.flit.flits import flit_packet
from netsim_fast.flit.route import route_headers
from netsim_fast.flit.source import inject_node, release
from netsim_fast.flit.state import (
    C_CYCLE, C_DELIVERED, C_DONE, C_DROPPED, C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT, C_FLITS_IN, C_FLITS_OUT,
    C_MAX_WAIT, C_QUEUED, C_WIN_OPEN, ERR_CONSERVATION, ERR_COUNT, ERR_CREDIT, ERR_DEADLOCK, ERR_IDLE, ERR_OK,
    ERR_OVERFLOW, NONE, ROUTER_LANES, STOP_ALL, STOP_WINDOW,
)
from netsim_fast.flit.traverse import arrivals, crossbar_node, link_node, switch_node

WATCHDOG_PERIOD = 64  # cycles between deadlock scans (a scan touches every lane)
PREFETCH_ARRIVALS_PER = 2  # the router loop prefetches in cycles with one arrival per this many routers


@njit(**KERNEL_STAGE_JIT)
def _watchdog(s, p, t):
    """A lane holding flits whose front has not advanced for deadlock_cycles: a possible
    deadlock, which ``flit/deadlock.py`` confirms (a knot) or files as starvation. Also keeps
    ``cnt[C_MAX_WAIT]``, the longest wait seen. Only routers holding flits are scanned (a
    router's lanes are contiguous, and ``node.flits`` counts the flits in them), in lane order
    as before: at low load most routers are empty, and the scan of every lane was most of an
    idle cycle's cost."""
    inl, outl, in_buf, ol_buf, cnt, nodes = s.inl, s.outl, s.in_buf, s.ol_buf, s.cnt, s.node
    limit = p.deadlock_cycles
    per_router = p.n_ports * p.n_vcs
    for node in range(p.n_nodes):
        if nodes[node].flits == 0:
            continue
        for lane in range(node * per_router, node * per_router + per_router):
            if inl[lane].len > 0:
                wait = t - inl[lane].last
                if wait > cnt[C_MAX_WAIT]:
                    cnt[C_MAX_WAIT] = wait
                if wait >= limit:
                    cnt[C_ERR_CYCLE] = t
                    cnt[C_ERR_LANE] = lane
                    cnt[C_ERR_PKT] = flit_packet(in_buf[lane, inl[lane].head])
                    return ERR_DEADLOCK
            if p.router == ROUTER_LANES and outl[lane].len > 0:
                wait = t - outl[lane].last
                if wait > cnt[C_MAX_WAIT]:
                    cnt[C_MAX_WAIT] = wait
                if wait >= limit:
                    cnt[C_ERR_CYCLE] = t
                    cnt[C_ERR_LANE] = -1 - lane  # negative: an output lane
                    cnt[C_ERR_PKT] = flit_packet(ol_buf[lane, outl[lane].head].flit)
                    return ERR_DEADLOCK
    return ERR_OK


@njit(**KERNEL_STAGE_JIT)
def _check_invariants(s, p, topo, t):
    """Debug mode, after every cycle: no lane over capacity, credits conserved per (link, VC),
    flits conserved. Credits come before the global flit count so that a flit lost or
    duplicated in a network lane is reported with its lane, not only as a count."""
    inl, outl = s.inl, s.outl
    lanes_router = p.router == ROUTER_LANES
    buffered = 0
    for lane in range(inl.shape[0]):
        if inl[lane].len > p.buf or (lanes_router and outl[lane].len > p.out_buf):
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = lane
            return ERR_OVERFLOW
        buffered += inl[lane].len
        if lanes_router:
            buffered += outl[lane].len
    # credits: counter + flits in flight to the lane + flits in the lane + credits in flight == B
    held = s.scratch[0]
    held[:] = 0
    returning = s.scratch[1]
    returning[:] = 0
    for slot in range(p.ring):
        for i in range(s.ev_flit_n[slot]):
            held[s.ev_flit[slot, i, 0]] += 1
        for i in range(s.ev_credit_n[slot]):
            returning[s.ev_credit[slot, i]] += 1
    for out in range(outl.shape[0]):
        down = outl[out].down
        if down < 0:
            continue
        total = outl[out].credits + held[down] + inl[down].len + returning[out]
        if total != p.buf or outl[out].credits < 0:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = out
            return ERR_CREDIT
    on_links = 0
    for slot in range(p.ring):
        on_links += s.ev_flit_n[slot] + s.ev_eject_n[slot]
    if s.cnt[C_FLITS_IN] != s.cnt[C_FLITS_OUT] + buffered + on_links:
        s.cnt[C_ERR_CYCLE] = t
        return ERR_CONSERVATION
    err = _check_active(s, p, t)
    return err if err != ERR_OK else _check_counts(s, p, t)


@njit(**KERNEL_STAGE_JIT)
def _check_counts(s, p, t):
    """Every router's ``waiting`` and ``unrouted`` counts are its lanes', its ``wait_bits``
    mark exactly its lanes whose header waits (routing and VC allocation visit only those), and
    (lanes) each port's ``held_vcs`` marks exactly its output lanes holding flits (the link
    stage visits only those)."""
    inl, outl, nodes, ports, wait_bits = s.inl, s.outl, s.node, s.port, s.wait_bits
    per_router = p.n_ports * p.n_vcs
    check_held = p.router == ROUTER_LANES
    for node in range(p.n_nodes):
        waiting = unrouted = 0
        marks_ok = True
        for lane in range(node * per_router, node * per_router + per_router):
            li = lane - node * per_router
            waits = inl[lane].out == NONE and inl[lane].len > 0
            if waits != (((wait_bits[node, li >> 6] >> (li & 63)) & 1) == 1):
                marks_ok = False
            if waits:
                waiting += 1
                if inl[lane].route_done == NONE:
                    unrouted += 1
            if check_held and ((ports[outl[lane].link].held_vcs >> outl[lane].vc) & 1) != (outl[lane].len > 0):
                marks_ok = False
        if waiting != nodes[node].waiting or unrouted != nodes[node].unrouted or not marks_ok:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = node * per_router  # its first lane names the router
            return ERR_COUNT
    return ERR_OK


@njit(**KERNEL_STAGE_JIT)
def _check_active(s, p, t):
    """Every router the router stages would skip is idle: no flit, no packet queued or bound."""
    nodes = s.node
    for node in range(p.n_nodes):
        if s.active[node]:
            continue
        busy = nodes[node].flits > 0
        for term in range(node * p.conc, node * p.conc + p.conc):
            busy = busy or nodes[term].src_head != NONE or nodes[term].bound > 0
        if busy:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = node * p.n_ports * p.n_vcs  # its first lane names the router
            return ERR_IDLE
    return ERR_OK


@njit(**KERNEL_STAGE_JIT)
def _stop_rule_met(cnt, p, t):
    if p.stop_mode == STOP_WINDOW:
        return t + 1 >= p.win_end and cnt[C_WIN_OPEN] == 0
    if p.stop_mode == STOP_ALL:
        return cnt[C_DELIVERED] + cnt[C_DROPPED] >= p.n_total
    return False


@njit(**KERNEL_STAGE_JIT)
def _sample_window(cnt, ts_in_flight, ts_queued, t, window):
    """At the last cycle of a window: flits in the network and packets waiting at sources."""
    w = t // window
    ts_in_flight[w] = cnt[C_FLITS_IN] - cnt[C_FLITS_OUT]
    ts_queued[w] = cnt[C_QUEUED]


@njit(**KERNEL_STAGE_JIT)
def router_stages(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, prefetch):
    """Stages 4-8 (lanes) or the switch stage and 7-8 (iq), router after router: every router,
    writing the cycle's events, counters and scratch into the state itself."""
    return router_range(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, 0, p.n_nodes, prefetch, s.ev_flit,
                        s.ev_flit_n, s.ev_credit, s.ev_credit_n, s.ev_eject, s.ev_eject_n, s.ts_link, s.ts_injected,
                        s.ts_accepted, s.cls_out, s.cnt, s.rows, s.req_vc, s.req_out, s.va_lane)


@njit(**KERNEL_STAGE_JIT)
def router_range(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, lo, hi, prefetch, ev_flit, ev_flit_n,
                 ev_credit, ev_credit_n, ev_eject, ev_eject_n, ts_link, ts_injected, ts_accepted, cls_out, cnt, rows,
                 req_vc, req_out, va_lane):
    """Stages 4-8 (lanes, and its ejection with ``p.eject_in_loop``) or the switch stage and 7-8
    (iq) of routers ``lo .. hi - 1``, in order.

    What a router writes beyond its own records comes in as arguments: the event rings of the
    flits and credits it sends, the counters and time series it adds to, and its scratch.
    ``router_stages`` passes the state's own; two threads (flit/parallel.py) pass each its own
    and merge them after the cycle, in router order, so the result is the same.

    Within a cycle a router's stages 4-8 read only its own state and what earlier cycles
    delivered (every link and credit delay is at least one cycle), so running all stages of one
    router before the next gives the same result as running each stage over all routers, and
    keeps the router's records in cache. Ejection (lanes) runs here too, just before the router's
    stages, unless a delivery can act beyond its router in the same cycle (a --sync global phase
    opening every node's injection, a closed loop's reply: flit/eject.py ejects_in_router_loop),
    when it is a pass of its own before this one.
    """
    inl, in_buf, outl, ol_buf, ports, nodes, pkts = s.inl, s.in_buf, s.outl, s.ol_buf, s.port, s.node, s.pkt
    conn_list, route_free, inj, route_mask, mid = s.conn_list, s.route_free, s.inj, s.route_mask, s.mid
    wait_bits = s.wait_bits
    cls, class_pri, class_level, q_last = s.cls, s.class_pri, s.class_level, s.q_last
    radix, wrap, coord, dim_port = topo.radix, topo.wrap, topo.coord, topo.dim_port
    lanes_router = p.router == ROUTER_LANES
    active, active_words = s.active, s.active_words
    for word in range(lo >> 3, (hi + 7) >> 3):
        if active_words[word] == 0:  # eight idle routers
            continue
        for node in range(max(lo, word << 3), min(hi, (word << 3) + 8)):
            if active[node] == 0:  # idle: no flit, no packet queued or bound at its terminals
                continue
            if nodes[node].flits > 0:
                if lanes_router:
                    if p.uses_lanes:
                        if p.uses_prefetch and prefetch:
                            _prefetch_routers(inl, in_buf, outl, ol_buf, ports, nodes, conn_list, active, p, node, hi)
                        if p.eject_in_loop:
                            eject_node(outl, ol_buf, ports, nodes, pkts, ts_accepted, cnt, cls, class_pri, cls_out,
                                       s.born, p, t, w, node)
                        link_node(outl, ol_buf, ports, nodes, pkts, cls, class_pri, ev_flit, ev_flit_n, ts_link, cnt,
                                  p, t, w, arrival_slot, node)
                        crossbar_node(inl, in_buf, outl, ol_buf, ports, nodes, conn_list, wait_bits, ev_credit,
                                      ev_credit_n, p, t, credit_slot, node)
                elif p.uses_iq:
                    switch_node(inl, in_buf, outl, ports, nodes, pkts, cls, class_pri, conn_list, wait_bits, req_vc,
                                req_out, ev_flit, ev_flit_n, ev_credit, ev_credit_n, ev_eject, ev_eject_n, ts_link, cnt,
                                p, t, w, arrival_slot, credit_slot, eject_slot, node)
            if nodes[node].waiting > 0:
                route_headers(inl, in_buf, outl, ports, nodes, pkts, mid, s.kind, wait_bits, route_free, rows, radix,
                              wrap, coord, dim_port, topo.nbr, route_mask, p, t, node)
                err = allocate_vcs(inl, in_buf, outl, nodes, pkts, mid, s.kind, cls, class_pri, conn_list, wait_bits,
                                   rows, va_lane, cnt, radix, wrap, coord, dim_port, route_mask, p, t, node)
                if err != ERR_OK:
                    return err
            for term in range(node * p.conc, node * p.conc + p.conc):
                inject_node(inl, in_buf, nodes, wait_bits, pkts, inj, ts_injected, cnt, cls, class_pri, class_level,
                            q_last, p, t, w, node, term)
            if nodes[node].flits == 0:  # idle unless a terminal has packets queued or bound
                idle = True
                for term in range(node * p.conc, node * p.conc + p.conc):
                    if nodes[term].src_head != NONE or nodes[term].bound != 0:
                        idle = False
                if idle:
                    active[node] = 0
    return ERR_OK



@njit(**KERNEL_INLINE)
def _prefetch_routers(inl, in_buf, outl, ol_buf, ports, nodes, conn_list, active, p, node, hi):
    """On networks whose state outgrows the L2 (``p.prefetch``), start loading what the next
    routers' link and crossbar stages (lanes) will read, so that the loads overlap this router's
    work: for the next router, the records and buffers of its connected input lanes and of its
    output lanes that hold flits; for the router two places on, the node record, connection list
    and port records that the next call reads to choose those. Idle routers are skipped (their
    records would be read from memory for nothing). Only lines that will be read: a prefetch
    takes a line-fill buffer, and more than a few at once delay the loads that wait. A prefetch
    changes no value."""
    v, n_ports = p.n_vcs, p.n_ports
    far = node + 2
    if far < hi and active[far] != 0:
        prefetch_row(nodes, far)
        prefetch_row(conn_list, far)
        prefetch_rows(ports, far * n_ports, n_ports)
    if node + 1 == hi or active[node + 1] == 0:
        return
    near = node + 1
    for k in range(nodes[near].conn_n):
        lane = conn_list[near, k]
        prefetch_row(inl, lane)
        prefetch_row(in_buf, lane)
    for link in range(near * n_ports, near * n_ports + n_ports - p.conc):
        held = ports[link].held_vcs
        while held != 0:
            out = link * v + lowest_set_bit(held)
            prefetch_row(outl, out)
            prefetch_row(ol_buf, out)
            held &= held - 1


@njit(**KERNEL_STAGE_JIT)
def cycle_start(s, p, t, w):
    """The cycle's stages before the routers': arrivals, release, ejection."""
    arrivals(s, p, t, t % p.ring)
    return release_and_eject(s, p, t, w)


@njit(**KERNEL_STAGE_JIT)
def release_and_eject(s, p, t, w):
    """Release and ejection. They touch nothing arrivals touch (sources and local output lanes
    against input lanes and network output lanes; the router counters both add to commute), so
    flit/parallel.py may run arrivals after them, on the routers' threads."""
    err = release(s, p, t)
    if err != ERR_OK:
        return err
    if p.router == ROUTER_LANES:
        if p.uses_lanes and p.uses_eject_pass and not p.eject_in_loop:
            return eject_lanes(s, p, t, w)
    elif p.uses_iq:
        return eject_iq(s, p, t, w)
    return ERR_OK


@njit(**KERNEL_STAGE_JIT)
def prefetches(p, n_arrivals):
    """Whether this cycle's router loop prefetches (``p.prefetch``, a large network): only in a
    cycle with at least one arrival (flit or credit, counted before the arrivals empty the ring)
    for every PREFETCH_ARRIVALS_PER routers. In a quieter cycle the next router's records, read to
    choose what to prefetch, are themselves out of cache: the 64x64 torus at 3 % of capacity ran
    1.03x the time with prefetching in every cycle, 1.01x with this rule (5 pairs)."""
    if p.uses_prefetch:  # a run without prefetching (None) never compiles _prefetch_routers
        return p.prefetch != 0 and n_arrivals >= p.n_nodes // PREFETCH_ARRIVALS_PER
    return False


@njit(**KERNEL_STAGE_JIT)
def router_slots(p, t):
    """Ring slots of the events the routers send at cycle ``t``: flits reaching the next router
    (lanes: after the link; iq: after the crossbar and the link), credits, ejected flits (iq)."""
    arrival = (t + p.t_link) % p.ring if p.router == ROUTER_LANES else (t + p.t_crossbar + p.t_link) % p.ring
    return arrival, (t + p.credit_delay) % p.ring, (t + p.t_crossbar) % p.ring


@njit(**KERNEL_STAGE_JIT)
def cycle_end(s, p, topo, t):
    """After the routers: the time-series sample, the debug checks and the deadlock watchdog
    (whose error leaves ``cnt[C_CYCLE]`` at the next cycle)."""
    if (t + 1) % p.window == 0:
        _sample_window(s.cnt, s.ts_in_flight, s.ts_queued, t, p.window)
    if p.uses_debug and p.debug:
        err = _check_invariants(s, p, topo, t)
        if err != ERR_OK:
            return err
    if t % WATCHDOG_PERIOD == 0 and t > 0:
        err = _watchdog(s, p, t)
        if err != ERR_OK:
            s.cnt[C_CYCLE] = t + 1
            return err
    return ERR_OK


@njit(**KERNEL_STAGE_JIT)
def cycle_done(s, p, t):
    """Cycle ``t`` is over: the next is ``t + 1``; True when the stop rule is met."""
    cnt = s.cnt
    cnt[C_CYCLE] = t + 1
    if _stop_rule_met(cnt, p, t):
        cnt[C_DONE] = 1
        _sample_window(cnt, s.ts_in_flight, s.ts_queued, t, p.window)
        return True
    return False


@njit(**KERNEL_JIT)
def advance(s, p, topo, t_end):
    """Simulate cycles ``cnt[C_CYCLE] .. t_end - 1`` (fewer if the stop rule is met or an error
    occurs). Returns ``ERR_OK`` or an ``ERR_*`` code; ``cnt[C_CYCLE]`` is the next cycle."""
    t = s.cnt[C_CYCLE]
    while t < t_end:
        w = t // p.window
        slot = t % p.ring
        prefetch = prefetches(p, s.ev_flit_n[slot] + s.ev_credit_n[slot])
        err = cycle_start(s, p, t, w)
        if err != ERR_OK:
            return err
        arrival_slot, credit_slot, eject_slot = router_slots(p, t)
        err = router_stages(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot, prefetch)
        if err != ERR_OK:
            return err
        err = cycle_end(s, p, topo, t)
        if err != ERR_OK:
            return err
        if cycle_done(s, p, t):
            return ERR_OK
        t += 1
    return ERR_OK
