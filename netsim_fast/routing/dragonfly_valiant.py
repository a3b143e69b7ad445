"""Non-minimal routing on a dragonfly (Kim et al., 2008): ``valiant``, ``ugal-l``, ``ugal-g``.

The functions below serve the Hamming graphs too (flattened butterfly, HyperX): there ``a``
(routers per group) is 0, ``mid`` is an intermediate router and ``route_target`` defers to
``hamming_valiant.py``; the UGAL choice and its queue estimates are the same.

**Valiant.** Every packet gets an intermediate *group* ``I``, drawn uniformly among the groups
other than its source router's (``flit/run.py`` draws it from the seed and the packet's chunk,
like the traffic itself). The packet goes minimally (the dragonfly's local-global-local table,
``dragonfly_table.py``) to group ``I`` (to whichever router of ``I`` its global link lands on),
then minimally to its destination: at most local, global, local, global, local (5 hops). When
``I`` is the destination's group the route is the minimal one. A packet whose route to ``I``
passes its destination router (source and destination in one group) is ejected there.

**UGAL.** The packet gets one Valiant candidate ``I`` the same way; at its first route
computation (its source router, stage 7 a) the router chooses between the minimal route and
the candidate (``choose_ugal``), and keeps the choice for the rest of the route (``I`` is then
the candidate or ``NONE``, minimal). A port's *queue* is what the router holding it knows
from its own state at that cycle: the flits in the port's output lanes plus the credits in use
on all its VCs (``B − credits`` per VC: flits sent downstream whose slots have not come back).
``ugal-l`` compares ``q_min · H_min`` with ``q_val · H_val``, the queues of the first hop of
each route at the source router times the route's hop count (Kim et al.'s UGAL-L).
``ugal-g`` is an *idealised reference* (no router can see this): it compares the estimated
delay of each whole route, summed over every port it crosses (read from the other routers' state
at the same cycle): the flits queued for the port, which here also counts the flits in that
router's input lanes bound for it (``port_demand``: lanes connected to one of its VCs, and
routed headers waiting for a VC with the port among their candidates), plus the hop's zero-load
cycles (3 with unit delays, plus the link's extra wire cycles, flit/wires.py). Kim et al. give
UGAL-G the queues of every channel; in an input-queued router the backlog of a congested output
waits in the input lanes, so without them the estimate misses exactly the queue of the
bottleneck (worst-case traffic: a group's one global link to the next group, whose demand
waits at its router; measured, README "Kim et al."). Ties go to the minimal route. A route here
is the one that takes the lowest allowed port at each router.

**VC classes (deadlock freedom).** A hop's class is the number of global links the head has
crossed before it: 0 in the source group, 1 after the first global hop, 2 after the second.
Each class gets ``c = ⌊V/3⌋`` VCs (``--vcs`` ≥ 3). Order the channels local(0) < global(0) <
local(1) < global(1) < local(2): a route takes at most one local hop in each group it visits
(groups are fully connected), and after a local hop it either takes a global hop of the same
class or ejects; after a global hop it is in the next class. Every route therefore climbs this
order strictly, and every dependency of the channel dependency graph goes up it: acyclic
(``netsim-fast check-deadlock`` confirms it on each configuration). The class is a function
of the groups of the source, the destination, the current router and ``I`` (and, when source
and destination share a group, of whether the head has left it yet: hops ≥ 2).

The table (``port_mask``) holds the dragonfly's minimal routes to every router (rows
``0..N−1``) and, below them, to every group (rows ``N + g``: the global links into ``g`` from
this router, or else the local links to the routers of its group that have one).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.routing.dispatch import table_next_hops
from netsim_fast.routing.hamming_valiant import hamming_target

NONE = -1


@njit(**KERNEL_JIT)
def route_target(a, n_routers, cur, src, dst, hops, mid):
    """(table row, VC class) of a header at router ``cur`` (``!= dst``) from router ``src`` to
    router ``dst`` with intermediate group ``mid`` (``NONE``: minimal), ``hops`` links crossed.
    ``a == 0``: a Hamming graph, ``mid`` an intermediate router (routing/hamming_valiant.py)."""
    if a == 0:
        return hamming_target(n_routers, dst, hops, mid)
    gs, gd, gc = src // a, dst // a, cur // a
    if mid < 0 or mid == gd:
        return dst, (0 if gc == gs else 1)
    if gc == mid:
        return dst, 1
    if gc == gs and (gs != gd or hops <= 1):
        return n_routers + mid, 0
    return dst, 2


@njit(**KERNEL_JIT)
def nonmin_next_hops(port_mask, class_vcs, a, n_routers, cur, src, dst, hops, mid, out):
    """Rows for a header under ``valiant``/``ugal-*``: the allowed ports of its table row on
    the VCs of its class (see the module docstring)."""
    target, cls = route_target(a, n_routers, cur, src, dst, hops, mid)
    return table_next_hops(port_mask, class_vcs, cur, target, cls, out)


@njit(**KERNEL_JIT)
def first_port(port_mask, target, cur):
    """The lowest allowed port of table row ``target`` at ``cur`` (NONE if none)."""
    port = 0
    for byte in range(port_mask.shape[2]):
        bits = port_mask[target, cur, byte]
        if bits:
            while not bits & 1:
                bits >>= 1
                port += 1
            return port
        port += 8
    return NONE


@njit(**KERNEL_JIT)
def port_queue(outl, ports, node, port, n_ports, n_vcs, buf):
    """Flits queued on output port ``port`` of router ``node`` as that router sees it: in its
    output lanes, plus credits in use on all its VCs."""
    link = node * n_ports + port
    q = np.int64(ports[link].queued)
    for vc in range(n_vcs):
        q += buf - outl[link * n_vcs + vc].credits
    return q


@njit(**KERNEL_JIT)
def port_demand(inl, outl, node, port, n_ports, n_vcs):
    """Flits in router ``node``'s input lanes bound for output ``port``: lanes connected to one of
    its VCs, and routed headers waiting for a VC with ``port`` among their candidates (ugal-g)."""
    q = np.int64(0)
    first = node * n_ports * n_vcs
    bit = np.int64(1) << min(port, 63)  # flit/flits.port_bit
    for lane in range(first, first + n_ports * n_vcs):
        if inl[lane].len == 0:
            continue
        out = inl[lane].out
        if out >= 0:
            if outl[out].port == port:
                q += inl[lane].len
        elif inl[lane].route_done >= 0 and inl[lane].cand & bit:
            q += inl[lane].len
    return q


@njit(**KERNEL_JIT)
def route_cost(port_mask, nbr, inl, outl, ports, a, n_routers, n_ports, n_vcs, buf, src, dst, mid, whole):
    """(hops, cost) of the route from router ``src`` to ``dst`` via group ``mid`` (NONE:
    minimal), following the lowest allowed port: the queue of its first port, or (``whole``)
    the estimated delay: over every port it crosses, the flits queued for it (in the router's
    input lanes, its output lanes, downstream) plus the hop's zero-load cycles (3 plus the
    link's extra wire cycles)."""
    cur, hops, q = src, 0, np.int64(0)
    while cur != dst and hops < 2 * n_ports:  # a bound only: routes are at most 2 · diameter hops
        target, _cls = route_target(a, n_routers, cur, src, dst, hops, mid)
        port = first_port(port_mask, target, cur)
        if port < 0:
            break
        if hops == 0 or whole:
            q += port_queue(outl, ports, cur, port, n_ports, n_vcs, buf)
        if whole:
            q += port_demand(inl, outl, cur, port, n_ports, n_vcs) + 3 + outl[(cur * n_ports + port) * n_vcs].wire
        cur = nbr[cur, port]
        hops += 1
    return hops, q


