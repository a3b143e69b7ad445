"""`netsim-fast bmg overhead | route | proof`: JSON contract and bad input (exit 2, one line)."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["bmg", *args])


def test_overhead_json_has_the_contract_keys():
    res = run("overhead", "--routing", "bmg-cbe", "--nodes-from", "16", "--nodes-to", "64", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("avg_distance_overhead_pct_mean", "avg_distance_overhead_pct_max",
                "diameter_overhead_mean", "diameter_overhead_max", "optimal_sizes"):
        assert key in data
    assert data["measure"] == "estimate" and data["loops"] == 4 and data["sizes"] == 49
    assert 0 < data["optimal_sizes"] < 49


def test_overhead_of_equiclass_is_zero_and_every_size_is_optimal():
    res = run("overhead", "--routing", "bmg-equiclass", "--nodes-from", "16", "--nodes-to", "200",
              "--loops", "4", "--measure", "route", "--json")
    data = json.loads(res.stdout)
    assert data["avg_distance_overhead_pct_max"] == 0 and data["diameter_overhead_max"] == 0
    assert data["optimal_sizes"] == 185


def test_route_json_gives_the_path_and_hops():
    res = run("route", "--nodes", "100", "--src", "3", "--dst", "77", "--routing", "bmg-equiclass", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["path"][0] == 3 and data["path"][-1] == 77
    assert data["hops"] == len(data["path"]) - 1 == data["shortest_hops"] == 3


def test_route_table_output():
    res = run("route", "--nodes", "100", "--src", "3", "--dst", "77", "--routing", "chord")
    assert res.exit_code == 0
    assert "3 87 79 77" in res.stdout


def test_proof_json_reports_all_sizes_optimal():
    res = run("proof", "--nodes-from", "16", "--nodes-to", "100", "--json")
    data = json.loads(res.stdout)
    assert data["all_optimal"] is True and data["optimal_sizes"] == data["sizes"] == 85
    assert data["counterexamples"] == []


@pytest.mark.parametrize("args,needle", [
    (("route", "--nodes", "100", "--src", "0", "--dst", "5", "--routing", "bmg-equiclas"),
     "did you mean 'bmg-equiclass'"),
    (("overhead", "--routing", "cord", "--nodes-from", "16", "--nodes-to", "20"), "did you mean 'chord'"),
    (("route", "--nodes", "100", "--src", "100", "--dst", "5", "--routing", "chord"), "src must be a node id"),
    (("route", "--nodes", "100", "--src", "0", "--dst", "-1", "--routing", "chord"), "dst must be a node id"),
    (("route", "--nodes", "2", "--src", "0", "--dst", "1", "--routing", "chord"), "got 2"),
    (("overhead", "--routing", "chord", "--nodes-from", "2", "--nodes-to", "20"), "nodes-from"),
    (("overhead", "--routing", "chord", "--nodes-from", "30", "--nodes-to", "20"), "nodes-to must be >="),
    (("overhead", "--routing", "chord", "--nodes-from", "16", "--nodes-to", "20", "--measure", "estimate"),
     "use --measure route"),
    (("overhead", "--routing", "bmg-cbe", "--nodes-from", "16", "--nodes-to", "20", "--measure", "exact"),
     "measure must be one of"),
    (("route", "--nodes", "10", "--src", "0", "--dst", "1", "--routing", "bmg-equiclass", "--loops", "-2"),
     "loops must be"),
])
def test_bad_input_exits_2_with_one_line(args, needle):
    res = run(*args)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert res.stdout == ""
