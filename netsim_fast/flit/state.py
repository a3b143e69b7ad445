"""State of the flit engine: a NamedTuple of numpy arrays, most of them record arrays, and its
allocation.

Lane index: ``lane = (node * P + port) * V + vc`` for input lanes and, with the same formula,
for the output side (output lanes of the ``lanes`` router, output VCs of ``iq``). Port index:
``node * P + port``. ``NONE = -1`` marks absence everywhere.

Why records: a router stage touches several fields of the same lane, port or packet at once.
As one record per lane (one cache line) they cost one base pointer and one line, where a
struct of separate arrays cost a base pointer per field, more than the CPU has registers for:
the kernel spent its time reloading array descriptors (bench/flit_speed.py; STYLE.md's
pynndescent "right dtype per field" lesson, applied per owner). The arrays start on a cache
line (``netsim_fast._arrays``), so that a 64-byte lane record is one line, not two.

A flit in a buffer is one int64: ``packet << 32 | code`` with ``code = seq << 1 | is_tail``.

Record arrays are ``np.recarray`` views: the kernels' ``lanes[i].len`` also runs under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np

from netsim_fast import _arrays as aligned

NONE = -1

ROUTER_LANES, ROUTER_IQ, ROUTER_BOOKSIM = 0, 1, 2  # booksim: BookSim2's IQ router, its own kernel (flit/booksim/)
ROUTERS = {"lanes": ROUTER_LANES, "iq": ROUTER_IQ, "booksim": ROUTER_BOOKSIM}
SWITCHING = {"wormhole": 0, "vct": 1}

STOP_AT_END = 0      # run exactly to the requested cycle (--cycles)
STOP_WINDOW = 1      # open loop: stop once the measurement window's packets are delivered
STOP_ALL = 2         # finite workload: stop once every packet is delivered

SYNC_NONE = 0        # phases ignored: nodes proceed freely (paper 004's experiments)
SYNC_LOCAL = 1       # a node injects phase f+1 once it has received all its phase-f packets
SYNC_GLOBAL = 2      # every node injects phase f+1 once all phase-f packets are delivered
SYNCS = {"none": SYNC_NONE, "local": SYNC_LOCAL, "global": SYNC_GLOBAL}

VC_ALLOC_AGE = 0     # oldest packet first (bounded waiting: no starvation behind local traffic)
VC_ALLOC_RR = 1      # round-robin over the router's lanes from a pointer
VC_ALLOCS = {"age": VC_ALLOC_AGE, "rr": VC_ALLOC_RR}

# error codes returned by the kernel
ERR_OK = 0
ERR_DEADLOCK = 1
ERR_CONSERVATION = 2
ERR_CREDIT = 3
ERR_OVERFLOW = 4
ERR_ORDER = 5
ERR_NO_ROUTE = 6
ERR_IDLE = 8         # debug checks: a router with flits or packets to inject is not marked active
ERR_CAPACITY = 7     # closed loop: no free packet record for a request or reply (flit/closed_loop.py)
ERR_COUNT = 9        # debug checks: a router's counts (waiting, unrouted headers; held_vcs) are not its lanes'

# indices into FlitState.cnt
C_CYCLE = 0          # next cycle to simulate
C_NPKT = 1           # packets present in the packet arrays
C_NEXT_RELEASE = 2   # first packet id not yet released
C_DELIVERED = 3      # packets whose tail was delivered
C_FLITS_IN = 4       # flits written into local input lanes
C_FLITS_OUT = 5      # flits delivered to nodes
C_FLIT_HOPS = 6      # router-to-router link traversals
C_WIN_OPEN = 7       # packets created in the measurement window, not yet delivered
C_DONE = 8           # 1 when the stop rule was met
C_QUEUED = 9         # packets released whose tail is not yet injected
C_ERR_CYCLE = 10     # context of an error: cycle, lane, packet
C_ERR_LANE = 11
C_ERR_PKT = 12
C_LAST_DELIVERY = 13  # cycle of the last tail delivery
C_WIN_FLITS_OUT = 14  # flits delivered during the measurement window
C_GLOBAL_PHASE = 15   # phase every node may inject under --sync global
C_MAX_WAIT = 16       # longest a lane's front has waited, as the watchdog scans saw it
C_DROPPED = 17        # packets dropped at release because their source queue was full (--source-queue)
C_DROPPED_FLITS = 18  # ... their flits
C_WIN_DROPPED_FLITS = 19  # ... flits of those created in the measurement window
C_NCAND = 20          # closed loop: request candidates present in FlitState.cand
C_NEXT_CAND = 21      # ... first candidate not yet drawn (flit/closed_loop.py)
C_NPEND = 22          # ... requests delivered whose reply is not yet created (FlitState.pend)
C_SKIPPED = 23        # ... candidates not issued: their terminal had --outstanding requests out
C_SKIPPED_FLITS = 24  # ... their flits, request and reply
C_WIN_SKIPPED_FLITS = 25  # ... of those drawn in the measurement window
N_COUNTERS = 26

DROPPED = -2          # PACKET.injected of a packet dropped at its full source queue

i4, i8 = np.int32, np.int64

IN_LANE = np.dtype([
    ("head", i4),      # ring position of the front flit
    ("len", i4),       # flits held
    ("out", i4),       # output lane/VC this lane is connected to, NONE if not
    ("conn_pos", i4),  # position in the router's connection list, NONE if not connected
    ("node", i4),      # router of the lane (constant)
    ("up", i4),        # upstream output lane feeding it, NONE for the local port (constant)
    ("ready", i8),     # cycle from which the connection may move a flit
    ("last", i8),      # last cycle the front advanced (watchdog)
    ("route_done", i8),  # cycle the front header's route is known (it may then request an
                         # output VC), NONE while unrouted
    ("age", i8),       # injection cycle of the front header's packet (--vc-alloc age), once routed
    ("cand", i8),      # bit mask of the front header's candidate output ports (port_bit), once routed
], align=True)

OUT_LANE = np.dtype([
    ("owner", i4),     # input lane holding this output lane/VC, NONE if free
    ("credits", i4),   # free slots of the downstream input lane
    ("head", i4),      # output-lane ring position (lanes router)
    ("len", i4),       # flits in the output lane (lanes router)
    ("down", i4),      # downstream input lane, NONE for the local port (constant)
    ("port", i4),      # port of this output lane/VC (constant)
    ("link", i4),      # index of that port in FlitState.port: node * P + port (constant)
    ("node", i4),      # router of this output lane/VC (constant)
    ("vc", i4),        # its VC (constant)
    ("wire", i4),      # cycles the link from this port takes beyond t_link, flits and the credits
                       # coming back alike (--local-latency, --global-latency; constant; fills the
                       # record's padding, so the record stays 48 bytes)
    ("last", i8),      # last cycle the front advanced (watchdog)
], align=True)

OL_SLOT = np.dtype([("flit", i8), ("ready", i8)], align=True)

PORT = np.dtype([
    ("link_free", i8),   # cycle from which the link may send
    ("link_flits", i8),  # flits sent over the link
    ("queued", i4),      # flits in the port's output lanes
    ("rr_link", i4),     # link arbiter pointer (lanes)
    ("rr_sa_in", i4),    # switch input arbiter pointer (iq)
    ("rr_sa_out", i4),   # switch output arbiter pointer (iq)
    ("held_vcs", i8),    # bit mask of the port's output lanes holding flits (lanes; flits.vc_bit)
], align=True)

NODE = np.dtype([
    ("flits", i4),     # flits buffered in the router (input + output lanes)
    ("waiting", i4),   # input lanes waiting for routing
    ("bound", i4),     # packets bound to local lanes by the node
    ("conn_n", i4),    # connections in the router's list
    ("rr_route", i4),  # routing pointer
    ("rr_eject", i4),  # ejection pointer (lanes)
    ("rr_inject", i4),  # injection pointer
    ("rr_va", i4),     # output-VC allocation pointer (--vc-alloc rr)
    ("unrouted", i4),  # waiting lanes whose front header has no route yet
    ("va_wake", i4),   # 1: a routed header becomes eligible for allocation (now or later)
    ("dirty", i8),     # port_bit mask of output ports where a VC may have become free since the
                       # last allocation pass; a waiting header is retried only if its ports are dirty
    ("phase", i4),     # highest phase the node may inject (--sync local)
    ("src_head", i4),  # first packet of the source queue, NONE if empty
    ("src_tail", i4),  # last packet of the source queue
    ("queued", i4),    # packets in the source queue (released, not yet bound to a local lane)
], align=True)

PACKET = np.dtype([
    ("src", i4), ("dst", i4), ("len", i4),
    ("hops", i4),      # links crossed by the head
    ("ejected", i4),   # flits delivered so far
    ("phase", i4),     # step of its algorithm (--sync)
    ("next", i4),      # next packet in the same source queue
    ("flit_gap", i4),  # sum over its delivered flits of (arrival - head arrival): flit latencies
    ("inj_gap", i4),   # sum over its sent flits of (send cycle - head send cycle): BookSim2's
                       # flit latency is each flit's arrival minus its own send cycle
    ("release", i8),   # creation cycle (non-decreasing with id)
    ("injected", i8),  # head written into the local input lane
    ("head_del", i8),  # head delivered
    ("tail_del", i8),  # tail delivered
], align=True)

INJ = np.dtype([("pkt", i4), ("sent", i4)])  # packet bound to a local input lane, flits written

# closed loop (flit/closed_loop.py): a request candidate, drawn by the open-loop process
CAND = np.dtype([("src", i4), ("dst", i4), ("len", i4), ("kind", i4), ("release", i8)], align=True)
KIND_ANY, KIND_READ, KIND_WRITE, KIND_READ_REPLY, KIND_WRITE_REPLY = 0, 1, 2, 3, 4  # BookSim2's flit types


class FlitParams(NamedTuple):
    """Scalar parameters of a run (int64 inside the kernel, but the ``uses_*`` switches)."""

    n_nodes: int
    n_ports: int
    n_vcs: int
    buf: int
    out_buf: int
    t_link: int
    t_routing: int
    t_crossbar: int
    credit_delay: int
    headers: int          # routing units per router; 0 = unlimited
    eject_rate: int
    router: int           # ROUTER_LANES or ROUTER_IQ
    routing: int          # routing code
    vct: int              # 1 = virtual cut-through
    inject_mask: int      # bit v set: VC v may be used for a packet's first hop
    atomic_mask: int      # bit v set: VC v is reallocated only once drained (--vc-realloc)
    vc_alloc: int         # VC_ALLOC_AGE or VC_ALLOC_RR: order in which routed headers get VCs
    class_vcs: int        # table routings: VCs per hop class
    deadlock_cycles: int
    debug: int
    window: int           # cycles per time-series window
    stop_mode: int
    win_start: int        # measurement window [win_start, win_end)
    win_end: int
    ring: int             # slots of the event rings (> longest delay)
    n_total: int          # packets of a finite workload (STOP_ALL)
    sync: int             # SYNC_NONE, SYNC_LOCAL or SYNC_GLOBAL
    src_queue: int = 0    # packets a source queue holds; a packet released into a full one is
                          # dropped (--source-queue); 0 = unbounded
    conc: int = 1         # terminals per router (--concentration): terminal t on router t // conc,
                          # at local port n_ports - conc + t % conc
    group_routers: int = 0  # dragonfly routers per group (valiant, ugal-l, ugal-g), else 0 (on the
                            # flattened butterfly and HyperX these route with intermediate routers)
    wire_max: int = 0     # largest OUT_LANE.wire; 0: every link takes t_link (the per-flit paths skip
                          # reading the wire then)
    classes: int = 1      # traffic classes (--classes); 1: no priorities anywhere, the arrays
                          # below are empty and every stage runs its one-class code
    up_choice: int = 0    # updown: how a router picks among its candidate ports (routing/updown.py)
    eject_shift: int = 0  # terminal t ejects at router t // conc + eject_shift (the butterfly's last
                          # stage; Topology.eject_shift), through the same local port it injects at
    closed_loop: int = 0  # 1: request-reply traffic (--closed-loop; flit/closed_loop.py)
    outstanding: int = 0  # closed loop: requests a terminal keeps outstanding at most; 0 = no limit
    rr_vcs: int = 0       # closed loop on lanes and iq: VCs of each message class (requests on
                          # 0 .. rr_vcs-1, replies on rr_vcs .. 2 rr_vcs-1); 0: not split
    eject_in_loop: int = 0  # 1: terminals eject in the router loop, else in a pass before it
                            # (flit/eject.py, ejects_in_router_loop)
    prefetch: int = 0     # 1: a network whose state outgrows the L2: prefetch records (flit/kernel.py, prefetches)
    # The parts of the kernel the run uses: True, or None for one it does not use, which the kernel
    # then does not compile (flit/features.py; build_params sets them, True compiles everything)
    uses_lanes: object = True
    uses_iq: object = True
    uses_debug: object = True
    uses_closed_loop: object = True
    uses_classes: object = True
    uses_sync: object = True
    uses_grid: object = True
    uses_tables: object = True
    uses_nonmin: object = True
    uses_eject_pass: object = True
    uses_prefetch: object = True


class FlitState(NamedTuple):
    inl: np.ndarray           # IN_LANE[L]
    in_buf: np.ndarray        # int64[L, B] input-lane ring buffers of flits
    outl: np.ndarray          # OUT_LANE[L]
    ol_buf: np.ndarray        # OL_SLOT[L, O] output-lane ring buffers (lanes router)
    port: np.ndarray          # PORT[N*P]
    node: np.ndarray          # NODE[T]: router fields at the router's index (< N), source fields
                              # (src_*, queued, bound, rr_inject, rr_eject, phase) at the terminal's
                              # (T = N * conc terminals; the same record when conc is 1)
    conn_list: np.ndarray     # int32[N, P*V] connected input lanes of each router (first conn_n)
    wait_bits: np.ndarray     # int64[N, ceil(P*V / 64)] bit li: the router's input lane li holds a waiting header
    route_free: np.ndarray    # int64[N, max(H,1)] cycle each routing unit is free again
    inj: np.ndarray           # INJ[T, V] packet bound to each local input lane of each terminal
    route_mask: np.ndarray    # uint8[N (dst), N (node), W] allowed ports of a table routing (else empty)
    ev_flit: np.ndarray       # int64[R, cap, 2] (lane, flit) reaching an input lane, by cycle % R
    ev_flit_n: np.ndarray     # int32[R]
    ev_credit: np.ndarray     # int32[R, cap2] output lane/VC receiving a credit
    ev_credit_n: np.ndarray   # int32[R]
    ev_eject: np.ndarray      # int64[R, N*E] flits reaching their node (iq), by cycle % R
    ev_eject_n: np.ndarray    # int32[R]
    pkt: np.ndarray           # PACKET[cap] (capacity grows between batches)
    recv_need: np.ndarray     # int32[N, F] packets each node receives in each phase (F phases)
    recv_got: np.ndarray      # int32[N, F] ... received so far
    phase_need: np.ndarray    # int64[F] packets of each phase
    phase_got: np.ndarray     # int64[F] ... delivered so far
    ts_injected: np.ndarray   # int64[W] flits injected per window
    ts_accepted: np.ndarray   # int64[W] flits delivered per window
    ts_link: np.ndarray       # int64[W] link traversals per window
    ts_in_flight: np.ndarray  # int64[W] flits in the network at the end of the window
    ts_queued: np.ndarray     # int64[W] packets in source queues at the end of the window
    cnt: np.ndarray           # int64[N_COUNTERS] counters, see C_*
    rows: np.ndarray          # int32[candidate_rows(n_ports), 4] routing scratch
    req_vc: np.ndarray        # int32[P] switch-allocation scratch (iq): requesting VC per input port
    req_out: np.ndarray       # int32[P] switch-allocation scratch (iq): requested output VC
    va_lane: np.ndarray       # int32[P*V] output-VC allocation scratch: requesting lanes in order
    scratch: np.ndarray       # int64[2, L] debug scratch: flits and credits in flight per lane
    mid: np.ndarray           # int32[cap] intermediate group of each packet (valiant, ugal-*; NONE:
                              # minimal; on Hamming graphs router + N * hops to it, routing/
                              # hamming_valiant.py), beside PACKET; empty for the other routings
    cls: np.ndarray           # int32[cap] traffic class of each packet, beside PACKET; empty for one class
    class_pri: np.ndarray     # int64[K] priority of each class (higher first; --class-priority)
    class_level: np.ndarray   # int32[K] its rank among the distinct priorities (0: highest)
    cls_out: np.ndarray       # int64[K] flits delivered of each class (BookSim2's per-class accepted rate)
    q_last: np.ndarray        # int32[T, K] last packet of each priority level in each source queue
                              # (NONE: none), where a newly released packet is linked in (flit/source.py);
                              # closed loop: two levels, replies then requests
    cand: np.ndarray          # CAND[capC] closed loop: request candidates by draw cycle (else empty)
    born: np.ndarray          # int64[cap] closed loop: creation cycle of the packet's request (a
                              # request's own), beside PACKET; empty otherwise
    kind: np.ndarray          # int32[cap] closed loop: KIND_* of each packet, beside PACKET; empty otherwise
    outstanding: np.ndarray   # int32[T] closed loop: requests of each terminal without their reply
    pend: np.ndarray          # int64[2*T*E+2, 5] closed loop: tails delivered, waiting for the next release
                              # stage (reply src, reply dst, reply kind, request arrival, request born;
                              # a reply's: (requester, -, KIND_ANY, arrival, -))
    reply_len: np.ndarray     # int32[5] closed loop: reply flits by request kind (0 for others)
    active: np.ndarray        # uint8[8 * ceil(N / 8)] 1: the router may have work (flits, or a terminal
                              # with packets queued or bound): set by arrivals and release, cleared by
                              # the router once idle (flit/kernel.py router_range)
    active_words: np.ndarray  # uint64[ceil(N / 8)] the same bytes, eight routers tested at once
    rw_vc: np.ndarray         # int32[5, 2] (first VC, VC count) of each kind (booksim router: BookSim2's
                              # *_begin_vc, *_end_vc); every row (0, V) but with --closed-loop there


def ring_size(t_link: int, t_crossbar: int, credit_delay: int, wire_max: int = 0) -> int:
    """Slots of the event rings: more than the longest delay of any event (a wire's extra
    cycles delay flits and credits alike)."""
    return max(t_link + t_crossbar, credit_delay) + wire_max + 2


def takes_mid(p: FlitParams) -> bool:
    """Whether packets carry an intermediate (valiant, ugal-l, ugal-g on the lanes and iq routers)."""
    from netsim_fast.routing import NONMIN_ROUTINGS

    return p.routing in NONMIN_ROUTINGS.values()


def new_state(topo, p: FlitParams, packet_capacity: int, windows: int, route_mask=None, wire=None) -> FlitState:
    """Allocate an idle network with empty buffers and full credits; ``wire``: int[N, P] extra
    cycles of the link leaving each port (None: none)."""
    from netsim_fast.routing import candidate_rows

    n, ports, v = p.n_nodes, p.n_ports, p.n_vcs
    terms = n * p.conc
    lanes = n * ports * v
    ring = p.ring
    lane = np.arange(lanes, dtype=np.int64)
    lane_node, lane_port, vc = lane // (ports * v), (lane // v) % ports, lane % v
    nbr = topo.arrays.nbr[lane_node, lane_port].astype(np.int64)
    back = topo.arrays.nbr_in_port[lane_node, lane_port].astype(np.int64)
    other = np.where(nbr >= 0, (nbr * ports + back) * v + vc, NONE)

    inl = _records(lanes, IN_LANE)
    inl["out"] = NONE
    inl["conn_pos"] = NONE
    inl["route_done"] = NONE
    inl["node"] = lane_node
    inl["up"] = other
    outl = _records(lanes, OUT_LANE)
    outl["owner"] = NONE
    outl["credits"] = p.buf
    outl["down"] = other
    outl["port"] = lane_port
    outl["link"] = lane // v
    outl["node"] = lane_node
    outl["vc"] = vc
    if wire is not None:
        outl["wire"] = np.asarray(wire, np.int64).reshape(-1)[lane // v]
    node = _records(terms, NODE)
    node["src_head"] = NONE
    node["src_tail"] = NONE
    inj = _records((terms, v), INJ)
    inj["pkt"] = NONE
    return FlitState(
        inl=inl,
        in_buf=aligned.zeros((lanes, p.buf), i8, huge=True),
        outl=outl,
        ol_buf=_records((lanes, max(p.out_buf, 1)), OL_SLOT),
        port=_records(n * ports, PORT),
        node=node,
        conn_list=aligned.zeros((n, ports * v), i4, huge=True),
        wait_bits=np.zeros((n, -(-(ports * v) // 64)), i8),
        route_free=np.zeros((n, max(p.headers, 1)), i8),
        inj=inj,
        route_mask=route_mask if route_mask is not None else np.zeros((0, 0, 1), np.uint8),
        ev_flit=aligned.zeros((ring, n * ports + 1, 2), i8, huge=True),
        ev_flit_n=np.zeros(ring, i4),
        ev_credit=aligned.zeros((ring, lanes + 1), i4, huge=True),
        ev_credit_n=np.zeros(ring, i4),
        ev_eject=aligned.zeros((ring, terms * p.eject_rate + 1), i8, huge=True),
        ev_eject_n=np.zeros(ring, i4),
        pkt=new_packets(packet_capacity),
        recv_need=np.zeros((n, 1), i4),
        recv_got=np.zeros((n, 1), i4),
        phase_need=np.zeros(1, i8),
        phase_got=np.zeros(1, i8),
        **_window_arrays(windows),
        cnt=np.zeros(N_COUNTERS, i8),
        rows=np.zeros((candidate_rows(p.n_ports), 4), i4),
        req_vc=np.full(ports, NONE, i4),
        req_out=np.full(ports, NONE, i4),
        va_lane=np.zeros(ports * v, i4),
        scratch=np.zeros((2, lanes if p.debug else 0), i8),
        mid=np.full(packet_capacity if takes_mid(p) else 0, NONE, i4),
        cls=np.zeros(packet_capacity if p.classes > 1 else 0, i4),
        class_pri=np.zeros(p.classes, i8),
        class_level=np.zeros(p.classes, i4),
        cls_out=np.zeros(p.classes, i8),
        q_last=np.full((terms, p.classes) if p.classes > 1 else (terms, 2) if p.closed_loop else (0, 1), NONE, i4),
        cand=_records(0, CAND),
        born=np.zeros(packet_capacity if p.closed_loop else 0, i8),
        kind=np.zeros(packet_capacity if p.closed_loop else 0, i4),
        outstanding=np.zeros(terms if p.closed_loop else 0, i4),
        # the deliveries of two cycles: the booksim router's terminals read before the release
        # stage, which leaves a cycle's own deliveries for the next one (flit/closed_loop.py)
        pend=np.zeros((2 * terms * p.eject_rate + 2 if p.closed_loop else 0, 5), i8),
        reply_len=np.zeros(5, i4),
        rw_vc=np.array([[0, v]] * 5, i4),
        **_active_marks(n),
    )


def _active_marks(n_routers: int) -> dict:
    words = aligned.zeros(-(-n_routers // 8), np.uint64)
    return dict(active=words.view(np.uint8), active_words=words)


def set_classes(state: FlitState, priorities) -> FlitState:
    """The classes' priorities (``--class-priority``) and their levels, for a multi-class run."""
    from netsim_fast.workloads.classes import priority_levels

    state.class_pri[:] = priorities
    state.class_level[:] = priority_levels(priorities)
    return state


