"""The booksim router (``--router booksim``) against hand-checked BookSim2 timings.

Cases A-G are docs/booksim-router.md section 12 (configs in tests/booksim_cases/), checked
there against the BookSim2 binary; the zero-load formula is section 6. Times are relative to
the packet's creation (BookSim2's t0): head and tail delivery cycles are BookSim2's ``atime``.
"""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast import Config
from netsim_fast.errors import ConfigError


def one_packet(src, dst, flits=1, **kw):
    """Run one packet alone from cycle 0; (head delivery, tail delivery, hops) of it."""
    from netsim_fast.flit.run import run_flit
    from netsim_fast.topologies import build_topology
    from netsim_fast.workloads.packets import FinitePackets

    cfg = Config(router="booksim", pattern="random", messages=1, packet_flits=flits, **kw)
    topo = build_topology(cfg)
    packets = FinitePackets(src=np.array([src]), dst=np.array([dst]), length=np.array([flits], np.int32),
                            release=np.array([0], np.int64))
    run = run_flit(cfg, topo, packets=packets)
    table = run.packet_table()
    assert int(table["injected_cycle"][0]) == 0
    return int(table["head_arrival_cycle"][0]), int(table["tail_arrival_cycle"][0]), int(table["hops"][0])


MESH2 = dict(topology="mesh", k=2)


def test_case_a_mesh_one_flit():
    assert one_packet(0, 3, **MESH2) == (17, 17, 2)


def test_case_b_mesh_four_flits_follow_one_per_cycle():
    assert one_packet(0, 3, flits=4, **MESH2) == (17, 20, 2)


def test_case_c_torus_links_take_three_cycles():
    # 9 -> 14 on the 4x4 torus (tornado): 7 + 6 * 2
    assert one_packet(9, 14, topology="torus", k=4) == (19, 19, 2)


def test_case_e_one_flit_buffers_wait_for_every_credit():
    assert one_packet(0, 3, flits=4, vcs=2, buf=1, credit_delay=1, **MESH2) == (17, 35, 2)


def test_case_e_flits_are_sent_when_credits_return_and_their_send_cycles_are_kept():
    # docs/booksim-router.md section 12, case E (BookSim2's watch output): the flits are sent at
    # t0 + 0, 6, 14, 22 and arrive at t0 + 17, 23, 29, 35; BookSim2's flit latency (atime - itime,
    # TrafficManager::_RetireFlit) is 17, 17, 15, 13, which the two gap sums give exactly
    from netsim_fast.flit.run import run_flit
    from netsim_fast.topologies import build_topology
    from netsim_fast.workloads.packets import FinitePackets

    cfg = Config(router="booksim", pattern="random", messages=1, packet_flits=4, vcs=2, buf=1, credit_delay=1,
                 **MESH2)
    packets = FinitePackets(src=np.array([0]), dst=np.array([3]), length=np.array([4], np.int32),
                            release=np.array([0], np.int64))
    table = run_flit(cfg, build_topology(cfg), packets=packets).packet_table()
    assert int(table["flit_inject_gap_sum"][0]) == 6 + 14 + 22
    assert int(table["flit_gap_sum"][0]) == 6 + 12 + 18
    flit_latency_sum = 4 * (table["head_arrival_cycle"][0] - table["injected_cycle"][0]) + \
        table["flit_gap_sum"][0] - table["flit_inject_gap_sum"][0]
    assert flit_latency_sum == 17 + 17 + 15 + 13


def test_case_f_two_cycle_crossbar_batches_flits():
    assert one_packet(0, 3, flits=4, st_prepare_delay=1, **MESH2) == (20, 24, 2)


def test_case_d_speculation_lookahead_and_slow_stages():
    # docs/booksim-router.md section 12, case D: 2 flits, speculative, routing_delay 0,
    # sw_alloc_delay 2, st_prepare_delay 1: P = 3; head 17 cycles, tail 19
    kw = dict(speculative=True, routing_delay=0, sw_alloc_delay=2, st_prepare_delay=1)
    assert one_packet(0, 3, flits=2, **kw, **MESH2) == (17, 19, 2)


@pytest.mark.parametrize("kw,latency", [
    ({"vc_alloc_delay": 2, "sw_alloc_delay": 2}, 23),
    ({"speculative": True, "vc_alloc_delay": 2, "sw_alloc_delay": 2}, 23),  # every speculative grant dropped
    ({"speculative": True, "sw_alloc_delay": 2}, 17),
    ({"speculative": True}, 14),
])
def test_multi_cycle_allocation_at_zero_load(kw, latency):
    # section 6, checked with BookSim2 on case A's packet
    assert one_packet(0, 3, **kw, **MESH2) == (latency, latency, 2)


