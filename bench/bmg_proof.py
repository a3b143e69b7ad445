"""Proof by exhaustion: bmg-equiclass with l loops routes every pair of every BMG in a range on a
shortest path (Angskun et al., papers/001, section 3.3: "l >= 4 gives the optimal result").

For each n: BFS distances of every clockwise distance d, the routed length of every d from the
engine-facing ``bmg_next_hop`` (memoised), and the least l whose routes, and whose estimates, are
all shortest. Writes ``bmg_min_loops.csv`` and ``bmg_min_loops.png``; prints the histogram of the
least l, the sizes that need l = 4, the counterexamples at l = 3, and the wall time. Run:
``PYTHONPATH=. /work/venv/bin/python bench/bmg_proof.py [--out docs/figures]``
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from netsim_fast.analytic.bmg import equiclass_proof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    parser.add_argument("--nodes-from", type=int, default=16)
    parser.add_argument("--nodes-to", type=int, default=4096)
    parser.add_argument("--loops", type=int, default=4)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    equiclass_proof(16, 17, loops=args.loops)  # compile outside the timed run
    t0 = time.perf_counter()
    res = equiclass_proof(args.nodes_from, args.nodes_to, loops=args.loops)
    seconds = time.perf_counter() - t0
    n = res["n"]
    print(f"n = {args.nodes_from}..{args.nodes_to}, l = {args.loops}: "
          f"{int(res['optimal'].sum())}/{n.size} sizes route every distance on a shortest path "
          f"({seconds:.1f} s wall, least l searched up to 8)")
    for key in ("min_loops", "min_loops_estimate"):
        values, counts = np.unique(res[key], return_counts=True)
        print(f"least l ({key}): " + ", ".join(f"l={v}: {c} sizes" for v, c in zip(values, counts)))
    print("sizes needing l = 4:", " ".join(str(v) for v in n[res["min_loops"] == 4]))
    for row in res["counterexamples"][:10]:
        print("counterexample (n, d, shortest, estimate, routed):", tuple(int(v) for v in row))

    below = equiclass_proof(args.nodes_from, args.nodes_to, loops=3)
    print(f"with l = 3: {int(below['optimal'].sum())}/{n.size} sizes optimal; first counterexamples:")
    for row in below["counterexamples"][:5]:
        print("  (n, d, shortest, estimate, routed) =", tuple(int(v) for v in row))

    with open(out / "bmg_min_loops.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["n", "min_loops_route", "min_loops_estimate", f"optimal_at_l{args.loops}"])
        for i in range(n.size):
            writer.writerow([int(n[i]), int(res["min_loops"][i]), int(res["min_loops_estimate"][i]),
                             int(res["optimal"][i])])

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.2))
    ax.plot(n, res["min_loops_estimate"] + 0.1, ".", ms=1.5, label="estimates exact (lifted 0.1)")
    ax.plot(n, res["min_loops"], ".", ms=1.5, label="routes shortest")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("nodes n")
    ax.set_ylabel("least loops l")
    ax.set_title("bmg-equiclass: least l with every distance optimal", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, markerscale=6)
    fig.tight_layout()
    fig.savefig(out / "bmg_min_loops.png", dpi=120)
    plt.close(fig)
    print(f"wrote {out}/bmg_min_loops.csv and bmg_min_loops.png")


if __name__ == "__main__":
    main()
