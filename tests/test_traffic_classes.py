"""Traffic classes (``--classes``, ``--class-mix``, ``--class-priority``): the kernel against the
plain reference with class priorities, a hand-checked conflict, a saturating run, the per-class
statistics, and the refusals."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.flit.run import FinitePackets, run_flit
from netsim_fast.topologies import build_topology
from tests.reference.flit_naive import simulate_naive
from tests.test_flit_engine import random_packets
from tests.test_golden_json import is_wall_clock


def with_classes(packets, cls):
    return FinitePackets(packets.src, packets.dst, packets.length, packets.release, cls=np.asarray(cls, np.int32))


def run_both(cfg, packets):
    topo = build_topology(cfg)
    run = run_flit(cfg, topo, packets=packets)
    n = len(packets.src)
    pri = np.asarray(cfg.class_priority)[packets.cls]
    ref = simulate_naive(
        topo, router=cfg.router, routing=cfg.routing, switching=cfg.switching, vcs=cfg.vcs, buf=cfg.buf,
        out_buf=cfg.out_buf, t_link=cfg.t_link, t_routing=cfg.t_routing, t_crossbar=cfg.t_crossbar,
        credit_delay=cfg.credit_delay, headers_per_cycle=cfg.headers_per_cycle, eject_rate=cfg.eject_rate,
        vc_realloc=cfg.vc_realloc, vc_alloc=cfg.vc_alloc, pkt_src=packets.src, pkt_dst=packets.dst,
        pkt_len=packets.length, pkt_release=packets.release, max_cycles=100_000, pkt_priority=pri)
    return run.state.pkt[:n], ref


CASES = [
    dict(topology="mesh", k=3, router="lanes"),
    dict(topology="mesh", k=3, router="iq"),
    dict(topology="torus", k=4, router="lanes", vc_alloc="rr", eject_rate=2, out_buf=1),
    dict(topology="torus", k=4, router="iq", routing="duato", eject_rate=2),
    dict(topology="mesh", k=2, concentration=2, router="lanes", vcs=2),
    dict(topology="mesh", k=2, concentration=2, router="iq", vcs=2, eject_rate=2),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_kernel_matches_reference_with_class_priorities(case):
    cfg = Config(classes=3, class_priority=(2, 0, 1), packet_flits=8, check_invariants=True, **case)
    packets = random_packets(cfg.n_terminals, 120, 8, seed=5, span=40)  # heavy: queues form everywhere
    cls = np.random.default_rng(3).integers(0, 3, len(packets.src))
    ours, ref = run_both(cfg, with_classes(packets, cls))
    for key, field in (("injected", "injected"), ("head_delivered", "head_del"), ("tail_delivered", "tail_del"),
                       ("hops", "hops"), ("flit_gap", "flit_gap")):
        assert np.array_equal(ours[field], ref[key]), f"{key} differs from the reference"
    assert np.all(ours["tail_del"] >= 0)


def centre_run(priorities, router="lanes"):
    """Packet 0 (class 0) from node 3 and packet 1 (class 1) from node 5, the two x-neighbours of
    the centre of a 3x3 mesh, both to the centre node 4, released at cycle 0, 4 flits each. One
    VC and unlimited routing units: both heads reach router 4 after one hop in the same cycle and
    ask for its one output VC to the local port. Equal age, so with equal priorities the lower
    packet id goes first."""
    cfg = Config(topology="mesh", k=3, vcs=1, packet_flits=4, router=router, headers_per_cycle=0, classes=2,
                 class_priority=priorities)
    packets = FinitePackets(np.array([3, 5], np.int32), np.array([4, 4], np.int32), np.array([4, 4], np.int32),
                            np.array([0, 0], np.int64), cls=np.array([0, 1], np.int32))
    pkt = run_flit(cfg, build_topology(cfg), packets=packets).state.pkt[:2]
    return [(int(h), int(t)) for h, t in zip(pkt["head_del"], pkt["tail_del"])]


@pytest.mark.nojit
@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_high_priority_class_wins_the_conflict(router):
    # Hand count at zero load (1 cycle each: injection, routing, allocation, crossbar, link): a
    # lone packet's head is delivered at 6 and its tail 3 cycles later, at 9. The loser gets
    # the local VC when the winner's tail leaves it and follows one cycle behind: 10 and 13.
    winner, loser = (6, 9), (10, 13)
    assert centre_run((0, 0), router) == [winner, loser]  # equal: the lower id
    assert centre_run((1, 0), router) == [winner, loser]  # packet 0's class is higher: the same
    assert centre_run((0, 1), router) == [loser, winner]  # packet 1's class is higher: it goes first
    assert centre_run((0, 7), router) == [loser, winner]  # only the order of priorities counts


def run_json(args: str) -> dict:
    result = CliRunner().invoke(app, ["run", *args.split(), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


SATURATING = "--topology mesh --k 4 --rate 0.9 --warmup 1000 --measure 3000 --classes 2"


def test_saturating_run_high_class_keeps_low_latency():
    prio, flat = run_json(SATURATING + " --class-priority 1,0"), run_json(SATURATING)
    high, low = prio["per_class"]
    assert high["priority"] == 1 and low["priority"] == 0
    assert not high["saturated"] and high["accepted_load"] >= 0.95 * high["offered_load"]
    assert low["saturated"] and low["latency_mean"] is None  # the low class absorbs the queueing
    # without priorities the same class waits twice as long on average
    assert high["latency_mean"] < 0.6 * flat["per_class"][0]["latency_mean"]
    # the same packets: classes do not change what is created
    assert [c["packets"] for c in prio["per_class"]] == [c["packets"] for c in flat["per_class"]]


def test_one_class_is_the_run_of_before_and_classes_split_it():
    args = "--topology mesh --k 3 --rate 0.2 --warmup 200 --measure 1000"
    plain, one = run_json(args), run_json(args + " --classes 1 --class-mix 1 --class-priority 5")
    keep = lambda d: {k: v for k, v in d.items() if not is_wall_clock(k)}  # noqa: E731
    assert keep(plain) == keep(one) and "per_class" not in one
    two = run_json(args + " --classes 2 --class-mix 0.25,0.75")
    # equal priorities: the same packets, split 1:3 between the classes
    assert two["packets"] == plain["packets"] == sum(c["packets"] for c in two["per_class"])
    share = two["per_class"][0]["packets"] / two["packets"]
    assert 0.2 < share < 0.3
    assert two["offered_load"] == pytest.approx(sum(c["offered_load"] for c in two["per_class"]))


@pytest.mark.parametrize("args,named", [
    ("--classes 0", "--classes"),
    ("--classes 17", "--classes"),
    ("--classes 2 --class-mix 1,2,3", "--class-mix"),
    ("--classes 2 --class-mix 0,0", "--class-mix"),
    ("--classes 2 --class-priority 1", "--class-priority"),
    ("--classes 2 --class-priority -1,0", "--class-priority"),
    ("--class-priority 1,0", "--class-priority"),
    ("--classes 2 --pattern random", "--classes"),
])
def test_bad_class_options_are_refused_in_one_line(args, named):
    result = CliRunner().invoke(app, ["run", "--topology", "mesh", "--k", "3", *args.split()])
    assert result.exit_code == 2
    assert named in result.output and "Traceback" not in result.output


def test_trace_keeps_each_packets_class_and_plots_per_class(tmp_path):
    from netsim_fast.plots import plot_path
    from netsim_fast.trace import open_trace

    trace = tmp_path / "run.h5"
    out = run_json(f"--topology mesh --k 3 --rate 0.3 --warmup 200 --measure 800 --classes 2 --class-mix 1,3 "
                   f"--class-priority 1,0 --trace {trace}")
    tr = open_trace(trace)
    assert tr.schema_version == 6 and tr.config["classes"] == 2 and tr.config["class_priority"] == "1,0"
    pk = tr.arrays("packets")
    window = (pk["created_cycle"] >= 200) & (pk["created_cycle"] < 1000)
    assert [int((window & (pk["class"] == c)).sum()) for c in (0, 1)] == [c["packets"] for c in out["per_class"]]
    assert tr.summary["per_class"] == out["per_class"]
    assert plot_path(trace, out=tmp_path / "run.png").stat().st_size > 0


def test_report_booksim_prints_a_block_per_class_and_seeds_average_per_class():
    args = "run --topology mesh --k 3 --rate 0.3 --warmup 200 --measure 800 --classes 2 --class-priority 1,0 --quiet"
    out = run_json(args[4:] + " --seeds 2")
    assert [c["class"] for c in out["per_class"]] == [0, 1] and [c["priority"] for c in out["per_class"]] == [1, 0]
    seeds = [s["per_class"][1]["latency_mean"] for s in out["per_seed"]]
    assert out["per_class"][1]["latency_mean"] == pytest.approx(sum(seeds) / 2)
    report = CliRunner().invoke(app, [*args.split(), "--seeds", "2", "--report", "booksim"])
    assert report.exit_code == 0, report.output
    lines = report.stdout.splitlines()
    assert [line for line in lines if line.startswith("======")] == [
        "====== Overall Traffic Statistics ======", "====== Traffic class 0 ======", "====== Traffic class 1 ======"]
    first = lines.index("====== Traffic class 1 ======") + 1
    mean = sum(s["per_class"][1]["booksim_stats"]["packet_latency"]["average"] for s in out["per_seed"]) / 2
    assert lines[first] == f"Packet latency average = {mean:g} (2 samples)"


def test_booksim_control_is_per_class_like_booksim2():
    # BookSim2 on this file aborts with "Average latency for class 1 exceeded 500 cycles": the
    # starved low class passes the limit while the high class stays far below it (an estimate
    # over all packets would not have passed it yet)
    from pathlib import Path

    case = Path(__file__).parent / "booksim_cases" / "classes_mesh44.cfg"
    result = CliRunner().invoke(app, ["run", "--booksim-config", str(case), "injection_rate={0.14,0.08}", "--json",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    control = json.loads(result.stdout)["booksim_control"]
    assert control["unstable"] and "of class 1 exceeded --latency-limit 500" in control["unstable_reason"]
    high, low = control["periods"][-1]["latency_estimate"]
    assert low > 500 and high < 125


def test_a_sweep_row_has_a_column_per_class_figure():
    from netsim_fast.sweep.table import make_row

    summary = run_json("--topology mesh --k 3 --rate 0.2 --warmup 200 --measure 800 --classes 2 --class-priority 1,0")
    row = make_row(point_id="p", repeat=0, config=Config(topology="mesh", k=3, classes=2).to_dict(), metrics=summary,
                   worker="w", wall_seconds=0.0, status="ok", error=None)
    assert "per_class" not in row and row["classes"] == 2
    assert row["class1_latency_mean"] == summary["per_class"][1]["latency_mean"]
    assert row["class0_priority"] == 1 and row["class0_packets"] + row["class1_packets"] == summary["packets"]


RETIRING = {
    "lanes": dict(router="lanes", rate=0.9, warmup=500, measure=2000, sample_period=300),
    "iq, rr": dict(router="iq", vc_alloc="rr", rate=0.6, warmup=500, measure=2000),
    "booksim, class priority": dict(router="booksim", routing="dim_order", priority="class", rate=0.5,
                                    measurement="booksim", sample_period=300),
}


@pytest.mark.parametrize("case", sorted(RETIRING))
def test_retiring_packets_moves_their_classes_with_them(case, monkeypatch):
    from tests.test_flit_retire import assert_retiring_changes_nothing

    cfg = Config(topology="torus", k=4, vcs=2, buf=4, packet_flits=2, seed=3, classes=3, class_mix=(1, 2, 1),
                 class_priority=(0, 2, 1), **RETIRING[case])
    assert_retiring_changes_nothing(cfg, monkeypatch)


def test_a_batch_counts_every_class_of_a_node_and_reports_each_class_completion():
    """--batch B with classes: each node's first B packets of the open-loop multi-class run (B
    over all its classes, as BookSim2's per-node count), a class's completion is its last tail."""
    from netsim_fast.experiment import simulate
    from netsim_fast.workloads.classes import packet_classes
    from netsim_fast.workloads.synthetic import batch_packets, traffic_of

    base = dict(topology="mesh", k=4, batch=60, rate=4.0, seed=5, classes=2, class_mix=(0.5, 0.5))  # half a packet a cycle
    cfg = Config(**base, class_priority=(1, 0))
    packets = batch_packets(traffic_of(cfg, build_topology(cfg)), cfg.batch, lambda c, k: packet_classes(cfg, c, k))
    assert np.array_equal(np.bincount(packets.src, minlength=16), [60] * 16)
    plain = batch_packets(traffic_of(cfg, build_topology(cfg)), cfg.batch)  # the same packets, without classes
    assert np.array_equal(plain.release, packets.release) and np.array_equal(plain.dst, packets.dst)
    assert 0.4 < packets.cls.mean() < 0.6
    strict = simulate(cfg)
    classes = strict["per_class"]
    assert [c["packets"] for c in classes] == np.bincount(packets.cls).tolist()
    assert sum(c["packets_delivered"] for c in classes) == strict["packets"] == 16 * 60
    assert max(c["completion_cycles"] for c in classes) == strict["completion_cycles"]
    # past saturation the high class goes first: it completes well before the low one, and waits less
    assert classes[0]["completion_cycles"] < 0.8 * classes[1]["completion_cycles"]
    assert classes[0]["latency_mean"] < classes[1]["latency_mean"]
    equal = simulate(Config(**base))["per_class"]
    assert abs(equal[0]["completion_cycles"] - equal[1]["completion_cycles"]) < 0.1 * equal[1]["completion_cycles"]


def test_booksim_config_batch_with_classes_is_refused(tmp_path):
    path = tmp_path / "b.cfg"
    path.write_text("topology = mesh;\nk = 4;\nn = 2;\nrouting_function = dim_order;\nclasses = 2;\n"
                    "sim_type = batch;\nbatch_size = 10;\n")
    result = CliRunner().invoke(app, ["run", "--booksim-config", str(path)])
    assert result.exit_code == 2 and "classes=2" in result.output and "--class-mix" in result.output
