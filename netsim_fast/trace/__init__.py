"""HDF5 traces: one versioned schema shared by every engine (README, "Trace file")."""

from netsim_fast.trace.reader import Trace, open_trace
from netsim_fast.trace.writer import SCHEMA_VERSION, write_trace

__all__ = ["SCHEMA_VERSION", "Trace", "open_trace", "write_trace"]
