"""Slow, plain-Python reference of the flit engine, written from docs/flit-engine.md alone.

One flit at a time, dicts / lists / deques, no Numba: meant to be read next to the
specification and compared cycle for cycle with the fast kernel. Comments cite the spec's
stage numbers ("stage 5") and sections ("Routing functions").

Where the specification leaves a choice open, the reading taken here is marked ``CHOICE:``
(the list is repeated in the report that accompanies this file).

Interface::

    simulate_naive(topo, *, router="lanes", routing="dor", switching="wormhole", vcs=4, buf=8,
                   out_buf=2, t_link=1, t_routing=1, t_crossbar=1, credit_delay=1,
                   headers_per_cycle=1, eject_rate=1, inject_vcs=None, wire=None,
                   pkt_src, pkt_dst, pkt_len, pkt_release, max_cycles) -> dict

returns int64 arrays ``injected``, ``head_delivered``, ``tail_delivered``, ``hops`` (indexed by
packet id, -1 where it did not happen) and the ints ``cycles`` (cycles simulated) and
``flit_hops`` (router-to-router link traversals of all flits).
"""

from __future__ import annotations

from collections import defaultdict, deque

import numpy as np

# Check the invariants (credit conservation, lane bounds, in-order delivery) every cycle.
CHECK_INVARIANTS = True

_UNLIMITED = 1 << 60  # free space of the local port (stage 7: "counts as unlimited")


# ---------------------------------------------------------------------------------------------
# Routing functions ("Routing functions" section): rows (port, lowest VC, highest VC, priority)
# ---------------------------------------------------------------------------------------------
class GridRouting:
    """dor, duato and dor-nodateline on tori, meshes and hypercubes."""

    def __init__(self, topo, routing: str, n_vcs: int):
        a = topo.arrays
        if a.radix.shape[0] == 0:
            raise ValueError("the reference routes grid topologies only (torus, mesh, hypercube)")
        self.routing = routing
        self.V = n_vcs
        self.local = topo.local_port
        self.radix = [int(k) for k in a.radix]
        self.wrap = [int(w) for w in a.wrap]
        self.coord = a.coord.tolist()
        self.dim_port = a.dim_port.tolist()
        self.n_dims = len(self.radix)
        # Dateline classes exist on ring dimensions of radix > 2 only ("dor").
        self.dateline = [self.wrap[d] == 1 and self.radix[d] > 2 for d in range(self.n_dims)]
        # CHOICE: "on tori" (two escape VCs 0 and 1) means "has at least one ring dimension of
        # radix > 2"; meshes and hypercubes (no dateline anywhere) have the single escape VC 0.
        self.n_escape = 2 if any(self.dateline) else 1
        if routing == "dor" and any(self.dateline):
            assert n_vcs >= 2, "dor on a torus needs two dateline classes (vcs >= 2)"
        if routing == "duato":
            assert n_vcs > self.n_escape, "duato needs at least one adaptive VC"

    def reducing_dirs(self, d: int, c: int, g: int) -> list[int]:
        """Directions (+1, -1; 0 for a radix-2 port) that bring coordinate c closer to g."""
        if c == g:
            return []
        k = self.radix[d]
        if k == 2:
            return [0]
        if not self.wrap[d]:
            return [1] if g > c else [-1]
        fwd = (g - c) % k  # hops going +
        bwd = k - fwd      # hops going -
        if fwd < bwd:
            return [1]
        if bwd < fwd:
            return [-1]
        return [1, -1]     # distance exactly k/2

    def dor_dir(self, d: int, c: int, g: int) -> int:
        dirs = self.reducing_dirs(d, c, g)
        if len(dirs) == 2:
            # "At distance exactly k/2 the packet goes + when its current coordinate in that
            # dimension is even and - when odd."
            return 1 if c % 2 == 0 else -1
        return dirs[0]

    def port(self, d: int, direction: int) -> int:
        return self.dim_port[d][1] if direction == -1 else self.dim_port[d][0]

    def dateline_class(self, d: int, s: int, c: int, direction: int) -> int:
        """Class 1 on the wrap-around link of dimension d and after it, else class 0.

        The packet entered dimension d at its source coordinate s (dimension order does not touch
        d before; minimal adaptive moves in d all go the same way), so it has already crossed the
        wrap-around link iff it moved + and now sits below s, or moved - and sits above s.
        """
        k = self.radix[d]
        on_wrap_link = (direction == 1 and c == k - 1) or (direction == -1 and c == 0)
        crossed = (direction == 1 and c < s) or (direction == -1 and c > s)
        return 1 if (on_wrap_link or crossed) else 0

    def rows(self, node: int, src: int, dst: int) -> list[tuple[int, int, int, int]]:
        V = self.V
        if node == dst:
            return [(self.local, 0, V - 1, 0)]  # "At the destination the only row is ..."
        cur, goal, start = self.coord[node], self.coord[dst], self.coord[src]
        d0 = next(d for d in range(self.n_dims) if cur[d] != goal[d])  # dimension 0 first
        dir0 = self.dor_dir(d0, cur[d0], goal[d0])
        port0 = self.port(d0, dir0)
        if self.routing == "dor-nodateline":
            return [(port0, 0, V - 1, 0)]
        if self.routing == "dor":
            if not self.dateline[d0]:
                return [(port0, 0, V - 1, 0)]  # mesh and radix-2 dimensions: all V VCs
            half = V // 2
            if self.dateline_class(d0, start[d0], cur[d0], dir0) == 0:
                return [(port0, 0, half - 1, 0)]
            return [(port0, half, V - 1, 0)]
        # duato: adaptive VCs on every distance-reducing port (priority 0), escape VC on the
        # dor port (priority 1).
        out = []
        for d in range(self.n_dims):
            for direction in self.reducing_dirs(d, cur[d], goal[d]):
                out.append((self.port(d, direction), self.n_escape, V - 1, 0))
        if self.dateline[d0]:
            # CHOICE: "the dor dateline rule from the packet's source coordinate" = class 1 on the
            # wrap-around link of the dor dimension and after it, judged from the source
            # coordinate and the current coordinate (dateline_class); VC 0 = class 0, VC 1 = class 1.
            esc = self.dateline_class(d0, start[d0], cur[d0], dir0)
            out.append((port0, esc, esc, 1))
        else:
            # CHOICE: on a radix-2 (or mesh) dimension dor uses all VCs, so the escape row uses all
            # escape VCs (0..n_escape-1): both escape VCs on a torus with a radix-2 dimension.
            out.append((port0, 0, self.n_escape - 1, 1))
        return out


