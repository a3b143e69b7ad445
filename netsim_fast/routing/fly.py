"""Destination-tag routing on the butterfly (``--topology fly``, ``--routing minimal``): the one
path of a k-ary n-fly, as BookSim2's ``dest_tag_fly`` (routefunc.cpp) takes it.

At stage ``s`` a packet for terminal ``d`` leaves by output ``d_{n-1-s}``, digit ``n-1-s`` of
``d`` in base ``k`` (topologies/fly.py gives the wiring that makes this reach router
``(n-1) k^(n-1) + d // k``, whose local port ``d % k`` ejects it). As a next-port table
(``MinimalTable``, indexed ``[destination router, router]``): router ``(s, a)`` reaches
last-stage router ``(n-1, b)`` exactly when ``a`` and ``b`` agree on their top ``s`` digits,
in ``n-1-s`` hops, by port ``b``'s digit ``n-2-s``. Other pairs are unreachable (-1):
no packet is ever there.

**VCs.** Every VC at every hop (code ``DEST_TAG``), as BookSim2 gives them: a route only ever
goes from stage ``s`` to stage ``s+1``, so a channel into stage ``s+1`` waits only for channels
into later stages and the channel dependency graph is acyclic with any number of VCs (Dally and
Seitz 1987, Theorem 1; ``netsim-fast check-deadlock --topology fly`` proves it per configuration).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.routing.table import MinimalTable, table_from_masks


def build_fly_table(topo) -> MinimalTable:
    """The destination-tag table of a k-ary n-fly built by ``topologies.fly`` (module docstring)."""
    k, n = int(topo.params["k"]), int(topo.params["n"])
    per_stage = k ** (n - 1)
    routers = topo.n_nodes
    node = np.arange(routers, dtype=np.int64)
    stage, addr = node // per_stage, node % per_stage
    last = (n - 1) * per_stage + np.arange(per_stage, dtype=np.int64)  # the destination routers
    b = last - (n - 1) * per_stage
    dist = np.full((routers, routers), -1, np.int16)
    mask = np.zeros((routers, routers, -(-topo.n_ports // 8)), np.uint8)  # [dst, node, byte]
    np.fill_diagonal(dist, 0)
    for s in range(n - 1):
        here = node[stage == s]
        top = k ** (n - 1 - s)  # the top s digits of an address: address // top
        reach = (addr[here, None] // top) == (b[None, :] // top)  # [router of stage s, destination]
        port = (b // k ** (n - 2 - s)) % k
        rows, cols = np.nonzero(reach)
        dist[here[rows], last[cols]] = n - 1 - s
        mask[last[cols], here[rows], port[cols] // 8] |= (np.uint8(1) << (port[cols] % 8).astype(np.uint8))
    return table_from_masks(dist, mask)


@njit(**KERNEL_JIT)
def dest_tag_next_hops(port_mask, n_vcs, cur, dst, out):
    """The one row of destination-tag routing at ``cur`` (not the destination router): the
    table's port, every VC."""
    for byte in range(port_mask.shape[2]):
        bits = port_mask[dst, cur, byte]
        port = byte * 8
        while bits:
            if bits & 1:
                out[0, 0] = port
                out[0, 1] = 0
                out[0, 2] = n_vcs - 1
                out[0, 3] = 0
                return 1
            bits >>= 1
            port += 1
    return 0


__all__ = ["build_fly_table", "dest_tag_next_hops"]
