"""Terminal rendering shared by commands: the progress bar (stderr) and summary tables (stdout)."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def progress_bar(quiet: bool, unit: str = "cycles", phases: list[tuple[int, str]] | None = None):
    """Yield a ``progress(done, limit[, accepted, latency])`` callback drawing a bar on stderr
    (``done`` in ``unit``; the flit engine adds the last batch's accepted load and mean latency).

    Until the first update the bar says the kernels are being compiled or loaded; then it names
    the phase ``done`` is in (``phases``: (first cycle, name) pairs, e.g. warm-up, measuring,
    draining), with the total and the estimated time left when the total is known. Nothing is
    drawn when ``quiet`` or when stderr is not a terminal.
    """
    import sys

    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:,}/{task.total} " + unit),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(), TextColumn("{task.fields[live]}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("compiling kernels (first run only) or loading them", total=None, live="")

        def update(done: int, limit: int, accepted: float | None = None, latency: float | None = None) -> None:
            name = "simulating"
            for start, phase in phases or ():
                if done >= start:
                    name = phase
            total = limit if limit < (1 << 40) else None
            if phases and done < phases[-1][0]:
                total = phases[-1][0]  # the ETA of the window; the drain usually takes a few cycles
            bar.update(task, completed=done, total=total, description=name, live=live_text(accepted, latency))

        yield update


def live_text(accepted: float | None, latency: float | None) -> str:
    """The live figures of the last batch, as the progress line shows them."""
    parts = []
    if accepted is not None:
        parts.append(f"accepted {accepted:.3f}")
    if latency is not None:
        parts.append(f"latency {latency:.1f}")
    return " · ".join(parts)


def _fmt(value, digits=4):
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _print_table(title: str, rows, caption: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False, caption=caption)
    table.add_column("metric", style="bold")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(name, value if isinstance(value, str) else _fmt(value))
    Console().print(table)


def _size(cfg) -> str:
    return "x".join(map(str, cfg.dims)) if cfg.dims else f"{cfg.n_nodes or ''} nodes"


# workload fields a summary may carry, shown when present (gossip bounds, message counts)
_EXTRAS = (("messages_per_node", "messages per node"), ("guest_nodes", "de Bruijn guest nodes"),
           ("steps", "steps (simulated)"), ("theorem_steps", "theorem steps"),
           ("lower_bound_steps", "lower bound ceil(k(P-1)/2d) steps"),
           ("lower_bound_cycles", "lower bound (cycles)"), ("theorem1_bound", "Theorem 1 bound"),
           ("packets_per_pu", "packets per PU"), ("bound_fraction", "lower bound / simulated"))


def _extras(summary: dict) -> list:
    return [(label, summary[key]) for key, label in _EXTRAS if key in summary and summary[key] is not None]


def render_summary(cfg, summary: dict) -> None:
    """The summary table of a ``run``: flit, packet or gossip, by the configuration."""
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS

    if cfg.pattern in FORWARDING_PATTERNS:
        render_gossip(cfg, summary)
    elif cfg.engine == "packet":
        render_packet(cfg, summary)
    else:
        render_flit(cfg, summary)


def render_packet(cfg, s: dict) -> None:
    title = f"{cfg.topology} {_size(cfg)} · packet engine · {cfg.routing} · {cfg.pattern} · {cfg.policy}"
    rows = [
        ("cycles to deliver everything", s["completion_cycles"] if s["completion_cycles"] is not None else f"not done after {s['cycles']}"),
        ("packets delivered / total", f"{s['packets_delivered']} / {s['packets']}"),
        ("max queue (packets per link)", s["max_queue"]),
        ("latency mean / p50 / p99 / max", " / ".join(_fmt(s[k]) for k in ("latency_mean", "latency_p50", "latency_p99", "latency_max"))),
        ("hops mean", s["hops_mean"]),
        ("busiest link (packets, a lower bound)", s["max_link_load"]),
        ("link utilisation mean / max", f"{_fmt(s['link_utilization_mean'], 3)} / {_fmt(s['link_utilization_max'], 3)}"),
        ("packet hops", s["packet_hops"]),
        *_extras(s),
        ("path choice / one-port / queue capacity",
         f"{s['path_choice']} / {_fmt(s['one_port'])} / {s['queue_capacity'] or 'unbounded'}"),
        ("simulation / routing / compile seconds", " / ".join(_fmt(s.get(k), 3) for k in ("sim_seconds", "route_seconds", "compile_seconds"))),
        ("speed (packet hops/s)", _fmt(s.get("packet_hops_per_second"), 3)),
    ]
    caption = s["error"] if s.get("error") else (None if s["status"] == "done" else f"status: {s['status']}")
    _print_table(title, rows, caption)


def render_gossip(cfg, s: dict) -> None:
    title = f"{s['algorithm']} on the {_size(cfg)} torus · section {s['section']}"
    theorem = "—" if s["theorem_steps"] is None else f"{_fmt(s['theorem_steps'])} ({s['theorem']})"
    rows = [
        ("steps (simulated)", s["steps"]),
        ("theorem steps", theorem),
        ("lower bound ceil(k(P-1)/2d)", s["lower_bound_steps"]),
        ("Theorem 1 bound", s["theorem1_bound"]),
        ("packets per PU", s["packets_per_pu"]),
        ("time-independent / buffered", f"{_fmt(s['time_independent'])} / {_fmt(s['buffered'])}"),
        ("ring lengths", " ".join(map(str, s["ring_lengths"]))),
        ("feeds (relayed)", f"{s['feeds']} ({s['relayed_feeds']})"),
        ("mean link utilisation", _fmt(s["mean_link_utilisation"], 3)),
        ("useful / duplicate receives", f"{s['useful_receives']} / {s['duplicate_receives']}"),
        ("seconds", _fmt(s["sim_seconds"], 3)),
    ]
    caption = "; ".join(s["notes"]) if s.get("notes") else (None if s["theorem_steps"] is not None else s["theorem"])
    _print_table(title, [(k, v) for k, v in rows if v is not None], caption)


def render_flit(cfg, summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    title = f"{cfg.topology} {','.join(map(str, cfg.dims or ()))} · {cfg.routing} · {cfg.pattern}"
    table = Table(title=title, show_header=False)
    table.add_column("metric", style="bold")
    table.add_column("value", justify="right")
    rows = [
        ("cycles simulated", summary.get("cycles")),
        ("completion cycles", summary.get("completion_cycles")),
        ("offered load (flits/node/cycle)", summary.get("offered_load")),
        ("accepted load (flits/node/cycle)", summary.get("accepted_load")),
        ("capacity / fraction reached", f"{_fmt(summary.get('capacity'))} / {_fmt(summary.get('capacity_fraction'), 3)}"),
        ("latency mean / p50 / p99 / max", " / ".join(_fmt(summary.get(k), 4) for k in ("latency_mean", "latency_p50", "latency_p99", "latency_max"))),
        ("network latency mean", summary.get("network_latency_mean")),
        ("hops mean", summary.get("hops_mean")),
        ("saturated", summary.get("saturated")),
        ("flit hops", summary.get("flit_hops")),
        ("link utilisation mean / max", f"{_fmt(summary.get('link_utilization_mean'), 3)} / {_fmt(summary.get('link_utilization_max'), 3)}"),
        ("simulation / compile seconds", f"{_fmt(summary.get('sim_seconds'), 3)} / {_fmt(summary.get('compile_seconds'), 3)}"),
        ("speed (flit hops/s)", f"{summary['flit_hops_per_second']:.3g}" if summary.get("flit_hops_per_second") else "—"),
    ]
    rows += _extras(summary)  # finite workloads: messages per node, gossip bounds
    for c in summary.get("per_class") or ():  # traffic classes: offered, accepted, latency of each
        rows.append((f"class {c['class']} (priority {c['priority']}): offered / accepted / latency / p99",
                     " / ".join(_fmt(c.get(k), 4) for k in ("offered_load", "accepted_load", "latency_mean",
                                                             "latency_p99"))))
    rr = summary.get("request_reply")
    if isinstance(rr, dict):  # --closed-loop: round trips, and each message class's accepted load and latency
        rows.append(("round trip mean / p99", f"{_fmt(rr.get('round_trip_mean'), 4)} / {_fmt(rr.get('round_trip_p99'), 4)}"))
        for name in ("requests", "replies"):
            rows.append((f"{name}: accepted / latency", f"{_fmt(rr[name]['accepted_load'], 4)} / "
                                                        f"{_fmt(rr[name]['latency_mean'], 4)}"))
    control = summary.get("booksim_control")
    if isinstance(control, dict):  # --measurement booksim
        rows.append(("BookSim2 periods: warm / drain / count",
                     f"{_fmt(control['warmed_up_at'])} / {_fmt(control['drain_time'])} / {control['sample_periods']}"
                     + (f" (unstable: {control['unstable_reason']})" if control["unstable"] else "")))
    for key, value in summary.items():  # workload-specific extras (total exchange algorithms, ...)
        if (key.startswith("lower_bound") and key not in dict(_EXTRAS)) or key in ("steady_state_cycle", "steady_fluctuation", "drain_cycles"):
            rows.append((key.replace("_", " "), value))
    for name, value in rows:
        if value is None and name == "completion cycles":
            continue
        table.add_row(name, value if isinstance(value, str) else _fmt(value))
    if summary.get("saturated"):
        table.caption = "saturated: accepted load < 95% of offered (or the window did not drain); latency omitted"
    Console().print(table)


# figures shown with their spread under --seeds
_SPREAD = (("offered_load", "offered load"), ("accepted_load", "accepted load"), ("latency_mean", "latency mean"),
           ("latency_p99", "latency p99"), ("network_latency_mean", "network latency mean"), ("hops_mean", "hops mean"),
           ("fairness_jain", "Jain's fairness index"), ("completion_cycles", "completion cycles"))


def render_seed_spread(summary: dict) -> None:
    """Mean and 95 % confidence half-width of the main figures over ``--seeds`` runs."""
    ci = summary.get("ci95", {})
    rows = [(label, f"{_fmt(summary[key])} ± {_fmt(ci.get(key), 3)}") for key, label in _SPREAD
            if summary.get(key) is not None]
    seeds = summary["seed"]
    _print_table(f"mean ± 95% confidence interval over {len(seeds)} seeds ({seeds[0]}..{seeds[-1]})", rows)
