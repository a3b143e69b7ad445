"""The output part of ``Config``: where a run's trace goes.

``--trace PATH`` writes the run's HDF5 trace (``netsim_fast.trace``); ``None`` writes none.
"""

from __future__ import annotations

from dataclasses import dataclass

from netsim_fast.checks import check_writable_file


@dataclass(frozen=True, kw_only=True)
class OutputFields:
    """The output field of ``Config`` (the last one)."""

    trace: str | None = None


def validate_output(cfg) -> None:
    """``trace`` becomes a string path (a ``pathlib.Path`` is accepted) whose folder exists or
    can be made and is writable: found before the run, not after it."""
    if cfg.trace is None:
        return
    object.__setattr__(cfg, "trace", check_writable_file("trace", cfg.trace))
