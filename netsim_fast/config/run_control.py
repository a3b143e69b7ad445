"""The run-control part of ``Config``: how long to run and measure, the watchdogs, the seed.

``--warmup``, ``--measure`` and ``--drain`` frame open-loop traffic's measured window (drain
defaults to 5 x measure there); ``--cycles N`` runs exactly N cycles; ``--window`` is the
time-series bin; the deadlock watchdog stops a run whose lane has not advanced for
``--deadlock-cycles``; ``--check-invariants`` checks the flit engine's state every cycle;
``--latency-limit`` stops a saturated open-loop run, checked every ``--sample-period`` cycles.
``--measurement booksim`` replaces the fixed window by BookSim2's sample periods (warm-up,
convergence, drain; flit/sampling.py), with BookSim2's knobs and defaults.
``--specialise`` compiles the flit kernel for the run's own scalars (flit/specialise.py).
``--seed`` drives the traffic, and the graph too unless ``--graph-seed`` is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from netsim_fast.checks import bad, unknown_choice

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
    threads: int | None = None  # flit engine: threads for the router stages (None: automatic, flit/parallel.py)
    specialise: str = "auto"  # flit engine: a kernel compiled for this configuration (flit/specialise.py)
    latency_limit: int = 500  # open loop: stop, saturated, past this BookSim2 latency; 0 = off
    sample_period: int = 1000  # cycles between latency-limit checks
    memory_limit: int | None = None  # MiB a run may need (None: what the machine has available)
    # -- BookSim2's sampled measurement (--measurement booksim, flit/sampling.py) ----------
    measurement: str = "window"  # window: --warmup/--measure/--drain; booksim: sample periods
    sim_type: str = "latency"  # booksim: latency (limit checked, measured packets drained) | throughput
    warmup_periods: int = 3  # booksim: sample periods of warm-up; 0 = until the changes settle
    max_samples: int = 10  # booksim: sample periods in all, warm-up included
    warmup_thres: float = 0.05  # booksim: relative latency change that ends a 0-period warm-up
    acc_warmup_thres: float = 0.05  # ... and throughput change
    stopping_thres: float = 0.05  # booksim: relative latency change of a converged period
    acc_stopping_thres: float = 0.05  # ... and throughput change
    # -- randomness and output -------------------------------------------------------------
    seed: int = 1


# -- validation ----------------------------------------------------------------------------
# Each check takes the assembled Config.


def _validate_seeds(cfg: RunControlFields) -> None:
    """``--seed``, and ``--graph-seed`` (a topology field) that defaults to it."""
    _require_int("seed", cfg.seed, 0, 2**63 - 1)
    if cfg.topology != "rrg":  # only a random graph has a seed of its own
        if cfg.graph_seed not in (None, cfg.seed):  # (a Config normalised before 2026-11-26 carries the seed)
            raise bad("graph-seed", cfg.graph_seed, f"applies to --topology rrg only (the seed of the random graph); "
                      f"--topology {cfg.topology} is not random")
        _set(cfg, "graph_seed", None)
        return
    if cfg.graph_seed is None:
        _set(cfg, "graph_seed", cfg.seed)
    _require_int("graph-seed", cfg.graph_seed, 0, 2**63 - 1)


def _validate_measurement(cfg: RunControlFields) -> None:
    _require_int("warmup", cfg.warmup, 0, what=" cycles")
    _require_int("measure", cfg.measure, 1, what=" cycles")
    if cfg.drain is None and is_open_loop(cfg):  # booksim: bounded by the sampled span instead
        sampled = cfg.measurement == "booksim" and isinstance(cfg.max_samples, int) and isinstance(cfg.sample_period, int)
        _set(cfg, "drain", 5 * (cfg.max_samples * cfg.sample_period if sampled else cfg.measure))
    _require_int("drain", cfg.drain, 0, what=" cycles")
    _require_int("cycles", cfg.cycles, 1, what=" cycles")
    _require_int("window", cfg.window, 1, what=" cycles")
    _require_int("deadlock-cycles", cfg.deadlock_cycles, 1, what=" cycles")
    _require_int("latency-limit", cfg.latency_limit, 0, what=" cycles (0 = off)")
    _require_int("sample-period", cfg.sample_period, 1, what=" cycles")
    _require_int("memory-limit", cfg.memory_limit, 1, what=" MiB")
    _validate_threads(cfg)
    _validate_specialise(cfg)
    if cfg.cycles is not None:
        _reject_unless_default(cfg, ("latency_limit", "sample_period"),
                               "does not apply with --cycles, which runs exactly that many cycles with no latency limit")
    _validate_booksim_measurement(cfg)


MAX_THREADS = 64


def _validate_threads(cfg) -> None:
    """``--threads N``: the flit engine's lanes and iq routers, any routing but ugal-g
    (flit/parallel.py says why)."""
    _require_int("threads", cfg.threads, 1, MAX_THREADS)
    if cfg.threads is None or cfg.threads == 1:
        return
    if cfg.engine != "flit":
        raise bad("threads", cfg.threads, "applies to the flit engine only (the packet engine runs on one thread)")
    if cfg.router == "booksim":
        raise bad("threads", cfg.threads, "the booksim router runs on one thread; --threads N > 1 needs "
                  "--router lanes or iq")
    if cfg.routing == "ugal-g":
        raise bad("threads", cfg.threads, "ugal-g reads other routers' state as it decides, which only one "
                  "thread sees in router order; use --threads 1 (or ugal-l)")


SPECIALISE = ("auto", "on", "off")


def _validate_specialise(cfg) -> None:
    """``--specialise``: the flit engine's kernels (flit/specialise.py)."""
    if cfg.specialise not in SPECIALISE:
        raise unknown_choice("specialise", cfg.specialise, SPECIALISE)
    if cfg.engine != "flit" and cfg.specialise != "auto":
        raise bad("specialise", cfg.specialise, "applies to the flit engine only (the packet engine's kernels "
                  "take no configuration scalars worth fixing)")


