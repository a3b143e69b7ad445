"""Prefetching (netsim_fast/_prefetch.py, FlitParams.prefetch): the router loop and the arrivals
ask for records they will read soon on networks whose state outgrows the L2. A prefetch changes
no value, so these runs turn it on for small networks (and small blocks, and two threads) and
compare every summary value with the run without it."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from netsim_fast._prefetch import prefetch_row, prefetch_rows
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.flit import blocks
from netsim_fast.flit import run as flit_run
from netsim_fast.summary_keys import WALL_CLOCK_KEYS

CASES = {
    "torus dor": dict(topology="torus", k=6, rate=0.3, cycles=400),
    "torus duato past saturation": dict(topology="torus", k=6, routing="duato", rate=0.9, cycles=400),
    "iq router, vct": dict(topology="mesh", k=5, router="iq", switching="vct", rate=0.4, cycles=400),
    "dragonfly ugal-l, wires": dict(topology="dragonfly", concentration=2, group_routers=4, global_links=2,
                                    routing="ugal-l", vcs=4, global_latency=6, rate=0.3, cycles=400),
    "debug invariants": dict(topology="mesh", k=4, rate=0.3, cycles=300, check_invariants=True),
}


def _result(kw: dict, threads: int) -> dict:
    summary = simulate(Config(**kw, threads=threads))
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}


@pytest.mark.parametrize("name", list(CASES))
def test_prefetching_gives_the_same_result(name, monkeypatch):
    kw = CASES[name]
    plain = {threads: _result(kw, threads) for threads in (1, 2)}
    assert plain[1]["flit_hops"] > 0
    monkeypatch.setattr(flit_run, "PREFETCH_LANES", 0)  # every network prefetches
    for threads in (1, 2):
        assert _result(kw, threads) == plain[threads], threads
    monkeypatch.setattr(blocks, "BLOCK_ROUTERS", 3)  # and with its arrivals block by block
    monkeypatch.setattr(blocks, "BLOCK_MIN_LANES", 0)
    assert _result(kw, 1) == plain[1]


def test_only_large_networks_prefetch():
    from netsim_fast.flit.run import build_params
    from netsim_fast.flit.state import STOP_AT_END
    from netsim_fast.topologies import build_topology

    def prefetch(**kw):
        cfg = Config(**kw, cycles=10)
        return build_params(cfg, build_topology(cfg), stop_mode=STOP_AT_END, win_start=0, win_end=10).prefetch

    assert prefetch(topology="torus", k=16) == 0  # 5,120 lanes: its state stays in the L2
    assert prefetch(topology="torus", k=32) == 0  # 20,480: in the L3, where prefetching cost 1.04x
    assert prefetch(topology="torus", k=40) == 1  # 32,000: 0.92x
    assert prefetch(topology="torus", k=64) == 1


@njit(cache=True)
def _touch(records, buffers, rows):
    total = 0
    for i in rows:
        prefetch_row(records, i)  # also rows past either end: a prefetch never faults
        prefetch_row(buffers, i)
        prefetch_rows(records, i, 3)
        if 0 <= i < records.shape[0]:
            total += records[i]["a"] + buffers[i, 0]
    return total


def test_prefetch_row_compiles_reads_nothing_and_never_faults():
    records = np.zeros(10, np.dtype([("a", np.int64), ("b", np.int32)], align=True))
    records["a"] = np.arange(10)
    buffers = np.arange(40, dtype=np.int64).reshape(10, 4)
    before = (records.copy(), buffers.copy())
    rows = np.array([0, 3, 9, 10, 1 << 20, -5], np.int64)
    assert _touch(records, buffers, rows) == (0 + 3 + 9) + (0 + 12 + 36)
    assert np.array_equal(records, before[0]) and np.array_equal(buffers, before[1])
    assert "prefetch" in next(iter(_touch.inspect_asm().values()))
    assert prefetch_row(records, 3) is None and prefetch_rows(records, 3, 2) is None  # the plain forms do nothing
