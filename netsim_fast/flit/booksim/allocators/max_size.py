"""BookSim2's ``max_size`` allocator (docs/booksim-router.md, 7): a maximum matching by
repeated shortest augmenting paths (breadth-first from the unmatched inputs listed from the
rotation index ``prio``, outputs ascending), after which ``prio`` advances by one.
Priorities play no part. Only square allocations (inputs = outputs) are run here, where
BookSim2's reached-marks array is in range."""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def _augment(req, n_in, n_out, prio, match, out_match, frm, s, ns):
    slen = 0
    for k in range(n_in):
        j = (k + prio) % n_in
        if match[j] == NONE:
            s[slen] = j
            slen += 1
    for j in range(n_out):
        frm[j] = NONE
    for _ in range(n_in):
        nslen = 0
        for e in range(slen):
            i = s[e]
            for j in range(n_out):
                if req[i, j] and match[i] != j and frm[j] == NONE:
                    frm[j] = i
                    if out_match[j] == NONE:
                        i = frm[j]
                        out_match[j] = i
                        while match[i] != NONE:
                            jn = match[i]
                            match[i] = j
                            j = jn
                            i = frm[j]
                            out_match[j] = i
                        match[i] = j
                        return True
                    ns[nslen] = out_match[j]
                    nslen += 1
        for e in range(nslen):
            s[e] = ns[e]
        slen = nslen
    return False


@njit(**KERNEL_JIT)
def max_size(req, n_in, n_out, prio, frm, s, ns, match, out_match):
    """Returns the new rotation index."""
    for i in range(n_in):
        match[i] = NONE
    for o in range(n_out):
        out_match[o] = NONE
    while _augment(req, n_in, n_out, prio, match, out_match, frm, s, ns):
        pass
    return (prio + 1) % n_in
