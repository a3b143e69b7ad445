"""`netsim-fast run` (flit engine): the JSON contract, traces, deadlock and input errors."""

import json

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

import netsim_fast
from netsim_fast.cli import app

runner = CliRunner()
SMALL = ["--topology", "torus", "--k", "4", "--warmup", "200", "--measure", "600"]


def invoke(*args):
    return runner.invoke(app, list(args))


CONTRACT = ("cycles", "completion_cycles", "offered_load", "accepted_load", "capacity_fraction", "latency_mean",
            "latency_p99", "hops_mean", "saturated", "deadlock", "flit_hops", "sim_seconds", "compile_seconds")


def test_run_json_has_every_contract_key_with_sane_values():
    res = invoke("run", *SMALL, "--routing", "duato", "--rate", "0.2", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in CONTRACT:
        assert key in data
    assert data["completion_cycles"] is None and data["deadlock"] is False and data["saturated"] is False
    assert data["capacity"] == pytest.approx(2.0)  # 8/k for k = 4
    assert 0.15 < data["offered_load"] < 0.25 and data["accepted_load"] == pytest.approx(data["offered_load"], rel=0.1)
    assert data["latency_mean"] >= 3 * 1 + 8 + 2  # at least one hop of zero-load latency
    assert data["flit_hops"] > 0


def test_saturation_is_reported_and_latency_is_null():
    res = invoke("run", *SMALL, "--rate", "1.0", "--drain", "300", "--json")
    data = json.loads(res.stdout)
    assert data["saturated"] is True and data["latency_mean"] is None and data["latency_histogram"] is None
    assert data["accepted_load"] < 0.95 * data["offered_load"]


def test_cycles_runs_exactly_that_long():
    data = json.loads(invoke("run", *SMALL, "--cycles", "777", "--json").stdout)
    assert data["cycles"] == 777


def test_trace_round_trips_through_open_trace(tmp_path):
    path = tmp_path / "run.h5"
    res = invoke("run", *SMALL, "--rate", "0.2", "--trace", str(path), "--quiet")
    assert res.exit_code == 0, res.output
    assert not list(tmp_path.glob(".*tmp")), "no temporary file left behind"
    tr = netsim_fast.open_trace(path)
    assert tr.config["k"] is None and tr.config["dims"] == "4,4" and tr.engine == "flit"
    assert set(tr.packets.columns) >= {"src", "dst", "size_flits", "created_cycle", "injected_cycle",
                                       "head_arrival_cycle", "tail_arrival_cycle", "hops"}
    ts = tr.timeseries
    assert tr.window_cycles == 10 and ts["cycle"].iloc[1] == 10
    delivered_packets = int((tr.packets.tail_arrival_cycle >= 0).sum())
    assert ts["accepted_flits"].sum() >= 8 * delivered_packets  # every flit of a delivered packet
    assert ts["accepted_flits"].sum() <= ts["injected_flits"].sum()  # nothing delivered twice
    # schema 2: per-node traffic of the window, the source of the summary's fairness figures
    nodes, window = tr.nodes, tr.summary["measure_window"]
    assert tr.schema_version == 6 and len(nodes) == 16
    per_node = nodes["accepted"] / (window[1] - window[0])
    assert per_node.min() == pytest.approx(tr.summary["accepted_min"])
    assert per_node.max() == pytest.approx(tr.summary["accepted_max"])
    assert tr.summary["stop_reason"] == "completed" and tr.summary["completed"] is True
    assert (tr.links["flits"].sum()) == tr.summary["flit_hops"]
    assert "sim_seconds" in tr.timing and "sim_seconds" not in tr.summary


def test_traces_of_the_same_run_are_identical_except_timing(tmp_path):
    paths = [tmp_path / "a.h5", tmp_path / "b.h5"]
    for path in paths:
        invoke("run", *SMALL, "--rate", "0.3", "--seed", "5", "--trace", str(path), "--quiet")
    with h5py.File(paths[0]) as a, h5py.File(paths[1]) as b:
        config_a, config_b = json.loads(a.attrs["config"]), json.loads(b.attrs["config"])
        assert config_a.pop("trace") != config_b.pop("trace") and config_a == config_b
        assert a.attrs["summary"] == b.attrs["summary"]
        for group in ("packets", "timeseries", "links"):
            for name in a[group]:
                assert np.array_equal(a[group][name][()], b[group][name][()])


def test_deadlock_prints_the_whole_json_and_exits_1(tmp_path):
    # every node of a 5-ring sends three 16-flit worms two hops clockwise at once: without
    # datelines the ring's channels wait on each other
    worms = tmp_path / "worms.txt"
    worms.write_text("".join(f"{x} {(x + 2) % 5}\n" * 3 for x in range(5)))
    res = invoke("run", "--topology", "torus", "--dims", "5", "--routing", "dor-nodateline", "--vcs", "2",
                 "--buf", "2", "--out-buf", "1", "--packet-flits", "16", "--pattern", "file",
                 "--messages-file", str(worms), "--deadlock-cycles", "300", "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["deadlock"] is True and "deadlock at cycle" in data["error"]
    assert data["saturated"] is True and data["latency_mean"] is None  # the contract's bool, even here
    for key in CONTRACT:
        assert key in data
    assert "deadlock at cycle" in res.stderr


def test_sweep_rates_prints_curve_and_saturation(tmp_path):
    png = tmp_path / "curve.png"
    res = invoke("run", *SMALL, "--sweep-rates", "0.2,0.6,1.0", "--drain", "300", "--plot", str(png), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    rates = [p["rate"] for p in data["points"]]
    assert rates[0] == 0.2 and data["points"][-1]["saturated"] is True
    # the curve stops at its first saturated point; the throughput is the rate just below it
    assert all(not p["saturated"] for p in data["points"][:-1])
    assert data["saturation_rate"] == rates[-1]
    assert data["saturation_throughput"] == (rates[-2] if len(rates) > 1 else None)
    assert png.stat().st_size > 1000


def test_sweep_rates_without_a_saturated_point_reports_no_saturation_throughput():
    res = invoke("run", *SMALL, "--sweep-rates", "0.05,0.1", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["saturation_throughput"] is None
    assert data["saturation_note"] == "not saturated up to 0.1 flits/node/cycle"
    assert data["max_accepted"] == max(p["accepted_load"] for p in data["points"])


def test_sweep_rates_past_saturation_runs_every_rate():
    res = invoke("run", *SMALL, "--sweep-rates", "0.9,1.0", "--past-saturation", "--drain", "300", "--json")
    assert res.exit_code == 0, res.output
    assert [p["rate"] for p in json.loads(res.stdout)["points"]] == [0.9, 1.0]


def test_past_saturation_needs_sweep_rates():
    res = invoke("run", *SMALL, "--past-saturation")
    assert res.exit_code == 2 and "--past-saturation" in res.stderr


@pytest.mark.parametrize("args,needle", [
    (("--rate", "-0.1"), "--rate -0.1"),
    (("--rate", "9.5"), "--rate 9.5"),  # packets of 8 flits: at most 8 flits per node per cycle
    (("--routing", "duato", "--vcs", "2"), "--vcs 2"),
    (("--routing", "dor", "--vcs", "3"), "even number of VCs"),
    (("--switching", "vct", "--buf", "4"), "--buf 4"),
    (("--routing", "duatto"), "did you mean 'duato'"),
    (("--pattern", "tornadoo"), "did you mean 'tornado'"),
    (("--inject-vcs", "0,1"), "--inject-vcs 0,1"),
    (("--inject-vcs", "7"), "--inject-vcs 7"),
    (("--t-link", "0"), "--t-link 0"),
    (("--plot", "x.png"), "needs --sweep-rates"),
    (("--sweep-rates", "0.5:0.1:0.1"), "--sweep-rates"),
])
def test_bad_run_input_exits_2_with_one_line(args, needle):
    res = invoke("run", *SMALL, *args)
    assert res.exit_code == 2, res.output
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr


def test_routing_that_does_not_fit_the_topology_exits_2():
    res = invoke("run", "--topology", "rrg", "--nodes", "16", "--degree", "4", "--routing", "duato")
    assert res.exit_code == 2 and "does not fit --topology rrg" in res.stderr


def test_help_lists_the_contract_options_and_defaults():
    res = invoke("run", "--help")
    for opt in ("--engine", "--router", "--routing", "--switching", "--vcs", "--buf", "--packet-flits",
                "--packet-bytes", "--flit-bytes", "--pattern", "--rate", "--warmup", "--measure", "--cycles",
                "--seed", "--trace", "--json", "--quiet", "--inject-vcs", "--deadlock-cycles"):
        assert opt in res.stdout


def test_an_interrupted_run_prints_its_summary_and_exits_130(monkeypatch):
    import netsim_fast.experiment as experiment

    real = experiment.simulate

    def interrupted(cfg, progress=None, **kw):
        calls = []

        def stop(done, limit):
            calls.append(done)
            if len(calls) == 2:
                raise KeyboardInterrupt

        return real(cfg, progress=stop, **kw)

    monkeypatch.setattr(experiment, "simulate", interrupted)
    res = invoke("run", *SMALL, "--measure", "6000", "--json", "--quiet")
    assert res.exit_code == 130
    assert json.loads(res.stdout)["stop_reason"] == "interrupted"
    assert "interrupted at cycle" in res.stderr


def test_a_temporary_left_by_a_killed_writer_is_removed_by_the_next_run(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)  # a process that has exited
    stale = tmp_path / f".run.h5.{pid}.tmp"
    stale.write_bytes(b"half a trace")
    res = invoke("run", *SMALL, "--trace", str(tmp_path / "run.h5"), "--quiet")
    assert res.exit_code == 0, res.output
    assert not stale.exists() and (tmp_path / "run.h5").exists()
    assert not list(tmp_path.glob(".*tmp"))
