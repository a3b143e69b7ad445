"""Pattern names by kind, registered by the workload modules that implement them.

``Config`` validates ``--pattern`` against this registry instead of keeping its own lists, so a
new pattern is named once, where it is built. The kinds:

============== ============================================================================
open-loop      Bernoulli traffic in a measured window, flit engine (``synthetic.PATTERNS``)
finite         message sets run to completion, both engines (``finite.FINITE_PATTERNS``)
total-exchange the flit engine's total exchanges (``total_exchange.TE_PATTERNS``)
forwarding     forwarding-rule plans of the packet engine (``finite.FORWARDING_PATTERNS``)
gossip         the gossip patterns of papers/003, forwarding or not (``finite.GOSSIP_PATTERNS``)
phased         shift-order steps the flit engine's ``--sync`` gates (``finite.PHASED_PATTERNS``)
============== ============================================================================

The first four partition the pattern names: every pattern is in exactly one of them, and
``all_patterns`` lists them in that order (the order error messages show). ``gossip`` and
``phased`` are labels across them.

This module imports nothing: the registering modules import it, and ``workloads/__init__``
imports them, so any import of ``netsim_fast.workloads.registry`` finds every kind filled.
"""

from __future__ import annotations

# The kinds that partition the patterns, in the order of ``all_patterns``.
RUN_KINDS = ("open-loop", "finite", "total-exchange", "forwarding")
KINDS = RUN_KINDS + ("gossip", "phased")

_patterns: dict[str, tuple[str, ...]] = {kind: () for kind in KINDS}


def register(kind: str, names: tuple[str, ...]) -> None:
    """Add pattern ``names`` to ``kind``, keeping their order.

    A name already registered under ``kind`` is skipped, so re-importing (reloading) a workload
    module changes nothing.
    """
    if kind not in _patterns:
        raise ValueError(f"unknown pattern kind {kind!r}; the kinds are {', '.join(KINDS)}")
    known = _patterns[kind]
    _patterns[kind] = known + tuple(name for name in names if name not in known)


def patterns(kind: str) -> tuple[str, ...]:
    """The pattern names of ``kind``, in registration order."""
    if kind not in _patterns:
        raise ValueError(f"unknown pattern kind {kind!r}; the kinds are {', '.join(KINDS)}")
    return _patterns[kind]


def all_patterns() -> tuple[str, ...]:
    """Every pattern name: open-loop, finite, total-exchange, then forwarding ones."""
    return tuple(name for kind in RUN_KINDS for name in _patterns[kind])
