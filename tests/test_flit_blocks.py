"""Arrivals block by block (flit/blocks.py): each block of routers takes its arrivals just before
its own stages. The result must be the one of taking every arrival first, so these runs force
small blocks on small networks and compare every summary value with the unblocked run."""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.errors import DeadlockError
from netsim_fast.experiment import simulate
from netsim_fast.flit import blocks
from netsim_fast.summary_keys import WALL_CLOCK_KEYS

CASES = {
    "torus dor": dict(topology="torus", k=6, rate=0.3, cycles=500),
    "torus duato past saturation": dict(topology="torus", k=6, routing="duato", rate=0.9, cycles=500),
    "mesh iq router, vct": dict(topology="mesh", k=5, router="iq", switching="vct", rate=0.4, cycles=500),
    "dragonfly ugal-l, wires": dict(topology="dragonfly", concentration=2, group_routers=4, global_links=2,
                                    routing="ugal-l", vcs=4, global_latency=6, rate=0.3, cycles=500),
    "fat tree": dict(topology="fattree", k=2, n=3, rate=0.4, cycles=500),
    "two classes": dict(topology="torus", k=4, classes=2, class_mix="0.5,0.5", class_priority="1,0", rate=0.4,
                        cycles=500),
    "closed loop": dict(topology="torus", k=4, vcs=4, closed_loop=True, outstanding=2, reply_flits=4, rate=0.3,
                        cycles=500),
    "debug invariants": dict(topology="mesh", k=4, rate=0.3, cycles=300, check_invariants=True),
    "total exchange to completion": dict(topology="torus", k=4, routing="duato", pattern="random-te"),
}


def _result(kw: dict) -> dict:
    summary = simulate(Config(**kw, threads=1))
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}


@pytest.fixture
def small_blocks(monkeypatch):
    def use(routers: int, sort_every_cycle: bool = True):
        monkeypatch.setattr(blocks, "BLOCK_ROUTERS", routers)
        monkeypatch.setattr(blocks, "BLOCK_MIN_LANES", 0)
        monkeypatch.setattr(blocks, "MIN_ARRIVALS_PER", 10 ** 9 if sort_every_cycle else 1)
    return use


@pytest.mark.parametrize("name", list(CASES))
def test_blocks_give_the_result_of_all_arrivals_first(name, small_blocks):
    whole = _result(CASES[name])
    assert whole["flit_hops"] > 0
    for routers, every_cycle in ((1, True), (3, True), (3, False)):  # False: quiet cycles take them all first
        small_blocks(routers, every_cycle)
        assert _result(CASES[name]) == whole, (routers, every_cycle)


def test_a_deadlock_is_found_at_the_same_cycle_with_blocks(small_blocks):
    kw = dict(topology="torus", k=8, routing="dor-nodateline", vcs=1, buf=2, packet_flits=16, rate=0.9, cycles=3000,
              deadlock_cycles=300)
    messages = []
    for routers in (None, 5):
        if routers:
            small_blocks(routers)
        with pytest.raises(DeadlockError) as info:
            simulate(Config(**kw, threads=1))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_block_magic():
    assert blocks.block_magic(1024, 20) == 0  # 32x32 torus: below BLOCK_MIN_LANES
    for routers, lanes in ((4096, 20), (4096, 28), (2064, 124), (32768, 28)):
        magic = blocks.block_magic(routers, lanes)
        every = np.arange(routers * lanes + 1, dtype=np.int64)
        assert np.array_equal((every * magic) >> blocks.BLOCK_SHIFT, every // (blocks.BLOCK_ROUTERS * lanes))


def test_no_blocks_where_a_router_reads_the_others(small_blocks):
    from netsim_fast.flit.run import build_params
    from netsim_fast.flit.state import STOP_AT_END
    from netsim_fast.topologies import build_topology

    small_blocks(1)

    def blocked(**kw):
        cfg = Config(**kw, cycles=10)
        params = build_params(cfg, build_topology(cfg), stop_mode=STOP_AT_END, win_start=0, win_end=10)
        return blocks.blocked_advance(cfg, params)

    assert blocked(topology="dragonfly", concentration=2, group_routers=4, global_links=2, routing="ugal-g",
                   vcs=4) is None
    assert blocked(topology="torus", k=4, router="booksim", routing="dim_order", pattern="uniform-self") is None
    assert blocked(topology="torus", k=4).block == 1
