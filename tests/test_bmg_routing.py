"""BMG next-hop kernels: graph structure, valid walks, shortest paths, the paper's worked examples."""

import networkx as nx
import numpy as np
import pytest

from netsim_fast.errors import ConfigError
from netsim_fast.routing import bmg as r
from netsim_fast.routing.bmg_bfs import bfs_from_zero, full_table, search_next
from netsim_fast.routing.bmg_bits import cbe, check_11, estimate, naf, split_rep, split_weight
from netsim_fast.routing.bmg_links import degree, n_slots, popcount, slot_offset, top_exp

SMALL = list(range(3, 41)) + [63, 64, 65, 96, 127, 128, 129]
"""Every tiny size plus the cases around powers of two and n = 2^k + 2^j."""


def nx_bmg(n):
    """Oracle graph built by networkx from the definition (jumps 2^k < n)."""
    jumps = [1 << k for k in range(n.bit_length()) if (1 << k) < n]
    return nx.circulant_graph(n, jumps)


def nx_dist_from_zero(n):
    lengths = nx.single_source_shortest_path_length(nx_bmg(n), 0)
    return np.array([lengths[v] for v in range(n)])


def offsets(n):
    k = top_exp(n)
    return [o for o in (slot_offset(n, k, i) for i in range(n_slots(k))) if o >= 0]


def eq1_degree(n):
    """Eq. (1) of papers/001 with j = 0 allowed in n = 2^k + 2^j."""
    c = (n - 1).bit_length()  # ceil(log2 n)
    if n & (n - 1) == 0:
        return 2 * c - 1
    if bin(n).count("1") == 2:
        return 2 * c - 2
    return 2 * c


def test_top_exp_is_the_exponent_of_the_largest_jump():
    assert [top_exp(n) for n in range(2, 5000)] == [(n - 1).bit_length() - 1 for n in range(2, 5000)]


def test_degree_matches_equation_1_for_every_size_16_to_4096():
    bad = [n for n in range(16, 4097) if degree(n) != eq1_degree(n)]
    assert bad == []


@pytest.mark.parametrize("n", SMALL)
def test_neighbour_offsets_are_the_distinct_links_of_the_graph(n):
    offs = offsets(n)
    assert len(offs) == len(set(offs))
    assert set(offs) == set(nx_bmg(n).neighbors(0))


@pytest.mark.parametrize("n", [12, 16, 17, 100, 1024, 1500])
def test_neighbour_offsets_agree_with_the_topology_builder(n):
    from netsim_fast.topologies.circulant import bmg

    topo = bmg(n)
    ports = topo.nbr[0][topo.nbr[0] >= 0]
    assert set(offsets(n)) == {int(v) for v in ports if v != 0}


@pytest.mark.parametrize("name", [name for name in r.NAMES])
def test_every_hop_is_a_link_and_routes_end_at_the_destination(name):
    code = r.CODES[name]
    for n in SMALL:
        graph = nx_bmg(n)
        table = r.table_for(code, n)
        path = np.empty(r.hop_cap(n) + 1, np.int64)
        for src in range(n):
            for dst in range(n):
                hops = r.walk(code, n, 4, src, dst, table, path)
                assert hops >= 0, (n, src, dst)
                assert path[hops] == dst
                for a, b in zip(path[:hops], path[1:hops + 1]):
                    assert graph.has_edge(int(a), int(b)), (name, n, src, dst, list(path[:hops + 1]))


