"""Section 4.3 (d >= 4): which sizes the zigzags serve, and simulated steps against Theorem 7.

    PYTHONPATH=. /work/venv/bin/python bench/gossip_4d.py [--out docs/figures] [--quick]

Part 1 (fast): for every 4-D size with n1 in {4, 8}, 3 <= n2, n3 <= 8 that meets conditions
(1)-(3), whether the printed zigzags give simple edge-disjoint cycles, and if not, whether a
variant does (``zigzag.choose_pattern``); written to gossip_4d_patterns.csv. The rows
``x_d >= d`` do not change this, so n4 = 4 stands for every n4 >= 4.

Part 2: ``simulate_gossip`` with switching and without (time-independent) on 4-D and 5-D
sizes; written to gossip_4d_steps.csv and printed as a markdown table. Step counts are exact
(deterministic); the seconds (plan search + schedules + kernel) are for orientation only.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

from netsim_fast.studies.gossip import simulate_gossip
from netsim_fast.workloads.gossip import zigzag

SIZES = [(4, 4, 4, 4), (4, 6, 4, 4), (4, 3, 4, 4), (4, 4, 4, 5), (4, 3, 4, 5), (4, 5, 4, 5),
         (4, 4, 4, 6), (4, 4, 4, 8), (4, 8, 4, 5), (4, 6, 4, 5), (8, 8, 8, 4),
         (5, 3, 3, 5, 5)]
QUICK = {(4, 4, 4, 4), (4, 6, 4, 4), (4, 3, 4, 4), (4, 4, 4, 5), (4, 3, 4, 5)}


def survey(out: Path) -> None:
    rows = []
    for n1 in (4, 8):
        for n2 in range(3, 9):
            for n3 in range(3, 9):
                dims = (n1, n2, n3, 4)
                if zigzag.conditions(dims):
                    continue
                printed = zigzag.lateral_defects(dims)
                pattern, tried, _ = zigzag.choose_pattern(dims)
                rows.append({"dims": "x".join(map(str, dims[:3])) + "xn4",
                             "printed_simple": not printed,
                             "first_defect": printed[0] if printed else "",
                             "variant": "" if pattern is None or not printed
                             else zigzag.describe(pattern),
                             "served": pattern is not None, "tables_tried": tried})
    path = out / "gossip_4d_patterns.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    n_printed = sum(r["printed_simple"] for r in rows)
    n_served = sum(r["served"] for r in rows)
    print(f"4-D sizes meeting (1)-(3) with n1 in (4, 8), 3 <= n2, n3 <= 8: {len(rows)}; "
          f"printed zigzags simple: {n_printed}; with a variant: {n_served - n_printed}; "
          f"not served: {len(rows) - n_served}")
    for r in rows:
        state = "printed" if r["printed_simple"] else (r["variant"] or "none")
        print(f"  {r['dims']}: {state}" + ("" if r["printed_simple"] else
                                           f"  [printed: {r['first_defect']}]"))
    print(f"wrote {path}\n")


def steps(out: Path, quick: bool) -> None:
    rows = []
    for dims in SIZES:
        if quick and dims not in QUICK:
            continue
        for ti in (False, True):
            t0 = time.perf_counter()
            r = simulate_gossip(dims, "gossip-one", time_independent=ti)
            variant = any("using variant" in n for n in r["notes"])
            rows.append({
                "dims": "x".join(map(str, dims)), "d": len(dims), "P": math.prod(dims),
                "variant": "time-independent" if ti else "switching",
                "zigzags": "variant" if variant else "printed",
                "rods": dims[-1] > len(dims), "steps": r["steps"],
                "theorem_steps": r["theorem_steps"], "theorem": r["theorem"],
                "lower_bound_steps": r["lower_bound_steps"],
                "theorem_minus_steps": round(r["theorem_steps"] - r["steps"], 3),
                "relayed_feeds": r["relayed_feeds"],
                "seconds": round(time.perf_counter() - t0, 1),
            })
            print(f"  {rows[-1]['dims']} {rows[-1]['variant']}: {r['steps']} steps (theorem "
                  f"{r['theorem_steps']}, lower bound {r['lower_bound_steps']}, "
                  f"{rows[-1]['seconds']} s)", flush=True)
    path = out / "gossip_4d_steps.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path}\n")
    print("| dims | zigzags | rows x_d >= d | variant | simulated | theorem | lower bound | "
          "relayed feeds |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        theo = r["theorem_steps"]
        theo = f"{theo:g}" if isinstance(theo, float) else theo
        print(f"| {r['dims']} | {r['zigzags']} | {'yes' if r['rods'] else 'no'} | "
              f"{r['variant']} | {r['steps']} | {theo} | {r['lower_bound_steps']} | "
              f"{r['relayed_feeds']} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    survey(out)
    steps(out, args.quick)


if __name__ == "__main__":
    main()
