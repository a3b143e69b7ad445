"""From the dependencies the walk collects (explore.py) to a verdict: which graph must be acyclic
for this routing and VC reallocation, and whether it is.

- No adaptive channel (``dor``, ``dor-nodateline``, the table routings): Dally and Seitz's
  channel dependency graph of every channel the routing uses.
- Adaptive channels reallocated only once drained (``duato`` under ``--vc-realloc auto`` or
  ``atomic``): Duato's extended channel dependency graph of the escape channels ``C1``.
- Adaptive channels reallocated eagerly (``duato --vc-realloc eager``): a packet can queue in an
  adaptive VC behind the tail of a packet of another destination, unable to ask for an escape
  VC until that one has left. Dependencies then chain through an adaptive channel across
  packets: the graph is every dependency into an adaptive channel or onto an escape request,
  and it must have no cycle through an escape channel (cycles among adaptive channels alone
  are allowed, as in Duato's graph).
"""

from __future__ import annotations

import numpy as np

from netsim_fast.deadlock_check import explore as ex
from netsim_fast.deadlock_check.cycles import csr, find_cycle
from netsim_fast.errors import ConfigError

MAX_FLAG_BYTES = 1 << 30    # pass 1's [channels, P*V] request table
MAX_ESCAPE_CHANNELS = 1 << 15  # pass 2's escape-channel bitmap: 128 MiB at this size

ERRORS = {
    ex.ERR_NO_ROUTE: "the routing gives a header no candidate at router {node} (destination {dst})",
    ex.ERR_NO_LINK: "the routing names a port without a link at router {node} (destination {dst})",
    ex.ERR_NO_ESCAPE: ("the escape sub-function is not connected: a header in transit at router {node} for "
                       "destination {dst} gets no escape channel"),
    ex.ERR_TOO_LONG: "a route from router {node} towards {dst} is longer than the routing's hop classes",
    ex.ERR_LOOP: "a route towards {dst} can come back to a router it left (the routing is not loop-free)",
}


