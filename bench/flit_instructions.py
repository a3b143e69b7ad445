"""Instructions and branches per flit-hop in the compiled kernels, counted by valgrind's
cachegrind (README, "Performance": what a flit-hop costs).

The machine's hardware counters are not open to this guest (``perf stat`` reports them as not
supported), so whether a kernel waits on memory or executes too many instructions cannot be
read off them. Cachegrind counts every instruction executed instead. Numba's code has no
symbols, so cachegrind files it under ``???``; the kernels are nearly all of that. Two runs of
the same set-up, ``--short`` and ``--long`` cycles, each under cachegrind with a warm Numba cache
(a first run fills a cache of its own: Numba sees valgrind's CPU as another machine), are
subtracted, which leaves the instructions of ``long - short`` simulated cycles and nothing of
start-up. Divided by the flit-hops of those cycles: instructions, conditional branches and
(cachegrind's simple predictor, which mispredicts more than a modern core) mispredicted
branches per flit-hop. Beside it, the same set-up's ns per flit-hop without valgrind, so that
instructions per nanosecond can be read off.

    PYTHONPATH=. python bench/flit_instructions.py [--k 16] [--rate 0.15] [--router lanes]

Needs valgrind. Slow: the run that fills the cache compiles under valgrind (about 3 minutes).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402

CHILD = r"""
import json, sys, time
from netsim_fast.config import Config
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import run_flit
from netsim_fast.topologies import build_topology
fields, cycles = json.loads(sys.argv[1]), int(sys.argv[2])
cfg = Config(cycles=cycles, threads=1, **fields)
run = run_flit(cfg, build_topology(cfg))
print(json.dumps(dict(flit_hops=int(run.state.cnt[fs.C_FLIT_HOPS]), cpu_seconds=run.sim_cpu_seconds)))
"""


def child(fields: dict, cycles: int, env: dict, valgrind_out: str | None = None) -> dict:
    """One run in a fresh process, under cachegrind if ``valgrind_out``."""
    command = [sys.executable, "-c", CHILD, json.dumps(fields), str(cycles)]
    if valgrind_out:
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                   f"--cachegrind-out-file={valgrind_out}"] + command
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def unnamed_code_counts(path: str) -> dict[str, int]:
    """Event totals of the code cachegrind has no name for (file and function ``???``)."""
    events, totals, where = [], collections.Counter(), ("", "")
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            where = (line[3:].strip(), where[1])
        elif line.startswith("fn="):
            where = (where[0], line[3:].strip())
        elif line[:1].isdigit() and where == ("???", "???"):
            for name, count in zip(events, line.split()[1:]):
                totals[name] += int(count)
    return dict(totals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=16, help="radix of the 2-D torus (dor, 4 VCs x 8, 8-flit packets)")
    ap.add_argument("--rate", type=float, default=0.15, help="offered flits per node and cycle")
    ap.add_argument("--router", default="lanes", choices=("lanes", "iq", "booksim"))
    ap.add_argument("--short", type=int, default=300, help="cycles of the shorter run")
    ap.add_argument("--long", type=int, default=1300, help="cycles of the longer run")
    args = ap.parse_args()
    print(describe(), flush=True)
    if shutil.which("valgrind") is None:
        sys.exit("bench/flit_instructions.py: valgrind is not installed")
    if args.long <= args.short:
        sys.exit(f"--long {args.long} must be more than --short {args.short}")
    fields = dict(topology="torus", k=args.k, vcs=4, buf=8, packet_flits=8, rate=args.rate, router=args.router)
    if args.router == "booksim":
        fields.update(routing="dim_order", pattern="uniform-self")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cache"))
        child(fields, 20, env, os.path.join(tmp, "fill.out"))  # compiles under valgrind, fills the cache
        short = child(fields, args.short, env, os.path.join(tmp, "short.out"))
        long = child(fields, args.long, env, os.path.join(tmp, "long.out"))
        counts = [unnamed_code_counts(os.path.join(tmp, f"{name}.out")) for name in ("short", "long")]
        native = child(fields, args.long, dict(os.environ))  # the same run's speed without valgrind
    hops = long["flit_hops"] - short["flit_hops"]
    per = {name: (counts[1].get(name, 0) - counts[0].get(name, 0)) / hops for name in ("Ir", "Bc", "Bcm")}
    ns = native["cpu_seconds"] / native["flit_hops"] * 1e9
    print(f"{args.k}x{args.k} torus, {args.router} router, offered {args.rate}: cycles {args.short}..{args.long}, "
          f"{hops} flit-hops")
    print(f"per flit-hop in the compiled code: {per['Ir']:.0f} instructions, {per['Bc']:.0f} conditional branches, "
          f"{per['Bcm']:.1f} mispredicted by cachegrind's predictor")
    print(f"without valgrind: {ns:.1f} ns per flit-hop ({per['Ir'] / ns:.1f} instructions per ns)")


if __name__ == "__main__":
    main()
