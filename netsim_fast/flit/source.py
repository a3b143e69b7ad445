"""The nodes' sources: stage 2 (release) and stage 8 (injection) of docs/flit-engine.md.

- ``release`` appends the packets created at ``t`` (``s.pkt``, in packet-id order from
  ``cnt[C_NEXT_RELEASE]``) to the tail of their node's source queue (``node.src_head``,
  ``node.src_tail``, ``pkt.next``) and counts them in ``cnt[C_QUEUED]``, ``node.queued`` and,
  inside the measurement window, ``cnt[C_WIN_OPEN]``. Under ``--source-queue Q`` a packet
  whose queue already holds Q packets is dropped instead (``pkt.injected = DROPPED``, counted
  in ``cnt[C_DROPPED]``): a backlogged source, so a run past saturation keeps bounded state.
  With several traffic classes the queue is kept in priority order instead, first in first out
  within a priority: a packet is linked in behind the last queued packet of its own or a higher
  priority (``s.q_last``, one per priority level), so a high-priority packet overtakes the
  low-priority backlog of its source (docs/flit-engine.md, "Traffic classes"). Closed loop
  (``p.closed_loop``): the stage first creates the cycle's replies and requests
  (flit/closed_loop.py), and a reply is linked in behind the replies queued at its source,
  ahead of every queued request;
- ``inject_node`` binds the queue's head packet to the lowest free local lane (``s.inj``) once
  its ``--sync`` phase is open, and writes one flit per cycle into the router's local input
  lanes (``s.inl``, ``s.in_buf``), round-robin over the bound packets (``node.rr_inject``;
  with several classes the highest-priority bound packet with room, round-robin among equals);
  it counts ``cnt[C_FLITS_IN]`` and the series ``s.ts_injected``.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_INLINE, KERNEL_STAGE_JIT
from netsim_fast.flit.closed_loop import create_packets
from netsim_fast.flit.flits import make_flit, push_input
from netsim_fast.flit.state import (
    C_DROPPED, C_DROPPED_FLITS, C_FLITS_IN, C_GLOBAL_PHASE, C_NEXT_RELEASE, C_NPKT, C_QUEUED, C_WIN_DROPPED_FLITS,
    C_WIN_OPEN, DROPPED, ERR_OK, KIND_READ_REPLY, NONE, SYNC_LOCAL, SYNC_NONE,
)


@njit(**KERNEL_STAGE_JIT)
def release(s, p, t):
    """Stage 2: packets created at ``t`` join the tail of their source queue, in packet-id order
    (closed loop: created first, flit/closed_loop.py). Returns an ``ERR_*`` code."""
    cnt, pkts, nodes = s.cnt, s.pkt, s.node
    if p.uses_closed_loop and p.closed_loop:
        err = create_packets(s, p, t)
        if err != ERR_OK:
            return err
    k = cnt[C_NEXT_RELEASE]
    n = cnt[C_NPKT]
    while k < n and pkts[k].release <= t:
        node = pkts[k].src
        born = s.born[k] if p.uses_closed_loop and p.closed_loop else pkts[k].release  # closed loop: the request's window
        in_window = born >= p.win_start and born < p.win_end
        if p.src_queue > 0 and nodes[node].queued >= p.src_queue:
            pkts[k].injected = DROPPED
            cnt[C_DROPPED] += 1
            cnt[C_DROPPED_FLITS] += pkts[k].len
            if in_window:
                cnt[C_WIN_DROPPED_FLITS] += pkts[k].len
            k += 1
            continue
        nodes[node].queued += 1
        s.active[node // p.conc if p.conc > 1 else node] = 1  # its router has a packet to inject
        if p.uses_classes and p.classes > 1:
            _link_by_priority(nodes, pkts, s.q_last, s.class_level[s.cls[k]], node, k)
        elif p.uses_closed_loop and p.closed_loop:  # replies (level 0) ahead of the requests (level 1) waiting
            _link_by_priority(nodes, pkts, s.q_last, 0 if s.kind[k] >= KIND_READ_REPLY else 1, node, k)
        elif nodes[node].src_tail == NONE:
            nodes[node].src_head = k
            nodes[node].src_tail = k
        else:
            pkts[nodes[node].src_tail].next = k
            nodes[node].src_tail = k
        cnt[C_QUEUED] += 1
        if in_window:
            cnt[C_WIN_OPEN] += 1
        k += 1
    cnt[C_NEXT_RELEASE] = k
    return ERR_OK


@njit(**KERNEL_INLINE)
def _link_by_priority(nodes, pkts, q_last, level, term, k):
    """Link packet ``k`` of priority ``level`` into ``term``'s source queue behind the last
    queued packet of its level or a higher one (lower level number), else at the head."""
    pred = NONE
    for lv in range(level, -1, -1):
        if q_last[term, lv] != NONE:
            pred = q_last[term, lv]
            break
    if pred == NONE:
        pkts[k].next = nodes[term].src_head
        nodes[term].src_head = k
    else:
        pkts[k].next = pkts[pred].next
        pkts[pred].next = k
    if pkts[k].next == NONE:
        nodes[term].src_tail = k
    q_last[term, level] = k


@njit(**KERNEL_INLINE)
def pop_source(nodes, pkts, q_last, cls, class_level, classes, term):
    """Take the head packet off ``term``'s source queue (it is bound for injection)."""
    head = nodes[term].src_head
    nodes[term].queued -= 1
    nxt = pkts[head].next
    nodes[term].src_head = nxt
    if nxt == NONE:
        nodes[term].src_tail = NONE
    if classes > 1:
        level = class_level[cls[head]]
        if q_last[term, level] == head:
            q_last[term, level] = NONE
    elif q_last.shape[0]:  # closed loop: the levels of replies and requests
        for level in range(q_last.shape[1]):
            if q_last[term, level] == head:
                q_last[term, level] = NONE


