"""Debug checks of the booksim router (``--check-invariants``), after every cycle.

- flits: every flit injected is delivered, in an input VC, in a crossbar queue, in an output
  FIFO, or on a channel (the flit rings, the deliveries ring);
- credits, per output VC of a network port: the flits it counts as outstanding (BookSim2's
  buffer state) are exactly those between it and its downstream VC: in this router's crossbar
  queue and output FIFO, on the channel, in the downstream VC's FIFO, or gone from it with
  their credit still queued at the downstream input port or on the credit channel. The same
  for the ejection port (its terminal returns a credit per flit) and the terminal's view of
  the injection VCs;
- no input VC holds more than ``--buf`` flits, and each VC's bit in row ``q`` of ``b.qmask``
  (the VCs a router's stages visit, queues.py) is set exactly when it waits in queue ``q``;
- each router's port masks (ports.py) mark exactly its ports with credit messages queued and
  with flits in their output FIFO (ports sharing a bit: the bit is set if one of them has).
"""

from __future__ import annotations

from numba import njit

from netsim_fast._jit import KERNEL_STAGE_JIT
from netsim_fast.flit.booksim.ports import SHARED
from netsim_fast.flit.booksim.state import Q_HOLD, Q_NONE
from netsim_fast.flit.state import C_ERR_CYCLE, C_ERR_LANE, C_FLITS_IN, C_FLITS_OUT, ERR_CONSERVATION, ERR_COUNT, \
    ERR_CREDIT, ERR_OK, ERR_OVERFLOW


@njit(**KERNEL_STAGE_JIT)
def check_invariants(s, b, p, bp, t, held, scratch):
    """``held`` (int64[L]) and ``scratch`` (int64[N*V]) are work arrays."""
    inl, ovc, outl = s.inl, b.ovc, s.outl
    lanes = inl.shape[0]
    v, ports, conc = p.n_vcs, p.n_ports, p.conc
    first_local = ports - conc  # terminal port_term[node * conc + port - first_local] at a local port
    held[:] = 0
    scratch[:] = 0
    buffered = 0
    for lane in range(lanes):
        if inl[lane].len > p.buf:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = lane
            return ERR_OVERFLOW
        for q in range(Q_NONE + 1, Q_HOLD + 1):
            if ((b.qmask[q, lane >> 5] >> (lane & 31)) & 1) != (b.ivc[lane].queue == q):
                s.cnt[C_ERR_CYCLE] = t
                s.cnt[C_ERR_LANE] = lane
                return ERR_CONSERVATION
        buffered += inl[lane].len
    # flits counted against each output VC (index = output VC lane), wherever they are now
    for node in range(p.n_nodes):
        for j in range(b.node[node].xb_len):
            held[b.xb[(b.node[node].xb_head + j) % bp.xb_cap, node, 1]] += 1
        buffered += b.node[node].xb_len
    for f in range(b.of_len.shape[0]):
        for j in range(b.of_len[f]):
            held[b.of[(b.of_head[f] + j) % bp.of_cap, f, 1]] += 1
        buffered += b.of_len[f]
    on_links = 0
    for slot in range(bp.ring):
        on_links += b.ev_flit_n[slot] + b.ev_del_n[slot]
        for i in range(b.ev_cred_n[slot]):
            held[b.ev_cred[slot, i]] += 1
        for i in range(b.ev_tcred_n[slot]):
            scratch[b.ev_tcred[slot, i]] += 1
        for i in range(b.ev_flit_n[slot]):
            lane = b.ev_flit[slot, i, 0]
            port = (lane // v) % ports
            if port >= first_local:  # injected, not yet at the router
                scratch[b.port_term[inl[lane].node * conc + port - first_local] * v + lane % v] += 1
            else:
                held[inl[lane].up] += 1
    # flits in a downstream VC, and flits gone from it whose credit waits at its input port
    for lane in range(lanes):
        port = (lane // v) % ports
        node = inl[lane].node
        n = inl[lane].len
        c = node * ports + port
        for j in range(b.cq_len[c]):
            if (b.cq[(b.cq_head[c] + j) % b.cq.shape[0], c] >> (lane % v)) & 1:
                n += 1
        if (b.cmsg[node, port] >> (lane % v)) & 1:
            n += 1
        if port >= first_local:
            term = b.port_term[node * conc + port - first_local]
            if term >= 0:  # a router of an anynet file may have fewer terminals than local ports
                scratch[term * v + lane % v] += n
        elif inl[lane].up >= 0:
            held[inl[lane].up] += n
    for o in range(lanes):
        if outl[o].port >= first_local:
            continue  # ejection: checked below through the deliveries
        if outl[o].down >= 0 and held[o] != ovc[o].occ:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = o
            return ERR_CREDIT
    for x in range(scratch.shape[0]):
        if scratch[x] != b.tvc[x].occ:
            s.cnt[C_ERR_CYCLE] = t
            term = x // v
            s.cnt[C_ERR_LANE] = (b.term_node[term] * ports + b.term_port[term]) * v + x % v
            return ERR_CREDIT
    if s.cnt[C_FLITS_IN] != s.cnt[C_FLITS_OUT] + buffered + on_links:
        s.cnt[C_ERR_CYCLE] = t
        return ERR_CONSERVATION
    return _check_port_marks(s, b, p, t)


@njit(**KERNEL_STAGE_JIT)
def _check_port_marks(s, b, p, t):
    """The port masks of every router against its credit FIFOs and output FIFOs; no credit
    message left over from an internal step."""
    ports = p.n_ports
    for node in range(p.n_nodes):
        ok = b.node[node].cmsg_ports == 0
        for port in range(ports):
            f = node * ports + port
            bit = min(port, SHARED)
            for mask, busy in ((b.node[node].cq_ports, b.cq_len[f] > 0), (b.node[node].of_ports, b.of_len[f] > 0)):
                marked = ((mask >> bit) & 1) == 1
                if (busy and not marked) or (port < SHARED and marked and not busy):
                    ok = False
            if b.cmsg[node, port] != 0:
                ok = False
        if not ok:
            s.cnt[C_ERR_CYCLE] = t
            s.cnt[C_ERR_LANE] = node * ports * p.n_vcs  # its first lane names the router
            return ERR_COUNT
    return ERR_OK
