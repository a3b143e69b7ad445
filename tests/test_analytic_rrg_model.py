"""The path-tree and message-passing models of Bieniek et al. (papers/000)."""

import math

import networkx as nx
import numpy as np
import pytest

from netsim_fast.analytic import rrg_model as rm
from netsim_fast.errors import ConfigError


@pytest.mark.parametrize("n,r", [(32, 3), (64, 4), (256, 4), (1024, 6), (4096, 4)])
def test_distance_distribution_sums_to_one(n, r):
    p = rm.distance_distribution(n, r)
    assert p[0] == pytest.approx(1.0 / n)
    assert np.all(p >= 0.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


def test_distribution_misses_only_the_not_in_tree_mass_on_tiny_graphs():
    # N = 8, r = 3: the tree has so few nodes that the missing mass of eq. (7) is visible
    p = rm.distance_distribution(8, 3)
    missing = rm.missing_mass(8, 3)
    assert missing > 1e-6
    assert p.sum() + missing == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("n,r", [(16, 3), (64, 4), (200, 5)])
def test_eq5_summed_to_d_equals_eq7(n, r):
    """Cumulative sums of the reconstructed eq. (5) against both forms of eq. (7)."""
    p = rm.distance_distribution(n, r)
    k = rm.level_sizes(n, r)
    q = 1.0 - 1.0 / (n - 1)

    def q_pow_s(i):  # q^{sum_{j=1}^{i-1} K_j}
        return q ** float(np.sum(k[1:i]))

    for d in range(0, min(p.size, 9)):
        lhs = p[: d + 1].sum()
        middle = 1.0 / n + (1 - 1.0 / n) * (
            sum(q_pow_s(i) for i in range(1, d + 1)) - sum(q_pow_s(i) for i in range(2, d + 2))
        )
        closed = 1.0 - (1 - 1.0 / n) * q ** float(np.sum(k[1 : d + 1]))
        assert lhs == pytest.approx(middle, abs=1e-13)
        assert lhs == pytest.approx(closed, abs=1e-13)
        assert 1.0 - lhs == pytest.approx(rm.tail_probability(n, r, d), abs=1e-13)


def test_level_sizes_follow_the_cycle_corrected_recursion():
    n, r = 50, 4
    k = rm.level_sizes(n, r)
    assert k[0] == 1 and k[1] == r
    for i in range(2, 6):
        assert k[i] == pytest.approx((r - 1) * k[i - 1] * (1 - (i - 1) / (n - 1)))
    walk = rm.level_sizes(n, r, cycle_correction=False)
    assert walk[:6] == pytest.approx(rm.walk_tree_sizes(r, 6))
    assert np.all(k[2:6] < walk[2:6])


def _random_regular_average(n, r, draws):
    values = []
    seed = 0
    while len(values) < draws:
        g = nx.random_regular_graph(r, n, seed=seed)
        seed += 1
        if nx.is_connected(g):
            values.append(nx.average_shortest_path_length(g))
    return float(np.mean(values))


@pytest.mark.parametrize("n,tol", [(64, 0.04), (128, 0.02), (256, 0.015)])
def test_model_average_distance_close_to_networkx_random_4_regular(n, tol):
    measured = _random_regular_average(n, 4, draws=10)
    model = rm.average_distance(n, 4)
    # the model sits slightly above the measured mean (Fig. 3 of the paper shows the same)
    assert model == pytest.approx(measured, rel=tol)


def test_expected_distance_counts_the_root_and_average_distance_does_not():
    n, r = 64, 4
    assert rm.expected_distance(n, r) == pytest.approx((1 - 1 / n) * rm.average_distance(n, r))


def test_diameter_estimate_grows_with_smaller_tolerance_and_matches_tail():
    n, r = 128, 4
    d2 = rm.diameter_estimate(n, r, 1e-2)
    d6 = rm.diameter_estimate(n, r, 1e-6)
    assert d6 > d2
    assert rm.tail_probability(n, r, d6) <= 1e-6 < rm.tail_probability(n, r, d6 - 1)
    with pytest.raises(ConfigError):
        rm.diameter_estimate(n, r, 0.0)


def test_theorem_bounds_bracket_measured_diameters_of_large_graphs():
    n, r = 256, 4
    # Theorem 1: (r-1)^(d-1) > 2 r n ln n  ->  3^(d-1) > 2*4*256*ln 256 = 11357  ->  d = 10
    assert rm.theorem1_upper(n, r) == 10
    assert 3 ** 9 > 2 * 4 * 256 * math.log(256) > 3 ** 8
    # Theorem 2: floor(log_3 256) + floor(log_3 ln 256 - log_3 12) + 1 = 5 + (-1) + 1
    assert rm.theorem2_lower(n, r) == 5
    g = nx.random_regular_graph(r, n, seed=3)
    assert rm.theorem2_lower(n, r) <= nx.diameter(g) <= rm.theorem1_upper(n, r)


def test_model_step_conserves_messages_and_moves_them_one_group_down():
    m = rm.initial_groups(64, 4, 128.0)
    for policy in rm.POLICIES:
        nxt = rm.model_step(m, 256, policy)
        assert nxt.sum() == pytest.approx(m.sum())
        assert nxt[0] > m[0]
        assert np.all(nxt >= 0.0)
        # a group below one message is sent whole, never more (the cap on eq. 10)
        assert rm.model_step(np.array([0.0, 0.3]), 256, policy)[1] == 0.0


def test_srpf_step_matches_eq11_written_out():
    m = np.array([0.0, 30.0, 50.0, 20.0, 5.0])
    links = 64
    pt = 1 - (1 - 1 / links) ** m
    want = m.copy()
    want[0] = m[0] + links * pt[1]
    want[1] = m[1] + links * (1 - pt[1]) * pt[2] - links * pt[1]
    want[2] = m[2] + links * ((1 - pt[1]) * (1 - pt[2]) * pt[3] - (1 - pt[1]) * pt[2])
    want[3] = m[3] + links * (pt[4] * (1 - pt[3]) - pt[3]) * (1 - pt[1]) * (1 - pt[2])
    want[4] = m[4] - links * pt[4] * (1 - pt[1]) * (1 - pt[2]) * (1 - pt[3])
    assert rm.model_step(m, links, "srpf") == pytest.approx(want)


def test_lrpf_and_fifo_steps_match_eq12_and_eq15_written_out():
    m = np.array([0.0, 30.0, 50.0, 20.0, 5.0])
    links = 64
    pt = 1 - (1 - 1 / links) ** m
    top = 4
    want = m.copy()
    want[top] = m[top] - links * pt[top]
    want[top - 1] = m[top - 1] + links * (pt[top] - (1 - pt[top]) * pt[top - 1])
    want[1] = m[1] + links * (pt[2] - (1 - pt[2]) * pt[1]) * (1 - pt[3]) * (1 - pt[4])
    want[0] = m[0] + links * pt[1] * (1 - pt[2]) * (1 - pt[3]) * (1 - pt[4])
    got = rm.model_step(m, links, "lrpf")
    assert got[[0, 1, 3, 4]] == pytest.approx(want[[0, 1, 3, 4]])

    total = m[1:].sum()
    p_fifo = 1 - (1 - 1 / links) ** total
    f = links * p_fifo / total
    want_fifo = np.array(
        [m[0] + f * m[1]] + [m[i] + f * (m[i + 1] - m[i]) for i in range(1, 4)] + [m[4] - f * m[4]]
    )
    assert rm.model_step(m, links, "fifo") == pytest.approx(want_fifo)


def test_light_load_takes_about_the_diameter_and_heavy_load_grows_linearly():
    light = rm.predict(64, 4, 0.25, policy="lrpf")["cycles"]
    assert 3 <= light <= rm.diameter_estimate(64, 4, 1e-2) + 1
    c32 = rm.predict(64, 4, 32, policy="fifo")["cycles"]
    c64 = rm.predict(64, 4, 64, policy="fifo")["cycles"]
    # saturated: each extra message per node costs about E / r cycles (every link busy)
    slope = (c64 - c32) / 32
    assert slope == pytest.approx(rm.average_distance(64, 4) / 4, rel=0.15)


def test_lrpf_is_never_slower_than_fifo_and_srpf_in_the_model():
    for n in (32, 64, 256):
        res = {p: rm.predict(n, 4, 2, policy=p)["cycles"] for p in rm.POLICIES}
        assert res["lrpf"] <= res["fifo"] <= res["srpf"]


def test_predict_returns_the_contract_keys_and_total_exchange_counts_n_n_minus_1():
    out = rm.predict(32, 4, policy="fifo", workload="total-exchange")
    for key in ("cycles", "average_distance", "distance_distribution", "diameter_estimate",
                "diameter_tolerance"):
        assert key in out
    assert out["total_messages"] == 32 * 31
    assert out["diameter_tolerance"] == 1e-6
    assert sum(out["distance_distribution"]) == pytest.approx(32, rel=1e-9)
    assert out["in_flight"][0] == pytest.approx(32 * 31)
    assert out["in_flight"][-1] <= 0.5


def test_include_self_starts_with_m_over_n_delivered():
    m0 = rm.initial_groups(64, 4, 128.0, include_self=True)
    assert m0[0] == pytest.approx(2.0)
    assert rm.initial_groups(64, 4, 128.0)[0] == 0.0
    lit = rm.predict(64, 4, 2, include_self=True)
    assert lit["in_flight"][0] == pytest.approx(126.0)


def test_bad_inputs_raise_config_error_naming_the_parameter():
    with pytest.raises(ConfigError, match="degree"):
        rm.predict(10, 10)
    with pytest.raises(ConfigError, match="even"):
        rm.predict(15, 3)
    with pytest.raises(ConfigError, match="policy"):
        rm.predict(64, 4, policy="lifo")
    with pytest.raises(ConfigError, match="workload"):
        rm.predict(64, 4, workload="gossip")
