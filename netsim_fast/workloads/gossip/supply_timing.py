"""Whether a choice of feeds is in time: step 3 of the relay search in supply.py.

``in_time`` decides for a *component* (the (PU, ring) pairs whose feeds share a relayed stream)
whether switching schedules deliver every packet to every pair by the deadline: one 0-1
program (scipy ``milp``), or a Hopcroft-Karp matching when nothing is shared.
``chain_in_time`` asks it for one PU's pair together with the pairs of its relays, fed
directly, which the search's chain moves use.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix, csr_matrix, vstack
from scipy.sparse.csgraph import maximum_bipartite_matching

from netsim_fast.workloads.gossip.supply_options import Problem


def in_time(prob: Problem, comp: list, pairs: dict, feeds: dict, deadline: int) -> bool:
    """Can switching schedules deliver every packet to every pair of ``comp`` by ``deadline``?

    A feed at depth ``h`` of a PU delivers level ``k`` (the packet ``k`` positions behind or
    ahead of its root, the root's choice) in step ``k + h``. One level, one packet per feed.
    """
    keys = sorted({k for vc in comp for k, _ in pairs[vc]})
    n_lev = {k: deadline - min(h for vc in comp for kk, h in pairs[vc] if kk == k) + 1
             for k in keys}
    if any(n <= 0 for n in n_lev.values()):
        return False
    streams = {k: prob.stream(feeds[k][0], feeds[k][1], n_lev[k]) for k in keys}
    base, off = {}, 0
    for k in keys:
        base[k] = off
        off += 2 * n_lev[k]
    rows, cols = [], []
    n_con = 0
    for (v, c) in comp:
        need = np.setdiff1d(prob.content[c][prob.content[c] >= 0], [v])
        if need.size == 0:
            continue
        row_of = np.full(int(prob.content[c].max()) + 2, -1, np.int64)
        row_of[need] = np.arange(need.size)
        got = np.zeros(need.size, bool)
        for k, h in pairs[(v, c)]:
            n = deadline - h + 1
            for o in range(2):
                r = row_of[streams[k][o][:n]]          # empty slots (-1) hit the last entry
                sel = r >= 0
                got[r[sel]] = True
                rows.append(n_con + r[sel])
                cols.append(base[k] + 2 * np.flatnonzero(sel) + o)
        if not got.all():
            return False
        n_con += need.size
    if n_con == 0:
        return True
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    if len(comp) == 1:        # nothing shared: a bipartite matching decides
        graph = csr_matrix((np.ones(rows.size), (rows, cols // 2)), shape=(n_con, off // 2))
        return bool(np.all(maximum_bipartite_matching(graph, perm_type="column") >= 0))
    cover = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n_con, off))
    one = coo_matrix((np.ones(off), (np.arange(off) // 2, np.arange(off))), shape=(off // 2, off))
    a = vstack([cover, one]).tocsr()
    lb = np.concatenate([np.ones(n_con), np.zeros(off // 2)])
    ub = np.concatenate([np.full(n_con, np.inf), np.ones(off // 2)])
    res = milp(np.zeros(off), constraints=LinearConstraint(a, lb, ub),
               integrality=np.ones(off), bounds=Bounds(0, 1))
    return res.status == 0


def chain_in_time(prob: Problem, v: int, c: int, combo, deadline: int) -> bool:
    """``in_time`` for PU ``v``'s pair of ring ``c`` and the pairs of its relays."""
    feeds, pairs = {}, {(v, c): []}
    for item in combo:
        u = item[0]
        if item[1] is None:
            feeds[(u, v, c)] = [c, u, [(u, v)]]
            pairs[(v, c)].append(((u, v, c), 1))
            continue
        _, own, x, _ = item
        pairs[(u, c)] = []
        for w in own:
            feeds[(w, u, c)] = [c, w, [(w, u)]]
            pairs[(u, c)].append(((w, u, c), 1))
        pairs[(v, c)].append(((x, u, c), 2))
    return in_time(prob, sorted(pairs), pairs, feeds, deadline)
