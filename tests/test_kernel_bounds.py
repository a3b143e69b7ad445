"""No fixed table bounds (issue 14, item 5): scratch arrays are sized from the topology, and a
bounds-checked run of random topologies up to degree N-1 stays inside every array."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from netsim_fast.routing import MAX_ROWS, candidate_rows


def test_routing_scratch_grows_with_the_port_count():
    assert candidate_rows(4) == MAX_ROWS
    assert candidate_rows(101) >= 101  # a table routing writes one row per allowed port


def test_dense_random_graph_runs_without_overrunning_the_routing_scratch():
    # degree 100 > the old fixed bound of 64 rows: this used to corrupt the heap after the run
    import netsim_fast as nf

    out = nf.simulate(nf.Config(topology="rrg", nodes=140, degree=100, vcs=2, cycles=200, rate=0.2))
    assert out["accepted_load"] > 0


_BOUNDSCHECKED = textwrap.dedent("""
    import numpy as np
    from numba import njit
    from netsim_fast._jit import KERNEL_JIT
    import netsim_fast as nf

    @njit(**KERNEL_JIT)
    def canary(a, i):
        return a[i]

    try:
        canary(np.zeros(3), 10)
        raise SystemExit("canary: an out-of-range index did not raise; bounds checking is off")
    except IndexError:
        pass
    try:  # kernels index without wraparound (_stage.UnwrappedLower): a negative index is out of range
        canary(np.zeros(3), -1)
        raise SystemExit("canary: a negative index counted from the end in a kernel")
    except IndexError:
        pass
    rng = np.random.default_rng(2024)
    for trial in range(8):
        n = int(rng.integers(6, 48))
        d = int(rng.integers(2, n))
        d -= (n * d) % 2
        if d < 2:
            continue
        for routing_vcs in (8,):
            cfg = nf.Config(topology="rrg", nodes=n, degree=d, vcs=routing_vcs, rate=0.4, cycles=400, seed=trial)
            nf.simulate(cfg)
        nf.simulate(nf.Config(engine="packet", topology="rrg", nodes=n, degree=d, pattern="random", messages=2, seed=trial))
    for dims in ("3,5", "4,4,4", "2,7"):
        nf.simulate(nf.Config(topology="torus", dims=dims, routing="duato", rate=0.5, cycles=400))
    # the other routers and the engine's optional parts
    for kw in (dict(topology="torus", k=4, router="iq"), dict(topology="torus", k=4, router="booksim", routing="dim_order"),
               dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2, routing="ugal-l"),
               dict(topology="fattree", k=4, n=3), dict(topology="mesh", k=4, closed_loop=True),
               dict(topology="torus", k=4, classes=2), dict(topology="torus", k=8, threads=2)):
        nf.simulate(nf.Config(rate=0.3, cycles=300, **kw))
    print("bounds ok")
""")


@pytest.mark.slow
def test_random_topologies_stay_in_bounds_under_numba_boundscheck(tmp_path):
    # A fresh cache: Numba's on-disk cache does not key on the bounds-check flag.
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    script = tmp_path / "boundschecked.py"  # a file, so the cached canary has a locator
    script.write_text(_BOUNDSCHECKED)
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                            timeout=1800)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "bounds ok" in result.stdout
