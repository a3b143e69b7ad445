"""Packet-engine speed: packet-hops per second on random 4-regular graphs (issue 18, item 5).

    PYTHONPATH=. python bench/packet_speed.py [--repeats 5] [--policies fifo,srpf,lrpf] [--out docs/figures]

Setups: a random 4-regular graph (seed 1) with 256 nodes and ``--m256`` messages per node
(default 1024: 262,144 packets, 1.2 M packet-hops; target >= 30 M packet-hops/s) and one with
4096 nodes and ``--m4096`` messages per node (default 64: 262,144 packets, 2.0 M
packet-hops; target >= 10 M), uniform random destinations (seed 7), all released at cycle 0,
fixed minimal paths, every policy on the same graph and messages. The routing table is built
once per graph, outside the timed call (a sweep reuses it).

Each ``simulate_packets`` call is split, on the wall clock, into

* *simulation*: ``sim_seconds``, the paths (one minimal path per packet) plus the kernel;
  the rate ``packet_hops / sim_seconds`` is the figure the targets are about;
* *setup*: the rest of the call (input checks, allocation of the state, the result arrays):
  ``call - sim_seconds``; the runs are long enough that it is under 5 % of the call.

Beside them the kernel alone (``sim - route``) and the rate over the CPU time of this thread
for the whole call, which a busy shared machine disturbs less than the wall clock. Repeats
run the policies in turn (repeat-major), so a change of machine load hits all of them; the
figures are medians over ``--repeats`` (seeds 0, 1, ...; the seed changes only tie order).
Compilation (or loading from the Numba cache) is timed once, apart. Writes
``rrg_packet_speed.csv`` into ``--out``.

Run it against another checkout with ``PYTHONPATH=<that tree>``; alternate the two a few
times to compare (a ratio of medians taken back to back, not two absolute figures).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from netsim_fast.packet.run import simulate_packets, warmup
from netsim_fast.routing.table import build_minimal_table
from netsim_fast.topologies.rrg import random_regular
from netsim_fast.workloads.messages import random_messages

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--policies", default="fifo,srpf,lrpf")
    ap.add_argument("--m256", type=int, default=1024, help="messages per node, 256 nodes")
    ap.add_argument("--m4096", type=int, default=64, help="messages per node, 4096 nodes")
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()
    print(describe(), flush=True)
    setups = [(256, 4, args.m256, 30e6), (4096, 4, args.m4096, 10e6)]
    policies = args.policies.split(",")

    t0 = time.perf_counter()
    warmup()
    print(f"compile/load of the kernels: {time.perf_counter() - t0:.2f} s; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {args.repeats} repeats, medians")

    rows = []
    for n, r, m, target in setups:
        topo = random_regular(n, r, 1)
        table = build_minimal_table(topo)
        msgs = random_messages(n, m, np.random.default_rng(7))
        runs = {p: [] for p in policies}
        for rep in range(args.repeats):
            for policy in policies:
                t0, c0 = time.perf_counter(), time.thread_time()
                res = simulate_packets(topo, msgs, policy=policy, table=table, seed=rep)
                cpu = time.thread_time() - c0
                call = time.perf_counter() - t0
                # only the figures: keeping every result (4 MB each here) grew the process by
                # that much per call, and the next calls ran on fresh memory whose page faults
                # fell in setup, paths or kernel by allocation order, not by what a call does
                figures = SimpleNamespace(packet_hops=res.packet_hops, packets=res.packets,
                                          cycles=res.cycles)
                runs[policy].append((call, res.sim_seconds, res.route_seconds, cpu, figures))
                del res
        for policy in policies:
            rs = runs[policy]
            res = rs[-1][4]
            hops = res.packet_hops
            med = {name: statistics.median(x[i] for x in rs)
                   for i, name in enumerate(("call", "sim", "route", "cpu"))}
            kernel = statistics.median(x[1] - x[2] for x in rs)
            setup = statistics.median(x[0] - x[1] for x in rs)
            setup_frac = statistics.median((x[0] - x[1]) / x[0] for x in rs)
            rate = statistics.median(hops / x[1] for x in rs)
            row = dict(nodes=n, degree=r, messages_per_node=m, policy=policy, packets=res.packets,
                       packet_hops=hops, cycles=res.cycles, repeats=len(rs),
                       call_seconds=med["call"], setup_seconds=setup, setup_fraction=setup_frac,
                       sim_seconds=med["sim"], route_seconds=med["route"], kernel_seconds=kernel,
                       mhops_per_s=rate / 1e6,
                       kernel_mhops_per_s=statistics.median(hops / (x[1] - x[2]) for x in rs) / 1e6,
                       call_cpu_mhops_per_s=statistics.median(hops / x[3] for x in rs) / 1e6,
                       target_mhops_per_s=target / 1e6, meets_target=rate >= target)
            rows.append(row)
            print(f"N={n:5d} m={m:4d} {policy:6s}: {rate / 1e6:5.1f} M packet-hops/s "
                  f"(kernel alone {row['kernel_mhops_per_s']:5.1f} M; whole call on CPU time "
                  f"{row['call_cpu_mhops_per_s']:5.1f} M) | setup {setup * 1e3:6.1f} ms "
                  f"({100 * setup_frac:4.1f} % of the call), simulation {med['sim'] * 1e3:6.1f} ms = "
                  f"paths {med['route'] * 1e3:5.1f} + kernel {kernel * 1e3:6.1f} | {hops} hops, "
                  f"{res.cycles} cycles | target {target / 1e6:.0f} M: "
                  f"{'met' if rate >= target else 'MISSED'}", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "rrg_packet_speed.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out / 'rrg_packet_speed.csv'}")


if __name__ == "__main__":
    main()
