"""What a second thread brings the flit engine, against what it brings a pure CPU-bound loop,
measured in the same run (the speed issue's two-core target).

    PYTHONPATH=. python bench/flit_threads.py                 # 64x64 torus, 5 rounds
    PYTHONPATH=. python bench/flit_threads.py --k 32 --rounds 7 --cycles 2000
    PYTHONPATH=. python bench/flit_threads.py --load 2   # with 2 busy processes: no idle core

Each round runs, one after the other: the busy loop on 1 and on 2 threads (a ``numba.prange``
over two halves of an arithmetic loop, the same threading layer and spin count as the engine), then the
engine on 1 and on 2 threads (``--threads``; torus, dor, 4 VCs x 8, 8-flit packets, uniform,
30 % of capacity, ``--cycles``). A speed-up is the median over rounds of the one-thread time
over the two-thread time (simulation time, ``sim_seconds``, without loading the kernels).
On a shared machine both speed-ups fall together when the other core is busy, which is why
the target compares them: the engine's *gain* (speed-up - 1) as a fraction of the loop's.
The bench also checks that both thread counts gave the same flit-hop count.

Writes ``docs/figures/flit_threads.csv`` (or ``--out``) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from netsim_fast.config import Config  # noqa: E402
from netsim_fast.experiment import simulate  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402


@njit(parallel=True, cache=True)
def _busy(n, table, out):
    """Two independent halves of a dependent chain, one per prange iteration; each step reads a
    table entry the previous step chose (from L1), so the compiler cannot shorten the chain."""
    for half in prange(2):
        x = half + 1
        for _ in range(n):
            x = (x * 6364136223846793005 + table[(x >> 17) & 1023]) & 0xFFFFFFFFFFFF
        out[half] = x


def busy_seconds(threads: int, n: int) -> float:
    numba.set_num_threads(threads)
    out = np.zeros(2, np.int64)
    table = np.arange(1024, dtype=np.int64) * 2654435761
    start = time.perf_counter()
    _busy(n, table, out)
    return time.perf_counter() - start


def engine_run(k: int, cycles: int, threads: int, specialise: str = "on") -> tuple[float, int]:
    cfg = Config(topology="torus", k=k, routing="dor", vcs=4, buf=8, packet_flits=8, rate=round(0.3 * 8 / k, 6),
                 cycles=cycles, threads=threads, specialise=specialise)
    summary = simulate(cfg)
    return summary["sim_seconds"], summary["flit_hops"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--cycles", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--busy", type=int, default=100_000_000, help="iterations of each half of the busy loop")
    ap.add_argument("--load", type=int, default=0, help="busy processes kept running during the rounds")
    ap.add_argument("--out", default="docs/figures/flit_threads.csv")
    ap.add_argument("--specialise", choices=("on", "off"), default="on",
                    help="the kernels compiled for the set-up (on, as the other speed benches) or generic (off)")
    args = ap.parse_args(argv)
    print(describe(), flush=True)
    print(f"--specialise {args.specialise}")
    os.environ.setdefault("GOMP_SPINCOUNT", "20000")  # as the engine sets it (flit/parallel.py)
    busy_seconds(2, 1000)
    engine_run(args.k, 50, 1, args.specialise)
    engine_run(args.k, 50, 2, args.specialise)  # load (or compile) both kernels before timing
    rows = []
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        for r in range(args.rounds):
            rows.append(one_round(r, args))
    finally:
        for hog in hogs:
            hog.kill()
    summarise(rows, args)
    return 0


def one_round(r: int, args) -> dict:
    """One round: the busy loop and the engine, each on 1 then 2 threads."""
    b1, b2 = busy_seconds(1, args.busy), busy_seconds(2, args.busy)
    e1, h1 = engine_run(args.k, args.cycles, 1, args.specialise)
    e2, h2 = engine_run(args.k, args.cycles, 2, args.specialise)
    if h1 != h2:
        raise SystemExit(f"round {r}: flit-hops differ between 1 and 2 threads ({h1} vs {h2})")
    print(f"round {r}: busy {b1:.3f}/{b2:.3f} s ({b1 / b2:.2f}x), engine {e1:.3f}/{e2:.3f} s ({e1 / e2:.2f}x)",
          flush=True)
    return dict(round=r, busy_1=b1, busy_2=b2, engine_1=e1, engine_2=e2, flit_hops=h1)


MIN_LOOP_GAIN = 1.2  # a second core that makes a CPU-bound loop less than this much faster is not idle


def summarise(rows: list, args) -> None:
    busy_up = statistics.median(r["busy_1"] / r["busy_2"] for r in rows)
    engine_up = statistics.median(r["engine_1"] / r["engine_2"] for r in rows)
    # with no idle core the loop gains nothing, and a ratio of two near-zero gains means nothing
    fraction = (engine_up - 1) / (busy_up - 1) if busy_up >= MIN_LOOP_GAIN else None
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    hops_per_s = statistics.median(r["flit_hops"] / r["engine_2"] for r in rows) / 1e6
    print(f"\n{args.k}x{args.k} torus, {args.cycles} cycles, {args.rounds} rounds, {os.cpu_count()} cores, "
          f"{args.load} busy processes, load average {os.getloadavg()[0]:.1f}")
    print("| | speed-up, 2 threads over 1 (median) |\n| --- | --- |")
    print(f"| busy loop | {busy_up:.2f}x |\n| flit engine | {engine_up:.2f}x ({hops_per_s:.2f} M flit-hops/s on 2) |")
    if fraction is None:
        print(f"\nno idle core: the busy loop gained {busy_up:.2f}x (< {MIN_LOOP_GAIN}x), so the engine's share "
              "of its gain is not measured; rerun on a quieter machine")
    else:
        print(f"\nengine gain / loop gain = {fraction:.2f} (target >= 0.80)")


if __name__ == "__main__":
    raise SystemExit(main())
