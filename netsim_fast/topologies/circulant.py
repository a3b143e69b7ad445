"""Circulant graphs and their named members: binomial graph (BMG), ring, complete graph.

A circulant graph C_n(j_1, ..., j_m) links node i to i ± j_k (mod n) (Angskun et al.,
papers/001, section 1). Ports: jumps in ascending order, ``+j`` then ``-j``; a ``-j`` that
reaches the same node as an earlier port (``j = n/2``, or ``-j ≡ +j'``) is merged into it,
so the graph stays simple and each node's degree is the number of *distinct* neighbours.

The BMG uses every jump 2^k < n (``2^k = n`` would be a self-loop). With the merging above its
degree is eq. (1) of papers/001 for every n: n = 2^k gives 2*ceil(log2 n) - 1 (the jump n/2
is its own inverse); n = 2^k + 2^j, j < k (j = 0 included, so n = 2^k + 1 belongs here)
gives 2*ceil(log2 n) - 2 (the jump 2^k is the inverse of 2^j); otherwise 2*ceil(log2 n).
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import DIR_BOTH, DIR_MINUS, DIR_PLUS, NONE, Topology, finish_arrays


def circulant_offsets(n: int, jumps) -> tuple[list[int], list[int]]:
    """Distinct neighbour offsets (mod n) in port order, and the direction of each port."""
    offsets, directions = [], []
    for j in sorted({int(j) % n for j in jumps}):
        for sign in (DIR_PLUS, DIR_MINUS):
            off = (sign * j) % n
            if off == 0 or off in offsets:
                continue
            offsets.append(off)
            directions.append(DIR_BOTH if 2 * off == n else sign)
    return offsets, directions


def _circulant(n: int, jumps, kind: str, params: dict) -> Topology:
    offsets, directions = circulant_offsets(n, jumps)
    ids = np.arange(n, dtype=np.int64)
    nbr = np.stack([(ids + off) % n for off in offsets], axis=1) if offsets else np.zeros((n, 0))
    arrays = finish_arrays(nbr)
    # Circulants are not grids; keep port directions anyway (cheap, used by ring routing).
    arrays = arrays._replace(port_dir=np.array(directions + [0], np.int32))
    return Topology(kind=kind, params=params, arrays=arrays, vertex_transitive=True)


def circulant(n: int, jumps) -> Topology:
    jumps = tuple(int(j) for j in jumps)
    return _circulant(n, jumps, "circulant", {"nodes": n, "jumps": ",".join(map(str, jumps))})


def bmg_jumps(n: int) -> list[int]:
    """Jumps of the binomial graph: every power of two strictly below n."""
    jumps, j = [], 1
    while j < n:
        jumps.append(j)
        j *= 2
    return jumps


def bmg(n: int) -> Topology:
    return _circulant(n, bmg_jumps(n), "bmg", {"nodes": n})


def bmg_degree_formula(n: int) -> int:
    """Degree of an n-node BMG by eq. (1) of papers/001 (j = 0 allowed in n = 2^k + 2^j)."""
    c = int(np.ceil(np.log2(n)))
    if n & (n - 1) == 0:
        return 2 * c - 1
    if bin(n).count("1") == 2:
        return 2 * c - 2
    return 2 * c


def ring(n: int) -> Topology:
    return _circulant(n, (1,), "ring", {"nodes": n})


def complete(n: int) -> Topology:
    return _circulant(n, range(1, n // 2 + 1), "complete", {"nodes": n})


__all__ = ["NONE", "bmg", "bmg_degree_formula", "bmg_jumps", "circulant", "complete", "ring"]
