"""Command-line interface: ``netsim-fast <command>``. See ``netsim_fast.cli._app``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli._app import app, set_debug


def _version_callback(value: bool) -> None:
    if not value:
        return
    import platform

    import h5py
    import numba
    import numpy

    from netsim_fast import __version__

    typer.echo(f"netsim-fast {__version__}")
    typer.echo(f"numba {numba.__version__}, numpy {numpy.__version__}, h5py {h5py.__version__}, "
               f"Python {platform.python_version()}")
    raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[Optional[bool], typer.Option(
        "--version", callback=_version_callback, is_eager=True,
        help="Print the versions of netsim-fast, numba, numpy, h5py and Python, then exit.")] = None,
    debug: Annotated[bool, typer.Option(
        "--debug", help="Print the full traceback of an error instead of one line.")] = False,
) -> None:
    """netsim-fast: a cycle-accurate interconnection-network simulator (Numba kernels)."""
    set_debug(debug)


# Command modules register themselves on `app` when imported.
from netsim_fast.cli import bmg, logp, model, params, plot, run, sweep, topo, warmup  # noqa: E402,F401


def main() -> None:
    app()
