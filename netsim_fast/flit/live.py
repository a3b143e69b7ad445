"""Live figures for the progress display: accepted load and mean latency of the last batch.

Read between kernel batches, and only when a progress display asks (``run_flit``'s
``progress``): the flits delivered since the previous batch over the nodes and cycles, and the
mean latency (creation to tail) of the packets whose tails arrived in it. A cursor skips the
packets known delivered, so a batch costs the packets still open plus the new ones.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.flit import state as fs


def takes_live_figures(progress) -> bool:
    """Whether a ``progress`` callback takes ``accepted`` and ``latency`` keywords (the CLI's
    does); a plain ``progress(done, limit)`` keeps being called with those two only."""
    import inspect

    try:
        params = inspect.signature(progress).parameters.values()
    except (TypeError, ValueError):
        return False
    names = {p.name for p in params}
    return any(p.kind is p.VAR_KEYWORD for p in params) or {"accepted", "latency"} <= names


class LiveFigures:
    """Accepted load and mean latency of each batch, for ``progress(t, limit, **figures)``."""

    def __init__(self, n_nodes: int):
        self.n_nodes = n_nodes
        self.last_t = 0
        self.last_out = 0
        self.first_open = 0  # every packet before it was delivered before last_t

    def figures(self, state, t: int) -> dict:
        out = int(state.cnt[fs.C_FLITS_OUT])
        cycles = max(t - self.last_t, 1)
        accepted = (out - self.last_out) / (self.n_nodes * cycles)
        pkt = state.pkt[self.first_open: int(state.cnt[fs.C_NEXT_RELEASE])]
        tail = pkt["tail_del"]
        new = (tail >= self.last_t) & (tail < t)
        latency = float((tail[new] - pkt["release"][new]).mean()) if new.any() else None
        waiting = np.flatnonzero((tail < 0) & (pkt["injected"] != fs.DROPPED))
        self.first_open += int(waiting[0]) if waiting.size else int(pkt.size)
        self.last_t, self.last_out = t, out
        return {"accepted": accepted, "latency": latency}

    def renumber(self, shift: int) -> None:
        """Packet ids went down by ``shift`` (flit/retire.py)."""
        self.first_open = max(self.first_open - shift, 0)
