"""Compile (or load from Numba's on-disk cache) every kernel family, and clear that cache.

``netsim-fast warmup`` runs a tiny case of each kernel so that the first real run of a CLI
call, a notebook or a Dask worker starts simulating at once. ``--clear`` deletes the cache
(to free the space; an edit to a kernel source no longer needs it: netsim_fast/_cache.py stamps
every entry with all of them, so the next run recompiles. CI always starts from an empty
``NUMBA_CACHE_DIR``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def _flit() -> None:
    from netsim_fast.config import Config
    from netsim_fast.flit.run import run_flit
    from netsim_fast.topologies import build_topology

    cfg = Config(topology="torus", k=4, cycles=16)
    run_flit(cfg, build_topology(cfg))


def _booksim() -> None:
    from netsim_fast.config import Config
    from netsim_fast.flit.run import run_flit
    from netsim_fast.topologies import build_topology

    cfg = Config(topology="torus", k=4, cycles=16, router="booksim")  # flit/booksim/: its own kernel
    run_flit(cfg, build_topology(cfg))


def _capacity() -> None:
    from netsim_fast.analytic.capacity import uniform_capacity
    from netsim_fast.topologies import torus

    uniform_capacity(torus((3, 3)))


def _packet() -> None:
    from netsim_fast.packet.run import warmup
    from netsim_fast.routing.dor_table import build_dor_table
    from netsim_fast.topologies import torus

    warmup()
    build_dor_table(torus([4]))  # --routing dor on the packet engine


def _gossip() -> None:
    from netsim_fast.studies.gossip import simulate_gossip

    simulate_gossip((4, 4), "gossip-ham")


def _logp() -> None:
    from netsim_fast.analytic.logp import LogPParams
    from netsim_fast.studies.logp import run_protocol

    run_protocol(LogPParams(L=8, o=1, G=2, p=4), "randomized", h=2)


def _bmg() -> None:
    from netsim_fast.routing.bmg import route

    for name in ("bmg-bfs", "bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe", "bmg-equiclass", "chord"):
        route(20, 0, 13, name)


def _deadlock_check() -> None:
    from netsim_fast.config import Config
    from netsim_fast.deadlock_check import check_deadlock

    check_deadlock(Config(topology="torus", k=3, routing="duato"))  # both passes of the walk


KERNELS = {"flit": _flit, "booksim": _booksim, "capacity": _capacity, "packet": _packet, "gossip": _gossip, "logp": _logp, "bmg": _bmg,
           "deadlock-check": _deadlock_check}


def warmup(names=None) -> dict[str, float]:
    """Seconds spent compiling or loading each kernel family (cache hits take well under 1 s)."""
    timings = {}
    for name in names or KERNELS:
        start = time.perf_counter()
        KERNELS[name]()
        timings[name] = time.perf_counter() - start
    return timings


def cache_locations() -> list[Path]:
    """Where Numba keeps this package's compiled code."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        return [Path(custom)]
    return [Path(__file__).resolve().parent]


def clear_cache() -> int:
    """Delete Numba cache files of this package; returns how many were removed."""
    removed = 0
    for root in cache_locations():
        if not root.exists():
            continue
        for path in list(root.rglob("*.nbi")) + list(root.rglob("*.nbc")):
            path.unlink(missing_ok=True)
            removed += 1
    return removed
