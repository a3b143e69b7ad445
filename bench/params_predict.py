"""Predict BSP programs from the fitted g and ell and compare with their cycle-accurate runs.

For each network and engine: ``measure_params`` fits g and ell (random h-relations, each
followed by the BFS-tree barrier, h = 1..32); then three BSP programs run on the same engine,
every superstep followed by the same barrier (``workloads.bsp_programs``,
``engine.phased_run``):

- ``total-exchange``: one superstep, every node one message to every other (h = p - 1), in
  shift order (all nodes send with the same offset at once);
- ``total-exchange-random``: the same messages, each node in its own random order;
- ``prefix``: the doubling scan, ceil(log2 p) supersteps of h = 1;
- ``sample-sort``: regular sampling with 32 keys per node: gather samples (h = p - 1 at node
  0), broadcast splitters (h = p - 1 from node 0), move the keys (h = largest bucket traffic).

On the flit engine random regular graphs and BMG use ``minimal`` table routing with ``vcs`` =
the longest route (one VC per hop class, the fewest the engine accepts); tori and hypercubes
``dor`` with 4 VCs.

The BSP prediction is ``sum_s (g h_s + ell)`` (w = 0: local work is not simulated); the error
is ``predicted / measured - 1``. Writes ``params_predict.csv`` (one row per program run,
with the per-superstep h and times) and prints the table as markdown.

    PYTHONPATH=. /work/venv/bin/python bench/params_predict.py --out docs/figures   # ~2 min
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from netsim_fast.config import Config
from netsim_fast.studies.params import ParamsSpec, measure_params
from netsim_fast.studies.phased import EngineRunner, run_program, step_times
from netsim_fast.routing import TABLE_ROUTINGS
from netsim_fast.routing.table import all_pairs_distances
from netsim_fast.routing.tables import fewest_vcs
from netsim_fast.topologies import build_topology
from netsim_fast.workloads import bsp_programs as bp

H = (1, 2, 4, 8, 16, 32)
KEYS_PER_NODE = 32
NETWORKS = [
    ("torus 8x8", dict(topology="torus", k=8)),
    ("torus 16x16", dict(topology="torus", k=16)),
    ("torus 6x6x6", dict(topology="torus", k=6, n=3)),
    ("hypercube 2^6", dict(topology="hypercube", n=6)),
    ("hypercube 2^8", dict(topology="hypercube", n=8)),
    ("rrg 64, r=4", dict(topology="rrg", nodes=64, degree=4)),
    ("rrg 256, r=4", dict(topology="rrg", nodes=256, degree=4)),
    ("BMG 64", dict(topology="bmg", nodes=64)),
    ("BMG 256", dict(topology="bmg", nodes=256)),
]


def programs(p: int, seed: int):
    steps, _ = bp.sample_sort(p, KEYS_PER_NODE, seed=seed)
    return [("total-exchange", bp.total_exchange(p)),
            ("total-exchange-random", bp.total_exchange(p, order="random", seed=seed)),
            ("prefix", bp.prefix_doubling(p)), ("sample-sort", steps)]


def run_case(name: str, net: dict, engine: str, seed: int) -> list[dict]:
    cfg = Config(engine=engine, pattern="random", seed=seed, **net)
    topo = build_topology(cfg)
    if engine == "flit" and cfg.routing in TABLE_ROUTINGS:
        # One VC per hop class, the fewest the flit engine accepts (as in params_table1.py).
        cfg = Config(engine=engine, pattern="random", seed=seed, vcs=fewest_vcs(topo, cfg.routing, cfg.loops), **net)
    fitted = measure_params(cfg, ParamsSpec(h=H, reps=2 if engine == "packet" else 1, pairs=16), topology=topo)
    g, ell = fitted["g"], fitted["ell"]
    runner = EngineRunner(cfg, topo)
    tree = bp.bfs_tree(topo, all_pairs_distances(topo))
    flits = cfg.packet_flits if engine == "flit" else 1
    rows = []
    for program, steps in programs(topo.n_nodes, seed):
        start = time.perf_counter()
        prog = bp.phased_program(steps, tree, data_flits=flits)
        times = run_program(runner, prog, 0)
        _, done = step_times(prog, times, len(steps))
        hs = [bp.degree(s, d, topo.n_nodes) for s, d in steps]
        measured = int(done[-1])
        predicted = float(sum(g * h + ell for h in hs))
        rows.append({
            "network": name, "engine": engine, "p": topo.n_nodes, "program": program,
            "supersteps": len(steps), "h": " ".join(map(str, hs)), "g": g, "ell": ell,
            "fit_r2_bsp": fitted["fit_r2_bsp"], "measured": measured, "predicted": predicted,
            "error": predicted / measured - 1.0,
            "step_cycles": " ".join(map(str, np.diff(np.concatenate([[0], done])).tolist())),
            "seconds": time.perf_counter() - start,
        })
        r = rows[-1]
        print(f"{name:14s} {engine:6s} {program:21s} h={r['h'][:30]:30s} measured={measured:7d} "
              f"predicted={predicted:9.0f} error={100 * r['error']:+6.1f}%  ({r['seconds']:.1f} s)", flush=True)
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| network | engine | p | g | ell | program | supersteps | h per superstep | measured | predicted | error |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        h = r["h"] if len(r["h"]) <= 24 else f"{r['h'].split()[0]} (all {r['supersteps']})" \
            if len(set(r["h"].split())) == 1 else r["h"]
        lines.append(f"| {r['network']} | {r['engine']} | {r['p']} | {r['g']:.3g} | {r['ell']:.4g} | "
                     f"{r['program']} | {r['supersteps']} | {h} | {r['measured']} | {r['predicted']:.0f} | "
                     f"{100 * r['error']:+.1f} % |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rows = []
    for name, net in NETWORKS:
        for engine in ("flit", "packet"):
            rows += run_case(name, net, engine, args.seed)
    with (out / "params_predict.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print()
    print(markdown(rows))
    errors = np.abs([r["error"] for r in rows])
    print(f"\n|error| median {100 * np.median(errors):.1f} %, max {100 * errors.max():.1f} %; "
          f"{time.perf_counter() - start:.0f} s; wrote {out}/params_predict.csv")


if __name__ == "__main__":
    main()