def analyse(arrays, params, route_mask, *, per_pair: bool, levels: int, hops_matter: bool, esc_prio: int,
            custom_rows=None, custom_n=None, with_edges: bool = False, progress=None,
            destinations: int | None = None) -> dict:
    """The dependency graph the routing must keep acyclic, and a cycle if it has one.

    Parameters
    ----------
    arrays : TopoArrays
    params : FlitParams
        The engine's parameters (routing code, VCs, ``inject_mask``, ``atomic_mask``,
        ``class_vcs``).
    route_mask : uint8[N, N, W]
        The next-port table of a table routing (empty for grid routings).
    per_pair, levels, hops_matter, esc_prio
        How states are keyed (explore.py) and the priority of the escape rows.
    custom_rows, custom_n : int32[N (dst), N (node), R, 4], int32[N, N], optional
        A hand-written routing instead of the engine's (tests).
    with_edges : bool
        Also return the graph's edges as ``edges``: a set of (channel, channel) pairs (tests).
    progress : callable, optional
        ``progress(done, total, phase)`` after each block of destinations of each pass.
    destinations : int, optional
        Packets start from and go to routers ``0 .. destinations-1`` only (default all): the
        routers that hold terminals (a tree's leaves, numbered first).

    Returns
    -------
    dict
        ``deadlock_free``, ``graph`` (``cdg``, ``extended`` or ``extended-eager``),
        ``channels``, ``dependencies``, ``cycle`` (channel ids or None), ``error`` (a failure
        that is not a cycle, or None) and, with adaptive channels, ``escape_vcs``,
        ``direct_dependencies``, ``indirect_dependencies``, ``cross_channels``,
        ``full_graph_acyclic``, ``cycle_roles``.
    """
    from netsim_fast.flit import state as fs

    nbr = arrays.nbr
    n, P = nbr.shape
    V = params.n_vcs
    n_chan = n * P * V
    if n_chan * P * V > MAX_FLAG_BYTES:
        raise ConfigError(f"the check needs a table of {n_chan * P * V / 2**20:.0f} MiB for {n_chan} channels of "
                          f"{P * V} requests each; it handles at most {MAX_FLAG_BYTES >> 20} MiB")
    if custom_rows is None:
        custom_rows = np.zeros((0, 0, 0, 4), np.int32)
        custom_n = np.zeros((0, 0), np.int32)
    flags = np.zeros((n_chan, P * V), np.uint8)
    role = np.zeros(n_chan, np.uint8)
    err = np.zeros(4, np.int64)
    pkts = fs.new_packets(1)
    mid = np.full(1, -1, np.int32)  # the intermediate group of the class walked (valiant, ugal-*)
    common = (params, nbr, arrays.radix, arrays.wrap, arrays.coord, arrays.dim_port, route_mask, custom_rows, custom_n,
              pkts, mid, per_pair, levels, hops_matter, esc_prio)
    ends = n if destinations is None else int(destinations)  # routers packets leave from and go to
    chunks = _chunks(ends)
    for i, (lo, hi) in enumerate(chunks):
        ex.local_graph(*common, lo, hi, ends, flags, role, err)
        if err[0]:
            return _error(err)
        if progress is not None:
            progress(i + 1, len(chunks), "channel dependencies")
    a, b_local = np.nonzero(flags)
    b = (nbr.ravel()[a // V].astype(np.int64) * P + b_local // V) * V + b_local % V
    escape_request = (flags[a, b_local] & ex.ROLE_ESCAPE) != 0
    used = role != 0
    c1 = (role & ex.ROLE_ESCAPE) != 0
    adaptive = used & ~c1
    out = {"deadlock_free": True, "error": None, "cycle": None}
    if not adaptive.any():
        indptr, indices = csr(n_chan, a, b)
        cycle = find_cycle(n_chan, indptr, indices)
        out.update(graph="cdg", channels=int(used.sum()), dependencies=int(indices.size), cycle=cycle)
        out["deadlock_free"] = cycle is None
        if with_edges:
            out["edges"] = _edge_set(indptr, indices)
        return out
    full_indptr, full_indices = csr(n_chan, a, b)
    out.update(escape_vcs=sorted({int(c) % V for c in np.nonzero(c1)[0]}),
               cross_channels=int((c1 & ((role & ex.ROLE_ADAPTIVE) != 0)).sum()),
               full_graph_acyclic=find_cycle(n_chan, full_indptr, full_indices) is None)
    eager = any(not (params.atomic_mask >> int(c % V)) & 1 for c in np.nonzero(adaptive)[0])
    keep = escape_request | ~c1[b]  # a request of an escape channel as an adaptive one is no wait
    direct = keep & c1[a] & c1[b]
    if eager:
        indptr, indices = csr(n_chan, a[keep], b[keep])
        cycle = find_cycle(n_chan, indptr, indices, through=c1)
        out.update(graph="extended-eager", channels=int(used.sum()), dependencies=int(indices.size), cycle=cycle,
                   direct_dependencies=int(direct.sum()), indirect_dependencies=None)
        if with_edges:
            out["edges"] = _edge_set(indptr, indices)
    else:
        c1_ids = np.nonzero(c1)[0]
        n1 = c1_ids.size
        if n1 > MAX_ESCAPE_CHANNELS:
            raise ConfigError(f"the extended graph of {n1} escape channels is beyond the check's {MAX_ESCAPE_CHANNELS}")
        c1_index = np.full(n_chan, -1, np.int64)
        c1_index[c1_ids] = np.arange(n1)
        bitmap = np.zeros((n1, (n1 + 63) // 64), np.uint64)
        for i, (lo, hi) in enumerate(chunks):
            ex.extended_graph(*common, lo, hi, ends, c1_index, bitmap, err)
            if err[0]:
                return _error(err)
            if progress is not None:
                progress(i + 1, len(chunks), "Duato's extended graph")
        indptr, indices = ex.bitmap_to_csr(bitmap, n1)
        found = find_cycle(n1, indptr, indices)
        n_direct = int(np.unique(c1_index[a[direct]] * n1 + c1_index[b[direct]]).size)
        out.update(graph="extended", channels=int(n1), dependencies=int(indices.size),
                   cycle=None if found is None else [int(c1_ids[v]) for v in found],
                   direct_dependencies=n_direct, indirect_dependencies=int(indices.size) - n_direct)
        if with_edges:
            out["edges"] = _edge_set(indptr, indices, c1_ids)
    out["deadlock_free"] = out["cycle"] is None
    if out["cycle"] is not None:
        out["cycle_roles"] = ["escape" if c1[c] else "adaptive" for c in out["cycle"]]
    return out


def _chunks(n: int) -> list[tuple[int, int]]:
    """Blocks of destinations walked per kernel call (about 64 calls: progress, Ctrl-C)."""
    step = max(1, -(-n // 64))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def _edge_set(indptr, indices, ids=None) -> set:
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    if ids is not None:
        rows, indices = ids[rows], ids[indices]
    return set(zip(rows.tolist(), np.asarray(indices).tolist()))


def _error(err) -> dict:
    code, node, _src, dst = (int(x) for x in err)
    return {"deadlock_free": False, "graph": None, "channels": None, "dependencies": None, "cycle": None,
            "error": ERRORS[code].format(node=node, dst=dst)}


def describe(channel: int, n_ports: int, n_vcs: int, nbr) -> dict:
    """(router, port, vc) of a channel id, and the router its link leads to."""
    router, rest = divmod(int(channel), n_ports * n_vcs)
    port, vc = divmod(rest, n_vcs)
    return {"router": router, "port": port, "vc": vc, "to": int(nbr[router, port])}
