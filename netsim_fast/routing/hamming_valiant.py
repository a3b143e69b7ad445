"""Non-minimal routing on the Hamming graphs (flattened butterfly, HyperX): ``valiant``,
``ugal-l``, ``ugal-g``.

Minimal routing there is dimension order: one hop per dimension in which the router differs
from the target, lowest dimension first (the lowest port of the minimal table, since ports go
dimension by dimension: topologies/direct.py). **Valiant** sends every packet by dimension
order to an intermediate *router* ``m``, drawn uniformly among all routers (``flit/run.py``,
its own random stream), then by dimension order to its destination: at most ``2·D`` hops on
``D`` dimensions (``m`` the source or the destination: the minimal route). A packet whose first
phase passes its destination router is ejected there. **UGAL** (``ugal-l``, ``ugal-g``) makes
the dragonfly's choice between the minimal route and the Valiant candidate at the source
router (routing/dragonfly_valiant.py ``choose_ugal``: the same queue estimates, the same ties).

**VC classes.** Class 0 while the head goes to ``m``, class 1 from ``m`` on (and on the whole of
a minimal route): ``c = ⌊V/2⌋`` VCs each (``--vcs`` ≥ 2). In one class a route is dimension
order, so a channel of dimension ``d`` waits only for channels of higher dimensions (one hop per
dimension: a Hamming graph is all-to-all in each) or for ejection; class 0 waits for class 1,
never back. The channel dependency graph is acyclic (``netsim-fast check-deadlock``).

**The phase** is read from the hops crossed: the first phase is a minimal route of
``h1 = dist(source, m)`` hops, so the head is in class 0 iff ``hops < h1``. The packet's
``s.mid`` holds ``m + N·h1`` (``N`` routers), so the routing function needs no coordinates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1
CLASSES = 2  # 0: to the intermediate router; 1: to the destination


@njit(**KERNEL_JIT)
def hamming_target(n_routers, dst, hops, mid):
    """(table row, VC class) of a header bound for router ``dst`` with ``mid = m + N·h1``
    (``NONE``: minimal) that has crossed ``hops`` links."""
    if mid >= 0 and hops < mid // n_routers:
        return mid % n_routers, 0
    return dst, 1


def hamming_dims(topo) -> tuple[int, ...]:
    """Routers per dimension of a flattened butterfly or HyperX (dimension 0 first)."""
    if topo.kind == "flatfly":
        return (int(topo.params["k"]),) * int(topo.params["n"])
    return tuple(int(k) for k in str(topo.params["dims"]).split(","))


def encode_mid(topo, src_router, m) -> np.ndarray:
    """int32 ``m + N·dist(src_router, m)``: the intermediate router and its first phase's hops
    (the coordinates in which they differ)."""
    dims = hamming_dims(topo)
    src_router, m = np.asarray(src_router, np.int64), np.asarray(m, np.int64)
    # dimension 0 fastest: Fortran order
    differ = np.asarray(np.unravel_index(src_router, dims, order="F")) != np.asarray(np.unravel_index(m, dims, order="F"))
    return (m + topo.n_nodes * differ.sum(axis=0)).astype(np.int32)


def dor_table(topo) -> np.ndarray:
    """uint8[N, N, W]: row ``t``, router ``u``: the one port of the dimension-order route from
    ``u`` to ``t`` (the lowest port of the minimal table's row)."""
    from netsim_fast.routing.table import build_minimal_table

    mask = build_minimal_table(topo).port_mask
    bits = np.unpackbits(mask, axis=2, bitorder="little")
    first = np.argmax(bits, axis=2)
    lowest = np.zeros_like(bits)
    rows, cols = np.nonzero(bits.any(axis=2))
    lowest[rows, cols, first[rows, cols]] = 1
    return np.ascontiguousarray(np.packbits(lowest, axis=2, bitorder="little")[:, :, : mask.shape[2]])
