"""Minimal routing on a dragonfly (Kim et al., 2008): at most one global hop, local-global-local.

``minimal`` elsewhere is every shortest path of the graph, but on a dragonfly with few
terminals per router a shortest path can take two global hops (a router's global link into a
third group whose router links to the destination), which is not the dragonfly's minimal
routing and spreads adversarial traffic over links it should not use. Here a packet in its
source group goes straight to the destination group over a global link of its own router, or
first over a local link to a router of its group that has one; in the destination group one
local hop remains. Every route with that shape and the fewest hops is allowed (all of them:
an adaptive choice among equal ones), and ``dist`` is its length, at most 3, so the flit
engine's hop classes need 3 VCs (4 with the default).

Built from the port tables and the group size alone (``router id = group · A + r``); a
dragonfly with failed links falls back to the graph's shortest paths.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.routing.table import MinimalTable, table_from_masks

_FAR = 1 << 12  # no such route (well above any hop count, well below int16's limit)


def build_dragonfly_table(topo) -> MinimalTable:
    """The local-global-local minimal routing of a dragonfly (see the module docstring)."""
    a = int(topo.params["group_routers"])
    n, nbr = topo.n_nodes, topo.arrays.nbr
    net_ports = range(topo.n_ports - 1)
    group = np.arange(n) // a
    same = group[:, None] == group[None, :]
    local_only = np.where(same, 1, _FAR).astype(np.int32)  # [node, dst]: local hops only
    np.fill_diagonal(local_only, 0)
    valid = nbr >= 0
    is_global = valid & (group[np.maximum(nbr, 0)] != group[:, None])
    is_local = valid & ~is_global
    via_global = np.full((n, n), _FAR, np.int32)  # leave over one of the node's own global links
    for p in net_ports:
        w = np.maximum(nbr[:, p], 0)
        via_global = np.where(is_global[:, p, None], np.minimum(via_global, 1 + local_only[w]), via_global)
    dist = np.minimum(local_only, via_global)
    for p in net_ports:  # or first over a local link to a router of the group that has one
        w = np.maximum(nbr[:, p], 0)
        dist = np.where(is_local[:, p, None] & ~same, np.minimum(dist, 1 + via_global[w]), dist)
    n_bytes = -(-(topo.n_ports) // 8)
    mask = np.zeros((n, n, n_bytes), np.uint8)  # [node, dst, byte] while building
    for p in net_ports:
        w = np.maximum(nbr[:, p], 0)
        into_group = same & (np.arange(n)[None, :] == w[:, None])  # the last local hop
        leave = ~same & (1 + local_only[w] == dist)  # the global hop
        reach = ~same & (1 + via_global[w] == dist)  # the first local hop
        allowed = np.where(is_global[:, p, None], leave, np.where(is_local[:, p, None], into_group | reach, False))
        mask[:, :, p // 8] |= (allowed.astype(np.uint8) << np.uint8(p % 8))
    return table_from_masks(dist, mask.transpose(1, 0, 2))  # the table is indexed [dst, node]
