"""Stages of one flit-engine cycle (docs/flit-engine.md gives the semantics stage by stage).

Every stage function takes the state ``s`` (``FlitState``), the parameters ``p``
(``FlitParams``) and the cycle ``t``; ``flit.advance`` calls them in order. Routers only touch
their own lanes within a stage, so the visiting order of routers does not change the result;
within a router, round-robin pointers fix the order.

Speed notes (bench/flit_speed.py):
- stage functions read the record arrays out of ``s`` once, at their top, and per-flit helpers
  take plain arrays (a tuple argument would be unpacked member by member at every call);
- no integer division on the per-flit path: ring pointers and round-robin indices wrap by
  comparison, the lane a credit or a flit goes to is a constant field of the lane record, and
  a flit carries its tail bit so the packet length is not looked up at every hop;
- the time-series window index ``w`` and the ring slots are computed once per cycle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_INLINE, KERNEL_JIT
from netsim_fast.flit.state import (
    C_DELIVERED, C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT, C_FLIT_HOPS, C_FLITS_IN, C_FLITS_OUT,
    C_GLOBAL_PHASE, C_LAST_DELIVERY, C_NEXT_RELEASE, C_NPKT, C_QUEUED, C_WIN_FLITS_OUT, C_WIN_OPEN,
    ERR_NO_ROUTE, ERR_OK, ERR_ORDER, NONE, ROUTER_LANES, SYNC_LOCAL, SYNC_NONE, VC_ALLOC_AGE, VC_ALLOC_RR,
)
from netsim_fast.routing.dispatch import next_hops

UNLIMITED_SPACE = 1 << 30
CODE_MASK = 0xFFFFFFFF


# -- flits -----------------------------------------------------------------------------------------


@njit(**KERNEL_JIT)
def make_flit(pkt, seq, length):
    """A buffered flit: ``packet << 32 | seq << 1 | is_tail``."""
    return (np.int64(pkt) << 32) | (np.int64(seq) << 1) | (1 if seq == length - 1 else 0)


@njit(**KERNEL_JIT)
def flit_packet(flit):
    return np.int32(flit >> 32)


@njit(**KERNEL_JIT)
def is_head(flit):
    return (flit & CODE_MASK) < 2


@njit(**KERNEL_JIT)
def is_tail(flit):
    return (flit & 1) == 1


# -- helpers on explicit arrays ----------------------------------------------------------------


@njit(**KERNEL_JIT)
def port_bit(port):
    """Bit of a port in the candidate and dirty masks (ports 63 and above share bit 63)."""
    return np.int64(1) << min(port, 63)


@njit(**KERNEL_JIT)
def push_input(inl, in_buf, nodes, lane, flit, t):
    """Append a flit to an input lane; a head reaching the front of an idle lane waits for routing."""
    n = inl[lane].len
    pos = inl[lane].head + n
    if pos >= in_buf.shape[1]:
        pos -= in_buf.shape[1]
    in_buf[lane, pos] = flit
    inl[lane].len = n + 1
    node = inl[lane].node
    nodes[node].flits += 1
    if n == 0:
        inl[lane].last = t
        if inl[lane].out == NONE:
            nodes[node].waiting += 1
            nodes[node].unrouted += 1


@njit(**KERNEL_JIT)
def pop_input(inl, in_buf, lane, t):
    """Remove and return the front flit of an input lane."""
    pos = inl[lane].head
    nxt = pos + 1
    inl[lane].head = 0 if nxt == in_buf.shape[1] else nxt
    inl[lane].len -= 1
    inl[lane].last = t
    return in_buf[lane, pos]


@njit(**KERNEL_JIT)
def schedule_credit(ev_credit, ev_credit_n, target, slot):
    if target == NONE:
        return  # local input lane: the node sees its lanes directly
    ev_credit[slot, ev_credit_n[slot]] = target
    ev_credit_n[slot] += 1


@njit(**KERNEL_JIT)
def schedule_flit(ev_flit, ev_flit_n, lane, flit, slot):
    k = ev_flit_n[slot]
    ev_flit[slot, k, 0] = lane
    ev_flit[slot, k, 1] = flit
    ev_flit_n[slot] = k + 1


@njit(**KERNEL_JIT)
def deliver(pkts, ts_accepted, cnt, w, win_start, win_end, debug, flit, when):
    """A flit reaches its destination node at cycle ``when`` (window ``w``); returns an error code."""
    pkt = flit_packet(flit)
    seq = (flit & CODE_MASK) >> 1
    if debug and seq != pkts[pkt].ejected:
        cnt[C_ERR_CYCLE] = when
        cnt[C_ERR_PKT] = pkt
        return ERR_ORDER
    pkts[pkt].ejected += 1
    cnt[C_FLITS_OUT] += 1
    ts_accepted[w] += 1
    if when >= win_start and when < win_end:
        cnt[C_WIN_FLITS_OUT] += 1
    if seq == 0:
        pkts[pkt].head_del = when
    if is_tail(flit):
        pkts[pkt].tail_del = when
        cnt[C_DELIVERED] += 1
        if when > cnt[C_LAST_DELIVERY]:
            cnt[C_LAST_DELIVERY] = when
        rel = pkts[pkt].release
        if rel >= win_start and rel < win_end:
            cnt[C_WIN_OPEN] -= 1
    return ERR_OK


@njit(**KERNEL_JIT)
def complete_phase(pkts, nodes, recv_need, recv_got, phase_need, phase_got, cnt, pkt):
    """A packet's tail was delivered: count it for its phase and open the next phase when the
    receiving node (--sync local) or the whole network (--sync global) has all of this one."""
    f = pkts[pkt].phase
    node = pkts[pkt].dst
    recv_got[node, f] += 1
    last = recv_need.shape[1] - 1
    while nodes[node].phase < last and recv_got[node, nodes[node].phase] == recv_need[node, nodes[node].phase]:
        nodes[node].phase += 1
    phase_got[f] += 1
    while cnt[C_GLOBAL_PHASE] < last and phase_got[cnt[C_GLOBAL_PHASE]] == phase_need[cnt[C_GLOBAL_PHASE]]:
        cnt[C_GLOBAL_PHASE] += 1


@njit(**KERNEL_JIT)
def connect(inl, outl, nodes, conn_list, lane, node, out):
    """Bind input ``lane`` to output lane/VC ``out`` and list it among the router's connections."""
    inl[lane].out = out
    outl[out].owner = lane
    k = nodes[node].conn_n
    conn_list[node, k] = lane
    inl[lane].conn_pos = k
    nodes[node].conn_n = k + 1


