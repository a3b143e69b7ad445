"""BookSim2's ``select`` allocator (docs/booksim-router.md, 7): iSLIP with priorities. Grant:
each free output with requests scans the inputs from its grant pointer and takes the free one
with the highest output-side priority (first seen wins ties); accept: each input scans its
outputs from its accept pointer and takes, among those granting it, the one with the highest
input-side priority. Pointers move on first-iteration accepts. The grants are not cleared
between iterations (BookSim2's behaviour, kept)."""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def select(in_req, in_pri, in_n, out_req, out_pri, out_n, n_in, n_out, gptr, aptr, grant, out_match, match, iters):
    for i in range(n_in):
        match[i] = NONE
    for o in range(n_out):
        out_match[o] = NONE
        grant[o] = NONE
    for it in range(iters):
        for o in range(n_out):
            n = out_n[o]
            if n == 0 or out_match[o] != NONE:
                continue
            start = 0
            while start < n and out_req[o, start] < gptr[o]:
                start += 1
            best, best_pri = NONE, 0
            for j in range(n):
                k = (start + j) % n
                i = out_req[o, k]
                if match[i] == NONE and (best == NONE or out_pri[o, k] > best_pri):
                    best, best_pri = i, out_pri[o, k]
            if best != NONE:
                grant[o] = best
        for i in range(n_in):
            n = in_n[i]
            if n == 0:
                continue
            start = 0
            while start < n and in_req[i, start] < aptr[i]:
                start += 1
            best, best_pri = NONE, 0
            for j in range(n):
                k = (start + j) % n
                o = in_req[i, k]
                if grant[o] == i and (best == NONE or in_pri[i, k] > best_pri):
                    best, best_pri = o, in_pri[i, k]
            if best != NONE:
                match[i] = best
                out_match[best] = i
                if it == 0:
                    gptr[best] = (i + 1) % n_in
                    aptr[i] = (best + 1) % n_out
