"""The booksim router's stage-queue mask (flit/booksim/queues.py) and port masks
(flit/booksim/ports.py): each stage of a router visits exactly the VCs of its queue, and stage
12 and the write phase the ports with something to pass on, in ascending order; and
``--check-invariants`` catches a mask that disagrees with the queues or the ports."""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast._arrays import records
from netsim_fast._stage import python_twin
from netsim_fast.config import Config
from netsim_fast.flit import state as fs
from netsim_fast.flit.booksim import state as bs
from netsim_fast.flit.booksim.driver import BooksimDriver
from netsim_fast.flit.booksim.invariants import check_invariants
from netsim_fast.flit.booksim.ports import SHARED, mark_port, next_marked_port, unmark_port
from netsim_fast.flit.booksim.queues import L_HOLD, L_ROUTE, L_SW, L_VA, set_queue, stage_lists
from netsim_fast.flit.run import build_params
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.packets import FinitePackets


class _Queues:
    """The two fields of the booksim state that queues.py reads and writes."""

    def __init__(self, lanes, pv):
        self.ivc = records(lanes, bs.BK_IVC)
        self.qmask = np.zeros((5, lanes // 32 + 1), np.int64)
        self.act = np.zeros((4, pv), np.int32)


@pytest.mark.parametrize("spec", [False, True])
@pytest.mark.parametrize("pv", [5, 20, 32, 45, 80])
def test_stage_lists_give_each_stage_its_queued_vcs_in_order(pv, spec):
    """Routers whose lanes straddle the mask's 32-lane words, against a plain filter."""
    rng = np.random.default_rng(pv)
    routers = 7
    b = _Queues(routers * pv, pv)
    queues = [bs.Q_NONE, bs.Q_ROUTE, bs.Q_VA, bs.Q_SA, bs.Q_HOLD]
    for _ in range(50):
        for _ in range(pv):  # move random VCs between queues
            set_queue.py_func(b, int(rng.integers(routers * pv)), int(rng.choice(queues)))
        for node in range(routers):
            base = node * pv
            q = b.ivc["queue"][base: base + pv]
            want = {L_ROUTE: q == bs.Q_ROUTE, L_VA: q == bs.Q_VA, L_HOLD: q == bs.Q_HOLD,
                    L_SW: (q == bs.Q_SA) | (spec & (q == bs.Q_VA))}
            counts = stage_lists.py_func(b, base, pv, spec)
            for row, mask in want.items():
                assert b.act[row, : counts[row]].tolist() == np.flatnonzero(mask).tolist()


def _running_booksim(cycles=40, **router):
    """A 4x4 torus on the booksim router mid-way through a finite workload, invariants on."""
    cfg = Config(topology="torus", k=4, router="booksim", routing="dim_order", pattern="random", messages=20,
                 packet_flits=6, check_invariants=True, **router)
    topo = build_topology(cfg)
    rng = np.random.default_rng(3)
    n = 16 * 20
    src = np.repeat(np.arange(16), 20).astype(np.int32)
    dst = ((src + rng.integers(1, 16, n)) % 16).astype(np.int32)
    packets = FinitePackets(src, dst, np.full(n, 6, np.int32), np.zeros(n, np.int64))
    params = build_params(cfg, topo, stop_mode=fs.STOP_ALL, win_start=0, win_end=1 << 62, n_total=n)
    state = fs.new_state(topo, params, packet_capacity=n, windows=64)
    state = fs.append_packets(state, packets.src, packets.dst, packets.length, packets.release)
    driver = BooksimDriver(cfg, topo, params, state)
    assert driver.advance(state, params, topo.arrays, cycles) == fs.ERR_OK
    return topo, params, state, driver


def test_a_queued_vc_missing_from_the_mask_is_caught_and_named():
    topo, params, state, driver = _running_booksim()
    queued = np.flatnonzero(driver.b.ivc["queue"] != bs.Q_NONE)
    assert queued.size, "the workload should have VCs waiting by cycle 40"
    lane = int(queued[0])
    queue = int(driver.b.ivc["queue"][lane])
    driver.b.qmask[queue, lane >> 5] &= ~(1 << (lane & 31))  # the router would no longer visit it
    assert driver.advance(state, params, topo.arrays, 80) == fs.ERR_CONSERVATION
    assert int(state.cnt[fs.C_ERR_LANE]) == lane


@pytest.mark.parametrize("ports", [5, 30, 31, 32, 45])
def test_marked_ports_are_visited_in_order_and_shared_ones_all(ports):
    """Against a plain list: the ports marked, ascending, and with any port from SHARED on
    marked, every port from SHARED on (they share a bit, which stays once set)."""
    rng = np.random.default_rng(ports)
    busy = set()
    mask = 0
    for _ in range(200):
        port = int(rng.integers(ports))
        if rng.random() < 0.5:
            busy.add(port)
            mask = mark_port.py_func(mask, port)
        elif port in busy:
            busy.discard(port)
            mask = unmark_port.py_func(mask, port)
        shared = any(q >= SHARED for q in busy) or (mask >> SHARED) & 1
        want = sorted(q for q in busy if q < SHARED) + (list(range(SHARED, ports)) if shared else [])
        seen, port = [], bs.NONE
        while (port := next_marked_port.py_func(mask, port, ports)) != bs.NONE:
            seen.append(port)
        assert seen == want


@pytest.mark.parametrize("field", ["cq_ports", "of_ports"])
def test_a_busy_port_missing_from_its_mask_is_caught_and_named(field):
    """Two internal steps and two flits out of a port per cycle let credit messages and output
    FIFOs hold something from one cycle to the next (with speedups of 1 the write phase empties
    them every cycle)."""
    topo, params, state, driver = _running_booksim(internal_speedup=2.0, output_speedup=2, input_speedup=2)
    queued = driver.b.cq_len if field == "cq_ports" else driver.b.of_len
    t = int(state.cnt[fs.C_CYCLE])
    while not queued.any():
        t += 1
        assert t < 400, "a port should hold something between cycles"
        assert driver.advance(state, params, topo.arrays, t) == fs.ERR_OK
    f = int(np.flatnonzero(queued)[0])
    node, port = divmod(f, params.n_ports)
    driver.b.node[field][node] &= ~(1 << port)  # the write phase would no longer visit the port
    # checked at once: the next flit or credit message for the port would mark it again
    b = driver.b
    check = python_twin(check_invariants)  # a stage kernel has no CPython wrapper of its own
    assert check(state, b, params, driver.bp, t, b.dbg_held, b.dbg_terminal) == fs.ERR_COUNT
    assert int(state.cnt[fs.C_ERR_LANE]) == node * params.n_ports * params.n_vcs


@pytest.mark.parametrize("router", [{}, dict(internal_speedup=2.0, output_speedup=2, input_speedup=2)])
def test_an_emptied_ring_starts_again_at_its_first_entry(router):
    """The crossbar queues, output FIFOs and credit FIFOs go back to their first entry when they
    empty, so that a queue holding a flit or two reuses one cache line instead of walking its
    ring (the 16x16 torus's output FIFOs span 1.6 MB); and the order they pass flits on in is
    unchanged (``--check-invariants`` runs, and the finite workload is delivered)."""
    topo, params, state, driver = _running_booksim(cycles=1, **router)
    b, held = driver.b, 0
    for t in range(2, 400):
        assert driver.advance(state, params, topo.arrays, t) == fs.ERR_OK
        for length, head in ((b.of_len, b.of_head), (b.cq_len, b.cq_head),
                             (b.node["xb_len"][: params.n_nodes], b.node["xb_head"][: params.n_nodes])):
            assert not head[length == 0].any()
            held += int((head[length > 0] > 0).sum())
        if state.cnt[fs.C_DONE]:
            break
    assert state.cnt[fs.C_DONE], "the workload should be delivered within 400 cycles"
    if router:
        assert held, "with speedups, some rings should hold flits past their first entry between cycles"
