"""Graph metrics of a ``Topology``: distance distribution, average distance, diameter, degree,
bisection width.

Distances come from breadth-first search in ``scipy.sparse.csgraph``. For vertex-transitive
graphs (tori, hypercubes, circulants) every node sees the same distance profile, so one BFS
from node 0 suffices; otherwise all sources are searched in chunks.

Bisection width = the number of undirected links cut by a minimum balanced cut (halves of
floor(N/2) and ceil(N/2) nodes). It is exact (``bisection_exact`` true) where it is proven:
tori and meshes whose largest radix k_max is even (a straight cut across that dimension:
2N/k_max links for a ring dimension with k_max > 2, N/k_max for a mesh dimension or k = 2,
so N/2 for the hypercube; Leighton 1992, section 1.9), HyperX and flattened butterflies (products
of complete graphs: ``direct.hamming_bisection``, by Lindsey's theorem), and any graph of at most
``BRUTE_FORCE_MAX_NODES`` nodes (all balanced cuts enumerated). On the trees (k-ary n-trees of
even k, folded Clos networks), whose terminals sit on the leaves only, the cut halves the
terminals instead: ``T/2`` links, full bisection. At least ``T/2``: the trees are
rearrangeably non-blocking (Clos 1953; Leiserson 1985), so a permutation sending each terminal
of one half to one of the other loads every link at most once per direction while ``T/2`` flows
cross the cut; at most ``T/2``: the cut between the halves of the top-level subtrees (pods),
the top switches split between them. Elsewhere the best of several
heuristic cuts (straight/arc cuts, spectral split, Kernighan-Lin refinement from several
starts) is reported with ``bisection_exact`` false: an upper bound on the true width. The
butterfly's (``--topology fly``) counts its one-way channels (topologies/fly.py ``fly_bisection``).
"""

from __future__ import annotations

import itertools

import numpy as np

from netsim_fast.topologies.base import Topology

BRUTE_FORCE_MAX_NODES = 20
KL_STARTS = 4          # random starts for Kernighan-Lin, beside the structured ones
KL_MAX_LINKS = 20_000  # above this, KL refinement costs seconds: report the structured cuts
SPECTRAL_MAX_NODES = 400
_BFS_CHUNK = 512


def distance_counts(topo: Topology) -> np.ndarray:
    """float64[diameter+1]: mean over sources of the number of nodes at distance i (i = 0: 1)."""
    from scipy.sparse.csgraph import shortest_path

    adj = topo.csr()
    n = topo.n_nodes
    sources = np.array([0]) if topo.vertex_transitive else np.arange(n)
    hist = np.zeros(n, dtype=np.int64)
    for start in range(0, sources.size, _BFS_CHUNK):
        chunk = sources[start : start + _BFS_CHUNK]
        dist = shortest_path(adj, unweighted=True, indices=chunk)
        if np.isinf(dist).any():
            raise ValueError(f"{topo.describe()} is not connected")
        hist += np.bincount(dist.astype(np.int64).ravel(), minlength=n)
    last = int(np.nonzero(hist)[0].max())
    return hist[: last + 1] / sources.size


def average_distance(counts: np.ndarray) -> float:
    """Eq. (2) of papers/001: mean distance over ordered pairs of distinct nodes."""
    n_nodes = counts.sum()
    return float((np.arange(counts.size) * counts).sum() / (n_nodes - 1)) if n_nodes > 1 else 0.0


# -- bisection ----------------------------------------------------------------------------


def cut_size(edges: np.ndarray, side: np.ndarray) -> int:
    """Links of ``edges`` (int[m, 2]) whose endpoints lie on different sides (bool[N])."""
    return int(np.count_nonzero(side[edges[:, 0]] != side[edges[:, 1]]))


def _grid_exact(topo: Topology):
    radix, wrap = topo.arrays.radix, topo.arrays.wrap
    k_max = int(radix.max())
    if k_max % 2 or topo.kind == "cmesh":  # a cmesh's express channels cross the mesh's cut
        return None
    d = int(np.argmax(radix))
    per_ring = 2 if (wrap[d] and k_max > 2) else 1
    return topo.n_nodes // k_max * per_ring


def _min_cut_with_side_size(n: int, edges: np.ndarray, size: int) -> int:
    """Least cut over every side of ``size`` nodes containing node 0 (bit masks, vectorised)."""
    combos = list(itertools.combinations(range(1, n), size - 1))
    combos = np.array(combos, dtype=np.int64).reshape(len(combos), size - 1)  # (1, 0) when side A is node 0 alone
    masks = np.ones(combos.shape[0], dtype=np.int64)
    for col in range(combos.shape[1]):
        masks |= np.left_shift(1, combos[:, col])
    cut = np.zeros(masks.shape[0], dtype=np.int64)
    for u, v in edges:
        cut += ((masks >> u) ^ (masks >> v)) & 1
    return int(cut.min()) if cut.size else 0


def _brute_force(n: int, edges: np.ndarray) -> int:
    """Exact minimum balanced cut by enumeration (node 0 fixed on side A to halve the work;
    with n odd side A may be either the smaller or the larger half)."""
    half = n // 2
    best = _min_cut_with_side_size(n, edges, half)
    if n % 2:
        best = min(best, _min_cut_with_side_size(n, edges, half + 1))
    return best


