"""The LogP machine: exact agreement with the naive reference, the capacity constraint, the
stalling rule of papers/002 section 2.2, and the textbook timings."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netsim_fast.analytic.logp import LogPParams
from netsim_fast.logp.run import draw_delays, run
from netsim_fast.workloads.logp_program import (OP_BACKGROUND, OP_COMPUTE, OP_RECV, OP_RECV_ALL,
                                             OP_SEND, OP_SET_REG, OP_WAIT_ALIGN, OP_WAIT_REG,
                                             OP_WAIT_UNTIL, ProgramBuilder)
from netsim_fast.errors import ConfigError, SimulationError
from tests.reference.logp_naive import run_naive


def random_program(rng, p, n_msgs):
    """Processors send random messages amid computes and waits, then drain their boxes."""
    b = ProgramBuilder(p)
    boxes = [b.boxes([i, i]) for i in range(p)]
    src = rng.integers(0, p, n_msgs)
    dst = (src + rng.integers(1, p, n_msgs)) % p
    box = np.array([boxes[d][rng.integers(0, 2)] for d in dst])
    msgs = b.messages(src, dst, box)
    for i in range(p):
        if rng.random() < 0.6:
            b.ops(i, OP_BACKGROUND, boxes[i][rng.integers(0, 2)])
        if rng.random() < 0.3:
            b.ops(i, OP_SET_REG, int(rng.integers(0, 10)))
        for m in rng.permutation(msgs[src == i]):
            u = rng.random()
            if u < 0.2:
                b.ops(i, OP_COMPUTE, int(rng.integers(0, 4)))
            elif u < 0.3:
                b.ops(i, OP_WAIT_UNTIL, int(rng.integers(0, 30)))
            elif u < 0.4:
                b.ops(i, OP_WAIT_ALIGN, 7, int(rng.integers(0, 7)))
            elif u < 0.45:
                b.ops(i, OP_WAIT_REG, int(rng.integers(0, 20)))
            b.ops(i, OP_SEND, m)
        b.ops(i, OP_RECV_ALL, boxes[i][0])
        b.ops(i, OP_RECV_ALL, boxes[i][1])
    return b.build()


def in_transit_counts(res, key, L_end):
    """Messages in transit per processor (by ``key`` = msg_dst or msg_src) at every time."""
    counts = np.zeros((key.max() + 1, L_end + 2), np.int64)
    for m in range(key.size):
        counts[key[m], res.accept_t[m]:res.deliver_t[m]] += 1
    return counts


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), p=st.integers(2, 5), L=st.integers(2, 12),
       o=st.integers(1, 3), mode=st.sampled_from(["uniform", "max", "min"]))
def test_kernel_matches_naive_reference_exactly(seed, p, L, o, mode):
    rng = np.random.default_rng(seed)
    G = int(rng.integers(max(2, o), max(2, o, L) + 1))
    L = max(L, G)
    P = LogPParams(L=L, o=o, G=G, p=p)
    prog = random_program(rng, p, int(rng.integers(1, 14)))
    delays = draw_delays(prog.msg_src.size, L, mode, seed)
    fast = run(prog, P, delay=delays)
    ref = run_naive(prog, L, o, G, delays)
    assert fast.time == ref["time"]
    assert fast.finish.tolist() == ref["finish"]
    assert fast.stall_time.tolist() == ref["stall"]
    assert fast.late_events.tolist() == ref["late"]
    for name in ("submit", "accept", "deliver", "acquire"):
        assert getattr(fast, name + "_t").tolist() == ref[name], name


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), p=st.integers(2, 6), L=st.integers(2, 16))
def test_capacity_constraint_holds_and_stalls_only_when_destination_is_full(seed, p, L):
    rng = np.random.default_rng(seed)
    G = int(rng.integers(2, L + 1))
    P = LogPParams(L=L, o=1, G=G, p=p)
    prog = random_program(rng, p, int(rng.integers(5, 40)))
    res = run(prog, P, delay="uniform", seed=seed)
    cap = P.capacity
    to = in_transit_counts(res, prog.msg_dst, res.time)
    frm = in_transit_counts(res, prog.msg_src, res.time)
    assert to.max() <= cap and res.max_transit_to.max() == to.max()
    # Without stalls a processor's messages are accepted at submission, >= G apart, and stay
    # in transit <= L steps. After a stall the next submission may follow within o steps.
    if not res.stalled:
        assert frm.max() <= cap
    for m in np.flatnonzero(res.accept_t > res.submit_t):
        d = prog.msg_dst[m]
        assert np.all(to[d, res.submit_t[m]:res.accept_t[m]] == cap)   # the stalling rule
    waited = res.accept_t - res.submit_t
    assert np.all(waited >= 0)
    per_src = np.bincount(prog.msg_src, weights=waited, minlength=p)
    assert np.array_equal(per_src.astype(np.int64), res.stall_time)


def test_acceptance_is_fifo_per_destination():
    P = LogPParams(L=8, o=1, G=2, p=6)
    b = ProgramBuilder(6)
    box = b.boxes([0])
    for s in range(1, 6):
        ms = b.messages(s, 0, np.repeat(box, 4))
        b.ops(np.full(4, s), OP_SEND, ms)
    b.ops(0, OP_RECV_ALL, box)
    prog = b.build()
    res = run(prog, P, delay="uniform", seed=3)
    order = np.lexsort((prog.msg_src, res.submit_t))
    assert np.all(np.diff(res.accept_t[order]) >= 0)


def test_single_message_takes_2o_plus_L_under_adversarial_delay():
    P = LogPParams(L=10, o=3, G=4, p=2)
    b = ProgramBuilder(2)
    box = b.boxes([1])
    b.ops(0, OP_SEND, b.messages(0, 1, box))
    b.ops(1, OP_RECV, box)
    res = run(b.build(), P, delay="max")
    assert res.time == 2 * 3 + 10 and not res.stalled


@pytest.mark.parametrize("h", [1, 2, 3])
def test_small_relation_pipelines_in_2o_plus_G_h_minus_1_plus_L(h):
    P = LogPParams(L=12, o=2, G=4, p=2)            # capacity 3, 2o <= G
    b = ProgramBuilder(2)
    box = b.boxes([1])
    b.ops(np.zeros(h, int), OP_SEND, b.messages(np.zeros(h, int), 1, np.repeat(box, h)))
    b.ops(1, OP_RECV_ALL, box)
    res = run(b.build(), P, delay="max")
    assert res.time == 2 * 2 + 4 * (h - 1) + 12 and not res.stalled


def test_flooded_processor_makes_senders_stall_and_receives_at_rate_one_per_G():
    L, G, k, n = 16, 4, 4, 8                        # 4 senders x 8 messages into processor 0
    P = LogPParams(L=L, o=1, G=G, p=k + 1)
    b = ProgramBuilder(k + 1)
    box = b.boxes([0])
    for s in range(1, k + 1):
        b.ops(np.full(n, s), OP_SEND, b.messages(s, 0, np.repeat(box, n)))
    b.ops(0, OP_RECV_ALL, box)
    res = run(b.build(), P, delay="max")
    assert res.stalled and res.stall_time[0] == 0 and np.all(res.stall_time[1:] > 0)
    assert res.max_transit_to[0] == P.capacity
    # Hot spot: with delay L, C acceptances per L steps, i.e. one per G (section 2.2's remark).
    acc = np.sort(res.accept_t)
    assert acc[-1] - acc[P.capacity - 1] <= (k * n - P.capacity) * G
    # The paper's worst case for one sender's stall towards one destination: G h.
    assert res.stall_time.max() <= G * k * n


def test_same_seed_same_run_and_seeds_differ():
    P = LogPParams(L=12, o=1, G=3, p=5)
    prog = random_program(np.random.default_rng(7), 5, 30)
    a, b = run(prog, P, seed=1), run(prog, P, seed=1)
    c = run(prog, P, seed=2)
    assert np.array_equal(a.deliver_t, b.deliver_t)
    assert not np.array_equal(a.deliver_t, c.deliver_t)


def test_recv_without_sender_is_a_deadlock_error():
    P = LogPParams(L=4, o=1, G=2, p=2)
    b = ProgramBuilder(2)
    box = b.boxes([1])
    b.ops(1, OP_RECV, box)
    b.ops(0, OP_COMPUTE, 1)
    with pytest.raises(SimulationError, match="deadlocked"):
        run(b.build(), P)


def test_builder_rejects_unsent_message_and_foreign_box():
    b = ProgramBuilder(2)
    b.messages(0, 1, b.boxes([1]))
    with pytest.raises(ConfigError, match="exactly once"):
        b.build()
    b = ProgramBuilder(2)
    box = b.boxes([1])
    b.ops(0, OP_RECV, box)
    with pytest.raises(ConfigError, match="does not own"):
        b.build()


def test_unknown_delay_model_lists_choices():
    with pytest.raises(ConfigError, match="did you mean 'uniform'"):
        draw_delays(3, 8, "unifrom", 0)


@pytest.mark.nojit
def test_tiny_ping_pong_also_runs_without_jit():
    P = LogPParams(L=5, o=1, G=2, p=2)
    b = ProgramBuilder(2)
    box0, box1 = b.boxes([0]), b.boxes([1])
    b.ops(0, OP_SEND, b.messages(0, 1, box1))
    b.ops(1, OP_RECV, box1, 1)
    b.ops(1, OP_SEND, b.messages(1, 0, box0))
    b.ops(0, OP_RECV, box0)
    res = run(b.build(), P, delay="max")
    assert res.time == 2 * (2 * 1 + 5)
