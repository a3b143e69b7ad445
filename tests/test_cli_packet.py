"""`netsim-fast run --engine packet`: contract keys, the engine behind them, traces, bad input."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.packet.run import simulate_packets
from netsim_fast.topologies import random_regular, torus
from netsim_fast.workloads import messages as wm

runner = CliRunner()

RRG = ("--engine", "packet", "--topology", "rrg", "--nodes", "32", "--degree", "4", "--seed", "3")
CONTRACT = ("cycles", "completion_cycles", "packets", "max_queue", "latency_mean", "packet_hops", "sim_seconds")


def run_json(*args):
    res = runner.invoke(app, ["run", *args, "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def one_error_line(res) -> str:
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.output
    return lines[0]


@pytest.mark.parametrize("pattern,extra,packets", [
    ("random", ("--messages", "3"), 32 * 3),
    ("total-exchange", (), 32 * 31),
    ("embed-debruijn", (), 2 * 32 - 2),  # the binary de Bruijn graph's two self-loops send nothing
    ("permutation", (), 32),
])
def test_packet_run_prints_the_contract_keys(pattern, extra, packets):
    out = run_json(*RRG, "--pattern", pattern, *extra, "--policy", "lrpf")
    for key in CONTRACT:
        assert key in out, key
    assert out["cycles"] == out["completion_cycles"] >= 1
    assert out["packets"] == out["packets_delivered"] == packets
    assert out["engine"] == "packet" and out["policy"] == "lrpf" and out["routing"] == "minimal"
    # one packet per link per cycle: the busiest link bounds the run from below
    assert out["max_link_load"] <= out["cycles"]
    assert out["latency_max"] <= out["cycles"]


@pytest.mark.parametrize("options,kwargs", [
    ((), {}),
    (("--policy", "srpf", "--path-choice", "random"), {"policy": "srpf", "path_choice": "random"}),
    (("--one-port", "--policy", "random"), {"one_port": True, "policy": "random"}),
    (("--queue-capacity", "2"), {"queue_capacity": 2}),
])
def test_packet_run_passes_its_options_to_the_engine(options, kwargs):
    out = run_json(*RRG, "--pattern", "random", "--messages", "4", *options)
    topo = random_regular(32, 4, 3)
    msgs = wm.random_messages(32, 4, np.random.default_rng(3))
    ref = simulate_packets(topo, msgs, seed=3, **kwargs)
    assert (out["cycles"], out["max_queue"], out["packet_hops"]) == (ref.cycles, ref.max_queue, ref.packet_hops)
    assert out["latency_mean"] == pytest.approx(ref.latency_mean)


def test_packet_run_is_graph_0_of_model_compare():
    from netsim_fast.studies.rrg_compare import compare_rrg

    out = run_json(*RRG, "--pattern", "random", "--messages", "2", "--policy", "srpf")
    ref = compare_rrg(32, 4, 2, policy="srpf", graphs=1, seed=3)
    assert out["cycles"] == ref["sim_cycles"][0]


def test_packet_default_pattern_is_random_and_default_routing_minimal_even_on_a_torus():
    cfg = Config(engine="packet", topology="torus", k=4)
    assert (cfg.pattern, cfg.routing, cfg.policy, cfg.path_choice, cfg.queue_capacity, cfg.messages) == \
        ("random", "minimal", "fifo", "fixed", 0, 1)
    assert cfg.packet_flits is None and cfg.drain is None
    flit = Config(topology="torus", k=4)
    assert (flit.pattern, flit.routing, flit.policy, flit.messages) == ("uniform", "dor", None, None)


@pytest.mark.parametrize("kwargs", [
    dict(engine="packet", topology="rrg", nodes=16, degree=3, pattern="random", messages=2, policy="lrpf"),
    dict(engine="packet", topology="torus", dims="4,4", pattern="embed-debruijn", base=2),
    dict(engine="packet", topology="torus", dims="8,8", pattern="gossip-one", time_independent=True),
    dict(topology="torus", dims="4,4", pattern="total-exchange", packet_flits=2),
])
def test_config_round_trips_through_its_dict(kwargs):
    cfg = Config(**kwargs)
    assert Config.from_dict(cfg.to_dict()) == cfg


def test_dor_on_the_packet_engine_is_minimal_with_one_port_per_step():
    minimal = run_json("--engine", "packet", "--topology", "torus", "--dims", "4,6", "--pattern", "total-exchange")
    dor = run_json("--engine", "packet", "--topology", "torus", "--dims", "4,6", "--pattern", "total-exchange",
                   "--routing", "dor")
    assert dor["routing"] == "dor"
    assert dor["packet_hops"] == minimal["packet_hops"]  # both take shortest paths


def test_messages_file_runs_with_its_release_cycles(tmp_path):
    path = tmp_path / "msgs.csv"
    path.write_text("src,dst,release_cycle\n0 5\n1 6 3   # late\n2,7,10\n")
    out = run_json("--engine", "packet", "--topology", "torus", "--dims", "4,4", "--pattern", "file",
                   "--messages-file", str(path), "--trace", str(tmp_path / "f.h5"))
    assert out["packets"] == 3
    import netsim_fast as nf

    tr = nf.open_trace(tmp_path / "f.h5")
    pk = tr.arrays("packets")
    assert pk["created_cycle"].tolist() == [0, 3, 10]
    assert out["cycles"] == pk["tail_arrival_cycle"].max() >= 11


def test_packet_trace_round_trips_in_the_common_schema(tmp_path):
    import netsim_fast as nf

    path = tmp_path / "run.h5"
    out = run_json(*RRG, "--pattern", "random", "--messages", "8", "--window", "3", "--trace", str(path))
    tr = nf.open_trace(path)
    assert tr.engine == "packet" and tr.window_cycles == 3
    pk, ts, links = tr.arrays("packets"), tr.arrays("timeseries"), tr.arrays("links")
    assert pk["src"].size == out["packets"] == 256
    assert np.all(pk["size_flits"] == 1)
    assert np.array_equal(pk["head_arrival_cycle"], pk["tail_arrival_cycle"])
    assert pk["tail_arrival_cycle"].max() == out["cycles"]
    assert (pk["tail_arrival_cycle"] - pk["created_cycle"]).mean() == pytest.approx(out["latency_mean"])
    assert ts["cycle"].tolist() == list(range(0, out["cycles"], 3))
    assert ts["accepted_flits"].sum() == ts["injected_flits"].sum() == 256
    assert ts["in_flight"][0] == 256  # every packet is queued in cycle 0
    assert links["flits"].sum() == out["packet_hops"] == pk["hops"].sum()
    assert links["flits"].max() == out["max_link_load"]
    assert (ts["active_links"] * 3).sum() == pytest.approx(out["packet_hops"])
    assert tr.summary["max_queue"] == out["max_queue"] and "sim_seconds" not in tr.summary
    assert "sim_seconds" in tr.timing
    again = nf.simulate(Config.from_dict(tr.config))  # the stored config reruns the same run
    assert again["cycles"] == out["cycles"] and again["packet_hops"] == out["packet_hops"]


def test_bounded_queues_that_deadlock_exit_1_with_the_summary_and_the_trace(tmp_path):
    import netsim_fast as nf

    path = tmp_path / "dead.h5"
    res = runner.invoke(app, ["run", "--engine", "packet", "--topology", "torus", "--dims", "6",
                              "--pattern", "total-exchange", "--queue-capacity", "1", "--deadlock-cycles", "5",
                              "--json", "--quiet", "--trace", str(path)])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert out["deadlock"] is True and out["completion_cycles"] is None
    assert out["packets_delivered"] < out["packets"]
    assert "deadlock" in one_error_line(res)
    assert nf.open_trace(path).summary["status"] == "deadlock"


def test_a_cycle_limit_returns_a_partial_result():
    out = run_json(*RRG, "--pattern", "total-exchange", "--cycles", "5")
    assert out["status"] == "max_cycles" and out["completion_cycles"] is None
    assert out["cycles"] == 5 and out["packets_delivered"] < out["packets"]


def test_packet_table_output():
    res = runner.invoke(app, ["run", *RRG, "--pattern", "random", "--messages", "2", "--quiet"])
    assert res.exit_code == 0, res.output
    assert "cycles to deliver everything" in res.stdout and "max queue" in res.stdout


def test_simulate_can_be_called_twice_through_the_package():
    import netsim_fast as nf

    cfg = Config(engine="packet", topology="ring", nodes=8)
    assert nf.simulate(cfg)["cycles"] == nf.simulate(cfg)["cycles"]


@pytest.mark.parametrize("args,needle", [
    (("--policy", "lrfp"), "did you mean 'lrpf'"),
    (("--path-choice", "rnd"), "--path-choice rnd"),
    (("--messages", "0"), "--messages 0"),
    (("--queue-capacity", "-1"), "--queue-capacity -1"),
    (("--router", "iq"), "flit engine only"),
    (("--packet-flits", "4"), "flit engine only"),
    (("--rate", "0.3"), "open-loop patterns only"),
    (("--pattern", "uniform"), "open-loop traffic of the flit engine"),
    (("--pattern", "total-exchange", "--messages", "3"), "--pattern random only"),
    (("--pattern", "file"), "needs --messages-file"),
    (("--pattern", "file", "--messages-file", "/nonexistent/m.txt"), "no such file"),
    (("--pattern", "embed-debruijn", "--nodes", "24"), "power of --base 2"),
    (("--pattern", "random", "--base", "3"), "does not apply to --topology rrg"),
    (("--pattern", "random", "--time-independent"), "gossip-ham and gossip-one only"),
    (("--routing", "duato"), "--routing duato"),
    (("--engine", "packt"), "did you mean 'packet'"),
])
def test_invalid_packet_input_exits_2_with_one_line(args, needle):
    base = dict(zip(RRG[::2], RRG[1::2]))
    for flag in args[::2]:
        base.pop(flag, None)
    argv = [x for kv in base.items() for x in kv] + list(args)
    res = runner.invoke(app, ["run", *argv, "--quiet"])
    assert res.exit_code == 2, res.output
    assert needle in one_error_line(res)


@pytest.mark.parametrize("args,needle", [
    (("--topology", "torus", "--k", "4", "--policy", "lrpf"), "packet engine only"),
    (("--topology", "torus", "--k", "4", "--queue-capacity", "4"), "packet engine only"),
    (("--topology", "torus", "--k", "4", "--pattern", "random", "--sweep-rates", "0.1,0.2"), "finite workload"),
    (("--topology", "torus", "--k", "4", "--pattern", "random", "--warmup", "10"), "open-loop patterns only"),
    (("--topology", "torus", "--k", "4", "--messages", "2"), "open-loop --pattern uniform"),
])
def test_packet_options_on_the_flit_engine_exit_2(args, needle):
    res = runner.invoke(app, ["run", *args, "--quiet"])
    assert res.exit_code == 2, res.output
    assert needle in one_error_line(res)


def test_errors_found_while_reading_the_messages_file_exit_2(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("0 1\n2 99\n")
    res = runner.invoke(app, ["run", "--engine", "packet", "--topology", "torus", "--dims", "4,4",
                              "--pattern", "file", "--messages-file", str(path), "--quiet"])
    assert res.exit_code == 2
    assert "bad.txt:2" in one_error_line(res)

