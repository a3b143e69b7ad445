"""Closed forms of BSP and LogP (papers/002) against direct evaluation and brute force."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from netsim_fast.analytic import bandwidth_latency as bl
from netsim_fast.analytic import bsp
from netsim_fast.analytic import logp as model
from netsim_fast.analytic.logp import LogPParams
from netsim_fast.errors import ConfigError


def test_bsp_superstep_is_w_plus_gh_plus_l():
    assert bsp.superstep_time(10, 3, 4.0, 20.0) == 10 + 12 + 20


def test_bsp_program_time_sums_supersteps():
    steps = [(5, 1), (0, 0), (7, 4)]
    assert bsp.program_time(steps, 2.0, 3.0) == (5 + 2 + 3) + 3 + (7 + 8 + 3)
    assert bsp.program_time([], 2.0, 3.0) == 0.0


def test_bsp_rejects_negative_parameters_and_degrees():
    with pytest.raises(ConfigError):
        bsp.BSPParams(g=-1, l=2)
    with pytest.raises(ConfigError):
        bsp.superstep_time(1, -2, 1.0, 1.0)


@pytest.mark.parametrize("L,G,cap", [(8, 2, 4), (9, 2, 5), (8, 8, 1), (10, 3, 4)])
def test_capacity_is_ceil_L_over_G(L, G, cap):
    assert model.capacity(L, G) == cap == LogPParams(L=L, o=1, G=G, p=4).capacity


@pytest.mark.parametrize("L,o,G,word", [(8, 1, 1, r"G = 1 violates max\(2, o\)"), (8, 3, 2, r"G = 2 .* = 3"),
                                        (8, 1, 9, "G = 9 .* <= L = 8"), (8, 0, 2, "o = 0")])
def test_params_outside_paper_rule_are_rejected_naming_the_value(L, o, G, word):
    with pytest.raises(ConfigError, match=word):
        LogPParams(L=L, o=o, G=G, p=4)


def test_tree_height_matches_brute_force_depth():
    for a in (2, 3, 5):
        for p in range(1, 60):
            depth = [0] * p
            for i in range(1, p):
                depth[i] = depth[(i - 1) // a] + 1
            assert model.tree_height(p, a) == max(depth)


def test_cb_bound_formula():
    P = LogPParams(L=16, o=2, G=4, p=64)
    assert model.cb_bound(P) == pytest.approx(3 * 18 * math.log(64) / math.log(5))
    assert model.cb_arity(LogPParams(L=8, o=1, G=8, p=4)) == 2


def test_batcher_depth_and_eq2_composition():
    assert [model.batcher_depth_pow2(2 ** k) for k in range(1, 6)] == [1, 3, 6, 10, 15]
    P = LogPParams(L=16, o=2, G=4, p=16)
    t_sort = model.t_sort_network(P, r=3, depth=10, local_sort_steps=15, merge_steps=3)
    assert t_sort == 15 + 10 * (4 + 8 + 16 + 3)
    assert model.eq2_bound(P, 5, t_sort) == pytest.approx(
        2 * model.cb_bound(P) + t_sort + 4 + 6 * 5 + 16)


def test_small_relation_time():
    assert model.small_relation_time(LogPParams(L=16, o=2, G=4, p=4), 3) == 4 + 8 + 16


def test_theorem3_constants_from_the_proof():
    c1, c2 = 2.0, 1.0
    beta = model.theorem3_beta(c1, c2)
    assert beta == pytest.approx(math.exp(4.0) - 1)
    assert model.theorem3_alpha(c1, c2) == pytest.approx(4 * math.exp(2 * (c2 + 3) / c1))
    assert model.theorem3_success_probability(16, 2) == pytest.approx(1 - 16 ** -2)


def test_batches_and_time_of_randomized_protocol():
    assert model.n_batches(h=20, cap=8, beta=1.0) == math.ceil(2 * 20 / 8)
    P = LogPParams(L=16, o=2, G=2, p=8)
    assert model.randomized_time(P, 5) == 2 * 18 * 5


@pytest.mark.parametrize("cap,beta", [(4, 1.0), (8, 1.0), (16, 2.0), (32, 1.5)])
def test_chernoff_tail_bounds_the_exact_binomial_tail(cap, beta):
    # With R = (1 + beta) h / cap exactly, X ~ Bin(h, 1/R) has mean cap / (1 + beta).
    R = 10
    h = round(R * cap / (1 + beta))
    exact = binom.sf(cap, h, 1.0 / R)
    tail = model.chernoff_tail(cap, beta)
    assert exact <= tail
    direct = (math.exp(beta) / (1 + beta) ** (1 + beta)) ** (cap / (1 + beta))
    assert tail == pytest.approx(direct)
    assert model.binomial_failure_bound(64, h, R, cap) <= model.chernoff_failure_bound(64, R, cap, beta)


def test_slowdown_S_is_order_log_p_and_small_for_large_h():
    P = LogPParams(L=32, o=2, G=4, p=1024)
    assert model.slowdown_S(P, 4) <= 2 * math.log(1024)
    assert model.slowdown_S(P, 4096) < model.slowdown_S(P, 4)


def test_table1_rows():
    p = 1024
    assert bl.gamma_delta("array", p, d=2) == (32.0, 32.0)
    assert bl.gamma_delta("hypercube-multiport", p) == (1.0, 10.0)
    assert bl.gamma_delta("hypercube-singleport", p) == (10.0, 10.0)
    for name in ("butterfly", "ccc", "shuffle-exchange"):
        assert bl.gamma_delta(name, p) == (10.0, 10.0)
    assert bl.gamma_delta("mesh-of-trees", p) == (32.0, 10.0)
    assert bl.best_logp("hypercube-multiport", p) == (1.0, 11.0)
    assert bl.best_bsp("array", 64, d=3) == pytest.approx((4.0, 4.0))


def test_table1_feasibility_and_errors():
    assert bl.logp_latency_feasible(L=40, G=10, gamma=5, delta=20)      # 4*5 + 20 = 40
    assert not bl.logp_latency_feasible(L=39, G=10, gamma=5, delta=20)
    with pytest.raises(ConfigError, match="hypercube-multiport"):
        bl.gamma_delta("hypercube-multiprt", 16)
    with pytest.raises(ConfigError, match="dimension"):
        bl.gamma_delta("array", 16)


def test_params_are_integers():
    with pytest.raises(ConfigError):
        LogPParams(L=8.5, o=1, G=2, p=4)
    assert LogPParams(L=np.int64(8), o=1, G=2, p=4).L == 8
