"""State of the booksim router (``--router booksim``): record arrays beside the flit engine's.

The router's input-VC FIFOs are the flit engine's input lanes (``FlitState.inl``,
``FlitState.in_buf``, same lane index ``(node * P + port) * V + vc``), so the deadlock watchdog,
the retirement of finished packets and the packet records work unchanged. What BookSim2's IQ
router adds lives here (docs/booksim-router.md, section 5):

- per input VC (``ivc``): the pipeline state (idle, routing, VC allocation, active), the stage
  queue it waits in with its stamp, the route (port, VC range) and this cycle's grants; the
  dateline partition of every buffered flit (with ``routing_delay = 0``: its packed lookahead
  route, routing.pack_route) rides in ``ph_buf`` beside ``in_buf``;
- per output VC (``ovc``): BookSim2's buffer state of the downstream VC (flits outstanding,
  owner, "tail sent"); the local port's output VCs track the terminal's ejection buffer;
- per terminal VC (``tvc``): the terminal's view of the router's injection-port VCs;
- per router (``node``): the routing batch, the crossbar queue ring and the injection choice;
  per router and port: the output FIFOs (``of``) and the allocators' pointers;
- event rings by cycle modulo ``ring``: flits on channels, credits, deliveries.

A flit is the flit engine's int64 code (``packet << 32 | seq << 1 | is_tail``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from netsim_fast import _arrays as aligned

NONE = -1

# input-VC pipeline states (docs/booksim-router.md 5.1)
VC_IDLE, VC_ROUTING, VC_VA, VC_ACTIVE = 0, 1, 2, 3
# stage queue an input VC waits in
Q_NONE, Q_ROUTE, Q_VA, Q_SA, Q_HOLD = 0, 1, 2, 3, 4
# priority schemes (BookSim2's ``priority``; ``class`` with one class is ``none``, with several
# a flit's priority is its class's, --class-priority: driver.py)
PRI_NONE, PRI_AGE, PRI_NETWORK_AGE, PRI_LOCAL_AGE, PRI_QUEUE_LENGTH, PRI_HOP_COUNT, PRI_SEQUENCE, PRI_CLASS = range(8)
PRIORITIES = {"none": PRI_NONE, "class": PRI_NONE, "age": PRI_AGE, "network_age": PRI_NETWORK_AGE,
              "local_age": PRI_LOCAL_AGE, "queue_length": PRI_QUEUE_LENGTH, "hop_count": PRI_HOP_COUNT,
              "sequence": PRI_SEQUENCE}
ERR_ABORT = 20  # a state in which BookSim2 stops on an assertion (multi-cycle allocation, 5.4)
INT_MAX = (1 << 31) - 1
INT_MIN = -(1 << 31)

i4, i8 = np.int32, np.int64

BK_IVC = np.dtype([
    ("state", i4),     # VC_*
    ("queue", i4),     # Q_*
    ("stamp", i8),     # routing queue: cycle its batch completes, NONE while waiting; held switch:
                       # 1 kept / 0 not kept this cycle, NONE before its first evaluate
    ("va_grant", i4),  # output VC lane granted by this cycle's VC allocation, NONE if none
    ("sa_grant", i4),  # 1: this cycle's switch allocation granted it
    ("port", i4),      # routed output port of the front head
    ("lo", i4),        # ... its VC range
    ("hi", i4),
    ("ph", i4),        # the front head's ph after this hop: partition (torus), phase | intm << 8 (romm, valiant)
    ("esc", i4),       # > 0: VCs lo .. lo+esc-1 requested at input priority 0, the rest at 1 (routefns.route)
    ("port2", i4),     # a second route element (torus min_adapt's escape): port and VC at priority 0,
    ("vc2", i4),       # the range above then at priority 1; vc2 NONE if none
    ("sa_spec", i4),   # 1: this cycle's switch grant was speculative (the VC was still in VC allocation)
    ("va_stamp", i8),  # VC-allocation queue: cycle its batch is due, NONE while waiting
    ("sa_stamp", i8),  # switch-allocation queue: the same
    ("va_step", i8),   # internal step whose VC allocation granted ``va_grant``
    ("noq", i8),       # noq: the front head's packed route at the next router (port and VC slice), 0 if none
], align=True)

BK_OVC = np.dtype([
    ("occ", i4),        # flits sent downstream and not yet credited back
    ("owner", i4),      # input VC lane holding it, NONE if available
    ("tail_sent", i4),  # the owner's tail has been sent (wait_for_tail_credit)
], align=True)

BK_NODE = np.dtype([
    ("rt_due", i8),     # cycle the routing batch in progress completes, NONE if none
    ("xb_head", i4),    # crossbar queue ring: front position and length
    ("xb_len", i4),
    ("last_vc", i4),    # terminal: last injection VC used (NONE at first)
    ("cur_vc", i4),     # terminal: VC of the packet being injected
    ("credits_queued", i4),  # credit messages waiting in the router's input-port credit FIFOs
    ("cmsg_ports", i8),  # ports.py: input ports with a credit message of this internal step,
    ("cq_ports", i8),   # ... input ports with credit messages queued,
    ("of_ports", i8),   # ... output ports with flits in their output FIFO
    ("va_due", i8),     # cycle the VC-allocation batch in flight is due, NONE if none
    ("sa_due", i8),     # ... the switch-allocation batch
    ("seq_next", i8),   # terminal: packets bound so far (BookSim2's per-source sequence number)
    ("cur_seq", i8),    # terminal: sequence number of the packet being injected
], align=True)


class BkParams(NamedTuple):
    """The booksim router's scalar parameters (all int64 inside the kernel)."""

    routing_delay: int    # R; 0 is lookahead routing (the route is computed one router ahead)
    va_delay: int         # vc_alloc_delay >= 1
    sa_delay: int         # sw_alloc_delay >= 1
    xbar_delay: int       # X = st_prepare_delay + st_final_delay >= 1
    credit_delay: int     # Dc >= 0
    link: int             # d: router-to-router channel latency (1 mesh, 2 torus with use_noc_latency)
    torus: int            # 1: dim_order_torus with its dateline partition; 0: dim_order_mesh
    wait_tail: int        # wait_for_tail_credit
    busy_full: int        # vc_busy_when_full
    ring: int             # slots of the event rings
    xb_cap: int           # crossbar queue capacity per router
    of_cap: int           # output FIFO capacity per port
    va_kind: int          # allocators/dispatch.py KINDS, iterations, arbiter (0 rr, 1 matrix)
    va_iters: int
    va_arb: int
    sa_kind: int
    sa_iters: int
    sa_arb: int
    prio_empty: int       # vc_prioritize_empty
    hold: int             # hold_switch_for_packet
    noq: int              # next-hop output queueing (needs routing_delay 0)
    internal_speedup: float  # router internal steps per cycle (an accumulator gives 1, 2, 1, 2... for 1.5)
    in_speedup: int       # IS: crossbar inputs per input port
    out_speedup: int      # OS: crossbar outputs per output port
    out_buf: int          # output_buffer_size: output FIFO flits that stop switch requests, -1 unbounded
    spec: int             # speculative switch allocation
    priority: int         # PRIORITIES code: where a flit's priority comes from
    routing: int = 0      # routefns.ROUTINGS code (0: dim_order)
    shape_a: int = 0      # the topology's shape (driver.topology_shape): a dragonfly's routers per group,
    shape_b: int = 0      # ... and global links per router; a flatfly's or fattree's k and n


