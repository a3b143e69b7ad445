"""Self-checks of the plain-Python flit-engine reference (tests/reference/flit_naive.py).

These do not involve the Numba kernel: they pin the reference to the closed forms and the
hand-traced timelines of docs/flit-engine.md, so that a later kernel-vs-reference comparison
compares against something that is itself right.
"""

import networkx as nx
import numpy as np
import pytest

from netsim_fast.topologies import hypercube, mesh, torus
from tests.reference.flit_naive import simulate_naive

ROUTERS = ["lanes", "iq"]


def _distances(topo):
    """All-pairs hop distances from networkx (independent of the routing code)."""
    return dict(nx.all_pairs_shortest_path_length(topo.to_networkx()))


def _run(topo, src, dst, length, release, max_cycles=2000, **kw):
    return simulate_naive(
        topo,
        pkt_src=np.asarray(src, np.int64),
        pkt_dst=np.asarray(dst, np.int64),
        pkt_len=np.asarray(length, np.int64),
        pkt_release=np.asarray(release, np.int64),
        max_cycles=max_cycles,
        **kw,
    )


@pytest.mark.parametrize("router", ROUTERS)
@pytest.mark.parametrize("routing", ["dor", "duato"])
@pytest.mark.parametrize("topo", [torus((4, 4)), mesh((3, 3))], ids=["torus4x4", "mesh3x3"])
def test_single_packet_meets_zero_load_latency_3h_plus_L_plus_2(topo, routing, router):
    dist = _distances(topo)
    release = 5
    for dst in range(1, topo.n_nodes):
        h = dist[0][dst]
        for length in (2, 7, 20):  # 20 > buf: the worm spans several routers
            res = _run(topo, [0], [dst], [length], [release], routing=routing, router=router)
            assert res["injected"][0] == release
            assert res["hops"][0] == h
            assert res["head_delivered"][0] - release == 3 * h + 3
            assert res["tail_delivered"][0] - release == 3 * h + length + 2
            assert res["cycles"] == res["tail_delivered"][0] + 1
            assert res["flit_hops"] == h * length


@pytest.mark.parametrize("router", ROUTERS)
def test_one_flit_packet_is_head_and_tail(router):
    topo = torus((4, 4))
    dst = topo.node_id((2, 1))  # 3 hops (the k/2 tie in dimension 0 included)
    res = _run(topo, [0], [dst], [1], [0], router=router)
    assert res["hops"][0] == 3
    assert res["head_delivered"][0] == res["tail_delivered"][0] == 3 * 3 + 1 + 2
    assert res["flit_hops"] == 3


@pytest.mark.parametrize("router", ROUTERS)
def test_dor_hops_equal_torus_distance_for_all_pairs(router):
    topo = torus((4, 4))
    dist = _distances(topo)
    pairs = [(s, d) for s in range(topo.n_nodes) for d in range(topo.n_nodes) if s != d]
    src, dst = zip(*pairs)
    res = _run(topo, src, dst, [2] * len(pairs), [0] * len(pairs), router=router)
    assert np.all(res["tail_delivered"] >= 0)
    assert res["hops"].tolist() == [dist[s][d] for s, d in pairs]


@pytest.mark.parametrize("router", ROUTERS)
def test_dor_corrects_dimension_0_first(router):
    # A: (0,0) -> (1,1).  B: (1,0) -> (1,2) occupies link (1,0) -> (1,1) with one VC.  A meets B
    # only if it corrects dimension 0 first ((0,0) -> (1,0) -> (1,1)); dimension 1 first would
    # take (0,0) -> (0,1) -> (1,1), which B never touches.
    topo = mesh((3, 3))
    L = 12
    a = (topo.node_id((0, 0)), topo.node_id((1, 1)))
    b = (topo.node_id((1, 0)), topo.node_id((1, 2)))
    res = _run(topo, [a[0], b[0]], [a[1], b[1]], [L, L], [0, 0], vcs=1, router=router)
    # B's head is routed at (1,0) in cycle 1 and holds the VC until its tail crosses (cycle L+1);
    # A's head, there since cycle 4, is routed in L+1 and then runs at zero load: L+1+5.
    assert res["tail_delivered"][1] == 3 * 2 + L + 2
    assert res["head_delivered"][0] == L + 6
    assert res["tail_delivered"][0] == 2 * L + 5


@pytest.mark.parametrize("router", ROUTERS)
def test_two_packets_competing_for_one_link_are_serialised(router):
    # A: (0,0) -> (2,0), B: (1,0) -> (2,1): both cross link (1,0) -> (2,0), B first.
    topo = mesh((3, 3))
    L = 12
    src = [topo.node_id((0, 0)), topo.node_id((1, 0))]
    dst = [topo.node_id((2, 0)), topo.node_id((2, 1))]
    alone = 3 * 2 + L + 2
    # One VC: the packets cannot interleave; A's head waits for B's tail.
    res = _run(topo, src, dst, [L, L], [0, 0], vcs=1, router=router)
    assert res["tail_delivered"][1] == alone
    assert res["head_delivered"][0] > res["tail_delivered"][1] - L
    assert res["tail_delivered"][0] == 2 * L + 5
    # Four VCs: the flits interleave, but the shared link still carries 2L flits one per cycle
    # from cycle 3 on, so the last one is delivered no earlier than 2L + 4.
    res = _run(topo, src, dst, [L, L], [0, 0], vcs=4, router=router)
    assert max(res["tail_delivered"]) >= 2 * L + 4
    assert min(res["tail_delivered"]) > alone
    assert res["flit_hops"] == 4 * L


