"""Stages of one flit-engine cycle (docs/flit-engine.md gives the semantics stage by stage).

Every stage function takes the state ``s`` (``FlitState``), the parameters ``p``
(``FlitParams``), the topology arrays ``topo`` and the cycle ``t``; ``flit.advance`` calls
them in order. Routers only touch their own lanes within a stage, so the visiting order of
routers does not change the result; within a router, round-robin pointers fix the order.

Speed notes (measured on the 16x16 reference set-up; bench/flit_speed.py):
- stage functions read every array out of ``s`` once, at their top, and per-flit helpers take
  plain arrays: Numba reference-counts each member of a tuple passed to a function;
- no integer division on the per-flit path: ring pointers and round-robin indices wrap by
  comparison, the lane a credit or a flit goes to comes from the ``lane_up`` / ``out_down``
  tables, and a flit carries its tail bit in its code (``seq << 1 | tail``) so the packet
  length is not looked up at every hop;
- the time-series window index is computed once per cycle (``w``).
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.engine.flit_state import (
    C_DELIVERED, C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT, C_FLIT_HOPS, C_FLITS_IN, C_FLITS_OUT,
    C_GLOBAL_PHASE, C_LAST_DELIVERY, C_NEXT_RELEASE, C_NPKT, C_QUEUED, C_WIN_FLITS_OUT, C_WIN_OPEN, ERR_NO_ROUTE,
    ERR_OK, ERR_ORDER, NONE, ROUTER_LANES, SYNC_GLOBAL, SYNC_LOCAL, SYNC_NONE,
)
from netsim_fast.routing.dispatch import next_hops

UNLIMITED_SPACE = 1 << 30


# -- helpers on explicit arrays ----------------------------------------------------------------


@njit(**KERNEL_JIT)
def flit_code(seq, length):
    """Buffer code of flit ``seq`` of a ``length``-flit packet: ``seq << 1 | is_tail``."""
    return (seq << 1) | (1 if seq == length - 1 else 0)


@njit(**KERNEL_JIT)
def push_input(in_pkt, in_seq, in_head, in_len, in_out, in_last, node_flits, node_waiting,
               lane, node, pkt, code, t):
    """Append a flit to an input lane; a head reaching the front of an idle lane waits for routing."""
    n = in_len[lane]
    pos = in_head[lane] + n
    if pos >= in_pkt.shape[1]:
        pos -= in_pkt.shape[1]
    in_pkt[lane, pos] = pkt
    in_seq[lane, pos] = code
    in_len[lane] = n + 1
    node_flits[node] += 1
    if n == 0:
        in_last[lane] = t
        if in_out[lane] == NONE:
            node_waiting[node] += 1


@njit(**KERNEL_JIT)
def pop_input(in_pkt, in_seq, in_head, in_len, in_last, lane, t):
    """Remove the front flit of an input lane; returns (packet, code)."""
    pos = in_head[lane]
    nxt = pos + 1
    in_head[lane] = 0 if nxt == in_pkt.shape[1] else nxt
    in_len[lane] -= 1
    in_last[lane] = t
    return in_pkt[lane, pos], in_seq[lane, pos]


@njit(**KERNEL_JIT)
def schedule_credit(ev_credit, ev_credit_n, target, slot):
    if target == NONE:
        return  # local input lane: the node sees its lanes directly
    ev_credit[slot, ev_credit_n[slot]] = target
    ev_credit_n[slot] += 1


@njit(**KERNEL_JIT)
def schedule_flit(ev_flit, ev_flit_n, lane, pkt, code, slot):
    k = ev_flit_n[slot]
    ev_flit[slot, k, 0] = lane
    ev_flit[slot, k, 1] = pkt
    ev_flit[slot, k, 2] = code
    ev_flit_n[slot] = k + 1


@njit(**KERNEL_JIT)
def complete_phase(pkt_phase, pkt_dst, recv_need, recv_got, phase_need, phase_got, node_phase, cnt, pkt):
    """A packet's tail was delivered: count it for its phase and open the next phase when the
    receiving node (--sync local) or the whole network (--sync global) has all of this one."""
    f = pkt_phase[pkt]
    node = pkt_dst[pkt]
    recv_got[node, f] += 1
    last = recv_need.shape[1] - 1
    while node_phase[node] < last and recv_got[node, node_phase[node]] == recv_need[node, node_phase[node]]:
        node_phase[node] += 1
    phase_got[f] += 1
    while cnt[C_GLOBAL_PHASE] < last and phase_got[cnt[C_GLOBAL_PHASE]] == phase_need[cnt[C_GLOBAL_PHASE]]:
        cnt[C_GLOBAL_PHASE] += 1


@njit(**KERNEL_JIT)
def deliver(pkt_ejected, pkt_release, pkt_head_del, pkt_tail_del, ts_accepted, cnt,
            w, win_start, win_end, debug, pkt, code, when):
    """A flit reaches its destination node at cycle ``when`` (window ``w``); returns an error code.
    (Phase bookkeeping of a delivered tail is done by the caller with ``complete_phase``.)"""
    seq = code >> 1
    if debug and seq != pkt_ejected[pkt]:
        cnt[C_ERR_CYCLE] = when
        cnt[C_ERR_PKT] = pkt
        return ERR_ORDER
    pkt_ejected[pkt] += 1
    cnt[C_FLITS_OUT] += 1
    ts_accepted[w] += 1
    if when >= win_start and when < win_end:
        cnt[C_WIN_FLITS_OUT] += 1
    if seq == 0:
        pkt_head_del[pkt] = when
    if code & 1:
        pkt_tail_del[pkt] = when
        cnt[C_DELIVERED] += 1
        if when > cnt[C_LAST_DELIVERY]:
            cnt[C_LAST_DELIVERY] = when
        rel = pkt_release[pkt]
        if rel >= win_start and rel < win_end:
            cnt[C_WIN_OPEN] -= 1
    return ERR_OK


@njit(**KERNEL_JIT)
def connect(in_out, out_owner, conn_list, conn_n, conn_pos, lane, node, out):
    """Bind input ``lane`` to output lane/VC ``out`` and list it among the router's connections."""
    in_out[lane] = out
    out_owner[out] = lane
    k = conn_n[node]
    conn_list[node, k] = lane
    conn_pos[lane] = k
    conn_n[node] = k + 1


