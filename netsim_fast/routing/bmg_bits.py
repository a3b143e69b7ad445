"""Hop-estimating BMG routers: bit counting, consecutive-bit elimination, equivalence classes.

Angskun et al. (papers/001), section 3: a route from ``cur`` to ``dst`` is a sum of signed jumps
``+-2**a`` (``2**a < n``) that equals the clockwise distance ``d = (dst - cur) mod n`` modulo
``n``. Each method writes a target ``T = d + m*n`` as such a sum (a *representation*) and counts
its terms (the *hop estimate*); the next hop is one jump of the cheapest representation found.
An estimate is always the length of a real walk, so it never undercounts.

- bit counting (3.1): ``T`` in {d, d - n}, the set bits of ``|T|`` (one jump per bit).
- consecutive-bit elimination, CBE (3.2): ``T`` in {d, d - n}, runs of ones become a carry and a
  negative jump (``0111 = 1000 - 0001``): ``cbe`` with ``check_11`` of Fig. 8, and ``naf``, the
  same representation in O(1), which the routers use.
- equivalence classes (3.3): CBE over ``T = d + m*n``, ``-max(l, 1) <= m <= l`` for ``l`` loops,
  i.e. ``d``, ``|d +- l*n|`` and, for l = 0, the counter-clockwise ``n - d``. With l = 0 it is
  CBE. l >= 4 is optimal for every n in 16..4096 (proved by exhaustion in analytic.bmg).

Ambiguity: what CBE does at the top. The paper stops "when the result after adding is more than
j_m" (the largest jump) and does not say how ``T > j_m`` (every loop candidate) is counted.
Our reading: a target splits as ``T = c * 2**K + v`` with ``|v| < 2**K`` (``2**K`` the largest
jump), ``c`` copies of the largest jump plus CBE of ``v``; both roundings of ``c`` are tried.
This is the least number of jumps for that ``T`` (a term above ``2**K`` is not a link), and it
gives Table 1's CBE average 1.28199 % exactly, which none of the literal stop rules did (see
docs/bmg.md, bench/bmg_readings.py).

Which jump to take (the paper: "it does not matter the order"): the largest term of the chosen
representation; ties between representations go to the first one found, in the order
m = 0, -1, 1, -2, 2, ... (fewer loops first, clockwise first), c rounded down first.
"""

from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.routing.bmg_links import high_bit, n_slots, popcount, slot_offset, top_exp

BIG = 1 << 40
"""Larger than any hop estimate."""


@njit(**JIT)
def check_11(d):
    """Least significant bit of the lowest pair of adjacent set bits of ``d``, 0 if none.

    Notes
    -----
    Fig. 8 of papers/001: skip the zero bits, comparing each lowest set bit with the previous one.
    """
    prev_lsf = -1
    while d:
        lsf = d & -d
        if (prev_lsf << 1) == lsf:
            return prev_lsf
        d &= d - 1
        prev_lsf = lsf
    return 0


@njit(**JIT)
def cbe(x):
    """Consecutive-bit elimination of ``x >= 0`` (papers/001, section 3.2).

    Returns
    -------
    plus, minus : int
        ``x = plus - minus``; neither has two adjacent set bits, and ``popcount(plus) +
        popcount(minus)`` is the number of jumps (the weight of the non-adjacent form of ``x``).
    """
    plus = x
    minus = 0
    while True:
        c = check_11(plus)
        if c == 0:
            return plus, minus
        plus += c
        minus += c


@njit(**JIT)
def naf(x):
    """``cbe(x)`` in O(1): the non-adjacent form of ``x >= 0`` from ``x`` and ``3x``.

    CBE turns every run of ones into a carry and a negative jump, which is the non-adjacent form
    (NAF), and the NAF is unique: its nonzero digits sit where ``x`` and ``3x`` differ (one place
    higher), positive where ``3x`` has the one. Tests check ``naf == cbe`` for every ``x < 2**16``.

    Returns
    -------
    plus, minus : int
        As ``cbe``.
    """
    diff = x ^ (3 * x)
    return ((3 * x) & diff) >> 1, (x & diff) >> 1


@njit(**JIT)
def n_candidates(loops):
    """Number of targets ``T = d + m*n`` tried with ``loops`` loops: 2 for l = 0, else ``2l + 1``."""
    return 2 if loops == 0 else 2 * loops + 1


