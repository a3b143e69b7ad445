"""``netsim-fast run --sweep-rates``: the latency-load curve of one configuration."""

from __future__ import annotations

import numpy as np

from netsim_fast.cli._app import echo_json
from netsim_fast.config import bad

MAX_POINTS = 200


def parse_rates(text: str) -> list[float]:
    """'0.05:0.5:0.05' (inclusive) or '0.1,0.2,0.4'."""
    try:
        if ":" in text:
            start, stop, step = (float(x) for x in text.split(":"))
            if not all(np.isfinite((start, stop, step))) or step <= 0 or stop < start:
                raise ValueError
            count = int((stop - start) / step + 0.5) + 1  # counted before anything is allocated
            rates = list(np.round(np.arange(start, stop + step / 2, step), 10)) if count <= MAX_POINTS else None
        else:
            rates = [float(x) for x in text.split(",") if x.strip()]
            if not all(np.isfinite(rates)):
                raise ValueError
    except ValueError:
        raise bad("sweep-rates", text, "expected START:STOP:STEP with STEP > 0 and STOP >= START, or r1,r2,...") from None
    if rates is None:
        raise bad("sweep-rates", text, f"gives {count} rates; at most {MAX_POINTS} (use a larger STEP)")
    if not rates or len(rates) > MAX_POINTS:
        raise bad("sweep-rates", text, f"expected 1 to {MAX_POINTS} rates")
    return rates


def saturation(points: list[dict]) -> dict:
    """The saturation throughput of a curve, by the trust rule (README, "Saturation").

    A point is saturated when its run was stopped by the latency limit, accepted less than 95 %
    of what it offered, or did not drain (``saturated`` of its summary). The saturation
    throughput is the highest offered rate below the first saturated point, so it exists only
    when some point saturated and a lower one did not; otherwise it is null and the note says
    why, with the largest accepted load measured (``max_accepted``).
    """
    accepted = [p["accepted_load"] for p in points if p.get("accepted_load") is not None]
    first = next((i for i, p in enumerate(points) if p.get("saturated")), None)
    out = {"saturation_throughput": None, "saturation_rate": None,
           "max_accepted": max(accepted) if accepted else None}
    if first is None:
        out["saturation_note"] = f"not saturated up to {points[-1]['rate']:g} flits/node/cycle"
    elif first == 0:
        out["saturation_rate"] = points[0]["rate"]
        out["saturation_note"] = f"saturated already at the lowest rate tried, {points[0]['rate']:g}"
    else:
        out["saturation_rate"] = points[first]["rate"]
        out["saturation_throughput"] = points[first - 1]["rate"]
        out["saturation_note"] = (f"saturates between {points[first - 1]['rate']:g} and {points[first]['rate']:g} "
                                  "flits/node/cycle")
    return out


def rate_curve(cfg, text: str, *, plot: str | None, as_json: bool, quiet: bool,
               past_saturation: bool = False) -> None:
    """Run ``cfg`` at each rate, lowest first, up to the first saturated point (every point
    with ``past_saturation``), and print the curve and its saturation throughput."""
    from netsim_fast.experiment import simulate
    from netsim_fast.topologies import build_topology

    rates = sorted(parse_rates(text))
    configs = [cfg.replace(rate=r, trace=None) for r in rates]  # each validated (e.g. rate <= 1)
    topo = build_topology(cfg)
    points = []
    for i, point_cfg in enumerate(configs):
        summary = simulate(point_cfg, topology=topo)
        points.append(summary)
        if not quiet and not as_json:
            import sys

            print(f"  rate {point_cfg.rate:g}: accepted {summary['accepted_load']:.4g}, latency "
                  f"{summary['latency_mean'] if summary['latency_mean'] is not None else 'saturated'}",
                  file=sys.stderr)
        if summary.get("saturated") and not past_saturation:
            break
    result = {"points": points, **saturation(points), "capacity": points[0]["capacity"]}
    if plot:
        draw_curve(points, plot, title=f"{cfg.topology} {','.join(map(str, cfg.dims or ()))} {cfg.routing} {cfg.pattern}")
    if as_json:
        echo_json(result)
        return
    _render(result)


def _render(result: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="latency vs offered load")
    for col in ("rate", "offered", "accepted", "fraction of capacity", "latency mean", "latency p99", "saturated"):
        table.add_column(col, justify="right")
    for p in result["points"]:
        lat = "—" if p["latency_mean"] is None else f"{p['latency_mean']:.4g}"
        p99 = "—" if p["latency_p99"] is None else f"{p['latency_p99']:.4g}"
        table.add_row(f"{p['rate']:g}", f"{p['offered_load']:.4g}", f"{p['accepted_load']:.4g}",
                      f"{p['capacity_fraction']:.3g}", lat, p99, "yes" if p["saturated"] else "no")
    sat = result["saturation_throughput"]
    if sat is None:
        table.caption = f"{result['saturation_note']}; largest accepted load {result['max_accepted']:.4g}"
    else:
        table.caption = (f"saturation throughput {sat:.4g} flits/node/cycle ({sat / result['capacity']:.3g} of capacity): "
                         f"{result['saturation_note']}")
    Console().print(table)


def draw_curve(points: list[dict], path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ok = [p for p in points if p["latency_mean"] is not None]
    ax.plot([p["offered_load"] for p in ok], [p["latency_mean"] for p in ok], "o-", label="mean latency")
    sat = next((p for p in points if p["saturated"]), None)
    if sat is not None:
        ax.axvline(sat["offered_load"], color="tab:red", ls="--", label="saturated from here")
    ax.set_xlabel("offered load (flits/node/cycle)")
    ax.set_ylabel("latency (cycles)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
