"""Request-reply (closed-loop) traffic (flit/closed_loop.py): round trips worked out by hand on a
two-node line, the outstanding limit, reply precedence, determinism, retirement, refusals."""

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.experiment import simulate
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import run_flit
from netsim_fast.summary_keys import WALL_CLOCK_KEYS
from netsim_fast.topologies import build_topology
from tests._refusals import assert_refused

LINE = dict(topology="mesh", k=2, n=1, vcs=2, packet_flits=1, warmup=200, measure=4000)


def _one_way(router: str) -> int:
    """Latency of one 1-flit packet over the two-node line, alone in the network."""
    cfg = Config(**LINE, router=router, rate=0.002, seed=5)
    pk = run_flit(cfg, build_topology(cfg)).packet_table()
    lat = pk["tail_arrival_cycle"] - pk["created_cycle"]
    return int(np.median(lat))


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_round_trip_on_a_two_node_line_is_two_hops_and_a_cycle(router):
    """R = 1, 1-flit requests and replies at a low rate: a reply is created in the cycle after its
    request's tail arrived (the request's arrival is its creation cycle), so a round trip is
    the one-way latency twice plus that cycle, when nothing else is in the way."""
    one_way = _one_way(router)
    cfg = Config(**LINE, router=router, rate=0.004, closed_loop=True, outstanding=1, reply_flits=1, seed=5)
    run = run_flit(cfg, build_topology(cfg))
    pk = run.packet_table()
    replies = (pk["kind"] == fs.KIND_READ_REPLY) & (pk["tail_arrival_cycle"] >= 0)
    trips = pk["tail_arrival_cycle"][replies] - pk["request_created_cycle"][replies]
    assert trips.size > 10
    assert trips.min() == 2 * one_way + 1 and np.median(trips) == 2 * one_way + 1
    reply_lat = pk["tail_arrival_cycle"][replies] - pk["created_cycle"][replies]
    assert np.median(reply_lat) == one_way + 1
    # every reply goes back to its requester, and is as long as --reply-flits
    assert set(pk["size_flits"][replies]) == {1}
    assert (pk["kind"] == fs.KIND_READ).sum() >= replies.sum()


def test_outstanding_limit_holds_and_throughput_levels_off():
    """With R = 1 a terminal never has two requests out; past the knee more offered load
    brings no more throughput and the latency stays bounded (the sources throttle)."""
    base = dict(topology="mesh", k=4, vcs=4, packet_flits=2, reply_flits=2, warmup=300, measure=2000,
                closed_loop=True, outstanding=1, seed=2)
    cfg = Config(**base, rate=0.5)
    pk = run_flit(cfg, build_topology(cfg)).packet_table()
    req = pk["kind"] == fs.KIND_READ
    for term in range(16):  # request i+1 of a terminal is created no earlier than reply i arrives
        mine = req & (pk["src"] == term)
        created = np.sort(pk["created_cycle"][mine])
        back = np.sort(pk["tail_arrival_cycle"][(pk["kind"] == fs.KIND_READ_REPLY) & (pk["dst"] == term)])
        assert np.all(created[1:] > back[: created.size - 1])
    acc = [simulate(Config(**base, rate=r)) for r in (0.3, 0.6, 0.9)]
    assert all(a["saturated"] for a in acc)
    assert abs(acc[2]["accepted_load"] - acc[1]["accepted_load"]) < 0.1 * acc[1]["accepted_load"]
    for a in acc:
        assert a["latency_mean"] is not None and a["latency_mean"] < 100 and a["round_trip_mean"] < 200
        rr = a["request_reply"]
        assert rr["requests_not_issued"] > 0
        assert rr["requests"]["packets"] == rr["replies"]["packets"] == rr["round_trips"]


def test_a_reply_goes_ahead_of_queued_requests():
    """At a terminal with requests queued, a reply created later is injected before them."""
    cfg = Config(topology="mesh", k=4, vcs=4, packet_flits=4, reply_flits=4, closed_loop=True, outstanding=0,
                 rate=0.9, cycles=3000, seed=4)
    pk = run_flit(cfg, build_topology(cfg)).packet_table()
    overtakes = 0
    reply = np.flatnonzero(pk["kind"] == fs.KIND_READ_REPLY)
    req = pk["kind"] == fs.KIND_READ
    for i in reply[:400]:
        if pk["injected_cycle"][i] < 0:
            continue
        same = req & (pk["src"] == pk["src"][i]) & (pk["created_cycle"] < pk["created_cycle"][i])
        overtakes += int((pk["injected_cycle"][same] > pk["injected_cycle"][i]).sum())
    assert overtakes > 0


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_invariants_hold_and_runs_repeat(router):
    cfg = Config(topology="torus", k=4, vcs=4, packet_flits=2, reply_flits=3, closed_loop=True, outstanding=2,
                 write_fraction=0.3, write_request_flits=3, write_reply_flits=1, rate=0.4, warmup=200, measure=800,
                 router=router, check_invariants=True, seed=7)
    one, two = simulate(cfg), simulate(cfg)
    strip = lambda d: {k: v for k, v in d.items() if k not in WALL_CLOCK_KEYS}  # noqa: E731
    assert strip(one) == strip(two)
    assert one["request_reply"]["write_packets"] > 0 and one["completed"]