BOOKSIM_MEASUREMENT_OPTIONS = ("sim_type", "warmup_periods", "max_samples", "warmup_thres", "acc_warmup_thres",
                               "stopping_thres", "acc_stopping_thres")
MEASUREMENTS = ("window", "booksim")


def _validate_booksim_measurement(cfg: RunControlFields) -> None:
    if cfg.measurement not in MEASUREMENTS:
        raise unknown_choice("measurement", cfg.measurement, MEASUREMENTS)
    if cfg.measurement == "window":
        _reject_unless_default(cfg, BOOKSIM_MEASUREMENT_OPTIONS, "applies to --measurement booksim only")
        return
    if not is_open_loop(cfg) or cfg.engine != "flit":
        raise bad("measurement", cfg.measurement, "applies to open-loop patterns on the flit engine only")
    if cfg.cycles is not None:
        raise bad("measurement", cfg.measurement, "does not combine with --cycles (which runs exactly that many cycles)")
    _reject_unless_default(cfg, ("warmup", "measure"),
                           "does not apply with --measurement booksim, whose sample periods decide warm-up and "
                           "measurement (--warmup-periods, --sample-period, --max-samples)")
    if cfg.sim_type not in ("latency", "throughput"):
        raise unknown_choice("sim-type", cfg.sim_type, ("latency", "throughput"))
    _require_int("warmup-periods", cfg.warmup_periods, 0, 1 << 20, " sample periods")
    _require_int("max-samples", cfg.max_samples, 1, 1 << 20, " sample periods")
    for name in ("warmup_thres", "acc_warmup_thres", "stopping_thres", "acc_stopping_thres"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad(name, value, "expected a finite relative change (negative: the test is off)")


def validate_memory(cfg) -> None:
    """Refuse a run whose estimated memory (``config/memory.py``) exceeds ``--memory-limit``."""
    from netsim_fast.checks import bad
    from netsim_fast.config.memory import available_mib, estimated_mib

    if cfg.engine is None:
        return
    limit = cfg.memory_limit if cfg.memory_limit is not None else available_mib()
    need = estimated_mib(cfg)
    if limit is not None and need > limit:
        where = "--memory-limit" if cfg.memory_limit is not None else "the memory available now"
        raise bad("memory-limit" if cfg.memory_limit is not None else "nodes" if cfg.radix is None else "dims",
                  cfg.memory_limit if cfg.memory_limit is not None else (cfg.nodes if cfg.radix is None else cfg.dims),
                  f"this run needs about {need:,.0f} MiB, more than {where} ({limit:,} MiB); make the network, "
                  "the run or the table routing smaller, or raise --memory-limit")
