"""Time for ``netsim-fast run`` to reach its first simulated cycle (README, "Performance").

Warm: after ``netsim-fast warmup``, the median of ``--repeats`` runs of
``netsim-fast run --topology torus --k 16 --cycles 1 --quiet`` (whole process wall time: Python
start-up, imports, loading the kernels from Numba's cache, one cycle). Cold: the same command
with an empty Numba cache (a fresh NUMBA_CACHE_DIR), i.e. including compilation, ``--cold``
times (default 1), each with its own empty cache.

Beside the wall time, the child's CPU time (user + system, from ``resource``): on a shared
machine another process's load stretches the wall clock but hardly the CPU time, so two trees
compared back to back (``PYTHONPATH=<tree>``, alternated) are best compared by their CPU times.

    PYTHONPATH=. python bench/flit_startup.py [--repeats 5] [--cold 3]
    PYTHONPATH=. python bench/flit_startup.py --profile
    PYTHONPATH=. python bench/flit_startup.py --functions

``--profile`` instead compiles the flagship once in this process with an empty cache, under
cProfile, and splits the compile's time by where it is spent (each function's own time, by
the module it is in): LLVM (optimisation and machine code, llvmlite's binding), lowering to
LLVM IR (numba's lowering and llvmlite's IR builder), type inference (numba's typing), the
rest of Numba; and apart, the CPython wrappers built for compiled functions (their cumulative
time, which overlaps the rows above). ``--functions`` lists the compiled functions instead, each
with the CPU time of its compile less that of the functions it compiles (numba:compile events).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402

COMMAND = [sys.executable, "-m", "netsim_fast", "run", "--topology", "torus", "--k", "16", "--cycles", "1", "--quiet"]


def timed(env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of COMMAND."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(COMMAND, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


PROFILE_ROWS = (  # (label, substrings of a function's file); the first that matches wins
    ("LLVM (llvmlite binding: optimisation, machine code)", ("llvmlite/binding",)),
    ("lowering to LLVM IR", ("numba/core/lowering", "numba/core/base", "numba/core/callconv", "numba/core/cgutils",
                             "numba/core/imputils", "numba/np/", "numba/cpython/", "numba/core/datamodel",
                             "llvmlite/ir")),
    ("type inference", ("numba/core/typeinfer", "numba/core/typing", "numba/core/types")),
    ("rest of Numba", ("numba/",)),
)

OTHER = "built-ins and the standard library (called by Numba), the rest"


def profile() -> None:
    """The flagship's compile under cProfile, its time split as PROFILE_ROWS says."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as cache:
        os.environ["NUMBA_CACHE_DIR"] = cache  # before numba is imported
        from netsim_fast import Config, simulate

        prof = cProfile.Profile()
        prof.enable()
        simulate(Config(topology="torus", k=16, cycles=1))
        prof.disable()
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (calls, primitive, own, cumulative, callers)
    total = sum(own for _, _, own, _, _ in stats.values())
    rows = dict.fromkeys([label for label, _ in PROFILE_ROWS] + [OTHER], 0.0)
    wrappers = 0.0
    for (file, _, name), (_, _, own, cumulative, _) in stats.items():
        label = next((lab for lab, parts in PROFILE_ROWS if any(part in file for part in parts)), OTHER)
        rows[label] += own
        if name == "create_cpython_wrapper":
            wrappers += cumulative
    print(f"first run of the flagship, empty cache, under cProfile: {total:.1f} s")
    for label, seconds in rows.items():
        print(f"  {label}: {seconds:.1f} s ({100 * seconds / total:.0f} %)")
    print(f"  of which building CPython wrappers (cumulative): {wrappers:.1f} s")


def functions() -> None:
    """The flagship's compile in this process with an empty cache, by compiled function: the
    CPU seconds of each function's numba:compile event less those of the functions it compiles."""
    stack, own = [], {}

    cache = tempfile.TemporaryDirectory()
    os.environ["NUMBA_CACHE_DIR"] = cache.name  # before numba is imported
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            fn = ev.data["dispatcher"].py_func
            stack.append([f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__qualname__}", time.process_time(), 0.0])

        def on_end(self, ev):
            name, start, inner = stack.pop()
            spent = time.process_time() - start
            own[name] = own.get(name, 0.0) + spent - inner
            if stack:
                stack[-1][2] += spent

    with cache:
        from netsim_fast import Config, simulate

        event.register("numba:compile", Listener())
        start = time.process_time()
        simulate(Config(topology="torus", k=16, cycles=1))
        total = time.process_time() - start
    print(f"first run of the flagship, empty cache: {total:.2f} s CPU, {len(own)} functions compiled "
          f"({sum(own.values()):.2f} s in their compile events)")
    for name, seconds in sorted(own.items(), key=lambda kv: -kv[1]):
        print(f"  {seconds:5.2f} s  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold", type=int, default=1, help="cold runs, each with an empty cache")
    parser.add_argument("--profile", action="store_true", help="where the compile's time goes (see above)")
    parser.add_argument("--functions", action="store_true", help="the compile's CPU time by compiled function")
    args = parser.parse_args()
    print(describe(), flush=True)
    if args.profile:
        profile()
        return
    if args.functions:
        functions()
        return
    env = dict(os.environ)
    cold = []
    for _ in range(args.cold):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(timed(dict(env, NUMBA_CACHE_DIR=cache)))
    with tempfile.TemporaryDirectory() as cache:
        warm_env = dict(env, NUMBA_CACHE_DIR=cache)
        subprocess.run([sys.executable, "-m", "netsim_fast", "warmup"], env=warm_env, check=True, capture_output=True)
        warm = [timed(warm_env) for _ in range(args.repeats)]
    for label, runs in (("cold start (empty Numba cache, compiles the flit kernel)", cold),
                        ("warm start after `netsim-fast warmup`", warm)):
        if not runs:  # --cold 0
            continue
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{label}: median {statistics.median(walls):.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f}), "
              f"{statistics.median(cpus):.2f} s CPU, {len(runs)} runs")


if __name__ == "__main__":
    main()
