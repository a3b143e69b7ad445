"""Summary statistics of a flit-engine run, computed with numpy from the final state arrays.

Definitions (README, "Results"): latencies count from packet creation to tail delivery, for
packets created in the measurement window; ``offered_load`` and ``accepted_load`` are flits
created and delivered per node per cycle in that window; ``saturated`` means accepted <
0.95 x offered or the window's packets were not all delivered within the drain limit, and then
latency keys are null because a latency of a saturated network measures only the run length.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.fairness import per_node_throughput
from netsim_fast.flit import state as fs
from netsim_fast.summary_keys import HISTOGRAM_BINS, SATURATION_RATIO, WALL_CLOCK_KEYS  # noqa: F401 (re-exported)


def _nullable(value):
    return None if value is None or (isinstance(value, float) and not np.isfinite(value)) else value


# Latency keys nulled when the measurement window did not drain (saturation, deadlock): the
# packets that did arrive are the lucky ones, so their latencies would mislead.
LATENCY_WHEN_SATURATED = ("latency_mean", "latency_p50", "latency_p99", "latency_max", "network_latency_mean",
                          "queueing_latency_mean", "latency_histogram")


def latency_summary(created, injected, delivered, hops) -> dict:
    """Latency statistics of delivered packets (arrays of equal length)."""
    if created.size == 0:
        return {"latency_mean": None, "latency_p50": None, "latency_p99": None, "latency_max": None,
                "network_latency_mean": None, "queueing_latency_mean": None, "hops_mean": None,
                "latency_histogram": {"edges": [], "counts": []}}
    lat = (delivered - created).astype(np.float64)
    net = (delivered - injected).astype(np.float64)
    counts, edges = np.histogram(lat, bins=min(HISTOGRAM_BINS, max(1, int(lat.max() - lat.min()) + 1)))
    return {
        "latency_mean": float(lat.mean()),
        "latency_p50": float(np.percentile(lat, 50)),
        "latency_p99": float(np.percentile(lat, 99)),
        "latency_max": float(lat.max()),
        "network_latency_mean": float(net.mean()),
        "queueing_latency_mean": float((injected - created).mean()),
        "hops_mean": float(hops.mean()),
        "latency_histogram": {"edges": edges.tolist(), "counts": counts.tolist()},
    }


# Per-node rates count a packet whole at its node (destination for accepted, source for
# injected): the kernel keeps no per-node flit counters, so a worm straddling the window's edge
# counts on the side its tail (or head) fell, while ``accepted_load`` counts flits.


def per_class(pk: dict, cfg, in_window, delivered, win_start: int, win_end: int, n: int,
              cycles_run: bool) -> list | None:
    """``per_class`` of ``run --json`` with several traffic classes: for each class its priority,
    packets created in the window and delivered, offered and accepted load (flits per terminal per
    cycle; accepted counts the packets whose tail arrived in the window), the latency figures
    of its window packets, and its BookSim2 block (``booksim_stats``, for ``--report booksim``). A class saturates by the run's rule (accepted below 0.95 x offered, or
    window packets not delivered) and then has null latencies, as the run's; a high class that
    drained keeps its figures when the run as a whole saturated (the low class absorbed it)."""
    from netsim_fast.flit.booksim_stats import booksim_statistics

    if "class" not in pk:
        return None
    length = max(win_end - win_start, 1)
    tail_in_window = delivered & (pk["tail_arrival_cycle"] >= win_start) & (pk["tail_arrival_cycle"] < win_end)
    out = []
    for c in range(cfg.classes):
        mine = pk["class"] == c
        window = in_window & mine
        measured = window & delivered
        lat = latency_summary(pk["created_cycle"][measured], pk["injected_cycle"][measured],
                              pk["tail_arrival_cycle"][measured], pk["hops"][measured])
        lat.pop("latency_histogram")
        offered = float(pk["size_flits"][window].sum()) / (n * length)
        accepted = float(pk["size_flits"][tail_in_window & mine].sum()) / (n * length)
        drained = bool(np.all(delivered[window]))
        class_saturated = (not drained and not cycles_run) or accepted < SATURATION_RATIO * offered
        if class_saturated:
            lat.update({key: None for key in LATENCY_WHEN_SATURATED if key in lat})
        out.append({"class": c, "priority": int(cfg.class_priority[c]), "packets": int(window.sum()),
                    "packets_delivered": int(measured.sum()), "offered_load": offered, "accepted_load": accepted,
                    "saturated": bool(class_saturated), **{k: _nullable(v) for k, v in lat.items()},
                    "booksim_stats": booksim_statistics({k: v[mine] for k, v in pk.items()}, win_start, win_end, n)})
    return out


def per_class_batch(pk: dict, cfg, delivered, n: int, span: int) -> list | None:
    """``per_class`` of a ``--batch`` run with several traffic classes: for each class its
    priority, packets and packets delivered, ``completion_cycles`` (the cycle its last tail
    arrived; null unless all its packets were delivered), its accepted load over the run (flits
    per terminal per cycle) and the latency figures of all its delivered packets."""
    if "class" not in pk:
        return None
    out = []
    for c in range(cfg.classes):
        mine = pk["class"] == c
        done = mine & delivered
        lat = latency_summary(pk["created_cycle"][done], pk["injected_cycle"][done], pk["tail_arrival_cycle"][done],
                              pk["hops"][done])
        lat.pop("latency_histogram")
        finished = bool(done.sum() == mine.sum()) and bool(mine.any())
        out.append({"class": c, "priority": int(cfg.class_priority[c]), "packets": int(mine.sum()),
                    "packets_delivered": int(done.sum()),
                    "completion_cycles": int(pk["tail_arrival_cycle"][mine].max()) if finished else None,
                    "accepted_load": float(pk["size_flits"][done].sum()) / (n * span),
                    **{k: _nullable(v) for k, v in lat.items()}})
    return out


def watchdog_keys(run) -> dict:
    """What the deadlock watchdog found (flit/deadlock.py): the knot of a deadlock, and the
    longest wait and starved channels of waits that were not one."""
    keys = ("deadlock_cycle", "deadlock_last_move", "starvation_max_wait", "starved_channels", "starved_channel_count")
    return {k: run.extras.get(k) for k in keys}


def summarize(run, cfg, capacity: float, capacity_method: str) -> dict:
    """The result object of ``netsim-fast run --json`` for an open-loop or fixed-length run."""
    from netsim_fast.flit.booksim_stats import booksim_statistics

    state, params = run.state, run.params
    n = run.topo.n_terminals  # loads are per terminal (the node that sends and receives)
    pk = run.packet_table()
    win_start, win_end = params.win_start, min(params.win_end, run.cycles)
    if cfg.cycles is not None:
        win_start, win_end = 0, run.cycles
    stopped_in_warmup = run.stop_reason == "latency-limit" and run.cycles <= win_start
    if stopped_in_warmup:  # no window opened: measure the warm-up that ran
        win_start, win_end = 0, run.cycles
    length = max(win_end - win_start, 1)
    closed = "kind" in pk  # request-reply: a window's packets are its requests and their replies
    if closed:
        from netsim_fast.flit import closed_loop_results as clr

        in_window = clr.window_packets(pk, win_start, win_end)
    else:
        in_window = (pk["created_cycle"] >= win_start) & (pk["created_cycle"] < win_end)
    delivered = pk["tail_arrival_cycle"] >= 0
    tail_in_window = delivered & (pk["tail_arrival_cycle"] >= win_start) & (pk["tail_arrival_cycle"] < win_end)
    # packets dropped at a full --source-queue were offered too (they are in no packet table)
    dropped_flits = int(state.cnt[fs.C_DROPPED_FLITS if stopped_in_warmup else fs.C_WIN_DROPPED_FLITS])
    offered_flits = clr.offered_flits(pk, state, in_window) if closed else pk["size_flits"][in_window].sum()
    offered = float(offered_flits + dropped_flits) / (n * length)
    if stopped_in_warmup:
        accepted = float(pk["size_flits"][tail_in_window].sum()) / (n * length)
    else:
        accepted = float(state.cnt[fs.C_WIN_FLITS_OUT]) / (n * length)
    drained = bool(np.all(delivered[in_window]))
    saturated = (accepted < SATURATION_RATIO * offered or (cfg.cycles is None and not drained)
                 or run.stop_reason in ("latency-limit", "not-converged") or dropped_flits > 0)
    injected_in_window = (pk["injected_cycle"] >= win_start) & (pk["injected_cycle"] < win_end)
    measured = in_window & delivered
    lat = latency_summary(pk["created_cycle"][measured], pk["injected_cycle"][measured],
                          pk["tail_arrival_cycle"][measured], pk["hops"][measured])
    # a closed loop that drained keeps its latencies: its sources throttle, latency stays bounded
    null_latency = saturated and not (closed and drained and run.stop_reason == "completed")
    if null_latency:
        for key in LATENCY_WHEN_SATURATED:
            lat[key] = None
    util = state.port["link_flits"] * cfg.t_link / max(run.cycles, 1)
    real_links = run.topo.arrays.link_id.ravel() >= 0
    flit_hops = int(state.cnt[fs.C_FLIT_HOPS])
    out = {
        "cycles": run.cycles,
        "completion_cycles": None,
        "offered_load": offered,
        "accepted_load": accepted,
        "rate": cfg.rate,
        "capacity": capacity,
        "capacity_method": capacity_method,
        "capacity_fraction": accepted / capacity if capacity else None,
        **lat,
        "saturated": bool(saturated),
        "stop_reason": run.stop_reason,
        "completed": run.stop_reason in ("completed", "cycles"),
        "latency_limit_value": run.latency_check,
        "booksim_stats": booksim_statistics(pk, win_start, win_end, n),
        **({"booksim_control": run.extras["booksim_control"]} if "booksim_control" in run.extras else {}),
        **per_node_throughput(pk["dst"][tail_in_window], pk["size_flits"][tail_in_window], n, length),
        **per_node_throughput(pk["src"][injected_in_window], pk["size_flits"][injected_in_window], n, length,
                            prefix="injected"),
        **watchdog_keys(run),
        "deadlock": False,
        "error": None,
        "packets": int(in_window.sum()),
        "packets_delivered": int(measured.sum()),
        **({"per_class": classes} if (classes := per_class(pk, cfg, in_window, delivered, win_start, win_end, n,
                                                            cfg.cycles is not None)) else {}),
        **(clr.request_reply_keys(pk, state, cfg, in_window, win_start, win_end, n, null_latency) if closed else {}),
        "flit_hops": flit_hops,
        # a 1-stage butterfly (one router) has no link
        "link_utilization_mean": float(util[real_links].mean()) if real_links.any() else 0.0,
        "link_utilization_max": float(util[real_links].max()) if real_links.any() else 0.0,
        "source_queue_max": int(state.ts_queued.max()) if state.ts_queued.size else 0,
        "source_dropped_packets": int(state.cnt[fs.C_DROPPED]),
        "measure_window": [int(win_start), int(win_end)],
        "sim_seconds": run.sim_seconds,
        "sim_cpu_seconds": run.sim_cpu_seconds,
        "compile_seconds": run.compile_seconds,
        "flit_hops_per_second": flit_hops / run.sim_seconds if run.sim_seconds > 0 else None,
        "cycles_per_second": run.cycles / run.sim_seconds if run.sim_seconds > 0 else None,
    }
    return {k: (_nullable(v) if not isinstance(v, (dict, list)) else v) for k, v in out.items()}


def batch_statistics(pk: dict, completion: int, n_nodes: int) -> dict:
    """BookSim2's overall figures of a batch (``--batch``): every packet is measured, rates are
    over the batch duration, which for BookSim2 is the cycle after the last tail's arrival."""
    from netsim_fast.flit.booksim_stats import booksim_statistics

    return {**booksim_statistics(pk, 0, completion + 1, n_nodes), "batch_duration": completion + 1}


