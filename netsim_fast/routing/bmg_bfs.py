"""Breadth-first-search BMG routing: the paper's original optimal algorithm.

Angskun et al. (papers/001), section 2.1 and Algorithm 1: search breadth-first from the current
node until the destination is dequeued, then follow the parents back to the first hop. The paper
either repeats the search per message (O(degree**D) in its words; O(n * degree) here) or keeps
the first hops in an ``n x n`` routing table (O(n**2) memory). Both are here; the search is what
Fig. 11 times, the table is what an engine should use.

Neighbours are enqueued in the order of ``routing.bmg_links`` (clockwise first), which decides
which of several shortest paths is taken. A BFS from any node is the BFS from node 0 shifted by
that node (the graph is circulant and the order is relative), so one search from node 0 fills
the whole table; ``tests/test_bmg_routing.py`` checks this against Algorithm 1 run per pair.
"""

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.routing.bmg_links import n_slots, slot_offset, top_exp

INIT, START, DONE = 0, 1, 2
"""Node colours of Algorithm 1."""


@njit(**JIT)
def search_next(n, cur, dst):
    """First hop of a shortest path by one breadth-first search (Algorithm 1 of papers/001).

    Allocates two int32[n] arrays and a queue per call, as the paper's per-call search does.

    Returns
    -------
    int
        The neighbour of ``cur`` on the BFS shortest path to ``dst``; ``cur`` if ``cur == dst``.
    """
    if cur == dst:
        return cur
    k = top_exp(n)
    state = np.zeros(n, np.int8)
    parent = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    state[cur] = START
    queue[0] = cur
    head = 0
    tail = 1
    while head < tail:
        node = queue[head]
        head += 1
        if node == dst:
            break
        for i in range(n_slots(k)):
            off = slot_offset(n, k, i)
            if off < 0:
                continue
            nb = (node + off) % n
            if state[nb] == INIT:
                state[nb] = START
                parent[nb] = node
                queue[tail] = nb
                tail += 1
        state[node] = DONE
    node = dst
    while parent[node] != cur:
        node = parent[node]
    return node


@njit(**JIT)
def bfs_from_zero(n):
    """Distances and first hops from node 0 (one full BFS in module order).

    Returns
    -------
    dist : int32[n]
        Hop distance of every clockwise distance ``d`` (= node ``d``).
    first : int32[n]
        Clockwise offset of the first hop on the BFS path from 0 to ``d``; ``first[0] = 0``.
    """
    k = top_exp(n)
    dist = np.full(n, -1, np.int32)
    first = np.zeros(n, np.int32)
    queue = np.empty(n, np.int32)
    dist[0] = 0
    queue[0] = 0
    head = 0
    tail = 1
    while head < tail:
        node = queue[head]
        head += 1
        for i in range(n_slots(k)):
            off = slot_offset(n, k, i)
            if off < 0:
                continue
            nb = (node + off) % n
            if dist[nb] < 0:
                dist[nb] = dist[node] + 1
                first[nb] = off if node == 0 else first[node]
                queue[tail] = nb
                tail += 1
    return dist, first


@njit(**JIT)
def full_table(n):
    """The paper's O(n**2) routing table: ``table[cur, dst]`` = next node (``cur`` on the diagonal).

    Returns
    -------
    int32[n, n]
    """
    first = bfs_from_zero(n)[1]
    table = np.empty((n, n), np.int32)
    for cur in range(n):
        for dst in range(n):
            table[cur, dst] = (cur + first[(dst - cur) % n]) % n
    return table


@njit(**JIT)
def table_next(n, cur, dst, table):
    """Next hop from a table: ``int32[n, n]`` (node to node) or ``int32[1, n]`` (first-hop offsets by distance)."""
    if table.shape[0] == 1:
        return (cur + table[0, (dst - cur) % n]) % n
    return table[cur, dst]
