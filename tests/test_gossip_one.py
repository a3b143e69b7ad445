"""One-packet gossip along zigzag cycles (section 4): 2-D, 3-D and d >= 4."""

from __future__ import annotations

import math

import numpy as np
import pytest

from netsim_fast.studies.gossip import simulate_gossip
from netsim_fast.errors import ConfigError
from netsim_fast.topologies.torus import torus
from netsim_fast.workloads.gossip import build_plan, zigzag


@pytest.mark.parametrize("dims", [(4, 3), (6, 5), (8, 8), (4, 4), (6, 3), (10, 4)])
def test_2d_meets_theorem_5_with_switching_and_its_bound_without(dims):
    n1, n2 = dims
    r = simulate_gossip(dims, "gossip-one")
    assert r["lower_bound_steps"] <= r["steps"] <= r["theorem_steps"]
    assert r["theorem_steps"] == pytest.approx(n1 * n2 / 4 + n1 / 2 + 1)
    assert r["ring_lengths"] == [n1 * n2 // 2 + n1] * 2          # Theorem 5's proof
    ti = simulate_gossip(dims, "gossip-one", time_independent=True)
    assert ti["time_independent"] and ti["relayed_feeds"] == 0
    assert r["lower_bound_steps"] <= ti["steps"] <= r["theorem_steps"] + n2 + 1
    assert r["theorem1_bound"] == math.ceil(11 * n1 * n2 / 40 - 1)


@pytest.mark.parametrize("dims", [(3, 3, 3), (3, 6, 5), (3, 3, 4), (6, 6, 3)])
def test_3d_meets_theorem_6(dims):
    r = simulate_gossip(dims, "gossip-one")
    n1, n2, n3 = dims
    assert r["theorem_steps"] == pytest.approx(n1 * n2 * n3 / 6 + n1 * n2 / 2 + 1)
    assert r["lower_bound_steps"] <= r["steps"] <= r["theorem_steps"]
    assert r["ring_lengths"] == [n1 * n2 * n3 // 3 + n1 * n2] * 3
    ti = simulate_gossip(dims, "gossip-one", time_independent=True)
    assert r["steps"] <= ti["steps"] <= ti["theorem_steps"]


def test_3d_rod_pattern_is_the_papers_table_for_3x3x4():
    """Section 4.2: cutting the 3x3x4 torus at x3 = 3 gives cycle numbers 012/120/201."""
    topo = torus((3, 3, 4))
    label = -np.ones((3, 3), int)
    for c, ring in enumerate(zigzag.cycles((3, 3, 4))):
        sel = topo.coord[ring, 2] == 3
        label[topo.coord[ring[sel], 0], topo.coord[ring[sel], 1]] = c
    assert label.tolist() == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]


@pytest.mark.parametrize("dims, match", [
    ((5, 4), r"condition \(2\)"),
    ((3, 4, 3), r"condition \(1\).*n2"),
    ((8, 4, 4, 4), r"condition \(1\): \(n2\*n3 \+ n3\) mod n1 == 0 \(20 mod 8"),
    ((4, 4, 4, 3), r"condition \(3\)"),
    ((6, 2), r"radix must be >= 3"),
    ((4, 3, 3, 5), r"do not give simple cycles here \(cycle 0 passes PU \(0, 0, 0, 3\) twice\)"),
])
def test_invalid_sizes_name_the_papers_condition(dims, match):
    with pytest.raises(ConfigError, match=match):
        build_plan(dims, "gossip-one")


def test_every_pu_lies_on_a_cycle_and_ooc_pus_get_both_directions():
    plan = build_plan((6, 6, 6), "gossip-one", time_independent=True)
    on = np.zeros((plan.n_nodes, 3), bool)
    for c, ring in enumerate(plan.rings):
        on[ring.nodes, c] = True
    assert on.any(axis=1).all()
    roles = {}
    for f in plan.feeds:
        for v in f.consumers():
            roles.setdefault((v, f.ring), []).append(f.role)
    assert len(roles) == int((~on).sum())
    assert all(sorted(r) == [0, 1] for r in roles.values())


@pytest.mark.slow
@pytest.mark.parametrize("dims", [(16, 16), (32, 32), (12, 12, 12), (6, 12, 8)])
def test_larger_one_packet_sizes(dims):
    r = simulate_gossip(dims, "gossip-one")
    assert r["lower_bound_steps"] <= r["steps"] <= r["theorem_steps"]
    ti = simulate_gossip(dims, "gossip-one", time_independent=True)
    assert ti["steps"] <= ti["theorem_steps"]
