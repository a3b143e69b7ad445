"""Ejection: flits reaching their destination node (stage 3 of ``lanes``, the local port of
the switch stage of ``iq``), and what a delivery counts (docs/flit-engine.md).

- ``eject_lanes`` and ``eject_node`` (``lanes``): each terminal takes up to ``E`` ready flits
  from the output lanes of its own local port (``s.outl``, ``s.ol_buf``), round-robin
  (``node.rr_eject``; ``take_flit``): ``eject_node`` in the router loop, just before the
  router's own stages, ``eject_lanes`` in a pass over all terminals before the routers where a
  delivery acts beyond its router (``ejects_in_router_loop`` says which);
- ``eject_iq`` (``iq``): flits the switch sent to a local port ``T_crossbar`` cycles ago wait in
  the ring ``s.ev_eject`` and are delivered now;
- ``deliver`` writes the packet's delivery cycles (``s.pkt``), the counters ``s.cnt`` and the
  accepted-flit series ``s.ts_accepted``; ``complete_phase`` counts a delivered tail for its
  phase (``s.recv_got``, ``s.phase_got``) and opens the next phase (``node.phase``,
  ``cnt[C_GLOBAL_PHASE]``) under ``--sync``.

The pass runs before ``router_stages``: a delivery can open a ``--sync global`` phase for
every node's injection in the same cycle.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_INLINE, KERNEL_JIT, KERNEL_STAGE_JIT
from netsim_fast.flit.closed_loop import tail_delivered
from netsim_fast.flit.flits import CODE_MASK, flit_packet, is_tail, port_bit, top_ready_lane, vc_bit
from netsim_fast.flit.state import (
    C_DELIVERED, C_ERR_CYCLE, C_ERR_PKT, C_FLITS_OUT, C_GLOBAL_PHASE, C_LAST_DELIVERY, C_WIN_FLITS_OUT,
    C_WIN_OPEN, ERR_OK, ERR_ORDER, NONE, SYNC_NONE,
)


@njit(**KERNEL_JIT)
def deliver(pkts, ts_accepted, cnt, cls, cls_out, born, w, win_start, win_end, debug, flit, when):
    """A flit reaches its destination node at cycle ``when`` (window ``w``); returns an error code.
    With several traffic classes (``cls`` not empty) it counts in its class's ``cls_out`` too;
    closed loop (``born`` not empty): a packet's window is its request's (flit/closed_loop.py)."""
    pkt = flit_packet(flit)
    seq = (flit & CODE_MASK) >> 1
    if debug and seq != pkts[pkt].ejected:
        cnt[C_ERR_CYCLE] = when
        cnt[C_ERR_PKT] = pkt
        return ERR_ORDER
    pkts[pkt].ejected += 1
    cnt[C_FLITS_OUT] += 1
    if cls.shape[0]:
        cls_out[cls[pkt]] += 1
    ts_accepted[w] += 1
    if when >= win_start and when < win_end:
        cnt[C_WIN_FLITS_OUT] += 1
    if seq == 0:
        pkts[pkt].head_del = when
    else:
        pkts[pkt].flit_gap += when - pkts[pkt].head_del
    if is_tail(flit):
        pkts[pkt].tail_del = when
        cnt[C_DELIVERED] += 1
        if when > cnt[C_LAST_DELIVERY]:
            cnt[C_LAST_DELIVERY] = when
        rel = born[pkt] if born.shape[0] else pkts[pkt].release
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


@njit(**KERNEL_STAGE_JIT)
def eject_lanes(s, p, t, w):
    """Stage 3 as a pass over every terminal before the routers (``p.eject_in_loop`` 0): each
    takes up to E ready flits from its local port's output lanes, round-robin, and a delivered
    tail may answer a request (closed loop) or open a --sync phase for every node."""
    outl, ol_buf, ports, nodes, pkts = s.outl, s.ol_buf, s.port, s.node, s.pkt
    recv_need, recv_got, phase_need, phase_got = s.recv_need, s.recv_got, s.phase_need, s.phase_got
    for term in range(p.n_nodes * p.conc):  # terminal term: router term // conc, its own local port
        node = term // p.conc if p.conc > 1 else term
        link = node * p.n_ports + p.n_ports - p.conc + term - node * p.conc
        if ports[link].queued == 0:
            continue
        for _ in range(p.eject_rate):
            flit = take_flit(outl, ol_buf, ports, nodes, s.cls, s.class_pri, p, t, node, term, link)
            if flit == NONE:
                break
            err = deliver(pkts, s.ts_accepted, s.cnt, s.cls, s.cls_out, s.born, w, p.win_start, p.win_end, p.debug,
                          flit, t)
            if err != ERR_OK:
                return err
            if p.uses_closed_loop and p.closed_loop and is_tail(flit):
                err = tail_delivered(s, flit_packet(flit), t)
                if err != ERR_OK:
                    return err
            if p.uses_sync and is_tail(flit) and p.sync != SYNC_NONE:
                complete_phase(pkts, nodes, recv_need, recv_got, phase_need, phase_got, s.cnt, flit_packet(flit))
    return ERR_OK


def ejects_in_router_loop(p) -> bool:
    """Whether a run's terminals eject inside the router loop (``p.eject_in_loop``), each router's
    just before its own stages, instead of in a pass over all terminals before the routers.

    Ejection touches the router's local output lanes and port, its counters, and the delivered
    packets' delivery fields, none of which another router's stages read in the same cycle, so
    the place does not change the result; in the loop it runs on the router's thread
    (flit/parallel.py) and reads the router's records while they are in cache, where the pass
    read a cache line per terminal every cycle, on one thread. The pass stays where a delivery acts beyond the router in the same cycle (a closed
    loop's reply, a --sync phase opening for every node), under --check-invariants (whose order
    check reports before any router moves), and for the iq router (its own ejection ring)."""
    from netsim_fast.flit.state import ROUTER_LANES

    return p.router == ROUTER_LANES and not p.closed_loop and p.sync == SYNC_NONE and not p.debug


@njit(**KERNEL_INLINE)
def eject_node(outl, ol_buf, ports, nodes, pkts, ts_accepted, cnt, cls, class_pri, cls_out, born, p, t, w, node):
    """Stage 3 at router ``node``'s terminals, in the router loop (``p.eject_in_loop``): the same
    flits as ``eject_lanes``, with no closed loop, --sync or order check (see
    ``ejects_in_router_loop``), so nothing can fail."""
    for term in range(node * p.conc, node * p.conc + p.conc):
        link = node * p.n_ports + p.n_ports - p.conc + term - node * p.conc
        if ports[link].queued == 0:
            continue
        for _ in range(p.eject_rate):
            flit = take_flit(outl, ol_buf, ports, nodes, cls, class_pri, p, t, node, term, link)
            if flit == NONE:
                break
            deliver(pkts, ts_accepted, cnt, cls, cls_out, born, w, p.win_start, p.win_end, 0, flit, t)


@njit(**KERNEL_INLINE)
def take_flit(outl, ol_buf, ports, nodes, cls, class_pri, p, t, node, term, link):
    """The next ready flit of terminal ``term``'s local port ``link`` (on router ``node``), taken off
    its output lane round-robin (``rr_eject``; the highest priority first with several classes),
    or NONE if none is ready."""
    v, depth = p.n_vcs, p.out_buf
    base = link * v
    vc = nodes[term].rr_eject
    served = NONE
    if p.uses_classes and p.classes > 1:  # the highest priority, round-robin among equals
        served = top_ready_lane(outl, ol_buf, cls, class_pri, base, vc, v, t, False)
    else:
        for _j in range(v):
            out = base + vc
            if outl[out].len > 0 and (p.t_crossbar == 1 or ol_buf[out, outl[out].head].ready <= t):
                served = vc
                break
            vc += 1
            if vc == v:
                vc = 0
    if served == NONE:
        return NONE
    out = base + served
    pos = outl[out].head
    outl[out].head = 0 if pos + 1 == depth else pos + 1
    if outl[out].len == depth and outl[out].owner == NONE:  # no longer full: it may be free for a waiting header
        nodes[node].dirty |= port_bit(link - node * p.n_ports)
    outl[out].len -= 1
    if outl[out].len == 0:
        ports[link].held_vcs &= ~vc_bit(served)
    outl[out].last = t
    ports[link].queued -= 1
    nodes[node].flits -= 1
    nodes[term].rr_eject = 0 if served + 1 == v else served + 1
    return ol_buf[out, pos].flit


@njit(**KERNEL_STAGE_JIT)
def eject_iq(s, p, t, w):
    """Flits that crossed to a local port ``T_crossbar`` cycles ago reach their node now (iq)."""
    pkts, nodes, ts_accepted, cnt = s.pkt, s.node, s.ts_accepted, s.cnt
    recv_need, recv_got, phase_need, phase_got = s.recv_need, s.recv_got, s.phase_need, s.phase_got
    ev_eject, ev_eject_n = s.ev_eject, s.ev_eject_n
    now = t % p.ring
    for i in range(ev_eject_n[now]):
        flit = ev_eject[now, i]
        err = deliver(pkts, ts_accepted, cnt, s.cls, s.cls_out, s.born, w, p.win_start, p.win_end, p.debug, flit, t)
        if err != ERR_OK:
            return err
        if p.uses_closed_loop and p.closed_loop and is_tail(flit):
            err = tail_delivered(s, flit_packet(flit), t)
            if err != ERR_OK:
                return err
        if p.uses_sync and is_tail(flit) and p.sync != SYNC_NONE:
            complete_phase(pkts, nodes, recv_need, recv_got, phase_need, phase_got, cnt, flit_packet(flit))
    ev_eject_n[now] = 0
    return ERR_OK
