"""Shortest-path routing on any topology: a table of all minimal next hops.

``build_minimal_table(topo)`` runs one BFS per node (scipy.sparse.csgraph) and keeps, for
every (node, destination), the distance and the set of ports whose neighbour is one hop
closer, as a bitmask of bytes. Both engines read it through the @njit helpers below.

Memory: ``dist`` is int16[N, N] and ``port_mask`` uint8[N, N, W] with ``W = ceil(ports/8)``,
so a 4096-node graph of degree <= 8 needs 32 + 16 MiB. The mask is indexed
``port_mask[dst, node, :]`` (destination first): every lookup on the way to one destination
stays in one row (4 KiB for N = 4096, W = 1), so routing the packets of one destination one
after the other (the packet engine's ``compute_paths``) hits the cache. Use the accessor
functions rather than indexing the mask by hand.

Any routing that can be written as "allowed next ports per (node, destination)" with every
allowed port one step closer in ``dist`` fits the same ``MinimalTable`` and runs on the packet
engine unchanged (``table_from_masks``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.errors import ConfigError

CODE_NAME = "minimal"

# popcount and lowest set bit of a byte, used by the njit helpers
_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int8)
_LOWBIT8 = np.array([(i & -i).bit_length() - 1 if i else -1 for i in range(256)], dtype=np.int8)

_BFS_ROWS = 512  # BFS sources per csgraph call: bounds the float64 temporary to 512 x N


class MinimalTable(NamedTuple):
    """What the kernels see of shortest-path routing.

    dist : int16[n_nodes, n_nodes]
        Hops from node (row) to destination (column); -1 if unreachable.
    port_mask : uint8[n_nodes (destination), n_nodes (node), n_bytes]
        Bit ``p % 8`` of byte ``p // 8`` of ``port_mask[dst, node]`` is set iff port ``p`` of
        the node leads one hop closer to the destination. Empty for node == destination.
    """

    dist: np.ndarray
    port_mask: np.ndarray


def all_pairs_distances(topo) -> np.ndarray:
    """BFS hop distances int16[N, N] (-1 unreachable), computed in blocks of rows."""
    from scipy.sparse.csgraph import shortest_path

    n = topo.n_nodes
    adj = topo.csr()
    dist = np.empty((n, n), dtype=np.int16)
    for lo in range(0, n, _BFS_ROWS):
        rows = np.arange(lo, min(n, lo + _BFS_ROWS))
        block = shortest_path(adj, method="D", unweighted=True, indices=rows)
        if np.isfinite(block).all() and block.max(initial=0) > np.iinfo(np.int16).max:
            raise ConfigError(f"the topology's diameter exceeds {np.iinfo(np.int16).max} hops")
        block[~np.isfinite(block)] = -1
        dist[rows] = block.astype(np.int16)
    return dist


def build_minimal_table(topo) -> MinimalTable:
    """All minimal next hops of ``topo`` (any ``Topology``).

    Parameters
    ----------
    topo : Topology

    Returns
    -------
    MinimalTable
    """
    dist = all_pairs_distances(topo)
    nbr = topo.nbr
    n, n_ports = nbr.shape
    n_bytes = max(1, (n_ports + 7) // 8)
    mask = np.zeros((n, n, n_bytes), dtype=np.uint8)
    closer_target = dist.astype(np.int32) - 1
    for port in range(n_ports):
        has = nbr[:, port] >= 0
        if not has.any():
            continue
        rows = np.nonzero(has)[0]
        nb_dist = dist[nbr[rows, port]].astype(np.int32)  # [rows, N] distances from the neighbour
        ok = (nb_dist == closer_target[rows]) & (closer_target[rows] >= 0)
        mask[:, rows, port // 8] |= ok.T.astype(np.uint8) << np.uint8(port % 8)
    return MinimalTable(dist=dist, port_mask=mask)


def table_from_masks(dist: np.ndarray, port_mask: np.ndarray) -> MinimalTable:
    """Wrap a routing given as allowed-port masks ``[dst, node, W]``; checks shapes and dtypes."""
    dist = np.ascontiguousarray(dist, dtype=np.int16)
    port_mask = np.ascontiguousarray(port_mask, dtype=np.uint8)
    if dist.ndim != 2 or port_mask.shape[:2] != dist.shape or port_mask.ndim != 3:
        raise ConfigError(
            f"a routing table needs dist [N, N] and port_mask [N, N, W]; got {dist.shape} and "
            f"{port_mask.shape}"
        )
    return MinimalTable(dist=dist, port_mask=port_mask)


# The kernels call the ``*_in_mask`` forms on ``table.port_mask`` directly: a call passing fewer
# arrays costs fewer Numba reference-count updates in a hot loop.


@njit(**JIT)
def count_in_mask(port_mask, node, dst):
    """Number of set bits of ``port_mask[dst, node]``."""
    total = 0
    for w in range(port_mask.shape[2]):
        total += _POPCOUNT8[port_mask[dst, node, w]]
    return total


@njit(**JIT)
def first_in_mask(port_mask, node, dst):
    """Lowest set bit of ``port_mask[dst, node]``; -1 if none."""
    for w in range(port_mask.shape[2]):
        byte = port_mask[dst, node, w]
        if byte != 0:
            return 8 * w + _LOWBIT8[byte]
    return -1


@njit(**JIT)
def nth_in_mask(port_mask, node, dst, k):
    """The ``k``-th (0-based, ascending) set bit of ``port_mask[dst, node]``; -1 if none."""
    for w in range(port_mask.shape[2]):
        byte = np.int64(port_mask[dst, node, w])
        c = _POPCOUNT8[byte]
        if k >= c:
            k -= c
            continue
        while k > 0:
            byte &= byte - 1  # drop the lowest set bit
            k -= 1
        return 8 * w + _LOWBIT8[byte]
    return -1


@njit(**JIT)
def count_minimal_ports(table, node, dst):
    """Number of minimal next-hop ports from ``node`` towards ``dst`` (0 if node == dst)."""
    return count_in_mask(table.port_mask, node, dst)


@njit(**JIT)
def first_minimal_port(table, node, dst):
    """Lowest port on a shortest path from ``node`` to ``dst``; -1 if there is none."""
    return first_in_mask(table.port_mask, node, dst)


@njit(**JIT)
def nth_minimal_port(table, node, dst, k):
    """The ``k``-th (0-based, ascending) minimal port from ``node`` to ``dst``; -1 if none."""
    return nth_in_mask(table.port_mask, node, dst, k)


@njit(**JIT)
def minimal_ports(table, node, dst, out):
    """Write the minimal ports from ``node`` to ``dst`` (ascending) into ``out``; return the count."""
    count = 0
    mask = table.port_mask
    for w in range(mask.shape[2]):
        byte = np.int64(mask[dst, node, w])
        while byte != 0:
            out[count] = 8 * w + _LOWBIT8[byte]
            count += 1
            byte &= byte - 1
    return count
