"""Fitting BSP and LogP parameters (analytic/params.py) on synthetic data with known answers."""

import numpy as np
import pytest

from netsim_fast.analytic import params as fit
from netsim_fast.errors import ConfigError


def test_fit_line_recovers_g_and_ell_exactly_from_noise_free_supersteps():
    h = np.array([1, 2, 4, 8, 16, 32])
    res = fit.fit_line(h, 3.5 * h + 50.0)
    assert res.slope == pytest.approx(3.5)
    assert res.intercept == pytest.approx(50.0)
    assert res.r2 == pytest.approx(1.0)
    assert np.allclose(res.residuals, 0.0, atol=1e-9)


def test_fit_line_recovers_g_and_ell_within_noise_and_reports_residuals():
    rng = np.random.default_rng(7)
    h = np.repeat([1, 2, 4, 8, 16, 32, 64], 5)
    t = 12.0 * h + 200.0 + rng.normal(0.0, 5.0, h.size)
    res = fit.fit_line(h, t)
    assert abs(res.slope - 12.0) < 0.2
    assert abs(res.intercept - 200.0) < 5.0
    assert 0.99 < res.r2 < 1.0
    assert np.allclose(res.residuals, t - (res.slope * h + res.intercept))


def test_fit_line_needs_two_distinct_h():
    with pytest.raises(ConfigError, match="two distinct"):
        fit.fit_line([4, 4, 4], [10, 11, 12])


def test_r2_is_negative_for_a_model_worse_than_the_mean():
    y = np.array([1.0, 2.0, 3.0])
    assert fit.r2_score(y, y) == 1.0
    assert fit.r2_score(y, np.array([3.0, 2.0, 1.0])) < 0


def test_logp_model_with_its_own_parameters_has_r2_one():
    h = np.arange(1, 9)
    L, G, o = 40, 6, 2
    times = 2 * o + G * (h - 1) + L
    r2, residuals = fit.logp_r2(h, times, L, G, o)
    assert r2 == pytest.approx(1.0) and np.allclose(residuals, 0)
    assert fit.logp_r2(h, times, L, 3 * G, o)[0] < 0.5


def test_logp_line_inverts_the_bsp_line():
    h = np.arange(1, 9)
    L, G, o = 40.0, 6.0, 2.0
    line = fit.fit_line(h, fit.logp_relation_time(h, L, G, o))
    assert fit.logp_from_line(line, o) == pytest.approx((L, G))


def test_steady_gap_of_a_uniform_rate_is_p_times_the_delivery_spacing():
    p, h = 16, 10
    delivered = np.repeat(np.arange(h) * 30, p)  # every node gets one message every 30 cycles
    assert fit.steady_gap(delivered, h) == pytest.approx(30.0, rel=0.05)


def test_steady_gap_ignores_start_up_drain_and_bursts():
    # one stream: bursts of 4 tails every 32 cycles (4 VCs interleaving 8-flit packets),
    # a slow start and a long straggler at the end
    bursts = (np.arange(16)[:, None] * 32 + np.arange(4)[None, :]).ravel()
    delivered = np.concatenate([[0, 0], bursts + 100, [5000]])
    assert fit.steady_gap(delivered, delivered.size) == pytest.approx(8.0, rel=0.1)


def test_loglog_slope_and_ratio_spread_read_the_shape_and_the_constant():
    p = np.array([16, 64, 256, 1024])
    assert fit.loglog_slope(p, 3.0 * np.sqrt(p)) == pytest.approx(0.5)
    assert fit.ratio_spread(3.0 * np.sqrt(p), np.sqrt(p)) == pytest.approx((3.0, 3.0, 3.0))
    with pytest.raises(ConfigError):
        fit.loglog_slope([1, 2], [0, 1])
