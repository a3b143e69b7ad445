"""Synchronous store-and-forward packet engine: the Numba kernel ``advance``.

Its state (arrays, data layout, allocation, the queues: a ring per link, or per link and
remaining distance for srpf/lrpf) is in state.py, the paths the packets follow in paths.py, the rings' pool in
pool.py.

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
driver computes every packet's whole path before the run (paths.py); the kernel
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

The cycle loop is one function on purpose (``_cycles``, inlined into ``advance`` and its
specialised twins ``advance_fifo`` ...): Numba keeps reference-count updates for every array
passed to a helper that contains a loop, which made a helper-per-step kernel more than ten
times slower; helpers are called only on rare paths (a ring that grows). The twins fix the
policy and the options at compile time; ``kernel_for`` picks the one a state's ``params``
allow, and every twin runs exactly the cycles ``advance`` runs.

Notes
-----
Bieniek et al. (papers/000), section III: "In each synchronized communication cycle at most
one message can be transferred to each neighbor node. For each link a queue is maintained";
SRPF, LRPF and FIFO of sections III.A-C.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import highest_set_bit, lowest_set_bit
from netsim_fast._jit import JIT
from netsim_fast.packet.prefetch import prefetch
from netsim_fast.packet.pool import (
    BG_CAP, BG_HEAD, BG_LEN, BG_OFF, FIRST_CAP, RG_PKT, grow_bag,
)
from netsim_fast.packet.rng import STREAM_SELECT, STREAM_TIE, draw_keyed, draw_keyed_below, stream_key
from netsim_fast.packet.state import (
    C_CYCLE, C_DELIVERED, C_HOPS, C_IDLE, C_INJ_PTR,
    C_MAX_QUEUE, C_PENDING, C_POOL_TOP, C_QUEUED, C_TS_LEN, LK_NODE, LK_TRANSIT, LQ_CLASSES,
    LQ_LEN, NONE, P_CAPACITY, P_CLASSES, P_DEADLOCK, P_NET_PORTS, P_ONE_PORT, P_POLICY, PK_HDR,
    PK_PATH, HOPS_MASK, LEN_SHIFT, POLICY_FIFO, POLICY_LRPF, POLICY_RANDOM, POLICY_SRPF,
    TS_DELIVERED, TS_QUEUED, TS_SENT,
)

# advance() return codes
RUNNING, DONE, ERR_DEADLOCK = 0, 1, 2

_TIE_BITS = 31
_U1 = np.uint64(1)
_U33 = np.uint64(64 - _TIE_BITS)
_LINE = 16  # ring entries (int32) per 64-byte cache line


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
    params = st.params
    return _cycles(st, n_cycles, params[P_POLICY], params[P_CLASSES] > 1,
                   params[P_ONE_PORT] != 0, params[P_CAPACITY])


# The same run as ``advance`` with the options fixed at compile time, for the common case
# (all ports, unbounded queues): the constants let LLVM drop the branches of the other
# options from the hot loops (about 20 % of the time per hop). ``kernel_for`` picks one.
@njit(**JIT)
def advance_fifo(st, n_cycles):
    """``advance`` for fifo, one class, all ports, unbounded queues."""
    return _cycles(st, n_cycles, POLICY_FIFO, False, False, 0)


@njit(**JIT)
def advance_srpf(st, n_cycles):
    """``advance`` for srpf with more than one distance class, all ports, unbounded queues."""
    return _cycles(st, n_cycles, POLICY_SRPF, True, False, 0)


@njit(**JIT)
def advance_lrpf(st, n_cycles):
    """``advance`` for lrpf with more than one distance class, all ports, unbounded queues."""
    return _cycles(st, n_cycles, POLICY_LRPF, True, False, 0)


@njit(**JIT)
def advance_random(st, n_cycles):
    """``advance`` for random, one class, all ports, unbounded queues."""
    return _cycles(st, n_cycles, POLICY_RANDOM, False, False, 0)


def kernel_for(params):
    """The kernel to call for a state's ``params``: a specialised one if it fits, else ``advance``."""
    if params[P_ONE_PORT] == 0 and params[P_CAPACITY] == 0:
        multi = params[P_CLASSES] > 1
        fast = {(POLICY_FIFO, False): advance_fifo, (POLICY_SRPF, True): advance_srpf,
                (POLICY_LRPF, True): advance_lrpf, (POLICY_RANDOM, False): advance_random}
        return fast.get((int(params[P_POLICY]), bool(multi)), advance)
    return advance


