"""Simulated gossip step counts beside the paper's theorems and the volume lower bound.

    PYTHONPATH=. /work/venv/bin/python bench/gossip_steps.py [--out docs/figures] [--quick]

For every case of Meyer & Sibeyn (papers/003) - two packets on 2-D tori (sections 3.1, 3.2 in
both orientations, our odd x odd construction for 3.3, the four-packet time-independent
variant), one packet along zigzag cycles in 2-D, 3-D and 4-D with and without switching (more 4-D and
5-D sizes: bench/gossip_4d.py) -
runs ``simulate_gossip`` and writes gossip_steps.csv plus a markdown table on stdout. Step
counts are exact (deterministic); the wall times are for orientation only.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

from netsim_fast.studies.gossip import simulate_gossip

CASES = [
    ("gossip-ham", False, [(4, 4), (8, 8), (6, 8), (16, 16), (32, 32), (64, 64)]),
    ("gossip-ham", False, [(6, 7), (7, 6), (4, 5), (10, 7), (16, 15), (15, 16), (32, 31)]),
    ("gossip-ham", False, [(3, 3), (5, 5), (7, 9), (15, 15), (31, 31)]),
    ("gossip-ham", True, [(6, 7), (16, 15)]),
    ("gossip-one", False, [(4, 3), (6, 5), (8, 8), (16, 16), (32, 32), (64, 64)]),
    ("gossip-one", True, [(4, 3), (6, 5), (8, 8), (16, 16), (32, 32), (64, 64)]),
    ("gossip-one", False, [(3, 3, 3), (3, 6, 5), (6, 6, 6), (12, 12, 12)]),
    ("gossip-one", True, [(3, 3, 3), (3, 6, 5), (6, 6, 6), (12, 12, 12)]),
    ("gossip-one", False, [(4, 4, 4, 4), (4, 6, 4, 4), (4, 4, 4, 5), (4, 3, 4, 5)]),
    ("gossip-one", True, [(4, 4, 4, 4), (4, 6, 4, 4), (4, 4, 4, 5), (4, 3, 4, 5)]),
]
QUICK = {(4, 4), (6, 7), (7, 6), (5, 5), (6, 8), (8, 8), (3, 3, 3), (4, 4, 4, 4), (4, 4, 4, 5)}
FIELDS = ["algorithm", "variant", "dims", "section", "P", "packets_per_pu", "steps",
          "theorem_steps", "theorem", "lower_bound_steps", "theorem1_bound", "theorem_minus_steps",
          "relayed_feeds", "buffered", "seconds"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for algorithm, ti, sizes in CASES:
        for dims in sizes:
            if args.quick and dims not in QUICK:
                continue
            t0 = time.perf_counter()
            r = simulate_gossip(dims, algorithm, time_independent=ti)
            theo = r["theorem_steps"]
            rows.append({
                "algorithm": algorithm,
                "variant": "time-independent" if r["time_independent"] else "switching",
                "dims": "x".join(map(str, dims)), "section": r["section"], "P": r["n_nodes"],
                "packets_per_pu": r["packets_per_pu"], "steps": r["steps"],
                "theorem_steps": theo, "theorem": r["theorem"],
                "lower_bound_steps": r["lower_bound_steps"],
                "theorem1_bound": r["theorem1_bound"],
                "theorem_minus_steps": None if theo is None else round(theo - r["steps"], 3),
                "relayed_feeds": r["relayed_feeds"], "buffered": r["buffered"],
                "seconds": round(time.perf_counter() - t0, 2),
            })
            print(f"  {algorithm} {rows[-1]['variant']} {rows[-1]['dims']}: {r['steps']} steps "
                  f"(theorem {theo}, lower bound {r['lower_bound_steps']})", flush=True)
    path = out / "gossip_steps.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path}\n")
    print("| section | variant | dims | k | simulated | theorem | lower bound | theorem - sim |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        theo = "-" if row["theorem_steps"] is None else f"{row['theorem_steps']} ({row['theorem']})"
        diff = "-" if row["theorem_minus_steps"] is None else row["theorem_minus_steps"]
        print(f"| {row['section']} | {row['variant']} | {row['dims']} | {row['packets_per_pu']} | "
              f"{row['steps']} | {theo} | {row['lower_bound_steps']} | {diff} |")


if __name__ == "__main__":
    main()
