"""Step-synchronous forwarding-rule kernel for gossiping (all-to-all broadcast) on full-port networks.

Model (Meyer & Sibeyn (papers/003), section 1 "Earlier Work" and section 3): in one step every
directed link carries at most one packet, a PU uses all its links at once (full port), and a
packet that arrives in step ``t`` can be sent on in step ``t + 1``. Packets are copied, not
moved: a PU keeps every packet that reaches it.

A PU acts only through *rules*. Rule ``e`` of PU ``u`` reads the packet that arrived on input
port ``rule_in[e]`` exactly ``rule_delay[e]`` steps ago and sends a copy on output port
``rule_out[e]``; rules without a schedule act in every step (time-independent), scheduled rules
act only in the steps where ``sched[rule_sched[e], t - 1] == rule_sched_on[e]`` (the paper's
switching strategy, section 3.2). A PU's own packets enter as *seeds*: ``seed[u, p, j]`` is the
packet treated as having arrived on port ``p`` at step ``-j``, so a ring rule with delay ``s``
emits the ``s`` seeds of its in-port in steps ``1 .. s`` and forwards arrivals after that.

The kernel checks what the paper's constructions promise instead of trusting them: a link that
two rules want to use in the same step stops the run with ``ERR_LINK_CONFLICT``; a run that
reaches its step limit before every PU knows every packet stops with ``ERR_INCOMPLETE`` and
names a PU that misses packets.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.workloads.gossip.plan import GossipRules

NONE = -1

ERR_OK = 0
ERR_LINK_CONFLICT = 1
ERR_INCOMPLETE = 2
ERR_RUNNING = 3  # step budget of this call used up, not finished yet


class GossipState(NamedTuple):
    """Mutable run state; scalars live in 1-element arrays (numba NamedTuples are immutable)."""

    hist: np.ndarray       # int32[n_nodes, n_ports, depth]: hist[u, p, j] arrived on p at step now-j
    incoming: np.ndarray   # int32[n_nodes, n_ports]: packets in flight this step, -1 none
    known: np.ndarray      # uint64[n_nodes, n_words]: bit set of the packets a PU knows
    n_known: np.ndarray    # int64[n_nodes]
    done_step: np.ndarray  # int64[n_nodes]: step after which the PU knew everything, -1 not yet
    link_step: np.ndarray  # int64[n_links]: last step in which the link carried a packet
    link_load: np.ndarray  # int64[n_links]: packets carried per link over the run
    busy: np.ndarray       # int64[max_steps + 1]: links busy in step t
    fresh: np.ndarray      # int64[max_steps + 1]: receives of packets new to the receiver in step t
    dup: np.ndarray        # int64[max_steps + 1]: receives of packets the receiver already knew
    step: np.ndarray       # int64[1]: last completed step
    n_done: np.ndarray     # int64[1]: PUs that know every packet
    err_ctx: np.ndarray    # int64[4]: (step, node, port, packet) of the first error


def new_state(rules: GossipRules, n_packets: int, max_steps: int) -> GossipState:
    """Fresh state: seeds in the arrival history, own packets known, nothing sent yet."""
    n_nodes, n_ports = rules.nbr.shape
    n_links = int((rules.link_id >= 0).sum())
    n_words = (n_packets + 63) // 64
    state = GossipState(
        hist=rules.seed.copy(),
        incoming=np.full((n_nodes, n_ports), NONE, np.int32),
        known=np.zeros((n_nodes, n_words), np.uint64),
        n_known=np.zeros(n_nodes, np.int64),
        done_step=np.full(n_nodes, NONE, np.int64),
        link_step=np.zeros(n_links, np.int64),
        link_load=np.zeros(n_links, np.int64),
        busy=np.zeros(max_steps + 1, np.int64),
        fresh=np.zeros(max_steps + 1, np.int64),
        dup=np.zeros(max_steps + 1, np.int64),
        step=np.zeros(1, np.int64),
        n_done=np.zeros(1, np.int64),
        err_ctx=np.full(4, NONE, np.int64),
    )
    _learn_own(rules.own, state.known, state.n_known, state.done_step, state.n_done, n_packets)
    return state


@njit(**JIT)
def _learn(known, n_known, node, pkt):
    """Mark ``pkt`` known at ``node``; return True if it was new."""
    word = pkt >> 6
    bit = np.uint64(1) << np.uint64(pkt & 63)
    if known[node, word] & bit:
        return False
    known[node, word] |= bit
    n_known[node] += 1
    return True


@njit(**JIT)
def _learn_own(own, known, n_known, done_step, n_done, n_packets):
    for u in range(own.shape[0]):
        for j in range(own.shape[1]):
            if own[u, j] >= 0:
                _learn(known, n_known, u, own[u, j])
        if n_known[u] == n_packets:
            done_step[u] = 0
            n_done[0] += 1


@njit(**JIT)
def _acts(rules, e, t):
    row = rules.rule_sched[e]
    if row < 0:
        return True
    horizon = rules.sched.shape[1]
    col = t - 1 if t - 1 < horizon else horizon - 1
    return rules.sched[row, col] == rules.rule_sched_on[e]


@njit(**JIT)
def advance(rules, state, n_packets, n_steps):
    """Run up to ``n_steps`` steps or until every PU knows all ``n_packets`` packets.

    Parameters
    ----------
    rules : GossipRules
    state : GossipState
        Updated in place.
    n_packets : int
        ``packets_per_pu * n_nodes``.
    n_steps : int
        Step budget of this call; ``state.busy`` must have room for the last step.

    Returns
    -------
    int
        ``ERR_OK`` when every PU knows every packet, ``ERR_RUNNING`` when the budget ran out
        first, ``ERR_LINK_CONFLICT`` when two rules sent on one link in one step (context in
        ``state.err_ctx``: step, node, output port, packet).
    """
    n_nodes = rules.nbr.shape[0]
    n_ports = rules.nbr.shape[1]
    depth = state.hist.shape[2]
    if state.n_done[0] == n_nodes:
        return ERR_OK
    for _ in range(n_steps):
        t = state.step[0] + 1
        # send: every rule reads the history as it was at the end of step t - 1
        for u in range(n_nodes):
            for e in range(rules.rule_ptr[u], rules.rule_ptr[u + 1]):
                if not _acts(rules, e, t):
                    continue
                pkt = state.hist[u, rules.rule_in[e], rules.rule_delay[e] - 1]
                if pkt < 0:
                    continue
                out = rules.rule_out[e]
                lnk = rules.link_id[u, out]
                if state.link_step[lnk] == t:
                    state.err_ctx[0] = t
                    state.err_ctx[1] = u
                    state.err_ctx[2] = out
                    state.err_ctx[3] = pkt
                    return ERR_LINK_CONFLICT
                state.link_step[lnk] = t
                state.link_load[lnk] += 1
                state.busy[t] += 1
                state.incoming[rules.nbr[u, out], rules.nbr_in_port[u, out]] = pkt
        # receive: shift the history by one step and learn the arrivals
        for v in range(n_nodes):
            was_done = state.n_known[v] == n_packets
            for p in range(n_ports):
                for j in range(depth - 1, 0, -1):
                    state.hist[v, p, j] = state.hist[v, p, j - 1]
                pkt = state.incoming[v, p]
                state.hist[v, p, 0] = pkt
                if pkt >= 0:
                    state.incoming[v, p] = NONE
                    if _learn(state.known, state.n_known, v, pkt):
                        state.fresh[t] += 1
                    else:
                        state.dup[t] += 1
            if not was_done and state.n_known[v] == n_packets:
                state.done_step[v] = t
                state.n_done[0] += 1
        state.step[0] = t
        if state.n_done[0] == n_nodes:
            return ERR_OK
    return ERR_RUNNING


@njit(**JIT)
def first_missing(known, n_known, n_packets):
    """(node, packet) of the first PU that misses a packet, or (-1, -1)."""
    for v in range(known.shape[0]):
        if n_known[v] == n_packets:
            continue
        for pkt in range(n_packets):
            if not known[v, pkt >> 6] & (np.uint64(1) << np.uint64(pkt & 63)):
                return v, pkt
    return NONE, NONE


def run(rules: GossipRules, n_packets: int, max_steps: int) -> tuple[int, GossipState]:
    """Run to completion or ``max_steps``; returns ``(code, state)`` with ``ERR_INCOMPLETE``
    (context: step, node, -1, missing packet) when the step limit was reached first."""
    state = new_state(rules, n_packets, max_steps)
    code = advance(rules, state, n_packets, max_steps)
    if code == ERR_RUNNING:
        node, pkt = first_missing(state.known, state.n_known, n_packets)
        state.err_ctx[:] = (state.step[0], node, NONE, pkt)
        code = ERR_INCOMPLETE
    return code, state
