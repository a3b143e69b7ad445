"""Stage 7 (a) of docs/flit-engine.md: the routing units compute the routes of new headers.

``route_headers`` lets each router's ``H`` routing units (``s.route_free``: the cycle each is
free again) take unrouted waiting input lanes round-robin (``node.rr_route``); a header taken
gets the cycle it may first request an output VC (``inl.route_done``), its packet's injection
cycle (``inl.age``, the key of age-ordered allocation) and the bit mask of its candidate ports
(``inl.cand``), and wakes the router's VC allocation (``node.va_wake``, flit/allocate.py).

``candidate_rows`` is the routing function at a router (``netsim_fast.routing``): the rows
(port, first VC, last VC, priority) of ``s.rows`` a header may take, the local port at its
destination. VC allocation asks it again at each attempt.

Under ``ugal-l``/``ugal-g`` (dragonfly) the first route computation of a packet, at its source
router, also chooses between its minimal route and its Valiant candidate from the queues at
that cycle (``routing/dragonfly_valiant.choose_ugal``) and keeps the choice in ``s.mid``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_INLINE, KERNEL_JIT
from netsim_fast.flit.flits import flit_packet, next_waiting_in_round, port_bit
from netsim_fast.flit.state import KIND_READ_REPLY, NONE
from netsim_fast.routing import DEST_TAG, DIM_ADAPTIVE, DOR_NODATELINE, TABLE, UGAL_G, UGAL_L, UPDOWN, VALIANT
from netsim_fast.routing.dispatch import table_next_hops
from netsim_fast.routing.dragonfly_valiant import choose_ugal, nonmin_next_hops
from netsim_fast.routing.fly import dest_tag_next_hops
from netsim_fast.routing.grid import grid_next_hops
from netsim_fast.routing.hamming_adaptive import adaptive_next_hops
from netsim_fast.routing.updown import updown_next_hops


@njit(**KERNEL_JIT)
def candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, mid, kind, pkt, rows):
    """The routing function's rows for packet ``pkt``'s header at ``node`` (at its destination
    terminal's router: that terminal's local port). The routing functions see routers: a
    packet's source and destination terminals are replaced by their routers (the destination's
    ejection router: ``eject_shift`` routers on, on the butterfly). Closed loop
    (``p.rr_vcs``): the routing sees ``rr_vcs`` VCs, which are a request's; a reply's rows are
    moved up by ``rr_vcs`` (``kind``: the packets' kinds; empty, every packet is a request)."""
    n = _rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, mid, pkt, rows)
    if p.uses_closed_loop and p.rr_vcs and kind.shape[0] and kind[pkt] >= KIND_READ_REPLY:
        for r in range(n):
            rows[r, 1] += p.rr_vcs
            rows[r, 2] += p.rr_vcs
    return n


@njit(**KERNEL_JIT)
def _rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, mid, pkt, rows):
    dst, src = pkts[pkt].dst, pkts[pkt].src
    v = p.rr_vcs if p.rr_vcs else p.n_vcs
    local = p.n_ports - 1
    if p.conc > 1:  # terminals to their routers; the destination terminal's own local port
        local = p.n_ports - p.conc + dst % p.conc
        dst, src = dst // p.conc + p.eject_shift, src // p.conc
    if dst == node:
        rows[0, 0] = local
        rows[0, 1] = 0
        rows[0, 2] = v - 1
        rows[0, 3] = 0
        return 1
    if p.uses_tables:  # each routing family compiles only when the run uses it (flit/features.py)
        if p.routing == UPDOWN:  # the choice among its ports reads the packet's terminals and creation cycle
            return updown_next_hops(route_mask, v, p.up_choice, node, dst, pkts[pkt].src, pkts[pkt].dst,
                                    pkts[pkt].release, pkts[pkt].hops, rows)
        if p.routing == DEST_TAG:  # the butterfly's one path, every VC
            return dest_tag_next_hops(route_mask, v, node, dst, rows)
        if p.routing >= DIM_ADAPTIVE:  # dim-adaptive, min-adaptive: minimal and dimension-order rows of the table
            return adaptive_next_hops(p.routing, route_mask, p.n_nodes, v, node, dst, rows)
        if p.routing == TABLE:
            return table_next_hops(route_mask, p.class_vcs, node, dst, pkts[pkt].hops, rows)
    if p.uses_nonmin and p.routing >= VALIANT:  # dragonfly valiant, ugal-l, ugal-g: the packet's intermediate group
        return nonmin_next_hops(route_mask, p.class_vcs, p.group_routers, p.n_nodes, node, src, dst,
                                pkts[pkt].hops, mid[pkt], rows)
    if p.uses_grid and p.routing <= DOR_NODATELINE:  # dor, duato, dor-nodateline
        return grid_next_hops(p.routing, radix, wrap, coord, dim_port, v, node, src, dst, rows)
    return 0


@njit(**KERNEL_INLINE)
def route_headers(inl, in_buf, outl, ports, nodes, pkts, mid, kind, wait_bits, route_free, rows, radix, wrap, coord,
                  dim_port, nbr, route_mask, p, t, node):
    """Stage 7 (a) at one router: free routing units compute the routes of new headers,
    round-robin: the router's waiting lanes (``wait_bits``) from ``rr_route`` on, wrapping
    round, which is the order of a scan of every lane."""
    per_node = p.n_ports * p.n_vcs
    base = node * per_node
    # (a) route computation: a unit is busy T_routing cycles per header; the candidates and
    # the packet's age are noted in the lane for the allocation passes
    if nodes[node].unrouted > 0:
        start = nodes[node].rr_route
        k, li = next_waiting_in_round(wait_bits, node, per_node, start, 0)
        while k != NONE:
            lane = base + li
            k, li = next_waiting_in_round(wait_bits, node, per_node, start, k + 1)
            if inl[lane].route_done != NONE:
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
            if p.uses_nonmin and (p.routing == UGAL_L or p.routing == UGAL_G) and mid[pkt] >= 0 and \
                    lane - base >= (p.n_ports - p.conc) * p.n_vcs:
                # a header in a local lane is at its source router: UGAL's one choice (its own lane,
                # routed but not yet a candidate of any port, must not count in ugal-g's demand)
                inl[lane].cand = 0
                mid[pkt] = choose_ugal(route_mask, nbr, inl, outl, ports, p.group_routers, p.n_nodes, p.n_ports,
                                       p.n_vcs, p.buf, pkts[pkt].src // p.conc, pkts[pkt].dst // p.conc, mid[pkt],
                                       p.routing == UGAL_G)
            n_rows = candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, mid, kind, pkt, rows)
            cand = np.int64(0)
            for r in range(n_rows):
                cand |= port_bit(rows[r, 0])
            inl[lane].cand = cand
            nodes[node].rr_route = lane - base + 1 if lane - base + 1 < per_node else 0
            nodes[node].unrouted -= 1
            nodes[node].va_wake = 1
            if nodes[node].unrouted == 0:  # no other lane holds an unrouted header: stop scanning
                break
