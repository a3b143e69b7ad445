"""BMG beside a torus, a hypercube and random regular graphs of similar degree, same traffic.

Networks of 256 nodes: the 256-node BMG (degree 15, papers/001), a random 15-regular graph,
the 8-dimensional hypercube (degree 8), the 16x16 torus (degree 4) and a random 4-regular
graph. Two experiments:

1. packet engine (store-and-forward, papers/000's model): cycles to deliver m = 16 random
   messages per node, FIFO queues, shortest paths (BMG: the optimal table-free router
   bmg-equiclass; torus and hypercube: dor), median of 3 seeds;
2. flit engine (wormhole, paper 004's router): mean latency of 8-flit packets under uniform
   traffic at increasing load until saturation; table routings use one VC class per hop, so
   they get as many VCs as their longest route needs; the torus runs dor with 4 VCs.

    PYTHONPATH=. python bench/bmg_compare.py --out docs/figures
"""

from __future__ import annotations

import argparse
import csv
import statistics
from pathlib import Path

NETWORKS = {
    "bmg-256 (deg 15)": dict(topology="bmg", nodes=256, routing="bmg-equiclass"),
    "rrg-256 (deg 15)": dict(topology="rrg", nodes=256, degree=15),
    "hypercube-8 (deg 8)": dict(topology="hypercube", n=8),
    "torus-16x16 (deg 4)": dict(topology="torus", k=16),
    "rrg-256 (deg 4)": dict(topology="rrg", nodes=256, degree=4),
}
RATES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def packet_runs(seeds=(1, 2, 3), messages=16):
    import netsim_fast
    from netsim_fast.config import Config

    rows = []
    for name, fields in NETWORKS.items():
        routing = fields.get("routing") or ("dor" if fields["topology"] in ("torus", "hypercube") else "minimal")
        cycles, hops = [], []
        for seed in seeds:
            cfg = Config(engine="packet", pattern="random", messages=messages, seed=seed,
                         **{**fields, "routing": routing})
            res = netsim_fast.simulate(cfg)
            cycles.append(res["completion_cycles"])
            hops.append(res["hops_mean"])
        rows.append(dict(network=name, routing=routing, messages_per_node=messages,
                         cycles_median=statistics.median(cycles), hops_mean=statistics.mean(hops)))
        print(f"packet  {name:22s} {routing:14s} cycles {rows[-1]['cycles_median']:7.1f}  hops {rows[-1]['hops_mean']:.2f}")
    return rows


def flit_runs():
    import netsim_fast
    from netsim_fast.config import Config
    from netsim_fast.routing.tables import hop_classes, route_table
    from netsim_fast.topologies import build_topology

    rows = []
    for name, fields in NETWORKS.items():
        if fields["topology"] == "torus":
            extra = dict(routing="dor", vcs=4)
        else:
            base = Config(**fields)
            topo = build_topology(base)
            classes = hop_classes(route_table(topo, base.routing, base.loops))
            extra = dict(vcs=max(classes, 2) if fields["topology"] != "hypercube" else 4)
            if fields["topology"] == "hypercube":
                extra = dict(routing="dor", vcs=2)
        for rate in RATES:
            # latency_limit=0: saturated points run their whole window, so "accepts X" is measured
            # over the same 3000 cycles at every rate (the figures in docs/bmg.md)
            cfg = Config(pattern="uniform", rate=rate, packet_flits=8, warmup=1000, measure=3000, drain=6000,
                         latency_limit=0,
                         **{**fields, **extra})
            res = netsim_fast.simulate(cfg)
            rows.append(dict(network=name, routing=cfg.routing, vcs=cfg.vcs, rate=rate,
                             accepted=res["accepted_load"], latency_mean=res["latency_mean"],
                             saturated=res["saturated"], capacity=res["capacity"]))
            print(f"flit    {name:22s} rate {rate:4.2f} accepted {res['accepted_load']:.3f} "
                  f"latency {res['latency_mean'] if res['latency_mean'] is not None else 'saturated'}")
            if res["saturated"]:
                break
    return rows


def draw(packet, flit, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.bar(range(len(packet)), [r["cycles_median"] for r in packet], color="tab:blue")
    a.set_xticks(range(len(packet)), [r["network"] for r in packet], rotation=25, ha="right", fontsize=8)
    a.set_ylabel("cycles to deliver 16 random messages/node")
    a.set_title("packet engine (store-and-forward)")
    for name in NETWORKS:
        pts = [r for r in flit if r["network"] == name and r["latency_mean"] is not None]
        b.plot([r["accepted"] for r in pts], [r["latency_mean"] for r in pts], "o-", label=name)
    b.set_xlabel("accepted load (flits/node/cycle)")
    b.set_ylabel("mean latency (cycles)")
    b.set_title("flit engine (wormhole), uniform, 8-flit packets")
    b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "bmg_compare.png", dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/figures")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    packet, flit = packet_runs(), flit_runs()
    for name, rows in (("bmg_compare_packet.csv", packet), ("bmg_compare_flit.csv", flit)):
        with open(out / name, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    draw(packet, flit, out)
    print(f"wrote {out / 'bmg_compare.png'} and CSVs")


if __name__ == "__main__":
    main()
