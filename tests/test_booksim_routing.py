"""BookSim2's routing functions on the booksim router (flit/booksim/routefns.py).

Each function is checked hop by hop on a small mesh or torus against routefunc.cpp's rules
worked out by hand (docs/booksim-router.md section 8): the output port, the VC range, the
flit's ``ph`` (partition, or phase and intermediate node) and the injection VCs; then one packet
end to end at zero load, and the configurations each function needs or refuses.
"""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast import Config
from netsim_fast.errors import ConfigError
from netsim_fast.flit.booksim.routefns import ROUTINGS, inject_range, route
from netsim_fast.flit.booksim.state import BK_OVC
from netsim_fast.topologies import build_topology

LOCAL = 4  # the local port of a 2-D router
XP, XM, YP, YM = 0, 1, 2, 3  # ports 2d (coordinate up) and 2d+1 (down), as BookSim2 numbers them


def arrays(topology="mesh", k=3):
    return build_topology(Config(topology=topology, k=k)).arrays


def one_hop(a, name, node, src, dst, in_port, in_vc, ph, v, occ=None, seed=1):
    """(port, lo, hi, ph, esc) of ``route`` at ``node``, and (port2, vc2) when there is a second element."""
    ovc = np.zeros(a.coord.shape[0] * 5 * v, BK_OVC).view(np.recarray)
    if occ:
        for port, flits in occ.items():
            ovc.occ[(node * 5 + port) * v] = flits
    out, rng = np.zeros(7, np.int64), np.array([seed], np.uint64)
    torus = int(bool(a.wrap.size and a.wrap[0]))
    route(ROUTINGS[name], a.radix, a.coord, a.dim_port, a.port_dim, torus, ovc, node * 5 * v, node, src, dst,
          in_port, in_vc, ph, 5, v, rng, out)
    return tuple(int(x) for x in (out if out[6] >= 0 or name == "min_adapt" and torus else out[:5]))


def injection(a, name, dst, v):
    out = np.zeros(5, np.int64)
    inject_range(ROUTINGS[name], a.radix, a.coord, int(bool(a.wrap.size and a.wrap[0])), dst, v, out)
    return int(out[0]), int(out[1])


def test_dim_order_ni_mesh_takes_the_destinations_vc_slice():
    a = arrays()  # 3x3 mesh, 9 VCs: one per destination
    assert one_hop(a, "dim_order_ni", 0, 0, 8, LOCAL, 0, 0, 9) == (XP, 8, 8, 0, 0)
    assert one_hop(a, "dim_order_ni", 2, 0, 8, XM, 8, 0, 9) == (YP, 8, 8, 0, 0)
    assert one_hop(a, "dim_order_ni", 8, 0, 8, YM, 8, 0, 9) == (LOCAL, 0, 8, 0, 0)  # ejection: every VC
    assert injection(a, "dim_order_ni", 8, 9) == (8, 1)
    assert injection(a, "dim_order_ni", 4, 18) == (8, 2)  # two VCs per destination


def test_dim_order_pni_mesh_slices_by_the_next_coordinate():
    a = arrays()  # 6 VCs: 2 per coordinate value
    # 0 (0,0) -> 7 (1,2): x first towards x = 1 (slice 1), then y towards y = 2 (slice 2)
    assert one_hop(a, "dim_order_pni", 0, 0, 7, LOCAL, 0, 0, 6)[:3] == (XP, 2, 3)
    assert one_hop(a, "dim_order_pni", 1, 0, 7, XM, 2, 0, 6)[:3] == (YP, 4, 5)
    assert injection(a, "dim_order_pni", 7, 6) == (2, 2)  # injection: dimension 0's coordinate


def test_dim_order_ni_torus_keeps_the_partition_and_injects_anywhere():
    a = arrays("torus", 3)
    # 0 -> 8 (2,2) on a 3-ring: delta = 3 - 2*2 < 0, left; the flit's ph is left as it came
    assert one_hop(a, "dim_order_ni", 0, 0, 8, LOCAL, 0, 0, 9) == (XM, 8, 8, 0, 0)
    assert injection(a, "dim_order_ni", 8, 9) == (0, 9)  # dim_order_ni_torus slices between routers only


