"""`netsim-fast plot`: traces and sweep results recognised by content, the standard pictures,
saturation marked, --x/--y/--hue, and input errors (exit 2)."""

import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.plots import detect, draw_metric, draw_sweep, draw_trace
from netsim_fast import simulate
from netsim_fast.sweep import load_results, run_sweep, spec_from_dict

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    from distributed import Client, LocalCluster

    out = tmp_path_factory.mktemp("sweep")
    spec = spec_from_dict({
        "base": {"topology": "torus", "k": 4, "packet_flits": 4, "warmup": 200, "measure": 600},
        "grid": {"routing": ["dor", "duato"], "rate": [0.1, 0.4, 1.0]}, "sweep": {"repeats": 2}})
    with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        run_sweep(spec, out, client=client)
    return out


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "run.h5"
    summary = simulate(Config(topology="torus", k=4, rate=0.3, warmup=200, measure=500, trace=str(path)))
    return path, summary


def is_png(path):
    return path.exists() and path.read_bytes()[:8] == PNG


def test_sweep_folder_gives_the_load_curves(sweep_dir):
    res = run("plot", sweep_dir)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == str(sweep_dir / "latency_load.png")
    assert is_png(sweep_dir / "latency_load.png")


def test_results_csv_and_out_option(sweep_dir, tmp_path):
    res = run("plot", sweep_dir / "results.csv", "--out", tmp_path / "curves.png", "--hue", "routing")
    assert res.exit_code == 0, res.output
    assert is_png(tmp_path / "curves.png")


def test_any_metric_against_any_parameter(sweep_dir):
    res = run("plot", sweep_dir, "--x", "rate", "--y", "latency_p99", "--hue", "routing")
    assert res.exit_code == 0, res.output
    assert is_png(sweep_dir / "latency_p99_vs_rate.png")


def test_saturated_points_are_marked_where_the_table_says(sweep_dir):
    frame = load_results(sweep_dir)
    per_point = frame.groupby("point_id").agg(offered=("offered_load", "mean"), saturated=("saturated", "any"))
    expected = sorted(per_point.loc[per_point["saturated"], "offered"])
    assert expected, "the 1.0 rate saturates a 4x4 torus"
    fig = draw_sweep(frame)
    ax_lat, ax_acc = fig.axes
    marks = [c for c in ax_lat.collections if c.get_label() == "saturated (latency unbounded)"]
    offsets = sorted(x for c in ax_lat.collections for x in c.get_offsets()[:, 0])
    assert marks and np.allclose(offsets, expected)
    curves = {line.get_label() for line in ax_lat.get_lines()}
    assert {"routing=dor", "routing=duato"} <= curves
    for line in ax_lat.get_lines():  # no latency drawn for a saturated point
        if line.get_label().startswith("routing="):
            assert not set(np.round(line.get_xdata(), 12)) & set(np.round(expected, 12))


def test_metric_plot_has_error_bars_over_repeats(sweep_dir):
    fig = draw_metric(load_results(sweep_dir), "rate", "accepted_load", hue="routing")
    ax = fig.axes[0]
    assert "mean ± std over repeats" in ax.get_title()
    assert len(ax.containers) == 2  # one errorbar container per routing
    for container in ax.containers:
        assert list(container.lines[0].get_xdata()) == [0.1, 0.4, 1.0]
    fig = draw_metric(load_results(sweep_dir), "routing", "accepted_load", hue="rate")
    labels = {line.get_label() for line in fig.axes[0].containers}
    assert labels == {"rate=0.1", "rate=0.4", "rate=1.0"}, "parameters label curves unaveraged"


def test_trace_gives_time_series_and_latency_histogram(trace_file, tmp_path):
    path, summary = trace_file
    res = run("plot", path)
    assert res.exit_code == 0, res.output
    assert is_png(path.with_suffix(".png"))
    from netsim_fast.trace import open_trace

    fig = draw_trace(open_trace(path))
    assert len(fig.axes) == 4  # load, utilisation (+ in-flight twin), histogram
    hist = fig.axes[2]
    assert sum(p.get_height() for p in hist.patches) == summary["packets_delivered"]


def test_recognised_by_content_not_by_name(sweep_dir, trace_file, tmp_path):
    shutil.copy(sweep_dir / "results.csv", tmp_path / "table.h5")
    shutil.copy(trace_file[0], tmp_path / "run.dat")
    assert detect(tmp_path / "table.h5")[0] == "sweep"
    assert detect(tmp_path / "run.dat")[0] == "trace"
    assert detect(sweep_dir)[0] == "sweep"


@pytest.mark.parametrize("args,needle", [
    (("--x", "rate"), "give --x and --y together"),
    (("--x", "rate", "--y", "latency_mea"), "--y latency_mea: not a column of the sweep's results (did you mean 'latency_mean'?)"),
    (("--x", "rate", "--y", "routing"), "--y routing: not a numeric column"),
    (("--hue", "colour"), "--hue colour: not a column"),
])
def test_sweep_plot_errors(sweep_dir, args, needle):
    res = run("plot", sweep_dir, *args)
    assert res.exit_code == 2, res.output
    assert needle in res.output


def test_unrecognised_inputs(tmp_path, trace_file):
    (tmp_path / "notes.txt").write_text("hello\n")
    res = run("plot", tmp_path / "notes.txt")
    assert res.exit_code == 2 and "neither a netsim-fast trace" in res.output
    res = run("plot", tmp_path)
    assert res.exit_code == 2 and "without results.csv" in res.output
    res = run("plot", trace_file[0], "--x", "rate", "--y", "cycles")
    assert res.exit_code == 2 and "apply to sweep results" in res.output


def test_sweep_without_a_rate_axis_asks_for_x_and_y(tmp_path):
    from distributed import Client, LocalCluster

    spec = spec_from_dict({"base": {"topology": "torus", "k": 4, "cycles": 200}, "grid": {"packet_flits": [2, 4]}})
    with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        run_sweep(spec, tmp_path, client=client)
    res = run("plot", tmp_path)
    assert res.exit_code == 2 and "does not vary rate" in res.output
    res = run("plot", tmp_path, "--x", "packet_flits", "--y", "accepted_load")
    assert res.exit_code == 0, res.output
