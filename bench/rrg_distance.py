"""Figs. 3-6 of Bieniek et al. (papers/000): distances and diameters, model vs measured.

    PYTHONPATH=. /work/venv/bin/python bench/rrg_distance.py [--out docs/figures] [--graphs 10]

Writes rrg_fig3_avg_distance, rrg_fig4_distance_distribution, rrg_fig5_diameter and
rrg_fig6_degree (.csv and .png) into ``--out`` and prints the tables. Measured values are
means over ``--graphs`` random 4-regular graphs (graph seeds 1..G, lead's ``random_regular``)
and the undirected binary de Bruijn graph of the same size.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from netsim_fast.analytic import rrg_model as rm  # noqa: E402
from netsim_fast.routing.table import all_pairs_distances  # noqa: E402
from netsim_fast.topologies.debruijn import debruijn  # noqa: E402
from netsim_fast.topologies.rrg import random_regular  # noqa: E402

DEGREE = 4


def distance_stats(topo) -> tuple[float, int, np.ndarray]:
    """(mean distance over distinct pairs, diameter, mean nodes per distance 0..D)."""
    d = all_pairs_distances(topo).astype(np.int64)
    n = d.shape[0]
    counts = np.bincount(d.ravel()) / n
    return float(d.sum() / (n * (n - 1))), int(d.max()), counts


def measure(sizes, graphs):
    rows, dist_counts = [], {}
    for n in sizes:
        avg, diam, counts = [], [], []
        for g in range(graphs):
            a, dm, c = distance_stats(random_regular(n, DEGREE, g + 1))
            avg.append(a)
            diam.append(dm)
            counts.append(c)
        width = max(c.size for c in counts)
        mean_counts = np.mean([np.pad(c, (0, width - c.size)) for c in counts], axis=0)
        db_avg, db_diam, db_counts = distance_stats(debruijn(2, n))
        dist_counts[n] = (mean_counts, db_counts)
        rows.append(dict(
            nodes=n, graphs=graphs,
            rrg_avg_distance=np.mean(avg), rrg_avg_distance_std=np.std(avg),
            model_avg_distance=rm.average_distance(n, DEGREE),
            model_expected_distance_Ep=rm.expected_distance(n, DEGREE),
            debruijn_avg_distance=db_avg,
            rrg_diameter_mean=np.mean(diam), rrg_diameter_max=max(diam),
            debruijn_diameter=db_diam,
            eq7_diameter_1e_2=rm.diameter_estimate(n, DEGREE, 1e-2),
            eq7_diameter_1e_6=rm.diameter_estimate(n, DEGREE, 1e-6),
            theorem1_upper=rm.theorem1_upper(n, DEGREE),
            theorem2_lower=rm.theorem2_lower(n, DEGREE),
        ))
    return pd.DataFrame(rows), dist_counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--graphs", type=int, default=10)
    ap.add_argument("--max-nodes", type=int, default=2048)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    sizes = [n for n in (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096) if n <= args.max_nodes]
    table, dist_counts = measure(sizes, args.graphs)
    pd.set_option("display.width", 200)

    # Fig. 3: average distance
    fig3 = table[["nodes", "rrg_avg_distance", "rrg_avg_distance_std", "model_avg_distance",
                  "model_expected_distance_Ep", "debruijn_avg_distance"]]
    fig3.to_csv(out / "rrg_fig3_avg_distance.csv", index=False)
    print("Fig. 3 average distance (random 4-regular: mean of", args.graphs, "graphs)")
    print(fig3.to_string(index=False, float_format="%.3f"))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(table.nodes, table.rrg_avg_distance, yerr=table.rrg_avg_distance_std, fmt="o",
                label="random 4-regular (measured)")
    ax.plot(table.nodes, table.model_avg_distance, "-", label="model (distinct pairs)")
    ax.plot(table.nodes, table.model_expected_distance_Ep, ":", label="model $E^p$ (eq. 6)")
    ax.plot(table.nodes, table.debruijn_avg_distance, "s--", label="de Bruijn (binary)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("nodes N")
    ax.set_ylabel("average distance")
    ax.legend()
    ax.set_title("Fig. 3: measured distance vs model")
    fig.tight_layout()
    fig.savefig(out / "rrg_fig3_avg_distance.png", dpi=120)
    plt.close(fig)

    # Fig. 4: distance distribution at N = 64
    n = 64
    model = n * rm.distance_distribution(n, DEGREE)
    rrg_counts, db_counts = dist_counts[n]
    width = max(len(rrg_counts), len(db_counts), 9)
    df4 = pd.DataFrame({
        "distance": np.arange(width),
        "model_N_P_i": np.pad(model, (0, max(0, width - model.size)))[:width],
        "rrg_mean_nodes": np.pad(rrg_counts, (0, width - rrg_counts.size)),
        "debruijn_mean_nodes": np.pad(db_counts, (0, width - db_counts.size)),
    })
    df4.to_csv(out / "rrg_fig4_distance_distribution.csv", index=False)
    print("\nFig. 4 nodes at distance i, N = 64")
    print(df4.to_string(index=False, float_format="%.3f"))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(df4.distance, df4.model_N_P_i, "-o", label="model $N P_i(D)$")
    ax.plot(df4.distance, df4.rrg_mean_nodes, "s", label="random 4-regular (measured)")
    ax.plot(df4.distance, df4.debruijn_mean_nodes, "^--", label="de Bruijn (binary)")
    ax.set_xlabel("distance i")
    ax.set_ylabel("nodes at distance i")
    ax.legend()
    ax.set_title("Fig. 4: distance distribution, N = 64")
    fig.tight_layout()
    fig.savefig(out / "rrg_fig4_distance_distribution.png", dpi=120)
    plt.close(fig)

    # Fig. 5: diameter
    fig5 = table[["nodes", "rrg_diameter_mean", "rrg_diameter_max", "debruijn_diameter",
                  "eq7_diameter_1e_2", "eq7_diameter_1e_6", "theorem1_upper", "theorem2_lower"]]
    fig5.to_csv(out / "rrg_fig5_diameter.csv", index=False)
    print("\nFig. 5 diameter")
    print(fig5.to_string(index=False, float_format="%.2f"))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(table.nodes, table.rrg_diameter_mean, "o", label="random 4-regular mean")
    ax.plot(table.nodes, table.rrg_diameter_max, "v", label="random 4-regular max")
    ax.plot(table.nodes, table.debruijn_diameter, "s--", label="de Bruijn")
    ax.step(table.nodes, table.eq7_diameter_1e_2, where="mid", label="eq. (7), $10^{-2}$")
    ax.step(table.nodes, table.eq7_diameter_1e_6, where="mid", label="eq. (7), $10^{-6}$")
    ax.plot(table.nodes, table.theorem1_upper, "k-", label="Theorem 1 (upper)")
    ax.plot(table.nodes, table.theorem2_lower, "k:", label="Theorem 2 (lower)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("nodes N")
    ax.set_ylabel("diameter")
    ax.legend(fontsize=8)
    ax.set_title("Fig. 5: diameter, bounds and estimates")
    fig.tight_layout()
    fig.savefig(out / "rrg_fig5_diameter.png", dpi=120)
    plt.close(fig)

    # Fig. 6: modelled average distance vs degree
    degrees = list(range(3, 17))
    node_counts = [64, 256, 1024, 4096, 16384]
    rows = []
    for nn in node_counts:
        for r in degrees:
            if (nn * r) % 2 == 0 and r < nn:
                rows.append(dict(nodes=nn, degree=r, model_avg_distance=rm.average_distance(nn, r)))
    df6 = pd.DataFrame(rows)
    df6.to_csv(out / "rrg_fig6_degree.csv", index=False)
    print("\nFig. 6 modelled average distance vs degree")
    print(df6.pivot(index="degree", columns="nodes", values="model_avg_distance")
          .to_string(float_format="%.3f"))
    fig, ax = plt.subplots(figsize=(6, 4))
    for nn in node_counts:
        sub = df6[df6.nodes == nn]
        ax.plot(sub.degree, sub.model_avg_distance, "-o", ms=3, label=f"N = {nn}")
    ax.set_xlabel("degree r")
    ax.set_ylabel("modelled average distance")
    ax.legend()
    ax.set_title("Fig. 6: modelled distance vs degree and size")
    fig.tight_layout()
    fig.savefig(out / "rrg_fig6_degree.png", dpi=120)
    plt.close(fig)
    print(f"\nwrote rrg_fig3..6 CSV and PNG into {out}")


if __name__ == "__main__":
    main()
