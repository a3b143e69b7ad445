"""The flit engine against the plain reference of tests/reference/flit_naive.py, cycle for cycle,
and its correctness guards: invariants, watchdog, determinism."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netsim_fast.config import Config
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import FinitePackets, run_flit
from netsim_fast.errors import DeadlockError
from netsim_fast.topologies import build_topology
from tests.reference.flit_naive import simulate_naive


def random_packets(n_nodes, count, max_len, seed, span):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n_nodes, count)
    dst = rng.integers(0, n_nodes - 1, count)
    dst = dst + (dst >= src)
    length = rng.integers(1, max_len + 1, count)
    release = np.sort(rng.integers(0, span, count))
    return FinitePackets(src.astype(np.int32), dst.astype(np.int32), length.astype(np.int32), release.astype(np.int64))


def run_both(cfg, packets):
    from netsim_fast.routing import TABLE_ROUTINGS
    from netsim_fast.routing.tables import route_table

    from netsim_fast.flit.wires import link_wires

    topo = build_topology(cfg)
    table = route_table(topo, cfg.routing, cfg.loops) if cfg.routing in TABLE_ROUTINGS else None
    if cfg.routing == "updown":
        from netsim_fast.routing.updown import updown_table

        table = updown_table(topo)
    run = run_flit(cfg, topo, packets=packets)
    n = len(packets.src)
    s = run.state
    # valiant on a Hamming graph: the intermediate routers the run drew (s.mid holds m + N * hops to it)
    mid = np.where(s.mid[:n] >= 0, s.mid[:n] % topo.n_nodes, -1) if cfg.routing == "valiant" else None
    ours = {"injected": s.pkt["injected"][:n], "head_delivered": s.pkt["head_del"][:n],
            "tail_delivered": s.pkt["tail_del"][:n], "hops": s.pkt["hops"][:n], "flit_gap": s.pkt["flit_gap"][:n],
            "inj_gap": s.pkt["inj_gap"][:n]}
    ref = simulate_naive(
        topo, router=cfg.router, routing=cfg.routing, switching=cfg.switching, vcs=cfg.vcs, buf=cfg.buf,
        out_buf=cfg.out_buf, t_link=cfg.t_link, t_routing=cfg.t_routing, t_crossbar=cfg.t_crossbar,
        credit_delay=cfg.credit_delay, headers_per_cycle=cfg.headers_per_cycle, eject_rate=cfg.eject_rate,
        inject_vcs=list(cfg.inject_vcs) if cfg.inject_vcs else None, vc_realloc=cfg.vc_realloc, vc_alloc=cfg.vc_alloc, table=table, up_port=cfg.up_port, wire=link_wires(cfg, topo), pkt_src=packets.src, pkt_dst=packets.dst,
        pkt_len=packets.length, pkt_release=packets.release, max_cycles=100_000, pkt_mid=mid)
    return run, ours, ref


def assert_same_as_reference(cfg, packets):
    run, ours, ref = run_both(cfg, packets)
    for key, values in ours.items():
        assert np.array_equal(values, ref[key]), f"{key} differs from the reference"
    assert run.cycles == ref["cycles"]
    assert int(run.state.cnt[fs.C_FLIT_HOPS]) == ref["flit_hops"]
    assert np.all(ours["tail_delivered"] >= 0), "every packet delivered"


TOPOLOGIES = [dict(topology="torus", k=4), dict(topology="mesh", k=3), dict(topology="torus", dims="2,4"),
              dict(topology="hypercube", n=3)]
DELAYS = [dict(), dict(t_link=2, t_crossbar=2, credit_delay=3, t_routing=2, headers_per_cycle=2, eject_rate=2),
          dict(headers_per_cycle=0, out_buf=1, buf=4)]


@pytest.mark.parametrize("router,routing,switching", list(itertools.product(["lanes", "iq"], ["dor", "duato"], ["wormhole", "vct"])))
def test_kernel_matches_reference_cycle_for_cycle(router, routing, switching):
    for topo_kw, delays in itertools.product(TOPOLOGIES, DELAYS):
        max_len = min(delays.get("buf", 8), 6) if switching == "vct" else 12
        cfg = Config(router=router, routing=routing, switching=switching, packet_flits=max_len,
                     check_invariants=True, **topo_kw, **delays)
        assert_same_as_reference(cfg, random_packets(cfg.n_nodes, 50, max_len, seed=7, span=60))


TABLE_CASES = [
    dict(topology="rrg", nodes=16, degree=3, routing="minimal", vcs=5),
    dict(topology="ring", nodes=7, routing="minimal", vcs=3),
    dict(topology="debruijn", nodes=16, routing="minimal", vcs=6),
    dict(topology="bmg", nodes=20, routing="bmg-equiclass", vcs=3),
    dict(topology="bmg", nodes=20, routing="bmg-basic", vcs=4),
    dict(topology="bmg", nodes=21, routing="chord", vcs=6),
    dict(topology="torus", k=4, routing="minimal", vcs=4),
]


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("case", TABLE_CASES, ids=lambda c: f"{c['topology']}-{c['routing']}")
def test_table_routings_match_reference_cycle_for_cycle(case, router):
    cfg = Config(router=router, packet_flits=6, check_invariants=True, **case)
    assert_same_as_reference(cfg, random_packets(cfg.n_nodes, 60, 6, seed=11, span=50))


HAMMING_CASES = [dict(topology="hyperx", dims="3,2,4", vcs=2), dict(topology="hyperx", dims="3,3", vcs=4, buf=4),
                 dict(topology="flatfly", k=3, n=2, concentration=2, vcs=4, t_link=2, credit_delay=2)]


@pytest.mark.parametrize("switching", ["wormhole", "vct"])
@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("case", HAMMING_CASES, ids=lambda c: f"{c['topology']}-{c.get('dims', c.get('k'))}")
def test_valiant_on_hamming_graphs_matches_reference_cycle_for_cycle(case, router, switching):
    cfg = Config(router=router, routing="valiant", switching=switching, packet_flits=4, check_invariants=True,
                 **case)
    terminals = cfg.n_nodes * case.get("concentration", 1)
    assert_same_as_reference(cfg, random_packets(terminals, 80, 4, seed=5, span=60))


ADAPTIVE_CASES = [dict(topology="hyperx", dims="3,2,3", widths="2,1,3", vcs=2),
                  dict(topology="hyperx", dims="3,3", widths="2,2", vcs=3, buf=4, concentration=2),
                  dict(topology="flatfly", k=3, n=2, vcs=2, t_link=2, credit_delay=2)]


@pytest.mark.parametrize("routing", ["dim-adaptive", "min-adaptive"])
@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("case", ADAPTIVE_CASES, ids=lambda c: f"{c['topology']}-{c.get('widths', c.get('k'))}")
def test_hamming_adaptive_routings_match_reference_cycle_for_cycle(case, router, routing):
    cfg = Config(router=router, routing=routing, packet_flits=4, check_invariants=True, **case)
    terminals = cfg.n_nodes * case.get("concentration", 1)
    assert_same_as_reference(cfg, random_packets(terminals, 150, 4, seed=9, span=15))


@st.composite
def flit_configs(draw):
    topo_kw = draw(st.sampled_from(TOPOLOGIES + [dict(topology="torus", k=3), dict(topology="mesh", dims="4,2")]))
    routing = draw(st.sampled_from(["dor", "duato"]))
    datelines = topo_kw.get("topology") == "torus" and topo_kw.get("k", 4) > 2
    vcs = draw(st.sampled_from([2, 4, 6] if routing == "dor" else [3, 4, 5])) if datelines else draw(st.integers(2, 4))
    switching = draw(st.sampled_from(["wormhole", "vct"]))
    buf = draw(st.integers(2, 6))
    max_len = draw(st.integers(1, buf if switching == "vct" else 10))
    cfg = Config(router=draw(st.sampled_from(["lanes", "iq"])), routing=routing, switching=switching, vcs=vcs,
                 buf=buf, out_buf=draw(st.integers(1, 3)), t_link=draw(st.integers(1, 3)),
                 t_routing=draw(st.integers(1, 2)), t_crossbar=draw(st.integers(1, 2)),
                 credit_delay=draw(st.integers(1, 3)), headers_per_cycle=draw(st.integers(0, 2)),
                 eject_rate=draw(st.integers(1, 2)), packet_flits=max_len, check_invariants=True,
                 vc_alloc=draw(st.sampled_from(["age", "rr"])),
                 vc_realloc=draw(st.sampled_from(["auto", "atomic", "eager"])), **topo_kw)
    return cfg, draw(st.integers(0, 1000)), max_len


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flit_configs())
def test_random_small_configurations_match_reference(case):
    cfg, seed, max_len = case
    assert_same_as_reference(cfg, random_packets(cfg.n_nodes, 40, max_len, seed, span=50))


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flit_configs())
def test_many_random_configurations_match_reference(case):
    cfg, seed, max_len = case
    assert_same_as_reference(cfg, random_packets(cfg.n_nodes, 120, max_len, seed, span=100))


@st.composite
def adaptive_configs(draw):
    n_dims = draw(st.integers(1, 3))
    dims = [draw(st.integers(2, 4)) for _ in range(n_dims)]
    widths = [draw(st.integers(1, 3)) for _ in range(n_dims)]
    routing = draw(st.sampled_from(["dim-adaptive", "min-adaptive"]))
    switching = draw(st.sampled_from(["wormhole", "vct"]))
    buf = draw(st.integers(2, 6))
    max_len = draw(st.integers(1, buf if switching == "vct" else 8))
    cfg = Config(topology="hyperx", dims=",".join(map(str, dims)), widths=",".join(map(str, widths)),
                 routing=routing, router=draw(st.sampled_from(["lanes", "iq"])), switching=switching,
                 vcs=draw(st.integers(1 if routing == "dim-adaptive" else 2, 4)), buf=buf,
                 out_buf=draw(st.integers(1, 3)), t_link=draw(st.integers(1, 2)), credit_delay=draw(st.integers(1, 2)),
                 headers_per_cycle=draw(st.integers(0, 2)), vc_alloc=draw(st.sampled_from(["age", "rr"])),
                 vc_realloc=draw(st.sampled_from(["auto", "atomic"])), packet_flits=max_len, check_invariants=True)
    return cfg, draw(st.integers(0, 1000)), max_len


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(adaptive_configs())
def test_random_hyperx_adaptive_configurations_match_reference(case):
    cfg, seed, max_len = case
    assert_same_as_reference(cfg, random_packets(cfg.n_nodes, 100, max_len, seed, span=40))


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_zero_load_latency_is_3h_plus_L_plus_2(router):
    cfg = Config(topology="torus", k=8, router=router, packet_flits=5)
    topo = build_topology(cfg)
    for dst, hops in ((1, 1), (9, 2), (36, 8), (63, 2)):
        packets = FinitePackets(np.array([0], np.int32), np.array([dst], np.int32), np.array([5], np.int32),
                                np.array([3], np.int64))
        s = run_flit(cfg, topo, packets=packets).state
        assert s.pkt["hops"][0] == hops
        assert s.pkt["tail_del"][0] - 3 == 3 * hops + 5 + 2


def ring_worms(nodes=5, worms=3, length=16):
    src = np.repeat(np.arange(nodes), worms)
    return FinitePackets(src.astype(np.int32), ((src + 2) % nodes).astype(np.int32),
                         np.full(src.size, length, np.int32), np.zeros(src.size, np.int64))


def test_watchdog_catches_the_deadlock_of_dor_without_datelines():
    cfg = Config(topology="torus", dims="5", routing="dor-nodateline", vcs=2, buf=2, out_buf=1,
                 packet_flits=16, deadlock_cycles=500)
    with pytest.raises(DeadlockError) as err:
        run_flit(cfg, build_topology(cfg), packets=ring_worms())
    assert "deadlock at cycle" in str(err.value) and "a knot of" in str(err.value)
    knot = err.value.result.extras["deadlock_cycle"]
    # the worms hold channels all round the ring: its network lanes are in the knot
    assert {c["router"] for c in knot if c["port"] != "local"} == set(range(5))


def test_same_load_completes_with_datelines():
    cfg = Config(topology="torus", dims="5", routing="dor", vcs=2, buf=2, out_buf=1, packet_flits=16,
                 deadlock_cycles=500)
    run = run_flit(cfg, build_topology(cfg), packets=ring_worms())
    assert run.done and np.all(run.state.pkt["tail_del"][:15] >= 0)


def test_watchdog_catches_dor_without_datelines_under_random_load():
    # open-loop uniform traffic past saturation on an 8x8 torus: the rings close within a few hundred cycles
    from netsim_fast import simulate

    cfg = Config(topology="torus", k=8, routing="dor-nodateline", vcs=1, buf=2, packet_flits=16, rate=0.9,
                 cycles=3000, deadlock_cycles=300)
    with pytest.raises(DeadlockError) as err:
        simulate(cfg)
    message = str(err.value)
    assert "deadlock at cycle" in message and err.value.result.cycles < 3000
    knot = err.value.summary["deadlock_cycle"]
    listed = message.split("cycles): ")[1].split("; ")
    assert len(listed) == min(len(knot), 12) and all(part.startswith("router ") and " vc 0 " in part for part in listed)
    # a ring of one dimension: every network channel of the knot is in that dimension's ring
    assert err.value.summary["deadlock"] is True and len({c["router"] for c in knot}) >= 2


def test_watchdog_catches_a_partial_deadlock_while_other_traffic_moves():
    # a deadlocked ring in dimension 0 (row y = 0), and an unrelated stream that keeps flowing
    cfg = Config(topology="torus", dims="5,3", routing="dor-nodateline", vcs=2, buf=2, out_buf=1,
                 packet_flits=16, deadlock_cycles=400)
    ring = ring_worms()
    stream_src = np.full(200, 5 + 1, np.int32)  # node (1, 1) -> (1, 2) forever, dimension 1 only
    packets = FinitePackets(np.concatenate([ring.src, stream_src]),
                            np.concatenate([ring.dst, np.full(200, 10 + 1, np.int32)]),
                            np.concatenate([ring.length, np.full(200, 4, np.int32)]),
                            np.concatenate([ring.release, np.arange(200, dtype=np.int64) * 8]))
    order = np.argsort(packets.release, kind="stable")
    packets = FinitePackets(*(a[order] for a in (packets.src, packets.dst, packets.length, packets.release)))
    with pytest.raises(DeadlockError) as err:
        run_flit(cfg, build_topology(cfg), packets=packets)
    state = err.value.result.state
    assert int(state.cnt[fs.C_CYCLE]) < 200 * 8, "caught while the stream was still being injected"
    assert int(state.cnt[fs.C_DELIVERED]) > 0, "the other traffic kept moving"


@pytest.mark.slow
@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("routing", ["dor", "duato"])
def test_long_saturated_runs_never_trip_the_watchdog(routing, router):
    # far past saturation, with unbounded source queues: no lane may wait 5000 cycles
    cfg = Config(topology="torus", k=16, routing=routing, router=router, rate=0.8, cycles=60_000,
                 deadlock_cycles=5000)
    run = run_flit(cfg, build_topology(cfg))
    assert run.cycles == 60_000


@pytest.mark.parametrize("routing", ["dor", "duato"])
def test_saturated_run_on_8x8_keeps_every_lane_moving(routing):
    cfg = Config(topology="torus", k=8, routing=routing, rate=0.9, cycles=8000, deadlock_cycles=1500)
    run = run_flit(cfg, build_topology(cfg))
    assert run.cycles == 8000


def test_same_config_and_seed_give_identical_results():
    from netsim_fast.flit.results import WALL_CLOCK_KEYS
    from netsim_fast.experiment import simulate

    cfg = Config(topology="torus", k=4, routing="duato", rate=0.3, warmup=200, measure=800)
    a, b = simulate(cfg), simulate(cfg)
    c = simulate(cfg.replace(seed=2))
    strip = lambda d: {k: v for k, v in d.items() if k not in WALL_CLOCK_KEYS}
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


def test_source_throttling_restricts_first_hop_vcs():
    cfg = Config(topology="torus", k=4, routing="duato", inject_vcs="2,3", packet_flits=4, check_invariants=True)
    assert_same_as_reference(cfg, random_packets(16, 60, 4, seed=3, span=40))
