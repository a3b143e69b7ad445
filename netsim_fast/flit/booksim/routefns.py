"""BookSim2's other routing functions on meshes and tori (docs/booksim-router.md, section 8).

``route`` dispatches on the routing code (``ROUTINGS``) and writes
``out[0..6] = (port, vc_lo, vc_hi, ph, esc, port2, vc2)``: an output port and a VC range (BookSim2's
route set keeps one element per priority, and on a mesh the elements that survive share a
port), the flit's ``ph`` field after this hop, ``esc``: when > 0, VCs ``lo .. lo + esc - 1`` are
requested at input priority 0 and the rest at priority 1 (``min_adapt`` on a mesh), else every
VC at priority 0; and a second element ``(port2, vc2)`` at priority 0, the range then at
priority 1 (``min_adapt`` on a torus: its escape VC, on another port when the ring distance
ties), ``vc2 = -1`` when there is none.

``ph`` packs what BookSim2 keeps in a flit: bits 0-7 the partition (torus) or the phase
(``romm``, ``valiant``), bits 8 and up the intermediate node of ``romm`` and ``valiant``
(BookSim2's ``intm``). ``dim_order`` itself stays in routing.py (code 0), unchanged.

Random draws use the router's xorshift generator (``rng``): ``rand_int(rng, n)`` is uniform on
``0..n`` inclusive like BookSim2's ``RandomInt(n)``; runs match BookSim2's in distribution.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.flit.booksim.routing import coin, dim_order

# routing codes (BkParams.routing); the names are BookSim2's (routing_function without the
# _mesh / _torus suffix)
R_DIM_ORDER, R_DIM_ORDER_NI, R_DIM_ORDER_PNI, R_XY_YX, R_ADAPTIVE_XY_YX = 0, 1, 2, 3, 4
R_MIN_ADAPT, R_PLANAR_ADAPT, R_ROMM, R_ROMM_NI, R_VALIANT, R_DIM_ORDER_BAL = 5, 6, 7, 8, 9, 10
R_DRAGONFLY_MIN = 11  # BookSim2's min_dragonflynew (dragonfly.cpp), on --topology dragonfly
R_FLATFLY_MIN = 12  # BookSim2's ran_min_flatfly (flatfly_onchip.cpp's min_flatfly), on --topology flatfly
R_FATTREE_NCA = 13  # BookSim2's fattree_nca (routefunc.cpp), on --topology fattree
R_DRAGONFLY_UGAL = 15  # BookSim2's ugal_dragonflynew (dragonfly.cpp), on --topology dragonfly
R_ANYNET_MIN = 16  # BookSim2's min_anynet (anynet.cpp), on --topology edgelist: a next-hop table
R_FLY_DEST_TAG = 17  # BookSim2's dest_tag_fly (routefunc.cpp), on --topology fly
UGAL_THRESHOLD = 30  # ugal_dragonflynew's adaptive_threshold: flits of bias towards the minimal path
ROUTINGS = {"dim_order": R_DIM_ORDER, "dim_order_ni": R_DIM_ORDER_NI, "dim_order_pni": R_DIM_ORDER_PNI,
            "xy_yx": R_XY_YX, "adaptive_xy_yx": R_ADAPTIVE_XY_YX, "min_adapt": R_MIN_ADAPT,
            "planar_adapt": R_PLANAR_ADAPT, "romm": R_ROMM, "romm_ni": R_ROMM_NI, "valiant": R_VALIANT,
            "dim_order_bal": R_DIM_ORDER_BAL, "min": R_DRAGONFLY_MIN, "ran_min": R_FLATFLY_MIN,
            "nca": R_FATTREE_NCA, "ugal": R_DRAGONFLY_UGAL, "dest_tag": R_FLY_DEST_TAG}
R_CMESH_DOR = 14  # BookSim2's dor_cmesh (cmesh.cpp): dimension order taking the express channels
# BookSim2's cmesh functions (cmesh.cpp): without express channels they are the mesh's
CMESH_ROUTINGS = {"dor": R_CMESH_DOR, "dor_no_express": R_DIM_ORDER, "xy_yx_no_express": R_XY_YX}
# BookSim2's anynet functions: its min is the table of routing/anynet_min.py (an edge-list or anynet file)
ANYNET_ROUTINGS = {"min": R_ANYNET_MIN}


@njit(**KERNEL_JIT)
def rand_int(rng, n):
    """Uniform on ``0..n`` inclusive (BookSim2's ``RandomInt(n)``), from the xorshift state."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return np.int64((x >> np.uint64(11)) % np.uint64(n + 1))


@njit(**KERNEL_JIT)
def mesh_next(radix, coord, dim_port, n_ports, node, dst, descending):
    """The mesh next hop: the lowest (``descending``: highest) differing dimension, towards
    ``dst``; the local port at ``dst``."""
    nd = radix.shape[0]
    for i in range(nd):
        d = nd - 1 - i if descending else i
        c, e = coord[node, d], coord[dst, d]
        if c != e:
            return dim_port[d, 0] if c < e else dim_port[d, 1]
    return n_ports - 1


@njit(**KERNEL_JIT)
def _slice(lo, hi, j, m, out):
    """Slice ``j`` of ``m`` equal slices of ``[lo, hi]`` into ``out[1], out[2]``."""
    q = (hi - lo + 1) // m
    out[1] = lo + j * q
    out[2] = out[1] + q - 1


@njit(**KERNEL_JIT)
def _rand_min_intermediate(radix, coord, src, dst, rng):
    """ROMM's intermediate node: per dimension (0 first) a uniform coordinate between the source's
    and the destination's, both included (one draw per dimension, also when they are equal)."""
    node, stride = 0, 1
    for d in range(radix.shape[0]):
        a, e = coord[src, d], coord[dst, d]
        c = a + rand_int(rng, e - a) if e - a > 0 else e + rand_int(rng, a - e)
        node += c * stride
        stride *= radix[d]
    return node


@njit(**KERNEL_JIT)
def _used(ovc, base, port, v):
    """Flits outstanding downstream over every VC of ``port`` (BookSim2's ``GetUsedCredit``)."""
    total = 0
    for w in range(v):
        total += ovc[base + port * v + w].occ
    return total


@njit(**KERNEL_JIT)
def _torus_bal(radix, coord, dim_port, port_dim, node, dst, in_port, ph, n_ports, rng, out):
    """The torus next hop with the balanced partition (two datelines: the wrap forces 1, the middle
    of the ring forces 0, otherwise a draw); ``out[0]`` the port, ``out[3]`` the partition."""
    d = -1
    for dim in range(radix.shape[0]):
        if coord[node, dim] != coord[dst, dim]:
            d = dim
            break
    out[3] = ph
    if d < 0:
        out[0] = n_ports - 1
        return
    if in_port < n_ports - 1 and port_dim[in_port] == d:
        out[0] = dim_port[d, 1] if in_port == dim_port[d, 0] else dim_port[d, 0]
        return
    k, c, e = radix[d], coord[node, d], coord[dst, d]
    delta = k - 2 * ((e - c + k) % k)
    right = delta > 0 or (delta == 0 and coin(rng) == 1)
    out[0] = dim_port[d, 0] if right else dim_port[d, 1]
    mid = (k - 1) // 2
    if (right and c > e) or (not right and c < e):
        out[3] = 1
    elif (right and c <= mid < e) or (not right and e <= mid < c):
        out[3] = 0
    else:
        out[3] = rand_int(rng, 1)


@njit(**KERNEL_JIT)
def _two_phase(fn, radix, coord, dim_port, n_ports, node, src, dst, in_port, ph, v, rng, out):
    """``romm``, ``romm_ni`` and ``valiant`` on a mesh: towards ``intm`` in phase 0, then ``dst``."""
    phase, intm = ph & 0xFF, ph >> 8
    if in_port == n_ports - 1:
        phase = 0
        if fn == R_VALIANT:
            intm = rand_int(rng, coord.shape[0] - 1)
        else:
            intm = _rand_min_intermediate(radix, coord, src, dst, rng)
    if phase == 0 and node == intm:
        phase = 1
    out[0] = mesh_next(radix, coord, dim_port, n_ports, node, intm if phase == 0 else dst, False)
    out[3] = phase | intm << 8
    if fn == R_ROMM_NI:
        if node != dst:
            _slice(0, v - 1, dst, coord.shape[0], out)
    elif node != dst:
        h = v // 2
        if phase == 0:
            out[2] = v - 1 - h
        else:
            out[1] = h


@njit(**KERNEL_JIT)
def _min_adapt_torus(radix, coord, dim_port, port_dim, node, dst, in_port, in_vc, ph, n_ports, v, rng, out):
    """``min_adapt`` on a torus: off the escape VCs 0 and 1 (or just injected), the adaptive element
    (the first unresolved dimension's shorter direction, left on a tie, VC 3, priority 1) and the
    escape element (the torus next hop as if injected here: partition recomputed, VC = partition,
    priority 0) as ``out[5], out[6]``; on an escape VC the escape element alone, computed as
    dim_order does. At the destination: the local port, every VC."""
    local = n_ports - 1
    if node == dst:
        out[0], out[1], out[2], out[3] = local, 0, v - 1, ph
        return
    adaptive = in_port == local or in_vc > 1
    dim_order(radix, coord, dim_port, port_dim, 1, node, dst, local if adaptive else in_port, ph & 0xFF, n_ports, v,
              rng, out)
    part = out[3]
    if not adaptive:
        out[1], out[2] = part, part
        return
    out[5], out[6] = out[0], part
    for d in range(radix.shape[0]):
        c, e = coord[node, d], coord[dst, d]
        if c != e:
            k = radix[d]
            out[0] = dim_port[d, 0] if k - 2 * ((e - c + k) % k) > 0 else dim_port[d, 1]
            break
    out[1], out[2] = 3, 3


@njit(**KERNEL_JIT)
def route(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src, dst, in_port, in_vc, ph,
          n_ports, v, rng, out):
    """Route a head at ``node`` (``src`` to ``dst``) that entered on ``in_port``, VC ``in_vc``,
    carrying ``ph``: ``out[0..4] = (port, vc_lo, vc_hi, ph, esc)`` (module docstring)."""
    out[4], out[5], out[6] = 0, -1, -1
    if torus == 1 and fn == R_MIN_ADAPT:
        _min_adapt_torus(radix, coord, dim_port, port_dim, node, dst, in_port, in_vc, ph, n_ports, v, rng, out)
        return
    if fn == R_DIM_ORDER or (torus == 1 and fn == R_DIM_ORDER_NI):
        dim_order(radix, coord, dim_port, port_dim, torus, node, dst, in_port, ph & 0xFF, n_ports, v, rng, out)
        if fn == R_DIM_ORDER_NI:  # the partition is not touched; VCs by destination
            out[3] = ph
            if node != dst:
                _slice(0, v - 1, dst, coord.shape[0], out)
            else:
                out[1], out[2] = 0, v - 1
        return
    out[1], out[2], out[3] = 0, v - 1, ph
    local = n_ports - 1
    if fn == R_DIM_ORDER_BAL:
        _torus_bal(radix, coord, dim_port, port_dim, node, dst, in_port, ph, n_ports, rng, out)
        if node != dst:
            h = v // 2
            if out[3] == 0:
                out[2] = v - 1 - h
            else:
                out[1] = h
        return
    if fn == R_ROMM or fn == R_ROMM_NI or fn == R_VALIANT:
        _two_phase(fn, radix, coord, dim_port, n_ports, node, src, dst, in_port, ph, v, rng, out)
        return
    out[0] = mesh_next(radix, coord, dim_port, n_ports, node, dst, False)
    if node == dst:
        return
    if fn == R_DIM_ORDER_NI:
        _slice(0, v - 1, dst, coord.shape[0], out)
    elif fn == R_DIM_ORDER_PNI:
        d = port_dim[out[0]]
        _slice(0, v - 1, coord[dst, d], radix[d], out)
    elif fn == R_XY_YX or fn == R_ADAPTIVE_XY_YX:
        h = v // 2
        yx = mesh_next(radix, coord, dim_port, n_ports, node, dst, True)
        if in_port != local:
            xy = in_vc < h
        elif fn == R_XY_YX:
            xy = rand_int(rng, 1) > 0
        else:
            cxy, cyx = _used(ovc, base, out[0], v), _used(ovc, base, yx, v)
            xy = cxy < cyx or (cxy == cyx and rand_int(rng, 1) > 0)
        if xy:
            out[2] = v - 1 - h
        else:
            out[0] = yx
            out[1] = h
    elif fn == R_MIN_ADAPT:  # the escape VC 0 at priority 0 and, unless in it, VCs 1.. at priority 1
        if in_port != local and in_vc == 0:
            out[2] = 0
        else:
            out[4] = 1
    elif fn == R_PLANAR_ADAPT:  # the first adaptive plane's element only: VCs [2m, V-1], m = V / 3
        out[1] = 2 * (v // 3)


@njit(**KERNEL_JIT)
def dragonfly_port(node, drouter, a, h):
    """BookSim2's ``dragonfly_port`` between routers, on netsim-fast's port order (``dragonfly_min``):
    the global port towards ``drouter``'s group at the router of this group that owns it, else the
    local port to that router or, inside ``drouter``'s group, to ``drouter`` (``node != drouter``)."""
    grp, dgrp = node // a, drouter // a
    target = drouter
    rank = 0
    if dgrp != grp:
        rank = dgrp - 1 if dgrp > grp else dgrp
        target = grp * a + rank // h
    if target == node:
        return a - 1 + rank % h
    r, r2 = node % a, target % a
    return r2 - 1 if r2 > r else r2


@njit(**KERNEL_JIT)
def dragonfly_ugal(ovc, base, node, dst, in_port, ph, n_ports, conc, a, h, v, rng, out):
    """BookSim2's ``ugal_dragonflynew``: at the source router, a packet for another group draws an
    intermediate terminal uniformly over the network; if it is in another group too, the packet
    goes non-minimally (phase 0, towards the intermediate's router) when the minimal port's
    outstanding flits exceed twice the non-minimal port's plus ``UGAL_THRESHOLD``, else minimally
    (phase 1); inside its own group it goes minimally (phase 2). Phase 0 turns 1 at the
    intermediate's router and 1 turns 2 on a global port (the "optical dateline"); the VC is the
    phase (BookSim2 asserts exactly 3 VCs). ``ph`` packs the phase and the intermediate terminal
    (``phase | intm << 8``)."""
    first_local = n_ports - conc
    phase, intm = ph & 0xFF, ph >> 8
    drouter = dst // conc
    if in_port >= first_local:
        if drouter // a == node // a:
            phase = 2
        else:
            intm = rand_int(rng, a * conc * (a * h + 1) - 1)
            if (intm // conc) // a == node // a:
                phase = 1
            else:
                minimal = _used(ovc, base, dragonfly_port(node, drouter, a, h), v)
                detour = _used(ovc, base, dragonfly_port(node, intm // conc, a, h), v)
                phase = 1 if minimal <= 2 * detour + UGAL_THRESHOLD else 0
    if phase == 0 and node == intm // conc:
        phase = 1
    target = intm // conc if phase == 0 else drouter
    if target == node:
        out[0] = first_local + dst % conc
    else:
        out[0] = dragonfly_port(node, target, a, h)
        if phase == 1 and a - 1 <= out[0] < a - 1 + h:
            phase = 2
    out[1], out[2], out[3], out[4], out[5], out[6] = phase, phase, phase | intm << 8, 0, -1, -1


@njit(**KERNEL_JIT)
def dragonfly_min(node, dst, in_port, ph, n_ports, conc, a, h, out):
    """BookSim2's ``min_dragonflynew`` on netsim-fast's dragonfly port order (local ports to the
    other ``a - 1`` routers of the group, ascending; ``h`` global ports; then the ``conc``
    terminal ports; consecutive arrangement, G = a*h + 1): the destination terminal's port at its
    router; else the global port towards the destination's group at the router of this group that
    owns it (port ``rank`` of the group, ``rank`` = the destination group's rank among the other
    groups), else the local port to that router (or, inside the destination's group, to the
    destination router). The VC is the phase: 0 from injection, 1 from the global hop on (BookSim2's
    "optical dateline"), and the phase rides with the head."""
    first_local = n_ports - conc
    if in_port >= first_local:
        ph = 0
    drouter = dst // conc
    out[4], out[5], out[6] = 0, -1, -1
    if drouter == node:
        out[0] = first_local + dst % conc
    else:
        out[0] = dragonfly_port(node, drouter, a, h)
        if out[0] >= a - 1:
            ph = 1
    out[1], out[2], out[3] = ph, ph, ph


@njit(**KERNEL_JIT)
def flatfly_min(node, dst, n_ports, conc, k, v, out):
    """BookSim2's ``ran_min_flatfly`` (its ``min_flatfly``; deterministic despite the name) on
    netsim-fast's flattened butterfly: the lowest dimension whose coordinate differs from the
    destination router's, to the router with the destination's coordinate (port
    ``d*(k-1) + rank``, ``rank`` its coordinate among the other ``k - 1``, ascending, as BookSim2
    numbers them); at the destination router the terminal's port. Every VC, at every hop."""
    drouter = dst // conc
    out[1], out[2], out[3], out[4], out[5], out[6] = 0, v - 1, 0, 0, -1, -1
    if drouter == node:
        out[0] = n_ports - conc + dst % conc
        return
    a, b, d = node, drouter, 0
    while a % k == b % k:
        a, b, d = a // k, b // k, d + 1
    own, other = a % k, b % k
    out[0] = d * (k - 1) + (other - 1 if other > own else other)


@njit(**KERNEL_JIT)
def fattree_nca(node, dst, n_ports, conc, k, n, v, rng, out):
    """BookSim2's ``fattree_nca`` (nearest common ancestor, random up) on netsim-fast's k-ary
    n-tree (topologies/fattree.py: switch ``l * k^(n-1) + w`` at level ``l`` from the leaves,
    down ports ``0 .. k-1``, up ports ``k .. 2k-1``, then the ``k`` terminal ports). A switch
    of level ``l`` covers the ``k^(l+1)`` terminals of block ``w // k^l``: towards a terminal it
    covers, the down port of digit ``l`` of the terminal (at a leaf: the terminal's port), else a
    random up port (``RandomInt(k-1)`` from the router's generator). Every VC, at every hop."""
    out[1], out[2], out[3], out[4], out[5], out[6] = 0, v - 1, 0, 0, -1, -1
    per_level = k ** (n - 1)
    level, pos = node // per_level, node % per_level
    below = k ** level
    if dst // (below * k) == pos // below:
        out[0] = n_ports - conc + dst % conc if level == 0 else (dst // below) % k
    else:
        out[0] = k + rand_int(rng, k - 1)


@njit(**KERNEL_JIT)
def fly_dest_tag(node, dst, n_ports, conc, k, n, v, out):
    """BookSim2's ``dest_tag_fly`` on netsim-fast's k-ary n-fly (topologies/fly.py: router
    ``s * k^(n-1) + a`` at stage ``s``, outputs ``0 .. k-1``, then ``k`` inputs, then the ``k``
    terminal ports): at stage ``s`` the output numbered by digit ``n-1-s`` of the destination
    terminal, at the last stage its terminal port. Every VC, at every hop."""
    out[1], out[2], out[3], out[4], out[5], out[6] = 0, v - 1, 0, 0, -1, -1
    stage = node // k ** (n - 1)
    if stage == n - 1:
        out[0] = n_ports - conc + dst % conc
    else:
        out[0] = (dst // k ** (n - 1 - stage)) % k


@njit(**KERNEL_JIT)
def cmesh_dor(coord, node, dst, n_ports, conc, k, v, out):
    """BookSim2's ``dor_cmesh`` (its ``cmesh_next``) on netsim-fast's cmesh (ports ``+x, -x, +y,
    -y``, topologies/cmesh.py): x first, then y, every VC; on a router of an edge parallel to the
    way to go, a move of at least k/2 routers takes the edge's express channel instead (the
    ``-y`` port on the bottom edge, ``+y`` on the top edge for x moves; ``-x`` on the left edge,
    ``+x`` on the right edge for y moves). At the destination router the terminal's port."""
    out[1], out[2], out[3], out[4], out[5], out[6] = 0, v - 1, 0, 0, -1, -1
    drouter = dst // conc
    if drouter == node:
        out[0] = n_ports - conc + dst % conc
        return
    cx, cy, dx, dy = coord[node, 0], coord[node, 1], coord[drouter, 0], coord[drouter, 1]
    far = k // 2 - 1
    if cx != dx:
        out[0] = 0 if cx < dx else 1
        if abs(dx - cx) > far:
            if cy == 0:
                out[0] = 3
            elif cy == k - 1:
                out[0] = 2
    else:
        out[0] = 2 if cy < dy else 3
        if abs(dy - cy) > far:
            if cx == 0:
                out[0] = 1
            elif cx == k - 1:
                out[0] = 0


@njit(**KERNEL_JIT)
def route_terminals(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src, dst, in_port, in_vc, ph,
                    n_ports, conc, v, rng, out, shape_a, shape_b, table):
    """``route`` for packets between terminals, ``conc`` per router (``--concentration``): the
    routing function sees routers (the terminals' routers, the first local port as the only
    one), and the destination router's exit becomes the destination terminal's own local port
    ``n_ports - conc + dst % conc``. With one terminal per router it is ``route`` itself. On a
    dragonfly, flattened butterfly, k-ary n-tree or k-ary n-fly, its own function, given the topology's shape
    (``shape_a``, ``shape_b``: flit/booksim/driver.py ``topology_shape``). On an edge-list or
    anynet file, BookSim2's ``min_anynet``: the port ``table[node, dst]``, every VC."""
    if fn == R_ANYNET_MIN:
        out[0], out[1], out[2], out[3], out[4], out[5], out[6] = table[node, dst], 0, v - 1, 0, 0, -1, -1
        return
    if fn == R_DRAGONFLY_MIN:
        dragonfly_min(node, dst, in_port, ph, n_ports, conc, shape_a, shape_b, out)
        return
    if fn == R_DRAGONFLY_UGAL:
        dragonfly_ugal(ovc, base, node, dst, in_port, ph, n_ports, conc, shape_a, shape_b, v, rng, out)
        return
    if fn == R_FLATFLY_MIN:
        flatfly_min(node, dst, n_ports, conc, shape_a, v, out)
        return
    if fn == R_FATTREE_NCA:
        fattree_nca(node, dst, n_ports, conc, shape_a, shape_b, v, rng, out)
        return
    if fn == R_CMESH_DOR:
        cmesh_dor(coord, node, dst, n_ports, conc, radix[0], v, out)
        return
    if fn == R_FLY_DEST_TAG:
        fly_dest_tag(node, dst, n_ports, conc, shape_a, shape_b, v, out)
        return
    if conc == 1:
        route(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src, dst, in_port, in_vc, ph, n_ports, v,
              rng, out)
        return
    first_local = n_ports - conc
    route(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src // conc, dst // conc,
          min(in_port, first_local), in_vc, ph, first_local + 1, v, rng, out)
    if out[0] == first_local:
        out[0] = first_local + dst % conc


@njit(**KERNEL_JIT)
def route_typed(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src, dst, in_port, in_vc, ph,
                n_ports, conc, v, rng, out, shape_a, shape_b, table, vc_lo, vc_n):
    """``route_terminals`` for a packet whose type confines it to VCs ``vc_lo .. vc_lo + vc_n - 1``
    (BookSim2's ``*_begin_vc``/``*_end_vc`` of read and write requests and replies; every VC for
    other packets): BookSim2's routing functions place their VC classes (datelines, slices,
    phases) inside that range as they would inside all VCs, so the function runs on ``vc_n``
    VCs and its range moves up by ``vc_lo``. The dragonfly's functions take every VC whatever
    the type, as BookSim2's do (dragonfly.cpp reads no range)."""
    if vc_n == v or fn == R_DRAGONFLY_MIN or fn == R_DRAGONFLY_UGAL:
        route_terminals(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src, dst, in_port, in_vc, ph,
                        n_ports, conc, v, rng, out, shape_a, shape_b, table)
        return
    route_terminals(fn, radix, coord, dim_port, port_dim, torus, ovc, base, node, src, dst, in_port, in_vc - vc_lo,
                    ph, n_ports, conc, vc_n, rng, out, shape_a, shape_b, table)
    out[1] += vc_lo
    out[2] += vc_lo
    if out[6] >= 0:
        out[6] += vc_lo


@njit(**KERNEL_JIT)
def inject_range(fn, radix, coord, torus, dst, v, out):
    """The VCs a terminal may inject on (BookSim2's injection mode): ``out[0], out[1]`` = first VC
    and count. Every VC, except the mesh ``_ni`` / ``_pni`` functions: the destination's slice
    (``dim_order_ni`` on a torus slices between routers only)."""
    out[0], out[1] = 0, v
    if torus == 1:
        return
    if fn == R_DIM_ORDER_NI or fn == R_ROMM_NI:
        q = v // coord.shape[0]
        out[0], out[1] = dst * q, q
    elif fn == R_DIM_ORDER_PNI:
        q = v // radix[0]
        out[0], out[1] = coord[dst, 0] * q, q