def test_retiring_packets_changes_no_closed_loop_result(monkeypatch):
    from tests.test_flit_retire import assert_retiring_changes_nothing

    cfg = Config(topology="torus", k=4, vcs=4, packet_flits=2, closed_loop=True, outstanding=3, rate=0.5,
                 warmup=500, measure=3000, seed=3)
    assert_retiring_changes_nothing(cfg, monkeypatch)


def test_open_loop_runs_have_no_closed_loop_keys():
    out = simulate(Config(topology="mesh", k=4, rate=0.1, warmup=100, measure=500))
    assert "round_trip_mean" not in out and "request_reply" not in out


REFUSALS = {
    "--topology torus --k 4 --outstanding 2": ["--outstanding", "--closed-loop"],
    "--topology torus --k 4 --reply-flits 2": ["--reply-flits", "--closed-loop"],
    "--topology torus --k 4 --closed-loop --vcs 2": ["--vcs 2", "1 VC(s) each"],
    "--topology mesh --k 4 --closed-loop --vcs 3": ["--vcs 3", "even"],
    "--topology mesh --k 4 --closed-loop --classes 2": ["--classes 2", "closed-loop"],
    "--topology mesh --k 4 --closed-loop --batch 5": ["--batch 5", "closed-loop"],
    "--topology mesh --k 4 --closed-loop --source-queue 4": ["--source-queue 4", "closed-loop"],
    "--topology mesh --k 4 --closed-loop --outstanding -1": ["--outstanding -1"],
    "--topology mesh --k 4 --closed-loop --write-fraction 1.5": ["--write-fraction 1.5"],
    "--topology mesh --k 4 --closed-loop --rw-vcs 0,1,0,1,2,3,2,3": ["--rw-vcs", "booksim"],
    "--topology mesh --k 4 --closed-loop --pattern random": ["--closed-loop", "open-loop"],
    "--topology mesh --k 4 --closed-loop --packet-flits 1 --reply-flits 1 --rate 2.5": ["--rate 2.5", "[0, 2]"],
}


@pytest.mark.parametrize("args", sorted(REFUSALS))
def test_bad_closed_loop_input_is_refused(args):
    res = CliRunner().invoke(app, ["run", *args.split(), "--quiet"])
    assert_refused(res, REFUSALS[args])


def test_table_routings_get_half_the_vcs():
    with pytest.raises(ConfigError, match="closed-loop"):
        cfg = Config(topology="rrg", nodes=16, degree=3, routing="minimal", vcs=4, closed_loop=True, rate=0.1,
                     warmup=10, measure=10)
        run_flit(cfg, build_topology(cfg))


def test_booksim_read_write_config_runs_request_reply():
    """BookSim2's use_read_write on the booksim router: reads and writes of their sizes, replies on
    their own VC range, every measured request answered (a 4x4 mesh, short sample periods)."""
    from pathlib import Path

    from netsim_fast.config.booksim_import import read_booksim_run

    case = Path(__file__).parent / "booksim_cases" / "rw_mesh88.cfg"
    fields, _ = read_booksim_run(str(case), ["k=4", "sample_period=500", "injection_rate=0.2"])
    cfg = Config(**fields)
    assert cfg.closed_loop and cfg.outstanding == 0 and cfg.rw_vcs == (0, 1, 0, 1, 2, 3, 2, 3)
    assert (cfg.packet_flits, cfg.reply_flits, cfg.write_request_flits, cfg.write_reply_flits) == (1, 4, 4, 1)
    out = simulate(cfg)
    rr = out["request_reply"]
    assert not out["saturated"] and rr["write_packets"] > 0
    assert rr["requests"]["packets"] == rr["replies"]["packets"] == rr["round_trips"]
    assert abs(out["accepted_load"] - 0.2) < 0.02  # injection_rate counts a request and its reply


BOOKSIM_REFUSALS = {
    "read_reply_end_vc=7": ["read_reply_end_vc=7", "num_vcs = 4"],
    "routing_function=min_adapt": ["min_adapt", "request-reply"],
    "sim_type=throughput": ["throughput", "closed-loop"],
    "use_read_write=2": ["use_read_write=2"],
}


