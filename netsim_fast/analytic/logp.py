"""Closed forms of the LogP model and of the BSP-on-LogP protocols of Bilardi et al.

Everything here is a pure function of the LogP parameters ``L`` (latency), ``o`` (overhead),
``G`` (gap) and ``p`` (processors): the capacity constraint, the combine-and-broadcast (CB) time
bound, the time of small relations, eq. (2) for the sort-based h-relation protocol, Theorem 2's
slowdown ``S``, and Theorem 3's randomized protocol (batches, time, Chernoff failure bound).
The message-level machine that executes the protocols is ``netsim_fast.logp.machine``.

Notes
-----
Bilardi, Herley, Pietracaprina, Pucci, Spirakis, "BSP vs LogP" (papers/002):
section 2.2 (parameters, capacity ``ceil(L/G)``, stalling rule, ``max(2, o) <= G <= L``),
section 4.1 (CB tree and ``T_CB``), section 4.2 (eq. (2), AKS and Cubesort costs, ``S``),
section 4.3 (Theorem 3). Logarithms are natural where the paper's derivation uses ``e``
(Chernoff, ``c1 log p``) and base 2 where they count tree or network levels; the ratio
``log p / log(1 + ceil(L/G))`` is base-free.
"""

from __future__ import annotations

import math
from netsim_fast.errors import ConfigError
from netsim_fast.logp_params import LogPParams, capacity  # noqa: F401 (LogPParams: re-exported)


def small_relation_time(params: LogPParams, h: int) -> int:
    """Worst-case time ``2o + G(h-1) + L`` of an h-relation with ``h <= ceil(L/G)``.

    Each processor submits its messages one every ``G`` steps (papers/002 section 4.2, first
    paragraph); this is also the optimal off-line time of any h-relation (Hall's theorem).
    """
    return 2 * params.o + params.G * (h - 1) + params.L


# --------------------------------------------------------------------------- CB (section 4.1)

def cb_arity(params: LogPParams) -> int:
    """Arity ``max(2, ceil(L/G))`` of the complete tree of the CB algorithm."""
    return max(2, params.capacity)


def tree_height(p: int, arity: int) -> int:
    """Height (edges on the longest root-leaf path) of the complete ``arity``-ary tree on p nodes.

    Nodes are numbered in heap order (children of ``i`` are ``arity*i + 1 .. arity*i + arity``),
    so the height is the depth of node ``p - 1``.
    """
    depth, node = 0, p - 1
    while node > 0:
        node = (node - 1) // arity
        depth += 1
    return depth


def cb_bound(params: LogPParams) -> float:
    """The paper's CB time bound ``3 (L + o) log p / log(1 + ceil(L/G))`` (section 4.1)."""
    return 3.0 * (params.L + params.o) * math.log(params.p) / math.log(1 + params.capacity)


def cb_lower_bound_order(params: LogPParams) -> float:
    """``L log p / log(1 + ceil(L/G))``: Proposition 1's lower bound without its constant."""
    return params.L * math.log(params.p) / math.log(1 + params.capacity)


# --------------------------------------------------------------- sorting and eq. (2), section 4.2

def batcher_depth_pow2(p: int) -> int:
    """Depth ``k(k+1)/2`` of Batcher's odd-even merge sorting network on ``p = 2^k`` wires."""
    k = int(p).bit_length() - 1
    if 1 << k != p:
        raise ConfigError(f"batcher_depth_pow2 needs a power of two; got p = {p}")
    return k * (k + 1) // 2


def t_sort_network(params: LogPParams, r: int, depth: int, local_sort_steps: int,
                   merge_steps: int) -> float:
    """Time of a sorting network on p processors with r keys each, costed as in section 4.2.

    ``local_sort_steps + depth * (2o + G(r-1) + L + merge_steps)``: an initial local sort, then
    per layer of the network one exchange of r keys between partners (``r`` 1-relations,
    ``2o + G(r-1) + L``) followed by a local merge-split. The paper writes this for AKS
    (``depth = O(log p)``); AKS's constants make it unbuildable, so netsim-fast evaluates the
    same expression with the depth of the network it actually uses (Batcher's odd-even merge,
    ``depth = log p (log p + 1) / 2``).
    """
    per_layer = 2 * params.o + params.G * (r - 1) + params.L + merge_steps
    return float(local_sort_steps + depth * per_layer)


def eq2_bound(params: LogPParams, h: int, t_sort: float, t_cb: float | None = None) -> float:
    """Eq. (2): ``T_rout(h) <= 2 T_CB + T_sort(r, p) + 2o + (G + 2) h + L``.

    Parameters
    ----------
    h : int
        ``max(r, s)`` of the relation.
    t_sort : float
        ``T_sort(r, p)`` of the sorting scheme used (``t_sort_network``).
    t_cb : float, optional
        CB time; the paper's bound ``cb_bound(params)`` by default.
    """
    t_cb = cb_bound(params) if t_cb is None else t_cb
    return 2.0 * t_cb + t_sort + 2 * params.o + (params.G + 2) * h + params.L


