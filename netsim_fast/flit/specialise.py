"""Kernels compiled for one configuration (``--specialise``): a run's static scalars as constants.

The flit kernel reads its scalars (VCs, ports, buffer depth, delays, routing and router codes...)
from ``FlitParams`` at run time, so one compiled kernel serves every configuration that uses the
same parts of the engine (flit/features.py). A specialised run passes those scalars as ``Fixed``
integers instead; the stage compiler (``_stage.ConstantMembers``) turns each into a constant, and
LLVM folds them: loops over the V VCs or P ports get known bounds, ring arithmetic known sizes,
and the branches on routing, router and switching codes the run does not take are dropped. The
machine code computes the same thing, so the results are bit-identical
(tests/test_specialise.py); it takes 4-19 % less CPU time per flit-hop (the `lanes` router on
the 16x16 torus 13 % at 0.15, the booksim router 10 %, the 64x64 19 %; README, "Performance"),
and costs a compilation (some 7 s, 30-40 s for the booksim router, cached on disk) for each new
set of values.

``--specialise auto`` (the default) specialises a run only when it plans enough work to repay a
compilation: at least ``AUTO_ROUTER_CYCLES`` router-cycles (routers x the cycles it plans to
run), about a minute of simulation for the `lanes` and `iq` routers, five for the booksim
router, whose kernel takes five times as long to compile; ``on`` always, ``off`` never. A cached
specialised kernel loads as fast as the generic one.
"""

from __future__ import annotations

from numba.core import config as numba_config

from netsim_fast._stage import Fixed

# FlitParams members fixed for the whole run by the configuration and topology. Not fixed: the
# network size (the loops over routers gain nothing), the measurement window and stop mode (the
# BookSim2 sampling moves them during a run), a finite workload's packet count, the watchdog.
FLIT_FIELDS = ("n_ports", "n_vcs", "buf", "out_buf", "t_link", "t_routing", "t_crossbar", "credit_delay",
               "headers", "eject_rate", "router", "routing", "vct", "inject_mask", "atomic_mask", "vc_alloc",
               "class_vcs", "window", "ring", "sync", "src_queue", "conc", "group_routers", "wire_max", "classes",
               "up_choice", "eject_shift", "closed_loop", "outstanding", "rr_vcs", "eject_in_loop", "prefetch", "debug")
# BkParams: all but the internal speedup, a fraction (flit/booksim/state.py).
BOOKSIM_FIELDS = ("routing_delay", "va_delay", "sa_delay", "xbar_delay", "credit_delay", "link", "torus",
                  "wait_tail", "busy_full", "ring", "xb_cap", "of_cap", "va_kind", "va_iters", "va_arb", "sa_kind",
                  "sa_iters", "sa_arb", "prio_empty", "hold", "noq", "in_speedup", "out_speedup", "out_buf", "spec",
                  "priority", "routing", "shape_a", "shape_b")
# auto: about a minute of simulation at 100-300 ns per router-cycle (bench/flit_speed.py's
# "us per cycle" over routers), against a compilation of some 7 s that saves 4-19 % of it; the
# booksim router's kernel compiles in 30-40 s and saves about 10 %.
AUTO_ROUTER_CYCLES = {"lanes": 300_000_000, "iq": 300_000_000, "booksim": 1_500_000_000}


def planned_cycles(cfg, n_terminals: int, finite_flits: int | None) -> int:
    """The cycles a run plans: ``--cycles``; else its measured span; for a finite workload
    without ``--cycles`` a lower bound, each terminal injecting a flit per cycle."""
    if cfg.cycles is not None:
        return cfg.cycles
    if finite_flits is not None:
        return -(-finite_flits // max(n_terminals, 1))
    if cfg.measurement == "booksim":
        return cfg.max_samples * cfg.sample_period
    return cfg.warmup + cfg.measure


def specialises(cfg, n_routers: int, cycles: int) -> bool:
    """Whether a run of ``cycles`` cycles on ``n_routers`` routers gets its own kernel."""
    if cfg.specialise == "auto":
        return n_routers * cycles >= AUTO_ROUTER_CYCLES[cfg.router]
    return cfg.specialise == "on"


def kernel_params(params, special: bool):
    """The ``FlitParams`` a kernel call takes: specialised, or ``params`` itself."""
    return fixed(params, FLIT_FIELDS) if special else params


def fixed(params, fields):
    """``params`` (a named tuple) with ``fields`` as ``Fixed`` integers, for a kernel call only:
    Python code keeps reading the plain one. Under ``NUMBA_DISABLE_JIT=1`` the kernels are plain
    Python, which reads the plain ints."""
    if numba_config.DISABLE_JIT:
        return params
    return params._replace(**{name: Fixed(getattr(params, name)) for name in fields})