def test_dim_order_bal_torus_balanced_partition():
    a = arrays("torus", 4)  # 4 VCs: partition 0 -> [0,1], 1 -> [2,3]; the middle of the ring is 1|2
    assert one_hop(a, "dim_order_bal", 1, 1, 2, LOCAL, 0, 0, 4)[:4] == (XP, 0, 1, 0)  # crosses the middle
    assert one_hop(a, "dim_order_bal", 3, 3, 0, LOCAL, 0, 0, 4)[:4] == (XP, 2, 3, 1)  # crosses the wrap
    assert one_hop(a, "dim_order_bal", 2, 2, 1, LOCAL, 0, 0, 4)[:4] == (XM, 0, 1, 0)  # middle, leftwards
    assert one_hop(a, "dim_order_bal", 0, 0, 3, LOCAL, 0, 0, 4)[:4] == (XM, 2, 3, 1)  # wrap, leftwards
    # 0 -> 1 crosses neither: either partition, drawn
    seen = {one_hop(a, "dim_order_bal", 0, 0, 1, LOCAL, 0, 0, 4, seed=s)[3] for s in range(1, 40)}
    assert seen == {0, 1}
    # continuing in the dimension keeps direction and partition
    assert one_hop(a, "dim_order_bal", 1, 0, 2, XM, 0, 1, 4)[:4] == (XP, 2, 3, 1)


def test_xy_yx_picks_the_order_once_and_keeps_it_by_vc_half():
    a = arrays()  # 4 VCs: XY on [0,1], YX on [2,3]
    first = {one_hop(a, "xy_yx", 0, 0, 8, LOCAL, 0, 0, 4, seed=s)[:3] for s in range(1, 40)}
    assert first == {(XP, 0, 1), (YP, 2, 3)}
    assert one_hop(a, "xy_yx", 4, 0, 8, XM, 1, 0, 4)[:3] == (XP, 0, 1)  # came in on the XY half
    assert one_hop(a, "xy_yx", 4, 0, 8, YM, 2, 0, 4)[:3] == (YP, 2, 3)  # ... on the YX half
    assert one_hop(a, "xy_yx", 8, 0, 8, YM, 2, 0, 4)[:3] == (LOCAL, 0, 3)


def test_adaptive_xy_yx_picks_the_less_loaded_first_port():
    a = arrays()
    assert one_hop(a, "adaptive_xy_yx", 0, 0, 8, LOCAL, 0, 0, 4, occ={XP: 3, YP: 1})[:3] == (YP, 2, 3)
    assert one_hop(a, "adaptive_xy_yx", 0, 0, 8, LOCAL, 0, 0, 4, occ={XP: 1, YP: 3})[:3] == (XP, 0, 1)
    assert one_hop(a, "adaptive_xy_yx", 4, 0, 8, YM, 3, 0, 4, occ={YP: 9})[:3] == (YP, 2, 3)  # fixed after


def test_min_adapt_mesh_escape_vc_at_low_priority():
    a = arrays()  # one surviving port (dimension order); VC 0 at priority 0, VCs 1.. at priority 1
    assert one_hop(a, "min_adapt", 0, 0, 8, LOCAL, 0, 0, 4) == (XP, 0, 3, 0, 1)  # injection VC does not count
    assert one_hop(a, "min_adapt", 1, 0, 8, XM, 2, 0, 4) == (XP, 0, 3, 0, 1)
    assert one_hop(a, "min_adapt", 1, 0, 8, XM, 0, 0, 4) == (XP, 0, 0, 0, 0)  # in the escape VC: stays there
    assert one_hop(a, "min_adapt", 8, 0, 8, YM, 0, 0, 4) == (LOCAL, 0, 3, 0, 0)


def test_planar_adapt_mesh_upper_third():
    a = arrays()
    assert one_hop(a, "planar_adapt", 0, 0, 8, LOCAL, 0, 0, 6)[:3] == (XP, 4, 5)
    assert one_hop(a, "planar_adapt", 2, 0, 8, XM, 4, 0, 7)[:3] == (YP, 4, 6)  # m = 7 // 3 = 2
    assert one_hop(a, "planar_adapt", 8, 0, 8, YM, 4, 0, 6)[:3] == (LOCAL, 0, 5)


