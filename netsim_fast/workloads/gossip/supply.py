"""Feeds for out-of-cycle PUs when some must be relayed: a search that keeps every PU in time.

Meyer & Sibeyn (papers/003), section 4.3.4: a PU that is off a cycle takes that cycle's
packets from neighbours; where no free link leads to a PU on the cycle, a neighbour that is off
it too passes on what it receives ("delay 2", Table 1). For d >= 4 this is not rare: in the
rows ``x_d >= d`` a PU has ``2(d-1)`` free links and must meet each of the other ``d - 1``
cycles twice, which no numbering of the columns realised by the zigzags achieves for d = 4
(docs/gossip.md), so every such PU needs relays.

A relay ties schedules together: the relay forwards one of its own two feeds, so that feed's
switching schedule must complete the relay *and* the PU behind it. Which free link of a PU
carries a relay and which of the relay's feeds it forwards decides whether a common schedule
exists within the deadline (Theorem 7's count). We search it:

1. per PU, every way to give each cycle it is off two free input links, with as few relays as
   possible (an *option*; supply_options.py);
2. per relay link, which of the relay's direct feeds of that cycle it forwards (a *root*);
3. the PUs whose feeds share a relayed stream form a *component*; it is in time if one 0-1
   program finds switching schedules that deliver every packet to every PU of the component by
   the deadline (Hopcroft-Karp matching when nothing is shared; supply_timing.py);
4. local search: while a component is late, try other options of its PUs and other roots of
   its relays, keep a change when fewer PUs are late.

This module is the search itself: the state of a choice (``_Search``: options, roots, the
components and which are late, updated one change at a time), the start (``_initial``), the
moves and the descent (``search_feeds``), and the feeds it returns.

Feeds are returned in the form ``feeds.assign_feeds`` uses (one ``Feed`` per stream, relays as
extra tree edges), with time-independent roles set by ``feeds.orient_roles``.
"""

from __future__ import annotations

import itertools

import numpy as np

from netsim_fast.workloads.gossip.feeds import SupplyError, orient_roles
from netsim_fast.workloads.gossip.plan import Feed, Ring
from netsim_fast.workloads.gossip.supply_options import Problem
from netsim_fast.workloads.gossip.supply_timing import chain_in_time, in_time

MAX_PAIR_MOVES = 300    # joint option changes of two PUs tried per late component


