"""`netsim-fast run --pattern gossip-*`, and finite workloads on the flit engine."""

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app

runner = CliRunner()

GOSSIP_CONTRACT = ("steps", "theorem_steps", "lower_bound_steps", "packets_per_pu")


def run_json(*args):
    res = runner.invoke(app, ["run", *args, "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def packet_torus(dims, *args):
    return run_json("--engine", "packet", "--topology", "torus", "--dims", dims, *args)


def lower_bound(dims, k):
    p = math.prod(dims)
    return math.ceil(k * (p - 1) / (2 * len(dims)))


def test_gossip_one_reports_steps_beside_theorem_5_and_the_bounds():
    out = packet_torus("8,8", "--pattern", "gossip-one")
    for key in GOSSIP_CONTRACT:
        assert key in out, key
    # Theorem 5: P/4 + n1/2 + 1 = 21; Theorem 1: ceil(11 P / 40 - 1) = 17
    assert (out["steps"], out["theorem_steps"], out["lower_bound_steps"]) == (20, 21, lower_bound((8, 8), 1))
    assert out["theorem1_bound"] == 17 and out["packets_per_pu"] == 1
    assert out["cycles"] == out["completion_cycles"] == out["steps"]


def test_gossip_ham_meets_theorem_3_and_time_independent_variant_has_no_theorem():
    out = packet_torus("6,7", "--pattern", "gossip-ham")
    assert out["steps"] == out["theorem_steps"] == 21 == lower_bound((6, 7), 2)
    ti = packet_torus("6,7", "--pattern", "gossip-ham", "--time-independent")
    assert ti["packets_per_pu"] == 4 and ti["theorem_steps"] is None
    assert ti["lower_bound_steps"] == lower_bound((6, 7), 4) <= ti["steps"]
    assert ti["time_independent"] is True


def test_gossip_naive_on_the_packet_engine_reports_the_same_bounds():
    out = packet_torus("4,5", "--pattern", "gossip-naive")
    for key in GOSSIP_CONTRACT:
        assert key in out, key
    assert out["theorem_steps"] is None and out["packets_per_pu"] == 1
    assert out["packets"] == out["packets_delivered"] == 20 * 19
    assert out["steps"] == out["cycles"] >= out["lower_bound_steps"] == lower_bound((4, 5), 1)


def test_gossip_naive_on_the_flit_engine_completes_and_equals_total_exchange():
    naive = run_json("--topology", "torus", "--dims", "4,4", "--pattern", "gossip-naive", "--packet-flits", "2")
    te = run_json("--topology", "torus", "--dims", "4,4", "--pattern", "total-exchange", "--packet-flits", "2")
    assert naive["packets"] == naive["packets_delivered"] == 16 * 15
    assert naive["lower_bound_cycles"] == 2 * lower_bound((4, 4), 1)
    assert naive["completion_cycles"] >= naive["lower_bound_cycles"]
    # the same messages in the same per-source (shift) order: the same flit run
    assert te["completion_cycles"] == naive["completion_cycles"]
    assert te["latency_mean"] == naive["latency_mean"]


def test_random_messages_complete_on_the_flit_engine():
    out = run_json("--topology", "torus", "--dims", "4,4", "--pattern", "random", "--messages", "3", "--packet-flits", "4")
    assert out["packets"] == out["packets_delivered"] == 48
    assert out["completion_cycles"] is not None and out["messages_per_node"] == 3


def test_gossip_trace_has_one_row_per_step(tmp_path):
    import netsim_fast as nf

    path = tmp_path / "g.h5"
    out = packet_torus("8,8", "--pattern", "gossip-one", "--trace", str(path))
    tr = nf.open_trace(path)
    ts = tr.arrays("timeseries")
    assert tr.engine == "gossip" and tr.window_cycles == 1
    assert ts["cycle"].size == out["steps"]
    assert ts["active_links"].max() <= 256  # 8x8 torus: 4 directed links per PU
    assert ts["active_links"].sum() / (256 * out["steps"]) == pytest.approx(out["mean_link_utilisation"])
    assert tr.arrays("packets")["src"].size == 0 and tr.summary["steps"] == 20


def test_flit_finite_trace_round_trips(tmp_path):
    import netsim_fast as nf

    path = tmp_path / "f.h5"
    out = run_json("--topology", "torus", "--dims", "4,4", "--pattern", "gossip-naive", "--packet-flits", "2",
                   "--trace", str(path))
    pk = nf.open_trace(path).arrays("packets")
    assert pk["src"].size == 240 and np.all(pk["tail_arrival_cycle"] >= 0)
    assert pk["tail_arrival_cycle"].max() == out["completion_cycles"]


def test_gossip_table_output():
    res = runner.invoke(app, ["run", "--engine", "packet", "--topology", "torus", "--dims", "8,8", "--pattern", "gossip-one"])
    assert res.exit_code == 0, res.output
    assert "steps (simulated)" in res.stdout and "Theorem 5" in res.stdout


@pytest.mark.parametrize("args,needle", [
    (("--topology", "torus", "--dims", "8,8", "--pattern", "gossip-one"), "pass --engine packet"),
    (("--engine", "packet", "--topology", "rrg", "--nodes", "16", "--degree", "4", "--pattern", "gossip-one"), "full-port torus"),
    (("--engine", "packet", "--topology", "torus", "--dims", "2,4", "--pattern", "gossip-naive"), "radix >= 3"),
    (("--engine", "packet", "--topology", "torus", "--dims", "4,4", "--pattern", "gossip-naive", "--time-independent"), "gossip-ham and gossip-one only"),
    (("--engine", "packet", "--topology", "torus", "--dims", "8,8", "--pattern", "gossip-one", "--policy", "lrpf"), "forwarding rules"),
    (("--engine", "packet", "--topology", "torus", "--dims", "8,8", "--pattern", "gossip-one", "--routing", "dor"), "forwarding rules"),
    (("--engine", "packet", "--topology", "torus", "--dims", "8,8", "--pattern", "gossip-one", "--window", "4"), "--window 4"),
    (("--engine", "packet", "--topology", "torus", "--dims", "4,4,4", "--pattern", "gossip-ham"), "2-D"),
    (("--engine", "packet", "--topology", "torus", "--dims", "8,8", "--pattern", "gossip-won"), "did you mean 'gossip-one'"),
])
def test_invalid_gossip_input_exits_2_with_one_line(args, needle):
    res = runner.invoke(app, ["run", *args, "--quiet"])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr


def test_sync_gates_the_shift_steps_of_total_exchange_on_the_flit_engine(tmp_path):
    import netsim_fast as nf

    cycles = {}
    for sync in ("none", "local", "global"):
        path = tmp_path / f"{sync}.h5"
        out = run_json("--topology", "torus", "--dims", "4,4", "--pattern", "total-exchange", "--packet-flits", "2",
                       "--sync", sync, "--trace", str(path))
        cycles[sync] = out["completion_cycles"]
    pk = nf.open_trace(tmp_path / "global.h5").arrays("packets")
    step = (pk["dst"] - pk["src"]) % 16  # message u -> u + s belongs to step s
    for s in range(2, 16):  # global: no step starts before the previous one is delivered
        assert pk["injected_cycle"][step == s].min() >= pk["tail_arrival_cycle"][step == s - 1].max()
    assert cycles["none"] <= cycles["local"] <= cycles["global"]


@pytest.mark.parametrize("args,needle", [
    (("--pattern", "random", "--sync", "global"), "has none"),
    (("--pattern", "uniform", "--sync", "local"), "open-loop"),
    (("--pattern", "total-exchange", "--sync", "globl"), "did you mean 'global'"),
    (("--engine", "packet", "--pattern", "total-exchange", "--sync", "global"), "flit engine only"),
])
def test_invalid_sync_exits_2(args, needle):
    res = runner.invoke(app, ["run", "--topology", "torus", "--dims", "4,4", *args, "--quiet"])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr
