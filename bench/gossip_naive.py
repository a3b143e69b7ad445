"""The unicast baseline of gossip (gossip-naive) beside gossip-one and the volume lower bound.

    PYTHONPATH=. /work/venv/bin/python bench/gossip_naive.py [--out docs/figures]

Issue 7's baseline "a user would try first": every PU sends its packet to every other PU as
unicast messages in shift order (papers/003, section 1). Everything runs through
``netsim_fast.simulate(Config(...))``, the same path as ``netsim-fast run``:

* ``gossip-one`` (packet engine, forwarding rules, one packet per PU) in steps;
* ``gossip-naive`` on the packet engine (store-and-forward, one packet per link and cycle, so a
  cycle is a step) with FIFO queues and fixed (lowest-port) or random minimal paths;
* ``gossip-naive`` on the flit engine (wormhole, dor, 1-flit packets, default router delays),
  in cycles, with one routing unit per router (the default: one header per cycle) and with
  unlimited routing units (``--headers-per-cycle 0``).

Writes gossip_naive.csv and gossip_naive.png and prints a markdown table. The step and cycle
counts are exact (deterministic for the seed); wall times are not recorded.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import netsim_fast as nf
from netsim_fast.config import Config

SIZES = [(8, 8), (16, 16), (6, 6, 6)]
RUNS = [
    ("gossip-one", dict(engine="packet", pattern="gossip-one")),
    ("naive packet fifo fixed", dict(engine="packet", pattern="gossip-naive")),
    ("naive packet fifo random-path", dict(engine="packet", pattern="gossip-naive", path_choice="random")),
    ("naive packet lrpf random-path", dict(engine="packet", pattern="gossip-naive", policy="lrpf", path_choice="random")),
    ("naive flit wormhole 1-flit", dict(engine="flit", pattern="gossip-naive", packet_flits=1)),
    ("naive flit, unlimited routing units", dict(engine="flit", pattern="gossip-naive", packet_flits=1,
                                                  headers_per_cycle=0)),
]
FIELDS = ["dims", "P", "run", "steps_or_cycles", "lower_bound_steps", "ratio_to_bound", "theorem_steps"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for dims in SIZES:
        for name, kwargs in RUNS:
            s = nf.simulate(Config(topology="torus", dims=dims, seed=1, **kwargs))
            count = s["steps"] if "steps" in s else s["completion_cycles"]
            rows.append({"dims": "x".join(map(str, dims)), "P": s.get("n_nodes") or _prod(dims), "run": name,
                         "steps_or_cycles": count, "lower_bound_steps": s["lower_bound_steps"],
                         "ratio_to_bound": round(count / s["lower_bound_steps"], 3),
                         "theorem_steps": s["theorem_steps"]})
            print(f"  {rows[-1]['dims']:>8} {name:<32} {count}", flush=True)
    with open(out / "gossip_naive.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    _plot(rows, out / "gossip_naive.png")
    print("\n| dims | lower bound | " + " | ".join(name for name, _ in RUNS) + " |")
    print("|---" * (len(RUNS) + 2) + "|")
    for dims in SIZES:
        key = "x".join(map(str, dims))
        mine = [r for r in rows if r["dims"] == key]
        cells = [f"{r['steps_or_cycles']} ({r['ratio_to_bound']:.2f}x)" for r in mine]
        print(f"| {key} | {mine[0]['lower_bound_steps']} | " + " | ".join(cells) + " |")


def _prod(dims):
    p = 1
    for k in dims:
        p *= k
    return p


def _plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    sizes = sorted({r["dims"] for r in rows}, key=lambda d: [r["dims"] for r in rows].index(d))
    names = [name for name, _ in RUNS]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        ratios = [next(r["ratio_to_bound"] for r in rows if r["dims"] == d and r["run"] == name) for d in sizes]
        ax.bar(np.arange(len(sizes)) + i * width, ratios, width, label=name)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(sizes)) + 0.4 - width / 2)
    ax.set_xticklabels(sizes)
    ax.set_yscale("log")
    ax.set_ylabel("steps (cycles) / lower bound ceil((P-1)/2d)")
    ax.set_title("gossip: forwarding rules vs unicast all-to-all")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
