"""`netsim-fast params`: the JSON contract on a 4x4 torus with both engines, and bad input."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app

runner = CliRunner()
CONTRACT = ("g", "ell", "L", "G", "o", "fit_r2_bsp", "fit_r2_logp", "p")


@pytest.mark.parametrize("engine", ["flit", "packet"])
def test_params_json_has_the_contract_keys(engine):
    res = runner.invoke(app, ["params", "--topology", "torus", "--k", "4", "--engine", engine,
                              "--h", "1,2,4", "--pairs", "8", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for key in CONTRACT:
        assert out[key] is not None, key
    assert "l" not in out  # 'ell', so that case-insensitive tools do not confuse it with L
    assert out["p"] == 16 and out["o"] == 0 and out["engine"] == engine
    assert out["packet_flits"] == (8 if engine == "flit" else None)
    assert out["g"] > 0 and out["L"] >= out["diameter"] and out["G"] > 0
    assert -1e9 < out["fit_r2_logp"] <= 1 and 0 < out["fit_r2_bsp"] <= 1
    assert out["h"] == [1, 2, 4] and len(out["superstep_cycles"]) == 3


def test_params_overhead_and_packet_size_change_the_times():
    base = ["params", "--k", "4", "--h", "1,4", "--pairs", "4", "--json"]
    plain = json.loads(runner.invoke(app, base).stdout)
    slow = json.loads(runner.invoke(app, [*base, "--o", "3", "--packet-flits", "2"]).stdout)
    assert slow["o"] == 3 and slow["packet_flits"] == 2
    assert slow["ell_barrier"] > plain["ell_barrier"]  # 2o more per barrier hop
    assert slow["L"] < plain["L"]  # L excludes o; 2-flit messages are shorter


def test_params_prints_a_table_without_json():
    res = runner.invoke(app, ["params", "--engine", "packet", "--k", "4", "--h", "1,2", "--pairs", "4", "--quiet"])
    assert res.exit_code == 0, res.output
    assert "ell" in res.output and "fit r2 (BSP)" in res.output


def test_params_flit_engine_on_a_random_regular_graph_needs_vcs_for_every_hop():
    # Table routing gives each hop its own VC class: --vcs must reach the longest route.
    base = ["params", "--topology", "rrg", "--nodes", "16", "--degree", "4", "--h", "1,2", "--pairs", "4"]
    short = runner.invoke(app, [*base, "--vcs", "1"])
    assert short.exit_code == 2 and "--vcs 1" in short.output and "pass --vcs" in short.output
    longest = int(short.output.split("pass --vcs ")[1].split()[0])
    res = runner.invoke(app, [*base, "--vcs", str(longest), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["engine"] == "flit" and out["routing"] == "minimal" and out["diameter"] == longest
    assert out["g"] > 0 and out["L"] >= out["diameter"]


@pytest.mark.parametrize("args,word", [
    (["--o", "-1"], "--o -1"),
    (["--h", "4"], "two distinct"),
    (["--h", "0,4"], "--h 0,4"),
    (["--h", "1,x"], "integers"),
    (["--reps", "0"], "--reps 0"),
    (["--engine", "bogus"], "--engine bogus"),
    (["--engine", "packet", "--packet-flits", "4"], "--packet-flits 4"),
    (["--engine", "packet", "--vcs", "6"], "--vcs 6"),
    (["--topology", "torrus"], "did you mean"),
])
def test_params_bad_input_exits_2_with_one_line(args, word):
    res = runner.invoke(app, ["params", "--k", "4", *args])
    assert res.exit_code == 2, res.output
    assert word in res.output
    assert len(res.output.strip().splitlines()) == 1
