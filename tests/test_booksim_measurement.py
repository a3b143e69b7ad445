"""--measurement booksim: BookSim2's sample periods (flit/sampling.py), checked against a plain
recomputation of every period from the packet table, and its state machine on chosen knobs."""

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.flit.run import run_flit
from netsim_fast.summary_keys import WALL_CLOCK_KEYS
from netsim_fast.topologies import build_topology
from tests._refusals import assert_refused

SMALL = dict(topology="mesh", k=4, vcs=2, buf=4, packet_flits=2, seed=5, router="iq", measurement="booksim",
             sample_period=200)


def _periods_naive(table, flits_out_at, control, period, n_nodes):
    """Every period's (latency, accepted) from the packet table, BookSim2's rules written out:
    clears before even warm-up periods and once after warm-up; warm-up counts every packet
    retired, then only those created from the end of warm-up on."""
    warm = control["warmed_up_at"]
    rows, clear = [], 0
    for i, row in enumerate(control["periods"]):
        t = row["cycle"]
        start = t - period
        if warm is None or start < warm:
            if i % 2 == 0:
                clear = start
            counted = [(tail - rel) for rel, tail in zip(table["created_cycle"], table["tail_arrival_cycle"])
                       if clear <= tail < t]
        else:
            clear = max(clear, warm)
            counted = [(tail - rel) for rel, tail in zip(table["created_cycle"], table["tail_arrival_cycle"])
                       if clear <= tail < t and rel >= warm]
        latency = sum(counted) / len(counted) if counted else None
        accepted = (flits_out_at(t) - flits_out_at(clear)) / (t - clear) / n_nodes
        rows.append((latency, accepted))
    return rows


def test_every_period_matches_a_plain_recount():
    cfg = Config(**SMALL, rate=0.25)
    topo = build_topology(cfg)
    run = run_flit(cfg, topo)
    control = run.extras["booksim_control"]
    table = run.packet_table()
    # flits delivered before cycle t: every flit of a packet whose tail arrived before t, plus
    # the delivered flits of packets still arriving (2-flit packets: head before tail)
    head, tail, size = table["head_arrival_cycle"], table["tail_arrival_cycle"], table["size_flits"]

    def flits_out_at(t):
        done = (tail >= 0) & (tail < t)
        partial = (head >= 0) & (head < t) & ~done
        return int(size[done].sum()) + int(partial.sum())

    naive = _periods_naive(table, flits_out_at, control, cfg.sample_period, topo.n_nodes)
    assert len(naive) == control["sample_periods"] >= 4
    for (latency, accepted), row in zip(naive, control["periods"]):
        assert row["latency"] == pytest.approx(latency)
        assert row["accepted"] == pytest.approx(accepted)


def test_default_knobs_warm_up_three_periods_then_converge_and_drain():
    s = simulate(Config(**SMALL, rate=0.2, stopping_thres=-1, acc_stopping_thres=-1))
    b = s["booksim_control"]
    assert b["warmed_up_at"] == 600 and b["drain_time"] == 1200  # 3 warm-up + 3 converged periods
    assert s["measure_window"] == [600, 1200] and s["stop_reason"] == "completed" and not s["saturated"]
    assert [p["state"] for p in b["periods"]] == ["warming-up"] * 3 + ["running"] * 3
    assert s["accepted_load"] == pytest.approx(b["periods"][-1]["accepted"])  # drain_time - reset_time


def test_max_samples_ends_measurement_and_zero_warmup_uses_thresholds():
    b = simulate(Config(**SMALL, rate=0.2, max_samples=4, stopping_thres=0, acc_stopping_thres=0))["booksim_control"]
    assert b["sample_periods"] == 4 and b["drain_time"] == 800 and b["converged_periods"] < 3
    b = simulate(Config(**SMALL, rate=0.2, warmup_periods=0, warmup_thres=-1, acc_warmup_thres=-1))["booksim_control"]
    assert b["warmed_up_at"] == 200  # both tests off: warm after the first period


def test_saturated_run_is_aborted_by_the_latency_limit_and_unconverged_warmup_is_unstable():
    s = simulate(Config(**SMALL, rate=1.0, latency_limit=100))
    assert s["stop_reason"] == "latency-limit" and s["saturated"] and s["booksim_control"]["unstable"]
    assert s["booksim_control"]["periods"][-1]["latency_estimate"] > 100
    s = simulate(Config(**SMALL, rate=0.1, max_samples=2))  # 3 warm-up periods never end
    assert s["stop_reason"] == "not-converged" and s["booksim_control"]["unstable"]