@njit(**KERNEL_JIT)
def release_connection(inl, outl, nodes, conn_list, lane, node, out):
    """The tail left ``lane``: free the output lane/VC; a following head now waits for routing.
    The last connection of the router's list takes the freed position."""
    outl[out].owner = NONE
    nodes[node].dirty |= port_bit(outl[out].port)
    inl[lane].out = NONE
    inl[lane].route_done = NONE
    if inl[lane].len > 0:
        nodes[node].waiting += 1
        nodes[node].unrouted += 1
    k = inl[lane].conn_pos
    last = nodes[node].conn_n - 1
    moved = conn_list[node, last]
    conn_list[node, k] = moved
    inl[moved].conn_pos = k
    inl[lane].conn_pos = NONE
    nodes[node].conn_n = last


# -- stage 1: arrivals, stage 2: release --------------------------------------------------------


@njit(**KERNEL_JIT)
def arrivals(s, p, t, slot):
    """Stage 1: flits and credits whose delay ends at ``t`` (ring slot ``slot``)."""
    inl, in_buf, nodes, outl = s.inl, s.in_buf, s.node, s.outl
    ev_flit, ev_flit_n, ev_credit, ev_credit_n = s.ev_flit, s.ev_flit_n, s.ev_credit, s.ev_credit_n
    for i in range(ev_flit_n[slot]):
        push_input(inl, in_buf, nodes, ev_flit[slot, i, 0], ev_flit[slot, i, 1], t)
    ev_flit_n[slot] = 0
    for i in range(ev_credit_n[slot]):
        out = ev_credit[slot, i]
        outl[out].credits += 1
        # credits decide whether a VC is free only under vct or for an atomic VC (all drained)
        if p.vct or ((p.atomic_mask >> outl[out].vc) & 1 and outl[out].credits == p.buf):
            nodes[outl[out].node].dirty |= port_bit(outl[out].port)
    ev_credit_n[slot] = 0


@njit(**KERNEL_JIT)
def release(s, p, t):
    """Stage 2: packets created at ``t`` join the tail of their source queue, in packet-id order."""
    cnt, pkts, nodes = s.cnt, s.pkt, s.node
    k = cnt[C_NEXT_RELEASE]
    n = cnt[C_NPKT]
    while k < n and pkts[k].release <= t:
        node = pkts[k].src
        if nodes[node].src_tail == NONE:
            nodes[node].src_head = k
        else:
            pkts[nodes[node].src_tail].next = k
        nodes[node].src_tail = k
        cnt[C_QUEUED] += 1
        if pkts[k].release >= p.win_start and pkts[k].release < p.win_end:
            cnt[C_WIN_OPEN] += 1
        k += 1
    cnt[C_NEXT_RELEASE] = k


# -- stages 3-5 of the lanes router ---------------------------------------------------------------


@njit(**KERNEL_JIT)
def eject_lanes(s, p, t, w):
    """Stage 3: each node takes up to E ready flits from its local output lanes, round-robin."""
    outl, ol_buf, ports, nodes, pkts = s.outl, s.ol_buf, s.port, s.node, s.pkt
    ts_accepted, cnt = s.ts_accepted, s.cnt
    recv_need, recv_got, phase_need, phase_got = s.recv_need, s.recv_got, s.phase_need, s.phase_got
    local, v, depth = p.n_ports - 1, p.n_vcs, p.out_buf
    for node in range(p.n_nodes):
        link = node * p.n_ports + local
        if ports[link].queued == 0:
            continue
        base = link * v
        for _ in range(p.eject_rate):
            vc = nodes[node].rr_eject
            served = NONE
            for _j in range(v):
                out = base + vc
                if outl[out].len > 0 and (p.t_crossbar == 1 or ol_buf[out, outl[out].head].ready <= t):
                    served = vc
                    break
                vc += 1
                if vc == v:
                    vc = 0
            if served == NONE:
                break
            out = base + served
            pos = outl[out].head
            outl[out].head = 0 if pos + 1 == depth else pos + 1
            if outl[out].len == depth:  # no longer full: it may be free for a waiting header
                nodes[node].dirty |= port_bit(local)
            outl[out].len -= 1
            outl[out].last = t
            ports[link].queued -= 1
            nodes[node].flits -= 1
            nodes[node].rr_eject = 0 if served + 1 == v else served + 1
            flit = ol_buf[out, pos].flit
            err = deliver(pkts, ts_accepted, cnt, w, p.win_start, p.win_end, p.debug, flit, t)
            if err != ERR_OK:
                return err
            if is_tail(flit) and p.sync != SYNC_NONE:
                complete_phase(pkts, nodes, recv_need, recv_got, phase_need, phase_got, cnt, flit_packet(flit))
    return ERR_OK


@njit(**KERNEL_INLINE)
def link_node(outl, ol_buf, ports, nodes, pkts, ev_flit, ev_flit_n, ts_link, cnt, p, t, w, arrival_slot, node):
    """Stage 4 at one router: every free link sends the front flit of one output lane
    (round-robin) that holds a credit."""
    v, n_ports, depth = p.n_vcs, p.n_ports, p.out_buf
    for link in range(node * n_ports, node * n_ports + n_ports - 1):
        if ports[link].queued == 0 or ports[link].link_free > t:
            continue
        vc = ports[link].rr_link
        for _j in range(v):
            out = link * v + vc
            lane = outl[out]
            # with T_crossbar = 1 every flit already in an output lane is ready (it crossed in an
            # earlier cycle): skip loading its ready time
            if lane.credits > 0 and lane.len > 0 and (p.t_crossbar == 1 or ol_buf[out, lane.head].ready <= t):
                pos = lane.head
                lane.head = 0 if pos + 1 == depth else pos + 1
                if lane.len == depth or lane.len == 1:  # no longer full, or empty (atomic VCs)
                    nodes[node].dirty |= port_bit(link - node * n_ports)
                lane.len -= 1
                lane.last = t
                lane.credits -= 1
                flit = ol_buf[out, pos].flit
                schedule_flit(ev_flit, ev_flit_n, lane.down, flit, arrival_slot)
                ports[link].queued -= 1
                ports[link].link_free = t + p.t_link
                ports[link].link_flits += 1
                ports[link].rr_link = 0 if vc + 1 == v else vc + 1
                ts_link[w] += 1
                cnt[C_FLIT_HOPS] += 1
                nodes[node].flits -= 1
                if is_head(flit):
                    pkts[flit_packet(flit)].hops += 1
                break
            vc += 1
            if vc == v:
                vc = 0


