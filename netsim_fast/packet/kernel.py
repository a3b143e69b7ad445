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
count`` (rng.py). Because that choice is a pure function of (seed, packet, hop, node), the
driver computes every packet's whole path before the run (``compute_paths``); the kernel
then reads the next link from the packet's own row. This is the same run as choosing at
each arrival, without a routing-table lookup per hop.

A packet's *order* in a queue is: the cycle it entered; among packets entering together from
links, a random key ``draw(seed, TIE, packet, hops)`` with the packet id as the last resort;
released messages behind those, in message order. Selection policies:

* ``fifo``: the first packet in queue order;
* ``srpf`` / ``lrpf``: the packet with the smallest / largest remaining distance
  ``dist[u, dst]``, ties by queue order (so by the seeded random key among simultaneous
  arrivals);
* ``random``: the ``k``-th packet in queue order, ``k = draw(seed, SELECT, link, t) mod len``.

A packet released at ``r`` that needs ``d`` hops without waiting is delivered at ``r + d``;
``completion_cycles`` is the largest ``delivered``, the number of cycles the run takes.

Data layout
-----------
One int32 row per packet, ``pkt[p, :]``: four header fields (``PK_*``) followed by the
packet's path (link ids), so a hop reads one cache line of the packet and no routing table;
``PK_LEN - PK_HOPS`` is the remaining distance (the srpf/lrpf class). Queues are ring
buffers of packet ids ("bags": one per link for fifo/random, one per (link, remaining
distance) for srpf/lrpf) carved out of one pool (packet_pool.py), each entry beside its
order key ``stamp << 31 | tie``; sending pops a ring head, arriving pushes at a ring tail,
so a hop touches no other packet. Selection is O(1) for fifo, and for srpf/lrpf through a
per-link bitmask of non-empty distance classes (so paths are limited to ``MAX_CLASSES - 1``
hops with these policies); ``random`` shifts the entries ahead of the chosen one.
Links with packets are found through a two-level bitmap, so a cycle costs O(packets sent),
not O(N).

``advance`` is one function on purpose: Numba keeps reference-count updates for every array
passed to a helper that contains a loop, which made a helper-per-step kernel more than ten
times slower; helpers are called only on rare paths (a ring that grows).

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
from netsim_fast.packet.pool import (
    BG_CAP,
    BG_FIELDS,
    BG_HEAD,
    BG_LEN,
    BG_OFF,
    RG_KEY,
    RG_PKT,
    grow_bag,
    pool_size,
)
from netsim_fast.packet.rng import (
    STREAM_PATH,
    STREAM_SELECT,
    STREAM_TIE,
    draw_below,
    draw_keyed,
    draw_keyed_below,
    stream_key,
)
from netsim_fast.routing.table import _LOWBIT8, count_in_mask, first_in_mask, nth_in_mask

NONE = -1

POLICY_FIFO, POLICY_SRPF, POLICY_LRPF, POLICY_RANDOM = 0, 1, 2, 3
POLICIES = {"fifo": POLICY_FIFO, "srpf": POLICY_SRPF, "lrpf": POLICY_LRPF, "random": POLICY_RANDOM}
PATH_FIXED, PATH_RANDOM = 0, 1
PATH_CHOICES = {"fixed": PATH_FIXED, "random": PATH_RANDOM}

# advance() return codes
RUNNING, DONE, ERR_DEADLOCK = 0, 1, 2

# pkt[p, .] header fields (int32); the path follows from column PK_PATH
PK_HOPS = 0  # links crossed so far; the link it waits for is pkt[p, PK_PATH + hops]
PK_LEN = 1   # path length in links
PK_DST = 2   # destination node
PK_SRC = 3   # source node
PK_PATH = 4
# lnk[l, .] fields (int64)
LK_NODE = 0     # node holding the queue
LK_TO = 1       # node at the far end
LK_LEN = 2      # packets queued (all classes); unused with one class (the bag's length)
LK_CLASSES = 3  # srpf/lrpf: bit c set iff the bag of remaining distance c is non-empty
MAX_CLASSES = 63  # distance classes a LK_CLASSES bitmask holds (bits 0..62 of an int64)
LK_TRANSIT = 5  # bounded buffers: transit packets queued or granted a place
LK_FIELDS = 8
# ts[b, .] per-cycle series
TS_QUEUED, TS_SENT, TS_DELIVERED = 0, 1, 2