@njit(**KERNEL_JIT)
def release_connection(in_out, in_len, out_owner, node_waiting, conn_list, conn_n, conn_pos,
                       lane, node, out):
    """The tail left ``lane``: free the output lane/VC; a following head now waits for routing.
    The last connection of the router's list takes the freed position."""
    out_owner[out] = NONE
    in_out[lane] = NONE
    if in_len[lane] > 0:
        node_waiting[node] += 1
    k = conn_pos[lane]
    last = conn_n[node] - 1
    moved = conn_list[node, last]
    conn_list[node, k] = moved
    conn_pos[moved] = k
    conn_pos[lane] = NONE
    conn_n[node] = last


# -- stage 1: arrivals, stage 2: release --------------------------------------------------------


@njit(**KERNEL_JIT)
def arrivals(s, p, t, slot):
    """Stage 1: flits and credits whose delay ends at ``t`` (ring slot ``slot``)."""
    ev_flit, ev_flit_n, ev_credit, ev_credit_n = s.ev_flit, s.ev_flit_n, s.ev_credit, s.ev_credit_n
    in_pkt, in_seq, in_head, in_len = s.in_pkt, s.in_seq, s.in_head, s.in_len
    in_out, in_last, node_flits, node_waiting = s.in_out, s.in_last, s.node_flits, s.node_waiting
    out_credits, lane_node = s.out_credits, s.lane_node
    for i in range(ev_flit_n[slot]):
        lane = ev_flit[slot, i, 0]
        push_input(in_pkt, in_seq, in_head, in_len, in_out, in_last, node_flits, node_waiting,
                   lane, lane_node[lane], ev_flit[slot, i, 1], ev_flit[slot, i, 2], t)
    ev_flit_n[slot] = 0
    for i in range(ev_credit_n[slot]):
        out_credits[ev_credit[slot, i]] += 1
    ev_credit_n[slot] = 0


