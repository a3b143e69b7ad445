"""The packet engine's state: its data layout, parameter and counter slots, and allocation.

Data layout
-----------
One int32 row per packet, ``pkt[p, :]``: a header ``len << LEN_SHIFT | hops`` (``PK_HDR``:
the path's length and the links crossed so far) followed by the packet's path (link ids),
so a hop reads one cache line of the packet and no routing table; ``len - hops`` is the
remaining distance (the srpf/lrpf class). Rows are 8 ints (32 bytes) when the paths fit,
else whole 64-byte lines, and the array starts on a line: half the memory of 64-byte rows
on the 256-node benchmark (paths of up to 7 links), so fewer rows miss the cache.

Queues ("bags"): one per link for fifo/random, one per (link, remaining distance) for
srpf/lrpf; each a ring buffer of packet ids carved out of one pool (pool.py), 4 bytes an
entry, with ``fresh[g]`` counting the entries at the tail that entered from a link in this
cycle (the only ones an arrival is compared with: their tie is recomputed from (packet,
hops)). Sending pops a ring head, arriving pushes at a ring tail, so a hop reads no other
packet's row; ``random`` shifts the entries ahead of the chosen one. Selection is O(1) for
fifo, and for srpf/lrpf through a per-link bitmask of non-empty distance classes (so paths
are limited to ``MAX_CLASSES - 1`` hops with these policies).
Links with packets are found through a two-level bitmap, so a cycle costs O(packets sent),
not O(N).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from netsim_fast import _arrays as aligned
from netsim_fast._jit import JIT

from netsim_fast.packet.pool import BG_FIELDS, FIRST_CAP, pool_size

NONE = -1

# params[P_POLICY]: the selection policies (kernel.py)
POLICY_FIFO, POLICY_SRPF, POLICY_LRPF, POLICY_RANDOM = 0, 1, 2, 3
POLICIES = {"fifo": POLICY_FIFO, "srpf": POLICY_SRPF, "lrpf": POLICY_LRPF, "random": POLICY_RANDOM}

# pkt[p, .]: the header (int32), then the path from column PK_PATH
PK_HDR = 0
HOPS_MASK = 0xFFFF  # hdr & HOPS_MASK: links crossed; it waits for pkt[p, PK_PATH + hops]
LEN_SHIFT = 16      # hdr >> LEN_SHIFT: path length in links
MAX_PATH = 0x7FFF   # the longest path a header holds
PK_PATH = 1
# lnk[l, .] fields (int64)
LK_NODE = 0     # node holding the queue
LK_TO = 1       # node at the far end
# lq[l, .] fields (int64), apart from lnk so that the srpf/lrpf hot loop reads 16 bytes a link
LQ_LEN = 0      # packets queued (all classes); unused with one class (the bag's length)
LQ_CLASSES = 1  # srpf/lrpf: bit c set iff the bag of remaining distance c is non-empty
MAX_CLASSES = 63  # distance classes a LQ_CLASSES bitmask holds (bits 0..62 of an int64)
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


class PacketState(NamedTuple):
    """Engine state. P packets, L directed links, C distance classes, B cycles per batch."""

    pkt: np.ndarray            # int32[P, PK_PATH + max path length, padded to 8 or 16k]
    pkt_release: np.ndarray    # int64[P]: release cycle
    pkt_delivered: np.ndarray  # int64[P]: delivery cycle (kernel.py); see undelivered_to_minus_one
    inj_order: np.ndarray      # int64[P]: packet ids sorted by (release, id); empty: in id order
    lnk: np.ndarray            # int64[L, LK_FIELDS]
    lq: np.ndarray             # int64[L, 2]: queue length and class mask (LQ_*)
    link_sent: np.ndarray      # int64[L]: packets sent over each link so far
    bag: np.ndarray            # int32[L * C, BG_FIELDS]: the bags' rings (pool.BG_*)
    ring: np.ndarray           # int32[S, 1]: the ring pool, a packet id per entry
    free_rings: np.ndarray     # int64[64]: free blocks of the pool by log2 capacity (pool.py)
    touched: np.ndarray        # int64[L]: scratch, bags entered from a link in this cycle
    fresh: np.ndarray          # int32[L * C]: entries at a bag's tail that entered from a link in this cycle
    act_l1: np.ndarray         # uint64[ceil(L/64)]: bit l set iff link l has packets
    act_l2: np.ndarray         # uint64[ceil(L/4096)]: bit w set iff act_l1[w] != 0
    node_rr: np.ndarray        # int64[N]: one-port round-robin pointer (next port to try)
    node_link: np.ndarray      # int64[N, n_net_ports]: link id of (node, port), NONE if unused
    moved: np.ndarray          # int64[L]: scratch, packets sent in this cycle
    pending: np.ndarray        # int64[L]: packets sent in the last cycle and not delivered
    pend_g: np.ndarray         # int64[L]: the bag each of them joins
    pend_link: np.ndarray      # int64[L]: and its link (srpf/lrpf)
    multi_bags: np.ndarray     # int64[L]: scratch, bags entered by two or more of them
    gone: np.ndarray           # int64[L]: scratch, packets delivered in this cycle
    ts: np.ndarray             # int64[B, 3]: queued at the start, sent, delivered per cycle
    params: np.ndarray         # int64[N_PARAMS]
    seed: np.ndarray           # uint64[1]
    counters: np.ndarray       # int64[N_COUNTERS]


@njit(**JIT)
def link_table(link_id, nbr):
    """``lnk`` (int64[L, LK_FIELDS]): each link's two nodes, the other fields zero; one pass
    over ``link_id`` instead of sorting ``topo.links()`` (ids are dense, ``0 .. L-1``, so L is
    the largest id + 1)."""
    n_links = 0
    for u in range(link_id.shape[0]):
        for port in range(link_id.shape[1]):
            n_links = max(n_links, np.int64(link_id[u, port]) + 1)
    lnk = np.zeros((n_links, LK_FIELDS), np.int64)
    for u in range(link_id.shape[0]):
        for port in range(link_id.shape[1]):
            lid = link_id[u, port]
            if lid >= 0:
                lnk[lid, LK_NODE] = u
                lnk[lid, LK_TO] = nbr[u, port]
    return lnk


def new_state(link_id, nbr, src, dst, release, max_len, *, policy, one_port, queue_capacity,
              n_classes, deadlock_cycles, seed_u64, batch_cycles, in_order=None):
    """Allocate a fresh state (plain Python, and ``link_table``); ``paths.compute_paths`` fills
    ``pkt``. ``in_order``: whether ``release`` never decreases, if the caller knows it
    (paths.scan_messages). ``pkt_delivered`` is not -1 for undelivered packets until
    ``undelivered_to_minus_one`` runs (needed after an unfinished run only)."""
    n_pkt = dst.shape[0]
    lnk = link_table(link_id, nbr)
    n_links = lnk.shape[0]
    n_nodes, n_net_ports = link_id.shape[0], link_id.shape[1] - 1
    n_w1 = max(1, (n_links + 63) // 64)
    n_w2 = max(1, (n_w1 + 63) // 64)
    width = 8 if PK_PATH + max_len <= 8 else -(-(PK_PATH + max_len) // 16) * 16
    release = np.ascontiguousarray(release, np.int64)
    if in_order is None:
        in_order = release.size < 2 or bool((release[1:] >= release[:-1]).all())
    if in_order:  # no identity permutation to write (2 MB at 262,144 packets) and read
        inj_order = np.zeros(0, np.int64)
    else:
        inj_order = np.argsort(release, kind="stable").astype(np.int64)
    # every row is written by paths.compute_paths; on a cache line, no row straddles two
    pkt = _touched(aligned.empty((n_pkt, width), np.int32))
    # written by the kernel for each packet it delivers: a finished run writes every entry,
    # so no -1 fill up front (undelivered_to_minus_one fills the rest of an unfinished one)
    delivered = _touched(np.empty(n_pkt, np.int64))
    n_bags = n_links * n_classes
    params = np.zeros(N_PARAMS, np.int64)
    params[P_POLICY] = policy
    params[P_ONE_PORT] = int(one_port)
    params[P_CAPACITY] = queue_capacity
    params[P_CLASSES] = n_classes
    params[P_DEADLOCK] = deadlock_cycles
    params[P_NET_PORTS] = n_net_ports
    return PacketState(
        pkt=pkt,
        pkt_release=release,
        pkt_delivered=delivered,
        inj_order=inj_order,
        lnk=lnk,
        lq=np.zeros((n_links, 2), np.int64),
        link_sent=np.zeros(n_links, np.int64),
        bag=np.zeros((n_bags, BG_FIELDS), np.int32),
        # the pool: an entry is written before it is read (pool.py; the kernel's prefetch may
        # peek past a ring's last entry, a hint that cannot fault), so no zero fill; its pages
        # are touched so that first-touch faults stay in setup, as a zero fill had them
        ring=_touched(np.empty((pool_size(n_pkt, n_bags, FIRST_CAP), 1), np.int32)),
        free_rings=np.full(64, -1, np.int64),
        touched=np.zeros(max(n_links, 1), np.int64),
        fresh=np.zeros(max(n_bags, 1), np.int32),
        act_l1=np.zeros(n_w1, np.uint64),
        act_l2=np.zeros(n_w2, np.uint64),
        node_rr=np.zeros(n_nodes, np.int64),
        node_link=np.ascontiguousarray(link_id[:, :n_net_ports], np.int64),
        moved=np.zeros(max(n_links, 1), np.int64),
        pending=np.zeros(max(n_links, 1), np.int64),
        pend_g=np.zeros(max(n_links, 1), np.int64),
        pend_link=np.zeros(max(n_links, 1), np.int64),
        multi_bags=np.zeros(max(n_links, 1), np.int64),
        gone=np.zeros(max(n_links, 1), np.int64),
        ts=np.zeros((batch_cycles, 3), np.int64),
        params=params,
        seed=np.array([seed_u64], dtype=np.uint64),
        counters=np.zeros(N_COUNTERS, np.int64),
    )


def _touched(a: np.ndarray) -> np.ndarray:
    """``a`` with one write per 4 KiB page: the pages' first-touch faults are setup, not
    simulation (the kernel writes these arrays at random)."""
    a.reshape(-1).view(np.uint8)[::4096] = 0xFF
    return a


def undelivered_to_minus_one(pkt: np.ndarray, delivered: np.ndarray) -> None:
    """Set ``delivered`` to -1 for the packets that have not crossed their whole path (a run
    the watchdog or ``max_cycles`` stopped); the kernel wrote the others."""
    hdr = pkt[:, PK_HDR]
    delivered[(hdr & HOPS_MASK) < (hdr >> LEN_SHIFT)] = NONE
