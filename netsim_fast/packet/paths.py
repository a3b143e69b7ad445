"""Packet paths, computed before the run: the port a packet takes at each node
(``choose_port``) and every packet's whole path (``compute_paths``).

The rule (``fixed`` or ``random`` minimal port per hop) is part of the cycle semantics in
kernel.py. It is a pure function of (seed, packet, hop, node), so the driver fills each
packet's row of the state (state.py: ``pkt[p, PK_PATH:]`` and ``PK_LEN``, from ``PK_SRC`` and
``PK_DST``) once, before the first cycle, and the kernel only reads it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.packet.rng import STREAM_PATH, draw_below
from netsim_fast.packet.state import PK_DST, PK_LEN, PK_PATH, PK_SRC
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
