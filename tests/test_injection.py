"""Open-loop injection processes and packet-size mixes (workloads/injection.py)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.injection import onoff_probabilities
from netsim_fast.workloads.synthetic import CHUNK_CYCLES, SyntheticTraffic
from tests._refusals import assert_refused

MESH = dict(topology="mesh", k=8, vcs=2, packet_flits=4, warmup=1000, measure=4000, seed=3)


def _traffic(**kw):
    cfg = Config(topology="torus", k=4, **kw)
    return SyntheticTraffic(build_topology(cfg), pattern="uniform", rate=cfg.rate, packet_flits=cfg.packet_flits,
                            seed=9, injection=cfg.injection, burst_length=cfg.burst_length,
                            duty_cycle=cfg.duty_cycle, packet_sizes=cfg.packet_sizes, packet_mix=cfg.packet_mix)


def test_onoff_chain_has_the_asked_rate_duty_cycle_and_burst_length():
    rate, length, duty = 0.2, 6.0, 0.3  # flits; 1-flit packets
    alpha, beta, r1 = onoff_probabilities(rate, length, duty)
    assert alpha / (alpha + beta) == pytest.approx(duty) and r1 / beta == pytest.approx(length)
    traffic = _traffic(rate=rate, packet_flits=1, injection="onoff", burst_length=length, duty_cycle=duty)
    chunks = 60
    src = np.concatenate([traffic.chunk(i)[0] for i in range(chunks)])
    assert src.size / (16 * chunks * CHUNK_CYCLES) == pytest.approx(rate, rel=0.03)
    # burstiness: the per-node counts over 64-cycle windows vary far more than Bernoulli's
    rel = np.concatenate([traffic.chunk(i)[3] for i in range(chunks)])
    counts = np.bincount((rel[src == 0] // 64).astype(np.int64), minlength=chunks * CHUNK_CYCLES // 64)
    assert counts.var() > 3 * counts.mean()  # Bernoulli: variance <= mean


def test_onoff_chunks_are_the_same_whatever_order_they_are_asked_in():
    kw = dict(rate=0.3, injection="onoff", burst_length=4, duty_cycle=0.5)
    in_order = [_traffic(**kw).chunk(i) for i in range(1)] + [None]
    a = _traffic(**kw)
    for i in range(4):
        last = a.chunk(i)
    b = _traffic(**kw).chunk(3)  # replays chunks 0-2 first
    assert in_order[0] is not None
    for x, y in zip(last, b):
        assert np.array_equal(x, y)


def test_size_mix_follows_its_weights_and_keeps_the_rate_in_flits():
    traffic = _traffic(rate=0.4, packet_sizes="1,8", packet_mix="0.8,0.2")
    lengths = np.concatenate([traffic.chunk(i)[2] for i in range(20)])
    assert set(np.unique(lengths)) == {1, 8}
    assert (lengths == 1).mean() == pytest.approx(0.8, abs=0.01)
    assert lengths.sum() / (16 * 20 * CHUNK_CYCLES) == pytest.approx(0.4, rel=0.03)
    s = simulate(Config(**{**MESH, "packet_flits": None}, rate=0.2, packet_sizes="1,8", packet_mix="0.8,0.2"))
    assert s["offered_load"] == pytest.approx(0.2, rel=0.05) and not s["saturated"]


def test_bursty_traffic_saturates_earlier_than_bernoulli_at_equal_mean_load():
    # 8x8 mesh, 4-flit packets: Bernoulli saturates near 0.45, bursts of 64 packets at 25 % duty
    # below 0.40 (seeds 1-3 all agree)
    smooth = simulate(Config(**MESH, rate=0.4))
    bursty = simulate(Config(**MESH, rate=0.4, injection="onoff", burst_length=64, duty_cycle=0.25))
    assert not smooth["saturated"] and bursty["saturated"]
    assert bursty["latency_limit_value"] > 3 * smooth["latency_mean"]


def test_bernoulli_traffic_is_unchanged_by_the_new_options():
    a = _traffic(rate=0.3).chunk(2)
    b = _traffic(rate=0.3, injection="bernoulli").chunk(2)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("args, words", [
    (["--injection", "poisson"], ["--injection", "bernoulli, onoff"]),
    (["--injection", "onoff"], ["--injection", "--burst-length"]),
    (["--burst-length", "4"], ["--burst-length", "--injection onoff only"]),
    (["--injection", "onoff", "--burst-length", "4", "--duty-cycle", "1"], ["--duty-cycle", "< 1"]),
    (["--injection", "onoff", "--burst-length", "0.1", "--duty-cycle", "0.5", "--rate", "0.8"], ["beta", "--burst-length"]),
    (["--packet-mix", "1,2"], ["--packet-mix", "--packet-sizes"]),
    (["--packet-sizes", "1,8", "--packet-mix", "1"], ["--packet-mix", "2 weights"]),
    (["--packet-sizes", "1,8", "--packet-flits", "4"], ["--packet-sizes", "--packet-flits"]),
    (["--packet-sizes", "1,x"], ["--packet-sizes", "integers"]),
    (["--packet-sizes", "1,8", "--pattern", "random-te"], ["--packet-sizes", "open-loop"]),
])
def test_bad_injection_and_size_options_are_refused_in_one_line(args, words):
    res = CliRunner().invoke(app, ["run", "--topology", "mesh", "--k", "4", *args])
    assert_refused(res, words)


def test_batch_mode_runs_the_first_b_packets_of_every_node_to_completion():
    from netsim_fast.workloads.synthetic import batch_packets, traffic_of

    cfg = Config(topology="mesh", k=4, rate=0.3, batch=20, packet_flits=2, seed=4)
    topo = build_topology(cfg)
    packets = batch_packets(traffic_of(cfg, topo), 20)
    assert np.array_equal(np.bincount(packets.src, minlength=16), np.full(16, 20))
    assert np.all(np.diff(packets.release) >= 0)
    # the same packets as the open-loop process's first 20 per node
    traffic = traffic_of(cfg, topo)
    src, dst, _, release = traffic.chunk(0)
    for node in range(16):
        mine = np.flatnonzero(src == node)[:20]
        assert np.array_equal(release[mine], packets.release[packets.src == node])
        assert np.array_equal(dst[mine], packets.dst[packets.src == node])
    s = simulate(cfg)
    assert s["packets"] == s["packets_delivered"] == 320 and s["completion_cycles"] >= packets.release.max()
    assert s["batch"] == 20 and s["completed"]
    # a permutation whose diagonal nodes never send still ends
    t = simulate(Config(topology="mesh", k=4, rate=0.3, batch=5, pattern="transpose"))
    assert t["packets"] == 5 * 12


@pytest.mark.parametrize("args, words", [
    (["--batch", "10", "--warmup", "5"], ["--warmup", "--batch"]),
    (["--batch", "10", "--rate", "0"], ["--rate", "> 0"]),
    (["--batch", "0"], ["--batch", ">= 1"]),
    (["--batch", "100000", "--rate", "1e-9"], ["--batch", "cycles"]),
    (["--batch", "3", "--pattern", "random-te"], ["--batch", "open-loop"]),
])
def test_bad_batch_options_are_refused_in_one_line(args, words):
    test_bad_injection_and_size_options_are_refused_in_one_line(args, words)


def test_offered_load_may_exceed_one_flit_per_cycle_up_to_one_packet_as_in_booksim():
    s = simulate(Config(topology="mesh", k=4, packet_flits=4, rate=2.0, warmup=200, measure=1000, seed=1))
    assert s["offered_load"] == pytest.approx(2.0, rel=0.05) and s["accepted_load"] < 1 and s["saturated"]
    res = CliRunner().invoke(app, ["run", "--topology", "mesh", "--k", "4", "--packet-flits", "1", "--rate", "1.5"])
    assert res.exit_code == 2 and "at most one packet per node per cycle" in res.stderr
