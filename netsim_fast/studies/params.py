"""Measure BSP (g, l) and LogP (L, G) parameters of a network on the cycle-accurate engines.

``measure_params(cfg, spec)`` runs, on the engine and topology of ``cfg``:

1. **Supersteps.** For every h of ``spec.h`` (and ``spec.reps`` seeds) a random h-relation
   (the union of h random derangements: every node sends and receives exactly h messages,
   ``workloads.hrelation``) followed by a barrier, as one phased program
   (``workloads.bsp_programs``, ``engine.phased_run``). Two times per run:
   ``route`` = last acquisition of a data message, ``superstep`` = end of the barrier.
   BSP's g and l are the slope and intercept of the least-squares line through
   ``superstep(h)`` (``fit_r2_bsp`` its r2); ``g_route``, ``ell_route`` the line through
   ``route(h)`` (routing alone, no synchronisation).
2. **Barrier.** The barrier alone (h = 0): ``ell_barrier``. The barrier is a
   combine-and-broadcast over a breadth-first spanning tree of the network rooted at a centre
   (one link per tree edge, 1-flit messages), so its time grows with the diameter.
3. **L.** Single messages in an idle network: ``spec.pairs`` random pairs plus pairs at the
   diameter, released ``gap`` cycles apart so that each finds the network empty (checked; the
   gap doubles until it holds). ``L`` = the largest latency (release to delivery; the pairs
   at the diameter make it the maximum over all pairs under minimal routing), ``L_mean`` =
   the mean over the random pairs.
4. **G.** ``G`` = the per-node gap in the steady state of the largest h-relation: p times
   the least-squares slope of its sorted delivery cycles over the middle half of the
   deliveries (``analytic.params.steady_gap``). ``G_stream`` = the same slope for
   ``spec.stream`` messages one node sends to one far node in an idle network (the node's
   own limit, not the network's).
5. **LogP check.** ``fit_r2_logp`` = r2 of ``2o + G(h-1) + L`` (measured L, G, configured o)
   against ``route(h)``. ``cb_cycles``: the LogP CB of papers/002 section 4.1 (complete
   ``max(2, ceil(L/G))``-ary tree on node ids) beside its bound
   ``3 (L + o) log p / log(1 + ceil(L/G))``.

All times are in cycles; a message is ``--packet-flits`` flits on the flit engine and one
packet (one link-cycle per hop) on the packet engine. ``o`` is the configured node overhead
(``engine.phased_run``: o per message prepared, o per message acquired).

Notes
-----
Bilardi et al. (papers/002): eq. (1); "l must be an upper bound on the time required for
global barrier synchronization" and "g + l ... on the time needed to route any partial
permutation" (section 2.1); LogP L, o, G (section 2.2); CB (section 4.1); Table 1 and
Observation 1 (section 5).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from netsim_fast.errors import ConfigError


# Bounds of the options: each engine run is cycle-accurate, so these keep one call within hours.
MAX_O = 100_000  # cycles per message sent and per message received
MAX_H = 4096
MAX_H_VALUES = 64
MAX_REPS = 1000
MAX_PAIRS = 100_000


@dataclass(frozen=True, kw_only=True)
class ParamsSpec:
    """What ``measure_params`` runs besides the engine configuration.

    o : int
        Node overhead in cycles (>= 0).
    h : tuple of int
        Relation degrees of the fit (>= 1, at least two distinct).
    reps : int
        Seeds per h (seed ``cfg.seed + rep``).
    pairs : int
        Random pairs for the idle latency.
    stream : int
        Messages of the one-node stream (``G_stream``).
    """

    o: int = 0
    h: tuple = (1, 2, 4, 8, 16, 32)
    reps: int = 1
    pairs: int = 32
    stream: int = 32

    def __post_init__(self):
        from netsim_fast.config import bad, parse_int_list

        object.__setattr__(self, "h", parse_int_list("h", self.h))
        for name, low, high in (("o", 0, MAX_O), ("reps", 1, MAX_REPS), ("pairs", 1, MAX_PAIRS),
                                ("stream", 2, MAX_PAIRS)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise bad(name, value, f"must be an integer >= {low}")
            if value > high:
                raise bad(name, value, f"must be <= {high}")
        if min(self.h) < 1:
            raise bad("h", self.h, "every relation degree must be >= 1 (the barrier alone is always measured)")
        if max(self.h) > MAX_H or len(self.h) > MAX_H_VALUES:
            raise bad("h", self.h, f"expected at most {MAX_H_VALUES} relation degrees, each <= {MAX_H}")
        if len(set(self.h)) < 2:
            raise bad("h", self.h, "a line fit needs at least two distinct values, e.g. 1,2,4,8,16,32")


def _table1(cfg) -> dict:
    """The Table 1 row of the topology (d-dim array, multi-port hypercube) or nulls."""
    from netsim_fast.analytic.bandwidth_latency import gamma_delta

    p = cfg.n_nodes
    if cfg.topology == "hypercube":
        row, d = "hypercube-multiport", None
    elif cfg.topology in ("torus", "mesh"):
        row, d = "array", len(cfg.dims)
    else:
        return {"table1_row": None, "gamma_table1": None, "delta_table1": None}
    gamma, delta = gamma_delta(row, p, d)
    return {"table1_row": row if d is None else f"{d}-dim array", "gamma_table1": gamma, "delta_table1": delta}


def _far_pairs(dist: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``count`` pairs at the diameter: from the first nodes of largest eccentricity."""
    ecc = dist.max(axis=1)
    u = np.nonzero(ecc == ecc.max())[0][:count]
    return u, np.argmax(dist[u], axis=1)


