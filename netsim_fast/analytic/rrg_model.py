"""Analytic model of random r-regular graphs and of store-and-forward traffic on them.

Bieniek, Nölle, Schreiber, "A Message Passing Model for Communication on Random Regular
Graphs" (papers/000). Two parts:

* the *path-tree model* (section II): expected number of nodes per distance, the distance
  distribution ``P_i(D)``, the expected distance ``E^p``, the diameter estimate of eq. (7) and
  the asymptotic diameter bounds of Bollobás quoted as Theorems 1-2;
* the *message-passing model* (section III): messages grouped by remaining distance, updated
  once per synchronous cycle by eqs. (11) SRPF, (12) LRPF and (15) FIFO, until (almost) every
  message is delivered.

Reconstruction of the equations lost in the text extraction
-----------------------------------------------------------
Equations (2), (3), (5), (6) and the hypotheses of Theorem 1 did not survive. They are
rebuilt as follows (``q = 1 - 1/(N-1)``, ``S_i = K_1 + ... + K_i``, ``S_0 = 0``):

(2) *Level sizes with the cycle correction.* A successor on level ``i`` closes a cycle with
    probability ``(i-1)/(N-1)`` (text after eq. 1), so only the fraction ``1-(i-1)/(N-1)`` of
    the ``(r-1)`` successors of every level-``(i-1)`` node is new::

        K_0 = 1,  K_1 = r,  K_i = (r-1) K_{i-1} (1 - (i-1)/(N-1))   (i >= 2).

    ``K_1 = r`` is the general formula's value at ``i = 1`` with ``r`` root successors.
(3) *Occurrences of the destination on level i.* Each of the ``K_i`` nodes is the
    destination ``D`` independently with probability ``1/(N-1)``: the binomial
    ``BV_i(k) = C(K_i, k) (1/(N-1))^k q^(K_i-k)``; eq. (4) uses ``BV_i(0) = q^{K_i}``
    (non-integer ``K_i`` enter through ``q**K_i``).
(5) *Distance distribution.* ``D`` is at distance ``i`` iff it is on no level ``< i`` and on
    level ``i``::

        P_0(D) = 1/N,   P_i(D) = (1 - 1/N) q^{S_{i-1}} (1 - q^{K_i})   (i >= 1).

    This is the only form that makes the middle line of eq. (7) (two telescoping sums of
    ``q^{S_{i-1}}``) equal to ``sum_{i<=d} P_i(D)``; the test suite checks the identity.
(6) *Expected distance* ``E^p = sum_i i P_i(D)`` over ``i = 0..N-1`` (source included, as
    the paper writes it). ``average_distance`` below is the same sum over ``i >= 1``
    divided by ``sum_{i>=1} P_i``: the mean over ordered pairs of distinct nodes, which is
    what networkx and the simulator measure.
Theorem 1 (Bollobás & Fernandez de la Vega 1982, Bollobás *Random Graphs* 1985): for fixed
    ``r >= 3`` and ``eps > 0``, if ``d >= 3`` is a natural number with
    ``(r-1)^{d-1} >= (2+eps) r n log n`` then almost every r-regular graph of order ``n`` has
    diameter at most ``d``. ``log`` is the natural logarithm.

The distribution misses the mass ``(1-1/N) q^{S_{N-1}}`` ("the chosen node is not in the
graph at all", after eq. 7); it is below 1e-12 for ``r = 4`` from ``N = 16`` on.

Conventions of netsim-fast
--------------------------
* ``--messages m`` is per node; the model's ``M = N m`` (``M = N (N-1)`` for total exchange).
* The simulated workloads never address a node to itself, so by default the model starts
  with ``m_0 = 0`` and spreads ``M`` over ``i >= 1`` in proportion to ``P_i``; the
  paper-literal start ``m_i^0 = M P_i(D)`` (``M/N`` delivered at ``t = 0``) is
  ``include_self=True``.
* Stopping rule for "m_0 close to M": the predicted cycle count is the first ``t`` with
  ``sum_{i>=1} m_i^t <= remaining`` (default 0.5: fewer than half a message expected in
  flight). With ``include_self`` the messages never sent count as delivered, as in the paper.
"""