@njit(**KERNEL_JIT)
def release(s, p, t):
    """Stage 2: packets created at ``t`` join the tail of their source queue, in packet-id order."""
    cnt, pkt_release, pkt_src, pkt_next = s.cnt, s.pkt_release, s.pkt_src, s.pkt_next
    src_head, src_tail = s.src_head, s.src_tail
    k = cnt[C_NEXT_RELEASE]
    n = cnt[C_NPKT]
    while k < n and pkt_release[k] <= t:
        node = pkt_src[k]
        if src_tail[node] == NONE:
            src_head[node] = k
        else:
            pkt_next[src_tail[node]] = k
        src_tail[node] = k
        cnt[C_QUEUED] += 1
        if pkt_release[k] >= p.win_start and pkt_release[k] < p.win_end:
            cnt[C_WIN_OPEN] += 1
        k += 1
    cnt[C_NEXT_RELEASE] = k


# -- stages 3-5 of the lanes router ---------------------------------------------------------------


@njit(**KERNEL_JIT)
def eject_lanes(s, p, t, w):
    """Stage 3: each node takes up to E ready flits from its local output lanes, round-robin."""
    ol_pkt, ol_seq, ol_ready, ol_head = s.ol_pkt, s.ol_seq, s.ol_ready, s.ol_head
    ol_len, ol_last, port_queued, node_flits = s.ol_len, s.ol_last, s.port_queued, s.node_flits
    rr_eject, cnt = s.rr_eject, s.cnt
    pkt_ejected, pkt_release, pkt_head_del, pkt_tail_del = s.pkt_ejected, s.pkt_release, s.pkt_head_del, s.pkt_tail_del
    ts_accepted, pkt_phase, pkt_dst = s.ts_accepted, s.pkt_phase, s.pkt_dst
    recv_need, recv_got, phase_need, phase_got, node_phase = s.recv_need, s.recv_got, s.phase_need, s.phase_got, s.node_phase
    local, v, depth = p.n_ports - 1, p.n_vcs, p.out_buf
    for node in range(p.n_nodes):
        link = node * p.n_ports + local
        if port_queued[link] == 0:
            continue
        base = link * v
        for _ in range(p.eject_rate):
            vc = rr_eject[node]
            served = NONE
            for _j in range(v):
                out = base + vc
                if ol_len[out] > 0 and ol_ready[out, ol_head[out]] <= t:
                    served = vc
                    break
                vc += 1
                if vc == v:
                    vc = 0
            if served == NONE:
                break
            out = base + served
            pos = ol_head[out]
            ol_head[out] = 0 if pos + 1 == depth else pos + 1
            ol_len[out] -= 1
            ol_last[out] = t
            port_queued[link] -= 1
            node_flits[node] -= 1
            rr_eject[node] = 0 if served + 1 == v else served + 1
            pkt, code = ol_pkt[out, pos], ol_seq[out, pos]
            err = deliver(pkt_ejected, pkt_release, pkt_head_del, pkt_tail_del, ts_accepted, cnt,
                          w, p.win_start, p.win_end, p.debug, pkt, code, t)
            if err != ERR_OK:
                return err
            if code & 1 and p.sync != SYNC_NONE:
                complete_phase(pkt_phase, pkt_dst, recv_need, recv_got, phase_need, phase_got, node_phase, cnt, pkt)
    return ERR_OK


