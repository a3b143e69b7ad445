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

``--matrix`` runs the parity matrix (``MATRIX``: mesh and torus, 2-D and 3-D, 4x4 to 16x16,
1- to 16-flit packets, 2 to 8 VCs, buffers of 4 to 16 flits, dimension-order and ``min_adapt``
routing, separable, iSLIP and wavefront allocators, speculation on and off, uniform, transpose
and bitcomp; permutations with ``--fixed-points self``, as BookSim2 sends them), both
simulators in BookSim2's latency mode (``--measurement booksim``, the same warm-up, sample
period, sample count and latency threshold). Per configuration and seed (``--seeds``, default
3) the saturation throughput is bisected to ``SAT_STEP`` flits/node/cycle: the largest offered
rate whose run converges (BookSim2 does not print "Simulation unstable", netsim-fast's
``booksim_control`` is not unstable). Then mean packet latency at 20, 50 and 80 % of
BookSim2's mean saturation rate, on the same seeds, and at ``ZERO_LOAD_RATE`` (zero-load) on
``ZERO_LOAD_SEEDS`` seeds. Every single run is appended to
``docs/figures/booksim_parity_matrix_runs.csv`` and reused on a rerun; a configuration already
in ``docs/figures/booksim_parity_matrix.csv`` is skipped, so an interrupted run resumes.
``--matrix --fattree`` measures the same on BookSim2's fattree with ``nca`` (``FATTREE``: a
4-ary 3-tree and a 2-ary 4-tree) into ``booksim_parity_fattree*.csv`` and ``.png``.
``--plot`` redraws ``booksim_parity_matrix.png`` and prints the table (each difference with its
standard error from the seed-to-seed spread); ``--confirm N`` reruns every missed criterion on
N fresh seeds per simulator (``booksim_parity_matrix_confirm.csv``).

``--networks`` runs the same criteria on the other networks both simulators have (``NETWORKS``:
BookSim2's flatfly and cmesh examples, the cmesh with its express channels, the 72-terminal
dragonflynew with ``min`` and ``ugal``, BookSim2's anynet example and an irregular anynet file
with ``min``, the 4-ary 3-fly and 2-ary 4-fly with ``dest_tag``; the fat tree is ``--matrix
--fattree``), each given as BookSim2 keys that both read (netsim-fast through
``--booksim-config``'s reader): ``docs/figures/booksim_parity_networks*.csv`` and ``.png``.

    BOOKSIM=... PYTHONPATH=. python bench/booksim_parity.py --matrix [--only torus8x8]
    BOOKSIM=... PYTHONPATH=. python bench/booksim_parity.py --networks [--only cmesh]
    PYTHONPATH=. python bench/booksim_parity.py --matrix --plot
    BOOKSIM=... PYTHONPATH=. python bench/booksim_parity.py --matrix --confirm 12
    BOOKSIM=... PYTHONPATH=. python bench/booksim_parity.py --networks --confirm 12 --only anynet

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
    ap.add_argument("--seeds", type=int, default=None, help="seeds per point (default 2; 3 with --matrix)")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="docs/figures/booksim_parity.csv")
    ap.add_argument("--loaded", action="store_true", help="the allocator matrix at the 4x4 mesh reference point")
    ap.add_argument("--routings", action="store_true", help="BookSim2's routing functions side by side")
    ap.add_argument("--routing-delay", type=int, default=1, help="with --routings: 0 for lookahead routing")
    ap.add_argument("--matrix", action="store_true", help="the parity matrix: saturation and latency, both simulators")
    ap.add_argument("--fattree", action="store_true",
                    help="with --matrix: BookSim2's fattree with nca instead (FATTREE, booksim_parity_fattree.csv)")
    ap.add_argument("--networks", action="store_true", help="the same criteria on flatfly, cmesh, dragonfly, anynet and fly (NETWORKS)")
    ap.add_argument("--plot", action="store_true", help="with --matrix: only redraw the figure from the CSV files")
    ap.add_argument("--confirm", type=int, default=0, metavar="N",
                    help="with --matrix or --networks: rerun every missed criterion on N fresh seeds per simulator")
    args = ap.parse_args(argv)
    configs, out = (FATTREE, FATTREE_CSV) if args.fattree else (MATRIX, MATRIX_CSV)
    if args.networks:
        configs, out = NETWORKS, NETWORKS_CSV
    if (args.matrix or args.networks) and args.plot:
        plot_matrix(out)
        print(matrix_table(out))
        return 0
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("BOOKSIM is not set: skipping the BookSim2 parity bench (set it to a BookSim2 binary)")
        return 0
    if (args.matrix or args.networks) and args.confirm:
        print(confirm(binary, args.confirm, configs, out, args.only))
        return 0
    if args.matrix:
        return matrix(binary, args, configs, out)
    if args.networks:
        return matrix(binary, args, NETWORKS, NETWORKS_CSV, NETWORK_FIELDS)
    if args.seeds is None:
        args.seeds = 2
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


