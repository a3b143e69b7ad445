"""Kim et al. (ISCA 2008) on the flit engine: minimal, valiant, ugal-l and ugal-g on the balanced
72-terminal dragonfly (P = 2, A = 4, H = 2, G = 9), uniform and worst-case traffic, lanes router.

    PYTHONPATH=. python bench/dragonfly.py [--out docs/figures] [--buf 32] [--quick]

For each (routing, pattern) the offered load rises in steps of 0.05 until the first saturated
run, then in steps of 0.01 from the last unsaturated one up to it (the knee at 0.01
resolution). A run is saturated by the README's rule (the summary's ``saturated``: stopped by
the latency limit, accepted < 95 % of offered, or not drained). Saturation = the highest
offered load at 0.01 resolution whose run is not saturated. Lanes router, 6 VCs (two per VC
class of valiant and ugal-*, two per hop class of minimal), 32-flit input lanes (the credit loop
is 4 cycles; deep lanes give UGAL's queue estimate its range), 8-flit packets (the default). Every run is the engine's default
open-loop measurement (2,000 warm-up cycles, 10,000 measured, drain, latency limit 500) with
seed 1; ``--quick`` shortens it to 500 + 2,000 cycles.

Writes ``dragonfly_curves.csv`` (every run: latency-load curves) and ``dragonfly_curves.png``,
``dragonfly_saturation.csv`` (the table), and prints the table with the relations of Kim et al.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

ROUTINGS = ("minimal", "valiant", "ugal-l", "ugal-g")
PATTERNS = ("uniform", "worst-case")
KIM = dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2, router="lanes")
FIELDS = ["routing", "pattern", "rate", "offered_load", "accepted_load", "latency_mean", "hops_mean", "saturated",
          "stop_reason", "sim_seconds"]


def run_point(routing: str, pattern: str, rate: float, args) -> dict:
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    extra = dict(warmup=500, measure=2000) if args.quick else {}
    s = simulate(Config(**KIM, routing=routing, pattern=pattern, rate=rate, buf=args.buf, vcs=args.vcs, seed=1,
                        **extra))
    return {"routing": routing, "pattern": pattern, "rate": rate, **{k: s.get(k) for k in FIELDS[3:]}}


def knee(routing: str, pattern: str, args, rows: list) -> float:
    """Saturation at 0.01 resolution: coarse 0.05 steps, then 0.01 steps below the first saturated one."""
    def sat(rate):
        row = run_point(routing, pattern, round(rate, 2), args)
        rows.append(row)
        print(f"  {routing:8s} {pattern:10s} {rate:.2f} accepted {row['accepted_load']:.3f} "
              f"latency {row['latency_mean'] if row['latency_mean'] is None else round(row['latency_mean'], 1)} "
              f"{'SATURATED' if row['saturated'] else ''}", flush=True)
        return row["saturated"]

    best, rate = 0.0, 0.05
    while rate <= 1.0 + 1e-9 and not sat(rate):
        best, rate = round(rate, 2), rate + 0.05
    base = best
    for fine in [round(base + 0.01 * i, 2) for i in range(1, 5)]:
        if fine > 1.0 + 1e-9 or sat(fine):
            break
        best = fine
    return best


def plot(rows: list, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, pattern in zip(axes, PATTERNS):
        for routing in ROUTINGS:
            pts = sorted((r["offered_load"], r["latency_mean"]) for r in rows
                         if r["routing"] == routing and r["pattern"] == pattern and not r["saturated"])
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=routing)
        ax.set_title(f"{pattern}: 72-terminal dragonfly (P=2, A=4, H=2, G=9)")
        ax.set_xlabel("offered load (flits/terminal/cycle)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean latency (cycles), unsaturated runs")
    axes[0].set_ylim(0, 300)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--buf", type=int, default=32, help="flits per input lane (default 32)")
    ap.add_argument("--vcs", type=int, default=6, help="VCs per port (default 6: two per VC class)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.process_time()
    rows, table = [], {}
    for pattern in PATTERNS:
        for routing in ROUTINGS:
            table[(routing, pattern)] = knee(routing, pattern, args, rows)
    with open(out / "dragonfly_curves.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    with open(out / "dragonfly_saturation.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["routing", *PATTERNS])
        for routing in ROUTINGS:
            w.writerow([routing, *(table[(routing, p)] for p in PATTERNS)])
    plot(rows, out / "dragonfly_curves.png")
    uni = {r: table[(r, "uniform")] for r in ROUTINGS}
    wc = {r: table[(r, "worst-case")] for r in ROUTINGS}
    print(f"\nsaturation (flits/terminal/cycle), buf {args.buf}, vcs {args.vcs}, {len(rows)} runs, "
          f"{time.process_time() - start:.0f} s CPU")
    print("| routing | uniform | worst-case |")
    print("| --- | --- | --- |")
    for routing in ROUTINGS:
        print(f"| `{routing}` | {uni[routing]:.2f} | {wc[routing]:.2f} |")
    checks = [
        ("uniform: valiant <= 0.6 x minimal", uni["valiant"] <= 0.6 * uni["minimal"]),
        ("uniform: ugal-l >= 0.9 x minimal", uni["ugal-l"] >= 0.9 * uni["minimal"]),
        ("worst-case: minimal <= 1.1 / (A P) = 0.1375", wc["minimal"] <= 1.1 / 8),
        ("worst-case: valiant >= 3 x minimal", wc["valiant"] >= 3 * wc["minimal"]),
        ("worst-case: ugal-l >= 3 x minimal", wc["ugal-l"] >= 3 * wc["minimal"]),
        ("ugal-g >= ugal-l (both)", uni["ugal-g"] >= uni["ugal-l"] and wc["ugal-g"] >= wc["ugal-l"]),
    ]
    for text, ok in checks:
        print(f"{'holds' if ok else 'FAILS'}: {text}")


if __name__ == "__main__":
    main()
