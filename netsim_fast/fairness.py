"""Per-node throughput and Jain's fairness index, shared by the engines' summaries.

A saturated network can look healthy on average while some nodes starve: the minimum, the
maximum and Jain's index (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984) of the per-node rates
show it. Jain's index is (sum x)^2 / (N sum x^2): 1 when every node gets the same, 1/N when
one node gets everything.
"""

from __future__ import annotations

import numpy as np


def per_node_throughput(node: np.ndarray, amount: np.ndarray | None, n_nodes: int, cycles: int,
                        prefix: str = "accepted") -> dict:
    """``{prefix}_min``, ``{prefix}_max`` (per node per cycle) and, for ``accepted``,
    ``fairness_jain``, of ``amount`` (flits; None: one per entry) credited to ``node``."""
    weights = None if amount is None else amount.astype(np.float64)
    per_node = np.bincount(node.astype(np.int64), weights=weights, minlength=n_nodes)[:n_nodes] / max(cycles, 1)
    out = {f"{prefix}_min": float(per_node.min()), f"{prefix}_max": float(per_node.max())}
    if prefix == "accepted":
        squares = float((per_node ** 2).sum())
        out["fairness_jain"] = float(per_node.sum()) ** 2 / (n_nodes * squares) if squares > 0 else None
    return out
