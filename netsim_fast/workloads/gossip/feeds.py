"""Supplying out-of-cycle PUs: which neighbour sends which ring's stream over which free link.

Meyer & Sibeyn (papers/003): an OOC-PU of a cycle is "provided with the packets which are
transferred along this cycle by their neighboring on-cycle-PUs" (section 3.2), one neighbour
for each direction; in section 4.3.4 (Table 1) some streams reach a PU only through a neighbour
that is itself out of that cycle ("delay 2"). We do not copy Table 1 case by case; we solve the
same assignment for any set of rings:

1. every link that no ring uses carries at most one feed per direction;
2. each OOC-PU ``v`` of ring ``c`` needs two feeds of ``c`` on its free input links: direct
   ones from on-cycle neighbours first (a bipartite matching per PU), then, for what is left,
   relays of a direct feed that an OOC neighbour receives (depth 2);
3. time-independent roles: one of the two feeds sends the forward-moving packets, the other the
   backward-moving ones, oriented so that both run *into* the shorter gap between the two
   suppliers first (then the rest of the ring is covered from both sides).

A feed that one PU receives and relays to another has one role (or one schedule) for both.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.workloads.gossip.plan import BWD, FWD, Feed, Ring


class SupplyError(ValueError):
    """An OOC-PU cannot get two feeds of a ring (the construction lacks free links)."""


def free_links(topo, rings: list[Ring]) -> np.ndarray:
    """bool[n_nodes, n_ports]: the link exists and no ring uses it (in either direction)."""
    free = topo.nbr >= 0
    free[:, topo.local_port] = False
    for ring in rings:
        u = ring.nodes
        w = np.roll(u, -1)
        for a, b in ((u, w), (w, u)):
            hit = topo.nbr[a, : topo.local_port] == b[:, None]
            rows, ports = np.nonzero(hit)
            free[a[rows], ports] = False
    return free


def _match(n_left: int, cand: list[list[int]], used: set) -> list[int]:
    """Kuhn's augmenting-path matching: left i -> one right item of cand[i] (-1 if none)."""
    owner = {}

    def augment(i, seen):
        for r in cand[i]:
            if r in used or r in seen:
                continue
            seen.add(r)
            if r not in owner or augment(owner[r], seen):
                owner[r] = i
                return True
        return False

    for i in range(n_left):
        augment(i, set())
    out = [-1] * n_left
    for r, i in owner.items():
        out[i] = r
    return out


def assign_feeds(topo, rings: list[Ring], max_hops: int = 2) -> list[Feed]:
    """Feeds for every (OOC-PU, ring) pair; raises ``SupplyError`` if one cannot be supplied."""
    n_nodes = topo.n_nodes
    on = np.zeros((n_nodes, len(rings)), bool)
    for c, ring in enumerate(rings):
        on[ring.nodes, c] = True
    free = free_links(topo, rings)
    in_from = [[int(topo.nbr[v, p]) for p in np.flatnonzero(free[v])] for v in range(n_nodes)]
    feeds: list[Feed] = []
    direct = {}        # (node, ring) -> list of feed indices reaching node at depth 1
    got = {}           # (node, ring) -> list of feed indices consumed by node
    used_in = [set() for _ in range(n_nodes)]
    missing = []
    for v in range(n_nodes):
        needs = [c for c in np.flatnonzero(~on[v]) for _ in range(2)]
        cand = [[u for u in in_from[v] if on[u, c]] for c in needs]
        pick = _match(len(needs), cand, used_in[v])
        for c, u in zip(needs, pick):
            if u < 0:
                missing.append((v, int(c)))
                continue
            used_in[v].add(u)
            feeds.append(Feed(ring=int(c), root=u, edges=((u, v),)))
            direct.setdefault((v, int(c)), []).append(len(feeds) - 1)
            got.setdefault((v, int(c)), []).append(len(feeds) - 1)
    if missing and max_hops < 2:
        v, c = missing[0]
        raise SupplyError(f"PU {v} is off ring {c} and has fewer than two free links to PUs on it")
    still = []
    for v, c in missing:
        cand = [[u for u in in_from[v] if not on[u, c] and direct.get((u, c))]]
        pick = _match(1, cand, used_in[v])
        u = pick[0]
        if u < 0:
            still.append((v, c))
            continue
        used_in[v].add(u)
        mine = set(got.get((v, c), []))
        options = [f for f in direct[(u, c)] if f not in mine]
        f = options[0] if options else direct[(u, c)][0]
        feeds[f].edges = feeds[f].edges + ((u, v),)
        got.setdefault((v, c), []).append(f)
    if still:
        v, c = still[0]
        raise SupplyError(f"PU {v} is off ring {c} and cannot get two feeds of it within two hops "
                          f"({len(still)} such (PU, ring) pairs)")
    orient_roles(rings, feeds, got)
    return feeds


def orient_roles(rings: list[Ring], feeds: list[Feed], got: dict, strict: bool = True) -> None:
    """Give every feed its time-independent role (forward or backward packets).

    The two feeds of each (OOC-PU, ring) pair must carry different directions; feeds shared
    through relays tie pairs together, so roles are a 2-colouring of the graph whose edges are
    the pairs. Each connected part is seeded at its pair nearest to the suppliers with the
    gap rule (both feeds run into the shorter gap first) and propagated from there. An odd
    cycle of ties raises ``SupplyError`` when ``strict``; otherwise the clash is left to the
    switching schedules, which override the roles.
    """
    slot_of = [dict() for _ in rings]
    for c, ring in enumerate(rings):
        for q, u in enumerate(ring.nodes.tolist()):
            slot_of[c][u] = (int(ring.slot_ptr[q]), int(ring.slot_ptr[q + 1]))
    adj = {}
    for fs in got.values():
        if len(fs) == 2:
            adj.setdefault(fs[0], []).append(fs[1])
            adj.setdefault(fs[1], []).append(fs[0])
    pairs = sorted(got.items(), key=lambda kv: max(feeds[f].depth(kv[0][0]) for f in kv[1]))
    coloured = set()
    for (v, c), fs in pairs:
        if len(fs) != 2 or fs[0] in coloured:
            continue
        f1, f2 = fs
        n_slots = rings[c].n_slots
        a0, a1 = slot_of[c][feeds[f1].root]
        b0, b1 = slot_of[c][feeds[f2].root]
        # the supplier below the short gap sends what comes from above it (backward packets)
        lower = f1 if (b0 - a1) % n_slots <= (a0 - b1) % n_slots else f2
        feeds[lower].role = BWD
        coloured.add(lower)
        stack = [lower]
        while stack:
            f = stack.pop()
            for g in adj.get(f, []):
                want = FWD if feeds[f].role == BWD else BWD
                if g in coloured:
                    if feeds[g].role != want and strict:
                        raise SupplyError(f"feeds {f} and {g} must carry different directions "
                                          f"for one OOC-PU but are tied to the same one "
                                          f"through relays")
                    continue
                feeds[g].role = want
                coloured.add(g)
                stack.append(g)