@njit(**KERNEL_INLINE)
def crossbar_node(inl, in_buf, outl, ol_buf, ports, nodes, conn_list, ev_credit, ev_credit_n, p, t, credit_slot, node):
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
        outl[out].len += 1
        ports[outl[out].link].queued += 1
        inl[lane].ready = t + p.t_crossbar
        schedule_credit(ev_credit, ev_credit_n, inl[lane].up, credit_slot)
        if is_tail(flit):
            release_connection(inl, outl, nodes, conn_list, lane, node, out)
            k -= 1  # the list's last connection moved into this position


# -- stages 3-5 of the iq router ----------------------------------------------------------------


@njit(**KERNEL_JIT)
def eject_iq(s, p, t, w):
    """Flits that crossed to a local port ``T_crossbar`` cycles ago reach their node now (iq)."""
    pkts, nodes, ts_accepted, cnt = s.pkt, s.node, s.ts_accepted, s.cnt
    recv_need, recv_got, phase_need, phase_got = s.recv_need, s.recv_got, s.phase_need, s.phase_got
    ev_eject, ev_eject_n = s.ev_eject, s.ev_eject_n
    now = t % p.ring
    for i in range(ev_eject_n[now]):
        flit = ev_eject[now, i]
        err = deliver(pkts, ts_accepted, cnt, w, p.win_start, p.win_end, p.debug, flit, t)
        if err != ERR_OK:
            return err
        if is_tail(flit) and p.sync != SYNC_NONE:
            complete_phase(pkts, nodes, recv_need, recv_got, phase_need, phase_got, cnt, flit_packet(flit))
    ev_eject_n[now] = 0
    return ERR_OK


@njit(**KERNEL_INLINE)
def switch_node(inl, in_buf, outl, ports, nodes, pkts, conn_list, req_vc, req_out, ev_flit, ev_flit_n,
                ev_credit, ev_credit_n, ev_eject, ev_eject_n, ts_link, cnt, p, t, w, arrival_slot,
                credit_slot, eject_slot, node):
    """Separable input-first switch allocation and traversal at one router (iq: stages 3-5)."""
    v, n_ports = p.n_vcs, p.n_ports
    local = n_ports - 1
    first = node * n_ports
    # (i) each input port picks one lane, round-robin
    for ip in range(n_ports):
        req_out[ip] = NONE
        base = (first + ip) * v
        vc = ports[first + ip].rr_sa_in
        for _j in range(v):
            lane = base + vc
            out = inl[lane].out
            if out != NONE and inl[lane].len > 0 and inl[lane].ready <= t:
                op = outl[out].port
                if op == local or (outl[out].credits > 0 and ports[first + op].link_free <= t):
                    req_vc[ip] = vc
                    req_out[ip] = out
                    break
            vc += 1
            if vc == v:
                vc = 0
    # (ii) each output port grants requests round-robin over input ports
    for op in range(n_ports):
        capacity = p.eject_rate if op == local else 1
        ip = ports[first + op].rr_sa_out
        for _j in range(n_ports):
            out = req_out[ip]
            if out != NONE and outl[out].port == op:
                lane = (first + ip) * v + req_vc[ip]
                flit = pop_input(inl, in_buf, lane, t)
                schedule_credit(ev_credit, ev_credit_n, inl[lane].up, credit_slot)
                nodes[node].flits -= 1
                if op == local:  # reaches the node after the crossbar delay (delivered then)
                    ev_eject[eject_slot, ev_eject_n[eject_slot]] = flit
                    ev_eject_n[eject_slot] += 1
                else:
                    schedule_flit(ev_flit, ev_flit_n, outl[out].down, flit, arrival_slot)
                    outl[out].credits -= 1
                    ports[first + op].link_free = t + p.t_link
                    ports[first + op].link_flits += 1
                    ts_link[w] += 1
                    cnt[C_FLIT_HOPS] += 1
                    if is_head(flit):
                        pkts[flit_packet(flit)].hops += 1
                if is_tail(flit):
                    release_connection(inl, outl, nodes, conn_list, lane, node, out)
                ports[first + ip].rr_sa_in = 0 if req_vc[ip] + 1 == v else req_vc[ip] + 1
                ports[first + op].rr_sa_out = 0 if ip + 1 == n_ports else ip + 1
                req_out[ip] = NONE
                capacity -= 1
                if capacity == 0:
                    break
            ip += 1
            if ip == n_ports:
                ip = 0


