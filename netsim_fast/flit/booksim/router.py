"""One cycle of one booksim router: BookSim2's IQ router internal step (docs/booksim-router.md 5.4).

``read_inputs`` is the input-queuing step of every router (flits and credits due this cycle);
``router_step`` runs the rest for one router, in BookSim2's order: routing, VC allocation and
switch allocation evaluate, crossbar evaluate, then the updates of the same stages, then the
write phase (one flit per output port onto its channel). Stage timing: an evaluate stamps every
waiting entry of its stage with ``t + delay - 1`` unless a batch is still in flight; an update
completes the entries due at ``t``. Entries queued by an update are first evaluated next cycle;
entries queued by input queuing are evaluated in the cycle they arrive. With one-cycle VC and
switch allocation (the only delays supported so far) both allocators see every waiting entry
every cycle, so the order of a stage queue only matters where it fixes the order of flits into
an output FIFO, which the crossbar ring keeps.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_INLINE, KERNEL_STAGE_JIT
from netsim_fast.flit.booksim.allocators.dispatch import add_request, allocate, clear_requests, request_masks
from netsim_fast.flit.booksim.ports import mark_port, next_marked_port, unmark_port
from netsim_fast.flit.booksim.queues import L_ROUTE, L_VA, set_queue, stage_lists
from netsim_fast.flit.booksim.routefns import route_typed
from netsim_fast.flit.booksim.state import (
    INT_MAX, INT_MIN, NONE, PRI_LOCAL_AGE, Q_HOLD, Q_ROUTE, Q_SA, Q_VA, VC_ACTIVE, VC_IDLE, VC_ROUTING,
    VC_VA,
)
from netsim_fast.flit.booksim.switch import (
    carries_priority, hold_evaluate, hold_update, sa_evaluate, sa_update, take_lookahead, vc_pri,
)
from netsim_fast.flit.booksim.state import ERR_ABORT
from netsim_fast.flit.flits import later_slot
from netsim_fast.flit.state import C_ERR_CYCLE, C_ERR_LANE, C_FLIT_HOPS, ERR_OK, ERR_OVERFLOW


@njit(**KERNEL_STAGE_JIT)
def read_inputs(s, b, p, bp, topo, t, slot):
    """Input queuing of every router: flits received this cycle join their VC; a head reaching
    an idle VC starts routing, a flit reaching the front of an empty active VC requests the
    switch; credits due this cycle free downstream slots (and, with wait_for_tail_credit, the VC)."""
    inl, in_buf, ph_buf, ivc, ovc, nodes, cnt = s.inl, s.in_buf, b.ph_buf, b.ivc, b.ovc, s.node, s.cnt
    for i in range(b.ev_flit_n[slot]):
        lane, flit, ph, pri = b.ev_flit[slot, i, 0], b.ev_flit[slot, i, 1], b.ev_flit[slot, i, 2], b.ev_flit[slot, i, 3]
        n = inl[lane].len
        if n >= p.buf:
            cnt[C_ERR_CYCLE] = t
            cnt[C_ERR_LANE] = lane
            return ERR_OVERFLOW
        pos = inl[lane].head + n
        if pos >= p.buf:
            pos -= p.buf
        in_buf[lane, pos] = flit
        ph_buf[lane, pos] = ph
        # a flit's priority: set at the source (age, network_age), on entering a VC (local_age:
        # the cycle; hop_count: the routers it has crossed, which the carried value counts)
        if carries_priority(bp):
            b.pri_buf[lane, pos] = INT_MAX - t if bp.priority == PRI_LOCAL_AGE else pri
        inl[lane].len = n + 1
        nodes[inl[lane].node].flits += 1
        if n == 0:
            inl[lane].last = t
        if ivc[lane].state == VC_IDLE:
            if bp.routing_delay == 0:  # lookahead: the route came with the head; allocate now
                take_lookahead(s, b, p, bp, topo, lane, ph)
            else:
                ivc[lane].state = VC_ROUTING
                set_queue(b, lane, Q_ROUTE)
                ivc[lane].stamp = NONE
        elif ivc[lane].state == VC_ACTIVE and n == 0:
            ivc[lane].sa_grant = 0
            ivc[lane].sa_stamp = NONE
            if ivc[lane].queue == Q_HOLD:
                ivc[lane].stamp = NONE  # its connection is still held
            else:
                set_queue(b, lane, Q_SA)
    b.ev_flit_n[slot] = 0
    for i in range(b.ev_cred_n[slot]):
        o = b.ev_cred[slot, i]
        ovc[o].occ -= 1
        if bp.wait_tail and ovc[o].occ == 0 and ovc[o].tail_sent:
            ovc[o].owner = NONE
    b.ev_cred_n[slot] = 0
    return ERR_OK


@njit(**KERNEL_INLINE)
def _va_evaluate(s, b, p, bp, t, base, pv, node, n_va):
    """A new VC-allocation batch when none is in flight: requests of every waiting VC, for each
    available VC of its route's range (not full, with vc_busy_when_full), input-side priority
    the route's (0), lowered below every other with vc_prioritize_empty when the VC holds flits
    downstream, output-side priority the VC's; one matching of input VCs to output VCs, due
    ``vc_alloc_delay - 1`` cycles later. When a multi-cycle batch is due, a grant whose output
    VC was taken meanwhile is void, and a VC that began waiting behind the batch is where
    BookSim2 aborts (5.4): ERR_ABORT."""
    ivc, ovc = b.ivc, b.ovc
    v = p.n_vcs
    if b.node[node].va_due != NONE:
        if b.node[node].va_due == t:
            for j in range(n_va):
                lane = base + b.act[L_VA, j]
                if ivc[lane].va_stamp == NONE:
                    return ERR_ABORT
                g = ivc[lane].va_grant
                if g != NONE and (ovc[g].owner != NONE or (bp.busy_full and ovc[g].occ >= p.buf)):
                    ivc[lane].va_grant = NONE
        return ERR_OK
    due = t + bp.va_delay - 1
    ins, outs = b.req_in, b.req_out
    n_ins, n_outs = 0, 0  # requesting VCs (ascending, as act) and requested ones
    masks = request_masks(bp.va_kind, pv, pv)
    for j in range(n_va):
        k = b.act[L_VA, j]
        lane = base + k
        ivc[lane].va_grant = NONE
        ivc[lane].va_stamp = due
        b.node[node].va_due = due
        first = ivc[lane].port * v
        second = NONE if ivc[lane].vc2 == NONE else ivc[lane].port2 * v + ivc[lane].vc2  # priority 0, in order
        w, hi = ivc[lane].lo, ivc[lane].hi
        while w <= hi or second != NONE:
            if second != NONE and (w > hi or second < first + w):
                o, pri, second = second, 0, NONE
            else:
                o = first + w
                pri = 1 if (ivc[lane].esc > 0 and w >= ivc[lane].lo + ivc[lane].esc) or ivc[lane].vc2 != NONE else 0
                w += 1
            if ovc[base + o].owner != NONE or (bp.busy_full and ovc[base + o].occ >= p.buf):
                continue
            in_pri = pri + (INT_MIN if bp.prio_empty and ovc[base + o].occ != 0 else 0)
            n_ins, n_outs = add_request(b, masks, k, o, in_pri, vc_pri(s, b, p, bp, lane), ins, n_ins, outs, n_outs)
    if n_ins == 0:
        return ERR_OK
    allocate(bp.va_kind, bp.va_iters, bp.va_arb, pv, pv, ins, n_ins, outs, n_outs, b, b.va_gptr, b.va_aptr, b.va_sc,
             b.va_min, b.va_mout, node, masks)
    for j in range(n_ins):  # only requesting VCs can be matched
        k = ins[j]
        if b.match[k] != NONE:
            ivc[base + k].va_grant = base + b.match[k]
            ivc[base + k].va_step = b.step[0]
    clear_requests(b, masks, ins, n_ins, outs, n_outs)
    return ERR_OK


@njit(**KERNEL_INLINE)
def _route_update(s, b, p, bp, topo, t, base, node, n_rt):
    """The routing batch due now: each head gets its route and waits for an output VC."""
    ivc, inl, in_buf, pkts, out = b.ivc, s.inl, s.in_buf, s.pkt, b.route_out
    for j in range(n_rt):
        k = b.act[L_ROUTE, j]
        lane = base + k
        if ivc[lane].stamp != t:
            continue
        pos = inl[lane].head
        pid = in_buf[lane, pos] >> 32
        kind = s.kind[pid] if p.closed_loop else 0
        route_typed(bp.routing, topo.radix, topo.coord, topo.dim_port, topo.port_dim, bp.torus, b.ovc, base,
                    node, pkts[pid].src, pkts[pid].dst, b.k_port[k], b.k_vc[k], b.ph_buf[lane, pos],
                    p.n_ports, p.conc, p.n_vcs, b.rng, out, bp.shape_a, bp.shape_b, b.table,
                    s.rw_vc[kind, 0], s.rw_vc[kind, 1])
        ivc[lane].port, ivc[lane].lo, ivc[lane].hi, ivc[lane].ph = out[0], out[1], out[2], out[3]
        ivc[lane].esc, ivc[lane].port2, ivc[lane].vc2 = out[4], out[5], out[6]
        ivc[lane].state = VC_VA
        set_queue(b, lane, Q_VA)
        ivc[lane].stamp = NONE
        ivc[lane].va_grant = NONE
        ivc[lane].va_stamp = NONE
        ivc[lane].sa_stamp = NONE


@njit(**KERNEL_INLINE)
def _front_after_pop(front, cap, left):
    """A ring's front position once its front entry (at ``front``, of ``cap``) is taken and
    ``left`` entries remain: an emptied ring starts again at its first entry, so a queue that
    rarely holds more than a flit or two keeps reusing one cache line instead of walking its
    whole ring (the crossbar queue, output FIFOs and credit FIFOs)."""
    return 0 if left == 0 or front + 1 == cap else front + 1


@njit(**KERNEL_INLINE)
def _internal_step(s, b, p, bp, topo, t, node):
    """Stages 2-12 of docs/booksim-router.md 5.4 at ``node`` (input queuing, stage 1, is
    ``read_inputs``: a cycle's flits and credits are all in before its first internal step)."""
    ivc, ovc, inl, bnode, xb = b.ivc, b.ovc, s.inl, b.node, b.xb
    v, ports = p.n_vcs, p.n_ports
    pv = ports * v
    base = node * pv
    # The VCs of each stage's queue now, ascending (queues.py): each stage visits only its own
    act = b.act
    n_rt, n_va, n_sw, n_hold = stage_lists(b, base, pv, bp.spec)
    # evaluate: routing (a new batch only when none is in flight), VC and switch allocation
    if bnode[node].rt_due == NONE:
        due = t + bp.routing_delay - 1
        for j in range(n_rt):
            lane = base + act[L_ROUTE, j]
            if ivc[lane].stamp == NONE:
                ivc[lane].stamp = due
                bnode[node].rt_due = due
    b.step[0] += 1  # this internal step: a speculative switch grant needs a VC grant of the same step
    err = ERR_OK
    if n_va > 0:  # with no VC waiting, VC allocation has nothing to start, check or void
        err = _va_evaluate(s, b, p, bp, t, base, pv, node, n_va)
    if bp.hold:
        hold_evaluate(s, b, p, base, n_hold)
    if err == ERR_OK and n_sw > 0:  # likewise for the switch
        err = sa_evaluate(s, b, p, bp, t, base, pv, node, n_sw)
    if err != ERR_OK:
        s.cnt[C_ERR_CYCLE] = t
        s.cnt[C_ERR_LANE] = node
        return err
    n = bnode[node].xb_len
    h = bnode[node].xb_head
    if n > 0 and xb[h, node, 3] == NONE:  # no crossbar batch in flight: every waiting flit starts
        for j in range(n):
            q = h + j
            if q >= bp.xb_cap:
                q -= bp.xb_cap
            xb[q, node, 3] = t + bp.xbar_delay - 1
    # update
    if bnode[node].rt_due == t:
        _route_update(s, b, p, bp, topo, t, base, node, n_rt)
        bnode[node].rt_due = NONE
    if bnode[node].va_due == t:
        bnode[node].va_due = NONE
        for j in range(n_va):  # those that joined during this step (from routing) are not due
            lane = base + act[L_VA, j]
            if ivc[lane].queue != Q_VA or ivc[lane].va_stamp != t:
                continue
            ivc[lane].va_stamp = NONE  # without a grant: waiting again
            if ivc[lane].va_grant != NONE:
                o = ivc[lane].va_grant
                ovc[o].owner = lane
                ovc[o].tail_sent = 0
                inl[lane].out = o
                ivc[lane].port = b.k_port[o - base]  # the granted element's port (torus min_adapt has two)
                ivc[lane].va_grant = NONE
                ivc[lane].state = VC_ACTIVE
                set_queue(b, lane, Q_SA)  # speculating, it keeps its place (and stamp) in the switch queue
                if not bp.spec:
                    ivc[lane].sa_stamp = NONE
    err = ERR_OK
    if bp.hold:
        err = hold_update(s, b, p, bp, topo, t, base, node, n_hold)
    if err == ERR_OK:
        err = sa_update(s, b, p, bp, topo, t, base, node, n_sw)
    if err != ERR_OK:
        s.cnt[C_ERR_CYCLE] = t
        return err
    while bnode[node].xb_len > 0 and xb[bnode[node].xb_head, node, 3] == t:
        h = bnode[node].xb_head
        flit, o, ph, pri = xb[h, node, 0], xb[h, node, 1], xb[h, node, 2], xb[h, node, 4]
        bnode[node].xb_len -= 1
        bnode[node].xb_head = _front_after_pop(h, bp.xb_cap, bnode[node].xb_len)
        f = node * ports + b.k_port[o - base]  # the output VC's port (a small table, not its 48-byte record)
        if b.of_len[f] >= bp.of_cap:
            s.cnt[C_ERR_CYCLE] = t
            return ERR_OVERFLOW
        q = b.of_head[f] + b.of_len[f]
        if q >= bp.of_cap:
            q -= bp.of_cap
        b.of[q, f, 0], b.of[q, f, 1], b.of[q, f, 2], b.of[q, f, 3] = flit, o, ph, pri
        b.of_len[f] += 1
        bnode[node].of_ports = mark_port(bnode[node].of_ports, f - node * ports)
    # stage 12: this step's credits, one message per input port, join the port's credit FIFO
    marked = bnode[node].cmsg_ports
    bnode[node].cmsg_ports = 0
    port = NONE
    while True:
        port = next_marked_port(marked, port, ports)
        if port == NONE:
            break
        msg = b.cmsg[node, port]
        if msg != 0:
            c = node * ports + port
            if b.cq_len[c] >= b.cq.shape[0]:
                s.cnt[C_ERR_CYCLE] = t
                return ERR_OVERFLOW
            q = b.cq_head[c] + b.cq_len[c]
            if q >= b.cq.shape[0]:
                q -= b.cq.shape[0]
            b.cq[q, c] = msg
            b.cq_len[c] += 1
            bnode[node].cq_ports = mark_port(bnode[node].cq_ports, port)
            bnode[node].credits_queued += 1
            b.cmsg[node, port] = 0
    return ERR_OK


@njit(**KERNEL_INLINE)
def router_step(s, b, p, bp, topo, t, w, slot, node, steps):
    """``steps`` internal steps of the router (internal_speedup), then its write phase."""
    for _ in range(steps):
        err = _internal_step(s, b, p, bp, topo, t, node)
        if err != ERR_OK:
            return err
    _write_outputs(s, b, p, bp, t, w, slot, node)
    return ERR_OK


@njit(**KERNEL_INLINE)
def _write_outputs(s, b, p, bp, t, w, now, node):
    """Write phase: each output port sends its FIFO's front flit. A network channel delivers it
    into the downstream VC ``d + 1`` cycles later; the ejection channel hands it to the terminal
    two cycles later, whose credit is back and usable ``2 + Dc`` cycles after that. ``now``: this
    cycle's ring slot (every delay is shorter than the ring)."""
    ports, v, conc = p.n_ports, p.n_vcs, p.conc
    first_local = ports - conc  # local port first_local + c: terminal port_term[node * conc + c]
    bnode = b.node
    marked = bnode[node].cq_ports
    port = NONE
    while True:  # one credit message per input port: every VC it lists
        port = next_marked_port(marked, port, ports)
        if port == NONE:
            break
        c = node * ports + port
        if b.cq_len[c] == 0:
            continue
        msg = b.cq[b.cq_head[c], c]
        b.cq_len[c] -= 1
        b.cq_head[c] = _front_after_pop(b.cq_head[c], b.cq.shape[0], b.cq_len[c])
        if b.cq_len[c] == 0:
            bnode[node].cq_ports = unmark_port(bnode[node].cq_ports, port)
        bnode[node].credits_queued -= 1
        while msg != 0:  # its VCs, ascending
            vc = lowest_set_bit(msg)
            msg &= msg - 1
            if port >= first_local:  # the terminal applies it two cycles later
                slot = later_slot(now, 2, bp.ring)
                b.ev_tcred[slot, b.ev_tcred_n[slot]] = b.port_term[node * conc + port - first_local] * v + vc
                b.ev_tcred_n[slot] += 1
            else:
                up = b.up[c * v + vc]  # the credit takes its channel's latency back
                slot = later_slot(now, b.up_lat[c] + 1 + bp.credit_delay, bp.ring)
                b.ev_cred[slot, b.ev_cred_n[slot]] = up
                b.ev_cred_n[slot] += 1
    marked = bnode[node].of_ports
    port = NONE
    while True:  # each output port's FIFO sends its front flit
        port = next_marked_port(marked, port, ports)
        if port == NONE:
            break
        f = node * ports + port
        if b.of_len[f] == 0:
            continue
        h = b.of_head[f]
        flit, o, ph, pri = b.of[h, f, 0], b.of[h, f, 1], b.of[h, f, 2], b.of[h, f, 3]
        b.of_len[f] -= 1
        b.of_head[f] = _front_after_pop(h, bp.of_cap, b.of_len[f])
        if b.of_len[f] == 0:
            bnode[node].of_ports = unmark_port(bnode[node].of_ports, port)
        s.node[node].flits -= 1
        if port >= first_local:
            slot = later_slot(now, 2, bp.ring)
            b.ev_del[slot, b.ev_del_n[slot]] = flit
            b.ev_del_n[slot] += 1
            slot = later_slot(now, 4 + bp.credit_delay, bp.ring)
            b.ev_cred[slot, b.ev_cred_n[slot]] = o
            b.ev_cred_n[slot] += 1
        else:
            slot = later_slot(now, b.lat[f] + 1, bp.ring)
            k = b.ev_flit_n[slot]
            b.ev_flit[slot, k, 0], b.ev_flit[slot, k, 1] = b.down[o], flit
            b.ev_flit[slot, k, 2], b.ev_flit[slot, k, 3] = ph, pri
            b.ev_flit_n[slot] = k + 1
            s.port[f].link_flits += 1
            s.ts_link[w] += 1
            s.cnt[C_FLIT_HOPS] += 1
