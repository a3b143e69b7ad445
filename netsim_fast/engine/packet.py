"""Synchronous store-and-forward packet engine: the Numba kernel and its state.

Cycle semantics (the specification; ``tests/reference/packet_naive.py`` implements it
independently and the tests compare per-packet delivery cycles exactly)
---------------------------------------------------------------------------------------
Packets are whole messages. Every directed link ``(u, port)`` has one queue at ``u``. Cycle
``t = 0, 1, ...`` runs three steps:

1. *Release.* Messages with ``release_cycle == t`` join the queue of the first link of their
   path at their source, in message order, behind everything already queued.
2. *Send.* Every link with a non-empty queue picks one packet by the selection policy and
   sends it. With ``one_port`` a node sends on at most one link: it tries its ports
   round-robin, starting after the port it used last, and uses the first that can send.
   With a finite ``queue_capacity`` C a packet may cross only if the queue it will join at
   the next node holds fewer than C *transit* packets (packets that arrived over a link;
   a source's own packets never count), counting the places granted earlier in this cycle
   and not the places freed in this cycle. Links are served in ascending link id
   (node-major), which fixes who gets the last place. A link whose selected packet is
   refused idles (head-of-line blocking).
3. *Arrive.* Every packet sent in cycle ``t`` arrives at the end of cycle ``t``: at its
   destination it is delivered with ``delivered = t + 1``; otherwise it picks its next link
   there and joins that queue, from which it can leave at ``t + 1`` at the earliest.

The next link is chosen when a packet enters a queue: ``fixed`` takes the lowest minimal
port, ``random`` the ``k``-th minimal port with ``k = draw(seed, PATH, packet, hops) mod
count`` (rng.py). A packet's *order* in a queue is (cycle it entered, then for packets
entering together from links a random key ``draw(seed, TIE, packet, hops)`` with the packet
id as the last resort, and for released messages their message order). Selection policies:

* ``fifo``: the first packet in queue order;
* ``srpf`` / ``lrpf``: the packet with the smallest / largest remaining distance
  ``dist[u, dst]``, ties by queue order (so by the seeded random key among simultaneous
  arrivals);
* ``random``: the ``k``-th packet in queue order, ``k = draw(seed, SELECT, link, t) mod len``.

A packet released at ``r`` that needs ``d`` hops without waiting is delivered at ``r + d``;
``completion_cycles`` is the largest ``delivered``, the number of cycles the run takes.

Data layout
-----------
Queues are doubly linked lists threaded through the packet arrays (``pkt_next``,
``pkt_prev``), one list ("bag") per link for fifo/random and one per (link, remaining
distance) for srpf/lrpf, so selection is O(1) for fifo/srpf/lrpf (plus a scan over empty
distance classes) and O(len) for random. Links with packets are found through a two-level
bitmap, so a cycle costs O(links that send) and not O(N).

Notes
-----
Bieniek et al. (papers/000), section III: "In each synchronized communication cycle at most
one message can be transferred to each neighbor node. For each link a queue is maintained";
SRPF, LRPF and FIFO of sections III.A-C.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.engine.rng import STREAM_PATH, STREAM_SELECT, STREAM_TIE, draw, draw_below
from netsim_fast.routing.table import count_minimal_ports, first_minimal_port, nth_minimal_port

NONE = -1

POLICY_FIFO, POLICY_SRPF, POLICY_LRPF, POLICY_RANDOM = 0, 1, 2, 3
POLICIES = {"fifo": POLICY_FIFO, "srpf": POLICY_SRPF, "lrpf": POLICY_LRPF, "random": POLICY_RANDOM}
PATH_FIXED, PATH_RANDOM = 0, 1
PATH_CHOICES = {"fixed": PATH_FIXED, "random": PATH_RANDOM}

# advance() return codes
RUNNING, DONE, ERR_DEADLOCK = 0, 1, 2

# params[] slots
P_POLICY, P_PATH, P_ONE_PORT, P_CAPACITY, P_CLASSES, P_DEADLOCK, P_NET_PORTS = range(7)
N_PARAMS = 7
# counters[] slots
C_CYCLE, C_INJ_PTR, C_DELIVERED, C_QUEUED, C_HOPS, C_MAX_QUEUE, C_IDLE, C_TS_LEN = range(8)
N_COUNTERS = 8

_U1 = np.uint64(1)
_U63 = np.uint64(63)
_DEBRUIJN64 = np.uint64(0x03F79D71B4CB0A89)
_SHIFT58 = np.uint64(58)
_CTZ_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _CTZ_TABLE[((1 << _i) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _i
del _i


class PacketState(NamedTuple):
    """Engine state (struct of arrays). P packets, L directed links, C distance classes."""

    pkt_dst: np.ndarray        # int32[P]
    pkt_release: np.ndarray    # int64[P]: release cycle
    pkt_node: np.ndarray       # int32[P]: node where it waits (its destination once delivered)
    pkt_port: np.ndarray       # int32[P]: port it waits for at pkt_node
    pkt_hops: np.ndarray       # int32[P]: links crossed so far
    pkt_next: np.ndarray       # int32[P]: next packet in the same bag, NONE at the tail
    pkt_prev: np.ndarray       # int32[P]: previous packet in the same bag, NONE at the head
    pkt_stamp: np.ndarray      # int64[P]: cycle in which it entered its queue (may leave then)
    pkt_tie: np.ndarray        # int64[P]: order among packets with the same stamp
    pkt_delivered: np.ndarray  # int64[P]: delivery cycle (see module docstring), -1 before
    inj_order: np.ndarray      # int32[P]: packet ids sorted by (release, id)
    link_node: np.ndarray      # int32[L]: node holding the queue
    link_to: np.ndarray        # int32[L]: node at the far end
    link_len: np.ndarray       # int32[L]: packets queued
    link_lo: np.ndarray        # int32[L]: no non-empty class below (srpf); C when empty
    link_hi: np.ndarray        # int32[L]: no non-empty class above (lrpf); -1 when empty
    link_transit: np.ndarray   # int32[L]: transit packets queued or granted (bounded buffers)
    bag_head: np.ndarray       # int32[L * C]
    bag_tail: np.ndarray       # int32[L * C]
    act_l1: np.ndarray         # uint64[ceil(L/64)]: bit l set iff link l has packets
    act_l2: np.ndarray         # uint64[ceil(L/4096)]: bit w set iff act_l1[w] != 0
    node_rr: np.ndarray        # int32[N]: one-port round-robin pointer (next port to try)
    moved_pkt: np.ndarray      # int32[L]: scratch, packets sent this cycle
    moved_link: np.ndarray     # int32[L]: scratch, the links they crossed
    ts_queued: np.ndarray      # int64[B]: packets queued at the start of each cycle of the batch
    ts_sent: np.ndarray        # int64[B]: packets sent (link traversals) per cycle
    ts_delivered: np.ndarray   # int64[B]: packets delivered per cycle
    params: np.ndarray         # int64[N_PARAMS]
    seed: np.ndarray           # uint64[1]
    counters: np.ndarray       # int64[N_COUNTERS]


def new_state(n_nodes, n_net_ports, link_node, link_to, src, dst, release, *, policy, path_choice,
              one_port, queue_capacity, n_classes, deadlock_cycles, seed_u64, batch_cycles):
    """Allocate a fresh state (plain Python). Arguments as in ``PacketState``."""
    n_pkt = dst.shape[0]
    n_links = link_node.shape[0]
    n_bags = n_links * n_classes
    n_w1 = max(1, (n_links + 63) // 64)
    n_w2 = max(1, (n_w1 + 63) // 64)
    params = np.zeros(N_PARAMS, np.int64)
    params[P_POLICY] = policy
    params[P_PATH] = path_choice
    params[P_ONE_PORT] = int(one_port)
    params[P_CAPACITY] = queue_capacity
    params[P_CLASSES] = n_classes
    params[P_DEADLOCK] = deadlock_cycles
    params[P_NET_PORTS] = n_net_ports
    return PacketState(
        pkt_dst=np.ascontiguousarray(dst, np.int32),
        pkt_release=np.ascontiguousarray(release, np.int64),
        pkt_node=np.ascontiguousarray(src, np.int32).copy(),
        pkt_port=np.full(n_pkt, NONE, np.int32),
        pkt_hops=np.zeros(n_pkt, np.int32),
        pkt_next=np.full(n_pkt, NONE, np.int32),
        pkt_prev=np.full(n_pkt, NONE, np.int32),
        pkt_stamp=np.zeros(n_pkt, np.int64),
        pkt_tie=np.zeros(n_pkt, np.int64),
        pkt_delivered=np.full(n_pkt, -1, np.int64),
        inj_order=np.argsort(release, kind="stable").astype(np.int32),
        link_node=np.ascontiguousarray(link_node, np.int32),
        link_to=np.ascontiguousarray(link_to, np.int32),
        link_len=np.zeros(n_links, np.int32),
        link_lo=np.full(n_links, n_classes, np.int32),
        link_hi=np.full(n_links, -1, np.int32),
        link_transit=np.zeros(n_links, np.int32),
        bag_head=np.full(n_bags, NONE, np.int32),
        bag_tail=np.full(n_bags, NONE, np.int32),
        act_l1=np.zeros(n_w1, np.uint64),
        act_l2=np.zeros(n_w2, np.uint64),
        node_rr=np.zeros(n_nodes, np.int32),
        moved_pkt=np.zeros(n_links, np.int32),
        moved_link=np.zeros(n_links, np.int32),
        ts_queued=np.zeros(batch_cycles, np.int64),
        ts_sent=np.zeros(batch_cycles, np.int64),
        ts_delivered=np.zeros(batch_cycles, np.int64),
        params=params,
        seed=np.array([seed_u64], dtype=np.uint64),
        counters=np.zeros(N_COUNTERS, np.int64),
    )


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------


@njit(**JIT)
def _ctz(x):
    """Index of the lowest set bit of a non-zero uint64 (de Bruijn multiplication)."""
    return _CTZ_TABLE[((x & (~x + _U1)) * _DEBRUIJN64) >> _SHIFT58]


@njit(**JIT)
def _mark_active(st, link):
    w = link >> 6
    st.act_l1[w] |= _U1 << np.uint64(link & 63)
    st.act_l2[w >> 6] |= _U1 << np.uint64(w & 63)


@njit(**JIT)
def _mark_idle(st, link):
    w = link >> 6
    st.act_l1[w] &= ~(_U1 << np.uint64(link & 63))
    if st.act_l1[w] == 0:
        st.act_l2[w >> 6] &= ~(_U1 << np.uint64(w & 63))


@njit(**JIT)
def choose_port(table, path_choice, seed, node, dst, pkt, hops):
    """The port a packet at ``node`` takes towards ``dst`` (module docstring)."""
    if path_choice == PATH_FIXED:
        return first_minimal_port(table, node, dst)
    count = count_minimal_ports(table, node, dst)
    if count <= 1:
        return first_minimal_port(table, node, dst)
    return nth_minimal_port(table, node, dst, draw_below(seed, STREAM_PATH, pkt, hops, count))


@njit(**JIT)
def _enqueue(st, table, pkt, link, stamp, tie, at_tail):
    """Put ``pkt`` in the queue of ``link`` in queue order; ``at_tail`` for released messages."""
    n_classes = st.params[P_CLASSES]
    cls = 0
    if n_classes > 1:
        cls = np.int64(table.dist[st.link_node[link], st.pkt_dst[pkt]])
    bag = link * n_classes + cls
    st.pkt_stamp[pkt] = stamp
    st.pkt_tie[pkt] = tie
    after = st.bag_tail[bag]
    if not at_tail:
        # same-cycle arrivals sit at the tail; walk back past those with a larger key
        while after != NONE and st.pkt_stamp[after] == stamp and st.pkt_tie[after] > tie:
            after = st.pkt_prev[after]
    st.pkt_prev[pkt] = after
    if after == NONE:
        st.pkt_next[pkt] = st.bag_head[bag]
        st.bag_head[bag] = pkt
    else:
        st.pkt_next[pkt] = st.pkt_next[after]
        st.pkt_next[after] = pkt
    nxt = st.pkt_next[pkt]
    if nxt == NONE:
        st.bag_tail[bag] = pkt
    else:
        st.pkt_prev[nxt] = pkt
    length = st.link_len[link] + 1
    st.link_len[link] = length
    if length == 1:
        _mark_active(st, link)
    if cls < st.link_lo[link]:
        st.link_lo[link] = cls
    if cls > st.link_hi[link]:
        st.link_hi[link] = cls
    if length > st.counters[C_MAX_QUEUE]:
        st.counters[C_MAX_QUEUE] = length
    st.counters[C_QUEUED] += 1


@njit(**JIT)
def _unlink(st, table, pkt, link):
    n_classes = st.params[P_CLASSES]
    cls = 0
    if n_classes > 1:
        cls = np.int64(table.dist[st.link_node[link], st.pkt_dst[pkt]])
    bag = link * n_classes + cls
    prv = st.pkt_prev[pkt]
    nxt = st.pkt_next[pkt]
    if prv == NONE:
        st.bag_head[bag] = nxt
    else:
        st.pkt_next[prv] = nxt
    if nxt == NONE:
        st.bag_tail[bag] = prv
    else:
        st.pkt_prev[nxt] = prv
    length = st.link_len[link] - 1
    st.link_len[link] = length
    if length == 0:
        _mark_idle(st, link)
        st.link_lo[link] = n_classes
        st.link_hi[link] = -1
    st.counters[C_QUEUED] -= 1


@njit(**JIT)
def _select(st, link, cycle):
    """The packet the policy sends from ``link`` this cycle (the queue is non-empty)."""
    policy = st.params[P_POLICY]
    n_classes = st.params[P_CLASSES]
    base = link * n_classes
    if policy == POLICY_FIFO:
        return st.bag_head[base]
    if policy == POLICY_SRPF:
        c = st.link_lo[link]
        while st.bag_head[base + c] == NONE:
            c += 1
        st.link_lo[link] = c
        return st.bag_head[base + c]
    if policy == POLICY_LRPF:
        c = st.link_hi[link]
        while st.bag_head[base + c] == NONE:
            c -= 1
        st.link_hi[link] = c
        return st.bag_head[base + c]
    k = draw_below(st.seed[0], STREAM_SELECT, link, cycle, st.link_len[link])
    pkt = st.bag_head[base]
    for _ in range(k):
        pkt = st.pkt_next[pkt]
    return pkt


@njit(**JIT)
def _admit(st, link_id, table, pkt, link):
    """Bounded buffers: reserve a place downstream for ``pkt`` crossing ``link``, or refuse."""
    capacity = st.params[P_CAPACITY]
    if capacity <= 0:
        return True
    v = st.link_to[link]
    dst = st.pkt_dst[pkt]
    if v == dst:
        return True
    port = choose_port(table, st.params[P_PATH], st.seed[0], v, dst, pkt, st.pkt_hops[pkt] + 1)
    nxt = link_id[v, port]
    if st.link_transit[nxt] >= capacity:
        return False
    st.link_transit[nxt] += 1
    return True


@njit(**JIT)
def _try_send(st, link_id, table, link, cycle, n_moved):
    """Select and, if admitted, detach the packet of ``link``; returns the new move count."""
    pkt = _select(st, link, cycle)
    if not _admit(st, link_id, table, pkt, link):
        return n_moved
    _unlink(st, table, pkt, link)
    st.moved_pkt[n_moved] = pkt
    st.moved_link[n_moved] = link
    return n_moved + 1


@njit(**JIT)
def _send_one_port(st, link_id, table, node, cycle, n_moved):
    """One-port node: the first port, round-robin from node_rr, whose packet can leave."""
    n_ports = st.params[P_NET_PORTS]
    start = st.node_rr[node]
    for k in range(n_ports):
        port = (start + k) % n_ports
        link = link_id[node, port]
        if link < 0 or st.link_len[link] == 0:
            continue
        moved = _try_send(st, link_id, table, link, cycle, n_moved)
        if moved > n_moved:
            st.node_rr[node] = (port + 1) % n_ports
            return moved
    return n_moved


@njit(**JIT)
def _release(st, link_id, table, cycle):
    """Step 1: queue the messages released in ``cycle`` at their sources, in message order."""
    n_pkt = st.inj_order.shape[0]
    ptr = st.counters[C_INJ_PTR]
    path = st.params[P_PATH]
    seed = st.seed[0]
    while ptr < n_pkt:
        pkt = st.inj_order[ptr]
        if st.pkt_release[pkt] > cycle:
            break
        ptr += 1
        node = st.pkt_node[pkt]
        port = choose_port(table, path, seed, node, st.pkt_dst[pkt], pkt, 0)
        st.pkt_port[pkt] = port
        _enqueue(st, table, pkt, link_id[node, port], cycle, np.int64(pkt), True)
    st.counters[C_INJ_PTR] = ptr


@njit(**JIT)
def _send_all(st, link_id, table, cycle):
    """Step 2: every active link (or, one-port, every active node) sends; returns the count."""
    one_port = st.params[P_ONE_PORT] != 0
    n_moved = 0
    last_node = -1
    for i2 in range(st.act_l2.shape[0]):
        x2 = st.act_l2[i2]
        while x2 != 0:
            j2 = _ctz(x2)
            x2 &= x2 - _U1
            w = i2 * 64 + j2
            x1 = st.act_l1[w]
            while x1 != 0:
                link = w * 64 + _ctz(x1)
                x1 &= x1 - _U1
                if one_port:
                    node = st.link_node[link]
                    if node != last_node:
                        last_node = node
                        n_moved = _send_one_port(st, link_id, table, node, cycle, n_moved)
                else:
                    n_moved = _try_send(st, link_id, table, link, cycle, n_moved)
    return n_moved


@njit(**JIT)
def _arrive_all(st, link_id, table, cycle, n_moved):
    """Step 3: packets sent in ``cycle`` arrive; returns how many were delivered."""
    capacity = st.params[P_CAPACITY]
    path = st.params[P_PATH]
    seed = st.seed[0]
    delivered = 0
    for k in range(n_moved):
        pkt = st.moved_pkt[k]
        link = st.moved_link[k]
        hops = st.pkt_hops[pkt]
        if capacity > 0 and hops > 0:
            st.link_transit[link] -= 1  # its place upstream frees only now
        hops += 1
        st.pkt_hops[pkt] = hops
        node = st.link_to[link]
        st.pkt_node[pkt] = node
        dst = st.pkt_dst[pkt]
        if node == dst:
            st.pkt_delivered[pkt] = cycle + 1
            delivered += 1
            continue
        port = choose_port(table, path, seed, node, dst, pkt, hops)
        st.pkt_port[pkt] = port
        tie = np.int64(draw(seed, STREAM_TIE, pkt, hops) >> np.uint64(33)) << 32 | np.int64(pkt)
        _enqueue(st, table, pkt, link_id[node, port], cycle + 1, tie, False)
    return delivered


@njit(**JIT)
def advance(st, link_id, table, n_cycles):
    """Run up to ``n_cycles`` cycles (and at most the batch length of the ts_* arrays).

    Parameters
    ----------
    st : PacketState
    link_id : int32[N, n_ports]
        Topology link ids.
    table : MinimalTable
    n_cycles : int

    Returns
    -------
    int: ``DONE`` when every packet is delivered, ``ERR_DEADLOCK`` when no packet moved for
    ``params[P_DEADLOCK]`` cycles while packets were queued, else ``RUNNING``.
    ``counters[C_TS_LEN]`` tells how many ts_* entries this call wrote.
    """
    n_pkt = st.pkt_dst.shape[0]
    limit = min(n_cycles, st.ts_sent.shape[0])
    deadlock = st.params[P_DEADLOCK]
    st.counters[C_TS_LEN] = 0
    if st.counters[C_DELIVERED] == n_pkt:
        return DONE
    for b in range(limit):
        cycle = st.counters[C_CYCLE]
        _release(st, link_id, table, cycle)
        st.ts_queued[b] = st.counters[C_QUEUED]
        n_moved = _send_all(st, link_id, table, cycle)
        delivered = _arrive_all(st, link_id, table, cycle, n_moved)
        st.ts_sent[b] = n_moved
        st.ts_delivered[b] = delivered
        st.counters[C_HOPS] += n_moved
        st.counters[C_DELIVERED] += delivered
        st.counters[C_CYCLE] = cycle + 1
        st.counters[C_TS_LEN] = b + 1
        if st.counters[C_DELIVERED] == n_pkt:
            return DONE
        if n_moved == 0 and st.counters[C_QUEUED] > 0:
            st.counters[C_IDLE] += 1
            if deadlock > 0 and st.counters[C_IDLE] >= deadlock:
                return ERR_DEADLOCK
        else:
            st.counters[C_IDLE] = 0
    return RUNNING
