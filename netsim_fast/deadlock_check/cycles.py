"""Cycles in large sparse directed graphs: strongly connected components (scipy) and one
shortest cycle through a chosen vertex (breadth-first search inside its component)."""

from __future__ import annotations

from collections import deque

import numpy as np


def csr(n: int, src: np.ndarray, dst: np.ndarray):
    """The graph of edges ``src[i] -> dst[i]`` on vertices ``0..n-1`` as (indptr, indices),
    duplicates removed, each row sorted."""
    key = np.unique(np.asarray(src, np.int64) * n + np.asarray(dst, np.int64))
    rows, cols = key // n, key % n
    indptr = np.zeros(n + 1, np.int64)
    np.add.at(indptr, rows + 1, 1)
    return np.cumsum(indptr), cols


def find_cycle(n: int, indptr: np.ndarray, indices: np.ndarray, through: np.ndarray | None = None) -> list[int] | None:
    """A shortest cycle through the lowest vertex that lies on a cycle (and, if ``through`` is
    given, has ``through[v]`` true), as a list of vertices ``[v, ..., u]`` with ``u -> v`` the
    closing edge; None when there is no such cycle (the graph, or every vertex of ``through``,
    is acyclic)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    indptr = np.asarray(indptr, np.int64)
    indices = np.asarray(indices, np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    loops = rows[rows == indices]
    if through is not None:
        loops = loops[through[loops]]
    best_loop = int(loops.min()) if loops.size else None
    if n == 0 or indices.size == 0:
        return [best_loop] if best_loop is not None else None
    graph = csr_matrix((np.ones(indices.size, np.int8), indices, indptr), shape=(n, n))
    _, labels = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(labels)
    on_cycle = sizes[labels] >= 2
    if through is not None:
        on_cycle &= through
    candidates = np.nonzero(on_cycle)[0]
    start = int(candidates[0]) if candidates.size else None
    if start is None or (best_loop is not None and best_loop <= start):
        return [best_loop] if best_loop is not None else None
    comp = labels[start]
    parent = {start: -1}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        for w in indices[indptr[u]: indptr[u + 1]]:
            w = int(w)
            if w == start:
                path = [u]
                while parent[path[-1]] != -1:
                    path.append(parent[path[-1]])
                return path[::-1]
            if w not in parent and labels[w] == comp:
                parent[w] = u
                todo.append(w)
    raise AssertionError("a vertex of a strong component of size >= 2 lies on a cycle")
