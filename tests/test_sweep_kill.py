"""A sweep killed with SIGKILL at random moments loses nothing and repeats nothing: after
``--resume`` every (point, repeat) of the spec is in results.csv exactly once, each row equal to
the row of an uninterrupted sweep, and the folder holds no half-written file.

Each attempt starts ``netsim-fast sweep`` as a subprocess in its own process group, waits until
a random number of rows is in results.csv (and a random few milliseconds more, so the kill also
lands while a row or a rewritten header is being written), SIGKILLs the group (the Dask workers
too), and resumes; some attempts kill the resume as well before resuming again. A row is one
small flushed write, so a kill rarely cuts one: some attempts cut the last row by hand (inside a
UTF-8 character) and leave a writer's temporary, as a kill inside a write would.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SPEC = """
[base]
topology = "torus"
k = 4
packet_flits = 4
cycles = 30000
[grid]
routing = ["dor", "duato"]
rate = [0.05, 0.1, 0.15, 0.2, 0.25]
[sweep]
repeats = 2
"""
RUNS = 20
ENV = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))


def _sweep(spec: Path, out: Path, *extra: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "netsim_fast", "sweep", str(spec), "--out", str(out), "--quiet", *extra]
    return subprocess.Popen(argv, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _rows_written(results: Path) -> int:
    try:
        return max(results.read_bytes().count(b"\n") - 1, 0)
    except OSError:
        return 0


def _kill_after(proc: subprocess.Popen, results: Path, rows: int, jitter: float, limit: float = 120.0) -> bool:
    """SIGKILL the sweep's process group once ``rows`` rows are written (plus ``jitter`` s);
    False if it finished first."""
    deadline = time.monotonic() + limit
    while _rows_written(results) < rows:
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the sweep wrote no rows in time"
        time.sleep(0.002)
    time.sleep(jitter)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    return True


def _cut_last_row(out: Path) -> None:
    """Append the first half of the last row again, without its newline (a row cut by the kill,
    ending inside a two-byte character), and leave a writer's temporary file behind."""
    results = out / "results.csv"
    lines = results.read_bytes().splitlines(keepends=True)
    half = lines[-1][: len(lines[-1]) // 2] + "é".encode()[:1]
    with open(results, "ab") as fh:
        fh.write(half)
    (out / f".results.csv.{os.getpid()}.tmp").write_bytes(b"".join(lines[:1]))


def _check_complete(out: Path, reference) -> None:
    from netsim_fast.sweep import NONDETERMINISTIC_COLUMNS, load_results
    from netsim_fast.sweep.table import read_rows

    data = (out / "results.csv").read_bytes()
    assert data.endswith(b"\n"), "a partial last line survived the resume"
    header, rows, partial = read_rows(out / "results.csv")
    assert not partial
    assert len(data.splitlines()) == len(rows) + 1, "a line of results.csv is not a whole row"
    keys = [(r["point_id"], int(r["repeat"])) for r in rows]
    assert len(keys) == len(set(keys)), "a row was written twice"
    assert set(keys) == set(reference[["point_id", "repeat"]].itertuples(index=False, name=None)), "a row is missing"
    assert all(r["status"] == "ok" for r in rows)
    frame = load_results(out)
    keep = [c for c in reference.columns if c not in NONDETERMINISTIC_COLUMNS]
    assert set(keep) <= set(frame.columns)

    def ordered(f):
        return f[keep].sort_values(["point_id", "repeat"]).reset_index(drop=True)

    assert ordered(frame).equals(ordered(reference)), "a resumed row differs from the uninterrupted sweep's"
    json.loads((out / "sweep.json").read_text())
    leftovers = [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == [], leftovers


@pytest.mark.slow
def test_sweeps_killed_at_random_moments_resume_to_the_same_table(tmp_path):
    from netsim_fast.sweep import load_results

    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    done = subprocess.run([sys.executable, "-m", "netsim_fast", "sweep", str(spec), "--out", str(tmp_path / "ref"),
                           "--workers", "1", "--threads", "--quiet"], env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    reference = load_results(tmp_path / "ref")
    assert len(reference) == RUNS

    rng = random.Random(20)
    killed = 0
    for attempt in range(8):
        out = tmp_path / f"out{attempt}"
        # threads: one process, the kill lands anywhere in it; processes: the workers die with the group
        mode = ["--workers", "1", "--threads"] if attempt % 2 == 0 else ["--workers", "2"]
        proc = _sweep(spec, out, *mode)
        killed += _kill_after(proc, out / "results.csv", rng.randint(1, RUNS - 2), rng.uniform(0, 0.08))
        if attempt % 4 == 1:  # as if the kill had landed inside a write: half a row, a temporary
            _cut_last_row(out)
        if attempt % 3 == 2:  # kill the resume too, before it completes the table
            proc = _sweep(spec, out, *mode, "--resume")
            _kill_after(proc, out / "results.csv", rng.randint(_rows_written(out / "results.csv"), RUNS - 1),
                        rng.uniform(0, 0.05))
        resumed = subprocess.run([sys.executable, "-m", "netsim_fast", "sweep", str(spec), "--out", str(out),
                                  "--quiet", "--resume", *mode], env=ENV, capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stderr
        _check_complete(out, reference)
    assert killed >= 4  # most attempts were killed mid-sweep, not after it finished
