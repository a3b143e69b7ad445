"""LogP programs of Bilardi et al.'s BSP-on-LogP protocols: CB tree, sort-based and randomized
routing of h-relations.

Each builder returns a ``BuiltProtocol``: the ``Program`` for ``netsim_fast.logp.run.run`` and
an ``info`` dict with the paper's bound (``bound``) and, where the protocol runs on a schedule
computed from the parameters, the worst-case time of that schedule under the machine's rules
(``schedule_bound``). Data values (combined values, sorted keys, ranks) are computed here with
numpy; the machine times the messages they imply.

Design choices where the paper is silent (docs/logp.md repeats them)
----------------------------------------------------------------------
* Local work costs one step per key touched: counting ``r`` messages costs ``r``, padding with
  dummies ``r - r_i``, the initial local sort ``r ceil(log2(p + 1))`` (the paper's
  ``O(r log p)``), a merge-split ``r``. Combining a value in the CB tree is folded into the
  acquisition overhead ``o``.
* *Global schedules.* The paper pipelines the sort's exchanges and the h routing cycles "with
  a period of G" without saying how processors that finish a CB at different times agree on a
  start. Processors that run ahead would send into a partner still receiving from the previous
  layer and exceed ``ceil(L/G)`` in transit (stall). So every schedule is anchored on a time
  stamp: the CB root stamps ``now + D`` (``D`` bounds the descent under the machine's rules)
  and the descent carries it; all clocks start at 0 together. Sort layer ``k`` starts at
  ``T_s + k P`` with ``P`` a proven bound on one exchange plus merge, routing cycle ``c`` at
  ``T_0 + c G``. The machine counts waits reached late (``late_waits``): 0 means the schedule
  held, which together with the capacity argument makes the protocol stall-free.
* Messages of the h-relation whose holder after sorting is their own destination are local and
  are not sent.

Notes
-----
papers/002: section 4.1 (CB on a complete ``max(2, ceil(L/G))``-ary tree; for
``ceil(L/G) = 1`` children send at even/odd multiples of L), section 4.2 (steps 1-4 and eq. (2)),
section 4.3 (the randomized protocol of Theorem 3).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from netsim_fast.analytic import logp as model
from netsim_fast.logp_params import LogPParams
from netsim_fast.workloads.logp_program import (OP_BACKGROUND, OP_COMPUTE, OP_RECV, OP_RECV_ALL,
                                             OP_SEND, OP_SET_REG, OP_WAIT_ALIGN, OP_WAIT_REG,
                                             OP_WAIT_UNTIL, Program, ProgramBuilder)
from netsim_fast.errors import ConfigError
from netsim_fast.workloads.hrelation import degree
from netsim_fast.workloads.sorting_network import merge_split_sort, odd_even_merge_layers


class BuiltProtocol(NamedTuple):
    program: Program
    info: dict


# ------------------------------------------------------------------------------ CB tree

def cb_ascend_level(params: LogPParams) -> int:
    """Worst-case time per tree level of the CB ascent under the machine's rules.

    A node's children submit ``o`` after they start, the messages arrive within ``L``, the node
    acquires up to ``a`` of them ``G`` apart (``(a-1)G + o``) and then starts its own
    submission; for ``ceil(L/G) = 1`` it may first wait up to ``2L`` for its parity slot.
    """
    a = model.cb_arity(params)
    align = 2 * params.L if params.capacity == 1 else 0
    return 2 * params.o + params.L + (a - 1) * params.G + align


def cb_descend_level(params: LogPParams) -> int:
    """Worst-case time per level of the CB descent: ``a`` sends ``G`` apart (plus one gap of
    slack after the node's previous submission), ``o + L``, up to ``G - 1`` of acquisition gap
    slack and the acquisition ``o``."""
    a = model.cb_arity(params)
    return 2 * params.o + params.L + (a + 1) * params.G


def cb_schedule_bound(params: LogPParams) -> int:
    """Worst-case CB time from the latest join: ``G + H (ascend level + descend level)``."""
    height = model.tree_height(params.p, model.cb_arity(params))
    return params.G + height * (cb_ascend_level(params) + cb_descend_level(params))


def add_cb(b: ProgramBuilder, params: LogPParams, stamp_offset: int | None = None) -> None:
    """Append one combine-and-broadcast to every processor's program.

    Processor ``i`` is node ``i`` of the complete ``a``-ary tree in heap order, ``a =
    max(2, ceil(L/G))``. Ascent: a node acquires all its children's messages, then submits to
    its parent. Descent: a node acquires its parent's message (loading the time stamp it
    carries) and submits to its children in order. With ``stamp_offset`` the root sets its
    register to ``now + stamp_offset`` before the descent, so every processor ends with the same
    register value.
    """
    p, a, L = params.p, model.cb_arity(params), params.L
    nodes = np.arange(p)
    child = nodes[1:]
    parent = (child - 1) // a
    up_box = b.boxes(nodes)
    down_box = b.boxes(nodes)
    up_msgs = b.messages(child, parent, up_box[parent])
    down_msgs = b.messages(parent, child, down_box[child])
    internal = nodes[a * nodes + 1 < p]
    b.ops(internal, OP_RECV_ALL, up_box[internal])
    if params.capacity == 1:
        # Left children submit at even multiples of L, right ones at odd (section 4.1), so a
        # parent never has two messages in transit.
        b.ops(child, OP_WAIT_ALIGN, 2 * L, ((child - 1) % a) * L)
    b.ops(child, OP_SEND, up_msgs)
    if stamp_offset is not None:
        b.ops(0, OP_SET_REG, stamp_offset)
    b.ops(child, OP_RECV, down_box[child], 1)
    # One block for the whole descent: a parent listed once per child, children in increasing
    # id, gets its sends in child order (ProgramBuilder keeps array order within a call). The
    # cost is O(p) whatever the arity; a = ceil(L/G) can exceed p by far, and only the
    # children that exist (id < p) are ever sent to.
    b.ops(parent, OP_SEND, down_msgs, 1)


def cb_program(params: LogPParams, join=None) -> BuiltProtocol:
    """A CB computation; processor i first does ``join[i]`` steps of local work (default 0).

    ``info``: ``bound`` (the paper's ``3(L+o) log p / log(1+ceil(L/G))``, measured from the
    latest join), ``schedule_bound`` (machine worst case from the latest join), ``join_max``,
    ``height``, ``arity``.
    """
    join = np.zeros(params.p, np.int64) if join is None else np.asarray(join, np.int64)
    if join.shape != (params.p,) or join.min() < 0:
        raise ConfigError(f"join must hold {params.p} non-negative work amounts")
    b = ProgramBuilder(params.p)
    b.ops(np.arange(params.p), OP_COMPUTE, join)
    add_cb(b, params)
    a = model.cb_arity(params)
    info = {"protocol": "cb", "bound": model.cb_bound(params),
            "schedule_bound": int(join.max()) + cb_schedule_bound(params),
            "join_max": int(join.max()), "height": model.tree_height(params.p, a), "arity": a}
    return BuiltProtocol(b.build(), info)


# ---------------------------------------------------------------- deterministic, section 4.2

def exchange_bound(params: LogPParams, r: int) -> int:
    """Worst-case time for a processor to submit r messages ``G`` apart from a common start and
    to acquire r messages submitted the same way towards it, acquiring in idle time.

    The k-th arrival is by ``(k-1)G + o + L``. If ``2o <= G`` acquisitions fit between the
    processor's own submissions and a submission delays an acquisition by less than ``2o``
    (never cumulatively, the next one falls ``G`` later in the same free window):
    ``4o + (r-1)G + L``. Otherwise no acquisition fits until the last submission ends at
    ``(r-1)G + o``; then they run ``G`` apart: ``2o + (r-1)G + max(L, (r-1)G)``.
    """
    span = (r - 1) * params.G
    if 2 * params.o <= params.G:
        return 4 * params.o + span + params.L
    return 2 * params.o + span + max(params.L, span)


def local_sort_steps(r: int, p: int) -> int:
    """Initial local sort of r keys in ``[0, p]``: ``r ceil(log2(p + 1))`` steps."""
    return r * math.ceil(math.log2(p + 1))


def deterministic_program(params: LogPParams, src, dst) -> BuiltProtocol:
    """The sort-based h-relation protocol of section 4.2 with Batcher's odd-even merge sort.

    Steps: (1) count ``r_i``, CB for ``r``; pad to ``r`` keys with dummies (destination ``p``)
    and sort locally; (2) ``K`` layers of merge-split exchanges on a slot schedule of period
    ``P``; (3) count, CB for ``s``; (4) routing cycle ``c = rank mod h`` at ``T_0 + c G``.

    ``info``: ``r, s, h, depth`` (K), ``slot`` (P), ``bound`` (eq. (2) evaluated with the
    paper's ``T_CB`` and ``T_sort`` costed for this network), ``schedule_bound`` (machine worst
    case of this schedule), ``sorted_ok`` (merge-split network sorted the keys).
    """
    p, G = params.p, params.G
    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    _check_relation(src, dst, p)
    nodes = np.arange(p)
    counts = np.bincount(src, minlength=p)
    r, s, h = degree(src, dst, p)
    layers = odd_even_merge_layers(p)
    depth = len(layers)
    lsort = local_sort_steps(r, p)
    merge = r
    slot = exchange_bound(params, r) + merge
    height = model.tree_height(p, model.cb_arity(params))
    descend = height * cb_descend_level(params)
    b = ProgramBuilder(p)

    # Step 1: count, CB (r), pad, local sort; the root stamps the start of the sort T_s.
    b.ops(nodes, OP_COMPUTE, counts)
    add_cb(b, params, stamp_offset=descend + r + lsort)
    b.ops(nodes, OP_COMPUTE, r - counts)
    b.ops(nodes, OP_COMPUTE, lsort)

    # Step 2: layer k of the network in the slot [T_s + kP, T_s + (k+1)P).
    for k, layer in enumerate(layers):
        both = np.concatenate([layer[:, 0], layer[:, 1]])
        partner = np.concatenate([layer[:, 1], layer[:, 0]])
        box_of = np.full(p, -1, np.int64)
        box_of[both] = b.boxes(both)
        msgs = b.messages(np.repeat(both, r), np.repeat(partner, r),
                          np.repeat(box_of[partner], r)).reshape(both.size, r)
        b.ops(both, OP_WAIT_REG, k * slot)
        b.ops(both, OP_BACKGROUND, box_of[both])
        for j in range(r):
            b.ops(both, OP_SEND, msgs[:, j])
        b.ops(both, OP_RECV_ALL, box_of[both])
        b.ops(both, OP_BACKGROUND, -1)
        b.ops(both, OP_COMPUTE, merge)

    # Step 3: after the last slot, count and CB (s); the root stamps T_0.
    b.ops(nodes, OP_WAIT_REG, depth * slot)
    b.ops(nodes, OP_COMPUTE, r)
    add_cb(b, params, stamp_offset=descend)

    # Step 4: sorted keys (dst, unique id); dummies have destination p.
    big = p * r + 1
    keys = np.full((p, r), p * big, np.int64) + np.arange(p * r).reshape(p, r)
    order = np.argsort(src, kind="stable")
    slot_in_src = np.arange(src.size) - np.repeat(np.cumsum(counts) - counts, counts)
    keys[src[order], slot_in_src] = dst[order] * big + np.arange(src.size)
    blocks = merge_split_sort(keys, layers)
    flat = blocks.reshape(-1)
    sorted_ok = bool(np.all(flat[1:] >= flat[:-1]))
    key_dst = blocks // big
    holder = np.repeat(nodes, r).reshape(p, r)
    cycle = (np.arange(p * r).reshape(p, r)) % h
    remote = (key_dst < p) & (key_dst != holder)
    cycle_sorted = np.where(remote, cycle, h)
    perm = np.argsort(cycle_sorted, axis=1, kind="stable")
    cyc = np.take_along_axis(cycle_sorted, perm, axis=1)
    kdst = np.take_along_axis(key_dst, perm, axis=1)
    box4 = b.boxes(nodes)
    b.ops(nodes, OP_BACKGROUND, box4)
    for j in range(r):
        act = cyc[:, j] < h
        procs = nodes[act]
        m = b.messages(procs, kdst[act, j], box4[kdst[act, j]])
        b.ops(procs, OP_WAIT_REG, cyc[act, j] * G)
        b.ops(procs, OP_SEND, m)
    b.ops(nodes, OP_RECV_ALL, box4)

    # Step 4 is an exchange with cycle slots 0..h-1 instead of 0..r-1.
    ascend = G + height * cb_ascend_level(params)
    schedule = (int(counts.max()) + ascend + descend + r + lsort + depth * slot + r + ascend
                + descend + exchange_bound(params, h))
    t_sort = model.t_sort_network(params, r, depth, lsort, merge)
    info = {"protocol": "deterministic", "r": r, "s": s, "h": h, "depth": depth, "slot": slot,
            "network": "batcher-odd-even-merge", "t_sort": t_sort,
            "bound": model.eq2_bound(params, h, t_sort), "schedule_bound": schedule,
            "sorted_ok": sorted_ok}
    return BuiltProtocol(b.build(), info)


# ------------------------------------------------------------------ randomized, Theorem 3

def randomized_program(params: LogPParams, src, dst, h: int | None = None, beta: float = 1.0,
                       seed: int = 0) -> BuiltProtocol:
    """The randomized protocol of section 4.3 (Theorem 3).

    Every message gets a batch uniform in ``1..R``, ``R = ceil((1+beta) h / ceil(L/G))``.
    Round ``k`` starts at ``2(L+o)(k-1)``; in it a processor submits up to ``ceil(L/G)``
    messages of batch k, one every G steps (in random order). Messages left over (more than
    ``ceil(L/G)`` in a batch) are submitted after round R (step 3). Processors acquire
    incoming messages in idle time and finish when all theirs have arrived.

    ``info``: ``h, R, beta, leftover`` (messages sent in step 3), ``bound`` (``2(L+o)R``),
    ``chernoff_bound`` and ``binomial_bound`` (union bounds on stalling or leaving messages),
    ``theorem3_c1`` (the largest c1 with ``ceil(L/G) >= c1 ln p``).
    """
    p, L, o = params.p, params.L, params.o
    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    _check_relation(src, dst, p)
    cap = params.capacity
    h = degree(src, dst, p)[2] if h is None else int(h)
    R = model.n_batches(h, cap, beta)
    rng = np.random.default_rng(seed)
    m = src.size
    batch = rng.integers(0, R, size=m)
    order = np.lexsort((rng.random(m), batch, src))
    key = src[order] * R + batch[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    pos = np.arange(m) - np.repeat(first, np.diff(np.r_[first, m]))
    rnd = np.where(pos < cap, batch[order], R)  # round R = step 3
    leftover = int(np.sum(rnd == R))

    b = ProgramBuilder(p)
    nodes = np.arange(p)
    box = b.boxes(nodes)
    msgs = b.messages(src[order], dst[order], box[dst[order]])
    round_len = 2 * (L + o)
    # Operations sorted by (processor, round, wait-before-sends, position).
    w_proc = np.repeat(nodes, R)
    w_round = np.tile(np.arange(R), p)
    has3 = np.unique(src[order][rnd == R])
    w_proc = np.r_[w_proc, has3]
    w_round = np.r_[w_round, np.full(has3.size, R)]
    proc = np.r_[w_proc, src[order]]
    rounds = np.r_[w_round, rnd]
    kind = np.r_[np.zeros(w_proc.size, np.int64), np.ones(m, np.int64)]
    arg = np.r_[w_round * round_len, msgs]
    seq = np.r_[np.zeros(w_proc.size, np.int64), np.arange(m)]
    op_order = np.lexsort((seq, kind, rounds, proc))
    b.ops(nodes, OP_BACKGROUND, box)
    b.ops(proc[op_order], np.where(kind[op_order] == 0, OP_WAIT_UNTIL, OP_SEND), arg[op_order])
    b.ops(nodes, OP_RECV_ALL, box)

    c1 = cap / math.log(p)
    info = {"protocol": "randomized", "h": h, "R": R, "beta": beta, "leftover": leftover,
            "bound": model.randomized_time(params, R),
            "chernoff_bound": model.chernoff_failure_bound(p, R, cap, beta),
            "binomial_bound": model.binomial_failure_bound(p, h, R, cap),
            "theorem3_c1": c1, "theorem3_applies": model.theorem3_applies(params, h, c1)}
    return BuiltProtocol(b.build(), info)


def _check_relation(src: np.ndarray, dst: np.ndarray, p: int) -> None:
    if src.shape != dst.shape or src.ndim != 1 or src.size == 0:
        raise ConfigError("an h-relation needs src and dst of the same non-zero length")
    if src.min() < 0 or dst.min() < 0 or src.max() >= p or dst.max() >= p:
        raise ConfigError(f"h-relation processor ids must lie in [0, {p})")
    if np.any(src == dst):
        raise ConfigError("h-relation has a message from a processor to itself; drop it (it is local)")
