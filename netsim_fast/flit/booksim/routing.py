"""BookSim2's ``dim_order`` routing on meshes and tori (docs/booksim-router.md, section 8).

- mesh (``dim_order_mesh``): the lowest dimension whose coordinates differ, towards the
  destination; every VC of the class (``[0, V-1]``). This is netsim-fast's ``dor`` on a mesh.
- torus (``dim_order_torus``): the same dimension; a flit that arrived on a port of that
  dimension keeps its direction and its partition. Turning into the dimension (or just
  injected) it goes the shorter way round (``delta = k - 2*((e - c) mod k)``: right if > 0,
  left if < 0, a coin flip on a tie) and takes the partition ``1 if c > e else 0``, and it
  uses the lower half of the VCs in partition 0, the upper half in partition 1. For rightward
  travel partition 1 means "will cross the k-1 -> 0 wrap"; for leftward travel it means "will
  not wrap": BookSim2's asymmetry, reproduced (case G of tests/booksim_cases). The split is
  BookSim2's, not a dateline placed by netsim-fast: no deadlock-freedom proof is claimed here
  beyond BookSim2's own use of it; the watchdog (flit/deadlock.py) reports a knot if one forms.
- at the destination: the local port and every VC.

The tie draw uses the router's own xorshift generator (``rng``), not BookSim2's Knuth
generator: runs match BookSim2's in distribution, not bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT


@njit(**KERNEL_JIT)
def coin(rng):
    """One fair bit from the xorshift64 state ``rng[0]``."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return np.int64(x >> np.uint64(63))


@njit(**KERNEL_JIT)
def dim_order(radix, coord, dim_port, port_dim, torus, node, dst, in_port, ph, n_ports, v, rng, out):
    """Route a head at ``node`` for ``dst`` that entered on ``in_port`` with partition ``ph``.

    Writes ``out[0..3] = (port, vc_lo, vc_hi, partition)``."""
    d = -1
    for dim in range(radix.shape[0]):
        if coord[node, dim] != coord[dst, dim]:
            d = dim
            break
    if d < 0:
        out[0], out[1], out[2], out[3] = n_ports - 1, 0, v - 1, ph
        return
    c, e = coord[node, d], coord[dst, d]
    if torus == 0:
        out[0] = dim_port[d, 0] if c < e else dim_port[d, 1]
        out[1], out[2], out[3] = 0, v - 1, 0
        return
    if in_port < n_ports - 1 and port_dim[in_port] == d:
        out[0] = dim_port[d, 1] if in_port == dim_port[d, 0] else dim_port[d, 0]
    else:
        k = radix[d]
        delta = k - 2 * ((e - c + k) % k)
        right = delta > 0 or (delta == 0 and coin(rng) == 1)
        out[0] = dim_port[d, 0] if right else dim_port[d, 1]
        ph = 1 if c > e else 0
    h = v // 2
    out[3] = ph
    if ph == 0:
        out[1], out[2] = 0, v - 1 - h
    else:
        out[1], out[2] = h, v - 1


@njit(**KERNEL_JIT)
def pack_route(out):
    """A route ``(port, vc_lo, vc_hi, ph, esc, port2, vc2)`` as one int64 (lookahead routing
    carries it with the head): bits 0-7 the partition or phase, 8-19 port + 1, 20-31 and 32-43
    the VC range, 44-61 the intermediate node (``ph >> 8``, routefns.py) or, for a route with a
    second element (torus min_adapt, which has no intermediate node), ``port2 + 1`` and
    ``(vc2 + 1) << 8`` (``unpack_route`` returns them in ``ph >> 8``; ``switch.take_lookahead``
    separates them); 62 ``esc``; 0 means no route (the next hop is the terminal)."""
    high = np.int64(out[3]) >> 8
    if out.shape[0] > 6 and out[6] >= 0:
        high = (np.int64(out[5]) + 1) | (np.int64(out[6]) + 1) << 8
    return ((np.int64(out[0]) + 1) << 8 | np.int64(out[1]) << 20 | np.int64(out[2]) << 32
            | (np.int64(out[3]) & 0xFF) | high << 44 | (np.int64(out[4]) & 1) << 62)


@njit(**KERNEL_JIT)
def unpack_route(info, out):
    out[0] = ((info >> 8) & 0xFFF) - 1
    out[1] = (info >> 20) & 0xFFF
    out[2] = (info >> 32) & 0xFFF
    out[3] = (info & 0xFF) | ((info >> 44) & 0x3FFFF) << 8
    out[4] = (info >> 62) & 1
    if out.shape[0] > 6:
        out[5], out[6] = -1, -1
