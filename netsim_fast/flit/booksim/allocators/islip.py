"""iSLIP (McKeown), as BookSim2's ``islip`` allocator runs it (docs/booksim-router.md, section 7).

Each iteration: every unmatched output with requests grants the first unmatched requesting
input at or after its grant pointer (cyclically); every input with requests accepts the first
granting output at or after its accept pointer (cyclically). An accept in the first iteration
moves the output's grant pointer to one past the input and the input's accept pointer to one
past the output. Priorities play no part.

Priorities playing no part, the requests can be kept as bit masks instead of sorted lists
(``islip_masks``, which allocators/dispatch.py uses for up to 62 inputs and outputs): a
request is one bit set, a scan from a pointer a bit search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._bits import lowest_set_bit
from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def _first_from(lst, n, ptr, taken):
    """The first entry of ascending ``lst[:n]`` at or after ``ptr``, cyclically, whose
    ``taken`` value is NONE; NONE if there is none."""
    start = 0
    while start < n and lst[start] < ptr:
        start += 1
    for j in range(n):
        k = start + j
        if k >= n:
            k -= n
        x = lst[k]
        if taken[x] == NONE:
            return x
    return NONE


@njit(**KERNEL_JIT)
def _unmatch(ins, n_ins, outs, n_outs, match, out_match):
    """Every requesting input and requested output unmatched, before the first iteration."""
    for j in range(n_ins):
        match[ins[j]] = NONE
    for j in range(n_outs):
        out_match[outs[j]] = NONE


@njit(**KERNEL_JIT)
def _accept(i, o, first, n_in, n_out, gptr, aptr, match, out_match):
    """Input ``i`` accepts output ``o``; in the first iteration the output's grant pointer moves
    to one past the input and the input's accept pointer to one past the output."""
    match[i] = o
    out_match[o] = i
    if first:
        gptr[o] = i + 1 if i + 1 < n_in else 0
        aptr[i] = o + 1 if o + 1 < n_out else 0


@njit(**KERNEL_JIT)
def islip(in_req, in_n, out_req, out_n, ins, n_ins, outs, n_outs, n_in, n_out, gptr, aptr, grant, out_match, match,
          iters):
    """Match inputs to outputs; ``match[i]`` gets input ``i``'s output (NONE if none) for each
    requesting input ``ins[:n_ins]``; ``outs[:n_outs]`` are the requested outputs (either list in
    any order: within an iteration every output grants on its own, and every input accepts on
    its own, as each output grants one input at most).

    ``grant`` (n_out) and ``out_match`` (n_out) are scratch; ``gptr`` (n_out) and ``aptr``
    (n_in) are the persistent pointers, updated in place."""
    _unmatch(ins, n_ins, outs, n_outs, match, out_match)
    for it in range(iters):
        for j in range(n_outs):
            o = outs[j]
            grant[o] = NONE
            if out_match[o] != NONE:
                continue
            grant[o] = _first_from(out_req[o], out_n[o], gptr[o], match)
        for j in range(n_ins):
            i = ins[j]
            n = in_n[i]
            start = 0
            while start < n and in_req[i, start] < aptr[i]:
                start += 1
            for q in range(n):
                k = start + q
                if k >= n:
                    k -= n
                o = in_req[i, k]
                if grant[o] == i:
                    _accept(i, o, it == 0, n_in, n_out, gptr, aptr, match, out_match)
                    break


@njit(**KERNEL_JIT)
def _first_at_or_after(mask, ptr):
    """The lowest set bit of non-zero ``mask`` at or after bit ``ptr``, else its lowest: the
    first entry from ``ptr`` on, cyclically."""
    later = mask & ~((np.int64(1) << ptr) - 1)
    return lowest_set_bit(later if later != 0 else mask)


@njit(**KERNEL_JIT)
def islip_masks(in_mask, out_mask, granted, ins, n_ins, outs, n_outs, n_in, n_out, gptr, aptr, grant, out_match,
                match, iters):
    """``islip`` on requests kept as bit masks (``in_mask[i]``: the outputs input ``i``
    requests; ``out_mask[o]``: the inputs requesting output ``o``; at most 62 of either), with
    the same grants, accepts and pointer moves: a cyclic scan of an ascending list from a
    pointer is the lowest set bit at or after it. ``granted`` (n_in, zero) is scratch: the
    outputs granting each input in this iteration."""
    _unmatch(ins, n_ins, outs, n_outs, match, out_match)
    matched = np.int64(0)  # inputs matched so far
    for it in range(iters):
        for j in range(n_outs):
            o = outs[j]
            grant[o] = NONE
            if out_match[o] != NONE:
                continue
            free = out_mask[o] & ~matched
            if free != 0:
                i = _first_at_or_after(free, gptr[o])
                grant[o] = i
                granted[i] |= np.int64(1) << o
        for j in range(n_ins):
            i = ins[j]
            if granted[i] == 0:
                continue
            o = _first_at_or_after(granted[i], aptr[i])
            granted[i] = 0
            _accept(i, o, it == 0, n_in, n_out, gptr, aptr, match, out_match)
            matched |= np.int64(1) << i
