"""Plain-Python channel dependency graphs, written from docs/flit-engine.md ("Routing
functions") and docs/check-deadlock.md, not from the check's code: the routings as Python
functions of (current, source, destination, hops), every route of every packet enumerated by
depth-first search, and the dependencies collected in sets. Slow; for networks of a few dozen
routers."""

from __future__ import annotations


def grid_rows(topo, routing: str, V: int, cur: int, src: int, dst: int):
    """Rows (port, vc_lo, vc_hi, priority) of dor, dor-nodateline or duato, from the docs."""
    a = topo.arrays
    radix, wrap, coord, dim_port = list(a.radix), list(a.wrap), a.coord, a.dim_port
    rings = [bool(wrap[d]) and radix[d] > 2 for d in range(len(radix))]
    datelines = routing != "dor-nodateline" and any(rings)
    n_escape = 2 if datelines else 1

    def directions(d, tie_both):
        c, t, k = int(coord[cur, d]), int(coord[dst, d]), radix[d]
        if k == 2:
            return [0]
        if not wrap[d]:
            return [0] if t > c else [1]
        delta = (t - c) % k
        if 2 * delta < k:
            return [0]
        if 2 * delta > k:
            return [1]
        return [0, 1] if tie_both else ([0] if c % 2 == 0 else [1])

    rows = []
    if routing == "duato":
        for d in range(len(radix)):
            if coord[cur, d] != coord[dst, d]:
                rows += [(int(dim_port[d, w]), n_escape, V - 1, 0) for w in directions(d, True)]
    d = next(d for d in range(len(radix)) if coord[cur, d] != coord[dst, d])
    w = directions(d, False)[0]
    port = int(dim_port[d, w])
    crossed = 0
    if datelines and rings[d]:  # class 1 on the wrap-around link and after it
        c, s, k = int(coord[cur, d]), int(coord[src, d]), radix[d]
        crossed = int(c < s or c == k - 1) if w == 0 else int(c > s or c == 0)
    if routing == "duato":
        rows.append((port, crossed, crossed, 1) if datelines and rings[d] else (port, 0, n_escape - 1, 1))
    elif datelines and rings[d]:
        rows.append((port, crossed * V // 2, crossed * V // 2 + V // 2 - 1, 0))
    else:
        rows.append((port, 0, V - 1, 0))
    return rows


def table_rows(port_mask, class_vcs: int, cur: int, dst: int, hops: int):
    """Every allowed port of the table, on the VCs of hop class ``hops``."""
    lo = hops * class_vcs
    return [(p, lo, lo + class_vcs - 1, 0) for p in range(8 * port_mask.shape[2])
            if port_mask[dst, cur, p // 8] >> (p % 8) & 1]


def naive_graphs(topo, rows_of, V: int, inject=None, esc_prio: int = 0):
    """(cdg, roles, extended, eager) for routing ``rows_of(cur, src, dst, hops)``.

    cdg: set of (a, b) channel ids (a held, b requested next); roles: channel -> set of
    'escape'/'adaptive' roles it was requested in; extended: Duato's edges a -> b between
    escape channels (b requested as escape after a and only non-escape channels);
    eager: the cdg edges into non-escape channels or onto escape requests."""
    nbr = topo.arrays.nbr
    n, P = nbr.shape
    local = P - 1
    chan = lambda node, port, vc: (node * P + port) * V + vc  # noqa: E731
    cdg, roles, requests = set(), {}, []

    def options(node, src, dst, hops):
        out = []
        for port, lo, hi, prio in rows_of(node, src, dst, hops):
            if port == local:
                continue
            for vc in range(lo, hi + 1):
                if hops == 0 and inject is not None and vc not in inject:
                    continue
                out.append((chan(node, port, vc), int(nbr[node, port]), prio == esc_prio))
        return out

    def walk(node, src, dst, hops, held, visit):
        if node == dst:
            return
        for c, nxt, escape in options(node, src, dst, hops):
            roles.setdefault(c, set()).add("escape" if escape else "adaptive")
            visit(held, c, escape)
            walk(nxt, src, dst, hops + 1, c, visit)

    def first(held, c, escape):
        if held is not None:
            cdg.add((held, c))
            requests.append((held, c, escape))

    for src in range(n):
        for dst in range(n):
            if src != dst:
                walk(src, src, dst, 0, None, first)
    c1 = {c for c, r in roles.items() if "escape" in r}
    extended = set()

    def walk_ext(node, src, dst, hops, last):
        if node == dst:
            return
        for c, nxt, escape in options(node, src, dst, hops):
            if escape and last is not None:
                extended.add((last, c))
            walk_ext(nxt, src, dst, hops + 1, c if c in c1 else last)

    for src in range(n):
        for dst in range(n):
            if src != dst:
                walk_ext(src, src, dst, 0, None)
    eager = {(a, b) for a, b, escape in requests if escape or b not in c1}
    return cdg, roles, extended, eager
