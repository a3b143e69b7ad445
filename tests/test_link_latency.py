"""Per-link wire latency (flit/wires.py): a dragonfly's --local-latency and --global-latency on
the lanes and iq routers (pipelined links, credits delayed alike) and the booksim router."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from _refusals import assert_refused
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.experiment import simulate
from tests.test_concentration import one_packet
from tests.test_flit_engine import assert_same_as_reference, random_packets

KIM = dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2)
runner = CliRunner()


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("local,far", [(1, 1), (3, 12), (1, 25), (7, 7)])
def test_one_packet_takes_3h_plus_L_plus_2_plus_each_links_extra_cycles(router, local, far):
    # docs/flit-engine.md: 3 cycles a hop with unit delays, plus (latency - t_link) on each link.
    # Terminal 0 (router 0) to terminal 66 (router 33): router 0 -local-> 3 -global-> 32 -local-> 33
    # (test_concentration's route); terminal 0 to 7: one local hop; 6 to 7: no link.
    kw = dict(router=router, routing="minimal", vcs=3, local_latency=local, global_latency=far, **KIM)
    assert one_packet(0, 66, 4, **kw) == (3 * 3 + 4 + 2 + 2 * (local - 1) + (far - 1), 3)
    assert one_packet(0, 7, 4, **kw) == (3 + 4 + 2 + (local - 1), 1)
    assert one_packet(6, 7, 4, **kw) == (4 + 2, 0)


def _one_packet_arrivals(flits, **kw):
    """(head, tail) delivery cycles of one packet from terminal 0 (router 0) to terminal 8
    (router 4, group 1): a single global hop (router 0's global port 0 lands on group 1's port 0)."""
    from netsim_fast.flit.run import FinitePackets, run_flit
    from netsim_fast.topologies import build_topology

    cfg = Config(packet_flits=flits, routing="minimal", vcs=3, **KIM, **kw)
    packets = FinitePackets(src=np.array([0], np.int32), dst=np.array([8], np.int32),
                            length=np.array([flits], np.int32), release=np.array([3], np.int64))
    run = run_flit(cfg, build_topology(cfg), packets=packets)
    assert int(run.state.pkt["hops"][0]) == 1
    return int(run.state.pkt["head_del"][0]), int(run.state.pkt["tail_del"][0])


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_a_long_wire_is_pipelined_one_flit_every_t_link_cycles(router):
    # with lanes deep enough for the credit round trip a 16-flit packet streams one flit every
    # --t-link 2 cycles over a global link of latency 30, as over a short one: the head is 28
    # cycles later, the tail the same (at most 15 x 2) cycles after the head either way
    kw = dict(router=router, t_link=2, buf=64)
    head, tail = _one_packet_arrivals(16, **kw)
    long_head, long_tail = _one_packet_arrivals(16, global_latency=30, **kw)
    assert long_head - head == 30 - 2
    assert long_tail - long_head == tail - head <= 15 * 2


@pytest.mark.parametrize("router,round_trip", [("lanes", 60), ("iq", 61)])
def test_a_lane_streams_at_full_rate_once_it_holds_the_credit_round_trip(router, round_trip):
    # the README's buffer sizing, by hand: a flit sent at t over a link of latency L = 30 arrives
    # at t + L (iq: t + 1 + L, after the crossbar), may leave its lane that cycle, and its credit
    # comes back credit_delay + L - 1 = L cycles later: one slot is busy 2L cycles (iq 2L + 1).
    # With that many slots a 64-flit packet's tail follows its head by 63 cycles; one slot fewer
    # and the stream stalls once per round trip.
    def gap(buf):
        head, tail = _one_packet_arrivals(64, router=router, buf=buf, global_latency=30)
        return tail - head

    assert gap(round_trip) == gap(round_trip + 4) == 63
    assert gap(round_trip - 1) == 64


def test_the_event_rings_grow_with_the_longest_wire():
    from netsim_fast.flit.run import build_params
    from netsim_fast.flit.state import STOP_ALL
    from netsim_fast.flit.wires import link_wires
    from netsim_fast.topologies import build_topology

    cfg = Config(**KIM, routing="minimal", vcs=3, router="iq", t_crossbar=3, local_latency=4, global_latency=40)
    topo = build_topology(cfg)
    wire = link_wires(cfg, topo)
    assert sorted(set(wire.ravel().tolist())) == [0, 3, 39]  # local 4 - 1, global 40 - 1; terminals 0
    assert (wire[:, :3] == 3).all() and (wire[:, 3:5] == 39).all()
    p = build_params(cfg, topo, stop_mode=STOP_ALL, win_start=0, win_end=1, wire=wire)
    assert p.wire_max == 39 and p.ring > 3 + 40  # a flit on the longest link: crossbar + wire


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("case", [
    dict(group_routers=3, global_links=1, local_latency=2, global_latency=9, buf=4, concentration=2),
    dict(group_routers=4, global_links=2, local_latency=1, global_latency=5, buf=3, t_link=1, credit_delay=2,
         concentration=1, out_buf=1),
    dict(group_routers=2, global_links=1, local_latency=4, global_latency=6, t_link=2, t_crossbar=2, buf=5,
         concentration=3, headers_per_cycle=0),
], ids=["a3h1", "a4h2", "a2h1-tlink2"])
def test_kernel_matches_the_plain_reference_with_long_links(case, router):
    """tests/reference/flit_naive.py with its per-link latency, under contention and with lanes
    shallower than the credit round trip (credits delayed by the wire matter), invariants checked
    every cycle."""
    cfg = Config(topology="dragonfly", routing="minimal", vcs=3, router=router, packet_flits=7,
                 check_invariants=True, **case)
    assert_same_as_reference(cfg, random_packets(cfg.n_terminals, 90, 7, seed=3, span=40))


@pytest.mark.parametrize("routing", ["valiant", "ugal-l"])
def test_nonminimal_routings_run_with_long_links_and_invariants(routing):
    s = simulate(Config(**KIM, routing=routing, vcs=6, buf=16, pattern="worst-case", rate=0.15, warmup=300,
                        measure=1500, local_latency=2, global_latency=10, check_invariants=True))
    assert not s["saturated"] and not s["deadlock"] and s["completed"]


def test_latencies_equal_to_t_link_change_nothing():
    """With every link at --t-link the kernel takes today's path: the summary is bit-identical to
    a run without the options."""
    base = dict(**KIM, routing="ugal-l", vcs=6, pattern="uniform", rate=0.3, warmup=300, measure=1500, seed=4)
    plain = simulate(Config(**base))
    same = simulate(Config(**base, local_latency=1, global_latency=1))
    from netsim_fast.summary_keys import WALL_CLOCK_KEYS

    drop = set(WALL_CLOCK_KEYS) | {"estimated_mib"}
    assert {k: v for k, v in plain.items() if k not in drop} == {k: v for k, v in same.items() if k not in drop}
    longer = simulate(Config(**base, global_latency=10))
    assert longer["latency_mean"] > plain["latency_mean"] + 5


@pytest.mark.parametrize("local,far", [(5, 20), (1, 1)])
def test_booksim_router_takes_the_options_as_its_channel_latencies(local, far):
    # docs/booksim-router.md section 6: T = 4 + (H + 1) P + sum over links of (d + 1), P = 3
    kw = dict(router="booksim", vcs=2, local_latency=local, global_latency=far, **KIM)
    assert one_packet(0, 66, 1, **kw) == (4 + 4 * 3 + 2 * (local + 1) + far + 1, 3)
    assert one_packet(0, 7, 1, **kw) == (4 + 2 * 3 + local + 1, 1)


@pytest.mark.parametrize("kw,words", [
    (dict(topology="torus", k=4, global_latency=10), ["--global-latency", "10", "--topology dragonfly only"]),
    (dict(topology="mesh", k=4, local_latency=3), ["--local-latency", "3", "dragonfly only"]),
    (dict(**KIM, t_link=2, global_latency=1), ["--global-latency", "1", ">= --t-link 2"]),
    (dict(**KIM, local_latency=0), ["--local-latency", "0", ">= 1"]),
    (dict(topology="dragonfly", group_routers=4, global_links=2, engine="packet", global_latency=10),
     ["--global-latency", "flit engine only"]),
])
def test_bad_latencies_are_refused(kw, words):
    with pytest.raises(ConfigError) as err:
        Config(**kw)
    for word in words:
        assert word in str(err.value)


def test_cli_takes_the_options_and_refuses_them_elsewhere(tmp_path):
    args = ["run", "--topology", "dragonfly", "--group-routers", "2", "--global-links", "1", "--routing", "minimal",
            "--vcs", "3", "--warmup", "100", "--measure", "300", "--quiet"]
    res = runner.invoke(app, args + ["--local-latency", "2", "--global-latency", "8", "--json",
                                     "--save-config", str(tmp_path / "c.toml")])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["completed"]
    saved = (tmp_path / "c.toml").read_text()
    assert "local_latency = 2" in saved and "global_latency = 8" in saved
    res = runner.invoke(app, ["run", "--topology", "torus", "--k", "4", "--global-latency", "8"])
    assert_refused(res, ["--global-latency", "8", "dragonfly"])


def test_sweeps_and_traces_carry_the_latencies(tmp_path):
    import netsim_fast as nf
    from netsim_fast.sweep import spec_from_dict

    spec = spec_from_dict({"base": {**KIM, "routing": "minimal", "vcs": 3, "pattern": "uniform", "rate": 0.1},
                           "grid": {"global_latency": [1, 10]}})
    assert [p.config.global_latency for p in spec.points] == [1, 10]
    path = tmp_path / "df.h5"
    simulate(Config(**KIM, routing="minimal", vcs=3, pattern="uniform", rate=0.1, warmup=100, measure=300,
                    local_latency=2, global_latency=10, trace=str(path)))
    stored = nf.open_trace(path).config
    assert (stored["local_latency"], stored["global_latency"]) == (2, 10)
    assert Config.from_dict(stored).global_latency == 10
