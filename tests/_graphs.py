"""Graph helpers for the tests of the packet engine and the routing table."""

import numpy as np

from netsim_fast.topologies.base import Topology, from_edges
from netsim_fast.topologies.rrg import random_regular  # noqa: F401  (re-exported for tests)


def from_networkx(g):
    """A Topology of an undirected networkx graph with nodes 0..n-1."""
    edges = np.array(sorted(tuple(sorted(e)) for e in g.edges()), dtype=np.int64)
    return Topology("graph", {"nodes": g.number_of_nodes()}, from_edges(g.number_of_nodes(), edges))
