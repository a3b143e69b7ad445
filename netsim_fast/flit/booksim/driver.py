"""What the flit engine's run loop (flit/run.py) needs to drive the booksim router.

``BooksimDriver`` holds the router's own state (flit/booksim/state.py) beside the flit engine's
``FlitState`` and offers the three things the run loop asks of a router: ``advance`` (the
kernel, same call as flit/kernel.advance), ``renumber`` (packet ids went down after a
retirement: the flits held in the router's own rings shift with the rest; the input-VC
buffers are the flit engine's, which flit/retire.py shifts itself) and ``watchdog`` (the
deadlock watchdog with this router's wait-for rules).

The knobs arrive as a plain object with the ``Config`` field names (``routing_delay``,
``st_prepare_delay``, ...): the engine never imports the config.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.flit.booksim import state as bs
from netsim_fast.flit.deadlock import LIVE, Watchdog, WaitForGraph


def booksim_params(cfg, topo) -> bs.BkParams:
    from netsim_fast.flit.booksim.allocators.dispatch import ARBITERS, KINDS
    from netsim_fast.flit.booksim.allocators.names import parse_allocator

    va, va_iters, va_arb = parse_allocator(cfg.vc_allocator)
    from netsim_fast.flit.booksim.routefns import ANYNET_ROUTINGS, CMESH_ROUTINGS, ROUTINGS

    sa, sa_iters, sa_arb = parse_allocator(cfg.sw_allocator)
    torus = bool(topo.arrays.wrap.size and topo.arrays.wrap[0])
    link = 2 if torus and cfg.use_noc_latency else 1
    longest = int(channel_latencies(cfg, topo).max()) if topo.kind in ("dragonfly", "flatfly", "cmesh", "edgelist") \
        else link
    x = cfg.st_prepare_delay + cfg.st_final_delay
    return bs.BkParams(routing_delay=cfg.routing_delay, va_delay=cfg.vc_alloc_delay, sa_delay=cfg.sw_alloc_delay,
                       xbar_delay=x, credit_delay=cfg.credit_delay, link=link,
                       torus=int(torus), wait_tail=int(cfg.wait_for_tail_credit),
                       busy_full=int(cfg.vc_busy_when_full), ring=bs.ring_size(longest, cfg.credit_delay),
                       xb_cap=topo.n_ports * max(cfg.input_speedup, cfg.output_speedup) * (2 * x + 2),
                       of_cap=cfg.vcs * cfg.buf + 4 * x + 4,
                       va_kind=KINDS[va], va_iters=va_iters, va_arb=ARBITERS[va_arb],
                       sa_kind=KINDS[sa], sa_iters=sa_iters, sa_arb=ARBITERS[sa_arb],
                       prio_empty=int(cfg.vc_prioritize_empty), hold=int(cfg.hold_switch_for_packet), noq=int(cfg.noq),
                       internal_speedup=float(cfg.internal_speedup), in_speedup=cfg.input_speedup, out_speedup=cfg.output_speedup, out_buf=cfg.output_buffer_size,
                       spec=int(cfg.speculative),
                       priority=bs.PRI_CLASS if cfg.priority == "class" and cfg.classes > 1 else bs.PRIORITIES[cfg.priority],
                       routing={"cmesh": CMESH_ROUTINGS, "edgelist": ANYNET_ROUTINGS}.get(topo.kind, ROUTINGS).get(
                           cfg.routing, 0),
                       **topology_shape(topo))


def topology_shape(topo) -> dict:
    """The two integers BookSim2's dragonfly, flatfly, fattree and fly routing functions read: a
    dragonfly's routers per group and global links per router, a flatfly's, fattree's or fly's k and n."""
    p = topo.params
    if topo.kind == "dragonfly":
        return {"shape_a": int(p["group_routers"]), "shape_b": int(p["global_links"])}
    if topo.kind in ("flatfly", "fattree", "fly"):
        return {"shape_a": int(p["k"]), "shape_b": int(p["n"])}
    return {"shape_a": 0, "shape_b": 0}


def dragonfly_latencies(cfg, topo) -> tuple[int, int]:
    """(local, global) channel latencies of a dragonfly: ``--local-latency``, ``--global-latency``
    when given, else what BookSim2's dragonflynew compiles in (``DRAGON_LATENCY``, dragonfly.cpp:
    10 cycles on a channel inside a group, 100 between groups, credits alike; BookSim2 has no key
    for them); ``--no-use-noc-latency`` makes the defaults 1, as on a mesh."""
    local, far = (10, 100) if cfg.use_noc_latency else (1, 1)
    return (local if cfg.local_latency is None else cfg.local_latency,
            far if cfg.global_latency is None else cfg.global_latency)


def flatfly_side(conc: int) -> int:
    """Terminals along each side of a flattened-butterfly router's square tile (BookSim2's
    ``xr = yr``, with ``c = xr * yr``)."""
    side = int(round(conc ** 0.5))
    return side if side * side == conc else 0


def channel_latencies(cfg, topo) -> np.ndarray:
    """int64[N, P]: the latency of the channel leaving each router port (and of its credits),
    for the topologies whose BookSim2 network sets them one by one:

    - dragonflynew: ``dragonfly_latencies`` on the A - 1 local ports, then the H global ports;
    - cmesh (cmesh.cpp, with use_noc_latency): one cycle per terminal pitch, 2 on a mesh channel
      and k on an express channel (topologies/cmesh.py);
    - an anynet file (anynet.cpp): each channel's own latency, in each direction (``link_latency``:
      topologies/anynet.py; 1 on a plain edge list). use_noc_latency does not touch them, as in
      BookSim2, whose anynet sets every latency from the file;
    - flatfly (flatfly_onchip.cpp, with use_noc_latency): routers on a k x k floor plan (n = 2),
      each a square tile of ``xr`` x ``xr`` terminals, so a channel is as long as the tiles it
      spans: ``xr * (|dx| + |dy|)`` cycles. Its terminal channels stay at 1 cycle, as BookSim2's
      are for ``xr <= 3`` (config/booksim_router.py refuses larger tiles).
    """
    lat = np.ones((topo.n_nodes, topo.n_ports), np.int64)
    if topo.link_latency is not None:
        lat[:] = topo.link_latency
    elif topo.kind == "dragonfly":
        from netsim_fast.flit.wires import dragonfly_latency_table

        table = dragonfly_latency_table(topo, *dragonfly_latencies(cfg, topo))
        links = table > 0  # the terminals' channels keep 1 cycle
        lat[links] = table[links]
    elif topo.kind == "cmesh" and cfg.use_noc_latency:
        from netsim_fast.topologies.cmesh import cmesh_wire_lengths

        lengths = cmesh_wire_lengths(topo)
        lat[lengths > 0] = lengths[lengths > 0]
    elif topo.kind == "flatfly" and cfg.use_noc_latency:
        k, side = int(topo.params["k"]), flatfly_side(cfg.concentration)
        nbr = topo.arrays.nbr
        for port in range(nbr.shape[1]):
            other = nbr[:, port]
            used = other >= 0
            mine = np.arange(topo.n_nodes)[used]
            span = np.abs(mine % k - other[used] % k) + np.abs(mine // k - other[used] // k)
            lat[used, port] = side * span
    return lat


class BooksimDriver:
    def __init__(self, cfg, topo, params, state):
        """``state``: the flit engine's state the router runs on (its constant wiring is copied)."""
        self.bp = self.kernel_bp = booksim_params(cfg, topo)
        layout = table = None
        if topo.kind == "edgelist":  # BookSim2's anynet: its terminals where the file puts them, min_anynet's table
            from netsim_fast.flit.booksim.routefns import R_ANYNET_MIN
            from netsim_fast.routing.anynet_min import min_table
            from netsim_fast.topologies.anynet import terminal_ports

            ports = terminal_ports(topo)
            routers = topo.terminal_router if topo.terminal_router is not None else \
                np.arange(topo.n_terminals) // topo.concentration
            layout = bs.terminal_layout(topo.n_nodes, topo.n_ports, topo.concentration, routers, ports)
            table = min_table(topo, ports) if self.bp.routing == R_ANYNET_MIN else None
        lat = channel_latencies(cfg, topo) if topo.kind in ("dragonfly", "flatfly", "cmesh", "edgelist") else None
        self.b = bs.new_bk_state(params, self.bp, cfg.seed, state.outl.down, state.inl.up, layout, table, lat)

    def advance(self, state, params, topo_arrays, t_end) -> int:
        from netsim_fast.flit.booksim.kernel import advance

        return advance(state, self.b, params, self.kernel_bp, topo_arrays, t_end)

    def specialise(self) -> None:
        """Kernel calls take the router's scalars as constants too (flit/specialise.py)."""
        from netsim_fast.flit.specialise import BOOKSIM_FIELDS, fixed

        self.kernel_bp = fixed(self.bp, BOOKSIM_FIELDS)

    def renumber(self, shift: int) -> None:
        from netsim_fast.flit.retire import _shift_flits

        for flits in (self.b.ev_flit[:, :, 1], self.b.ev_del, self.b.xb[:, :, 0], self.b.of[:, :, 0]):
            _shift_flits(flits, shift)

    def describe(self, err: int, state) -> str | None:
        """The sentence for this router's own error codes; None for the flit engine's."""
        if err != bs.ERR_ABORT:
            return None
        from netsim_fast.flit import state as fs

        return (f"BookSim2 would stop on an assertion here: at cycle {int(state.cnt[fs.C_ERR_CYCLE])} router "
                f"{int(state.cnt[fs.C_ERR_LANE])} has a VC waiting behind a multi-cycle VC or switch allocation "
                "batch (vc_alloc_delay or sw_alloc_delay >= 2 only work while no request waits behind a batch, "
                "docs/booksim-router.md 5.4); use delays of 1 or a lower load")

    def watchdog(self, params) -> Watchdog:
        return BooksimWatchdog(params, self.b, self.bp)


