"""``Config`` assembled from the fields of every concern, and its validation in order.

``Config`` inherits the frozen field classes of the concern modules. A dataclass collects
its bases' fields in reverse MRO order, so the bases are listed last concern first: the
fields then run topology, router, workload, packet engine, run control, output, as the
``run`` options always have (a trace's stored config, a sweep table's columns and
``from_dict`` see the same order).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from netsim_fast.checks import unknown_choice
from netsim_fast.config._helpers import reject_unless_default as _reject_unless_default
from netsim_fast.config.booksim_router import BooksimFields, validate_booksim
from netsim_fast.config.closed_loop import ClosedLoopFields, validate_closed_loop
from netsim_fast.config.output import OutputFields, validate_output
from netsim_fast.config.packet import PacketFields, _validate_packet_options
from netsim_fast.config.router import (
    ENGINES,
    FLIT_ONLY_OPTIONS,
    RouterFields,
    _validate_engine,
    _validate_routing,
)
from netsim_fast.config.run_control import RunControlFields, _validate_measurement, _validate_seeds, validate_memory
from netsim_fast.config.topology import (
    TopologyFields, _validate_topology, validate_concentration, validate_fault_routing, validate_faults,
)
from netsim_fast.config.workload import WorkloadFields, _validate_pattern_name, _validate_workload


@dataclass(frozen=True, kw_only=True)
class Config(OutputFields, RunControlFields, PacketFields, ClosedLoopFields, WorkloadFields, BooksimFields, RouterFields,
             TopologyFields):
    """An experiment: topology, routing, workload, engine parameters, seed and output.

    Only the topology part is read by ``netsim-fast topo``; ``netsim-fast run`` reads it all.
    See the README ("CLI") for every option; field name = option name with ``_`` for ``-``.
    """

    def __post_init__(self) -> None:
        _normalise_and_validate(self)

    # ``radix`` and ``n_nodes`` derive from the topology fields (TopologyFields).

    def to_dict(self) -> dict:
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = ",".join(map(str, value))
        return out

    def replace(self, **changes) -> "Config":
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: dict) -> "Config":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise unknown_choice("option", unknown[0].replace("_", "-"), sorted(n.replace("_", "-") for n in known))
        return cls(**data)


# The public home of the class (``from netsim_fast.config import Config``): pickles and reprs
# of the type name it, as they did when config was one module.
Config.__module__ = "netsim_fast.config"


def _normalise_and_validate(cfg: Config) -> None:
    """Every concern's checks and defaults, in a fixed order.

    The order is part of the interface: of several problems, the one checked first is the one
    reported, and later checks read the defaults earlier ones set (the routing, the pattern).
    ``netsim-fast topo`` describes a topology only and stops after it and the seeds.
    """
    _validate_topology(cfg)
    _validate_seeds(cfg)
    validate_faults(cfg)
    if cfg.engine is None:  # a topology-only description (netsim-fast topo)
        return
    if cfg.engine not in ENGINES:
        raise unknown_choice("engine", cfg.engine, ENGINES)
    _validate_pattern_name(cfg)
    _validate_routing(cfg)
    validate_fault_routing(cfg)
    validate_concentration(cfg)
    if cfg.engine == "flit":
        _validate_engine(cfg)
    else:
        _reject_unless_default(cfg, FLIT_ONLY_OPTIONS, "applies to the flit engine only (drop it, or pass --engine flit)")
    validate_booksim(cfg)
    _validate_packet_options(cfg)
    _validate_workload(cfg)
    validate_closed_loop(cfg)
    _validate_measurement(cfg)
    validate_output(cfg)
    validate_memory(cfg)
