"""A message-level LogP machine with the stalling rule of Bilardi et al., section 2.2.

The machine executes a ``Program`` (``logp_program``) under the parameters L, o, G and the
capacity constraint ``C = ceil(L/G)``, in discrete time. It is event driven: it jumps from one
time at which something can happen to the next, and all its state is flat numpy arrays.

Event semantics (one time ``t``, phases in this order)
-------------------------------------------------------
A. *Delivery.* Every message whose delivery time is ``t`` leaves the medium (it stops being
   in transit) and is appended to its box (same-time deliveries in message-id order).
B. *Completion.* A processor whose operation ends at ``t`` finishes it. A SEND ends with the
   *submission* of its message: the message joins the FIFO of messages waiting for acceptance
   at its destination, and the processor is *stalling* from now until acceptance. An
   acquisition ends with the message acquired; a COMPUTE simply ends.
C. *Acceptance* (the stalling rule). For each destination ``i`` with ``C - s`` messages in
   transit and ``k`` submitted messages waiting, ``min(k, s)`` of them are accepted, oldest
   submission first (ties: lower source id). An accepted message gets the delivery time
   ``t + d`` with ``d`` in ``[1, L]`` from the delay model, and its sender becomes
   operational at ``t``. So a message is in transit during ``[accept, accept + d)``, never
   more than ``C`` are in transit to one destination, and a message accepted at submission
   costs no stall.
D. *Operation.* Every operational processor that is not busy starts what its program says:
   zero-time operations (register, background box, a wait whose time has come) run at once,
   then at most one timed operation (SEND: ``o`` steps then submission at ``t + o``; RECV:
   ``o`` steps; COMPUTE(n): n steps) starts, or the processor idles.

A processor thus does one thing at a time (compute, prepare a submission, acquire), as in
section 2.2; starts of consecutive submissions, and of consecutive acquisitions, are at least
``G`` apart. *Background acquisition*: while its current operation cannot start yet (a wait,
the gap before a SEND, an empty box), a processor acquires a message from its background box
if the acquisition can start now and end (``o`` steps) no later than the earliest start of the
pending operation, so background acquisitions never delay the program's own schedule.

Delay models (the medium's choice of delivery time, section 2.2's first nondeterminism)
---------------------------------------------------------------------------------------
``uniform``: ``d`` uniform in ``[1, L]`` from a seeded generator; ``max`` (adversarial):
``d = L`` always, which for any acceptance schedule maximises the number of messages in
transit at every time (the occupancy is monotone in each delay), hence the stalling; ``min``:
``d = 1``. Delays are drawn per message before the run (each message is accepted once), so the
same seed gives bit-identical results. The acceptance order among waiting messages (the second
nondeterminism, "any order is possible") is fixed to FIFO.

Notes
-----
Bilardi et al., "BSP vs LogP" (papers/002), section 2.2: operational/stalling processors,
submission, acceptance, delivery within L, acquisition with overhead o, the gap G, the capacity
constraint ``ceil(L/G)`` and the Stalling Rule (``min{k, s}`` accepted per destination and time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.logp_params import LogPParams
from netsim_fast.workloads.logp_program import (OP_BACKGROUND, OP_COMPUTE, OP_RECV, OP_RECV_ALL,
                                             OP_SEND, OP_SET_REG, OP_WAIT_ALIGN, OP_WAIT_REG,
                                             OP_WAIT_UNTIL, Program)
from netsim_fast.errors import ConfigError, SimulationError

NEVER = np.int64(2**62)
NO_MSG = -1

BUSY_NONE = 0
BUSY_SEND = 1
BUSY_ACQ = 2
BUSY_COMPUTE = 3

ERR_OK = 0
ERR_DEADLOCK = 1
ERR_TIMEOUT = 2

DELAY_MODES = ("uniform", "max", "min")


class MachineState(NamedTuple):
    """Machine state; ``p`` processors, ``m`` messages, ``nb`` boxes."""

    pc: np.ndarray              # int64[p]: index of the current operation in Program.op_*
    busy_until: np.ndarray      # int64[p]: end of the running timed operation
    busy_kind: np.ndarray       # int32[p]: BUSY_* of the running operation
    busy_msg: np.ndarray        # int64[p]: message being prepared or acquired, NO_MSG otherwise
    stalled_msg: np.ndarray     # int64[p]: submitted message awaiting acceptance, NO_MSG if operational
    last_send: np.ndarray       # int64[p]: start of the last submission (-NEVER before any)
    last_acq: np.ndarray        # int64[p]: start of the last acquisition (-NEVER before any)
    bg_box: np.ndarray          # int64[p]: background box, -1 none
    reg: np.ndarray             # int64[p]: the processor's time-stamp register
    wake: np.ndarray            # int64[p]: earliest time the processor may act again
    finish: np.ndarray          # int64[p]: time its program ended, -1 while running
    stall_cycles: np.ndarray    # int64[p]: total time spent stalling (submission -> acceptance)
    stall_events: np.ndarray    # int64[p]: submissions not accepted at once
    late_events: np.ndarray     # int64[p]: waits reached after their target time
    late_cycles: np.ndarray     # int64[p]: total lateness of those waits
    transit_to: np.ndarray      # int64[p]: messages in transit to the processor now
    transit_from: np.ndarray    # int64[p]: messages in transit from the processor now
    max_transit_to: np.ndarray  # int64[p]: maximum of transit_to over the run
    max_transit_from: np.ndarray  # int64[p]: maximum of transit_from over the run
    pend_head: np.ndarray       # int64[p]: first submitted, unaccepted message for the dst, -1 none
    pend_tail: np.ndarray       # int64[p]: last one
    pend_next: np.ndarray       # int64[m]: next message in its destination's waiting FIFO
    delay: np.ndarray           # int64[m]: delivery delay in [1, L] used if the message is accepted
    submit_t: np.ndarray        # int64[m]: submission time, -1 before
    accept_t: np.ndarray        # int64[m]: acceptance time
    deliver_t: np.ndarray       # int64[m]: delivery time
    acquire_t: np.ndarray       # int64[m]: time the acquisition ended
    payload: np.ndarray         # int64[m]: time stamp carried by the message
    box_queue: np.ndarray       # int64[m]: arrived messages, per box in CSR slots (Program.box_ptr)
    box_head: np.ndarray        # int64[nb]: number of messages of the box acquired (or being acquired)
    box_tail: np.ndarray        # int64[nb]: number of messages of the box delivered
    heap_t: np.ndarray          # int64[m]: binary min-heap of (delivery time, message) in transit
    heap_m: np.ndarray          # int64[m]
    scalars: np.ndarray         # int64[3]: current time, heap length, processors finished


def new_state(prog: Program, delay: np.ndarray) -> MachineState:
    """Allocate the state of a fresh run of ``prog`` with per-message delays ``delay``."""
    p = prog.op_ptr.size - 1
    m = prog.msg_src.size
    nb = prog.box_owner.size

    def z(n, fill=0):
        return np.full(n, fill, dtype=np.int64)

    return MachineState(
        pc=prog.op_ptr[:-1].copy(), busy_until=z(p, -1), busy_kind=np.zeros(p, np.int32),
        busy_msg=z(p, NO_MSG), stalled_msg=z(p, NO_MSG), last_send=z(p, -NEVER),
        last_acq=z(p, -NEVER), bg_box=z(p, -1), reg=z(p), wake=z(p), finish=z(p, -1),
        stall_cycles=z(p), stall_events=z(p), late_events=z(p), late_cycles=z(p),
        transit_to=z(p), transit_from=z(p), max_transit_to=z(p), max_transit_from=z(p),
        pend_head=z(p, -1), pend_tail=z(p, -1), pend_next=z(m, -1),
        delay=np.ascontiguousarray(delay, dtype=np.int64), submit_t=z(m, -1), accept_t=z(m, -1),
        deliver_t=z(m, -1), acquire_t=z(m, -1), payload=z(m), box_queue=z(m, -1),
        box_head=z(nb), box_tail=z(nb), heap_t=z(max(m, 1)), heap_m=z(max(m, 1)),
        scalars=z(3))


# Helpers called per message or per processor and event are inlined: a call passing the
# state tuple of ~35 arrays costs about a microsecond (measured: the run twice as slow).

# ------------------------------------------------------------------ binary heap over (t, msg)

@njit(**JIT)
def _heap_less(ht, hm, i, j):
    return ht[i] < ht[j] or (ht[i] == ht[j] and hm[i] < hm[j])


@njit(**JIT)
def _heap_swap(ht, hm, i, j):
    ht[i], ht[j] = ht[j], ht[i]
    hm[i], hm[j] = hm[j], hm[i]


@njit(inline="always", **JIT)
def _heap_push(st, t, msg):
    ht, hm = st.heap_t, st.heap_m
    i = st.scalars[1]
    ht[i] = t
    hm[i] = msg
    st.scalars[1] = i + 1
    while i > 0:
        parent = (i - 1) // 2
        if not _heap_less(ht, hm, i, parent):
            break
        _heap_swap(ht, hm, i, parent)
        i = parent


@njit(inline="always", **JIT)
def _heap_pop(st):
    ht, hm = st.heap_t, st.heap_m
    msg = hm[0]
    n = st.scalars[1] - 1
    st.scalars[1] = n
    ht[0] = ht[n]
    hm[0] = hm[n]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        child = left
        if left + 1 < n and _heap_less(ht, hm, left + 1, left):
            child = left + 1
        if not _heap_less(ht, hm, child, i):
            break
        _heap_swap(ht, hm, i, child)
        i = child
    return msg


# ------------------------------------------------------------------------------ phases

@njit(**JIT)
def _deliver(prog, st, t):
    """Phase A. Reads/writes the heap, transit counters, box_queue, box_tail, deliver_t."""
    while st.scalars[1] > 0 and st.heap_t[0] == t:
        msg = _heap_pop(st)
        dst = prog.msg_dst[msg]
        st.transit_to[dst] -= 1
        st.transit_from[prog.msg_src[msg]] -= 1
        box = prog.msg_box[msg]
        st.box_queue[prog.box_ptr[box] + st.box_tail[box]] = msg
        st.box_tail[box] += 1
        st.deliver_t[msg] = t
        # An idle owner may now acquire it; busy or stalled owners keep their wake time.
        if st.busy_kind[dst] == BUSY_NONE and st.stalled_msg[dst] == NO_MSG:
            st.wake[dst] = t


@njit(**JIT)
def _complete(prog, st, t):
    """Phase B. Ends operations with busy_until == t; a SEND submits into the waiting FIFO."""
    p = st.pc.size
    for i in range(p):
        kind = st.busy_kind[i]
        if kind == BUSY_NONE or st.busy_until[i] != t:
            continue
        msg = st.busy_msg[i]
        st.busy_kind[i] = BUSY_NONE
        st.busy_msg[i] = NO_MSG
        st.wake[i] = t
        if kind == BUSY_SEND:
            st.submit_t[msg] = t
            dst = prog.msg_dst[msg]
            if st.pend_tail[dst] < 0:
                st.pend_head[dst] = msg
            else:
                st.pend_next[st.pend_tail[dst]] = msg
            st.pend_tail[dst] = msg
            st.stalled_msg[i] = msg
            st.wake[i] = NEVER
        elif kind == BUSY_ACQ:
            st.acquire_t[msg] = t


@njit(**JIT)
def _accept(prog, st, t, cap):
    """Phase C, the stalling rule: per destination accept min(k, cap - in transit), FIFO."""
    p = st.pc.size
    for dst in range(p):
        while st.pend_head[dst] >= 0 and st.transit_to[dst] < cap:
            msg = st.pend_head[dst]
            nxt = st.pend_next[msg]
            st.pend_head[dst] = nxt
            if nxt < 0:
                st.pend_tail[dst] = -1
            src = prog.msg_src[msg]
            st.accept_t[msg] = t
            _heap_push(st, t + st.delay[msg], msg)
            st.transit_to[dst] += 1
            st.transit_from[src] += 1
            if st.transit_to[dst] > st.max_transit_to[dst]:
                st.max_transit_to[dst] = st.transit_to[dst]
            if st.transit_from[src] > st.max_transit_from[src]:
                st.max_transit_from[src] = st.transit_from[src]
            waited = t - st.submit_t[msg]
            if waited > 0:
                st.stall_cycles[src] += waited
                st.stall_events[src] += 1
            st.stalled_msg[src] = NO_MSG
            st.wake[src] = t


@njit(inline="always", **JIT)
def _start_acquire(prog, st, i, box, t, o):
    slot = prog.box_ptr[box] + st.box_head[box]
    msg = st.box_queue[slot]
    st.box_head[box] += 1
    st.last_acq[i] = t
    st.busy_kind[i] = BUSY_ACQ
    st.busy_msg[i] = msg
    st.busy_until[i] = t + o
    st.wake[i] = t + o
    return msg


@njit(inline="always", **JIT)
def _idle(prog, st, i, t, next_start, o, G):
    """Background acquisition in idle time, or set ``wake``; ``next_start`` is the earliest
    start of the pending operation (NEVER if it waits for an arrival)."""
    wake = next_start
    box = st.bg_box[i]
    if box >= 0 and st.box_head[box] < st.box_tail[box]:
        start = max(t, st.last_acq[i] + G)
        if start + o <= next_start:
            if start == t:
                _start_acquire(prog, st, i, box, t, o)
                return
            wake = min(wake, start)
    st.wake[i] = wake


@njit(inline="always", **JIT)
def _step(prog, st, i, t, o, G):
    """Phase D for processor i: run zero-time operations, then start one timed operation or idle."""
    end = prog.op_ptr[i + 1]
    while True:
        pc = st.pc[i]
        if pc >= end:
            st.finish[i] = t
            st.wake[i] = NEVER
            st.scalars[2] += 1
            return
        code = prog.op_code[pc]
        a = prog.op_a[pc]
        b = prog.op_b[pc]
        if code == OP_COMPUTE:
            st.pc[i] = pc + 1
            if a > 0:
                st.busy_kind[i] = BUSY_COMPUTE
                st.busy_until[i] = t + a
                st.wake[i] = t + a
                return
        elif code == OP_SET_REG:
            st.reg[i] = t + a
            st.pc[i] = pc + 1
        elif code == OP_BACKGROUND:
            st.bg_box[i] = a
            st.pc[i] = pc + 1
        elif code == OP_WAIT_UNTIL or code == OP_WAIT_REG or code == OP_WAIT_ALIGN:
            if code == OP_WAIT_UNTIL:
                target = a
            elif code == OP_WAIT_REG:
                target = st.reg[i] + a
            else:
                target = t + (b - t % a) % a
            if target > t:
                _idle(prog, st, i, t, target, o, G)
                return
            # A processor parked at a wait is always stepped at its target time (its wake time;
            # background acquisitions end by then), so t > target means it arrived late.
            if target < t and code != OP_WAIT_ALIGN:
                st.late_events[i] += 1
                st.late_cycles[i] += t - target
            st.pc[i] = pc + 1
        elif code == OP_SEND:
            ready = st.last_send[i] + G
            if ready > t:
                _idle(prog, st, i, t, ready, o, G)
                return
            st.last_send[i] = t
            if b == 1:
                st.payload[a] = st.reg[i]
            st.busy_kind[i] = BUSY_SEND
            st.busy_msg[i] = a
            st.busy_until[i] = t + o
            st.wake[i] = t + o
            st.pc[i] = pc + 1
            return
        else:  # OP_RECV, OP_RECV_ALL
            size = prog.box_ptr[a + 1] - prog.box_ptr[a]
            if code == OP_RECV_ALL and st.box_head[a] == size:
                st.pc[i] = pc + 1
                continue
            if st.box_head[a] < st.box_tail[a]:
                ready = st.last_acq[i] + G
                if ready > t:
                    st.wake[i] = ready
                    return
                msg = _start_acquire(prog, st, i, a, t, o)
                if code == OP_RECV:
                    st.pc[i] = pc + 1
                    if b == 1:
                        st.reg[i] = st.payload[msg]
                return
            _idle(prog, st, i, t, NEVER, o, G)
            return


@njit(**JIT)
def run_kernel(prog, st, L, o, G, cap, t_max):
    """Run ``prog`` to completion from the state ``st``.

    Returns
    -------
    int
        ERR_OK; ERR_DEADLOCK when processors wait for messages that will never come (the time
        is left in ``st.scalars[0]``); ERR_TIMEOUT when the next event is after ``t_max``.
    """
    p = st.pc.size
    t = st.scalars[0]
    while True:
        _deliver(prog, st, t)
        _complete(prog, st, t)
        _accept(prog, st, t, cap)
        for i in range(p):
            # Only a processor whose wake time has come can act: a free one idles until its
            # computed time, or until a delivery (phase A), a completion (B) or an
            # acceptance (C) sets its wake time to t.
            if (st.wake[i] <= t and st.finish[i] < 0 and st.busy_kind[i] == BUSY_NONE
                    and st.stalled_msg[i] == NO_MSG):
                _step(prog, st, i, t, o, G)
        if st.scalars[2] == p:
            st.scalars[0] = t
            return ERR_OK
        nxt = NEVER
        if st.scalars[1] > 0:
            nxt = st.heap_t[0]
        for i in range(p):
            if st.wake[i] < nxt:
                nxt = st.wake[i]
        st.scalars[0] = t
        if nxt >= NEVER:
            return ERR_DEADLOCK
        if nxt > t_max:
            return ERR_TIMEOUT
        t = nxt


# ------------------------------------------------------------------------------ Python API

@dataclass
class LogPResult:
    """Outcome of one run of the machine.

    Attributes
    ----------
    time : int
        Makespan: the time the last processor ended its program.
    finish : int64[p]
        End time per processor.
    stall_time : int64[p]
        Time each processor spent stalling (submission to acceptance).
    stall_events : int64[p]
        Submissions each processor made that were not accepted at once.
    max_transit_to, max_transit_from : int64[p]
        Most messages ever in transit to / from each processor.
    late_events : int64[p]
        Scheduled waits a processor reached after their target time (0 for a schedule that
        holds, see the protocol builders).
    submit_t, accept_t, deliver_t, acquire_t : int64[m]
        Per-message times (-1 if it never happened).
    """

    time: int
    finish: np.ndarray
    stall_time: np.ndarray
    stall_events: np.ndarray
    max_transit_to: np.ndarray
    max_transit_from: np.ndarray
    late_events: np.ndarray
    submit_t: np.ndarray
    accept_t: np.ndarray
    deliver_t: np.ndarray
    acquire_t: np.ndarray

    @property
    def stalled(self) -> bool:
        return bool(self.stall_time.sum() > 0)

    def summary(self) -> dict:
        """Scalars for JSON: time and stall totals."""
        return {"time": int(self.time), "stall_time": int(self.stall_time.sum()),
                "stall_time_max": int(self.stall_time.max(initial=0)), "stalled": self.stalled,
                "stall_events": int(self.stall_events.sum()),
                "max_in_transit_to": int(self.max_transit_to.max(initial=0)),
                "max_in_transit_from": int(self.max_transit_from.max(initial=0)),
                "late_waits": int(self.late_events.sum())}


def draw_delays(n_msgs: int, L: int, mode: str, seed: int) -> np.ndarray:
    """Per-message delivery delays in ``[1, L]`` for the delay model ``mode``."""
    if mode == "uniform":
        return np.random.default_rng(seed).integers(1, L + 1, size=n_msgs, dtype=np.int64)
    if mode == "max":
        return np.full(n_msgs, L, dtype=np.int64)
    if mode == "min":
        return np.ones(n_msgs, dtype=np.int64)
    import difflib

    close = difflib.get_close_matches(mode, DELAY_MODES, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise ConfigError(f"unknown delay model '{mode}'; choose one of {', '.join(DELAY_MODES)}{hint}")


def run(prog: Program, params: LogPParams, delay: str | np.ndarray = "uniform", seed: int = 0,
        t_max: int | None = None) -> LogPResult:
    """Execute ``prog`` on a LogP machine with ``params``.

    Parameters
    ----------
    prog : Program
        From a ``ProgramBuilder`` (``params.p`` processors).
    params : LogPParams
        L, o, G, p.
    delay : {"uniform", "max", "min"} or int64[n_msgs]
        Delay model (see the module docstring) or explicit per-message delays in ``[1, L]``.
    seed : int
        Seed of the ``uniform`` delays.
    t_max : int, optional
        Abort with ``SimulationError`` if the run needs events after this time (default: a
        generous multiple of the sequentialised program).

    Returns
    -------
    LogPResult
    """
    p = prog.op_ptr.size - 1
    if p != params.p:
        raise ConfigError(f"program is for p = {p} processors but params.p = {params.p}")
    m = prog.msg_src.size
    if isinstance(delay, str):
        delays = draw_delays(m, params.L, delay, seed)
    else:
        delays = np.asarray(delay, dtype=np.int64)
        if delays.shape != (m,) or (m and (delays.min() < 1 or delays.max() > params.L)):
            raise ConfigError(f"explicit delays must be {m} integers in [1, L = {params.L}]")
    if t_max is None:
        busy = int(np.abs(prog.op_a).sum())
        t_max = 4 * (busy + (m + p) * (params.L + params.G + 2 * params.o)) + 1000
    st = new_state(prog, delays)
    err = run_kernel(prog, st, params.L, params.o, params.G, params.capacity, t_max)
    if err == ERR_DEADLOCK:
        waiting = np.flatnonzero(st.finish < 0)
        raise SimulationError(f"LogP program deadlocked at t = {st.scalars[0]}: processors "
                              f"{waiting[:8].tolist()} wait for messages that are never sent")
    if err == ERR_TIMEOUT:
        raise SimulationError(f"LogP run passed t_max = {t_max} at t = {st.scalars[0]}; "
                              "raise t_max or check the program")
    return LogPResult(time=int(st.finish.max()), finish=st.finish, stall_time=st.stall_cycles,
                      stall_events=st.stall_events, max_transit_to=st.max_transit_to,
                      max_transit_from=st.max_transit_from, late_events=st.late_events,
                      submit_t=st.submit_t, accept_t=st.accept_t, deliver_t=st.deliver_t,
                      acquire_t=st.acquire_t)
