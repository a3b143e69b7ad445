"""Partial Hamiltonian cycles made of zigzag laps: the one-packet algorithms of section 4.

Meyer & Sibeyn (papers/003), sections 4.1 (d = 2), 4.2 (d = 3) and 4.3.1 (any d): the torus has
``d`` cycles; cycle ``c`` starts in PU ``(c, 0, ..., 0)`` and is a concatenation of
``n1/d * n2 * ... * n_{d-1}`` laps. A lap is a zigzag in the "highest rows" ``x_d = 0 .. d-1``
followed by ``n_d - d + 1`` moves along ``x_d`` (the last one over the wrap-around link). The
zigzag makes one *lateral* move (not along ``x_d``) in each of the rows ``0 .. d-1`` and one
``x_d`` move between consecutive rows, so every lap has ``n_d + d`` moves and a cycle has
``(1 + d/n_d) * P/d`` PUs. Lap ``i`` (1-based) uses ``zigzag(d, j)`` with ``j`` the largest index
in ``1 .. d-1`` such that ``i mod (n1/d * n2 * ... * n_{j-1}) == 0``.

The paper's zigzags (section 4.3.1, e.g. zigzag(5,3) = (1,5,1,5,2,5,3,5,1)) make the lateral
moves ``x1, x1, x2, x3, ..., x_j, x1, ..., x1``. We call this table of lateral moves the
*printed* pattern. Conditions (section 4.3.1, with the erratum that (1) multiplies ``n_l``):
(1) ``sum_{j=2}^{d-1} prod_{l=j}^{d-1} n_l  mod n1 == 0`` (void for d = 2; ``n2 mod n1 == 0`` for
d = 3, Theorem 6), (2) ``n1 mod d == 0``, (3) ``n_d >= d`` (Theorem 7's form). They make the
cycles close, but for d >= 4 they do not make them simple: the printed pattern passes a PU
twice on the same cycle on many sizes, the paper's own 4x5x2 example among them (a zigzag that
wraps around ``x2`` lands in a row position its own cycle already holds). We therefore also try
*variants* of the table: the row that holds each move along ``x2 .. x_j`` and the direction of
the ``x1`` moves of the higher zigzags may change (zigzag(d,1) stays d moves along ``+x1``, a lap
keeps ``d`` lateral moves, so the cycle lengths stay the paper's). ``choose_pattern`` returns
the first table, printed first, whose cycles close, are simple and edge-disjoint
(docs/gossip.md, "Section 4.3").

All of this is decided on the *lateral* positions alone: a lap starting in column ``q`` (a
position of the ``(d-1)``-dimensional torus of ``x1 .. x_{d-1}``) stands at ``s_r`` in row ``r``
before its lateral move of that row, at ``s_{r+1}`` after it, and ends in column ``s_d``. Rows
``>= d`` are crossed by columns only, so the cycles are simple and edge-disjoint exactly when
every ``s_r`` is a bijection, no two laps use the same lateral link in a row, and the two laps
that pass a PU of a zigzag row belong to different cycles (``lateral_defects``). The same test
covers radix-2 dimensions the way the paper draws them (two links between the two PUs),
which lets us replay the 4x5x2 example our torus cannot build.

Axes: the paper's ``x_l`` is torus dimension ``l - 1`` (``--dims n1,...,nd`` lists ``n1`` first).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from netsim_fast.errors import ConfigError


MAX_VARIANTS = 4000     # variants tried per size before giving up (all of them for d = 4)


def conditions(dims) -> list[str]:
    """Violated conditions of section 4.3.1 / Theorems 5-7 for ``dims``, as sentences ([] = ok)."""
    n = [int(k) for k in dims]
    d = len(n)
    bad = []
    if d < 2:
        return ["gossip-one needs a torus of at least 2 dimensions"]
    small = [k for k in n if k < 3]
    if small:
        bad.append(f"every radix must be >= 3 (a radix-2 ring has one link here, the paper's has two); "
                   f"got {','.join(map(str, n))}")
    if n[0] % d:
        bad.append(f"condition (2): n1 mod d == 0 (n1 = {n[0]}, d = {d})")
    s = sum(math.prod(n[j - 1: d - 1]) for j in range(2, d))
    if d >= 3 and s % n[0]:
        terms = " + ".join("*".join(f"n{l}" for l in range(j, d)) for j in range(2, d))
        bad.append(f"condition (1): ({terms}) mod n1 == 0 ({s} mod {n[0]} = {s % n[0]})")
    if n[-1] < d:
        bad.append(f"condition (3): n_d >= d (n{d} = {n[-1]}, d = {d})")
    return bad


def printed_pattern(d: int) -> dict:
    """The paper's zigzags: lateral moves ``x1, x1, x2, .., x_j, x1, ..`` (0-based axes, +)."""
    pattern = {1: ((0, 1),) * d}
    for j in range(2, d):
        axes = [0, 0] + list(range(1, j)) + [0] * (d - j - 1)
        pattern[j] = tuple((a, 1) for a in axes)
    return pattern


