"""k-ary n-cubes: tori, meshes and hypercubes, with any mix of radices per dimension.

Node numbering (interface contract): ``node = sum_d coord[d] * prod_{e<d} radix[e]``, so
dimension 0 varies fastest and ``--dims k0,k1,...`` lists dimension 0 first.

Ports: for each dimension in order, a radix > 2 dimension has two ports, ``+`` then ``-``;
a radix-2 dimension has a single port, because its ``+`` and ``-`` neighbours are the same
node and a torus of radix 2 would otherwise carry two parallel links between them. So
``torus --k 2 --n N`` *is* the N-dimensional binary hypercube (N ports, N*2^(N-1) links), as
in Petrini (papers/004), section 3: "the binary hypercube is a special case ... with k = 2".
A mesh dimension has the same ports as a ring dimension; its border ports are unused (NONE).
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import (
    DIR_BOTH,
    DIR_MINUS,
    DIR_PLUS,
    NONE,
    Topology,
    finish_arrays,
)


def coordinates(radix: np.ndarray) -> np.ndarray:
    """int32[n_nodes, n_dims] coordinates of every node, dimension 0 fastest."""
    radix = np.asarray(radix, dtype=np.int64)
    n_nodes = int(np.prod(radix))
    ids = np.arange(n_nodes, dtype=np.int64)
    coord = np.empty((n_nodes, radix.size), np.int32)
    stride = 1
    for d, k in enumerate(radix):
        coord[:, d] = (ids // stride) % k
        stride *= int(k)
    return coord


def _build(radix, wrap: bool, kind: str, params: dict) -> Topology:
    radix = np.asarray(radix, dtype=np.int64)
    n_dims = radix.size
    n_nodes = int(np.prod(radix))
    coord = coordinates(radix)
    strides = np.cumprod(np.concatenate([[1], radix[:-1]])).astype(np.int64)
    ids = np.arange(n_nodes, dtype=np.int64)

    columns, port_dim, port_dir = [], [], []
    dim_port = np.full((n_dims, 2), NONE, np.int32)
    for d in range(n_dims):
        k, c, s = int(radix[d]), coord[:, d].astype(np.int64), strides[d]
        directions = (DIR_BOTH,) if k == 2 else (DIR_PLUS, DIR_MINUS)
        for direction in directions:
            step = -1 if direction == DIR_MINUS else 1
            target = c + step
            if k == 2:
                target = 1 - c
            nbr = ids + (target % k - c) * s
            if not wrap and k > 2:
                nbr = np.where((target < 0) | (target >= k), NONE, nbr)
            dim_port[d, 0 if direction != DIR_MINUS else 1] = len(columns)
            if direction == DIR_BOTH:
                dim_port[d, 1] = len(columns)
            columns.append(nbr)
            port_dim.append(d)
            port_dir.append(direction)
    nbr = np.stack(columns, axis=1) if columns else np.zeros((n_nodes, 0), np.int64)
    arrays = finish_arrays(
        nbr,
        radix=radix,
        wrap=np.full(n_dims, 1 if wrap else 0),
        coord=coord,
        port_dim=np.array(port_dim + [NONE]),
        port_dir=np.array(port_dir + [0]),
        dim_port=dim_port,
    )
    return Topology(kind=kind, params=params, arrays=arrays, vertex_transitive=wrap)


def torus(dims) -> Topology:
    """k-ary n-cube with wrap-around links; ``dims`` lists the radix of dimension 0 first."""
    dims = tuple(int(k) for k in dims)
    return _build(dims, wrap=True, kind="torus", params={"dims": ",".join(map(str, dims))})


def mesh(dims) -> Topology:
    """k-ary n-mesh (no wrap-around links)."""
    dims = tuple(int(k) for k in dims)
    return _build(dims, wrap=False, kind="mesh", params={"dims": ",".join(map(str, dims))})


def hypercube(n: int) -> Topology:
    """Binary n-cube: the torus with every radix 2 (one link per dimension)."""
    topo = _build((2,) * int(n), wrap=True, kind="hypercube", params={"n": int(n)})
    return topo