# -- the parity matrix (--matrix) --------------------------------------------------------------

SAT_STEP = 0.005  # bisection resolution, flits/node/cycle
ZERO_LOAD_RATE = 0.005  # flits/node/cycle
ZERO_LOAD_SEEDS = 10  # cheap runs with few packets each (about 25 on a 4x4 network with 16-flit packets)
LOAD_FRACTIONS = (0.2, 0.5, 0.8)  # of BookSim2's mean saturation rate
# BookSim2's latency-mode defaults, passed to both simulators
SAMPLING = {"warmup_periods": 3, "sample_period": 1000, "max_samples": 10, "latency_thres": 500.0}
ALLOC_NAMES = {"sep": "separable_input_first", "islip": "islip", "wf": "wavefront"}
ROUTING_NAMES = {"dor": "dim_order", "adapt": "min_adapt"}


def _m(topology, dims, vcs, buf, size, routing, alloc, spec, traffic):
    k, n = dims
    name = (f"{topology}{'x'.join([str(k)] * n)}_{vcs}vc_b{buf}_{size}f_{routing}_{alloc}"
            f"{'_spec' if spec else ''}_{traffic}")
    return name, {"topology": topology, "k": k, "n": n, "vcs": vcs, "buf": buf, "size": size,
                  "routing": ROUTING_NAMES[routing], "alloc": ALLOC_NAMES[alloc], "spec": spec, "traffic": traffic}


# A covering set: every value of every factor appears, most pairs of factors meet; min_adapt on a
# torus needs 4 VCs or more and no speculation (docs/booksim-router.md, config/booksim_router.py).
MATRIX = dict([
    _m("mesh", (4, 2), 2, 4, 1, "dor", "islip", 0, "uniform"),
    _m("mesh", (4, 2), 4, 8, 4, "dor", "sep", 1, "transpose"),
    _m("mesh", (4, 2), 8, 16, 8, "adapt", "wf", 0, "bitcomp"),
    _m("mesh", (4, 2), 2, 16, 16, "dor", "islip", 1, "uniform"),
    _m("mesh", (8, 2), 2, 8, 4, "dor", "wf", 1, "uniform"),
    _m("mesh", (8, 2), 4, 4, 1, "adapt", "islip", 0, "transpose"),
    _m("mesh", (8, 2), 8, 8, 16, "dor", "sep", 0, "bitcomp"),
    _m("mesh", (8, 2), 4, 16, 8, "adapt", "wf", 1, "uniform"),
    _m("mesh", (8, 2), 8, 4, 4, "dor", "islip", 1, "transpose"),
    _m("mesh", (16, 2), 4, 8, 1, "dor", "islip", 0, "uniform"),
    _m("mesh", (4, 3), 2, 8, 4, "dor", "sep", 0, "uniform"),
    _m("mesh", (4, 3), 4, 4, 1, "adapt", "wf", 1, "bitcomp"),
    _m("mesh", (4, 3), 8, 16, 8, "dor", "islip", 1, "transpose"),
    _m("torus", (4, 2), 2, 8, 1, "dor", "sep", 1, "uniform"),
    _m("torus", (4, 2), 4, 4, 4, "adapt", "islip", 0, "transpose"),
    _m("torus", (4, 2), 8, 16, 16, "dor", "wf", 0, "bitcomp"),
    _m("torus", (8, 2), 2, 4, 8, "dor", "islip", 0, "transpose"),
    _m("torus", (8, 2), 4, 8, 1, "dor", "wf", 1, "bitcomp"),
    _m("torus", (8, 2), 8, 16, 4, "adapt", "sep", 0, "uniform"),
    _m("torus", (8, 2), 4, 16, 16, "adapt", "wf", 0, "transpose"),
    _m("torus", (8, 2), 8, 8, 8, "dor", "islip", 1, "uniform"),
    _m("torus", (4, 3), 4, 8, 4, "adapt", "islip", 0, "uniform"),
    _m("torus", (4, 3), 2, 16, 1, "dor", "sep", 1, "bitcomp"),
    _m("torus", (4, 3), 8, 4, 8, "dor", "wf", 1, "transpose"),
    _m("torus", (16, 2), 4, 8, 4, "dor", "sep", 0, "uniform"),
])


