"""The total exchanges with free-running, locally and globally synchronised steps.

    PYTHONPATH=. /work/venv/bin/python bench/te_sync.py [--out docs/figures] [--jobs 2]

Paper 004's experiments let nodes run free ("strict synchronization between processing nodes
is not required"); the literature it reviews assumes lock-step phases. ``--sync`` runs both
views: ``none``, ``local`` (a node starts step i+1 once it has received its step-i data) and
``global`` (a barrier between steps). 16x16 torus, ``duato`` injecting on VCs 2,3, grain 128
bytes in 32-byte packets: 4 sweeps (steps) of random-te, 255 steps of 4 packets per pair for
shift-te and pairwise-te, 255 steps for indirect-te (row messages of 4 packets of 128 flits,
column messages of 4 packets of 8 flits). indirect-te under ``none`` keeps its row -> column dependency.

Writes te_sync.csv and prints a markdown table (completion cycles, fraction of the bound).
"""

from __future__ import annotations

import argparse
import csv
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

PATTERNS = ("random-te", "shift-te", "pairwise-te", "indirect-te")
SYNCS = ("none", "local", "global")
GRAIN, PACKET = 128, 32
FIELDS = ["pattern", "sync", "te_steps", "completion_cycles", "lower_bound_cycles", "bound_fraction", "sim_seconds"]


# The engine's watchdog flags a lane that has not moved for --deadlock-cycles (default 10000).
# Worms of 64..1024 flits in a backlogged network wait longer than that without deadlock
# (dor, 256-byte grains: stalls past 10000 cycles, yet the run completes with 200000).
WATCHDOG = 200_000

def point(job):
    from netsim_fast import simulate
    from netsim_fast.config import Config

    pattern, sync, k = job
    start = time.perf_counter()
    s = simulate(Config(topology="torus", k=k, deadlock_cycles=WATCHDOG,
                        routing="duato", inject_vcs=(2, 3), pattern=pattern, grain_bytes=GRAIN,
                        packet_bytes=PACKET, sync=sync, seed=1))
    row = {key: s.get(key) for key in FIELDS}
    row.update(bound_fraction=round(s["bound_fraction"], 4), sim_seconds=round(time.perf_counter() - start, 1))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--k", type=int, default=16, help="torus radix (16: the paper's 16x16; smaller for a smoke test)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(point, [(p, s, args.k) for p in PATTERNS for s in SYNCS]))
    with open(out / "te_sync.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print("| algorithm | steps | " + " | ".join(f"--sync {s}" for s in SYNCS) + " |")
    print("|---" * (len(SYNCS) + 2) + "|")
    for pattern in PATTERNS:
        mine = {r["sync"]: r for r in rows if r["pattern"] == pattern}
        cells = [f"{mine[s]['completion_cycles']} ({mine[s]['bound_fraction']:.2f})" for s in SYNCS]
        print(f"| {pattern} | {mine['none']['te_steps']} | " + " | ".join(cells) + " |")
    print(f"\n{len(rows)} runs, {sum(r['sim_seconds'] for r in rows):.0f} s of runs")


if __name__ == "__main__":
    main()
