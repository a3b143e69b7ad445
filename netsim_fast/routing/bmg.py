"""BMG routing: integer codes, the one next-hop dispatcher engines call, and a checked walker.

Engines call, inside their kernels::

    nxt = bmg_next_hop(code, n, loops, cur, dst, table)

with ``code = CODES[name]``, ``loops`` the equivalence-class loop count (ignored by the other
rules), and ``table`` an ``int32`` 2-D array: ``bfs_table(n)`` for ``bmg-bfs`` (``int32[n, n]``,
the paper's table, or ``int32[1, n]``, the same first hops indexed by distance), and
``NO_TABLE`` (shape ``(0, 0)``) for every other rule. ``bmg-bfs`` with ``NO_TABLE`` runs the
paper's per-call breadth-first search (Algorithm 1), slowly. The result is ``cur`` when
``cur == dst``; otherwise a neighbour of ``cur`` in the BMG (``routing.bmg_links``).

Rules that keep no state can loop in principle; ``walk`` stops a route after ``hop_cap(n)`` hops
(``min(n, 1024)``: a route that never revisits a node has at most ``n - 1`` hops, and no rule here
needs more than a few times ``log2 n``) and the Python ``route`` turns an over-long walk into a
``SimulationError``. Engines should apply the same cap to a packet's hop count.

Codes (papers/001 sections in brackets):

=====================  ====  ===========================================================
name                   code  rule
=====================  ====  ===========================================================
bmg-bfs                0     BFS shortest path, table or per-call search (2.1, Alg. 1)
bmg-basic              1     neighbour with the closest (circular) ID (2.2, Alg. 2)
bmg-variant            2     a neighbour adjacent to dst first, else basic (2.3)
bmg-bitcount           3     fewest set bits over both directions (3.1)
bmg-cbe                4     consecutive-bit elimination (3.2, Fig. 8)
bmg-equiclass          5     CBE over d + m*n, l loops: optimal for l >= 4 (3.3)
chord                  6     Chord-like: largest power of two in the shorter direction (1, Fig. 3)
bmg-basic-linear       7     basic with the literal, non-circular ``|dst - nb|``
bmg-variant-linear     8     variant with the non-circular fallback
bmg-bitcount-nbr       9     neighbour with the smallest bit-count estimate (3, opening)
bmg-cbe-nbr            10    neighbour with the smallest CBE estimate (3, opening)
=====================  ====  ===========================================================

The last four are the other readings of ambiguous passages (docs/bmg.md); 0..6 are the issue's.
"""

from __future__ import annotations

import difflib

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.errors import ConfigError, SimulationError
from netsim_fast.routing import bmg_bfs
from netsim_fast.routing.bmg_bits import neighbour_estimate_next, representation_next
from netsim_fast.routing.bmg_greedy import basic_next, chord_next, variant_next

BFS, BASIC, VARIANT, BITCOUNT, CBE, EQUICLASS, CHORD = 0, 1, 2, 3, 4, 5, 6
BASIC_LINEAR, VARIANT_LINEAR, BITCOUNT_NBR, CBE_NBR = 7, 8, 9, 10

NAMES = (
    "bmg-bfs", "bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe", "bmg-equiclass", "chord",
    "bmg-basic-linear", "bmg-variant-linear", "bmg-bitcount-nbr", "bmg-cbe-nbr",
)
"""Routing names, indexed by code."""

CODES = {name: code for code, name in enumerate(NAMES)}
"""Routing name -> integer code for ``bmg_next_hop``."""

ESTIMATING = (BITCOUNT, CBE, EQUICLASS, BITCOUNT_NBR, CBE_NBR)
"""Codes with a hop estimate at the source (``analytic.bmg`` can report it instead of the route)."""

TRANSLATION_INVARIANT = tuple(c for c in range(len(NAMES)) if c not in (BASIC_LINEAR, VARIANT_LINEAR))
"""Codes whose next hop depends only on ``(dst - cur) mod n``."""

NO_TABLE = np.zeros((0, 0), np.int32)
"""The table argument of every rule but ``bmg-bfs`` (and of ``bmg-bfs`` in per-call search mode)."""

MIN_NODES = 3
MAX_NODES = 1 << 30
MAX_LOOPS = 64
MAX_TABLE_NODES = 1 << 14
"""Largest n for the full ``int32[n, n]`` table (1 GiB)."""
MAX_OFFSET_TABLE_NODES = 1 << 24
"""Largest n for the offset table of ``bmg-bfs`` (one BFS over n nodes)."""
HOP_CAP_MAX = 1024


@njit(**JIT)
def hop_cap(n):
    """Most hops a route may take before it counts as looping: ``min(n, 1024)``."""
    return min(n, HOP_CAP_MAX)


