"""Phased finite workloads: --sync none|local|global gates when a node may start its next step."""

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.flit.run import FinitePackets, run_flit
from netsim_fast.topologies import build_topology


def shift_exchange(n, length=4):
    """Step i (phase i-1): node j sends to (j + i) mod n, released at cycle 0 in step order."""
    steps = np.arange(1, n)
    src = np.tile(np.arange(n), n - 1)
    step = np.repeat(steps, n)
    order = np.lexsort((step, src))  # per source, in step order
    src, step = src[order], step[order]
    dst = (src + step) % n
    return FinitePackets(src.astype(np.int32), dst.astype(np.int32), np.full(src.size, length, np.int32),
                         np.zeros(src.size, np.int64), (step - 1).astype(np.int32))


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_global_sync_starts_no_step_before_the_previous_one_is_delivered(router):
    # a tail delivered in cycle t (stage 3) lets the next step inject in the same cycle (stage 8)
    cfg = Config(topology="torus", k=4, router=router, sync="global", check_invariants=True)
    pk = shift_exchange(16)
    s = run_flit(cfg, build_topology(cfg), packets=pk).state
    n = pk.src.size
    injected, tail = s.pkt["injected"][:n], s.pkt["tail_del"][:n]
    for f in range(1, pk.phase.max() + 1):
        assert injected[pk.phase == f].min() >= tail[pk.phase == f - 1].max()


def test_local_sync_waits_for_the_nodes_own_receipts_only():
    cfg = Config(topology="torus", k=4, sync="local", check_invariants=True)
    pk = shift_exchange(16)
    s = run_flit(cfg, build_topology(cfg), packets=pk).state
    n = pk.src.size
    injected, tail = s.pkt["injected"][:n], s.pkt["tail_del"][:n]
    overlap = False
    for f in range(1, pk.phase.max() + 1):
        for node in range(16):
            sent = (pk.phase == f) & (pk.src == node)
            received = (pk.phase == f - 1) & (pk.dst == node)
            assert injected[sent].min() >= tail[received].max()
        overlap |= injected[pk.phase == f].min() < tail[pk.phase == f - 1].max()
    assert overlap, "local sync lets steps of different nodes overlap"


def test_free_running_steps_finish_first_and_sync_modes_order_as_expected():
    cycles = {}
    for sync in ("none", "local", "global"):
        cfg = Config(topology="torus", k=4, sync=sync)
        cycles[sync] = run_flit(cfg, build_topology(cfg), packets=shift_exchange(16)).cycles
    assert cycles["none"] <= cycles["local"] <= cycles["global"]
    assert cycles["none"] < cycles["global"]
