"""Total exchange (paper 004) as a study: a flit-engine run read against the closed forms.

The summary keys of a finished exchange: the workload's description, the bisection lower
bound and the fraction of it reached, the link-utilisation series and its steady-state metrics
(``analytic/total_exchange.py``; README, "Total exchange").
"""

from __future__ import annotations


def without_series(summary: dict) -> dict:
    """The summary for a trace: the utilisation list is its /timeseries/link_utilization
    (and an HDF5 attribute holds at most 64 KiB)."""
    return {k: v for k, v in summary.items() if k != "utilization"}


def total_exchange_keys(cfg, te, run) -> dict:
    """Summary keys of a total exchange: workload, lower bound, bound fraction, utilisation
    series and its steady-state metrics (README, "Total exchange")."""
    from netsim_fast.analytic.total_exchange import lower_bound, steady_state, utilisation_series

    pk = run.packet_table()
    done = pk["tail_arrival_cycle"] >= 0
    completion = int(pk["tail_arrival_cycle"].max()) if done.size and done.all() else None
    injected = pk["injected_cycle"][pk["injected_cycle"] >= 0]
    last_injection = int(injected.max()) if injected.size else 0
    u = utilisation_series(run.state.ts_link, run.topo.n_links, cfg.window, cfg.t_link, run.cycles)
    out = {"grain_bytes": cfg.grain_bytes, "sync": cfg.sync, **te.describe(),
           **lower_bound(run.topo, te.flits_per_pair, cfg.t_link)}
    out["bound_fraction"] = out["lower_bound_cycles"] / completion if completion else None
    out["last_injection_cycle"] = last_injection
    out.update(steady_state(u, cfg.window, completion or 0, last_injection))
    out["utilization_window"] = cfg.window
    out["utilization"] = [round(float(v), 5) for v in u]
    return out
