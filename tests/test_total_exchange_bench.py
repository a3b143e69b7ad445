"""The paper-004 bench scripts on a small torus (the full 16x16 sweeps are slow: run them by
hand, or with -m slow for the checks below)."""

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

import netsim_fast
from netsim_fast.config import Config

ROOT = Path(__file__).resolve().parents[1]


def run_bench(script, tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--out", str(tmp_path), "--jobs", "1",
                             "--k", "4", *args], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_fig3_bench_writes_saturation_fractions(tmp_path):
    run_bench("te_fig3_saturation.py", tmp_path, "--sizes", "8,32")
    data = rows(tmp_path / "te_fig3_saturation.csv")
    assert len(data) == 2 * 4 * 2  # headers x routings x sizes
    assert all(0 < float(r["fraction_of_capacity"]) <= 1.05 for r in data)
    assert (tmp_path / "te_fig3_saturation.png").stat().st_size > 0


def test_fig5_bench_writes_every_algorithm_and_routing(tmp_path):
    out = run_bench("te_fig5_grain.py", tmp_path, "--grains", "8,16")
    data = rows(tmp_path / "te_fig5_grain.csv")
    assert {(r["routing"], r["pattern"]) for r in data} == {
        (routing, p) for routing in ("dor", "duato") for p in ("random-te", "shift-te", "pairwise-te", "indirect-te")}
    assert all(0 < float(r["bound_fraction"]) <= 1 for r in data)
    assert "fraction of the lower bound" in out
    assert (tmp_path / "te_fig5_grain.png").stat().st_size > 0


def test_fig6_and_sync_benches(tmp_path):
    out = run_bench("te_fig6_utilisation.py", tmp_path)
    series = rows(tmp_path / "te_fig6_utilisation.csv")
    assert {r["pattern"] for r in series} == {"random-te", "shift-te", "pairwise-te", "indirect-te"}
    assert "steady state at" in out
    run_bench("te_sync.py", tmp_path)
    sync = rows(tmp_path / "te_sync.csv")
    assert {r["sync"] for r in sync} == {"none", "local", "global"}


@pytest.mark.slow
def test_random_exchange_near_the_bound_and_ahead_of_the_others_on_16x16_duato():
    fractions = {}
    for pattern in ("random-te", "shift-te", "pairwise-te", "indirect-te"):
        s = netsim_fast.simulate(Config(topology="torus", k=16, routing="duato", inject_vcs=(2, 3), pattern=pattern,
                                        grain_bytes=32, packet_bytes=32))
        fractions[pattern] = s["bound_fraction"]
        if pattern == "random-te":
            assert s["steady_state_cycle"] <= 100 and s["plateau_fluctuation"] < 0.02
    assert fractions["random-te"] > 0.8
    assert all(fractions[p] < fractions["random-te"] - 0.2 for p in ("shift-te", "pairwise-te", "indirect-te"))
