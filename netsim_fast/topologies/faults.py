"""Failed links (``--link-failures N --fault-seed S``, BookSim2's ``link_failures``).

``fail_links`` removes N undirected links drawn uniformly without replacement from
``Generator(SeedSequence([seed, 0xFA11]))``: both directions of each go, the ports stay (unused,
as a mesh border's are), the remaining directed links are renumbered in (node, port) order, and
grid coordinates are kept so that coordinate patterns (transpose, tornado, ...) still mean the
same nodes. Only routings computed from the graph (``minimal``, the packet engine's tables) can
go around the holes; the configuration refuses the others. A network the failures disconnect
is refused, naming the seed, before anything runs.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.topologies.base import NONE, Topology


def fail_links(topo: Topology, count: int, seed: int) -> Topology:
    """``topo`` without ``count`` random undirected links (see the module docstring)."""
    from scipy.sparse.csgraph import connected_components

    edges = topo.edges()
    if count > edges.shape[0]:
        raise ConfigError(f"--link-failures {count}: the network has only {edges.shape[0]} links")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xFA11]))
    failed = edges[np.sort(rng.choice(edges.shape[0], size=count, replace=False))]
    a = topo.arrays
    nbr, nbr_in_port, degree = a.nbr.copy(), a.nbr_in_port.copy(), a.degree.copy()
    for u, v in failed:
        for x, y in ((u, v), (v, u)):
            port = int(np.flatnonzero(nbr[x] == y)[0])
            nbr[x, port] = nbr_in_port[x, port] = NONE
            degree[x] -= 1
    link_id = np.full_like(a.link_id, NONE)
    used = nbr >= 0
    used[:, -1] = False  # the local port carries no link
    link_id[used] = np.arange(int(used.sum()), dtype=link_id.dtype)
    arrays = a._replace(nbr=nbr, nbr_in_port=nbr_in_port, link_id=link_id, degree=degree)
    out = Topology(kind=topo.kind, params={**topo.params, "link_failures": count, "fault_seed": seed},
                   arrays=arrays, vertex_transitive=False,
                   notes=topo.notes + (f"{count} failed links (fault seed {seed})",))
    n_parts = connected_components(out.csr(), directed=False)[0]
    if n_parts > 1:
        raise ConfigError(f"--link-failures {count}: with --fault-seed {seed} the failures cut the network into "
                          f"{n_parts} parts; fail fewer links or choose another seed")
    return out