from __future__ import annotations

import math

import numpy as np

from netsim_fast.errors import ConfigError

POLICIES = ("fifo", "srpf", "lrpf")
WORKLOADS = ("random", "total-exchange")

# Underflow bound: exp(-745) is the smallest positive double; beyond it every P_i is 0.
_LOG_UNDERFLOW = 745.0


def _check_graph(n_nodes: int, degree: int) -> None:
    if int(n_nodes) != n_nodes or n_nodes < 3:
        raise ConfigError(f"n_nodes must be an integer >= 3; got {n_nodes!r}")
    if int(degree) != degree or degree < 2 or degree >= n_nodes:
        raise ConfigError(
            f"degree must be an integer with 2 <= degree < n_nodes ({n_nodes}); got {degree!r}"
        )
    if (n_nodes * degree) % 2:
        raise ConfigError(
            f"an r-regular graph needs n_nodes * degree even; got n_nodes={n_nodes}, degree={degree}"
        )


def walk_tree_sizes(degree: int, levels: int) -> np.ndarray:
    """Level sizes of the walk tree, eq. (1): ``K~_0 = 1``, ``K~_i = r (r-1)^{i-1}``.

    Returns
    -------
    float64[levels]
    """
    i = np.arange(levels, dtype=np.float64)
    sizes = degree * np.power(float(degree - 1), np.maximum(i - 1, 0))
    sizes[0] = 1.0
    return sizes


def level_sizes(n_nodes: int, degree: int, *, cycle_correction: bool = True) -> np.ndarray:
    """Expected level sizes ``K_i`` of the path tree, reconstructed eq. (2).

    Levels whose contribution to the distance distribution underflows are cut off, so the
    array is usually much shorter than ``N``.

    Returns
    -------
    float64[L], ``L <= N``: ``K_0 .. K_{L-1}``.

    Notes
    -----
    Bieniek et al. (papers/000), section II, eqs. (1)-(2) and the cycle-correction paragraph.
    ``cycle_correction=False`` gives the walk tree of eq. (1).
    """
    _check_graph(n_nodes, degree)
    log_q = -math.log1p(-1.0 / (n_nodes - 1))  # -log q > 0
    sizes = [1.0]
    total = 0.0  # S_i
    k = 1.0
    for i in range(1, n_nodes):
        if i == 1:
            k = float(degree)
        else:
            k *= degree - 1
            if cycle_correction:
                k *= 1.0 - (i - 1) / (n_nodes - 1)
        sizes.append(k)
        total += k
        if total * log_q > _LOG_UNDERFLOW or k <= 0.0:
            break
    return np.asarray(sizes, dtype=np.float64)


def distance_distribution(
    n_nodes: int, degree: int, *, cycle_correction: bool = True
) -> np.ndarray:
    """Probability ``P_i(D)`` that a random node ``D`` is at distance ``i`` of the root.

    Returns
    -------
    float64[L]: ``P_0 .. P_{L-1}`` with ``P_0 = 1/N``; the sum is 1 up to the mass
    ``(1-1/N) q^{S_{N-1}}`` of the model's "node not in the tree" (below 1e-12 for r >= 4,
    N >= 16).

    Notes
    -----
    Bieniek et al. (papers/000), eqs. (4)-(5) (eq. 5 reconstructed from eq. 7, see the
    module docstring).
    """
    k = level_sizes(n_nodes, degree, cycle_correction=cycle_correction)
    log_q = math.log1p(-1.0 / (n_nodes - 1))
    s = np.concatenate([[0.0], np.cumsum(k[1:])])  # S_0 .. S_{L-1}
    not_before = np.exp(s[:-1] * log_q)  # q^{S_{i-1}}, i = 1..L-1
    hit = -np.expm1(k[1:] * log_q)  # 1 - q^{K_i}
    p = np.empty(k.size, dtype=np.float64)
    p[0] = 1.0 / n_nodes
    p[1:] = (1.0 - 1.0 / n_nodes) * not_before * hit
    return p


