"""Fig. 3 of paper 004: saturation throughput under uniform traffic vs packet size, 16x16 torus.

    PYTHONPATH=. /work/venv/bin/python bench/te_fig3_saturation.py [--out docs/figures] [--jobs 2]

Saturation throughput, defined for this figure: the accepted load (flits per node per cycle)
when every source is permanently backlogged, as in a total exchange. Uniform traffic is
offered at 1 flit/node/cycle (twice the bisection capacity 8/k = 0.5), the network warms up
for ``WARMUP`` cycles and the flits delivered in the next ``MEASURE`` cycles are counted
(``--drain 0``: the backlog is never drained). Reported as a fraction of the capacity.

Packet sizes 8..256 bytes of 4-byte flits (header included: 2..64 flits). Routings: ``dor``,
``duato`` with injection on every VC, and ``duato`` with source throttling (paper 004,
section 3: packets enter on a subset of the adaptive VCs; ``--inject-vcs 2,3`` = both adaptive
VCs, ``3`` = one). Each with one routing unit per router (the engine's default, paper 004
section 6: "the routing of a single header at a time every T_routing cycles") and with
unlimited routing units (``--headers-per-cycle 0``).

Writes te_fig3_saturation.csv and .png; prints a table and the cost of each point.
"""

from __future__ import annotations

import argparse
import csv
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

PACKET_BYTES = (8, 16, 32, 64, 128, 256)
WARMUP, MEASURE, RATE = 2000, 3000, 1.0
ROUTINGS = [
    ("dor", dict(routing="dor")),
    ("duato", dict(routing="duato")),
    ("duato, inject 2,3", dict(routing="duato", inject_vcs=(2, 3))),
    ("duato, inject 3", dict(routing="duato", inject_vcs=(3,))),
]
HEADERS = (1, 0)
FIELDS = ["routing", "headers_per_cycle", "packet_bytes", "packet_flits", "accepted_load", "capacity",
          "fraction_of_capacity", "cycles", "sim_seconds"]


def point(job):
    from netsim_fast import simulate
    from netsim_fast.config import Config

    name, kwargs, headers, size, k = job
    start = time.perf_counter()
    s = simulate(Config(topology="torus", k=k, pattern="uniform", rate=RATE, packet_bytes=size, flit_bytes=4,
                        headers_per_cycle=headers, warmup=WARMUP, measure=MEASURE, drain=0, seed=1,
                        latency_limit=0,  # backlogged on purpose: measure the window, never stop early
                        **kwargs))
    return {"routing": name, "headers_per_cycle": headers, "packet_bytes": size, "packet_flits": -(-size // 4),
            "accepted_load": round(s["accepted_load"], 5), "capacity": s["capacity"],
            "fraction_of_capacity": round(s["accepted_load"] / s["capacity"], 4), "cycles": s["cycles"],
            "sim_seconds": round(time.perf_counter() - start, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--k", type=int, default=16, help="torus radix (16: the paper's 16x16; smaller for a smoke test)")
    ap.add_argument("--sizes", default=",".join(map(str, PACKET_BYTES)), help="packet sizes in bytes")
    args = ap.parse_args()
    sizes = tuple(int(p) for p in args.sizes.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(name, kw, h, size, args.k) for h in HEADERS for name, kw in ROUTINGS for size in sizes]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = []
        for row in pool.map(point, jobs):
            rows.append(row)
            print(f"  headers {row['headers_per_cycle']} {row['routing']:<18} {row['packet_bytes']:>4} B: "
                  f"{row['fraction_of_capacity']:.3f} of capacity ({row['sim_seconds']} s)", flush=True)
    with open(out / "te_fig3_saturation.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    _plot(rows, sizes, args.k, out / "te_fig3_saturation.png")
    print(f"\n{len(rows)} points in {time.perf_counter() - start:.0f} s "
          f"(median {sorted(r['sim_seconds'] for r in rows)[len(rows) // 2]} s per {WARMUP + MEASURE}-cycle point)")
    for h in HEADERS:
        print(f"\nrouting units per router: {'unlimited' if h == 0 else h}")
        print("| routing | " + " | ".join(f"{p} B" for p in sizes) + " |")
        print("|---" * (len(sizes) + 1) + "|")
        for name, _ in ROUTINGS:
            cells = [f"{r['fraction_of_capacity']:.2f}" for r in rows if r["routing"] == name and r["headers_per_cycle"] == h]
            print(f"| {name} | " + " | ".join(cells) + " |")


def _plot(rows, sizes, k, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, h in zip(axes, HEADERS):
        for name, _ in ROUTINGS:
            mine = [r for r in rows if r["routing"] == name and r["headers_per_cycle"] == h]
            ax.plot([r["packet_bytes"] for r in mine], [r["fraction_of_capacity"] for r in mine], marker="o", label=name)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [str(p) for p in sizes])
        ax.set_xlabel("packet size (bytes, 4-byte flits)")
        ax.set_title(f"{'unlimited routing units' if h == 0 else 'one header routed per router per cycle'}")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("saturation throughput / bisection capacity")
    axes[0].legend()
    fig.suptitle(f"{k}x{k} torus, uniform traffic, sources backlogged (paper 004, Fig. 3)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
