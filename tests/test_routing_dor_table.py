"""``routing/dor_table.py``: dimension-order routing as the packet engine's next-hop table."""

import numpy as np

from netsim_fast.routing import DOR, MAX_ROWS
from netsim_fast.routing.dor_table import build_dor_table
from netsim_fast.routing.grid import grid_next_hops
from netsim_fast.routing.table import build_minimal_table, first_in_mask
from netsim_fast.topologies import hypercube, mesh, torus


def test_dor_table_takes_the_flit_engines_dor_port():
    out = np.zeros((MAX_ROWS, 4), np.int32)
    for topo in (torus([5, 4]), torus([4, 3, 2]), mesh([3, 4]), hypercube(3)):
        a = topo.arrays
        table, minimal = build_dor_table(topo), build_minimal_table(topo)
        assert np.all(table.port_mask & minimal.port_mask == table.port_mask)  # dor is minimal
        for node in range(topo.n_nodes):
            for dst in range(topo.n_nodes):
                port = first_in_mask(table.port_mask, node, dst)
                if node == dst:
                    assert port == -1
                    continue
                grid_next_hops(DOR, a.radix, a.wrap, a.coord, a.dim_port, 2, node, node, dst, out)
                assert port == out[0, 0]