def test_romm_two_phases_via_a_node_of_the_minimal_quadrant():
    a = arrays()  # 4 VCs: phase 0 on [0,1], phase 1 on [2,3]
    # 0 -> 4 (1,1): intm is one of 0, 1, 3, 4, each coordinate between source and destination
    intms = {one_hop(a, "romm", 0, 0, 4, LOCAL, 0, 0, 4, seed=s)[3] >> 8 for s in range(1, 80)}
    assert intms == {0, 1, 3, 4}
    # intm 1: x to 1 in phase 0, then phase 1 from node 1 on
    assert one_hop(a, "romm", 0, 0, 4, XM, 0, 0 | 1 << 8, 4) == (XP, 0, 1, 0 | 1 << 8, 0)
    assert one_hop(a, "romm", 1, 0, 4, XM, 0, 0 | 1 << 8, 4) == (YP, 2, 3, 1 | 1 << 8, 0)
    assert one_hop(a, "romm", 4, 0, 4, YM, 2, 1 | 1 << 8, 4) == (LOCAL, 0, 3, 1 | 1 << 8, 0)
    # romm_ni: the destination's slice in both phases
    assert one_hop(a, "romm_ni", 1, 0, 4, XM, 0, 0 | 1 << 8, 9)[:3] == (YP, 4, 4)
    assert injection(a, "romm_ni", 4, 9) == (4, 1)


def test_valiant_mesh_any_intermediate_and_the_destination_hop_unsplit():
    a = arrays()
    intms = {one_hop(a, "valiant", 0, 0, 1, LOCAL, 0, 0, 4, seed=s)[3] >> 8 for s in range(1, 200)}
    assert intms == set(range(9))
    # phase 0 through the destination towards intm 2: that hop may use every VC
    assert one_hop(a, "valiant", 1, 0, 1, XM, 0, 2 << 8, 4) == (XP, 0, 3, 2 << 8, 0)
    assert one_hop(a, "valiant", 2, 0, 1, XM, 0, 2 << 8, 4) == (XM, 2, 3, 1 | 2 << 8, 0)


def one_packet(src, dst, **kw):
    from netsim_fast.flit.run import run_flit
    from netsim_fast.workloads.packets import FinitePackets

    cfg = Config(router="booksim", pattern="random", messages=1, packet_flits=1, **kw)
    topo = build_topology(cfg)
    packets = FinitePackets(src=np.array([src]), dst=np.array([dst]), length=np.array([1], np.int32),
                            release=np.array([0], np.int64))
    table = run_flit(cfg, topo, packets=packets).packet_table()
    return int(table["head_arrival_cycle"][0]), int(table["hops"][0])


@pytest.mark.parametrize("routing", ["dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt",
                                     "planar_adapt", "romm", "romm_ni", "valiant"])
def test_zero_load_latency_on_a_mesh(routing):
    # every hop costs 5 cycles beyond the 7 of a packet to itself (case A: 0 -> 3 is 17);
    # valiant's detour counts its extra hops; the others are minimal on the 2x2 mesh
    for seed in (1, 2, 3):
        latency, hops = one_packet(0, 1, topology="mesh", k=3, vcs=9, routing=routing, seed=seed)
        assert latency == 7 + 5 * hops
        assert hops == 1 or routing == "valiant"


@pytest.mark.parametrize("routing", ["dim_order_ni", "dim_order_bal"])
def test_zero_load_latency_on_a_torus(routing):
    assert one_packet(9, 14, topology="torus", k=4, vcs=16, routing=routing) == (19, 2)  # as case C