_FLATFLY = ("topology = flatfly; k = 4; n = 2; c = 4; x = 4; y = 4; xr = 2; yr = 2; routing_function = ran_min;\n"
            "num_vcs = 8; vc_buf_size = 4; credit_delay = 2; routing_delay = 0; packet_size = 1; traffic = uniform;\n")
_CMESH = "topology = cmesh; k = 4; n = 2; c = 4; x = 4; y = 4; xr = 2; yr = 2; packet_size = 1;\n"
_DRAGONFLY = ("topology = dragonflynew; k = 2; n = 1; num_vcs = 3; vc_buf_size = 64; packet_size = 1;"
              " traffic = uniform;\n")
_CASES = Path(__file__).resolve().parents[1] / "tests" / "booksim_cases"
# BookSim2's anynet with min (a next-hop table): its example network (three routers of three
# terminals) with its example's 1 VC and 3-flit buffers, and the irregular network of
# tests/booksim_cases/anynet_irregular.net (uneven terminals, channels of 1 to 3 cycles).
_ANYNET = "topology = anynet; routing_function = min; traffic = uniform; network_file = {};\n"
# The other networks, as BookSim2 keys both simulators read: BookSim2's flatfly and cmesh examples
# (src/examples/flatflyconfig, cmeshconfig), the cmesh with its express channels, the
# 72-terminal dragonflynew (tests/booksim_cases/dragonfly72.cfg) with min and ugal, anynet, and two
# butterflies (a 4-ary 3-fly and a 2-ary 4-fly) with dest_tag.
_FLY = "topology = fly; routing_function = dest_tag; traffic = uniform; "
NETWORKS = {
    "flatfly4x4_c4_ran_min_uniform": {"keys": _FLATFLY, "size": 1},
    "cmesh4x4_dor_no_express_bitcomp": {"keys": _CMESH + "routing_function = dor_no_express; traffic = bitcomp;\n",
                                        "size": 1},
    "cmesh4x4_dor_express_uniform": {"keys": _CMESH + "routing_function = dor; traffic = uniform;\n", "size": 1},
    "dragonfly72_min_uniform": {"keys": _DRAGONFLY + "routing_function = min;\n", "size": 1},
    "dragonfly72_ugal_uniform": {"keys": _DRAGONFLY + "routing_function = ugal;\n", "size": 1},
    "anynet_example_min_uniform": {"keys": _ANYNET.format(_CASES / "anynet_file") + "num_vcs = 1; vc_buf_size = 3; "
                                   "vc_allocator = separable_input_first; sw_allocator = separable_input_first;\n",
                                   "size": 1},
    "anynet_irregular_min_uniform": {"keys": _ANYNET.format(_CASES / "anynet_irregular.net") + "num_vcs = 2; "
                                     "vc_buf_size = 4; packet_size = 4;\n", "size": 4},
    "fly4ary3_dest_tag_uniform": {"keys": _FLY + "k = 4; n = 3; num_vcs = 4; vc_buf_size = 8; packet_size = 4;\n",
                                  "size": 4},
    "fly2ary4_dest_tag_uniform": {"keys": _FLY + "k = 2; n = 4; num_vcs = 2; vc_buf_size = 4; packet_size = 1;\n",
                                  "size": 1},
}


def booksim_point(binary: str, c: dict, rate: float, seed: int) -> dict:
    """One latency-mode run of BookSim2 at ``rate`` flits/node/cycle: stable or not, and the
    overall mean packet latency and accepted flit rate when stable."""
    text = (network_keys(c) + f"injection_rate = {rate / c['size']!r}; seed = {seed};\n"
            + "".join(f"{k} = {v};\n" for k, v in SAMPLING.items()))
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(text)
    try:
        proc = subprocess.run([binary, f.name], capture_output=True, text=True, timeout=1800)
    finally:
        os.unlink(f.name)
    out = proc.stdout
    if "Simulation unstable" in out:
        return {"stable": False, "latency": None, "accepted": None, "min_latency": None}
    if "====== Overall Traffic Statistics" not in out:
        raise RuntimeError(f"BookSim2 exited {proc.returncode} without statistics: {(out + proc.stderr)[-800:]}")
    overall = out[out.rindex("====== Overall Traffic Statistics"):]

    def grab(label):
        return float(re.search(label + r" = ([-0-9.e+naif]+)", overall).group(1))

    minimum = float(re.search(r"Packet latency average = [-0-9.e+]+ \(\d+ samples\)\n\s*minimum = ([-0-9.e+]+)",
                              overall).group(1))
    return {"stable": True, "latency": grab("Packet latency average"), "accepted": grab("Accepted flit rate average"),
            "min_latency": minimum}


