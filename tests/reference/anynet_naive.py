"""A plain restatement of BookSim2's ``min_anynet`` next hops (anynet.cpp ``route``), for tests.

Distances come from networkx (Dijkstra on the channel latencies). With latencies of at least one
cycle, BookSim2's search takes the routers in order of (distance, id), and a router's predecessor
is the first router so taken from which its final distance is reached. The first hop towards
``d`` is then found by walking the predecessors back from ``d``.
"""

from __future__ import annotations

import networkx as nx


def naive_first_hop(latency: dict, n_routers: int) -> dict:
    """``{(source, destination): next router}`` for every ordered pair of distinct routers;
    ``latency[(u, s)]`` is the cycles of the channel ``u -> s``."""
    g = nx.DiGraph()
    g.add_nodes_from(range(n_routers))
    for (u, s), cycles in latency.items():
        g.add_edge(u, s, weight=cycles)
    hops = {}
    for start in range(n_routers):
        dist = nx.single_source_dijkstra_path_length(g, start)
        taken = sorted(range(n_routers), key=lambda r: (dist[r], r))
        prev = {}
        for v in range(n_routers):
            if v == start:
                continue
            prev[v] = next(u for u in taken if g.has_edge(u, v) and dist[u] + g[u][v]["weight"] == dist[v])
        for d in range(n_routers):
            if d == start:
                continue
            hop = d
            while prev[hop] != start:
                hop = prev[hop]
            hops[(start, d)] = hop
    return hops