@njit(**JIT)
def bmg_next_hop(code, n, loops, cur, dst, table):
    """Next node from ``cur`` towards ``dst`` on an ``n``-node BMG under routing ``code``.

    Parameters
    ----------
    code : int
        ``CODES[name]``.
    n : int
        Number of nodes, ``n >= 3``.
    loops : int
        Loops ``l >= 0`` of ``bmg-equiclass``; ignored by the other codes.
    cur, dst : int
        Current and destination node, ``0 <= cur, dst < n``.
    table : int32[n, n] or int32[1, n] or int32[0, 0]
        ``bfs_table(n, ...)`` for ``bmg-bfs``; ``NO_TABLE`` otherwise (``bmg-bfs`` then searches).

    Returns
    -------
    int
        A neighbour of ``cur`` (``cur`` itself iff ``cur == dst``; -1 for an unknown code).
    """
    # One call site per family keeps the compiled dispatcher small (LLVM inlines each site).
    if code == BFS:
        if table.shape[0] == 0:
            return bmg_bfs.search_next(n, cur, dst)
        return bmg_bfs.table_next(n, cur, dst, table)
    if code == CHORD:
        return chord_next(n, cur, dst)
    if code == BASIC or code == BASIC_LINEAR:
        return basic_next(n, cur, dst, code == BASIC)
    if code == VARIANT or code == VARIANT_LINEAR:
        return variant_next(n, cur, dst, code == VARIANT)
    if code == BITCOUNT or code == CBE or code == EQUICLASS:
        return representation_next(n, cur, dst, loops if code == EQUICLASS else 0, code != BITCOUNT)
    if code == BITCOUNT_NBR or code == CBE_NBR:
        return neighbour_estimate_next(n, cur, dst, 0, code == CBE_NBR)
    return -1


@njit(**JIT)
def walk(code, n, loops, src, dst, table, path):
    """Follow ``bmg_next_hop`` from ``src`` to ``dst``, writing the nodes into ``path``.

    Parameters
    ----------
    path : int64[cap + 1]
        Output; ``path[0] = src``. The hop cap is ``len(path) - 1``.

    Returns
    -------
    int
        Number of hops, or -1 if ``dst`` was not reached within the cap.
    """
    path[0] = src
    cur = src
    for hop in range(1, path.shape[0]):
        if cur == dst:
            return hop - 1
        cur = bmg_next_hop(code, n, loops, cur, dst, table)
        path[hop] = cur
    if cur == dst:
        return path.shape[0] - 1
    return -1


def routing_code(name: str) -> int:
    """Code of a routing name; ``ConfigError`` naming the closest choice for an unknown one."""
    if name in CODES:
        return CODES[name]
    close = difflib.get_close_matches(name, NAMES, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise ConfigError(f"routing '{name}' is unknown{hint}; choose one of {', '.join(NAMES)}.")


def check_nodes(n: int) -> None:
    """``ConfigError`` unless ``MIN_NODES <= n <= MAX_NODES``."""
    if not MIN_NODES <= n <= MAX_NODES:
        raise ConfigError(f"nodes must be between {MIN_NODES} and {MAX_NODES} (a BMG needs at least "
                          f"3 nodes to have distinct +1 and -1 links); got {n}.")


def check_loops(loops: int) -> None:
    """``ConfigError`` unless ``0 <= loops <= MAX_LOOPS``."""
    if not 0 <= loops <= MAX_LOOPS:
        raise ConfigError(f"loops must be between 0 and {MAX_LOOPS} (4 is optimal up to 4096 nodes); "
                          f"got {loops}.")


def bfs_table(n: int, *, full: bool = True) -> np.ndarray:
    """Routing table of ``bmg-bfs``.

    Parameters
    ----------
    n : int
        Nodes.
    full : bool
        True: the paper's ``int32[n, n]`` node-to-node table (n <= 16384). False: ``int32[1, n]``,
        the first-hop offset of every clockwise distance (the same hops, O(n) memory).
    """
    check_nodes(n)
    if not full:
        if n > MAX_OFFSET_TABLE_NODES:
            raise ConfigError(f"bmg-bfs searches the whole graph, so nodes must be at most "
                              f"{MAX_OFFSET_TABLE_NODES} for it; got {n}.")
        return bmg_bfs.bfs_from_zero(n)[1].reshape(1, n)
    if n > MAX_TABLE_NODES:
        raise ConfigError(f"a full bmg-bfs table for {n} nodes needs {4 * n * n / 2**30:.1f} GiB; use "
                          f"at most {MAX_TABLE_NODES} nodes or the offset table (full=False).")
    return bmg_bfs.full_table(n)


def table_for(code: int, n: int) -> np.ndarray:
    """The table argument ``bmg_next_hop`` needs for ``code``: the offset table for bmg-bfs, else ``NO_TABLE``."""
    return bfs_table(n, full=False) if code == BFS else NO_TABLE


def route(n: int, src: int, dst: int, routing: str, *, loops: int = 4) -> list[int]:
    """Nodes of the route from ``src`` to ``dst`` (both included) under a routing name.

    Raises
    ------
    ConfigError
        Bad name, node count, node ids or loops.
    SimulationError
        The rule did not reach ``dst`` within ``n`` hops (it loops).
    """
    code = routing_code(routing)
    check_nodes(n)
    check_loops(loops)
    for label, node in (("src", src), ("dst", dst)):
        if not 0 <= node < n:
            raise ConfigError(f"{label} must be a node id in 0..{n - 1}; got {node}.")
    cap = hop_cap(n)
    path = np.empty(cap + 1, np.int64)
    hops = walk(code, n, loops, src, dst, table_for(code, n), path)
    if hops < 0:
        raise SimulationError(f"routing '{routing}' did not reach node {dst} from {src} within {cap} hops "
                              f"on a {n}-node BMG (the rule loops).")
    return [int(v) for v in path[:hops + 1]]
