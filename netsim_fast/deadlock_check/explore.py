"""Walk every packet's possible routes with the engine's own routing function and collect the
channel dependencies (docs/check-deadlock.md).

A *channel* is (router, output port, VC): the output VC, its link and the input lane at the
other end, id ``(router * P + port) * V + vc`` as in the flit engine's lane numbering. A packet
is routed from a *state* ``(node, h)``: ``h`` is the hops crossed for table routings (their VC
class), and for grid routings only whether the head is still in its source's local lane
(``h = 0``, where ``--inject-vcs`` applies) or in transit (``h = 1``). The rows of a state come
from ``flit.route.candidate_rows``, the function stage 7 of the kernel calls, through a
one-packet record; ``custom_rows`` replaces it by a hand-written table (tests).

Packets are grouped in *classes* that the routing cannot tell apart: one class per
(source, destination) when the rows depend on the source (dateline classes on tori), one per
(source group, intermediate group, destination) for the dragonfly's ``valiant`` and ``ugal-*``
(every intermediate group but the source's, and for ``ugal-*`` also none: the minimal choice;
on the flattened butterfly and HyperX per (source router, intermediate router or none,
destination)), else one per destination with every source's first state in it.
Sources and destinations are the routers that hold terminals (``n_src``: all but a tree's inner
switches, which come last); a destination ``d`` is reached at router ``d + eject_shift`` (the
butterfly's last stage; 0 elsewhere). Within a class, states form a DAG
(routes are minimal or their hop count is bounded).

``local_graph`` (pass 1) collects, over every class, the dependencies a -> b of the plain
channel dependency graph: a packet that holds ``a`` (arriving at a state over it) may request
``b`` (a row of that state). Each request is marked *escape* (a row of the escape priority:
priority 1 for ``duato``, every row otherwise) or *adaptive*. ``extended_graph`` (pass 2, for
routings with adaptive channels reallocated atomically) follows each class's routes and links
every escape channel ``a`` (``C1``: channels some state requests as escape) to the escape
channels ``b`` the same packet may request after ``a`` and any number of channels outside
``C1``: Duato's direct, indirect, direct-cross and indirect-cross dependencies in one rule.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.flit.route import candidate_rows
from netsim_fast.routing import UGAL_G, UGAL_L, VALIANT
from netsim_fast.routing.dragonfly_valiant import first_port

ERR_OK = 0
ERR_NO_ROUTE = 1    # a header at a router other than its destination gets no row
ERR_NO_LINK = 2     # a row names a port without a link
ERR_NO_ESCAPE = 3   # a header in transit gets no escape row: the escape sub-function is not connected
ERR_TOO_LONG = 4    # a route crosses more links than the routing's hop classes
ERR_LOOP = 5        # a class's states are not a DAG (a route can come back to a state)

ROLE_ESCAPE = 1
ROLE_ADAPTIVE = 2


@njit(**JIT)
def _nonmin(p):
    """valiant, ugal-*: classes by (source group, intermediate); a Hamming graph's groups are its
    routers (``group_routers == 0``)."""
    return p.routing == VALIANT or p.routing == UGAL_L or p.routing == UGAL_G


@njit(**JIT)
def _group(p):
    return p.group_routers if p.group_routers > 0 else 1


@njit(**JIT)
def _n_classes(p, n, per_pair):
    """Classes walked per destination (see the module docstring)."""
    if _nonmin(p):
        groups = n // _group(p)
        return groups * (groups + 1)
    return n if per_pair else 1


@njit(**JIT)
def _class_mid(p, n, cls):
    """(source group, intermediate group or -1) of class ``cls`` in the non-minimal mode."""
    groups = n // _group(p)
    return cls // (groups + 1), cls % (groups + 1) - 1


@njit(**JIT)
def _skip_class(p, n, per_pair, cls, dst):
    if _nonmin(p):
        gs, mid = _class_mid(p, n, cls)
        # the dragonfly never draws the source's own group; valiant never goes minimal
        return (mid == gs and p.group_routers > 0) or (mid < 0 and p.routing == VALIANT)
    return per_pair and cls == dst


@njit(**JIT)
def _class_src(p, n, per_pair, cls, node):
    """The source the rows of class ``cls`` see at ``node`` (valiant and ugal-* read only its group)."""
    if _nonmin(p):
        return _class_mid(p, n, cls)[0] * _group(p)
    return cls if per_pair else node


@njit(**JIT)
def _hamming_mid(route_mask, nbr, src, m):
    """``s.mid`` of a packet from router ``src`` via router ``m`` on a Hamming graph: ``m + N ·
    hops`` of the dimension-order route to it (routing/hamming_valiant.py), walked on the table."""
    cur, hops = src, 0
    while cur != m:
        cur = nbr[cur, first_port(route_mask, m, cur)]
        hops += 1
    return m + nbr.shape[0] * hops


@njit(**JIT)
def _rows_at(p, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, node, src, dst, h, out):
    """Write the candidate rows of a header at ``node`` into ``out``; returns their count
    (``pkts`` holds one packet record and, past it, the class's intermediate group)."""
    if custom_n.shape[0] > 0:
        k = custom_n[dst, node]
        for r in range(k):
            for j in range(4):
                out[r, j] = custom_rows[dst, node, r, j]
        return k
    pkts[0].src = src * p.conc  # the routers' first terminals: candidate_rows maps terminals to routers
    pkts[0].dst = dst * p.conc
    pkts[0].hops = h
    return candidate_rows(p, radix, wrap, coord, dim_port, route_mask, node, pkts, mid, mid[:0], 0, out)


@njit(**JIT)
def _fail(err, code, node, src, dst):
    err[0] = code
    err[1] = node
    err[2] = src
    err[3] = dst


@njit(**JIT)
def _start_class(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, per_pair, cls, dst,
                 n_src, levels, seen, stamp, n_rows, pool, queue):
    """Seed the queue with the first state of every source of the class; returns the queue length."""
    n = nbr.shape[0]
    lo, hi = (cls, cls + 1) if per_pair else (0, n_src)
    if _nonmin(p):  # the routers of the source group, with the class's intermediate group
        gs, mid[0] = _class_mid(p, n, cls)
        lo, hi = gs * _group(p), (gs + 1) * _group(p)
        if p.group_routers == 0 and mid[0] >= 0:
            mid[0] = _hamming_mid(route_mask, nbr, gs, mid[0])
    qt = 0
    for src in range(lo, hi):
        if src == dst + p.eject_shift:  # a router's own terminals: no route (the butterfly's go through)
            continue
        s = src * levels
        seen[s] = stamp
        n_rows[s] = _rows_at(p, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, src, src, dst,
                             0, pool[s])
        queue[qt] = s
        qt += 1
    return qt


@njit(**JIT)
def _next_state(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, per_pair, cls, dst,
                levels, hops_matter, seen, stamp, n_rows, pool, queue, qt, node, h, port, err):
    """The state a row's port leads to, discovered (rows computed, queued) on first sight.
    Returns (state, queue length), state -1 on an error (written to ``err``)."""
    m = nbr[node, port]
    src = _class_src(p, nbr.shape[0], per_pair, cls, node)
    if m < 0:
        _fail(err, ERR_NO_LINK, node, src, dst)
        return -1, qt
    h2 = h + 1 if hops_matter else 1
    if h2 >= levels:
        _fail(err, ERR_TOO_LONG, node, src, dst)
        return -1, qt
    s2 = m * levels + h2
    if seen[s2] != stamp:
        seen[s2] = stamp
        n_rows[s2] = _rows_at(p, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, m,
                              _class_src(p, nbr.shape[0], per_pair, cls, m), dst, h2, pool[s2])
        queue[qt] = s2
        qt += 1
    return s2, qt


@njit(**JIT)
def _takes_any(p, row, h):
    """Whether a packet may take some VC of ``row``: on its first hop (``h == 0``) only the
    VCs of ``--inject-vcs`` qualify; a row none of whose VCs qualify leads nowhere."""
    for v in range(row[1], row[2] + 1):
        if h > 0 or (p.inject_mask >> v) & 1:
            return True
    return False


@njit(**JIT)
def local_graph(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, per_pair, levels,
                hops_matter, esc_prio, dst_lo, dst_hi, n_src, flags, role, err):
    """Pass 1: ``flags[a, port * V + vc] |= ROLE_*`` when a packet holding channel ``a`` may
    request VC ``vc`` of ``port`` at ``a``'s downstream router; ``role[a] |= ROLE_*`` for the
    role each request of ``a`` itself had. Returns the number of states visited; on a routing
    error fills ``err`` (code, node, source, destination) and stops."""
    n, P = nbr.shape[0], nbr.shape[1]
    V = p.n_vcs
    first_local = P - p.conc  # ports first_local .. P-1: a router's terminals (injection, ejection)
    n_states = n * levels
    seen = np.full(n_states, -1, np.int64)
    n_rows = np.zeros(n_states, np.int64)
    pool = np.zeros((n_states, max(P + 2, 64), 4), np.int32)
    queue = np.zeros(n_states, np.int64)
    stamp = 0
    visited = 0
    for dst in range(dst_lo, dst_hi):
        for cls in range(_n_classes(p, n, per_pair)):
            if _skip_class(p, n, per_pair, cls, dst):
                continue
            qt = _start_class(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, per_pair,
                              cls, dst, n_src, levels, seen, stamp, n_rows, pool, queue)
            qh = 0
            while qh < qt:
                s = queue[qh]
                qh += 1
                node, h = s // levels, s % levels
                if node == dst + p.eject_shift:  # at the destination's ejection router
                    continue
                if n_rows[s] == 0:
                    _fail(err, ERR_NO_ROUTE, node, cls if per_pair else -1, dst)
                    return visited
                has_escape = False
                for r in range(n_rows[s]):
                    port = pool[s, r, 0]
                    if port >= first_local:
                        continue
                    bit = ROLE_ESCAPE if pool[s, r, 3] == esc_prio else ROLE_ADAPTIVE
                    if bit == ROLE_ESCAPE:
                        has_escape = True
                    if not _takes_any(p, pool[s, r], h):
                        continue
                    s2, qt = _next_state(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid,
                                         per_pair, cls, dst, levels, hops_matter, seen, stamp, n_rows, pool, queue, qt,
                                         node, h, port, err)
                    if s2 < 0:
                        return visited
                    for v in range(pool[s, r, 1], pool[s, r, 2] + 1):
                        if h == 0 and not (p.inject_mask >> v) & 1:
                            continue  # the first hop takes only --inject-vcs (flit/allocate.py)
                        a = (node * P + port) * V + v
                        role[a] |= bit
                        for r2 in range(n_rows[s2]):
                            port2 = pool[s2, r2, 0]
                            if port2 >= first_local:
                                continue  # ejection always drains: never part of a cycle
                            bit2 = ROLE_ESCAPE if pool[s2, r2, 3] == esc_prio else ROLE_ADAPTIVE
                            for v2 in range(pool[s2, r2, 1], pool[s2, r2, 2] + 1):
                                flags[a, port2 * V + v2] |= bit2
                if h > 0 and not has_escape:
                    _fail(err, ERR_NO_ESCAPE, node, cls if per_pair else -1, dst)
                    return visited
            visited += qt
            stamp += 1
    return visited


@njit(**JIT)
def _grow(arr, need):
    if need <= arr.shape[0]:
        return arr
    out = np.empty(max(need, 2 * arr.shape[0]), arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@njit(**JIT)
def extended_graph(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, per_pair, levels,
                   hops_matter, esc_prio, dst_lo, dst_hi, n_src, c1_index, bitmap, err):
    """Pass 2: set bit ``c1_index[b]`` of ``bitmap[c1_index[a]]`` for every escape channel ``a``
    after which one packet may request escape channel ``b``, with only channels outside ``C1``
    (``c1_index == -1``) in between. Per class: discover the states and the transitions between
    them, order the states topologically (a loop is ``ERR_LOOP``), and carry along each state's
    set ``L`` of the last escape channels its packets may hold."""
    n, P = nbr.shape[0], nbr.shape[1]
    V = p.n_vcs
    first_local = P - p.conc  # ports first_local .. P-1: a router's terminals (injection, ejection)
    n_states = n * levels
    n_chan = n * P * V
    seen = np.full(n_states, -1, np.int64)
    where = np.zeros(n_states, np.int64)        # state -> its position in the class's queue
    n_rows = np.zeros(n_states, np.int64)
    pool = np.zeros((n_states, max(P + 2, 64), 4), np.int32)
    queue = np.zeros(n_states, np.int64)
    out_lo = np.zeros(n_states + 1, np.int64)   # transitions of queue position i: out_lo[i]..out_lo[i+1]
    t_to = np.zeros(1024, np.int64)             # transition -> target queue position
    t_chan = np.zeros(1024, np.int64)           # transition -> channel taken
    t_from = np.zeros(1024, np.int64)           # transition -> source queue position
    indeg = np.zeros(n_states, np.int64)
    in_lo = np.zeros(n_states + 1, np.int64)
    in_list = np.zeros(1024, np.int64)
    order = np.zeros(n_states, np.int64)
    l_lo = np.zeros(n_states, np.int64)
    l_n = np.zeros(n_states, np.int64)
    lpool = np.zeros(4096, np.int64)
    mark = np.full(n_chan, -1, np.int64)
    mark_id = 0
    stamp = 0
    for dst in range(dst_lo, dst_hi):
        for cls in range(_n_classes(p, n, per_pair)):
            if _skip_class(p, n, per_pair, cls, dst):
                continue
            qt = _start_class(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid, per_pair,
                              cls, dst, n_src, levels, seen, stamp, n_rows, pool, queue)
            # discover: transitions grouped by source position, in queue order
            n_t = 0
            qh = 0
            while qh < qt:
                s = queue[qh]
                where[s] = qh
                out_lo[qh] = n_t
                qh += 1
                node, h = s // levels, s % levels
                if node == dst + p.eject_shift:  # at the destination's ejection router
                    continue
                for r in range(n_rows[s]):
                    port = pool[s, r, 0]
                    if port >= first_local or not _takes_any(p, pool[s, r], h):
                        continue
                    s2, qt = _next_state(p, nbr, radix, wrap, coord, dim_port, route_mask, custom_rows, custom_n, pkts, mid,
                                         per_pair, cls, dst, levels, hops_matter, seen, stamp, n_rows, pool, queue, qt,
                                         node, h, port, err)
                    if s2 < 0:
                        return
                    for v in range(pool[s, r, 1], pool[s, r, 2] + 1):
                        if h == 0 and not (p.inject_mask >> v) & 1:
                            continue
                        t_to = _grow(t_to, n_t + 1)
                        t_chan = _grow(t_chan, n_t + 1)
                        t_from = _grow(t_from, n_t + 1)
                        t_from[n_t] = qh - 1
                        t_to[n_t] = s2  # a state id for now: positions are known once discovered
                        t_chan[n_t] = (node * P + port) * V + v
                        n_t += 1
            out_lo[qt] = n_t
            # incoming lists (counting sort by target) and Kahn's topological order
            indeg[:qt] = 0
            for t in range(n_t):
                t_to[t] = where[t_to[t]]
                indeg[t_to[t]] += 1
            in_lo[0] = 0
            for i in range(qt):
                in_lo[i + 1] = in_lo[i] + indeg[i]
            in_list = _grow(in_list, n_t)
            fill = in_lo[:qt].copy()
            for i in range(qt):
                for t in range(out_lo[i], out_lo[i + 1]):
                    in_list[fill[t_to[t]]] = t
                    fill[t_to[t]] += 1
            n_order = 0
            for i in range(qt):
                if indeg[i] == 0:
                    order[n_order] = i
                    n_order += 1
            k = 0
            while k < n_order:
                i = order[k]
                k += 1
                for t in range(out_lo[i], out_lo[i + 1]):
                    indeg[t_to[t]] -= 1
                    if indeg[t_to[t]] == 0:
                        order[n_order] = t_to[t]
                        n_order += 1
            if n_order < qt:
                _fail(err, ERR_LOOP, -1, cls if per_pair else -1, dst)
                return
            # the last escape channels held (L) and the dependencies on the escape rows
            n_l = 0
            for k in range(qt):
                i = order[k]
                mark_id += 1
                l_lo[i] = n_l
                for j in range(in_lo[i], in_lo[i + 1]):
                    t = in_list[j]
                    a = t_chan[t]
                    if c1_index[a] >= 0:
                        if mark[a] != mark_id:
                            mark[a] = mark_id
                            lpool = _grow(lpool, n_l + 1)
                            lpool[n_l] = a
                            n_l += 1
                        continue
                    frm = t_from[t]
                    for x in range(l_lo[frm], l_lo[frm] + l_n[frm]):
                        c = lpool[x]
                        if mark[c] != mark_id:
                            mark[c] = mark_id
                            lpool = _grow(lpool, n_l + 1)
                            lpool[n_l] = c
                            n_l += 1
                l_n[i] = n_l - l_lo[i]
                s = queue[i]
                node = s // levels
                if l_n[i] == 0 or node == dst + p.eject_shift:
                    continue
                for r in range(n_rows[s]):
                    port = pool[s, r, 0]
                    if port >= first_local or pool[s, r, 3] != esc_prio:
                        continue
                    for v in range(pool[s, r, 1], pool[s, r, 2] + 1):
                        b = c1_index[(node * P + port) * V + v]
                        for x in range(l_lo[i], l_lo[i] + l_n[i]):
                            a = c1_index[lpool[x]]
                            bitmap[a, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
            stamp += 1


@njit(**JIT)
def bitmap_to_csr(bitmap, n):
    """(indptr, indices) of the set bits of ``bitmap`` (row a, bit b: edge a -> b)."""
    indptr = np.zeros(n + 1, np.int64)
    for a in range(n):
        c = 0
        for w in range(bitmap.shape[1]):
            x = bitmap[a, w]
            while x:
                x &= x - np.uint64(1)
                c += 1
        indptr[a + 1] = indptr[a] + c
    indices = np.zeros(indptr[n], np.int64)
    for a in range(n):
        k = indptr[a]
        for w in range(bitmap.shape[1]):
            x = bitmap[a, w]
            b = w * 64
            while x:
                if x & np.uint64(1):
                    indices[k] = b
                    k += 1
                x >>= np.uint64(1)
                b += 1
    return indptr, indices
