"""Cost of drawing open-loop Bernoulli traffic, per node and cycle (README, "Performance").

Every node makes one Bernoulli draw per cycle, busy or not, so at low load on a large network
the draws are a cost per cycle that does not depend on the flits. This times one 1024-cycle
chunk's creations both ways, alternated: workloads/bernoulli.py (a compiled copy of numpy's
PCG64, the engine's) and the numpy form it replaces (``rng.random(float32) < p``, then
``nonzero``), which gives the same creations; medians of ``--repeats`` chunks each.

    PYTHONPATH=. python bench/traffic_speed.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from netsim_fast.workloads.bernoulli import created  # noqa: E402
from netsim_fast.workloads.synthetic import CHUNK_CYCLES  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402


def numpy_form(rng, cycles, senders, prob):
    return np.nonzero((rng.random((cycles, senders.size), dtype=np.float32) < np.float32(prob)) & senders[None, :])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    print(describe(), flush=True)
    print(f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load average {os.getloadavg()[0]:.1f}, "
          f"ns per node and cycle, median of {args.repeats} chunks of {CHUNK_CYCLES} cycles")
    print("| nodes | rate (flits/node/cycle, 8-flit packets) | compiled PCG64 | numpy form | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for nodes, rate in ((256, 0.15), (4096, 0.0375), (4096, 0.000375)):
        senders, prob = np.ones(nodes, bool), rate / 8
        created(np.random.default_rng(0), 2, senders, prob)  # compile or load before timing
        ours, theirs = [], []
        for seed in range(args.repeats):
            for fn, times in ((created, ours), (numpy_form, theirs)):
                rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
                start = time.perf_counter()
                fn(rng, CHUNK_CYCLES, senders, prob)
                times.append((time.perf_counter() - start) / (CHUNK_CYCLES * nodes) * 1e9)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"| {nodes} | {rate:g} | {a:.2f} | {b:.2f} | {b / a:.1f}x |")


if __name__ == "__main__":
    main()