def missing_mass(n_nodes: int, degree: int, *, cycle_correction: bool = True) -> float:
    """``1 - sum_i P_i(D)``: the model's probability that ``D`` is in no level (after eq. 7)."""
    return tail_probability(n_nodes, degree, n_nodes - 1, cycle_correction=cycle_correction)


def tail_probability(
    n_nodes: int, degree: int, d: int, *, cycle_correction: bool = True
) -> float:
    """``1 - P_{<=d}`` of eq. (7), closed form ``(1-1/N) q^{S_d}``."""
    k = level_sizes(n_nodes, degree, cycle_correction=cycle_correction)
    # levels cut off by level_sizes only add to S_d, whose exponential already underflowed
    s_d = float(np.sum(k[1 : d + 1]))
    return (1.0 - 1.0 / n_nodes) * math.exp(s_d * math.log1p(-1.0 / (n_nodes - 1)))


def expected_distance(n_nodes: int, degree: int, *, cycle_correction: bool = True) -> float:
    """``E^p = sum_i i P_i(D)``, eq. (6) as the paper writes it (the root's 0 included)."""
    p = distance_distribution(n_nodes, degree, cycle_correction=cycle_correction)
    return float(np.dot(np.arange(p.size), p))


def average_distance(n_nodes: int, degree: int, *, cycle_correction: bool = True) -> float:
    """Mean distance between two *distinct* nodes: ``sum_{i>=1} i P_i / sum_{i>=1} P_i``."""
    p = distance_distribution(n_nodes, degree, cycle_correction=cycle_correction)
    return float(np.dot(np.arange(1, p.size), p[1:]) / p[1:].sum())


def diameter_estimate(
    n_nodes: int, degree: int, tolerance: float = 1e-6, *, cycle_correction: bool = True
) -> int:
    """Smallest ``d`` with ``1 - P_{<=d} <= tolerance``, eq. (7).

    Returns ``N - 1`` when even ``d = N - 1`` leaves more than ``tolerance`` (tiny graphs).
    """
    if not 0.0 < tolerance < 1.0:
        raise ConfigError(f"diameter tolerance must lie in (0, 1); got {tolerance!r}")
    k = level_sizes(n_nodes, degree, cycle_correction=cycle_correction)
    log_q = math.log1p(-1.0 / (n_nodes - 1))
    s = np.cumsum(k[1:])  # S_1 .. S_{L-1}
    tail = (1.0 - 1.0 / n_nodes) * np.exp(s * log_q)
    ok = np.nonzero(tail <= tolerance)[0]
    if ok.size == 0:
        return n_nodes - 1
    return int(ok[0]) + 1


def theorem1_upper(n_nodes: int, degree: int, eps: float = 0.0) -> int:
    """Asymptotic upper bound on the diameter, Theorem 1 (Bollobás).

    The smallest natural ``d >= 3`` with ``(r-1)^{d-1} >= (2+eps) r n ln n``; with the default
    ``eps = 0`` the inequality is strict, i.e. the limit of the bound as ``eps -> 0+``.
    """
    if degree < 3:
        raise ConfigError(f"Theorem 1 needs degree >= 3; got {degree}")
    rhs = math.log((2.0 + eps) * degree * n_nodes * math.log(n_nodes))
    base = math.log(degree - 1)
    d = 3
    while True:
        lhs = (d - 1) * base
        if lhs > rhs or (eps > 0.0 and lhs >= rhs):
            return d
        d += 1


def theorem2_lower(n_nodes: int, degree: int) -> int:
    """Asymptotic lower bound on the diameter, Theorem 2 (Bollobás):

    ``floor(log_{r-1} n) + floor(log_{r-1} log n - log_{r-1}(6r/(r-2))) + 1``.
    """
    if degree < 3:
        raise ConfigError(f"Theorem 2 needs degree >= 3; got {degree}")
    b = math.log(degree - 1)
    first = math.floor(math.log(n_nodes) / b + 1e-12)
    second = math.floor((math.log(math.log(n_nodes)) - math.log(6.0 * degree / (degree - 2))) / b)
    return int(first + second + 1)


