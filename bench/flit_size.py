"""Where a flit-hop's time goes as the torus grows: the cost per flit-hop against the size of the
network's state, beside the machine's memory latency at the same sizes (README, "Performance").

The speed issue asks the 64x64 torus to cost at most 10 % more per flit-hop than the 16x16 at
the same fraction of capacity. Both do the same work per router and cycle (30 % of capacity is
``2.4 / k`` flits per node and cycle over ``k / 2`` hops on average), so a difference comes from
where the state lives: a cycle visits every busy router's records once, and what one cycle
touched is in a core's L2 at the next only if the state fits there. This runs 2-D tori of
radix ``--radixes`` with 2 and 4 VCs (4 VCs × 8 flits, 8-flit packets, dor, 30 % of capacity,
one thread, each run in a fresh process, median of ``--repeats``), prints each one's state in
MiB (lanes, buffers, ports, event rings; not the packet table, of which only the packets in
flight are touched) and ns per flit-hop, and then the latency of a dependent load from a random
cache line of working sets of 1 to 64 MiB (one load per 64-byte line, in a random cycle): the
L2's and the L3's share of this machine show as steps.

    PYTHONPATH=. python bench/flit_size.py [--repeats 3] [--out docs/figures]
    PYTHONPATH=. python bench/flit_size.py --prefetch [--radixes 32,40,48] [--cycles 3000]

``--prefetch`` instead measures, per radix (4 VCs), what prefetching (FlitParams.prefetch, which
the engine turns on from ``flit.run.PREFETCH_LANES`` lanes up) does at that size: alternated
pairs of runs with it forced on and forced off, and the median ratio of their CPU time.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402
from flit_speed import run_setup  # noqa: E402


def chase_ns(mib: float, steps: int = 2_000_000) -> float:
    """ns per dependent load over ``mib`` MiB, one load per 64-byte line, lines in a random cycle."""
    import numpy as np
    from numba import njit

    @njit(cache=False)
    def chase(nxt, steps):
        i = 0
        for _ in range(steps):
            i = nxt[i]
        return i

    lines = int(mib * 2**20) // 64
    order = np.random.default_rng(0).permutation(lines) * 8  # int64 index of each line's first word
    nxt = np.zeros(lines * 8, np.int64)
    nxt[order] = np.roll(order, -1)
    chase(nxt, 1000)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        chase(nxt, steps)
        times.append((time.perf_counter() - start) / steps * 1e9)
    return statistics.median(times)


PREFETCH_CHILD = r"""
import json, sys
from netsim_fast.config import Config
from netsim_fast.flit import run as flit_run
from netsim_fast.flit.state import C_FLIT_HOPS
from netsim_fast.topologies import build_topology
fields, cycles, on = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
flit_run.PREFETCH_LANES = 0 if on else 1 << 62  # forced on / off, whatever the size
cfg = Config(cycles=cycles, threads=1, **fields)
run = flit_run.run_flit(cfg, build_topology(cfg))
print(json.dumps(dict(flit_hops=int(run.state.cnt[C_FLIT_HOPS]), cpu_seconds=run.sim_cpu_seconds)))
"""


def prefetch_ratios(radixes: list[int], cycles: int, repeats: int) -> None:
    """Per radix, the median over alternated pairs of CPU time with prefetching over without."""
    print("| torus | lanes | ns per flit-hop without | with / without (pairs) |\n| --- | --- | --- | --- |")
    for k in radixes:
        fields = dict(topology="torus", k=k, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.3 * 8 / k)
        pairs = []
        for _ in range(repeats):
            runs = [json.loads(subprocess.run([sys.executable, "-c", PREFETCH_CHILD, json.dumps(fields), str(cycles),
                                               str(on)], capture_output=True, text=True, check=True).stdout)
                    for on in (0, 1)]
            assert runs[0]["flit_hops"] == runs[1]["flit_hops"], "prefetching changed the run"
            off, on = runs[0]["cpu_seconds"], runs[1]["cpu_seconds"]
            pairs.append((off / runs[0]["flit_hops"] * 1e9, on / off))
        ratios = " ".join(f"{r:.3f}" for _, r in pairs)
        print(f"| {k}x{k} | {k * k * 5 * 4:,} | {statistics.median(n for n, _ in pairs):.1f} | "
              f"**{statistics.median(r for _, r in pairs):.3f}** ({ratios}) |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--radixes", default="16,24,32,40,48,56,64")
    ap.add_argument("--cycles", type=int, default=1500)
    ap.add_argument("--out", default="bench/out")
    ap.add_argument("--prefetch", action="store_true", help="instead: prefetching forced on against off, by radix")
    args = ap.parse_args()
    radixes = [int(k) for k in args.radixes.split(",")]
    print(describe())
    if args.prefetch:
        prefetch_ratios(radixes, args.cycles, args.repeats)
        return
    run_setup(dict(topology="torus", k=8, vcs=2, buf=8, packet_flits=8, rate=0.1), 50)  # compile once
    rows = []
    print("| torus | VCs | state MiB | ns per flit-hop (CPU) | relative to the 16x16 |")
    print("| --- | --- | --- | --- | --- |")
    for vcs in (2, 4):
        base = None
        for k in radixes:
            fields = dict(topology="torus", k=k, routing="dor", vcs=vcs, buf=8, packet_flits=8, rate=0.3 * 8 / k)
            runs = [run_setup(fields, args.cycles) for _ in range(args.repeats)]
            ns = statistics.median(r["cpu_seconds"] / r["flit_hops"] * 1e9 for r in runs)
            base = ns if base is None else base
            rows.append(dict(k=k, vcs=vcs, state_mib=runs[0]["state_mib"], ns_per_flit_hop=ns, relative=ns / base,
                             cycles=args.cycles, repeats=args.repeats))
            print(f"| {k}x{k} | {vcs} | {runs[0]['state_mib']:.1f} | {ns:.1f} | {ns / base:.2f} |")
    print("\n| working set MiB | ns per dependent load |\n| --- | --- |")
    latency = []
    for mib in (1, 2, 4, 8, 16, 24, 32, 64):
        latency.append(dict(working_set_mib=mib, ns_per_load=chase_ns(mib)))
        print(f"| {mib} | {latency[-1]['ns_per_load']:.1f} |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, table in (("flit_size.csv", rows), ("memory_latency.csv", latency)):
        with open(out / name, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows(table)
    print(f"wrote {out / 'flit_size.csv'} and {out / 'memory_latency.csv'}")


if __name__ == "__main__":
    main()
