"""BookSim2's separable allocators, input-first and output-first (docs/booksim-router.md, 7).

Input-first: every input with requests (ascending) lets its arbiter (over outputs, input-side
priorities) pick one output and forwards the request, with its output-side priority, to that
output's arbiter; every output with forwarded requests (ascending) picks one; the pair matches
and both arbiters update. Output-first is the mirror image. Arbiters are round-robin
(``arb = 0``) or matrix (``arb = 1``); their state persists in ``ptr_in`` / ``ptr_out`` or
``mat_in`` / ``mat_out``.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.flit.booksim.allocators.arbiters import matrix_pick, matrix_update, rr_pick

NONE = -1


@njit(**KERNEL_JIT)
def _pick(arb, idx, pri, n, ptr, mats, who, size):
    if arb == 0:
        return rr_pick(idx, pri, n, ptr[who], size)
    return matrix_pick(idx, pri, n, mats[who])


@njit(**KERNEL_JIT)
def _update(arb, ptr, mats, who, winner, size):
    if arb == 0:
        ptr[who] = winner + 1 if winner + 1 < size else 0
    else:
        matrix_update(mats[who], winner)


@njit(**KERNEL_JIT)
def separable(first_req, first_pri, first_n, firsts, n_firsts, n_first, second_req, second_pri, second_n, seconds,
              n_seconds, n_second, arb, ptr_first, mat_first, ptr_second, mat_second, fwd, fwd_pri, fwd_n, choice,
              match_first, match_second):
    """One separable pass: "first" is the side that arbitrates first (inputs for input-first).

    ``firsts[:n_firsts]`` and ``seconds[:n_seconds]`` list the two sides' members with requests,
    in any order: each arbiter picks on its own, and a matrix arbiter's order is total, so its
    pick does not depend on the order it reads the requests in. ``fwd`` (n_second x n_first),
    ``fwd_pri``, ``fwd_n`` (n_second) and ``choice`` (n_first) are scratch. Writes
    ``match_first`` and ``match_second`` of the listed members."""
    for j in range(n_seconds):
        s = seconds[j]
        fwd_n[s] = 0
        match_second[s] = NONE
    for j in range(n_firsts):
        f = firsts[j]
        match_first[f] = NONE
        s = _pick(arb, first_req[f], first_pri[f], first_n[f], ptr_first, mat_first, f, n_second)
        choice[f] = s
        # the second side's priority of this request
        for q in range(second_n[s]):
            if second_req[s, q] == f:
                fwd[s, fwd_n[s]] = f
                fwd_pri[s, fwd_n[s]] = second_pri[s, q]
                fwd_n[s] += 1
                break
    for j in range(n_seconds):
        s = seconds[j]
        if fwd_n[s] == 0:
            continue
        f = _pick(arb, fwd[s], fwd_pri[s], fwd_n[s], ptr_second, mat_second, s, n_first)
        match_first[f] = s
        match_second[s] = f
        _update(arb, ptr_first, mat_first, f, s, n_second)
        _update(arb, ptr_second, mat_second, s, f, n_first)
