"""One call from LogP parameters and a protocol name to a timed, checked run: the entry point
of the ``logp`` command, of ``bench/logp_*.py`` and of later parameter fitting."""

from __future__ import annotations

import difflib

from netsim_fast.analytic.logp import LogPParams
from netsim_fast.logp.run import LogPResult, run
from netsim_fast.errors import ConfigError
from netsim_fast.workloads.hrelation import h_relation
from netsim_fast.workloads.logp_protocols import (cb_program, deterministic_program,
                                                  randomized_program)

PROTOCOLS = ("deterministic", "randomized", "cb")


def run_protocol(params: LogPParams, protocol: str, h: int = 1, seed: int = 0,
                 delay: str = "uniform", beta: float = 1.0,
                 relation: str = "permutations") -> tuple[LogPResult, dict]:
    """Build ``protocol`` for a random h-relation (seeded) and run it on the LogP machine.

    Parameters
    ----------
    params : LogPParams
    protocol : {"deterministic", "randomized", "cb"}
        ``cb`` runs one combine-and-broadcast (``h`` unused).
    h : int
        Messages sent by each processor (``relation`` decides what is received).
    seed : int
        Seeds the relation (``seed``), the randomized batches (``seed + 1``) and the uniform
        delays (``seed + 2``).
    delay : {"uniform", "max", "min"}
        Delay model of the machine.
    beta : float
        Theorem 3's beta (randomized only).
    relation : {"permutations", "random"}
        See ``workloads.hrelation.h_relation``.

    Returns
    -------
    result : LogPResult
    info : dict
        The builder's info (``bound`` and protocol specifics) merged with ``result.summary()``.
    """
    if protocol not in PROTOCOLS:
        close = difflib.get_close_matches(protocol, PROTOCOLS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ConfigError(f"unknown protocol '{protocol}'; choose one of {', '.join(PROTOCOLS)}{hint}")
    if protocol == "cb":
        built = cb_program(params)
    else:
        if h < 1:
            raise ConfigError(f"h = {h} is not allowed: an h-relation needs h >= 1")
        src, dst = h_relation(params.p, h, seed=seed, kind=relation)
        if protocol == "deterministic":
            built = deterministic_program(params, src, dst)
        else:
            built = randomized_program(params, src, dst, beta=beta, seed=seed + 1)
    result = run(built.program, params, delay=delay, seed=seed + 2)
    info = dict(built.info)
    info.update(result.summary())
    return result, info
