"""``--router booksim`` beside BookSim2 at low load: zero-load latency and hops, side by side.

    BOOKSIM=/tmp/booksim/booksim2/src/booksim PYTHONPATH=. python bench/booksim_parity.py
    ... --rate 0.02 --seeds 3 --only torus

Without ``BOOKSIM`` in the environment the script says so in one line and exits 0.

Each set-up runs in both simulators with the same network, VCs, buffers, packet size, routing
(BookSim2's ``dim_order``) and traffic (BookSim2's ``uniform``, which may pick the source itself,
is netsim-fast's ``uniform-self``), at a low offered load, seed by seed. BookSim2 runs its
default latency-mode statistics (3 warm-up and up to 10 sample periods of 1000 cycles);
netsim-fast measures packets created in a window of the same length after the same warm-up.
Printed per set-up: mean packet latency, mean network latency, minimum packet latency (a packet
to its own node: 7 + L - 1 in both) and hops (BookSim2's "Hops average" counts routers, so
netsim-fast's link count + 1 is printed beside it), with the zero-load formula of
docs/booksim-router.md section 6 averaged over the uniform-self hop distribution. Both
simulators draw their own random traffic, so at a low load the means agree to within their
sampling error, not exactly.

``--loaded`` runs instead the allocator matrix at BookSim2's reference point (4x4 mesh,
``dim_order``, 16 VCs, 1-flit packets, uniform 0.3 packets/node/cycle, docs/booksim-router.md
section 12): the same ``vc_allocator`` and ``sw_allocator`` in both simulators, mean packet
latency side by side.

``--routings`` runs BookSim2's other routing functions (``ROUTINGS``: 4x4 mesh and torus, 16 VCs,
1-flit packets, ``--rate`` 0.1 by default) side by side: mean packet latency and hops; with
``--loaded`` too, the loaded set (``ROUTINGS_LOADED``: 4 VCs, 4-flit packets, each at its own
load, where the adaptive choices and the VC classes matter).

Writes ``docs/figures/booksim_parity.csv`` (or ``--out``) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SETUPS = {
    # name: (topology, k, n, num_vcs, vc_buf_size, packet_size)
    "mesh8_2vc_1flit": ("mesh", 8, 2, 2, 8, 1),
    "mesh8_2vc_4flit": ("mesh", 8, 2, 2, 8, 4),
    "torus4_4vc_1flit": ("torus", 4, 2, 4, 8, 1),
    "torus8_2vc_1flit": ("torus", 8, 2, 2, 8, 1),
    "torus8_4vc_8flit": ("torus", 8, 2, 4, 8, 8),
}


ALLOCATORS = ("islip", "islip(2)", "separable_input_first", "separable_output_first",
              "separable_input_first(matrix)", "separable_output_first(matrix)", "wavefront", "rr_wavefront", "pim",
              "loa", "select", "max_size")
LOADED = ("mesh", 4, 2, 16, 8, 1)
# routing function -> set-up; the _ni functions need a VC slice per destination (16 on 4x4)
ROUTINGS = {
    **{f"mesh:{r}": ("mesh", 4, 2, 16, 8, 1) for r in (
        "dim_order", "dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt", "planar_adapt", "romm",
        "romm_ni", "valiant")},
    **{f"torus:{r}": ("torus", 4, 2, 16, 8, 1) for r in ("dim_order", "dim_order_ni", "dim_order_bal", "min_adapt")},
}


# routing function -> (set-up, offered flits/node/cycle): loaded, 4 VCs, 4-flit packets
ROUTINGS_LOADED = {
    "torus:min_adapt": (("torus", 4, 2, 4, 8, 4), 0.4), "torus:dim_order_bal": (("torus", 4, 2, 4, 8, 4), 0.4),
    "mesh:adaptive_xy_yx": (("mesh", 4, 2, 4, 8, 4), 0.3), "mesh:xy_yx": (("mesh", 4, 2, 4, 8, 4), 0.3),
    "mesh:romm": (("mesh", 4, 2, 4, 8, 4), 0.3), "mesh:valiant": (("mesh", 4, 2, 4, 8, 4), 0.15),
}


def booksim_run(binary: str, setup, rate: float, seed: int, allocator: str = "islip",
                routing: str = "dim_order", routing_delay: int = 1) -> dict:
    topology, k, n, vcs, buf, size = setup
    text = (f"topology = {topology}; k = {k}; n = {n}; routing_function = {routing}; num_vcs = {vcs};\n"
            f"vc_buf_size = {buf}; packet_size = {size}; injection_rate = {rate / size}; traffic = uniform;\n"
            f"seed = {seed}; vc_allocator = {allocator}; sw_allocator = {allocator}; routing_delay = {routing_delay};\n")
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([binary, f.name], capture_output=True, text=True, timeout=600).stdout
    finally:
        os.unlink(f.name)
    overall = out[out.rindex("====== Overall Traffic Statistics"):]

    def grab(label):
        return float(re.search(label + r" = ([-0-9.e+]+)", overall).group(1))

    minimum = float(re.search(r"Packet latency average = [-0-9.e+]+ \(\d+ samples\)\n\s*minimum = ([-0-9.e+]+)",
                              overall).group(1))
    return {"latency": grab("Packet latency average"), "network": grab("Network latency average"),
            "min": minimum, "hops_links": grab("Hops average") - 1}


def netsim_run(setup, rate: float, seed: int, allocator: str = "islip", routing: str = "dim_order",
               routing_delay: int = 1) -> dict:
    from netsim_fast import Config, simulate

    topology, k, n, vcs, buf, size = setup
    cfg = Config(topology=topology, k=k, n=n, router="booksim", vcs=vcs, buf=buf, packet_flits=size,
                 pattern="uniform-self", rate=rate, seed=seed, warmup=3000, measure=10000, vc_allocator=allocator,
                 sw_allocator=allocator, routing=routing, routing_delay=routing_delay)
    s = simulate(cfg)
    first = s["latency_histogram"]["edges"][0]  # the minimum (minus 0.5 when every latency is equal)
    return {"latency": s["latency_mean"], "network": s["network_latency_mean"],
            "min": first if first == int(first) else first + 0.5, "hops_links": s["hops_mean"]}


def zero_load(setup) -> float:
    """Section 6 averaged over uniform-self destinations: 4 + 3(H+1) + H(d+1) + L - 1, P = 3."""
    import itertools

    topology, k, n, _, _, size = setup
    d = 2 if topology == "torus" else 1
    coords = list(itertools.product(range(k), repeat=n))
    total = 0
    for a in coords:
        for b in coords:
            h = sum(min(abs(x - y), k - abs(x - y)) if topology == "torus" else abs(x - y) for x, y in zip(a, b))
            total += 4 + 3 * (h + 1) + h * (d + 1) + size - 1
    return total / len(coords) ** 2


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=0.02, help="offered load, flits/node/cycle")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="docs/figures/booksim_parity.csv")
    ap.add_argument("--loaded", action="store_true", help="the allocator matrix at the 4x4 mesh reference point")
    ap.add_argument("--routings", action="store_true", help="BookSim2's routing functions side by side")
    ap.add_argument("--routing-delay", type=int, default=1, help="with --routings: 0 for lookahead routing")
    args = ap.parse_args(argv)
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("BOOKSIM is not set: skipping the BookSim2 parity bench (set it to a BookSim2 binary)")
        return 0
    if args.routings:
        return routings(binary, args)
    if args.loaded:
        return loaded(binary, args)
    rows = []
    for name, setup in SETUPS.items():
        if args.only not in name:
            continue
        for seed in range(args.seeds):
            b = booksim_run(binary, setup, args.rate, seed)
            m = netsim_run(setup, args.rate, seed + 1)
            rows.append({"setup": name, "seed": seed, "zero_load_formula": round(zero_load(setup), 3),
                         **{f"booksim_{k}": v for k, v in b.items()}, **{f"netsim_{k}": v for k, v in m.items()}})
            print(f"{name} seed {seed}: latency booksim {b['latency']:.3f} netsim {m['latency']:.3f}; "
                  f"hops {b['hops_links']:.3f} / {m['hops_links']:.3f}", file=sys.stderr)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("| set-up | seed | formula | BookSim2 latency | netsim latency | BookSim2 nlat | netsim nlat | "
          "BookSim2 min | netsim min | BookSim2 hops-1 | netsim hops |")
    print("|---" * 11 + "|")
    for r in rows:
        print(f"| {r['setup']} | {r['seed']} | {r['zero_load_formula']:.2f} | {r['booksim_latency']:.3f} | "
              f"{r['netsim_latency']:.3f} | {r['booksim_network']:.3f} | {r['netsim_network']:.3f} | "
              f"{r['booksim_min']:.0f} | {r['netsim_min']:.0f} | {r['booksim_hops_links']:.3f} | "
              f"{r['netsim_hops_links']:.3f} |")
    return 0


def loaded(binary: str, args) -> int:
    rows = []
    for allocator in ALLOCATORS:
        if args.only not in allocator:
            continue
        for seed in range(args.seeds):
            b = booksim_run(binary, LOADED, 0.3, seed, allocator)
            m = netsim_run(LOADED, 0.3, seed + 1, allocator)
            rows.append({"allocator": allocator, "seed": seed, "booksim_latency": b["latency"],
                         "netsim_latency": m["latency"], "booksim_hops_links": b["hops_links"],
                         "netsim_hops_links": m["hops_links"]})
            print(f"{allocator} seed {seed}: {b['latency']:.4f} / {m['latency']:.4f}", file=sys.stderr)
    out = Path(args.out)
    out = out.with_name(out.stem + "_loaded" + out.suffix)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("| allocator | BookSim2 latency (mean of seeds) | netsim latency | difference |")
    print("|---|---|---|---|")
    for allocator in dict.fromkeys(r["allocator"] for r in rows):
        mine = [r for r in rows if r["allocator"] == allocator]
        bk = sum(r["booksim_latency"] for r in mine) / len(mine)
        ns = sum(r["netsim_latency"] for r in mine) / len(mine)
        print(f"| {allocator} | {bk:.4f} | {ns:.4f} | {100 * (ns - bk) / bk:+.2f} % |")
    return 0


def routings(binary: str, args) -> int:
    default = args.rate if args.rate != 0.02 else 0.1
    cases = ROUTINGS_LOADED if args.loaded else {name: (setup, default) for name, setup in ROUTINGS.items()}
    rows = []
    for name, (setup, rate) in cases.items():
        if args.only not in name:
            continue
        routing = name.split(":")[1]
        for seed in range(args.seeds):
            b = booksim_run(binary, setup, rate, seed, routing=routing, routing_delay=args.routing_delay)
            m = netsim_run(setup, rate, seed + 1, routing=routing, routing_delay=args.routing_delay)
            rows.append({"routing": name, "seed": seed, "rate": rate, "booksim_latency": b["latency"],
                         "netsim_latency": m["latency"], "booksim_hops_links": b["hops_links"],
                         "netsim_hops_links": m["hops_links"]})
            print(f"{name} seed {seed}: latency {b['latency']:.3f} / {m['latency']:.3f}; hops "
                  f"{b['hops_links']:.3f} / {m['hops_links']:.3f}", file=sys.stderr)
    out = Path(args.out)
    out = out.with_name(out.stem + ("_routings_loaded" if args.loaded else "_routings")
                        + ("_lookahead" if args.routing_delay == 0 else "") + out.suffix)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("| routing | rate | BookSim2 latency | netsim latency | difference | BookSim2 hops-1 | netsim hops |")
    print("|---|---|---|---|---|---|---|")
    for name in dict.fromkeys(r["routing"] for r in rows):
        mine = [r for r in rows if r["routing"] == name]

        def mean(key):
            return sum(r[key] for r in mine) / len(mine)

        bk, ns = mean("booksim_latency"), mean("netsim_latency")
        print(f"| {name} | {mine[0]['rate']} | {bk:.3f} | {ns:.3f} | {100 * (ns - bk) / bk:+.2f} % | {mean('booksim_hops_links'):.3f} | "
              f"{mean('netsim_hops_links'):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