_records = partial(aligned.records, huge=True)  # the state in huge pages (_arrays.py)


def new_packets(cap: int) -> np.ndarray:
    """Fresh packet records: no queue link, nothing injected or delivered yet."""
    pkt = _records(cap, PACKET)
    for field in ("next", "injected", "head_del", "tail_del"):
        pkt[field] = NONE
    return pkt


def _window_arrays(windows: int) -> dict:
    return {name: np.zeros(windows, np.int64)
            for name in ("ts_injected", "ts_accepted", "ts_link", "ts_in_flight", "ts_queued")}


def ensure_packet_capacity(state: FlitState, needed: int) -> FlitState:
    """Return a state whose packet array holds at least ``needed`` packets (doubling)."""
    cap = state.pkt.shape[0]
    if needed <= cap:
        return state
    grown = new_packets(max(needed, 2 * cap, 1024))
    grown[:cap] = state.pkt
    side = {}  # the per-packet arrays beside PACKET grow with it
    for name, fill in (("mid", NONE), ("cls", 0), ("born", 0), ("kind", 0)):
        old = getattr(state, name)
        if old.shape[0]:
            side[name] = np.full(grown.shape[0], fill, old.dtype)
            side[name][: old.shape[0]] = old
    return state._replace(pkt=grown, **side)


