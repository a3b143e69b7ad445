"""Stage 7 (b) of docs/flit-engine.md: output-VC allocation, routed headers taking free output
lanes/VCs.

``allocate_vcs`` visits a router's routed waiting headers (``inl.route_done`` reached), oldest
packet first (``--vc-alloc age``, by ``inl.age``) or round-robin (``node.rr_va``), sorted in
the scratch ``s.va_lane``; with several traffic classes the higher-priority headers first, each
priority in that order; it retries a header only when one of its candidate ports
(``inl.cand``) may have gained a free VC since its last attempt (``node.dirty``, set where
an unowned VC changes in a way that can make it free: its release, its output lane no longer
full, a credit under vct or for an atomic VC; an owned VC's changes wait for its release) or
when it is new (``node.va_wake``). ``choose_output`` picks the
free output lane/VC (``s.outl``: owner, fill, credits) among the routing function's rows; on
success the input lane is connected (flit/flits.py ``connect``) and usable from the next cycle
(``inl.ready``). A header without any candidate row is an ``ERR_NO_ROUTE``.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_INLINE, KERNEL_JIT
from netsim_fast.flit.flits import connect, flit_packet, flit_priority, next_waiting_in_round
from netsim_fast.flit.route import candidate_rows
from netsim_fast.flit.state import (
    C_ERR_CYCLE, C_ERR_LANE, C_ERR_PKT, ERR_NO_ROUTE, ERR_OK, NONE, ROUTER_LANES, VC_ALLOC_AGE, VC_ALLOC_RR,
)

UNLIMITED_SPACE = 1 << 30


@njit(**KERNEL_JIT)
def starvation_guard(deadlock_cycles):
    """Cycles a packet may be in the network before its headers go first (see below)."""
    return max(deadlock_cycles // 16, 1)


@njit(**KERNEL_JIT)
def _starving_first(inl, va_lane, n, injected_before):
    """Bounded waiting: headers of packets injected before ``injected_before`` (in the network
    for a sixteenth of ``--deadlock-cycles``, 625 cycles by default) move to the front, oldest packet first; the rest
    keep their order (age or round-robin).

    Why this bounds every wait: past the guard, every router serves the oldest such packet
    first, so the oldest packet of the network is never overtaken at any router it reaches and
    leaves within a bounded time; then the next oldest, and so on. Packets injected later are
    younger, so a packet waits only for the finitely many injected before it. Round-robin alone
    has no such bound: each router shares a freed VC equally among its inputs, so a packet k
    routers upstream of a bottleneck gets a share that shrinks with k (the parking-lot effect),
    and a guard that looked only at how long a header waited at its own router could not help a
    lane starved of credits by a queue further on. Under ``--vc-alloc age`` the order is already
    oldest first, so the guard changes nothing there; below saturation no packet is that old.
    """
    k = 0
    for i in range(n):  # stable partition: old packets first, then insertion-sort them by age
        lane = va_lane[i]
        if inl[lane].age < injected_before:
            for j in range(i, k, -1):
                va_lane[j] = va_lane[j - 1]
            va_lane[k] = lane
            k += 1
    for i in range(1, k):
        lane = va_lane[i]
        j = i - 1
        while j >= 0 and inl[va_lane[j]].age > inl[lane].age:
            va_lane[j + 1] = va_lane[j]
            j -= 1
        va_lane[j + 1] = lane


@njit(**KERNEL_JIT)
def choose_output(outl, rows, n_rows, node, n_ports, n_vcs, buf, out_buf, lanes_router, vct, length,
                  from_source, inject_mask, atomic_mask, first_local):
    """The free output lane/VC a header takes (stage 7), or NONE.

    Rows of priority 0 are tried before priority 1; within a priority the candidate with the
    most free space wins, ties to the lowest port, then the lowest VC (rows come in port order).
    """
    for prio in range(2):
        best, best_space = NONE, -1
        for r in range(n_rows):
            if rows[r, 3] != prio:
                continue
            port = rows[r, 0]
            to_local = port >= first_local  # a terminal's local port (several with --concentration)
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
def _priority_first(inl, in_buf, va_lane, n, cls, class_pri):
    """Stable insertion sort of the requesting lanes by their packet's class priority, highest
    first: a free output VC goes to a high-priority header before any lower one, whatever its
    age (strict priority, as BookSim2's ``priority = class``); equals keep their order."""
    for i in range(1, n):
        lane = va_lane[i]
        pri = flit_priority(cls, class_pri, in_buf[lane, inl[lane].head])
        k = i - 1
        while k >= 0 and flit_priority(cls, class_pri, in_buf[va_lane[k], inl[va_lane[k]].head]) < pri:
            va_lane[k + 1] = va_lane[k]
            k -= 1
        va_lane[k + 1] = lane


@njit(**KERNEL_INLINE)
def allocate_vcs(inl, in_buf, outl, nodes, pkts, mid, kind, cls, class_pri, conn_list, wait_bits, rows, va_lane, cnt,
                 radix, wrap, coord, dim_port, route_mask, p, t, node):
    """Stage 7 (b) at one router: routed headers request output VCs, oldest packet first (or
    round-robin). Returns an error code."""
    n_ports, v = p.n_ports, p.n_vcs
    per_node = n_ports * v
    base = node * per_node
    first_local = n_ports - p.conc
    lanes_router = p.router == ROUTER_LANES
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
    k, li = next_waiting_in_round(wait_bits, node, per_node, start, 0)  # the lanes whose header waits
    while k != NONE:
        lane = base + li
        k, li = next_waiting_in_round(wait_bits, node, per_node, start, k + 1)
        if inl[lane].route_done == NONE:
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
    if p.vc_alloc == VC_ALLOC_RR and n > 1:  # age order already puts the oldest packets first
        _starving_first(inl, va_lane, n, t - starvation_guard(p.deadlock_cycles))
    if p.uses_classes and p.classes > 1 and n > 1:
        _priority_first(inl, in_buf, va_lane, n, cls, class_pri)
    for i in range(n):
        lane = va_lane[i]
        pkt = flit_packet(in_buf[lane, inl[lane].head])
        n_rows = candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, mid, kind, pkt, rows)
        if n_rows == 0:
            cnt[C_ERR_CYCLE] = t
            cnt[C_ERR_LANE] = lane
            cnt[C_ERR_PKT] = pkt
            return ERR_NO_ROUTE
        out = choose_output(outl, rows, n_rows, node, n_ports, v, p.buf, p.out_buf, lanes_router, p.vct,
                            pkts[pkt].len, lane - base >= first_local * v, p.inject_mask, p.atomic_mask,
                            first_local)
        if out != NONE:
            connect(inl, outl, nodes, conn_list, wait_bits, lane, node, out)
            # usable from the next cycle, and not before this lane's crossbar path is free again
            if inl[lane].ready < t + 1:
                inl[lane].ready = t + 1
            nodes[node].waiting -= 1
            if p.vc_alloc == VC_ALLOC_RR:
                nodes[node].rr_va = lane - base + 1 if lane - base + 1 < per_node else 0
    return ERR_OK
