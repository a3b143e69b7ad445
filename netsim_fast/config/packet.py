"""The packet engine's part of ``Config``: store-and-forward queueing options.

They apply to ``--engine packet`` only, and not to the forwarding-rule patterns (gossip-ham,
gossip-one), whose rules send one packet per link and step on every port. Given elsewhere,
they are an error; on the packet engine they get their defaults (fifo, fixed, unbounded).
"""

from __future__ import annotations

from dataclasses import dataclass

from netsim_fast.checks import bad, unknown_choice
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import reject_unless_default as _reject_unless_default
from netsim_fast.config._helpers import set_field as _set

# Options of the packet engine (None / False: not given).
PACKET_ONLY_OPTIONS = ("policy", "path_choice", "one_port", "queue_capacity")


@dataclass(frozen=True, kw_only=True)
class PacketFields:
    """The packet engine fields of ``Config`` (after the workload's)."""

    # -- packet engine (store-and-forward) -------------------------------------------------
    policy: str | None = None  # fifo | srpf | lrpf | random (default fifo)
    path_choice: str | None = None  # fixed | random (default fixed)
    one_port: bool = False
    queue_capacity: int | None = None  # transit packets per link queue, 0 = unbounded (default)


def _validate_packet_options(cfg: PacketFields) -> None:
    """Reads the assembled Config's engine and pattern, which decide whether these apply."""
    from netsim_fast.workloads import registry

    if cfg.engine == "flit":
        _reject_unless_default(cfg, PACKET_ONLY_OPTIONS, "applies to the packet engine only (pass --engine packet)")
        return
    if cfg.pattern in registry.patterns("forwarding"):
        _reject_unless_default(cfg, PACKET_ONLY_OPTIONS,
                               f"does not apply to --pattern {cfg.pattern}: its forwarding rules send one packet per link and step on every port")
        return
    from netsim_fast.packet.paths import PATH_CHOICES
    from netsim_fast.packet.state import POLICIES

    if cfg.policy is None:
        _set(cfg, "policy", "fifo")
    if cfg.policy not in POLICIES:
        raise unknown_choice("policy", cfg.policy, tuple(POLICIES))
    if cfg.path_choice is None:
        _set(cfg, "path_choice", "fixed")
    if cfg.path_choice not in PATH_CHOICES:
        raise unknown_choice("path-choice", cfg.path_choice, tuple(PATH_CHOICES))
    if not isinstance(cfg.one_port, bool):
        raise bad("one-port", cfg.one_port, "expected true or false")
    if cfg.queue_capacity is None:
        _set(cfg, "queue_capacity", 0)
    _require_int("queue-capacity", cfg.queue_capacity, 0, 1 << 30, " transit packets per link queue (0 = unbounded)")