@pytest.mark.parametrize("name,loops", [("bmg-bfs", 4), ("bmg-equiclass", 4), ("bmg-equiclass", 6)])
def test_optimal_routers_route_on_shortest_paths(name, loops):
    code = r.CODES[name]
    sizes = SMALL + [255, 300, 511, 777, 1000]
    path = np.empty(1025, np.int64)
    for n in sizes:
        dist = nx_dist_from_zero(n)
        table = r.table_for(code, n)
        for src in (0, 1, n // 3, n - 1):
            for dst in range(n):
                hops = r.walk(code, n, loops, src, dst, table, path)
                assert hops == dist[(dst - src) % n], (name, n, src, dst)


@pytest.mark.parametrize("n", [3, 5, 12, 16, 24, 33])
def test_bfs_table_matches_algorithm_1_run_per_pair(n):
    table = full_table(n)
    offset_table = r.bfs_table(n, full=False)
    for cur in range(n):
        for dst in range(n):
            assert table[cur, dst] == search_next(n, cur, dst)
            assert r.bmg_next_hop(r.BFS, n, 4, cur, dst, offset_table) == table[cur, dst]
            assert r.bmg_next_hop(r.BFS, n, 4, cur, dst, r.NO_TABLE) == table[cur, dst]


def test_bfs_distances_match_networkx():
    for n in SMALL + [1000, 2049]:
        assert np.array_equal(bfs_from_zero(n)[0], nx_dist_from_zero(n))


@pytest.mark.parametrize("name", r.NAMES)
def test_next_hop_at_the_destination_is_the_destination(name):
    code = r.CODES[name]
    assert r.bmg_next_hop(code, 50, 4, 17, 17, r.table_for(code, 50)) == 17


@pytest.mark.nojit
def test_check_11_returns_the_least_consecutive_bit_of_figure_8():
    assert check_11(0b1101110) == 0b10      # the paper's example (110)
    assert check_11(0b1110000) == 0b10000   # 112, the second step
    assert check_11(0b10101) == 0
    assert check_11(0) == 0


@pytest.mark.nojit
def test_cbe_reproduces_the_worked_example_of_section_3_2():
    # 110 = 128 - 18: one clockwise jump of 128, counter-clockwise jumps 16 and 2
    assert cbe(110) == (128, 18)
    assert cbe(7) == (8, 1)


@pytest.mark.nojit
def test_popcount_counts_bits():
    for x in (0, 1, 2, 3, 255, 256, (1 << 40) - 1, 0x5555555555555555):
        assert popcount(x) == bin(x).count("1")


def test_cbe_gives_a_non_adjacent_form_of_minimum_weight():
    for x in range(1 << 13):
        plus, minus = cbe(x)
        assert plus - minus == x
        assert plus & (plus >> 1) == 0 and minus & (minus >> 1) == 0 and plus & minus == 0
        # weight of the non-adjacent form, the fewest signed powers of two summing to x
        assert popcount(plus) + popcount(minus) == bin(x ^ (3 * x)).count("1")


def test_closed_form_naf_equals_the_cbe_of_figure_8():
    for x in range(1 << 16):
        assert naf(x) == cbe(x)


def test_split_weight_equals_the_weight_of_the_cbe_representation():
    for k in (3, 6, 10):
        for t in range(-(9 << k), 9 << k, 7):
            w, copies, plus, minus = split_rep(t, k, True, False)
            assert split_rep(t, k, True, True) == (w, copies, plus, minus)   # Fig. 8 CBE, same result
            assert copies * (1 << k) + plus - minus == abs(t)
            assert max(plus, minus) < 2 << k                     # every term is a link
            assert split_weight(t, k, True) == w == copies + popcount(plus) + popcount(minus)


@pytest.mark.parametrize("n", SMALL + [1000, 3000])
def test_estimates_never_undercount_and_equiclass_is_exact(n):
    dist = nx_dist_from_zero(n)
    for d in range(1, n):
        bit = estimate(n, d, 0, False)
        cb = estimate(n, d, 0, True)
        eq = estimate(n, d, 4, True)
        assert bit >= cb >= eq == dist[d], (n, d, bit, cb, eq)
        assert bit == min(bin(d).count("1"), bin(n - d).count("1"))


def test_bit_counting_example_of_section_3_1():
    assert estimate(64, 9, 0, False) == 2     # 1001: jumps 8 and 1
    assert estimate(64, 7, 0, False) == 3     # 0111 counted as 4 + 2 + 1 ...
    assert estimate(64, 7, 0, True) == 2      # ... but 8 - 1 with CBE


def test_basic_uses_the_circular_id_distance():
    # n = 100, from 7 to 0: neighbour 99 (= 7 - 8) is 1 away across the wrap; the literal
    # |dst - nb| sees it 99 away and picks 3 (= 7 - 4)
    assert r.bmg_next_hop(r.BASIC, 100, 4, 7, 0, r.NO_TABLE) == 99
    assert r.bmg_next_hop(r.BASIC_LINEAR, 100, 4, 7, 0, r.NO_TABLE) == 3


def test_variant_prefers_a_neighbour_adjacent_to_the_destination():
    # n = 100, 0 -> 48: basic takes 36 (= -64, 12 away, not a link to 48); variant takes 16,
    # the first neighbour one jump (32) from 48
    assert r.bmg_next_hop(r.BASIC, 100, 4, 0, 48, r.NO_TABLE) == 36
    assert r.bmg_next_hop(r.VARIANT, 100, 4, 0, 48, r.NO_TABLE) == 16


def test_chord_takes_the_largest_power_of_two_in_the_shorter_direction():
    assert r.route(100, 3, 77, "chord") == [3, 87, 79, 77]     # 26 counter-clockwise: 16, 8, 2
    assert r.route(16, 0, 7, "chord") == [0, 4, 6, 7]          # not 8 - 1: Chord-like, not optimal


def test_walk_reports_a_route_longer_than_its_cap():
    path = np.empty(2, np.int64)                                # cap of 1 hop
    assert r.walk(r.BASIC, 100, 4, 0, 77, r.NO_TABLE, path) == -1
    assert r.walk(-1, 100, 4, 0, 77, r.NO_TABLE, np.empty(101, np.int64)) == -1  # unknown code


def test_route_rejects_bad_input_with_one_sentence():
    with pytest.raises(ConfigError, match="did you mean 'bmg-cbe'"):
        r.route(10, 0, 1, "bmg-cb")
    with pytest.raises(ConfigError, match="src must be a node id in 0..9; got 10"):
        r.route(10, 10, 1, "bmg-cbe")
    with pytest.raises(ConfigError, match="got 2"):
        r.route(2, 0, 1, "bmg-cbe")
    with pytest.raises(ConfigError, match="loops"):
        r.route(10, 0, 1, "bmg-equiclass", loops=-1)


def test_codes_and_names_agree():
    assert list(r.CODES) == list(r.NAMES)
    assert [r.CODES[name] for name in r.NAMES] == list(range(len(r.NAMES)))
    for name in ("bmg-bfs", "bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe", "bmg-equiclass", "chord"):
        assert name in r.CODES
