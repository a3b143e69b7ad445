"""`netsim-fast model rrg`: the prediction's contract keys, --compare against the packet engine."""

import json
import math

import pytest
from typer.testing import CliRunner

from netsim_fast.analytic.rrg_model import predict
from netsim_fast.cli import app

runner = CliRunner()


def model_json(*args):
    res = runner.invoke(app, ["model", "rrg", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_model_rrg_prints_the_contract_keys_of_the_prediction():
    out = model_json("--nodes", "64", "--degree", "4", "--messages", "2", "--policy", "lrpf")
    for key in ("cycles", "average_distance", "distance_distribution", "diameter_estimate", "diameter_tolerance"):
        assert key in out, key
    ref = predict(64, 4, 2, policy="lrpf")
    assert out["cycles"] == ref["cycles"] and out["diameter_estimate"] == ref["diameter_estimate"]
    assert out["diameter_tolerance"] == 1e-6
    dist = out["distance_distribution"]
    assert dist[0] == pytest.approx(1.0)  # counts, as in `topo`: the source itself at distance 0
    assert sum(dist) == pytest.approx(64, rel=1e-6)
    assert out["total_messages"] == 128


def test_tolerance_option_moves_the_diameter_estimate():
    loose = model_json("--nodes", "1024", "--degree", "4", "--tolerance", "0.01")
    tight = model_json("--nodes", "1024", "--degree", "4")
    assert loose["diameter_tolerance"] == 0.01
    assert loose["diameter_estimate"] < tight["diameter_estimate"]


def test_total_exchange_prediction_sends_every_pair():
    out = model_json("--nodes", "32", "--degree", "4", "--pattern", "total-exchange", "--policy", "srpf")
    assert out["total_messages"] == 32 * 31 and out["workload"] == "total-exchange"
    assert out["cycles"] == predict(32, 4, policy="srpf", workload="total-exchange")["cycles"]


def test_compare_adds_the_simulated_mean_and_spread_of_run_over_seeded_graphs():
    out = model_json("--nodes", "32", "--degree", "4", "--messages", "2", "--policy", "fifo",
                     "--compare", "--graphs", "3", "--seed", "7")
    assert out["graphs"] == 3 and len(out["sim_cycles"]) == 3
    runs = []
    for seed in (7, 8, 9):  # graph g is `run --seed S+g`
        res = runner.invoke(app, ["run", "--engine", "packet", "--topology", "rrg", "--nodes", "32", "--degree", "4",
                                  "--seed", str(seed), "--pattern", "random", "--messages", "2", "--json", "--quiet"])
        runs.append(json.loads(res.stdout)["cycles"])
    assert out["sim_cycles"] == runs
    mean = sum(runs) / 3
    assert out["sim_cycles_mean"] == pytest.approx(mean)
    assert out["sim_cycles_std"] == pytest.approx(math.sqrt(sum((c - mean) ** 2 for c in runs) / 2))
    assert out["cycles"] == predict(32, 4, 2)["cycles"]


def test_average_distance_follows_the_topo_convention():
    sim = model_json("--nodes", "32", "--degree", "4", "--compare", "--graphs", "1", "--seed", "3")
    res = runner.invoke(app, ["topo", "--topology", "rrg", "--nodes", "32", "--degree", "4", "--seed", "3", "--json"])
    measured = json.loads(res.stdout)["average_distance"]
    assert sim["sim_average_distance"] == pytest.approx(measured)
    # the model's figure uses the same convention: its own distribution without the source
    dist = sim["distance_distribution"]
    assert sim["average_distance"] == pytest.approx(
        sum(i * c for i, c in enumerate(dist)) / sum(dist[1:]), rel=1e-6)


def test_embedding_is_predicted_with_two_messages_per_node():
    out = model_json("--nodes", "64", "--degree", "4", "--pattern", "embed-debruijn")
    assert out["workload"] == "embed-debruijn" and out["total_messages"] == 128


def test_model_table_shows_model_beside_simulation():
    res = runner.invoke(app, ["model", "rrg", "--nodes", "32", "--degree", "4", "--compare", "--graphs", "2"])
    assert res.exit_code == 0, res.output
    assert "model" in res.stdout and "2 graphs" in res.stdout and "busiest link" in res.stdout


@pytest.mark.parametrize("args,needle", [
    (("--nodes", "64", "--degree", "4", "--policy", "random"), "has no model"),
    (("--nodes", "64", "--degree", "4", "--policy", "lifo"), "--policy lifo"),
    (("--nodes", "64", "--degree", "4", "--graphs", "3"), "with --compare only"),
    (("--nodes", "64", "--degree", "4", "--seed", "3"), "with --compare only"),
    (("--nodes", "64", "--degree", "4", "--compare", "--graphs", "0"), "--graphs 0"),
    (("--nodes", "64", "--degree", "4", "--tolerance", "1.5"), "--tolerance 1.5"),
    (("--nodes", "64", "--degree", "4", "--pattern", "permutation"), "--pattern permutation"),
    (("--nodes", "63", "--degree", "3"), "N*r even"),
    (("--degree", "4",), "needs --nodes"),
    (("--nodes", "64", "--degree", "4", "--pattern", "total-exchange", "--messages", "2"), "--pattern random only"),
    (("--nodes", "48", "--degree", "4", "--pattern", "embed-debruijn"), "power of --base 2"),
    (("--nodes", "64", "--degree", "4", "--messages", "0"), "--messages 0"),
])
def test_invalid_model_input_exits_2_with_one_line(args, needle):
    res = runner.invoke(app, ["model", "rrg", *args])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr
