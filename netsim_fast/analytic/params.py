"""Fitting BSP and LogP parameters to times measured on the engines (pure numpy).

The measurements themselves (which runs, which cycles) are made by
``netsim_fast.studies.params``; this module only turns numbers into parameters and fit
qualities, so it can be tested on synthetic data with known answers.

- BSP: least squares of ``T(h) = g h + l`` over the measured points (``fit_line``), with the
  coefficient of determination ``r2`` and the residuals.
- LogP: the model time of an h-relation, ``2o + G(h-1) + L`` (``logp_relation_time``), is
  evaluated with L and G *measured separately* (idle latency, steady-state gap) and its ``r2``
  against the measured routing times is reported (``r2`` of a prediction, not of a fit: it
  can be negative). A free least-squares LogP fit would be the same straight line as the BSP
  fit (the model is linear in h), so it carries no extra information; ``logp_from_line``
  gives its L and G for reference.
- Steady-state gap: ``steady_gap`` reads the per-node message rate from the middle half of
  the deliveries of one large relation.
- Table 1: ``loglog_slope`` and ``ratio_spread`` compare a measured series with gamma(p) or
  delta(p) over a range of p.

Notes
-----
Bilardi et al., "BSP vs LogP" (papers/002): eq. (1) ``T = w + g h + l`` (section 2.1), the
LogP time ``2o + G(h-1) + L`` of a relation with ``h <= ceil(L/G)`` (section 4.2, first
paragraph), Table 1 and Observation 1 (section 5).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from netsim_fast.errors import ConfigError


class LineFit(NamedTuple):
    """Least-squares line ``y = slope x + intercept``.

    slope, intercept : float
    r2 : float
        ``1 - SS_res / SS_tot`` (1.0 when every y is equal and the line goes through them).
    residuals : float64[n]
        ``y - (slope x + intercept)`` per point, in the input order.
    """

    slope: float
    intercept: float
    r2: float
    residuals: np.ndarray


def r2_score(y, y_model) -> float:
    """Coefficient of determination of ``y_model`` for ``y``: ``1 - SS_res / SS_tot``.

    Negative when the model is worse than the mean of ``y``. If ``y`` is constant, 1.0 when
    the model matches it exactly and ``-inf`` otherwise.
    """
    y = np.asarray(y, dtype=np.float64)
    y_model = np.asarray(y_model, dtype=np.float64)
    ss_res = float(np.sum((y - y_model) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    if ss_tot == 0.0:
        return 1.0 if ss_res == 0.0 else float("-inf")
    return 1.0 - ss_res / ss_tot


def fit_line(x, y) -> LineFit:
    """Ordinary least squares of ``y`` on ``x`` (at least two distinct x).

    Parameters
    ----------
    x, y : array-like of float, shape (n,)
        For BSP: ``x = h`` (messages per node), ``y = T(h)`` in cycles; repetitions of one h
        are separate points.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ConfigError(f"a fit needs one time per h; got {x.size} h values and {y.size} times")
    if np.unique(x).size < 2:
        raise ConfigError(f"a line fit needs at least two distinct h values; got {sorted(set(x.tolist()))}")
    slope, intercept = np.polyfit(x, y, 1)
    model = slope * x + intercept
    return LineFit(float(slope), float(intercept), r2_score(y, model), y - model)


def logp_relation_time(h, L: float, G: float, o: float):
    """``2o + G(h-1) + L``: the LogP time of a relation of h messages per node (papers/002 4.2)."""
    return 2.0 * o + G * (np.asarray(h, dtype=np.float64) - 1.0) + L


def logp_r2(h, times, L: float, G: float, o: float) -> tuple[float, np.ndarray]:
    """``(r2, residuals)`` of the LogP model with given L, G, o against measured ``times``."""
    model = logp_relation_time(h, L, G, o)
    times = np.asarray(times, dtype=np.float64)
    return r2_score(times, model), times - model


def logp_from_line(fit: LineFit, o: float) -> tuple[float, float]:
    """``(L, G)`` of the LogP line equal to ``fit``: ``G = slope``, ``L = intercept + G - 2o``."""
    return fit.intercept + fit.slope - 2.0 * o, fit.slope


def steady_gap(delivered, h: int, lo: float = 0.25, hi: float = 0.75) -> float:
    """Per-node gap G (cycles per message) in the steady part of one relation.

    The ``n = p h`` delivery cycles, sorted, are ``t[0..n-1]``; between the quantiles ``lo``
    and ``hi`` (indices ``round(q (n - 1))``) the least-squares slope of ``t[i]`` against
    ``i`` is the network's time per delivered message. Per node the rate is ``p = n / h``
    times lower, so ``G = (n / h) slope``. Start-up (the network filling) and the drain (the
    last stragglers) are left out, so G measures the rate the network sustains; the slope,
    unlike a difference of two quantiles, is not thrown off by bursts (virtual channels that
    interleave packets deliver their tails in groups). A single stream is ``h = n``.

    Parameters
    ----------
    delivered : int64[n]
        Delivery cycles of the messages of one relation (all released together).
    h : int
        Messages per node of the relation.
    """
    t = np.sort(np.asarray(delivered, dtype=np.float64))
    if t.size < 4 or h < 1:
        raise ConfigError(f"the steady-state gap needs at least 4 messages and h >= 1; got {t.size} and h = {h}")
    if not 0.0 <= lo < hi <= 1.0:
        raise ConfigError(f"quantiles must satisfy 0 <= lo < hi <= 1; got lo = {lo}, hi = {hi}")
    n = t.size
    i_lo, i_hi = int(round(lo * (n - 1))), int(round(hi * (n - 1)))
    if i_hi == i_lo:
        raise ConfigError(f"quantiles {lo} and {hi} pick the same of {n} deliveries; widen them")
    idx = np.arange(i_lo, i_hi + 1)
    return (n / h) * fit_line(idx, t[idx]).slope


def loglog_slope(p, y) -> float:
    """Slope of ``log y`` against ``log p`` (least squares): the exponent a of ``y ~ c p^a``."""
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if np.any(p <= 0) or np.any(y <= 0):
        raise ConfigError("a log-log slope needs positive p and y")
    return fit_line(np.log(p), np.log(y)).slope


def ratio_spread(measured, model) -> tuple[float, float, float]:
    """``(median, min, max)`` of ``measured / model``: the constant of ``measured = c model``
    and how far it drifts over the range (max/min = 1 means the shape holds exactly)."""
    ratio = np.asarray(measured, dtype=np.float64) / np.asarray(model, dtype=np.float64)
    return float(np.median(ratio)), float(ratio.min()), float(ratio.max())
