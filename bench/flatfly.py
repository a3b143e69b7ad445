"""Valiant and UGAL on a flattened butterfly (Kim, Dally and Abts, ISCA 2007) on the flit
engine: minimal, valiant, ugal-l and ugal-g on the 4x4 flattened butterfly with 4 terminals per
router (64 terminals), uniform and worst-case traffic, lanes router.

    PYTHONPATH=. python bench/flatfly.py [--k 4] [--n 2] [--concentration 4] [--vcs 4]
                                         [--buf 8] [--out docs/figures] [--quick]

Worst-case traffic (``--pattern worst-case``): every terminal of router ``r`` sends to a random
terminal of router ``r + 1 mod N`` (Kim et al.'s WC), so minimal (dimension-order) routing puts
a router's ``C`` terminals on its one link of dimension 0: it saturates at ``1/C``. Valiant
spreads every packet over two dimension-order phases through a random router; UGAL chooses at
the source between the two (routing/hamming_valiant.py). ``--vcs 4``: two VCs per class of
valiant and ugal-* (phase 0, phase 1), two per hop class of minimal (diameter 2); 8-flit
packets, ``--buf`` flits per input lane, a routing unit per header (``--headers-per-cycle 0``,
as bench/dragonfly.py: Kim et al.'s routers route every input in parallel).

Saturation per (routing, pattern) is bisected as in bench/dragonfly.py (``knee``: the highest
offered load at 0.01 resolution whose run is not saturated by the README's rule), each run the
engine's default open-loop measurement (2,000 warm-up cycles, 10,000 measured, drain, latency
limit 500) with seed 1; ``--quick`` makes it 500 + 2,000.

Writes ``flatfly_curves.csv`` (every run), ``flatfly_curves.png`` (latency-load curves of the
unsaturated runs) and ``flatfly_saturation.csv`` (the table), and prints the table with the
expected relations.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from dragonfly import FIELDS, PATTERNS, ROUTINGS, saturations, write_outputs


def run_point(routing: str, pattern: str, rate: float, args) -> dict:
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    extra = dict(warmup=500, measure=2000) if args.quick else {}
    s = simulate(Config(topology="flatfly", k=args.k, n=args.n, concentration=args.concentration, router="lanes",
                        routing=routing, pattern=pattern, rate=rate, vcs=args.vcs, buf=args.buf, seed=1,
                        headers_per_cycle=0, **extra))
    return {"routing": routing, "pattern": pattern, "rate": rate, **{k: s.get(k) for k in FIELDS[3:]}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--k", type=int, default=4, help="routers per dimension (default 4)")
    ap.add_argument("--n", type=int, default=2, help="dimensions (default 2)")
    ap.add_argument("--concentration", type=int, default=4, help="terminals per router (default 4)")
    ap.add_argument("--vcs", type=int, default=4, help="VCs per port (default 4: two per VC class)")
    ap.add_argument("--buf", type=int, default=8, help="flits per input lane (default 8)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.process_time()
    rows, table = saturations(args, run_point)
    c = args.concentration
    title = f"{args.k}-ary {args.n}-flat flattened butterfly, {c} terminals per router, --vcs {args.vcs} --buf {args.buf}"
    write_outputs(out, "flatfly", rows, table, title)
    uni = {r: table[(r, "uniform")] for r in ROUTINGS}
    wc = {r: table[(r, "worst-case")] for r in ROUTINGS}
    print(f"\nsaturation (flits/terminal/cycle), {title}, {len(rows)} runs, {time.process_time() - start:.0f} s CPU")
    print("| routing | uniform | worst-case |")
    print("| --- | --- | --- |")
    for routing in ROUTINGS:
        print(f"| `{routing}` | {uni[routing]:.2f} | {wc[routing]:.2f} |")
    checks = [  # Kim, Dally and Abts (2007): minimal held to one link on WC, valiant about half on both
        (f"worst-case: minimal <= 1.05 / C = {1.05 / c:.3f}", wc["minimal"] <= 1.05 / c),
        ("valiant within 0.4 .. 0.6 on both", all(0.4 <= table[("valiant", p)] <= 0.6 for p in PATTERNS)),
        ("worst-case: ugal-l, ugal-g >= 1.3 x minimal", min(wc["ugal-l"], wc["ugal-g"]) >= 1.3 * wc["minimal"]),
        ("uniform: ugal-l, ugal-g >= 0.8 x minimal", min(uni["ugal-l"], uni["ugal-g"]) >= 0.8 * uni["minimal"]),
        ("ugal-g >= ugal-l (both)", uni["ugal-g"] >= uni["ugal-l"] and wc["ugal-g"] >= wc["ugal-l"]),
    ]
    for text, ok in checks:
        print(f"{'holds' if ok else 'FAILS'}: {text}")


if __name__ == "__main__":
    main()
