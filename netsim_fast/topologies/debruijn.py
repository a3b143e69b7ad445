"""de Bruijn graphs, as used by Bieniek et al. (papers/000, section II and Fig. 10).

The directed de Bruijn graph B(b, n) on N = b^n nodes has arcs x -> (b*x + a) mod N for
a = 0 .. b-1. The network is its undirected version: every arc becomes a link, **self-loops
are dropped** (nodes x = c*(N-1)/(b-1), e.g. 0 and N-1 for b = 2) and **double links are
merged** (x -> y and y -> x both arcs, e.g. 0101.. <-> 1010.. for b = 2). So most nodes have
degree 2b (b out-arcs, b in-arcs), the b loop nodes have 2b - 2, and the endpoints of merged
pairs have one less: the graph is not regular. ``directed_arcs`` keeps every arc, loops
included, for the random-embedding workload of papers/000.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import Topology, from_edges


def directed_arcs(base: int, nodes: int) -> np.ndarray:
    """int64[N*b, 2] arcs (x, b*x + a mod N) in x-major, a-minor order (self-loops kept)."""
    x = np.repeat(np.arange(nodes, dtype=np.int64), base)
    a = np.tile(np.arange(base, dtype=np.int64), nodes)
    return np.stack([x, (base * x + a) % nodes], axis=1)


def debruijn(base: int, nodes: int) -> Topology:
    arcs = directed_arcs(base, nodes)
    arcs = arcs[arcs[:, 0] != arcs[:, 1]]
    pairs = np.unique(np.sort(arcs, axis=1), axis=0)
    arrays = from_edges(nodes, pairs)
    return Topology(kind="debruijn", params={"base": base, "nodes": nodes}, arrays=arrays)
