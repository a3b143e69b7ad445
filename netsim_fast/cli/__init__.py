"""Command-line interface: ``netsim-fast <command>``. See ``netsim_fast.cli._app``."""

from __future__ import annotations

import os

# One BLAS thread unless the environment says otherwise. The simulators do not use BLAS, but
# numpy and scipy (which Numba imports) each start an OpenBLAS thread pool as they load, which
# took CPU time from every warm start (bench/flit_startup.py, 2026-11-27: 0.92 s of CPU, against
# 1.08 s the evening before). The one dense solve (the spectral bisection of small graphs in
# topologies/metrics.py) then gives the same result on any machine, and sweeps run their own
# workers. OpenBLAS reads it once, as it loads, so it is set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _import_numba_without_blas_probe() -> None:
    """Numba looks for a BLAS as it loads by importing scipy.linalg, about a tenth of a warm
    start (``python -X importtime``). No compiled function here uses BLAS (``np.dot``,
    ``np.linalg`` in ``@njit`` code), so the CLI, which runs only this package's kernels, loads
    Numba with the probed module hidden (Numba then records that it has no BLAS) and puts it
    back. Called as a command starts (``_root``), so ``--help`` and ``--version`` do not load
    Numba; not done when Numba's array functions or the module are already loaded."""
    import sys

    probed = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or probed in sys.modules:
        return
    sys.modules[probed] = None  # makes its import raise ImportError, which Numba's probe expects
    try:
        import numba.np.arraymath  # noqa: F401  (the probe runs as this loads)
    finally:
        del sys.modules[probed]


from typing import Annotated, Optional  # noqa: E402

import typer  # noqa: E402

from netsim_fast.cli._app import app, set_debug  # noqa: E402


def _version_callback(value: bool) -> None:
    if not value:
        return
    import platform

    import h5py
    import numba
    import numpy

    from netsim_fast._version import __version__

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
    _import_numba_without_blas_probe()


# Command modules register themselves on `app` when imported.
from netsim_fast.cli import bmg, check_deadlock, logp, model, params, plot, run, sweep, topo, warmup  # noqa: E402,F401


def _usage_exceptions() -> tuple[type, ...]:
    """Click's exception base: typer >= 0.2x vendors click (typer.TyperException), older typer uses click."""
    bases = [typer.TyperException] if hasattr(typer, "TyperException") else []
    try:
        import click

        bases.append(click.ClickException)
    except ImportError:
        pass
    return tuple(bases)


def _given_value(args: list[str], opts) -> str | None:
    """The text the user gave an option (``--k abc`` or ``--k=abc``), for the error line."""
    for i, arg in enumerate(args):
        for opt in opts:
            if arg == opt and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(opt + "="):
                return arg[len(opt) + 1:]
    return None


def main(argv: list[str] | None = None) -> None:
    """The console script: typer's parsing, with its usage errors cut to one line (exit 2)."""
    import sys

    try:
        code = app(args=argv, standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):  # click turns Ctrl-C into Abort; outside a run loop nothing is kept
        typer.secho("interrupted: a trace is written only once complete; a sweep keeps its finished rows and resumes",
                    fg=typer.colors.YELLOW, err=True)
        code = 130
    except _usage_exceptions() as exc:
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" or not hasattr(exc, "format_message"):
            exc.show()  # bare `netsim-fast` or `netsim-fast run`: the help text
        else:  # bad type, unknown option, missing value: name it, point at --help
            message = " ".join(exc.format_message().split())
            given = _given_value(sys.argv[1:] if argv is None else argv, getattr(getattr(exc, "param", None), "opts", ()))
            if given is not None:
                message = f"{message} (got {given!r})"
            where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
            typer.secho(f"error: {message}{where}", fg=typer.colors.RED, err=True)
        code = getattr(exc, "exit_code", 2)
    sys.exit(code if isinstance(code, int) else 0)
