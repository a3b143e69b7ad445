"""One njit entry point for every routing algorithm, dispatched by integer code."""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.routing import DOR, DOR_NODATELINE, DUATO
from netsim_fast.routing.grid import grid_next_hops


@njit(**KERNEL_JIT)
def next_hops(code, radix, wrap, coord, dim_port, n_vcs, cur, src, dst, out):
    """Write candidate rows for a header at ``cur`` (``!= dst``); see the ``routing`` docstring.

    Takes the topology's arrays one by one (not the ``TopoArrays`` tuple): a tuple argument
    would be reference-counted member by member on every call.
    """
    if code == DOR or code == DUATO or code == DOR_NODATELINE:
        return grid_next_hops(code, radix, wrap, coord, dim_port, n_vcs, cur, src, dst, out)
    return 0
