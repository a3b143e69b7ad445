"""The switch stage of the booksim router: switch allocation and the held switch
(docs/booksim-router.md 5.8, 5.9).

- ``sa_evaluate``: one request per (input port, output port), from the active VCs whose
  output VC has room (and output FIFO is below ``output_buffer_size``) and, speculating, from
  the VCs still in VC allocation at a priority below all others; the chosen allocator matches
  input ports to output ports; a held connection's input and output take no part;
- ``hold_evaluate``: with ``hold_switch_for_packet``, every VC holding a connection keeps it
  while its output VC has room;
- ``hold_update`` and ``sa_update``: the VCs that won (or kept their connection) move their
  front flit into the crossbar (``_send_front``: its credit joins the port's credit message, a head's
  lookahead route is computed for the next router) and pass to their next stage: the next
  flit of the packet to the switch again (or, with ``hold_switch_for_packet``, through the held
  connection), the next packet's head to routing or, lookahead, to VC allocation.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_INLINE
from netsim_fast.flit.booksim.allocators.dispatch import add_request, allocate, clear_requests, request_masks
from netsim_fast.flit.booksim.routefns import R_MIN_ADAPT, route_typed
from netsim_fast.flit.booksim.ports import mark_port
from netsim_fast.flit.booksim.queues import L_HOLD, L_SW, set_queue
from netsim_fast.flit.booksim.routing import dim_order, pack_route, unpack_route
from netsim_fast.flit.booksim.state import (
    ERR_ABORT, INT_MIN, NONE, PRI_HOP_COUNT, PRI_NONE, PRI_QUEUE_LENGTH, Q_HOLD, Q_NONE, Q_ROUTE, Q_SA, Q_VA, VC_ACTIVE,
    VC_IDLE, VC_ROUTING, VC_VA,
)
from netsim_fast.flit.state import ERR_OK, ERR_OVERFLOW


@njit(**KERNEL_INLINE)
def carries_priority(bp):
    """Whether a flit carries a priority from VC to VC (``pri_buf``): not with ``none`` or
    ``queue_length``, under which every flit's is 0 (the source's, never changed), so its
    buffer is neither written nor read."""
    return bp.priority != PRI_NONE and bp.priority != PRI_QUEUE_LENGTH


@njit(**KERNEL_INLINE)
def vc_pri(s, b, p, bp, lane):
    """A VC's priority (5.10): 0, its FIFO length (queue_length) or its front flit's."""
    if bp.priority == PRI_NONE:
        return 0
    if bp.priority == PRI_QUEUE_LENGTH:
        return s.inl[lane].len
    return b.pri_buf[lane, s.inl[lane].head]


@njit(**KERNEL_INLINE)
def take_lookahead(s, b, p, bp, topo, lane, info):
    """routing_delay 0: the head's route, computed one router ahead, is taken as it is and the
    VC waits for an output VC (and, speculating, for the switch). With noq (5.11) the route at
    the next router is computed now too: the output VCs requested here are narrowed to the
    slice of that route's range that belongs to the next router's output port, and that port
    and slice become the head's route there."""
    out = b.route_out
    unpack_route(info, out)
    ivc = b.ivc
    ivc[lane].port, ivc[lane].lo, ivc[lane].hi, ivc[lane].ph = out[0], out[1], out[2], out[3]
    ivc[lane].esc, ivc[lane].port2, ivc[lane].vc2 = out[4], NONE, NONE
    if bp.torus == 1 and bp.routing == R_MIN_ADAPT and out[3] >> 8 != 0:  # its second element
        ivc[lane].port2, ivc[lane].vc2 = ((out[3] >> 8) & 0xFF) - 1, (out[3] >> 16) - 1
        ivc[lane].ph = out[3] & 0xFF
    ivc[lane].noq = 0
    node = s.inl[lane].node
    if bp.noq and out[0] != p.n_ports - 1:
        nxt, nin = topo.nbr[node, out[0]], topo.nbr_in_port[node, out[0]]
        dst = s.pkt[s.in_buf[lane, s.inl[lane].head] >> 32].dst
        dim_order(topo.radix, topo.coord, topo.dim_port, topo.port_dim, bp.torus, nxt, dst, nin, out[3], p.n_ports,
                  p.n_vcs, b.rng, out)
        count = (out[2] - out[1] + 1) // p.n_ports
        out[1], out[2] = out[1] + out[0] * count, out[1] + (out[0] + 1) * count - 1
        ivc[lane].lo, ivc[lane].hi = out[1], out[2]
        ivc[lane].noq = pack_route(out)
    ivc[lane].state = VC_VA
    set_queue(b, lane, Q_VA)
    ivc[lane].va_grant = NONE
    ivc[lane].va_stamp = NONE
    ivc[lane].sa_stamp = NONE


