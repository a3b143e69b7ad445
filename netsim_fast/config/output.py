"""The output part of ``Config``: where a run's trace goes.

``--trace PATH`` writes the run's HDF5 trace (``netsim_fast.trace``); ``None`` writes none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from netsim_fast.checks import bad


@dataclass(frozen=True, kw_only=True)
class OutputFields:
    """The output field of ``Config`` (the last one)."""

    trace: str | None = None


def validate_output(cfg) -> None:
    """``trace`` becomes a string path (a ``pathlib.Path`` is accepted) whose folder exists or
    can be made and is writable: found before the run, not after it."""
    if cfg.trace is None:
        return
    if not isinstance(cfg.trace, (str, os.PathLike)) or not str(cfg.trace).strip():
        raise bad("trace", cfg.trace, "expected a file path such as run.h5")
    path = Path(cfg.trace)
    object.__setattr__(cfg, "trace", str(path))
    if path.is_dir():
        raise bad("trace", cfg.trace, "is a folder; give a file path such as run.h5")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the nearest folder that exists: missing ones are created
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise bad("trace", cfg.trace, f"cannot be written: {folder} is not a writable folder")
