"""Topology builders and metrics against independent oracles (networkx, closed forms)."""

import networkx as nx
import numpy as np
import pytest

from netsim_fast.topologies import (
    bmg, circulant, complete, debruijn, from_networkx, hypercube, mesh, random_regular, ring, torus,
)
from netsim_fast.topologies.circulant import bmg_degree_formula, bmg_jumps, circulant_offsets
from netsim_fast.topologies.metrics import topology_metrics


def assert_port_tables_consistent(topo):
    a = topo.arrays
    src, port = np.nonzero(a.nbr >= 0)
    back = a.nbr[a.nbr[src, port], a.nbr_in_port[src, port]]
    assert np.array_equal(back, src), "nbr_in_port must lead back to the sender"
    assert np.all(a.nbr[:, topo.local_port] == -1), "the local port has no neighbour"
    ids = a.link_id[src, port]
    assert np.array_equal(np.sort(ids), np.arange(ids.size)), "link ids are 0..n_links-1"
    assert np.array_equal(a.degree, (a.nbr[:, :-1] >= 0).sum(axis=1))


def nx_metrics(g):
    lengths = dict(nx.all_pairs_shortest_path_length(g))
    n = g.number_of_nodes()
    dist = np.array([[lengths[u][v] for v in range(n)] for u in range(n)])
    counts = np.array([np.count_nonzero(dist == d) for d in range(dist.max() + 1)]) / n
    return {
        "average_distance": dist.sum() / (n * (n - 1)),
        "diameter": int(dist.max()),
        "distance_distribution": counts,
        "links": g.number_of_edges(),
    }


CASES = [
    ("torus 4x4", lambda: torus((4, 4)), lambda: nx.grid_graph(dim=[4, 4], periodic=True)),
    ("torus 5x3x4", lambda: torus((5, 3, 4)), lambda: nx.grid_graph(dim=[4, 3, 5], periodic=True)),
    ("torus 6", lambda: torus((6,)), lambda: nx.cycle_graph(6)),
    ("mesh 4x5", lambda: mesh((4, 5)), lambda: nx.grid_2d_graph(4, 5)),
    ("mesh 3x3x2", lambda: mesh((3, 3, 2)), lambda: nx.grid_graph(dim=[3, 3, 2])),
    ("hypercube 4", lambda: hypercube(4), lambda: nx.hypercube_graph(4)),
    ("torus k=2 is hypercube", lambda: torus((2, 2, 2)), lambda: nx.hypercube_graph(3)),
    ("torus 2x4 mixed", lambda: torus((2, 4)), lambda: nx.grid_graph(dim=[4, 2], periodic=[True, False])),
    ("bmg 12", lambda: bmg(12), lambda: nx.circulant_graph(12, [1, 2, 4, 8])),
    ("bmg 17", lambda: bmg(17), lambda: nx.circulant_graph(17, [1, 2, 4, 8, 16])),
    ("circulant 11 (1,2,5)", lambda: circulant(11, (1, 2, 5)), lambda: nx.circulant_graph(11, [1, 2, 5])),
    ("ring 7", lambda: ring(7), lambda: nx.cycle_graph(7)),
    ("complete 6", lambda: complete(6), lambda: nx.complete_graph(6)),
]


@pytest.mark.parametrize("name,build,oracle", CASES, ids=[c[0] for c in CASES])
def test_topology_matches_networkx(name, build, oracle):
    topo = build()
    assert_port_tables_consistent(topo)
    g = nx.convert_node_labels_to_integers(oracle())
    assert nx.is_isomorphic(topo.to_networkx(), g)
    ours, ref = topology_metrics(topo, with_bisection=False), nx_metrics(topo.to_networkx())
    assert ours["links"] == ref["links"]
    assert ours["diameter"] == ref["diameter"]
    assert ours["average_distance"] == pytest.approx(ref["average_distance"])
    assert np.allclose(ours["distance_distribution"], ref["distance_distribution"])


def test_torus_numbering_dimension_zero_fastest():
    topo = torus((4, 3))
    assert topo.coord[5].tolist() == [1, 1]
    assert topo.node_id((3, 2)) == 3 + 2 * 4
    plus0, plus1 = topo.arrays.dim_port[0, 0], topo.arrays.dim_port[1, 0]
    assert topo.nbr[0, plus0] == 1 and topo.nbr[0, plus1] == 4
    assert topo.nbr[3, plus0] == 0, "the + port of the last column wraps around"


