"""How often the randomized h-relation protocol of Theorem 3 (papers/002 section 4.3) stalls
or overflows a batch, as h, ceil(L/G) and p vary, beside the Chernoff union bound.

Writes logp_stall_frequency.csv and .png to --out (default docs/figures) and prints the table.
Each point: --trials runs with fresh seeds (relation, batches, delays), beta = 1, relations in
which every processor sends and receives exactly h messages (the paper's worst case).

    PYTHONPATH=. /work/venv/bin/python bench/logp_stall_frequency.py [--out docs/figures] [--trials 100]
"""

from __future__ import annotations

import argparse
import csv
import os
import time

import numpy as np

from netsim_fast.analytic.logp import LogPParams
from netsim_fast.studies.logp import run_protocol

# (sweep name, x label, list of (L, o, G, p, h))
SWEEPS = [
    ("h", "h", [(64, 1, 2, 128, h) for h in (32, 64, 96, 128)]),
    ("capacity", "ceil(L/G)", [(L, 1, 2, 64, 64) for L in (16, 24, 32, 48, 64, 96, 128)]),
    ("p", "p", [(64, 1, 2, p, 64) for p in (64, 128, 256, 512)]),
]


def measure(trials: int):
    rows = []
    for sweep, xlabel, points in SWEEPS:
        for L, o, G, p, h in points:
            P = LogPParams(L=L, o=o, G=G, p=p)
            x = {"h": h, "capacity": P.capacity, "p": p}[sweep]
            for mode in ("max", "uniform"):
                stalled = leftover = failed = 0
                ratio = []
                for seed in range(trials):
                    _, info = run_protocol(P, "randomized", h=h, seed=1000 * seed, delay=mode)
                    stalled += info["stalled"]
                    leftover += info["leftover"] > 0
                    failed += info["stalled"] or info["leftover"] > 0
                    ratio.append(info["time"] / info["bound"])
                rows.append({"sweep": sweep, "x": x, "L": L, "o": o, "G": G, "p": p, "h": h,
                             "capacity": P.capacity, "R": info["R"], "delay": mode,
                             "trials": trials, "p_stall": stalled / trials,
                             "p_leftover": leftover / trials, "p_fail": failed / trials,
                             "chernoff_bound": info["chernoff_bound"],
                             "binomial_bound": info["binomial_bound"],
                             "time_over_bound_median": float(np.median(ratio))})
                print(f"{sweep:9s} {xlabel}={x:4d} L={L:3d} G={G} p={p:3d} h={h:3d} R={info['R']:2d} "
                      f"{mode:7s} P(stall)={stalled / trials:.3f} P(overflow)={leftover / trials:.3f} "
                      f"Chernoff={info['chernoff_bound']:.3g} binomial={info['binomial_bound']:.3g} "
                      f"time/bound={np.median(ratio):.3f}", flush=True)
    return rows


def plot(rows, path, trials):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    floor = 0.5 / trials
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for ax, (sweep, xlabel, _) in zip(axes, SWEEPS):
        sel = [r for r in rows if r["sweep"] == sweep]
        for mode, marker, color in (("max", "o", "C3"), ("uniform", "s", "C0")):
            pts = [r for r in sel if r["delay"] == mode]
            xs = [r["x"] for r in pts]
            ax.plot(xs, [max(r["p_stall"], floor) for r in pts], marker=marker, color=color,
                    label=f"stalled, delay={mode}")
        pts = [r for r in sel if r["delay"] == "max"]
        xs = [r["x"] for r in pts]
        ax.plot(xs, [max(r["p_leftover"], floor) for r in pts], "^--", color="C2",
                label="batch overflow (step 3 used)")
        ax.plot(xs, [r["chernoff_bound"] for r in pts], "k-", lw=2, label="Chernoff union bound")
        ax.plot(xs, [r["binomial_bound"] for r in pts], "k:", lw=2, label="binomial union bound")
        ax.axhline(floor, color="0.7", lw=0.8)
        ax.set_yscale("log")
        ax.set_ylim(floor / 2, 1.5)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
        fixed = {"h": "L=64, G=2, p=128", "capacity": "G=2, p=64, h=64",
                 "p": "L=64, G=2, h=64"}[sweep]
        ax.set_title(f"vs {xlabel} ({fixed}, o=1, beta=1)", fontsize=10)
    axes[0].set_ylabel(f"probability per run ({trials} runs; grey line = none seen)")
    axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle("Randomized h-relation protocol (Theorem 3): observed failures vs the Chernoff bound")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--trials", type=int, default=100)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    start = time.perf_counter()
    rows = measure(args.trials)
    csv_path = os.path.join(args.out, "logp_stall_frequency.csv")
    with open(csv_path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    png_path = os.path.join(args.out, "logp_stall_frequency.png")
    plot(rows, png_path, args.trials)
    print(f"wrote {csv_path} and {png_path} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
