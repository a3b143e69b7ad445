"""Plain-JSON encoding of summaries, configs and trace attributes.

One encoder for every writer (``run --json``, HDF5 trace attributes, sweep CSV cells), on the
ground floor so the trace never needs the CLI: numpy scalars and arrays become Python numbers
and lists, tuples become lists, and NaN or infinity become null so any JSON parser reads them.
"""

from __future__ import annotations

import math


def jsonable(obj):
    """``obj`` with every value made JSON-serialisable (see the module docstring)."""
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    return obj
