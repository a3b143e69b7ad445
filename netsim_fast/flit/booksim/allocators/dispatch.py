"""One call for every allocator of the booksim router, by integer code (``KINDS``).

The caller fills the sparse request lists of the scratch (``b.in_req``, ``b.in_pri``,
``b.in_n``; ``b.out_req``, ``b.out_pri``, ``b.out_n``: see allocators/__init__.py; the counts
of inputs and outputs without requests are 0), lists the inputs and outputs with requests, and passes
the allocator's persistent state (pointers ``gptr``/``aptr``, a scalar ``sc``, matrix arbiters
``mat_in``/``mat_out``) of one router; the matching lands in ``b.match``. Dense allocators
(wavefront, pim, loa, max_size) get the requests as a matrix, built here and cleared after.

iSLIP, which ignores priorities, takes its requests as bit masks instead (``b.in_mask``,
``b.out_mask``) when it has at most ``MASK_BITS`` inputs and outputs (``request_masks``): adding
a request sets two bits, where the lists took two sorted insertions, and the scans from a
pointer are bit searches (allocators/islip.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_INLINE
from netsim_fast.flit.booksim.allocators.islip import islip, islip_masks
from netsim_fast.flit.booksim.allocators.loa import loa
from netsim_fast.flit.booksim.allocators.max_size import max_size
from netsim_fast.flit.booksim.allocators.pim import pim
from netsim_fast.flit.booksim.allocators.select import select
from netsim_fast.flit.booksim.allocators.separable import separable
from netsim_fast.flit.booksim.allocators.wavefront import wavefront

ISLIP, SEP_IN, SEP_OUT, WAVEFRONT, RR_WAVEFRONT, PIM, LOA, SELECT, MAX_SIZE = range(9)
KINDS = {"islip": ISLIP, "separable_input_first": SEP_IN, "separable_output_first": SEP_OUT,
         "wavefront": WAVEFRONT, "rr_wavefront": RR_WAVEFRONT, "pim": PIM, "loa": LOA, "select": SELECT,
         "max_size": MAX_SIZE}
ARBITERS = {"round_robin": 0, "matrix": 1}
MASK_BITS = 62  # the bits an int64 mask of requests uses, so that it stays positive


@njit(**KERNEL_INLINE)
def request_masks(kind, n_in, n_out):
    """Whether an allocation of ``kind`` keeps its requests as bit masks (iSLIP, small enough)."""
    return kind == ISLIP and n_in <= MASK_BITS and n_out <= MASK_BITS


@njit(**KERNEL_INLINE)
def _insert_sorted(req, pri, count, row, value, value_pri):
    """Add ``value`` (with its priority) to the ascending list ``req[row, :count[row]]``, after
    any equal value."""
    j = count[row]
    while j > 0 and req[row, j - 1] > value:
        req[row, j] = req[row, j - 1]
        pri[row, j] = pri[row, j - 1]
        j -= 1
    req[row, j] = value
    pri[row, j] = value_pri
    count[row] += 1


@njit(**KERNEL_INLINE)
def add_request(b, masks, i, o, in_pri, out_pri, ins, n_ins, outs, n_outs):
    """Input ``i`` requests output ``o`` (the two sides' priorities): both request lists, kept
    ascending (``masks``: both request masks), and the lists of inputs and outputs with requests
    (``ins[:n_ins]``, ``outs[:n_outs]``, in the order first seen). Returns the new ``n_ins, n_outs``."""
    if (b.in_mask[i] == 0) if masks else (b.in_n[i] == 0):
        ins[n_ins] = i
        n_ins += 1
    if (b.out_mask[o] == 0) if masks else (b.out_n[o] == 0):
        outs[n_outs] = o
        n_outs += 1
    if masks:
        b.in_mask[i] |= np.int64(1) << o
        b.out_mask[o] |= np.int64(1) << i
        return n_ins, n_outs
    _insert_sorted(b.in_req, b.in_pri, b.in_n, i, o, in_pri)
    _insert_sorted(b.out_req, b.out_pri, b.out_n, o, i, out_pri)
    return n_ins, n_outs


@njit(**KERNEL_INLINE)
def clear_requests(b, masks, ins, n_ins, outs, n_outs):
    """After an allocation: every request count (or mask) back to 0 for the next one."""
    if masks:
        for j in range(n_ins):
            b.in_mask[ins[j]] = 0
        for j in range(n_outs):
            b.out_mask[outs[j]] = 0
        return
    for j in range(n_ins):
        b.in_n[ins[j]] = 0
    for j in range(n_outs):
        b.out_n[outs[j]] = 0


@njit(**KERNEL_INLINE)
def _dense(b, n_in, value):
    for i in range(n_in):
        for j in range(b.in_n[i]):
            o = b.in_req[i, j]
            b.dense[i, o] = value
            b.dpin[i, o] = b.in_pri[i, j]
    if value:
        for o in range(b.out_req.shape[0]):
            for j in range(b.out_n[o]):
                b.dpout[b.out_req[o, j], o] = b.out_pri[o, j]


@njit(**KERNEL_INLINE)
def _pairs(b, n_in):
    """Distinct (output-side, input-side) priority pairs, highest first; the request count and
    the last request (wavefront)."""
    n_pairs, n_req, last_in, last_out = 0, 0, -1, -1
    for i in range(n_in):
        for j in range(b.in_n[i]):
            o = b.in_req[i, j]
            n_req += 1
            last_in, last_out = i, o
            po, pi = b.dpout[i, o], b.dpin[i, o]
            seen = False
            for q in range(n_pairs):
                if b.pairs[q, 0] == po and b.pairs[q, 1] == pi:
                    seen = True
                    break
            if not seen:
                q = n_pairs
                while q > 0 and (b.pairs[q - 1, 0] < po or (b.pairs[q - 1, 0] == po and b.pairs[q - 1, 1] < pi)):
                    b.pairs[q, 0], b.pairs[q, 1] = b.pairs[q - 1, 0], b.pairs[q - 1, 1]
                    q -= 1
                b.pairs[q, 0], b.pairs[q, 1] = po, pi
                n_pairs += 1
    return n_pairs, n_req, last_in, last_out


@njit(**KERNEL_INLINE)
def allocate(kind, iters, arb, n_in, n_out, ins, n_ins, outs, n_outs, b, gptr, aptr, sc, mat_in, mat_out, node, masks):
    """Run allocator ``kind`` for router ``node``; the matching is left in ``b.match``: the entry
    of every requesting input (``ins[:n_ins]``; ``outs[:n_outs]`` the requested outputs) is its
    output or NONE. iSLIP and the separable allocators visit only the listed inputs and outputs
    (a router's allocation sees a few requests among P x V inputs) and leave the other entries
    as they were; the dense allocators write every entry. ``masks``: the requests are in
    ``b.in_mask`` and ``b.out_mask`` (``request_masks``: iSLIP), not in the lists."""
    match, out_match = b.match, b.xgrant
    if masks:
        islip_masks(b.in_mask, b.out_mask, b.granted, ins, n_ins, outs, n_outs, n_in, n_out, gptr[node], aptr[node],
                    b.grant, out_match, match, iters)
    elif kind == ISLIP:
        islip(b.in_req, b.in_n, b.out_req, b.out_n, ins, n_ins, outs, n_outs, n_in, n_out, gptr[node], aptr[node],
              b.grant, out_match, match, iters)
    elif kind == SELECT:
        select(b.in_req, b.in_pri, b.in_n, b.out_req, b.out_pri, b.out_n, n_in, n_out, gptr[node], aptr[node],
               b.grant, out_match, match, iters)
    elif kind == SEP_IN:
        m_in = mat_in[node * n_in: (node + 1) * n_in] if arb else mat_in
        m_out = mat_out[node * n_out: (node + 1) * n_out] if arb else mat_out
        separable(b.in_req, b.in_pri, b.in_n, ins, n_ins, n_in, b.out_req, b.out_pri, b.out_n, outs, n_outs, n_out,
                  arb, aptr[node], m_in, gptr[node], m_out, b.fwd, b.fwd_pri, b.fwd_n, b.choice, match, out_match)
    elif kind == SEP_OUT:
        m_in = mat_in[node * n_in: (node + 1) * n_in] if arb else mat_in
        m_out = mat_out[node * n_out: (node + 1) * n_out] if arb else mat_out
        separable(b.out_req, b.out_pri, b.out_n, outs, n_outs, n_out, b.in_req, b.in_pri, b.in_n, ins, n_ins, n_in,
                  arb, gptr[node], m_out, aptr[node], m_in, b.fwd, b.fwd_pri, b.fwd_n, b.choice, out_match, match)
    else:
        _dense(b, n_in, 1)
        if kind == WAVEFRONT or kind == RR_WAVEFRONT:
            n_pairs, n_req, last_in, last_out = _pairs(b, n_in)
            sc[node] = wavefront(b.dense, b.dpin, b.dpout, n_in, n_out, n_req, last_in, last_out, sc[node],
                                 kind == RR_WAVEFRONT, b.pairs, n_pairs, match, out_match)
        elif kind == PIM:
            pim(b.dense, n_in, n_out, iters, b.rng, b.grant, match, out_match)
        elif kind == LOA:
            loa(b.dense, n_in, n_out, aptr[node], gptr[node], b.fwd_n, b.choice, match, out_match)
        else:
            sc[node] = max_size(b.dense, n_in, n_out, sc[node], b.fwd_n, b.choice, b.grant, match, out_match)
        _dense(b, n_in, 0)
