"""The construction checker: what the paper claims of its cycles, verified before any simulation.

For every plan (Meyer & Sibeyn (papers/003), sections 3 and 4):

* every ring is a simple cycle of the torus (consecutive PUs adjacent, no PU twice) and the
  rings are pairwise edge-disjoint;
* the rings have the lengths the paper states for the construction;
* every packet sits in a slot of some ring, at the PU that owns it (no packet is left behind:
  the check that exposes the second packet of single-cycle PUs in section 3.2);
* every out-of-cycle PU of a ring receives exactly two feeds of it, rooted at on-cycle PUs, over
  links no ring uses, within the construction's relay depth (1: adjacent to the supplying
  on-cycle PUs; 2: section 4.3.4's "delay 2"), each directed link carrying one feed; without a
  switching schedule the two feeds carry the two directions (forward and backward packets).

Any violation raises ``GossipCheckError`` naming the PU, the ring and the rule; nothing is a
warning.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.errors import SimulationError
from netsim_fast.workloads.gossip.feeds import free_links
from netsim_fast.workloads.gossip.plan import GossipPlan, port_towards


class GossipCheckError(SimulationError, ValueError):
    """A gossip construction violates a property the paper requires of it."""


def check_rings(topo, rings, stated_lengths=()) -> None:
    """Simple, adjacent, edge-disjoint rings with the stated lengths."""
    seen = {}
    for c, ring in enumerate(rings):
        nodes = ring.nodes
        if np.unique(nodes).size != nodes.size:
            vals, counts = np.unique(nodes, return_counts=True)
            v = int(vals[counts > 1][0])
            raise GossipCheckError(f"ring {c} passes PU {v} {int(counts.max())} times; a cycle "
                                   f"must visit each PU at most once")
        succ = np.roll(nodes, -1)
        try:
            port_towards(topo, nodes, succ)
        except ValueError as exc:
            raise GossipCheckError(f"ring {c} is not a walk on the torus: {exc}") from None
        for a, b in zip(nodes.tolist(), succ.tolist()):
            key = (min(a, b), max(a, b))
            if key in seen:
                raise GossipCheckError(f"rings {seen[key]} and {c} share the link {a}-{b}; the "
                                       f"cycles must be edge-disjoint")
            seen[key] = c
        slots = np.diff(ring.slot_ptr)
        if slots.size != nodes.size or np.any(slots < 1):
            raise GossipCheckError(f"ring {c} needs at least one slot per PU")
    if stated_lengths:
        got = tuple(int(r.nodes.size) for r in rings)
        if tuple(sorted(got)) != tuple(sorted(int(x) for x in stated_lengths)):
            raise GossipCheckError(f"ring lengths {got} differ from the stated lengths "
                                   f"{tuple(stated_lengths)}")


def check_packets(plan: GossipPlan) -> None:
    """Every packet is in some slot, and only at the PU that owns it."""
    k = plan.packets_per_pu
    placed = np.zeros(plan.n_packets, bool)
    for c, ring in enumerate(plan.rings):
        owner = np.repeat(ring.nodes, np.diff(ring.slot_ptr))
        for content in (ring.slot_fwd, ring.slot_bwd):
            has = content >= 0
            wrong = has & (content // k != owner)
            if np.any(wrong):
                s = int(np.flatnonzero(wrong)[0])
                raise GossipCheckError(f"ring {c} slot {s} at PU {int(owner[s])} holds packet "
                                       f"{int(content[s])} of PU {int(content[s]) // k}")
            placed[content[has]] = True
    if not placed.all():
        pkt = int(np.flatnonzero(~placed)[0])
        raise GossipCheckError(f"packet {pkt % k} of PU {pkt // k} is on no ring, so no rule "
                               f"ever sends it")


def check_feeds(plan: GossipPlan) -> None:
    """Two feeds per (OOC-PU, ring), from on-cycle roots, over free links, within the depth."""
    topo = plan.topo
    on = np.zeros((plan.n_nodes, len(plan.rings)), bool)
    for c, ring in enumerate(plan.rings):
        on[ring.nodes, c] = True
    free = free_links(topo, plan.rings)
    link_used = {}
    got = {}
    for i, f in enumerate(plan.feeds):
        if not on[f.root, f.ring]:
            raise GossipCheckError(f"feed {i} of ring {f.ring} is rooted at PU {f.root}, which "
                                   f"is not on that ring")
        for p, c in f.edges:
            port = int(port_towards(topo, [p], [c])[0])
            if not free[p, port]:
                raise GossipCheckError(f"feed {i} uses link {p}->{c}, which a ring uses")
            if (p, c) in link_used:
                raise GossipCheckError(f"link {p}->{c} carries feeds {link_used[p, c]} and {i}")
            link_used[p, c] = i
            if on[c, f.ring]:
                raise GossipCheckError(f"feed {i} of ring {f.ring} reaches PU {c}, which is on "
                                       f"that ring")
            depth = f.depth(c)
            if depth > plan.max_relay_hops:
                raise GossipCheckError(f"PU {c} gets ring {f.ring} over {depth} hops; this "
                                       f"construction allows {plan.max_relay_hops}")
            got.setdefault((c, f.ring), []).append(i)
    carries = np.array([np.any(r.slot_fwd >= 0) | np.any(r.slot_bwd >= 0) for r in plan.rings])
    for v, c in zip(*np.nonzero(~on & carries[None, :])):
        fs = got.get((int(v), int(c)), [])
        if len(fs) != 2:
            raise GossipCheckError(f"PU {int(v)} is off ring {int(c)} and receives {len(fs)} "
                                   f"feeds of it; it needs one for each direction")
        a, b = (plan.feeds[i] for i in fs)
        if a.schedule is None and b.schedule is None and a.role == b.role:
            raise GossipCheckError(f"PU {int(v)} gets only {'forward' if a.role else 'backward'}"
                                   f" packets of ring {int(c)}; it needs both directions")


def check_plan(plan: GossipPlan) -> None:
    """All checks; raises ``GossipCheckError`` on the first violation."""
    check_rings(plan.topo, plan.rings, plan.stated_ring_lengths)
    check_packets(plan)
    check_feeds(plan)