@njit(**KERNEL_INLINE)
def inject_node(inl, in_buf, nodes, wait_bits, pkts, inj, ts_injected, cnt, cls, class_pri, class_level, q_last, p,
                t, w, node, term):
    """Stage 8 at terminal ``term`` of router ``node``: bind the queue's head packet to the
    lowest free lane of the terminal's local port, then write one flit."""
    v = p.n_vcs
    head = nodes[term].src_head
    if head == NONE and nodes[term].bound == 0:
        return
    if p.uses_sync and head != NONE and p.sync != SYNC_NONE:  # the queue's head waits for its phase to open
        allowed = nodes[term].phase if p.sync == SYNC_LOCAL else cnt[C_GLOBAL_PHASE]
        if pkts[head].phase > allowed:
            head = NONE
    if head != NONE:
        for vc in range(v):
            if inj[term, vc].pkt == NONE:
                inj[term, vc].pkt = head
                inj[term, vc].sent = 0
                nodes[term].bound += 1
                pop_source(nodes, pkts, q_last, cls, class_level, p.classes, term)
                break
    base = (node * p.n_ports + p.n_ports - p.conc + term - node * p.conc) * v
    vc = nodes[term].rr_inject
    if p.uses_classes and p.classes > 1:  # the highest-priority bound packet with room, round-robin among equals
        best, best_pri = NONE, -1
        for _j in range(v):
            pkt = inj[term, vc].pkt
            if pkt != NONE and inl[base + vc].len < p.buf and class_pri[cls[pkt]] > best_pri:
                best, best_pri = vc, class_pri[cls[pkt]]
            vc += 1
            if vc == v:
                vc = 0
        if best == NONE:
            return
        vc = best
    for _j in range(v):
        pkt = inj[term, vc].pkt
        lane = base + vc
        if pkt != NONE and inl[lane].len < p.buf:
            seq = inj[term, vc].sent
            length = pkts[pkt].len
            push_input(inl, in_buf, nodes, wait_bits, p.n_ports * p.n_vcs, lane, make_flit(pkt, seq, length), t)
            if seq == 0:
                pkts[pkt].injected = t
            else:
                pkts[pkt].inj_gap += t - pkts[pkt].injected
            inj[term, vc].sent = seq + 1
            if seq + 1 == length:
                inj[term, vc].pkt = NONE
                nodes[term].bound -= 1
                cnt[C_QUEUED] -= 1
            cnt[C_FLITS_IN] += 1
            ts_injected[w] += 1
            nodes[term].rr_inject = 0 if vc + 1 == v else vc + 1
            return
        vc += 1
        if vc == v:
            vc = 0
