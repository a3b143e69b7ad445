"""The HDF5 trace of a flit-engine run: its packets, per-window time series and link loads,
laid out in the one schema of ``netsim_fast.trace``."""

from __future__ import annotations

import numpy as np


def write_flit_trace(cfg, run, summary: dict) -> None:
    """Write the HDF5 trace of a flit run (``cfg.trace``): packets, time series and links."""
    from netsim_fast.flit.results import WALL_CLOCK_KEYS
    from netsim_fast.trace import write_trace

    state, topo = run.state, run.topo
    # the flits' send offsets serve BookSim2's flit latency only; the trace's schema stays as it is
    packets = {k: v for k, v in run.packet_table().items() if k != "flit_inject_gap_sum"}
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
        packets=packets,
        timeseries=timeseries,
        window_cycles=w,
        links={"src": link_src, "dst": link_dst, "port": link_port, "flits": state.port["link_flits"][port_index]},
        nodes=_per_node(packets, topo.n_terminals, summary.get("measure_window") or (0, run.cycles)),
    )


def _per_node(pk: dict, n_nodes: int, window) -> dict:
    """Flits accepted at each destination and injected at each source within ``window``, as
    the summary's fairness figures count them (a packet whole, by its tail or head cycle)."""
    start, end = window
    tail, head = pk["tail_arrival_cycle"], pk["injected_cycle"]
    accepted = (tail >= start) & (tail < end)
    injected = (head >= start) & (head < end)
    size = pk["size_flits"].astype(np.int64)
    return {"accepted": np.bincount(pk["dst"][accepted], weights=size[accepted], minlength=n_nodes).astype(np.int64),
            "injected": np.bincount(pk["src"][injected], weights=size[injected], minlength=n_nodes).astype(np.int64)}
