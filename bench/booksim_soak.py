"""The booksim router's allocators past saturation: no false deadlock, no starvation, fair service.

    PYTHONPATH=. python bench/booksim_soak.py [--cycles 100000] [--out docs/figures]

Issue 14 asks every allocation policy to serve a waiting input VC within a bounded time. The
booksim router reproduces BookSim2's allocators as they are (flit/booksim/allocators/); this
bench measures what they do at offered load 1.0 (uniform-self, 8x8 torus with 4-flit packets
and 8x8 mesh with 1-flit packets, 4 VCs, `--source-queue 16`, `--cycles N` so no latency
limit, the default `--deadlock-cycles 10000`): accepted load, the least-served node, Jain's
index, the longest wait of a lane's front flit, starved channels and deadlock. Writes
``booksim_soak.csv`` and prints a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

ALLOCATORS = ("islip", "separable_input_first", "separable_output_first", "wavefront", "pim", "loa", "select",
              "max_size")
NETWORKS = (("torus", 4), ("mesh", 1))
FIELDS = ["allocator", "topology", "packet_flits", "accepted_load", "accepted_min", "fairness_jain",
          "starvation_max_wait", "starved_channels", "deadlock", "seconds"]


def soak(allocator: str, topology: str, flits: int, cycles: int) -> dict:
    from netsim_fast.config import Config
    from netsim_fast.errors import DeadlockError
    from netsim_fast.experiment import simulate

    cfg = Config(topology=topology, k=8, router="booksim", vcs=4, packet_flits=flits, rate=1.0, cycles=cycles,
                 source_queue=16, vc_allocator=allocator, sw_allocator=allocator, pattern="uniform-self", seed=1)
    start = time.perf_counter()
    try:
        s = simulate(cfg)
    except DeadlockError as exc:
        s = exc.summary
    return {"allocator": allocator, "topology": topology, "packet_flits": flits,
            "accepted_load": round(s["accepted_load"], 4), "accepted_min": round(s["accepted_min"], 4),
            "fairness_jain": round(s["fairness_jain"], 4), "starvation_max_wait": s["starvation_max_wait"],
            "starved_channels": s.get("starved_channel_count") or 0, "deadlock": bool(s["deadlock"]),
            "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=100_000)
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()
    rows = [soak(a, t, f, args.cycles) for a in ALLOCATORS for t, f in NETWORKS]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "booksim_soak.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print("| allocator | network | accepted | least-served node | Jain | longest wait | starved | deadlock |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['allocator']} | 8x8 {r['topology']}, {r['packet_flits']}-flit | {r['accepted_load']} | "
              f"{r['accepted_min']} | {r['fairness_jain']} | {r['starvation_max_wait']} | {r['starved_channels']} | "
              f"{'yes' if r['deadlock'] else 'no'} |")


if __name__ == "__main__":
    main()
