"""Packet-engine speed: packet-hops per second on the two reference setups of issue 5.

    PYTHONPATH=. /work/venv/bin/python bench/packet_speed.py [--repeats 5] [--out docs/figures]

Setups: random 4-regular graph with 256 nodes and 256 messages per node (target >= 30 M
packet-hops/s), and 4096 nodes with 16 messages per node (target >= 10 M). The rate is
``packet_hops / sim_seconds`` (path computation + kernel, wall clock), the median of
``--repeats`` runs; beside it the rate over the CPU time of the whole ``simulate_packets``
call (driver included), which a busy shared machine disturbs less. Compilation (or loading
from the Numba cache) is timed once, apart. Writes
``rrg_packet_speed.csv`` into ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import time
from pathlib import Path

import numpy as np

from netsim_fast.packet.run import simulate_packets, warmup
from netsim_fast.routing.table import build_minimal_table
from netsim_fast.topologies.rrg import random_regular
from netsim_fast.workloads.messages import random_messages

SETUPS = [(256, 4, 256, 30e6), (4096, 4, 16, 10e6)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--policies", default="fifo,lrpf,srpf,random")
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()

    t0 = time.perf_counter()
    warmup()
    print(f"compile/load of the kernel: {time.perf_counter() - t0:.2f} s; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")

    rows = []
    for n, r, m, target in SETUPS:
        topo = random_regular(n, r, 1)
        t0 = time.perf_counter()
        table = build_minimal_table(topo)
        t_table = time.perf_counter() - t0
        msgs = random_messages(n, m, np.random.default_rng(7))
        for policy in args.policies.split(","):
            rates, walls, cpu_rates, kernel_rates = [], [], [], []
            for rep in range(args.repeats):
                t0, c0 = time.perf_counter(), time.thread_time()
                res = simulate_packets(topo, msgs, policy=policy, table=table, seed=rep)
                c1 = time.thread_time()
                walls.append(time.perf_counter() - t0)
                rates.append(res.packet_hops / res.sim_seconds)
                kernel_rates.append(res.packet_hops / (res.sim_seconds - res.route_seconds))
                cpu_rates.append(res.packet_hops / (c1 - c0))
            rate = statistics.median(rates)
            cpu_rate = statistics.median(cpu_rates)
            row = dict(nodes=n, degree=r, messages_per_node=m, policy=policy,
                       packets=res.packets, packet_hops=res.packet_hops, cycles=res.cycles,
                       kernel_seconds_median=statistics.median([res.packet_hops / x for x in rates]),
                       wall_seconds_median=statistics.median(walls), table_seconds=t_table,
                       route_seconds=res.route_seconds,
                       mhops_per_s=rate / 1e6, mhops_per_s_best=max(rates) / 1e6,
                       kernel_only_mhops_per_s=statistics.median(kernel_rates) / 1e6,
                       call_cpu_mhops_per_s=cpu_rate / 1e6,
                       target_mhops_per_s=target / 1e6,
                       meets_target=rate >= target)
            rows.append(row)
            print(f"N={n:5d} m={m:3d} {policy:6s}: {rate / 1e6:6.1f} M packet-hops/s "
                  f"(best {max(rates) / 1e6:5.1f} M, kernel alone "
                  f"{row['kernel_only_mhops_per_s']:5.1f} M, whole call on CPU time "
                  f"{cpu_rate / 1e6:5.1f} M) (sim {row['kernel_seconds_median'] * 1e3:7.1f} ms, wall "
                  f"{row['wall_seconds_median'] * 1e3:7.1f} ms, {res.packet_hops} hops, "
                  f"{res.cycles} cycles; target {target / 1e6:.0f} M: "
                  f"{'ok' if rate >= target else 'MISSED'})")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "rrg_packet_speed.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {out / 'rrg_packet_speed.csv'}")


if __name__ == "__main__":
    main()
