"""Graph builders for the tests of the packet engine and the routing table.

``random_regular`` stands in for ``netsim_fast.topologies.rrg`` until it lands on main.
"""

import networkx as nx
import numpy as np

from netsim_fast.topologies.base import Topology, from_edges


def random_regular(n_nodes, degree, seed):
    """A connected random ``degree``-regular graph (networkx), redrawn until connected."""
    for attempt in range(100):
        g = nx.random_regular_graph(degree, n_nodes, seed=seed * 1000 + attempt)
        if nx.is_connected(g):
            edges = np.array(sorted(tuple(sorted(e)) for e in g.edges()), dtype=np.int64)
            return Topology("rrg", {"nodes": n_nodes, "degree": degree, "seed": seed},
                            from_edges(n_nodes, edges))
    raise RuntimeError("no connected random regular graph in 100 draws")


def from_networkx(g):
    """A Topology of an undirected networkx graph with nodes 0..n-1."""
    edges = np.array(sorted(tuple(sorted(e)) for e in g.edges()), dtype=np.int64)
    return Topology("graph", {"nodes": g.number_of_nodes()}, from_edges(g.number_of_nodes(), edges))
