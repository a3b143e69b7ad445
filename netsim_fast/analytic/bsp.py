"""The BSP cost model: superstep time ``w + g*h + l`` and the time of a program of supersteps.

A BSP program is described here only by what its cost depends on: for each superstep the
largest number of local operations of any processor (``w``) and the degree of the h-relation it
routes (``h`` = the largest number of messages sent or received by any processor).

Notes
-----
Bilardi et al., "BSP vs LogP" (papers/002), section 2.1, eq. (1): ``T_superstep = w + g h + l``;
the time of a computation is the sum over its supersteps. ``l`` bounds a barrier alone
(``w = h = 0``) and ``g + l`` bounds the routing of a partial permutation (``h = 1``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from netsim_fast.errors import ConfigError


@dataclass(frozen=True)
class BSPParams:
    """Bandwidth and latency parameters of a BSP machine.

    Parameters
    ----------
    g : float
        Gap: time units per message of an h-relation (reciprocal bandwidth per processor), >= 0.
    l : float
        Latency / barrier cost of a superstep, >= 0.
    """

    g: float
    l: float  # noqa: E741 (the paper's name)

    def __post_init__(self):
        for name in ("g", "l"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ConfigError(f"BSP parameter {name} must be a finite number >= 0; got {value!r}")


def superstep_time(w, h, g, l):  # noqa: E741
    """Time of one superstep (or of many, element-wise).

    Parameters
    ----------
    w : int or array of int
        Largest number of local operations of any processor in the superstep, >= 0.
    h : int or array of int
        Degree of the routed h-relation, >= 0.
    g, l : float
        BSP parameters (see ``BSPParams``).

    Returns
    -------
    float or float64 array
        ``w + g*h + l`` (papers/002, eq. (1)).
    """
    w = np.asarray(w)
    h = np.asarray(h)
    if np.any(w < 0) or np.any(h < 0):
        raise ConfigError("superstep w and h must be >= 0 (local operations and relation degree); "
                          f"got w={w.tolist()}, h={h.tolist()}")
    out = w + g * h + l
    return float(out) if out.ndim == 0 else out.astype(np.float64)


def program_time(supersteps, g, l):  # noqa: E741
    """Predicted time of a BSP program given as a list of supersteps ``(w, h)``.

    Parameters
    ----------
    supersteps : array-like, shape (n, 2)
        Row ``k`` is ``(w_k, h_k)`` of superstep ``k``.
    g, l : float
        BSP parameters.

    Returns
    -------
    float
        ``sum_k (w_k + g h_k + l)``.
    """
    steps = np.asarray(supersteps, dtype=np.int64).reshape(-1, 2)
    if steps.shape[0] == 0:
        return 0.0
    return float(np.sum(superstep_time(steps[:, 0], steps[:, 1], g, l)))
