"""``netsim_fast.simulate(cfg)`` lives here: run one experiment and return its summary (a dict).

The one place that joins a ``Config`` to a topology, a workload, an engine, the analytic
capacity and the trace writer; the CLI's ``run`` and the sweeps call it.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.config import Config
from netsim_fast.errors import DeadlockError


def simulate(cfg: Config, *, progress=None, topology=None) -> dict:
    """Run ``cfg`` and return its summary; writes ``cfg.trace`` when set.

    On deadlock a ``DeadlockError`` is raised whose ``summary`` attribute holds the whole
    summary (``deadlock: true``, ``error``) and whose trace, if asked for, is still written.
    """
    from netsim_fast.topologies import build_topology

    topo = topology if topology is not None else build_topology(cfg)
    return _simulate_flit(cfg, topo, progress)


def _simulate_flit(cfg: Config, topo, progress, packets=None) -> dict:
    """Open-loop synthetic traffic (``packets`` None) or a finite packet set run to completion."""
    from netsim_fast.analytic.capacity import uniform_capacity
    from netsim_fast.engine.flit_run import run_flit
    from netsim_fast.engine.results import summarize, summarize_finite

    capacity, method = uniform_capacity(topo, cfg.t_link)
    summarize_run = summarize if packets is None else summarize_finite
    try:
        run = run_flit(cfg, topo, packets=packets, progress=progress)
    except DeadlockError as exc:
        run = exc.result
        summary = summarize_run(run, cfg, capacity, method)
        summary.update(deadlock=True, error=str(exc), saturated=None)
        for key in ("latency_mean", "latency_p50", "latency_p99", "latency_max", "network_latency_mean",
                    "queueing_latency_mean", "hops_mean"):
            summary[key] = None
        if cfg.trace:
            write_flit_trace(cfg, run, summary)
        exc.summary = summary
        raise
    summary = summarize_run(run, cfg, capacity, method)
    if cfg.trace:
        write_flit_trace(cfg, run, summary)
    return summary


def write_flit_trace(cfg: Config, run, summary: dict) -> None:
    from netsim_fast.engine.results import WALL_CLOCK_KEYS, packet_table
    from netsim_fast.trace import write_trace

    state, topo = run.state, run.topo
    w = cfg.window
    n_windows = -(-run.cycles // w)
    link_src, link_dst, link_port = topo.links()
    port_index = link_src.astype(np.int64) * topo.n_ports + link_port
    active = state.ts_link[:n_windows] * cfg.t_link / w
    timeseries = {
        "cycle": np.arange(n_windows, dtype=np.int64) * w,
        "injected_flits": state.ts_injected[:n_windows],
        "accepted_flits": state.ts_accepted[:n_windows],
        "active_links": active,
        "link_utilization": active / max(topo.n_links, 1),
        "in_flight": state.ts_in_flight[:n_windows],
        "source_queue": state.ts_queued[:n_windows],
    }
    write_trace(
        cfg.trace,
        engine="flit",
        config=cfg.to_dict(),
        summary={k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS},
        timing={k: summary[k] for k in WALL_CLOCK_KEYS if summary.get(k) is not None},
        packets=packet_table(state),
        timeseries=timeseries,
        window_cycles=w,
        links={"src": link_src, "dst": link_dst, "port": link_port, "flits": state.port["link_flits"][port_index]},
    )