def test_throughput_mode_creates_nothing_after_the_drain_time():
    cfg = Config(**SMALL, rate=0.9, sim_type="throughput")
    run = run_flit(cfg, build_topology(cfg))
    drain = run.extras["booksim_control"]["drain_time"]
    assert drain is not None and run.stop_reason == "completed"
    assert run.packet_table()["created_cycle"].max() < drain
    assert np.all(run.packet_table()["tail_arrival_cycle"] >= 0)  # everything drained


def test_same_seed_same_result():
    a, b = (simulate(Config(**SMALL, rate=0.3)) for _ in range(2))
    for s in (a, b):
        for key in WALL_CLOCK_KEYS:
            s.pop(key, None)
    assert a == b


@pytest.mark.parametrize("args, words", [
    (["--sim-type", "throughput"], ["--sim-type", "--measurement booksim only"]),
    (["--max-samples", "5"], ["--max-samples", "--measurement booksim only"]),
    (["--measurement", "booksim", "--cycles", "100"], ["--measurement", "--cycles"]),
    (["--measurement", "booksim", "--warmup", "100"], ["--warmup", "sample periods"]),
    (["--measurement", "booksim", "--pattern", "random-te"], ["--measurement", "open-loop"]),
    (["--measurement", "batch"], ["--measurement", "window, booksim"]),
    (["--measurement", "booksim", "--warmup-thres", "nan"], ["--warmup-thres", "finite"]),
])
def test_bad_measurement_options_are_refused_in_one_line(args, words):
    res = CliRunner().invoke(app, ["run", "--topology", "mesh", "--k", "4", *args])
    assert_refused(res, words)


def test_estimate_and_nan_free_json():
    s = simulate(Config(**SMALL, rate=0.05, warmup_periods=0))
    for row in s["booksim_control"]["periods"]:
        assert all(v is None or not isinstance(v, float) or math.isfinite(v) for v in row.values())


def test_estimate_counts_only_the_packets_booksim2_has_generated():
    """BookSim2's latency estimate ages the flits of generated packets only; a node generates
    its next packet once the previous one is injected whole, so a source backlog is not aged
    (docs/booksim-router.md 4.1). Node 0: one packet in the network, one being injected (bound,
    head not yet sent), two more waiting; node 1: nothing injecting, three waiting (only the
    first is generated); node 2: one packet delivered. Each packet has 2 flits."""
    from types import SimpleNamespace

    from netsim_fast.flit import state as fs
    from netsim_fast.flit.sampling import BookSimControl

    pkt = fs.new_packets(8)
    pkt["len"] = 2
    pkt["release"] = [0, 1, 2, 3, 0, 1, 2, 0]
    pkt["src"] = [0, 0, 0, 0, 1, 1, 1, 2]
    pkt["injected"][0], pkt["injected"][7], pkt["tail_del"][7] = 2, 1, 9  # 7 delivered at 9
    pkt["ejected"][0], pkt["ejected"][7] = 1, 2  # packet 0: one of its flits has arrived
    node = np.zeros(3, fs.NODE).view(np.recarray)
    node["src_head"] = [2, 4, fs.NONE]
    inj = np.full((3, 2), fs.NONE, dtype=fs.INJ).view(np.recarray)
    inj["pkt"][0, 0], inj["sent"][0, 0] = 1, 0  # node 0 is injecting packet 1 (no flit sent yet)
    cnt = np.zeros(32, np.int64)
    cnt[fs.C_NEXT_RELEASE] = 8
    state = SimpleNamespace(pkt=pkt, node=node, inj=inj, cnt=cnt)
    control = BookSimControl(Config(**SMALL, rate=0.2), 3)
    t = 10
    # retired since the last clear: packet 7 (latency 9); in flight: packet 0 (1 flit, age 10),
    # packet 1 (2 flits, age 9) and packet 4 (2 flits, age 10); packets 2, 3, 5, 6 not generated
    assert control._account(state, t) == pytest.approx((9 + 1 * 10 + 2 * 9 + 2 * 10) / (1 + 1 + 2 + 2))
