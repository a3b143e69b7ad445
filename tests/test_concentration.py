"""``--concentration C``: C terminals per router, terminal t on router t // C (docs/topologies.md).

Hand-checked single packets on a 2x2 mesh with C = 2 (terminals 0, 1 on router 0; 6, 7 on
router 3) on both routers, the invariant checkers at C > 1 under load, ``topo --json`` counts
against hand counts, a dragonfly of Kim et al. (P = 2, A = 4, H = 2: 72 terminals) that
delivers everything at low load, and the refusals.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast import Config, simulate
from netsim_fast.cli import app
from netsim_fast.flit.run import run_flit
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.packets import FinitePackets
from tests._refusals import assert_refused

runner = CliRunner()
MESH2 = dict(topology="mesh", k=2, concentration=2)


def one_packet(src, dst, flits, **kw):
    """One packet alone, created at cycle 3: (latency of its tail, link hops, its ejection port)."""
    cfg = Config(packet_flits=flits, **kw)
    topo = build_topology(cfg)
    packets = FinitePackets(src=np.array([src], np.int32), dst=np.array([dst], np.int32),
                            length=np.array([flits], np.int32), release=np.array([3], np.int64))
    run = run_flit(cfg, topo, packets=packets)
    table = run.packet_table()
    assert int(table["injected_cycle"][0]) == 3
    return int(table["tail_arrival_cycle"][0]) - 3, int(table["hops"][0])


def test_the_topology_gets_one_local_port_per_terminal():
    topo = build_topology(Config(**MESH2))
    assert (topo.n_nodes, topo.n_terminals, topo.concentration) == (4, 8, 2)
    assert topo.n_ports == 2 + 2 and topo.first_local == 2  # radix 2: one network port per dimension
    assert (topo.nbr[:, topo.first_local:] == -1).all() and topo.n_links == 8


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("flits", [1, 4])
def test_lanes_and_iq_zero_load_latency_is_3h_plus_L_plus_2_between_terminals(router, flits):
    # docs/flit-engine.md: injected in the creation cycle t, routed and allocated in t + 1,
    # through the crossbar in t + 2 and ejected in t + 3; each link adds 3 cycles; the tail
    # follows L - 1 cycles behind. Two terminals of one router: 0 link hops.
    assert one_packet(0, 1, flits, router=router, **MESH2) == (flits + 2, 0)
    assert one_packet(1, 0, flits, router=router, **MESH2) == (flits + 2, 0)
    assert one_packet(0, 7, flits, router=router, **MESH2) == (3 * 2 + flits + 2, 2)  # router 0 -> 3
    assert one_packet(5, 0, flits, router=router, **MESH2) == (3 * 1 + flits + 2, 1)  # router 2 -> 0


@pytest.mark.parametrize("flits", [1, 4])
def test_booksim_zero_load_latency_between_terminals(flits):
    # docs/booksim-router.md section 6, mesh: T = 7 + 5H + (L - 1); H = 0 between two terminals
    # of one router (BookSim2's minimum uniform latency, 7 for one flit)
    kw = dict(router="booksim", **MESH2)
    assert one_packet(0, 1, flits, **kw) == (7 + flits - 1, 0)
    assert one_packet(6, 7, flits, **kw) == (7 + flits - 1, 0)
    assert one_packet(1, 6, flits, **kw) == (17 + flits - 1, 2)
    assert one_packet(2, 1, flits, **kw) == (12 + flits - 1, 1)


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_every_terminal_reaches_every_terminal_on_its_own_port(router):
    cfg = Config(router=router, check_invariants=True, packet_flits=3, **MESH2)
    topo = build_topology(cfg)
    src, dst = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    keep = src != dst
    src, dst = src[keep].astype(np.int32), dst[keep].astype(np.int32)
    packets = FinitePackets(src=src, dst=dst, length=np.full(src.size, 3, np.int32),
                            release=np.zeros(src.size, np.int64))
    run = run_flit(cfg, topo, packets=packets)
    table = run.packet_table()
    assert (table["tail_arrival_cycle"] >= 0).all()
    routers = np.abs(topo.coord[src // 2] - topo.coord[dst // 2]).sum(axis=1)
    assert np.array_equal(table["hops"], routers)  # link hops only: 0 inside a router


CASES = [
    dict(topology="mesh", k=4, routing="dor", router="lanes"),
    dict(topology="torus", k=4, routing="duato", router="iq", vcs=4),
    dict(topology="dragonfly", group_routers=4, global_links=2, routing="minimal", router="lanes", vcs=3),
    dict(topology="hyperx", dims="3,3", routing="minimal", router="iq", vcs=2, switching="vct", packet_flits=4),
    dict(topology="mesh", k=4, router="booksim"),
    dict(topology="torus", k=4, router="booksim", vcs=4, routing="min_adapt", routing_delay=0),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['topology']}-{c['router']}")
@pytest.mark.parametrize("concentration", [2, 3])
def test_invariants_hold_under_load(case, concentration):
    """The kernels' invariant checkers (buffers, credits per VC, flit conservation) every cycle,
    near and past saturation."""
    for rate in (0.15, 0.6):
        s = simulate(Config(pattern="uniform", rate=rate, warmup=300, measure=1000, drain=3000,
                            check_invariants=True, concentration=concentration, **case))
        assert not s["deadlock"] and s["error"] is None
        if rate == 0.15:
            assert not s["saturated"] and s["accepted_load"] == pytest.approx(s["offered_load"], rel=0.05)


def test_concentration_one_is_the_default_run():
    cfg = dict(topology="mesh", k=4, pattern="uniform", rate=0.2, warmup=200, measure=1000)
    a, b = simulate(Config(**cfg)), simulate(Config(concentration=1, **cfg))
    for key in ("offered_load", "accepted_load", "latency_mean", "hops_mean", "latency_max", "flit_hops"):
        assert a[key] == b[key]


def test_dragonfly_p2_a4_h2_delivers_everything_at_low_load():
    # Kim et al. 2008's example: 72 terminals on 36 routers
    s = simulate(Config(topology="dragonfly", group_routers=4, global_links=2, concentration=2, routing="minimal",
                        pattern="uniform", rate=0.1, check_invariants=True))
    assert s["completed"] and not s["saturated"] and s["stop_reason"] == "completed"
    assert s["accepted_load"] == pytest.approx(0.1, rel=0.03)
    assert 2.0 < s["hops_mean"] < 2.6  # a 72-terminal uniform draw: 1 in 71 stays on its router


def test_rates_and_loads_are_per_terminal():
    s = simulate(Config(topology="mesh", k=2, concentration=4, pattern="uniform", rate=0.2, warmup=500,
                        measure=4000))
    assert s["offered_load"] == pytest.approx(0.2, rel=0.05)  # 16 terminals, not 4 routers
    assert s["accepted_load"] == pytest.approx(0.2, rel=0.05)


def test_worst_case_on_a_concentrated_dragonfly_sends_to_the_next_group():
    from netsim_fast.topologies.base import terminal_view
    from netsim_fast.workloads.synthetic import traffic_of

    cfg = Config(topology="dragonfly", group_routers=4, global_links=2, concentration=2, routing="minimal",
                 pattern="worst-case", rate=0.5)
    src, dst, _, _ = traffic_of(cfg, terminal_view(build_topology(cfg))).chunk(0)
    assert src.max() < 72 and dst.max() < 72
    assert np.array_equal(dst // 8, (src // 8 + 1) % 9)  # 8 terminals per group


def topo_json(*args):
    res = runner.invoke(app, ["topo", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize("args,routers,terminals,per_router,links,diameter", [
    (("--topology", "mesh", "--k", "2", "--concentration", "2"), 4, 8, 2, 4, 2),
    (("--topology", "mesh", "--k", "4", "--concentration", "4"), 16, 64, 4, 24, 6),  # cmesh
    (("--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--concentration", "2"),
     36, 72, 2, 90, 3),  # Kim et al.: P = 2, A = 4, H = 2, G = 9
    (("--topology", "torus", "--k", "4"), 16, 16, 1, 32, 4),
])
def test_topo_json_counts(args, routers, terminals, per_router, links, diameter):
    m = topo_json(*args)
    assert (m["routers"], m["nodes"], m["terminals"], m["terminals_per_router"]) == (routers, routers, terminals,
                                                                                   per_router)
    assert (m["links"], m["diameter"]) == (links, diameter)


def test_topo_counts_the_large_dragonfly_of_kim_et_al():
    # P = 4, A = 8, H = 4: G = 33 groups, 264 routers, 1056 terminals
    topo = build_topology(Config(topology="dragonfly", group_routers=8, global_links=4, concentration=4))
    assert (topo.n_nodes, topo.n_terminals) == (264, 1056)


@pytest.mark.parametrize("args,words", [
    (("run", "--engine", "packet", "--topology", "mesh", "--k", "4", "--pattern", "random", "--concentration", "2"),
     ["--concentration", "2", "packet engine"]),
    (("run", "--topology", "mesh", "--k", "4", "--pattern", "random-te", "--concentration", "2"),
     ["--concentration", "random-te", "finite"]),
    (("run", "--topology", "mesh", "--k", "4", "--pattern", "tornado", "--concentration", "2"),
     ["--pattern", "tornado", "concentration"]),
    (("run", "--topology", "mesh", "--k", "4", "--concentration", "0"), ["--concentration", "0", ">= 1"]),
    (("run", "--topology", "mesh", "--k", "4", "--concentration", "65"), ["--concentration", "65", "<= 64"]),
    (("run", "--topology", "mesh", "--k", "4", "--pattern", "hotspot", "--hotspot-nodes", "16"),
     ["--hotspot-nodes", "0..15"]),
    (("run", "--topology", "mesh", "--k", "4", "--router", "booksim", "--routing-delay", "0", "--noq",
      "--vcs", "8", "--concentration", "2"), ["--noq", "concentration"]),
])
def test_refusals(args, words):
    assert_refused(runner.invoke(app, list(args)), words)


def test_hotspot_nodes_are_terminals():
    cfg = Config(topology="mesh", k=4, pattern="hotspot", hotspot_nodes="63", concentration=4)
    assert cfg.hotspot_nodes == (63,)


def test_the_trace_counts_terminals(tmp_path):
    import netsim_fast as nf

    path = tmp_path / "c.h5"
    simulate(Config(topology="mesh", k=2, concentration=4, pattern="uniform", rate=0.1, warmup=100, measure=500,
                    trace=str(path)))
    tr = nf.open_trace(path)
    assert tr.schema_version == 6 and tr.config["concentration"] == 4
    assert len(tr.nodes) == 16 and tr.packets["dst"].max() <= 15


REFERENCE_CASES = [
    dict(topology="mesh", k=3, routing="dor"),
    dict(topology="torus", k=4, routing="duato", vcs=4),
    dict(topology="torus", dims="2,4", routing="dor", t_link=2, t_crossbar=2, credit_delay=3, t_routing=2,
         headers_per_cycle=2, eject_rate=2),
    dict(topology="dragonfly", group_routers=3, global_links=1, routing="minimal", vcs=3, headers_per_cycle=0,
         out_buf=1, buf=4),
    dict(topology="hyperx", dims="2,3", routing="minimal", vcs=2, vc_alloc="rr", switching="vct", buf=6),
]


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("concentration", [2, 3])
@pytest.mark.parametrize("case", REFERENCE_CASES, ids=lambda c: f"{c['topology']}-{c['routing']}")
def test_kernel_matches_the_plain_reference_cycle_for_cycle(case, concentration, router):
    """tests/reference/flit_naive.py, written from docs/flit-engine.md, with its terminals: every
    packet's injection, head and tail delivery, hops and flit gaps, and the run's cycles."""
    from tests.test_flit_engine import assert_same_as_reference, random_packets

    max_len = 5 if case.get("switching") == "vct" else 9
    cfg = Config(router=router, packet_flits=max_len, check_invariants=True, concentration=concentration, **case)
    assert_same_as_reference(cfg, random_packets(cfg.n_terminals, 80, max_len, seed=concentration, span=60))


DF = dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2, router="booksim", vcs=2)


@pytest.mark.parametrize("noc,local,far", [(True, 10, 100), (False, 1, 1)])
def test_booksim_min_on_a_dragonfly_takes_booksim2s_route_and_channel_latencies(noc, local, far):
    # docs/booksim-router.md section 6: T = 4 + (H + 1) P + sum over links of (d + 1), P = 3.
    # Terminal 0 (router 0, group 0) to terminal 66 (router 33, group 8): group 0 reaches group 8
    # (rank 7 of its other groups) through its global port 7, router 7 // 2 = 3's second; the link
    # enters group 8 at its port 0 (router 32), which is one local hop from router 33.
    kw = dict(use_noc_latency=noc, **DF)
    assert one_packet(0, 66, 1, **kw) == (4 + 4 * 3 + 2 * (local + 1) + far + 1, 3)
    assert one_packet(0, 7, 1, **kw) == (4 + 2 * 3 + local + 1, 1)  # router 3 of the same group
    assert one_packet(6, 7, 4, **kw) == (7 + 3, 0)  # two terminals of router 3


def test_booksim_dragonfly_min_delivers_with_invariants():
    s = simulate(Config(pattern="uniform", rate=0.2, warmup=300, measure=2000, check_invariants=True,
                        use_noc_latency=False, **DF))
    assert not s["saturated"] and not s["deadlock"]
    assert s["accepted_load"] == pytest.approx(0.2, rel=0.05)
    lanes = simulate(Config(pattern="uniform", rate=0.2, warmup=300, measure=2000, topology="dragonfly",
                            group_routers=4, global_links=2, concentration=2, routing="minimal", vcs=3))
    assert s["hops_mean"] == pytest.approx(lanes["hops_mean"], rel=0.02)  # the same minimal routes


@pytest.mark.parametrize("extra,words", [
    (dict(vcs=1), ["--vcs", "1", "VC 0 before the global hop"]),
    (dict(groups=5), ["--groups", "5", "G = A*H + 1 = 9"]),
    (dict(global_arrangement="palm-tree"), ["--global-arrangement", "palm-tree", "consecutive"]),
    (dict(routing="minimal"), ["--routing", "minimal", "BookSim2's min"]),
])
def test_booksim_dragonfly_refusals(extra, words):
    from netsim_fast.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        Config(**{**DF, **extra})
    for word in words:
        assert word in str(err.value)


def test_min_elsewhere_is_refused_with_the_reason():
    res = runner.invoke(app, ["run", "--topology", "mesh", "--k", "4", "--router", "booksim", "--routing", "min"])
    assert_refused(res, ["--routing", "min", "dragonflynew", "anynet"])