def test_request_behind_a_multi_cycle_batch_is_where_booksim_aborts():
    from netsim_fast import simulate
    from netsim_fast.errors import SimulationError

    with pytest.raises(SimulationError, match="BookSim2 would stop"):
        simulate(Config(router="booksim", vc_alloc_delay=2, pattern="uniform-self", rate=0.3, packet_flits=1,
                        warmup=100, measure=500, **MESH2))


def test_lookahead_routing_takes_no_cycle_in_the_router():
    # routing_delay 0: P = 2 per router (section 6); with speculation P = 1: 11 cycles (run)
    assert one_packet(0, 3, routing_delay=0, **MESH2) == (14, 14, 2)
    assert one_packet(0, 3, routing_delay=0, speculative=True, **MESH2) == (11, 11, 2)
    assert one_packet(9, 6, routing_delay=0, topology="torus", k=4) == (4 + 3 * 2 + 2 * 3,) * 2 + (2,)
    # next-hop output queueing changes which VCs are used, not the timing of a lone packet
    assert one_packet(0, 15, routing_delay=0, noq=True, vcs=10, topology="mesh", k=4) == (4 + 7 * 2 + 6 * 2,) * 2 + (6,)


def test_held_switch_keeps_zero_load_timing():
    # a held connection moves the body flits one per cycle, as switch allocation would alone
    assert one_packet(0, 3, flits=4, hold_switch_for_packet=True, **MESH2) == (17, 20, 2)
    assert one_packet(0, 3, flits=4, hold_switch_for_packet=True, vcs=2, buf=1, credit_delay=1, **MESH2) == (17, 35, 2)


def test_internal_speedup_runs_stages_twice_per_cycle():
    # two internal steps: routing, VC and switch allocation and the crossbar of one cycle
    # chain within it, so a head spends one cycle per router (4 + 3 + 2 * 2 on case A's route)
    assert one_packet(0, 3, internal_speedup=2.0, **MESH2) == (11, 11, 2)  # BookSim2: 11 (run)
    assert one_packet(0, 3, internal_speedup=1.5, **MESH2) == (14, 14, 2)  # 1, 2, 1, 2... steps; BookSim2: 14


def test_speculation_saves_one_cycle_per_router():
    # docs/booksim-router.md section 6: speculative=1 on case A's packet takes 14 cycles (run)
    assert one_packet(0, 3, speculative=True, **MESH2) == (14, 14, 2)
    assert one_packet(0, 3, flits=4, speculative=True, **MESH2) == (14, 17, 2)


@pytest.mark.parametrize("topology,k,src,dst,flits,kw", [
    ("mesh", 4, 0, 15, 1, {}),
    ("mesh", 4, 3, 12, 5, {"routing_delay": 2}),
    ("mesh", 3, 4, 4, 3, {}),  # to itself: 7 + (L - 1)
    ("torus", 5, 0, 12, 2, {"st_prepare_delay": 1, "credit_delay": 3}),
    ("torus", 4, 0, 10, 1, {"use_noc_latency": False}),
    ("torus", 3, 2, 7, 4, {"routing_delay": 3, "st_final_delay": 2}),
    ("torus", 5, 3, 21, 3, {"routing_delay": 0}),
    ("mesh", 5, 24, 0, 6, {"routing_delay": 0, "st_prepare_delay": 2}),
])
def test_zero_load_latency_is_section_6_formula(topology, k, src, dst, flits, kw):
    cfg = Config(router="booksim", topology=topology, k=k, **kw)
    d = 2 if topology == "torus" and cfg.use_noc_latency else 1
    p = cfg.routing_delay + cfg.vc_alloc_delay + cfg.sw_alloc_delay + cfg.st_prepare_delay + cfg.st_final_delay - 1
    head, tail, hops = one_packet(src, dst, flits, topology=topology, k=k, **kw)
    assert head == 4 + (hops + 1) * p + hops * (d + 1)
    x = cfg.st_prepare_delay + cfg.st_final_delay
    if x == 1 and cfg.buf >= x + 2 * d + 2 + cfg.credit_delay:  # body flits keep up (section 6)
        assert tail == head + flits - 1
    else:  # a crossbar batch or a credit loop may bunch them (case F)
        assert tail >= head + flits - 1