@njit(**KERNEL_INLINE)
def sa_evaluate(s, b, p, bp, t, base, pv, node, n_sw):
    """A new switch-allocation batch when none is in flight (due ``sw_alloc_delay - 1`` cycles
    later): one request per (crossbar input, crossbar output): of the VCs that may request,
    the highest priority, then the one nearest after the crossbar input's round-robin offset;
    one matching of crossbar inputs to outputs. VC ``vc`` of input port ``i`` uses crossbar
    input ``i * IS + vc % IS``; input ``i`` reaches output ``o`` through crossbar output
    ``o * OS + i % OS`` (IS, OS: input and output speedup). Grants due now are re-checked
    (``_recheck``); a VC waiting behind a multi-cycle batch due now is where BookSim2 aborts."""
    ivc, ovc, inl, sa_vc = b.ivc, b.ovc, s.inl, b.sa_vc
    sa_pri = b.sa_pri
    v, ports, ins, outs = p.n_vcs, p.n_ports, bp.in_speedup, bp.out_speedup
    n_xi, n_xo = ports * ins, ports * outs
    if b.node[node].sa_due != NONE:  # a batch in flight: nothing new starts
        if b.node[node].sa_due == t:
            for j in range(n_sw):
                if ivc[base + b.act[L_SW, j]].sa_stamp == NONE:
                    return ERR_ABORT
            _recheck(s, b, p, t, base, n_sw)
        return ERR_OK
    due = t + bp.sa_delay - 1
    pairs, n_pairs = b.sa_pairs, 0  # the (crossbar input, output) pairs requested, in the order first seen
    for j in range(n_sw):
        k = b.act[L_SW, j]
        lane = base + k
        q = ivc[lane].queue
        ivc[lane].sa_grant = 0
        ivc[lane].sa_spec = 0
        ivc[lane].sa_stamp = due
        b.node[node].sa_due = due
        o = ivc[lane].port
        if bp.out_buf >= 0 and b.of_len[node * ports + o] >= bp.out_buf:
            continue  # the output FIFO is at its bound: no request
        pri = vc_pri(s, b, p, bp, lane)
        if q == Q_SA:
            if ovc[inl[lane].out].occ >= p.buf:
                continue  # the output VC is full: no request
        else:  # speculative: only if some VC of the route is free and has a credit
            ok = False
            for w in range(ivc[lane].lo, ivc[lane].hi + 1):
                x = base + o * v + w
                if ovc[x].owner == NONE and ovc[x].occ < p.buf:
                    ok = True
                    break
            if not ok:
                continue
            pri += INT_MIN
        i, vc = b.k_port[k], b.k_vc[k]
        xi, xo = b.k_xi[k], o * outs + b.port_os[i]
        if b.hold_in[node, xi] != NONE or b.hold_out[node, xo] != NONE:
            continue  # a held connection owns this crossbar input or output
        off = b.sa_off[node, xi]
        old = sa_vc[xi, xo]
        if old == NONE:
            pairs[n_pairs, 0], pairs[n_pairs, 1] = xi, xo
            n_pairs += 1
        if old == NONE or pri > sa_pri[xi, xo] or (pri == sa_pri[xi, xo] and _after(vc, off, v) < _after(old, off, v)):
            sa_vc[xi, xo] = vc
            sa_pri[xi, xo] = pri
    if n_pairs == 0:
        return ERR_OK
    # the request lists, each ascending as the allocators want them
    xins, xouts = b.req_in, b.req_out
    n_xins, n_xouts = 0, 0
    masks = request_masks(bp.sa_kind, n_xi, n_xo)
    for j in range(n_pairs):
        xi, xo = pairs[j, 0], pairs[j, 1]
        n_xins, n_xouts = add_request(b, masks, xi, xo, sa_pri[xi, xo], sa_pri[xi, xo], xins, n_xins, xouts, n_xouts)
    allocate(bp.sa_kind, bp.sa_iters, bp.sa_arb, n_xi, n_xo, xins, n_xins, xouts, n_xouts, b, b.sa_gptr, b.sa_aptr,
             b.sa_sc, b.sa_min, b.sa_mout, node, masks)
    for j in range(n_xins):
        xi = xins[j]
        xo = b.match[xi]
        if xo != NONE:
            vc = sa_vc[xi, xo]
            lane = base + b.xi_port[xi] * v + vc
            ivc[lane].sa_grant = 1
            ivc[lane].sa_spec = int(ivc[lane].queue == Q_VA)
            b.sa_off[node, xi] = vc + ins - v if vc + ins >= v else vc + ins  # (vc + IS) % V, IS <= V
    clear_requests(b, masks, xins, n_xins, xouts, n_xouts)
    for j in range(n_pairs):
        sa_vc[pairs[j, 0], pairs[j, 1]] = NONE
    if due == t:
        _recheck(s, b, p, t, base, n_sw)
    return ERR_OK