@njit(**KERNEL_JIT)
def link_traversal(s, p, t, w, arrival_slot):
    """Stage 4: every free link sends the front flit of one output lane (round-robin) with a credit."""
    ol_pkt, ol_seq, ol_ready, ol_head = s.ol_pkt, s.ol_seq, s.ol_ready, s.ol_head
    ol_len, ol_last, port_queued, node_flits = s.ol_len, s.ol_last, s.port_queued, s.node_flits
    out_credits, out_down, link_free, rr_link = s.out_credits, s.out_down, s.link_free, s.rr_link
    ev_flit, ev_flit_n, link_flits, pkt_hops = s.ev_flit, s.ev_flit_n, s.link_flits, s.pkt_hops
    ts_link, cnt = s.ts_link, s.cnt
    v, ports, depth = p.n_vcs, p.n_ports, p.out_buf
    for node in range(p.n_nodes):
        if node_flits[node] == 0:
            continue
        for port in range(ports - 1):
            link = node * ports + port
            if port_queued[link] == 0 or link_free[link] > t:
                continue
            vc = rr_link[link]
            for _j in range(v):
                out = link * v + vc
                if out_credits[out] > 0 and ol_len[out] > 0 and ol_ready[out, ol_head[out]] <= t:
                    pos = ol_head[out]
                    ol_head[out] = 0 if pos + 1 == depth else pos + 1
                    ol_len[out] -= 1
                    ol_last[out] = t
                    port_queued[link] -= 1
                    pkt, code = ol_pkt[out, pos], ol_seq[out, pos]
                    schedule_flit(ev_flit, ev_flit_n, out_down[out], pkt, code, arrival_slot)
                    out_credits[out] -= 1
                    link_free[link] = t + p.t_link
                    link_flits[link] += 1
                    ts_link[w] += 1
                    cnt[C_FLIT_HOPS] += 1
                    node_flits[node] -= 1
                    if code < 2:  # head
                        pkt_hops[pkt] += 1
                    rr_link[link] = 0 if vc + 1 == v else vc + 1
                    break
                vc += 1
                if vc == v:
                    vc = 0


