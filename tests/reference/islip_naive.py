"""iSLIP written from McKeown's description and docs/booksim-router.md section 7, on a dense
boolean request matrix, one Python loop per step: the reference of
netsim_fast/flit/booksim/allocators/islip.py."""

from __future__ import annotations


def islip(req, gptr, aptr, iters=1):
    """``req[i][o]`` True when input i requests output o. Returns ``match`` (output per input,
    -1); updates the pointer lists in place (first-iteration accepts only)."""
    n_in, n_out = len(req), len(req[0]) if req else 0
    match, out_match = [-1] * n_in, [-1] * n_out
    for it in range(iters):
        grant = [-1] * n_out
        for o in range(n_out):
            if out_match[o] != -1:
                continue
            for j in range(n_in):
                i = (gptr[o] + j) % n_in
                if req[i][o] and match[i] == -1:
                    grant[o] = i
                    break
        for i in range(n_in):
            for j in range(n_out):
                o = (aptr[i] + j) % n_out
                if req[i][o] and grant[o] == i:
                    match[i], out_match[o] = o, i
                    if it == 0:
                        gptr[o], aptr[i] = (i + 1) % n_in, (o + 1) % n_out
                    break
    return match
