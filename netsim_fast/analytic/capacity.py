"""Uniform-traffic capacity of a topology: the injection rate at which the busiest channel saturates.

For tori and meshes whose largest radix k is even, the bisection bound is exact and is used:
capacity = 2B/N flits/node/cycle with B the bisection bandwidth counted over both directions
(Petrini, papers/004, section 5: half of uniform traffic crosses the bisection). That is 8/k
for a torus (0.5 for 16x16), 4/k for a mesh and 2 for a hypercube, divided by ``t_link`` when a
link carries one flit every ``t_link`` cycles.

Elsewhere it is the max-channel-load bound of the routing actually used: every ordered pair of
distinct nodes exchanges the same traffic, each route is walked (dimension order on grids; on
other graphs the table routing, each node splitting what it forwards evenly over the table's
allowed ports), and capacity = (N - 1) / (load of the busiest directed link) / t_link.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT


def bisection_capacity(topo) -> float | None:
    """2B/N for grids whose largest radix is even (the proven bisection), else None (also for a
    cmesh, whose express channels cross the mesh's cut)."""
    radix, wrap = topo.arrays.radix, topo.arrays.wrap
    if radix.size == 0 or int(radix.max()) % 2 or topo.kind == "cmesh":
        return None
    k = int(radix.max())
    d = int(np.argmax(radix))
    per_ring = 2 if (wrap[d] and k > 2) else 1
    width = topo.n_nodes // k * per_ring          # undirected links cut
    return 2.0 * (2.0 * width) / topo.n_nodes     # B counts both directions


@njit(**JIT)
def _dor_channel_loads(topo, loads):
    """Count the dimension-order routes of all ordered pairs crossing each directed link."""
    n = topo.nbr.shape[0]
    n_dims = topo.radix.shape[0]
    for src in range(n):
        for dst in range(n):
            if src == dst:
                continue
            cur = src
            for d in range(n_dims):
                k = topo.radix[d]
                while topo.coord[cur, d] != topo.coord[dst, d]:
                    c, t = topo.coord[cur, d], topo.coord[dst, d]
                    if k == 2 or topo.wrap[d] == 0:
                        plus = t > c or k == 2
                    else:
                        delta = (t - c) % k
                        plus = 2 * delta < k or (2 * delta == k and c % 2 == 0)
                    port = topo.dim_port[d, 0] if plus else topo.dim_port[d, 1]
                    loads[topo.link_id[cur, port]] += 1
                    cur = topo.nbr[cur, port]
    return loads


@njit(**JIT)
def _table_channel_loads(nbr, link_id, dist, port_mask, loads):
    """Expected load per directed link when every ordered pair sends one unit along the table,
    each node splitting what it forwards evenly over the allowed ports (one BFS-like sweep per
    destination, nodes taken by decreasing distance so a node's inflow is complete)."""
    n = nbr.shape[0]
    flow = np.zeros(n)
    for dst in range(n):
        flow[:] = 1.0
        flow[dst] = 0.0
        order = np.argsort(-dist[:, dst].astype(np.int64), kind="mergesort")
        for node in order:
            if node == dst:
                continue
            count = 0
            for byte in range(port_mask.shape[2]):
                bits = port_mask[dst, node, byte]
                while bits:
                    count += bits & 1
                    bits >>= 1
            share = flow[node] / count
            for byte in range(port_mask.shape[2]):
                bits = port_mask[dst, node, byte]
                port = byte * 8
                while bits:
                    if bits & 1:
                        loads[link_id[node, port]] += share
                        flow[nbr[node, port]] += share
                    bits >>= 1
                    port += 1
    return loads


def per_terminal(capacity: float, n_routers: int, concentration: int) -> float:
    """A router's uniform capacity (flits per router per cycle, uniform over the other routers)
    as flits per terminal per cycle with ``concentration`` C terminals per router, uniform over
    the other T - 1 terminals (T = C * routers): a router then sends C * rate * (T - C) / (T - 1)
    into the network, uniformly over the other routers."""
    c = int(concentration)
    if c == 1:
        return capacity
    t = n_routers * c
    return capacity * (t - 1) / (c * (t - c)) if t > c else float("inf")


def uniform_capacity(topo, t_link: int = 1, table=None, routing: str = "minimal") -> tuple[float, str]:
    """(capacity in flits/node/cycle, how it was obtained). ``table`` (a MinimalTable) is the
    routing of a non-grid topology; shortest paths are assumed when it is not given."""
    if topo.kind in ("fattree", "clos"):
        # per terminal: a full-bisection tree whose routing spreads uniform traffic evenly over
        # the up ports loads no link above the terminal's own (an upper bound once links fail)
        return 1.0 / t_link, "terminal link (full-bisection tree)"
    if topo.kind == "fly":
        # per terminal: under uniform traffic each of the k^n channels between two stages carries
        # k^n of the (k^n)^2 pairs' flows, the terminal's own rate (BookSim2's KNFly::Capacity, 1)
        return 1.0 / t_link, "every channel at the terminal's rate (butterfly)"
    closed = None if topo.faulted else bisection_capacity(topo)
    if closed is not None:
        return closed / t_link, "bisection"
    if topo.is_grid and not topo.faulted and not (topo.kind == "cmesh" and routing == "minimal"):
        loads = _dor_channel_loads(topo.arrays, np.zeros(topo.n_links, np.int64))
        return (topo.n_nodes - 1) / float(loads.max()) / t_link, "max channel load (dor)"
    if table is None:
        from netsim_fast.routing.table import build_minimal_table

        table = build_minimal_table(topo)
    loads = _table_channel_loads(topo.arrays.nbr, topo.arrays.link_id, table.dist, table.port_mask,
                                 np.zeros(topo.n_links))
    return (topo.n_nodes - 1) / float(loads.max()) / t_link, f"max channel load ({routing})"


def min_table_capacity(topo) -> tuple[float, str]:
    """BookSim2's ``min_anynet`` on an edge-list or anynet file (terminals anywhere, channels of any
    latency: a channel still takes one flit a cycle): each terminal sends to each of the other
    ``T - 1`` alike, each router pair's traffic (its terminal counts multiplied) walks the one path
    of the table (routing/anynet_min.py), and the busiest channel or a terminal's own link
    (1 flit a cycle) saturates first."""
    from netsim_fast.routing.anynet_min import first_hops

    nbr = topo.arrays.nbr
    lat = topo.link_latency if topo.link_latency is not None else np.ones(nbr.shape, np.int64)
    hops = first_hops(nbr, lat, nbr.shape[1] - topo.concentration)
    t = topo.n_terminals
    routers = (np.asarray(topo.terminal_router, np.int64) if topo.terminal_router is not None
               else np.arange(t) // topo.concentration)
    count = np.bincount(routers, minlength=nbr.shape[0]).astype(np.float64)
    load = np.zeros(nbr.shape, np.float64)
    for s in np.nonzero(count)[0]:
        for d in np.nonzero(count)[0]:
            r = s
            while r != d:
                port = hops[r, d]
                load[r, port] += count[s] * count[d]
                r = nbr[r, port]
    busiest = float(load.max())
    return (min(1.0, (t - 1) / busiest) if busiest > 0 else 1.0), "max channel load (min_anynet table)"
