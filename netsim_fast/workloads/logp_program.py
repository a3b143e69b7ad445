"""Message-passing programs for the LogP machine: operation codes, arrays, and a builder.

A program is one sequence of operations per processor, stored as CSR arrays
(``op_ptr[i]:op_ptr[i+1]`` are processor i's operations), plus a table of the messages the
program sends and of the *boxes* (mailboxes) they are delivered to. Every message is created
by the builder with its source, destination and box, so the machine never allocates anything
per message; a SEND names the message it submits, a RECV names the box it acquires from.

Operation codes (``op_a``, ``op_b`` are the two int64 arguments):

============== ===================================================================================
OP_COMPUTE     ``a`` local steps (busy ``a`` steps; 0 is a no-op)
OP_SEND        prepare message ``a`` for ``o`` steps, then submit it; the start respects the gap
               ``G`` since the previous submission's start. ``b = 1``: the message carries the
               processor's register as payload (used to broadcast time stamps)
OP_RECV        acquire one message of box ``a`` (``o`` steps) as soon as one has arrived and ``G``
               steps have passed since the previous acquisition's start; ``b = 1``: load the
               message's payload into the register
OP_RECV_ALL    like OP_RECV, repeated until every message addressed to box ``a`` is acquired
OP_WAIT_UNTIL  idle until absolute time ``a`` (all clocks start at 0 together)
OP_WAIT_REG    idle until time ``register + a``
OP_WAIT_ALIGN  idle until the first time ``t`` with ``t mod a == b``
OP_SET_REG     register = current time + ``a``
OP_BACKGROUND  from now on acquire messages of box ``a`` (``-1``: none) in idle time, see
               ``netsim_fast.logp.machine``
============== ===================================================================================

The machine is a timing machine: data values (sums, sorted keys) are computed by the program
builders with numpy; the only value the machine carries is the int64 payload (a time stamp).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from netsim_fast.errors import ConfigError

OP_COMPUTE = 0
OP_SEND = 1
OP_RECV = 2
OP_RECV_ALL = 3
OP_WAIT_UNTIL = 4
OP_WAIT_REG = 5
OP_WAIT_ALIGN = 6
OP_SET_REG = 7
OP_BACKGROUND = 8

OP_NAMES = ("compute", "send", "recv", "recv_all", "wait_until", "wait_reg", "wait_align",
            "set_reg", "background")


class Program(NamedTuple):
    """What the machine kernel reads. All arrays C-contiguous."""

    op_ptr: np.ndarray     # int64[p + 1]: CSR offsets of each processor's operations
    op_code: np.ndarray    # int32[n_ops]: OP_* code
    op_a: np.ndarray       # int64[n_ops]: first argument
    op_b: np.ndarray       # int64[n_ops]: second argument
    msg_src: np.ndarray    # int32[n_msgs]: sending processor
    msg_dst: np.ndarray    # int32[n_msgs]: destination processor
    msg_box: np.ndarray    # int32[n_msgs]: box the message is delivered to (owned by msg_dst)
    box_owner: np.ndarray  # int32[n_boxes]: processor owning the box
    box_ptr: np.ndarray    # int64[n_boxes + 1]: CSR offsets; box b receives box_ptr[b+1]-box_ptr[b] msgs


class ProgramBuilder:
    """Collects operations in vectorised blocks and freezes them into a ``Program``.

    ``ops(procs, code, a, b)`` appends one operation to each processor in ``procs`` (arrays
    broadcast); blocks keep their call order per processor, and within one call a processor
    listed twice gets its operations in array order.

    Parameters
    ----------
    p : int
        Number of processors.
    """

    def __init__(self, p: int):
        self.p = int(p)
        self._proc, self._code, self._a, self._b = [], [], [], []
        self._msg_src, self._msg_dst, self._msg_box = [], [], []
        self._box_owner = []
        self._n_msgs = 0
        self._n_boxes = 0

    def boxes(self, owners) -> np.ndarray:
        """Create one box per entry of ``owners`` (processor ids); returns their int64 ids."""
        owners = np.atleast_1d(np.asarray(owners, dtype=np.int32))
        ids = np.arange(self._n_boxes, self._n_boxes + owners.size, dtype=np.int64)
        self._box_owner.append(owners)
        self._n_boxes += owners.size
        return ids

    def messages(self, src, dst, box) -> np.ndarray:
        """Create messages (arrays broadcast); returns their int64 ids."""
        src, dst, box = np.broadcast_arrays(np.asarray(src), np.asarray(dst), np.asarray(box))
        src, dst, box = (np.atleast_1d(x).ravel() for x in (src, dst, box))
        ids = np.arange(self._n_msgs, self._n_msgs + src.size, dtype=np.int64)
        self._msg_src.append(src.astype(np.int32))
        self._msg_dst.append(dst.astype(np.int32))
        self._msg_box.append(box.astype(np.int32))
        self._n_msgs += src.size
        return ids

    def ops(self, procs, code, a=0, b=0) -> None:
        """Append operation ``code(a, b)`` to each processor of ``procs`` (``code`` may be an array)."""
        procs, code, a, b = np.broadcast_arrays(np.asarray(procs), np.asarray(code), np.asarray(a),
                                                np.asarray(b))
        procs = np.atleast_1d(procs).ravel()
        self._proc.append(procs.astype(np.int64))
        self._code.append(np.atleast_1d(code).ravel().astype(np.int32))
        self._a.append(np.atleast_1d(a).ravel().astype(np.int64))
        self._b.append(np.atleast_1d(b).ravel().astype(np.int64))

    def build(self) -> Program:
        """Freeze into a ``Program`` (validates ids; raises ``ConfigError`` on a broken program)."""
        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)  # noqa: E731
        proc = cat(self._proc, np.int64)
        order = np.argsort(proc, kind="stable")
        op_code = np.ascontiguousarray(cat(self._code, np.int32)[order])
        op_a = np.ascontiguousarray(cat(self._a, np.int64)[order])
        op_b = np.ascontiguousarray(cat(self._b, np.int64)[order])
        op_ptr = np.zeros(self.p + 1, dtype=np.int64)
        np.cumsum(np.bincount(proc, minlength=self.p)[: self.p], out=op_ptr[1:])
        msg_src = cat(self._msg_src, np.int32)
        msg_dst = cat(self._msg_dst, np.int32)
        msg_box = cat(self._msg_box, np.int32)
        box_owner = cat(self._box_owner, np.int32)
        box_ptr = np.zeros(self._n_boxes + 1, dtype=np.int64)
        np.cumsum(np.bincount(msg_box, minlength=self._n_boxes), out=box_ptr[1:])
        prog = Program(op_ptr, op_code, op_a, op_b, msg_src, msg_dst, msg_box, box_owner, box_ptr)
        validate(prog)
        return prog


def validate(prog: Program) -> None:
    """Check ids and ownership: every message sent once by its source, boxes owned by dst."""
    p = prog.op_ptr.size - 1
    proc = np.repeat(np.arange(p), np.diff(prog.op_ptr))
    if proc.size and (proc.max() >= p):
        raise ConfigError(f"program has an operation for processor {proc.max()} >= p = {p}")
    for name, arr in (("msg_src", prog.msg_src), ("msg_dst", prog.msg_dst),
                      ("box_owner", prog.box_owner)):
        if arr.size and (arr.min() < 0 or arr.max() >= p):
            raise ConfigError(f"program {name} holds a processor id outside [0, {p}); got "
                              f"[{arr.min()}, {arr.max()}]")
    if np.any(prog.msg_src == prog.msg_dst):
        raise ConfigError("program has a message from a processor to itself; LogP messages go "
                          "to another processor (keep local data local)")
    if np.any(prog.box_owner[prog.msg_box] != prog.msg_dst):
        raise ConfigError("program delivers a message to a box its destination does not own")
    sends = prog.op_code == OP_SEND
    sent = prog.op_a[sends]
    if sent.size != prog.msg_src.size or not np.array_equal(np.sort(sent), np.arange(sent.size)):
        raise ConfigError("program must send every message exactly once "
                          f"({sent.size} SEND operations for {prog.msg_src.size} messages)")
    if np.any(prog.msg_src[sent] != proc[sends]):
        raise ConfigError("program has a SEND by a processor other than the message's source")
    uses = ((prog.op_code == OP_RECV) | (prog.op_code == OP_RECV_ALL) |
            ((prog.op_code == OP_BACKGROUND) & (prog.op_a >= 0)))
    boxes = prog.op_a[uses]
    if boxes.size and (boxes.min() < 0 or boxes.max() >= prog.box_owner.size or
                       np.any(prog.box_owner[boxes] != proc[uses])):
        raise ConfigError("program receives from a box the processor does not own")
    align = prog.op_code == OP_WAIT_ALIGN
    if np.any(prog.op_a[align] < 1) or np.any((prog.op_b[align] < 0) | (prog.op_b[align] >= prog.op_a[align])):
        raise ConfigError("program has a WAIT_ALIGN whose period is < 1 or phase outside [0, period)")
