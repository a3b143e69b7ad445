"""Per-link wire latency: how many cycles each router-to-router link takes.

Two topologies have links of several lengths. The dragonfly: ``--local-latency L`` for the links
inside a group and ``--global-latency G`` for the links between groups, each the cycles from the cycle a flit
is sent to the cycle it is written into the downstream input lane, BookSim2's channel latency
(its dragonflynew compiles in 10 and 100, dragonfly.cpp). Credits coming back over the link
are delayed as much (BookSim2 gives a channel's credit channel the same latency). BookSim2's
cmesh: a channel takes one cycle per terminal pitch it spans (``cmesh_wire_lengths``: 2 for a
mesh channel, k for an express channel), as BookSim2's ``use_noc_latency`` sets them.

On the ``lanes`` and ``iq`` routers a link still accepts one flit every ``--t-link`` cycles and
the flits in flight overlap (a pipelined wire), so a link of latency ``L >= t_link`` adds
``L - t_link`` cycles to every flit and every credit crossing it (``OUT_LANE.wire``); with no
option every link takes ``t_link`` as before. The ``booksim`` router takes ``L`` as its
channel latency (flit/booksim/driver.py).
"""

from __future__ import annotations

import numpy as np


def dragonfly_latency_table(topo, local: int, far: int) -> np.ndarray:
    """int64[N, P]: the latency of the link leaving each port of a dragonfly's routers: ``local``
    on ports 0 .. A-2 (the other routers of the group), ``far`` on the H global ports, 0 on the
    terminals' ports (topologies/direct.py gives the port order)."""
    a, h = int(topo.params["group_routers"]), int(topo.params["global_links"])
    lat = np.zeros((topo.n_nodes, topo.n_ports), np.int64)
    lat[:, : a - 1] = local
    lat[:, a - 1: a - 1 + h] = far
    return lat


def link_wires(cfg, topo) -> np.ndarray | None:
    """int64[N, P]: the cycles each link of the ``lanes`` or ``iq`` router takes beyond
    ``t_link`` (flits and credits); None when every link takes ``t_link``."""
    if topo.kind == "cmesh":
        from netsim_fast.topologies.cmesh import cmesh_wire_lengths

        extra = np.maximum(cmesh_wire_lengths(topo) - cfg.t_link, 0)
        return extra if extra.any() else None
    if topo.kind != "dragonfly" or (cfg.local_latency is None and cfg.global_latency is None):
        return None
    local = cfg.t_link if cfg.local_latency is None else cfg.local_latency
    far = cfg.t_link if cfg.global_latency is None else cfg.global_latency
    extra = dragonfly_latency_table(topo, local - cfg.t_link, far - cfg.t_link)
    return extra if extra.any() else None