@njit(**KERNEL_INLINE)
def _after(x, ptr, size):
    """How far ``x`` lies at or after the round-robin pointer ``ptr``, both in ``0 .. size - 1``
    (``(x - ptr) mod size``, without a division)."""
    d = x - ptr
    return d + size if d < 0 else d


@njit(**KERNEL_INLINE)
def _recheck(s, b, p, t, base, n_sw):
    """Grants due now (5.9): a speculative grant stands only if this step's VC allocation
    granted the VC an output VC with room; an active VC's grant only if its output VC has room."""
    ivc, ovc = b.ivc, b.ovc
    for j in range(n_sw):
        lane = base + b.act[L_SW, j]
        if ivc[lane].sa_grant == 0 or ivc[lane].sa_stamp != t:
            continue
        if ivc[lane].state == VC_VA:
            g = ivc[lane].va_grant
            if g == NONE or ivc[lane].va_step != b.step[0] or ovc[g].occ >= p.buf:
                ivc[lane].sa_grant = 0
        elif ovc[s.inl[lane].out].occ >= p.buf:
            ivc[lane].sa_grant = 0


@njit(**KERNEL_INLINE)
def _send_front(s, b, p, bp, topo, t, lane, k, node):
    """The front flit of VC ``lane`` (index ``k`` in its router) leaves for the crossbar; returns
    the flit, or -1 if the crossbar queue is full (an engine error)."""
    ivc, ovc, inl, in_buf, pkts, bnode, xb = b.ivc, b.ovc, s.inl, s.in_buf, s.pkt, b.node, b.xb
    v, first_local = p.n_vcs, p.n_ports - p.conc
    pos = inl[lane].head
    pri = b.pri_buf[lane, pos] + (1 if bp.priority == PRI_HOP_COUNT else 0) if carries_priority(bp) else 0
    flit = in_buf[lane, pos]
    inl[lane].head = 0 if pos + 1 == p.buf else pos + 1
    inl[lane].len -= 1
    inl[lane].last = t
    o = inl[lane].out
    ovc[o].occ += 1
    if (flit & 0xFFFFFFFF) < 2 and ivc[lane].port < first_local:  # a link, not a terminal
        pkts[flit >> 32].hops += 1
    if (flit & 1) == 1:
        ovc[o].tail_sent = 1
        if not bp.wait_tail:
            ovc[o].owner = NONE
    if bnode[node].xb_len >= bp.xb_cap:
        return -1
    q = bnode[node].xb_head + bnode[node].xb_len
    if q >= bp.xb_cap:
        q -= bp.xb_cap
    info = ivc[lane].ph
    if bp.routing_delay == 0 and (flit & 0xFFFFFFFF) < 2:  # the head's route at the next router
        info = ivc[lane].noq  # noq: computed with the slice when the head began VC allocation
        port = ivc[lane].port
        if port < first_local and not bp.noq:
            nxt, nin = topo.nbr[node, port], topo.nbr_in_port[node, port]
            pk = pkts[flit >> 32]
            kind = s.kind[flit >> 32] if p.closed_loop else 0
            route_typed(bp.routing, topo.radix, topo.coord, topo.dim_port, topo.port_dim, bp.torus, b.ovc,
                        nxt * p.n_ports * v, nxt, pk.src, pk.dst, nin, o % v, ivc[lane].ph, p.n_ports, p.conc, v,
                        b.rng, b.route_out, bp.shape_a, bp.shape_b, b.table,
                        s.rw_vc[kind, 0], s.rw_vc[kind, 1])
            info = pack_route(b.route_out)
    xb[q, node, 0], xb[q, node, 1], xb[q, node, 2], xb[q, node, 3], xb[q, node, 4] = flit, o, info, NONE, pri
    bnode[node].xb_len += 1
    b.cmsg[node, b.k_port[k]] |= 1 << b.k_vc[k]  # the credit leaves with this step's message for the port
    bnode[node].cmsg_ports = mark_port(bnode[node].cmsg_ports, b.k_port[k])
    return flit


