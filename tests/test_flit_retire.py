"""Bounded state for long open-loop runs: retiring finished packets (flit/retire.py) changes no
result, and a full --source-queue drops packets exactly as the reference does."""

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.flit import retire
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import FinitePackets, run_flit
from netsim_fast.summary_keys import WALL_CLOCK_KEYS
from netsim_fast.topologies import build_topology
from tests.reference.flit_naive import simulate_naive

SMALL = dict(topology="torus", k=4, vcs=2, buf=4, packet_flits=2, seed=3)
CASES = {
    "window, saturated, latency limit": dict(rate=0.9, warmup=500, measure=3000, sample_period=300),
    "window, below saturation, rr": dict(rate=0.2, warmup=500, measure=4000, vc_alloc="rr", router="iq"),
    "cycles, source queue": dict(rate=1.0, cycles=6000, source_queue=3, switching="vct"),
    "window, source queue, duato": dict(rate=0.8, warmup=300, measure=3000, routing="duato", vcs=3,
                                        source_queue=2, latency_limit=0),
    "booksim measurement": dict(rate=0.3, measurement="booksim", sample_period=400, router="iq"),
    "booksim measurement, throughput, saturated": dict(rate=0.9, measurement="booksim", sim_type="throughput",
                                                      sample_period=300, max_samples=6),
}


def _summary(cfg):
    # the memory estimate counts the retirement threshold, which the tests lower
    return {k: v for k, v in simulate(cfg).items() if k not in WALL_CLOCK_KEYS and k != "estimated_mib"}


def assert_retiring_changes_nothing(cfg, monkeypatch, retire_at: int = 256) -> None:
    """The summary of ``cfg`` is the same when packets are retired every ``retire_at`` records,
    and that threshold does make the run retire some."""
    whole = _summary(cfg)
    retired_runs = []
    real_retire = retire.RetiredPackets.retire

    def spy(self, state, upto=None):
        shift = real_retire(self, state, upto)
        retired_runs.append(shift)
        return shift

    monkeypatch.setattr(retire, "RETIRE_AT", retire_at)
    monkeypatch.setattr(retire.RetiredPackets, "retire", spy)
    assert _summary(cfg) == whole
    assert sum(retired_runs) > 0, "the small threshold must make the run retire packets"


@pytest.mark.parametrize("case", sorted(CASES))
def test_retiring_packets_changes_no_result(case, monkeypatch):
    assert_retiring_changes_nothing(Config(**{**SMALL, **CASES[case]}), monkeypatch)


def test_retired_and_live_tables_join_in_id_order(monkeypatch):
    cfg = Config(**SMALL, rate=0.3, cycles=5000)
    topo = build_topology(cfg)
    whole = run_flit(cfg, topo).packet_table()
    monkeypatch.setattr(retire, "RETIRE_AT", 128)
    run = run_flit(cfg, topo)
    assert run.retired.count > 0 and run.state.cnt[fs.C_NPKT] < whole["src"].size
    joined = run.packet_table()
    for name, column in whole.items():
        assert np.array_equal(joined[name], column), name


def test_renumbering_keeps_every_live_reference(monkeypatch):
    """After a retirement mid-run the live ids still point at the right records: the source
    queues link packets of their own node, and every buffered flit belongs to a live packet."""
    cfg = Config(**SMALL, rate=1.0, cycles=3000, source_queue=4)
    monkeypatch.setattr(retire, "RETIRE_AT", 64)
    run = run_flit(cfg, build_topology(cfg))
    s = run.state
    assert run.retired.count > 0
    n = int(s.cnt[fs.C_NPKT])
    for node in range(s.node.shape[0]):
        pkt = int(s.node["src_head"][node])
        while pkt != fs.NONE:
            assert 0 <= pkt < n and s.pkt["src"][pkt] == node
            pkt = int(s.pkt["next"][pkt])
    for lane in np.flatnonzero(s.inl["len"] > 0):
        for j in range(int(s.inl["len"][lane])):
            flit = int(s.in_buf[lane, (s.inl["head"][lane] + j) % s.in_buf.shape[1]])
            assert 0 <= flit >> 32 < n and s.pkt["tail_del"][flit >> 32] < 0


