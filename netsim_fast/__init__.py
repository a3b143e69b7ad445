"""netsim-fast: a cycle-accurate interconnection-network simulator, Numba-accelerated.

Python builds arrays, Numba moves flits. Heavy modules load lazily so that
``import netsim_fast`` stays cheap (the CLI pays for what a command uses, nothing more).
"""

from __future__ import annotations


__all__ = ["__version__", "Config", "ConfigError", "SimulationError", "build_topology", "open_trace", "simulate"]

from netsim_fast._version import __version__  # noqa: E402
from netsim_fast.errors import ConfigError, SimulationError  # noqa: E402


def __getattr__(name):
    if name == "build_topology":
        from netsim_fast.topologies import build_topology

        return build_topology
    if name == "simulate":
        from netsim_fast.experiment import simulate

        return simulate
    if name == "open_trace":
        from netsim_fast.trace import open_trace

        return open_trace
    if name == "Config":
        from netsim_fast.config import Config

        return Config
    raise AttributeError(f"module 'netsim_fast' has no attribute {name!r}")
