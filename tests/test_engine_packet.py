"""Packet engine against the naive reference, plus properties the paper's model relies on."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netsim_fast.packet.run import simulate_packets
from netsim_fast.errors import ConfigError, DeadlockError
from netsim_fast.routing.table import build_minimal_table
from netsim_fast.topologies import mesh, torus
from netsim_fast.workloads import messages as wm

from _graphs import random_regular
from reference import packet_naive

POLICIES = ["fifo", "srpf", "lrpf", "random"]


def _compare(topo, msgs, **opts):
    res = simulate_packets(topo, msgs, **opts)
    want, hops, max_queue = packet_naive.simulate(
        topo, msgs.src.tolist(), msgs.dst.tolist(), msgs.release_cycle.tolist(), **opts)
    assert res.delivered_cycle.tolist() == want
    assert res.hops.tolist() == hops
    assert res.max_queue == max_queue
    return res


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("path_choice", ["fixed", "random"])
def test_kernel_matches_naive_per_packet_on_random_regular_graph(policy, path_choice):
    topo = random_regular(12, 3, seed=2)
    msgs = wm.random_messages(12, 6, np.random.default_rng(5))
    res = _compare(topo, msgs, policy=policy, path_choice=path_choice, seed=11)
    assert res.status == "done"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.nojit
def test_kernel_matches_naive_one_port_and_bounded_buffers(policy):
    topo = torus([3, 4])
    msgs = wm.total_exchange(12)
    _compare(topo, msgs, policy=policy, one_port=True, seed=3)
    _compare(topo, msgs, policy=policy, queue_capacity=2, path_choice="random", seed=4)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.sampled_from([6, 8, 10]),
    per_node=st.integers(0, 5),
    policy=st.sampled_from(POLICIES),
    path_choice=st.sampled_from(["fixed", "random"]),
    one_port=st.booleans(),
    capacity=st.sampled_from([0, 0, 1, 3]),
    late=st.integers(0, 4),
    seed=st.integers(0, 2**64 - 1),
)
def test_kernel_matches_naive_on_random_small_configs(n, per_node, policy, path_choice, one_port,
                                                      capacity, late, seed):
    topo = random_regular(n, 3, seed=seed % 7)
    rng = np.random.default_rng(seed % 1000)
    msgs = wm.random_messages(n, per_node, rng)
    release = rng.integers(0, late + 1, size=msgs.n_messages)
    msgs = wm.make_messages(msgs.src, msgs.dst, release)
    opts = dict(policy=policy, path_choice=path_choice, one_port=one_port,
                queue_capacity=capacity, seed=seed)
    try:
        res = simulate_packets(topo, msgs, **opts)
    except DeadlockError:
        return  # bounded buffers may deadlock; the naive engine has no watchdog
    want, hops, _ = packet_naive.simulate(topo, msgs.src.tolist(), msgs.dst.tolist(),
                                          release.tolist(), **opts)
    assert res.delivered_cycle.tolist() == want
    assert res.hops.tolist() == hops
    # conservation: every cycle's traversals add up to the hops, deliveries to the packets
    assert res.sent_per_cycle.sum() == res.packet_hops == sum(hops)
    assert res.delivered_per_cycle.sum() == msgs.n_messages


@pytest.mark.nojit
def test_uncontended_packet_takes_exactly_its_distance():
    topo = torus([8])
    res = simulate_packets(topo, wm.make_messages([0, 5], [3, 4], [2, 0]))
    assert res.delivered_cycle.tolist() == [5, 1]
    assert res.latency.tolist() == [3, 1]
    assert res.cycles == res.completion_cycles == 5


def test_minimal_routing_hops_equal_distances_and_links_carry_one_packet_per_cycle():
    topo = random_regular(64, 4, seed=0)
    table = build_minimal_table(topo)
    msgs = wm.random_messages(64, 8, np.random.default_rng(0))
    res = simulate_packets(topo, msgs, table=table, path_choice="random", seed=9)
    assert np.array_equal(res.hops, table.dist[msgs.src, msgs.dst])
    assert res.sent_per_cycle.max() <= topo.n_links
    assert res.packet_hops == int(table.dist[msgs.src, msgs.dst].sum())
    # every cycle each non-empty queue sends: the cycle count is at least the busiest link's load
    assert res.cycles >= int(np.ceil(res.packet_hops / topo.n_links))


def test_same_seed_same_run_and_seed_changes_random_choices():
    topo = random_regular(32, 4, seed=1)
    msgs = wm.random_messages(32, 8, np.random.default_rng(2))
    a = simulate_packets(topo, msgs, policy="random", path_choice="random", seed=5)
    b = simulate_packets(topo, msgs, policy="random", path_choice="random", seed=5)
    c = simulate_packets(topo, msgs, policy="random", path_choice="random", seed=6)
    assert np.array_equal(a.delivered_cycle, b.delivered_cycle)
    assert not np.array_equal(a.delivered_cycle, c.delivered_cycle)


def test_one_port_is_slower_than_full_port_under_load():
    topo = random_regular(32, 4, seed=1)
    msgs = wm.random_messages(32, 16, np.random.default_rng(2))
    full = simulate_packets(topo, msgs)
    one = simulate_packets(topo, msgs, one_port=True)
    assert one.cycles > full.cycles
    assert one.sent_per_cycle.max() <= 32


def test_bounded_buffers_finish_on_a_mesh_with_lowest_port_routing_and_cost_cycles():
    # on a mesh the lowest minimal port is dimension order (x before y): no cyclic waiting
    topo = mesh([4, 4])
    msgs = wm.total_exchange(16)
    free = simulate_packets(topo, msgs)
    tight = simulate_packets(topo, msgs, queue_capacity=1)
    assert tight.status == "done"
    assert tight.cycles > free.cycles
    assert np.array_equal(tight.hops, free.hops)


def test_deadlock_watchdog_fires_on_a_ring_of_full_buffers():
    # a ring where every node sends 3 messages two hops clockwise: with capacity 1 and one
    # transit place per link the clockwise cycle of full queues blocks forever
    topo = torus([6])
    src = np.repeat(np.arange(6), 6)
    dst = (src + 3) % 6
    with pytest.raises(DeadlockError) as info:
        simulate_packets(topo, wm.make_messages(src, dst), queue_capacity=1, deadlock_cycles=5)
    assert info.value.result.status == "deadlock"
    assert info.value.result.delivered_cycle.min() == -1


def test_rejects_self_messages_unknown_policy_and_negative_capacity():
    topo = torus([4])
    with pytest.raises(ConfigError, match="itself"):
        simulate_packets(topo, wm.make_messages([1], [1]))
    with pytest.raises(ConfigError, match="did you mean 'lrpf'"):
        simulate_packets(topo, wm.make_messages([0], [1]), policy="lrfp")
    with pytest.raises(ConfigError, match="queue_capacity"):
        simulate_packets(topo, wm.make_messages([0], [1]), queue_capacity=-1)


def test_empty_workload_finishes_in_zero_cycles():
    res = simulate_packets(torus([4]), wm.make_messages([], []))
    assert res.cycles == 0 and res.summary()["packets"] == 0



@pytest.mark.nojit
@pytest.mark.parametrize("n_bags", [6, 40])
def test_ring_pool_grows_and_compacts_without_losing_order(n_bags):
    # 40 bags: empty bags (shrunk to no ring by a compaction) are grown when the pool is full
    from collections import deque

    from netsim_fast.packet import pool as pp

    rng = np.random.default_rng(0)
    max_live = 50
    size = pp.pool_size(max_live, n_bags)
    bag = np.zeros((n_bags, pp.BG_FIELDS), np.int64)
    ring = np.zeros((size, 2), np.int64)
    counters = np.zeros(1, np.int64)
    model = [deque() for _ in range(n_bags)]
    live, compactions, next_id = 0, 0, 0
    for step in range(3000):
        hot = (step // 200) % n_bags  # each bag in turn fills up: their rings outgrow the pool
        g = hot if rng.random() < 0.5 else int(rng.integers(n_bags))
        if live < max_live and (g == hot or not model[g]):
            if bag[g, pp.BG_LEN] == bag[g, pp.BG_CAP]:
                before = counters[0]
                pp.grow_bag(bag, ring, counters, 0, g)
                compactions += counters[0] < before
            off, cap, head, n = bag[g]
            ring[off + (head + n) % cap, pp.RG_PKT] = next_id
            bag[g, pp.BG_LEN] += 1
            model[g].append(next_id)
            next_id += 1
            live += 1
        elif model[g]:
            off, cap, head, n = bag[g]
            assert ring[off + head, pp.RG_PKT] == model[g].popleft()
            bag[g, pp.BG_HEAD] = (head + 1) % cap
            bag[g, pp.BG_LEN] -= 1
            live -= 1
        assert counters[0] <= size
        assert bag[:, pp.BG_LEN].max() <= bag[:, pp.BG_CAP].max()
        used = bag[bag[:, pp.BG_CAP] > 0]
        spans = sorted((o, o + c) for o, c in used[:, :2])
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # rings never overlap
    assert compactions > 0
    for g in range(n_bags):
        off, cap, head, n = bag[g]
        assert [ring[off + (head + i) % cap, pp.RG_PKT] for i in range(n)] == list(model[g])


def test_ring_pool_compaction_keeps_queue_order():
    # a star-like hot spot: every node sends many messages to node 0, so the rings of the
    # links into node 0 grow far beyond their first capacity and the pool compacts
    from netsim_fast.packet import pool

    topo = random_regular(10, 3, seed=4)
    src = np.repeat(np.arange(1, 10), 40)
    msgs = wm.make_messages(src, np.zeros_like(src), np.arange(src.size) % 7)
    for policy in POLICIES:
        _compare(topo, msgs, policy=policy, seed=2)


@pytest.mark.nojit
def test_growing_an_empty_bag_when_the_pool_is_full_gives_it_a_ring():
    from netsim_fast.packet import pool as pp

    bag = np.zeros((3, pp.BG_FIELDS), np.int64)
    ring = np.zeros((8, 2), np.int64)
    counters = np.array([8])  # pool exhausted by rings that have been emptied since
    bag[0] = [0, 4, 1, 0]
    bag[1] = [4, 4, 0, 1]
    pp.grow_bag(bag, ring, counters, 0, 2)
    assert bag[2, pp.BG_CAP] >= pp.MIN_CAP
    assert bag[2, pp.BG_OFF] + bag[2, pp.BG_CAP] <= 8
    assert bag[0, pp.BG_CAP] == 0 and bag[1, pp.BG_CAP] == pp.MIN_CAP


def test_srpf_refuses_paths_longer_than_its_class_bitmask():
    topo = torus([140])
    with pytest.raises(ConfigError, match="at most 62 hops"):
        simulate_packets(topo, wm.make_messages([0], [70]), policy="srpf")
    assert simulate_packets(topo, wm.make_messages([0], [70])).cycles == 70


def test_max_cycles_stops_with_a_partial_result():
    from netsim_fast.errors import SimulationError

    topo = torus([16])
    with pytest.raises(SimulationError, match="max_cycles=3") as info:
        simulate_packets(topo, wm.make_messages([0, 1], [8, 2]), max_cycles=3, batch_cycles=2)
    res = info.value.result
    assert res.status == "max_cycles" and res.cycles == 3
    assert res.delivered_cycle.tolist() == [-1, 1]


def test_batches_do_not_change_the_run():
    topo = random_regular(32, 4, 3)
    msgs = wm.random_messages(32, 6, np.random.default_rng(4))
    whole = simulate_packets(topo, msgs, policy="lrpf", path_choice="random", seed=8)
    pieces = simulate_packets(topo, msgs, policy="lrpf", path_choice="random", seed=8,
                              batch_cycles=1)
    assert np.array_equal(whole.delivered_cycle, pieces.delivered_cycle)
    assert np.array_equal(whole.queued_per_cycle, pieces.queued_per_cycle)
    assert whole.queued_per_cycle.size == whole.cycles
    calls = []
    res = simulate_packets(topo, msgs, batch_cycles=4, progress=lambda *a: calls.append(a))
    assert calls[-1] == (res.cycles, msgs.n_messages, msgs.n_messages)
    assert [c[0] for c in calls] == list(range(4, res.cycles, 4)) + [res.cycles]


def test_link_packets_count_every_traversal_of_the_fixed_paths():
    from netsim_fast.studies.rrg_compare import link_loads

    topo = random_regular(48, 4, 5)
    msgs = wm.random_messages(48, 6, np.random.default_rng(5))
    res = simulate_packets(topo, msgs, policy="lrpf")
    # the fixed path of every message, walked independently in numpy
    assert np.array_equal(res.link_packets, link_loads(build_minimal_table(topo), topo, msgs))
    assert res.link_packets.sum() == res.packet_hops
