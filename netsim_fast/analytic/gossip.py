"""Closed forms for gossiping on full-port tori: Meyer & Sibeyn (papers/003).

Step counts are those of the paper's theorems for the case a construction covers; the lower
bound is the volume bound: a PU must receive ``k (P - 1)`` packets over ``2d`` links, one
packet per link and step, so gossip takes at least ``ceil(k (P - 1) / (2d))`` steps with ``k``
packets per PU. Theorem 1 bounds time-independent one-packet gossip along two edge-disjoint
Hamiltonian cycles of a 2-D torus from below by ``ceil(11 P / 40 - 1)``.

Table 2 (section 5) compares algorithms with the transfer-time model ``T(s') = s'/s + r``
(eq. 5): ``T_stv = n^d/(2d) (1 + r)`` for the time-dependent algorithm of Soch and Tvrdik,
``T_opt = n^d/2 (1/d + r)`` for section 3 (d packets of size s/d per PU) and
``T_one = n^(d-1)/2 (n/d + 1)(1 + r)`` for section 4 (one packet of size s).
"""

from __future__ import annotations

import math
from fractions import Fraction

from netsim_fast.errors import ConfigError

PAPER_TABLE2 = {
    # (n, r): {algorithm: (d = 2, d = 3)}, transcribed from the paper's Table 2
    (4, 0.01): {"stv": (4, 11), "opt": (4, 11), "one": (6, 19)},
    (4, 0.1): {"stv": (4, 12), "opt": (5, 14), "one": (7, 21)},
    (4, 1.0): {"stv": (8, 21), "opt": (12, 43), "one": (12, 37)},
    (16, 0.01): {"stv": (65, 689), "opt": (65, 702), "one": (73, 818)},
    (16, 0.1): {"stv": (70, 751), "opt": (77, 887), "one": (79, 891)},
    (16, 1.0): {"stv": (128, 1365), "opt": (192, 2730), "one": (144, 1620)},
    (64, 0.01): {"stv": (1034, 44110), "opt": (1044, 44958), "one": (1067, 46152)},
    (64, 0.1): {"stv": (1126, 48041), "opt": (1229, 56754), "one": (1162, 50264)},
    (64, 1.0): {"stv": (2048, 87346), "opt": (3072, 174719), "one": (2112, 91390)},
}


def _number(x: Fraction):
    """An exact count as int when integral, else as float."""
    return int(x) if x.denominator == 1 else float(x)