class BooksimWatchdog(Watchdog):
    """The flit engine's watchdog; only the wait-for rules are this router's (``graph``)."""

    def __init__(self, params, b, bp):
        super().__init__(params)
        self.b, self.bp = b, bp

    def graph(self, state, topo, t: int) -> WaitForGraph:
        """Who waits for whom among the input VCs holding flits (docs/booksim-router.md 5).

        A head waiting for an output VC waits for the holders of every VC of its route's range
        and of its second element if any (an OR: it moves when any one is free; an owned VC's
        holder is the input VC that owns it, or upstream of it while that one is empty); an active VC whose output VC is full waits for the downstream VC, unless a credit
        is on its way. Routing, crossbar, output FIFOs, links and ejection always move."""
        b, p = self.b, self.params
        inl, ivc, ovc = state.inl, b.ivc, b.ovc
        n_lanes = inl.shape[0]
        V, P = p.n_vcs, p.n_ports
        returning = np.zeros(n_lanes, np.int64)
        for slot in range(b.ev_cred_n.shape[0]):
            np.add.at(returning, b.ev_cred[slot, : b.ev_cred_n[slot]], 1)
        for c in np.nonzero(b.cq_len)[0]:  # credit messages still queued at their input port
            for j in range(int(b.cq_len[c])):
                msg = int(b.cq[(b.cq_head[c] + j) % b.cq.shape[0], c])
                for vc in range(V):
                    if msg >> vc & 1 and inl[c * V + vc].up >= 0:
                        returning[inl[c * V + vc].up] += 1
        graph = WaitForGraph(n_lanes)

        def holder(lane):
            seen = set()
            while inl[lane].len == 0:
                up = int(inl[lane].up)
                if up < 0 or lane in seen or ovc[up].owner < 0:
                    return LIVE
                seen.add(lane)
                lane = int(ovc[up].owner)
            return lane

        for lane in np.nonzero(inl["len"] > 0)[0]:
            lane = int(lane)
            node = lane // (P * V)
            if ivc[lane].state == bs.VC_VA:
                alts = []
                for w in range(int(ivc[lane].lo), int(ivc[lane].hi) + 1):
                    o = (node * P + int(ivc[lane].port)) * V + w
                    alts.append(holder(int(ovc[o].owner)) if ovc[o].owner >= 0 else LIVE)
                if ivc[lane].vc2 >= 0:  # a second route element (torus min_adapt's escape VC): one more candidate
                    o = (node * P + int(ivc[lane].port2)) * V + int(ivc[lane].vc2)
                    alts.append(holder(int(ovc[o].owner)) if ovc[o].owner >= 0 else LIVE)
                graph.waits[lane] = alts or [LIVE]
            elif ivc[lane].state == bs.VC_ACTIVE and ivc[lane].port < P - getattr(p, "conc", 1):  # not to a terminal
                o = int(inl[lane].out)
                if ovc[o].occ >= p.buf and returning[o] == 0:
                    graph.waits[lane] = [int(state.outl[o].down)]
        return graph
