"""`netsim-fast topo` and the CLI's handling of invalid input (exit 2, one line, no traceback)."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_topo_json_has_contract_keys():
    res = run("topo", "--topology", "torus", "--k", "16", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("nodes", "links", "degree_min", "degree_max", "average_distance", "diameter",
                "distance_distribution", "bisection_width", "bisection_exact"):
        assert key in data
    assert data["nodes"] == 256 and data["links"] == 512 and data["bisection_width"] == 32
    assert data["bisection_exact"] is True
    assert data["distance_distribution"][:3] == [1, 4, 8]


def test_topo_table_output():
    res = run("topo", "--topology", "hypercube", "--n", "5")
    assert res.exit_code == 0
    assert "bisection width" in res.stdout and "16 (exact)" in res.stdout


@pytest.mark.parametrize("args,needle", [
    (("--topology", "torus", "--k", "1"), "--k 1"),
    (("--topology", "torus", "--dims", "8,1"), "--dims 8,1"),
    (("--topology", "torus", "--dims", "8,x"), "integers"),
    (("--topology", "rrg", "--nodes", "63", "--degree", "3"), "N*r even"),
    (("--topology", "rrg", "--nodes", "8", "--degree", "8"), "--degree 8"),
    (("--topology", "bmg", "--nodes", "2"), "--nodes 2"),
    (("--topology", "debruijn", "--nodes", "12"), "power of --base 2"),
    (("--topology", "circulant", "--nodes", "12", "--jumps", "2,4"), "disconnected"),
    (("--topology", "torus", "--nodes", "12"), "does not apply"),
    (("--topology", "tors", "--k", "4"), "did you mean 'torus'"),
    (("--topology", "edgelist", "--file", "/nonexistent/graph.txt"), "cannot be read"),
    (("--topology", "torus"), "needs --k"),
])
def test_invalid_topology_input_exits_2_with_one_line(args, needle):
    res = run("topo", *args)
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert "Traceback" not in res.output


def test_edgelist_file_errors_name_the_line(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# a triangle\n0 1\n1 2\n2 2\n")
    res = run("topo", "--topology", "edgelist", "--file", str(path))
    assert res.exit_code == 2 and "line 4" in res.stderr


def test_edgelist_file_round_trip(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("nodes 4\n0 1\n1,2\n2 3\n3 0\n1 0\n")
    res = run("topo", "--topology", "edgelist", "--file", str(path), "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["nodes"] == 4 and data["links"] == 4 and data["diameter"] == 2


def test_version_lists_dependencies():
    res = run("--version")
    assert res.exit_code == 0 and "numba" in res.stdout and "h5py" in res.stdout
