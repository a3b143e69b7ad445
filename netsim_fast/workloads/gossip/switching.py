"""The switching strategy: when each supplier sends forward- and when backward-moving packets.

Meyer & Sibeyn (papers/003), section 3.2: an OOC-PU ``C`` gets one stream of a cycle from ``A``
and one from ``B``; if ``A`` and ``B`` are not neighbours on the cycle, fixed directions make
``C`` receive some packets twice and others late (Fig. 3, middle). The paper's remedy: "during the
first l steps, A transfers to C the packets that are running forward, and during the last
m/2 - l steps those that run backward. B operates in the opposite direction", with ``l`` the
number of PUs between ``A`` and ``B``. Read literally, one switch after ``l`` steps covers the ring
only when ``A`` and ``B`` are (nearly) antipodal (``tests/test_gossip_switching.py`` shows the
counterexamples); in general the supplier has to switch periodically.

We therefore compute the switching per OOC-PU exactly: in step ``t`` the supplier at depth ``r``
can deliver either its forward or its backward packet of step ``t - r + 1``; choosing, for every
step and supplier, which of the two to send so that every packet of the ring arrives by step
``T`` is a bipartite matching between the ring's packets and the (supplier, step) slots, solved
for the smallest feasible ``T`` (Hopcroft-Karp, ``scipy.sparse.csgraph``). Steps in which a slot
is not needed keep the previous direction (fewer switches). A feed relayed to a second OOC-PU has
one schedule: the PU nearer the supplier fixes it, the other takes it as given.

The result is a per-feed table of directions, the time-dependent part the paper allows
("each PU can still compute its routing decisions in constant time"); plans with such a table
are reported as not fully time-independent.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from netsim_fast.workloads.gossip.plan import BWD, FWD, GossipPlan


def consumer_pairs(plan: GossipPlan) -> dict:
    """(OOC-PU, ring) -> feed indices it receives."""
    pairs = {}
    for i, f in enumerate(plan.feeds):
        for v in f.consumers():
            pairs.setdefault((v, f.ring), []).append(i)
    return pairs


def _streams(plan: GossipPlan, horizon: int) -> dict:
    """feed index -> int64[n_options, horizon]: what each option of its root sends in steps 1..

    A root holding ``s > 1`` slots (a buffering single-cycle PU) may also start its forward or
    backward stream at any of its other slots (delay 1 .. s - 1): extra options that make room
    for the matching where the ring has no slack (section 3.2 sizes with P/2 steps).
    """
    pos = [ring.position() for ring in plan.rings]
    out = {}
    for i, f in enumerate(plan.feeds):
        ring = plan.rings[f.ring]
        q = pos[f.ring][f.root]
        n_slots = int(ring.slot_ptr[q + 1] - ring.slot_ptr[q])
        if f.options is None and n_slots > 1:
            f.options = tuple((role, delay) for delay in range(n_slots, 0, -1)
                              for role in (BWD, FWD))
        out[i] = np.stack([ring.stream(q, role, delay, horizon)
                           for role, delay in f.option_list(n_slots)])
    return out


def solve_schedules(plan: GossipPlan) -> dict:
    """Give every feed a switching schedule; returns (OOC-PU, ring) -> predicted last step.

    The prediction is the step by which the PU has all packets of that ring (checked against
    the kernel in the tests). PUs whose feeds are not shared are solved one by one (matching);
    PUs coupled through a relayed feed are solved together (a small 0-1 program).
    """
    horizon = max(r.n_slots for r in plan.rings) + 4
    streams = _streams(plan, horizon)
    ring_packets = [r.packets() for r in plan.rings]
    pairs = consumer_pairs(plan)
    depth = {(v, i): plan.feeds[i].depth(v) for (v, _), fs in pairs.items() for i in fs}
    need = {}
    for v, c in pairs:
        own = np.arange(v * plan.packets_per_pu, (v + 1) * plan.packets_per_pu)
        need[v, c] = np.setdiff1d(ring_packets[c], own)
    predicted = {}
    for comp in _components(pairs):
        if len(comp) == 1:
            (v, c), = comp
            fs = [(i, depth[v, i]) for i in pairs[v, c]]
            predicted[v, c] = _smallest_t(plan, streams, need[v, c], fs, horizon)
        else:
            t_done = _solve_coupled(plan, streams, comp, pairs, depth, need, horizon)
            predicted.update({vc: t_done for vc in comp})
    for f in plan.feeds:
        if f.schedule is None:
            f.schedule = np.array([_default_value(f)], np.uint8)
    return predicted


def _components(pairs: dict) -> list:
    """Groups of (OOC-PU, ring) pairs that share a feed (union-find over feeds)."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for fs in pairs.values():
        for i in fs[1:]:
            parent[find(i)] = find(fs[0])
    groups = {}
    for vc, fs in pairs.items():
        groups.setdefault(find(fs[0]), []).append(vc)
    return [sorted(g) for g in groups.values()]


