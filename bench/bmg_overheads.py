"""Tables 1-2 and the per-size series of Figs. 3, 4, 6, 9, 10 of Angskun et al. (papers/001).

For every n in 16..4096 and every router: the average-distance overhead (%) and the diameter
overhead (hops) against BFS distances. Writes

- ``bmg_series.csv``: one row per n, two columns per router (``<name>_pct``, ``<name>_hops``);
- ``bmg_tables.csv``: mean and maximum over n per router (Tables 1-2), beside the paper's values;
- ``bmg_fig3_chord.png``, ``bmg_fig4_basic_variant.png``, ``bmg_fig6_bitcount.png``,
  ``bmg_fig9_cbe.png``, ``bmg_fig10_loops.png``;

and prints the tables as markdown. Run:
``PYTHONPATH=. /work/venv/bin/python bench/bmg_overheads.py [--out docs/figures] [--nodes-to 4096]``
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from netsim_fast.analytic.bmg import overhead_series, overhead_summary

# (column label, routing, measure, loops)
RUNS = [
    ("chord", "chord", "route", 4),
    ("basic", "bmg-basic", "route", 4),
    ("variant", "bmg-variant", "route", 4),
    ("bitcount_est", "bmg-bitcount", "estimate", 4),
    ("bitcount_route", "bmg-bitcount", "route", 4),
    ("bitcount_nbr", "bmg-bitcount-nbr", "route", 4),
    ("cbe_est", "bmg-cbe", "estimate", 4),
    ("cbe_route", "bmg-cbe", "route", 4),
    ("cbe_nbr", "bmg-cbe-nbr", "route", 4),
    *[(f"equiclass_l{l}_est", "bmg-equiclass", "estimate", l) for l in range(5)],
    *[(f"equiclass_l{l}_route", "bmg-equiclass", "route", l) for l in range(5)],
    ("bfs", "bmg-bfs", "route", 4),
]

PAPER = {  # Tables 1 and 2 of papers/001: avg mean %, avg max %, D mean, D max
    "basic": ("5.555140", "11.3849", "0.454055", "2"),
    "variant": ("4.692380", "10.5893", "0.449155", "2"),
    "bitcount_est": ("25.1307", "36.2324", "2.23254", "5"),
    "cbe_est": ("1.28199", "4.43152", "0.351139", "2"),
}


def plot(path: Path, n: np.ndarray, curves: list[tuple[str, np.ndarray, np.ndarray]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(11, 3.8))
    for i, (label, pct, hops) in enumerate(curves):
        ax_a.plot(n, pct, lw=0.6, label=label)
        # dots, each curve lifted by 0.08 hops so that coinciding integer values stay visible
        ax_b.plot(n, hops + 0.08 * i, ".", ms=1.5, label=label)
    for ax, ylabel, sub in ((ax_a, "average-distance overhead (%)", "(a)"),
                            (ax_b, "diameter overhead (hops; curve i lifted by 0.08 i)", "(b)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("nodes n")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{sub} {title}", fontsize=10)
        ax.grid(alpha=0.3)
    ax_a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    parser.add_argument("--nodes-from", type=int, default=16)
    parser.add_argument("--nodes-to", type=int, default=4096)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    series, summary = {}, {}
    for label, routing, measure, loops in RUNS:
        t0 = time.perf_counter()
        s = overhead_series(routing, args.nodes_from, args.nodes_to, loops=loops, measure=measure)
        series[label] = s
        summary[label] = overhead_summary(s)
        print(f"{label:22s} {time.perf_counter() - t0:6.2f} s", flush=True)
    n = series["basic"]["n"]

    with open(out / "bmg_series.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["n", "avg_distance_opt", "diameter_opt"]
                        + [f"{label}_{kind}" for label in series for kind in ("pct", "hops")])
        for i in range(n.size):
            row = [int(n[i]), f"{series['basic']['avg_opt'][i]:.6f}", int(series["basic"]["diam_opt"][i])]
            for s in series.values():
                row += [f"{s['avg_overhead_pct'][i]:.6f}", int(s["diam_overhead"][i])]
            writer.writerow(row)

    header = ["router", "avg_pct_mean", "avg_pct_max", "diam_hops_mean", "diam_hops_max", "optimal_sizes",
              "paper_avg_pct_mean", "paper_avg_pct_max", "paper_diam_hops_mean", "paper_diam_hops_max"]
    with open(out / "bmg_tables.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for label, s in summary.items():
            writer.writerow([label, f"{s['avg_distance_overhead_pct_mean']:.6f}",
                             f"{s['avg_distance_overhead_pct_max']:.5f}", f"{s['diameter_overhead_mean']:.6f}",
                             s["diameter_overhead_max"], s["optimal_sizes"], *PAPER.get(label, ("",) * 4)])

    print(f"\nTables 1-2, n = {args.nodes_from}..{args.nodes_to} (paper in brackets)\n")
    print("| router | avg. distance overhead % mean | max | diameter overhead hops mean | max | optimal sizes |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, s in summary.items():
        ours = (f"{s['avg_distance_overhead_pct_mean']:.6f}", f"{s['avg_distance_overhead_pct_max']:.5f}",
                f"{s['diameter_overhead_mean']:.6f}", str(s["diameter_overhead_max"]))
        paper = PAPER.get(label)
        cells = [f"{v} ({p})" for v, p in zip(ours, paper)] if paper else list(ours)
        print(f"| {label} | " + " | ".join(cells) + f" | {s['optimal_sizes']} |")

    def curves(*labels):
        return [(label, series[label]["avg_overhead_pct"], series[label]["diam_overhead"]) for label in labels]

    plot(out / "bmg_fig3_chord.png", n, curves("chord"), "Chord-like greedy routing on the BMG (Fig. 3)")
    plot(out / "bmg_fig4_basic_variant.png", n, curves("basic", "variant"), "basic and variant (Fig. 4)")
    plot(out / "bmg_fig6_bitcount.png", n, curves("bitcount_est", "bitcount_route"), "bit counting (Fig. 6)")
    plot(out / "bmg_fig9_cbe.png", n, curves("cbe_est", "cbe_route"), "consecutive-bit elimination (Fig. 9)")
    plot(out / "bmg_fig10_loops.png", n, curves(*[f"equiclass_l{l}_est" for l in range(5)]),
         "equivalence classes, l loops, estimate (Fig. 10)")
    print(f"\nwrote {out}/bmg_series.csv, bmg_tables.csv and five PNGs")


if __name__ == "__main__":
    main()
