"""Figs. 7-10 of Bieniek et al. (papers/000): cycles of store-and-forward traffic, model vs sim.

    PYTHONPATH=. /work/venv/bin/python bench/rrg_traffic.py [--out docs/figures] [--graphs 10]

Fig. 7: N = 64, r = 4, cycles vs messages per node; Fig. 8: cycles vs N at 2 messages per
node; Fig. 9: multi-node scatter (total exchange) vs N; Fig. 10: the binary de Bruijn graph
embedded by a random permutation into a random 4-regular graph, each node sending to its
out-neighbours, against the model with m = 2. Policies FIFO, SRPF, LRPF; simulation = the
packet engine (fixed lowest-port minimal paths) on ``--graphs`` graphs with graph seeds
1..G; model = ``rrg_model.predict`` (default start m_0 = 0, stop at <= 0.5 messages in
flight). Also records the load of the busiest link (packets that must cross it: a lower
bound on the cycles), the model's mean link load M E / (rN), and for Figs. 7 and 9 FIFO with
a random minimal path per hop and the busiest link when every message splits evenly over all
its shortest paths (edge betweenness). Writes rrg_fig7..10 CSV and PNG.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from netsim_fast.analytic import rrg_model as rm  # noqa: E402
from netsim_fast.studies.rrg_compare import link_loads, workload_messages  # noqa: E402
from netsim_fast.packet.run import simulate_packets  # noqa: E402
from netsim_fast.routing.table import build_minimal_table  # noqa: E402
from netsim_fast.topologies.rrg import random_regular  # noqa: E402

DEGREE = 4
POLICIES = ("fifo", "srpf", "lrpf")
COLORS = {"fifo": "tab:blue", "srpf": "tab:orange", "lrpf": "tab:green"}


def betweenness_max_load(topo, workload, m):
    """Busiest directed link when every message splits evenly over all its shortest paths.

    Unnormalised edge betweenness EB(e) of the undirected graph is the load each direction
    of e carries when every ordered pair sends one unit split evenly over its shortest paths;
    random destinations scale it by m / (N - 1).
    """
    import networkx as nx

    eb = np.fromiter(nx.edge_betweenness_centrality(topo.to_networkx(), normalized=False)
                     .values(), dtype=float)
    scale = 1.0 if workload == "total-exchange" else m / (topo.n_nodes - 1)
    return float(eb.max() * scale)


def run_point(n, workload, m, graphs, extras):
    """Simulated cycles (per policy, per graph) and link loads for one setting."""
    sims = {p: [] for p in POLICIES}
    sims["fifo_random_path"] = []
    loads, mean_loads, split_loads = [], [], []
    for g in range(graphs):
        topo = random_regular(n, DEGREE, g + 1)
        table = build_minimal_table(topo)
        msgs = workload_messages(workload, n, m, np.random.default_rng(g + 1))
        link_load = link_loads(table, topo, msgs)
        loads.append(int(link_load.max()))
        mean_loads.append(float(link_load.mean()))
        for p in POLICIES:
            sims[p].append(simulate_packets(topo, msgs, policy=p, table=table, seed=g + 1).cycles)
        if extras:
            sims["fifo_random_path"].append(simulate_packets(
                topo, msgs, path_choice="random", table=table, seed=g + 1).cycles)
            split_loads.append(betweenness_max_load(topo, workload, m))
    return sims, loads, mean_loads, split_loads


def sweep(points, workload, graphs, label, extras=False):
    rows = []
    t0 = time.perf_counter()
    for n, m in points:
        sims, loads, mean_loads, split_loads = run_point(n, workload, m, graphs, extras)
        model_m = 2 if workload == "embed-debruijn" else m
        model_w = "total-exchange" if workload == "total-exchange" else "random"
        m_total = rm.total_messages(n, model_m, model_w)
        for p in POLICIES:
            pred = rm.predict(n, DEGREE, model_m, policy=p, workload=model_w)
            rows.append(dict(
                nodes=n, messages_per_node=m, workload=workload, policy=p, graphs=graphs,
                sim_cycles_mean=np.mean(sims[p]), sim_cycles_std=np.std(sims[p], ddof=1),
                sim_cycles_min=min(sims[p]), sim_cycles_max=max(sims[p]),
                model_cycles=pred["cycles"],
                busiest_link_load_mean=np.mean(loads),
                sim_mean_link_load=np.mean(mean_loads),
                model_mean_link_load=m_total * pred["average_distance"] / (DEGREE * n),
                fifo_random_path_cycles_mean=np.mean(sims["fifo_random_path"]) if extras else np.nan,
                even_split_busiest_link_load=np.mean(split_loads) if extras else np.nan,
            ))
    print(f"{label}: {time.perf_counter() - t0:.1f} s")
    return pd.DataFrame(rows)


def plot(df, x, xlabel, title, path, logx=False, extra=None):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for p in POLICIES:
        sub = df[df.policy == p]
        ax.errorbar(sub[x], sub.sim_cycles_mean, yerr=sub.sim_cycles_std, fmt="o", ms=4,
                    color=COLORS[p], label=f"{p.upper()} simulated")
        ax.plot(sub[x], sub.model_cycles, "-", color=COLORS[p], label=f"{p.upper()} model")
    if extra is not None:
        extra(ax)
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("transmission cycles")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--graphs", type=int, default=10)
    ap.add_argument("--max-nodes", type=int, default=4096)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pd.set_option("display.width", 220)
    cols = ["nodes", "messages_per_node", "policy", "sim_cycles_mean", "sim_cycles_std",
            "sim_cycles_max", "model_cycles", "busiest_link_load_mean", "model_mean_link_load"]
    extra_cols = ["fifo_random_path_cycles_mean", "even_split_busiest_link_load"]

    fig7 = sweep([(64, m) for m in (1, 2, 4, 8, 12, 16, 24, 32, 48, 64)], "random", args.graphs,
                 "Fig. 7", extras=True)
    fig7.to_csv(out / "rrg_fig7_messages.csv", index=False)
    print(fig7[cols + extra_cols].to_string(index=False, float_format="%.2f"))
    busiest = fig7[fig7.policy == "fifo"]
    plot(fig7, "messages_per_node", "messages per node (random destinations)",
         "Fig. 7: N = 64, r = 4", out / "rrg_fig7_messages.png",
         extra=lambda ax: (
             ax.plot(busiest.messages_per_node, busiest.busiest_link_load_mean, "k:",
                     label="busiest link load, fixed paths (lower bound)"),
             ax.plot(busiest.messages_per_node, busiest.even_split_busiest_link_load, "k--",
                     label="busiest link, paths split evenly"),
             ax.plot(busiest.messages_per_node, busiest.fifo_random_path_cycles_mean, "x",
                     color=COLORS["fifo"], label="FIFO simulated, random minimal path")))

    sizes = [n for n in (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096) if n <= args.max_nodes]
    fig8 = sweep([(n, 2) for n in sizes], "random", args.graphs, "Fig. 8")
    fig8.to_csv(out / "rrg_fig8_nodes.csv", index=False)
    print(fig8[cols].to_string(index=False, float_format="%.2f"))
    plot(fig8, "nodes", "nodes N", "Fig. 8: 2 messages per node, r = 4",
         out / "rrg_fig8_nodes.png", logx=True)

    te_sizes = [n for n in (8, 16, 32, 64, 128, 256, 512) if n <= args.max_nodes]
    fig9 = sweep([(n, n - 1) for n in te_sizes], "total-exchange", args.graphs, "Fig. 9",
                 extras=True)
    fig9.to_csv(out / "rrg_fig9_total_exchange.csv", index=False)
    print(fig9[cols + extra_cols].to_string(index=False, float_format="%.2f"))
    busiest9 = fig9[fig9.policy == "fifo"]
    plot(fig9, "nodes", "nodes N", "Fig. 9: multi-node scatter, r = 4",
         out / "rrg_fig9_total_exchange.png", logx=True,
         extra=lambda ax: (
             ax.plot(busiest9.nodes, busiest9.busiest_link_load_mean, "k:",
                     label="busiest link load, fixed paths (lower bound)"),
             ax.plot(busiest9.nodes, busiest9.even_split_busiest_link_load, "k--",
                     label="busiest link, paths split evenly"),
             ax.plot(busiest9.nodes, busiest9.fifo_random_path_cycles_mean, "x",
                     color=COLORS["fifo"], label="FIFO simulated, random minimal path")))

    emb_sizes = [n for n in (8, 16, 32, 64, 128, 256, 512, 1024) if n <= args.max_nodes]
    fig10 = sweep([(n, 2) for n in emb_sizes], "embed-debruijn", args.graphs, "Fig. 10")
    fig10.to_csv(out / "rrg_fig10_embedding.csv", index=False)
    print(fig10[cols + ["sim_cycles_min"]].to_string(index=False, float_format="%.2f"))
    fifo10 = fig10[fig10.policy == "fifo"]

    def spread(ax):
        ax.fill_between(fifo10.nodes, fifo10.sim_cycles_min, fifo10.sim_cycles_max,
                        color=COLORS["fifo"], alpha=0.15, label="FIFO min..max over graphs")

    plot(fig10, "nodes", "nodes N", "Fig. 10: de Bruijn embedded randomly, 2 messages/node",
         out / "rrg_fig10_embedding.png", logx=True, extra=spread)
    print(f"wrote rrg_fig7..10 CSV and PNG into {out}")


if __name__ == "__main__":
    main()