@njit(**JIT)
def candidate_m(j):
    """``m`` of the ``j``-th target: 0, -1, 1, -2, 2, ... (fewer loops first, clockwise first).

    The targets of ``l`` loops are the first ``n_candidates(l)`` of this sequence, so a larger
    ``l`` only adds targets and never raises an estimate.
    """
    return -((j + 1) // 2) if j % 2 else j // 2


@njit(**JIT)
def split_rep(t, k, use_cbe, literal):
    """Cheapest representation of the target ``|t|`` with jumps up to ``2**k``.

    Parameters
    ----------
    t : int
        Target (its sign is the caller's business).
    k : int
        Exponent of the largest jump.
    use_cbe : bool
        False for bit counting: only ``|t| < 2**(k+1)`` makes sense, and its set bits are the jumps.
    literal : bool
        True: run the CBE of Fig. 8 (``cbe``); False: the same representation in O(1) (``naf``).

    Returns
    -------
    weight, copies, plus, minus : int
        ``|t| = copies * 2**k + plus - minus`` with ``weight = copies + popcount(plus) +
        popcount(minus)`` jumps, every one a link.
    """
    a = abs(t)
    if not use_cbe:
        return popcount(a), 0, a, 0
    best = BIG
    best_c = 0
    best_p = 0
    best_m = 0
    c0 = a >> k
    for c in (c0, c0 + 1):
        v = a - (c << k)
        # a negative remainder is minus the representation of -v: swap the two parts
        if literal:
            p, m = cbe(abs(v))
        else:
            p, m = naf(abs(v))
        if v < 0:
            p, m = m, p
        w = c + popcount(p) + popcount(m)
        if w < best:
            best = w
            best_c = c
            best_p = p
            best_m = m
    return best, best_c, best_p, best_m


@njit(**JIT)
def largest_term(k, copies, plus, minus):
    """Signed largest jump of a representation ``copies * 2**k + plus - minus`` (not empty)."""
    if copies > 0:
        return 1 << k
    hp = high_bit(plus)
    hm = high_bit(minus)
    if hp >= hm:
        return hp
    return -hm


@njit(**JIT)
def naf_weight(x):
    """Number of jumps of ``cbe(x)`` (``x >= 0``) in O(1): ``popcount(x ^ 3x)`` (see ``naf``)."""
    return popcount(x ^ (3 * x))


@njit(**JIT)
def split_weight(t, k, use_cbe):
    """``split_rep(t, k, use_cbe, literal)[0]`` without building the representation."""
    a = abs(t)
    if not use_cbe:
        return popcount(a)
    c0 = a >> k
    w_down = c0 + naf_weight(a - (c0 << k))
    w_up = c0 + 1 + naf_weight(((c0 + 1) << k) - a)
    return min(w_down, w_up)


@njit(**JIT)
def best_target(n, d, loops, use_cbe):
    """Hop estimate of the clockwise distance ``0 < d < n`` and the target ``T`` that achieves it.

    The first target of least weight in the order of ``candidate_m``; weights by ``split_weight``.
    """
    k = top_exp(n)
    best = BIG
    best_t = 0
    for j in range(n_candidates(loops)):
        t = d + candidate_m(j) * n
        w = split_weight(t, k, use_cbe)
        if w < best:
            best = w
            best_t = t
    return best, best_t


@njit(**JIT)
def estimate_and_jump(n, d, loops, use_cbe):
    """Hop estimate of the clockwise distance ``d`` and the signed jump the router takes.

    Parameters
    ----------
    n : int
        Nodes.
    d : int
        Clockwise distance ``(dst - cur) mod n``, ``0 <= d < n``.
    loops : int
        ``l`` of the equivalence-class method (0 for bit counting and plain CBE).
    use_cbe : bool
        False: bit counting; True: CBE.

    Returns
    -------
    estimate, jump : int
        Number of jumps of the cheapest representation found, and its largest term (signed:
        positive is clockwise). ``(0, 0)`` for ``d = 0``.

    Notes
    -----
    Targets are weighed and split in O(1) (``split_weight``, ``naf``), which gives the CBE of
    Fig. 8 without its loop; bench/bmg_timing.py also times the literal form (``cbe`` on every
    target), which routes identically.
    """
    if d == 0:
        return 0, 0
    best, t = best_target(n, d, loops, use_cbe)
    k = top_exp(n)
    _, copies, plus, minus = split_rep(t, k, use_cbe, False)
    jump = largest_term(k, copies, plus, minus)
    return best, -jump if t < 0 else jump


@njit(**JIT)
def estimate(n, d, loops, use_cbe):
    """Hop estimate only (see ``estimate_and_jump``)."""
    if d == 0:
        return 0
    return best_target(n, d, loops, use_cbe)[0]


@njit(**JIT)
def representation_next(n, cur, dst, loops, use_cbe):
    """Next hop: one jump of the cheapest representation (papers/001, sections 3.1-3.3).

    O(1) for bit counting, O(log n) for CBE, O(l log n) for the equivalence classes: the costs
    the paper states and times (Fig. 11). ``cur`` when ``cur == dst``.
    """
    if cur == dst:
        return cur
    jump = estimate_and_jump(n, (dst - cur) % n, loops, use_cbe)[1]
    return (cur + jump) % n


@njit(**JIT)
def neighbour_estimate_next(n, cur, dst, loops, use_cbe):
    """Next hop: the first neighbour (module order) whose own estimate to ``dst`` is smallest.

    The reading of the opening of section 3 of papers/001 ("delivered through a neighbor that has
    the estimated shortest hop"), kept as an alternative: it costs one estimate per neighbour.
    """
    if cur == dst:
        return cur
    k = top_exp(n)
    best = BIG
    nxt = cur
    for i in range(n_slots(k)):
        off = slot_offset(n, k, i)
        if off < 0:
            continue
        nb = (cur + off) % n
        w = estimate(n, (dst - nb) % n, loops, use_cbe)
        if w < best:
            best = w
            nxt = nb
    return nxt
