"""The arbiters of BookSim2's separable allocators (docs/booksim-router.md, section 7).

An arbiter of ``size`` requesters picks one of the requests it was given (index, priority):

- round-robin: the highest priority; among equals the index nearest at or after the pointer
  (smallest ``(index - ptr) mod size``). ``rr_update`` moves the pointer to one past the winner;
- matrix: ``mat[i, j] = 1`` when i beats j (initially every higher index beats every lower
  one). With one request it wins; otherwise the lowest index that no other requester beats (by
  a higher priority, or by the same priority and the matrix). ``matrix_update`` makes the
  winner lose to everybody.

The owning allocator calls the update only for arbiters whose choice became part of the final
matching, as BookSim2 does.
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_JIT

NONE = -1


@njit(**KERNEL_JIT)
def rr_pick(idx, pri, n, ptr, size):
    best, best_pri, best_d = NONE, 0, 0
    for j in range(n):
        d = idx[j] - ptr
        if d < 0:
            d += size
        if best == NONE or pri[j] > best_pri or (pri[j] == best_pri and d < best_d):
            best, best_pri, best_d = idx[j], pri[j], d
    return best


@njit(**KERNEL_JIT)
def matrix_pick(idx, pri, n, mat):
    """``idx`` ascending. ``mat``: int8[size, size] of this arbiter."""
    if n == 1:
        return idx[0]
    for a in range(n):
        x = idx[a]
        wins = True
        for b in range(n):
            i = idx[b]
            if i != x and (pri[b] > pri[a] or (pri[b] == pri[a] and mat[i, x] == 1)):
                wins = False
                break
        if wins:
            return x
    return NONE


@njit(**KERNEL_JIT)
def matrix_update(mat, winner):
    for i in range(mat.shape[0]):
        if i != winner:
            mat[winner, i] = 0
            mat[i, winner] = 1

