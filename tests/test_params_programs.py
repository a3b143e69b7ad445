"""BSP programs as phased message sets (workloads/bsp_programs.py): trees, phases, programs."""

import math

import networkx as nx
import numpy as np
import pytest

from netsim_fast.errors import ConfigError
from netsim_fast.routing.table import all_pairs_distances
from netsim_fast.topologies import hypercube, random_regular, torus
from netsim_fast.workloads import bsp_programs as bp


@pytest.mark.parametrize("topo", [torus([5, 4]), hypercube(4), random_regular(30, 4, 3)], ids=str)
def test_bfs_tree_edges_are_links_and_its_height_is_the_radius(topo):
    tree = bp.bfs_tree(topo, all_pairs_distances(topo))
    g = topo.to_networkx()
    assert tree.height == nx.radius(g)
    for u in range(topo.n_nodes):
        if u == tree.root:
            assert tree.parent[u] == -1
        else:
            assert g.has_edge(u, int(tree.parent[u]))
            assert tree.depth[u] == tree.depth[tree.parent[u]] + 1


def test_heap_tree_is_the_complete_a_ary_tree():
    tree = bp.heap_tree(13, 3)
    assert tree.parent.tolist() == [-1, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert tree.height == 2
    with pytest.raises(ConfigError):
        bp.heap_tree(8, 1)


def _waits(prog, m):
    """Messages m waits for under the rule: addressed to its source with a lower phase."""
    return np.nonzero((prog.dst == prog.src[m]) & (prog.phase < prog.phase[m]))[0]


def test_barrier_layout_makes_every_superstep_wait_for_the_whole_previous_one():
    topo = torus([4, 3])
    tree = bp.bfs_tree(topo, all_pairs_distances(topo))
    rng = np.random.default_rng(1)
    steps = []
    for _ in range(3):
        src = rng.integers(0, 12, 20)
        dst = (src + rng.integers(1, 12, 20)) % 12
        steps.append((src, dst))
    prog = bp.phased_program(steps, tree, data_flits=4)
    # closure of the waits-for relation, brute force
    n = prog.n_messages
    before = [set(_waits(prog, m).tolist()) for m in range(n)]
    changed = True
    while changed:
        changed = False
        for m in range(n):
            grown = set(before[m])
            for x in before[m]:
                grown |= before[x]
            if grown != before[m]:
                before[m], changed = grown, True
    for m in np.nonzero((prog.kind == bp.DATA) & (prog.step > 0))[0]:
        earlier = np.nonzero(prog.step < prog.step[m])[0]
        # a data message of superstep s waits (transitively) for every data message of s-1
        # and for the barrier messages that reach its node
        assert set(np.nonzero((prog.kind == bp.DATA) & (prog.step == prog.step[m] - 1))[0]) <= before[m]
        assert set(earlier[prog.dst[earlier] == prog.src[m]]) <= before[m]
    assert np.all(np.diff(prog.src.astype(int)) >= 0)  # program order: by source
    assert prog.length[prog.kind == bp.DATA].tolist() == [4] * 60
    assert np.count_nonzero(prog.kind != bp.DATA) == 3 * 2 * 11


def test_phased_program_rejects_a_message_to_itself():
    tree = bp.heap_tree(4, 2)
    with pytest.raises(ConfigError, match="itself"):
        bp.phased_program([(np.array([1]), np.array([1]))], tree)


def test_total_exchange_sends_every_ordered_pair_once():
    [(src, dst)] = bp.total_exchange(7)
    pairs = set(zip(src.tolist(), dst.tolist()))
    assert len(pairs) == 42 and all(u != v for u, v in pairs)
    assert bp.degree(src, dst, 7) == 6


@pytest.mark.parametrize("p", [2, 5, 8, 13])
def test_prefix_doubling_has_ceil_log2_p_partial_permutations(p):
    steps = bp.prefix_doubling(p)
    assert len(steps) == math.ceil(math.log2(p))
    for k, (src, dst) in enumerate(steps):
        assert bp.degree(src, dst, p) == 1
        assert np.all(dst - src == 2 ** k)


def test_sample_sort_buckets_are_the_sorted_keys_and_its_supersteps_have_the_expected_h():
    p, keys = 16, 24
    steps, info = bp.sample_sort(p, keys, seed=3)
    assert info["sorted_ok"]
    assert info["bucket_sizes"].sum() == p * keys
    assert info["bucket_sizes"].max() <= 2 * keys  # regular sampling's guarantee
    assert [bp.degree(s, d, p) for s, d in steps[:2]] == [p - 1, p - 1]
    src, dst = steps[2]
    moved_in = np.bincount(dst, minlength=p)
    stayed = info["bucket_sizes"] - moved_in
    assert np.all(stayed >= 0) and np.all(src != dst)


def test_random_order_total_exchange_has_the_same_messages_as_shift_order():
    [(s1, d1)] = bp.total_exchange(9)
    [(s2, d2)] = bp.total_exchange(9, order="random", seed=2)
    assert sorted(zip(s1.tolist(), d1.tolist())) == sorted(zip(s2.tolist(), d2.tolist()))
    assert not np.array_equal(d1, d2)
    with pytest.raises(ConfigError):
        bp.total_exchange(9, order="bogus")