@pytest.mark.parametrize("kw,match", [
    ({"routing": "limited_adapt"}, "not registered in BookSim2.*allowed on a mesh.*dim_order_pni"),
    ({"routing": "valiant", "topology": "torus"}, "aborts in BookSim2.*uninitialised.*allowed on a torus"),
    ({"routing": "valiant_ni", "topology": "torus"}, "aborts in BookSim2"),
    ({"routing": "min_adapt", "topology": "torus", "speculative": True}, "speculative.*not implemented"),
    ({"routing": "min_adapt", "topology": "torus", "vcs": 3}, "vcs >= 4"),
    ({"routing": "dim_order_bal"}, "does not fit --topology mesh"),
    ({"routing": "romm", "topology": "torus"}, "does not fit --topology torus"),
    ({"routing": "romm", "router": "lanes"}, "runs on --router booksim only"),
    ({"routing": "dim_order_ni", "vcs": 8}, "vcs >= 16"),
    ({"routing": "dim_order_pni", "vcs": 3}, "vcs >= 4"),
    ({"routing": "valiant", "vcs": 1}, "vcs >= 2"),
    ({"routing": "xy_yx", "routing_delay": 0, "noq": True, "vcs": 10}, "noq.*not implemented"),
])
def test_routings_refused_with_a_reason(kw, match):
    with pytest.raises(ConfigError, match=match):
        Config(**{"topology": "mesh", "k": 4, "router": "booksim", **kw})


def test_every_registered_routing_is_accepted_where_booksim_registers_it():
    for name in ("dim_order", "dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt",
                 "planar_adapt", "romm", "romm_ni", "valiant"):
        assert Config(topology="mesh", k=4, router="booksim", vcs=16, routing=name).routing == name
    for name in ("dim_order", "dim_order_ni", "dim_order_bal", "min_adapt"):
        assert Config(topology="torus", k=4, router="booksim", vcs=16, routing=name).routing == name


def test_min_adapt_torus_adaptive_vc_3_and_escape_vc_by_partition():
    a = arrays("torus", 4)  # escape VCs 0 (partition 0) and 1 (partition 1), adaptive VC 3
    # 0 -> 1 from the terminal: adaptive right on VC 3 (priority 1); escape right, partition 0 -> VC 0
    assert one_hop(a, "min_adapt", 0, 0, 1, LOCAL, 0, 0, 4) == (XP, 3, 3, 0, 0, XP, 0)
    # 3 -> 0 wraps right: escape partition 1 -> VC 1
    assert one_hop(a, "min_adapt", 3, 3, 0, LOCAL, 0, 0, 4) == (XP, 3, 3, 1, 0, XP, 1)
    # on the adaptive VC the escape is recomputed as if injected here (partition of this router)
    assert one_hop(a, "min_adapt", 1, 0, 2, XM, 3, 1, 4) == (XP, 3, 3, 0, 0, XP, 0)
    # on an escape VC: the escape element alone, continuing with the partition it has
    assert one_hop(a, "min_adapt", 1, 0, 2, XM, 1, 1, 4) == (XP, 1, 1, 1, 0, -1, -1)
    # a tie (distance 2 of 4): adaptive goes left, the escape draws its direction
    got = {one_hop(a, "min_adapt", 0, 0, 2, LOCAL, 0, 0, 4, seed=s * 0x9E3779B97F4A7C15 % 2**64)[5] for s in range(1, 40)}
    assert one_hop(a, "min_adapt", 0, 0, 2, LOCAL, 0, 0, 4)[0] == XM and got == {XP, XM}
    assert one_hop(a, "min_adapt", 2, 0, 2, XM, 3, 0, 4)[:3] == (LOCAL, 0, 3)


def test_min_adapt_torus_end_to_end_and_watchdog_sees_both_elements():
    assert one_packet(9, 14, topology="torus", k=4, vcs=4, routing="min_adapt") == (19, 2)
    from netsim_fast import simulate

    s = simulate(Config(router="booksim", topology="torus", k=4, vcs=4, routing="min_adapt", pattern="uniform-self",
                        rate=0.3, packet_flits=4, cycles=4000, warmup=1000))
    assert s["completed"] and s["accepted_load"] > 0.28  # offered 0.3: no knot, every packet moving