# -- stage 7: routing and output-VC allocation ---------------------------------------------------


@njit(**KERNEL_JIT)
def choose_output(outl, rows, n_rows, node, n_ports, n_vcs, buf, out_buf, lanes_router, vct, length,
                  from_source, inject_mask, atomic_mask):
    """The free output lane/VC a header takes (stage 7), or NONE.

    Rows of priority 0 are tried before priority 1; within a priority the candidate with the
    most free space wins, ties to the lowest port, then the lowest VC (rows come in port order).
    """
    local = n_ports - 1
    for prio in range(2):
        best, best_space = NONE, -1
        for r in range(n_rows):
            if rows[r, 3] != prio:
                continue
            port = rows[r, 0]
            to_local = port == local
            for vc in range(rows[r, 1], rows[r, 2] + 1):
                if from_source and not to_local and not (inject_mask >> vc) & 1:
                    continue
                out = (node * n_ports + port) * n_vcs + vc
                if outl[out].owner != NONE:
                    continue
                held = outl[out].len if lanes_router else 0
                if lanes_router and held >= out_buf:
                    continue
                # atomic reallocation: the previous packet has fully left the downstream buffer
                # (its tail credit is back) and the output lane
                if (atomic_mask >> vc) & 1 and not to_local and (outl[out].credits != buf or held > 0):
                    continue
                if vct and not to_local and outl[out].credits - held < length:
                    continue
                if to_local:
                    space = UNLIMITED_SPACE
                elif lanes_router:
                    space = outl[out].credits + out_buf - held
                else:
                    space = outl[out].credits
                if space > best_space:
                    best, best_space = out, space
        if best != NONE:
            return best
    return NONE


@njit(**KERNEL_JIT)
def candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, pkt, rows):
    """The routing function's rows for packet ``pkt``'s header at ``node`` (local port at its
    destination)."""
    dst = pkts[pkt].dst
    if dst == node:
        rows[0, 0] = p.n_ports - 1
        rows[0, 1] = 0
        rows[0, 2] = p.n_vcs - 1
        rows[0, 3] = 0
        return 1
    return next_hops(p.routing, radix, wrap, coord, dim_port, route_mask, p.class_vcs, p.n_vcs, node,
                     pkts[pkt].src, dst, pkts[pkt].hops, rows)