@njit(**KERNEL_JIT)
def choose_ugal(port_mask, nbr, inl, outl, ports, a, n_routers, n_ports, n_vcs, buf, src, dst, mid, whole):
    """UGAL's choice at the source router: ``mid`` (the Valiant candidate) or NONE (minimal)."""
    h_min, q_min = route_cost(port_mask, nbr, inl, outl, ports, a, n_routers, n_ports, n_vcs, buf, src, dst, NONE,
                              whole)
    h_val, q_val = route_cost(port_mask, nbr, inl, outl, ports, a, n_routers, n_ports, n_vcs, buf, src, dst, mid,
                              whole)
    if whole:  # ugal-g: estimated delay of each whole route
        if q_min <= q_val:
            return NONE
        return mid
    if q_min * h_min <= q_val * h_val:
        return NONE
    return mid


def build_group_table(topo) -> np.ndarray:
    """uint8[G, N, W]: row ``g``, router ``n``: the ports of a minimal route from ``n`` to group
    ``g`` (its global links into ``g``, or else its local links to routers that have one)."""
    a = int(topo.params["group_routers"])
    n, nbr = topo.n_nodes, topo.arrays.nbr
    g_count = n // a
    group = np.arange(n) // a
    net_ports = topo.n_ports - 1
    w = -(-topo.n_ports // 8)
    reach = np.zeros((n, g_count), bool)  # router n has a global link into group g
    for p in range(net_ports):
        m = nbr[:, p]
        ok = (m >= 0) & (group[np.maximum(m, 0)] != group)
        reach[np.nonzero(ok)[0], group[m[ok]]] = True
    mask = np.zeros((g_count, n, w), np.uint8)
    for node in range(n):
        for g in range(g_count):
            if g == group[node]:
                continue
            direct = [p for p in range(net_ports) if nbr[node, p] >= 0 and group[nbr[node, p]] == g]
            ports = direct or [p for p in range(net_ports)
                               if nbr[node, p] >= 0 and group[nbr[node, p]] == group[node] and reach[nbr[node, p], g]]
            for p in ports:
                mask[g, node, p // 8] |= np.uint8(1 << (p % 8))
    return mask


def nonmin_table(topo) -> np.ndarray:
    """The port table ``valiant`` and ``ugal-*`` route with: rows ``0..N-1`` the dragonfly's
    minimal table (to each router), rows ``N + g`` the routes to each group."""
    from netsim_fast.routing.dragonfly_table import build_dragonfly_table

    table = build_dragonfly_table(topo)
    return np.ascontiguousarray(np.concatenate([table.port_mask, build_group_table(topo)], axis=0))
