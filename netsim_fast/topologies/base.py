"""The ``Topology`` every builder returns: port tables as flat integer arrays.

Layout (DESIGN.md, "Data flow"): ports ``0 .. max_degree-1`` are network ports, port
``n_ports-1`` is the local (injection/ejection) port. ``nbr[node, port]`` is the neighbour
reached through ``port`` (``NONE`` = -1 when the port is unused: a mesh border, a lower-degree
node of an irregular graph, the local port). ``nbr_in_port[node, port]`` is the input port of
that neighbour at which the link arrives, so ``nbr[nbr[u, p], nbr_in_port[u, p]] == u``.
``link_id[node, port]`` numbers the directed links ``0 .. n_links-1`` in (node, port) order.

Grid topologies (torus, mesh, hypercube) also carry ``radix[d]``, ``wrap[d]`` (1 for a ring
dimension, 0 for a mesh dimension), ``coord[node, d]`` and the port of each (dimension,
direction). Non-grid topologies carry empty arrays of the same dtypes so that a kernel compiled
for one kind serves every kind (Numba specialises on types, not on values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

NONE = -1

DIR_PLUS = 1
DIR_MINUS = -1
DIR_BOTH = 0  # radix-2 dimension: one link is both the + and the - neighbour


class TopoArrays(NamedTuple):
    """What the kernels see. Same field dtypes and ranks for every topology kind."""

    nbr: np.ndarray          # int32[n_nodes, n_ports]: neighbour through port, NONE if unused
    nbr_in_port: np.ndarray  # int32[n_nodes, n_ports]: input port of the neighbour the link enters
    link_id: np.ndarray      # int32[n_nodes, n_ports]: directed link id, NONE if unused
    degree: np.ndarray       # int32[n_nodes]: number of network ports in use
    radix: np.ndarray        # int32[n_dims]: grid radix per dimension (empty if not a grid)
    wrap: np.ndarray         # int32[n_dims]: 1 ring dimension (torus), 0 mesh dimension
    coord: np.ndarray        # int32[n_nodes, n_dims]: grid coordinates, dimension 0 fastest
    port_dim: np.ndarray     # int32[n_ports]: grid dimension of the port, NONE otherwise
    port_dir: np.ndarray     # int32[n_ports]: DIR_PLUS, DIR_MINUS or DIR_BOTH (radix 2)
    dim_port: np.ndarray     # int32[n_dims, 2]: port of (+, -) direction per dimension


@dataclass(frozen=True, eq=False)
class Topology:
    """An immutable network graph with port tables; cheap to pickle (only numpy arrays).

    Parameters
    ----------
    kind : str
        Builder name (``torus``, ``mesh``, ``hypercube``, ``rrg``, ...).
    params : dict
        The parameters that built it (for summaries and traces).
    arrays : TopoArrays
        Port tables, see the module docstring.
    vertex_transitive : bool
        True when every node sees the same graph (tori, circulants); metrics then need one BFS.
    terminal_router : numpy.ndarray or None
        int32[T]: the router of each terminal when they are not ``t // concentration`` (BookSim2's
        anynet files, topologies/anynet.py: any number per router, in any order).
    link_latency : numpy.ndarray or None
        int64[n_nodes, n_ports]: the cycles of the channel leaving each port, when a file gives them.
    """

    kind: str
    params: dict
    arrays: TopoArrays
    vertex_transitive: bool = False
    notes: tuple = field(default=())
    terminal_router: np.ndarray | None = None
    link_latency: np.ndarray | None = None

    # -- sizes -------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return int(self.arrays.nbr.shape[0])

    @property
    def n_ports(self) -> int:
        """Network ports plus the local port."""
        return int(self.arrays.nbr.shape[1])

    @property
    def faulted(self) -> bool:
        """True when links were failed (topologies/faults.py): closed forms of the intact
        topology (bisection, capacity, dimension order) no longer hold."""
        return bool(self.params.get("link_failures"))

    @property
    def concentration(self) -> int:
        """Terminals per router (``--concentration``, 1 unless ``concentrate`` was applied)."""
        return int(self.params.get("concentration", 1))

    @property
    def n_terminals(self) -> int:
        """Terminals (the nodes that send and receive): ``concentration`` per router, terminal
        ``t`` on router ``t // concentration`` (BookSim2's numbering on its dragonfly). Trees
        (topologies/fattree.py) have them on their leaves only, which they number first: the
        first ``params["terminals"]`` slots are real, the others never send or receive."""
        return int(self.params.get("terminals", self.n_nodes * self.concentration))

    @property
    def eject_shift(self) -> int:
        """Routers between a terminal's injection and ejection routers: terminal ``t`` injects at
        router ``t // concentration`` and ejects at router ``t // concentration + eject_shift``,
        through local port ``first_local + t % concentration`` both times. 0 (one router per
        terminal) everywhere but the butterfly (topologies/fly.py), whose terminals inject at its
        first stage and eject at its last."""
        return int(self.params.get("eject_shift", 0))

    @property
    def first_local(self) -> int:
        """The first local port: terminal ``t`` uses port ``first_local + t % concentration``."""
        return self.n_ports - self.concentration

    @property
    def local_port(self) -> int:
        return self.n_ports - 1

    @property
    def n_links(self) -> int:
        """Directed links (each undirected link counts twice)."""
        return int((self.arrays.link_id >= 0).sum())

    @property
    def n_dims(self) -> int:
        return int(self.arrays.radix.shape[0])

    @property
    def is_grid(self) -> bool:
        return self.n_dims > 0

    # -- pass-through to the arrays ----------------------------------------------------
    @property
    def nbr(self) -> np.ndarray:
        return self.arrays.nbr

    @property
    def nbr_in_port(self) -> np.ndarray:
        return self.arrays.nbr_in_port

    @property
    def link_id(self) -> np.ndarray:
        return self.arrays.link_id

    @property
    def degree(self) -> np.ndarray:
        return self.arrays.degree

    @property
    def radix(self) -> np.ndarray:
        return self.arrays.radix

    @property
    def coord(self) -> np.ndarray:
        return self.arrays.coord

    # -- derived views -----------------------------------------------------------------
    def links(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Directed links ordered by id: ``(src, dst, port)`` int32 arrays."""
        src, port = np.nonzero(self.arrays.link_id >= 0)
        order = np.argsort(self.arrays.link_id[src, port], kind="stable")
        src, port = src[order].astype(np.int32), port[order].astype(np.int32)
        return src, self.arrays.nbr[src, port].astype(np.int32), port

    def edges(self) -> np.ndarray:
        """Undirected links as an int64[m, 2] array with u < v, sorted."""
        src, dst, _ = self.links()
        keep = src < dst
        pairs = np.stack([src[keep], dst[keep]], axis=1).astype(np.int64)
        return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]

    def csr(self):
        """Symmetric scipy CSR adjacency matrix (unit weights)."""
        import scipy.sparse as sp

        src, dst, _ = self.links()
        data = np.ones(src.shape[0], dtype=np.int8)
        return sp.csr_matrix((data, (src, dst)), shape=(self.n_nodes, self.n_nodes))

    def to_networkx(self):
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(self.n_nodes))
        g.add_edges_from(map(tuple, self.edges().tolist()))
        return g

    def neighbors(self, node: int) -> np.ndarray:
        row = self.arrays.nbr[node, : self.first_local]
        return row[row >= 0]

    def node_id(self, coord) -> int:
        """Node id of grid coordinates (dimension 0 varies fastest)."""
        radix = self.arrays.radix
        node, stride = 0, 1
        for d, c in enumerate(coord):
            node += int(c) * stride
            stride *= int(radix[d])
        return node

    def describe(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.params.items() if v is not None)
        return f"{self.kind}({inner})"


