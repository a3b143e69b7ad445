"""The forwarding-rule kernel against a plain-Python reference, and its two run-time checks."""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast.packet.gossip import (
    ERR_INCOMPLETE, ERR_LINK_CONFLICT, ERR_OK, GossipRules, advance, new_state, run,
)
from netsim_fast.workloads.gossip import build_plan, compile_rules
from netsim_fast.workloads.gossip.plan import BWD, FWD


def naive_gossip(rules: GossipRules, n_packets: int, max_steps: int):
    """Obviously-correct reference: dicts and lists, one rule at a time.

    Returns (steps, per-step fresh receive counts, per-PU finishing step) or raises on a
    conflict / an incomplete run.
    """
    n_nodes, n_ports = rules.nbr.shape
    depth = rules.seed.shape[2]
    history = {(u, p): [int(rules.seed[u, p, j]) for j in range(depth)]
               for u in range(n_nodes) for p in range(n_ports)}
    known = [set(int(x) for x in rules.own[u] if x >= 0) for u in range(n_nodes)]
    done = [0 if len(k) == n_packets else -1 for k in known]
    fresh = []
    for t in range(1, max_steps + 1):
        sent = {}
        for u in range(n_nodes):
            for e in range(int(rules.rule_ptr[u]), int(rules.rule_ptr[u + 1])):
                row = int(rules.rule_sched[e])
                if row >= 0:
                    col = min(t - 1, rules.sched.shape[1] - 1)
                    if rules.sched[row, col] != rules.rule_sched_on[e]:
                        continue
                pkt = history[u, int(rules.rule_in[e])][int(rules.rule_delay[e]) - 1]
                if pkt < 0:
                    continue
                out = int(rules.rule_out[e])
                if (u, out) in sent:
                    raise RuntimeError(f"conflict at step {t} node {u} port {out}")
                sent[u, out] = pkt
        arrivals = {(int(rules.nbr[u, p]), int(rules.nbr_in_port[u, p])): pkt
                    for (u, p), pkt in sent.items()}
        n_fresh = 0
        for (v, p), hist in history.items():
            pkt = arrivals.get((v, p), -1)
            history[v, p] = [pkt] + hist[:-1]
            if pkt >= 0 and pkt not in known[v]:
                known[v].add(pkt)
                n_fresh += 1
        fresh.append(n_fresh)
        for v in range(n_nodes):
            if done[v] < 0 and len(known[v]) == n_packets:
                done[v] = t
        if min(done) >= 0:
            return t, fresh, done
    raise RuntimeError("incomplete")


@pytest.mark.parametrize("dims, algorithm, ti", [
    ((4, 4), "gossip-ham", False),       # 3.1: plain rings
    ((4, 5), "gossip-ham", False),       # 3.2: two-slot PUs, switching feeds
    ((5, 4), "gossip-ham", True),        # 3.2 transposed, four packets, fixed feeds
    ((6, 3), "gossip-one", False),       # 4.1 with empty slots
    ((3, 3, 3), "gossip-one", True),     # 4.2 time-independent
])
def test_kernel_matches_naive_reference_step_for_step(dims, algorithm, ti):
    plan = build_plan(dims, algorithm, ti)
    rules = compile_rules(plan)
    code, state = run(rules, plan.n_packets, 200)
    assert code == ERR_OK
    steps, fresh, done = naive_gossip(rules, plan.n_packets, 200)
    assert int(state.step[0]) == steps
    assert state.fresh[1: steps + 1].tolist() == fresh
    assert state.done_step.tolist() == done


def test_ring_stream_formula_matches_what_the_kernel_delivers():
    """Ring.stream predicts the packets a neighbour receives (multi-slot PUs included)."""
    plan = build_plan((4, 5), "gossip-ham")
    rules = compile_rules(plan)
    ring = plan.rings[0]
    q = int(np.argmax(np.diff(ring.slot_ptr)))   # a PU with two slots
    assert ring.slot_ptr[q + 1] - ring.slot_ptr[q] == 2
    succ = int(ring.nodes[(q + 1) % ring.nodes.size])
    port = int(np.flatnonzero(plan.topo.nbr[succ] == ring.nodes[q])[0])
    predicted = ring.forward_stream(q, 8)
    seen = []
    state = new_state(rules, plan.n_packets, 16)
    for _ in range(8):
        advance(rules, state, plan.n_packets, 1)
        seen.append(int(state.hist[succ, port, 0]))
    assert seen == predicted.tolist()


def test_two_rules_on_one_link_stop_the_run_with_its_context():
    plan = build_plan((4, 4), "gossip-ham")
    rules = compile_rules(plan)
    # point PU 0's second rule at the output port of its first rule
    out = rules.rule_out.copy()
    out[1] = out[0]
    code, state = run(rules._replace(rule_out=out), plan.n_packets, 50)
    assert code == ERR_LINK_CONFLICT
    step, node, port, _ = state.err_ctx.tolist()
    assert (step, node, port) == (1, 0, int(out[0]))


def test_a_pu_that_never_sends_its_packets_is_reported_missing():
    plan = build_plan((4, 4), "gossip-ham")
    rules = compile_rules(plan)
    seed = rules.seed.copy()
    seed[5] = -1          # PU 5 keeps its two packets to itself
    code, state = run(rules._replace(seed=seed), plan.n_packets, 50)
    assert code == ERR_INCOMPLETE
    assert state.err_ctx[0] == 50
    assert state.err_ctx[3] // 2 == 5


@pytest.mark.nojit
def test_tiny_ring_gossip_runs_without_jit():
    plan = build_plan((3, 3), "gossip-ham")
    code, state = run(compile_rules(plan), plan.n_packets, 20)
    assert code == ERR_OK
    assert int(state.step[0]) == 4        # (P - 1) / 2 on two Hamiltonian 9-cycles
    assert state.dup.sum() == 0


def test_schedule_values_select_the_option_rules():
    """A scheduled feed compiles to one rule per option, each acting on its own value."""
    plan = build_plan((4, 5), "gossip-ham")
    rules = compile_rules(plan)
    sched = rules.rule_sched >= 0
    assert sched.any()
    ons = rules.rule_sched_on[sched]
    assert set(ons.tolist()) >= {BWD, FWD}
