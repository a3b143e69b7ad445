"""Terminal rendering shared by commands: the progress bar (stderr) and summary tables (stdout)."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def progress_bar(quiet: bool):
    """Yield a ``progress(done_cycles, limit_cycles)`` callback drawing a bar on stderr."""
    if quiet:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.completed:,} cycles"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("run", total=None)

        def update(done: int, limit: int) -> None:
            bar.update(task, completed=done, total=limit if limit < (1 << 40) else None)

        yield update


def _fmt(value, digits=4):
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def render_summary(cfg, summary: dict) -> None:
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
    for key, value in summary.items():  # workload-specific extras (total exchange, gossip, ...)
        if key.startswith("lower_bound") or key in ("bound_fraction", "steady_state_cycle", "steady_fluctuation", "drain_cycles"):
            rows.append((key.replace("_", " "), value))
    for name, value in rows:
        if value is None and name == "completion cycles":
            continue
        table.add_row(name, value if isinstance(value, str) else _fmt(value))
    if summary.get("saturated"):
        table.caption = "saturated: accepted load < 95% of offered (or the window did not drain); latency omitted"
    Console().print(table)