class BkState(NamedTuple):
    ivc: np.ndarray        # BK_IVC[L]
    ph_buf: np.ndarray     # int64[L, B] partition of each buffered flit, or its packed lookahead route (R = 0)
    pri_buf: np.ndarray    # int64[L, B] priority of each buffered flit (docs/booksim-router.md 5.10)
    ovc: np.ndarray        # BK_OVC[L] buffer state of each output VC
    tvc: np.ndarray        # BK_OVC[T*V] (T = N * conc terminals) each terminal's buffer state of its router's injection VCs
    node: np.ndarray       # BK_NODE[T]: router fields at the router, terminal fields at the terminal
    xb: np.ndarray         # int64[xb_cap, N, 5] crossbar queue: (flit, output VC lane, ph, stamp, priority); position
                           # first, so the first entries of every router's ring, the only ones used while it
                           # rarely holds more than one (router._front_after_pop), lie together
    of: np.ndarray         # int64[of_cap, N*P, 4] output FIFOs: (flit, output VC lane, ph, priority); position first
    of_head: np.ndarray    # int32[N*P]
    of_len: np.ndarray     # int32[N*P]
    sa_off: np.ndarray     # int32[N, P*IS] switch round-robin offset of each crossbar input (5.9)
    cmsg: np.ndarray       # int64[N, P] VCs (bit mask) of each input port whose flit left in this internal step
    cq: np.ndarray         # int64[V*B+2, N*P] credit message FIFO of each input port, one sent per cycle (position
                           # first)
    cq_head: np.ndarray    # int32[N*P]
    cq_len: np.ndarray     # int32[N*P]
    hold_in: np.ndarray    # int32[N, P*IS] crossbar output a held connection ties each crossbar input to, NONE
    hold_out: np.ndarray   # int32[N, P*OS] crossbar input holding each crossbar output, NONE
    # allocator state per router (persistent): VC allocator (P*V x P*V), switch allocator (P x P)
    va_gptr: np.ndarray    # int32[N, P*V] grant / output-arbiter pointers
    va_aptr: np.ndarray    # int32[N, P*V] accept / input-arbiter / request pointers
    va_sc: np.ndarray      # int64[N] wavefront diagonal or max_size rotation
    va_min: np.ndarray     # int8[N*P*V, P*V, P*V] matrix input arbiters (empty unless matrix)
    va_mout: np.ndarray    # int8[N*P*V, P*V, P*V] matrix output arbiters
    sa_gptr: np.ndarray    # int32[N, P*OS]
    sa_aptr: np.ndarray    # int32[N, P*IS]
    sa_sc: np.ndarray      # int64[N]
    sa_min: np.ndarray     # int8[N*P, P, P]
    sa_mout: np.ndarray    # int8[N*P, P, P]
    ev_flit: np.ndarray    # int64[R, N*P+1, 4] (input lane, flit, ph, priority) reaching a router at cycle % R
    ev_flit_n: np.ndarray  # int32[R]
    ev_cred: np.ndarray    # int32[R, 2*N*P+1] output VC lanes whose credit is applied at cycle % R
    ev_cred_n: np.ndarray  # int32[R]
    ev_tcred: np.ndarray   # int32[R, T*V+1] terminal VCs (terminal*V+vc) credited at cycle % R
    ev_tcred_n: np.ndarray  # int32[R]
    ev_del: np.ndarray     # int64[R, T+1] flits a terminal reads at cycle % R
    ev_del_n: np.ndarray   # int32[R]
    # allocation scratch (one router at a time)
    in_req: np.ndarray     # int32[P*V, P*V] requested outputs of each allocator input, ascending
    in_pri: np.ndarray     # int64[P*V, P*V] ... their input-side priorities
    in_n: np.ndarray       # int32[P*V]
    out_req: np.ndarray    # int32[P*V, P*V] requesting inputs of each allocator output, ascending
    out_pri: np.ndarray    # int64[P*V, P*V] ... their output-side priorities
    out_n: np.ndarray      # int32[P*V]
    dense: np.ndarray      # int8[P*V, P*V] the requests as a matrix (dense allocators)
    dpin: np.ndarray       # int64[P*V, P*V]
    dpout: np.ndarray      # int64[P*V, P*V]
    pairs: np.ndarray      # int64[P*V*P*V, 2] distinct priority pairs (wavefront)
    fwd: np.ndarray        # int32[P*V, P*V] forwarded requests (separable)
    fwd_pri: np.ndarray    # int64[P*V, P*V]
    fwd_n: np.ndarray      # int32[P*V]
    choice: np.ndarray     # int32[P*V]
    grant: np.ndarray      # int32[P*V] input granted by each output (iSLIP), NONE
    xgrant: np.ndarray     # int32[P*V] input matched to each output, NONE
    match: np.ndarray      # int32[P*V] output matched to each input, NONE
    in_mask: np.ndarray    # int64[P*V] iSLIP's requests as bit masks (allocators/dispatch.py): the outputs of each input,
    out_mask: np.ndarray   # int64[P*V] ... the inputs of each output,
    granted: np.ndarray    # int64[P*V] ... the outputs granting each input in an iteration (zero between)
    req_in: np.ndarray     # int32[P*V] the allocation's inputs with requests (in_n > 0)
    req_out: np.ndarray    # int32[P*V] ... its outputs with requests (out_n > 0)
    sa_pairs: np.ndarray   # int32[P*IS*P*OS, 2] (crossbar input, crossbar output) pairs with a request
    # index tables (a division by a run-time value costs tens of cycles; these are loads)
    k_port: np.ndarray     # int32[P*V] input port of a router's VC k (k // V)
    k_vc: np.ndarray       # int32[P*V] ... its VC (k % V)
    k_xi: np.ndarray       # int32[P*V] ... its crossbar input (k // V * IS + k % V % IS)
    xi_port: np.ndarray    # int32[P*IS] input port of a crossbar input (xi // IS)
    port_os: np.ndarray    # int32[P] crossbar output offset of an input port at every output (port % OS)
    up: np.ndarray         # int32[L] the output VC upstream of each input lane, NONE at a local port (the
                           # flit engine's inl.up, whose 64-byte records cost a cache miss a credit)
    down: np.ndarray       # int32[L] the input lane downstream of each output VC (the flit engine's
                           # outl.down, NONE at a local port; its 48-byte records cost a cache miss a flit)
    sa_vc: np.ndarray      # int32[P*IS, P*OS] VC kept for each (crossbar input, crossbar output) request, NONE
                           # outside switch allocation
    sa_pri: np.ndarray     # int64[P*IS, P*OS] ... and its priority
    qmask: np.ndarray      # int64[5, L // 32 + 1] bit per stage queue and VC lane: it waits there (queues.py)
    act: np.ndarray        # int32[4, P*V] the router's VCs in each stage's queue this internal step, ascending
    route_out: np.ndarray  # int64[7] routing scratch: (port, vc_lo, vc_hi, ph, esc, port2, vc2)
    rng: np.ndarray        # uint64[1] xorshift state: routing draws (ties, intermediates, ...)
    acc: np.ndarray        # float64[1] internal-step accumulator (the same for every router)
    step: np.ndarray       # int64[1] internal steps run so far (a switch grant checks its VC grant's step)
    dbg_held: np.ndarray   # int64[L] (--check-invariants, else empty) flits counted against each output VC
    dbg_terminal: np.ndarray  # int64[T*V] (--check-invariants) ... against each terminal injection VC
    lat: np.ndarray        # int64[N*P] latency d of the channel leaving each port (and of its credits):
                           # ``link`` everywhere but on a dragonfly (BookSim2's 10 local, 100 global)
    up_lat: np.ndarray     # int64[N*P] ... of the channel entering each port, which its credits take back
    term_node: np.ndarray  # int64[T] the router of each terminal (``t // conc`` but on an anynet file)
    term_port: np.ndarray  # int64[T] ... its local port there
    port_term: np.ndarray  # int64[N*conc] the terminal at local port ``first_local + j`` of router r
                           # (entry ``r * conc + j``), NONE where a router has fewer terminals
    table: np.ndarray      # int32[N, T] min_anynet's output port at router r towards terminal t
                           # (routing/anynet_min.py), 0 x 0 for the other routings


