"""workloads.

Importing the package imports the modules that register pattern names (``registry.py``), so
the registry is complete whichever workload module is imported first.
"""

from netsim_fast.workloads import finite, synthetic, total_exchange  # noqa: F401  (they register their patterns)
