"""Routing on k-ary n-cubes (tori, meshes, hypercubes): dimension order and Duato.

Notes
-----
Petrini (papers/004), section 3. ``dor``: dimensions in increasing order, each along the
shorter way round; a tie at distance k/2 goes ``+`` from an even coordinate and ``-`` from an
odd one (a fixed rule that splits tied traffic evenly over both directions).

Deadlock freedom (dateline classes per dimension). In a ring dimension with radix > 2, VCs
``0 .. V/2-1`` form class 0 and ``V/2 .. V-1`` class 1. A packet enters each dimension in class
0 and uses class 1 on that dimension's wrap-around link and after it. Class 0 never uses a
wrap-around link, so its channels form a line per ring direction; class 1 starts at the
wrap-around link and, because a minimal path crosses it at most once, never returns to it:
both classes' channel dependency graphs are acyclic, and dependencies only go from class 0 to
class 1 within a dimension and from lower to higher dimensions. Starting each dimension in
class 0 again is what makes it per dimension: kept in class 1 across dimensions, a 2-D torus
can deadlock. The class is a function of (current, source, destination): having crossed the
wrap-around going ``+`` means the coordinate is now below the source's.

``duato``: Duato's methodology. Adaptive VCs (all but the escape VCs) on every minimal
direction, priority 0; the escape channel is ``dor`` with the dateline rule on VC 0 (class 0)
and VC 1 (class 1) (tori) or VC 0 (meshes and hypercubes), priority 1. The escape subnetwork is
connected and its extended channel dependency graph is acyclic: a packet's escape channels
appear in non-decreasing dimension order (dimensions never become unfinished on minimal paths)
and, within a dimension, in the travel direction with class 0 before class 1.

``dor-nodateline``: ``dor`` with every VC in one class: deadlock-prone on tori, for teaching.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.routing import DOR, DOR_NODATELINE, DUATO


@njit(**KERNEL_JIT)
def has_datelines(radix, wrap) -> bool:
    """True when some dimension is a ring of radix > 2 (so dateline classes are needed)."""
    for d in range(radix.shape[0]):
        if wrap[d] == 1 and radix[d] > 2:
            return True
    return False


@njit(**KERNEL_JIT)
def is_ring(radix, wrap, d) -> bool:
    return wrap[d] == 1 and radix[d] > 2


@njit(**KERNEL_JIT)
def minimal_directions(radix, wrap, d, cur_c, dst_c, tie_both):
    """Minimal direction(s) in dimension d: (go_plus, go_minus). A radix-2 dimension has one port,
    reported as plus. At a k/2 tie: both if ``tie_both``, else + from an even coordinate."""
    k = radix[d]
    if k == 2:
        return True, False
    if wrap[d] == 0:
        return dst_c > cur_c, dst_c < cur_c
    delta = dst_c - cur_c  # (dst_c - cur_c) mod k, both in 0 .. k - 1: a compare, not a division
    if delta < 0:
        delta += k
    if 2 * delta < k:
        return True, False
    if 2 * delta > k:
        return False, True
    if tie_both:
        return True, True
    return cur_c % 2 == 0, cur_c % 2 == 1


@njit(**KERNEL_JIT)
def dateline_class(radix, wrap, d, plus, cur_c, src_c):
    """Class 1 on the wrap-around link of dimension d and after it, class 0 before."""
    if not is_ring(radix, wrap, d):
        return 0
    if plus:
        return 1 if (cur_c < src_c or cur_c == radix[d] - 1) else 0
    return 1 if (cur_c > src_c or cur_c == 0) else 0


@njit(**KERNEL_JIT)
def _row(out, r, port, vc_lo, vc_hi, prio):
    out[r, 0] = port
    out[r, 1] = vc_lo
    out[r, 2] = vc_hi
    out[r, 3] = prio


@njit(**KERNEL_JIT)
def grid_next_hops(code, radix, wrap, coord, dim_port, n_vcs, cur, src, dst, out):
    """Candidate rows (port, vc_lo, vc_hi, priority) for a header at ``cur`` bound to ``dst``.

    Parameters
    ----------
    code : int
        ``DOR``, ``DUATO`` or ``DOR_NODATELINE``.
    radix, wrap : int32[n_dims]
    coord : int32[n_nodes, n_dims]
    dim_port : int32[n_dims, 2]
        Port of the + and - direction of each dimension.
    n_vcs : int
    cur, src, dst : int
        Current router, packet source and destination (``cur != dst``).
    out : int32[candidate_rows(n_ports), 4]
        Filled with rows; rows of equal priority come in increasing port order.

    Returns
    -------
    int
        Number of rows written.
    """
    n_dims = radix.shape[0]
    datelines = code != DOR_NODATELINE and has_datelines(radix, wrap)
    n_escape = 2 if datelines else 1
    rows = 0
    if code == DUATO and n_vcs > n_escape:
        for d in range(n_dims):
            cur_c, dst_c = coord[cur, d], coord[dst, d]
            if cur_c == dst_c:
                continue
            plus, minus = minimal_directions(radix, wrap, d, cur_c, dst_c, True)
            if plus:
                _row(out, rows, dim_port[d, 0], n_escape, n_vcs - 1, 0)
                rows += 1
            if minus:
                _row(out, rows, dim_port[d, 1], n_escape, n_vcs - 1, 0)
                rows += 1
    # the dimension-order hop: the whole route for dor, the escape channel for duato
    for d in range(n_dims):
        cur_c, dst_c = coord[cur, d], coord[dst, d]
        if cur_c == dst_c:
            continue
        plus, _ = minimal_directions(radix, wrap, d, cur_c, dst_c, False)
        port = dim_port[d, 0] if plus else dim_port[d, 1]
        ring = datelines and is_ring(radix, wrap, d)
        cls = dateline_class(radix, wrap, d, plus, cur_c, coord[src, d]) if ring else 0
        if code == DUATO:
            if ring:
                _row(out, rows, port, cls, cls, 1)
            else:  # no dateline in this dimension: every escape VC serves it
                _row(out, rows, port, 0, n_escape - 1, 1)
        elif ring:
            half = n_vcs // 2
            _row(out, rows, port, cls * half, cls * half + half - 1, 0)
        else:
            _row(out, rows, port, 0, n_vcs - 1, 0)
        rows += 1
        break
    return rows