def _empty_grid_fields(n_nodes: int, n_ports: int) -> dict:
    return dict(
        radix=np.zeros(0, np.int32),
        wrap=np.zeros(0, np.int32),
        coord=np.zeros((n_nodes, 0), np.int32),
        port_dim=np.full(n_ports, NONE, np.int32),
        port_dir=np.zeros(n_ports, np.int32),
        dim_port=np.zeros((0, 2), np.int32),
    )


def finish_arrays(nbr: np.ndarray, parallel: bool = False, **grid_fields) -> TopoArrays:
    """Complete port tables from ``nbr`` (int[n_nodes, max_degree], NONE where unused).

    Appends the local port column, derives ``nbr_in_port`` (each link must have a matching
    reverse link) and numbers directed links in (node, port) order. ``parallel``: two nodes may
    be joined by several links (a HyperX's widths), the ``j``-th port of ``u`` to ``v`` being
    the ``j``-th port of ``v`` to ``u`` seen from the other end; otherwise a repeat is an error.
    """
    nbr = np.asarray(nbr, dtype=np.int32)
    n_nodes, max_degree = nbr.shape
    n_ports = max_degree + 1
    full = np.full((n_nodes, n_ports), NONE, np.int32)
    full[:, :max_degree] = nbr

    nbr_in_port = np.full_like(full, NONE)
    src, port = np.nonzero(full >= 0)
    dst = full[src, port]
    # reverse lookup: for link (u -> v via p), find the port q of v with nbr[v, q] == u
    key_fwd = src.astype(np.int64) * n_nodes + dst
    order = np.argsort(key_fwd, kind="stable")
    key_sorted = key_fwd[order]
    key_rev = dst.astype(np.int64) * n_nodes + src
    # parallel links (HyperX widths): the j-th port of u to v pairs with the j-th port of v to u
    rank = np.empty(src.size, np.int64)
    rank[order] = np.arange(src.size) - np.searchsorted(key_sorted, key_sorted)
    if not parallel and np.any(rank > 0):
        raise ValueError("neighbour table has a duplicate link between the same two nodes")
    pos = np.searchsorted(key_sorted, key_rev) + rank
    if np.any(pos >= key_sorted.size) or np.any(key_sorted[np.minimum(pos, key_sorted.size - 1)] != key_rev):
        raise ValueError("neighbour table is not symmetric: a link has no reverse link")
    nbr_in_port[src, port] = port[order[pos]]

    link_id = np.full_like(full, NONE)
    link_id[src, port] = np.arange(src.size, dtype=np.int32)
    degree = (full[:, :max_degree] >= 0).sum(axis=1).astype(np.int32)

    fields = _empty_grid_fields(n_nodes, n_ports)
    fields.update({k: np.ascontiguousarray(v, dtype=np.int32) for k, v in grid_fields.items()})
    if fields["port_dim"].shape[0] != n_ports:
        raise ValueError("port_dim must have one entry per port, local port included")
    return TopoArrays(nbr=full, nbr_in_port=nbr_in_port, link_id=link_id, degree=degree, **fields)


