"""BookSim2's lonely output allocator ``loa`` (docs/booksim-router.md, 7): every input picks,
scanning from its request pointer, the requested output with the fewest requests (first seen
wins ties); every output grants, scanning from its grant pointer, the first input that picked
it, and then both pointers advance by one (not to the winner). Priorities play no part."""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def loa(req, n_in, n_out, rptr, gptr, counts, pick, match, out_match):
    for o in range(n_out):
        out_match[o] = NONE
        counts[o] = 0
        for i in range(n_in):
            if req[i, o]:
                counts[o] += 1
    for i in range(n_in):
        match[i] = NONE
        pick[i] = NONE
        best = n_in + 1
        for j in range(n_out):
            o = (j + rptr[i]) % n_out
            if req[i, o] and counts[o] < best:
                pick[i] = o
                best = counts[o]
    for o in range(n_out):
        for j in range(n_in):
            i = (j + gptr[o]) % n_in
            if pick[i] == o:
                match[i] = o
                out_match[o] = i
                rptr[i] = (rptr[i] + 1) % n_out
                gptr[o] = (gptr[o] + 1) % n_in
                break