def _solve_coupled(plan, streams, comp, pairs, depth, need, horizon) -> int:
    """Schedules for feeds shared by several OOC-PUs: smallest common T, by a 0-1 program."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    feeds = sorted({i for vc in comp for i in pairs[vc]})
    lo = max(_smallest_t(plan, streams, need[vc], [(i, depth[vc[0], i]) for i in pairs[vc]],
                         horizon) for vc in comp)
    for t_done in range(max(lo, 1), horizon):
        index = {}
        for i in feeds:
            r_min = min(depth[vc[0], i] for vc in comp if i in pairs[vc])
            for t in range(t_done - r_min + 1):
                for o in range(streams[i].shape[0]):
                    index[i, t, o] = len(index)
        rows, cols, lbs, ubs = [], [], [], []
        n_con = 0
        for i in feeds:
            n_opt = streams[i].shape[0]
            for t in range(max(index_t for (j, index_t, _) in index if j == i) + 1):
                for o in range(n_opt):
                    rows.append(n_con)
                    cols.append(index[i, t, o])
                lbs.append(1)
                ubs.append(1)
                n_con += 1
        for vc in comp:
            v = vc[0]
            cover = {int(p): [] for p in need[vc]}
            for i in pairs[vc]:
                n = t_done - depth[v, i] + 1
                for o in range(streams[i].shape[0]):
                    for t in range(max(n, 0)):
                        p = int(streams[i][o, t])
                        if p in cover:
                            cover[p].append(index[i, t, o])
            for p, vars_ in cover.items():
                rows.extend([n_con] * len(vars_))
                cols.extend(vars_)
                lbs.append(1)
                ubs.append(np.inf)
                n_con += 1
        a = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_con, len(index)))
        res = milp(np.zeros(len(index)), constraints=LinearConstraint(a, lbs, ubs),
                   integrality=np.ones(len(index)), bounds=Bounds(0, 1))
        if res.status == 0:
            x = np.round(res.x).astype(bool)
            for i in feeds:
                chosen = [(t, o) for (j, t, o), k in index.items() if j == i and x[k]]
                sched = np.zeros(len(chosen), np.uint8)
                for t, o in chosen:
                    sched[t] = o
                plan.feeds[i].schedule = sched if sched.size else np.array(
                    [_default_value(plan.feeds[i])], np.uint8)
            return t_done
    for i in feeds:
        plan.feeds[i].schedule = np.array([_default_value(plan.feeds[i])], np.uint8)
    return -1


def _smallest_t(plan, streams, need, free, horizon):
    """Smallest T by which the feeds ``free`` [(feed, depth)] can deliver ``need``; sets their
    schedules (matching per T, T searched from half the ring up)."""
    if need.size == 0:
        for i, _ in free:
            plan.feeds[i].schedule = np.array([_default_value(plan.feeds[i])], np.uint8)
        return 0
    t_done = max(1, int(np.ceil(need.size / max(len(free), 1))), _earliest(streams, need, free))
    while t_done < horizon:
        deficit = _try_match(plan, streams, need, free, t_done)
        if deficit == 0:
            return t_done
        # every further step adds one slot per feed, so a deficit of k needs k/feeds more steps
        t_done += max(1, int(np.ceil(deficit / len(free))))
    for i, _ in free:  # cannot be scheduled within a full round: keep the fixed role
        plan.feeds[i].schedule = np.array([_default_value(plan.feeds[i])], np.uint8)
    return -1


def _earliest(streams, need, free) -> int:
    """Lower bound on T: the last of the packets' earliest possible arrivals."""
    n_pk = int(max(need.max(), max(streams[i].max() for i, _ in free))) + 2
    first = np.full(n_pk, np.iinfo(np.int64).max // 2, np.int64)
    for i, r in free:
        content = streams[i]
        steps = np.broadcast_to(np.arange(content.shape[1]) + r, content.shape)
        np.minimum.at(first, content.ravel(), steps.ravel())
    return int(first[need].max())


def _try_match(plan, streams, rest, free, t_done) -> int:
    """Match the packets ``rest`` to the (feed, step) slots of ``free``; set the schedules and
    return 0 if all fit, else return how many packets found no slot."""
    n_pk = int(max(rest.max(), max(streams[i].max() for i, _ in free))) + 1
    row_of = np.full(n_pk + 1, -1, np.int64)
    row_of[rest] = np.arange(rest.size)
    rows, cols, lens = [], [], []
    offset = 0
    for i, r in free:
        n = t_done - r + 1
        lens.append(max(n, 0))
        if n <= 0:
            continue
        for content in streams[i]:
            rr = row_of[content[:n]]
            ok = rr >= 0
            rows.append(rr[ok])
            cols.append(offset + np.flatnonzero(ok))
        offset += n
    if offset < rest.size:
        return rest.size - offset
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    graph = csr_matrix((np.ones(rows.size, np.int8), (rows, cols)), shape=(rest.size, offset))
    graph.sum_duplicates()
    match = maximum_bipartite_matching(graph, perm_type="column")
    if np.any(match < 0):
        return int(np.count_nonzero(match < 0))
    slot_pkt = np.full(offset, -1, np.int64)
    slot_pkt[match] = rest
    offset = 0
    for (i, r), n in zip(free, lens):
        if n <= 0:
            plan.feeds[i].schedule = np.array([_default_value(plan.feeds[i])], np.uint8)
            continue
        chosen = slot_pkt[offset: offset + n]
        hit = streams[i][:, :n] == chosen[None, :]
        sched = np.where((chosen >= 0) & hit.any(axis=0), hit.argmax(axis=0), 255).astype(np.uint8)
        plan.feeds[i].schedule = _fill_gaps(sched, _default_value(plan.feeds[i]))
        offset += n
    return 0


def _fill_gaps(sched: np.ndarray, default: int) -> np.ndarray:
    """Steps whose slot is not needed keep the previous direction (the first ones the next)."""
    known = np.flatnonzero(sched != 255)
    if known.size == 0:
        return np.array([default], np.uint8)
    idx = np.maximum.accumulate(np.where(sched != 255, np.arange(sched.size), -1))
    idx[idx < 0] = known[0]
    return sched[idx].astype(np.uint8)


def _default_value(feed) -> int:
    """Schedule value of the feed's time-independent role (its ring stream)."""
    if feed.options is None:
        return feed.role
    return next(k for k, (role, _) in enumerate(feed.options) if role == feed.role)
