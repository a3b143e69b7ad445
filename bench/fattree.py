"""Fat trees on the flit engine: saturation of up*/down* with each up-port choice, uniform and
worst-case traffic, lanes router; optionally the 1024-terminal Clos beside a 32x32 torus.

    PYTHONPATH=. python bench/fattree.py [--topology clos --switch-ports 8] [--quick] [--big] [--headers 1,0]

Saturation is the README's rule at 0.01 resolution: the offered load rises in steps of 0.05
until the first saturated run (summary ``saturated``: stopped by the latency limit, accepted
< 95 % of offered, or not drained), then in steps of 0.01 from the last unsaturated one.
Every run is the engine's default open-loop measurement (2,000 warm-up cycles, 10,000
measured, latency limit 500), seed 1, 4 VCs, 8-flit lanes and packets; ``--quick`` shortens it
to 500 + 2,000 cycles. ``--big`` adds uniform traffic on ``--topology clos --switch-ports 16``
(1024 terminals, random up ports) and on a 32x32 torus (dor), same router and buffers.
``--headers 1,0`` repeats everything with each ``--headers-per-cycle`` (routing units per router:
the default 1 routes one header per router per cycle, which a 16-port core switch of the big
Clos needs more often than that near saturation; 0 is unlimited).

Prints one line per run and the saturation table; writes ``fattree_saturation.csv`` to
``--out``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

CHOICES = ("random", "dest-mod-k", "adaptive")
PATTERNS = ("uniform", "worst-case")


def saturation(base: dict, args) -> float:
    """The highest offered load at 0.01 resolution whose run is not saturated."""
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    extra = dict(warmup=500, measure=2000) if args.quick else {}
    extra["headers_per_cycle"] = base.pop("headers")

    def saturated(rate):
        s = simulate(Config(**base, rate=round(rate, 2), seed=1, **extra))
        print(f"  {base.get('topology')} {base.get('up_port', '-'):10s} {base['pattern']:10s} "
              f"H={extra['headers_per_cycle']} {rate:.2f} "
              f"accepted {s['accepted_load']:.3f} {'SATURATED' if s['saturated'] else ''}", flush=True)
        return s["saturated"]

    best, rate = 0.0, 0.05
    while rate <= 1.0 + 1e-9 and not saturated(rate):
        best, rate = round(rate, 2), rate + 0.05
    for fine in [round(best + 0.01 * i, 2) for i in range(1, 5)]:
        if fine > 1.0 + 1e-9 or saturated(fine):
            break
        best = fine
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topology", default="fattree", choices=("fattree", "clos"))
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--switch-ports", type=int, default=8)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--headers", default="1", help="--headers-per-cycle values, e.g. 1,0 (0: unlimited)")
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args()
    shape = dict(k=args.k, n=args.n) if args.topology == "fattree" else dict(switch_ports=args.switch_ports)
    rows = []
    for headers in (int(h) for h in args.headers.split(",")):
        for pattern in PATTERNS:
            for choice in CHOICES:
                base = dict(topology=args.topology, **shape, routing="updown", up_port=choice, pattern=pattern)
                rows.append({"network": args.topology, **shape, "up_port": choice, "pattern": pattern,
                             "headers_per_cycle": headers, "saturation": saturation({**base, "headers": headers}, args)})
        if args.big:
            for name, base in (("clos K=16", dict(topology="clos", switch_ports=16, up_port="random")),
                               ("torus 32x32", dict(topology="torus", k=32, routing="dor"))):
                rows.append({"network": name, "up_port": base.get("up_port", "-"), "pattern": "uniform",
                             "headers_per_cycle": headers,
                             "saturation": saturation({**base, "pattern": "uniform", "headers": headers}, args)})
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "fattree_saturation.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=sorted({k for r in rows for k in r}))
        writer.writeheader()
        writer.writerows(rows)
    print("\nnetwork | up-port | pattern | headers per cycle | saturation (flits/terminal/cycle)")
    for r in rows:
        print(f"{r['network']} | {r['up_port']} | {r['pattern']} | {r['headers_per_cycle']} | {r['saturation']:.2f}")


if __name__ == "__main__":
    main()
