"""One typed, validated description of an experiment.

``Config`` is flat on purpose: its field names are the ``netsim-fast run`` option names
(``--packet-flits`` -> ``packet_flits``), so a sweep spec, the CLI, a trace's stored config and
a notebook all speak the same words. Every user-input error is raised here, in one place, as a
``ConfigError`` whose one-line message names the option, the value found and what is allowed.

Construction normalises as well as validates: ``dims`` becomes a tuple of radices, the routing
defaults to ``dor`` on grids and ``minimal`` elsewhere (``minimal`` everywhere on the packet
engine), ``graph_seed`` defaults to ``seed``, and the options of the chosen engine and pattern
get their defaults. Options that do not apply to the chosen engine or pattern stay at their
defaults (``None`` for most): giving one is an error, never silently ignored.

Flat for the user, split by concern inside; each module holds one concern's fields (a frozen
dataclass ``Config`` inherits) and their checks:

============== ===============================================================================
topology       the network and its size options (``TopologyFields``, ``radix``, ``n_nodes``)
router         engine, router, routing and flow control (``RouterFields``)
workload       pattern, rate, message and packet-size options (``WorkloadFields``)
packet         the packet engine's queueing options (``PacketFields``)
run_control    warmup, measure, drain, cycles, window, watchdogs, seed (``RunControlFields``)
output         the trace path (``OutputFields``)
core           ``Config`` itself and the order of the checks
rrg_model      ``RrgModelConfig`` of ``netsim-fast model rrg``
============== ===============================================================================

Pattern names come from the workload modules (``netsim_fast.workloads.registry``).
"""

from netsim_fast.checks import bad, parse_int_list, unknown_choice
from netsim_fast.config.core import Config
from netsim_fast.config.output import OutputFields
from netsim_fast.config.packet import PACKET_ONLY_OPTIONS, PacketFields
from netsim_fast.config.router import (
    BMG_ROUTINGS,
    ENGINES,
    FLIT_ONLY_OPTIONS,
    FLIT_ROUTINGS,
    MAX_VCS,
    PACKET_ROUTINGS,
    ROUTERS,
    ROUTING_TOPOLOGIES,
    SWITCHINGS,
    VC_ALLOCS,
    VC_REALLOCS,
    RouterFields,
    default_routing,
    needs_datelines,
)
from netsim_fast.config.rrg_model import MODEL_RRG_PATTERNS, MODEL_RRG_POLICIES, RrgModelConfig
from netsim_fast.config.run_control import RunControlFields
from netsim_fast.config.topology import MAX_NODES, TOPOLOGY_OPTIONS, TopologyFields
from netsim_fast.config.workload import OPEN_LOOP_OPTIONS, SYNCS, WorkloadFields, is_open_loop
from netsim_fast.errors import ConfigError
from netsim_fast.topologies import GRID_TOPOLOGIES, TOPOLOGIES

__all__ = [
    # the experiment and its concerns
    "Config", "TopologyFields", "RouterFields", "WorkloadFields", "PacketFields", "RunControlFields", "OutputFields",
    # netsim-fast model rrg
    "RrgModelConfig", "MODEL_RRG_PATTERNS", "MODEL_RRG_POLICIES",
    # choices and option groups
    "TOPOLOGIES", "GRID_TOPOLOGIES", "TOPOLOGY_OPTIONS", "MAX_NODES",
    "ENGINES", "ROUTERS", "SWITCHINGS", "VC_REALLOCS", "VC_ALLOCS", "MAX_VCS",
    "ROUTING_TOPOLOGIES", "BMG_ROUTINGS", "FLIT_ROUTINGS", "PACKET_ROUTINGS",
    "FLIT_ONLY_OPTIONS", "PACKET_ONLY_OPTIONS", "OPEN_LOOP_OPTIONS", "SYNCS",
    # helpers other modules use
    "default_routing", "needs_datelines", "is_open_loop",
    "ConfigError", "bad", "parse_int_list", "unknown_choice",
]