@njit(**KERNEL_INLINE)
def _next_packet(s, b, p, bp, topo, lane):
    """The tail left and the VC holds the next packet's head: routed (or, lookahead,
    allocated) from the next cycle on."""
    s.inl[lane].out = NONE
    if bp.routing_delay == 0:
        take_lookahead(s, b, p, bp, topo, lane, b.ph_buf[lane, s.inl[lane].head])
    else:
        b.ivc[lane].state = VC_ROUTING
        set_queue(b, lane, Q_ROUTE)
        b.ivc[lane].stamp = NONE


@njit(**KERNEL_INLINE)
def _drop_hold(b, node, k):
    """Free the held connection of the crossbar input of VC index ``k``."""
    xi = b.k_xi[k]
    xo = b.hold_in[node, xi]
    if xo != NONE:
        b.hold_out[node, xo] = NONE
        b.hold_in[node, xi] = NONE


@njit(**KERNEL_INLINE)
def sa_update(s, b, p, bp, topo, t, base, node, n_sw):
    """Granted VCs send their front flit into the crossbar and pass to their next stage."""
    ivc, inl = b.ivc, s.inl
    if b.node[node].sa_due != t:
        return ERR_OK
    b.node[node].sa_due = NONE
    for j in range(n_sw):  # those that joined during this step (from VC allocation, a held switch) are not due
        k = b.act[L_SW, j]
        lane = base + k
        q = ivc[lane].queue
        if not (q == Q_SA or (bp.spec and q == Q_VA)) or ivc[lane].sa_stamp != t:
            continue
        ivc[lane].sa_stamp = NONE  # without a (surviving) grant: waiting again
        if ivc[lane].sa_grant == 0:
            continue
        ivc[lane].sa_grant = 0
        ivc[lane].sa_spec = 0
        if ivc[lane].state != VC_ACTIVE:
            return ERR_ABORT  # a switch grant for a VC without an output VC: BookSim2 asserts here
        flit = _send_front(s, b, p, bp, topo, t, lane, k, node)
        if flit < 0:
            return ERR_OVERFLOW
        tail = (flit & 1) == 1
        if inl[lane].len == 0:
            set_queue(b, lane, Q_NONE)
            if tail:
                ivc[lane].state = VC_IDLE
                inl[lane].out = NONE
        elif tail:
            _next_packet(s, b, p, bp, topo, lane)
        elif bp.hold:  # the rest of the packet keeps this crossbar connection
            xi, xo = b.k_xi[k], ivc[lane].port * bp.out_speedup + b.port_os[b.k_port[k]]
            b.hold_in[node, xi] = xo
            b.hold_out[node, xo] = xi
            set_queue(b, lane, Q_HOLD)
            ivc[lane].stamp = NONE
    return ERR_OK


@njit(**KERNEL_INLINE)
def hold_evaluate(s, b, p, base, n_hold):
    """A held connection is kept this cycle while its output VC has room."""
    for j in range(n_hold):
        lane = base + b.act[L_HOLD, j]
        if b.ivc[lane].queue == Q_HOLD:
            b.ivc[lane].stamp = 1 if b.ovc[s.inl[lane].out].occ < p.buf else 0


@njit(**KERNEL_INLINE)
def hold_update(s, b, p, bp, topo, t, base, node, n_hold):
    """Kept connections move their VC's front flit (unless the output FIFO is at its bound);
    a connection not kept is dropped and its VC requests the switch again."""
    ivc, inl = b.ivc, s.inl
    for j in range(n_hold):
        k = b.act[L_HOLD, j]
        lane = base + k
        if ivc[lane].queue != Q_HOLD or ivc[lane].stamp == NONE:
            continue  # not held, or held only since this cycle's switch update
        o = ivc[lane].port
        kept = ivc[lane].stamp == 1 and (bp.out_buf < 0 or b.of_len[node * p.n_ports + o] < bp.out_buf)
        ivc[lane].stamp = NONE
        if not kept:
            _drop_hold(b, node, k)
            set_queue(b, lane, Q_SA)
            ivc[lane].sa_grant = 0
            ivc[lane].sa_stamp = NONE
            continue
        flit = _send_front(s, b, p, bp, topo, t, lane, k, node)
        if flit < 0:
            return ERR_OVERFLOW
        tail = (flit & 1) == 1
        if inl[lane].len == 0 or tail:
            _drop_hold(b, node, k)
            if inl[lane].len == 0:
                set_queue(b, lane, Q_NONE)
                if tail:
                    ivc[lane].state = VC_IDLE
                    inl[lane].out = NONE
            else:
                _next_packet(s, b, p, bp, topo, lane)
    return ERR_OK
