"""Time for ``netsim-fast run`` to reach its first simulated cycle (README, "Performance").

Warm: after ``netsim-fast warmup``, the median of ``--repeats`` runs of
``netsim-fast run --topology torus --k 16 --cycles 1 --quiet`` (whole process wall time: Python
start-up, imports, loading the kernels from Numba's cache, one cycle). Cold: the same command
with an empty Numba cache (a fresh NUMBA_CACHE_DIR), i.e. including compilation, ``--cold``
times (default 1), each with its own empty cache.

Beside the wall time, the child's CPU time (user + system, from ``resource``): on a shared
machine another process's load stretches the wall clock but hardly the CPU time, so two trees
compared back to back (``PYTHONPATH=<tree>``, alternated) are best compared by their CPU times.

    PYTHONPATH=. python bench/flit_startup.py [--repeats 5] [--cold 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

COMMAND = [sys.executable, "-m", "netsim_fast", "run", "--topology", "torus", "--k", "16", "--cycles", "1", "--quiet"]


def timed(env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of COMMAND."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(COMMAND, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold", type=int, default=1, help="cold runs, each with an empty cache")
    args = parser.parse_args()
    env = dict(os.environ)
    cold = []
    for _ in range(args.cold):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(timed(dict(env, NUMBA_CACHE_DIR=cache)))
    with tempfile.TemporaryDirectory() as cache:
        warm_env = dict(env, NUMBA_CACHE_DIR=cache)
        subprocess.run([sys.executable, "-m", "netsim_fast", "warmup"], env=warm_env, check=True, capture_output=True)
        warm = [timed(warm_env) for _ in range(args.repeats)]
    for label, runs in (("cold start (empty Numba cache, compiles the flit kernel)", cold),
                        ("warm start after `netsim-fast warmup`", warm)):
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{label}: median {statistics.median(walls):.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f}), "
              f"{statistics.median(cpus):.2f} s CPU, {len(runs)} runs")


if __name__ == "__main__":
    main()