@njit(**dict(JIT, inline="always"))
def _cycles(st, n_cycles, policy, multi, one_port, capacity):
    """The body of ``advance``; ``multi``: more than one distance class (srpf, lrpf)."""
    pkt = st.pkt
    release = st.pkt_release
    delivered_at = st.pkt_delivered
    inj_order = st.inj_order
    by_id = inj_order.shape[0] == 0  # released in id order (state.new_state)
    lnk = st.lnk
    bag = st.bag
    ring = st.ring
    free_rings = st.free_rings
    lq = st.lq
    touched = st.touched
    fresh = st.fresh
    link_sent = st.link_sent
    act_l1 = st.act_l1
    act_l2 = st.act_l2
    node_rr = st.node_rr
    node_link = st.node_link
    moved = st.moved
    pending = st.pending
    pend_g = st.pend_g
    pend_link = st.pend_link
    multi_bags = st.multi_bags
    gone = st.gone
    ts = st.ts
    counters = st.counters
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

        # -- 1. enqueue: last cycle's arrivals (random tie order), then this cycle's releases.
        # The arrive step computed each arrival's bag, so this loop reads no packet row, and it
        # has no branch on the tie: a bag's second arrival lists it in ``multi``, whose fresh
        # entries are put in tie order below, before any release joins them.
        n_pending = counters[C_PENDING]
        n_touched = 0
        n_multi = 0
        for k in range(n_pending):
            p = pending[k]
            g = pend_g[k]
            n = bag[g, BG_LEN]
            if n == bag[g, BG_CAP]:
                top = counters[C_POOL_TOP]
                if n == 0 and top + FIRST_CAP <= ring.shape[0]:
                    # a bag's first ring, here rather than by a call: srpf/lrpf on a large
                    # network have many small bags, most of them empty at first
                    bag[g, BG_OFF] = top
                    bag[g, BG_CAP] = FIRST_CAP
                    bag[g, BG_HEAD] = 0
                    counters[C_POOL_TOP] = top + FIRST_CAP
                else:
                    grow_bag(bag, ring, counters, C_POOL_TOP, g, free_rings)
            ring[bag[g, BG_OFF] + ((bag[g, BG_HEAD] + n) & (bag[g, BG_CAP] - 1)), RG_PKT] = p
            bag[g, BG_LEN] = n + 1
            m = fresh[g]
            fresh[g] = m + 1
            touched[n_touched] = g
            n_touched += np.int64(m == 0)
            multi_bags[n_multi] = g
            n_multi += np.int64(m == 1)
            length = n + 1
            link = g
            if multi:
                link = pend_link[k]
                length = lq[link, LQ_LEN] + 1
                lq[link, LQ_LEN] = length
                lq[link, LQ_CLASSES] |= np.int64(1) << (g - link * n_classes)
            if length == 1:
                w = link >> 6
                act_l1[w] |= _U1 << np.uint64(link & 63)
                act_l2[w >> 6] |= _U1 << np.uint64(w & 63)
            max_queue = max(max_queue, length)
        # same-cycle arrivals of a bag in (tie, id) order: insertion sort of its fresh tail
        for i in range(n_multi):
            g = multi_bags[i]
            m = fresh[g]
            off = bag[g, BG_OFF]
            mask = bag[g, BG_CAP] - 1
            base = bag[g, BG_HEAD] + bag[g, BG_LEN] - m
            for j in range(1, m):
                p = ring[off + ((base + j) & mask), RG_PKT]
                tie = draw_keyed(tie_key, p, pkt[p, PK_HDR] & HOPS_MASK) >> _U33
                pos = j
                while pos > 0:
                    a = ring[off + ((base + pos - 1) & mask), RG_PKT]
                    tq = draw_keyed(tie_key, a, pkt[a, PK_HDR] & HOPS_MASK) >> _U33
                    if tq < tie or (tq == tie and a < p):
                        break
                    ring[off + ((base + pos) & mask), RG_PKT] = a
                    pos -= 1
                ring[off + ((base + pos) & mask), RG_PKT] = p
        for i in range(n_touched):
            fresh[touched[i]] = 0
        n_enqueued = n_pending
        ptr = counters[C_INJ_PTR]
        while ptr < n_pkt:
            p = ptr if by_id else inj_order[ptr]
            if release[p] > cycle:
                break
            ptr += 1
            hdr = pkt[p, PK_HDR]
            hops = hdr & HOPS_MASK
            link = np.int64(pkt[p, PK_PATH + hops])
            # a ring per link, or per (link, remaining distance) with srpf/lrpf (state.py)
            g = link
            if multi:
                cls = np.int64((hdr >> LEN_SHIFT) - hops)
                g = link * n_classes + cls
            # appending to bag g, as the arrivals above do: written out twice because a shared
            # helper (njit inline="always") made the kernel 1.4-1.8x slower (bench/packet_speed.py
            # alternated with the written-out kernel, 2026-11-26 16:13 UTC)
            n = bag[g, BG_LEN]
            if n == bag[g, BG_CAP]:
                top = counters[C_POOL_TOP]
                if n == 0 and top + FIRST_CAP <= ring.shape[0]:
                    bag[g, BG_OFF] = top
                    bag[g, BG_CAP] = FIRST_CAP
                    bag[g, BG_HEAD] = 0
                    counters[C_POOL_TOP] = top + FIRST_CAP
                else:
                    grow_bag(bag, ring, counters, C_POOL_TOP, g, free_rings)
            ring[bag[g, BG_OFF] + ((bag[g, BG_HEAD] + n) & (bag[g, BG_CAP] - 1)), RG_PKT] = p
            bag[g, BG_LEN] = n + 1
            length = n + 1
            if multi:
                length = lq[link, LQ_LEN] + 1
                lq[link, LQ_LEN] = length
                lq[link, LQ_CLASSES] |= np.int64(1) << cls
            if length == 1:
                w = link >> 6
                act_l1[w] |= _U1 << np.uint64(link & 63)
                act_l2[w >> 6] |= _U1 << np.uint64(w & 63)
            max_queue = max(max_queue, length)
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
                w = i2 * 64 + lowest_set_bit(x2)
                x2 &= x2 - _U1
                x1 = act_l1[w]
                while x1 != 0:
                    first = w * 64 + lowest_set_bit(x1)
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
                            if link < 0 or (bag[link, BG_LEN] == 0 if not multi
                                            else lq[link, LQ_LEN] == 0):
                                continue
                        # select by policy: bag g, position k in queue order
                        g = link * n_classes if multi else link
                        k = 0
                        if policy == POLICY_SRPF:
                            g += lowest_set_bit(np.uint64(lq[link, LQ_CLASSES]))
                        elif policy == POLICY_LRPF:
                            g += highest_set_bit(lq[link, LQ_CLASSES])
                        elif policy == POLICY_RANDOM:
                            k = draw_keyed_below(select_key, link, cycle, bag[g, BG_LEN])
                        off = bag[g, BG_OFF]
                        mask = bag[g, BG_CAP] - 1
                        head = bag[g, BG_HEAD]
                        p = np.int64(ring[off + ((head + k) & mask), RG_PKT])
                        # bounded buffers: reserve a transit place downstream or idle
                        if capacity > 0:
                            hdr = pkt[p, PK_HDR]
                            hops = hdr & HOPS_MASK
                            if hops + 1 < hdr >> LEN_SHIFT:
                                nlink = pkt[p, PK_PATH + hops + 1]
                                if lnk[nlink, LK_TRANSIT] >= capacity:
                                    continue
                                lnk[nlink, LK_TRANSIT] += 1
                        # remove entry k: shift the entries before it one place back
                        n = bag[g, BG_LEN]
                        for j in range(k, 0, -1):
                            ring[off + ((head + j) & mask), RG_PKT] = \
                                ring[off + ((head + j - 1) & mask), RG_PKT]
                        bag[g, BG_HEAD] = (head + 1) & mask
                        bag[g, BG_LEN] = n - 1
                        # the row of the packet this ring sends next, likely in the next cycle:
                        # queued packets' rows are seldom in the cache, and that is the only time
                        # known early enough for its load to be complete when the row is read
                        prefetch(pkt, ring[off + ((head + 1) & mask), RG_PKT])
                        # and its entries a cache line ahead: written when the packets
                        # joined, long ago for a long ring
                        prefetch(ring, off + ((head + _LINE) & mask))
                        length = n - 1
                        if multi:
                            # clear the class bit iff its bag emptied (no branch)
                            lq[link, LQ_CLASSES] &= ~(np.int64(n == 1) << (g - link * n_classes))
                            length = lq[link, LQ_LEN] - 1
                            lq[link, LQ_LEN] = length
                        # clear the link's bit iff its queue emptied, the word's iff it emptied
                        if length == 0:
                            lw = link >> 6
                            act_l1[lw] &= ~(_U1 << np.uint64(link & 63))
                            if act_l1[lw] == 0:
                                act_l2[lw >> 6] &= ~(_U1 << np.uint64(lw & 63))
                        moved[n_moved] = p
                        n_moved += 1
                        prefetch(pkt, p)  # its row is read in the arrive step
                        link_sent[link] += 1
                        if one_port:
                            node_rr[node] = (port + 1) % n_ports
                        break
        queued -= n_moved

        # -- 3. arrive: deliver, or wait to be queued at the start of the next cycle. No branch
        # on the packet's row: a mispredicted one would discard the row loads the CPU has
        # started for the next packets. Survivors are listed in ``pending``, the delivered in
        # ``gone`` (not compacted in ``moved`` itself: its loads would wait for those stores).
        n_delivered = 0
        n_left = 0
        for k in range(n_moved):
            p = moved[k]
            hdr = pkt[p, PK_HDR]
            if capacity > 0 and (hdr & HOPS_MASK) > 0:
                lnk[pkt[p, PK_PATH + (hdr & HOPS_MASK)], LK_TRANSIT] -= 1  # its place frees only now
            hdr += 1
            pkt[p, PK_HDR] = hdr
            hops = hdr & HOPS_MASK
            done = np.int64(hops == (hdr >> LEN_SHIFT))
            # the bag it joins (a delivered packet reads its last link, in its row, and is dropped)
            link = np.int64(pkt[p, PK_PATH + hops - done])
            pending[n_left] = p
            if multi:
                pend_link[n_left] = link
                pend_g[n_left] = link * n_classes + (hdr >> LEN_SHIFT) - hops
            else:
                pend_g[n_left] = link
            n_left += 1 - done
            gone[n_delivered] = p
            n_delivered += done
        for k in range(n_delivered):
            delivered_at[gone[k]] = cycle + 1
        counters[C_PENDING] = n_left

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
