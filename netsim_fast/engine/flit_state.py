"""State of the flit engine: one NamedTuple of flat numpy arrays, and its allocation.

Lane index: ``lane = (node * P + port) * V + vc`` for input lanes and, with the same formula,
for the output side (output lanes of the ``lanes`` router, output VCs of ``iq``). Cycles and
counters are int64, ids and lengths int32. ``NONE = -1`` marks absence everywhere.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

NONE = -1

ROUTER_LANES = 0
ROUTER_IQ = 1
ROUTERS = {"lanes": ROUTER_LANES, "iq": ROUTER_IQ}
SWITCHING = {"wormhole": 0, "vct": 1}

STOP_AT_END = 0      # run exactly to the requested cycle (--cycles)
STOP_WINDOW = 1      # open loop: stop once the measurement window's packets are delivered
STOP_ALL = 2         # finite workload: stop once every packet is delivered

SYNC_NONE = 0        # phases ignored: nodes proceed freely (paper 004's experiments)
SYNC_LOCAL = 1       # a node injects phase f+1 once it has received all its phase-f packets
SYNC_GLOBAL = 2      # every node injects phase f+1 once all phase-f packets are delivered
SYNCS = {"none": SYNC_NONE, "local": SYNC_LOCAL, "global": SYNC_GLOBAL}

# error codes returned by the kernel
ERR_OK = 0
ERR_DEADLOCK = 1
ERR_CONSERVATION = 2
ERR_CREDIT = 3
ERR_OVERFLOW = 4
ERR_ORDER = 5
ERR_NO_ROUTE = 6

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
N_COUNTERS = 16


class FlitParams(NamedTuple):
    """Scalar parameters of a run (all int64 inside the kernel)."""

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
    deadlock_cycles: int
    debug: int
    window: int           # cycles per time-series window
    stop_mode: int
    win_start: int        # measurement window [win_start, win_end)
    win_end: int
    ring: int             # slots of the event rings (> longest delay)
    n_total: int          # packets of a finite workload (STOP_ALL)
    sync: int             # SYNC_NONE, SYNC_LOCAL or SYNC_GLOBAL


class FlitState(NamedTuple):
    # lookup tables (constant): they replace integer divisions on the per-flit path
    lane_node: np.ndarray     # int32[L] router of a lane
    lane_port: np.ndarray     # int32[L] port of a lane
    lane_up: np.ndarray       # int32[L] upstream output lane feeding a network input lane (NONE: local)
    out_down: np.ndarray      # int32[L] downstream input lane fed by a network output lane (NONE: local)
    # input lanes, [n_lanes] or [n_lanes, buf]
    in_pkt: np.ndarray        # int32[L, B] ring buffer: packet id of each flit
    in_seq: np.ndarray        # int32[L, B] ring buffer: flit code (index in packet << 1 | is tail)
    in_head: np.ndarray       # int32[L] ring position of the front flit
    in_len: np.ndarray        # int32[L] flits held
    in_out: np.ndarray        # int32[L] output lane/VC this lane is connected to, NONE if not
    in_ready: np.ndarray      # int64[L] cycle from which the connection may move a flit
    in_last: np.ndarray       # int64[L] last cycle the front advanced (watchdog)
    # output side, [n_lanes]
    out_owner: np.ndarray     # int32[L] input lane holding this output lane/VC, NONE if free
    out_credits: np.ndarray   # int32[L] free slots of the downstream input lane
    ol_pkt: np.ndarray        # int32[L, O] output-lane ring buffer (lanes router)
    ol_seq: np.ndarray        # int32[L, O]
    ol_ready: np.ndarray      # int64[L, O] cycle from which the flit may leave
    ol_head: np.ndarray       # int32[L]
    ol_len: np.ndarray        # int32[L]
    ol_last: np.ndarray       # int64[L]
    # ports and routers
    link_free: np.ndarray     # int64[N*P] cycle from which the port's link may send
    port_queued: np.ndarray   # int32[N*P] flits in the port's output lanes
    rr_link: np.ndarray       # int32[N*P] link arbiter pointer (lanes)
    rr_sa_in: np.ndarray      # int32[N*P] switch input arbiter pointer (iq)
    rr_sa_out: np.ndarray     # int32[N*P] switch output arbiter pointer (iq)
    rr_route: np.ndarray      # int32[N] routing pointer
    rr_eject: np.ndarray      # int32[N] ejection pointer (lanes)
    rr_inject: np.ndarray     # int32[N] injection pointer
    route_free: np.ndarray    # int64[N, max(H,1)] cycle each routing unit is free again
    node_flits: np.ndarray    # int32[N] flits buffered in the router (input + output lanes)
    node_waiting: np.ndarray  # int32[N] input lanes waiting for routing
    node_bound: np.ndarray    # int32[N] packets bound to local lanes by the node
    conn_list: np.ndarray     # int32[N, P*V] connected input lanes of each router (first conn_n)
    conn_n: np.ndarray        # int32[N]
    conn_pos: np.ndarray      # int32[L] position of a connected lane in its router's list
    # events in flight: ring of slots indexed by arrival cycle % ring
    ev_flit: np.ndarray       # int32[R, cap, 3] (lane, packet, seq)
    ev_flit_n: np.ndarray     # int32[R]
    ev_credit: np.ndarray     # int32[R, cap2] output lane/VC receiving a credit
    ev_credit_n: np.ndarray   # int32[R]
    ev_eject: np.ndarray      # int32[R, N*E, 2] (packet, code) of flits reaching their node (iq)
    ev_eject_n: np.ndarray    # int32[R]
    # nodes
    src_head: np.ndarray      # int32[N] first packet of the source queue, NONE if empty
    src_tail: np.ndarray      # int32[N] last packet of the source queue
    inj_pkt: np.ndarray       # int32[N, V] packet bound to each local input lane, NONE if none
    inj_sent: np.ndarray      # int32[N, V] flits of it written so far
    # packets (capacity grows between batches)
    pkt_src: np.ndarray       # int32[cap]
    pkt_dst: np.ndarray       # int32[cap]
    pkt_len: np.ndarray       # int32[cap] flits
    pkt_release: np.ndarray   # int64[cap] creation cycle (non-decreasing with id)
    pkt_next: np.ndarray      # int32[cap] next packet in the same source queue
    pkt_injected: np.ndarray  # int64[cap] head written into the local input lane
    pkt_head_del: np.ndarray  # int64[cap] head delivered
    pkt_tail_del: np.ndarray  # int64[cap] tail delivered
    pkt_hops: np.ndarray      # int32[cap] links crossed by the head
    pkt_ejected: np.ndarray   # int32[cap] flits delivered so far
    pkt_phase: np.ndarray     # int32[cap] step of the algorithm the packet belongs to
    # phases (--sync): F = number of phases of a finite workload (1 for open-loop traffic)
    recv_need: np.ndarray     # int32[N, F] packets each node receives in each phase
    recv_got: np.ndarray      # int32[N, F] ... received so far
    phase_need: np.ndarray    # int64[F] packets of each phase
    phase_got: np.ndarray     # int64[F] ... delivered so far
    node_phase: np.ndarray    # int32[N] highest phase the node may inject (--sync local)
    # statistics
    link_flits: np.ndarray    # int64[N*P] flits sent per port (directed link)
    ts_injected: np.ndarray   # int64[W] flits injected per window
    ts_accepted: np.ndarray   # int64[W] flits delivered per window
    ts_link: np.ndarray       # int64[W] link traversals per window
    ts_in_flight: np.ndarray  # int64[W] flits in the network at the end of the window
    ts_queued: np.ndarray     # int64[W] packets in source queues at the end of the window
    cnt: np.ndarray           # int64[N_COUNTERS] counters, see C_*
    rows: np.ndarray          # int32[MAX_ROWS, 4] routing scratch
    req_vc: np.ndarray        # int32[P] switch-allocation scratch (iq): requesting VC per input port
    req_out: np.ndarray       # int32[P] switch-allocation scratch (iq): requested output VC
    scratch: np.ndarray       # int64[2, L] debug scratch: flits and credits in flight per lane


def ring_size(t_link: int, t_crossbar: int, credit_delay: int) -> int:
    """Slots of the event rings: more than the longest delay of any event."""
    return max(t_link + t_crossbar, credit_delay) + 2


def new_state(topo, p: FlitParams, packet_capacity: int, windows: int) -> FlitState:
    """Allocate an idle network with empty buffers and full credits."""
    from netsim_fast.routing import MAX_ROWS

    n, ports, v = p.n_nodes, p.n_ports, p.n_vcs
    lanes = n * ports * v
    links = n * ports
    ring = p.ring
    i32, i64 = np.int32, np.int64
    flit_cap = links + 1
    credit_cap = lanes + 1
    return FlitState(
        **_lane_tables(topo, p),
        in_pkt=np.zeros((lanes, p.buf), i32),
        in_seq=np.zeros((lanes, p.buf), i32),
        in_head=np.zeros(lanes, i32),
        in_len=np.zeros(lanes, i32),
        in_out=np.full(lanes, NONE, i32),
        in_ready=np.zeros(lanes, i64),
        in_last=np.zeros(lanes, i64),
        out_owner=np.full(lanes, NONE, i32),
        out_credits=np.full(lanes, p.buf, i32),
        ol_pkt=np.zeros((lanes, max(p.out_buf, 1)), i32),
        ol_seq=np.zeros((lanes, max(p.out_buf, 1)), i32),
        ol_ready=np.zeros((lanes, max(p.out_buf, 1)), i64),
        ol_head=np.zeros(lanes, i32),
        ol_len=np.zeros(lanes, i32),
        ol_last=np.zeros(lanes, i64),
        link_free=np.zeros(links, i64),
        port_queued=np.zeros(links, i32),
        rr_link=np.zeros(links, i32),
        rr_sa_in=np.zeros(links, i32),
        rr_sa_out=np.zeros(links, i32),
        rr_route=np.zeros(n, i32),
        rr_eject=np.zeros(n, i32),
        rr_inject=np.zeros(n, i32),
        route_free=np.zeros((n, max(p.headers, 1)), i64),
        node_flits=np.zeros(n, i32),
        node_waiting=np.zeros(n, i32),
        node_bound=np.zeros(n, i32),
        conn_list=np.zeros((n, ports * v), i32),
        conn_n=np.zeros(n, i32),
        conn_pos=np.full(lanes, NONE, i32),
        ev_flit=np.zeros((ring, flit_cap, 3), i32),
        ev_flit_n=np.zeros(ring, i32),
        ev_credit=np.zeros((ring, credit_cap), i32),
        ev_credit_n=np.zeros(ring, i32),
        ev_eject=np.zeros((ring, n * p.eject_rate + 1, 2), i32),
        ev_eject_n=np.zeros(ring, i32),
        src_head=np.full(n, NONE, i32),
        src_tail=np.full(n, NONE, i32),
        inj_pkt=np.full((n, v), NONE, i32),
        inj_sent=np.zeros((n, v), i32),
        **_packet_arrays(packet_capacity),
        recv_need=np.zeros((n, 1), i32),
        recv_got=np.zeros((n, 1), i32),
        phase_need=np.zeros(1, i64),
        phase_got=np.zeros(1, i64),
        node_phase=np.zeros(n, i32),
        link_flits=np.zeros(links, i64),
        **_window_arrays(windows),
        cnt=np.zeros(N_COUNTERS, i64),
        rows=np.zeros((MAX_ROWS, 4), i32),
        req_vc=np.full(ports, NONE, i32),
        req_out=np.full(ports, NONE, i32),
        scratch=np.zeros((2, lanes if p.debug else 0), i64),
    )


def _lane_tables(topo, p: FlitParams) -> dict:
    """Lane -> router, port, and the lane at the other end of its link (NONE for local ports)."""
    ports, v = p.n_ports, p.n_vcs
    lane = np.arange(p.n_nodes * ports * v, dtype=np.int64)
    node, port, vc = lane // (ports * v), (lane // v) % ports, lane % v
    nbr = topo.arrays.nbr[node, port].astype(np.int64)
    back = topo.arrays.nbr_in_port[node, port].astype(np.int64)
    other = np.where(nbr >= 0, (nbr * ports + back) * v + vc, NONE).astype(np.int32)
    return dict(lane_node=node.astype(np.int32), lane_port=port.astype(np.int32), lane_up=other, out_down=other)


def _packet_arrays(cap: int) -> dict:
    i32, i64 = np.int32, np.int64
    return dict(
        pkt_src=np.zeros(cap, i32),
        pkt_dst=np.zeros(cap, i32),
        pkt_len=np.zeros(cap, i32),
        pkt_release=np.zeros(cap, i64),
        pkt_next=np.full(cap, NONE, i32),
        pkt_injected=np.full(cap, NONE, i64),
        pkt_head_del=np.full(cap, NONE, i64),
        pkt_tail_del=np.full(cap, NONE, i64),
        pkt_hops=np.zeros(cap, i32),
        pkt_ejected=np.zeros(cap, i32),
        pkt_phase=np.zeros(cap, i32),
    )


def _window_arrays(windows: int) -> dict:
    return {name: np.zeros(windows, np.int64)
            for name in ("ts_injected", "ts_accepted", "ts_link", "ts_in_flight", "ts_queued")}


def _grown(old: np.ndarray, size: int, fill) -> np.ndarray:
    new = np.full(size, fill, old.dtype)
    new[: old.shape[0]] = old
    return new


def ensure_packet_capacity(state: FlitState, needed: int) -> FlitState:
    """Return a state whose packet arrays hold at least ``needed`` packets (doubling)."""
    cap = state.pkt_src.shape[0]
    if needed <= cap:
        return state
    size = max(needed, 2 * cap, 1024)
    fresh = _packet_arrays(1)
    return state._replace(**{name: _grown(getattr(state, name), size, fresh[name][0]) for name in fresh})


def ensure_window_capacity(state: FlitState, windows: int) -> FlitState:
    cap = state.ts_injected.shape[0]
    if windows <= cap:
        return state
    size = max(windows, 2 * cap)
    return state._replace(**{name: _grown(getattr(state, name), size, 0) for name in _window_arrays(1)})


def set_phases(state: FlitState, n_nodes: int, dst, phase) -> FlitState:
    """Per-node and per-phase packet counts of a finite phased workload (for --sync)."""
    n_phases = int(phase.max()) + 1 if len(phase) else 1
    recv_need = np.zeros((n_nodes, n_phases), np.int32)
    np.add.at(recv_need, (np.asarray(dst), np.asarray(phase)), 1)
    phase_need = np.bincount(np.asarray(phase), minlength=n_phases).astype(np.int64)
    state = state._replace(recv_need=recv_need, recv_got=np.zeros_like(recv_need),
                           phase_need=phase_need, phase_got=np.zeros_like(phase_need))
    # phases with nothing to receive are complete from the start
    node_phase = np.zeros(n_nodes, np.int32)
    for node in range(n_nodes):
        while node_phase[node] < n_phases - 1 and recv_need[node, node_phase[node]] == 0:
            node_phase[node] += 1
    state.node_phase[:] = node_phase
    global_phase = 0
    while global_phase < n_phases - 1 and phase_need[global_phase] == 0:
        global_phase += 1
    state.cnt[C_GLOBAL_PHASE] = global_phase
    return state


def append_packets(state: FlitState, src, dst, length, release, phase=None) -> FlitState:
    """Add packets (released at or after the current cycle, in non-decreasing release order)."""
    count = int(len(src))
    if count == 0:
        return state
    start = int(state.cnt[C_NPKT])
    state = ensure_packet_capacity(state, start + count)
    sl = slice(start, start + count)
    state.pkt_src[sl] = src
    state.pkt_dst[sl] = dst
    state.pkt_len[sl] = length
    state.pkt_release[sl] = release
    state.pkt_phase[sl] = 0 if phase is None else phase
    state.cnt[C_NPKT] = start + count
    return state
