"""Sweeps on a Dask LocalCluster of threads: rows, determinism across worker counts and orders,
resume after an interruption, failures and timeouts recorded, traces, the results table."""

import contextlib
import dataclasses

import pytest

from netsim_fast.config import Config
from netsim_fast.errors import ConfigError, DeadlockError
from netsim_fast import simulate
from netsim_fast.sweep import NONDETERMINISTIC_COLUMNS, load_results, run_sweep, spec_from_dict
from netsim_fast.sweep.table import ResultsWriter, read_rows

TINY = {"topology": "torus", "k": 4, "packet_flits": 4, "cycles": 400}


def tiny_spec(**sweep):
    return spec_from_dict({"base": TINY, "grid": {"routing": ["dor", "duato"], "rate": [0.1, 0.3]},
                           "sweep": {"repeats": 2, "seed": 3, **sweep}})


@contextlib.contextmanager
def thread_client(workers):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        yield client


def comparable(frame):
    keep = [c for c in frame.columns if c not in NONDETERMINISTIC_COLUMNS]
    return frame[keep].sort_values(["point_id", "repeat"]).reset_index(drop=True)


def test_one_row_per_point_and_repeat_with_every_field_and_metric(tmp_path):
    spec = tiny_spec()
    with thread_client(2) as client:
        report = run_sweep(spec, tmp_path, client=client)
    assert report.computed == report.total == 8 and report.counts == {"ok": 8}
    assert len(report.workers) == 2 and all(w["errors"] == [] for w in report.workers)
    frame = load_results(tmp_path)
    assert len(frame) == 8
    assert set(zip(frame["point_id"], frame["repeat"])) == {(p.point_id, r) for p, r in spec.tasks()}
    for f in dataclasses.fields(Config):
        assert f.name in frame.columns
    summary = simulate(spec.config_for(spec.points[0], 0))
    for key in summary:
        if key != "error":
            assert (f"sim_{key}" if key in ("cycles", "rate") else key) in frame.columns
    for column in ("point_id", "repeat", "seed", "status", "error"):
        assert column in frame.columns
    assert set(frame["seed"]) == {spec.seed_of(0), spec.seed_of(1)}


def test_a_row_equals_the_direct_simulation_of_its_config(tmp_path):
    spec = tiny_spec()
    with thread_client(1) as client:
        run_sweep(spec, tmp_path, client=client)
    frame = load_results(tmp_path).set_index(["point_id", "repeat"])
    point = spec.points[3]
    direct = simulate(spec.config_for(point, 1))
    row = frame.loc[(point.point_id, 1)]
    assert row["sim_cycles"] == direct["cycles"] == 400
    for key in ("accepted_load", "offered_load", "flit_hops", "packets", "packets_delivered", "hops_mean"):
        assert row[key] == pytest.approx(direct[key], rel=0, abs=0), key
    assert row["routing"] == point.config.routing and row["rate"] == point.config.rate


def test_same_results_with_one_and_two_workers_in_any_order(tmp_path):
    forward = tiny_spec()
    backward = spec_from_dict({"base": TINY, "grid": {"rate": [0.3, 0.1], "routing": ["duato", "dor"]},
                               "sweep": {"repeats": 2, "seed": 3}})
    with thread_client(1) as client:
        run_sweep(forward, tmp_path / "one", client=client)
    with thread_client(2) as client:
        run_sweep(backward, tmp_path / "two", client=client)
    one, two = load_results(tmp_path / "one"), load_results(tmp_path / "two")
    assert comparable(one).equals(comparable(two))


class Stop(Exception):
    pass


def test_resume_after_an_interruption_recomputes_only_missing_rows(tmp_path):
    spec = tiny_spec()

    def stop_after_three(done, failed, total):
        if done == 3:
            raise Stop

    with thread_client(1) as client:
        with pytest.raises(Stop):
            run_sweep(spec, tmp_path, client=client, progress=stop_after_three)
        _, rows, _ = read_rows(tmp_path / "results.csv")
        assert len(rows) == 3
        kept = {(r["point_id"], r["repeat"]): r["wall_seconds"] for r in rows}
        with open(tmp_path / "results.csv", "a") as fh:  # a crash in the middle of writing a row
            fh.write(rows[0]["point_id"][:6] + ",1,12345,tor")
        with pytest.raises(ConfigError, match="pass --resume"):
            run_sweep(spec, tmp_path, client=client)
        report = run_sweep(spec, tmp_path, client=client, resume=True)
        assert report.skipped == 3 and report.computed == 5 and report.counts == {"ok": 8}
        again = run_sweep(spec, tmp_path, client=client, resume=True)
        assert again.computed == 0 and again.skipped == 8
        with thread_client(2) as other:
            run_sweep(spec, tmp_path / "full", client=other)
    _, rows, partial = read_rows(tmp_path / "results.csv")
    assert not partial and len(rows) == 8
    for r in rows:  # the three earlier rows were kept as written, not recomputed
        if (r["point_id"], r["repeat"]) in kept:
            assert r["wall_seconds"] == kept[(r["point_id"], r["repeat"])]
    assert comparable(load_results(tmp_path)).equals(comparable(load_results(tmp_path / "full")))


def test_resume_refuses_a_folder_of_another_spec(tmp_path):
    with thread_client(1) as client:
        run_sweep(tiny_spec(), tmp_path, client=client)
        with pytest.raises(ConfigError, match="holds a sweep of another spec"):
            run_sweep(tiny_spec(seed=4), tmp_path, client=client, resume=True)


