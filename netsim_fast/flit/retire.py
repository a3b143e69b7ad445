"""Retire finished packets from the live packet array, so a long open-loop run keeps bounded state.

A packet's id is its index in ``state.pkt``, and ids live in the kernel's state: in every
buffered flit (``id << 32 | code``), the event rings, the injection bindings (``inj.pkt``) and
the source queues (``node.src_head``, ``src_tail``, ``pkt.next``). Without retirement the
array holds every packet a run ever created: 10^6 cycles of a saturated 16x16 torus with
1-flit packets is tens of GB.

Between batches, ``RetiredPackets.retire`` removes the longest prefix of finished packets
(tail delivered, or dropped at a full ``--source-queue``) and renumbers every live reference
by subtracting the prefix's length. The order of ids is unchanged, so every tie-break on them
(``--vc-alloc age``) and every result is bit-identical to a run without retirement
(tests/test_flit_retire.py). The delivered packets' columns move to compact chunks, which
``table`` joins with the live ones for the summary and the trace; dropped packets are only
counted, by the kernel (``C_DROPPED*``).

Only open-loop runs retire: finite workloads and the studies built on them read packets by id.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.flit import state as fs

RETIRE_AT = 1 << 20  # live packet records before a retirement is attempted (about 64 MB)

# The columns a summary or trace needs, by packet_table name and PACKET field.
COLUMNS = {"src": "src", "dst": "dst", "size_flits": "len", "created_cycle": "release",
           "injected_cycle": "injected", "head_arrival_cycle": "head_del",
           "tail_arrival_cycle": "tail_del", "hops": "hops", "flit_gap_sum": "flit_gap",
           "flit_inject_gap_sum": "inj_gap"}
RETIRED_BYTES = sum(fs.PACKET.fields[field][0].itemsize for field in COLUMNS.values())  # per delivered packet


def _columns(state, end: int) -> dict:
    """Columns of packet records ``[0, end)`` not dropped; ``class`` too with several classes."""
    pkt = state.pkt[:end]
    kept = pkt["injected"] != fs.DROPPED
    out = {name: np.ascontiguousarray(pkt[field][kept]) for name, field in COLUMNS.items()}
    if state.cls.shape[0]:
        out["class"] = np.ascontiguousarray(state.cls[:end][kept])
    if state.kind.shape[0]:  # closed loop: request or reply, and its request's creation cycle
        out["kind"] = np.ascontiguousarray(state.kind[:end][kept])
        out["request_created_cycle"] = np.ascontiguousarray(state.born[:end][kept])
    return out


def live_table(state) -> dict:
    """Columns of the packets released so far and not dropped, from the live array."""
    return _columns(state, int(state.cnt[fs.C_NEXT_RELEASE]))


class RetiredPackets:
    """The delivered packets moved out of the live array, in id order, as column chunks."""

    def __init__(self, retire_at: int | None = None):
        self.retire_at = RETIRE_AT if retire_at is None else retire_at
        self.chunks: list[dict] = []
        self.count = 0  # records removed from the live array (delivered and dropped)
        self.joined: dict | None = None  # the table, once built at the end of the run

    def retire(self, state, upto: int | None = None) -> int:
        """Move the finished prefix out of ``state`` (in place), at most ``upto`` records (the
        latency limit's first unaccounted packet); returns its length, the amount every live
        packet id went down by (0 when the prefix is too short to be worth it)."""
        released = int(state.cnt[fs.C_NEXT_RELEASE])
        if released < self.retire_at:
            return 0
        pkt = state.pkt
        finished = (pkt["tail_del"][:released] >= 0) | (pkt["injected"][:released] == fs.DROPPED)
        open_ = np.flatnonzero(~finished)
        prefix = int(open_[0]) if open_.size else released
        if upto is not None:
            prefix = min(prefix, upto)
        if prefix < self.retire_at // 2:
            return 0
        self.chunks.append(_columns(state, prefix))
        self.count += prefix
        _renumber(state, prefix)
        return prefix

    def table(self, state) -> dict:
        """Columns of every packet released and not dropped: the retired ones, then the live.

        Called once the run is over (the summary, then the trace): the first call joins the
        chunks column by column, freeing each column's chunks as it goes, so the join needs
        little more memory than the table itself, and keeps the result for the next call."""
        if self.joined is None:
            live, joined = live_table(state), {}
            for name in list(live):
                joined[name] = np.concatenate([c.pop(name) for c in self.chunks] + [live.pop(name)])
            self.chunks, self.joined = [], joined
        return self.joined


def _renumber(state, shift: int) -> None:
    """Drop packet records ``[0, shift)`` and lower every live packet id by ``shift``."""
    cnt, pkt = state.cnt, state.pkt
    n = int(cnt[fs.C_NPKT])
    pkt[: n - shift] = pkt[shift:n]
    pkt[n - shift: n] = fs.new_packets(shift)  # fresh records for the slots appended next
    for side, fill in ((state.mid, fs.NONE), (state.cls, 0), (state.kind, 0), (state.born, 0)):  # beside PACKET
        if side.shape[0]:  # move with their packets
            side[: n - shift] = side[shift:n]
            side[n - shift: n] = fill
    live = pkt[: n - shift]
    nxt = live["next"]
    live["next"] = np.where(nxt != fs.NONE, nxt - shift, fs.NONE)
    for field in ("src_head", "src_tail"):
        ids = state.node[field]
        state.node[field] = np.where(ids != fs.NONE, ids - shift, fs.NONE)
    state.q_last[:] = np.where(state.q_last != fs.NONE, state.q_last - shift, fs.NONE)
    bound = state.inj["pkt"]
    state.inj["pkt"] = np.where(bound != fs.NONE, bound - shift, fs.NONE)
    # Buffered flits: slots outside a ring's occupied span hold stale flits that are never read;
    # those of live packets shift with the rest, those of retired packets are left alone.
    for flits in (state.in_buf, state.ol_buf["flit"], state.ev_flit[:, :, 1], state.ev_eject):
        _shift_flits(flits, shift)
    cnt[fs.C_NPKT] -= shift
    cnt[fs.C_NEXT_RELEASE] -= shift


def _shift_flits(flits: np.ndarray, shift: int) -> None:
    """Lower the packet id of every flit in ``flits`` (a view, edited in place) whose id is at
    least ``shift``."""
    live = (flits >> 32) >= shift
    flits[live] -= np.int64(shift) << 32
