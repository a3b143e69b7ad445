"""Instructions and branches per flit-hop in the compiled kernels, counted by valgrind (README,
"Performance": instructions).

The machine's hardware counters are not open to this guest (``perf stat`` reports them as not
supported), so whether a kernel waits on memory or executes too many instructions cannot be
read off them; valgrind counts every instruction executed instead.

Default: cachegrind. Numba's code has no symbols, so cachegrind files it under ``???``; the
kernels are nearly all of that. Two runs of the same set-up, ``--short`` and ``--long`` cycles,
each with a warm Numba cache (a first run fills a cache of its own: Numba sees valgrind's CPU as
another machine), are subtracted, which leaves the instructions of ``long - short`` simulated
cycles and nothing of start-up. Divided by the flit-hops of those cycles: instructions,
conditional branches and (cachegrind's simple predictor, which mispredicts more than a modern
core) mispredicted branches per flit-hop. Beside it, the same run's ns per flit-hop without
valgrind, so that instructions per nanosecond can be read off.

``--generic``: compile for a generic x86-64 CPU (``NUMBA_CPU_NAME=generic``), so that a native
run fills the Numba cache and the valgrind runs load it instead of compiling under valgrind:
minutes instead of a quarter of an hour for ``--router booksim``. Generic code is not the host's
(no newer instructions such as ``tzcnt``), so its counts differ a little from the default's;
the ns per flit-hop beside them is still the host code's.

``--by-instruction``: one callgrind run of ``--long`` cycles that counts each instruction's
executions, and the kernel's code map (bench/_perf.py, as bench/jit_profile.py uses it) to tell
which belong to which compiled function. Per flit-hop of that run (filling the network
included): instructions by function; those with a stack operand (values the kernel holds in
memory for want of registers); ``sar $0x3f``, the sign mask of Numba's negative-index
wraparound (``i < 0 ? i + n : i``), which a kernel compiled without it (_stage.py) no longer
executes; and the most-run instruction. ``--tree DIR`` counts another checkout's engine instead
(its kernels, with this checkout's bench).

    PYTHONPATH=. python bench/flit_instructions.py [--k 16] [--rate 0.15] [--router lanes] [--generic]
    PYTHONPATH=. python bench/flit_instructions.py --by-instruction [--tree ../other-checkout]

Needs valgrind. Slow: a run that compiles under valgrind takes about 3 minutes.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402
from _perf import disassemble, short  # noqa: E402
from flit_speed import run_setup  # noqa: E402

CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes"]
CALLGRIND = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no", "--compress-pos=no",
             "--compress-strings=no"]


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


def executions_by_address(path: str) -> collections.Counter:
    """Instructions executed at each address, from a callgrind file with ``--dump-instr=yes``
    and uncompressed positions (the line after ``calls=`` is a call's inclusive cost: skipped)."""
    counts, after_call = collections.Counter(), False
    for line in open(path):
        if line.startswith("calls="):
            after_call = True
        elif line.startswith("0x"):
            if not after_call:
                address, count = line.split()[:2]
                counts[int(address, 16)] += int(count)
            after_call = False
        else:
            after_call = False
    return counts


def by_instruction(fields: dict, cycles: int, tmp: str, tree: str | None) -> None:
    code = Path(tmp) / "code"
    code.mkdir()
    out = os.path.join(tmp, "callgrind.out")
    env = dict(NUMBA_CACHE_DIR=os.path.join(tmp, "cache"))  # compiled in the run, so its code is mapped
    run = run_setup(fields, cycles, tree, prefix=CALLGRIND + [f"--callgrind-out-file={out}"], env=env,
                    code_map=str(code))
    hops = run["flit_hops"]
    functions = []
    for line in open(code / "index.txt"):
        address, name = line.split()
        functions.append((int(address, 16), (code / f"{address}.bin"), name))
    executed = executions_by_address(out)
    total = stack = sign_masks = 0
    most = (0, "")
    print(f"per flit-hop of a {cycles}-cycle run ({hops} flit-hops), by compiled function:")
    for start, binary, name in functions:
        listing = disassemble(binary)
        counts = {offset: executed.get(start + offset, 0) for offset in listing}
        own = sum(counts.values())
        if own == 0:
            continue
        print(f"  {short(name):28s} {own / hops:7.1f} instructions")
        total += own
        stack += sum(n for offset, n in counts.items() if "(%rsp)" in listing[offset])
        sign_masks += sum(n for offset, n in counts.items() if listing[offset].startswith("sar    $0x3f"))
        offset = max(counts, key=counts.get)
        most = max(most, (counts[offset], f"{short(name)} +{offset:#x} `{listing[offset]}`"))
    print(f"in all {total / hops:.1f} instructions, {stack / hops:.1f} with a stack operand "
          f"({100 * stack / total:.0f} %), {sign_masks / hops:.1f} `sar $0x3f` (index wraparound's sign mask); "
          f"the most-run instruction {most[0] / hops:.2f} times ({most[1]})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=16, help="radix of the 2-D torus (dor, 4 VCs x 8, 8-flit packets)")
    ap.add_argument("--rate", type=float, default=0.15, help="offered flits per node and cycle")
    ap.add_argument("--router", default="lanes", choices=("lanes", "iq", "booksim"))
    ap.add_argument("--short", type=int, default=300, help="cycles of the shorter run")
    ap.add_argument("--long", type=int, default=1300, help="cycles of the longer run")
    ap.add_argument("--generic", action="store_true",
                    help="count the code compiled for a generic CPU, cached by a native run (faster)")
    ap.add_argument("--by-instruction", action="store_true", help="count each instruction (callgrind)")
    ap.add_argument("--tree", help="with --by-instruction: count the engine of this other checkout")
    ap.add_argument("--specialise", choices=("off", "on"), default="off",
                    help="count the generic kernel (off) or the one compiled for this set-up (on; flit/specialise.py)")
    args = ap.parse_args()
    print(describe(), flush=True)
    if shutil.which("valgrind") is None:
        sys.exit("bench/flit_instructions.py: valgrind is not installed")
    if args.long <= args.short:
        sys.exit(f"--long {args.long} must be more than --short {args.short}")
    fields = dict(topology="torus", k=args.k, vcs=4, buf=8, packet_flits=8, rate=args.rate, router=args.router,
                  specialise=args.specialise)
    if args.router == "booksim":
        fields.update(routing="dim_order", pattern="uniform-self")
    print(f"{args.k}x{args.k} torus, {args.router} router, offered {args.rate}, --specialise {args.specialise}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.by_instruction:
            by_instruction(fields, args.long, tmp, args.tree)
            return
        env = dict(NUMBA_CACHE_DIR=os.path.join(tmp, "cache"))
        outs = {name: os.path.join(tmp, f"{name}.out") for name in ("fill", "short", "long")}
        if args.generic:  # compiles natively, for a CPU that valgrind's also is
            env["NUMBA_CPU_NAME"] = "generic"
            run_setup(fields, 20, env=env)
        else:  # compiles under valgrind: Numba sees valgrind's CPU as another machine
            run_setup(fields, 20, prefix=CACHEGRIND + [f"--cachegrind-out-file={outs['fill']}"], env=env)
        short_run, long_run = (run_setup(fields, cycles, prefix=CACHEGRIND + [f"--cachegrind-out-file={outs[name]}"],
                                         env=env) for name, cycles in (("short", args.short), ("long", args.long)))
        counts = [unnamed_code_counts(outs[name]) for name in ("short", "long")]
    native = run_setup(fields, args.long)  # the same run's speed without valgrind
    hops = long_run["flit_hops"] - short_run["flit_hops"]
    per = {name: (counts[1].get(name, 0) - counts[0].get(name, 0)) / hops for name in ("Ir", "Bc", "Bcm")}
    ns = native["cpu_seconds"] / native["flit_hops"] * 1e9
    print(f"cycles {args.short}..{args.long}, {hops} flit-hops")
    print(f"per flit-hop in the compiled code{' (generic CPU)' if args.generic else ''}: {per['Ir']:.0f} instructions, "
          f"{per['Bc']:.0f} conditional branches, "
          f"{per['Bcm']:.1f} mispredicted by cachegrind's predictor")
    print(f"without valgrind: {ns:.1f} ns per flit-hop ({per['Ir'] / ns:.1f} instructions per ns)")


if __name__ == "__main__":
    main()
