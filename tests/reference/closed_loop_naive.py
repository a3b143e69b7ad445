"""The plain reference of request-reply traffic (docs/flit-engine.md, "Request-reply traffic"),
on top of the reference flit engine: packets created as the run goes, in Python lists.

Written from the documented rules, not from flit/closed_loop.py:

- stage 2 of cycle ``t`` first creates the replies of the requests whose tails arrived before
  ``t`` (in the order they arrived), each ``reply_flits`` long, from the request's destination
  back to its source, created at the request's arrival cycle; then every candidate drawn at
  ``t`` whose terminal has fewer than ``outstanding`` requests out (0: no limit) becomes a
  request; the others are not issued;
- a reply joins its source queue behind the replies queued there and ahead of every queued
  request; a request joins the tail;
- requests route on VCs ``0 .. V/2-1`` and replies on ``V/2 .. V-1``, the routing run on ``V/2``
  VCs for both;
- a request is out from its creation until its reply's tail arrives; stage 2 of cycle ``t``
  sees the arrivals of the cycles before ``t`` only (replies to create, requests closed).
"""

from __future__ import annotations

import numpy as np

from tests.reference.flit_naive import NaiveFlitSim


class NaiveClosedLoop(NaiveFlitSim):
    def __init__(self, topo, *, cand, outstanding: int, reply_flits: int, write_reply_flits: int, **engine):
        empty = np.zeros(0, np.int64)
        super().__init__(topo, **engine, src=empty, dst=empty, length=empty, release=empty)
        self.half = self.V // 2
        # the routing object sees one message class's VCs
        self.routing = type(self.routing)(topo, engine["routing"], self.half)
        self.cand = [tuple(int(x) for x in row) for row in zip(*cand)]  # (src, dst, len, kind, release)
        self.next_cand = 0
        self.R = outstanding
        self.reply_len = {1: reply_flits, 2: write_reply_flits}
        self.out = [0] * self.T
        self.pend = []  # (reply src, reply dst, reply kind, request arrival, request created)
        self.kind, self.born = [], []
        self.not_issued = 0

    def _new(self, src, dst, length, created, kind, born) -> int:
        p = len(self.src)
        for lst, value in ((self.src, src), (self.dst, dst), (self.len, length), (self.rel, created),
                           (self.kind, kind), (self.born, born), (self.injected, -1), (self.head_delivered, -1),
                           (self.tail_delivered, -1), (self.flit_gap, 0), (self.hops, -1),
                           (self.next_delivered, 0), (self.inj_gap, 0)):
            lst.append(value)
        self.n_pkts = p + 1
        return p

    def _release(self, t: int) -> None:
        while self.pend and self.pend[0][3] < t:
            src, dst, kind, arrived, born = self.pend.pop(0)
            if kind == 0:  # a reply came back: its request is no longer out
                self.out[src] -= 1
                continue
            p = self._new(src, dst, self.reply_len[kind - 2], arrived, kind, born)
            q = self.srcq[src]
            q.insert(sum(1 for x in q if self.kind[x] >= 3), p)  # behind the replies, ahead of requests
        while self.next_cand < len(self.cand) and self.cand[self.next_cand][4] == t:
            src, dst, length, kind, rel = self.cand[self.next_cand]
            self.next_cand += 1
            if self.R and self.out[src] >= self.R:
                self.not_issued += 1
                continue
            self.out[src] += 1
            self.srcq[src].append(self._new(src, dst, length, rel, kind, rel))

    def _deliver(self, pkt: int, idx: int, t: int) -> None:
        super()._deliver(pkt, idx, t)
        if idx == self.len[pkt] - 1:
            if self.kind[pkt] in (1, 2):
                self.pend.append((self.dst[pkt], self.src[pkt], self.kind[pkt] + 2, t, self.born[pkt]))
            else:
                self.pend.append((self.dst[pkt], -1, 0, t, -1))

    def _rows(self, r: int, pkt: int, n_vcs: int) -> list:
        rows = super()._rows(r, pkt, self.half)
        if self.kind[pkt] >= 3:
            rows = [(port, lo + self.half, hi + self.half, pri) for port, lo, hi, pri in rows]
        return rows

    def run_cycles(self, cycles: int) -> dict:
        for t in range(cycles):
            self.step(t)
        return {name: np.asarray(getattr(self, attr), np.int64) for name, attr in (
            ("src", "src"), ("dst", "dst"), ("size_flits", "len"), ("created_cycle", "rel"), ("kind", "kind"),
            ("request_created_cycle", "born"), ("injected_cycle", "injected"),
            ("head_arrival_cycle", "head_delivered"), ("tail_arrival_cycle", "tail_delivered"))}