def ring_size(link: int, credit_delay: int) -> int:
    """More slots than the longest delay: an ejection credit takes 4 + Dc cycles, a network one d + 1 + Dc."""
    return max(link + 1, 4) + credit_delay + 2


def _matrices(count: int, size: int) -> np.ndarray:
    """``count`` matrix arbiters of ``size`` requesters, each initially "higher index wins"."""
    return np.broadcast_to(np.tril(np.ones((size, size), np.int8), -1), (count, size, size)).copy()


def terminal_layout(n: int, ports: int, conc: int, terminal_router=None, terminal_port=None):
    """(term_node, term_port, port_term) of ``BkState``: terminal ``t`` on router ``t // conc`` at
    port ``ports - conc + t % conc``, or where ``terminal_router`` and ``terminal_port`` put it."""
    if terminal_router is None:
        t = np.arange(n * conc)
        return (t // conc).astype(i8), (ports - conc + t % conc).astype(i8), t.astype(i8)
    term_node = np.asarray(terminal_router, i8)
    term_port = np.asarray(terminal_port, i8)
    port_term = np.full(n * conc, NONE, i8)
    port_term[term_node * conc + term_port - (ports - conc)] = np.arange(term_node.size, dtype=i8)
    return term_node, term_port, port_term


def new_bk_state(p, bp: BkParams, seed: int, down, up, layout=None, table=None, lat=None) -> BkState:
    """``down``, ``up``: the flit engine's ``outl.down`` and ``inl.up``; ``layout``: ``terminal_layout``'s arrays (default:
    ``t // conc``); ``table``: min_anynet's; ``lat``: each port's channel latency (default: ``bp.link``)."""
    n, ports, v = p.n_nodes, p.n_ports, p.n_vcs
    terms = n * p.conc  # terminals: ``tvc`` and the terminal fields of ``node`` are indexed by them
    term_node, term_port, port_term = layout if layout is not None else terminal_layout(n, ports, p.conc)
    lanes, pv, ring = n * ports * v, ports * v, bp.ring
    xi, xo = ports * bp.in_speedup, ports * bp.out_speedup  # crossbar inputs and outputs per router

    rec = aligned.records

    ivc = rec(lanes, BK_IVC)
    for f in ("stamp", "va_grant", "port", "va_stamp", "sa_stamp", "va_step", "port2", "vc2"):
        ivc[f] = NONE
    ovc = rec(lanes, BK_OVC)
    ovc["owner"] = NONE
    tvc = rec(terms * v, BK_OVC)
    tvc["owner"] = NONE
    node = rec(terms, BK_NODE)
    node["rt_due"] = NONE
    node["va_due"] = NONE
    node["sa_due"] = NONE
    node["last_vc"] = NONE
    node["cur_vc"] = NONE
    lat = np.full(n * ports, bp.link, i8) if lat is None else np.ascontiguousarray(lat, i8).reshape(-1)
    up = np.ascontiguousarray(up, i4)
    linked = np.flatnonzero(up >= 0)
    up_lat = np.zeros(n * ports, i8)
    up_lat[linked // v] = lat[up[linked] // v]  # every VC of a port has the same upstream port
    return BkState(
        ivc=ivc, ph_buf=aligned.zeros((lanes, p.buf), i8), pri_buf=aligned.zeros((lanes, p.buf), i8), ovc=ovc, tvc=tvc,
        node=node, xb=aligned.zeros((bp.xb_cap, n, 5), i8), of=aligned.zeros((bp.of_cap, n * ports, 4), i8),
        of_head=np.zeros(n * ports, i4), of_len=np.zeros(n * ports, i4), sa_off=np.tile(np.arange(xi, dtype=i4) % bp.in_speedup, (n, 1)),
        cmsg=np.zeros((n, ports), i8), cq=aligned.zeros((v * p.buf + 2, n * ports), i8),
        cq_head=np.zeros(n * ports, i4), cq_len=np.zeros(n * ports, i4),
        hold_in=np.full((n, xi), NONE, i4), hold_out=np.full((n, xo), NONE, i4),
        va_gptr=np.zeros((n, pv), i4), va_aptr=np.zeros((n, pv), i4), va_sc=np.zeros(n, i8),
        va_min=_matrices(n * pv if bp.va_arb else 0, pv), va_mout=_matrices(n * pv if bp.va_arb else 0, pv),
        sa_gptr=np.zeros((n, xo), i4), sa_aptr=np.zeros((n, xi), i4), sa_sc=np.zeros(n, i8),
        sa_min=_matrices(n * xi if bp.sa_arb else 0, xo), sa_mout=_matrices(n * xo if bp.sa_arb else 0, xi),
        ev_flit=aligned.zeros((ring, n * ports + 1, 4), i8), ev_flit_n=np.zeros(ring, i4),
        ev_cred=np.zeros((ring, n * ports * (bp.in_speedup + 1) + 1), i4), ev_cred_n=np.zeros(ring, i4),
        ev_tcred=np.zeros((ring, terms * v + 1), i4), ev_tcred_n=np.zeros(ring, i4),
        ev_del=np.zeros((ring, terms + 1), i8), ev_del_n=np.zeros(ring, i4),
        in_req=np.zeros((pv, pv), i4), in_pri=np.zeros((pv, pv), i8), in_n=np.zeros(pv, i4),
        out_req=np.zeros((pv, pv), i4), out_pri=np.zeros((pv, pv), i8), out_n=np.zeros(pv, i4),
        dense=np.zeros((pv, pv), np.int8), dpin=np.zeros((pv, pv), i8), dpout=np.zeros((pv, pv), i8),
        pairs=np.zeros((pv * pv, 2), i8), fwd=np.zeros((pv, pv), i4), fwd_pri=np.zeros((pv, pv), i8),
        fwd_n=np.zeros(pv, i4), choice=np.zeros(pv, i4), grant=np.full(pv, NONE, i4),
        xgrant=np.full(pv, NONE, i4), match=np.full(pv, NONE, i4),
        in_mask=np.zeros(pv, i8), out_mask=np.zeros(pv, i8), granted=np.zeros(pv, i8),
        req_in=np.zeros(max(pv, xi), i4), req_out=np.zeros(max(pv, xo), i4), sa_pairs=np.zeros((xi * xo, 2), i4),
        k_port=(np.arange(pv) // v).astype(i4), k_vc=(np.arange(pv) % v).astype(i4),
        k_xi=(np.arange(pv) // v * bp.in_speedup + np.arange(pv) % v % bp.in_speedup).astype(i4),
        xi_port=(np.arange(xi) // bp.in_speedup).astype(i4), port_os=(np.arange(ports) % bp.out_speedup).astype(i4),
        up=up, down=np.ascontiguousarray(down, i4), sa_vc=np.full((xi, xo), NONE, i4),
        sa_pri=np.zeros((xi, xo), i8), qmask=np.zeros((5, lanes // 32 + 1), i8), act=np.zeros((4, pv), i4),
        route_out=np.array([0, 0, 0, 0, 0, NONE, NONE], i8),
        acc=np.zeros(1), step=np.zeros(1, i8), dbg_held=np.zeros(lanes if p.debug else 0, i8),
        dbg_terminal=np.zeros(terms * v if p.debug else 0, i8), lat=lat, up_lat=up_lat,
        rng=np.array([(seed * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % (1 << 64) or 1], np.uint64),
        term_node=term_node, term_port=term_port, port_term=port_term,
        table=np.zeros((0, 0), i4) if table is None else np.ascontiguousarray(table, i4).reshape(n, -1),
    )
