"""Up*/down* routing (Schroeder et al., Autonet, 1991) on any graph, as a next-port table that
needs no per-packet state, and the kernel's choice among a table's candidate ports.

**Order.** Every router gets a rank, computed on the graph as it is (failed links removed):
where terminals sit on some routers only, its height above them counted from the top (a k-ary
n-tree's or a Clos's levels: the top switches rank 0), else its BFS distance from a root (the
router of least eccentricity, lowest id on ties). A link ``u -> v`` goes *up* when
``(rank[v], v) < (rank[u], u)``, else *down*. A legal route is up hops then down hops: no down -> up turn. Ups and downs are each
acyclic (they follow a total order), and a route's dependencies run up -> up, up -> down or
down -> down, so the channel dependency graph is acyclic with any number of VCs and every VC
is usable at every hop (``netsim-fast check-deadlock`` proves it per configuration).

**Table without state.** For each destination ``d`` a router goes down or goes up; a packet
that arrived by a down hop must go down again, which the table guarantees without knowing how
the packet arrived:

- ``best[u]``: the shortest legal route's length from ``u`` (up*/down* with state);
- ``down[u]``: the shortest down-only route from ``u`` whose routers all go down themselves
  (computed bottom-up in the order, so those routers are decided first); a router goes down
  exactly when ``down[u] == best[u]``;
- a down router's candidates: its down neighbours that go down and are one hop closer on such
  a route; an up router's: its up neighbours whose route (``length``) is one hop shorter.

A packet leaves a down router only to a down router: no down -> up turn, so the routes are
legal and loop-free. Ranked from a root, every router on the BFS tree's path from the root to
``d`` goes down (that path is as short as any route), so every up router reaches one and every
router routes. Ranked by height (the trees), failed links can leave a leaf only routes with a
down -> up turn: the table finds such pairs and the run is refused. Down routers route minimally
among legal routes; an up router's route may be longer (not on the intact trees, whose up
routers reach a common ancestor and come down). ``dist`` holds the lengths.

**Choice** (``--up-port``), where the table gives several ports (the up ports of a tree):
``random`` picks one per packet and router from a hash of (source, creation cycle, router), as
BookSim2's ``nca`` draws an up port at random at each router; ``dest-mod-k`` picks candidate
``(d // n^h) mod n`` of the ``n`` for destination terminal ``d`` after ``h`` hops (on a tree,
level ``h`` of the way up: Zahavi's D-mod-k, which gives each destination one top switch and
spreads a leaf's destinations over its up ports); ``adaptive`` offers all of them to the VC
allocator (the one with most free space wins, flit/allocate.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.errors import ConfigError
from netsim_fast.routing.table import MinimalTable

UP_RANDOM = 0
UP_DEST_MOD_K = 1
UP_ADAPTIVE = 2
UP_CHOICES = {"random": UP_RANDOM, "dest-mod-k": UP_DEST_MOD_K, "adaptive": UP_ADAPTIVE}

_INF = np.int32(1 << 29)
_MASK31 = 0x7FFFFFFF


def ranks(topo) -> np.ndarray:
    """int64[routers]: the up*/down* rank (0 at the top), see the module docstring."""
    from netsim_fast.routing.table import all_pairs_distances

    dist = all_pairs_distances(topo).astype(np.int64)
    dist[dist < 0] = np.iinfo(np.int32).max
    ends = -(-topo.n_terminals // topo.concentration)
    if ends < topo.n_nodes:  # terminals on some routers only (the trees' leaves, numbered first)
        height = dist[:, :ends].min(axis=1)
        return height.max() - height
    root = int(np.argmin(dist.max(axis=1)))  # least eccentricity, lowest id on ties
    return dist[root]


def build_updown_table(topo, destinations: int | None = None) -> MinimalTable:
    """The up*/down* table of ``topo`` (see the module docstring) towards the routers
    ``0 .. destinations-1`` (default all: the routers that hold terminals, numbered first).

    Returns a ``MinimalTable``: ``dist[u, d]`` the route length (-1 where not routed) and
    ``port_mask[d, u]`` the candidate ports. Raises ConfigError when a destination router
    cannot reach another by a legal route (failed links of a tree, whose ranks stay the levels).
    """
    nbr = topo.arrays.nbr
    n, ports = nbr.shape
    m = n if destinations is None else int(destinations)
    rank = ranks(topo)
    order = np.lexsort((np.arange(n), rank))  # top first
    pos = np.empty(n, np.int64)
    pos[order] = np.arange(n)
    ups = [[int(v) for v in nbr[u] if v >= 0 and pos[v] < pos[u]] for u in range(n)]
    downs = [[int(v) for v in nbr[u] if v >= 0 and pos[v] > pos[u]] for u in range(n)]
    cols = np.arange(m)

    def lowest(rows, own):  # the least over neighbours' rows, +1; 0 at the destination itself
        out = np.full(m, _INF, np.int32) if not rows else np.minimum(np.min(rows, axis=0) + 1, _INF)
        if own < m:
            out[own] = 0
        return out

    down_only = np.empty((n, m), np.int32)
    for u in order[::-1]:
        down_only[u] = lowest([down_only[v] for v in downs[u]], u)
    best = np.empty((n, m), np.int32)
    for u in order:
        best[u] = np.minimum(down_only[u], lowest([best[w] for w in ups[u]], u))
    down = np.empty((n, m), np.int32)
    goes_down = np.empty((n, m), bool)
    for u in order[::-1]:
        down[u] = lowest([np.where(goes_down[v], down[v], _INF) for v in downs[u]], u)
        goes_down[u] = (down[u] == best[u]) & (down[u] < _INF)
    length = np.empty((n, m), np.int32)
    for u in order:
        length[u] = np.where(goes_down[u], down[u], lowest([length[w] for w in ups[u]], u))
    # packets start at the destinations' routers (they hold the terminals); the routers on their
    # routes have routes by construction, the others (a faulted tree's inner switches) need none
    unreached = np.argwhere(length[:m] >= _INF)
    if unreached.size:
        u, d = (int(x) for x in unreached[0])
        raise ConfigError(f"--routing updown: router {u} has no up*/down* route to router {d} "
                          f"({unreached.shape[0]} such pairs; failed links leave it only routes with a down -> up "
                          f"turn); fail fewer links, choose another --fault-seed, or use --routing minimal")
    allowed = np.zeros((n, ports, m), bool)
    for u in range(n):
        for p in range(ports):
            v = nbr[u, p]
            if v < 0:
                continue
            if pos[v] > pos[u]:
                allowed[u, p] = goes_down[u] & goes_down[v] & (down[v] == down[u] - 1)
            else:
                allowed[u, p] = ~goes_down[u] & (length[v] == length[u] - 1)
        if u < m:
            allowed[u, :, u] = False
    n_bytes = (ports + 7) // 8
    mask = np.packbits(allowed, axis=1, bitorder="little")[:, :n_bytes]  # [node, byte, dst]
    port_mask = np.zeros((n, n, n_bytes), np.uint8)
    port_mask[:m] = mask.transpose(2, 0, 1)
    dist = np.full((n, n), -1, np.int16)
    dist[:, cols] = np.where(length >= _INF, -1, length)
    return MinimalTable(dist=dist, port_mask=np.ascontiguousarray(port_mask))


@njit(**KERNEL_JIT)
def _mix31(x):
    """A 31-bit integer hash (products stay below 2^62: the same in Numba and in Python)."""
    x &= _MASK31
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & _MASK31
    x ^= x >> 12
    x = (x * 0x297A2D39) & _MASK31
    x ^= x >> 15
    return x


@njit(**KERNEL_JIT)
def choose_row(choice, n_rows, src, dst, release, node, hops):
    """Which of ``n_rows`` candidate rows a packet takes (see the module docstring); -1: all."""
    if choice == UP_ADAPTIVE or n_rows <= 1:
        return -1
    if choice == UP_RANDOM:
        return _mix31(_mix31(_mix31(src) ^ (release & _MASK31)) ^ node) % n_rows
    div = 1
    for _ in range(hops):
        div *= n_rows
        if div > dst:
            return 0
    return (dst // div) % n_rows


@njit(**KERNEL_JIT)
def updown_next_hops(port_mask, n_vcs, choice, cur, dst_router, src, dst, release, hops, out):
    """Rows of the up*/down* table at ``cur`` towards ``dst_router``, every VC; one of them
    unless ``choice`` is adaptive (``src``, ``dst``: the packet's terminals)."""
    rows = 0
    for byte in range(port_mask.shape[2]):
        bits = port_mask[dst_router, cur, byte]
        port = byte * 8
        while bits:
            if bits & 1:
                out[rows, 0] = port
                out[rows, 1] = 0
                out[rows, 2] = n_vcs - 1
                out[rows, 3] = 0
                rows += 1
            bits >>= 1
            port += 1
    pick = choose_row(choice, rows, src, dst, release, cur, hops)
    if pick > 0:
        for j in range(4):
            out[0, j] = out[pick, j]
    return rows if pick < 0 else min(rows, 1)


def updown_table(topo) -> MinimalTable:
    """The table a run routes with: towards the routers that hold terminals (the trees' leaves,
    numbered first; every router elsewhere)."""
    per_router = topo.concentration
    return build_updown_table(topo, -(-topo.n_terminals // per_router))
