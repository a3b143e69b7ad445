"""BookSim2's terminals (docs/booksim-router.md, section 4): ejection reads and injection.

- ``read_terminals`` (phase 2 of a cycle): each node takes the flit its ejection channel
  delivers now (``deliver``: the packet's delivery cycles and counters) and applies the credit
  its injection credit channel delivers now to its view of the router's injection VCs (``tvc``).
- ``inject`` (phase 5): each node sends at most one flit into its injection channel. The
  packet at the front of the source queue (``FlitState.node.src_head``: BookSim2's qtime
  catch-up is an unbounded FIFO of packets stamped with their creation cycle, which the flit
  engine's release stage already keeps) takes a VC when one is neither owned nor full, probing
  the VCs round-robin from the one after the node's last choice (all probes hit VC 0 before any
  was chosen, as in BookSim2); its flits follow on that VC, one per cycle while the VC has room.
  With several traffic classes the source queue is in priority order (flit/source.py) and a
  flit's priority is its class's under ``priority = class``; BookSim2 keeps a queue per class
  and may interleave the flits of packets of different classes on the injection channel, here
  one packet is injected whole before the next (docs/booksim-router.md).
  The flit reaches the router two cycles later; ``pkt.injected`` is its head's send cycle
  (BookSim2's ``itime``).
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_STAGE_JIT
from netsim_fast.flit.booksim.routefns import (
    R_DRAGONFLY_MIN, R_DRAGONFLY_UGAL, inject_range, rand_int, route_typed,
)
from netsim_fast.flit.booksim.routing import dim_order, pack_route
from netsim_fast.flit.booksim.state import INT_MAX, NONE, PRI_AGE, PRI_CLASS, PRI_NETWORK_AGE, PRI_SEQUENCE
from netsim_fast.flit.closed_loop import tail_delivered
from netsim_fast.flit.eject import complete_phase, deliver
from netsim_fast.flit.flits import later_slot, make_flit
from netsim_fast.flit.source import pop_source
from netsim_fast.flit.state import C_FLITS_IN, C_GLOBAL_PHASE, C_QUEUED, ERR_OK, SYNC_LOCAL, SYNC_NONE


@njit(**KERNEL_STAGE_JIT)
def read_terminals(s, b, p, bp, t, w, slot):
    pkts, cnt = s.pkt, s.cnt
    for i in range(b.ev_del_n[slot]):
        flit = b.ev_del[slot, i]
        err = deliver(pkts, s.ts_accepted, cnt, s.cls, s.cls_out, s.born, w, p.win_start, p.win_end, p.debug, flit, t)
        if err != ERR_OK:
            return err
        if (flit & 1) == 1 and p.closed_loop:
            err = tail_delivered(s, flit >> 32, t)
            if err != ERR_OK:
                return err
        if (flit & 1) == 1 and p.sync != SYNC_NONE:
            complete_phase(pkts, s.node, s.recv_need, s.recv_got, s.phase_need, s.phase_got, cnt, flit >> 32)
    b.ev_del_n[slot] = 0
    tvc = b.tvc
    for i in range(b.ev_tcred_n[slot]):
        x = b.ev_tcred[slot, i]
        tvc[x].occ -= 1
        if bp.wait_tail and tvc[x].occ == 0 and tvc[x].tail_sent:
            tvc[x].owner = NONE
    b.ev_tcred_n[slot] = 0
    return ERR_OK


@njit(**KERNEL_STAGE_JIT)
def inject(s, b, p, bp, topo, t, w, slot_now):
    """Each terminal ``term`` (on router ``b.term_node[term]``, at its local port
    ``b.term_port[term]``: ``term // conc`` and ``n_ports - conc + term % conc`` but on an anynet
    file) sends at most one flit; its source queue, injection VC state (``tvc``) and VC choice
    (``b.node``'s terminal fields) are indexed by the terminal."""
    nodes, pkts, inj, tvc, bnode, cnt = s.node, s.pkt, s.inj, b.tvc, b.node, s.cnt
    v, conc = p.n_vcs, p.conc
    for term in range(b.term_node.shape[0]):
        node = b.term_node[term]
        local = b.term_port[term]
        pkt = inj[term, 0].pkt
        if pkt == NONE:
            head = nodes[term].src_head
            if head == NONE:
                continue
            if p.sync != SYNC_NONE:
                allowed = nodes[term].phase if p.sync == SYNC_LOCAL else cnt[C_GLOBAL_PHASE]
                if pkts[head].phase > allowed:
                    continue
            last = bnode[term].last_vc
            kind = s.kind[head] if p.closed_loop else 0  # the VCs of its type (read/write request/reply)
            first, span = s.rw_vc[kind, 0], s.rw_vc[kind, 1]
            lo, count = first, span
            if bp.routing == R_DRAGONFLY_MIN or bp.routing == R_DRAGONFLY_UGAL:  # one VC drawn at random each try
                lo, count = rand_int(b.rng, v - 1), 1
            elif bp.routing != 0:  # the VCs BookSim2's routing function gives in injection mode
                inject_range(bp.routing, topo.radix, topo.coord, bp.torus, pkts[head].dst // conc, span, b.route_out)
                lo, count = first + b.route_out[0], b.route_out[1]
            if bp.noq:  # only the VCs of the slice of the first router's output port (one terminal per router)
                dim_order(topo.radix, topo.coord, topo.dim_port, topo.port_dim, bp.torus, node, pkts[head].dst,
                          p.n_ports - 1, 0, p.n_ports, v, b.rng, b.route_out)
                count = v // p.n_ports
                lo = b.route_out[0] * count
            chosen = NONE
            in_range, off = lo <= last < lo + count, last - lo
            for _ in range(count):
                if in_range:  # lo + (last - lo + i) % count for i = 1 .. count, without a division
                    off = off + 1 if off + 1 < count else 0
                vc = lo + off if in_range else lo
                x = term * v + vc
                if tvc[x].owner == NONE and tvc[x].occ < p.buf:
                    chosen = vc
                    break
            if chosen == NONE:
                continue
            x = term * v + chosen
            tvc[x].owner = term
            tvc[x].tail_sent = 0
            bnode[term].last_vc = chosen
            bnode[term].cur_vc = chosen
            bnode[term].cur_seq = bnode[term].seq_next
            bnode[term].seq_next += 1
            inj[term, 0].pkt = head
            inj[term, 0].sent = 0
            pop_source(nodes, pkts, s.q_last, s.cls, s.class_level, p.classes, term)
            pkt = head
        vc = bnode[term].cur_vc
        x = term * v + vc
        if tvc[x].occ >= p.buf:
            continue
        seq = inj[term, 0].sent
        length = pkts[pkt].len
        tvc[x].occ += 1
        if seq == 0:
            pkts[pkt].injected = t
        else:
            pkts[pkt].inj_gap += t - pkts[pkt].injected
        slot = later_slot(slot_now, 2, bp.ring)
        k = b.ev_flit_n[slot]
        b.ev_flit[slot, k, 0] = (node * p.n_ports + local) * v + vc
        b.ev_flit[slot, k, 1] = make_flit(pkt, seq, length)
        b.ev_flit[slot, k, 2] = 0
        if bp.routing_delay == 0 and seq == 0:  # lookahead: the head's route at its first router
            kind = s.kind[pkt] if p.closed_loop else 0
            route_typed(bp.routing, topo.radix, topo.coord, topo.dim_port, topo.port_dim, bp.torus, b.ovc,
                        node * p.n_ports * v, node, pkts[pkt].src, pkts[pkt].dst, local, vc, 0, p.n_ports, conc,
                        v, b.rng, b.route_out, bp.shape_a, bp.shape_b, b.table,
                        s.rw_vc[kind, 0], s.rw_vc[kind, 1])
            b.ev_flit[slot, k, 2] = pack_route(b.route_out)
        if bp.priority == PRI_AGE:
            b.ev_flit[slot, k, 3] = INT_MAX - pkts[pkt].release
        elif bp.priority == PRI_NETWORK_AGE:
            b.ev_flit[slot, k, 3] = INT_MAX - t
        elif bp.priority == PRI_SEQUENCE:
            b.ev_flit[slot, k, 3] = INT_MAX - bnode[term].cur_seq
        elif bp.priority == PRI_CLASS:
            b.ev_flit[slot, k, 3] = s.class_pri[s.cls[pkt]]
        else:
            b.ev_flit[slot, k, 3] = 0
        b.ev_flit_n[slot] = k + 1
        inj[term, 0].sent = seq + 1
        if seq + 1 == length:
            inj[term, 0].pkt = NONE
            tvc[x].tail_sent = 1
            if not bp.wait_tail:
                tvc[x].owner = NONE
            cnt[C_QUEUED] -= 1
        cnt[C_FLITS_IN] += 1
        s.ts_injected[w] += 1