def test_failing_points_are_recorded_and_do_not_stop_the_sweep(tmp_path):
    spec = spec_from_dict({  # one VC without datelines: a torus ring deadlocks under heavy load
        "base": {"topology": "torus", "k": 8, "packet_flits": 16, "cycles": 3000, "deadlock_cycles": 200},
        "points": [{"routing": "dor", "vcs": 2}, {"routing": "dor-nodateline", "vcs": 1}],
        "grid": {"rate": [0.1, 0.9]}})
    deadlocks = set()
    for point in spec.points:  # the oracle: which points deadlock when run directly
        try:
            simulate(spec.config_for(point, 0))
        except DeadlockError:
            deadlocks.add(point.point_id)
    assert spec.points[3].point_id in deadlocks and spec.points[0].point_id not in deadlocks
    with thread_client(2) as client:
        report = run_sweep(spec, tmp_path, client=client)
        assert report.counts == {"ok": 4 - len(deadlocks), "failed": len(deadlocks)}
        assert {f["point_id"] for f in report.failures} == deadlocks
        frame = load_results(tmp_path).set_index("point_id")
        bad = frame.loc[spec.points[3].point_id]
        assert bad["status"] == "failed" and bad["error"].startswith("DeadlockError: deadlock at cycle")
        assert bool(bad["deadlock"]) is True, "the partial summary of a deadlocked run is kept"
        retried = run_sweep(spec, tmp_path, client=client, resume=True, retry_failed=True)
        assert retried.computed == len(deadlocks) and retried.skipped == 4 - len(deadlocks)
        assert retried.counts == report.counts


def test_points_over_the_time_limit_are_recorded_as_timeout(tmp_path):
    spec = spec_from_dict({"base": {**TINY, "cycles": 5000}, "grid": {"rate": [0.1, 0.2]}})
    with thread_client(1) as client:
        report = run_sweep(spec, tmp_path, client=client, timeout=1e-9)
    assert report.counts == {"timeout": 2}
    frame = load_results(tmp_path)
    assert frame["error"].str.contains("time limit of 1e-09 s reached at cycle").all()
    with pytest.raises(ConfigError, match="--timeout 0"):
        run_sweep(spec, tmp_path / "x", timeout=0)


def test_traces_land_beside_the_results(tmp_path):
    from netsim_fast.trace import open_trace

    spec = spec_from_dict({"base": TINY, "grid": {"rate": [0.1, 0.2]}})
    with thread_client(2) as client:
        run_sweep(spec, tmp_path, client=client, traces=True)
    frame = load_results(tmp_path)
    for _, row in frame.iterrows():
        assert row["trace"] == f"traces/{row['point_id']}-r0.h5"
        trace = open_trace(tmp_path / row["trace"])
        assert trace.config["seed"] == row["seed"] and trace.config["rate"] == row["rate"]
        assert trace.summary["flit_hops"] == row["flit_hops"]


def test_parquet_without_an_engine_is_a_config_error(tmp_path):
    import importlib.util

    if importlib.util.find_spec("pyarrow") or importlib.util.find_spec("fastparquet"):
        pytest.skip("a parquet engine is installed")
    with pytest.raises(ConfigError, match="--format parquet needs pyarrow"):
        run_sweep(tiny_spec(), tmp_path, fmt="parquet")


def test_writer_extends_the_header_for_new_metrics(tmp_path):
    path = tmp_path / "results.csv"
    with ResultsWriter(path) as writer:
        writer.write({"point_id": "a", "repeat": 0, "alpha": 1.5, "status": "ok", "error": None})
        writer.write({"point_id": "b", "repeat": 0, "beta": [1, 2], "status": "failed", "error": "x\ny"})
    header, rows, partial = read_rows(path)
    assert header[-4:] == ["worker", "wall_seconds", "status", "error"]
    assert header.index("alpha") < header.index("beta") < header.index("worker")
    assert rows[0]["alpha"] == "1.5" and rows[0]["beta"] == ""
    assert rows[1]["beta"] == "[1,2]" and rows[1]["error"] == "x y" and not partial
    assert path.read_text().count("\n") == 3, "one line per row"


def test_engines_with_different_metrics_share_one_table(tmp_path):
    """Packet and flit rows in one sweep: the header widens, each row equals its direct run."""
    spec = spec_from_dict({"base": {"topology": "torus", "k": 4},
                           "grid": {"engine": ["packet", "flit"], "pattern": ["random", "total-exchange"]}})
    with thread_client(2) as client:
        report = run_sweep(spec, tmp_path / "two", client=client)
    with thread_client(1) as client:
        run_sweep(spec, tmp_path / "one", client=client)
    assert report.counts == {"ok": 4}
    assert {"packet", "flit", "capacity"} <= set(report.workers[0]["families"])
    frame = load_results(tmp_path / "two")
    for point in spec.points:
        direct = simulate(spec.config_for(point, 0))
        row = frame[frame["point_id"] == point.point_id].iloc[0]
        assert row["sim_cycles"] == direct["cycles"] and row["packets_delivered"] == direct["packets_delivered"]
    assert comparable(frame).equals(comparable(load_results(tmp_path / "one")))


def test_sweeping_k_keeps_the_k_column(tmp_path):
    # Config(k=4).k is None once normalised to dims=4,4: the row must still say which k ran
    spec = spec_from_dict({"base": {"topology": "torus", "packet_flits": 4, "cycles": 200},
                           "grid": {"k": [3, 4]}, "sweep": {"repeats": 1, "seed": 1}})
    with thread_client(1) as client:
        run_sweep(spec, tmp_path, client=client)
    frame = load_results(tmp_path).sort_values("k")
    assert frame["k"].tolist() == [3, 4]
    assert frame["dims"].tolist() == ["3,3", "4,4"]
