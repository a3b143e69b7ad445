"""netsim-fast against BookSim2, measured in the same run on the same machine.

    BOOKSIM=$(bash ../shared/booksim2/build.sh) PYTHONPATH=. python bench/booksim_speed.py
    ... --repeats 5 --only torus16     # the set-ups whose name contains torus16

For each set-up both simulators run the same network for the same number of cycles, one
process at a time, interleaved (BookSim2, netsim-fast, BookSim2, ...), ``--repeats`` times; the
medians and their ratio are printed, with the spread (min..max) of each. Without ``BOOKSIM`` in
the environment the script says so in one line and exits 0: netsim-fast never needs BookSim2.

Counting the work the same way for both (flit-hops: router-to-router link traversals):

- BookSim2 runs in throughput mode with its latency threshold off (``latency_thres = -1``), one
  warm-up period and three sample periods of ``cycles / 4`` (its convergence thresholds set so
  high that every period "converges"), so it simulates a fixed ``cycles`` (it prints the exact
  count, "Time taken is N cycles"). Its work is the measured accepted flit rate x nodes x
  cycles x (Hops average - 1): "Hops average" counts routers, one more than links. The warm-up
  period is counted at the measured rate, which slightly over-counts BookSim2's work (its
  warm-up accepts less): the ratio is, if anything, in BookSim2's favour. Its time is its own
  "Total run time" (simulation, without process start-up).
- netsim-fast runs ``run --cycles N`` (no latency limit) in a fresh process with a warm Numba
  cache; its work is the engine's exact flit-hop counter and its time ``sim_seconds``
  (simulation, without compilation or loading the kernels). Its kernel is specialised for each
  set-up (``--specialise on``, flit/specialise.py: the same results, compiled once per set-up
  and cached); ``--specialise off`` runs the generic kernel, ``auto`` what the CLI would.

Each run's speed is given over its wall clock and over its CPU time, and the table's ratio is
the CPU one: on this shared machine another process's load stretches both tools' wall clocks by
whatever it happens to be during each run, their CPU times far less. BookSim2's CPU time is its
process's (``getrusage``) less the median of three runs of 16 cycles (reading the config,
building the network); netsim-fast's is ``sim_cpu_seconds`` (the span of ``sim_seconds``).

Set-ups named ``..._booksim`` run netsim-fast's ``booksim`` router on BookSim2's exact
configuration (the same router, allocators and pipeline; ``dim_order``, BookSim2's
``uniform`` as ``uniform-self``). The others run netsim-fast's default ``lanes`` router (and
``iq`` where named) on the *nearest* set-up: same topology, VCs, buffer depth, packet size,
traffic and offered load; the routers differ (paper 004's switch vs BookSim2's input-queued
router), so accepted loads are printed beside the speeds.
The adaptive set-up pairs BookSim2's ``min_adapt`` with netsim-fast's ``duato`` (both minimal
adaptive with an escape VC; not the same function).

Writes ``docs/figures/booksim_speed.csv`` (or ``--out``) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402

# name: (BookSim2 keys, netsim-fast Config fields, cycles). Offered loads in flits/node/cycle;
# "30 % of capacity" = 0.3 x 8/k on a k x k torus (uniform-traffic bisection capacity 8/k).
SETUPS = {
    "mesh8_dor_2vc_1flit_0.15": (
        dict(topology="mesh", k=8, n=2, routing_function="dim_order", num_vcs=2, vc_buf_size=8, packet_size=1,
             injection_rate=0.15),
        dict(topology="mesh", k=8, routing="dor", vcs=2, buf=8, packet_flits=1, rate=0.15), 8000),
    "torus16_dor_4vc_8flit_0.15": (
        dict(topology="torus", k=16, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.15),
        dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.15), 4000),
    "torus16_dor_4vc_8flit_0.15_booksim": (
        dict(topology="torus", k=16, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.15),
        dict(topology="torus", k=16, router="booksim", routing="dim_order", vcs=4, buf=8, packet_flits=8, rate=0.15,
             pattern="uniform-self"), 4000),
    "torus16_dor_4vc_8flit_0.5_booksim": (
        dict(topology="torus", k=16, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.5),
        dict(topology="torus", k=16, router="booksim", routing="dim_order", vcs=4, buf=8, packet_flits=8, rate=0.5,
             pattern="uniform-self"), 4000),
    "mesh8_dor_2vc_1flit_0.15_booksim": (
        dict(topology="mesh", k=8, n=2, routing_function="dim_order", num_vcs=2, vc_buf_size=8, packet_size=1,
             injection_rate=0.15),
        dict(topology="mesh", k=8, router="booksim", routing="dim_order", vcs=2, buf=8, packet_flits=1, rate=0.15,
             pattern="uniform-self"), 8000),
    "torus16_dor_4vc_8flit_0.15_iq": (
        dict(topology="torus", k=16, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.15),
        dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.15, router="iq"), 4000),
    "torus16_dor_4vc_8flit_0.5": (
        dict(topology="torus", k=16, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.5),
        dict(topology="torus", k=16, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.5), 4000),
    "torus16_adaptive_4vc_8flit_0.15": (
        dict(topology="torus", k=16, n=2, routing_function="min_adapt", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.15),
        dict(topology="torus", k=16, routing="duato", vcs=4, buf=8, packet_flits=8, rate=0.15), 4000),
    "torus32_dor_4vc_8flit_0.3cap": (
        dict(topology="torus", k=32, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.075),
        dict(topology="torus", k=32, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.075), 2000),
    "torus64_dor_4vc_8flit_0.3cap": (
        dict(topology="torus", k=64, n=2, routing_function="dim_order", num_vcs=4, vc_buf_size=8, packet_size=8,
             injection_rate=0.0375),
        dict(topology="torus", k=64, routing="dor", vcs=4, buf=8, packet_flits=8, rate=0.0375), 1200),
}
TOOLS = ("booksim2", "netsim-fast")
FIELDS = ["setup", "tool", "repeat", "cycles", "flit_hops", "seconds", "flit_hops_per_second", "cpu_seconds",
          "flit_hops_per_cpu_second", "accepted_load"]

NETSIM_CHILD = r"""
import json, sys
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
out = simulate(Config(**{"threads": 1, **json.loads(sys.argv[1])}))  # one thread, as the speed issue asks
print(json.dumps({k: out[k] for k in ("cycles", "flit_hops", "sim_seconds", "sim_cpu_seconds", "accepted_load")}))
"""


def booksim_config(keys: dict, cycles: int) -> str:
    fixed = dict(keys, traffic="uniform", injection_rate_uses_flits=1, sim_type="throughput", warmup_periods=1,
                 sample_period=cycles // 4, max_samples=10, latency_thres=-1.0, stopping_thres=1e9,
                 acc_stopping_thres=1e9)
    return "".join(f"{k} = {v};\n" for k, v in fixed.items())


def run_booksim(binary: str, keys: dict, cycles: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as fh:
        fh.write(booksim_config(keys, cycles))
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # BookSim2 exits with status 255 even after a complete run: read its output instead
        text = subprocess.run([binary, fh.name], capture_output=True, text=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(fh.name)

    def number(pattern):
        found = re.findall(pattern, text)
        if not found:
            raise RuntimeError(f"BookSim2 printed no {pattern!r}; its output ends: {text[-400:]}")
        return float(found[-1])

    taken = int(number(r"Time taken is (\d+) cycles"))
    accepted = number(r"Accepted flit rate average = ([0-9.eE+-]+)")
    hops = number(r"Hops average = ([0-9.eE+-]+)")
    seconds = number(r"Total run time ([0-9.eE+-]+)")
    nodes = keys["k"] ** keys["n"]
    flit_hops = accepted * nodes * taken * (hops - 1)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cycles": taken, "flit_hops": flit_hops, "seconds": seconds, "cpu_seconds": cpu, "accepted_load": accepted}


def run_netsim(fields: dict, cycles: int) -> dict:
    config = dict(fields, cycles=cycles)
    text = subprocess.run([sys.executable, "-c", NETSIM_CHILD, json.dumps(config)], capture_output=True,
                          text=True, check=True).stdout
    out = json.loads(text.strip().splitlines()[-1])
    return {"cycles": out["cycles"], "flit_hops": out["flit_hops"], "seconds": out["sim_seconds"],
            "cpu_seconds": out["sim_cpu_seconds"], "accepted_load": out["accepted_load"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default=None, help="run the set-ups whose name contains this")
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--specialise", choices=("on", "off", "auto"), default="on",
                    help="netsim-fast's kernels: compiled per set-up (on), generic (off), or as the CLI decides")
    args = ap.parse_args()
    print(describe(), flush=True)
    print(f"netsim-fast: --specialise {args.specialise}")
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("BOOKSIM is not set: skipping the comparison (build it with ../shared/booksim2/build.sh)")
        return
    setups = {k: (b, dict(n, specialise=args.specialise), c) for k, (b, n, c) in SETUPS.items()
              if args.only is None or args.only in k}
    if not setups:
        sys.exit(f"error: --only {args.only}: matches no set-up; choose from {', '.join(SETUPS)}")
    warm = run_netsim(dict(next(iter(setups.values()))[1]), 100)  # fills the Numba cache once
    del warm
    # BookSim2's CPU time is its whole process's: take off what a run of 16 cycles costs (reading
    # the config, building the network), so both CPU figures cover the simulation
    startup = {name: statistics.median(run_booksim(binary, keys, 16)["cpu_seconds"] for _ in range(3))
               for name, (keys, _, _) in setups.items()}
    rows = []
    for repeat in range(args.repeats):
        for name, (bs_keys, ns_fields, cycles) in setups.items():
            for tool, run in (("booksim2", lambda: run_booksim(binary, bs_keys, cycles)),
                              ("netsim-fast", lambda: run_netsim(ns_fields, cycles))):
                result = run()
                if tool == "booksim2":
                    result["cpu_seconds"] = max(result["cpu_seconds"] - startup[name], 1e-9)
                rows.append({"setup": name, "tool": tool, "repeat": repeat, **result,
                             "flit_hops_per_second": result["flit_hops"] / result["seconds"],
                             "flit_hops_per_cpu_second": result["flit_hops"] / result["cpu_seconds"]})
                print(f"  {name} {tool} #{repeat}: {rows[-1]['flit_hops_per_second'] / 1e6:.2f} M flit-hops/s",
                      file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ("booksim_speed.csv" if args.only is None else "booksim_speed_partial.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows({k: r[k] for k in FIELDS} for r in rows)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, "
          f"medians of {args.repeats}, one process at a time")
    print("| set-up | BookSim2 M flit-hops per CPU s | netsim-fast | ratio (CPU) | ratio (wall clock) | "
          "accepted (BookSim2 / netsim-fast) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in setups:
        mine = [r for r in rows if r["setup"] == name]
        cpu = {t: [r["flit_hops_per_cpu_second"] / 1e6 for r in mine if r["tool"] == t] for t in TOOLS}
        wall = {t: statistics.median(r["flit_hops_per_second"] for r in mine if r["tool"] == t) for t in TOOLS}
        acc = {t: statistics.median(r["accepted_load"] for r in mine if r["tool"] == t) for t in TOOLS}
        b, n = statistics.median(cpu["booksim2"]), statistics.median(cpu["netsim-fast"])
        print(f"| {name} | {b:.3f} ({min(cpu['booksim2']):.3f}..{max(cpu['booksim2']):.3f}) | "
              f"{n:.2f} ({min(cpu['netsim-fast']):.2f}..{max(cpu['netsim-fast']):.2f}) | {n / b:.1f}x | "
              f"{wall['netsim-fast'] / wall['booksim2']:.1f}x | {acc['booksim2']:.3f} / {acc['netsim-fast']:.3f} |")


if __name__ == "__main__":
    main()
