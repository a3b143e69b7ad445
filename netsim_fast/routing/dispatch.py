"""One njit entry point for every routing algorithm, dispatched by integer code."""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.routing import DOR, DOR_NODATELINE, DUATO, TABLE
from netsim_fast.routing.grid import grid_next_hops


@njit(**KERNEL_JIT)
def table_next_hops(port_mask, class_vcs, cur, dst, hops, out):
    """Rows for a table routing: every allowed port of ``port_mask[dst, cur]``, on the VCs of
    hop class ``hops`` (VCs ``hops*class_vcs .. +class_vcs-1``). Classes strictly increase
    along a route, so the channel dependency graph is acyclic whatever the table."""
    rows = 0
    lo = hops * class_vcs
    for byte in range(port_mask.shape[2]):
        bits = port_mask[dst, cur, byte]
        port = byte * 8
        while bits:
            if bits & 1:
                out[rows, 0] = port
                out[rows, 1] = lo
                out[rows, 2] = lo + class_vcs - 1
                out[rows, 3] = 0
                rows += 1
            bits >>= 1
            port += 1
    return rows


@njit(**KERNEL_JIT)
def next_hops(code, radix, wrap, coord, dim_port, port_mask, class_vcs, n_vcs, cur, src, dst, hops, out):
    """Write candidate rows for a header at ``cur`` (``!= dst``) that has crossed ``hops``
    links; see the ``routing`` docstring.

    Takes the topology's arrays one by one (not the ``TopoArrays`` tuple): a tuple argument
    would be unpacked member by member on every call.
    """
    if code == TABLE:
        return table_next_hops(port_mask, class_vcs, cur, dst, hops, out)
    if code == DOR or code == DUATO or code == DOR_NODATELINE:
        return grid_next_hops(code, radix, wrap, coord, dim_port, n_vcs, cur, src, dst, out)
    return 0