# ---------------------------------------------------------------------------------------
# Message-passing model (section III)
# ---------------------------------------------------------------------------------------


def initial_groups(
    n_nodes: int, degree: int, total_messages: float, *, include_self: bool = False
) -> np.ndarray:
    """``m_i^0``: the ``M`` messages grouped by distance to their destination.

    Returns
    -------
    float64[L]: ``m_0^0 .. m_{L-1}^0``. Paper-literal (``include_self``): ``M P_i(D)``.
    Default: ``m_0^0 = 0`` and ``m_i^0 = M P_i / sum_{j>=1} P_j``.
    """
    p = distance_distribution(n_nodes, degree)
    if include_self:
        return total_messages * p
    m = np.zeros_like(p)
    m[1:] = total_messages * p[1:] / p[1:].sum()
    return m


def model_step(m: np.ndarray, n_links: int, policy: str) -> np.ndarray:
    """One synchronous cycle of the message-passing model: ``m^t -> m^{t+1}``.

    ``sent_i`` messages of group ``i >= 1`` cross a link and join group ``i-1``:

    * SRPF, eq. (11): ``sent_i = rN P_i^T prod_{k<i} (1 - P_k^T)``;
    * LRPF, eq. (12): ``sent_i = rN P_i^T prod_{k>i} (1 - P_k^T)``;
    * FIFO, eq. (15): ``sent_i = rN P^T m_i / sum_{k>=1} m_k``;

    with ``P_i^T = 1 - (1 - 1/rN)^{m_i}`` (eq. 10) and ``P^T`` of eq. (14).

    ``sent_i`` is capped at ``m_i``: for a fractional group ``m_i < 1`` the binomial of
    eq. (10) gives ``rN P_i^T > m_i`` (``1 - (1-x)^m`` is concave in ``m``), which would
    drive the group negative in the tail of the iteration.

    Parameters
    ----------
    m : float64[L]
        Messages per remaining distance ``0 .. L-1``.
    n_links : int
        Directed links ``rN`` (the paper's communication facilities).
    policy : {"fifo", "srpf", "lrpf"}
    """
    log_e = math.log1p(-1.0 / n_links)
    waiting = m[1:]
    new = m.copy()
    if policy == "fifo":
        total = waiting.sum()
        if total <= 0.0:
            return new
        p_t = -math.expm1(total * log_e)
        sent = min(n_links * p_t / total, 1.0) * waiting
    else:
        p_t = -np.expm1(waiting * log_e)  # P_i^T, i = 1..L-1
        empty = 1.0 - p_t
        if policy == "srpf":
            before = np.concatenate([[1.0], np.cumprod(empty)[:-1]])  # prod_{k<i}
        elif policy == "lrpf":
            after = np.cumprod(empty[::-1])[::-1]  # prod_{k>=i}
            before = np.concatenate([after[1:], [1.0]])  # prod_{k>i}
        else:
            raise ConfigError(f"model policy must be one of {', '.join(POLICIES)}; got {policy!r}")
        sent = np.minimum(n_links * p_t * before, waiting)
    new[1:] -= sent
    new[:-1] += sent
    return new