@pytest.mark.parametrize("units, delayed", [(1, 1), (2, 0), (0, 0)])
def test_routing_units_limit_headers_per_cycle(units, delayed):
    # Two heads reach the centre of a 3x3 mesh in cycle 4; with one routing unit the one on the
    # lower input port (dimension 0's - port) goes first and the other waits one cycle.
    topo = mesh((3, 3))
    L = 4
    src = [topo.node_id((0, 1)), topo.node_id((1, 0))]
    dst = [topo.node_id((2, 1)), topo.node_id((1, 2))]
    res = _run(topo, src, dst, [L, L], [0, 0], headers_per_cycle=units)
    assert res["tail_delivered"][0] == 3 * 2 + L + 2
    assert res["tail_delivered"][1] == 3 * 2 + L + 2 + delayed


def _uniform_workload(topo, n_per_node, max_len, horizon, seed):
    rng = np.random.default_rng(seed)
    n = topo.n_nodes * n_per_node
    src = np.repeat(np.arange(topo.n_nodes), n_per_node)
    dst = (src + rng.integers(1, topo.n_nodes, n)) % topo.n_nodes
    length = rng.integers(1, max_len + 1, n)
    release = rng.integers(0, horizon, n)
    order = np.argsort(release, kind="stable")
    return src[order], dst[order], length[order], release[order]


@pytest.mark.parametrize("switching", ["wormhole", "vct"])
@pytest.mark.parametrize("router", ROUTERS)
@pytest.mark.parametrize("routing", ["dor", "duato"])
def test_uniform_random_workload_is_delivered_minimally(routing, router, switching):
    topo = torus((4, 4))
    dist = _distances(topo)
    src, dst, length, release = _uniform_workload(topo, 3, 8, 30, seed=7)
    res = _run(topo, src, dst, length, release, routing=routing, router=router,
               switching=switching, buf=8)
    h = np.array([dist[s][d] for s, d in zip(src, dst)])
    assert np.all(res["tail_delivered"] >= 0)
    assert np.array_equal(res["hops"], h)  # both routings are minimal
    assert res["flit_hops"] == int(np.sum(h * length))  # every flit follows its head
    assert np.all(res["injected"] >= release)
    assert np.all(res["head_delivered"] <= res["tail_delivered"])
    # contention only adds delay to the zero-load latency
    assert np.all(res["tail_delivered"] - release >= 3 * h + length + 2)
    assert res["cycles"] == res["tail_delivered"].max() + 1


def test_hypercube_and_mixed_radix_torus_deliver_with_duato():
    for topo in (hypercube(3), torus((2, 4))):
        src, dst, length, release = _uniform_workload(topo, 3, 6, 20, seed=3)
        res = _run(topo, src, dst, length, release, routing="duato")
        assert np.all(res["tail_delivered"] >= 0)


@pytest.mark.parametrize("router", ROUTERS)
def test_dor_without_dateline_deadlocks_on_a_ring_and_dor_does_not(router):
    # Ring of 5, every node sends 3 worms of 16 flits to the node 2 ahead: each packet holds link
    # i -> i+1 while waiting for i+1 -> i+2, a cycle through all five links, and with 2 VCs,
    # 2-flit buffers the worms fill every VC of the ring.  (On a ring of 4, distance 2 is the
    # k/2 tie, split by parity over both directions, and no cyclic dependency arises.)
    topo = torus((5,))
    src = np.repeat(np.arange(5), 3)
    dst = (src + 2) % 5
    kw = dict(router=router, vcs=2, buf=2, out_buf=1)
    length, release = [16] * src.size, [0] * src.size
    first = _run(topo, src, dst, length, release, max_cycles=600, routing="dor-nodateline", **kw)
    later = _run(topo, src, dst, length, release, max_cycles=1200, routing="dor-nodateline", **kw)
    assert later["cycles"] == 1200
    assert np.any(later["tail_delivered"] < 0)
    # no flit crossed a link in the last 600 cycles: a deadlock, not congestion
    assert later["flit_hops"] == first["flit_hops"]
    assert np.array_equal(later["tail_delivered"], first["tail_delivered"])
    safe = _run(topo, src, dst, length, release, max_cycles=1200, routing="dor", **kw)
    assert np.all(safe["tail_delivered"] >= 0)


@pytest.mark.parametrize("router", ROUTERS)
def test_source_throttling_to_adaptive_vcs_still_delivers(router):
    # Paper 004's source throttling: duato packets enter only through adaptive VCs 2 and 3.
    topo = torus((4, 4))
    res = _run(topo, [0], [10], [5], [0], router=router, routing="duato", inject_vcs=[2, 3])
    assert res["tail_delivered"][0] == 3 * 4 + 5 + 2
    src, dst, length, release = _uniform_workload(topo, 3, 8, 10, seed=11)
    res = _run(topo, src, dst, length, release, router=router, routing="duato", inject_vcs=[2, 3])
    assert np.all(res["tail_delivered"] >= 0)
