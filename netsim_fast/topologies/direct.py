"""The direct networks of today's machines: HyperX, flattened butterfly, dragonfly.

One terminal per router (router id = node id); docs/topologies.md states every definition and
the port order.

**HyperX** (Ahn et al., SC 2009) of ``dims = (k_0, ..., k_{D-1})``: routers are the coordinate
vectors, dimension 0 fastest (``node = sum_d c_d * prod_{e<d} k_e``, as in tori); two routers are
linked when their coordinates differ in exactly one dimension (all-to-all in each dimension, the
Hamming graph K_{k_0} x ... x K_{k_{D-1}}), by ``widths[d]`` parallel links in dimension ``d``
(Ahn et al.'s trunking ``K``). Ports: dimension by dimension, the other coordinates of that
dimension in ascending order, each coordinate's ``widths[d]`` parallel ports side by side. **Flattened butterfly** ``--k K --n N`` is BookSim2's
``flatfly``: the HyperX of ``(K,) * N`` with BookSim2's router numbering and port order.

**Dragonfly** (Kim et al., ISCA 2008) of ``A`` routers per group, ``H`` global links per router
and ``G`` groups: router ``g * A + r``; local ports first (the other ``A - 1`` routers of the
group, ascending), then the ``H`` global ports. Group ``g``'s global port ``j = r * H + h``
(``0 <= j < A*H``) is linked by the arrangement: with ``m = A*H / (G-1)`` links per pair of
groups, ``j = c * (G-1) + o`` (copy ``c``, offset ``o``):

- *consecutive* (BookSim2's ``dragonflynew``, Camarero et al.'s "absolute"): port ``j`` goes to
  the ``o``-th other group in ascending order (groups ``0..G-1`` without ``g``), arriving at that
  group's port ``c * (G-1) + o'`` where ``o'`` is ``g``'s rank among its other groups;
- *palm-tree* (Camarero, Vallejo and Beivide, 2014): port ``j`` goes to group
  ``(g + o + 1) mod G``, arriving at its port ``A*H - 1 - j``.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import NONE, Topology, finish_arrays
from netsim_fast.topologies.torus import coordinates

ARRANGEMENTS = ("consecutive", "palm-tree")


def _hamming(dims, kind: str, params: dict, widths=None) -> Topology:
    radix = np.asarray(dims, dtype=np.int64)
    widths = [1] * len(radix) if widths is None else [int(w) for w in widths]
    n_nodes = int(np.prod(radix))
    coord = coordinates(radix).astype(np.int64)
    strides = np.cumprod(np.concatenate([[1], radix[:-1]])).astype(np.int64)
    ids = np.arange(n_nodes, dtype=np.int64)
    columns = []
    for d, k in enumerate(radix.tolist()):
        own = coord[:, d]
        for rank in range(k - 1):  # the rank-th other coordinate, ascending
            other = rank + (rank >= own)
            columns.extend([ids + (other - own) * strides[d]] * widths[d])  # its parallel links side by side
    nbr = np.stack(columns, axis=1) if columns else np.zeros((n_nodes, 0), np.int64)
    return Topology(kind=kind, params=params, arrays=finish_arrays(nbr, parallel=max(widths) > 1),
                    vertex_transitive=True)


def hyperx(dims, widths=None) -> Topology:
    """HyperX of routers ``dims`` per dimension (dimension 0 first), ``widths[d]`` parallel links
    between two routers of dimension ``d`` (default 1; ``params["widths"]`` only when one is > 1)."""
    dims = tuple(int(k) for k in dims)
    widths = (1,) * len(dims) if widths is None else tuple(int(w) for w in widths)
    params = {"dims": ",".join(map(str, dims))}
    if any(w != 1 for w in widths):
        params["widths"] = ",".join(map(str, widths))
    return _hamming(dims, "hyperx", params, widths)


def flatfly(k: int, n: int) -> Topology:
    """BookSim2's flattened butterfly: ``n`` dimensions of ``k`` routers, all-to-all in each."""
    return _hamming((int(k),) * int(n), "flatfly", {"k": int(k), "n": int(n)})