@njit(**KERNEL_INLINE)
def route_node(inl, in_buf, outl, nodes, pkts, conn_list, route_free, rows, va_lane, cnt, radix, wrap,
               coord, dim_port, route_mask, p, t, node):
    """Stage 7 at one router: (a) free routing units compute the routes of new headers,
    round-robin; (b) routed headers request output VCs, oldest packet first (or round-robin).
    Returns an error code."""
    n_ports, v = p.n_ports, p.n_vcs
    per_node = n_ports * v
    base = node * per_node
    local = n_ports - 1
    lanes_router = p.router == ROUTER_LANES
    # (a) route computation: a unit is busy T_routing cycles per header; the candidates and
    # the packet's age are noted in the lane for the allocation passes
    if nodes[node].unrouted > 0:
        li = nodes[node].rr_route
        for _j in range(per_node):
            lane = base + li
            li += 1
            if li == per_node:
                li = 0
            if inl[lane].out != NONE or inl[lane].len == 0 or inl[lane].route_done != NONE:
                continue
            if p.headers > 0:
                unit = NONE
                for u in range(p.headers):
                    if route_free[node, u] <= t:
                        unit = u
                        break
                if unit == NONE:
                    break
                route_free[node, unit] = t + p.t_routing
            inl[lane].route_done = t + p.t_routing - 1
            pkt = flit_packet(in_buf[lane, inl[lane].head])
            inl[lane].age = pkts[pkt].injected
            n_rows = candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, pkt, rows)
            cand = np.int64(0)
            for r in range(n_rows):
                cand |= port_bit(rows[r, 0])
            inl[lane].cand = cand
            nodes[node].rr_route = li
            nodes[node].unrouted -= 1
            nodes[node].va_wake = 1
    # (b) output-VC allocation among routed headers. An attempt depends only on the router's
    # output VCs at the header's candidate ports (owner, output-lane fill, credits where they
    # matter): a header is retried only when one of its ports changed since its last attempt
    # ("dirty"), or in its first eligible cycle; a skipped header would fail again, so results
    # are exactly those of retrying every header every cycle, at a fraction of the cost.
    dirty = nodes[node].dirty
    if dirty == 0 and nodes[node].va_wake == 0:
        return ERR_OK
    nodes[node].dirty = 0
    nodes[node].va_wake = 0
    start = nodes[node].rr_va if p.vc_alloc == VC_ALLOC_RR else 0
    n = 0
    for j in range(per_node):
        li = start + j
        if li >= per_node:
            li -= per_node
        lane = base + li
        if inl[lane].out != NONE or inl[lane].len == 0 or inl[lane].route_done == NONE:
            continue
        if inl[lane].route_done > t:
            nodes[node].va_wake = 1  # eligible in a later cycle: look again then
        elif inl[lane].route_done == t or (inl[lane].cand & dirty) != 0:
            va_lane[n] = lane
            n += 1
    if p.vc_alloc == VC_ALLOC_AGE and n > 1:
        # insertion sort, longest in the network first: by injection cycle (not creation: past
        # saturation packets age in the source queues, and would then outrank transit traffic),
        # then lowest packet id
        for i in range(1, n):
            lane = va_lane[i]
            age, pkt = inl[lane].age, flit_packet(in_buf[lane, inl[lane].head])
            k = i - 1
            while k >= 0:
                other = va_lane[k]
                if inl[other].age < age or (inl[other].age == age and flit_packet(in_buf[other, inl[other].head]) < pkt):
                    break
                va_lane[k + 1] = other
                k -= 1
            va_lane[k + 1] = lane
    for i in range(n):
        lane = va_lane[i]
        pkt = flit_packet(in_buf[lane, inl[lane].head])
        n_rows = candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, pkt, rows)
        if n_rows == 0:
            cnt[C_ERR_CYCLE] = t
            cnt[C_ERR_LANE] = lane
            cnt[C_ERR_PKT] = pkt
            return ERR_NO_ROUTE
        out = choose_output(outl, rows, n_rows, node, n_ports, v, p.buf, p.out_buf, lanes_router, p.vct,
                            pkts[pkt].len, lane - base >= local * v, p.inject_mask, p.atomic_mask)
        if out != NONE:
            connect(inl, outl, nodes, conn_list, lane, node, out)
            # usable from the next cycle, and not before this lane's crossbar path is free again
            if inl[lane].ready < t + 1:
                inl[lane].ready = t + 1
            nodes[node].waiting -= 1
            if p.vc_alloc == VC_ALLOC_RR:
                nodes[node].rr_va = lane - base + 1 if lane - base + 1 < per_node else 0
    return ERR_OK


# -- stage 8: injection ----------------------------------------------------------------------------


