"""Traffic classes of open-loop traffic (``--classes K --class-mix w0,w1,.. --class-priority p0,p1,..``).

Every packet the injection process creates belongs to one class, drawn on its own with the
probabilities of ``--class-mix`` (a share of packets: the offered load of class c is
``rate * w_c / sum(w)`` flits per node per cycle when the classes share a packet size). The
draws come from their own stream, ``Generator(SeedSequence([seed, 0xC1A55, chunk]))``, so the
creation cycles, destinations and sizes of a run do not change with the classes, and one
class draws nothing: a one-class run is the run of before.

A class's priority (higher goes first) is honoured by the routers where packets compete;
docs/flit-engine.md ("Traffic classes") lists the arbitration points.

BookSim2 (``trafficmanager.cpp``) gives each class its own injection process, rate and packet
size; ``--booksim-config`` maps equal-size classes to one process of the summed rate whose
packets draw their class in proportion to the classes' rates (the same load per class; only
the joint draws of two classes in one cycle at one node differ).
"""

from __future__ import annotations

import numpy as np

CLASS_STREAM = 0xC1A55


def packet_classes(cfg, chunk: int, count: int) -> np.ndarray | None:
    """The class of each of the ``count`` packets of chunk ``chunk`` (int32), None for one class."""
    if cfg.classes <= 1:
        return None
    weights = np.asarray(cfg.class_mix, float)
    cumulative = np.cumsum(weights / weights.sum())
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, CLASS_STREAM, chunk]))
    pick = np.searchsorted(cumulative, rng.random(count), side="right")
    return np.minimum(pick, cfg.classes - 1).astype(np.int32)


def priority_levels(priorities) -> np.ndarray:
    """Each class's priority level: 0 for the highest priority, then 1, ... (equal priorities
    share a level); the source queues keep packets in level order (flit/source.py)."""
    distinct = sorted(set(int(p) for p in priorities), reverse=True)
    return np.asarray([distinct.index(int(p)) for p in priorities], np.int32)
