"""Topologies: pure Python + numpy builders returning an immutable ``Topology`` of port tables."""

from netsim_fast.topologies.base import NONE, Topology, TopoArrays
from netsim_fast.topologies.torus import coordinates, hypercube, mesh, torus

__all__ = ["NONE", "Topology", "TopoArrays", "coordinates", "hypercube", "mesh", "torus"]
