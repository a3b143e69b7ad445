"""A BMG router of papers/001 as a next-port table, so both engines can route with it.

Every router of ``routing/bmg.py`` depends only on (node, destination) and is deterministic,
so it is a ``MinimalTable`` (routing/table.py) with one port per entry. ``dist`` holds the
length of the router's own route (not the BFS distance: only ``bmg-bfs``/``bmg-equiclass``
route on shortest paths), which is what the packet engine's SRPF/LRPF call remaining distance
and what the flit engine's hop classes must cover.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.routing.bmg import CODES, bmg_next_hop, check_loops, hop_cap, table_for
from netsim_fast.routing.table import MinimalTable
from netsim_fast.errors import ConfigError


@njit(**JIT)
def _route_lengths(code, n, loops, table):
    """Length of the router's route from 0 to every d (BMG is a circulant: length depends on
    (dst - src) mod n only); -1 if the hop cap is exceeded."""
    length = np.zeros(n, np.int64)
    cap = hop_cap(n)
    for d in range(1, n):
        cur, hops = 0, 0
        while cur != d and hops <= cap:
            cur = bmg_next_hop(code, n, loops, cur, d, table)
            hops += 1
        length[d] = hops if cur == d else -1
    return length


@njit(**JIT)
def _next_offsets(code, n, loops, table):
    """Offset (next - cur) mod n of the first hop from 0 towards every d."""
    off = np.zeros(n, np.int64)
    for d in range(1, n):
        off[d] = (bmg_next_hop(code, n, loops, 0, d, table) - 0) % n
    return off


@njit(**JIT)
def _fill(n, length, offset, port_of_offset, dist, mask):
    for dst in range(n):
        for node in range(n):
            d = (dst - node) % n
            dist[node, dst] = length[d]
            if d != 0:
                port = port_of_offset[offset[d]]
                mask[dst, node, port >> 3] |= np.uint8(1 << (port & 7))


def build_bmg_table(topo, routing: str, loops: int = 4) -> MinimalTable:
    """Next-port table of BMG router ``routing`` on the BMG topology ``topo``."""
    if topo.kind != "bmg":
        raise ConfigError(f"--routing {routing}: the BMG routers need --topology bmg, got {topo.kind}")
    check_loops(loops)
    n = topo.n_nodes
    code = CODES[routing]
    table = table_for(code, n)
    length = _route_lengths(code, n, loops, table)
    if np.any(length[1:] < 0):
        bad = int(np.nonzero(length < 0)[0][0])
        raise ConfigError(f"--routing {routing} loops on a {n}-node BMG (no route from 0 to {bad} within {hop_cap(n)} hops)")
    offset = _next_offsets(code, n, loops, table)
    port_of_offset = np.full(n, -1, np.int64)
    row = topo.nbr[0, : topo.local_port]
    port_of_offset[row[row >= 0]] = np.nonzero(row >= 0)[0]
    dist = np.zeros((n, n), np.int16)
    mask = np.zeros((n, n, max(1, (topo.n_ports + 7) // 8)), np.uint8)
    _fill(n, length, offset, port_of_offset, dist, mask)
    return MinimalTable(dist=dist, port_mask=mask)
