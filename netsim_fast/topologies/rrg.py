"""Random r-regular graphs (Bieniek et al., papers/000): simple, connected, reproducible.

Drawn with networkx's ``random_regular_graph`` (pairing model with rejection of loops and
multi-edges, so the result is simple). A draw that is disconnected is **discarded and redrawn**
with the next seed of a deterministic sequence derived from the graph seed (numpy
``SeedSequence([seed, attempt])``), up to ``MAX_ATTEMPTS`` draws; the attempt that succeeded is
recorded in ``params``. Degree 2 is drawn directly as a random Hamiltonian cycle (the only
connected 2-regular graphs), because a random 2-regular graph is almost surely disconnected for
large N. Ports follow ascending neighbour ids.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.topologies.base import Topology, from_edges

MAX_ATTEMPTS = 100


def _attempt_seed(seed: int, attempt: int) -> int:
    return int(np.random.SeedSequence([int(seed), attempt]).generate_state(1, np.uint32)[0])


def random_regular(nodes: int, degree: int, seed: int) -> Topology:
    import networkx as nx

    params = {"nodes": nodes, "degree": degree, "graph_seed": seed}
    for attempt in range(MAX_ATTEMPTS):
        s = _attempt_seed(seed, attempt)
        if degree == 2:
            order = np.random.default_rng(s).permutation(nodes)
            edges = np.stack([order, np.roll(order, -1)], axis=1)
        else:
            g = nx.random_regular_graph(degree, nodes, seed=s)
            if not nx.is_connected(g):
                continue
            edges = np.array(sorted(g.edges()), dtype=np.int64)
        params["draw_attempt"] = attempt
        arrays = from_edges(nodes, np.sort(edges, axis=1))
        return Topology(kind="rrg", params=params, arrays=arrays)
    raise ConfigError(
        f"random regular graph with --nodes {nodes} --degree {degree}: no connected draw in "
        f"{MAX_ATTEMPTS} attempts from --graph-seed {seed}; use --degree >= 3"
    )