def _ordered_split(order: np.ndarray, n: int) -> np.ndarray:
    side = np.zeros(n, dtype=bool)
    side[order[: n // 2]] = True
    return side


def _candidate_sides(topo: Topology):
    """Balanced starting cuts that exploit the structure of the topology."""
    n = topo.n_nodes
    if topo.is_grid:
        coord = topo.arrays.coord
        for d in range(topo.n_dims):
            keys = [coord[:, e] for e in range(topo.n_dims) if e != d] + [coord[:, d]]
            yield _ordered_split(np.lexsort(keys), n)
    yield _ordered_split(np.arange(n), n)  # arc cut: contiguous ids (circulants, rings)
    if topo.vertex_transitive and not topo.is_grid:
        yield from _fourier_sides(topo, n)
    elif n <= SPECTRAL_MAX_NODES:
        yield _spectral_side(topo, n)
    yield _ordered_split(_bfs_order(topo, 0), n)


def _fourier_sides(topo: Topology, n: int, modes: int = 3):
    """Circulants: the Laplacian eigenvectors are cos(2 pi k i / n); split along the modes of
    smallest eigenvalue (a closed-form spectral bisection)."""
    offsets = topo.arrays.nbr[0, : topo.first_local].astype(np.int64)
    offsets = offsets[offsets >= 0]
    k = np.arange(1, n // 2 + 1, dtype=np.int64)
    eig = (1.0 - np.cos(2.0 * np.pi * np.outer(k, offsets) / n)).sum(axis=1)
    ids = np.arange(n)
    for mode in k[np.argsort(eig, kind="stable")[:modes]]:
        yield _ordered_split(np.argsort(np.cos(2.0 * np.pi * mode * ids / n + 1e-9), kind="stable"), n)


def _bfs_order(topo: Topology, root: int) -> np.ndarray:
    from scipy.sparse.csgraph import breadth_first_order

    order = breadth_first_order(topo.csr(), root, directed=False, return_predecessors=False)
    return np.asarray(order)


def _spectral_side(topo: Topology, n: int) -> np.ndarray:
    """Median split of the Fiedler vector of the graph Laplacian (dense; small graphs)."""
    from scipy.sparse.csgraph import laplacian

    lap = laplacian(topo.csr().astype(np.float64))
    _, vecs = np.linalg.eigh(lap.toarray())
    return _ordered_split(np.argsort(vecs[:, 1], kind="stable"), n)


def _kl_refine(topo: Topology, side: np.ndarray, seed: int) -> np.ndarray:
    from networkx.algorithms.community import kernighan_lin_bisection

    g = topo.to_networkx()
    a = set(np.nonzero(side)[0].tolist())
    b = set(range(topo.n_nodes)) - a
    part_a, _ = kernighan_lin_bisection(g, partition=(a, b), max_iter=20, seed=seed)
    refined = np.zeros(topo.n_nodes, dtype=bool)
    refined[list(part_a)] = True
    return refined


def bisection(topo: Topology) -> tuple[int, bool]:
    """(width, exact): minimum balanced cut in undirected links; see the module docstring."""
    edges = topo.edges()
    n = topo.n_nodes
    if topo.is_grid and not topo.faulted:
        exact = _grid_exact(topo)
        if exact is not None:
            return exact, True
    if topo.kind == "fly":  # one-way channels (topologies/fly.py)
        from netsim_fast.topologies.fly import fly_bisection

        return fly_bisection(topo)
    if topo.kind in ("fattree", "clos") and not topo.faulted and topo.n_terminals % 2 == 0:
        return topo.n_terminals // 2, True
    if topo.kind in ("hyperx", "flatfly") and not topo.faulted:
        from netsim_fast.topologies.direct import hamming_bisection

        p = topo.params
        dims = [int(x) for x in p["dims"].split(",")] if topo.kind == "hyperx" else [p["k"]] * p["n"]
        widths = {int(x) for x in str(p.get("widths", "1")).split(",")}
        if len(widths) == 1:  # every link doubled alike: every cut scales by the width
            return hamming_bisection(dims) * widths.pop(), True
    if n <= BRUTE_FORCE_MAX_NODES:
        return _brute_force(n, edges), True
    starts = list(_candidate_sides(topo))
    best = min(cut_size(edges, side) for side in starts)
    if edges.shape[0] <= KL_MAX_LINKS:
        rng = np.random.default_rng(0)
        starts += [_ordered_split(rng.permutation(n), n) for _ in range(KL_STARTS)]
        for i, side in enumerate(starts):
            best = min(best, cut_size(edges, _kl_refine(topo, side, seed=i)))
    return best, False


def topology_metrics(topo: Topology, *, with_bisection: bool = True) -> dict:
    """The metrics printed by ``netsim-fast topo`` (JSON keys of the interface contract)."""
    if topo.kind == "fly":  # distances along its one-way channels
        from netsim_fast.topologies.fly import fly_metrics

        return fly_metrics(topo, with_bisection=with_bisection)
    counts = distance_counts(topo)
    degree = topo.arrays.degree
    out = {
        "topology": topo.describe(),
        "nodes": topo.n_nodes,
        "links": topo.n_links // 2,
        "degree_min": int(degree.min()),
        "degree_max": int(degree.max()),
        "degree_mean": float(degree.mean()),
        "average_distance": average_distance(counts),
        "diameter": int(counts.size - 1),
        "distance_distribution": counts.tolist(),
        "routers": topo.n_nodes,  # the graph's nodes above are routers; terminals send and receive
        "terminals": topo.n_terminals,
        "terminals_per_router": topo.concentration,
    }
    if with_bisection:
        width, exact = bisection(topo)
        out["bisection_width"] = width
        out["bisection_exact"] = exact
    return out
