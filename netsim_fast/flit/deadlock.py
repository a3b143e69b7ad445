"""Is it a deadlock or a long wait? The wait-for graph of the blocked channels, and its knot.

The kernel's watchdog only sees that some lane's front has not moved for ``--deadlock-cycles``.
That happens in a deadlock, but also to a lane that is merely starved past saturation. When it
fires, this module reads the state and decides:

- Every lane holding flits either *can move* (its header waits for a routing unit, a free
  output VC exists for it, its link or crossbar is free, credits are on their way, it ejects),
  or *waits for* a set of channels: a header waiting for an output VC waits for the holders of
  all the VCs its routing allows (an OR-request: Duato's adaptive VCs and the escape VC), a
  connected lane without credits waits for the downstream lane, a full output lane for the
  downstream lane's credits.
- A channel that waits is *live* if any channel it waits for is live (the greatest fixed
  point). The channels that are not live form, together with what they wait for, a *knot*:
  each of their alternatives is held by another member, so none can ever move. A cycle among
  adaptive VCs with an escape VC still free is therefore not a deadlock (the escape VC is live).
- A deadlock is reported only when the knot is non-empty, with its channels as (router, port,
  VC). Otherwise the wait is starvation: the run goes on and the summary says who waited.

The holder of an output VC is the input lane that owns it; when that lane is empty (the worm's
head went on, its tail is still upstream) the wait passes upstream to the channel that still
holds the worm's flits. Ejection always drains, so a wait for the local port is never part of
a knot.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from netsim_fast.flit import state as fs

LIVE = -2  # an alternative that is known to move


@dataclass
class WaitForGraph:
    """Blocked channels and what each waits for (entity ids: input lane ``l`` is ``l``, output
    lane ``o`` of the lanes router is ``n_lanes + o``)."""

    n_lanes: int
    waits: dict = field(default_factory=dict)  # entity -> list of entities (or LIVE)

    def stuck(self) -> list[int]:
        """The entities that can never move: the blocked ones outside the least set closed
        under 'waits for a live one'. Sorted; every alternative of each is stuck too."""
        live = {e for e, alts in self.waits.items() if LIVE in alts}
        changed = True
        while changed:
            changed = False
            for e, alts in self.waits.items():
                if e not in live and any(a not in self.waits or a in live for a in alts):
                    live.add(e)
                    changed = True
        return sorted(e for e in self.waits if e not in live)

    def knot(self) -> list[int]:
        """The core of the deadlock: the stuck entities in the strongly connected components
        that wait on nothing outside themselves (the cycles of waits; what is left of the stuck
        set only queues behind them). Empty when nothing is stuck."""
        import networkx as nx

        stuck = set(self.stuck())
        graph = nx.DiGraph()
        graph.add_nodes_from(stuck)
        graph.add_edges_from((e, a) for e in stuck for a in self.waits[e] if a in stuck)
        condensed = nx.condensation(graph)
        core = []
        for c in condensed.nodes:
            if condensed.out_degree(c) == 0:
                core.extend(condensed.nodes[c]["members"])
        return sorted(core)


def _returning_credits(state, n_out: int) -> np.ndarray:
    counts = np.zeros(n_out, np.int64)
    for slot in range(state.ev_credit_n.shape[0]):
        np.add.at(counts, state.ev_credit[slot, : state.ev_credit_n[slot]], 1)
    return counts


def _arriving_flits(state, n_lanes: int) -> np.ndarray:
    counts = np.zeros(n_lanes, np.int64)
    for slot in range(state.ev_flit_n.shape[0]):
        np.add.at(counts, state.ev_flit[slot, : state.ev_flit_n[slot], 0], 1)
    return counts


def wait_for_graph(state, params, topo, t: int) -> WaitForGraph:
    """The wait-for graph of every channel holding flits at cycle ``t`` (see the module docstring)."""
    from netsim_fast.flit.flits import flit_packet, is_head
    from netsim_fast.flit.route import candidate_rows

    inl, outl, pkts = state.inl, state.outl, state.pkt
    n_lanes = inl.shape[0]
    P, V, buf = params.n_ports, params.n_vcs, params.buf
    first_local = P - getattr(params, "conc", 1)  # local ports: first_local .. P-1
    lanes_router = params.router == fs.ROUTER_LANES
    credits_back = _returning_credits(state, outl.shape[0])
    arriving = _arriving_flits(state, n_lanes)
    graph = WaitForGraph(n_lanes)
    a = topo.arrays

    def downstream(o):
        """What a send on output VC ``o`` waits for when it has no credits."""
        if credits_back[o] > 0 or outl[o].down < 0:
            return LIVE
        return int(outl[o].down)

    def holder(lane, seen=None):
        """The entity holding the flits of the worm that owns input lane ``lane``'s VC."""
        seen = set() if seen is None else seen
        while inl[lane].len == 0:
            if arriving[lane] > 0 or inl[lane].up < 0 or lane in seen:
                return LIVE
            seen.add(lane)
            up = int(inl[lane].up)
            if lanes_router and outl[up].len > 0:
                return n_lanes + up
            if outl[up].owner < 0:
                return LIVE
            lane = int(outl[up].owner)
        return lane

    rows = np.zeros_like(state.rows)
    for lane in np.nonzero(inl["len"] > 0)[0]:
        lane = int(lane)
        node = lane // (P * V)
        front = int(state.in_buf[lane, inl[lane].head])
        out = int(inl[lane].out)
        if out >= 0:  # connected: the crossbar or the link is what it waits for
            if outl[out].port >= first_local or inl[lane].ready > t:
                continue
            if lanes_router:
                if outl[out].len >= params.out_buf:
                    graph.waits[lane] = [n_lanes + out]
            elif outl[out].credits <= 0:
                graph.waits[lane] = [downstream(out)]
            continue
        if not is_head(front) or inl[lane].route_done < 0 or inl[lane].route_done > t:
            continue  # a routing unit will take it
        pkt = flit_packet(front)
        n_rows = candidate_rows(params, a.radix, a.wrap, a.coord, a.dim_port, state.route_mask, node, pkts,
                                state.mid, state.kind, pkt, rows)
        from_source = (lane // V) % P >= first_local
        alternatives = []
        for r in range(n_rows):
            port = int(rows[r, 0])
            for vc in range(int(rows[r, 1]), int(rows[r, 2]) + 1):
                to_local = port >= first_local
                if from_source and not to_local and not (params.inject_mask >> vc) & 1:
                    continue
                o = (node * P + port) * V + vc
                held = int(outl[o].len) if lanes_router else 0
                if outl[o].owner >= 0:
                    alternatives.append(holder(int(outl[o].owner)))
                elif to_local:
                    alternatives.append(LIVE)
                elif lanes_router and held >= params.out_buf:
                    alternatives.append(n_lanes + o)
                elif (params.atomic_mask >> vc) & 1 and (outl[o].credits != buf or held > 0):
                    alternatives.append(n_lanes + o if held > 0 else downstream(o))
                elif params.vct and outl[o].credits - held < pkts[pkt].len:
                    alternatives.append(downstream(o))
                else:
                    alternatives.append(LIVE)  # a free VC: the allocator will grant one
        graph.waits[lane] = alternatives or [LIVE]
    if lanes_router:
        for o in np.nonzero(outl["len"] > 0)[0]:
            o = int(o)
            if outl[o].credits <= 0:
                graph.waits[n_lanes + o] = [downstream(o)]
    return graph


def describe_channel(entity: int, params, n_lanes: int) -> dict:
    """(router, port, vc) of an entity, with whether it is an input or an output lane."""
    kind = "input"
    if entity >= n_lanes:
        entity -= n_lanes
        kind = "output"
    P, V = params.n_ports, params.n_vcs
    port = (entity // V) % P
    first_local = P - getattr(params, "conc", 1)
    return {"router": entity // (P * V), "port": "local" if port >= first_local else int(port),
            "vc": entity % V, "lane": kind}


class Watchdog:
    """What the run loop does when the kernel's watchdog fires: prove a knot, or record
    starvation and go on.

    The kernel fires at every scan (each 64 cycles) while some lane has waited past the limit.
    The wait-for graph is built when a lane crosses the limit for the first time with its
    current packet, and otherwise at most every ``backoff`` cycles (64, doubling up to half the
    limit) while the same lanes keep starving: a knot that forms among lanes already starving is
    still found within half a limit, and a long starvation costs a numpy scan per fire, not a
    graph. Nothing here writes the state, so a run's results never depend on the watchdog.
    """

    def __init__(self, params):
        self.params = params
        self.knot: list[dict] = []
        self.knot_last_move = None  # cycle the knot's channels last moved (the latest of them)
        self.starved: dict = {}  # (kind, index) -> longest wait seen
        self.known: set = set()  # (kind, index, front packet) already analysed as starving
        self.backoff = 64
        self.next_analysis = 0
        self.analyses = 0
        self.stuck_count = 0  # channels that can never move: the knot and those queued behind it

    def _over_limit(self, state, t: int) -> list:
        from netsim_fast.flit.flits import flit_packet

        limit = self.params.deadlock_cycles
        out = []
        inl = state.inl
        for i in np.nonzero((inl["len"] > 0) & (t - inl["last"] >= limit))[0]:
            out.append(("input", int(i), flit_packet(int(state.in_buf[i, inl["head"][i]])), int(inl["last"][i])))
        if self.params.router == fs.ROUTER_LANES:
            outl = state.outl
            for i in np.nonzero((outl["len"] > 0) & (t - outl["last"] >= limit))[0]:
                flit = int(state.ol_buf[i, outl["head"][i]]["flit"])
                out.append(("output", int(i), flit_packet(flit), int(outl["last"][i])))
        return out

    def confirm(self, state, topo) -> bool:
        """True when the state holds a knot (a deadlock); else records the starving lanes."""
        t = int(state.cnt[fs.C_ERR_CYCLE])
        over = self._over_limit(state, t)
        for kind, i, _, last in over:
            self.starved[(kind, i)] = max(self.starved.get((kind, i), 0), t - last)
        fronts = {(kind, i, pkt) for kind, i, pkt, _ in over}
        if fronts <= self.known and t < self.next_analysis:
            return False
        self.analyses += 1
        graph = self.graph(state, topo, t)
        knot = graph.knot()
        if knot:
            self.knot = [describe_channel(e, self.params, graph.n_lanes) for e in knot]
            self.stuck_count = len(graph.stuck())
            lasts = [int(state.inl["last"][e]) if e < graph.n_lanes else int(state.outl["last"][e - graph.n_lanes])
                     for e in knot]
            self.knot_last_move = max(lasts)
            return True
        self.backoff = 64 if not fronts <= self.known else min(2 * self.backoff, max(self.params.deadlock_cycles // 2, 64))
        self.known = fronts
        self.next_analysis = t + self.backoff
        return False

    def graph(self, state, topo, t: int) -> WaitForGraph:
        """The wait-for graph at ``t`` (a router with other wait rules overrides this)."""
        return wait_for_graph(state, self.params, topo, t)

    def renumber(self, shift: int) -> None:
        """Packet ids went down by ``shift`` (flit/retire.py): so do the remembered fronts'."""
        self.known = {(kind, i, pkt - shift) for kind, i, pkt in self.known}

    def report(self, state, n_lanes: int) -> dict:
        """Summary keys: the longest wait and the channels that waited past the limit."""
        longest = int(state.cnt[fs.C_MAX_WAIT])
        channels = []
        for (kind, i), wait in sorted(self.starved.items(), key=lambda kv: -kv[1]):
            entity = i if kind == "input" else n_lanes + i
            channels.append({**describe_channel(entity, self.params, n_lanes), "wait_cycles": int(wait)})
            longest = max(longest, int(wait))
        return {"starvation_max_wait": longest, "starved_channels": channels[:20],
                "starved_channel_count": len(channels)}
