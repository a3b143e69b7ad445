"""Where a flit kernel's time goes, by compiled function, with ``perf`` (README, "Performance").

    PYTHONPATH=. python bench/jit_profile.py --router booksim      # the 16x16 torus at 0.15
    PYTHONPATH=. python bench/jit_profile.py --router lanes --cycles 20000
    PYTHONPATH=. python bench/jit_profile.py --router lanes --k 64 --cycles 4000 --top 5

Numba writes no perf map, so ``perf`` cannot name the code it compiles. This script runs one
simulation under ``perf record`` (a child process with a fresh Numba cache, so the kernel is
compiled in that process and its functions are known), and the child, once done, writes
``/tmp/perf-PID.map`` (each compiled function's address and size, from the kernel's code library)
and a copy of each function's machine code. The parent then counts the samples per function and,
with ``objdump``, the share of each function's samples on ``push``/``pop`` and on instructions
that address the stack: the cost of passing arguments, which for a function taking the state
tuples flattened into scalars is most of what it does. ``--k`` sets the torus's radix, at 30 %
of its capacity (0.15 on the 16x16); ``--top N`` lists each function's N hottest instructions
with the one before each (a cpu-clock sample lands just after the instruction that waited).

Needs ``perf`` and ``objdump`` (binutils). Samples are CPU-clock samples, so the shares hold on
a loaded machine; the absolute time does not.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _perf import disassemble, hottest, samples_by_function, short, write_code_map  # noqa: E402

KERNELS = {"booksim": "netsim_fast.flit.booksim.kernel", "lanes": "netsim_fast.flit.kernel",
           "iq": "netsim_fast.flit.kernel"}


def config(router: str, cycles: int, k: int = 16) -> dict:
    kw = dict(topology="torus", k=k, vcs=4, buf=8, packet_flits=8, rate=0.15 * 16 / k, cycles=cycles, router=router,
              threads=1)  # the one-thread kernel, whatever the machine's load
    if router == "booksim":
        kw.update(routing="dim_order", pattern="uniform-self")
    return kw


def child(kw: dict, module: str, out: Path) -> None:
    """Run the simulation, then write the perf map and the code of every compiled function."""
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    summary = simulate(Config(**kw))
    print(json.dumps({k: summary[k] for k in ("sim_seconds", "flit_hops")}), file=sys.stderr)
    from netsim_fast._stage import python_twin

    write_code_map([python_twin(importlib.import_module(module).advance)], out)


def stack_shares(code: Path, offsets: collections.Counter) -> tuple[float, float]:
    """Shares of the samples at ``offsets`` on push/pop, and on any instruction naming %rsp."""
    instruction = disassemble(code)
    total = sum(offsets.values())
    push = sum(n for o, n in offsets.items() if instruction.get(o, "").startswith(("push", "pop")))
    stack = sum(n for o, n in offsets.items() if "(%rsp)" in instruction.get(o, ""))
    return push / total, stack / total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--router", choices=sorted(KERNELS), default="booksim")
    ap.add_argument("--cycles", type=int, default=20000)
    ap.add_argument("--k", type=int, default=16, help="torus radix (at 30 %% of capacity)")
    ap.add_argument("--top", type=int, default=0, help="list each function's N hottest instructions")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    kw = config(args.router, args.cycles, args.k)
    if args.child:
        child(kw, KERNELS[args.router], Path(args.child))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-F", "999", "-o", data, sys.executable, __file__, "--router", args.router,
                        "--cycles", str(args.cycles), "--k", str(args.k), "--child", tmp], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        per_function, code = samples_by_function(tmp, data)
        total = sum(sum(c.values()) for c in per_function.values())
        print(f"{args.router} router, {args.k}x{args.k} torus at {kw['rate']:.4g}, {args.cycles} cycles: {total} samples "
              "in compiled code")
        print("| function | share of samples | on push/pop | on stack operands |\n| --- | --- | --- | --- |")
        hot_lines = []
        for name, offsets in sorted(per_function.items(), key=lambda item: -sum(item[1].values())):
            n = sum(offsets.values())
            if n < 0.01 * total:
                continue
            push, stack = stack_shares(code[name], offsets)
            print(f"| {short(name)} | {100 * n / total:.1f} % | {100 * push:.1f} % | {100 * stack:.1f} % |")
            hot_lines.extend([f"{short(name)}:"] + hottest(code[name], offsets, args.top)
                             if args.top else [])
        print("\n".join(hot_lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