def network_keys(c: dict) -> str:
    """The BookSim2 keys of a configuration (a ``NETWORKS`` entry gives them as they are)."""
    if "keys" in c:
        return c["keys"]
    return (f"topology = {c['topology']}; k = {c['k']}; n = {c['n']}; routing_function = {c['routing']};\n"
            f"num_vcs = {c['vcs']}; vc_buf_size = {c['buf']}; packet_size = {c['size']};\n"
            f"traffic = {c['traffic']};\n"
            f"vc_allocator = {c['alloc']}; sw_allocator = {c['alloc']}; speculative = {c['spec']};\n")


def netsim_config(c: dict, rate: float, seed: int):
    """The netsim-fast ``Config`` of a configuration: a ``NETWORKS`` entry's keys read as
    ``--booksim-config`` reads a file, with the rate, seed and BookSim2's sampling on top."""
    from netsim_fast import Config

    if "keys" in c:
        from netsim_fast.config.booksim_import import booksim_config_fields

        with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
            f.write(c["keys"])
        try:
            fields = booksim_config_fields(f.name, [f"injection_rate={rate / c['size']!r}", f"seed={seed}",
                                                    *(f"{k}={v}" for k, v in SAMPLING.items())])
        finally:
            os.unlink(f.name)
        return Config(**fields)
    extra = {"fixed_points": "self"} if c["traffic"] != "uniform" else {}
    return Config(topology=c["topology"], k=c["k"], n=c["n"], router="booksim", measurement="booksim",
                 vcs=c["vcs"], buf=c["buf"], packet_flits=c["size"], routing=c["routing"],
                 vc_allocator=c["alloc"], sw_allocator=c["alloc"], speculative=bool(c["spec"]),
                 pattern="uniform-self" if c["traffic"] == "uniform" else c["traffic"], rate=rate, seed=seed,
                 warmup_periods=SAMPLING["warmup_periods"], sample_period=SAMPLING["sample_period"],
                 max_samples=SAMPLING["max_samples"], latency_limit=int(SAMPLING["latency_thres"]), **extra)


def netsim_point(c: dict, rate: float, seed: int) -> dict:
    """The same run on netsim-fast's booksim router with ``--measurement booksim``."""
    from netsim_fast import simulate
    from netsim_fast.errors import DeadlockError

    cfg = netsim_config(c, rate, seed)
    try:
        s = simulate(cfg)
    except DeadlockError as e:  # BookSim2 has no deadlock stop: its latency estimate grows past the threshold
        print(f"  netsim: {str(e)[:100]}... (counted as unstable)", file=sys.stderr, flush=True)
        return {"stable": False, "latency": None, "accepted": None, "min_latency": None}
    control = s.get("booksim_control") or {}
    stable = not control.get("unstable", True) and s["stop_reason"] == "completed"
    if not stable:
        return {"stable": False, "latency": None, "accepted": None, "min_latency": None}
    st = s["booksim_stats"]
    return {"stable": True, "latency": st["packet_latency"]["average"], "accepted": st["accepted_flit_rate"]["average"],
            "min_latency": st["packet_latency"]["minimum"]}


RUN_FIELDS = ("config", "simulator", "seed", "rate", "purpose", "stable", "latency", "accepted", "min_latency",
              "seconds")