def zigzag_axes(d: int, j: int, pattern: dict | None = None) -> list[int]:
    """0-based axes of the moves of ``zigzag(d, j)``, including the ``d - 1`` moves along x_d."""
    lateral = (pattern or printed_pattern(d))[j]
    moves = []
    for k, (ax, _) in enumerate(lateral):
        moves.append(ax)
        if k < d - 1:
            moves.append(d - 1)
    return moves


def _type_options(d: int, j: int) -> list[tuple]:
    """All lateral tables of zigzag(d, j) in the variant family, nearest to the printed first.

    The moves along ``x2 .. x_j`` keep their order but may sit in any rows; the other rows
    move along ``x1`` in either direction. Distance = rows that differ from the printed table.
    """
    printed = printed_pattern(d)[j]
    opts = []
    for rows in itertools.combinations(range(d), j - 1):
        rest = [r for r in range(d) if r not in rows]
        for signs in itertools.product((1, -1), repeat=len(rest)):
            table = [None] * d
            for k, r in enumerate(rows):
                table[r] = (k + 1, 1)
            for r, s in zip(rest, signs):
                table[r] = (0, s)
            table = tuple(table)
            opts.append((sum(a != b for a, b in zip(table, printed)), table))
    opts.sort(key=lambda x: x[0])
    return opts


def variants(d: int):
    """Patterns of the variant family, printed first, then by growing distance from it."""
    if d < 4:
        yield printed_pattern(d)
        return
    per_type = {j: _type_options(d, j) for j in range(2, d)}
    max_dist = sum(max(o[0] for o in opts) for opts in per_type.values())
    types = list(per_type)

    def combos(k, budget):
        if k == len(types):
            if budget == 0:
                yield ()
            return
        for dist, table in per_type[types[k]]:
            if dist > budget:
                break
            for rest in combos(k + 1, budget - dist):
                yield (table,) + rest

    for total in range(max_dist + 1):
        for tables in combos(0, total):
            pattern = {1: ((0, 1),) * d}
            pattern.update(zip(types, tables))
            yield pattern


def lap_types(dims) -> np.ndarray:
    """int64[laps]: the zigzag type ``j`` of laps ``1 .. laps``."""
    n = [int(k) for k in dims]
    d = len(n)
    laps = n[0] // d * math.prod(n[1: d - 1])
    i = np.arange(1, laps + 1)
    types = np.ones(laps, np.int64)
    for j in range(2, d):
        period = n[0] // d * math.prod(n[1: j - 1])
        types[i % period == 0] = j
    return types


