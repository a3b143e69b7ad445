"""Lower bound of the total exchange and the steady-state metrics of a utilisation series."""

import numpy as np
import pytest

from netsim_fast.analytic.total_exchange import (
    closed_form_bound, cut_bounds, lower_bound, steady_state, utilisation_series,
)
from netsim_fast.topologies import hypercube, mesh, torus
from netsim_fast.topologies.metrics import bisection


@pytest.mark.parametrize("k,n", [(16, 2), (8, 2), (6, 2), (4, 3), (10, 2)])
@pytest.mark.parametrize("f", [2, 8])
def test_even_k_torus_bound_is_n2_f_over_8n_over_k(k, n, f):
    topo = torus((k,) * n)
    nodes = k ** n
    assert lower_bound(topo, f)["lower_bound_bisection_cycles"] == nodes ** 2 * f / (8 * nodes / k)


def test_16x16_torus_bound_is_4096_cycles_for_32_byte_grains():
    lb = lower_bound(torus((16, 16)), 8)
    assert lb["lower_bound_cycles"] == 4096.0  # bisection dominates (N - 1) F = 2040
    assert lb["lower_bound_endpoint_cycles"] == 255 * 8


@pytest.mark.parametrize("topo", [torus((8, 8)), torus((6, 4)), mesh((8, 8)), hypercube(6), torus((8, 8, 8)),
                                  mesh((4, 6))], ids=lambda t: t.describe())
def test_bound_agrees_with_the_proven_bisection_width(topo):
    # independent oracle: N^2/4 ordered pairs each way over the bisection's links (one per direction)
    width, exact = bisection(topo)
    assert exact
    n = topo.n_nodes
    assert lower_bound(topo, 3)["lower_bound_bisection_cycles"] == pytest.approx(n * n / 4 * 3 / width)


@pytest.mark.parametrize("dims", [(3, 3), (5, 5), (7, 7), (5, 3), (9,), (7, 4), (3, 3, 3)])
def test_odd_k_bound_counts_the_pairs_that_cross_the_best_straight_cut(dims):
    topo = torus(dims)
    n = topo.n_nodes
    best = 0.0
    for d, k in enumerate(dims):  # brute force over every straight cut, links counted directly
        for at in range(1, k):
            side = topo.coord[:, d] < at
            a = side.sum()
            src, dst, _ = topo.links()
            crossing = np.count_nonzero(side[src] & ~side[dst])
            best = max(best, a * (n - a) * 4 / crossing)
    assert lower_bound(topo, 4)["lower_bound_bisection_cycles"] == pytest.approx(best)
    assert closed_form_bound(topo.radix, topo.arrays.wrap, 4) == pytest.approx(best)


def test_odd_k_closed_form():
    # k = 5, 2-D: floor(5/2) ceil(5/2) (25/5) F / 2 = 2 * 3 * 5 * F / 2
    assert lower_bound(torus((5, 5)), 2)["lower_bound_bisection_cycles"] == 2 * 3 * 5 * 2 / 2


def test_bound_scales_with_t_link_and_both_directions_cross():
    base = lower_bound(torus((8, 8)), 4)["lower_bound_bisection_cycles"]
    assert lower_bound(torus((8, 8)), 4, t_link=3)["lower_bound_bisection_cycles"] == 3 * base
    for cut in cut_bounds(torus((8, 8)), 4):
        assert cut["links_ab"] == cut["links_ba"] == 16


def test_endpoint_bound_dominates_small_tori():
    lb = lower_bound(torus((4, 4)), 8)
    assert lb["lower_bound_bisection_cycles"] == 64.0
    assert lb["lower_bound_cycles"] == lb["lower_bound_endpoint_cycles"] == 15 * 8


# -- steady-state metrics ---------------------------------------------------------------------


def trapezoid():
    """10-cycle windows: ramp 0.3, 0.6 then a plateau alternating 0.88/0.92 until window 80,
    a linear fall to 0 over windows 80..99; completion at cycle 1000."""
    plateau = np.where(np.arange(78) % 2, 0.92, 0.88)
    return np.concatenate([[0.3, 0.6], plateau, np.linspace(0.8, 0.05, 20)])


def test_steady_state_metrics_of_a_trapezoid():
    u = trapezoid()
    m = steady_state(u, 10, completion=1000, last_injection=805)
    assert m["utilization_plateau"] == pytest.approx(0.90)  # median of windows 25..74
    assert m["steady_state_cycle"] == 20  # first window >= 0.855
    span = u[2:80]  # windows from steady state up to the window of cycle 805 (80), exclusive
    assert m["steady_fluctuation"] == pytest.approx(span.std() / span.mean())
    assert m["steady_fluctuation"] == pytest.approx(0.02 / 0.90)
    assert m["drain_cycles"] == 1000 - 805
    assert m["steady_end_cycle"] == 790  # window 79 is the last at >= 0.855 (0.8 follows)
    assert m["tail_cycles"] == 1000 - 800
    assert m["plateau_fluctuation"] == pytest.approx(0.02 / 0.90)


def test_fluctuation_counts_the_decline_while_nodes_still_inject():
    u = trapezoid()
    late = steady_state(u, 10, completion=1000, last_injection=960)
    assert late["steady_fluctuation"] > 0.1 > late["plateau_fluctuation"]
    assert late["drain_cycles"] == 40


def test_steady_state_of_empty_or_idle_series_is_undefined():
    m = steady_state(np.zeros(10), 10, completion=100, last_injection=50)
    assert m["steady_state_cycle"] is None and m["utilization_plateau"] == 0
    assert steady_state(np.zeros(0), 10, completion=0, last_injection=0)["drain_cycles"] is None


def test_utilisation_series_divides_by_links_window_and_partial_last_window():
    u = utilisation_series(np.array([40, 20, 5, 0, 0]), n_links=4, window=10, t_link=1, cycles=25)
    assert u.tolist() == [1.0, 0.5, 0.25]
    assert utilisation_series(np.array([10]), 4, 10, 2, 10).tolist() == [0.5]
