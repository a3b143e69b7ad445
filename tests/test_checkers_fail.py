"""The checkers' own failure paths (issue 14, item 6): corrupt the state on purpose and see
each checker catch it, naming the router and VC; and the knot logic of the deadlock detector
on hand-made wait-for graphs."""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.errors import DeadlockError, SimulationError
from netsim_fast.flit import state as fs
from netsim_fast.flit.deadlock import LIVE, WaitForGraph
from netsim_fast.flit.kernel import advance
from netsim_fast.flit.run import build_params, describe_error
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.packets import FinitePackets


def _running_state(router="lanes", messages=20, cycles=40):
    """A 4x4 torus mid-way through a finite workload, in debug mode (invariants every cycle)."""
    cfg = Config(topology="torus", k=4, router=router, pattern="random", messages=messages, packet_flits=6,
                 check_invariants=True)
    topo = build_topology(cfg)
    rng = np.random.default_rng(3)
    n = 16 * messages
    src = np.repeat(np.arange(16), messages).astype(np.int32)
    dst = ((src + rng.integers(1, 16, n)) % 16).astype(np.int32)
    packets = FinitePackets(src, dst, np.full(n, 6, np.int32), np.zeros(n, np.int64))
    params = build_params(cfg, topo, stop_mode=fs.STOP_ALL, win_start=0, win_end=1 << 62, n_total=n)
    state = fs.new_state(topo, params, packet_capacity=n, windows=64)
    state = fs.append_packets(state, packets.src, packets.dst, packets.length, packets.release)
    assert advance(state, params, topo.arrays, cycles) == fs.ERR_OK
    return cfg, topo, params, state