def lap_moves(dims, pattern: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(axis, sign), int64[laps, d] each: the lateral move of every lap in every zigzag row."""
    d = len(dims)
    pattern = pattern or printed_pattern(d)
    table = np.zeros((d, d, 2), np.int64)              # [type, row] -> (axis, sign)
    for j, moves in pattern.items():
        table[j] = moves
    per_lap = table[lap_types(dims)]
    return per_lap[..., 0], per_lap[..., 1]


def lateral_walks(dims, pattern: dict | None = None) -> np.ndarray | None:
    """int64[d, laps, d + 1, d - 1]: lateral position ``s_r`` of every lap of every cycle.

    ``s_0`` is the column a lap starts in, ``s_d`` the column it ends in (the next lap's start).
    None if some cycle does not return to its start after its laps.
    """
    n = np.array([int(k) for k in dims], np.int64)
    d = n.size
    axis, sign = lap_moves(dims, pattern)
    laps = axis.shape[0]
    flat = np.zeros((laps * d, d - 1), np.int64)
    flat[np.arange(laps * d), axis.ravel()] = sign.ravel()
    offset = np.concatenate([np.zeros((1, d - 1), np.int64), np.cumsum(flat, axis=0)])
    if np.any(offset[-1] % n[:-1]):
        return None
    idx = np.arange(laps)[:, None] * d + np.arange(d + 1)[None, :]
    start = np.zeros((d, d - 1), np.int64)
    start[:, 0] = np.arange(d)
    return (start[:, None, None, :] + offset[idx][None]) % n[:-1]


def lateral_defects(dims, pattern: dict | None = None, limit: int = 5) -> list[str]:
    """Why the laps do not form simple, edge-disjoint cycles ([] = they do); at most ``limit``.

    Radix-2 dimensions count as two links (the paper's torus: a move along ``+x_l`` from ``p``
    and one from ``p + e_l`` use different links), so the test also serves sizes that
    ``torus`` cannot build.
    """
    walks = lateral_walks(dims, pattern)
    if walks is None:
        return ["the laps of a cycle do not return to its start"]
    axis, sign = lap_moves(dims, pattern)
    m = np.array([int(k) for k in dims[:-1]], np.int64)
    d = len(dims)
    stride = np.concatenate([[1], np.cumprod(m[:-1])])
    n_cols = int(np.prod(m))
    col = walks @ stride                               # [cycle, lap, r]
    cyc = np.broadcast_to(np.arange(d)[:, None], col.shape[:2])
    out = []
    for r in range(1, d):
        if np.unique(col[:, :, r]).size != n_cols:
            out.append(f"two laps stand on the same column in row {r} (an x_d link used twice)")
    for r in range(d):
        # a link is named by the PU it leaves in the + direction and its axis
        src = np.where(sign[None, :, r] > 0, col[:, :, r], col[:, :, r + 1])
        key = (src * (d - 1) + axis[None, :, r]).ravel()
        if np.unique(key).size != key.size:
            out.append(f"two laps use the same lateral link in row {r}")
        # the lap standing at p before its move and the lap arriving at p share the PU (p, r)
        visit = np.concatenate([(col[:, :, r] * d + cyc).ravel(),
                                (col[:, :, r + 1] * d + cyc).ravel()])
        vals, counts = np.unique(visit, return_counts=True)
        for v in vals[counts > 1][:limit]:
            p = np.unravel_index(int(v // d), tuple(m[::-1]))[::-1]
            out.append(f"cycle {int(v % d)} passes PU {tuple(int(x) for x in p) + (r,)} twice")
        if len(out) >= limit:
            break
    return out[:limit]


def choose_pattern(dims) -> tuple[dict | None, int, list[str]]:
    """(pattern, variants tried, defects of the printed pattern): the first table of the
    variant family whose laps form simple, edge-disjoint cycles, or None."""
    d = len(dims)
    printed_defects = None
    for k, pattern in enumerate(variants(d)):
        if k >= MAX_VARIANTS:
            return None, k, printed_defects
        defects = lateral_defects(dims, pattern)
        if k == 0:
            printed_defects = defects
        if not defects:
            return pattern, k + 1, printed_defects
    return None, k + 1, printed_defects


def cycles(dims, pattern: dict | None = None) -> list[np.ndarray]:
    """The ``d`` cycles as int64 node-id sequences in forward order (unchecked)."""
    n = np.array([int(k) for k in dims], np.int64)
    d = n.size
    walks = lateral_walks(dims, pattern)
    if walks is None:
        raise ConfigError(f"the zigzag laps do not close on dims {','.join(map(str, n))}; "
                          f"check conditions (1)-(3)")
    laps = walks.shape[1]
    rows = np.arange(d)
    # per lap: (s_0, 0), then for r = 0 .. d-1: (s_{r+1}, r) and, below row d-1, (s_{r+1}, r+1)
    lat = [walks[:, :, 0]]
    height = [np.zeros(1, np.int64)]
    for r in rows:
        lat.append(walks[:, :, r + 1])
        height.append(np.array([r]))
        if r < d - 1:
            lat.append(walks[:, :, r + 1])
            height.append(np.array([r + 1]))
    column = np.arange(d, n[-1])                        # rows d .. n_d-1 of the end column
    pos = np.stack(lat, axis=2)                        # [cycle, lap, 2d, d-1]
    hts = np.concatenate(height)
    zig = np.concatenate([pos, np.broadcast_to(hts[None, None, :, None],
                                               pos.shape[:3] + (1,))], axis=-1)
    end = walks[:, :, d]
    rod = np.concatenate([np.repeat(end[:, :, None, :], column.size, axis=2),
                          np.broadcast_to(column[None, None, :, None],
                                          (d, laps, column.size, 1))], axis=-1)
    coord = np.concatenate([zig, rod], axis=2).reshape(d, -1, d)
    strides = np.concatenate([[1], np.cumprod(n[:-1])])
    return [coord[c] @ strides for c in range(d)]


def stated_length(dims) -> int:
    """Cycle length stated by the paper: ``(n_d + d) * n1/d * n2 * ... * n_{d-1}``."""
    n = [int(k) for k in dims]
    d = len(n)
    return (n[-1] + d) * (n[0] // d) * math.prod(n[1: d - 1])


def describe(pattern: dict) -> str:
    """The higher zigzags in the paper's notation, e.g. ``zigzag(4,3) = (-1,4,2,4,3,4,-1)``."""
    d = len(pattern[1])
    out = []
    for j in sorted(pattern):
        if j > 1:
            moves = [("-" if s < 0 else "") + str(a + 1) for a, s in pattern[j]]
            out.append(f"zigzag({d},{j}) = ({f',{d},'.join(moves)})")
    return ", ".join(out)


def label_weights(dims) -> list[int]:
    """Weights ``[1, beta_2, .., beta_{d-1}]`` of the cycle numbering of the printed pattern.

    Cycle ``j``'s lap ends are the columns with ``(i1 + sum_l beta_l i_l) mod d == j`` (integer
    coordinates ``0 <= i_l < n_l``), where ``beta_2 = 1`` and ``beta_l = 1 + n_{l-1} beta_{l-1}``:
    a block of laps that fills the subspace of ``x1 .. x_{l-1}`` and ``x_d`` ends ``beta_l`` x1
    positions short of where it started. Section 4.3.2's numbering (4) has ``beta_l = l - 1``,
    which the printed zigzags produce only when ``n_l = 1 mod d``; across the wrap of ``x_l`` the
    numbering jumps by ``-(n_l - 1) beta_l`` instead of ``beta_l`` (a seam) unless
    ``n_l beta_l = 0 mod d``.
    """
    n = [int(k) for k in dims]
    d = len(n)
    beta = [1, 1]
    for l in range(3, d):
        beta.append((1 + n[l - 2] * beta[-1]) % d)
    return beta[:d - 1]
