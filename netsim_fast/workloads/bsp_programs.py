"""BSP programs as phased message sets: supersteps, barrier trees and a few classic programs.

A *superstep* is an h-relation given as ``(src, dst)`` arrays. A *program* is a list of
supersteps, each followed by a barrier: a combine-and-broadcast (CB) over a tree of the nodes.
``phased_program`` lays the whole program out as one message set with a *phase* per message
and one rule, the one the engines execute (``engine/phased_run.py``):

    a message of phase f leaves node u once u has received every message addressed to it
    with a phase below f.

With data of superstep s in phase ``D_s = s (2H + 1)`` (H = tree height), the barrier's
up-message of a node at depth d in phase ``D_s + 1 + H - d`` and its down-messages to its
children in phase ``D_s + H + 1 + d``, the rule gives exactly the CB barrier: a node joins
(sends up) once it has received all its data of the superstep and the up-messages of its
children; the root answers down once it has all; a node starts superstep s+1 once the down
wave reached it. A node's own sends of a superstep are never waited for: in BSP a node
submits its messages before it synchronises, and the barrier completes only when every
message was received, which the receivers certify.

Trees: ``bfs_tree`` is a spanning tree of the network (root = a centre node, each node's
parent one hop closer), so the barrier takes time proportional to the diameter, the
barrier of papers/002 section 5; ``heap_tree`` is the complete ``a``-ary tree on node ids of
the LogP CB algorithm (section 4.1), whose edges are multi-hop paths.

Programs: ``total_exchange`` (one superstep, h = p-1; shift or random order), ``prefix_doubling`` (the doubling
scan: ceil(log2 p) supersteps of h = 1) and ``sample_sort`` (regular sampling: gather the
samples, broadcast the splitters, move the keys).

Notes
-----
Bilardi et al. (papers/002): superstep = computation, communication, barrier (section 2.1);
CB tree (section 4.1); barrier in time proportional to the diameter (section 5).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from netsim_fast.errors import ConfigError

DATA, UP, DOWN = 0, 1, 2  # message kinds


class Program(NamedTuple):
    """A phased message set in per-source program order (sorted by source, phase, position).

    src, dst : int32[m]
    length : int32[m]
        Flits per message on the flit engine (the packet engine moves whole packets).
    phase : int32[m]
        The rule of the module docstring.
    step : int32[m]
        Superstep the message belongs to (a barrier message: the superstep it closes).
    kind : int8[m]
        DATA, UP (towards the root) or DOWN.
    """

    src: np.ndarray
    dst: np.ndarray
    length: np.ndarray
    phase: np.ndarray
    step: np.ndarray
    kind: np.ndarray

    @property
    def n_messages(self) -> int:
        return int(self.src.size)


class Tree(NamedTuple):
    """A rooted spanning tree: ``parent[root] = -1``; ``depth[u]`` edges from the root."""

    parent: np.ndarray
    depth: np.ndarray
    root: int

    @property
    def height(self) -> int:
        return int(self.depth.max())


def _depths(parent: np.ndarray, root: int) -> np.ndarray:
    n = parent.size
    depth = np.full(n, -1, np.int64)
    depth[root] = 0
    for _ in range(n):
        todo = depth < 0
        if not todo.any():
            return depth
        known = depth[np.where(parent >= 0, parent, root)]
        step = todo & (parent >= 0) & (known >= 0)
        depth[step] = known[step] + 1
    raise ConfigError("the parent array does not form a tree rooted at its root")


def heap_tree(p: int, arity: int) -> Tree:
    """Complete ``arity``-ary tree on nodes ``0..p-1`` in heap order (root 0)."""
    if p < 2 or arity < 2:
        raise ConfigError(f"a CB tree needs p >= 2 and arity >= 2; got p = {p}, arity = {arity}")
    parent = np.arange(p, dtype=np.int64)
    parent = (parent - 1) // arity
    parent[0] = -1
    return Tree(parent, _depths(parent, 0), 0)


def bfs_tree(topo, dist: np.ndarray) -> Tree:
    """Breadth-first spanning tree of the network rooted at a centre node.

    Parameters
    ----------
    topo : Topology
    dist : int16[N, N]
        All-pairs hop distances (``routing.table.all_pairs_distances``).

    The root is the node of least eccentricity (lowest id on ties); every other node's parent
    is its neighbour on the lowest port among those one hop closer to the root, so every
    tree edge is one link and the height is the root's eccentricity (the radius).
    """
    ecc = dist.max(axis=1)
    root = int(np.argmin(ecc))
    d = dist[root].astype(np.int64)
    nbr = topo.nbr[:, : topo.local_port]
    valid = nbr >= 0
    nbr_d = np.where(valid, d[np.where(valid, nbr, 0)], -2)
    closer = nbr_d == (d[:, None] - 1)
    port = np.argmax(closer, axis=1)
    parent = nbr[np.arange(topo.n_nodes), port].astype(np.int64)
    parent[root] = -1
    return Tree(parent, d, root)


def degree(src, dst, p: int) -> int:
    """``h = max(r, s)``: most messages sent or received by one node (0 for none)."""
    src = np.asarray(src)
    if src.size == 0:
        return 0
    return int(max(np.bincount(src, minlength=p).max(), np.bincount(np.asarray(dst), minlength=p).max()))


def phased_program(supersteps, tree: Tree, data_flits: int = 1, barrier_flits: int = 1) -> Program:
    """Lay out ``supersteps``, each followed by a CB barrier over ``tree`` (module docstring).

    Parameters
    ----------
    supersteps : list of (src, dst)
        Each an h-relation (int arrays of equal length, no message to itself); an empty one
        is a barrier alone.
    tree : Tree
        The barrier's tree (``bfs_tree`` or ``heap_tree``).
    data_flits, barrier_flits : int
        Message lengths on the flit engine.
    """
    p = tree.parent.size
    height = tree.height
    nodes = np.arange(p)
    child = nodes[tree.parent >= 0]
    parts = []
    for s, (src, dst) in enumerate(supersteps):
        src = np.asarray(src, dtype=np.int64).ravel()
        dst = np.asarray(dst, dtype=np.int64).ravel()
        if src.shape != dst.shape:
            raise ConfigError(f"superstep {s}: src and dst need equal lengths; got {src.size} and {dst.size}")
        if src.size and (src.min() < 0 or dst.min() < 0 or max(src.max(), dst.max()) >= p):
            raise ConfigError(f"superstep {s}: message endpoints must be nodes 0..{p - 1}")
        if np.any(src == dst):
            raise ConfigError(f"superstep {s}: a message from a node to itself never enters the network; remove it")
        base = s * (2 * height + 1)
        d_child = tree.depth[child]
        # up from depth d: base + 1 + H - d; down from the parent (depth d - 1): base + H + d
        parts.append((src, dst, data_flits, np.full(src.size, base), DATA, s))
        parts.append((child, tree.parent[child], barrier_flits, base + 1 + height - d_child, UP, s))
        parts.append((tree.parent[child], child, barrier_flits, base + height + d_child, DOWN, s))
    src = np.concatenate([q[0] for q in parts])
    dst = np.concatenate([q[1] for q in parts])
    length = np.concatenate([np.full(q[0].size, q[2]) for q in parts])
    phase = np.concatenate([q[3] for q in parts])
    kind = np.concatenate([np.full(q[0].size, q[4]) for q in parts])
    step = np.concatenate([np.full(q[0].size, q[5]) for q in parts])
    order = np.lexsort((np.arange(src.size), phase, src))
    return Program(src[order].astype(np.int32), dst[order].astype(np.int32), length[order].astype(np.int32),
                   phase[order].astype(np.int32), step[order].astype(np.int32), kind[order].astype(np.int8))


# -- classic programs ------------------------------------------------------------------------


def total_exchange(p: int, order: str = "shift", seed: int = 0):
    """One superstep: every node one message to every other node; h = p - 1.

    ``order="shift"``: node u sends to ``u + 1, u + 2, ...`` (source-major), so at any
    moment all nodes send with the same offset; ``"random"``: each node sends to the others
    in its own random order (seeded). BSP charges both the same.
    """
    src = np.repeat(np.arange(p), p - 1)
    if order == "shift":
        shift = np.tile(np.arange(1, p), p)
    elif order == "random":
        rng = np.random.default_rng(seed)
        shift = np.concatenate([rng.permutation(np.arange(1, p)) for _ in range(p)])
    else:
        raise ConfigError(f"total exchange order {order!r}: choose shift or random")
    return [(src, (src + shift) % p)]


def prefix_doubling(p: int):
    """The doubling (Hillis-Steele) scan: in superstep k node i sends its partial sum to
    ``i + 2^k`` if that node exists; ``ceil(log2 p)`` supersteps, each a partial permutation
    (h = 1)."""
    steps, k = [], 1
    while k < p:
        src = np.arange(p - k)
        steps.append((src, src + k))
        k *= 2
    return steps


def sample_sort(p: int, keys_per_node: int, seed: int = 0):
    """Sample sort by regular sampling (PSRS) of ``p * keys_per_node`` random keys.

    Superstep 0: every node sorts its keys and sends its ``p - 1`` regular samples to node 0
    as one message (h = p - 1 at node 0). Superstep 1: node 0 sorts the samples, picks
    ``p - 1`` splitters and sends them to every node as one message (h = p - 1). Superstep 2:
    every key moves to the node owning its bucket, one message per key (keys already at their
    owner stay). Local work is not simulated (w = 0).

    Returns
    -------
    supersteps : list of (src, dst)
    info : dict
        ``bucket_sizes`` (int64[p]) and ``sorted_ok`` (the buckets, concatenated in node
        order, are the sorted keys).
    """
    if keys_per_node < 1:
        raise ConfigError(f"sample sort needs keys_per_node >= 1; got {keys_per_node}")
    rng = np.random.default_rng(seed)
    keys = np.sort(rng.random((p, keys_per_node)), axis=1)
    pick = (np.arange(1, p) * keys_per_node) // p
    samples = np.sort(keys[:, pick].ravel())
    splitters = samples[np.arange(1, p) * (p - 1)]
    owner = np.searchsorted(splitters, keys, side="right")  # [p, keys_per_node]
    holder = np.repeat(np.arange(p), keys_per_node).reshape(p, keys_per_node)
    moving = owner != holder
    others = np.arange(1, p)
    steps = [(others, np.zeros(p - 1, np.int64)),
             (np.zeros(p - 1, np.int64), others),
             (holder[moving], owner[moving])]
    buckets = [np.sort(keys[owner == b]) for b in range(p)]
    sorted_ok = bool(np.array_equal(np.concatenate(buckets), np.sort(keys.ravel())))
    return steps, {"bucket_sizes": np.array([b.size for b in buckets], np.int64), "sorted_ok": sorted_ok}
