"""Where a flit kernel's time goes, by compiled function, with ``perf`` (README, "Performance").

    PYTHONPATH=. python bench/jit_profile.py --router booksim      # the 16x16 torus at 0.15
    PYTHONPATH=. python bench/jit_profile.py --router lanes --cycles 20000
    PYTHONPATH=. python bench/jit_profile.py --router lanes --k 64 --cycles 4000 --top 5
    PYTHONPATH=. python bench/jit_profile.py --router booksim --lines 20 --rate 0.5

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

``--lines N``: the kernels are compiled with line tables (``_perf.compile_with_line_tables``:
the same machine code, each instruction tagged with its Python file and line), and the samples
are shared out by the Python function each came from (the innermost one: a stage's helper, not
the stage that inlined it) and, for the N hottest, by source line. Everything is inlined into
one compiled function, so this is the only split of its time by stage. A sample is counted at
the instruction before it, as ``--top`` shows them.

``perf`` records the simulation only (4,999 samples a second): the child compiles first, in
a run of a few cycles, then enables the events through perf's control fifo.

Needs ``perf``, ``objdump`` and ``readelf`` (binutils). Samples are CPU-clock samples, so the shares hold on
a loaded machine; the absolute time does not.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import importlib
import importlib.util
import linecache
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _perf import (  # noqa: E402
    SourceFunctions, compile_with_line_tables, disassemble, hottest, line_table, samples_by_function, short,
    write_code_map, write_objects,
)

KERNELS = {"booksim": "netsim_fast.flit.booksim.kernel", "lanes": "netsim_fast.flit.kernel",
           "iq": "netsim_fast.flit.kernel"}


def config(router: str, cycles: int, k: int = 16, rate: float | None = None, specialise: str = "off") -> dict:
    rate = 0.15 * 16 / k if rate is None else rate
    kw = dict(topology="torus", k=k, vcs=4, buf=8, packet_flits=8, rate=rate, cycles=cycles, router=router,
              threads=1, specialise=specialise)  # the one-thread kernel, whatever the machine's load
    if router == "booksim":
        kw.update(routing="dim_order", pattern="uniform-self")
    return kw


def child(kw: dict, module: str, out: Path, lines: bool) -> None:
    """Compile (a run of a few cycles), then have ``perf`` record the simulation only, through
    its control fifo; then write the perf map and the code of every compiled function
    (``lines``: compiled with line tables, and the object files that hold them)."""
    if lines:
        compile_with_line_tables()
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    simulate(Config(**dict(kw, cycles=20)))
    with open(out / "ctl", "w") as control, open(out / "ack") as ack:
        control.write("enable\n")
        control.flush()
        ack.readline()
        summary = simulate(Config(**kw))
        control.write("disable\n")
        control.flush()
        ack.readline()
    print(json.dumps({k: summary[k] for k in ("sim_seconds", "flit_hops")}), file=sys.stderr)
    from netsim_fast._stage import python_twin

    kernels = [python_twin(importlib.import_module(module).advance)]
    if module == KERNELS["lanes"]:  # networks of 65,536 lanes or more run the blocked kernel (flit/blocks.py)
        from netsim_fast.flit.blocks import advance_blocks

        kernels.append(python_twin(advance_blocks))
    write_code_map(kernels, out)
    if lines:
        write_objects(kernels, out)


def by_source(tmp: str, per_function: dict, module: str, top: int) -> None:
    """Print the samples by Python function and the ``top`` source lines (``--lines``)."""
    home = Path(importlib.util.find_spec(module).origin).parent
    located = {}  # compiled function name -> (its address in the object, the object's line table)
    for obj in Path(tmp).glob("*.o"):
        table = line_table(obj, home)
        for text in subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout.splitlines():
            fields = text.split()
            if len(fields) == 3 and fields[1] in "TtWw":
                located[fields[2]] = (int(fields[0], 16), table)
    functions, lines, sources = collections.Counter(), collections.Counter(), SourceFunctions()
    for name, offsets in per_function.items():
        if name not in located:
            continue
        start, (addresses, places) = located[name]
        for offset, n in offsets.items():
            i = bisect.bisect_right(addresses, start + offset - 1) - 1  # the instruction before the sample
            path, line = places[i] if i >= 0 else ("?", 0)
            functions[sources.name(path, line)] += n
            lines[(path, line)] += n
    total = sum(functions.values())
    print(f"\nby Python function (the innermost, where stages inline helpers), {total} samples:")
    print("| function | share of samples |\n| --- | --- |")
    for function, n in functions.most_common():
        if n >= 0.005 * total:
            print(f"| {function} | {100 * n / total:.1f} % |")
    print(f"\nthe {top} hottest source lines:")
    for (path, line), n in lines.most_common(top):
        text = linecache.getline(path, line).strip() if line else "(code with no source line: spills, set-up)"
        print(f"  {100 * n / total:5.1f} %  {Path(path).name}:{line}  {text[:100]}")


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
    ap.add_argument("--rate", type=float, help="offered load (default: 30 %% of capacity)")
    ap.add_argument("--lines", type=int, default=0, metavar="N",
                    help="share the samples by Python function and list the N hottest source lines")
    ap.add_argument("--specialise", choices=("off", "on"), default="off",
                    help="profile the generic kernel (off) or the one compiled for this set-up (on; flit/specialise.py)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    kw = config(args.router, args.cycles, args.k, args.rate, args.specialise)
    if args.child:
        child(kw, KERNELS[args.router], Path(args.child), args.lines > 0)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        data = os.path.join(tmp, "perf.data")
        forward = ["--router", args.router, "--cycles", str(args.cycles), "--k", str(args.k),
                   "--lines", str(args.lines), "--specialise", args.specialise]
        forward += ["--rate", str(args.rate)] if args.rate is not None else []
        for fifo in ("ctl", "ack"):
            os.mkfifo(os.path.join(tmp, fifo))
        control = f"fifo:{os.path.join(tmp, 'ctl')},{os.path.join(tmp, 'ack')}"  # the child enables the events
        subprocess.run(["perf", "record", "-F", "4999", "-D", "-1", "--control", control, "-o", data, sys.executable,
                        __file__, *forward, "--child", tmp], env=env, check=True, stdout=subprocess.DEVNULL)
        per_function, code = samples_by_function(tmp, data)
        total = sum(sum(c.values()) for c in per_function.values())
        print(f"{args.router} router, {args.k}x{args.k} torus at {kw['rate']:.4g}, {args.cycles} cycles: "
              f"{total} samples in compiled code")
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
        if args.lines:
            by_source(tmp, per_function, KERNELS[args.router], args.lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