def test_case_g_torus_partition_picks_vc_halves():
    """BookSim2's dim_order_torus: partition 1 iff current > destination coordinate when turning
    into a dimension, kept while continuing (4x4 torus, 16 VCs, bitcomp packets of case G)."""
    from netsim_fast.flit.booksim.routing import dim_order
    from netsim_fast.topologies import build_topology

    a = build_topology(Config(topology="torus", k=4)).arrays
    rng, out = np.array([1], np.uint64), np.zeros(4, np.int64)
    local = 4

    def hops(src, dst):
        node, in_port, ph, got = src, local, 0, []
        while True:
            dim_order(a.radix, a.coord, a.dim_port, a.port_dim, 1, node, dst, in_port, ph, 5, 16, rng, out)
            port, lo, hi, ph = (int(x) for x in out)
            got.append((port, lo, hi))
            if port == local:
                return got
            node, in_port = int(a.nbr[node, port]), int(a.nbr_in_port[node, port])

    plus = lambda d: int(a.dim_port[d, 0])  # noqa: E731
    minus = lambda d: int(a.dim_port[d, 1])  # noqa: E731
    assert hops(9, 6) == [(plus(0), 0, 7), (minus(1), 8, 15), (local, 0, 15)]
    assert hops(7, 8) == [(plus(0), 8, 15), (plus(1), 0, 7), (local, 0, 15)]
    assert hops(10, 5) == [(minus(0), 8, 15), (minus(1), 8, 15), (local, 0, 15)]


@pytest.mark.nojit
@pytest.mark.parametrize("n_in,n_out,iters", [(6, 7, 1), (6, 7, 3), (62, 40, 2)])
def test_islip_matches_reference_over_many_cycles(n_in, n_out, iters):
    """Both forms of iSLIP, on request lists and on bit masks (up to 62 inputs: the masks' top
    bit), against the reference, with their pointers carried from one allocation to the next."""
    from netsim_fast.flit.booksim.allocators.islip import islip, islip_masks
    from tests.reference.islip_naive import islip as islip_ref

    rng = np.random.default_rng(5)
    ptrs = {form: (np.zeros(n_out, np.int32), np.zeros(n_in, np.int32)) for form in ("lists", "masks")}
    gref, aref = [0] * n_out, [0] * n_in
    grant, out_match, match = np.zeros(n_out, np.int32), np.zeros(n_out, np.int32), np.zeros(n_in, np.int32)
    granted = np.zeros(n_in, np.int64)
    for _ in range(300 if n_in < 10 else 60):
        req = rng.random((n_in, n_out)) < rng.choice([0.05, 0.35])
        in_req, out_req = np.zeros((n_in, n_out), np.int32), np.zeros((n_out, n_in), np.int32)
        in_n, out_n = np.zeros(n_in, np.int32), np.zeros(n_out, np.int32)
        in_mask, out_mask = np.zeros(n_in, np.int64), np.zeros(n_out, np.int64)
        for i in range(n_in):
            for o in range(n_out):
                if req[i, o]:
                    in_req[i, in_n[i]] = o
                    in_n[i] += 1
                    out_req[o, out_n[o]] = i
                    out_n[o] += 1
                    in_mask[i] |= np.int64(1) << o
                    out_mask[o] |= np.int64(1) << i
        ins, outs = np.flatnonzero(in_n).astype(np.int32), np.flatnonzero(out_n).astype(np.int32)
        rng.shuffle(ins)  # in any order
        rng.shuffle(outs)
        want = islip_ref(req.tolist(), gref, aref, iters)
        for form, (gptr, aptr) in ptrs.items():
            match[:] = -1  # islip writes the requesting inputs' entries only
            if form == "lists":
                islip(in_req, in_n, out_req, out_n, ins, len(ins), outs, len(outs), n_in, n_out, gptr, aptr, grant,
                      out_match, match, iters)
            else:
                islip_masks(in_mask, out_mask, granted, ins, len(ins), outs, len(outs), n_in, n_out, gptr, aptr, grant,
                            out_match, match, iters)
                assert not granted.any()  # its scratch left as it found it
            assert match.tolist() == want, form
            assert gptr.tolist() == gref and aptr.tolist() == aref, form