def test_watchdog_or_request_covers_the_second_element():
    """A head in VC allocation waits for every candidate VC: the range and the second element.
    It is blocked only while all are held; one free candidate makes it live (an OR-request)."""
    from types import SimpleNamespace

    from netsim_fast.flit.booksim import state as bs
    from netsim_fast.flit.booksim.driver import BooksimWatchdog
    from netsim_fast.flit.deadlock import LIVE
    from netsim_fast.flit.state import IN_LANE

    v, ports, n = 4, 5, 1
    lanes = n * ports * v
    inl = np.zeros(lanes, IN_LANE).view(np.recarray)
    inl.up[:] = -1
    ivc = np.zeros(lanes, bs.BK_IVC).view(np.recarray)
    ovc = np.zeros(lanes, bs.BK_OVC).view(np.recarray)
    ovc.owner[:] = -1
    head = 1 * v + 3  # input port 1, VC 3: routed to port 0 VC 3 (priority 1) or port 2 VC 0 (escape)
    inl.len[head] = 1
    ivc.state[head], ivc.port[head], ivc.lo[head], ivc.hi[head] = bs.VC_VA, 0, 3, 3
    ivc.port2[head], ivc.vc2[head] = 2, 0
    for holder, out in ((3 * v + 1, 0 * v + 3), (4 * v + 0, 2 * v + 0)):  # both candidates held
        inl.len[holder] = 1
        ovc.owner[out] = holder
        ivc.state[holder] = bs.VC_ACTIVE
        ivc.port[holder] = ports - 1  # ejecting: never blocked itself
    b = SimpleNamespace(ivc=ivc, ovc=ovc, ev_cred=np.zeros((1, 1), np.int32), ev_cred_n=np.zeros(1, np.int32),
                        cq_len=np.zeros(n * ports, np.int32), cq=np.zeros((1, n * ports), np.int64),
                        cq_head=np.zeros(n * ports, np.int32))
    params = SimpleNamespace(n_vcs=v, n_ports=ports, buf=8)
    dog = BooksimWatchdog(params, b, None)
    graph = dog.graph(SimpleNamespace(inl=inl), None, 0)
    assert sorted(graph.waits[head]) == [3 * v + 1, 4 * v + 0]
    ovc.owner[2 * v + 0] = -1  # the escape VC frees: the head is live
    assert LIVE in dog.graph(SimpleNamespace(inl=inl), None, 0).waits[head]


@pytest.mark.parametrize("routing", ["dim_order_ni", "xy_yx", "adaptive_xy_yx", "min_adapt", "romm", "valiant"])
def test_lookahead_routing_carries_the_route_and_intermediate(routing):
    # routing_delay 0: P = 2 per router, 6 + 4 H (tests/test_booksim_router.py); the route for
    # each router is computed one router ahead and rides with the head, phase and intm included
    hops = set()
    for seed in range(1, 9):
        latency, h = one_packet(0, 1, topology="mesh", k=3, vcs=9, routing=routing, routing_delay=0, seed=seed)
        assert latency == 6 + 4 * h
        hops.add(h)
    assert hops == {1} if routing != "valiant" else len(hops) > 1
    for torus in ("dim_order_bal", "min_adapt"):  # min_adapt's second element rides in the packed route too
        assert one_packet(9, 14, topology="torus", k=4, vcs=16, routing=torus, routing_delay=0) == (4 + 3 * 2 + 2 * 3, 2)


def test_packed_route_carries_the_second_element():
    from netsim_fast.flit.booksim.routing import pack_route, unpack_route

    out = np.array([1, 3, 3, 1, 0, 0, 1], np.int64)  # adaptive port 1 VC 3; escape port 0 VC 1; partition 1
    back = np.zeros(7, np.int64)
    unpack_route(pack_route(out), back)
    assert back[:3].tolist() == [1, 3, 3] and back[3] & 0xFF == 1 and back[5:].tolist() == [-1, -1]
    assert ((back[3] >> 8) & 0xFF) - 1 == 0 and (back[3] >> 16) - 1 == 1  # switch.take_lookahead's reading
    romm = np.array([2, 0, 1, 0 | 7 << 8, 1, -1, -1], np.int64)  # phase 0, intm 7, esc
    unpack_route(pack_route(romm), back)
    assert back[:5].tolist() == [2, 0, 1, 7 << 8, 1]


@pytest.mark.parametrize("routing", ["romm", "dim_order", "limited_adapt"])
def test_check_deadlock_refuses_booksim_routings(routing):
    from typer.testing import CliRunner

    from netsim_fast.cli import app

    r = CliRunner().invoke(app, ["check-deadlock", "--topology", "mesh", "--k", "4", "--routing", routing, "--quiet"])
    assert r.exit_code == 2 and "does not analyse" in r.output
