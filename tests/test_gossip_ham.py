"""Two-packet gossip on 2-D tori (sections 3.1-3.3): constructions, checker, simulated counts."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from netsim_fast.studies.gossip import simulate_gossip
from netsim_fast.errors import ConfigError
from netsim_fast.topologies.torus import torus
from netsim_fast.workloads.gossip import build_plan, ham2d
from netsim_fast.workloads.gossip.check import GossipCheckError, check_packets, check_rings
from netsim_fast.workloads.gossip.plan import GossipPlan, plain_ring


def _torus_graph(dims):
    """networkx oracle, independent of our port tables: nodes (coord0, coord1)."""
    return nx.grid_graph(dim=list(dims), periodic=True)


def _as_coord_cycle(topo, ring):
    return [tuple(int(x) for x in topo.coord[v][::-1]) for v in ring.nodes]


def _is_hamiltonian_cycle(graph, cyc):
    return (len(set(cyc)) == graph.number_of_nodes() == len(cyc)
            and all(graph.has_edge(a, b) for a, b in zip(cyc, cyc[1:] + cyc[:1])))


@pytest.mark.parametrize("dims", [(4, 4), (6, 8), (8, 6), (4, 10)])
def test_section_3_1_rules_give_two_edge_disjoint_hamiltonian_cycles(dims):
    plan = build_plan(dims, "gossip-ham")
    g = _torus_graph(dims)
    cycles = [_as_coord_cycle(plan.topo, r) for r in plan.rings]
    assert all(_is_hamiltonian_cycle(g, c) for c in cycles)
    e0 = {frozenset(e) for e in zip(cycles[0], cycles[0][1:] + cycles[0][:1])}
    e1 = {frozenset(e) for e in zip(cycles[1], cycles[1][1:] + cycles[1][:1])}
    assert not e0 & e1 and len(e0 | e1) == g.number_of_edges()


@pytest.mark.parametrize("dims", [(4, 4), (6, 8), (8, 6), (4, 6)])
def test_even_even_takes_p_over_2_steps_theorem_2(dims):
    r = simulate_gossip(dims, "gossip-ham")
    p = math.prod(dims)
    assert r["steps"] == r["theorem_steps"] == p // 2 == r["lower_bound_steps"]
    assert r["time_independent"] and not r["buffered"] and r["section"] == "3.1"


@pytest.mark.parametrize("dims", [(6, 7), (7, 6), (4, 5), (5, 4), (4, 3), (8, 9), (10, 7)])
def test_one_side_odd_meets_theorem_3_exactly(dims):
    r = simulate_gossip(dims, "gossip-ham")
    p = math.prod(dims)
    assert r["section"] == "3.2"
    assert r["lower_bound_steps"] <= r["steps"] <= r["theorem_steps"] == p // 2
    even = min(k for k in dims if k % 2 == 0)
    assert r["ring_lengths"] == [p - even // 2] * 2      # half the special column is off each
    assert not r["time_independent"] and r["buffered"]


@pytest.mark.parametrize("dims", [(6, 7), (7, 6)])
def test_single_cycle_pus_are_the_special_column_in_both_orientations(dims):
    """Fig. 2 (6 x 7): column n-2 of the odd side; the transposed size uses row n-2."""
    plan = build_plan(dims, "gossip-ham")
    on = np.zeros((plan.n_nodes, 2), bool)
    for c, ring in enumerate(plan.rings):
        on[ring.nodes, c] = True
    single = np.flatnonzero(on.sum(axis=1) == 1)
    odd_dim = 0 if dims[0] % 2 else 1
    assert set(plan.topo.coord[single, odd_dim].tolist()) == {dims[odd_dim] - 2}
    # they alternate between the two cycles along the special column (Fig. 2's caption)
    other = 1 - odd_dim
    order = np.argsort(plan.topo.coord[single, other])
    ring_of = on[single[order], 1].astype(int)
    assert np.all(np.diff(ring_of) != 0)


def test_paper_literal_3_2_leaves_the_second_packet_of_single_cycle_pus_unrouted():
    """Without our one-step buffer a single-cycle PU's second packet is on no cycle."""
    topo = torus((6, 7))
    walks, _ = ham2d.cycles_3_1_3_2(topo)
    both = set(walks[0].tolist()) & set(walks[1].tolist())
    rings = []
    for c, w in enumerate(walks):
        rings.append(plain_ring(w, [2 * u + (c if u in both else 0) for u in w.tolist()]))
    plan = GossipPlan(topo=topo, dims=(6, 7), algorithm="gossip-ham", section="3.2",
                      packets_per_pu=2, rings=rings)
    with pytest.raises(GossipCheckError, match="is on no ring"):
        check_packets(plan)


def test_paper_literal_3_3_row_rules_put_a_pu_twice_on_one_cycle():
    """Section 3.3's text (row n2-2: t<->b, l<->r; last PU t<->r, b<->l) with 3.2's column."""
    topo = torus((7, 7))
    frame = ham2d.Frame(topo, transpose=False)
    grid = ham2d.transit_grid(7, 7, special_col=5)
    x_type = ((ham2d.T, ham2d.B), (ham2d.L, ham2d.R))
    for j in range(7):
        if j != 5:
            grid[5][j] = x_type if j != 6 else ham2d.TYPE_E
    walks = ham2d.follow_transits(topo, ham2d.transits_to_ports(frame, grid))
    with pytest.raises(GossipCheckError, match="passes PU"):
        check_rings(topo, [plain_ring(w, w) for w in walks])


@pytest.mark.parametrize("dims", [(3, 3), (5, 5), (5, 7), (7, 5), (3, 9), (9, 3)])
def test_odd_odd_square_switch_beats_theorem_4_by_one_step(dims):
    r = simulate_gossip(dims, "gossip-ham")
    p = math.prod(dims)
    assert r["section"] == "3.3"
    assert r["theorem_steps"] == (p + 1) // 2
    assert r["steps"] == (p - 1) // 2 == r["lower_bound_steps"]
    assert r["time_independent"] and r["duplicate_receives"] == 0


def test_square_switch_is_a_hamiltonian_decomposition_for_all_odd_sizes_to_39():
    for rows in range(3, 40, 2):
        for cols in range(3, 40, 2):
            topo = torus((rows, cols))
            walks, _ = ham2d.cycles_square_switch(topo)
            p = rows * cols
            check_rings(topo, [plain_ring(w, w) for w in walks], (p, p))


def test_time_independent_one_side_odd_routes_four_packets_one_way_each():
    r = simulate_gossip((6, 7), "gossip-ham", time_independent=True)
    assert r["packets_per_pu"] == 4 and r["time_independent"]
    assert r["theorem_steps"] is None
    assert r["lower_bound_steps"] == 41 <= r["steps"] == 42


@pytest.mark.parametrize("dims, match", [
    ((2, 4), ">= 3"), ((4, 4, 4), "2-D"), ((4,), "2-D"),
])
def test_invalid_sizes_name_the_condition(dims, match):
    with pytest.raises(ConfigError, match=match):
        build_plan(dims, "gossip-ham")


@pytest.mark.slow
@pytest.mark.parametrize("dims", [(16, 16), (20, 14), (16, 15), (15, 16), (31, 30),
                                  (15, 15), (21, 17), (64, 64)])
def test_larger_two_packet_sizes_stay_within_the_theorems(dims):
    r = simulate_gossip(dims, "gossip-ham")
    assert r["lower_bound_steps"] <= r["steps"] <= r["theorem_steps"]
