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
import ctypes
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KERNELS = {"booksim": "netsim_fast.flit.booksim.kernel", "lanes": "netsim_fast.flit.kernel",
           "iq": "netsim_fast.flit.kernel"}


def config(router: str, cycles: int, k: int = 16) -> dict:
    kw = dict(topology="torus", k=k, vcs=4, buf=8, packet_flits=8, rate=0.15 * 16 / k, cycles=cycles, router=router)
    if router == "booksim":
        kw.update(routing="dim_order", pattern="uniform-self")
    return kw


def child(kw: dict, module: str, out: Path) -> None:
    """Run the simulation, then write the perf map and the code of every compiled function."""
    from netsim_fast.config import Config
    from netsim_fast.experiment import simulate

    summary = simulate(Config(**kw))
    print(json.dumps({k: summary[k] for k in ("sim_seconds", "flit_hops")}), file=sys.stderr)
    symbols = []
    from netsim_fast._stage import python_twin

    for compiled in python_twin(importlib.import_module(module).advance).overloads.values():
        library = compiled.library
        for fn in library._final_module.functions:
            if not fn.is_declaration:
                address = library._codegen._engine._ee.get_function_address(fn.name)
                if address:
                    symbols.append((address, fn.name))
    symbols.sort()
    mapped = []  # the process's mapped regions: a function's size is only known up to the next one
    for line in open("/proc/self/maps"):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        mapped.append((lo, hi))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as perf_map, open(out / "index.txt", "w") as index:
        for i, (address, name) in enumerate(symbols):
            size = min((symbols[i + 1][0] - address) if i + 1 < len(symbols) else 4096, 1 << 20)
            size = min([size] + [hi - address for lo, hi in mapped if lo <= address < hi])
            perf_map.write(f"{address:x} {size:x} {name}\n")
            index.write(f"{address:x} {name}\n")
            (out / f"{address:x}.bin").write_bytes(ctypes.string_at(address, size))


def short(name: str) -> str:
    """``_ZN11netsim_fast4flit7booksim6router11router_stepB3v54...`` -> ``router.router_step``."""
    parts, rest = [], name.split("netsim_fast", 1)[-1]
    while rest and rest[0].isdigit():
        digits = ""
        while rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        parts.append(rest[:int(digits)])
        rest = rest[int(digits):]
    return ".".join(parts[-2:]) if parts else name[:60]


def disassemble(code: Path) -> dict:
    """Offset -> instruction text of a function's machine code (objdump)."""
    listing = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", str(code)],
                             capture_output=True, text=True, check=True).stdout
    instruction = {}
    for line in listing.splitlines():
        head, _, rest = line.strip().partition(":")
        fields = rest.split("\t")
        if len(fields) < 3:  # a long instruction's bytes continued on the next line
            continue
        try:
            instruction[int(head, 16)] = fields[-1]
        except ValueError:
            continue
    return instruction


def hottest(code: Path, offsets: collections.Counter, top: int) -> list[str]:
    """The ``top`` instructions with the most samples: share, offset, the instruction before it
    (which a cpu-clock sample follows) and itself."""
    instruction = disassemble(code)
    starts = sorted(instruction)
    before = {b: a for a, b in zip(starts, starts[1:])}
    total = sum(offsets.values())
    return [f"  {100 * n / total:5.1f} % at {o:#x}: after `{instruction.get(before.get(o), '?')}`, "
            f"`{instruction.get(o, '?')}`" for o, n in offsets.most_common(top)]


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
        samples = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True,
                                 check=True).stdout
        starts = {}
        for line in open(os.path.join(tmp, "index.txt")):
            address, name = line.split()
            starts[name] = int(address, 16)
        per_function: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for line in samples.splitlines():
            fields = line.split()
            if len(fields) >= 2 and fields[1] in starts:
                per_function[fields[1]][int(fields[0], 16) - starts[fields[1]]] += 1
        total = sum(sum(c.values()) for c in per_function.values())
        print(f"{args.router} router, {args.k}x{args.k} torus at {kw['rate']:.4g}, {args.cycles} cycles: {total} samples "
              "in compiled code")
        print("| function | share of samples | on push/pop | on stack operands |\n| --- | --- | --- | --- |")
        hot_lines = []
        for name, offsets in sorted(per_function.items(), key=lambda item: -sum(item[1].values())):
            n = sum(offsets.values())
            if n < 0.01 * total:
                continue
            push, stack = stack_shares(Path(tmp) / f"{starts[name]:x}.bin", offsets)
            print(f"| {short(name)} | {100 * n / total:.1f} % | {100 * push:.1f} % | {100 * stack:.1f} % |")
            hot_lines.extend([f"{short(name)}:"] + hottest(Path(tmp) / f"{starts[name]:x}.bin", offsets, args.top)
                             if args.top else [])
        print("\n".join(hot_lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
