"""The four parameters of a LogP machine, validated: a small shared type on the ground floor.

The LogP machine (``netsim_fast.logp``), the closed forms (``netsim_fast.analytic.logp``, which
re-exports it) and the protocols (``netsim_fast.workloads.logp_protocols``) all take one, so it
lives below all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from netsim_fast.errors import ConfigError


def capacity(L: int, G: int) -> int:
    """The capacity constraint ``ceil(L/G)`` (papers/002 section 2.2)."""
    return -(-int(L) // int(G))


@dataclass(frozen=True)
class LogPParams:
    """Parameters of a LogP machine, validated against the paper's constraints.

    Parameters
    ----------
    L : int
        Latency: upper bound on the time from acceptance to delivery of a message.
    o : int
        Overhead: processor time to prepare (submit) or acquire one message, >= 1.
    G : int
        Gap: minimum time between consecutive submissions (and between consecutive
        acquisitions) of one processor.
    p : int
        Number of processors, >= 2.

    Notes
    -----
    papers/002 section 2.2 argues ``max(2, o) <= G <= L``: ``G >= o`` without loss of
    generality, ``G >= 2`` because ``G = 1`` makes ``ceil(L/G) = L`` and forces one-step
    deliveries, ``G <= L`` so that input buffers stay bounded. ``o >= 1`` is our addition: in
    the paper's discrete time a processor spends at least one step on a submission (it does
    one of compute / receive / submit per step), and the machine relies on it (a submission
    never happens in the same step as the operation that prepared it).
    """

    L: int
    o: int
    G: int
    p: int

    def __post_init__(self):
        for name in ("L", "o", "G", "p"):
            value = getattr(self, name)
            if isinstance(value, bool) or int(value) != value:
                raise ConfigError(f"LogP parameter {name} must be an integer; got {value!r}")
            object.__setattr__(self, name, int(value))
        if self.o < 1:
            raise ConfigError(f"o = {self.o} is not allowed: the overhead must be >= 1 time step "
                              "(a submission takes at least one step); pass --o 1 or more")
        if self.G < max(2, self.o):
            raise ConfigError(f"G = {self.G} violates max(2, o) <= G <= L (papers/002 section 2.2): "
                              f"G must be >= max(2, o) = {max(2, self.o)}")
        if self.G > self.L:
            raise ConfigError(f"G = {self.G} violates max(2, o) <= G <= L (papers/002 section 2.2): "
                              f"G must be <= L = {self.L}")
        if self.p < 2:
            raise ConfigError(f"p = {self.p} processors is too few: LogP needs p >= 2")

    @property
    def capacity(self) -> int:
        """``ceil(L/G)``: most messages in transit to one destination (capacity constraint)."""
        return capacity(self.L, self.G)
