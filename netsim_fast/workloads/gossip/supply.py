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
   possible (an *option*);
2. per relay link, which of the relay's direct feeds of that cycle it forwards (a *root*);
3. the PUs whose feeds share a relayed stream form a *component*; it is in time if one 0-1
   program finds switching schedules that deliver every packet to every PU of the component by
   the deadline (Hopcroft-Karp matching when nothing is shared);
4. local search: while a component is late, try other options of its PUs and other roots of
   its relays, keep a change when fewer PUs are late.

Feeds are returned in the form ``feeds.assign_feeds`` uses (one ``Feed`` per stream, relays as
extra tree edges), with time-independent roles set by ``feeds.orient_roles``.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix, csr_matrix, vstack
from scipy.sparse.csgraph import maximum_bipartite_matching

from netsim_fast.workloads.gossip.feeds import SupplyError, free_links, orient_roles
from netsim_fast.workloads.gossip.plan import Feed, Ring

MAX_OPTIONS = 64        # options kept per PU (fewest relays first)
EXTRA_RELAYS = 2        # options may use this many relays more than the fewest possible
MAX_PAIR_MOVES = 300    # joint option changes of two PUs tried per late component


class _Problem:
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


def in_time(prob: _Problem, comp: list, pairs: dict, feeds: dict, deadline: int) -> bool:
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


class _Search:
    """Options, relay roots and the late pairs they cause, updated one change at a time."""

    def __init__(self, prob: _Problem, deadline: int):
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
    prob = _Problem(topo, rings)
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
                ok = search.verdict[key] = _chain_in_time(prob, v, c, combo, search.deadline)
            if ok:
                opts = {v: o}
                opts.update({item[0]: item[3] for item in combo if item[1] is not None})
                yield opts, {(item[0], v, c): item[2] for item in combo if item[1] is not None}


def _chain_in_time(prob: _Problem, v: int, c: int, combo, deadline: int) -> bool:
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


def _initial(prob: _Problem, axis: int) -> list:
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