class _Search:
    """Options, relay roots and the late pairs they cause, updated one change at a time."""

    def __init__(self, prob: Problem, deadline: int):
        self.prob = prob
        self.deadline = deadline
        n = prob.topo.n_nodes
        self.opt = [0] * n
        self.root_pref = {}
        self.pairs = {}          # (PU, ring) -> [(feed key, depth)]; key = (root, first PU, ring)
        self.users = {}          # feed key -> {(PU, ring)} receiving it
        self.broken = set()      # (PU, ring) relayed through a PU without a direct feed
        self.late = set()
        self.load = {}           # (relay, ring) -> PUs relaying through it
        self.cache = {}
        self.verdict = {}
        self.relay_of = [set() for _ in range(n)]   # u -> PUs whose option relays via u

    # -- bookkeeping -------------------------------------------------------------------
    def link(self, v: int) -> dict:
        return self.prob.options[v][self.opt[v]]

    def direct_roots(self, u: int, c: int) -> list[int]:
        """Neighbours that feed ring ``c`` to ``u`` directly under u's option."""
        return [x for x, (cc, r) in self.link(u).items() if cc == c and not r]

    def _drop(self, v: int) -> None:
        for c in self.prob.needs[v]:
            vc = (v, int(c))
            for key, _ in self.pairs.pop(vc, []):
                self.users[key].discard(vc)
            self.broken.discard(vc)
        for u, (c, r) in self.link(v).items():
            if r:
                self.load[u, c] -= 1
                self.relay_of[u].discard(v)

    def _add(self, v: int) -> None:
        for u, (c, r) in self.link(v).items():
            vc = (v, c)
            if r:
                self.load[u, c] = self.load.get((u, c), 0) + 1
                self.relay_of[u].add(v)
                roots = self.direct_roots(u, c)
                if not roots:
                    self.broken.add(vc)
                    continue
                x = self.root_pref.get((u, v, c))
                key, depth = ((x if x in roots else roots[0]), u, c), 2
            else:
                key, depth = (u, v, c), 1
            self.pairs.setdefault(vc, []).append((key, depth))
            self.users.setdefault(key, set()).add(vc)

    def region(self, seeds) -> list[list]:
        """Components (lists of pairs) that contain any pair in ``seeds``."""
        seen, comps = set(), []
        for start in seeds:
            if start in seen or start not in self.pairs:
                continue
            comp, stack = [], [start]
            seen.add(start)
            while stack:
                vc = stack.pop()
                comp.append(vc)
                for key, _ in self.pairs[vc]:
                    for other in self.users[key]:
                        if other not in seen:
                            seen.add(other)
                            stack.append(other)
            comps.append(sorted(comp))
        return comps

    def feeds_of(self, comp) -> dict:
        out = {}
        for vc in comp:
            for key, _ in self.pairs[vc]:
                out[key] = [key[2], key[0]]
        return out

    def on_time(self, comp) -> bool:
        key = (self.deadline,) + tuple((vc, tuple(self.pairs[vc])) for vc in comp)
        ok = self.cache.get(key)
        if ok is None:
            ok = self.cache[key] = in_time(self.prob, comp, self.pairs, self.feeds_of(comp),
                                           self.deadline)
        return ok

    def pair_set(self, pus) -> set:
        return {(v, int(c)) for v in pus for c in self.prob.needs[v]}

    # -- whole state and changes --------------------------------------------------------
    def reset(self, opt: list, root_pref: dict) -> None:
        self.opt, self.root_pref = list(opt), dict(root_pref)
        self.pairs, self.users, self.broken, self.load = {}, {}, set(), {}
        self.relay_of = [set() for _ in self.opt]
        for v in range(len(self.opt)):
            self._add(v)
        self.late = set()
        for comp in self.region(list(self.pairs)):
            if not self.on_time(comp):
                self.late.update(comp)

    def cost(self) -> tuple:
        over = sum(n - 1 for n in self.load.values() if n > 1)
        return len(self.broken), len(self.late | self.broken), over

    def change(self, opts: dict, roots: dict) -> tuple:
        """Apply option and root changes; returns the changes that undo them.

        Only the changed PUs, the PUs relaying through a changed PU and the components they
        were or are in are recomputed.
        """
        undo = ({v: self.opt[v] for v in opts}, {k: self.root_pref.get(k) for k in roots})
        touched = set(opts) | {v for _, v, _ in roots}
        for u in opts:
            touched |= self.relay_of[u]
        old = {vc for comp in self.region(self.pair_set(touched)) for vc in comp}
        for v in touched:
            self._drop(v)
        for v, o in opts.items():
            self.opt[v] = o
        for k, x in roots.items():
            if x is None:
                self.root_pref.pop(k, None)
            else:
                self.root_pref[k] = x
        for v in touched:
            self._add(v)
        self.late -= old
        for comp in self.region(old | self.pair_set(touched)):
            if not self.on_time(comp):
                self.late.update(comp)
        return undo

    def try_change(self, opts: dict, roots: dict) -> bool:
        """Keep the change if it lowers the cost."""
        was = self.cost()
        undo = self.change(opts, roots)
        if self.cost() < was:
            return True
        self.change(*undo)
        return False


def search_feeds(topo, rings: list[Ring], deadline: int, max_rounds: int = 20,
                 max_extra: int = 12, strict_roles: bool = False) -> tuple:
    """Feeds that bring every packet to every OOC-PU by ``deadline`` where the search finds them.

    If some component stays late, the deadline is raised one step at a time (at most
    ``max_extra`` steps) and the search continues from where it stopped.

    Returns ``(feeds, reached, late)``: the feed list (``Feed`` objects with roles set), the
    deadline the search met (None if none within ``max_extra``) and the number of (PU, ring)
    pairs it left late at the original ``deadline``.
    """
    prob = Problem(topo, rings)
    search = _Search(prob, deadline)
    best = None
    for axis in range(topo.n_dims):
        search.reset(_initial(prob, axis), {})
        _improve(search, 1)
        if best is None or search.cost() < best[0]:
            best = (search.cost(), list(search.opt), dict(search.root_pref))
        if search.cost()[1] == 0:
            break
    search.reset(best[1], best[2])
    _improve(search, max_rounds)
    late = len(search.late | search.broken)
    reached = deadline
    while search.cost()[1] and reached < deadline + max_extra:
        reached += 1
        search.deadline = reached
        search.reset(list(search.opt), dict(search.root_pref))
        _improve(search, max_rounds)
    if search.cost()[1]:
        reached = None
    return _to_feeds(search, rings, strict_roles), reached, late


def _improve(search: _Search, rounds: int) -> None:
    """Greedy descent: for each late component try the moves until one lowers the cost."""
    for _ in range(rounds):
        if not search.late:
            return
        improved = False
        for comp in search.region(sorted(search.late)):
            if comp[0] not in search.late:
                continue
            for opts, roots in _moves(search, comp):
                if search.try_change(opts, roots):
                    improved = True
                    break
        if not improved:
            return


