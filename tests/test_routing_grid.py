"""Grid routing: minimal routes, tie rule, and deadlock freedom checked on channel dependency graphs."""

import itertools

import networkx as nx
import numpy as np
import pytest

from netsim_fast.routing import CODES, DOR, DOR_NODATELINE, DUATO, MAX_ROWS
from netsim_fast.routing.grid import grid_next_hops
from netsim_fast.topologies import mesh, torus


def rows(topo, code, cur, src, dst, vcs=4):
    out = np.zeros((MAX_ROWS, 4), np.int32)
    a = topo.arrays
    n = grid_next_hops(code, a.radix, a.wrap, a.coord, a.dim_port, vcs, cur, src, dst, out)
    return [tuple(r) for r in out[:n]]


def dor_path(topo, code, src, dst, vcs=4):
    """Channels (link id, lowest VC of the class) along the dimension-order route."""
    path, cur = [], src
    while cur != dst:
        ((port, lo, hi, prio),) = rows(topo, code, cur, src, dst, vcs)
        path.append((int(topo.link_id[cur, port]), int(lo)))
        cur = int(topo.nbr[cur, port])
    return path


def dependency_graph(topo, code, vcs=4):
    g = nx.DiGraph()
    for src, dst in itertools.permutations(range(topo.n_nodes), 2):
        path = dor_path(topo, code, src, dst, vcs)
        g.add_nodes_from(path)
        g.add_edges_from(zip(path, path[1:]))
    return g


@pytest.mark.parametrize("k,n", [(k, n) for k in (4, 5, 6) for n in (1, 2, 3) if k ** n <= 216])
def test_dor_dateline_classes_have_acyclic_channel_dependency_graphs(k, n):
    topo = torus((k,) * n)
    g = dependency_graph(topo, DOR)
    assert nx.is_directed_acyclic_graph(g)
    for cls_lo in (0, 2):  # class 0 = VCs 0..1, class 1 = VCs 2..3
        assert nx.is_directed_acyclic_graph(g.subgraph([c for c in g if c[1] == cls_lo]))


@pytest.mark.parametrize("k", [5, 6])
def test_dor_without_datelines_has_a_dependency_cycle(k):
    assert not nx.is_directed_acyclic_graph(dependency_graph(torus((k,)), DOR_NODATELINE))


def test_dor_routes_are_minimal_and_dimension_ordered():
    topo = torus((6, 5))
    g = topo.to_networkx()
    for src, dst in itertools.permutations(range(topo.n_nodes), 2):
        path = dor_path(topo, DOR, src, dst)
        assert len(path) == nx.shortest_path_length(g, src, dst)
        dims = [int(topo.arrays.port_dim[topo.links()[2][link]]) for link, _ in path]
        assert dims == sorted(dims), "dimension 0 first, then 1"


def test_dor_tie_at_half_ring_goes_plus_from_even_and_minus_from_odd():
    topo = torus((6,))
    plus, minus = topo.arrays.dim_port[0]
    assert rows(topo, DOR, 0, 0, 3)[0][0] == plus
    assert rows(topo, DOR, 1, 1, 4)[0][0] == minus


def test_dor_uses_dateline_class_on_and_after_the_wraparound_link():
    topo = torus((6,))
    # 4 -> 5 -> 0 (wrap) -> 1: class 0, class 1 on the wrap link, class 1 after it
    assert [lo for _, lo in dor_path(topo, DOR, 4, 1)] == [0, 2, 2]
    # a path that never wraps stays in class 0
    assert [lo for _, lo in dor_path(topo, DOR, 1, 3)] == [0, 0]


def test_duato_offers_every_minimal_direction_then_the_escape_channel():
    topo = torus((6, 6))
    r = rows(topo, DUATO, 0, 0, 3 + 6 * 2)  # dx = 3 (tie: both ways), dy = 2
    adaptive = [x for x in r if x[3] == 0]
    escape = [x for x in r if x[3] == 1]
    assert {x[0] for x in adaptive} == {0, 1, 2}  # +x, -x, +y
    assert all(x[1:3] == (2, 3) for x in adaptive)
    assert len(escape) == 1 and escape[0][1] == escape[0][2] in (0, 1)


def duato_extended_graph(topo, vcs=4):
    """Duato's extended channel dependency graph of the escape channels: direct dependencies and
    indirect ones through adaptive channels (any minimal detour between two escape hops)."""
    g = nx.DiGraph()
    dist = dict(nx.all_pairs_shortest_path_length(topo.to_networkx()))

    def escape(cur, src, dst):
        (port, lo, _, _), = [x for x in rows(topo, DUATO, cur, src, dst, vcs) if x[3] == 1]
        return (int(topo.link_id[cur, port]), int(lo)), int(topo.nbr[cur, port])

    for src, dst in itertools.permutations(range(topo.n_nodes), 2):
        box = [v for v in range(topo.n_nodes) if dist[src][v] + dist[v][dst] == dist[src][dst] and v != dst]
        for w in box:
            channel, u = escape(w, src, dst)
            for v in box:
                if dist[u][v] + dist[v][dst] == dist[u][dst] and dist[u][v] <= dist[u][dst]:
                    if v != dst and dist[src][v] >= dist[src][u]:
                        g.add_edge(channel, escape(v, src, dst)[0])
    return g


@pytest.mark.parametrize("dims", [(4, 4), (5, 5), (6, 4), (5,)])
def test_duato_escape_network_has_an_acyclic_extended_dependency_graph(dims):
    assert nx.is_directed_acyclic_graph(duato_extended_graph(torus(dims)))


def test_mesh_dor_needs_no_classes():
    topo = mesh((4, 4))
    assert all(lo == 0 for _, lo in dor_path(topo, DOR, 0, 15))
    assert rows(topo, DOR, 0, 0, 15)[0][1:3] == (0, 3)


def test_routing_registry_matches_cli_choices():
    from netsim_fast.config import BMG_ROUTINGS, FLIT_ROUTINGS
    from netsim_fast.routing import ADAPTIVE_ROUTINGS, NONMIN_ROUTINGS, TABLE_ROUTINGS, UPDOWN_ROUTINGS
    from netsim_fast.routing.bmg import CODES as BMG_CODES

    assert set(FLIT_ROUTINGS) == set(CODES) | set(TABLE_ROUTINGS) | set(NONMIN_ROUTINGS) | set(UPDOWN_ROUTINGS) | \
        set(ADAPTIVE_ROUTINGS)
    assert set(BMG_ROUTINGS) <= set(BMG_CODES) and set(BMG_ROUTINGS) <= set(TABLE_ROUTINGS)
