"""BMG routing quality: overheads against BFS distances, and the equivalence-class proof.

Angskun et al. (papers/001) judge a router on an ``n``-node BMG by its average-distance overhead
``(d_alg / d_opt - 1) * 100`` (eq. (2) averages over all ordered pairs) and its diameter overhead
``D_alg - D_opt`` in hops (Figs. 3, 4, 6, 9, 10), and summarise 16..4096 nodes by the mean and the
maximum over n (Tables 1 and 2).

Symmetry makes this cheap. The BMG is circulant and every translation-invariant rule picks its
next hop from ``d = (dst - cur) mod n`` alone, so one BFS from node 0 gives all shortest
distances, one next hop per ``d`` gives a successor map ``d -> d'``, and the routed length of
every ``d`` follows by memoised recursion: O(n) next-hop calls per n instead of O(n**2) routes.
The routed lengths come from ``routing.bmg.bmg_next_hop`` itself, the function engines call.
The two ``*-linear`` rules are not translation-invariant and are evaluated over all pairs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.errors import ConfigError, SimulationError
from netsim_fast.routing import bmg as r
from netsim_fast.routing.bmg_bfs import bfs_from_zero
from netsim_fast.routing.bmg_bits import (
    BIG, candidate_m, estimate, largest_term, n_candidates, split_rep, split_weight,
)
from netsim_fast.routing.bmg_links import top_exp

MEASURES = ("estimate", "route")
MAX_LINEAR_NODES = 1024
"""Largest n for the all-pairs evaluation of the ``*-linear`` rules (O(n**2 * degree) per n)."""
MAX_RANGE_NODES = 1 << 16
"""Largest n for an overhead or proof range (each n costs one O(n) BFS and O(n) next hops)."""


@njit(**JIT)
def chain_lengths(succ, target):
    """Hops from every node to ``target`` following ``succ``, by memoised recursion.

    Parameters
    ----------
    succ : int64[n]
        Successor of every node (``succ[target]`` is ignored).
    target : int
        Where every chain should end.

    Returns
    -------
    int32[n]
        Hop counts; -1 where the chain does not reach ``target`` within ``n`` steps (a loop).
    """
    n = succ.shape[0]
    length = np.full(n, -2, np.int32)
    length[target] = 0
    stack = np.empty(n + 1, np.int64)
    for x in range(n):
        top = 0
        y = x
        while length[y] == -2 and top <= n:
            stack[top] = y
            top += 1
            y = succ[y]
        base = length[y] if length[y] != -2 else -1
        for t in range(top - 1, -1, -1):
            if base >= 0:
                base += 1
            length[stack[t]] = base
    return length


@njit(**JIT)
def route_lengths(code, n, loops, table):
    """Routed hop count of every clockwise distance ``d`` (int32[n], -1 where the rule loops)."""
    succ = np.empty(n, np.int64)
    for d in range(n):
        succ[d] = (d - r.bmg_next_hop(code, n, loops, 0, d, table)) % n
    return chain_lengths(succ, 0)


@njit(**JIT)
def estimates(code, n, loops):
    """Hop estimate at the source of every clockwise distance (int32[n]) for an estimating code."""
    use_cbe = code == r.CBE or code == r.EQUICLASS or code == r.CBE_NBR
    eff_loops = loops if code == r.EQUICLASS else 0
    out = np.empty(n, np.int32)
    for d in range(n):
        out[d] = estimate(n, d, eff_loops, use_cbe)
    return out


@njit(**JIT)
def _all_pairs(code, n, loops):
    """Sum and maximum of routed lengths over all ordered pairs; sum -1 if a route loops."""
    table = np.zeros((0, 0), np.int32)
    succ = np.empty(n, np.int64)
    total = 0
    longest = 0
    for dst in range(n):
        for cur in range(n):
            succ[cur] = r.bmg_next_hop(code, n, loops, cur, dst, table)
        length = chain_lengths(succ, dst)
        for cur in range(n):
            if length[cur] < 0:
                return -1, 0
            total += length[cur]
            longest = max(longest, length[cur])
    return total, longest


@njit(**JIT)
def _series_kernel(code, n_from, n_to, loops, use_estimate):
    """Per-n averages and diameters of the optimal and the routed (or estimated) lengths."""
    m = n_to - n_from + 1
    avg_opt = np.empty(m, np.float64)
    avg_alg = np.empty(m, np.float64)
    diam_opt = np.empty(m, np.int32)
    diam_alg = np.empty(m, np.int32)
    looped = np.zeros(m, np.int64)
    for i in range(m):
        n = n_from + i
        dist, first = bfs_from_zero(n)
        avg_opt[i] = dist.sum() / (n - 1)
        diam_opt[i] = dist.max()
        if code == r.BASIC_LINEAR or code == r.VARIANT_LINEAR:
            total, longest = _all_pairs(code, n, loops)
            looped[i] = 1 if total < 0 else 0
            avg_alg[i] = total / (n * (n - 1))
            diam_alg[i] = longest
            continue
        if use_estimate:
            lengths = estimates(code, n, loops)
        elif code == r.BFS:
            lengths = route_lengths(code, n, loops, first.reshape(1, n))
        else:
            lengths = route_lengths(code, n, loops, np.zeros((0, 0), np.int32))
        looped[i] = (lengths < 0).sum()
        avg_alg[i] = lengths.sum() / (n - 1)
        diam_alg[i] = lengths.max()
    return avg_opt, avg_alg, diam_opt, diam_alg, looped


def _check_range(n_from: int, n_to: int) -> None:
    for label, n in (("nodes-from", n_from), ("nodes-to", n_to)):
        if not r.MIN_NODES <= n <= MAX_RANGE_NODES:
            raise ConfigError(f"{label} must be between {r.MIN_NODES} and {MAX_RANGE_NODES}; got {n}.")
    if n_to < n_from:
        raise ConfigError(f"nodes-to must be >= nodes-from (the range is inclusive); got {n_from}..{n_to}.")


def resolve_measure(code: int, measure: str | None) -> str:
    """``estimate`` by default for estimating rules, ``route`` otherwise; ``ConfigError`` if impossible."""
    if measure is None:
        return "estimate" if code in r.ESTIMATING else "route"
    if measure not in MEASURES:
        raise ConfigError(f"measure must be one of {', '.join(MEASURES)}; got '{measure}'.")
    if measure == "estimate" and code not in r.ESTIMATING:
        names = ", ".join(r.NAMES[c] for c in r.ESTIMATING)
        raise ConfigError(f"measure 'estimate' needs a hop-estimating routing ({names}); "
                          f"'{r.NAMES[code]}' has none, use --measure route.")
    return measure


def overhead_series(routing: str, n_from: int = 16, n_to: int = 4096, *, loops: int = 4,
                    measure: str | None = None) -> dict[str, np.ndarray]:
    """Average-distance and diameter overhead of a routing for every n in ``n_from..n_to``.

    Parameters
    ----------
    routing : str
        A name of ``routing.bmg.NAMES``.
    n_from, n_to : int
        Inclusive range of node counts.
    loops : int
        Loops of ``bmg-equiclass``.
    measure : {"estimate", "route", None}
        Hop estimate at the source or length of the route the rule produces; None picks
        ``estimate`` for the estimating rules (what the paper's tables report) and ``route`` else.

    Returns
    -------
    dict
        ``n`` (int64[m]); ``avg_opt``, ``avg_alg`` (float64[m], eq. (2)); ``diam_opt``,
        ``diam_alg`` (int32[m]); ``avg_overhead_pct`` (float64[m]); ``diam_overhead`` (int32[m]).
    """
    code = r.routing_code(routing)
    r.check_loops(loops)
    _check_range(n_from, n_to)
    measure = resolve_measure(code, measure)
    if code in (r.BASIC_LINEAR, r.VARIANT_LINEAR) and n_to > MAX_LINEAR_NODES:
        raise ConfigError(f"routing '{routing}' depends on absolute IDs, so its overhead needs all n**2 "
                          f"pairs: nodes-to must be <= {MAX_LINEAR_NODES}; got {n_to}.")
    avg_opt, avg_alg, diam_opt, diam_alg, looped = _series_kernel(
        code, n_from, n_to, loops, measure == "estimate")
    if looped.any():
        n_bad = n_from + int(np.flatnonzero(looped)[0])
        raise SimulationError(f"routing '{routing}' loops on the {n_bad}-node BMG (a route exceeded "
                              f"{n_bad} hops).")
    return {
        "n": np.arange(n_from, n_to + 1, dtype=np.int64),
        "avg_opt": avg_opt,
        "avg_alg": avg_alg,
        "diam_opt": diam_opt,
        "diam_alg": diam_alg,
        "avg_overhead_pct": (avg_alg / avg_opt - 1.0) * 100.0,
        "diam_overhead": diam_alg - diam_opt,
    }


def overhead_summary(series: dict[str, np.ndarray]) -> dict[str, float | int]:
    """Tables 1-2 of papers/001 for one routing: mean and maximum over n of both overheads."""
    pct = series["avg_overhead_pct"]
    hops = series["diam_overhead"]
    optimal = (series["avg_alg"] == series["avg_opt"]) & (hops == 0)
    return {
        "sizes": int(pct.size),
        "avg_distance_overhead_pct_mean": float(pct.mean()),
        "avg_distance_overhead_pct_max": float(pct.max()),
        "avg_distance_overhead_worst_n": int(series["n"][np.argmax(pct)]),
        "diameter_overhead_mean": float(hops.mean()),
        "diameter_overhead_max": int(hops.max()),
        "optimal_sizes": int(optimal.sum()),
    }


@njit(**JIT)
def _proof_kernel(n_from, n_to, loops, max_loops, max_examples):
    """Per n: routes of ``bmg_next_hop`` at ``loops`` against BFS, and the least optimal loop count."""
    m = n_to - n_from + 1
    optimal = np.zeros(m, np.bool_)
    min_loops = np.full(m, -1, np.int32)
    min_loops_estimate = np.full(m, -1, np.int32)
    examples = np.zeros((max_examples, 5), np.int64)
    n_examples = 0
    table = np.zeros((0, 0), np.int32)
    for i in range(m):
        n = n_from + i
        k = top_exp(n)
        dist = bfs_from_zero(n)[0]
        # 1. the engine-facing kernel at the requested loops
        lengths = route_lengths(r.EQUICLASS, n, loops, table)
        ok = True
        for d in range(n):
            if lengths[d] != dist[d]:
                ok = False
                if n_examples < max_examples:
                    examples[n_examples, 0] = n
                    examples[n_examples, 1] = d
                    examples[n_examples, 2] = dist[d]
                    examples[n_examples, 3] = estimate(n, d, loops, True)
                    examples[n_examples, 4] = lengths[d]
                    n_examples += 1
        optimal[i] = ok
        # 2. every loop count in turn: the targets of l loops are a prefix of one sequence, so a
        #    running minimum over it, extended by the new targets of each level, gives that
        #    level's estimate and jump (the same first-minimum rule as estimate_and_jump)
        best = np.full(n, BIG, np.int64)
        best_jump = np.zeros(n, np.int64)
        succ = np.empty(n, np.int64)
        succ[0] = 0
        for level in range(max_loops + 1):
            lo = 0 if level == 0 else n_candidates(level - 1)
            for d in range(1, n):
                for j in range(lo, n_candidates(level)):
                    t = d + candidate_m(j) * n
                    w = split_weight(t, k, True)
                    if w < best[d]:
                        best[d] = w
                        _, copies, plus, minus = split_rep(t, k, True, False)
                        s = largest_term(k, copies, plus, minus)
                        best_jump[d] = -s if t < 0 else s
                succ[d] = (d - best_jump[d]) % n
            exact = True
            for d in range(1, n):
                if best[d] != dist[d]:
                    exact = False
                    break
            if exact and min_loops_estimate[i] < 0:
                min_loops_estimate[i] = level
            routed = chain_lengths(succ, 0)
            same = True
            for d in range(n):
                if routed[d] != dist[d]:
                    same = False
                    break
            if same and min_loops[i] < 0:
                min_loops[i] = level
            if min_loops[i] >= 0 and min_loops_estimate[i] >= 0:
                break
    return optimal, min_loops, min_loops_estimate, examples[:n_examples]


def equiclass_proof(n_from: int = 16, n_to: int = 4096, *, loops: int = 4, max_loops: int = 8,
                    max_examples: int = 100) -> dict:
    """Proof by exhaustion that ``bmg-equiclass`` with ``loops`` loops routes on shortest paths.

    For every n in the range and every distance d, the route of ``bmg_next_hop`` is compared with
    the BFS distance. Also finds, per n, the least loop count whose routes (and whose estimates)
    are all shortest, searching up to ``max_loops``.

    Returns
    -------
    dict
        ``n`` (int64[m]); ``optimal`` (bool[m], at ``loops``); ``min_loops`` and
        ``min_loops_estimate`` (int32[m], -1 if above ``max_loops``); ``counterexamples``: up to
        ``max_examples`` rows ``(n, d, shortest, estimate, routed)`` where routed != shortest.
    """
    r.check_loops(loops)
    r.check_loops(max_loops)
    _check_range(n_from, n_to)
    optimal, min_loops, min_loops_est, examples = _proof_kernel(n_from, n_to, loops, max_loops,
                                                                max_examples)
    return {
        "n": np.arange(n_from, n_to + 1, dtype=np.int64),
        "optimal": optimal,
        "min_loops": min_loops,
        "min_loops_estimate": min_loops_est,
        "counterexamples": examples,
    }


def distances(n: int) -> np.ndarray:
    """Shortest hop count of every clockwise distance on an ``n``-node BMG (int32[n], BFS)."""
    r.check_nodes(n)
    return bfs_from_zero(n)[0]
