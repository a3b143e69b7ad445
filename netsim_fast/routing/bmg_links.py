"""Links of the binomial graph (BMG) as arithmetic, for the BMG next-hop kernels.

Node ``i`` of an ``n``-node BMG links to ``i + 2**a`` and ``i - 2**a`` (mod ``n``) for every
``2**a < n`` (``2**a = n`` would be a self-loop). When ``2**a + 2**b = n`` the links ``+2**a`` and
``-2**b`` reach the same node and count once, so the degree follows eq. (1) of Angskun et al.
(papers/001), reading ``n = 2**k + 2**j`` with ``j = 0`` allowed. The routers never build the
graph: they work on the clockwise distance ``d = (dst - cur) mod n``, on which everything
depends because the graph is circulant.

Neighbour order (it breaks ties in the greedy rules): clockwise ``+1, +2, +4, ..., +2**K``, then
counter-clockwise ``-1, -2, ..., -2**K``, where ``2**K`` is the largest jump; a counter-clockwise
link that coincides with a clockwise one is skipped (its clockwise copy came first). This is the
order of the paper's definition of U (section 1).
"""

from numba import njit

from netsim_fast._jit import JIT


@njit(**JIT)
def popcount(x):
    """Number of set bits of a non-negative int64, in O(1) (parallel bit counting).

    Notes
    -----
    The "first class" of fast bit counting in Angskun et al. (papers/001), section 3.1: sum the
    bits in 2-, 4- and 8-bit groups at once, then add the bytes with one multiplication.
    """
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    # Byte 7 of the product is the sum of all bytes (<= 64). Compiled, the int64 product wraps
    # and its sign bit stays clear; in plain Python (NUMBA_DISABLE_JIT) the mask drops the rest.
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(**JIT)
def high_bit(x):
    """Largest power of two ``<= x`` for ``x >= 1`` (0 for ``x = 0``)."""
    x |= x >> 1
    x |= x >> 2
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    x |= x >> 32
    return x - (x >> 1)


@njit(**JIT)
def top_exp(n):
    """Exponent ``K`` of the largest jump: ``2**K < n <= 2**(K+1)`` (``n >= 2``), in O(1)."""
    return popcount(high_bit(n - 1) - 1)


@njit(**JIT)
def n_slots(k):
    """Number of neighbour slots before de-duplication: ``2 * (K + 1)``."""
    return 2 * (k + 1)


@njit(**JIT)
def slot_offset(n, k, i):
    """Clockwise offset of neighbour slot ``i`` (see the module order), or -1 for a duplicate.

    Parameters
    ----------
    n : int
        Number of nodes.
    k : int
        ``top_exp(n)``.
    i : int
        Slot, ``0 <= i < n_slots(k)``: slots ``0..K`` are ``+2**i``, slots ``K+1..2K+1`` are
        ``-2**(i-K-1)``.

    Returns
    -------
    int
        The offset in ``1..n-1`` to add to the current node (mod ``n``), or -1 when the
        counter-clockwise link coincides with an earlier clockwise one (``n - 2**b`` is a
        power of two).
    """
    if i <= k:
        return 1 << i
    off = n - (1 << (i - k - 1))
    if off & (off - 1) == 0:
        return -1
    return off


@njit(**JIT)
def is_link(n, x):
    """True when the clockwise distance ``x`` (``0 < x < n``) is one hop: ``x`` or ``n - x`` is a power of two."""
    y = n - x
    return (x & (x - 1)) == 0 or (y & (y - 1)) == 0


@njit(**JIT)
def degree(n):
    """Number of distinct neighbours of a node (eq. (1) of papers/001 for every ``n >= 3``)."""
    k = top_exp(n)
    count = 0
    for i in range(n_slots(k)):
        if slot_offset(n, k, i) >= 0:
            count += 1
    return count
