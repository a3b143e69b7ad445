"""Model of papers/000 beside the packet engine on G seeded random regular graphs.

``compare_rrg`` is what ``netsim-fast model rrg --compare`` reports: the prediction of
``rrg_model.predict`` plus the mean and standard deviation of the simulated cycle counts over
``graphs`` random regular graphs (graph ``g`` drawn with graph seed ``seed + g``, its workload
and kernel choices seeded with ``seed + g`` too), and, to explain where the two part, the
load of the most heavily used link of each graph: a lower bound on the cycles of any policy
(one packet per link per cycle).
"""

from __future__ import annotations

import numpy as np

from netsim_fast.analytic.rrg_model import predict
from netsim_fast.errors import ConfigError

WORKLOADS = ("random", "total-exchange", "embed-debruijn")


def link_loads(table, topo, messages) -> np.ndarray:
    """Packets crossing each directed link when every message follows its fixed minimal path.

    Returns int64[n_links] (fixed path choice: the lowest minimal port at every hop).
    """
    from netsim_fast.routing.table import _LOWBIT8

    loads = np.zeros(topo.n_links, np.int64)
    node = messages.src.astype(np.int64).copy()
    dst = messages.dst.astype(np.int64)
    active = node != dst
    while active.any():
        idx = np.nonzero(active)[0]
        rows = table.port_mask[dst[idx], node[idx]]  # [k, W] bytes
        byte_at = np.argmax(rows != 0, axis=1)
        ports = 8 * byte_at + _LOWBIT8[rows[np.arange(idx.size), byte_at]]
        links = topo.link_id[node[idx], ports]
        np.add.at(loads, links, 1)
        node[idx] = topo.nbr[node[idx], ports]
        active = node != dst
    return loads


def workload_messages(workload: str, n_nodes: int, messages: int, rng):
    """The message set of one draw (``messages`` per node for ``random``)."""
    from netsim_fast.topologies.debruijn import directed_arcs
    from netsim_fast.workloads import messages as wm

    if workload == "random":
        return wm.random_messages(n_nodes, messages, rng)
    if workload == "total-exchange":
        return wm.total_exchange(n_nodes)
    if workload == "embed-debruijn":
        return wm.embedded_messages(directed_arcs(2, n_nodes), n_nodes, rng)[0]
    raise ConfigError(f"workload must be one of {', '.join(WORKLOADS)}; got {workload!r}")


def predict_workload(n_nodes: int, degree: int, messages: int = 1, *, policy: str = "fifo",
                     workload: str = "random", include_self: bool = False, tolerance: float = 1e-6,
                     remaining: float = 0.5) -> dict:
    """``predict`` for a simulated workload: ``embed-debruijn`` (binary) is ``random`` with
    ``m = 2``, its out-degree (papers/000, section IV); ``workload`` in the result is the
    simulated one."""
    model_messages = 2 if workload == "embed-debruijn" else messages
    model_workload = "total-exchange" if workload == "total-exchange" else "random"
    out = predict(n_nodes, degree, model_messages, policy=policy, workload=model_workload,
                  include_self=include_self, tolerance=tolerance, remaining=remaining)
    out["workload"] = workload
    return out


def compare_rrg(
    n_nodes: int,
    degree: int = 4,
    messages: int = 1,
    *,
    policy: str = "fifo",
    workload: str = "random",
    graphs: int = 10,
    seed: int = 1,
    path_choice: str = "fixed",
    include_self: bool = False,
    tolerance: float = 1e-6,
    remaining: float = 0.5,
) -> dict:
    """The model's prediction and the simulated cycles on ``graphs`` random regular graphs.

    ``embed-debruijn`` embeds the binary de Bruijn graph on ``n_nodes`` nodes (a power of 2)
    and is predicted with ``m = 2`` messages per node (papers/000, section IV).

    Returns
    -------
    dict: every key of ``predict`` plus ``sim_cycles_mean``, ``sim_cycles_std``,
    ``sim_cycles`` (per graph), ``sim_cycles_max``, ``sim_average_distance`` (mean over
    the graphs), ``max_link_load`` (per graph), ``graphs``.
    """
    from netsim_fast.packet.run import simulate_packets
    from netsim_fast.routing.table import build_minimal_table
    from netsim_fast.topologies.rrg import random_regular

    if graphs < 1:
        raise ConfigError(f"graphs must be >= 1; got {graphs}")
    model_policy = policy if policy in ("fifo", "srpf", "lrpf") else "fifo"
    out = predict_workload(n_nodes, degree, messages, policy=model_policy, workload=workload,
                           include_self=include_self, tolerance=tolerance, remaining=remaining)
    cycles, distances, max_loads = [], [], []
    for g in range(graphs):
        topo = random_regular(n_nodes, degree, seed + g)
        table = build_minimal_table(topo)
        msgs = workload_messages(workload, n_nodes, messages, np.random.default_rng(seed + g))
        res = simulate_packets(topo, msgs, policy=policy, path_choice=path_choice, seed=seed + g,
                               table=table)
        cycles.append(res.cycles)
        off_diag = table.dist[~np.eye(n_nodes, dtype=bool)]
        distances.append(float(off_diag.mean()))
        max_loads.append(int(link_loads(table, topo, msgs).max()))
    out.update(
        workload=workload,
        policy=policy,
        graphs=int(graphs),
        sim_cycles=cycles,
        sim_cycles_mean=float(np.mean(cycles)),
        sim_cycles_std=float(np.std(cycles, ddof=1)) if graphs > 1 else 0.0,
        sim_cycles_max=int(max(cycles)),
        sim_average_distance=float(np.mean(distances)),
        max_link_load=max_loads,
    )
    return out
