"""Names and constants every engine's summary shares, on the ground floor so that the engines,
the sweeps and the trace agree on them without importing one another.
"""

SATURATION_RATIO = 0.95  # accepted < 0.95 x offered: the run is saturated
HISTOGRAM_BINS = 32  # bins of the latency histogram in a summary

# Keys that measure the machine, not the network: kept out of traces' summaries and of
# determinism checks.
WALL_CLOCK_KEYS = ("sim_seconds", "sim_cpu_seconds", "compile_seconds", "flit_hops_per_second", "cycles_per_second",
                   "peak_rss_mib")
PACKET_WALL_CLOCK_KEYS = ("sim_seconds", "route_seconds", "compile_seconds", "packet_hops_per_second",
                          "cycles_per_second", "peak_rss_mib")
