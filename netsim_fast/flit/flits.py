"""Flits, lanes and connections: the small operations every stage of the flit engine shares.

- flit codes (``make_flit``, ``flit_packet``, ``is_head``, ``is_tail``): a buffered flit is one
  int64, ``packet << 32 | seq << 1 | is_tail`` (flit/state.py), so the packet length is not
  looked up at every hop;
- input lanes (``push_input``, ``pop_input``): ring FIFOs in ``s.in_buf`` described by
  ``s.inl``; a head reaching the front of an idle lane counts in ``s.node`` as waiting for
  routing (``waiting``, ``unrouted``) and sets the lane's bit in ``s.wait_bits``, whose set
  bits ``next_waiting_in_round`` visits in round-robin order;
- the event rings (``schedule_flit``, ``schedule_credit``): a flit or a credit in flight is
  written into ``s.ev_flit`` / ``s.ev_credit`` at the ring slot of its arrival cycle, where
  stage 1 (flit/traverse.py) takes it; ``later_slot`` adds a long wire's extra cycles;
- connections (``connect`` in VC allocation, ``release_connection`` when the tail leaves): an
  input lane bound to an output lane/VC (``inl.out``, ``outl.owner``), listed in the router's
  ``s.conn_list``; ``port_bit`` marks the output ports whose change may free a waiting header
  (``node.dirty``).

All take plain arrays, never the state tuple (flit/kernel.py, speed notes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_JIT
from netsim_fast.flit.state import NONE

CODE_MASK = 0xFFFFFFFF


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


@njit(**KERNEL_JIT)
def flit_priority(cls, class_pri, flit):
    """Priority of a flit's packet: its class's (--class-priority); only read with classes > 1."""
    return class_pri[cls[flit >> 32]]


@njit(**KERNEL_JIT)
def top_ready_lane(outl, ol_buf, cls, class_pri, base, vc, v, t, need_credit):
    """Of the ``v`` output lanes ``base + 0 .. v-1`` visited round-robin from ``vc``, the first
    whose front flit is ready (and, ``need_credit``, holds a credit) with the highest class
    priority; NONE if none is ready. The arbiter of a port with several traffic classes."""
    best, best_pri = NONE, -1
    for _j in range(v):
        lane = outl[base + vc]
        if lane.len > 0 and (lane.credits > 0 or not need_credit) and ol_buf[base + vc, lane.head].ready <= t:
            pri = flit_priority(cls, class_pri, ol_buf[base + vc, lane.head].flit)
            if pri > best_pri:
                best, best_pri = vc, pri
        vc += 1
        if vc == v:
            vc = 0
    return best


@njit(**KERNEL_JIT)
def port_bit(port):
    """Bit of a port in the candidate and dirty masks (ports 63 and above share bit 63)."""
    return np.int64(1) << min(port, 63)


@njit(**KERNEL_JIT)
def vc_bit(vc):
    """Bit of a VC in a port's ``held_vcs`` mask (at most 32 VCs: config MAX_VCS)."""
    return np.int64(1) << vc


@njit(**KERNEL_JIT)
def set_waiting(wait_bits, node, li):
    """Input lane ``li`` (its index within router ``node``) now holds a header waiting for
    routing or an output VC (``s.wait_bits``)."""
    wait_bits[node, li >> 6] |= np.int64(1) << (li & 63)


@njit(**KERNEL_JIT)
def clear_waiting(wait_bits, node, li):
    """Input lane ``li`` of router ``node`` no longer holds a waiting header (it is connected)."""
    wait_bits[node, li >> 6] &= ~(np.int64(1) << (li & 63))


@njit(**KERNEL_JIT)
def next_waiting(wait_bits, node, li):
    """The first lane of router ``node`` from index ``li`` on whose header waits, NONE if none."""
    w = li >> 6
    if w >= wait_bits.shape[1]:
        return NONE
    bits = wait_bits[node, w] & (np.int64(-1) << (li & 63))
    while bits == 0:
        w += 1
        if w == wait_bits.shape[1]:
            return NONE
        bits = wait_bits[node, w]
    return (w << 6) + lowest_set_bit(bits)


@njit(**KERNEL_JIT)
def next_waiting_in_round(wait_bits, node, per_node, start, k):
    """A round-robin scan of the router's ``per_node`` input lanes from index ``start`` visits
    lane ``start + k`` (wrapped) at step ``k``: the first step from ``k`` on whose lane holds a
    waiting header, and that lane's index, or (NONE, NONE). The routing and allocation passes
    visit only those lanes, in the order of the scan of every lane they replace."""
    li = start + k
    if li < per_node:
        found = next_waiting(wait_bits, node, li)
        if found != NONE:
            return found - start, found
        li = per_node
    found = next_waiting(wait_bits, node, li - per_node)
    if found != NONE and found < start:
        return found + per_node - start, found
    return NONE, NONE


@njit(**KERNEL_JIT)
def push_input(inl, in_buf, nodes, wait_bits, per_node, lane, flit, t):
    """Append a flit to an input lane; a head reaching the front of an idle lane waits for
    routing (``per_node``: a router's input lanes)."""
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
            set_waiting(wait_bits, node, lane - node * per_node)


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
def later_slot(slot, extra, ring):
    """The ring slot ``extra`` (< ring) cycles after ``slot``: a long wire's flit or credit."""
    slot += extra
    return slot - ring if slot >= ring else slot


@njit(**KERNEL_JIT)
def schedule_flit(ev_flit, ev_flit_n, lane, flit, slot):
    k = ev_flit_n[slot]
    ev_flit[slot, k, 0] = lane
    ev_flit[slot, k, 1] = flit
    ev_flit_n[slot] = k + 1


@njit(**KERNEL_JIT)
def connect(inl, outl, nodes, conn_list, wait_bits, lane, node, out):
    """Bind input ``lane`` to output lane/VC ``out`` and list it among the router's connections;
    its header no longer waits."""
    clear_waiting(wait_bits, node, lane - node * conn_list.shape[1])
    inl[lane].out = out
    outl[out].owner = lane
    k = nodes[node].conn_n
    conn_list[node, k] = lane
    inl[lane].conn_pos = k
    nodes[node].conn_n = k + 1


@njit(**KERNEL_JIT)
def release_connection(inl, outl, nodes, conn_list, wait_bits, lane, node, out):
    """The tail left ``lane``: free the output lane/VC; a following head now waits for routing.
    The last connection of the router's list takes the freed position."""
    outl[out].owner = NONE
    nodes[node].dirty |= port_bit(outl[out].port)
    inl[lane].out = NONE
    inl[lane].route_done = NONE
    if inl[lane].len > 0:
        nodes[node].waiting += 1
        nodes[node].unrouted += 1
        set_waiting(wait_bits, node, lane - node * conn_list.shape[1])
    k = inl[lane].conn_pos
    last = nodes[node].conn_n - 1
    moved = conn_list[node, last]
    conn_list[node, k] = moved
    inl[moved].conn_pos = k
    inl[lane].conn_pos = NONE
    nodes[node].conn_n = last