@njit(**KERNEL_JIT)
def crossbar(s, p, t, credit_slot):
    """Stage 5: every usable connection moves its front flit into its output lane if there is room."""
    in_pkt, in_seq, in_head, in_len = s.in_pkt, s.in_seq, s.in_head, s.in_len
    in_out, in_ready, in_last, lane_up = s.in_out, s.in_ready, s.in_last, s.lane_up
    ol_pkt, ol_seq, ol_ready, ol_head = s.ol_pkt, s.ol_seq, s.ol_ready, s.ol_head
    ol_len, ol_last, port_queued, out_owner = s.ol_len, s.ol_last, s.port_queued, s.out_owner
    node_waiting, ev_credit, ev_credit_n = s.node_waiting, s.ev_credit, s.ev_credit_n
    conn_list, conn_n, conn_pos = s.conn_list, s.conn_n, s.conn_pos
    v, depth = p.n_vcs, p.out_buf
    # Connections of a router are independent (own input lane, own output lane), so the order
    # of the list does not matter; a released connection is replaced by the list's last one.
    for node in range(p.n_nodes):
        k = 0
        while k < conn_n[node]:
            lane = conn_list[node, k]
            out = in_out[lane]
            k += 1
            if in_len[lane] == 0 or in_ready[lane] > t or ol_len[out] >= depth:
                continue
            pkt, code = pop_input(in_pkt, in_seq, in_head, in_len, in_last, lane, t)
            pos = ol_head[out] + ol_len[out]
            if pos >= depth:
                pos -= depth
            ol_pkt[out, pos] = pkt
            ol_seq[out, pos] = code
            ol_ready[out, pos] = t + p.t_crossbar
            if ol_len[out] == 0:
                ol_last[out] = t
            ol_len[out] += 1
            port_queued[out // v] += 1
            in_ready[lane] = t + p.t_crossbar
            schedule_credit(ev_credit, ev_credit_n, lane_up[lane], credit_slot)
            if code & 1:
                release_connection(in_out, in_len, out_owner, node_waiting, conn_list, conn_n, conn_pos,
                                   lane, node, out)
                k -= 1  # the list's last connection moved into this position


# -- stages 3-5 of the iq router ----------------------------------------------------------------


@njit(**KERNEL_JIT)
def switch_iq(s, p, t, w, arrival_slot, credit_slot, eject_slot):
    """Separable input-first switch allocation and traversal (replaces stages 3-5 for ``iq``).
    Flits that crossed to a local port ``T_crossbar`` cycles ago are delivered first."""
    in_pkt, in_seq, in_head, in_len = s.in_pkt, s.in_seq, s.in_head, s.in_len
    in_out, in_ready, in_last, lane_up = s.in_out, s.in_ready, s.in_last, s.lane_up
    out_owner, out_credits, out_down, lane_port = s.out_owner, s.out_credits, s.out_down, s.lane_port
    node_flits, node_waiting, link_free, link_flits = s.node_flits, s.node_waiting, s.link_free, s.link_flits
    ev_flit, ev_flit_n, ev_credit, ev_credit_n = s.ev_flit, s.ev_flit_n, s.ev_credit, s.ev_credit_n
    rr_sa_in, rr_sa_out, req_vc, req_out = s.rr_sa_in, s.rr_sa_out, s.req_vc, s.req_out
    conn_list, conn_n, conn_pos = s.conn_list, s.conn_n, s.conn_pos
    pkt_ejected, pkt_release, pkt_head_del, pkt_tail_del = s.pkt_ejected, s.pkt_release, s.pkt_head_del, s.pkt_tail_del
    pkt_hops, ts_accepted, ts_link, cnt = s.pkt_hops, s.ts_accepted, s.ts_link, s.cnt
    pkt_phase, pkt_dst, node_phase = s.pkt_phase, s.pkt_dst, s.node_phase
    recv_need, recv_got, phase_need, phase_got = s.recv_need, s.recv_got, s.phase_need, s.phase_got
    ev_eject, ev_eject_n = s.ev_eject, s.ev_eject_n
    v, ports = p.n_vcs, p.n_ports
    local = ports - 1
    now = t % p.ring
    for i in range(ev_eject_n[now]):
        pkt, code = ev_eject[now, i, 0], ev_eject[now, i, 1]
        err = deliver(pkt_ejected, pkt_release, pkt_head_del, pkt_tail_del, ts_accepted, cnt, w,
                      p.win_start, p.win_end, p.debug, pkt, code, t)
        if err != ERR_OK:
            return err
        if code & 1 and p.sync != SYNC_NONE:
            complete_phase(pkt_phase, pkt_dst, recv_need, recv_got, phase_need, phase_got, node_phase, cnt, pkt)
    ev_eject_n[now] = 0
    for node in range(p.n_nodes):
        if node_flits[node] == 0:
            continue
        # (i) each input port picks one lane, round-robin
        for ip in range(ports):
            req_out[ip] = NONE
            base = (node * ports + ip) * v
            vc = rr_sa_in[node * ports + ip]
            for _j in range(v):
                lane = base + vc
                out = in_out[lane]
                if out != NONE and in_len[lane] > 0 and in_ready[lane] <= t:
                    op = lane_port[out]
                    if op == local or (out_credits[out] > 0 and link_free[node * ports + op] <= t):
                        req_vc[ip] = vc
                        req_out[ip] = out
                        break
                vc += 1
                if vc == v:
                    vc = 0
        # (ii) each output port grants requests round-robin over input ports
        for op in range(ports):
            capacity = p.eject_rate if op == local else 1
            ip = rr_sa_out[node * ports + op]
            for _j in range(ports):
                out = req_out[ip]
                if out != NONE and lane_port[out] == op:
                    lane = (node * ports + ip) * v + req_vc[ip]
                    pkt, code = pop_input(in_pkt, in_seq, in_head, in_len, in_last, lane, t)
                    schedule_credit(ev_credit, ev_credit_n, lane_up[lane], credit_slot)
                    node_flits[node] -= 1
                    if op == local:  # reaches the node after the crossbar delay (delivered then)
                        k = ev_eject_n[eject_slot]
                        ev_eject[eject_slot, k, 0] = pkt
                        ev_eject[eject_slot, k, 1] = code
                        ev_eject_n[eject_slot] = k + 1
                    else:
                        link = node * ports + op
                        schedule_flit(ev_flit, ev_flit_n, out_down[out], pkt, code, arrival_slot)
                        out_credits[out] -= 1
                        link_free[link] = t + p.t_link
                        link_flits[link] += 1
                        ts_link[w] += 1
                        cnt[C_FLIT_HOPS] += 1
                        if code < 2:
                            pkt_hops[pkt] += 1
                    if code & 1:
                        release_connection(in_out, in_len, out_owner, node_waiting, conn_list, conn_n,
                                           conn_pos, lane, node, out)
                    rr_sa_in[node * ports + ip] = 0 if req_vc[ip] + 1 == v else req_vc[ip] + 1
                    rr_sa_out[node * ports + op] = 0 if ip + 1 == ports else ip + 1
                    req_out[ip] = NONE
                    capacity -= 1
                    if capacity == 0:
                        break
                ip += 1
                if ip == ports:
                    ip = 0
    return ERR_OK


# -- stage 7: routing and output-VC allocation ---------------------------------------------------


@njit(**KERNEL_JIT)
def choose_output(out_owner, out_credits, ol_len, rows, n_rows, node, n_ports, n_vcs, out_buf,
                  lanes_router, vct, length, from_source, inject_mask):
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
                if out_owner[out] != NONE:
                    continue
                if lanes_router and ol_len[out] >= out_buf:
                    continue
                held = ol_len[out] if lanes_router else 0
                if vct and not to_local and out_credits[out] - held < length:
                    continue
                if to_local:
                    space = UNLIMITED_SPACE
                elif lanes_router:
                    space = out_credits[out] + out_buf - ol_len[out]
                else:
                    space = out_credits[out]
                if space > best_space:
                    best, best_space = out, space
        if best != NONE:
            return best
    return NONE


@njit(**KERNEL_JIT)
def routing(s, p, topo, t):
    """Stage 7: free routing units take waiting heads round-robin; the pointer passes each attempt."""
    in_pkt, in_head, in_len, in_out = s.in_pkt, s.in_head, s.in_len, s.in_out
    in_ready, out_owner, out_credits, ol_len = s.in_ready, s.out_owner, s.out_credits, s.ol_len
    pkt_src, pkt_dst, pkt_len, rows = s.pkt_src, s.pkt_dst, s.pkt_len, s.rows
    node_waiting, rr_route, route_free, cnt = s.node_waiting, s.rr_route, s.route_free, s.cnt
    conn_list, conn_n, conn_pos = s.conn_list, s.conn_n, s.conn_pos
    radix, wrap, coord, dim_port = topo.radix, topo.wrap, topo.coord, topo.dim_port
    ports, v = p.n_ports, p.n_vcs
    per_node = ports * v
    local = ports - 1
    local_base = local * v
    lanes_router = p.router == ROUTER_LANES
    for node in range(p.n_nodes):
        if node_waiting[node] == 0:
            continue
        li = rr_route[node]
        for _j in range(per_node):
            lane = node * per_node + li
            here = li
            li += 1
            if li == per_node:
                li = 0
            if in_out[lane] != NONE or in_len[lane] == 0:
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
            rr_route[node] = li
            pkt = in_pkt[lane, in_head[lane]]
            dst = pkt_dst[pkt]
            if dst == node:
                rows[0, 0] = local
                rows[0, 1] = 0
                rows[0, 2] = v - 1
                rows[0, 3] = 0
                n_rows = 1
            else:
                n_rows = next_hops(p.routing, radix, wrap, coord, dim_port, v, node, pkt_src[pkt], dst, rows)
            if n_rows == 0:
                cnt[C_ERR_CYCLE] = t
                cnt[C_ERR_LANE] = lane
                cnt[C_ERR_PKT] = pkt
                return ERR_NO_ROUTE
            out = choose_output(out_owner, out_credits, ol_len, rows, n_rows, node, ports, v, p.out_buf,
                                lanes_router, p.vct, pkt_len[pkt], here >= local_base, p.inject_mask)
            if out != NONE:
                connect(in_out, out_owner, conn_list, conn_n, conn_pos, lane, node, out)
                # usable after routing, and not before this lane's crossbar path is free again
                ready = t + p.t_routing
                if in_ready[lane] < ready:
                    in_ready[lane] = ready
                node_waiting[node] -= 1
    return ERR_OK


# -- stage 8: injection ----------------------------------------------------------------------------


@njit(**KERNEL_JIT)
def injection(s, p, t, w):
    """Stage 8: bind the queue's head packet to the lowest free local lane, then write one flit."""
    inj_pkt, inj_sent, src_head, src_tail = s.inj_pkt, s.inj_sent, s.src_head, s.src_tail
    node_bound, node_flits, node_waiting, rr_inject = s.node_bound, s.node_flits, s.node_waiting, s.rr_inject
    in_pkt, in_seq, in_head, in_len = s.in_pkt, s.in_seq, s.in_head, s.in_len
    in_out, in_last, pkt_next, pkt_len = s.in_out, s.in_last, s.pkt_next, s.pkt_len
    pkt_injected, ts_injected, cnt = s.pkt_injected, s.ts_injected, s.cnt
    pkt_phase, node_phase = s.pkt_phase, s.node_phase
    v = p.n_vcs
    local = p.n_ports - 1
    for node in range(p.n_nodes):
        head = src_head[node]
        if head == NONE and node_bound[node] == 0:
            continue
        if head != NONE and p.sync != SYNC_NONE:  # the queue's head waits for its phase to open
            allowed = node_phase[node] if p.sync == SYNC_LOCAL else cnt[C_GLOBAL_PHASE]
            if pkt_phase[head] > allowed:
                head = NONE
        if head != NONE:
            for vc in range(v):
                if inj_pkt[node, vc] == NONE:
                    inj_pkt[node, vc] = head
                    inj_sent[node, vc] = 0
                    node_bound[node] += 1
                    nxt = pkt_next[head]
                    src_head[node] = nxt
                    if nxt == NONE:
                        src_tail[node] = NONE
                    break
        base = (node * p.n_ports + local) * v
        vc = rr_inject[node]
        for _j in range(v):
            pkt = inj_pkt[node, vc]
            lane = base + vc
            if pkt != NONE and in_len[lane] < p.buf:
                seq = inj_sent[node, vc]
                length = pkt_len[pkt]
                push_input(in_pkt, in_seq, in_head, in_len, in_out, in_last, node_flits, node_waiting,
                           lane, node, pkt, flit_code(seq, length), t)
                if seq == 0:
                    pkt_injected[pkt] = t
                inj_sent[node, vc] = seq + 1
                if seq + 1 == length:
                    inj_pkt[node, vc] = NONE
                    node_bound[node] -= 1
                    cnt[C_QUEUED] -= 1
                cnt[C_FLITS_IN] += 1
                ts_injected[w] += 1
                rr_inject[node] = 0 if vc + 1 == v else vc + 1
                break
            vc += 1
            if vc == v:
                vc = 0
