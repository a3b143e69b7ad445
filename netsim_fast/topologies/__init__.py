"""Topologies: pure Python + numpy builders returning an immutable ``Topology`` of port tables.

``build_topology(cfg)`` builds the topology a validated ``Config`` describes; the builders
themselves (``torus``, ``bmg``, ``random_regular``, ``from_networkx``, ...) are public for
notebooks and tests.
"""

from netsim_fast.errors import ConfigError
from netsim_fast.topologies.base import NONE, Topology, TopoArrays, concentrate
from netsim_fast.topologies.circulant import bmg, circulant, complete, ring
from netsim_fast.topologies.cmesh import cmesh
from netsim_fast.topologies.debruijn import debruijn
from netsim_fast.topologies.direct import dragonfly, flatfly, hyperx
from netsim_fast.topologies.edgelist import from_edgelist_file, from_networkx
from netsim_fast.topologies.fattree import clos, fattree
from netsim_fast.topologies.fly import fly
from netsim_fast.topologies.rrg import random_regular
from netsim_fast.topologies.torus import coordinates, hypercube, mesh, torus

# Names ``build_topology`` knows; the grids have coordinates and one port per direction.
TOPOLOGIES = ("torus", "mesh", "hypercube", "rrg", "debruijn", "bmg", "circulant", "ring", "complete", "edgelist",
              "flatfly", "hyperx", "dragonfly", "fattree", "clos", "cmesh", "fly")
# cmesh keeps the mesh's coordinates and ports (its express channels use the border ports)
GRID_TOPOLOGIES = ("torus", "mesh", "hypercube", "cmesh")
# Indirect networks: terminals on their leaf switches only (topologies/fattree.py).
TREE_TOPOLOGIES = ("fattree", "clos")
# Indirect networks whose terminals sit on some routers only (their first routers' slots):
# the trees, and the butterfly, which injects at its first stage and ejects at its last.
INDIRECT_TOPOLOGIES = TREE_TOPOLOGIES + ("fly",)


def build_topology(cfg) -> Topology:
    """The ``Topology`` of a validated ``netsim_fast.config.Config`` (its failed links removed,
    ``cfg.concentration`` terminals per router)."""
    topo = _build(cfg)
    if topo.terminal_router is not None:  # an anynet file places its own terminals, and has no spare links
        for option, value, default in (("concentration", getattr(cfg, "concentration", 1), 1),
                                       ("link-failures", getattr(cfg, "link_failures", 0), 0)):
            if value != default:
                raise ConfigError(f"--{option} {value}: does not apply to the anynet file {cfg.file} (it gives "
                                  f"its terminals and links itself)")
    if getattr(cfg, "link_failures", 0):
        from netsim_fast.topologies.faults import fail_links

        topo = fail_links(topo, cfg.link_failures, cfg.fault_seed)
    return concentrate(topo, getattr(cfg, "concentration", 1))


def _build(cfg) -> Topology:
    kind = cfg.topology
    if kind == "torus":
        return torus(cfg.dims)
    if kind == "mesh":
        return mesh(cfg.dims)
    if kind == "hypercube":
        return hypercube(len(cfg.dims))
    if kind == "cmesh":
        return cmesh(cfg.dims[0])
    if kind == "rrg":
        return random_regular(cfg.nodes, cfg.degree, cfg.graph_seed)
    if kind == "debruijn":
        return debruijn(cfg.base, cfg.nodes)
    if kind == "bmg":
        return bmg(cfg.nodes)
    if kind == "circulant":
        return circulant(cfg.nodes, cfg.jumps)
    if kind == "ring":
        return ring(cfg.nodes)
    if kind == "complete":
        return complete(cfg.nodes)
    if kind == "edgelist":
        return from_edgelist_file(cfg.file)
    if kind == "flatfly":
        return flatfly(cfg.k, cfg.n)
    if kind == "hyperx":
        return hyperx(cfg.dims, cfg.widths)
    if kind == "dragonfly":
        return dragonfly(cfg.group_routers, cfg.global_links, cfg.groups, cfg.global_arrangement)
    if kind == "fattree":
        return fattree(cfg.k, cfg.n)
    if kind == "clos":
        return clos(cfg.switch_ports)
    if kind == "fly":
        return fly(cfg.k, cfg.n)
    raise ValueError(f"no builder for topology {kind!r}")  # Config validation makes this unreachable


__all__ = [
    "GRID_TOPOLOGIES", "INDIRECT_TOPOLOGIES", "NONE", "TOPOLOGIES", "TREE_TOPOLOGIES", "Topology", "TopoArrays", "bmg", "build_topology",
    "circulant", "clos", "cmesh", "complete", "concentrate", "fattree", "fly",
    "coordinates", "debruijn", "dragonfly", "flatfly", "from_edgelist_file", "hyperx", "from_networkx", "hypercube", "mesh",
    "random_regular", "ring", "torus",
]
