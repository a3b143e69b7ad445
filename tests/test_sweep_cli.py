"""`netsim-fast sweep`: spec file or options, local cluster or an existing scheduler, resume,
and input errors (exit 2, one line)."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.sweep import NONDETERMINISTIC_COLUMNS, load_results

runner = CliRunner()

SPEC = """
[base]
topology = "torus"
k = 4
packet_flits = 4
cycles = 300
[grid]
routing = ["dor", "duato"]
rate = [0.1, 0.2]
[sweep]
repeats = 2
"""


def run(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def comparable(frame):
    keep = [c for c in frame.columns if c not in NONDETERMINISTIC_COLUMNS]
    return frame[keep].sort_values(["point_id", "repeat"]).reset_index(drop=True)


def test_sweep_spec_file_then_resume_does_nothing(spec_file, tmp_path):
    out = tmp_path / "out"
    res = run("sweep", spec_file, "--out", out, "--workers", 1, "--threads", "--quiet")
    assert res.exit_code == 0, res.output
    assert "runs in the spec" in res.stdout and "8 / 0 / 0" in res.stdout
    assert len(load_results(out)) == 8
    assert json.loads((out / "sweep.json").read_text())["points"] == 4
    res = run("sweep", spec_file, "--out", out, "--threads", "--json", "--resume")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["computed"] == 0 and report["skipped"] == 8 and report["counts"] == {"ok": 8}
    res = run("sweep", spec_file, "--out", out, "--threads")
    assert res.exit_code == 2 and "pass --resume" in res.output


def test_grid_as_options_equals_the_spec_file(spec_file, tmp_path):
    res = run("sweep", spec_file, "--out", tmp_path / "file", "--workers", 2, "--threads", "--quiet")
    assert res.exit_code == 0, res.output
    res = run("sweep", "--out", tmp_path / "opts", "--workers", 2, "--threads", "--quiet",
              "--set", "topology=torus", "--set", "k=4", "--set", "packet_flits=4", "--set", "cycles=300",
              "--grid", "routing=dor,duato", "--grid", "rate=0.1,0.2", "--repeats", 2)
    assert res.exit_code == 0, res.output
    assert comparable(load_results(tmp_path / "file")).equals(comparable(load_results(tmp_path / "opts")))


def test_existing_scheduler_from_the_environment(spec_file, tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
        res = run("sweep", spec_file, "--out", tmp_path / "remote", "--json",
                  env={"NETSIM_FAST_SCHEDULER": cluster.scheduler_address})
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["cluster"] == f"Dask cluster at {cluster.scheduler_address}"
        res = run("sweep", spec_file, "--out", tmp_path / "x", "--scheduler", cluster.scheduler_address,
                  "--workers", 2)
        assert res.exit_code == 2 and "has its own workers" in res.output
    res = run("sweep", spec_file, "--out", tmp_path / "local", "--threads", "--quiet")
    assert res.exit_code == 0, res.output
    assert comparable(load_results(tmp_path / "remote")).equals(comparable(load_results(tmp_path / "local")))


def test_dry_run_lists_points_and_seeds(spec_file, tmp_path):
    res = run("sweep", spec_file, "--out", tmp_path / "never", "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    listing = json.loads(res.stdout)
    assert len(listing["points"]) == 4 and len(listing["seeds"]) == 2
    assert {p["routing"] for p in listing["points"]} == {"dor", "duato"}
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("args,needle", [
    (("--set", "trace=x.h5", "--grid", "rate=0.1"), "[base] trace: output options"),
    (("--grid", "rate=0.1,9.5", "--set", "k=4"), "spec point 2 (rate=9.5): --rate 9.5"),
    (("--grid", "rate=0.1", "--set", "k=4", "--retry-failed"), "--retry-failed"),
    (("--grid", "rate=0.1", "--set", "k=4", "--workers", "0", "--threads"), "--workers 0"),
    (("--grid", "rate=0.1", "--set", "k=4", "--format", "xml"), "--format xml"),
    ((), "give a SPEC file or the grid as options"),
    (("--grid", "rate=[]", "--set", "k=4"), "[grid] rate: the list is empty"),
])
def test_input_errors_exit_2_with_one_line(tmp_path, args, needle):
    res = run("sweep", "--out", tmp_path / "o", *args)
    assert res.exit_code == 2, res.output
    assert needle in res.output and "Traceback" not in res.output


def test_an_empty_grid_list_in_a_spec_exits_2_with_one_line(tmp_path):
    spec = tmp_path / "empty.toml"
    spec.write_text('[base]\ntopology = "torus"\nk = 4\n[grid]\nrate = []\n')
    res = run("sweep", spec, "--out", tmp_path / "o")
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "rate: the list is empty" in res.output and "[[]]" not in res.output


@pytest.mark.slow
def test_worker_processes_give_the_thread_results(spec_file, tmp_path):
    res = run("sweep", spec_file, "--out", tmp_path / "procs", "--workers", 2, "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["cluster"] == "local cluster, 2 worker process(es)" and len(report["workers"]) == 2
    assert len({w["worker"] for w in report["workers"]}) == 2
    res = run("sweep", spec_file, "--out", tmp_path / "threads", "--workers", 1, "--threads", "--quiet")
    assert res.exit_code == 0, res.output
    procs = load_results(tmp_path / "procs")
    assert procs["worker"].nunique() >= 1
    assert comparable(procs).equals(comparable(load_results(tmp_path / "threads")))
