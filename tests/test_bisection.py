"""Bisection width: closed forms where proven, brute force on tiny graphs, heuristics bounded."""

import itertools

import networkx as nx
import pytest

from netsim_fast.topologies import bmg, circulant, debruijn, hypercube, mesh, random_regular, ring, torus
from netsim_fast.topologies.metrics import bisection


def brute_force_networkx(g):
    """Independent oracle: enumerate every balanced split with networkx's cut_size."""
    nodes = list(g.nodes())
    best = None
    for side in itertools.combinations(nodes, len(nodes) // 2):
        size = nx.cut_size(g, side)
        best = size if best is None else min(best, size)
    return best


def test_bisection_of_16x16_torus_is_32_and_exact():
    assert bisection(torus((16, 16))) == (32, True)


@pytest.mark.parametrize("topo,width", [
    (torus((8, 8, 8)), 128), (torus((6, 4)), 8), (mesh((8, 8)), 8), (hypercube(7), 64), (torus((2, 2, 2, 2, 2)), 16),
])
def test_grid_closed_forms(topo, width):
    assert bisection(topo) == (width, True)


@pytest.mark.parametrize("topo", [
    torus((3, 3)), torus((5, 3)), mesh((3, 5)), ring(9), bmg(12), circulant(14, (1, 3)), debruijn(2, 16),
    random_regular(14, 3, 2), random_regular(16, 4, 3),
    ring(3), mesh((3,)), bmg(3), circulant(2, (1,)),  # halves of one node: the enumeration's edge case
], ids=lambda t: t.describe())
def test_small_graphs_are_solved_exactly(topo):
    width, exact = bisection(topo)
    assert exact
    assert width == brute_force_networkx(topo.to_networkx())


def test_heuristic_cuts_are_balanced_upper_bounds_and_flagged_inexact():
    for topo in (torus((5, 5)), random_regular(40, 4, 1), bmg(100), debruijn(2, 64)):
        width, exact = bisection(topo)
        assert not exact
        # any balanced cut is an upper bound; a random one must not beat the heuristic
        g = topo.to_networkx()
        half = list(range(topo.n_nodes // 2))
        assert width <= nx.cut_size(g, half)
        assert width > 0
