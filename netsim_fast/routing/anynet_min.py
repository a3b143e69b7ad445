"""BookSim2's ``min_anynet`` routing table (``networks/anynet.cpp``: ``buildRoutingTable``, ``route``).

For each router ``r`` BookSim2 runs Dijkstra over the routers with the channel latencies as
weights (the channel ``u -> s`` weighs what the file gives it), and keeps, for every other router,
the first router of the path it found: the next hop of every terminal there. Its ties are fixed
by two rules, kept here exactly:

- the router taken next is the unvisited one of least distance, the lowest id among equals;
- a router's predecessor changes only on a strictly shorter distance, so it is the first router
  taken (in that order) from which the final distance is reached.

The table gives, at each router, the output port of every destination terminal: the port of the
first hop, or at the terminal's own router the terminal's local port. It is one path per pair,
on every VC: no deadlock avoidance (BookSim2's, as its README says).
"""

from __future__ import annotations

import numpy as np

INFINITE = np.iinfo(np.int64).max
MAX_TABLE_ROUTERS = 2048  # the search is R runs of R steps, the first hops R x R entries


def first_hops(nbr: np.ndarray, lat: np.ndarray, n_ports: int) -> np.ndarray:
    """int32[R, R]: the output port of router ``r`` towards router ``d`` (NONE = -1 on the
    diagonal); ``nbr`` int[R, P] (-1 unused), ``lat`` int[R, P] the channel latencies."""
    n = nbr.shape[0]
    out = np.full((n, n), -1, np.int32)
    links = [np.nonzero(nbr[u, :n_ports] >= 0)[0] for u in range(n)]
    for start in range(n):
        dist = np.full(n, INFINITE, np.int64)
        prev = np.full(n, -1, np.int64)
        open_ = np.ones(n, bool)
        dist[start] = 0
        for _ in range(n):
            masked = np.where(open_, dist, INFINITE)
            u = int(np.argmin(masked))  # the lowest id among the nearest
            if masked[u] == INFINITE:
                raise ValueError(f"router {u} cannot be reached from router {start}")
            open_[u] = False
            ports = links[u]
            others = nbr[u, ports]
            new = dist[u] + lat[u, ports]
            better = new < dist[others]  # strictly: the first router to reach a distance keeps it
            dist[others[better]] = new[better]
            prev[others[better]] = u
        port_to = {int(nbr[start, p]): int(p) for p in links[start]}
        for d in range(n):
            if d == start:
                continue
            hop = d
            while prev[hop] != start:
                hop = int(prev[hop])
            out[start, d] = port_to[hop]
    return out


def min_table(topo, terminal_port: np.ndarray) -> np.ndarray:
    """int32[R * T]: at router ``r``, the output port towards terminal ``t`` (entry ``r * T + t``).
    ``topo`` carries ``arrays.nbr``, ``link_latency`` (None: every channel 1 cycle), the terminals'
    routers (``terminal_router``, None: ``t // concentration``) and ``n_terminals``."""
    nbr = topo.arrays.nbr
    lat = topo.link_latency if topo.link_latency is not None else np.ones(nbr.shape, np.int64)
    hops = first_hops(nbr, lat, nbr.shape[1] - topo.concentration)
    t = topo.n_terminals
    routers = (np.asarray(topo.terminal_router, np.int64) if topo.terminal_router is not None
               else np.arange(t) // topo.concentration)
    table = hops[:, routers].copy()
    own = np.arange(nbr.shape[0])[:, None] == routers[None, :]
    table[own] = np.broadcast_to(terminal_port[None, :], table.shape)[own]
    return np.ascontiguousarray(table.reshape(-1), np.int32)
