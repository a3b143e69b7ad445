"""The configuration of ``netsim-fast model rrg``: papers/000's model of random regular graphs.

A separate frozen dataclass, not part of ``Config``: its workload fields are checked by the
``Config`` of the ``run --engine packet --topology rrg`` they stand for (``as_run_config``).
"""

from __future__ import annotations

from dataclasses import dataclass

from netsim_fast.checks import bad, unknown_choice
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config.core import Config

MODEL_RRG_PATTERNS = ("random", "total-exchange", "embed-debruijn")
MODEL_RRG_POLICIES = ("fifo", "srpf", "lrpf")  # the message-passing model's eqs. (11), (12), (15)


@dataclass(frozen=True, kw_only=True)
class RrgModelConfig:
    """``netsim-fast model rrg``: papers/000's model, and with ``compare`` the packet engine on
    ``graphs`` seeded random regular graphs (graph g: graph seed and traffic seed ``seed + g``).

    The workload fields are validated as the ``run --engine packet --topology rrg`` they stand
    for (``as_run_config``); ``embed-debruijn`` is the binary de Bruijn graph (predicted with
    2 messages per node).
    """

    nodes: int | None = None
    degree: int | None = None
    pattern: str = "random"
    messages: int | None = None
    policy: str = "fifo"
    tolerance: float = 1e-6
    include_self: bool = False
    compare: bool = False
    graphs: int | None = None  # default 10 with compare
    path_choice: str | None = None  # default fixed with compare
    seed: int | None = None  # default 1 with compare

    def __post_init__(self) -> None:
        if self.pattern not in MODEL_RRG_PATTERNS:
            raise unknown_choice("pattern", self.pattern, MODEL_RRG_PATTERNS)
        if self.policy not in MODEL_RRG_POLICIES:
            if self.policy == "random":
                raise bad("policy", self.policy, "has no model (it covers fifo, srpf, lrpf); simulate it with netsim-fast run --engine packet --policy random")
            raise unknown_choice("policy", self.policy, MODEL_RRG_POLICIES)
        if self.compare:
            for name, default in (("graphs", 10), ("path_choice", "fixed"), ("seed", 1)):
                if getattr(self, name) is None:
                    object.__setattr__(self, name, default)
            _require_int("graphs", self.graphs, 1, 10000, " (seeded graphs to simulate)")
        else:
            for name in ("graphs", "path_choice", "seed"):
                if getattr(self, name) is not None:
                    raise bad(name, getattr(self, name), "applies with --compare only (it sets up the simulated graphs)")
        run = self.as_run_config()  # nodes, degree, messages, path choice, seed as run checks them
        object.__setattr__(self, "messages", run.messages)
        tol = self.tolerance
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol < 1:
            raise bad("tolerance", tol, "must lie in (0, 1): the probability 1 - P(distance <= d) the diameter estimate of eq. (7) leaves")

    def as_run_config(self) -> Config:
        """The ``run --engine packet`` configuration of graph 0 of the comparison."""
        return Config(topology="rrg", nodes=self.nodes, degree=self.degree, engine="packet",
                      pattern=self.pattern, messages=self.messages, policy=self.policy,
                      path_choice=self.path_choice, seed=1 if self.seed is None else self.seed,
                      # without --compare nothing is simulated, so no simulation's memory is at stake
                      memory_limit=None if self.compare else 1 << 62)


RrgModelConfig.__module__ = "netsim_fast.config"  # its public home, as for Config
