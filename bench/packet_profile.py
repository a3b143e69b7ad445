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
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _perf import hottest, samples_by_function, short, write_code_map  # noqa: E402


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
    write_code_map([pk.advance, pk.advance_fifo, pk.advance_srpf, pk.advance_lrpf, pk.advance_random,
                    pp.compute_paths, pp.copy_pair_paths, pp.scan_messages, pool.grow_bag], out)


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
        per_function, code = samples_by_function(tmp, data)
        total = sum(sum(c.values()) for c in per_function.values())
        print(f"{args.policy}, {args.nodes} nodes, {args.messages} messages/node, {args.runs} runs: "
              f"{total} samples in compiled code")
        for name, offsets in sorted(per_function.items(), key=lambda item: -sum(item[1].values())):
            n = sum(offsets.values())
            print(f"{short(name)}: {100 * n / total:.1f} %")
            if n < 0.05 * total:
                continue
            print("\n".join(hottest(code[name], offsets, 10)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
