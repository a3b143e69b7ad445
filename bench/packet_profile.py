"""Where the packet engine's time goes, by compiled function, with ``perf`` (README, "Performance").

    PYTHONPATH=. python bench/packet_profile.py --policy lrpf [--nodes 256 --messages 1024 --runs 20]

Runs ``--runs`` simulations of bench/packet_speed.py's set-up under ``perf record -e cpu-clock``
in a child process with a fresh Numba cache (so the kernels are compiled there and their code
is known), which then writes ``/tmp/perf-PID.map`` for the packet engine's compiled functions
(as bench/jit_profile.py does for the flit kernels). Prints each function's share of the
samples in compiled code and its ten hottest instructions (offset, share of the function's
samples, instruction, and the one before it: with cpu-clock the sample lands just after the
instruction that waited).
Needs ``perf`` and ``objdump``.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def child(args, out: Path) -> None:
    import numpy as np

    from netsim_fast.packet import kernel as pk
    from netsim_fast.packet import paths as pp
    from netsim_fast.packet import pool
    from netsim_fast.packet.run import simulate_packets, warmup
    from netsim_fast.routing.table import build_minimal_table
    from netsim_fast.topologies.rrg import random_regular
    from netsim_fast.workloads.messages import random_messages

    warmup()
    topo = random_regular(args.nodes, 4, 1)
    table = build_minimal_table(topo)
    msgs = random_messages(args.nodes, args.messages, np.random.default_rng(7))
    for seed in range(args.runs):
        simulate_packets(topo, msgs, policy=args.policy, table=table, seed=seed)
    symbols = []
    for disp in (pk.advance, pk.advance_fifo, pk.advance_srpf, pk.advance_lrpf, pk.advance_random,
                 pp.compute_paths, pp.copy_pair_paths, pp.scan_messages, pool.grow_bag):
        for compiled in disp.overloads.values():
            lib = compiled.library
            for fn in lib._final_module.functions:
                if not fn.is_declaration:
                    address = lib._codegen._engine._ee.get_function_address(fn.name)
                    if address:
                        symbols.append((address, fn.name))
    symbols = sorted(set(symbols))
    mapped = []
    for line in open("/proc/self/maps"):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        mapped.append((lo, hi))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as perf_map, open(out / "index.txt", "w") as index:
        for i, (address, name) in enumerate(symbols):
            size = min((symbols[i + 1][0] - address) if i + 1 < len(symbols) else 1 << 16, 1 << 20)
            size = min([size] + [hi - address for lo, hi in mapped if lo <= address < hi])
            perf_map.write(f"{address:x} {size:x} {name}\n")
            index.write(f"{address:x} {name}\n")
            (out / f"{address:x}.bin").write_bytes(ctypes.string_at(address, size))


def short(name: str) -> str:
    """``_ZN11netsim_fast6packet6kernel12advance_fifoB3v23...`` -> ``kernel.advance_fifo``."""
    parts, rest = [], name.split("netsim_fast", 1)[-1]
    while rest and rest[0].isdigit():
        digits = ""
        while rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        parts.append(rest[:int(digits)])
        rest = rest[int(digits):]
    return ".".join(parts[-2:]) if parts else name[:60]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="fifo")
    ap.add_argument("--nodes", type=int, default=256)
    ap.add_argument("--messages", type=int, default=1024, help="messages per node")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args, Path(args.child))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-e", "cpu-clock", "-F", "4999", "-o", data, sys.executable,
                        __file__, "--policy", args.policy, "--nodes", str(args.nodes), "--messages",
                        str(args.messages), "--runs", str(args.runs), "--child", tmp],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True,
                                 text=True, check=True).stdout
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
        print(f"{args.policy}, {args.nodes} nodes, {args.messages} messages/node, {args.runs} runs: "
              f"{total} samples in compiled code")
        for name, offsets in sorted(per_function.items(), key=lambda item: -sum(item[1].values())):
            n = sum(offsets.values())
            print(f"{short(name)}: {100 * n / total:.1f} %")
            if n < 0.05 * total:
                continue
            listing = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                                      os.path.join(tmp, f"{starts[name]:x}.bin")],
                                     capture_output=True, text=True, check=True).stdout
            text = {}
            for line in listing.splitlines():
                head, _, rest = line.strip().partition(":")
                try:
                    text[int(head, 16)] = rest.split("\t")[-1]
                except ValueError:
                    continue
            order = sorted(text)
            for offset, k in offsets.most_common(10):
                i = order.index(offset) if offset in text else 0
                before = text[order[i - 1]] if i > 0 else "?"
                print(f"    {offset:6x} {100 * k / n:5.1f} %  {text.get(offset, '?')}   (after: {before})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
