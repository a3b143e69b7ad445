"""BookSim2's concentrated mesh (``--topology cmesh``, topologies/cmesh.py) and its floor-plan
terminal numbering (``--terminal-numbering floorplan``, workloads/synthetic.py).

The express channels by hand and against networkx, single packets by hand on all three routers
(wire lengths of 2 and k cycles), the kernel against the plain reference, BookSim2's own
numbering formulas, and the refusals.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from netsim_fast import Config, simulate
from netsim_fast.errors import ConfigError
from netsim_fast.topologies import build_topology, cmesh
from netsim_fast.topologies.cmesh import cmesh_wire_lengths
from netsim_fast.topologies.metrics import bisection
from netsim_fast.workloads.synthetic import floorplan_labels
from tests.test_concentration import one_packet
from tests.test_flit_engine import assert_same_as_reference, random_packets


def test_express_channels_join_the_halves_of_each_edge():
    topo = cmesh(4)
    g = topo.to_networkx()
    mesh = nx.grid_2d_graph(4, 4)
    express = {(3, 11), (7, 15), (0, 8), (4, 12), (0, 2), (1, 3), (12, 14), (13, 15)}  # right, left, bottom, top
    want = {tuple(sorted((x + 4 * y, u + 4 * v))) for (x, y), (u, v) in mesh.edges()} | express
    assert {tuple(sorted(e)) for e in g.edges()} == want
    assert (topo.arrays.degree == 4).all() and topo.n_links == 2 * 32
    assert topo.nbr[3, 0] == 11 and topo.nbr[11, 0] == 3  # +x of the right edge, both ways
    assert topo.nbr[0, 3] == 2 and topo.nbr[0, 1] == 8  # the corner has both: -y along x, -x along y
    assert nx.diameter(g) == 4 and bisection(topo) == (8, True)  # 4 mesh + 2 + 2 express links cut


def test_wire_lengths_are_two_pitches_or_k():
    topo = build_topology(Config(topology="cmesh", k=6))
    lengths = cmesh_wire_lengths(topo)
    assert topo.concentration == 4 and topo.n_terminals == 144
    assert lengths[5, 0] == 6 and lengths[0, 1] == 6 and lengths[0, 0] == 2 and (lengths[:, 4:] == 0).all()
    assert sorted(set(lengths[:, :4].ravel().tolist())) == [2, 6]


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_lanes_and_iq_single_packets_take_the_wire_lengths(router):
    # docs/flit-engine.md: 3 cycles a hop and L + 2, plus (length - t_link) on each link: a mesh
    # channel of 2 cycles adds 1. Terminal 0 (router 0) to terminal 13 (router 3, port 1) under
    # dor: 3 mesh channels; under minimal: the bottom edge's express channel (4 cycles, +3) to
    # router 2, then one mesh channel.
    assert one_packet(0, 13, 1, router=router, topology="cmesh", k=4) == (3 * 3 + 3 + 3, 3)
    assert one_packet(0, 13, 1, router=router, topology="cmesh", k=4, routing="minimal", vcs=4) == \
        (3 * 2 + 3 + 3 + 1, 2)


@pytest.mark.parametrize("routing,hops,wires", [("dor_no_express", 3, [2, 2, 2]), ("dor", 2, [4, 2])])
def test_booksim_single_packets_take_booksim2s_routes_and_channel_latencies(routing, hops, wires):
    # docs/booksim-router.md section 6: T = 4 + (H + 1) P + sum over links of (d + 1), P = 3;
    # dor takes the bottom edge's express channel (k = 4 cycles) for the 3-router move
    kw = dict(router="booksim", topology="cmesh", k=4, routing=routing)
    assert one_packet(0, 13, 1, **kw) == (4 + (hops + 1) * 3 + sum(d + 1 for d in wires), hops)


@pytest.mark.parametrize("router,routing", [("lanes", "dor"), ("iq", "minimal")])
def test_kernel_matches_the_plain_reference(router, routing):
    cfg = Config(topology="cmesh", k=4, router=router, routing=routing, vcs=4, buf=3, packet_flits=5,
                 check_invariants=True)
    assert_same_as_reference(cfg, random_packets(cfg.n_terminals, 120, 5, seed=7, span=50))


def test_booksim_loaded_run_keeps_its_invariants():
    s = simulate(Config(topology="cmesh", k=4, router="booksim", routing="dor", pattern="uniform-self", rate=0.15,
                        warmup=300, measure=1500, check_invariants=True))
    assert not s["saturated"] and not s["deadlock"]
    assert s["accepted_load"] == pytest.approx(0.15, rel=0.06)


def _booksim_node_to_router_and_port(address, k):
    # cmesh.cpp's NodeToRouter and NodeToPort, for c = 4 (cX = cY = 2), written out
    y, x = (address // (2 * k)) // 2, (address % (2 * k)) // 2
    return y * k + x, 2 * ((address // (2 * k)) & 1) + (address & 1)


def _flatfly_transformation(dest, k, side):
    # flatfly_onchip.cpp's flatfly_transformation, written out: the router-by-router number
    horizontal, h_rem = divmod(dest % (k * side), side)
    vertical, v_rem = divmod(dest // (k * side), side)
    return (vertical * k + horizontal) * side * side + side * v_rem + h_rem


@pytest.mark.parametrize("k", [4, 6])
def test_floorplan_labels_invert_booksim2s_numbering(k):
    labels = floorplan_labels(k, 2)
    assert sorted(labels.tolist()) == list(range(4 * k * k))
    for t, label in enumerate(labels.tolist()):
        router, port = _booksim_node_to_router_and_port(label, k)
        assert (router, port) == divmod(t, 4)
        assert _flatfly_transformation(label, k, 2) == t
    nine = floorplan_labels(3, 3)
    assert all(_flatfly_transformation(label, 3, 3) == t for t, label in enumerate(nine.tolist()))


def test_permutations_follow_the_floorplan_numbering():
    from netsim_fast.workloads.synthetic import traffic_of

    cfg = Config(topology="cmesh", k=4, pattern="transpose", terminal_numbering="floorplan")
    topo = build_topology(cfg)
    from netsim_fast.topologies.base import terminal_view

    fixed = traffic_of(cfg, terminal_view(topo)).fixed
    labels = floorplan_labels(4, 2)
    for t in range(64):  # transpose swaps the label's 3-bit halves: the floor plan's row and column
        row, col = divmod(int(labels[t]), 8)
        assert labels[fixed[t]] == col * 8 + row
    plain = traffic_of(Config(topology="cmesh", k=4, pattern="transpose"), terminal_view(topo)).fixed
    assert not np.array_equal(plain, fixed)


@pytest.mark.parametrize("kw,words", [
    (dict(k=3), ["--k", "3", "even k >= 4"]),
    (dict(k=4, n=3), ["--n", "3", "two-dimensional"]),
    (dict(dims="4,6"), ["square"]),
    (dict(k=4, concentration=2), ["--concentration", "2", "4 terminals per router"]),
    (dict(k=4, router="booksim", routing="xy_yx"), ["--routing", "xy_yx"]),
    (dict(topology="mesh", k=4, terminal_numbering="floorplan"), ["--terminal-numbering", "floorplan", "cmesh"]),
    (dict(topology="flatfly", k=4, concentration=2, terminal_numbering="floorplan"), ["square --concentration"]),
])
def test_refusals(kw, words):
    with pytest.raises(ConfigError) as err:
        Config(**{"topology": "cmesh", **kw})
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize("routing,vcs", [("dor", 1), ("minimal", 4)])
def test_check_deadlock_proves_the_routings_on_the_routers(routing, vcs):
    from netsim_fast.deadlock_check import check_deadlock

    verdict = check_deadlock(Config(engine="flit", topology="cmesh", k=4, routing=routing, vcs=vcs))
    assert verdict["deadlock_free"] and verdict["cycle"] is None
