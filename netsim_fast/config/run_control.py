"""The run-control part of ``Config``: how long to run and measure, the watchdogs, the seed.

``--warmup``, ``--measure`` and ``--drain`` frame open-loop traffic's measured window (drain
defaults to 5 x measure there); ``--cycles N`` runs exactly N cycles; ``--window`` is the
time-series bin; the deadlock watchdog stops a run whose lane has not advanced for
``--deadlock-cycles``; ``--check-invariants`` checks the flit engine's state every cycle;
``--latency-limit`` stops a saturated open-loop run, checked every ``--sample-period`` cycles.
``--seed`` drives the traffic, and the graph too unless ``--graph-seed`` is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import reject_unless_default as _reject_unless_default
from netsim_fast.config._helpers import set_field as _set
from netsim_fast.config.workload import is_open_loop


@dataclass(frozen=True, kw_only=True)
class RunControlFields:
    """The measurement fields and the seed of ``Config`` (after the packet engine's)."""

    # -- measurement -----------------------------------------------------------------------
    warmup: int = 2000
    measure: int = 10000
    drain: int | None = None
    cycles: int | None = None
    window: int = 10
    deadlock_cycles: int = 10000
    check_invariants: bool = False
    latency_limit: int = 500  # open loop: stop, saturated, past this BookSim2 latency; 0 = off
    sample_period: int = 1000  # cycles between latency-limit checks
    # -- randomness and output -------------------------------------------------------------
    seed: int = 1


# -- validation ----------------------------------------------------------------------------
# Each check takes the assembled Config.


def _validate_seeds(cfg: RunControlFields) -> None:
    """``--seed``, and ``--graph-seed`` (a topology field) that defaults to it."""
    _require_int("seed", cfg.seed, 0, 2**63 - 1)
    if cfg.graph_seed is None:
        _set(cfg, "graph_seed", cfg.seed)
    _require_int("graph-seed", cfg.graph_seed, 0, 2**63 - 1)


def _validate_measurement(cfg: RunControlFields) -> None:
    _require_int("warmup", cfg.warmup, 0, what=" cycles")
    _require_int("measure", cfg.measure, 1, what=" cycles")
    if cfg.drain is None and is_open_loop(cfg):
        _set(cfg, "drain", 5 * cfg.measure)
    _require_int("drain", cfg.drain, 0, what=" cycles")
    _require_int("cycles", cfg.cycles, 1, what=" cycles")
    _require_int("window", cfg.window, 1, what=" cycles")
    _require_int("deadlock-cycles", cfg.deadlock_cycles, 1, what=" cycles")
    _require_int("latency-limit", cfg.latency_limit, 0, what=" cycles (0 = off)")
    _require_int("sample-period", cfg.sample_period, 1, what=" cycles")
    if cfg.cycles is not None:
        _reject_unless_default(cfg, ("latency_limit", "sample_period"),
                               "does not apply with --cycles, which runs exactly that many cycles with no latency limit")
