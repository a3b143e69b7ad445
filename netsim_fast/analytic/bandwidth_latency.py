"""Table 1 of Bilardi et al.: bandwidth and latency parameters of prominent topologies.

For these networks h-relations are routable in optimal time ``Theta(gamma(p) h + delta(p))``,
with ``delta`` the diameter and ``gamma`` a bandwidth term (``O(p / bisection width)``). The
best BSP parameters are then ``g* = Theta(gamma)``, ``l* = Theta(delta)``; the best stall-free
LogP parameters ``G* = Theta(gamma)``, ``L* = Theta(gamma + delta)`` (Observation 1).

These are orders of growth with the constants set to 1 and logarithms to base 2; the later
``params`` work measures the constants on the cycle-accurate engines.

Notes
-----
papers/002, section 5, Table 1 and Observation 1; the LogP requirement that any
``ceil(L/G)``-relation be routed within L gives ``L >= ceil(L/G) gamma(p) + delta(p)``.
"""

from __future__ import annotations

import difflib
import math

from netsim_fast.errors import ConfigError

# name -> (gamma(p, d), delta(p, d)); d is only used by the d-dimensional array.
_TABLE1 = {
    "array": (lambda p, d: p ** (1.0 / d), lambda p, d: p ** (1.0 / d)),
    "hypercube-multiport": (lambda p, d: 1.0, lambda p, d: math.log2(p)),
    "hypercube-singleport": (lambda p, d: math.log2(p), lambda p, d: math.log2(p)),
    "butterfly": (lambda p, d: math.log2(p), lambda p, d: math.log2(p)),
    "ccc": (lambda p, d: math.log2(p), lambda p, d: math.log2(p)),
    "shuffle-exchange": (lambda p, d: math.log2(p), lambda p, d: math.log2(p)),
    "pruned-butterfly": (lambda p, d: math.sqrt(p), lambda p, d: math.log2(p)),
    "mesh-of-trees": (lambda p, d: math.sqrt(p), lambda p, d: math.log2(p)),
}

TOPOLOGIES = tuple(_TABLE1)


def gamma_delta(topology: str, p: int, d: int | None = None) -> tuple[float, float]:
    """``(gamma(p), delta(p))`` of Table 1 with unit constants.

    Parameters
    ----------
    topology : str
        One of ``TOPOLOGIES`` (``array`` needs ``d``; ``pruned-butterfly`` and
        ``mesh-of-trees`` are the pruned butterfly / mesh-of-trees row).
    p : int
        Number of processors, >= 2.
    d : int, optional
        Dimension of the array (``d = O(1)``).

    Returns
    -------
    tuple of float
        Bandwidth term gamma and latency (diameter) term delta.
    """
    if topology not in _TABLE1:
        close = difflib.get_close_matches(topology, TOPOLOGIES, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ConfigError(f"unknown Table 1 topology '{topology}'; choose one of "
                          f"{', '.join(TOPOLOGIES)}{hint}")
    if p < 2:
        raise ConfigError(f"p = {p} is too small for Table 1's asymptotics; pass p >= 2")
    if topology == "array" and (d is None or d < 1):
        raise ConfigError(f"topology 'array' needs its dimension d >= 1; got d = {d}")
    gamma, delta = _TABLE1[topology]
    return gamma(p, d), delta(p, d)


def best_bsp(topology: str, p: int, d: int | None = None) -> tuple[float, float]:
    """``(g*, l*) = (gamma, delta)``: the best attainable BSP parameters (section 5)."""
    return gamma_delta(topology, p, d)


def best_logp(topology: str, p: int, d: int | None = None) -> tuple[float, float]:
    """``(G*, L*) = (gamma, gamma + delta)``: the best stall-free LogP parameters (Observation 1)."""
    gamma, delta = gamma_delta(topology, p, d)
    return gamma, gamma + delta


def logp_latency_feasible(L: float, G: float, gamma: float, delta: float) -> bool:
    """``L >= ceil(L/G) gamma + delta``: can the network route every ``ceil(L/G)``-relation in L?"""
    return L >= math.ceil(L / G) * gamma + delta
