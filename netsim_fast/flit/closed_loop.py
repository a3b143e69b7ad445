"""Request-reply (closed-loop) traffic: packets the kernel creates as the run goes
(``--closed-loop``; the booksim router's ``use_read_write``; docs/flit-engine.md, "Request-reply
traffic").

Open-loop packets are drawn in Python ahead of the kernel. Here a reply exists only once its
request has arrived, and a request only if its terminal has fewer than ``--outstanding``
requests waiting for their replies, so the kernel creates both, in the release stage, at the
end of the packet array (ids stay in creation order, creation cycles non-decreasing with id,
as every open-loop figure assumes):

- Python draws request *candidates* with the open-loop process (``s.cand``: source,
  destination, size, kind, cycle; ``append_candidates``) at the rate of whole transactions:
  ``--rate`` counts a request's flits and its reply's;
- ``create_packets`` (release stage of cycle ``t``) first creates the replies of the requests
  delivered before ``t`` (``s.pend``, in delivery order), then issues the candidates drawn at
  ``t``: a candidate whose terminal has ``p.outstanding`` requests out is not issued (the
  Bernoulli trial is lost, counted in ``cnt[C_SKIPPED*]``), as BookSim2's batch mode skips a
  request while ``max_outstanding_requests`` are out (``batchtrafficmanager.cpp``,
  ``_IssuePacket``);
- ``tail_delivered`` (ejection): a request's tail queues its reply at the destination, a
  reply's tail the closing of its request (``s.pend``); the next release stage creates the
  reply, or lowers its terminal's ``s.outstanding``.

A reply is created in the cycle after its request's tail arrived, with that arrival as its
creation cycle, and goes ahead of every request waiting in its terminal's source queue
(behind earlier replies): BookSim2 generates a pending reply before any new request
(``trafficmanager.cpp``, ``_IssuePacket``) and stamps it with the request's arrival time.
``s.born`` keeps, for both, the creation cycle of the request: the round trip of a reply is
its tail's arrival minus its ``born``, and a reply belongs to the measurement window its
request was created in (the window's stop rule waits for the replies of its requests).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.flit.state import (
    C_NCAND, C_NEXT_CAND, C_NPEND, C_NPKT, C_SKIPPED, C_SKIPPED_FLITS, C_WIN_SKIPPED_FLITS, CAND, ERR_CAPACITY,
    ERR_OK, KIND_ANY, KIND_READ, KIND_WRITE, FlitState,
)


@njit(**KERNEL_JIT)
def create_packets(s, p, t):
    """Release stage of cycle ``t``, before the packets are linked into their source queues:
    the replies of requests delivered before ``t``, then the requests of the candidates drawn
    at ``t``. Returns ``ERR_OK``, or ``ERR_CAPACITY`` if the packet array is full (the run loop
    sizes it so that it never is)."""
    cnt, pkts, born, kind, pend, cand, outs = s.cnt, s.pkt, s.born, s.kind, s.pend, s.cand, s.outstanding
    cap = pkts.shape[0]
    n_pend = cnt[C_NPEND]
    done = 0
    while done < n_pend and pend[done, 3] < t:  # delivered in this cycle (booksim terminals): the next
        if pend[done, 2] == KIND_ANY:  # a reply arrived: its request is no longer out
            outs[pend[done, 0]] -= 1
            done += 1
            continue
        j = cnt[C_NPKT]
        if j >= cap:
            return ERR_CAPACITY
        pkts[j].src = pend[done, 0]
        pkts[j].dst = pend[done, 1]
        pkts[j].len = s.reply_len[pend[done, 2] - 2]
        pkts[j].release = pend[done, 3]
        pkts[j].phase = 0
        kind[j] = pend[done, 2]
        born[j] = pend[done, 4]
        cnt[C_NPKT] = j + 1
        done += 1
    if done:
        for i in range(done, n_pend):
            for f in range(5):
                pend[i - done, f] = pend[i, f]
        cnt[C_NPEND] = n_pend - done
    k = cnt[C_NEXT_CAND]
    while k < cnt[C_NCAND] and cand[k].release <= t:
        term = cand[k].src
        if p.outstanding > 0 and outs[term] >= p.outstanding:
            flits = cand[k].len + s.reply_len[cand[k].kind]
            cnt[C_SKIPPED] += 1
            cnt[C_SKIPPED_FLITS] += flits
            if cand[k].release >= p.win_start and cand[k].release < p.win_end:
                cnt[C_WIN_SKIPPED_FLITS] += flits
        else:
            j = cnt[C_NPKT]
            if j >= cap:
                return ERR_CAPACITY
            pkts[j].src = term
            pkts[j].dst = cand[k].dst
            pkts[j].len = cand[k].len
            pkts[j].release = cand[k].release
            pkts[j].phase = 0
            kind[j] = cand[k].kind
            born[j] = cand[k].release
            outs[term] += 1
            cnt[C_NPKT] = j + 1
        k += 1
    cnt[C_NEXT_CAND] = k
    return ERR_OK


@njit(**KERNEL_JIT)
def tail_delivered(s, pkt, when):
    """Packet ``pkt``'s tail reached its destination at ``when``: a request queues its reply, a
    reply the closing of its request, both done by the first release stage after ``when``
    (so every router sees a delivery in the same cycle, whether its terminals read before or
    after the release stage). Returns ``ERR_OK``, or ``ERR_CAPACITY`` if ``s.pend`` is full."""
    k = s.kind[pkt]
    i = s.cnt[C_NPEND]
    if i >= s.pend.shape[0]:  # sized for two cycles of deliveries (flit/state.py): never, but checked
        return ERR_CAPACITY
    s.pend[i, 3] = when
    if k == KIND_READ or k == KIND_WRITE:
        s.pend[i, 0] = s.pkt[pkt].dst
        s.pend[i, 1] = s.pkt[pkt].src
        s.pend[i, 2] = k + 2
        s.pend[i, 4] = s.born[pkt]
    else:
        s.pend[i, 0] = s.pkt[pkt].dst
        s.pend[i, 2] = KIND_ANY
    s.cnt[C_NPEND] = i + 1
    return ERR_OK


# -- Python side ----------------------------------------------------------------------------

def set_reply_sizes(state: FlitState, read_reply: int, write_reply: int) -> FlitState:
    """Reply flits by request kind: a read's (``--reply-flits``), a write's."""
    state.reply_len[:] = 0
    state.reply_len[KIND_READ] = read_reply
    state.reply_len[KIND_WRITE] = write_reply
    return state


def set_vc_ranges(state: FlitState, rw_vcs) -> FlitState:
    """The booksim router's VC range of each kind: ``rw_vcs`` (begin, end) of read requests,
    write requests, read replies, write replies (``Config.rw_vcs``)."""
    for kind in range(1, 5):
        lo, hi = rw_vcs[2 * kind - 2], rw_vcs[2 * kind - 1]
        state.rw_vc[kind] = (lo, hi - lo + 1)
    return state


def append_candidates(state: FlitState, src, dst, length, release, kind) -> FlitState:
    """Add request candidates (in non-decreasing cycle order), first dropping the ones already
    drawn (nothing refers to a candidate once drawn)."""
    cnt = state.cnt
    used, have = int(cnt[C_NEXT_CAND]), int(cnt[C_NCAND])
    live = state.cand[used:have]
    count = int(len(src))
    cand = state.cand
    if have - used + count > cand.shape[0] or used:
        cand = np.zeros(max(2 * (have - used + count), 1024), CAND).view(np.recarray)
        cand[: have - used] = live
    start = have - used
    new = cand[start: start + count]
    new["src"], new["dst"], new["len"], new["release"], new["kind"] = src, dst, length, release, kind
    cnt[C_NEXT_CAND], cnt[C_NCAND] = 0, start + count
    return state._replace(cand=cand)


def packets_needed(state: FlitState, t_end: int) -> int:
    """Packet records a batch up to ``t_end`` may create at most: every candidate drawn before
    ``t_end`` issued, plus a reply for each of those and for every request already out."""
    cnt = state.cnt
    used, have = int(cnt[C_NEXT_CAND]), int(cnt[C_NCAND])
    drawn = int(np.searchsorted(state.cand["release"][used:have], t_end, side="left"))
    out = int(state.outstanding.sum(dtype=np.int64))
    return int(cnt[C_NPKT]) + 2 * drawn + out + int(cnt[C_NPEND]) + 1


def candidate_kinds(cfg, chunk: int, count: int):
    """The kind of each candidate of a chunk: a write with probability ``write_fraction``
    (from its own stream, ``SeedSequence([seed, 0x12EAD, chunk])``), else a read."""
    from netsim_fast.flit.state import KIND_WRITE as write

    if not cfg.write_fraction:
        return np.full(count, KIND_READ, np.int32)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 0x12EAD, chunk]))
    return np.where(rng.random(count) < cfg.write_fraction, write, KIND_READ).astype(np.int32)


