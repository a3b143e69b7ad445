"""Kim et al. (ISCA 2008) on the flit engine: minimal, valiant, ugal-l and ugal-g on a balanced
dragonfly, uniform and worst-case traffic, lanes router, with long global links.

    PYTHONPATH=. python bench/dragonfly.py [--large] [--global-latency 10] [--local-latency 1]
                                           [--buf 32] [--out docs/figures] [--quick]

The network: P = 2, A = 4, H = 2, G = 9 (72 terminals), or with ``--large`` P = 4, A = 8, H = 4,
G = 33 (1056 terminals, BookSim2's dragonfly example). Links between groups take
``--global-latency`` cycles (default 10), links inside a group ``--local-latency`` (default 1,
the ``--t-link``), credits alike (flit/wires.py). Lanes router, 6 VCs (two per VC class of
valiant and ugal-*, two per hop class of minimal), 8-flit packets (the default), ``--buf``
flits per input lane (default 32), a routing unit per header (``--headers-per-cycle 0``: with
the engine's default of one header routed per router and cycle, the large dragonfly's 15-port
routers cap every routing at 8 / 15 = 0.53 flits per port and cycle, the routing unit's limit,
not the network's; Kim et al.'s routers route every input in parallel). The buffers hold the credit round trip: a flit sent on a
link of latency L at t arrives at t + L, can leave its lane that cycle and its credit comes
back L cycles later, so a lane needs 2L slots to stream at full rate (2 x 10 = 20 <= 32); a
warning is printed when ``--buf`` is below that.

For each (routing, pattern) saturation is bisected on the offered loads 0.01 .. 1.00: the
highest load at 0.01 resolution whose run is not saturated by the README's rule (the
summary's ``saturated``: stopped by the latency limit, accepted < 95 % of offered, or not
drained), assuming runs saturate above a saturated load. Every run is the engine's default
open-loop measurement (2,000 warm-up cycles, 10,000 measured, drain, latency limit 500) with
seed 1; ``--warmup`` and ``--measure`` change it, ``--quick`` makes it 500 + 2,000.

Writes ``dragonfly_curves.csv`` (every run) and ``dragonfly_curves.png`` (latency-load curves
of the unsaturated runs), ``dragonfly_saturation.csv`` (the table), or ``dragonfly_large_*``
with ``--large``, and prints the table with the relations of Kim et al.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

ROUTINGS = ("minimal", "valiant", "ugal-l", "ugal-g")
PATTERNS = ("uniform", "worst-case")
KIM = dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2, router="lanes")
LARGE = dict(topology="dragonfly", group_routers=8, global_links=4, concentration=4, router="lanes")
FIELDS = ["routing", "pattern", "rate", "offered_load", "accepted_load", "latency_mean", "hops_mean", "saturated",
          "stop_reason", "sim_seconds"]


def run_point(routing: str, pattern: str, rate: float, args) -> dict:
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    extra = dict(warmup=500, measure=2000) if args.quick else {}
    extra.update({k: getattr(args, k) for k in ("warmup", "measure") if getattr(args, k) is not None})
    s = simulate(Config(**(LARGE if args.large else KIM), routing=routing, pattern=pattern, rate=rate,
                        buf=args.buf, vcs=args.vcs, seed=1, global_latency=args.global_latency,
                        headers_per_cycle=args.headers_per_cycle,
                        local_latency=args.local_latency, **extra))
    return {"routing": routing, "pattern": pattern, "rate": rate, **{k: s.get(k) for k in FIELDS[3:]}}


def knee(routing: str, pattern: str, args, rows: list, run=None) -> float:
    """Saturation at 0.01 resolution, bisected on the loads 0.01 .. 1.00 (from 0.51); ``run``:
    the function of one point (default ``run_point``; bench/flatfly.py passes its own)."""
    def sat(hundredths: int) -> bool:
        rate = hundredths / 100
        row = (run or run_point)(routing, pattern, rate, args)
        rows.append(row)
        print(f"  {routing:8s} {pattern:10s} {rate:.2f} accepted {row['accepted_load']:.3f} "
              f"latency {row['latency_mean'] if row['latency_mean'] is None else round(row['latency_mean'], 1)} "
              f"{'SATURATED' if row['saturated'] else ''}", flush=True)
        return row["saturated"]

    lo, hi = 0, 101  # lo: not saturated (0 by definition), hi: saturated (101: not run)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if sat(mid):
            hi = mid
        else:
            lo = mid
    return lo / 100


def plot(rows: list, path: Path, title: str, routings=ROUTINGS) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, pattern in zip(axes, PATTERNS):
        for routing in routings:
            pts = sorted((r["offered_load"], r["latency_mean"]) for r in rows
                         if r["routing"] == routing and r["pattern"] == pattern and not r["saturated"])
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=routing)
        ax.set_title(pattern)
        ax.set_xlabel("offered load (flits/terminal/cycle)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean latency (cycles), unsaturated runs")
    axes[0].set_ylim(0, 300)
    axes[0].legend()
    fig.suptitle(f"{title} (the runs of the bisection)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def saturations(args, run_point=None, routings=ROUTINGS) -> tuple[list, dict]:
    """Every (routing, pattern)'s saturation by ``knee``: the runs' rows and {(routing, pattern): load}."""
    rows, table = [], {}
    for pattern in PATTERNS:
        for routing in routings:
            table[(routing, pattern)] = knee(routing, pattern, args, rows, run=run_point)
    return rows, table


def write_outputs(out: Path, name: str, rows: list, table: dict, title: str, routings=ROUTINGS) -> None:
    """``NAME_curves.csv`` (every run), ``NAME_saturation.csv`` (the table) and ``NAME_curves.png``."""
    with open(out / f"{name}_curves.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    with open(out / f"{name}_saturation.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["routing", *PATTERNS])
        for routing in routings:
            w.writerow([routing, *(table[(routing, p)] for p in PATTERNS)])
    plot(rows, out / f"{name}_curves.png", title, routings)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--buf", type=int, default=32, help="flits per input lane (default 32)")
    ap.add_argument("--vcs", type=int, default=6, help="VCs per port (default 6: two per VC class)")
    ap.add_argument("--large", action="store_true", help="P=4, A=8, H=4, G=33: 1056 terminals")
    ap.add_argument("--global-latency", type=int, default=10, help="cycles on a link between groups (default 10)")
    ap.add_argument("--local-latency", type=int, default=1, help="cycles on a link inside a group (default 1)")
    ap.add_argument("--headers-per-cycle", type=int, default=0, help="routing units per router (default 0: one per header)")
    ap.add_argument("--warmup", type=int, default=None)
    ap.add_argument("--measure", type=int, default=None)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    longest = max(args.global_latency, args.local_latency)
    if args.buf < 2 * longest:
        print(f"warning: --buf {args.buf} is below the credit round trip of the longest link (2 x {longest}): "
              "the credit loop caps the links' throughput")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.process_time()
    rows, table = saturations(args)
    name = "dragonfly_large" if args.large else "dragonfly"
    p, a, h = (4, 8, 4) if args.large else (2, 4, 2)
    title = (f"{a * (a * h + 1) * p}-terminal dragonfly (P={p}, A={a}, H={h}, G={a * h + 1}), "
             f"links {args.local_latency}/{args.global_latency} cycles, --buf {args.buf}")
    write_outputs(out, name, rows, table, title)
    uni = {r: table[(r, "uniform")] for r in ROUTINGS}
    wc = {r: table[(r, "worst-case")] for r in ROUTINGS}
    print(f"\nsaturation (flits/terminal/cycle), {title}, vcs {args.vcs}, {len(rows)} runs, "
          f"{time.process_time() - start:.0f} s CPU")
    print("| routing | uniform | worst-case |")
    print("| --- | --- | --- |")
    for routing in ROUTINGS:
        print(f"| `{routing}` | {uni[routing]:.2f} | {wc[routing]:.2f} |")
    checks = [
        ("uniform: valiant <= 0.6 x minimal", uni["valiant"] <= 0.6 * uni["minimal"]),
        ("uniform: ugal-l >= 0.9 x minimal", uni["ugal-l"] >= 0.9 * uni["minimal"]),
        (f"worst-case: minimal <= 1.1 / (A P) = {1.1 / (a * p):.4f}", wc["minimal"] <= 1.1 / (a * p)),
        ("worst-case: valiant >= 3 x minimal", wc["valiant"] >= 3 * wc["minimal"]),
        ("worst-case: ugal-l >= 3 x minimal", wc["ugal-l"] >= 3 * wc["minimal"]),
        ("ugal-g >= ugal-l (both)", uni["ugal-g"] >= uni["ugal-l"] and wc["ugal-g"] >= wc["ugal-l"]),
    ]
    for text, ok in checks:
        print(f"{'holds' if ok else 'FAILS'}: {text}")


if __name__ == "__main__":
    main()
