"""``gossip-naive``: the baseline a user tries first - every PU unicasts its packet to every other.

Section 1 of Meyer & Sibeyn (papers/003), "Practical Aspects": "one could gossip by letting PU_i
transfer its packet to PU_(i+t) mod P in Round t, 1 <= t <= P" (shift order). These are plain
unicast messages for the packet and flit engines (DESIGN.md workload arrays), not a
forwarding-rule plan; ``analytic.gossip.summary(dims, "gossip-naive")`` gives the bound fields.
"""

from __future__ import annotations

import numpy as np


def messages(n_nodes: int, size_flits: int = 1) -> dict:
    """Shift-order all-to-all unicast: round ``t`` (phase ``t - 1``) sends ``i -> (i + t) mod P``.

    Returns
    -------
    dict of numpy arrays, each of length ``P * (P - 1)`` in per-source injection order:
    ``src``, ``dst`` (int32), ``size_flits`` (int32), ``release_cycle`` (int64, all 0) and
    ``phase`` (int32, the round minus one).
    """
    p = int(n_nodes)
    src = np.repeat(np.arange(p, dtype=np.int32), p - 1)
    rounds = np.tile(np.arange(1, p, dtype=np.int32), p)
    return {
        "src": src,
        "dst": ((src.astype(np.int64) + rounds) % p).astype(np.int32),
        "size_flits": np.full(src.size, size_flits, np.int32),
        "release_cycle": np.zeros(src.size, np.int64),
        "phase": rounds - 1,
    }