def summarize_finite(run, cfg, capacity: float, capacity_method: str) -> dict:
    """Summary of a finite workload run to completion (every packet released up front or by phase).

    ``completion_cycles`` is the cycle the last tail was delivered; loads are averaged over the
    whole run (flits per node per cycle); latency statistics cover every packet.
    """
    state = run.state
    n = run.topo.n_terminals  # loads are per terminal (the node that sends and receives)
    pk = run.packet_table()
    delivered = pk["tail_arrival_cycle"] >= 0
    all_delivered = bool(delivered.all())
    completion = int(pk["tail_arrival_cycle"].max()) if all_delivered and delivered.size else None
    span = max(run.cycles, 1)
    lat = latency_summary(pk["created_cycle"][delivered], pk["injected_cycle"][delivered],
                          pk["tail_arrival_cycle"][delivered], pk["hops"][delivered])
    util = state.port["link_flits"] * cfg.t_link / span
    real_links = run.topo.arrays.link_id.ravel() >= 0
    flit_hops = int(state.cnt[fs.C_FLIT_HOPS])
    accepted = float(pk["size_flits"][delivered].sum()) / (n * span)
    out = {
        "cycles": run.cycles,
        "completion_cycles": completion,
        "offered_load": float(pk["size_flits"].sum()) / (n * span),
        "accepted_load": accepted,
        "capacity": capacity,
        "capacity_method": capacity_method,
        "capacity_fraction": accepted / capacity if capacity else None,
        **lat,
        # a workload cut short (--cycles) did not drain: its throughput is what the network took
        "saturated": not all_delivered,
        "stop_reason": run.stop_reason,
        "completed": all_delivered,
        **({"booksim_stats": batch_statistics(pk, completion, n)} if cfg.batch and completion is not None else {}),
        **per_node_throughput(pk["dst"][delivered], pk["size_flits"][delivered], n, span),
        **watchdog_keys(run),
        "deadlock": False,
        "error": None,
        "packets": int(pk["src"].size),
        "packets_delivered": int(delivered.sum()),
        **({"per_class": classes} if cfg.batch and (classes := per_class_batch(pk, cfg, delivered, n, span)) else {}),
        "flit_hops": flit_hops,
        # a 1-stage butterfly (one router) has no link
        "link_utilization_mean": float(util[real_links].mean()) if real_links.any() else 0.0,
        "link_utilization_max": float(util[real_links].max()) if real_links.any() else 0.0,
        "source_queue_max": int(state.ts_queued.max()) if state.ts_queued.size else 0,
        "sim_seconds": run.sim_seconds,
        "sim_cpu_seconds": run.sim_cpu_seconds,
        "compile_seconds": run.compile_seconds,
        "flit_hops_per_second": flit_hops / run.sim_seconds if run.sim_seconds > 0 else None,
        "cycles_per_second": run.cycles / run.sim_seconds if run.sim_seconds > 0 else None,
    }
    return {k: (_nullable(v) if not isinstance(v, (dict, list)) else v) for k, v in out.items()}