@pytest.mark.parametrize("override", sorted(BOOKSIM_REFUSALS))
def test_bad_read_write_keys_are_refused(override):
    from pathlib import Path

    case = Path(__file__).parent / "booksim_cases" / "rw_mesh88.cfg"
    res = CliRunner().invoke(app, ["run", "--booksim-config", str(case), override, "--quiet"])
    assert_refused(res, BOOKSIM_REFUSALS[override])


def test_a_sweep_grids_the_closed_loop_options():
    from netsim_fast.sweep import spec_from_dict

    spec = spec_from_dict({"base": {"topology": "mesh", "k": 4, "vcs": 4, "closed_loop": True},
                           "grid": {"outstanding": [1, 4], "reply_flits": [1, 8]}})
    assert sorted((p.config.outstanding, p.config.reply_flits) for p in spec.points) == [(1, 1), (1, 8), (4, 1), (4, 8)]


def test_check_deadlock_proves_a_message_class_on_half_the_vcs():
    import json

    res = CliRunner().invoke(app, ["check-deadlock", "--topology", "torus", "--k", "4", "--vcs", "4", "--closed-loop",
                                   "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    half = json.loads(CliRunner().invoke(app, ["check-deadlock", "--topology", "torus", "--k", "4", "--vcs", "2",
                                               "--json", "--quiet"]).stdout)
    assert out["deadlock_free"] and out["closed_loop"]
    assert (out["channels"], out["dependencies"]) == (half["channels"], half["dependencies"])


@pytest.mark.parametrize("router, extra", [
    ("lanes", dict(topology="torus", k=4, vcs=4, outstanding=2, rate=0.5)),
    ("iq", dict(topology="mesh", k=3, vcs=2, outstanding=1, rate=0.6, write_fraction=0.4, write_request_flits=3,
                write_reply_flits=1)),
    ("lanes", dict(topology="mesh", k=3, vcs=4, outstanding=0, rate=0.9, eject_rate=2)),
])
def test_kernel_matches_the_plain_reference_packet_for_packet(router, extra):
    """Every packet the kernel creates (requests, replies), with its cycles, equals the plain
    reference's (tests/reference/closed_loop_naive.py), run on the same candidates."""
    from netsim_fast.flit.closed_loop import candidate_kinds
    from netsim_fast.topologies.base import terminal_view
    from netsim_fast.workloads.synthetic import traffic_of
    from tests.reference.closed_loop_naive import NaiveClosedLoop

    cycles = 600
    cfg = Config(router=router, packet_flits=2, reply_flits=3, closed_loop=True, cycles=cycles, seed=11,
                 **{"eject_rate": 1, **extra})
    topo = build_topology(cfg)
    got = run_flit(cfg, topo).packet_table()
    src, dst, length, rel = traffic_of(cfg, terminal_view(topo)).chunk(0)
    keep = rel < cycles
    kind = candidate_kinds(cfg, 0, src.size)
    length = np.where(kind == fs.KIND_WRITE, cfg.write_request_flits, length)
    ref = NaiveClosedLoop(topo, cand=(src[keep], dst[keep], length[keep], kind[keep], rel[keep]),
                          outstanding=cfg.outstanding, reply_flits=cfg.reply_flits,
                          write_reply_flits=cfg.write_reply_flits, router=router, routing="dor", switching="wormhole",
                          V=cfg.vcs, B=cfg.buf, O=cfg.out_buf, t_link=1, t_routing=1, t_crossbar=1, credit_delay=1,
                          H=1, E=cfg.eject_rate, inject_vcs=None).run_cycles(cycles)
    assert ref["src"].size > 100 and (ref["kind"] >= 3).sum() > 50
    for name, column in ref.items():
        assert np.array_equal(got[name], column), name


def test_booksim_read_write_near_saturation_on_a_torus():
    """Every terminal may deliver a tail in two cycles running before the release stage takes
    them (the booksim terminals read first): the pending list holds both cycles' tails."""
    from pathlib import Path

    from netsim_fast.config.booksim_import import read_booksim_run

    case = Path(__file__).parent / "booksim_cases" / "rw_mesh88.cfg"
    keys = ["topology=torus", "k=4", "num_vcs=8", "read_request_end_vc=3", "write_request_end_vc=3",
            "read_reply_begin_vc=4", "read_reply_end_vc=7", "write_reply_begin_vc=4", "write_reply_end_vc=7",
            "injection_rate=0.8", "sample_period=300", "max_samples=5"]
    fields, _ = read_booksim_run(str(case), keys)
    out = simulate(Config(**fields))
    assert out["request_reply"]["round_trips"] > 1000 and out["accepted_load"] > 0.7