class RunCache:
    """Every single run, appended to a CSV as it finishes and looked up before running again."""

    def __init__(self, path: Path, binary: str | None):
        self.path, self.binary = path, binary
        self.rows: dict[tuple, dict] = {}
        if path.exists():
            with open(path, newline="") as f:
                for r in csv.DictReader(f):
                    self.rows[(r["config"], r["simulator"], int(r["seed"]), r["rate"])] = r

    def run(self, name: str, c: dict, simulator: str, rate: float, seed: int, purpose: str) -> dict:
        import time

        key = (name, simulator, seed, f"{rate:.6f}")
        if key in self.rows:
            r = self.rows[key]
            return {"stable": r["stable"] == "1", "latency": float(r["latency"]) if r["latency"] else None}
        t0 = time.time()
        res = (booksim_point(self.binary, c, rate, seed) if simulator == "booksim" else netsim_point(c, rate, seed))
        row = {"config": name, "simulator": simulator, "seed": seed, "rate": key[3], "purpose": purpose,
               "stable": int(res["stable"]), "latency": "" if res["latency"] is None else f"{res['latency']:.4f}",
               "accepted": "" if res["accepted"] is None else f"{res['accepted']:.5f}",
               "min_latency": "" if res["min_latency"] is None else f"{res['min_latency']:.0f}",
               "seconds": f"{time.time() - t0:.2f}"}
        new = not self.path.exists()
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=RUN_FIELDS)
            if new:
                w.writeheader()
            w.writerow(row)
        self.rows[key] = {k: str(v) for k, v in row.items()}
        print(f"  {simulator:7s} seed {seed} rate {rate:.4f} {purpose:6s} "
              f"{'stable' if res['stable'] else 'UNSTABLE'} {row['latency']} ({row['seconds']} s)",
              file=sys.stderr, flush=True)
        return res


def saturation(stable, guess: float | None, width: float = 0.02) -> float:
    """The largest rate (to ``SAT_STEP``) whose run is stable: bisection between a stable ``lo``
    and an unstable ``hi``, from [0, 1] or from [guess - width, guess + width] widened as needed."""
    def snap(x):
        return round(x, 4)

    if guess is None:
        lo, hi = 0.0, 1.0
        if stable(hi):
            return hi
    else:
        lo, hi = snap(max(guess - width, 0.0)), snap(min(guess + width, 1.0))
        step = width
        while lo > 0 and not stable(lo):  # widen downwards
            hi, step = lo, 2 * step
            lo = snap(max(lo - step, 0.0))
        step = width
        while stable(hi):  # widen upwards
            if hi >= 1.0:
                return 1.0
            lo, step = hi, 2 * step
            hi = snap(min(hi + step, 1.0))
    while hi - lo > SAT_STEP + 1e-9:
        mid = snap((lo + hi) / 2)
        if stable(mid):
            lo = mid
        else:
            hi = mid
    return lo


_RESULT_FIELDS = (["seeds", "booksim_sat", "netsim_sat", "sat_diff_pct", "booksim_sat_seeds", "netsim_sat_seeds"]
                  + [f"{w}_{f}" for p in LOAD_FRACTIONS for f in (int(100 * p),) for w in
                    ("rate", "booksim_lat", "netsim_lat", "lat_diff_pct")]
                  + ["booksim_zero_load", "netsim_zero_load", "zero_load_diff", "pass_sat", "pass_lat",
                     "pass_zero_load", "pass_all"])
MATRIX_FIELDS = ["config", "topology", "k", "n", "vcs", "buf", "packet_flits", "routing", "allocator", "speculative",
                 "traffic"] + _RESULT_FIELDS
NETWORK_FIELDS = ["config", "booksim_keys"] + _RESULT_FIELDS