def ensure_window_capacity(state: FlitState, windows: int) -> FlitState:
    cap = state.ts_injected.shape[0]
    if windows <= cap:
        return state
    size = max(windows, 2 * cap)
    grown = {name: np.zeros(size, np.int64) for name in _window_arrays(1)}
    for name, arr in grown.items():
        arr[:cap] = getattr(state, name)
    return state._replace(**grown)


def set_phases(state: FlitState, n_nodes: int, dst, phase) -> FlitState:
    """Per-node and per-phase packet counts of a finite phased workload (for --sync)."""
    n_phases = int(phase.max()) + 1 if len(phase) else 1
    recv_need = np.zeros((n_nodes, n_phases), np.int32)
    np.add.at(recv_need, (np.asarray(dst), np.asarray(phase)), 1)
    phase_need = np.bincount(np.asarray(phase), minlength=n_phases).astype(np.int64)
    state = state._replace(recv_need=recv_need, recv_got=np.zeros_like(recv_need),
                           phase_need=phase_need, phase_got=np.zeros_like(phase_need))
    # phases with nothing to receive are complete from the start
    for node in range(n_nodes):
        f = 0
        while f < n_phases - 1 and recv_need[node, f] == 0:
            f += 1
        state.node["phase"][node] = f
    global_phase = 0
    while global_phase < n_phases - 1 and phase_need[global_phase] == 0:
        global_phase += 1
    state.cnt[C_GLOBAL_PHASE] = global_phase
    return state


def append_packets(state: FlitState, src, dst, length, release, phase=None, mid=None, cls=None) -> FlitState:
    """Add packets (released at or after the current cycle, in non-decreasing release order);
    ``mid``: their intermediate groups (valiant, ugal-*); ``cls``: their traffic classes."""
    count = int(len(src))
    if count == 0:
        return state
    start = int(state.cnt[C_NPKT])
    state = ensure_packet_capacity(state, start + count)
    new = state.pkt[start: start + count]
    new["src"] = src
    new["dst"] = dst
    new["len"] = length
    new["release"] = release
    new["phase"] = 0 if phase is None else phase
    if mid is not None:
        state.mid[start: start + count] = mid
    if cls is not None:
        state.cls[start: start + count] = cls
    state.cnt[C_NPKT] = start + count
    return state