@njit(**KERNEL_INLINE)
def inject_node(inl, in_buf, nodes, pkts, inj, ts_injected, cnt, p, t, w, node):
    """Stage 8 at one node: bind the queue's head packet to the lowest free local lane, then
    write one flit."""
    v = p.n_vcs
    head = nodes[node].src_head
    if head == NONE and nodes[node].bound == 0:
        return
    if head != NONE and p.sync != SYNC_NONE:  # the queue's head waits for its phase to open
        allowed = nodes[node].phase if p.sync == SYNC_LOCAL else cnt[C_GLOBAL_PHASE]
        if pkts[head].phase > allowed:
            head = NONE
    if head != NONE:
        for vc in range(v):
            if inj[node, vc].pkt == NONE:
                inj[node, vc].pkt = head
                inj[node, vc].sent = 0
                nodes[node].bound += 1
                nxt = pkts[head].next
                nodes[node].src_head = nxt
                if nxt == NONE:
                    nodes[node].src_tail = NONE
                break
    base = (node * p.n_ports + p.n_ports - 1) * v
    vc = nodes[node].rr_inject
    for _j in range(v):
        pkt = inj[node, vc].pkt
        lane = base + vc
        if pkt != NONE and inl[lane].len < p.buf:
            seq = inj[node, vc].sent
            length = pkts[pkt].len
            push_input(inl, in_buf, nodes, lane, make_flit(pkt, seq, length), t)
            if seq == 0:
                pkts[pkt].injected = t
            inj[node, vc].sent = seq + 1
            if seq + 1 == length:
                inj[node, vc].pkt = NONE
                nodes[node].bound -= 1
                cnt[C_QUEUED] -= 1
            cnt[C_FLITS_IN] += 1
            ts_injected[w] += 1
            nodes[node].rr_inject = 0 if vc + 1 == v else vc + 1
            return
        vc += 1
        if vc == v:
            vc = 0


# -- stages 4-8 router by router ---------------------------------------------------------------------


@njit(**KERNEL_JIT)
def router_stages(s, p, topo, t, w, arrival_slot, credit_slot, eject_slot):
    """Stages 4-8 (lanes) or the switch stage and 7-8 (iq), router after router.

    Within a cycle a router's stages 4-8 read only its own state and what earlier cycles
    delivered (every link and credit delay is at least one cycle), so running all stages of one
    router before the next gives the same result as running each stage over all routers, and
    keeps the router's records in cache. Ejection stays a separate pass before this one because
    a delivery can open a --sync global phase for every node's injection in the same cycle.
    """
    inl, in_buf, outl, ol_buf, ports, nodes, pkts = s.inl, s.in_buf, s.outl, s.ol_buf, s.port, s.node, s.pkt
    conn_list, route_free, rows, inj, cnt = s.conn_list, s.route_free, s.rows, s.inj, s.cnt
    ev_flit, ev_flit_n, ev_credit, ev_credit_n = s.ev_flit, s.ev_flit_n, s.ev_credit, s.ev_credit_n
    ev_eject, ev_eject_n, req_vc, req_out = s.ev_eject, s.ev_eject_n, s.req_vc, s.req_out
    ts_link, ts_injected, va_lane, route_mask = s.ts_link, s.ts_injected, s.va_lane, s.route_mask
    radix, wrap, coord, dim_port = topo.radix, topo.wrap, topo.coord, topo.dim_port
    lanes_router = p.router == ROUTER_LANES
    for node in range(p.n_nodes):
        if nodes[node].flits > 0:
            if lanes_router:
                link_node(outl, ol_buf, ports, nodes, pkts, ev_flit, ev_flit_n, ts_link, cnt, p, t, w,
                          arrival_slot, node)
                crossbar_node(inl, in_buf, outl, ol_buf, ports, nodes, conn_list, ev_credit, ev_credit_n, p, t,
                              credit_slot, node)
            else:
                switch_node(inl, in_buf, outl, ports, nodes, pkts, conn_list, req_vc, req_out, ev_flit,
                            ev_flit_n, ev_credit, ev_credit_n, ev_eject, ev_eject_n, ts_link, cnt, p, t, w,
                            arrival_slot, credit_slot, eject_slot, node)
        if nodes[node].waiting > 0:
            err = route_node(inl, in_buf, outl, nodes, pkts, conn_list, route_free, rows, va_lane, cnt, radix,
                             wrap, coord, dim_port, route_mask, p, t, node)
            if err != ERR_OK:
                return err
        inject_node(inl, in_buf, nodes, pkts, inj, ts_injected, cnt, p, t, w, node)
    return ERR_OK