def t_seq_sort(r: int, p: int) -> float:
    """Radixsort of r keys in ``[0, p]``: ``r min(log r, ceil(log p / log r))`` (section 4.2)."""
    if r <= 1:
        return float(r)
    return r * min(math.log2(r), math.ceil(math.log(p) / math.log(r)))


def slowdown_S(params: LogPParams, h: int) -> float:
    """Theorem 2's slowdown ``S(L, G, p, h)`` as written after eq. (2) (section 4.2)."""
    L, G, p = params.L, params.G, params.p
    first = L * math.log(p) / ((G * h + L) * math.log(1 + params.capacity))
    cubesort = (math.log(p * h) / math.log(h + 1)) ** 2 * math.ceil(t_seq_sort(h, p) / (G * h + L))
    return first + min(math.log(p), cubesort)


def theorem1_slowdown(g: float, l: float, params: LogPParams) -> float:  # noqa: E741
    """``1 + g/G + l/L``: the order of Theorem 1's slowdown of stall-free LogP on BSP."""
    return 1.0 + g / params.G + l / params.L


# ----------------------------------------------------------- randomized routing, Theorem 3

def n_batches(h: int, cap: int, beta: float) -> int:
    """``R = ceil((1 + beta) h / ceil(L/G))``, the number of batches (rounds) of Theorem 3."""
    if beta <= 0:
        raise ConfigError(f"beta must be > 0 (Theorem 3 takes beta >= 1); got {beta}")
    return max(1, math.ceil((1.0 + beta) * h / cap))


def randomized_time(params: LogPParams, R: int) -> int:
    """``2 (L + o) R``: the time of the R rounds of the randomized protocol (Theorem 3)."""
    return 2 * (params.L + params.o) * R


def chernoff_tail(cap: int, beta: float) -> float:
    """``(e^beta / (1+beta)^(1+beta))^(cap/(1+beta))``: bound on ``P(X_r(j) > ceil(L/G))``.

    The mean of ``X_r(j)`` is ``h/R``; with ``R = (1+beta) h / cap`` exactly it equals
    ``cap/(1+beta)`` (section 4.3). Computed in logarithms to stay finite.
    """
    log_tail = (cap / (1.0 + beta)) * (beta - (1.0 + beta) * math.log1p(beta))
    return math.exp(log_tail)


def chernoff_failure_bound(p: int, R: int, cap: int, beta: float) -> float:
    """``min(1, 2 R p tail)``: union bound on the probability that the protocol stalls or
    leaves messages for its step 3 (section 4.3)."""
    return min(1.0, 2.0 * R * p * chernoff_tail(cap, beta))


def binomial_failure_bound(p: int, h: int, R: int, cap: int) -> float:
    """The same union bound with the exact binomial tail: ``min(1, 2 R p P(Bin(h, 1/R) > cap))``.

    Tighter than Chernoff; shown beside it to separate the looseness of the Chernoff step from
    that of the union bound. Assumes every processor sends and receives exactly h messages.
    """
    from scipy.stats import binom

    return min(1.0, 2.0 * R * p * float(binom.sf(cap, h, 1.0 / R)))


def theorem3_beta(c1: float, c2: float) -> float:
    """``beta = e^(2(c2+3)/c1) - 1`` chosen in the proof of Theorem 3."""
    return math.exp(2.0 * (c2 + 3.0) / c1) - 1.0


def theorem3_alpha(c1: float, c2: float) -> float:
    """``alpha = 4 (1 + beta) = 4 e^(2(c2+3)/c1)``: the time is ``alpha G h``.

    The extracted statement of Theorem 3 reads ``4 e 2^((c2+3)/c1)``, a garbling of this
    expression; the proof's last line (``4(1+beta)Gh``) with its choice of beta gives the value
    here.
    """
    return 4.0 * (1.0 + theorem3_beta(c1, c2))


def theorem3_success_probability(p: int, c2: float) -> float:
    """``1 - p^(-c2)`` (the proof's display drops the minus sign of the exponent)."""
    return 1.0 - float(p) ** (-c2)


def theorem3_applies(params: LogPParams, h: int, c1: float) -> bool:
    """Theorem 3's hypotheses: ``ceil(L/G) <= h <= p`` and ``ceil(L/G) >= c1 ln p``."""
    cap = params.capacity
    return cap <= h <= params.p and cap >= c1 * math.log(params.p)


def stalling_worst_case(params: LogPParams, h: int) -> int:
    """``G h^2``: the paper's worst case for an h-relation under the stalling rule (section 4.3)."""
    return params.G * h * h

