"""Dimension-order routing as a next-hop table, for the packet engine on grids.

The packet engine routes from a ``MinimalTable`` (routing/table.py): allowed ports per (node,
destination), each one hop closer. ``dor`` on a torus, mesh or hypercube is minimal (every
dimension is corrected along its shorter way round), so it is such a table with exactly one
port per entry: the port the flit engine's ``dor`` takes (``routing/grid.py``, the same tie
rule at distance k/2). Dateline VC classes have no meaning without virtual channels, so the
packet engine's ``dor`` is the flit engine's path, not its buffer discipline.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.routing.grid import minimal_directions
from netsim_fast.routing.table import MinimalTable, all_pairs_distances, table_from_masks


@njit(**JIT)
def _dor_masks(radix, wrap, coord, dim_port, mask):
    """Set bit ``port`` of ``mask[dst, node]`` for the dimension-order port towards ``dst``."""
    n_nodes = coord.shape[0]
    for dst in range(n_nodes):
        for node in range(n_nodes):
            for d in range(radix.shape[0]):
                cur_c, dst_c = coord[node, d], coord[dst, d]
                if cur_c == dst_c:
                    continue
                plus, _ = minimal_directions(radix, wrap, d, cur_c, dst_c, False)
                port = dim_port[d, 0] if plus else dim_port[d, 1]
                mask[dst, node, port >> 3] |= np.uint8(1 << (port & 7))
                break


def build_dor_table(topo) -> MinimalTable:
    """The ``dor`` path of a grid topology as a one-port ``MinimalTable``.

    Parameters
    ----------
    topo : Topology
        A torus, mesh or hypercube (``topo.is_grid``).

    Returns
    -------
    MinimalTable
        ``dist`` int16[N, N] (hop distances), ``port_mask`` uint8[N (dst), N (node), W] with one
        bit per (node, destination), none for node == destination.
    """
    arrays = topo.arrays
    n_bytes = max(1, (topo.n_ports + 7) // 8)
    mask = np.zeros((topo.n_nodes, topo.n_nodes, n_bytes), dtype=np.uint8)
    _dor_masks(arrays.radix, arrays.wrap, arrays.coord, arrays.dim_port, mask)
    return table_from_masks(all_pairs_distances(topo), mask)


def build_packet_table(topo, routing: str) -> MinimalTable:
    """The packet engine's table for ``--routing minimal`` (any topology) or ``dor`` (grids)."""
    if routing == "dor":
        return build_dor_table(topo)
    from netsim_fast.routing.table import build_minimal_table

    return build_minimal_table(topo)
