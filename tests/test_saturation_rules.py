"""Honest saturation (issue 14, item 4): BookSim2's latency limit, stop reasons, fairness."""

from __future__ import annotations

import numpy as np
import pytest

import netsim_fast as nf
from netsim_fast.flit import state as fs
from netsim_fast.flit.saturation import LatencyLimit

TORUS = dict(topology="torus", k=4, warmup=400, measure=1200, packet_flits=4)
BUSY_TORUS = dict(TORUS, k=8)  # dor saturates an 8x8 torus well below 0.9 flits/node/cycle


def naive_latency_value(pkt, t, period, win_start, win_end):
    """BookSim2's quantity at a check at cycle ``t``, computed the slow way from its rules."""
    cleared = win_start if t > win_start else ((t - 1) // (2 * period)) * (2 * period)
    total, count = 0.0, 0
    for p in pkt:
        if p["release"] >= t:
            continue
        if 0 <= p["tail_del"] < t:
            if p["tail_del"] < cleared:
                continue
            if t > win_start and not win_start <= p["release"] < win_end:
                continue
            total += p["tail_del"] - p["release"]
            count += 1
        elif p["tail_del"] < 0:
            left = p["len"] - p["ejected"]
            total += left * (t - p["release"])
            count += left
    return total / count if count else 0.0


class _FakeState:
    def __init__(self, pkt):
        self.pkt = pkt
        self.cnt = np.zeros(fs.N_COUNTERS, np.int64)
        self.cnt[fs.C_NEXT_RELEASE] = pkt.size


def test_latency_limit_value_matches_booksims_rule_at_every_check():
    rng = np.random.default_rng(5)
    n = 400
    pkt = np.zeros(n, fs.PACKET)
    pkt["release"] = np.sort(rng.integers(0, 6000, n))
    pkt["len"] = rng.integers(1, 9, n)
    latency = rng.integers(5, 2500, n)
    pkt["tail_del"] = pkt["release"] + latency
    horizon = 6000
    pkt["ejected"] = pkt["len"]
    late = pkt["tail_del"] >= horizon
    pkt["ejected"][late] = rng.integers(0, 1, late.sum())
    pkt["tail_del"][late] = -1
    period, win_start, win_end = 500, 2000, 4000
    check = LatencyLimit(10**9, period, win_start, win_end)
    for t in range(period, horizon + 1, period):
        # the engine shows only what happened before t
        seen = pkt.copy()
        undelivered_yet = seen["tail_del"] >= t
        seen["tail_del"][undelivered_yet] = -1
        seen["ejected"][undelivered_yet] = 0
        state = _FakeState(seen[seen["release"] < t])
        check.check(state, t)
        assert check.value == pytest.approx(naive_latency_value(seen, t, period, win_start, win_end))


def test_saturated_open_loop_run_stops_at_the_latency_limit():
    out = nf.simulate(nf.Config(**BUSY_TORUS, rate=0.9, latency_limit=300, sample_period=200))
    assert out["stop_reason"] == "latency-limit"
    assert out["saturated"] is True and out["completed"] is False
    assert out["cycles"] < 400 + 1200 + 5 * 1200 and out["cycles"] % 200 == 0
    assert out["latency_limit_value"] > 300


def test_latency_limit_zero_turns_it_off():
    out = nf.simulate(nf.Config(**BUSY_TORUS, rate=0.9, latency_limit=0, drain=300))
    assert out["stop_reason"] == "drain-limit"
    assert out["saturated"] is True and out["cycles"] == 400 + 1200 + 300


def test_run_below_saturation_completes_and_is_fair():
    out = nf.simulate(nf.Config(**TORUS, rate=0.2))
    assert out["stop_reason"] == "completed" and out["completed"] is True and out["saturated"] is False
    assert out["accepted_min"] <= out["accepted_load"] <= out["accepted_max"]
    assert out["injected_min"] > 0
    assert out["fairness_jain"] > 0.9


def test_fixed_cycle_run_has_no_latency_limit():
    out = nf.simulate(nf.Config(topology="torus", k=4, rate=0.95, cycles=3000))
    assert out["stop_reason"] == "cycles" and out["cycles"] == 3000 and out["completed"] is True
    assert out["saturated"] is True  # accepts far less than it offers, measured over all 3000 cycles
    with pytest.raises(nf.ConfigError, match="--latency-limit"):
        nf.Config(topology="torus", k=4, rate=0.95, cycles=3000, latency_limit=50)
    with pytest.raises(nf.ConfigError, match="--latency-limit"):
        nf.Config(topology="torus", k=4, pattern="random", latency_limit=50)


def test_finite_workload_cut_short_is_not_completed_and_saturated():
    out = nf.simulate(nf.Config(topology="torus", k=4, pattern="random", messages=50, cycles=50))
    assert out["stop_reason"] == "cycles"
    assert out["completed"] is False and out["saturated"] is True


def test_finite_workload_is_never_stopped_by_the_latency_limit():
    out = nf.simulate(nf.Config(topology="torus", k=4, pattern="random", messages=60, packet_flits=8))
    assert out["stop_reason"] == "completed" and out["completed"] is True
    assert out["latency_max"] > 0


def test_jain_index_of_one_node_getting_everything_is_one_over_n():
    from netsim_fast.fairness import per_node_throughput

    out = per_node_throughput(np.array([3, 3]), np.array([4, 4]), 8, 10)
    assert out["fairness_jain"] == pytest.approx(1 / 8)
    assert out["accepted_min"] == 0 and out["accepted_max"] == pytest.approx(0.8)


def test_headers_of_old_packets_go_first_oldest_first():
    from netsim_fast.flit.allocate import _starving_first, starvation_guard

    inl = np.zeros(6, fs.IN_LANE)
    inl["age"] = [50, 10, 900, 5, 800, 30]  # injection cycles of the front packets
    order = np.array([0, 1, 2, 3, 4, 5], np.int32)
    _starving_first(inl, order, 6, 100)  # injected before cycle 100: lanes 0, 1, 3, 5
    assert order.tolist() == [3, 1, 5, 0, 2, 4]  # old packets by age, then the rest in their order
    assert starvation_guard(10000) == 625


@pytest.mark.parametrize("vc_alloc", ["rr", "age"])
def test_every_injection_lane_is_served_on_the_small_torus_that_starved_under_round_robin(vc_alloc):
    # the example: a 5x2 torus with table routing, offered load 1.0
    out = nf.simulate(nf.Config(topology="torus", dims="5,2", routing="minimal", vcs=4, vc_alloc=vc_alloc,
                                rate=1.0, cycles=30000))
    assert out["starved_channel_count"] == 0 and out["deadlock"] is False
    assert out["injected_min"] > 0 and out["fairness_jain"] > 0.99


def test_an_interrupted_run_returns_its_summary_with_stop_reason_interrupted(tmp_path):
    calls = []

    def progress(done, limit):
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    trace = tmp_path / "run.h5"
    out = nf.simulate(nf.Config(**dict(TORUS, measure=6000), rate=0.2, trace=str(trace)), progress=progress)
    assert out["stop_reason"] == "interrupted" and out["completed"] is False
    assert out["cycles"] == calls[-1] < 400 + 6000
    assert not trace.exists() and not list(tmp_path.iterdir())  # no trace, complete or partial