def lower_bound_steps(n_nodes: int, n_dims: int, packets_per_pu: int) -> int:
    """``ceil(k (P - 1) / (2d))``: receive volume over the 2d input links of a PU."""
    return -(-packets_per_pu * (n_nodes - 1) // (2 * n_dims))


def theorem1_bound(n_nodes: int) -> int:
    """Theorem 1: ``ceil(11 P / 40 - 1)`` steps for time-independent one-packet gossip on two
    edge-disjoint Hamiltonian cycles of a 2-D torus."""
    return math.ceil(Fraction(11 * n_nodes, 40) - 1)


def theorem_steps(dims, algorithm: str, time_independent: bool = False):
    """``(steps, label)`` the paper states for this case; ``(None, reason)`` where none applies.

    ``steps`` is an int, or a float where the paper's formula is not integral (the simulated
    count is compared with it as a real number).
    """
    n = [int(k) for k in dims]
    d = len(n)
    p = math.prod(n)
    if algorithm == "gossip-ham":
        if d != 2:
            return None, "no two-packet theorem beyond 2-D (section 3.4 gives no construction)"
        odd = sum(k % 2 for k in n)
        if odd == 0:
            return _number(Fraction(p, 2)), "Theorem 2"
        if odd == 1:
            if time_independent:
                return None, ("section 3.2 remark (four packets, one direction each): "
                              "no step count stated")
            return _number(Fraction(p, 2)), "Theorem 3"
        return -(-p // 2), "Theorem 4"
    if algorithm == "gossip-one":
        if d == 2:
            base = Fraction(p, 4) + Fraction(n[0], 2) + 1
            if time_independent:
                return _number(base + n[1] + 1), "Theorem 5 + (n2 + 1) without switching (4.1)"
            return _number(base), "Theorem 5"
        ti = (1 + Fraction(d, n[-1])) * (1 + Fraction(3 * d, n[-2])) * Fraction(p, 2 * d)
        if time_independent:
            return _number(ti), "Theorem 7 (time-independent)"
        if d == 3:
            return _number(Fraction(p, 6) + Fraction(n[0] * n[1], 2) + 1), "Theorem 6"
        return _number((1 + Fraction(d, n[-1])) * Fraction(p, 2 * d) + 2), "Theorem 7"
    if algorithm == "gossip-naive":
        return None, "no theorem for unicast gossip"
    raise ConfigError(f"unknown gossip algorithm {algorithm!r}")


def packets_per_pu(dims, algorithm: str, time_independent: bool = False) -> int:
    """Packets each PU starts with: 2 (ham; 4 for the time-independent one-side-odd variant),
    1 (one, naive)."""
    if algorithm == "gossip-ham":
        odd = sum(int(k) % 2 for k in dims)
        return 4 if (time_independent and odd == 1) else 2
    return 1


def summary(dims, algorithm: str, time_independent: bool = False) -> dict:
    """The analytic fields of a gossip result (no simulation): what ``run --json`` needs
    beside the simulated ``steps``; also serves ``gossip-naive``."""
    n = [int(k) for k in dims]
    k = packets_per_pu(n, algorithm, time_independent)
    steps, label = theorem_steps(n, algorithm, time_independent)
    p = math.prod(n)
    return {
        "theorem_steps": steps,
        "theorem": label,
        "lower_bound_steps": lower_bound_steps(p, len(n), k),
        "theorem1_bound": theorem1_bound(p) if (len(n) == 2 and k == 1) else None,
        "packets_per_pu": k,
    }


# -- Table 2 (section 5) -----------------------------------------------------------------
# The paper's d = 3 cells follow from 1/3 and 1/6 truncated to 0.333 and 0.1666 (every one of
# its 54 cells is reproduced that way, rounded to the nearest integer); the exact fractions
# move 14 of the d = 3 cells by 0.4 to 87 time units (docs/gossip.md lists them).
PAPER_THIRD, PAPER_SIXTH = 0.333, 0.1666


def _inv(d: int, paper_constants: bool) -> float:
    return PAPER_THIRD if (paper_constants and d == 3) else 1 / d


def t_stv(n: int, d: int, r: float, paper_constants: bool = False) -> float:
    """``n^d / (2d) * (1 + r)``: Soch & Tvrdik's time-dependent algorithm, one packet of size s."""
    half_inv = PAPER_SIXTH if (paper_constants and d == 3) else 1 / (2 * d)
    return n ** d * half_inv * (1 + r)


def t_opt(n: int, d: int, r: float, paper_constants: bool = False) -> float:
    """``n^d / 2 * (1/d + r)``: section 3, d packets of size s/d along Hamiltonian cycles."""
    return n ** d / 2 * (_inv(d, paper_constants) + r)


def t_one(n: int, d: int, r: float, paper_constants: bool = False) -> float:
    """``n^(d-1) / 2 * (n/d + 1) * (1 + r)``: section 4, one packet of size s."""
    return n ** (d - 1) / 2 * (n * _inv(d, paper_constants) + 1) * (1 + r)


TABLE2_MODELS = {"stv": t_stv, "opt": t_opt, "one": t_one}


def cost(steps: float, packet_fraction: float, r: float) -> float:
    """Time units of ``steps`` steps that move packets of size ``packet_fraction * s`` (eq. 5)."""
    return steps * (packet_fraction + r)
