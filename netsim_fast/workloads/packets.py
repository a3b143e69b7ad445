"""Finite packet sets: what a finite workload hands to the flit engine.

Plain arrays in a dataclass, on the workloads' floor, so that workloads build them without
importing an engine and the flit engine reads them without importing a workload.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class FinitePackets:
    """A finite workload: packets in non-decreasing release order (ties by source, then order)."""

    src: np.ndarray
    dst: np.ndarray
    length: np.ndarray
    release: np.ndarray
    phase: np.ndarray | None = None  # int32: the algorithm step of each packet (for --sync)
    cls: np.ndarray | None = None  # int32: the traffic class of each packet (a run with classes > 1)
