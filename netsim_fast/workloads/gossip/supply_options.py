"""What the relay search chooses from: per PU, the ways to feed the rings it is off (step 1 of
the search in supply.py).

``Problem`` holds the static data of one plan: the rings, which PU is on which ring, the free
links (``feeds.free_links``) into each PU, the rings each PU needs, and per PU its *options*:
assignments of two free input links to each ring it is off, each link a direct feed or a relay
(a neighbour off that ring too, forwarding one of its own direct feeds), fewest relays first.
``stream`` gives the packets a feed's root sends, level by level, for the timing check
(supply_timing.py).
"""

from __future__ import annotations

import itertools

import numpy as np

from netsim_fast.workloads.gossip.feeds import SupplyError, free_links
from netsim_fast.workloads.gossip.plan import Ring

MAX_OPTIONS = 64        # options kept per PU (fewest relays first)
EXTRA_RELAYS = 2        # options may use this many relays more than the fewest possible


class Problem:
    """Static data of one plan: rings, who is on which ring, free links, per-PU options."""

    def __init__(self, topo, rings: list[Ring]):
        self.topo = topo
        self.rings = rings
        n_nodes = topo.n_nodes
        self.on = np.zeros((n_nodes, len(rings)), bool)
        for c, ring in enumerate(rings):
            self.on[ring.nodes, c] = True
        self.pos = [ring.position() for ring in rings]
        self.content = [np.asarray(ring.slot_fwd) for ring in rings]
        for ring in rings:
            if np.diff(ring.slot_ptr).max() != 1:
                raise ValueError("supply search expects one slot per PU")
        carries = [bool(np.any(ct >= 0)) for ct in self.content]
        free = free_links(topo, rings)
        self.in_from = [[] for _ in range(n_nodes)]
        for u, p in zip(*np.nonzero(free)):
            self.in_from[int(topo.nbr[u, p])].append(int(u))
        self.needs = [[c for c in np.flatnonzero(~self.on[v]) if carries[c]]
                      for v in range(n_nodes)]
        self.options = [self._options(v) for v in range(n_nodes)]

    def _options(self, v: int) -> list[dict]:
        """Assignments {in-neighbour: (ring, is_relay)} giving each need two links.

        A neighbour relays a ring only if it can get that ring directly itself, and a PU that
        can get a ring directly takes at least one direct feed of it, so every relay has a
        direct feed to forward whatever the neighbours choose.
        """
        needs = [int(c) for c in self.needs[v]]
        links = self.in_from[v]
        if 2 * len(needs) > len(links):
            raise SupplyError(f"PU {v} is off {len(needs)} rings but has only {len(links)} "
                              f"free input links")
        found = []

        def usable(u, c):
            if self.on[u, c]:
                return True
            return c in self.needs[u] and self.has_direct(u, c)

        def rec(k, used, acc, relays):
            if k == len(needs):
                found.append((relays, dict(acc)))
                return
            c = needs[k]
            must = self.has_direct(v, c)
            for a, b in itertools.combinations([u for u in links if u not in used], 2):
                if not (usable(a, c) and usable(b, c)):
                    continue
                add = [(u, (c, not self.on[u, c])) for u in (a, b)]
                n_rel = sum(r for _, (_, r) in add)
                if must and n_rel == 2:
                    continue
                acc.extend(add)
                rec(k + 1, used | {a, b}, acc, relays + n_rel)
                del acc[-2:]

        rec(0, frozenset(), [], 0)
        if not found:
            raise SupplyError(f"PU {v} cannot get two feeds of each ring it is off within two "
                              f"hops")
        found.sort(key=lambda x: x[0])
        best = found[0][0]
        return [opt for n_rel, opt in found if n_rel <= best + EXTRA_RELAYS][:MAX_OPTIONS]

    def has_direct(self, v: int, c: int) -> bool:
        """A free link leads to ``v`` from a PU on ring ``c``."""
        return any(self.on[u, c] for u in self.in_from[v])

    def stream(self, c: int, root: int, n_levels: int) -> tuple[np.ndarray, np.ndarray]:
        """Packets the root sends forward / backward at levels 0 .. n_levels-1 (-1 empty)."""
        m = self.content[c].size
        x = self.pos[c][root]
        k = np.arange(n_levels)
        return self.content[c][(x - k) % m], self.content[c][(x + k) % m]