def idle_latency(runner, dist: np.ndarray, length: int, pairs: int, seed: int, gap: int):
    """Latencies of single messages in an idle network.

    Returns
    -------
    random_latency : int64[pairs]
        Of ``pairs`` uniform random pairs (distinct endpoints).
    far_latency : int64[k]
        Of up to 4 pairs at the diameter.
    """
    n = dist.shape[0]
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, pairs)
    dst = (src + rng.integers(1, n, pairs)) % n
    far_u, far_v = _far_pairs(dist, 4)
    src = np.concatenate([src, far_u])
    dst = np.concatenate([dst, far_v])
    lengths = np.full(src.size, length)
    while True:
        release = np.arange(src.size, dtype=np.int64) * gap
        delivered = runner.deliver(src, dst, lengths, release)
        if np.all(delivered[:-1] < release[1:]):  # every message found the network empty
            latency = delivered - release
            return latency[:pairs], latency[pairs:]
        gap *= 2


def stream_gap(runner, dist: np.ndarray, length: int, count: int, o: int) -> float:
    """Steady gap between deliveries of ``count`` messages from one node to one far node (idle
    network), the node submitting one every ``o`` cycles (``o = 0``: all at once)."""
    u, v = _far_pairs(dist, 1)
    release = np.arange(1, count + 1, dtype=np.int64) * o
    from netsim_fast.analytic.params import steady_gap

    delivered = runner.deliver(np.full(count, u[0]), np.full(count, v[0]), np.full(count, length), release)
    return steady_gap(delivered, count)


