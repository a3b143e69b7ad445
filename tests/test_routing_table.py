"""All-minimal-next-hops table against networkx shortest paths."""

import networkx as nx
import numpy as np
import pytest

from netsim_fast.routing.table import (
    build_minimal_table,
    count_minimal_ports,
    first_minimal_port,
    minimal_ports,
    nth_minimal_port,
)
from netsim_fast.topologies import torus

from _graphs import from_networkx, random_regular


def _check_against_networkx(topo):
    table = build_minimal_table(topo)
    g = topo.to_networkx()
    lengths = dict(nx.all_pairs_shortest_path_length(g))
    n = topo.n_nodes
    out = np.empty(topo.n_ports, np.int64)
    for u in range(n):
        for v in range(n):
            assert table.dist[u, v] == lengths[u].get(v, -1)
            want = [p for p in range(topo.n_ports - 1)
                    if topo.nbr[u, p] >= 0 and v in lengths[u] and u != v
                    and lengths[topo.nbr[u, p]][v] == lengths[u][v] - 1]
            got = list(out[: minimal_ports(table, u, v, out)])
            assert got == want
            assert count_minimal_ports(table, u, v) == len(want)
            assert first_minimal_port(table, u, v) == (want[0] if want else -1)
            for k, p in enumerate(want):
                assert nth_minimal_port(table, u, v, k) == p
    return table


def test_table_matches_networkx_on_random_regular_graph():
    _check_against_networkx(random_regular(20, 3, seed=1))


def test_table_matches_networkx_on_torus_with_equal_paths():
    table = _check_against_networkx(torus([4, 4]))
    # opposite corner of a 4x4 torus: 2 dimensions x 2 directions are all minimal
    assert count_minimal_ports(table, 0, 10) == 4


def test_table_marks_unreachable_pairs_and_handles_degree_above_eight():
    g = nx.disjoint_union(nx.complete_graph(12), nx.path_graph(3))
    table = _check_against_networkx(from_networkx(g))
    assert table.port_mask.shape[2] == 2  # 11 network ports + local need two bytes
    assert table.dist[0, 13] == -1


def test_table_memory_for_4096_nodes_is_two_bytes_plus_one_per_pair():
    topo = random_regular(4096, 4, seed=0)
    table = build_minimal_table(topo)
    assert table.dist.nbytes == 4096 * 4096 * 2
    assert table.port_mask.nbytes == 4096 * 4096
    # every pair is connected and every non-self pair has at least one minimal port
    assert table.dist.min() == 0
    rows = np.random.default_rng(0).integers(0, 4096, size=(50, 2))
    for u, v in rows:
        if u != v:
            assert 1 <= count_minimal_ports(table, u, v) <= 4
