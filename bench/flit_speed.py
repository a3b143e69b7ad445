"""Speed of the flit engine on the reference set-ups of issue 3 (README, "Performance").

Each set-up runs ``--repeats`` times, each in a fresh subprocess (so peak memory is that run's
and compile time is measured apart from simulation), and the medians are printed. Beside the
absolute figures the script measures a calibration kernel in the same session (random
read-modify-writes on a 1 MiB array, the kind of work a flit-hop is made of) and reports
nanoseconds per flit-hop in units of it, so runs on a noisy shared machine, or on another
machine, can be compared by ratio.

    PYTHONPATH=. python bench/flit_speed.py                 # all set-ups, 5 repeats
    PYTHONPATH=. python bench/flit_speed.py --only torus16 --repeats 3
    PYTHONPATH=. python bench/flit_speed.py --only cap,dragonfly --repeats 3   # the size table
    PYTHONPATH=. python bench/flit_speed.py --only 0.03cap --against ../old   # alternated with another checkout
    PYTHONPATH=. python bench/flit_speed.py --against . --other-specialise off  # specialised against generic

The kernels are specialised per set-up (``--specialise on``, flit/specialise.py: the same
results; each set-up's first run compiles its kernel, later runs load it from the cache);
``--specialise off`` measures the generic kernel, which every configuration shares.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402

# name: (Config fields, cycles simulated). Loads as in issue 3; "0.3 of capacity" = 0.3 * 8/k.
SETUPS = {
    "mesh8_dor_1flit_0.15": (dict(topology="mesh", k=8, routing="dor", vcs=2, buf=8, packet_flits=1, rate=0.15), 40_000),
    "torus16_dor_0.15": (dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.15), 30_000),
    "torus16_dor_0.5": (dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.5), 10_000),
    "torus16_duato_0.15": (dict(topology="torus", k=16, routing="duato", vcs=4, buf=8, packet_flits=8, rate=0.15), 30_000),
    "torus16_duato_0.5": (dict(topology="torus", k=16, routing="duato", vcs=4, buf=8, packet_flits=8, rate=0.5), 10_000),
    "torus16_dor_0.15_iq": (dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.15, router="iq"), 30_000),
    # the booksim router on BookSim2's configuration, as bench/booksim_speed.py runs it
    "torus16_dor_0.15_booksim": (dict(topology="torus", k=16, router="booksim", routing="dim_order", vcs=4, buf=8,
                                      packet_flits=8, rate=0.15, pattern="uniform-self"), 10_000),
    "torus16_dor_0.5_booksim": (dict(topology="torus", k=16, router="booksim", routing="dim_order", vcs=4, buf=8,
                                     packet_flits=8, rate=0.5, pattern="uniform-self"), 5_000),
    "torus32_dor_0.3cap": (dict(topology="torus", k=32, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.3 * 8 / 32), 10_000),
    "torus64_dor_0.3cap": (dict(topology="torus", k=64, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.3 * 8 / 64), 4_000),
    # low load (issue 18, "cost proportional to work"): a tenth of the load above, where most
    # routers are idle in a cycle
    "torus16_dor_0.03cap": (dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8,
                                 rate=0.03 * 8 / 16), 30_000),
    "torus64_dor_0.03cap": (dict(topology="torus", k=64, routing="dor", vcs=4, buf=8, packet_flits=8,
                                 rate=0.03 * 8 / 64), 4_000),
    "torus64_dor_0.003cap": (dict(topology="torus", k=64, routing="dor", vcs=4, buf=8, packet_flits=8,
                                  rate=0.003 * 8 / 64), 4_000),
    # no traffic at all: what a cycle costs that does not depend on the flits (the Bernoulli draw
    # of every node, the loop's test of the idle marks, the stages' calls); reported per cycle
    "torus64_dor_idle": (dict(topology="torus", k=64, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.0), 4_000),
    # the size table (issue 18): 3-D tori at the same fraction of capacity
    "torus16x16x16_dor_0.3cap": (dict(topology="torus", dims="16,16,16", routing="dor", vcs=4, buf=8, packet_flits=8,
                                      rate=0.3 * 8 / 16), 3_000),
    "torus32x32x32_dor_0.3cap": (dict(topology="torus", dims="32,32,32", routing="dor", vcs=4, buf=8, packet_flits=8,
                                      rate=0.3 * 8 / 32), 1_200),
    # the 16k-terminal dragonfly of the size table: P = 8 terminals, A = 16 routers per group,
    # H = 8 global links, G = 129 groups (2,064 31-port routers), minimal routing, offered 0.1
    "dragonfly16512_min_0.1": (dict(topology="dragonfly", group_routers=16, global_links=8, concentration=8,
                                    routing="minimal", vcs=4, buf=8, packet_flits=8, rate=0.1), 1_500),
}

CHILD = r"""
import json, resource, sys
from netsim_fast.config import Config
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import run_flit
from netsim_fast.topologies import build_topology
fields, cycles = json.loads(sys.argv[1]), int(sys.argv[2])
special = fields.pop("specialise", None)
if special is not None and "specialise" in Config.__dataclass_fields__:  # a tree from before it: its one kernel
    fields["specialise"] = special
