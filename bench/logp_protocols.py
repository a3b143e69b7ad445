"""Measured times of the CB tree, the sort-based and the randomized h-relation protocols on the
LogP machine, beside the paper's bounds (papers/002 section 4: T_CB, eq. (2) evaluated for
Batcher's network, 2(L+o)R of Theorem 3) and the worst case of netsim-fast's schedules.

Writes logp_protocols.csv and .png to --out (default docs/figures) and prints a Markdown table
(median over --seeds runs; relations with exactly h messages in and out per processor).

    PYTHONPATH=. /work/venv/bin/python bench/logp_protocols.py [--out docs/figures] [--seeds 5]
"""

from __future__ import annotations

import argparse
import csv
import os

import numpy as np

from netsim_fast.analytic.logp import LogPParams
from netsim_fast.studies.logp import run_protocol

MACHINES = [(8, 1, 8, 16), (16, 1, 8, 16), (32, 2, 4, 64), (64, 1, 2, 64)]
CASES = [("cb", 0), ("deterministic", 4), ("deterministic", 16), ("randomized", 16),
         ("randomized", 64)]


def measure(seeds: int):
    rows = []
    for L, o, G, p in MACHINES:
        P = LogPParams(L=L, o=o, G=G, p=p)
        for protocol, h in CASES:
            if protocol == "randomized" and h > p:
                continue
            for mode in ("max", "uniform"):
                runs = [run_protocol(P, protocol, h=max(h, 1), seed=100 * s, delay=mode)[1]
                        for s in range(seeds)]
                t = float(np.median([r["time"] for r in runs]))
                info = runs[0]
                rows.append({"protocol": protocol, "L": L, "o": o, "G": G, "p": p,
                             "capacity": P.capacity, "h": h, "delay": mode, "seeds": seeds,
                             "time_median": t, "bound": round(info["bound"], 1),
                             "time_over_bound": round(t / info["bound"], 3),
                             "schedule_bound": info.get("schedule_bound", ""),
                             "stalled_runs": sum(r["stalled"] for r in runs),
                             "late_waits": sum(r["late_waits"] for r in runs)})
    return rows


def markdown(rows):
    head = ("| protocol | L | o | G | p | ceil(L/G) | h | delay | time (median) | paper bound "
            "| time / bound | schedule bound | runs stalled |")
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        lines.append(f"| {r['protocol']} | {r['L']} | {r['o']} | {r['G']} | {r['p']} | "
                     f"{r['capacity']} | {r['h'] or '-'} | {r['delay']} | {r['time_median']:.0f} | "
                     f"{r['bound']:.0f} | {r['time_over_bound']:.2f} | {r['schedule_bound'] or '-'} | "
                     f"{r['stalled_runs']}/{r['seeds']} |")
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 4.5))
    labels = [f"{r['protocol'][:5]} h={r['h']}\nL{r['L']} G{r['G']} p{r['p']}"
              for r in rows if r["delay"] == "max"]
    x = np.arange(len(labels))
    for k, (mode, color) in enumerate((("max", "C3"), ("uniform", "C0"))):
        ratios = [r["time_over_bound"] for r in rows if r["delay"] == mode]
        ax.bar(x + (k - 0.5) * 0.4, ratios, width=0.4, color=color, label=f"delay={mode}")
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=6.5, rotation=90)
    ax.set_ylabel("measured time / paper's bound")
    ax.set_title("LogP protocols on the message-level machine: measured time over the paper's bound")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = measure(args.seeds)
    csv_path = os.path.join(args.out, "logp_protocols.csv")
    with open(csv_path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    png_path = os.path.join(args.out, "logp_protocols.png")
    plot(rows, png_path)
    print(markdown(rows))
    print(f"wrote {csv_path} and {png_path}")


if __name__ == "__main__":
    main()