def test_radix_two_dimension_has_a_single_port_and_no_duplicate_link():
    topo = torus((2, 2, 2))
    assert topo.n_ports == 4 and topo.n_links == 2 * 12
    assert np.all(topo.arrays.port_dir[:3] == 0)


def test_metrics_of_irregular_graphs_match_networkx():
    for topo in (random_regular(30, 3, 7), debruijn(2, 32), mesh((3, 5))):
        ours, ref = topology_metrics(topo, with_bisection=False), nx_metrics(topo.to_networkx())
        assert ours["average_distance"] == pytest.approx(ref["average_distance"])
        assert np.allclose(ours["distance_distribution"], ref["distance_distribution"])


def _ring_mean_distance(k, wrap):
    """Mean distance from a node to all k nodes of a ring (self included) or a path."""
    if not wrap:
        return (k * k - 1) / (3 * k)
    return k / 4 if k % 2 == 0 else (k * k - 1) / (4 * k)


@pytest.mark.parametrize("dims", [(16, 16), (5, 7), (8, 8, 4), (3,), (9, 2, 6)])
def test_torus_average_distance_closed_form(dims):
    n = np.prod(dims)
    per_node = sum(_ring_mean_distance(k, True) for k in dims)  # sum over dims, self included
    expected = per_node * n / (n - 1)
    assert topology_metrics(torus(dims), with_bisection=False)["average_distance"] == pytest.approx(expected)
    mesh_expected = sum(_ring_mean_distance(k, False) for k in dims) * n / (n - 1)
    assert topology_metrics(mesh(dims), with_bisection=False)["average_distance"] == pytest.approx(mesh_expected)


def test_bmg_degree_matches_eq1_for_every_size_16_to_4096():
    # The builder's port columns are exactly these offsets; build a sample in full too.
    for n in range(16, 4097):
        offsets, _ = circulant_offsets(n, bmg_jumps(n))
        assert len(offsets) == bmg_degree_formula(n), n
    for n in list(range(16, 4097, 97)) + [4096, 4095, 2049, 1025, 3072]:
        topo = bmg(n)
        assert int(topo.degree.min()) == int(topo.degree.max()) == bmg_degree_formula(n), n


def test_bmg_degree_formula_cases():
    assert bmg_degree_formula(16) == 7        # 2^k
    assert bmg_degree_formula(17) == 8        # 2^k + 2^0 (j = 0 allowed)
    assert bmg_degree_formula(24) == 8        # 2^4 + 2^3
    assert bmg_degree_formula(25) == 10       # otherwise


@pytest.mark.parametrize("nodes,degree", [(64, 4), (100, 3), (50, 2), (31, 6)])
def test_random_regular_graph_is_simple_regular_connected(nodes, degree):
    topo = random_regular(nodes, degree, seed=11)
    g = topo.to_networkx()
    assert nx.is_connected(g)
    assert all(d == degree for _, d in g.degree())
    assert g.number_of_edges() == nodes * degree // 2
    assert nx.number_of_selfloops(g) == 0
    assert_port_tables_consistent(topo)


def test_random_regular_graph_is_reproducible_from_its_seed():
    a, b, c = random_regular(64, 4, 5), random_regular(64, 4, 5), random_regular(64, 4, 6)
    assert np.array_equal(a.nbr, b.nbr)
    assert not np.array_equal(a.nbr, c.nbr)


def test_debruijn_drops_loops_and_merges_double_links():
    topo = debruijn(2, 16)
    g = topo.to_networkx()
    assert nx.number_of_selfloops(g) == 0
    assert topo.degree[0] == 2 and topo.degree[15] == 2   # loop nodes 0000 and 1111
    assert topo.degree[5] == 3 and topo.degree[10] == 3   # 0101 <-> 1010 double link merged
    assert topo.degree.max() == 4
    assert_port_tables_consistent(topo)


def test_from_networkx_renumbers_sorted_labels():
    g = nx.Graph([("b", "c"), ("a", "b"), ("c", "a"), ("c", "d")])
    topo = from_networkx(g)
    assert topo.params["labels"] == ["a", "b", "c", "d"]
    assert sorted(map(tuple, topo.edges().tolist())) == [(0, 1), (0, 2), (1, 2), (2, 3)]
