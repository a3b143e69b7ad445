"""A message-level LogP machine with the stalling rule of Bilardi et al., section 2.2: its
clock, the compiled event loop ``run_kernel``.

The machine executes a ``Program`` (``logp_program``) under the parameters L, o, G and the
capacity constraint ``C = ceil(L/G)``, in discrete time. It is event driven: it jumps from one
time at which something can happen to the next, and all its state is flat numpy arrays
(``MachineState``). logp/run.py loads a program into that state, draws the message delays and
runs it (``run``); this module is the clock that moves the state from one event to the next.

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

Notes
-----
Bilardi et al., "BSP vs LogP" (papers/002), section 2.2: operational/stalling processors,
submission, acceptance, delivery within L, acquisition with overhead o, the gap G, the capacity
constraint ``ceil(L/G)`` and the Stalling Rule (``min{k, s}`` accepted per destination and time).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT
from netsim_fast.workloads.logp_program import (OP_BACKGROUND, OP_COMPUTE, OP_RECV, OP_RECV_ALL,
                                             OP_SEND, OP_SET_REG, OP_WAIT_ALIGN, OP_WAIT_REG,
                                             OP_WAIT_UNTIL)

NEVER = np.int64(2**62)
NO_MSG = -1

BUSY_NONE = 0
BUSY_SEND = 1
BUSY_ACQ = 2
BUSY_COMPUTE = 3

ERR_OK = 0
ERR_DEADLOCK = 1
ERR_TIMEOUT = 2


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