# params[] slots
P_POLICY, P_ONE_PORT, P_CAPACITY, P_CLASSES, P_DEADLOCK, P_NET_PORTS = range(6)
N_PARAMS = 6
# counters[] slots
(C_CYCLE, C_INJ_PTR, C_DELIVERED, C_QUEUED, C_HOPS, C_MAX_QUEUE, C_IDLE, C_TS_LEN,
 C_PENDING, C_POOL_TOP) = range(10)
N_COUNTERS = 10

_TIE_BITS = 31
_U1 = np.uint64(1)
_U33 = np.uint64(64 - _TIE_BITS)
_DEBRUIJN64 = np.uint64(0x03F79D71B4CB0A89)
_SHIFT58 = np.uint64(58)
_CTZ_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _CTZ_TABLE[((1 << _i) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _i
del _i


class PacketState(NamedTuple):
    """Engine state. P packets, L directed links, C distance classes, B cycles per batch."""

    pkt: np.ndarray            # int32[P, PK_PATH + max path length, padded to 16]
    pkt_release: np.ndarray    # int64[P]: release cycle
    pkt_delivered: np.ndarray  # int64[P]: delivery cycle (module docstring), -1 before
    inj_order: np.ndarray      # int64[P]: packet ids sorted by (release, id)
    lnk: np.ndarray            # int64[L, LK_FIELDS]
    bag: np.ndarray            # int32[L * C, BG_FIELDS]: ring offset, capacity, head, length
    ring: np.ndarray           # int64[S, 2]: the ring pool, (order key, packet id) per entry
    act_l1: np.ndarray         # uint64[ceil(L/64)]: bit l set iff link l has packets
    act_l2: np.ndarray         # uint64[ceil(L/4096)]: bit w set iff act_l1[w] != 0
    node_rr: np.ndarray        # int64[N]: one-port round-robin pointer (next port to try)
    node_link: np.ndarray      # int64[N, n_net_ports]: link id of (node, port), NONE if unused
    moved: np.ndarray          # int64[L]: packets sent in the last cycle, NONE once delivered
    ts: np.ndarray             # int64[B, 3]: queued at the start, sent, delivered per cycle
    params: np.ndarray         # int64[N_PARAMS]
    seed: np.ndarray           # uint64[1]
    counters: np.ndarray       # int64[N_COUNTERS]


@njit(**JIT)
def choose_port(port_mask, path_choice, seed, node, dst, pkt, hops):
    """The port a packet at ``node`` takes towards ``dst`` (module docstring)."""
    if path_choice == PATH_FIXED:
        return first_in_mask(port_mask, node, dst)
    count = count_in_mask(port_mask, node, dst)
    if count <= 1:
        return first_in_mask(port_mask, node, dst)
    return nth_in_mask(port_mask, node, dst, draw_below(seed, STREAM_PATH, pkt, hops, count))


@njit(**JIT)
def order_by_destination(dst, n_nodes):
    """Packet ids grouped by destination (a counting sort, stable): int64[P]."""
    start = np.zeros(n_nodes + 1, np.int64)
    for p in range(dst.shape[0]):
        start[dst[p] + 1] += 1
    for v in range(n_nodes):
        start[v + 1] += start[v]
    order = np.empty(dst.shape[0], np.int64)
    for p in range(dst.shape[0]):
        order[start[dst[p]]] = p
        start[dst[p]] += 1
    return order


_PATH_BLOCK = 64  # packets routed side by side: independent lookup chains overlap in the CPU


@njit(**JIT)
def compute_paths(pkt, order, port_mask, link_id, nbr, path_choice, seed):
    """Fill ``pkt[:, PK_PATH:]`` and ``PK_LEN`` from ``PK_SRC`` and ``PK_DST``.

    ``order`` lists the packets grouped by destination, so the table row of one destination
    (``port_mask[dst]``) serves all its packets from the cache; blocks of ``_PATH_BLOCK``
    packets advance one hop at a time (finished ones leave the block's list), so their
    dependent lookups interleave.
    """
    fast = path_choice == PATH_FIXED and port_mask.shape[2] == 1
    n_pkt = order.shape[0]
    act_pkt = np.empty(_PATH_BLOCK, np.int64)
    act_node = np.empty(_PATH_BLOCK, np.int64)
    act_dst = np.empty(_PATH_BLOCK, np.int64)
    for lo in range(0, n_pkt, _PATH_BLOCK):
        n_act = 0
        for i in range(lo, min(n_pkt, lo + _PATH_BLOCK)):
            p = order[i]
            act_pkt[n_act] = p
            act_node[n_act] = pkt[p, PK_SRC]
            act_dst[n_act] = pkt[p, PK_DST]
            n_act += 1
        hop = 0
        while n_act > 0:
            kept = 0
            for j in range(n_act):
                p = act_pkt[j]
                node = act_node[j]
                dst = act_dst[j]
                if node == dst:
                    pkt[p, PK_LEN] = hop
                    continue
                if fast:
                    port = np.int64(_LOWBIT8[port_mask[dst, node, 0]])
                else:
                    port = choose_port(port_mask, path_choice, seed, node, dst, p, hop)
                pkt[p, PK_PATH + hop] = link_id[node, port]
                act_pkt[kept] = p
                act_node[kept] = nbr[node, port]
                act_dst[kept] = dst
                kept += 1
            n_act = kept
            hop += 1


def new_state(link_id, link_node, link_to, src, dst, release, max_len, *, policy, one_port,
              queue_capacity, n_classes, deadlock_cycles, seed_u64, batch_cycles):
    """Allocate a fresh state (plain Python); paths are filled by ``compute_paths``."""
    n_pkt = dst.shape[0]
    n_links = link_node.shape[0]
    n_nodes, n_net_ports = link_id.shape[0], link_id.shape[1] - 1
    n_w1 = max(1, (n_links + 63) // 64)
    n_w2 = max(1, (n_w1 + 63) // 64)
    width = -(-(PK_PATH + max_len) // 16) * 16  # whole 64-byte lines per row
    pkt = np.full((n_pkt, width), NONE, np.int32)
    pkt[:, PK_HOPS] = 0
    pkt[:, PK_LEN] = 0
    pkt[:, PK_DST] = dst
    pkt[:, PK_SRC] = src
    lnk = np.zeros((n_links, LK_FIELDS), np.int64)
    lnk[:, LK_NODE] = link_node
    lnk[:, LK_TO] = link_to
    bag = np.zeros((n_links * n_classes, BG_FIELDS), np.int32)
    size = pool_size(n_pkt, n_links * n_classes)
    params = np.zeros(N_PARAMS, np.int64)
    params[P_POLICY] = policy
    params[P_ONE_PORT] = int(one_port)
    params[P_CAPACITY] = queue_capacity
    params[P_CLASSES] = n_classes
    params[P_DEADLOCK] = deadlock_cycles
    params[P_NET_PORTS] = n_net_ports
    return PacketState(
        pkt=pkt,
        pkt_release=np.ascontiguousarray(release, np.int64),
        pkt_delivered=np.full(n_pkt, -1, np.int64),
        inj_order=np.argsort(release, kind="stable").astype(np.int64),
        lnk=lnk,
        bag=bag,
        ring=np.zeros((size, 2), np.int64),
        act_l1=np.zeros(n_w1, np.uint64),
        act_l2=np.zeros(n_w2, np.uint64),
        node_rr=np.zeros(n_nodes, np.int64),
        node_link=np.ascontiguousarray(link_id[:, :n_net_ports], np.int64),
        moved=np.zeros(max(n_links, 1), np.int64),
        ts=np.zeros((batch_cycles, 3), np.int64),
        params=params,
        seed=np.array([seed_u64], dtype=np.uint64),
        counters=np.zeros(N_COUNTERS, np.int64),
    )


@njit(**JIT)
def _ctz(x):
    """Index of the lowest set bit of a non-zero uint64 (de Bruijn multiplication)."""
    return _CTZ_TABLE[((x & (~x + _U1)) * _DEBRUIJN64) >> _SHIFT58]


@njit(**JIT)
def _msb(x):
    """Index of the highest set bit of a positive int64 (binary search)."""
    r = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if x >> shift:
            x >>= shift
            r += shift
    return r


@njit(**JIT)
def advance(st, n_cycles):
    """Run up to ``n_cycles`` cycles (at most the batch length ``st.ts.shape[0]``).

    Parameters
    ----------
    st : PacketState
        With paths computed (``compute_paths``).
    n_cycles : int

    Returns
    -------
    int: ``DONE`` when every packet is delivered, ``ERR_DEADLOCK`` when no packet moved for
    ``params[P_DEADLOCK]`` cycles while packets were queued, else ``RUNNING``.
    ``counters[C_TS_LEN]`` tells how many rows of ``ts`` this call wrote.
    """
    pkt = st.pkt
    release = st.pkt_release
    delivered_at = st.pkt_delivered
    inj_order = st.inj_order
    lnk = st.lnk
    bag = st.bag
    ring = st.ring
    act_l1 = st.act_l1
    act_l2 = st.act_l2
    node_rr = st.node_rr
    node_link = st.node_link
    moved = st.moved
    ts = st.ts
    counters = st.counters
    policy = st.params[P_POLICY]
    one_port = st.params[P_ONE_PORT] != 0
    capacity = st.params[P_CAPACITY]
    n_classes = st.params[P_CLASSES]
    deadlock = st.params[P_DEADLOCK]
    n_ports = st.params[P_NET_PORTS]
    tie_key = stream_key(st.seed[0], STREAM_TIE)
    select_key = stream_key(st.seed[0], STREAM_SELECT)
    n_pkt = pkt.shape[0]
    max_queue = counters[C_MAX_QUEUE]
    queued = counters[C_QUEUED]

    limit = min(n_cycles, ts.shape[0])
    counters[C_TS_LEN] = 0
    if counters[C_DELIVERED] == n_pkt:
        return DONE
    for b in range(limit):
        cycle = counters[C_CYCLE]

        # -- 1. enqueue: last cycle's arrivals (random tie order), then this cycle's releases
        n_pending = counters[C_PENDING]
        ptr = counters[C_INJ_PTR]
        n_enqueued = 0
        k = 0
        while True:
            if k < n_pending:
                p = moved[k]
                k += 1
                if p == NONE:
                    continue  # delivered
                at_tail = False
                key = cycle << _TIE_BITS | np.int64(
                    draw_keyed(tie_key, p, pkt[p, PK_HOPS]) >> _U33)
            else:
                if ptr >= n_pkt:
                    break
                p = inj_order[ptr]
                if release[p] > cycle:
                    break
                ptr += 1
                at_tail = True
                key = cycle << _TIE_BITS
            hops = pkt[p, PK_HOPS]
            link = np.int64(pkt[p, PK_PATH + hops])
            cls = 0
            if n_classes > 1:
                cls = np.int64(pkt[p, PK_LEN] - hops)
            g = link * n_classes + cls
            n = bag[g, BG_LEN]
            if n == bag[g, BG_CAP]:
                grow_bag(bag, ring, counters, C_POOL_TOP, g)
            off = bag[g, BG_OFF]
            mask = bag[g, BG_CAP] - 1
            head = bag[g, BG_HEAD]
            pos = n
            if not at_tail:
                # same-cycle arrivals sit at the tail: move those with a larger key back one
                while pos > 0:
                    j = off + ((head + pos - 1) & mask)
                    kj = ring[j, RG_KEY]
                    if kj < key or (kj == key and ring[j, RG_PKT] < p):
                        break
                    i = off + ((head + pos) & mask)
                    ring[i, RG_KEY] = kj
                    ring[i, RG_PKT] = ring[j, RG_PKT]
                    pos -= 1
            i = off + ((head + pos) & mask)
            ring[i, RG_KEY] = key
            ring[i, RG_PKT] = p
            bag[g, BG_LEN] = n + 1
            length = n + 1  # one bag per link: the bag is the queue
            if n_classes > 1:
                length = lnk[link, LK_LEN] + 1
                lnk[link, LK_LEN] = length
            if length == 1:
                w = link >> 6
                act_l1[w] |= _U1 << np.uint64(link & 63)
                act_l2[w >> 6] |= _U1 << np.uint64(w & 63)
            if n_classes > 1 and n == 0:
                lnk[link, LK_CLASSES] |= np.int64(1) << cls
            if length > max_queue:
                max_queue = length
            n_enqueued += 1
        queued += n_enqueued
        counters[C_INJ_PTR] = ptr
        counters[C_PENDING] = 0
        ts[b, TS_QUEUED] = queued

        # -- 2. send: active links in ascending id (one-port: active nodes, ports round-robin)
        n_moved = 0
        last_node = NONE
        for i2 in range(act_l2.shape[0]):
            x2 = act_l2[i2]
            while x2 != 0:
                w = i2 * 64 + _ctz(x2)
                x2 &= x2 - _U1
                x1 = act_l1[w]
                while x1 != 0:
                    first = w * 64 + _ctz(x1)
                    x1 &= x1 - _U1
                    node = NONE
                    n_try = 1
                    start = 0
                    if one_port:
                        node = lnk[first, LK_NODE]
                        if node == last_node:
                            continue
                        last_node = node
                        n_try = n_ports
                        start = node_rr[node]
                    for t in range(n_try):
                        link = first
                        port = 0
                        if one_port:
                            port = (start + t) % n_ports
                            link = node_link[node, port]
                            if link < 0 or (bag[link, BG_LEN] == 0 if n_classes == 1
                                            else lnk[link, LK_LEN] == 0):
                                continue
                        # select by policy: bag g, position k in queue order
                        g = link * n_classes
                        k = 0
                        if policy == POLICY_SRPF:
                            g += _ctz(np.uint64(lnk[link, LK_CLASSES]))
                        elif policy == POLICY_LRPF:
                            g += _msb(lnk[link, LK_CLASSES])
                        elif policy == POLICY_RANDOM:
                            k = draw_keyed_below(select_key, link, cycle, bag[g, BG_LEN])
                        off = bag[g, BG_OFF]
                        mask = bag[g, BG_CAP] - 1
                        head = bag[g, BG_HEAD]
                        p = ring[off + ((head + k) & mask), RG_PKT]
                        # bounded buffers: reserve a transit place downstream or idle
                        if capacity > 0:
                            hops = pkt[p, PK_HOPS]
                            if hops + 1 < pkt[p, PK_LEN]:
                                nlink = pkt[p, PK_PATH + hops + 1]
                                if lnk[nlink, LK_TRANSIT] >= capacity:
                                    continue
                                lnk[nlink, LK_TRANSIT] += 1
                        # remove entry k: shift the entries before it one place back
                        n = bag[g, BG_LEN]
                        for j in range(k, 0, -1):
                            dst_i = off + ((head + j) & mask)
                            src_i = off + ((head + j - 1) & mask)
                            ring[dst_i, RG_KEY] = ring[src_i, RG_KEY]
                            ring[dst_i, RG_PKT] = ring[src_i, RG_PKT]
                        bag[g, BG_HEAD] = (head + 1) & mask
                        bag[g, BG_LEN] = n - 1
                        length = n - 1
                        if n_classes > 1:
                            if n == 1:
                                lnk[link, LK_CLASSES] &= ~(np.int64(1) << (g - link * n_classes))
                            length = lnk[link, LK_LEN] - 1
                            lnk[link, LK_LEN] = length
                        if length == 0:
                            lw = link >> 6
                            act_l1[lw] &= ~(_U1 << np.uint64(link & 63))
                            if act_l1[lw] == 0:
                                act_l2[lw >> 6] &= ~(_U1 << np.uint64(lw & 63))
                        moved[n_moved] = p
                        n_moved += 1
                        if one_port:
                            node_rr[node] = (port + 1) % n_ports
                        break
        queued -= n_moved

        # -- 3. arrive: deliver, or wait to be queued at the start of the next cycle
        n_delivered = 0
        for k in range(n_moved):
            p = moved[k]
            hops = pkt[p, PK_HOPS]
            if capacity > 0 and hops > 0:
                lnk[pkt[p, PK_PATH + hops], LK_TRANSIT] -= 1  # its place frees only now
            hops += 1
            pkt[p, PK_HOPS] = hops
            if hops == pkt[p, PK_LEN]:
                delivered_at[p] = cycle + 1
                n_delivered += 1
                moved[k] = NONE
        counters[C_PENDING] = n_moved

        ts[b, TS_SENT] = n_moved
        ts[b, TS_DELIVERED] = n_delivered
        counters[C_HOPS] += n_moved
        counters[C_DELIVERED] += n_delivered
        counters[C_CYCLE] = cycle + 1
        counters[C_TS_LEN] = b + 1
        counters[C_MAX_QUEUE] = max_queue
        counters[C_QUEUED] = queued
        if counters[C_DELIVERED] == n_pkt:
            return DONE
        if n_moved == 0 and queued > 0:
            counters[C_IDLE] += 1
            if deadlock > 0 and counters[C_IDLE] >= deadlock:
                return ERR_DEADLOCK
        else:
            counters[C_IDLE] = 0
    return RUNNING
