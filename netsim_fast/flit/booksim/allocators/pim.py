"""Parallel iterative matching (Anderson et al.), as BookSim2's ``pim`` runs it
(docs/booksim-router.md, 7): each iteration every output draws a start and grants the first
requesting input from there (cyclically) while both are free; every input draws a start and
accepts the first output from there that granted it. One draw per output and per input per
iteration, requested or not; priorities play no part. The draws are the router's own
generator's, not BookSim2's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def draw(rng, m):
    """A uniform integer in [0, m) from the xorshift64 state ``rng[0]``."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return np.int64(x % np.uint64(m))


@njit(**KERNEL_JIT)
def pim(req, n_in, n_out, iters, rng, grant, match, out_match):
    for i in range(n_in):
        match[i] = NONE
    for o in range(n_out):
        out_match[o] = NONE
    for _ in range(iters):
        for o in range(n_out):
            grant[o] = NONE
            start = draw(rng, n_in)
            for j in range(n_in):
                i = (j + start) % n_in
                if req[i, o] and match[i] == NONE and out_match[o] == NONE:
                    grant[o] = i
                    break
        for i in range(n_in):
            start = draw(rng, n_out)
            for j in range(n_out):
                o = (j + start) % n_out
                if grant[o] == i:
                    match[i] = o
                    out_match[o] = i
                    break