@pytest.mark.parametrize("kw,match", [
    ({"router": "iq", "routing_delay": 2}, "routing-delay.*booksim only"),
    ({"router": "lanes", "use_noc_latency": False}, "use-noc-latency.*booksim only"),
    ({"t_routing": 3}, "t-routing.*lanes and iq.*routing-delay"),
    ({"t_crossbar": 2}, "t-crossbar.*st-prepare-delay"),
    ({"vc_allocator": "wavefront(2)"}, "vc-allocator.*no argument"),
    ({"vc_allocator": "islip(matrix)"}, "vc-allocator.*iterations"),
    ({"sw_allocator": "bogus"}, "sw-allocator.*choose one of"),
    ({"alloc_iters": 2}, "alloc-iters.*ignores it.*islip\\(2\\)"),
    ({"arb_type": "matrix"}, "arb-type.*allocator's name"),
    ({"vc_alloc_delay": 2, "speculative": True}, "vc-alloc-delay.*assertion"),
    ({"noq": True}, "noq.*routing-delay 0"),
    ({"noq": True, "routing_delay": 0, "vcs": 4}, "noq.*vcs >= 5"),
    ({"noq": True, "routing_delay": 0, "vcs": 8, "topology": "torus"}, "noq.*vcs >= 9.*half"),
    ({"priority": "oldest"}, "priority.*choose one of"),
    ({"output_buffer_size": 0}, "output-buffer-size"),
    ({"input_speedup": 5}, "input-speedup.*at most --vcs 4"),
    ({"internal_speedup": 0.5}, "internal-speedup"),
    ({"topology": "torus", "k": 4, "routing": "dor"}, "dim_order"),
    ({"topology": "hypercube", "k": None, "n": 3}, "mesh.*torus"),
])
def test_booksim_options_refused_with_a_reason(kw, match):
    base = {"topology": "mesh", "k": 4, "router": "booksim", **kw}
    base = {key: value for key, value in base.items() if value is not None}
    with pytest.raises(ConfigError, match=match):
        Config(**base)


def test_booksim_defaults_and_option_mapping():
    cfg = Config(topology="mesh", k=4, router="booksim", routing="dor")
    assert cfg.routing == "dim_order" and cfg.credit_delay == 0 and cfg.st_final_delay == 1
    assert Config(topology="mesh", k=4).credit_delay == 1  # the other routers keep theirs
    with pytest.raises(ConfigError, match="booksim"):
        Config(topology="mesh", k=4, routing="dim_order")


def test_open_loop_run_has_the_same_summary_keys_as_iq():
    from netsim_fast import simulate

    common = dict(topology="torus", k=4, pattern="uniform", rate=0.2, packet_flits=4, warmup=200, measure=600)
    bk = simulate(Config(router="booksim", **common))
    iq = simulate(Config(router="iq", **common))
    assert set(bk) == set(iq)
    assert bk["completed"] and not bk["deadlock"]
    assert bk["latency_mean"] > 4 + 3 * 3 + 6  # above the zero-load latency of the shortest route


def test_watchdog_finds_the_knot_of_one_vc_torus_rings():
    """With one VC both partitions of dim_order_torus share it: the rings deadlock, and the
    booksim router's wait-for rules (flit/booksim/driver.py) prove the knot."""
    from netsim_fast import simulate
    from netsim_fast.errors import DeadlockError

    common = dict(router="booksim", topology="torus", k=8, buf=2, packet_flits=8, pattern="uniform", rate=0.8,
                  cycles=1500, deadlock_cycles=200, seed=2)
    with pytest.raises(DeadlockError) as err:
        simulate(Config(vcs=1, **common))
    assert err.value.result.extras["deadlock_cycle"]
    two = simulate(Config(vcs=2, **common))  # BookSim2's split: congested, but no knot
    assert not two["deadlock"]


def test_retiring_packets_changes_no_booksim_result(monkeypatch):
    from tests.test_flit_retire import assert_retiring_changes_nothing

    cfg = Config(router="booksim", topology="torus", k=4, vcs=4, buf=4, packet_flits=2, rate=0.5, warmup=300,
                 measure=3000, seed=3, routing_delay=0, priority="age")
    assert_retiring_changes_nothing(cfg, monkeypatch)


@pytest.mark.parametrize("kw", [
    dict(topology="torus", k=4, vcs=4, buf=3, packet_flits=4, rate=0.6),
    dict(topology="mesh", k=4, vcs=2, buf=2, packet_flits=3, rate=0.5, routing_delay=0, noq=False, speculative=True,
         input_speedup=2, output_speedup=2, internal_speedup=1.5, hold_switch_for_packet=True, credit_delay=2,
         st_prepare_delay=1, vc_allocator="separable_input_first(matrix)", sw_allocator="wavefront",
         priority="local_age", wait_for_tail_credit=True, vc_busy_when_full=True, output_buffer_size=2),
    dict(topology="torus", k=3, vcs=9, buf=4, packet_flits=2, rate=0.7, routing_delay=0, noq=True,
         speculative=True, vc_allocator="pim(2)", sw_allocator="max_size", priority="age"),
])
def test_flits_and_credits_are_conserved_under_load(kw):
    """--check-invariants after every cycle (flit/booksim/invariants.py), saturated set-ups with
    most knobs on; a broken count stops the run with an engine error."""
    from netsim_fast import simulate

    out = simulate(Config(router="booksim", pattern="uniform-self", cycles=1500, check_invariants=True, seed=5,
                          **kw))
    assert out["error"] is None and out["packets_delivered"] > 100
