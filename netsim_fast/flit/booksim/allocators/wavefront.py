"""BookSim2's wavefront allocator and its ``rr_wavefront`` variant (docs/booksim-router.md, 7).

On a square of ``S = max(inputs, outputs)``: for each distinct (output-side, input-side)
priority pair present, highest first, sweep the diagonals ``p = 0..S-1`` from the diagonal
pointer ``pri`` and grant every cell ``(i = (pri + p + S - o) mod S, o)`` that requests with
exactly that pair while both ends are free. A lone request is granted directly. Afterwards
``pri`` moves one on (wavefront) or to one past the first granted diagonal ``i + o``
(rr_wavefront), modulo S.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def wavefront(req, pin, pout, n_in, n_out, n_req, last_in, last_out, pri, skip_diags, pairs, n_pairs,
              match, out_match):
    """``req`` int8[n_in, n_out] dense requests with priorities ``pin``/``pout``; ``pairs``
    (n_pairs x 2, (out_pri, in_pri)) the distinct priority pairs, sorted highest first.
    Returns the new diagonal pointer."""
    for i in range(n_in):
        match[i] = NONE
    for o in range(n_out):
        out_match[o] = NONE
    square = max(n_in, n_out)
    if n_req == 0:
        return pri
    first_diag = -1
    if n_req == 1:
        match[last_in] = last_out
        out_match[last_out] = last_in
        first_diag = last_in + last_out
    else:
        for q in range(n_pairs):
            po, pi = pairs[q, 0], pairs[q, 1]
            for p in range(square):
                for o in range(square):
                    i = (pri + p + square - o) % square
                    if (i < n_in and o < n_out and match[i] == NONE and out_match[o] == NONE and req[i, o]
                            and pin[i, o] == pi and pout[i, o] == po):
                        match[i] = o
                        out_match[o] = i
                        if first_diag < 0:
                            first_diag = i + o
    return ((first_diag if skip_diags else pri) + 1) % square
