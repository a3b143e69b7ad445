"""The output part of ``Config``: where a run's trace goes.

``--trace PATH`` writes the run's HDF5 trace (``netsim_fast.trace``); ``None`` writes none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class OutputFields:
    """The output field of ``Config`` (the last one)."""

    trace: str | None = None