def _moves(search: _Search, comp: list):
    """Candidate (option changes, root changes) for a late component."""
    prob = search.prob
    pus = sorted({v for v, _ in comp})
    for v, c in comp:
        for key, h in search.pairs.get((v, c), []):
            if h == 2:
                u = key[1]
                for x in search.direct_roots(u, c):
                    if x != key[0]:
                        yield {}, {(u, v, c): x}
    relays = sorted({key[1] for vc in comp for key, h in search.pairs[vc] if h == 2})
    involved = pus + [u for u in relays if u not in pus]
    for v in involved:
        for o in range(len(prob.options[v])):
            if o != search.opt[v]:
                yield {v: o}, {}
    for v, c in comp:
        yield from _chain_moves(search, v, c)
    tried = 0
    for a, b in itertools.combinations(involved, 2):
        for oa in range(len(prob.options[a])):
            for ob in range(len(prob.options[b])):
                if oa == search.opt[a] or ob == search.opt[b]:
                    continue
                tried += 1
                if tried > MAX_PAIR_MOVES:
                    return
                yield {a: oa, b: ob}, {}


def _chain_moves(search: _Search, v: int, c: int):
    """Re-choose PU ``v``'s option together with its relays of ring ``c``: every combination
    whose chain (v's pair and its relays' pairs, relays fed directly) is in time by itself."""
    prob = search.prob
    for o, opt in enumerate(prob.options[v]):
        links = sorted((u, r) for u, (cc, r) in opt.items() if cc == c)
        if not any(r for _, r in links):
            continue
        per_link = []
        for u, r in links:
            if not r:
                per_link.append([(u, None, None, None)])
                continue
            groups = {}
            for ou, uopt in enumerate(prob.options[u]):
                own = tuple(sorted(x for x, (cc, rr) in uopt.items() if cc == c))
                if len(own) == 2 and not any(uopt[x][1] for x in own):
                    groups.setdefault(own, ou)
            per_link.append([(u, own, x, ou) for own, ou in groups.items() for x in own])
        for combo in itertools.product(*per_link):
            key = (search.deadline, v, c, tuple(item[:3] for item in combo))
            ok = search.verdict.get(key)
            if ok is None:
                ok = search.verdict[key] = chain_in_time(prob, v, c, combo, search.deadline)
            if ok:
                opts = {v: o}
                opts.update({item[0]: item[3] for item in combo if item[1] is not None})
                yield opts, {(item[0], v, c): item[2] for item in combo if item[1] is not None}


def _initial(prob: Problem, axis: int) -> list:
    """Options with the most relay links along ``axis`` (a uniform pattern: neighbours relay
    for each other alike), then greedy passes that spread relay duties so that a relay serves
    one PU per ring where possible."""
    topo = prob.topo

    def along(v, o):
        return sum(1 for u, (_, r) in prob.options[v][o].items()
                   if r and int(topo.arrays.port_dim[int(np.argmax(topo.nbr[v] == u))]) == axis)

    def relays(v, o):
        return sum(r for _, r in prob.options[v][o].values())

    opt = [max(range(len(opts)), key=lambda o: (-relays(v, o), along(v, o)))
           for v, opts in enumerate(prob.options)]
    load = {}
    for v, o in enumerate(opt):
        for u, (c, r) in prob.options[v][o].items():
            if r:
                load[u, c] = load.get((u, c), 0) + 1
    for _ in range(3):
        changed = False
        for v, opts in enumerate(prob.options):
            if len(opts) < 2:
                continue
            for u, (c, r) in opts[opt[v]].items():
                if r:
                    load[u, c] -= 1

            def score(o):
                extra = sum(1 for u, (c, r) in opts[o].items() if r and load.get((u, c), 0))
                return extra, relays(v, o), -along(v, o)
            o = min(range(len(opts)), key=score)
            changed |= o != opt[v]
            opt[v] = o
            for u, (c, r) in opts[o].items():
                if r:
                    load[u, c] = load.get((u, c), 0) + 1
        if not changed:
            break
    return opt


def _to_feeds(search: _Search, rings: list[Ring], strict_roles: bool) -> list[Feed]:
    if search.broken:
        v, c = sorted(search.broken)[0]
        raise SupplyError(f"PU {v} relays ring {c} through a neighbour with no direct feed of it")
    edges = {}
    for (v, c), fs in sorted(search.pairs.items()):
        for key, h in fs:
            root, first, _ = key
            edges.setdefault(key, [(root, first)])
            if h == 2:
                edges[key].append((first, v))
    index, out = {}, []
    for key in sorted(edges):
        index[key] = len(out)
        out.append(Feed(ring=int(key[2]), root=int(key[0]),
                        edges=tuple((int(a), int(b)) for a, b in edges[key])))
    got = {vc: [index[k] for k, _ in fs] for vc, fs in search.pairs.items()}
    orient_roles(rings, out, got, strict_roles)
    return out
