"""Time for ``netsim-fast run`` to reach its first simulated cycle (README, "Performance").

Warm: after ``netsim-fast warmup``, the median of ``--repeats`` runs of
``netsim-fast run --topology torus --k 16 --cycles 1 --quiet`` (whole process wall time: Python
start-up, imports, loading the kernels from Numba's cache, one cycle). Cold: the same command
with an empty Numba cache (a fresh NUMBA_CACHE_DIR), i.e. including compilation.

    PYTHONPATH=. python bench/flit_startup.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMAND = [sys.executable, "-m", "netsim_fast", "run", "--topology", "torus", "--k", "16", "--cycles", "1", "--quiet"]


def timed(env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(COMMAND, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        cold_env = dict(env, NUMBA_CACHE_DIR=cache)
        cold = timed(cold_env)
        subprocess.run([sys.executable, "-m", "netsim_fast", "warmup"], env=cold_env, check=True, capture_output=True)
        warm = [timed(cold_env) for _ in range(args.repeats)]
    print(f"cold start (empty Numba cache, compiles the flit kernel): {cold:.2f} s")
    print(f"warm start after `netsim-fast warmup`: median {statistics.median(warm):.2f} s "
          f"(min {min(warm):.2f}, max {max(warm):.2f}, {args.repeats} runs)")


if __name__ == "__main__":
    main()