# ---------------------------------------------------------------------------------------------
# The simulator
# ---------------------------------------------------------------------------------------------
class TableRouting:
    """A next-port table (any topology): every allowed port of (node, destination), on the VCs
    of the packet's hop class (hop h uses VCs h*c .. h*c+c-1, c = V // longest route)."""

    def __init__(self, topo, table, n_vcs: int):
        self.local, self.V = topo.local_port, n_vcs
        self.mask = table.port_mask
        longest = int(table.dist.max())
        assert n_vcs >= longest, "one VC class per hop"
        self.c = n_vcs // max(longest, 1)
        self.n_escape = 0

    def rows(self, node: int, src: int, dst: int, hops: int) -> list[tuple[int, int, int, int]]:
        if node == dst:  # eject on any local VC
            return [(self.local, 0, self.V - 1, 0)]
        ports = [p for p in range(self.mask.shape[2] * 8) if self.mask[dst, node, p // 8] >> (p % 8) & 1]
        return [(p, hops * self.c, hops * self.c + self.c - 1, 0) for p in ports]


class DestTagRouting(TableRouting):
    """The butterfly's destination-tag routing (docs/flit-engine.md "Table routings", the
    butterfly): the table's one port, every VC at every hop (no hop classes)."""

    def __init__(self, topo, table, n_vcs: int):
        self.local, self.V, self.mask, self.n_escape = topo.local_port, n_vcs, table.port_mask, 0
        self.c = n_vcs

    def rows(self, node: int, src: int, dst: int, hops: int) -> list[tuple[int, int, int, int]]:
        return super().rows(node, src, dst, 0)  # hop class 0 of V VCs: every VC


class UpDownRouting:
    """Up*/down* from its next-port table (routing/updown.py's docstring): every VC at every hop;
    where the table allows several ports, ``random`` takes one by the hash of (source terminal,
    creation cycle, router), ``dest-mod-k`` the one at index (dst // n^hops) mod n of the n in
    port order, ``adaptive`` offers them all."""

    def __init__(self, topo, table, n_vcs: int, choice: str):
        self.mask, self.V, self.choice = table.port_mask, n_vcs, choice
        self.n_escape = 0

    @staticmethod
    def _mix31(x: int) -> int:
        x &= 0x7FFFFFFF
        x ^= x >> 15
        x = (x * 0x2C1B3C6D) & 0x7FFFFFFF
        x ^= x >> 12
        x = (x * 0x297A2D39) & 0x7FFFFFFF
        return x ^ (x >> 15)

    def rows(self, node: int, src: int, dst: int, C: int, release: int, hops: int):
        ports = [p for p in range(self.mask.shape[2] * 8) if self.mask[dst // C, node, p // 8] >> (p % 8) & 1]
        n = len(ports)
        if n > 1 and self.choice == "random":
            ports = [ports[self._mix31(self._mix31(self._mix31(src) ^ (release & 0x7FFFFFFF)) ^ node) % n]]
        elif n > 1 and self.choice == "dest-mod-k":
            ports = [ports[(dst // n ** hops) % n]]
        return [(p, 0, self.V - 1, 0) for p in ports]


class ValiantRouting:
    """``valiant`` on a flattened butterfly or HyperX (routing/hamming_valiant.py's docstring):
    dimension order (the lowest dimension whose coordinate differs; one hop sets it) to the
    packet's intermediate router ``m``, then to the destination. VC class 0 (VCs 0..c-1, c =
    V // 2) while the hops crossed are fewer than the coordinates in which source and ``m``
    differ, class 1 (c..2c-1) after them; ``m`` = -1: class 1 throughout (minimal)."""

    def __init__(self, topo, n_vcs: int):
        self.dims = [int(topo.params["k"])] * int(topo.params["n"]) if topo.kind == "flatfly" else \
            [int(k) for k in str(topo.params["dims"]).split(",")]
        self.c = n_vcs // 2
        self.n_escape = 0

    def coords(self, node: int) -> list[int]:
        out = []
        for k in self.dims:
            out.append(node % k)
            node //= k
        return out

    def port(self, node: int, target: int) -> int:
        a, b = self.coords(node), self.coords(target)
        base = 0
        for d, k in enumerate(self.dims):  # ports: dimension by dimension, other coordinates ascending
            if a[d] != b[d]:
                return base + b[d] - (b[d] > a[d])
            base += k - 1
        raise AssertionError("no hop from a router to itself")

    def rows(self, node: int, src: int, dst: int, hops: int, m: int):
        first = -1 if m < 0 else sum(x != y for x, y in zip(self.coords(src), self.coords(m)))
        cls = 0 if hops < first else 1
        return [(self.port(node, m if cls == 0 else dst), cls * self.c, cls * self.c + self.c - 1, 0)]


class HammingAdaptiveRouting:
    """``dim-adaptive`` and ``min-adaptive`` on a HyperX or flattened butterfly
    (routing/hamming_adaptive.py's docstring). Ports: dimension by dimension, the other
    coordinates ascending, each coordinate's ``widths[d]`` parallel links side by side.
    ``dim-adaptive``: every parallel link to the target coordinate of the lowest dimension in
    which the router differs from the destination, every VC. ``min-adaptive``: VCs 1..V-1 on the
    links of every such dimension (priority 0), VC 0 on those of the lowest one (priority 1)."""

    def __init__(self, topo, routing: str, n_vcs: int):
        p = topo.params
        self.dims = [int(p["k"])] * int(p["n"]) if topo.kind == "flatfly" else [int(k) for k in str(p["dims"]).split(",")]
        self.widths = [int(w) for w in str(p.get("widths", "")).split(",")] if "widths" in p else [1] * len(self.dims)
        self.routing, self.V = routing, n_vcs
        self.n_escape = 1 if routing == "min-adaptive" else 0
        assert routing == "dim-adaptive" or n_vcs >= 2

    def coords(self, node: int) -> list[int]:
        out = []
        for k in self.dims:
            out.append(node % k)
            node //= k
        return out

    def links(self, d: int, own: int, goal: int) -> list[int]:
        """The parallel ports of dimension ``d`` from coordinate ``own`` to ``goal``."""
        base = sum((k - 1) * w for k, w in zip(self.dims[:d], self.widths[:d]))
        first = base + (goal - (goal > own)) * self.widths[d]
        return list(range(first, first + self.widths[d]))

    def rows(self, node: int, src: int, dst: int):
        a, b = self.coords(node), self.coords(dst)
        differ = [d for d in range(len(self.dims)) if a[d] != b[d]]
        low = self.links(differ[0], a[differ[0]], b[differ[0]])
        if self.routing == "dim-adaptive":
            return [(q, 0, self.V - 1, 0) for q in low]
        adaptive = [(q, 1, self.V - 1, 0) for d in differ for q in self.links(d, a[d], b[d])]
        return adaptive + [(q, 0, 0, 1) for q in low]


class _Connection:
    """An input lane's route: output (port, VC), usable from ``usable`` (stage 7)."""

    __slots__ = ("port", "vc", "usable")

    def __init__(self, port: int, vc: int, usable: int):
        self.port, self.vc, self.usable = port, vc, usable


class NaiveFlitSim:
    def __init__(self, topo, router, routing, switching, V, B, O, t_link, t_routing, t_crossbar,
                 credit_delay, H, E, inject_vcs, src, dst, length, release, vc_realloc="auto",
                 vc_alloc="age", table=None, deadlock_cycles=10000, source_queue=0, wire=None, priority=None, up_port=None,
                 mid=None):
        assert router in ("lanes", "iq"), router
        assert table is not None or routing in ("dor", "duato", "dor-nodateline", "valiant", "dim-adaptive",
                                                "min-adaptive"), routing
        assert switching in ("wormhole", "vct"), switching
        assert V >= 1 and B >= 1 and O >= 1 and E >= 1 and H >= 0
        assert t_link >= 1 and t_routing >= 1 and t_crossbar >= 1 and credit_delay >= 1
        self.lanes = router == "lanes"
        self.vct = switching == "vct"
        self.V, self.B, self.O, self.E, self.H = V, B, O, E, H
        self.Tl, self.Tr, self.Tc, self.Cd = t_link, t_routing, t_crossbar, credit_delay
        self.inject_vcs = None if inject_vcs is None else set(int(v) for v in inject_vcs)
        self.routing = UpDownRouting(topo, table, V, up_port) if routing == "updown" else \
            ValiantRouting(topo, V) if routing == "valiant" else \
            HammingAdaptiveRouting(topo, routing, V) if routing in ("dim-adaptive", "min-adaptive") else \
            DestTagRouting(topo, table, V) if topo.kind == "fly" else \
            TableRouting(topo, table, V) if table is not None else GridRouting(topo, routing, V)
        self.mid = None if mid is None else [int(x) for x in mid]  # valiant: each packet's intermediate router
        # VCs reallocated only once drained (docs/flit-engine.md, stage 7): "auto" = duato's
        # adaptive VCs, "atomic" = all, "eager" = none.
        assert vc_realloc in ("auto", "atomic", "eager"), vc_realloc
        assert vc_alloc in ("age", "rr"), vc_alloc
        self.vc_alloc = vc_alloc
        self.source_queue = source_queue  # stage 2: packets a source queue holds (0 = unbounded)
        # stage 7b: headers of packets in the network this long go first, oldest first
        self.guard = max(deadlock_cycles // 16, 1)
        if vc_realloc == "atomic":
            self.atomic_vcs = set(range(V))
        elif vc_realloc == "auto" and routing in ("duato", "min-adaptive"):
            self.atomic_vcs = set(range(self.routing.n_escape, V))
        else:
            self.atomic_vcs = set()

        self.N, self.P = topo.n_nodes, topo.n_ports
        # Terminals (--concentration C): terminal t on router t // C at local port FL + t % C;
        # ports FL .. P-1 are local (FL = P - 1 with one terminal per router).
        self.C = topo.concentration
        # ... and ejects at router t // C + shift (the butterfly's last stage; 0 elsewhere:
        # docs/flit-engine.md "Terminals"), through the local port of the same number; the slots
        # of those routers (ids from T on, never sources) take its flits in stage 3
        self.shift = topo.eject_shift
        self.FL = self.P - self.C
        self.T = self.N * self.C
        self.nbr = topo.nbr.tolist()
        self.nip = topo.nbr_in_port.tolist()
        # Link latency ("Links"): the link leaving (r, p) takes T_link + wire[r][p] cycles, and
        # credits coming back over it wire[r][p] cycles more than credit_delay.
        self.wire = [[0] * self.P for _ in range(self.N)] if wire is None else np.asarray(wire).tolist()
        # Network output ports that have a link.
        self.net_ports = [[p for p in range(self.FL) if self.nbr[r][p] >= 0] for r in range(self.N)]

        # Packets.
        self.src = [int(x) for x in src]
        self.dst = [int(x) for x in dst]
        self.len = [int(x) for x in length]
        self.rel = [int(x) for x in release]
        n = len(self.src)
        assert len(self.dst) == len(self.len) == len(self.rel) == n
        assert all(self.len[p] >= 1 and self.src[p] != self.dst[p] for p in range(n))
        assert all(self.rel[p] >= 0 for p in range(n))
        assert all(self.rel[p] <= self.rel[p + 1] for p in range(n - 1)), "release order"
        if self.vct:
            assert max(self.len, default=0) <= B, "vct needs buf >= packet length"
        self.n_pkts = n
        # Traffic classes (docs/flit-engine.md, "Traffic classes"): each packet's class priority;
        # None = one class, every arbiter plain round-robin or age.
        self.pri = None if priority is None else [int(x) for x in priority]
        self.injected = [-1] * n
        self.head_delivered = [-1] * n
        self.tail_delivered = [-1] * n
        self.flit_gap = [0] * n
        self.inj_gap = [0] * n  # sum over its flits of (send cycle - head send cycle)
        self.hops = [-1] * n
        self.next_delivered = [0] * n  # in-order check
        self.n_done = 0
        self.next_release = 0
        self.flit_hops = 0

        N, P = self.N, self.P
        lane3 = lambda make: [[[make() for _ in range(V)] for _ in range(P)] for _ in range(N)]  # noqa: E731
        # Input lanes: FIFO of (packet, index), capacity B.
        self.inp = lane3(deque)
        # Connection of each input lane (None = idle / waiting for routing).
        self.conn = lane3(lambda: None)
        # First cycle at which the input lane's crossbar path may move its next flit (stage 5b).
        self.xbar_next = lane3(lambda: 0)
        # Output lanes (lanes router): FIFO of (packet, index, ready cycle), capacity O.
        self.outq = lane3(deque)
        # Binding of an output lane (lanes) / ownership of an output VC (iq): (in port, in VC).
        self.owner = lane3(lambda: None)
        # Credits of every network (router, port, VC) with a link; None elsewhere.
        self.credits = [[[B if (p < self.FL and self.nbr[r][p] >= 0) else None for _ in range(V)]
                         for p in range(P)] for r in range(N)]
        self.link_free = [[0] * P for _ in range(N)]  # link can send again from this cycle
        # Events: flits (downstream writes), credits, local deliveries (iq), keyed by cycle.
        self.flit_events = defaultdict(list)    # t -> [(r, in_port, vc, pkt, idx, r_up, p_up)]
        self.credit_events = defaultdict(list)  # t -> [(r, port, vc)]
        self.deliver_events = defaultdict(list)  # t -> [(pkt, idx)]
        self.flits_on_link = lane3(lambda: 0)   # per sender (r, port, vc), for the invariant
        self.credits_on_way = lane3(lambda: 0)  # per receiver of the credit (r, port, vc)

        # Round-robin pointers.  CHOICE: every pointer starts at 0.
        self.rr_eject = [0] * self.T                  # stage 3, per terminal, over V local output lanes
        self.rr_link = [[0] * P for _ in range(N)]    # stage 4, over V output lanes of a port
        self.rr_route = [0] * N                       # stage 7a, over P*V input lanes, port-major
        self.rr_va = [0] * N                          # stage 7b with --vc-alloc rr
        # stage 7a result: cycle from which the front header may request an output VC (None: unrouted)
        self.route_done = lane3(lambda: None)
        self.rr_inject = [0] * self.T                 # stage 8, per terminal, over V local input lanes
        self.rr_in = [[0] * P for _ in range(N)]      # iq (i), over V lanes of an input port
        self.rr_out = [[0] * P for _ in range(N)]     # iq (ii), over P input ports
        # Routing units: cycle from which each unit is free (stage 7).
        self.unit_free = [[0] * H for _ in range(N)]

        # Nodes: source queue and the packet bound to each local input lane [pkt, next index].
        self.srcq = [deque() for _ in range(self.T)]
        self.inj_bound = [[None] * V for _ in range(self.T)]

    # -- helpers ---------------------------------------------------------------------------
    def _deliver(self, pkt: int, idx: int, t: int) -> None:
        assert self.next_delivered[pkt] == idx, "flits of a packet delivered out of order"
        self.next_delivered[pkt] = idx + 1
        if idx == 0:
            self.head_delivered[pkt] = t
        else:
            self.flit_gap[pkt] += t - self.head_delivered[pkt]
        if idx == self.len[pkt] - 1:
            self.tail_delivered[pkt] = t
            self.n_done += 1

    def _free_input_slot(self, r: int, p: int, v: int, t: int) -> None:
        """A flit left input lane (r, p, v): credit upstream (stage 5); local port: seen at once."""
        if p >= self.FL:
            return  # the node reads the lane's occupancy directly
        up, up_port = self.nbr[r][p], self.nip[r][p]
        self.credit_events[t + self.Cd + self.wire[up][up_port]].append((up, up_port, v))
        self.credits_on_way[up][up_port][v] += 1

    def _send_on_link(self, r: int, p: int, v: int, pkt: int, idx: int, t: int, arrive: int) -> None:
        """Flit leaves router r through network port p in VC v, written downstream at ``arrive``."""
        assert self.credits[r][p][v] > 0
        self.credits[r][p][v] -= 1
        self.link_free[r][p] = t + self.Tl
        down, down_port = self.nbr[r][p], self.nip[r][p]
        self.flit_events[arrive + self.wire[r][p]].append((down, down_port, v, pkt, idx, r, p))
        self.flits_on_link[r][p][v] += 1
        # CHOICE (iq): the traversal is counted at the grant, while the flit is still in the
        # crossbar; it matters only for runs cut by max_cycles.
        self.flit_hops += 1
        if idx == 0:
            self.hops[pkt] += 1

    def _release_connection(self, r: int, p: int, v: int) -> None:
        c = self.conn[r][p][v]
        self.owner[r][c.port][c.vc] = None
        self.conn[r][p][v] = None
        self.route_done[r][p][v] = None  # the next head must be routed anew

    # -- stage 1: arrivals -----------------------------------------------------------------
    def _arrivals(self, t: int) -> None:
        for (r, p, v, pkt, idx, r_up, p_up) in self.flit_events.pop(t, ()):
            self.inp[r][p][v].append((pkt, idx))
            self.flits_on_link[r_up][p_up][v] -= 1
            assert len(self.inp[r][p][v]) <= self.B, "input lane overflow"
        for (r, p, v) in self.credit_events.pop(t, ()):
            self.credits[r][p][v] += 1
            self.credits_on_way[r][p][v] -= 1
        # iq: local deliveries scheduled at grant + T_crossbar (stage 5, iq).  CHOICE: they are
        # recorded in the cycle they complete, so a run cut by max_cycles misses the last ones.
        for (pkt, idx) in self.deliver_events.pop(t, ()):
            self._deliver(pkt, idx, t)

    # -- stage 2: release ------------------------------------------------------------------
    def _release(self, t: int) -> None:
        while self.next_release < self.n_pkts and self.rel[self.next_release] == t:
            p = self.next_release
            self.next_release += 1
            if self.source_queue and len(self.srcq[self.src[p]]) >= self.source_queue:
                self.injected[p] = -2  # dropped: the queue is full; it counts as done
                self.n_done += 1
                continue
            q = self.srcq[self.src[p]]
            if self.pri is None:
                q.append(p)
                continue
            # priority order, first in first out within a priority: behind the last queued
            # packet whose priority is at least its own
            at = 0
            for i, other in enumerate(q):
                if self.pri[other] >= self.pri[p]:
                    at = i + 1
            q.insert(at, p)

    def _first_best(self, candidates):
        """Of candidates in round-robin order ``(key, packet)``, the first with the highest
        priority (one class: the first)."""
        if not candidates:
            return None
        if self.pri is None:
            return candidates[0][0]
        top = max(self.pri[pkt] for _, pkt in candidates)
        return next(key for key, pkt in candidates if self.pri[pkt] == top)

    # -- stage 3: ejection (lanes) ---------------------------------------------------------
    def _eject(self, t: int) -> None:
        V = self.V
        for term in range(self.T):  # each terminal from its own local port
            r, LP = term // self.C, self.FL + term % self.C
            for _ in range(self.E):
                ready = [(v, q[0][0]) for v in ((self.rr_eject[term] + k) % V for k in range(V))
                         if (q := self.outq[r][LP][v]) and q[0][2] <= t]  # front flit ready
                served = self._first_best(ready)
                if served is None:
                    break
                # (With E > 1 the pointer may come back to the lane just served: one lane can
                # give several flits in a cycle if they are all ready.)
                pkt, idx, _ = self.outq[r][LP][served].popleft()
                self._deliver(pkt, idx, t)
                self.rr_eject[term] = (served + 1) % V

    # -- stage 4: link traversal (lanes) ---------------------------------------------------
    def _links(self, t: int) -> None:
        V = self.V
        for r in range(self.N):
            for p in self.net_ports[r]:
                if self.link_free[r][p] > t:
                    continue
                ready = [(v, q[0][0]) for v in ((self.rr_link[r][p] + k) % V for k in range(V))
                         if (q := self.outq[r][p][v]) and q[0][2] <= t and self.credits[r][p][v] > 0]
                v = self._first_best(ready)
                if v is not None:
                    pkt, idx, _ = self.outq[r][p][v].popleft()
                    self._send_on_link(r, p, v, pkt, idx, t, t + self.Tl)
                    self.rr_link[r][p] = (v + 1) % V

    # -- stage 5: crossbar (lanes) ---------------------------------------------------------
    def _crossbar(self, t: int) -> None:
        for r in range(self.N):
            for p in range(self.P):
                for v in range(self.V):
                    c = self.conn[r][p][v]
                    lane = self.inp[r][p][v]
                    if c is None or not lane:
                        continue
                    if t < c.usable:                 # (a) connection usable
                        continue
                    # (b) CHOICE: the crossbar path belongs to the input lane and its timer
                    # survives the end of a connection.
                    if t < self.xbar_next[r][p][v]:
                        continue
                    oq = self.outq[r][c.port][c.vc]
                    if len(oq) >= self.O:            # (c) output lane has a free slot
                        continue
                    pkt, idx = lane.popleft()
                    oq.append((pkt, idx, t + self.Tc))  # ready from t + T_crossbar
                    self.xbar_next[r][p][v] = t + self.Tc
                    self._free_input_slot(r, p, v, t)
                    if idx == self.len[pkt] - 1:     # tail: release the connection
                        self._release_connection(r, p, v)

    # -- stage 5 (iq): switch allocation and traversal -------------------------------------
    def _switch_iq(self, t: int) -> None:
        # CHOICE: the iq router has no crossbar-path rate limit (stage 5b is a lanes rule):
        # T_crossbar only delays the flit, so a connection may move a flit every cycle.
        V, P, FL = self.V, self.P, self.FL
        for r in range(self.N):
            # (i) each input port picks one lane, round-robin from its pointer.
            pick = {}  # input port -> VC
            for p in range(P):
                eligible = []
                for k in range(V):
                    v = (self.rr_in[r][p] + k) % V
                    c = self.conn[r][p][v]
                    if c is None or not self.inp[r][p][v] or t < c.usable:
                        continue
                    if c.port >= FL or (self.credits[r][c.port][c.vc] > 0
                                        and self.link_free[r][c.port] <= t):
                        eligible.append((v, self.inp[r][p][v][0][0]))
                v = self._first_best(eligible)
                if v is not None:
                    pick[p] = v
            # (ii) each output port grants round-robin over the P input ports.
            requests = defaultdict(set)  # output port -> requesting input ports
            for p, v in pick.items():
                requests[self.conn[r][p][v].port].add(p)
            for q in sorted(requests):
                limit = self.E if q >= FL else 1
                for _ in range(limit):  # one grant at a time, round-robin from the pointer
                    start = self.rr_out[r][q]
                    order = [(start + k) % P for k in range(P)]
                    p = self._first_best([(p, self.inp[r][p][pick[p]][0][0]) for p in order if p in requests[q]])
                    if p is None:
                        break
                    requests[q].discard(p)
                    v = pick[p]
                    c = self.conn[r][p][v]
                    pkt, idx = self.inp[r][p][v].popleft()
                    self._free_input_slot(r, p, v, t)
                    if q >= FL:
                        self.deliver_events[t + self.Tc].append((pkt, idx))
                    else:
                        # Link busy until t + T_link, written downstream at t + T_crossbar + T_link.
                        self._send_on_link(r, q, c.vc, pkt, idx, t, t + self.Tc + self.Tl)
                    if idx == self.len[pkt] - 1:
                        self._release_connection(r, p, v)
                    # CHOICE (E > 1): the output pointer ends past the last input port granted.
                    self.rr_out[r][q] = (p + 1) % P
                    self.rr_in[r][p] = (v + 1) % V

    # -- stage 7: routing and output-VC allocation -----------------------------------------
    def _waiting(self, r: int, p: int, v: int) -> bool:
        lane = self.inp[r][p][v]
        return bool(lane) and lane[0][1] == 0 and self.conn[r][p][v] is None

    def _free_space(self, r: int, port: int, v: int) -> int:
        if port >= self.FL:
            return _UNLIMITED
        if self.lanes:
            return self.credits[r][port][v] + self.O - len(self.outq[r][port][v])
        return self.credits[r][port][v]

    def _is_free(self, r: int, port: int, v: int, pkt: int) -> bool:
        if self.owner[r][port][v] is not None:
            return False
        if port < self.FL and v in self.atomic_vcs:
            # atomic reallocation: the previous packet has left the downstream buffer entirely
            # (its tail credit is back) and, in lanes, the output lane is empty
            if self.credits[r][port][v] != self.B or (self.lanes and self.outq[r][port][v]):
                return False
        if self.lanes and len(self.outq[r][port][v]) >= self.O:
            return False
        if self.vct and port < self.FL:
            # CHOICE: the local port always "fits" (it has no credits).
            room = self.credits[r][port][v]
            if self.lanes:
                room -= len(self.outq[r][port][v])
            if room < self.len[pkt]:
                return False
        return True

    def _rows(self, r: int, pkt: int, n_vcs: int) -> list:
        """The routing's rows for ``pkt``'s header at router ``r`` (``n_vcs``: the VCs it routes on)."""
        src, dst, C = self.src[pkt], self.dst[pkt], self.C
        if dst // C + self.shift == r:  # at the destination terminal's router: its own local port, any VC
            return [(self.FL + dst % C, 0, n_vcs - 1, 0)]
        if isinstance(self.routing, UpDownRouting):  # the choice reads terminals and creation
            return self.routing.rows(r, src, dst, C, self.rel[pkt], self.hops[pkt])
        if isinstance(self.routing, TableRouting):  # the routings see routers
            return self.routing.rows(r, src // C, dst // C + self.shift, self.hops[pkt])
        if isinstance(self.routing, ValiantRouting):
            return self.routing.rows(r, src // C, dst // C, self.hops[pkt], self.mid[pkt])
        return self.routing.rows(r, src // C, dst // C)

    def _attempt(self, r: int, p: int, v: int, t: int) -> bool:
        pkt = self.inp[r][p][v][0][0]
        rows = self._rows(r, pkt, self.V)
        # CHOICE: "at the source router ... for the first hop" = the lane is a local input lane.
        first_hop = p >= self.FL and self.inject_vcs is not None
        for prio in sorted({row[3] for row in rows}):
            best = None  # (-free space, port, vc)
            for (port, lo, hi, pr) in rows:
                if pr != prio:
                    continue
                for ov in range(lo, hi + 1):
                    if first_hop and ov not in self.inject_vcs:
                        continue
                    if not self._is_free(r, port, ov, pkt):
                        continue
                    key = (-self._free_space(r, port, ov), port, ov)
                    if best is None or key < best:
                        best = key
            if best is not None:
                _, port, ov = best
                self.conn[r][p][v] = _Connection(port, ov, t + 1)
                self.owner[r][port][ov] = (p, v)
                return True
        return False

    def _route(self, t: int) -> None:
        PV, V = self.P * self.V, self.V
        for r in range(self.N):
            # 7a: free routing units compute the routes of new headers, round-robin
            units = self.unit_free[r]
            free = [u for u in range(self.H) if units[u] <= t] if self.H else None
            start = self.rr_route[r]
            for k in range(PV):
                if free is not None and not free:
                    break
                i = (start + k) % PV
                p, v = divmod(i, V)
                if not self._waiting(r, p, v) or self.route_done[r][p][v] is not None:
                    continue
                if free is not None:
                    units[free.pop(0)] = t + self.Tr
                self.route_done[r][p][v] = t + self.Tr - 1
                self.rr_route[r] = (i + 1) % PV
            # 7b: routed headers request output VCs, oldest packet first (or round-robin)
            first = self.rr_va[r] if self.vc_alloc == "rr" else 0
            requests = []
            for k in range(PV):
                i = (first + k) % PV
                p, v = divmod(i, V)
                done = self.route_done[r][p][v]
                if self._waiting(r, p, v) and done is not None and done <= t:
                    requests.append(i)
            if self.vc_alloc == "age":
                def age(i):
                    pkt = self.inp[r][i // V][i % V][0][0]
                    return (self.injected[pkt], pkt)  # longest in the network first
                requests.sort(key=age)
            def injected(i):
                return self.injected[self.inp[r][i // V][i % V][0][0]]
            starving = [i for i in requests if injected(i) < t - self.guard]
            starving.sort(key=injected)  # stable: ties keep their order
            requests = starving + [i for i in requests if i not in starving]
            if self.pri is not None:  # strict class priority over the order above (stable)
                requests.sort(key=lambda i: -self.pri[self.inp[r][i // V][i % V][0][0]])
            for i in requests:
                p, v = divmod(i, V)
                if self._attempt(r, p, v, t) and self.vc_alloc == "rr":
                    self.rr_va[r] = (i + 1) % PV

    # -- stage 8: injection ----------------------------------------------------------------
    def _inject(self, t: int) -> None:
        V, B = self.V, self.B
        for term in range(self.T):  # each terminal into its own local port
            r, LP = term // self.C, self.FL + term % self.C
            bound = self.inj_bound[term]
            if self.srcq[term]:
                # CHOICE: "free" = not receiving another packet; the lane may still hold flits of
                # an earlier packet, and all V lanes qualify (inject_vcs acts in stage 7 only).
                for v in range(V):  # lowest lane not receiving another packet from the node
                    if bound[v] is None:
                        bound[v] = [self.srcq[term].popleft(), 0]
                        break
            # CHOICE: round-robin over lanes that have a bound packet AND a free slot (with
            # classes: the highest priority among them).
            ready = [(v, bound[v][0]) for v in ((self.rr_inject[term] + k) % V for k in range(V))
                     if bound[v] is not None and len(self.inp[r][LP][v]) < B]
            v = self._first_best(ready)
            if v is not None:
                b = bound[v]
                pkt, idx = b
                self.inp[r][LP][v].append((pkt, idx))
                if idx == 0:
                    self.injected[pkt] = t
                    self.hops[pkt] = 0
                else:
                    self.inj_gap[pkt] += t - self.injected[pkt]
                b[1] += 1
                if b[1] == self.len[pkt]:
                    bound[v] = None
                self.rr_inject[term] = (v + 1) % V

    # -- invariants ------------------------------------------------------------------------
    def _check(self) -> None:
        B, O, V = self.B, self.O, self.V
        for r in range(self.N):
            for p in range(self.P):
                for v in range(V):
                    assert len(self.inp[r][p][v]) <= B
                    assert len(self.outq[r][p][v]) <= O
                    c = self.conn[r][p][v]
                    if c is not None:
                        assert self.owner[r][c.port][c.vc] == (p, v)
            for p in self.net_ports[r]:
                down, dp = self.nbr[r][p], self.nip[r][p]
                for v in range(V):
                    total = (self.credits[r][p][v] + self.flits_on_link[r][p][v]
                             + len(self.inp[down][dp][v]) + self.credits_on_way[r][p][v])
                    assert total == B, f"credits not conserved on ({r}, {p}, {v}): {total} != {B}"
                    assert self.credits[r][p][v] >= 0

    # -- one cycle ---------------------------------------------------------------------------
    def step(self, t: int) -> None:
        self._arrivals(t)        # stage 1
        self._release(t)         # stage 2
        if self.lanes:
            self._eject(t)       # stage 3
            self._links(t)       # stage 4
            self._crossbar(t)    # stage 5
        else:
            self._switch_iq(t)   # stage 5 (iq), replaces stages 3-5
        self._route(t)           # stage 7
        self._inject(t)          # stage 8
        if CHECK_INVARIANTS:
            self._check()

    def run(self, max_cycles: int) -> dict:
        t = 0
        # CHOICE: the run stops after the cycle in which the last tail is delivered (for iq that
        # is the grant cycle + T_crossbar), so cycles == max(tail_delivered) + 1.
        while t < max_cycles and self.n_done < self.n_pkts:
            self.step(t)
            t += 1
        as_arr = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
        # CHOICE: hops of a packet injected but not delivered = links its head crossed so far.
        hops = [h if self.injected[p] >= 0 else -1 for p, h in enumerate(self.hops)]
        return dict(
            injected=as_arr(self.injected),
            head_delivered=as_arr(self.head_delivered),
            tail_delivered=as_arr(self.tail_delivered),
            flit_gap=as_arr(self.flit_gap),
            inj_gap=as_arr(self.inj_gap),
            hops=as_arr(hops),
            cycles=int(t),
            flit_hops=int(self.flit_hops),
        )


def simulate_naive(topo, *, router="lanes", routing="dor", switching="wormhole", vcs=4, buf=8, out_buf=2,
                   t_link=1, t_routing=1, t_crossbar=1, credit_delay=1, headers_per_cycle=1, eject_rate=1,
                   inject_vcs=None, vc_realloc="auto", vc_alloc="age", table=None, source_queue=0, wire=None, up_port="random",
                   pkt_src, pkt_dst, pkt_len, pkt_release, max_cycles, pkt_priority=None, pkt_mid=None) -> dict:
    """Run the reference flit engine until every packet is delivered or ``max_cycles``.

    Parameters
    ----------
    topo : netsim_fast.topologies.Topology
        A grid topology (torus, mesh, hypercube).
    router, routing, switching : str
        ``lanes``/``iq``; ``dor``/``duato``/``dor-nodateline``; ``wormhole``/``vct``.
    vcs, buf, out_buf : int
        V, B, O of docs/flit-engine.md.
    t_link, t_routing, t_crossbar, credit_delay : int
        Delays in cycles (all >= 1).
    headers_per_cycle : int
        Routing units per router (H); 0 = unlimited.
    eject_rate : int
        E, flits per cycle a node takes from its router.
    inject_vcs : list of int or None
        VCs allowed for the first hop (None = all).
    wire : array_like of int, shape (n_routers, n_ports), or None
        Cycles the link leaving each port takes beyond ``t_link`` (flits) and beyond
        ``credit_delay`` (credits coming back over it); None: 0 everywhere.
    source_queue : int
        Packets a node's source queue holds (stage 2); a packet released into a full queue is
        dropped, ``injected`` -2. 0 = unbounded.
    pkt_src, pkt_dst, pkt_len, pkt_release : array_like of int, shape (n_packets,)
        Packets in increasing release order (ties by id).
    max_cycles : int
        Hard stop.
    pkt_priority : array_like of int or None
        Each packet's class priority (higher first at every arbiter); None: one class.
    pkt_mid : array_like of int or None
        ``valiant`` (flattened butterfly, HyperX): each packet's intermediate router.

    Returns
    -------
    dict
        ``injected``, ``head_delivered``, ``tail_delivered``, ``hops``: int64[n_packets], -1 where
        it did not happen; ``cycles`` (cycles simulated) and ``flit_hops`` (link traversals): int.
    """
    sim = NaiveFlitSim(topo, router, routing, switching, int(vcs), int(buf), int(out_buf),
                       int(t_link), int(t_routing), int(t_crossbar), int(credit_delay),
                       int(headers_per_cycle), int(eject_rate), inject_vcs,
                       np.asarray(pkt_src), np.asarray(pkt_dst), np.asarray(pkt_len),
                       np.asarray(pkt_release), vc_realloc, vc_alloc, table, source_queue=int(source_queue),
                       wire=wire, priority=pkt_priority, up_port=up_port, mid=pkt_mid)
    return sim.run(int(max_cycles))