def describe(c: dict) -> dict:
    """The descriptive columns of a configuration's row."""
    if "keys" in c:
        return {"booksim_keys": " ".join(c["keys"].replace(str(_CASES), "tests/booksim_cases").split())}
    return {"topology": c["topology"], "k": c["k"], "n": c["n"], "vcs": c["vcs"], "buf": c["buf"],
            "packet_flits": c["size"], "routing": c["routing"], "allocator": c["alloc"], "speculative": c["spec"],
            "traffic": c["traffic"]}


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def matrix_row(name: str, c: dict, cache: RunCache, seeds: int) -> dict:
    def stable_fn(sim, seed):
        return lambda rate: cache.run(name, c, sim, rate, seed, "sat")["stable"]

    sats = {}
    for sim in ("booksim", "netsim"):
        sats[sim], guess = [], None
        if sim == "netsim":
            guess = _mean(sats["booksim"])
        for seed in range(1, seeds + 1):
            sats[sim].append(saturation(stable_fn(sim, seed), guess))
            guess = _mean(sats[sim]) if sim == "booksim" else guess
        print(f"{name}: {sim} saturation {sats[sim]}", file=sys.stderr, flush=True)
    sat_b, sat_n = _mean(sats["booksim"]), _mean(sats["netsim"])
    row = {"config": name, **describe(c), "seeds": seeds, "booksim_sat": round(sat_b, 5), "netsim_sat": round(sat_n, 5),
           "sat_diff_pct": round(100 * (sat_n - sat_b) / sat_b, 2) if sat_b else None,
           "booksim_sat_seeds": " ".join(f"{x:.4f}" for x in sats["booksim"]),
           "netsim_sat_seeds": " ".join(f"{x:.4f}" for x in sats["netsim"])}
    lat_ok = True
    points = [(f"{int(100 * p)}", round(p * sat_b, 6)) for p in LOAD_FRACTIONS] + [("zero", ZERO_LOAD_RATE)]
    for label, rate in points:
        lat = {}
        for sim in ("booksim", "netsim"):
            n_seeds = max(seeds, ZERO_LOAD_SEEDS) if label == "zero" else seeds
            runs = [cache.run(name, c, sim, rate, seed, f"lat{label}") for seed in range(1, n_seeds + 1)]
            lat[sim] = _mean([r["latency"] for r in runs]) if all(r["stable"] for r in runs) else None
        both = lat["booksim"] is not None and lat["netsim"] is not None
        if label == "zero":
            row["booksim_zero_load"], row["netsim_zero_load"] = lat["booksim"], lat["netsim"]
            row["zero_load_diff"] = round(lat["netsim"] - lat["booksim"], 3) if both else None
        else:
            diff = round(100 * (lat["netsim"] - lat["booksim"]) / lat["booksim"], 2) if both else None
            row.update({f"rate_{label}": rate, f"booksim_lat_{label}": lat["booksim"],
                        f"netsim_lat_{label}": lat["netsim"], f"lat_diff_pct_{label}": diff})
            lat_ok &= diff is not None and abs(diff) <= 5
    row["pass_sat"] = int(row["sat_diff_pct"] is not None and abs(row["sat_diff_pct"]) <= 5)
    row["pass_lat"] = int(lat_ok)
    row["pass_zero_load"] = int(row["zero_load_diff"] is not None and abs(row["zero_load_diff"]) <= 1)
    row["pass_all"] = int(row["pass_sat"] and row["pass_lat"] and row["pass_zero_load"])
    for key in ("booksim_zero_load", "netsim_zero_load", *(f"{w}_{int(100 * p)}" for p in LOAD_FRACTIONS
                                                           for w in ("booksim_lat", "netsim_lat"))):
        if row[key] is not None:
            row[key] = round(row[key], 3)
    return row


MATRIX_CSV = Path("docs/figures/booksim_parity_matrix.csv")
NETWORKS_CSV = Path("docs/figures/booksim_parity_networks.csv")

# BookSim2's fattree (k-ary n-tree) with its nca routing: the matrix's measurements on the trees
# (--fattree), in their own files.
FATTREE = {
    "fattree4ary3_4vc_b8_4f_nca_islip_uniform": {"topology": "fattree", "k": 4, "n": 3, "vcs": 4, "buf": 8, "size": 4,
                                                 "routing": "nca", "alloc": "islip", "spec": 0, "traffic": "uniform"},
    "fattree2ary4_2vc_b4_1f_nca_sep_bitcomp": {"topology": "fattree", "k": 2, "n": 4, "vcs": 2, "buf": 4, "size": 1,
                                               "routing": "nca", "alloc": "separable_input_first", "spec": 0,
                                               "traffic": "bitcomp"},
}
FATTREE_CSV = Path("docs/figures/booksim_parity_fattree.csv")


