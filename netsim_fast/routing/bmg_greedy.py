"""Greedy BMG next hops: the paper's basic and variant rules and a Chord-like rule.

All functions take ``(n, cur, dst)`` with ``0 <= cur, dst < n`` and return the next node
(``cur`` itself when ``cur == dst``). They do not remember anything between hops, so whether a
route ends is a property of the rule; the walkers in ``routing.bmg`` cap the hop count.

Ambiguity: "closest ID" (Algorithm 2 of Angskun et al., papers/001, line 4:
``Distance <- |destID - neighborID[i]|``). The default reading is *circular*: the distance
between two IDs is ``min(|a - b|, n - |a - b|)``. It reproduces Tables 1 and 2 (basic 5.55514 %
/ 0.454055 hops, variant 4.69238 % / 0.449155 hops, see docs/bmg.md). The literal *linear*
reading ``|a - b|`` is kept as ``*_linear``: it is not translation-invariant and gives a maximum
diameter overhead of 4 hops already for n < 400, where the paper reports 2.
"""

from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.routing.bmg_links import high_bit, is_link, n_slots, slot_offset, top_exp


@njit(**JIT)
def _id_distance(n, a, b, circular):
    """Distance between IDs ``a`` and ``b``: circular (default reading) or linear ``|a - b|``."""
    x = abs(a - b)
    if circular and n - x < x:
        return n - x
    return x


@njit(**JIT)
def _closest(n, cur, dst, circular):
    """Algorithm 2 of papers/001: the first neighbour (module order) with the smallest ID distance."""
    k = top_exp(n)
    best = n + 1
    nxt = cur
    for i in range(n_slots(k)):
        off = slot_offset(n, k, i)
        if off < 0:
            continue
        nb = (cur + off) % n
        dist = _id_distance(n, dst, nb, circular)
        if dist < best:  # strict, as in Algorithm 2: the earliest neighbour wins a tie
            best = dist
            nxt = nb
    return nxt


@njit(**JIT)
def basic_next(n, cur, dst, circular):
    """Next hop of the basic sub-optimal rule (papers/001, section 2.2, Algorithm 2).

    Parameters
    ----------
    n, cur, dst : int
        Nodes and the current and destination node.
    circular : bool
        True for the circular ID distance (the reading that reproduces Tables 1-2).

    Returns
    -------
    int
        The neighbour whose ID is closest to ``dst``; ``cur`` if ``cur == dst``.
    """
    if cur == dst:
        return cur
    return _closest(n, cur, dst, circular)


@njit(**JIT)
def variant_next(n, cur, dst, circular):
    """Next hop of the variant rule (papers/001, section 2.3).

    Go to ``dst`` if it is a neighbour; otherwise to the first neighbour (module order) that is
    adjacent to ``dst``, even if another neighbour is closer; otherwise as the basic rule.

    Notes
    -----
    The paper scans the neighbours of every neighbour, O(degree**2); adjacency in a circulant
    is arithmetic (``is_link``), so this is O(degree) with the same result.
    """
    if cur == dst:
        return cur
    d = (dst - cur) % n
    if is_link(n, d):
        return dst
    k = top_exp(n)
    for i in range(n_slots(k)):
        off = slot_offset(n, k, i)
        if off < 0:
            continue
        if is_link(n, (d - off) % n):
            return (cur + off) % n
    return _closest(n, cur, dst, circular)


@njit(**JIT)
def chord_next(n, cur, dst):
    """Next hop of a Chord-like greedy rule on the BMG (for the comparison of papers/001, Fig. 3).

    Take the largest power-of-two jump not exceeding the remaining distance in the shorter
    direction (clockwise on a tie). The remaining shorter distance strictly decreases, so routes
    end after at most ``popcount(min(d, n - d))`` hops.

    Notes
    -----
    This is a Chord-like rule of our own, not the optimal undirected-Chord routing of the paper's
    reference [36] (Ganesan and Manku), which is not available to us; unlike Fig. 3, it is not
    optimal for powers of two (e.g. distance 7 takes 3 hops where 8 - 1 takes 2).
    """
    if cur == dst:
        return cur
    d = (dst - cur) % n
    if d <= n - d:
        return (cur + high_bit(d)) % n
    return (cur - high_bit(n - d)) % n
