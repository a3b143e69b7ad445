"""Summaries and traces of packet-engine runs and gossip runs, for ``netsim_fast.simulate``.

Packet engine (store-and-forward, ``engine/packet_run.py``): one packet per message, one
packet per directed link per cycle. ``cycles`` and ``completion_cycles`` are both the cycle
the last packet arrived (``completion_cycles`` is null if a ``--cycles`` limit stopped the run
first); latency is ``delivered - release`` per packet; ``max_queue`` is the longest link queue
seen (the buffer memory papers/000 asks about); ``max_link_load`` is the packets crossing the
busiest link, a lower bound on the cycles of any policy.

Gossip (``engine/gossip_run.py``): copies along forwarding rules, counted in steps; ``cycles``
and ``completion_cycles`` equal ``steps``.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.fairness import per_node_throughput
from netsim_fast.summary_keys import HISTOGRAM_BINS, PACKET_WALL_CLOCK_KEYS  # noqa: F401 (re-exported)


def _latency(latency: np.ndarray) -> dict:
    if latency.size == 0:
        return {"latency_mean": None, "latency_p50": None, "latency_p99": None, "latency_max": None,
                "latency_histogram": {"edges": [], "counts": []}}
    lat = latency.astype(np.float64)
    bins = min(HISTOGRAM_BINS, max(1, int(lat.max() - lat.min()) + 1))
    counts, edges = np.histogram(lat, bins=bins)
    return {
        "latency_mean": float(lat.mean()),
        "latency_p50": float(np.percentile(lat, 50)),
        "latency_p99": float(np.percentile(lat, 99)),
        "latency_max": float(lat.max()),
        "latency_histogram": {"edges": edges.tolist(), "counts": counts.tolist()},
    }


def summarize_packets(res, cfg, topo, extras: dict) -> dict:
    """The result object of ``netsim-fast run --engine packet --json`` (a finite message set).

    Parameters
    ----------
    res : PacketResult
    cfg : Config
    topo : Topology
    extras : dict
        Workload fields (``messages_per_node``, gossip bounds, ...), appended as given.
    """
    delivered = res.delivered_cycle >= 0
    done = res.status == "done"
    span = max(res.cycles, 1)
    loads = res.link_packets
    out = {
        "engine": "packet",
        "pattern": cfg.pattern,
        "status": res.status,
        "cycles": res.cycles,
        "completion_cycles": res.completion_cycles if done else None,
        "packets": res.packets,
        "packets_delivered": int(delivered.sum()),
        "max_queue": res.max_queue,
        **_latency(res.latency[delivered]),
        "hops_mean": float(res.hops[delivered].mean()) if delivered.any() else None,
        "packet_hops": res.packet_hops,
        "max_link_load": int(loads.max(initial=0)),
        "link_utilization_mean": float(loads.mean()) / span if loads.size else 0.0,
        "link_utilization_max": float(loads.max(initial=0)) / span,
        "deadlock": res.status == "deadlock",
        "error": None,
        "stop_reason": {"done": "completed", "deadlock": "deadlock"}.get(res.status, "cycles"),
        "completed": done,
        "saturated": not done,  # cut short (--cycles) or deadlocked: not every message arrived
        **per_node_throughput(res.dst[delivered], None, topo.n_nodes, span),
        "routing": cfg.routing,
        "policy": cfg.policy,
        "path_choice": cfg.path_choice,
        "one_port": cfg.one_port,
        "queue_capacity": cfg.queue_capacity,
        "seed": cfg.seed,
        **extras,
        "sim_seconds": res.sim_seconds,
        "route_seconds": res.route_seconds,
        "compile_seconds": res.compile_seconds,
        "packet_hops_per_second": res.packet_hops / res.sim_seconds if res.sim_seconds > 0 else None,
        "cycles_per_second": res.cycles / res.sim_seconds if res.sim_seconds > 0 else None,
    }
    if "lower_bound_steps" in extras and done:  # gossip-naive: steps beside the gossip bounds
        out["steps"] = res.cycles
        out["bound_fraction"] = extras["lower_bound_steps"] / max(res.cycles, 1)
    return out


def _per_window(per_cycle: np.ndarray, window: int, n_windows: int) -> np.ndarray:
    padded = np.zeros(n_windows * window, np.int64)
    padded[: per_cycle.size] = per_cycle[: padded.size]
    return padded.reshape(n_windows, window).sum(axis=1)


def write_packet_trace(cfg, res, summary: dict, topo) -> None:
    """The common trace schema for a packet run: ``size_flits`` = 1, head = tail arrival,
    ``injected_cycle`` = release (a released packet is queued at its first link)."""
    from netsim_fast.trace import write_trace

    w = cfg.window
    n_windows = max(1, -(-res.cycles // w))
    released = res.release_cycle[res.release_cycle < n_windows * w]
    sent = _per_window(res.sent_per_cycle, w, n_windows)
    active = sent / w
    link_src, link_dst, link_port = topo.links()
    timeseries = {
        "cycle": np.arange(n_windows, dtype=np.int64) * w,
        "injected_flits": np.bincount(released // w, minlength=n_windows)[:n_windows].astype(np.int64),
        "accepted_flits": _per_window(res.delivered_per_cycle, w, n_windows),
        "active_links": active,
        "link_utilization": active / max(topo.n_links, 1),
        "in_flight": _window_starts(res.queued_per_cycle, w, n_windows),
    }
    packets = {
        "src": res.src, "dst": res.dst, "size_flits": np.ones(res.packets, np.int32),
        "created_cycle": res.release_cycle, "injected_cycle": res.release_cycle,
        "head_arrival_cycle": res.delivered_cycle, "tail_arrival_cycle": res.delivered_cycle,
        "hops": res.hops,
    }
    write_trace(
        cfg.trace, engine="packet", config=cfg.to_dict(),
        summary={k: v for k, v in summary.items() if k not in PACKET_WALL_CLOCK_KEYS},
        timing={k: summary[k] for k in PACKET_WALL_CLOCK_KEYS if summary.get(k) is not None},
        packets=packets, timeseries=timeseries, window_cycles=w,
        links={"src": link_src, "dst": link_dst, "port": link_port, "flits": res.link_packets},
        nodes={"accepted": np.bincount(res.dst[res.delivered_cycle >= 0], minlength=topo.n_nodes).astype(np.int64),
               "injected": np.bincount(res.src, minlength=topo.n_nodes).astype(np.int64)},
    )


def _window_starts(per_cycle: np.ndarray, window: int, n_windows: int) -> np.ndarray:
    """The value in the first cycle of every window (0 past the end of the run)."""
    out = np.zeros(n_windows, np.int64)
    starts = per_cycle[::window][:n_windows]
    out[: starts.size] = starts
    return out


def summarize_gossip(result: dict, cfg, sim_seconds: float) -> dict:
    """``simulate_gossip``'s dict with the keys every run reports (``cycles``, ...) in front."""
    steps = result["steps"]
    head = {"engine": "packet", "pattern": cfg.pattern, "status": "done", "cycles": steps,
            "completion_cycles": steps}
    tail = {"bound_fraction": result["lower_bound_steps"] / max(steps, 1), "deadlock": False,
            "error": None, "stop_reason": "completed", "completed": True, "saturated": False,
            "sim_seconds": sim_seconds}
    return {**head, **result, **tail}


def write_gossip_trace(cfg, summary: dict, topo) -> None:
    """The common schema for a gossip run: config, summary and one timeseries row per step.

    Gossip moves copies, not unicast packets, so ``/packets`` holds no rows; ``/links`` lists
    the torus links without per-link counts (``simulate_gossip`` reports per-step totals only).
    """
    from netsim_fast.trace import write_trace

    util = np.asarray(summary["link_utilisation"], dtype=np.float64)
    busy = np.rint(util * topo.n_links).astype(np.int64)
    link_src, link_dst, link_port = topo.links()
    empty = {name: np.zeros(0, np.int64) for name in (
        "src", "dst", "size_flits", "created_cycle", "injected_cycle", "head_arrival_cycle",
        "tail_arrival_cycle", "hops")}
    write_trace(
        cfg.trace, engine="gossip", config=cfg.to_dict(),
        summary={k: v for k, v in summary.items() if k != "sim_seconds"},
        timing={"sim_seconds": summary["sim_seconds"]},
        packets=empty,
        timeseries={"cycle": np.arange(util.size, dtype=np.int64), "active_links": busy,
                    "link_utilization": util},
        window_cycles=1,
        links={"src": link_src, "dst": link_dst, "port": link_port},
    )
