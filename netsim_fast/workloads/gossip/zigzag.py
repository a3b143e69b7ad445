"""Partial Hamiltonian cycles made of zigzag laps: the one-packet algorithms of section 4.

Meyer & Sibeyn (papers/003), sections 4.1 (d = 2), 4.2 (d = 3) and 4.3.1 (any d): the torus has
``d`` cycles; cycle ``c`` starts in PU ``(c, 0, ..., 0)`` and is a concatenation of
``n1/d * n2 * ... * n_{d-1}`` laps. A lap is a zigzag of ``2d - 1`` positive moves in the
"highest rows" ``x_d = 0 .. d-1`` followed by ``n_d - d + 1`` moves along ``x_d`` (the last one
over the wrap-around link), so every lap has ``n_d + d`` moves and a cycle has
``(1 + d/n_d) * P/d`` PUs. ``zigzag(d, j)`` alternates non-``x_d`` moves with ``d - 1`` moves
along ``x_d``; its non-``x_d`` moves are ``x1, x1, x2, x3, ..., x_j, x1, ..., x1`` (the paper's
list for d <= 5, e.g. zigzag(5,3) = (1,5,1,5,2,5,3,5,1)). Lap ``i`` (1-based) uses ``zigzag(d, j)``
with ``j`` the largest index in ``1 .. d-1`` such that ``i mod (n1/d * n2 * ... * n_{j-1}) == 0``.

Axes: the paper's ``x_l`` is torus dimension ``l - 1`` (``--dims n1,...,nd`` lists ``n1`` first).
Conditions (section 4.3.1, with the erratum that (1) multiplies ``n_l``):
(1) ``sum_{j=2}^{d-1} prod_{l=j}^{d-1} n_l  mod n1 == 0`` (void for d = 2; ``n2 mod n1 == 0`` for
d = 3, Theorem 6), (2) ``n1 mod d == 0``, (3) ``n_d >= d`` (Theorem 7's form). Our torus has a
single link per radix-2 dimension, so every radix must also be at least 3.

For d >= 4 these conditions make the cycles close, but the zigzags as specified can pass a PU
twice on the same cycle (e.g. 4x3x3x5); ``check_plan`` finds it and ``build`` reports it as an
unsupported size (docs/gossip.md, "Disagreements with the paper").
"""

from __future__ import annotations

import math

import numpy as np

from netsim_fast.errors import ConfigError


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


def zigzag_axes(d: int, j: int) -> list[int]:
    """0-based axes of the moves of ``zigzag(d, j)``, including the ``d - 1`` moves along x_d."""
    lateral = [0] * d if j == 1 else [0, 0] + list(range(1, j)) + [0] * (d - j - 1)
    moves = []
    for k, ax in enumerate(lateral):
        moves.append(ax)
        if k < d - 1:
            moves.append(d - 1)
    return moves


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


def cycles(dims) -> list[np.ndarray]:
    """The ``d`` cycles as int64 node-id sequences in forward order (unchecked)."""
    n = np.array([int(k) for k in dims], np.int64)
    d = n.size
    strides = np.concatenate([[1], np.cumprod(n[:-1])])
    moves = []
    for j in lap_types(dims):
        moves.extend(zigzag_axes(d, int(j)))
        moves.extend([d - 1] * int(n[-1] - d + 1))
    moves = np.array(moves, np.int64)
    out = []
    for c in range(d):
        coord = np.zeros((moves.size + 1, d), np.int64)
        coord[0, 0] = c
        steps = np.zeros((moves.size, d), np.int64)
        steps[np.arange(moves.size), moves] = 1
        coord[1:] = (coord[0] + np.cumsum(steps, axis=0)) % n
        if not np.array_equal(coord[-1], coord[0]):
            raise ConfigError(f"the zigzag laps of cycle {c} do not close on dims "
                              f"{','.join(map(str, n))}; check conditions (1)-(3)")
        out.append(coord[:-1] @ strides)
    return out


def stated_length(dims) -> int:
    """Cycle length stated by the paper: ``(n_d + d) * n1/d * n2 * ... * n_{d-1}``."""
    n = [int(k) for k in dims]
    d = len(n)
    return (n[-1] + d) * (n[0] // d) * math.prod(n[1: d - 1])
