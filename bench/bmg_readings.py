"""Readings of the ambiguous passages of Angskun et al. (papers/001) that we did not choose.

Each reading is scored against Tables 1-2 over 16..4096 nodes (the linear ones over 16..1024,
which needs all n**2 pairs), so docs/bmg.md can show why the library reads the paper as it does:

1. CBE's stop rule "until ... the result after adding the values is more than j_m" (3.2), taken
   literally in five ways, against the library's split at the largest jump;
2. "closest ID" in Algorithm 2 as the linear ``|dst - nb|`` against the circular distance;
3. the loops of the equivalence classes (3.3): targets ``abs(d +- m n), m <= l`` plus ``n - d``
   (the library; "l >= 4" is then exactly what 16..4096 needs) against a symmetric count
   ``d + m n`` and ``(n - d) + m n``, ``m <= l``.

Writes ``bmg_readings.csv`` and prints markdown. Run:
``PYTHONPATH=. /work/venv/bin/python bench/bmg_readings.py [--out docs/figures]``
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.analytic.bmg import overhead_series, overhead_summary
from netsim_fast.routing.bmg_bfs import bfs_from_zero
from netsim_fast.routing.bmg_bits import check_11, estimate, split_weight
from netsim_fast.routing.bmg_links import popcount, top_exp

# stop rules of the literal CBE: (label, threshold, apply the add that crosses it)
NO_STOP, JM, N, TWO_JM = 0, 1, 2, 3
STOP_RULES = [
    ("stop before the sum exceeds j_m (largest power of 2 <= n)", JM, False),
    ("add, then stop once the sum exceeds j_m", JM, True),
    ("stop before the sum exceeds n", N, False),
    ("stop before the sum reaches 2 j_m (needs a jump above j_m)", TWO_JM, False),
    ("no stop rule", NO_STOP, False),
]


@njit(**JIT)
def _literal_cbe_weight(x, limit, apply_then_stop):
    plus = x
    minus = 0
    while True:
        c = check_11(plus)
        if c == 0:
            break
        if not apply_then_stop and plus + c > limit:
            break
        plus += c
        minus += c
        if apply_then_stop and plus > limit:
            break
    return popcount(plus) + popcount(minus)


@njit(**JIT)
def _stop_rule_series(rule, apply_then_stop, n_from, n_to):
    m = n_to - n_from + 1
    pct = np.empty(m)
    hops = np.empty(m, np.int64)
    under = 0
    for i in range(m):
        n = n_from + i
        k = top_exp(n)
        jm = n if n & (n - 1) == 0 else 1 << k
        if rule == JM:
            limit = jm
        elif rule == N:
            limit = n
        elif rule == TWO_JM:
            limit = (2 << k) - 1
        else:
            limit = 1 << 60
        dist = bfs_from_zero(n)[0]
        total = 0
        longest = 0
        for d in range(1, n):
            w = min(_literal_cbe_weight(d, limit, apply_then_stop),
                    _literal_cbe_weight(n - d, limit, apply_then_stop))
            if w < dist[d]:
                under += 1
            total += w
            longest = max(longest, w)
        pct[i] = (total / dist.sum() - 1) * 100
        hops[i] = longest - dist.max()
    return pct, hops, under


@njit(**JIT)
def _least_loops(n_from, n_to, symmetric, max_loops):
    """Least loop count whose estimates are all exact, per n, for one way of counting loops."""
    m = n_to - n_from + 1
    least = np.full(m, -1, np.int64)
    for i in range(m):
        n = n_from + i
        k = top_exp(n)
        dist = bfs_from_zero(n)[0]
        for level in range(max_loops + 1):
            exact = True
            for d in range(1, n):
                if symmetric:
                    w = 1 << 40
                    for mm in range(level + 1):
                        w = min(w, split_weight(d + mm * n, k, True), split_weight(n - d + mm * n, k, True))
                else:
                    w = estimate(n, d, level, True)
                if w != dist[d]:
                    exact = False
                    break
            if exact:
                least[i] = level
                break
    return least


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []

    print("1. CBE estimate, 16..4096 (paper: 1.28199 / 4.43152 / 0.351139 / 2)\n")
    print("| reading | avg % mean | avg % max | D mean | D max | distances undercounted |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, rule, apply_then_stop in STOP_RULES:
        pct, hops, under = _stop_rule_series(rule, apply_then_stop, 16, 4096)
        cells = [f"{pct.mean():.6f}", f"{pct.max():.5f}", f"{hops.mean():.6f}", str(hops.max()), str(under)]
        rows.append(["cbe", label, *cells])
        print(f"| {label} | " + " | ".join(cells) + " |")
    s = overhead_summary(overhead_series("bmg-cbe", 16, 4096, measure="estimate"))
    cells = [f"{s['avg_distance_overhead_pct_mean']:.6f}", f"{s['avg_distance_overhead_pct_max']:.5f}",
             f"{s['diameter_overhead_mean']:.6f}", str(s["diameter_overhead_max"]), "0"]
    rows.append(["cbe", "library: c copies of the largest jump + CBE of the rest", *cells])
    print("| library: c copies of the largest jump + CBE of the rest | " + " | ".join(cells) + " |")

    print("\n2. closest ID, 16..1024\n")
    print("| routing | avg % mean | avg % max | D mean | D max |")
    print("| --- | --- | --- | --- | --- |")
    for name in ("bmg-basic", "bmg-basic-linear", "bmg-variant", "bmg-variant-linear"):
        s = overhead_summary(overhead_series(name, 16, 1024))
        cells = [f"{s['avg_distance_overhead_pct_mean']:.6f}", f"{s['avg_distance_overhead_pct_max']:.5f}",
                 f"{s['diameter_overhead_mean']:.6f}", str(s["diameter_overhead_max"])]
        rows.append(["closest-id", name, *cells, ""])
        print(f"| {name} | " + " | ".join(cells) + " |")

    print("\n3. least loop count with exact estimates, 16..4096\n")
    print("| loop counting | l=0 | l=1 | l=2 | l=3 | l=4 | l>4 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, symmetric in (("library: d, abs(d +- m n) (m <= l), n - d", False),
                             ("symmetric: d + m n, (n - d) + m n (m <= l)", True)):
        least = _least_loops(16, 4096, symmetric, 8)
        counts = [int((least == l).sum()) for l in range(5)] + [int(((least > 4) | (least < 0)).sum())]
        rows.append(["loops", label, *counts])
        print(f"| {label} | " + " | ".join(map(str, counts)) + " |")

    with open(out / "bmg_readings.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["question", "reading", "v1", "v2", "v3", "v4", "v5", "v6"])
        writer.writerows(rows)
    print(f"\nwrote {out}/bmg_readings.csv")


if __name__ == "__main__":
    main()
