"""The switching strategy: the paper's single switch versus the computed schedules."""

from __future__ import annotations

import math

import numpy as np
import pytest

from netsim_fast.workloads.gossip import build_plan, compile_rules
from netsim_fast.workloads.gossip.switching import solve_schedules
from netsim_fast.packet.gossip import ERR_OK, run


def paper_single_switch_covers(m: int, l: int, t_end: int) -> bool:
    """Section 3.2 read literally: suppliers A (position 0) and B (position l + 1) of an OOC-PU;
    A sends forward-running packets (from positions 0, -1, -2, ...) for l steps, then
    backward-running ones (positions +t-1); B the opposite. True if all m positions arrive."""
    got = set()
    for t in range(1, t_end + 1):
        d = t - 1
        got.add((-d if t <= l else d) % m)
        got.add((l + 1 + (d if t <= l else -d)) % m)
    return len(got) == m


@pytest.mark.parametrize("m, l", [(39, 11), (20, 3), (40, 7), (64, 9)])
def test_paper_single_switch_misses_packets(m, l):
    """Even a full round of m steps leaves packets out; ceil(m/2) is the paper's target."""
    assert not paper_single_switch_covers(m, l, math.ceil(m / 2))


def test_single_switch_covers_in_one_case_only_up_to_200():
    ok = [(m, l) for m in range(6, 200) for l in range(1, m - 2)
          if paper_single_switch_covers(m, l, math.ceil(m / 2))]
    assert ok == [(6, 2)]


def _ring_done(plan, v, c, horizon):
    """Step by which on-ring PU v has every packet of ring c, from the stream formulas."""
    ring = plan.rings[c]
    n = ring.nodes.size
    q = ring.position()[v]
    from_pred = ring.forward_stream((q - 1) % n, horizon)
    from_succ = ring.backward_stream((q + 1) % n, horizon)
    own = set(range(v * plan.packets_per_pu, (v + 1) * plan.packets_per_pu))
    last = 0
    for pkt in ring.packets().tolist():
        if pkt in own:
            continue
        hits = np.flatnonzero((from_pred == pkt) | (from_succ == pkt))
        last = max(last, int(hits[0]) + 1)
    return last


@pytest.mark.parametrize("dims, algorithm", [((6, 7), "gossip-ham"), ((7, 4), "gossip-ham"),
                                             ((8, 6), "gossip-one"), ((3, 6, 5), "gossip-one"),
                                             pytest.param((4, 4, 4, 5), "gossip-one",
                                                          marks=pytest.mark.slow)])
def test_every_pu_finishes_exactly_when_streams_and_schedules_predict(dims, algorithm):
    """Ring streams (slot formulas) plus the solver's per-OOC-PU predictions give every PU's
    finishing step; the kernel must agree PU by PU (relay groups: no later than predicted)."""
    plan = build_plan(dims, algorithm)
    predicted = solve_schedules(plan)          # deterministic: recomputes the same schedules
    relayed = {v for f in plan.feeds if len(f.edges) > 1 for v in f.consumers()}
    code, state = run(compile_rules(plan), plan.n_packets, 600)
    assert code == ERR_OK
    horizon = max(r.n_slots for r in plan.rings) + 2
    for v in range(plan.n_nodes):
        expect = 0
        for c, ring in enumerate(plan.rings):
            if (v, c) in predicted:
                expect = max(expect, predicted[v, c])
            else:
                expect = max(expect, _ring_done(plan, v, c, horizon))
        if v in relayed:   # a coupled group shares one predicted T, its first PUs finish earlier
            assert int(state.done_step[v]) <= expect, v
        else:
            assert int(state.done_step[v]) == expect, v