def iterate_model(
    m0: np.ndarray,
    n_links: int,
    policy: str,
    *,
    remaining: float = 0.5,
    max_cycles: int | None = None,
) -> tuple[int, np.ndarray]:
    """Apply :func:`model_step` until at most ``remaining`` messages are in flight.

    Returns
    -------
    cycles : int
        First ``t`` with ``sum_{i>=1} m_i^t <= remaining`` (the stopping rule).
    in_flight : float64[cycles + 1]
        ``sum_{i>=1} m_i^t`` for ``t = 0 .. cycles``.
    """
    if policy not in POLICIES:
        raise ConfigError(f"model policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    if remaining <= 0.0:
        raise ConfigError(f"remaining (stopping threshold) must be > 0; got {remaining!r}")
    m = np.asarray(m0, dtype=np.float64).copy()
    if max_cycles is None:
        # every non-empty FIFO sends each cycle: the load bound M L / rN plus the depth is ample
        max_cycles = int(10 * (m.sum() * m.size / n_links + m.size)) + 1000
    history = [float(m[1:].sum())]
    t = 0
    while history[-1] > remaining:
        if t >= max_cycles:
            raise ConfigError(
                f"the message-passing model did not reach {remaining} messages in flight "
                f"within {max_cycles} cycles; raise max_cycles"
            )
        m = model_step(m, n_links, policy)
        t += 1
        history.append(float(m[1:].sum()))
    return t, np.asarray(history)


def total_messages(n_nodes: int, messages: float, workload: str = "random") -> float:
    """The model's ``M``: ``N m`` for ``random``, ``N (N-1)`` for ``total-exchange``."""
    if workload == "random":
        if messages < 0:
            raise ConfigError(f"messages per node must be >= 0; got {messages!r}")
        return float(n_nodes) * float(messages)
    if workload == "total-exchange":
        return float(n_nodes) * (n_nodes - 1)
    raise ConfigError(f"model workload must be one of {', '.join(WORKLOADS)}; got {workload!r}")


def predict(
    n_nodes: int,
    degree: int = 4,
    messages: float = 1.0,
    *,
    policy: str = "fifo",
    workload: str = "random",
    include_self: bool = False,
    tolerance: float = 1e-6,
    remaining: float = 0.5,
    max_levels: int | None = None,
) -> dict:
    """Everything the model says about one configuration, as a JSON-ready dict.

    Parameters
    ----------
    n_nodes, degree : int
        ``N`` and ``r`` of the random regular graph.
    messages : float
        Messages per node (``--messages``); ignored for ``workload="total-exchange"``.
    policy : {"fifo", "srpf", "lrpf"}
    workload : {"random", "total-exchange"}
    include_self : bool
        Paper-literal start ``m_i^0 = M P_i(D)`` (see the module docstring).
    tolerance : float
        ``1 - P_{<=d}`` limit of the eq. (7) diameter estimate.
    remaining : float
        Stopping threshold of the message-passing iteration.
    max_levels : int, optional
        Truncate ``distance_distribution`` to this many entries (default: drop trailing
        levels whose expected node count is below 1e-9).

    Returns
    -------
    dict with ``cycles`` (predicted), ``average_distance`` (distinct pairs),
    ``expected_distance`` (E^p, eq. 6), ``distance_distribution`` (``N P_i``, i = 0, 1, ..),
    ``diameter_estimate``, ``diameter_tolerance``, ``theorem1_upper``, ``theorem2_lower``,
    ``total_messages``, ``in_flight`` (per cycle), and the inputs.
    """
    _check_graph(n_nodes, degree)
    m_total = total_messages(n_nodes, messages, workload)
    p = distance_distribution(n_nodes, degree)
    counts = n_nodes * p
    keep = int(np.nonzero(counts >= 1e-9)[0][-1]) + 1
    if max_levels is not None:
        keep = min(keep, int(max_levels))
    m0 = initial_groups(n_nodes, degree, m_total, include_self=include_self)
    cycles, in_flight = iterate_model(m0, n_nodes * degree, policy, remaining=remaining)
    return {
        "model": "rrg",
        "n_nodes": int(n_nodes),
        "degree": int(degree),
        "workload": workload,
        "messages_per_node": float(messages) if workload == "random" else float(n_nodes - 1),
        "policy": policy,
        "include_self": bool(include_self),
        "total_messages": m_total,
        "cycles": int(cycles),
        "stopping_rule": f"first t with sum_(i>=1) m_i^t <= {remaining}",
        "in_flight": in_flight.tolist(),
        "average_distance": average_distance(n_nodes, degree),
        "expected_distance": float(np.dot(np.arange(p.size), p)),
        "distance_distribution": counts[:keep].tolist(),
        "diameter_estimate": diameter_estimate(n_nodes, degree, tolerance),
        "diameter_tolerance": float(tolerance),
        "theorem1_upper": theorem1_upper(n_nodes, degree) if degree >= 3 else None,
        "theorem2_lower": theorem2_lower(n_nodes, degree) if degree >= 3 else None,
    }
