"""Packet paths, computed before the run: the port a packet takes at each node
(``choose_port``) and every packet's whole path (``compute_paths``); the one-pass check of
the messages (``scan_messages``).

The rule (``fixed`` or ``random`` minimal port per hop) is part of the cycle semantics in
kernel.py. It is a pure function of (seed, packet, hop, node), so the driver fills each
packet's row of the state (state.py: ``pkt[p, :]``, header and path) once, before the first
cycle, and the kernel only reads the path.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.packet.prefetch import prefetch_at
from netsim_fast.packet.rng import STREAM_PATH, draw_below
from netsim_fast.packet.state import LEN_SHIFT, PK_HDR, PK_PATH
from netsim_fast.routing.table import _LOWBIT8, count_in_mask, first_in_mask, nth_in_mask

PATH_FIXED, PATH_RANDOM = 0, 1
PATH_CHOICES = {"fixed": PATH_FIXED, "random": PATH_RANDOM}


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

# scan_messages: the first message of each kind of bad input
BAD_ENDPOINT, BAD_SELF, BAD_UNREACHABLE, BAD_RELEASE = range(4)


# scan_messages: tables above this size are not in the cache when a run starts (the last run
# evicted them), so each message's distance is a miss: prefetched a block of this many
# messages ahead, the misses overlap (4096 nodes, 32 MB table: 4.9 -> 2.4 ms of a 0.1 s call)
_SCAN_TABLE_IN_CACHE_BYTES = 1 << 20
_SCAN_AHEAD = 64


@njit(**JIT)
def scan_messages(src, dst, release, dist, hops):
    """One pass over the messages: the longest path, the first bad message of each kind,
    whether the release cycles are in message order, and each message's distance in ``hops``
    (int64[P], written).

    Returns ``(max_len, first, in_order)`` with ``first[k]`` the index of the first message of
    kind ``k`` (``BAD_*``: an endpoint outside ``0..N-1``, a message to itself, an unreachable
    destination, a negative release cycle), -1 if there is none, and ``in_order`` true iff
    ``release`` never decreases (state.new_state then needs no sort). Unreachable is only
    judged for messages whose endpoints are nodes.

    ``hops`` is the links each packet of a finished run crossed (its path follows ports that
    each lower ``dist`` by one), read here from the distances the checks read anyway instead of
    from every packet row after the run (0.7 ms of 30 at 256 nodes, bench/packet_speed.py).

    The pass only finds whether anything is wrong (no branch per message, so the loops
    vectorise); a second pass then finds each kind's first message (``_first_bad``), for bad
    input only.
    """
    n = dist.shape[0]
    n_msg = src.shape[0]
    acc = np.array([0, 1, 0], np.int64)  # _distances: longest, shortest, outside
    if dist.size * dist.itemsize <= _SCAN_TABLE_IN_CACHE_BYTES:
        _distances(src, dst, dist, 0, n_msg, acc, hops)
    else:
        for lo in range(0, n_msg, _SCAN_AHEAD):
            hi = min(lo + _SCAN_AHEAD, n_msg)
            for i in range(hi, min(hi + _SCAN_AHEAD, n_msg)):  # the next block's distances
                prefetch_at(dist, min(max(src[i], 0), n - 1), min(max(dst[i], 0), n - 1))
            _distances(src, dst, dist, lo, hi, acc, hops)
    max_len, min_len, outside = acc[0], acc[1], acc[2]
    min_release = 0 if n_msg == 0 else min(0, release[0])
    unordered = 0
    for i in range(1, n_msg):
        min_release = min(min_release, release[i])
        unordered |= np.int64(release[i] < release[i - 1])
    in_order = unordered == 0
    first = np.full(4, -1, np.int64)
    if outside != 0 or min_len < 1 or min_release < 0:
        _first_bad(src, dst, release, dist, first)
    return max_len, first, in_order


@njit(**JIT)
def _distances(src, dst, dist, lo, hi, acc, hops):
    """Messages ``lo .. hi-1``: their distances into ``hops``, and ``acc`` = (longest distance,
    shortest distance, non-zero if an endpoint is outside ``0..N-1``) updated. No branch: the
    loop vectorises."""
    n = dist.shape[0]
    max_len, min_len, outside = acc[0], acc[1], acc[2]
    for i in range(lo, hi):
        s = np.int64(src[i])
        d = np.int64(dst[i])
        # an endpoint outside 0..n-1 reads a clamped one (and is reported by _first_bad)
        s_in = min(max(s, 0), n - 1)
        d_in = min(max(d, 0), n - 1)
        outside |= (s ^ s_in) | (d ^ d_in)
        h = np.int64(dist[s_in, d_in])
        hops[i] = h
        max_len = max(max_len, h)
        min_len = min(min_len, h)  # 0: a message to itself, -1: unreachable
    acc[0], acc[1], acc[2] = max_len, min_len, outside


@njit(**JIT)
def _first_bad(src, dst, release, dist, first):
    """``first`` of ``scan_messages``: the first message of each kind of bad input."""
    n = dist.shape[0]
    for i in range(src.shape[0]):
        s = src[i]
        d = dst[i]
        if s < 0 or d < 0 or s >= n or d >= n:
            if first[BAD_ENDPOINT] < 0:
                first[BAD_ENDPOINT] = i
            continue
        if s == d and first[BAD_SELF] < 0:
            first[BAD_SELF] = i
        if dist[s, d] < 1 and first[BAD_UNREACHABLE] < 0:
            first[BAD_UNREACHABLE] = i
        if release[i] < 0 and first[BAD_RELEASE] < 0:
            first[BAD_RELEASE] = i


@njit(**JIT)
def compute_paths(pkt, src, dst, order, port_mask, link_id, nbr, path_choice, seed):
    """Write the header (length, no hops crossed) and the path of every packet's row of ``pkt``.

    The rest of a row (the columns after the path) is never read. The header's width
    (``PK_PATH``, ``LEN_SHIFT``) is compiled in here: a change to it must change this file too, or Numba's
    cache keeps the old value.

    ``order`` lists the packets grouped by destination, so the table row of one destination
    (``port_mask[dst]``) serves all its packets from the cache; an empty ``order`` takes
    the packets in id order (rows written one after the other: the better order when the
    whole table fits in the cache). Blocks of ``_PATH_BLOCK`` packets advance one hop at a
    time (finished ones leave the block's list), so their dependent lookups interleave.
    """
    fast = path_choice == PATH_FIXED and port_mask.shape[2] == 1
    by_id = order.shape[0] == 0
    n_pkt = dst.shape[0]
    act_pkt = np.empty(_PATH_BLOCK, np.int64)
    act_node = np.empty(_PATH_BLOCK, np.int64)
    act_dst = np.empty(_PATH_BLOCK, np.int64)
    for lo in range(0, n_pkt, _PATH_BLOCK):
        n_act = 0
        for i in range(lo, min(n_pkt, lo + _PATH_BLOCK)):
            p = i if by_id else order[i]
            act_pkt[n_act] = p
            act_node[n_act] = src[p]
            act_dst[n_act] = dst[p]
            n_act += 1
        hop = 0
        while n_act > 0:
            kept = 0
            for j in range(n_act):
                p = act_pkt[j]
                node = act_node[j]
                dst_j = act_dst[j]
                if node == dst_j:
                    pkt[p, PK_HDR] = hop << LEN_SHIFT
                    continue
                if fast:
                    port = np.int64(_LOWBIT8[port_mask[dst_j, node, 0]])
                else:
                    port = choose_port(port_mask, path_choice, seed, node, dst_j, p, hop)
                pkt[p, PK_PATH + hop] = link_id[node, port]
                act_pkt[kept] = p
                act_node[kept] = nbr[node, port]
                act_dst[kept] = dst_j
                kept += 1
            n_act = kept
            hop += 1


@njit(**JIT)
def copy_pair_paths(pkt, src, dst, pair_rows, n_nodes):
    """Each packet's row from the row of its (source, destination) pair: ``pair_rows[src * N +
    dst]``, filled by ``compute_paths`` for every pair (fixed paths depend on the pair alone)."""
    for p in range(pkt.shape[0]):
        r = src[p] * n_nodes + dst[p]
        for c in range(pkt.shape[1]):
            pkt[p, c] = pair_rows[r, c]
