"""Fig. 11 of Angskun et al. (papers/001): time of one next-hop computation per BMG router.

Compiled code calls ``bmg_next_hop`` in a loop over random ``(n, cur, dst)`` triples, n uniform in
16..4096 (as the paper's "given distance d in BMG size n"); the time of the whole loop divided by
the number of calls is one sample, and the median of ``--repeats`` samples is reported, raw and
minus the loop's own cost (an unknown code: same loop, dispatch falls through). bmg-bfs is timed
as the paper did, one breadth-first search per call (Algorithm 1), and separately as a lookup in
the paper's ``n x n`` table and in the ``1 x n`` offset table, at fixed n. bmg-cbe and
bmg-equiclass are also timed in the literal form (CBE of Fig. 8 on every target instead of the
O(1) weight identity plus one CBE on the chosen target). Writes
``bmg_timing.csv`` (overall and per size band) and ``bmg_timing.png``. Run:
``PYTHONPATH=. /work/venv/bin/python bench/bmg_timing.py [--out docs/figures] [--calls 200000]``
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.routing import bmg as r
from netsim_fast.routing.bmg_bits import BIG, candidate_m, largest_term, n_candidates, split_rep
from netsim_fast.routing.bmg_links import top_exp

ROUTERS = ["bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe", "bmg-equiclass", "chord",
           "bmg-bitcount-nbr", "bmg-cbe-nbr", "bmg-bfs"]
BASELINE = -1
LITERAL = {"bmg-cbe (CBE per target)": 100, "bmg-equiclass (CBE per target)": 101}
BANDS = [(16, 64), (64, 256), (256, 1024), (1024, 4096)]


LITERAL_CBE, LITERAL_EQUICLASS = LITERAL.values()
"""Bench-only codes: CBE (Fig. 8) run on every target, as the paper describes, not only on the winner."""


@njit(**JIT)
def literal_next(n, cur, dst, loops):
    """Next hop of bmg-cbe / bmg-equiclass with the loop CBE of Fig. 8 on every target (routes as the library)."""
    if cur == dst:
        return cur
    d = (dst - cur) % n
    k = top_exp(n)
    best = BIG
    jump = 0
    for j in range(n_candidates(loops)):
        t = d + candidate_m(j) * n
        w, copies, plus, minus = split_rep(t, k, True, True)
        if w < best:
            best = w
            jump = largest_term(k, copies, plus, minus)
            if t < 0:
                jump = -jump
    return (cur + jump) % n


@njit(**JIT)
def next_hop_batch(code, loops, ns, curs, dsts, table):
    """Sum of the next hops over the triples (the sum keeps the calls from being optimised away)."""
    acc = 0
    for i in range(ns.shape[0]):
        if code == LITERAL_CBE:
            acc += literal_next(ns[i], curs[i], dsts[i], 0)
        elif code == LITERAL_EQUICLASS:
            acc += literal_next(ns[i], curs[i], dsts[i], loops)
        else:
            acc += r.bmg_next_hop(code, ns[i], loops, curs[i], dsts[i], table)
    return acc


def triples(rng, calls, lo, hi):
    """``calls`` random (n, cur, dst), n uniform in lo..hi, cur != dst."""
    ns = rng.integers(lo, hi + 1, calls)
    curs = rng.integers(0, ns)
    dsts = (curs + rng.integers(1, ns)) % ns
    return ns.astype(np.int64), curs.astype(np.int64), dsts.astype(np.int64)


def sample(code, loops, ns, curs, dsts, table):
    """ns per call of one timed loop."""
    t0 = time.perf_counter_ns()
    next_hop_batch(code, loops, ns, curs, dsts, table)
    return (time.perf_counter_ns() - t0) / ns.size


def measure(cases, repeats):
    """Median ns per call of every case, and the median of its per-repeat ratio to bmg-basic.

    Cases run round-robin within a repeat, so a burst of load on the shared machine hits all of
    them alike, and the ratios to bmg-basic measured in the same repeat stay stable.
    """
    for _, code, ns, curs, dsts, table in cases:
        next_hop_batch(code, 4, ns[:2], curs[:2], dsts[:2], table)  # compile and warm up
    times = {label: [] for label, *_ in cases}
    for _ in range(repeats):
        for label, code, ns, curs, dsts, table in cases:
            times[label].append(sample(code, 4, ns, curs, dsts, table))
    ref = np.array(times["bmg-basic"]) if "bmg-basic" in times else None
    out = {}
    for label, values in times.items():
        values = np.array(values)
        ratio = float(np.median(values / ref)) if ref is not None else float("nan")
        out[label] = (float(np.median(values)), ratio)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--bfs-calls", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)

    rows = []  # (router, nodes, median ns/call, median ns/call minus the loop, ratio to bmg-basic)
    for lo, hi in [(16, 4096)] + BANDS:
        ns, curs, dsts = triples(rng, args.calls, lo, hi)
        k = args.bfs_calls
        cases = [("(loop only)", BASELINE, ns, curs, dsts, r.NO_TABLE)]
        for name in ROUTERS + list(LITERAL):
            if name == "bmg-bfs":
                cases.append(("bmg-bfs (search per call)", r.BFS, ns[:k], curs[:k], dsts[:k], r.NO_TABLE))
            else:
                code = LITERAL[name] if name in LITERAL else r.CODES[name]
                cases.append((name, code, ns, curs, dsts, r.NO_TABLE))
        res = measure(cases, args.repeats)
        base = res["(loop only)"][0]
        rows += [(label, f"{lo}-{hi}", t, t - base, ratio) for label, (t, ratio) in res.items()]
    for n in (256, 1024, 4096):
        ns = np.full(args.calls, n, np.int64)
        curs = rng.integers(0, n, args.calls)
        dsts = rng.integers(0, n, args.calls)
        res = measure([("(loop only)", BASELINE, ns, curs, dsts, r.NO_TABLE),
                       ("bmg-basic", r.BASIC, ns, curs, dsts, r.NO_TABLE),
                       ("bmg-bfs (n x n table)", r.BFS, ns, curs, dsts, r.bfs_table(n)),
                       ("bmg-bfs (1 x n offset table)", r.BFS, ns, curs, dsts, r.bfs_table(n, full=False))],
                      args.repeats)
        base = res["(loop only)"][0]
        rows += [(label, f"{n}", t, t - base, ratio) for label, (t, ratio) in res.items()
                 if label.startswith("bmg-bfs")]

    with open(out / "bmg_timing.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["router", "nodes", "ns_per_call", "ns_per_call_minus_loop", "ratio_to_basic"])
        for name, band, t, net, ratio in rows:
            writer.writerow([name, band, f"{t:.2f}", f"{net:.2f}", f"{ratio:.3f}"])

    print(f"median ns per next-hop call ({args.repeats} interleaved repeats; {args.calls} calls, "
          f"{args.bfs_calls} for the BFS search), n uniform in the band\n")
    print("| router | nodes | ns/call | minus loop | x bmg-basic |")
    print("| --- | --- | --- | --- | --- |")
    for name, band, t, net, ratio in rows:
        print(f"| {name} | {band} | {t:.1f} | {net:.1f} | {ratio:.2f} |")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    centers = [np.sqrt(lo * hi) for lo, hi in BANDS]
    names = [row[0] for row in rows if row[1] == "16-4096" and row[0] != "(loop only)"]
    for i, name in enumerate(names):
        ys = [row[2] for row in rows if row[0] == name and row[1] != "16-4096" and "-" in row[1]]
        ax.plot(centers, ys, "o-" if i < 10 else "s--", ms=3, color=plt.cm.tab20(i / 20), label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("nodes n (geometric centre of the band)")
    ax.set_ylabel("ns per next-hop call (median)")
    ax.set_title("BMG next-hop time (Fig. 11), compiled with Numba", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "bmg_timing.png", dpi=120)
    plt.close(fig)
    print(f"\nwrote {out}/bmg_timing.csv and bmg_timing.png")


if __name__ == "__main__":
    main()