def _busy_network_lane(state, params):
    """An input lane of a network port (not the local one) holding at least two flits."""
    port = (np.arange(state.inl.shape[0]) // params.n_vcs) % params.n_ports
    lanes = np.nonzero((state.inl["len"] >= 2) & (port != params.n_ports - 1))[0]
    assert lanes.size, "the workload should fill some network lanes by cycle 40"
    return int(lanes[0])


def _name(lane, params):
    return (lane // (params.n_ports * params.n_vcs), (lane // params.n_vcs) % params.n_ports, lane % params.n_vcs)


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_a_lost_credit_is_caught_and_named(router):
    cfg, topo, params, state = _running_state(router)
    out = int(np.nonzero(state.outl["down"] >= 0)[0][5])
    state.outl["credits"][out] -= 1
    err = advance(state, params, topo.arrays, 80)
    assert err == fs.ERR_CREDIT
    node, port, vc = _name(out, params)
    assert f"output lane node {node} port {port} vc {vc}" in describe_error(err, state, params, topo)


def test_a_duplicated_flit_is_caught_and_named():
    cfg, topo, params, state = _running_state()
    lane = _busy_network_lane(state, params)
    inl = state.inl
    tail_slot = (inl["head"][lane] + inl["len"][lane]) % params.buf
    state.in_buf[lane, tail_slot] = state.in_buf[lane, (tail_slot - 1) % params.buf]
    inl["len"][lane] += 1
    err = advance(state, params, topo.arrays, 80)
    assert err == fs.ERR_CREDIT  # one more flit than credits allow, in that lane's link
    message = describe_error(err, state, params, topo)
    assert "credit conservation broken" in message and "vc" in message


def test_an_out_of_order_flit_is_caught_at_its_destination():
    cfg, topo, params, state = _running_state()
    lane = _busy_network_lane(state, params)
    inl = state.inl
    head = inl["head"][lane]
    a, b = head % params.buf, (head + 1) % params.buf
    first, second = int(state.in_buf[lane, a]), int(state.in_buf[lane, b])
    if (first >> 32) != (second >> 32):
        pytest.skip("the two front flits belong to different packets")
    state.in_buf[lane, a], state.in_buf[lane, b] = second, first
    err = advance(state, params, topo.arrays, 400)
    assert err == fs.ERR_ORDER
    pkt = first >> 32
    assert f"router {int(state.pkt['dst'][pkt])}" in describe_error(err, state, params, topo)


def test_a_cycle_of_single_choice_waits_is_a_knot():
    g = WaitForGraph(n_lanes=10, waits={0: [1], 1: [2], 2: [0], 5: [0]})
    assert g.stuck() == [0, 1, 2, 5]
    assert g.knot() == [0, 1, 2]  # lane 5 only queues behind the cycle


def test_a_cycle_among_adaptive_vcs_with_an_escape_open_is_not_a_knot():
    # 0 -> 1 -> 2 -> 0 among adaptive VCs, but 2 may also take an escape VC held by a lane
    # that moves (not blocked): the cycle can break
    g = WaitForGraph(n_lanes=10, waits={0: [1], 1: [2], 2: [0, 7]})
    assert g.stuck() == [] and g.knot() == []
    g = WaitForGraph(n_lanes=10, waits={0: [1], 1: [2], 2: [0, LIVE]})
    assert g.knot() == []


def test_an_or_request_whose_every_alternative_is_in_the_knot_is_stuck():
    g = WaitForGraph(n_lanes=10, waits={0: [1], 1: [0], 3: [0, 1]})
    assert g.stuck() == [0, 1, 3] and g.knot() == [0, 1]


def test_duato_past_saturation_with_round_robin_allocation_reports_no_deadlock():
    # the false deadlock: Duato with --vc-alloc rr far past saturation
    import netsim_fast as nf

    out = nf.simulate(nf.Config(topology="torus", k=8, routing="duato", vc_alloc="rr", rate=0.9, cycles=6000,
                                deadlock_cycles=300))
    assert out["deadlock"] is False and out["deadlock_cycle"] is None


def test_dor_without_datelines_on_a_ring_is_reported_with_its_knot():
    cfg = Config(topology="torus", dims="6", routing="dor-nodateline", vcs=1, buf=2, out_buf=1, rate=0.9,
                 packet_flits=8, cycles=5000, deadlock_cycles=400)
    import netsim_fast as nf

    with pytest.raises(DeadlockError) as err:
        nf.simulate(cfg)
    knot = err.value.summary["deadlock_cycle"]
    assert len({c["router"] for c in knot}) == 6  # the ring's whole cycle of channels
    assert isinstance(err.value, SimulationError)


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_a_busy_router_marked_idle_is_caught_and_named(router):
    """The router stages skip routers not marked active (FlitState.active); a missed mark would
    stall a router silently, so the debug checks look for busy routers without one."""
    cfg, topo, params, state = _running_state(router, messages=1, cycles=6)  # one packet a node, some sent
    # a router holding flits that no flit reaches in the next cycle (an arrival would mark it again)
    slot = int(state.cnt[fs.C_CYCLE]) % params.ring
    arriving = state.ev_flit[slot, : state.ev_flit_n[slot], 0] // (params.n_ports * params.n_vcs)
    busy = np.nonzero(state.node["flits"][: params.n_nodes] > 0)[0]
    node = int(np.setdiff1d(busy, arriving)[0])
    assert state.active[node] == 1
    state.active[node] = 0
    err = advance(state, params, topo.arrays, 80)
    assert err == fs.ERR_IDLE
    assert f"router {node} holds flits" in describe_error(err, state, params, topo)


def test_idle_routers_are_unmarked_and_busy_ones_marked():
    """After a finite workload drains, no router is marked; mid-way, the marked routers are a
    superset of the busy ones."""
    cfg, topo, params, state = _running_state("lanes", messages=1, cycles=8)
    marked = state.active[: params.n_nodes] == 1
    assert marked[state.node["flits"][: params.n_nodes] > 0].all()
    assert advance(state, params, topo.arrays, 2000) == fs.ERR_OK
    assert state.cnt[fs.C_DONE] == 1
    assert not state.active.any()


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("field", ["waiting", "unrouted", "held_vcs", "wait_bits"])
def test_a_router_count_its_lanes_contradict_is_caught_and_named(router, field):
    """Routing and VC allocation visit only the lanes a router's ``wait_bits`` mark (the routing
    units stop after ``node.unrouted`` of them), and the link stage only the output lanes a
    port's ``held_vcs`` marks, so a missing mark or a count below the lanes' would leave a
    header or a flit unserved: the debug checks compare them with the lanes every cycle."""
    cfg, topo, params, state = _running_state(router)
    node = int(np.argmax(state.node["waiting"][: params.n_nodes]))
    if field == "held_vcs":
        if router == "iq":
            pytest.skip("the iq router has no output lanes")
        link = node * params.n_ports + int(np.argmin(state.port["held_vcs"][node * params.n_ports:][:params.n_ports]))
        state.port["held_vcs"][link] ^= 1 << (params.n_vcs - 1)  # a lane's mark flipped
    elif field == "wait_bits":
        word = int(np.flatnonzero(state.wait_bits[node])[0])
        state.wait_bits[node, word] &= state.wait_bits[node, word] - 1  # a waiting lane's mark lost
    else:
        state.node[field][node] += 1
    err = advance(state, params, topo.arrays, 80)
    assert err == fs.ERR_COUNT
    assert f"router {node}'s bookkeeping disagrees with its lanes" in describe_error(err, state, params, topo)