def matrix(binary: str, args, configs=None, out: Path = MATRIX_CSV, fields=None) -> int:
    configs = MATRIX if configs is None else configs
    fields = MATRIX_FIELDS if fields is None else fields
    seeds = args.seeds or 3
    out.parent.mkdir(parents=True, exist_ok=True)
    cache = RunCache(out.with_name(out.stem + "_runs.csv"), binary)
    done = set()
    if out.exists():
        with open(out, newline="") as f:
            done = {r["config"] for r in csv.DictReader(f)}
    for name, c in configs.items():
        if args.only not in name or name in done:
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        try:
            row = matrix_row(name, c, cache, seeds)
        except Exception as e:  # noqa: BLE001 -- one failing configuration must not stop the matrix
            print(f"{name}: FAILED {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            continue
        new = not out.exists()
        with open(out, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            if new:
                w.writeheader()
            w.writerow(row)
        print(f"{name}: sat {row['booksim_sat']:.4f} / {row['netsim_sat']:.4f} ({row['sat_diff_pct']:+.2f} %), "
              f"pass {row['pass_all']}", file=sys.stderr, flush=True)
        plot_matrix(out)
    print(matrix_table(out))
    return 0


CONFIRM_FIRST_SEED = 101  # the confirmation seeds follow on from none of the matrix's


def confirm(binary: str, seeds: int, configs=None, table: Path = MATRIX_CSV, only: str = "") -> str:
    """Every criterion a configuration missed, measured again on ``seeds`` fresh seeds per
    simulator (``CONFIRM_FIRST_SEED`` on): is the miss a difference or the spread of 3 seeds?
    Saturation is bisected again per seed (from the two means); latency points are rerun at the
    same rates. Writes ``table``'s ``_confirm.csv`` (``booksim_parity_matrix_confirm.csv``; with
    ``--networks``, ``booksim_parity_networks_confirm.csv``) and returns its markdown table."""
    import statistics

    configs = MATRIX if configs is None else configs
    cache = RunCache(table.with_name(table.stem + "_runs.csv"), binary)
    out = []
    for r in _read(table):
        if only not in r["config"]:
            continue
        c = configs[r["config"]]
        checks = []
        if r["pass_sat"] != "1":
            checks.append(("sat", None))
        for p in LOAD_FRACTIONS:
            label = f"{int(100 * p)}"
            d = r[f"lat_diff_pct_{label}"]
            if d in ("", None) or abs(float(d)) > 5:
                checks.append((label, float(r[f"rate_{label}"])))
        if r["pass_zero_load"] != "1":
            checks.append(("zero", ZERO_LOAD_RATE))
        for label, rate in checks:
            vals = {}
            for sim in ("booksim", "netsim"):
                vals[sim] = []
                for seed in range(CONFIRM_FIRST_SEED, CONFIRM_FIRST_SEED + seeds):
                    if label == "sat":
                        guess = float(r["booksim_sat"] if sim == "booksim" else r["netsim_sat"])
                        vals[sim].append(saturation(
                            lambda x, s=seed, m=sim: cache.run(r["config"], c, m, x, s, "csat")["stable"], guess))
                    else:
                        res = cache.run(r["config"], c, sim, rate, seed, f"c{label}")
                        if res["stable"]:
                            vals[sim].append(res["latency"])
            b, n = (statistics.mean(vals[m]) if vals[m] else None for m in ("booksim", "netsim"))
            ref = 100.0 if label == "zero" else b
            row = {"config": r["config"], "criterion": label, "rate": rate, "seeds": seeds,
                   "booksim_stable": len(vals["booksim"]), "netsim_stable": len(vals["netsim"]),
                   "booksim": b, "netsim": n,
                   "diff": None if b is None or n is None else (n - b if label == "zero" else 100 * (n - b) / b),
                   "se": _se_pct(vals["booksim"], vals["netsim"], ref) if b and n else None}
            out.append(row)
            print(f"{r['config']} {label}: {row}", file=sys.stderr, flush=True)
    path = table.with_name(table.stem + "_confirm.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["config", "criterion", "rate", "seeds", "booksim_stable", "netsim_stable",
                                          "booksim", "netsim", "diff", "se"])
        w.writeheader()
        w.writerows(out)
    lines = ["| configuration | criterion | rate | seeds | BookSim2 | netsim | diff (standard error) |",
             "|---|---|---|---|---|---|---|"]
    for row in out:
        unit = " cycles" if row["criterion"] == "zero" else " %"
        lines.append(f"| {row['config']} | {row['criterion']} | {_fmt(row['rate'], '.4f')} | {row['seeds']} | "
                     f"{_fmt(row['booksim'], '.3f')} | {_fmt(row['netsim'], '.3f')} | "
                     f"{_fmt(row['diff'], '+.2f', unit)} ({_fmt(row['se'], '.2f')}) |")
    return "\n".join(lines)


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _fmt(x, spec, suffix=""):
    return "n/a" if x in ("", None) else f"{float(x):{spec}}{suffix}"


def _se_pct(a: list[float], b: list[float], ref: float):
    """Standard error of mean(b) - mean(a), in percent of ``ref`` (None with fewer than 2 each)."""
    def var(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x) / (len(x) - 1)
    if len(a) < 2 or len(b) < 2 or not ref:
        return None
    return 100 * (var(a) / len(a) + var(b) / len(b)) ** 0.5 / ref


def matrix_noise(row: dict, runs: list[dict]) -> dict:
    """Per criterion of one configuration: the standard error of its difference from the
    seed-to-seed spread (saturation and latency in %, zero-load in cycles)."""
    out = {"sat": _se_pct([float(x) for x in row["booksim_sat_seeds"].split()],
                          [float(x) for x in row["netsim_sat_seeds"].split()], float(row["booksim_sat"]))}
    mine = [x for x in runs if x["config"] == row["config"] and x["latency"]]
    for label in [f"{int(100 * p)}" for p in LOAD_FRACTIONS] + ["zero"]:
        lat = {sim: [float(x["latency"]) for x in mine if x["simulator"] == sim and x["purpose"] == f"lat{label}"]
               for sim in ("booksim", "netsim")}
        ref = float(row[f"booksim_lat_{label}"] if label != "zero" else 100) if (
            row.get(f"booksim_lat_{label}") or label == "zero") else None
        out[label] = _se_pct(lat["booksim"], lat["netsim"], ref)
    return out


def matrix_table(path: Path = MATRIX_CSV) -> str:
    """The markdown table of ``booksim_parity_matrix.csv`` (or ``path``); beside each difference,
    in brackets, its standard error from the seed-to-seed spread of both simulators."""
    runs = _read(path.with_name(path.stem + "_runs.csv"))
    lines = ["| configuration | BookSim2 sat | netsim sat | sat diff | lat 20 % | lat 50 % | lat 80 % | "
             "zero-load BookSim2 | zero-load diff | pass |", "|---|---|---|---|---|---|---|---|---|---|"]

    def cell(x, se, spec, unit):
        return _fmt(x, spec, unit) + ("" if se is None or x in ("", None) else f" ({se:.1f})")

    for r in _read(path):
        se = matrix_noise(r, runs)
        fails = [w for w, k in (("sat", "pass_sat"), ("lat", "pass_lat"), ("zero-load", "pass_zero_load"))
                 if r[k] != "1"]
        lines.append(f"| {r['config']} | {_fmt(r['booksim_sat'], '.4f')} | {_fmt(r['netsim_sat'], '.4f')} | "
                     f"{cell(r['sat_diff_pct'], se['sat'], '+.1f', ' %')} | "
                     + " | ".join(cell(r[f'lat_diff_pct_{p}'], se[p], '+.1f', ' %') for p in ('20', '50', '80'))
                     + f" | {_fmt(r['booksim_zero_load'], '.2f')} | {cell(r['zero_load_diff'], se['zero'], '+.2f', '')}"
                     f" | {'pass' if not fails else 'miss: ' + ', '.join(fails)} |")
    return "\n".join(lines)


def plot_matrix(path: Path = MATRIX_CSV) -> None:
    """One panel per configuration: mean packet latency against offered load, both simulators
    (markers: the means at zero load and at 20/50/80 % of BookSim2's saturation; dots: the
    stable bisection runs; dashed lines: the saturation rates)."""
    import math

    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _read(path)
    runs = _read(path.with_name(path.stem + "_runs.csv"))
    if not rows:
        return
    cols = 5
    nrows = math.ceil(len(rows) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.6 * nrows), squeeze=False)
    colours = {"booksim": "tab:blue", "netsim": "tab:orange"}
    for ax, r in zip(axes.flat, rows):
        mine = [x for x in runs if x["config"] == r["config"] and x["stable"] == "1" and x["latency"]]
        for sim, colour in colours.items():
            sat_runs = [x for x in mine if x["simulator"] == sim and x["purpose"] == "sat"]
            ax.scatter([float(x["rate"]) for x in sat_runs], [float(x["latency"]) for x in sat_runs], s=4,
                       color=colour, alpha=0.35)
            curve = {}
            for x in mine:
                if x["simulator"] == sim and x["purpose"].startswith("lat"):
                    curve.setdefault(float(x["rate"]), []).append(float(x["latency"]))
            xs = sorted(curve)
            ax.plot(xs, [sum(curve[v]) / len(curve[v]) for v in xs], "o-", ms=3, lw=1, color=colour,
                    label="BookSim2" if sim == "booksim" else "netsim-fast")
            sat = r["booksim_sat" if sim == "booksim" else "netsim_sat"]
            if sat:
                ax.axvline(float(sat), color=colour, ls="--", lw=0.8)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ok = r["pass_all"] == "1"
        ax.set_title(r["config"].replace("_", " "), fontsize=6.5, color="black" if ok else "tab:red")
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(rows):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6)
    fig.supxlabel("offered load (flits/node/cycle)", fontsize=8)
    fig.supylabel("mean packet latency (cycles)", fontsize=8)
    fig.tight_layout()
    fig.savefig(path.with_suffix(".png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
