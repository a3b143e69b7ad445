"""BookSim2's concentrated mesh (``cmesh``, src/networks/cmesh.cpp): a k x k mesh of routers
with express channels along its four edges, four terminals per router.

Routers are numbered as on the mesh (``x + k*y``) and keep the mesh's ports and coordinates
(``+x, -x, +y, -y``), so dimension-order routing runs on it unchanged. The ports a mesh leaves
unused on its border carry the express channels instead: the ``+x`` port of a router on the
right edge ``(k-1, y)`` reaches the ``+x`` port of ``(k-1, y ± k/2)`` (the one of the other half
of the edge), and likewise ``-x`` on the left edge, ``-y`` on the bottom edge and ``+y`` on the
top edge along their edges. ``k`` must be even and at least 4 (k = 2 would double a mesh link;
with an odd k BookSim2's express channels are not pairwise).

Channel lengths (``cmesh_wire_lengths``): BookSim2 lays each router out as a 2 x 2 tile of
terminals, so a mesh channel spans 2 terminal pitches and an express channel k/2 tiles, 2 * k/2 = k
pitches; with ``use_noc_latency`` those are its cycles.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import Topology, finish_arrays
from netsim_fast.topologies.torus import mesh

CMESH_CONCENTRATION = 4  # BookSim2 asserts c == 4 (its cmesh is "broken for c != 4")
TILE = 2  # terminals along each side of a router's tile (BookSim2's xr = yr = 2)


def cmesh(k: int) -> Topology:
    """The k x k concentrated mesh with express channels (module docstring); terminals are added
    by ``concentrate`` (topologies/base.py) like every topology's."""
    k = int(k)
    if k < 4 or k % 2:
        raise ValueError(f"a cmesh needs an even k >= 4, not {k}")
    grid = mesh((k, k))
    a = grid.arrays
    nbr = a.nbr[:, :4].astype(np.int64)  # +x, -x, +y, -y; the local port is added again below
    x, y = a.coord[:, 0].astype(np.int64), a.coord[:, 1].astype(np.int64)
    half = k // 2
    across_y = x + k * ((y + half) % k)  # the router half an edge away along y
    across_x = (x + half) % k + k * y    # ... along x
    for port, edge, partner in ((0, x == k - 1, across_y), (1, x == 0, across_y),
                                (2, y == k - 1, across_x), (3, y == 0, across_x)):
        nbr[edge, port] = partner[edge]
    arrays = finish_arrays(nbr, radix=a.radix, wrap=a.wrap, coord=a.coord, port_dim=a.port_dim, port_dir=a.port_dir,
                           dim_port=a.dim_port)
    return Topology(kind="cmesh", params={"k": k}, arrays=arrays, vertex_transitive=False)


def cmesh_wire_lengths(topo: Topology) -> np.ndarray:
    """int64[N, P]: terminal pitches spanned by the channel leaving each router port (0 on the
    terminals' ports): ``TILE`` on a mesh channel, ``TILE * k/2`` on an express channel."""
    k = int(topo.params["k"])
    nbr = topo.arrays.nbr
    coord = topo.arrays.coord.astype(np.int64)
    lengths = np.zeros(nbr.shape, np.int64)
    for port in range(4):
        used = nbr[:, port] >= 0
        other = nbr[used, port]
        span = np.abs(coord[used, 0] - coord[other, 0]) + np.abs(coord[used, 1] - coord[other, 1])
        lengths[used, port] = TILE * np.where(span == 1, 1, k // 2)
    return lengths


__all__ = ["CMESH_CONCENTRATION", "TILE", "cmesh", "cmesh_wire_lengths"]
