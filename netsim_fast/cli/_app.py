"""The typer app every command module registers on, and the one error edge of the CLI.

Commands live one per module (``topo.py``, ``run.py``, ...) and are imported by
``netsim_fast.cli``; each does parse → library call → render. User mistakes surface as
``ConfigError`` and become one red line on stderr with exit code 2; simulation failures
(``SimulationError``) exit 1. ``--debug`` (before the command) adds the traceback.
"""

from __future__ import annotations

import functools
import sys
import traceback

import typer

from netsim_fast.errors import ConfigError, SimulationError

app = typer.Typer(
    rich_markup_mode="rich",
    no_args_is_help=True,
    add_completion=False,
    help="netsim-fast: a cycle-accurate interconnection-network simulator (Numba kernels).",
    pretty_exceptions_enable=False,
)

_state = {"debug": False}

EXIT_SIMULATION = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def set_debug(value: bool) -> None:
    _state["debug"] = value


def fail(message: str, code: int) -> typer.Exit:
    """Print one red line on stderr (and the traceback in --debug) and return the Exit to raise."""
    if _state["debug"]:
        traceback.print_exc()
    if "\n" in message or "\r" in message:  # one line whatever a value held (a multi-line TOML string)
        message = " ".join(message.split())
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(code=code)


def guarded(fn):
    """Turn library errors raised by a command into the documented exit codes."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ConfigError as exc:
            raise fail(str(exc), EXIT_BAD_INPUT) from None
        except SimulationError as exc:
            raise fail(str(exc), EXIT_SIMULATION) from None
        except (OSError, MemoryError) as exc:
            raise fail(f"{type(exc).__name__}: {exc}", EXIT_SIMULATION) from None

    return wrapper


def echo_json(obj) -> None:
    """Print one JSON object on stdout (NaN/inf become null so any JSON parser reads it)."""
    import json

    from netsim_fast.jsonable import jsonable

    sys.stdout.write(json.dumps(jsonable(obj), indent=2, sort_keys=False) + "\n")