def concentrate(topo: Topology, concentration: int) -> Topology:
    """``topo`` with ``concentration`` terminals per router: ``concentration - 1`` more local
    ports after the one every topology has (columns of NONE in the port tables), and the count in
    ``params["concentration"]``. ``concentration`` 1 returns ``topo`` itself."""
    c = int(concentration)
    if c == 1:
        return topo
    a = topo.arrays
    extra = c - 1

    def widen(table):
        return np.concatenate([table, np.full((table.shape[0], extra), NONE, np.int32)], axis=1)

    arrays = a._replace(nbr=widen(a.nbr), nbr_in_port=widen(a.nbr_in_port), link_id=widen(a.link_id),
                        port_dim=np.concatenate([a.port_dim, np.full(extra, NONE, np.int32)]),
                        port_dir=np.concatenate([a.port_dir, np.zeros(extra, np.int32)]))
    return Topology(kind=topo.kind, params={**topo.params, "concentration": c}, arrays=arrays,
                    vertex_transitive=topo.vertex_transitive, notes=topo.notes)


def terminal_view(topo: Topology):
    """What a traffic pattern sees: ``topo`` itself with one terminal per router; with
    ``concentration`` C > 1 or an anynet file's terminals (``terminal_router``, any number per
    router) a graph of ``n_terminals`` nodes without coordinates (the patterns
    then pick terminals by id, as BookSim2's do), and a dragonfly's groups counted in terminals
    (``group_routers`` * C), so ``worst-case`` sends to a random terminal of the next group."""
    c = topo.concentration
    if c == 1 and topo.terminal_router is None:
        return topo
    from types import SimpleNamespace

    t = topo.n_terminals
    params = dict(topo.params)
    if "group_routers" in params:
        params["group_routers"] = int(params["group_routers"]) * c
    arrays = SimpleNamespace(coord=np.zeros((t, 0), np.int32), radix=np.zeros(0, np.int32))
    return SimpleNamespace(n_nodes=t, arrays=arrays, is_grid=False, params=params, kind=topo.kind)


def from_adjacency_lists(neighbours: list[np.ndarray] | list[list[int]]) -> TopoArrays:
    """Port tables for a general graph: ports in ascending neighbour-id order."""
    n_nodes = len(neighbours)
    max_degree = max((len(x) for x in neighbours), default=0)
    nbr = np.full((n_nodes, max(max_degree, 1)), NONE, np.int32)
    for u, row in enumerate(neighbours):
        row = np.sort(np.asarray(row, dtype=np.int64))
        nbr[u, : row.size] = row
    if max_degree == 0:
        nbr = nbr[:, :0]
    return finish_arrays(nbr)


def from_edges(n_nodes: int, edges: np.ndarray) -> TopoArrays:
    """Port tables from an undirected simple edge array int[m, 2]."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    both = np.concatenate([edges, edges[:, ::-1]])
    both = both[np.lexsort((both[:, 1], both[:, 0]))]
    counts = np.bincount(both[:, 0], minlength=n_nodes)
    splits = np.split(both[:, 1], np.cumsum(counts)[:-1])
    return from_adjacency_lists(splits)
