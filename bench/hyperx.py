"""Saturation of a HyperX (Ahn et al., SC 2009) on the flit engine: ``minimal``, ``dim-adaptive``,
``min-adaptive`` and ``ugal-l`` under uniform and worst-case traffic, lanes router.

    PYTHONPATH=. python bench/hyperx.py [--dims 4,4] [--widths 2,2] [--concentration 4]
                                        [--vcs 4] [--buf 8] [--name hyperx] [--out docs/figures]
                                        [--quick]

``minimal`` takes any shortest-path link, one VC class per hop (``--vcs`` / D VCs per class);
``dim-adaptive`` routes in dimension order and chooses among the dimension's parallel links
(every VC, one class); ``min-adaptive`` takes any link of any unaligned dimension on the adaptive
VCs with a dimension-order escape on VC 0 (routing/hamming_adaptive.py); ``ugal-l`` chooses at
the source between the dimension-order route (lowest port: one link of each dimension) and a
Valiant detour. The router picks among allowed links by free space downstream at that cycle.

Worst-case traffic (``--pattern worst-case``): every terminal of router ``r`` sends to a random
terminal of router ``r + 1 mod N``, a shift that loads dimension 0: a minimal route puts a
router's ``C`` terminals on its ``widths[0]`` links to the next router (at most ``W0 / C``).
8-flit packets, ``--buf`` flits per input lane, a routing unit per header
(``--headers-per-cycle 0``, as bench/flatfly.py). Saturation per (routing, pattern) is bisected
as in bench/dragonfly.py (``knee``: the highest offered load at 0.01 resolution whose run is not
saturated by the README's rule), each run the engine's default open-loop measurement (2,000
warm-up cycles, 10,000 measured, drain, latency limit 500) with seed 1; ``--quick`` makes it
500 + 2,000.

Writes ``<name>_curves.csv`` (every run), ``<name>_curves.png`` (latency-load curves of the
unsaturated runs) and ``<name>_saturation.csv`` (the table), and prints the table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from dragonfly import FIELDS, saturations, write_outputs

ROUTINGS = ("minimal", "dim-adaptive", "min-adaptive", "ugal-l")


def run_point(routing: str, pattern: str, rate: float, args) -> dict:
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    extra = dict(warmup=500, measure=2000) if args.quick else {}
    s = simulate(Config(topology="hyperx", dims=args.dims, widths=args.widths, concentration=args.concentration,
                        router="lanes", routing=routing, pattern=pattern, rate=rate, vcs=args.vcs, buf=args.buf,
                        seed=1, headers_per_cycle=0, **extra))
    return {"routing": routing, "pattern": pattern, "rate": rate, **{k: s.get(k) for k in FIELDS[3:]}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--dims", default="4,4", help="routers per dimension (default 4,4)")
    ap.add_argument("--widths", default="2,2", help="parallel links per router pair, per dimension (default 2,2)")
    ap.add_argument("--concentration", type=int, default=4, help="terminals per router (default 4)")
    ap.add_argument("--vcs", type=int, default=4, help="VCs per port (default 4)")
    ap.add_argument("--buf", type=int, default=8, help="flits per input lane (default 8)")
    ap.add_argument("--name", default="hyperx", help="prefix of the files written (default hyperx)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.process_time()
    rows, table = saturations(args, run_point, ROUTINGS)
    title = (f"HyperX --dims {args.dims} --widths {args.widths}, {args.concentration} terminals per router, "
             f"--vcs {args.vcs} --buf {args.buf}")
    write_outputs(out, args.name, rows, table, title, ROUTINGS)
    print(f"\nsaturation (flits/terminal/cycle), {title}, {len(rows)} runs, {time.process_time() - start:.0f} s CPU")
    print("| routing | uniform | worst-case |")
    print("| --- | --- | --- |")
    for routing in ROUTINGS:
        print(f"| `{routing}` | {table[(routing, 'uniform')]:.2f} | {table[(routing, 'worst-case')]:.2f} |")


if __name__ == "__main__":
    main()