def hamming_max_induced_edges(dims, size: int) -> int:
    """Most links inside a set of ``size`` routers of the HyperX ``dims``: the first ``size``
    routers in the lexicographic order whose most significant coordinate has the smallest radix
    (Lindsey 1964: its initial segments are optimal on a product of complete graphs)."""
    order = sorted(int(k) for k in dims)
    total = 0
    while order and size > 0:
        k, rest = order[0], order[1:]
        block = int(np.prod(rest)) if rest else 1
        per_block = block * sum(r - 1 for r in rest) // 2
        full, part = divmod(size, block)
        total += full * per_block + full * (full - 1) // 2 * block + full * part
        order, size = rest, part
    return total


def hamming_bisection(dims) -> int:
    """Exact bisection width of the HyperX ``dims`` (a regular graph: a half of floor(N/2)
    routers cuts degree * N/2 - 2 * its inner links, least for the optimal set above)."""
    n = int(np.prod([int(k) for k in dims]))
    degree = sum(int(k) - 1 for k in dims)
    half = n // 2
    return half * degree - 2 * hamming_max_induced_edges(dims, half)


def dragonfly_group_counts(a: int, h: int) -> list[int]:
    """Group counts G the arrangements support: G - 1 divides A*H (every pair of groups gets the
    same number of global links) and G - 1 >= H (a router's global links reach distinct groups)."""
    return [d + 1 for d in range(max(h, 1), a * h + 1) if (a * h) % d == 0]


def dragonfly_global_links(a: int, h: int, g: int, arrangement: str = "consecutive") -> np.ndarray:
    """int64[G*A*H, 4] rows ``(group, port j, peer group, peer port)`` for every global port."""
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"unknown dragonfly arrangement {arrangement!r}")
    ah, span = a * h, g - 1
    rows = []
    for grp in range(g):
        for j in range(ah):
            copy, off = divmod(j, span)
            if arrangement == "palm-tree":
                rows.append((grp, j, (grp + off + 1) % g, ah - 1 - j))
            else:
                peer = off + (off >= grp)
                back = grp - (grp > peer)
                rows.append((grp, j, peer, copy * span + back))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def dragonfly(a: int, h: int, g: int | None = None, arrangement: str = "consecutive") -> Topology:
    """Dragonfly of ``a`` routers per group, ``h`` global links per router, ``g`` groups
    (default ``a*h + 1``: one global link between every pair of groups)."""
    a, h = int(a), int(h)
    g = a * h + 1 if g is None else int(g)
    if g not in dragonfly_group_counts(a, h):
        raise ValueError(f"a dragonfly of A={a}, H={h} takes G in {dragonfly_group_counts(a, h)}, not {g}")
    n_nodes = g * a
    nbr = np.full((n_nodes, a - 1 + h), NONE, np.int64)
    ids = np.arange(n_nodes, dtype=np.int64)
    grp, r = ids // a, ids % a
    for rank in range(a - 1):
        nbr[:, rank] = grp * a + rank + (rank >= r)
    links = dragonfly_global_links(a, h, g, arrangement)
    src = links[:, 0] * a + links[:, 1] // h
    nbr[src, a - 1 + links[:, 1] % h] = links[:, 2] * a + links[:, 3] // h
    params = {"group_routers": a, "global_links": h, "groups": g, "global_arrangement": arrangement}
    return Topology(kind="dragonfly", params=params, arrays=finish_arrays(nbr), vertex_transitive=False)


__all__ = [
    "ARRANGEMENTS", "dragonfly", "dragonfly_global_links", "dragonfly_group_counts", "flatfly",
    "hamming_bisection", "hamming_max_induced_edges", "hyperx",
]
