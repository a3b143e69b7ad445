"""Fig. 6 of paper 004: network utilisation over time of the four total-exchange algorithms.

    PYTHONPATH=. /work/venv/bin/python bench/te_fig6_utilisation.py [--out docs/figures] [--jobs 2]

16x16 torus, ``duato``, 32-byte packets of 4-byte flits, grain 32 bytes (the paper's Fig. 6
setting: "When the grain size is 32 bytes ..."), free-running steps. Utilisation = fraction
of the 1024 directed links that carry a flit, per cycle, averaged over 10-cycle windows.

Source throttling is measured three ways: injection on every VC (``--inject-vcs`` unset),
on both adaptive VCs (``2,3``, the setting of the figure and of te_fig5_grain.py) and on one
adaptive VC (``3``). The steady-state metrics use the fixed definitions of
analytic/total_exchange.py.

Writes te_fig6_utilisation.csv (the series), te_fig6_metrics.csv and te_fig6_utilisation.png.
"""

from __future__ import annotations

import argparse
import csv
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

PATTERNS = ("shift-te", "pairwise-te", "random-te", "indirect-te")
INJECT = {"all VCs": None, "VCs 2,3": (2, 3), "VC 3": (3,)}
FIGURE_INJECT = "VCs 2,3"
METRICS = ["pattern", "inject", "completion_cycles", "lower_bound_cycles", "bound_fraction", "utilization_plateau",
           "steady_state_cycle", "steady_fluctuation", "plateau_fluctuation", "steady_end_cycle", "drain_cycles",
           "tail_cycles", "sim_seconds"]


# The engine's watchdog flags a lane that has not moved for --deadlock-cycles (default 10000).
# Worms of 64..1024 flits in a backlogged network wait longer than that without deadlock
# (dor, 256-byte grains: stalls past 10000 cycles, yet the run completes with 200000).
WATCHDOG = 200_000

def point(job):
    from netsim_fast import simulate
    from netsim_fast.config import Config

    pattern, inject, k = job
    start = time.perf_counter()
    s = simulate(Config(topology="torus", k=k, deadlock_cycles=WATCHDOG,
                        routing="duato", pattern=pattern, grain_bytes=32, packet_bytes=32,
                        inject_vcs=INJECT[inject], seed=1))
    row = {key: s.get(key) for key in METRICS}
    row.update(pattern=pattern, inject=inject, sim_seconds=round(time.perf_counter() - start, 1))
    return row, s["utilization"], s["utilization_window"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--k", type=int, default=16, help="torus radix (16: the paper's 16x16; smaller for a smoke test)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(p, i, args.k) for i in INJECT for p in PATTERNS]
    rows, series = [], {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for row, u, window in pool.map(point, jobs):
            rows.append(row)
            series[(row["pattern"], row["inject"])] = (u, window)
            print(f"  {row['pattern']:<11} inject {row['inject']:<8}: {row['completion_cycles']} cycles, "
                  f"{row['bound_fraction']:.3f} of bound ({row['sim_seconds']} s)", flush=True)
    with open(out / "te_fig6_metrics.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=METRICS)
        writer.writeheader()
        writer.writerows(rows)
    with open(out / "te_fig6_utilisation.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["pattern", "inject", "cycle", "utilization"])
        for (pattern, inject), (u, window) in series.items():
            writer.writerows([pattern, inject, i * window, v] for i, v in enumerate(u))
    _plot(series, rows, args.k, out / "te_fig6_utilisation.png")
    print("\n| algorithm | inject | completion | bound fraction | plateau | steady state at | steady fluctuation "
          "| plateau fluctuation | drain | tail after plateau |")
    print("|---" * 10 + "|")
    for r in rows:
        print(f"| {r['pattern']} | {r['inject']} | {r['completion_cycles']} | {r['bound_fraction']:.3f} | "
              f"{r['utilization_plateau']:.3f} | {r['steady_state_cycle']} | {_pct(r['steady_fluctuation'])} | "
              f"{_pct(r['plateau_fluctuation'])} | {r['drain_cycles']} | {r['tail_cycles']} |")
    print(f"\n{len(rows)} runs, {sum(r['sim_seconds'] for r in rows):.0f} s of runs, "
          f"{sum(r['completion_cycles'] for r in rows) / sum(r['sim_seconds'] for r in rows):.0f} cycles/s per run")


def _pct(value):
    return "—" if value is None else f"{100 * value:.1f}%"


def _plot(series, rows, k, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharey=True)
    longest = max(len(u) * w for (p, i), (u, w) in series.items() if i == FIGURE_INJECT)
    for ax, pattern, letter in zip(axes.ravel(), PATTERNS, "abcd"):
        u, w = series[(pattern, FIGURE_INJECT)]
        row = next(r for r in rows if r["pattern"] == pattern and r["inject"] == FIGURE_INJECT)
        ax.plot([i * w for i in range(len(u))], u, lw=0.8)
        ax.axhline(row["utilization_plateau"], color="k", ls=":", lw=0.8)
        ax.set_xlim(0, longest)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.set_title(f"{letter}) {pattern}: {row['completion_cycles']} cycles, {row['bound_fraction']:.2f} of bound",
                     fontsize=10)
    for ax in axes[1]:
        ax.set_xlabel("cycle")
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction of links busy (10-cycle windows)")
    fig.suptitle(f"{k}x{k} torus, duato (inject on VCs 2,3), grain 32 B, 32-byte packets (paper 004, Fig. 6)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