cfg = Config(cycles=cycles, threads=1, **fields)  # one thread, whatever the machine's load
topo = build_topology(cfg)
run = run_flit(cfg, topo)
cpu = getattr(run, "sim_cpu_seconds", None)
if cpu is None:  # a tree from before sim_cpu_seconds (PYTHONPATH=<older checkout>): time a second, warm run
    import time
    start = time.process_time()
    run = run_flit(cfg, topo)
    cpu = time.process_time() - start
hops = int(run.state.cnt[fs.C_FLIT_HOPS])
# the network's state (lanes, buffers, ports, rings), without the per-packet tables, whose size
# follows the run's length and of which only the packets in flight are touched
per_packet = {"pkt", "mid", "cls", "born", "kind", "cand"}
state_mib = sum(a.nbytes for key, a in run.state._asdict().items() if key not in per_packet) / 2**20
print(json.dumps(dict(cycles=run.cycles, flit_hops=hops, sim_seconds=run.sim_seconds, cpu_seconds=cpu,
                      compile_seconds=run.compile_seconds, state_mib=state_mib,
                      peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
if len(sys.argv) > 3:  # bench/flit_instructions.py: where the kernel's compiled code lies (bench/_perf.py)
    sys.path.insert(0, sys.argv[4])
    from pathlib import Path
    from _perf import write_code_map
    from netsim_fast._stage import python_twin
    from netsim_fast.flit import kernel
    write_code_map([python_twin(kernel.advance)], Path(sys.argv[3]))
"""


def calibration_ns(repeats: int = 5) -> float:
    """Median ns of one random read-modify-write on a 1 MiB int64 array (compiled)."""
    import numpy as np
    from numba import njit

    @njit(cache=False)
    def kernel(arr, idx):
        acc = 0
        for i in idx:
            arr[i] += 1
            acc += arr[(i * 7) & (arr.size - 1)]
        return acc

    arr = np.zeros(1 << 17, np.int64)
    idx = np.random.default_rng(0).integers(0, arr.size, 2_000_000)
    kernel(arr, idx[:10])
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        kernel(arr, idx)
        times.append((time.perf_counter() - t0) / idx.size * 1e9)
    return statistics.median(times)


def run_setup(fields: dict, cycles: int, tree: str | None = None, prefix: list[str] = (), env: dict | None = None,
              code_map: str | None = None) -> dict:
    """One run in a fresh process, of this checkout's engine or (``tree``) another's; ``prefix``
    runs it under a tool (valgrind), ``env`` sets environment variables, and ``code_map`` names a
    folder for the map of the kernel's compiled code (bench/_perf.py), written after the run."""
    cwd, overrides = None, {}
    if tree is not None:  # run in it (``python -c`` puts the working folder first on the path), with
        # its own Numba cache: the two trees' kernels share names
        overrides = dict(PYTHONPATH=tree, NUMBA_CACHE_DIR=os.path.join(tree, ".numba_cache_bench"))
        cwd = tree
    env = {**os.environ, **overrides, **(env or {})}
    command = [*prefix, sys.executable, "-c", CHILD, json.dumps(fields), str(cycles)]
    if code_map:
        command += [code_map, str(Path(__file__).resolve().parent)]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=cwd)
    return json.loads(out.stdout.strip().splitlines()[-1])


def against(tree: str, wanted: list[str], repeats: int, special: str, other_special: str) -> None:
    """Alternate runs of this engine and the one in ``tree``; per set-up, the median over pairs of
    this engine's CPU ns per flit-hop over the other's (two runs a minute apart share the
    machine's load, so the ratio of a pair is steadier than either figure)."""
    print(f"CPU ns per flit-hop, this checkout (--specialise {special}) / {tree} ({other_special}): "
          f"median over {repeats} alternated pairs")
    for name, (fields, cycles) in SETUPS.items():
        if not any(part in name for part in wanted):
            continue
        pairs = []
        for _ in range(repeats):
            other = run_setup(dict(fields, specialise=other_special), cycles, tree)
            mine = run_setup(dict(fields, specialise=special), cycles)
            assert other["flit_hops"] == mine["flit_hops"], "the two engines simulated different runs"
            per = max(mine["flit_hops"], 1)  # per flit-hop; with no traffic, per cycle
            pairs.append((mine["cpu_seconds"] / per * 1e9, other["cpu_seconds"] / per * 1e9))
        ratio = statistics.median(m / o for m, o in pairs)
        unit = "ns" if mine["flit_hops"] else "ns per run"
        print(f"{name:26s} {statistics.median(m for m, _ in pairs):7.1f} / {statistics.median(o for _, o in pairs):7.1f}"
              f" {unit}: {ratio:.3f} ({' '.join(f'{m / o:.2f}' for m, o in pairs)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="run set-ups whose name contains this text (or one of these, "
                                                   "comma-separated)")
    parser.add_argument("--out", default="bench/out", help="folder for flit_speed.csv")
    parser.add_argument("--against", metavar="TREE", help="instead: alternate with the engine of another checkout "
                                                          "and print the ratio of CPU time per flit-hop")
    parser.add_argument("--specialise", choices=("on", "off", "auto"), default="on",
                        help="the kernels: compiled per set-up (on, the default), generic (off), or as the CLI decides")
    parser.add_argument("--other-specialise", choices=("on", "off", "auto"),
                        help="with --against: the other checkout's (default: --specialise; a checkout from before "
                             "it has only the generic kernel). --against . --other-specialise off: the gain here")
    args = parser.parse_args()
    print(describe(), flush=True)
    print(f"--specialise {args.specialise}")
    wanted = args.only.split(",")
    if not any(part in name for name in SETUPS for part in wanted):
        parser.error(f"--only {args.only!r} matches no set-up; names: {', '.join(SETUPS)}")
    if args.against:
        run_setup(*SETUPS["mesh8_dor_1flit_0.15"], args.against)  # fill both caches before timing
        run_setup(*SETUPS["mesh8_dor_1flit_0.15"])
        against(args.against, wanted, args.repeats, args.specialise, args.other_specialise or args.specialise)
        return

    run_setup(*SETUPS["mesh8_dor_1flit_0.15"])  # compile once (or load the cache) before timing
    cal = calibration_ns()
    rows = []
    print(f"calibration: {cal:.2f} ns per random read-modify-write (1 MiB array)")
    print(f"{'set-up':26s} {'Mflit-hops/s':>12s} {'(cpu)':>7s} {'us/cycle':>9s} {'ns/hop':>7s} {'hop/cal':>7s} "
          f"{'peak MiB':>8s} {'compile s':>9s}")
    for name, (fields, cycles) in SETUPS.items():
        if not any(part in name for part in wanted):
            continue
        runs = [run_setup(dict(fields, specialise=args.specialise), cycles) for _ in range(args.repeats)]
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        wall = statistics.median(r["flit_hops"] / r["sim_seconds"] for r in runs)
        cpu = statistics.median(r["flit_hops"] / r["cpu_seconds"] for r in runs)
        ns_per_hop = 1e9 / wall if wall else float("nan")  # no traffic: see microseconds per cycle
        row = dict(setup=name, mflit_hops_per_s=wall / 1e6, mflit_hops_per_cpu_s=cpu / 1e6,
                   kcycles_per_s=statistics.median(r["cycles"] / r["sim_seconds"] for r in runs) / 1e3,
                   us_per_cycle=statistics.median(r["sim_seconds"] / r["cycles"] for r in runs) * 1e6,
                   ns_per_flit_hop=ns_per_hop, ns_per_hop_over_calibration=ns_per_hop / cal,
                   peak_mib=med["peak_mib"], compile_seconds=med["compile_seconds"], cycles=cycles,
                   flit_hops=med["flit_hops"], repeats=args.repeats, calibration_ns=cal)
        rows.append(row)
        print(f"{name:26s} {row['mflit_hops_per_s']:12.2f} {row['mflit_hops_per_cpu_s']:7.2f} "
              f"{row['us_per_cycle']:9.2f} {ns_per_hop:7.1f} {row['ns_per_hop_over_calibration']:7.1f} "
              f"{row['peak_mib']:8.0f} {row['compile_seconds']:9.2f}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "flit_speed.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out / 'flit_speed.csv'}")


if __name__ == "__main__":
    main()
