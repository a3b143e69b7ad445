"""``netsim-fast plot PATH``: the standard pictures of a trace or of a sweep's results."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli._app import app, guarded


@app.command()
@guarded
def plot(
    path: Annotated[str, typer.Argument(help="A trace (.h5), or a sweep's folder / results.csv (recognised by content).")],
    *,
    out: Annotated[Optional[str], typer.Option("--out", help="PNG to write \\[default: beside PATH].")] = None,
    x: Annotated[Optional[str], typer.Option("--x", help="Sweep: column on the x axis (a parameter or a metric).")] = None,
    y: Annotated[Optional[str], typer.Option("--y", help="Sweep: metric on the y axis (mean over repeats).")] = None,
    hue: Annotated[Optional[str], typer.Option("--hue", help="Sweep: parameter that colours the curves \\[default: routing].")] = None,
) -> None:
    """Draw a trace (load and utilisation over time, latency histogram) or a sweep (latency and
    accepted vs offered load per routing, saturation marked; or --x/--y/--hue); print the PNG path.

    Example: [bold]netsim-fast plot runs/curves --x packet_flits --y latency_p99 --hue routing[/bold]
    """
    from netsim_fast.plots import plot_path

    written = plot_path(path, out=out, x=x, y=y, hue=hue)
    typer.echo(str(written))
