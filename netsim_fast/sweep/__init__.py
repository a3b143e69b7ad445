"""Parameter sweeps: a grid of Configs run on Dask, results in one table (README, "Sweeps").

``load_spec`` reads and validates a spec into a ``SweepSpec``; ``run_sweep`` runs what its
results table lacks on a LocalCluster or an existing Dask cluster; ``load_results`` gives the
table as a pandas DataFrame.
"""

from netsim_fast.sweep.execute import SweepReport, dask_client, find_scheduler, run_sweep
from netsim_fast.sweep.spec import Point, SweepSpec, derive_seed, load_spec, point_id, spec_from_dict
from netsim_fast.sweep.table import load_results

from netsim_fast.summary_keys import PACKET_WALL_CLOCK_KEYS, WALL_CLOCK_KEYS

# Columns that measure the machine, not the network: left out when comparing two sweeps.
NONDETERMINISTIC_COLUMNS = tuple(dict.fromkeys(("worker", "wall_seconds", *WALL_CLOCK_KEYS, *PACKET_WALL_CLOCK_KEYS)))

__all__ = [
    "NONDETERMINISTIC_COLUMNS", "Point", "SweepReport", "SweepSpec", "dask_client", "derive_seed",
    "find_scheduler", "load_results", "load_spec", "point_id", "run_sweep", "spec_from_dict",
]