@pytest.mark.parametrize("router", ["lanes", "iq"])
def test_full_source_queue_drops_as_the_reference_does(router):
    rng = np.random.default_rng(5)
    count = 300
    src = rng.integers(0, 9, count)
    dst = (src + rng.integers(1, 9, count)) % 9
    packets = FinitePackets(src.astype(np.int32), dst.astype(np.int32), np.full(count, 3, np.int32),
                            np.sort(rng.integers(0, 60, count)).astype(np.int64))
    cfg = Config(topology="torus", k=3, router=router, vcs=2, buf=4, rate=1.0, source_queue=2, seed=1)
    topo = build_topology(cfg)
    run = run_flit(cfg, topo, packets=packets)
    ref = simulate_naive(topo, router=router, vcs=2, buf=4, source_queue=2, pkt_src=packets.src, pkt_dst=packets.dst,
                         pkt_len=packets.length, pkt_release=packets.release, max_cycles=100_000)
    dropped = ref["injected"] == -2
    assert 0 < dropped.sum() < count
    assert np.array_equal(run.state.pkt["injected"][:count], ref["injected"])
    assert np.array_equal(run.state.pkt["tail_del"][:count], ref["tail_delivered"])
    assert int(run.state.cnt[fs.C_DROPPED]) == dropped.sum()
    assert run.cycles == ref["cycles"]


def test_source_queue_bounds_the_queue_and_reports_the_drops():
    cfg = Config(**SMALL, rate=1.0, cycles=4000, source_queue=3)
    s = simulate(cfg)
    n_nodes = 16
    assert s["source_dropped_packets"] > 0 and s["saturated"]
    # queued = waiting (at most 3) + bound to the node's local lanes (at most --vcs)
    assert s["source_queue_max"] <= n_nodes * (3 + cfg.vcs)
    assert s["offered_load"] == pytest.approx(1.0, abs=0.03), "dropped packets were offered too"
    unbounded = simulate(Config(**SMALL, rate=1.0, cycles=4000))
    assert unbounded["source_dropped_packets"] == 0
    assert unbounded["source_queue_max"] > s["source_queue_max"]


def test_source_queue_is_refused_where_it_does_not_apply():
    from netsim_fast.errors import ConfigError

    with pytest.raises(ConfigError, match="source-queue"):
        Config(topology="torus", k=4, pattern="random", source_queue=4)
    with pytest.raises(ConfigError, match="source-queue"):
        Config(topology="torus", k=4, source_queue=0)


def test_memory_estimate_counts_retirement_under_a_source_queue():
    from netsim_fast.config.memory import MIB, estimated_mib

    long_run = dict(topology="torus", k=16, vcs=2, packet_flits=1, rate=1.0, cycles=1_000_000, memory_limit=10**7)
    unbounded, bounded = Config(**long_run), Config(**long_run, source_queue=16)
    created = 256 * 1_000_000
    # unbounded source queues keep every packet live; a bounded one keeps a retirement window
    # live and the delivered packets' summary columns
    assert estimated_mib(unbounded) > 3 * created * fs.PACKET.itemsize / MIB
    assert created * retire.RETIRED_BYTES / MIB < estimated_mib(bounded) < estimated_mib(unbounded) / 3


def test_the_progress_display_gets_each_batchs_accepted_load_and_latency():
    from netsim_fast.cli.render import live_text

    cfg = Config(**SMALL, rate=0.2, warmup=1000, measure=3000)
    calls = []
    run_flit(cfg, build_topology(cfg), progress=lambda t, limit, **live: calls.append((t, live)))
    assert len(calls) >= 3
    late = [live for t, live in calls[1:-1]]
    assert all(abs(live["accepted"] - 0.2) < 0.08 and live["latency"] > 0 for live in late)
    assert live_text(0.1995, 23.25) == "accepted 0.200 · latency 23.2" and live_text(None, None) == ""