def measure_params(cfg, spec: ParamsSpec, *, topology=None, progress=None) -> dict:
    """Measure the parameters (module docstring) and return the JSON-ready summary.

    Parameters
    ----------
    cfg : Config
        Validated; ``engine`` flit or packet, any finite pattern (the workloads are ours).
    spec : ParamsSpec
    topology : Topology, optional
        Reuse a built topology.
    progress : callable, optional
        ``progress(done, total)`` after every engine run of the h sweep.
    """
    from netsim_fast.analytic import params as fit
    from netsim_fast.studies.phased import EngineRunner, run_program, step_times
    from netsim_fast.routing.table import all_pairs_distances
    from netsim_fast.topologies import build_topology
    from netsim_fast.workloads.bsp_programs import bfs_tree, heap_tree, phased_program
    from netsim_fast.workloads.hrelation import h_relation

    if cfg.engine not in ("flit", "packet"):
        raise ConfigError(f"--engine {cfg.engine}: params runs on the flit or the packet engine")
    start = time.perf_counter()
    topo = topology if topology is not None else build_topology(cfg)
    p = topo.n_nodes
    dist = all_pairs_distances(topo)
    if dist.min() < 0:
        raise ConfigError("the topology is disconnected; params needs every node to reach every other")
    flits = cfg.packet_flits if cfg.engine == "flit" else 1
    runner = EngineRunner(cfg, topo)
    tree = bfs_tree(topo, dist)
    o = spec.o
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64))

    barrier = phased_program([empty], tree)
    ell_barrier = int(step_times(barrier, run_program(runner, barrier, o), 1)[1][0])

    hs, route, step = [], [], []
    steady = None
    total = len(spec.h) * spec.reps
    for rep in range(spec.reps):
        for h in spec.h:
            src, dst = h_relation(p, h, seed=cfg.seed + rep)
            prog = phased_program([(src, dst)], tree, data_flits=flits)
            times = run_program(runner, prog, o)
            r, s = step_times(prog, times, 1)
            hs.append(h)
            route.append(int(r[0]))
            step.append(int(s[0]))
            if rep == 0 and h == max(spec.h):
                steady = fit.steady_gap(times.delivered[prog.kind == 0], h)
            if progress is not None:
                progress(len(hs), total)
    bsp = fit.fit_line(hs, step)
    route_fit = fit.fit_line(hs, route)

    gap = 2 * max(route[hs.index(min(spec.h))], 8)
    lat_random, lat_far = idle_latency(runner, dist, flits, spec.pairs, cfg.seed, gap)
    L = int(max(lat_random.max(), lat_far.max()))
    G = float(steady)
    r2_logp, res_logp = fit.logp_r2(hs, route, L, G, o)
    logp_L, logp_G = fit.logp_from_line(route_fit, o)

    cap = max(1, math.ceil(L / G)) if G > 0 else 1
    arity = max(2, cap)
    cb = phased_program([empty], heap_tree(p, arity))
    cb_cycles = int(step_times(cb, run_program(runner, cb, o), 1)[1][0])
    cb_bound = 3.0 * (L + o) * math.log(p) / math.log(1 + cap)

    avg_dist = float(dist.sum()) / (p * (p - 1))
    mean_degree = float(topo.arrays.degree.mean())
    out = {
        "topology": topo.describe(), "engine": cfg.engine, "routing": cfg.routing, "p": p,
        "packet_flits": cfg.packet_flits if cfg.engine == "flit" else None, "o": o, "seed": cfg.seed,
        "g": bsp.slope, "ell": bsp.intercept, "L": L, "G": G,
        "fit_r2_bsp": bsp.r2, "fit_r2_logp": r2_logp,
        "ell_barrier": ell_barrier, "g_route": route_fit.slope, "ell_route": route_fit.intercept,
        "fit_r2_route": route_fit.r2, "L_mean": float(lat_random.mean()), "L_pairs": int(lat_random.size),
        "G_stream": stream_gap(runner, dist, flits, spec.stream, o),
        "logp_line_L": logp_L, "logp_line_G": logp_G, "capacity": cap,
        "cb_arity": arity, "cb_cycles": cb_cycles, "cb_bound": cb_bound,
        "h": hs, "superstep_cycles": step, "route_cycles": route,
        "residuals_bsp": bsp.residuals.tolist(), "residuals_logp": res_logp.tolist(),
        "diameter": int(dist.max()), "average_distance": avg_dist, "degree_mean": mean_degree,
        "gamma_volume": avg_dist / mean_degree, "barrier_tree_height": tree.height,
    }
    out.update(_table1(cfg))
    out["sim_seconds"] = time.perf_counter() - start
    return out
