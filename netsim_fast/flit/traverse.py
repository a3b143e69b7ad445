"""Flits moving through routers and over links: stage 1 (arrivals), and stages 4-5 of the
``lanes`` router or the switch stage of the ``iq`` router (docs/flit-engine.md).

- ``arrivals`` (stage 1) ends the link and credit delays: flits of the ring slot ``s.ev_flit``
  join their input lanes (``s.inl``, ``s.in_buf``), credits of ``s.ev_credit`` increment their
  output lane's counter (``s.outl.credits``);
- ``link_node`` (stage 4, ``lanes``) sends one ready flit per free link from the output lanes
  (``s.outl``, ``s.ol_buf``, ``s.port``) into ``s.ev_flit``, round-robin (with several traffic
  classes: the highest-priority ready flit, round-robin among equals);
- ``crossbar_node`` (stage 5, ``lanes``) moves flits of connected input lanes into their
  output lanes and returns a credit upstream (``s.ev_credit``);
- ``switch_node`` (``iq``) allocates the switch (``s.req_vc``, ``s.req_out``) and sends the
  granted flits straight onto the links (``s.ev_flit``) or towards the node (``s.ev_eject``);
  both of its arbiters pick the highest-priority request first with several traffic classes.

A tail leaving an input lane releases its connection (flit/flits.py). The ``*_node`` stages
run at one router and are inlined into ``router_stages`` (flit/kernel.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_INLINE, KERNEL_STAGE_JIT
from netsim_fast._prefetch import prefetch_row
from netsim_fast.flit.flits import (
    flit_packet, flit_priority, is_head, is_tail, later_slot, pop_input, port_bit, push_input, release_connection,
    schedule_credit, schedule_flit, top_ready_lane, vc_bit,
)
from netsim_fast.flit.state import C_FLIT_HOPS, NONE

AHEAD = 6  # with FlitParams.prefetch, an arrival prefetches the records of the one this many places later


@njit(**KERNEL_STAGE_JIT)
def arrivals(s, p, t, slot):
    """Stage 1: flits and credits whose delay ends at ``t`` (ring slot ``slot``)."""
    arrive_range(s.inl, s.in_buf, s.node, s.wait_bits, s.outl, s.active, s.pkt, p, t, 0, s.inl.shape[0],
                 s.ev_flit[slot], s.ev_flit_n[slot], s.ev_credit[slot], s.ev_credit_n[slot])
    s.ev_flit_n[slot] = 0
    s.ev_credit_n[slot] = 0


@njit(**KERNEL_INLINE)
def arrive_range(inl, in_buf, nodes, wait_bits, outl, active, pkts, p, t, first, last, flits, n_flits, credits,
                 n_credits):
    """The flits and credits of one ring slot (``flits[:n_flits]``, ``credits[:n_credits]``)
    that go to lanes ``first .. last - 1``: all of them (``arrivals``), or one thread's routers'
    (flit/parallel.py). A flit marks its router active; a credit does not (a router without
    flits has no use for it until a flit arrives). With ``p.prefetch`` (a network whose state
    outgrows the L2) each arrival first prefetches the records of the one AHEAD places later;
    the last AHEAD, and every arrival without it, take the plain loop."""
    per_node = p.n_ports * p.n_vcs
    ahead = 0  # arrivals taken with a prefetch (a branch of its own: a run without prefetching never compiles it)
    if p.uses_prefetch and p.prefetch:
        ahead = max(n_flits - AHEAD, 0)
        for i in range(ahead):
            later = flits[i + AHEAD, 0]
            if later >= first and later < last:  # not another thread's lanes
                prefetch_row(inl, later)
                prefetch_row(in_buf, later)
                if is_head(flits[i + AHEAD, 1]):  # its packet's record, which routing reads
                    prefetch_row(pkts, flit_packet(flits[i + AHEAD, 1]))
            _arrive_flit(inl, in_buf, nodes, wait_bits, active, t, first, last, flits, per_node, i)
    for i in range(ahead, n_flits):
        _arrive_flit(inl, in_buf, nodes, wait_bits, active, t, first, last, flits, per_node, i)
    ahead = 0
    if p.uses_prefetch and p.prefetch:
        ahead = max(n_credits - AHEAD, 0)
        for i in range(ahead):
            later = credits[i + AHEAD]
            if later >= first and later < last:
                prefetch_row(outl, later)
            _arrive_credit(outl, nodes, p, first, last, credits, i)
    for i in range(ahead, n_credits):
        _arrive_credit(outl, nodes, p, first, last, credits, i)


@njit(**KERNEL_INLINE)
def _arrive_flit(inl, in_buf, nodes, wait_bits, active, t, first, last, flits, per_node, i):
    lane = flits[i, 0]
    if lane >= first and lane < last:
        push_input(inl, in_buf, nodes, wait_bits, per_node, lane, flits[i, 1], t)
        active[inl[lane].node] = 1


@njit(**KERNEL_INLINE)
def _arrive_credit(outl, nodes, p, first, last, credits, i):
    out = credits[i]
    if out >= first and out < last:
        outl[out].credits += 1
        # credits decide whether a VC is free only under vct or for an atomic VC (all drained),
        # and only for an unowned one (an owned VC waits for its release)
        if outl[out].owner == NONE and (p.vct or ((p.atomic_mask >> outl[out].vc) & 1
                                                  and outl[out].credits == p.buf)):
            nodes[outl[out].node].dirty |= port_bit(outl[out].port)


@njit(**KERNEL_INLINE)
def link_node(outl, ol_buf, ports, nodes, pkts, cls, class_pri, ev_flit, ev_flit_n, ts_link, cnt, p, t, w,
              arrival_slot, node):
    """Stage 4 at one router: every free link sends the front flit of one output lane
    (round-robin; the highest priority first with several classes) that holds a credit."""
    v, n_ports, depth = p.n_vcs, p.n_ports, p.out_buf
    for link in range(node * n_ports, node * n_ports + n_ports - p.conc):  # the network ports
        if ports[link].queued == 0 or ports[link].link_free > t:
            continue
        vc = ports[link].rr_link
        if p.uses_classes and p.classes > 1:  # start the round-robin scan below at the highest-priority ready lane
            vc = top_ready_lane(outl, ol_buf, cls, class_pri, link * v, vc, v, t, True)
            if vc == NONE:
                continue
        vc = _link_choice(outl, ol_buf, ports[link].held_vcs, link * v, vc, v, p.t_crossbar, t)
        if vc == NONE:
            continue
        out = link * v + vc
        lane = outl[out]
        pos = lane.head
        lane.head = 0 if pos + 1 == depth else pos + 1
        # no longer full: an unowned VC may take a header again (an owned one waits for its
        # release). Emptying it never frees it here: an atomic VC also needs every credit back,
        # and this send just took one
        if lane.len == depth and lane.owner == NONE:
            nodes[node].dirty |= port_bit(link - node * n_ports)
        lane.len -= 1
        if lane.len == 0:
            ports[link].held_vcs &= ~vc_bit(vc)
        lane.last = t
        lane.credits -= 1
        flit = ol_buf[out, pos].flit
        slot = arrival_slot if p.wire_max == 0 else later_slot(arrival_slot, lane.wire, p.ring)
        schedule_flit(ev_flit, ev_flit_n, lane.down, flit, slot)
        ports[link].queued -= 1
        ports[link].link_free = t + p.t_link
        ports[link].link_flits += 1
        ports[link].rr_link = 0 if vc + 1 == v else vc + 1
        ts_link[w] += 1
        cnt[C_FLIT_HOPS] += 1
        nodes[node].flits -= 1
        if is_head(flit):
            pkts[flit_packet(flit)].hops += 1


@njit(**KERNEL_INLINE)
def _link_choice(outl, ol_buf, held, base, vc, v, t_crossbar, t):
    """The VC whose output lane (``base + VC``) the link serves: the first from ``vc`` on,
    round-robin, whose front flit is ready and holds a credit; NONE if none. The scan visits
    only the lanes holding flits (the port's ``held_vcs``, rotated so that bit ``j`` is VC
    ``vc + j``; at most 32 VCs, config MAX_VCS), in the same order as a scan of every lane."""
    mask = ((held >> vc) | (held << (v - vc))) & ((np.int64(1) << v) - 1)
    while mask != 0:
        cand = vc + lowest_set_bit(mask)
        if cand >= v:
            cand -= v
        mask &= mask - 1
        lane = outl[base + cand]
        # with T_crossbar = 1 every flit already in an output lane is ready (it crossed in an
        # earlier cycle): skip loading its ready time
        if lane.credits > 0 and lane.len > 0 and (t_crossbar == 1 or ol_buf[base + cand, lane.head].ready <= t):
            return cand
    return NONE


@njit(**KERNEL_INLINE)
def crossbar_node(inl, in_buf, outl, ol_buf, ports, nodes, conn_list, wait_bits, ev_credit, ev_credit_n, p, t,
                  credit_slot, node):
    """Stage 5 at one router: every usable connection moves its front flit into its output
    lane if there is room. Connections are independent (own input lane, own output lane), so
    the list's order does not matter; a released connection is replaced by the list's last."""
    depth = p.out_buf
    k = 0
    while k < nodes[node].conn_n:
        lane = conn_list[node, k]
        out = inl[lane].out
        k += 1
        if inl[lane].len == 0 or inl[lane].ready > t or outl[out].len >= depth:
            continue
        flit = pop_input(inl, in_buf, lane, t)
        pos = outl[out].head + outl[out].len
        if pos >= depth:
            pos -= depth
        ol_buf[out, pos].flit = flit
        ol_buf[out, pos].ready = t + p.t_crossbar
        if outl[out].len == 0:
            outl[out].last = t
            ports[outl[out].link].held_vcs |= vc_bit(outl[out].vc)
        outl[out].len += 1
        ports[outl[out].link].queued += 1
        inl[lane].ready = t + p.t_crossbar
        up = inl[lane].up
        slot = credit_slot if p.wire_max == 0 or up == NONE else later_slot(credit_slot, outl[up].wire, p.ring)
        schedule_credit(ev_credit, ev_credit_n, up, slot)
        if is_tail(flit):
            release_connection(inl, outl, nodes, conn_list, wait_bits, lane, node, out)
            k -= 1  # the list's last connection moved into this position


@njit(**KERNEL_INLINE)
def switch_node(inl, in_buf, outl, ports, nodes, pkts, cls, class_pri, conn_list, wait_bits, req_vc, req_out, ev_flit,
                ev_flit_n, ev_credit, ev_credit_n, ev_eject, ev_eject_n, ts_link, cnt, p, t, w, arrival_slot,
                credit_slot, eject_slot, node):
    """Separable input-first switch allocation and traversal at one router (iq: stages 3-5).
    With several classes each arbiter takes the highest-priority request, round-robin among
    equals (a request's priority: its front flit's class)."""
    v, n_ports = p.n_vcs, p.n_ports
    first_local = n_ports - p.conc  # local ports: first_local .. n_ports - 1
    first = node * n_ports
    multi = p.classes > 1
    # the output ports some input requests (a bit each, with fewer than 63 ports): the others
    # would find no request, so (ii) skips them without scanning the input ports
    few = n_ports < 63
    wanted = np.int64(0)
    # (i) each input port picks one lane, round-robin
    for ip in range(n_ports):
        req_out[ip] = NONE
        base = (first + ip) * v
        vc = ports[first + ip].rr_sa_in
        best_pri = -1
        for _j in range(v):
            lane = base + vc
            out = inl[lane].out
            if out != NONE and inl[lane].len > 0 and inl[lane].ready <= t:
                op = outl[out].port
                if op >= first_local or (outl[out].credits > 0 and ports[first + op].link_free <= t):
                    if few:
                        wanted |= np.int64(1) << op
                    if not multi:
                        req_vc[ip] = vc
                        req_out[ip] = out
                        break
                    pri = flit_priority(cls, class_pri, in_buf[lane, inl[lane].head])
                    if pri > best_pri:
                        best_pri = pri
                        req_vc[ip] = vc
                        req_out[ip] = out
            vc += 1
            if vc == v:
                vc = 0
    # (ii) each output port grants requests round-robin over input ports (with several classes
    # the highest-priority request first), up to its capacity, one grant at a time
    for op in range(n_ports):
        if few and ((wanted >> op) & 1) == 0:
            continue
        capacity = p.eject_rate if op >= first_local else 1
        while capacity > 0:
            ip = _next_request(in_buf, inl, outl, req_vc, req_out, cls, class_pri, multi, first, op,
                               ports[first + op].rr_sa_out, v, n_ports)
            if ip == NONE:
                break
            out = req_out[ip]
            lane = (first + ip) * v + req_vc[ip]
            flit = pop_input(inl, in_buf, lane, t)
            up = inl[lane].up
            slot = credit_slot if p.wire_max == 0 or up == NONE else later_slot(credit_slot, outl[up].wire, p.ring)
            schedule_credit(ev_credit, ev_credit_n, up, slot)
            nodes[node].flits -= 1
            if op >= first_local:  # reaches the terminal after the crossbar delay (delivered then)
                ev_eject[eject_slot, ev_eject_n[eject_slot]] = flit
                ev_eject_n[eject_slot] += 1
            else:
                slot = arrival_slot if p.wire_max == 0 else later_slot(arrival_slot, outl[out].wire, p.ring)
                schedule_flit(ev_flit, ev_flit_n, outl[out].down, flit, slot)
                outl[out].credits -= 1
                ports[first + op].link_free = t + p.t_link
                ports[first + op].link_flits += 1
                ts_link[w] += 1
                cnt[C_FLIT_HOPS] += 1
                if is_head(flit):
                    pkts[flit_packet(flit)].hops += 1
            if is_tail(flit):
                release_connection(inl, outl, nodes, conn_list, wait_bits, lane, node, out)
            ports[first + ip].rr_sa_in = 0 if req_vc[ip] + 1 == v else req_vc[ip] + 1
            ports[first + op].rr_sa_out = 0 if ip + 1 == n_ports else ip + 1
            req_out[ip] = NONE
            capacity -= 1


@njit(**KERNEL_INLINE)
def _next_request(in_buf, inl, outl, req_vc, req_out, cls, class_pri, multi, first, op, ip, v, n_ports):
    """The input port whose request for output port ``op`` is granted next: the first from
    ``ip`` on, round-robin, or (``multi``) the first of those with the highest priority; NONE
    if none requests it. A grant moves the pointer past the granted port, so successive calls
    visit the requests in the order one round-robin pass would."""
    best, best_pri = NONE, -1
    for _j in range(n_ports):
        out = req_out[ip]
        if out != NONE and outl[out].port == op:
            if not multi:
                return ip
            lane = (first + ip) * v + req_vc[ip]
            pri = flit_priority(cls, class_pri, in_buf[lane, inl[lane].head])
            if pri > best_pri:
                best, best_pri = ip, pri
        ip += 1
        if ip == n_ports:
            ip = 0
    return best
