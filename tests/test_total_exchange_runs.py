"""Total exchanges run on the flit engine: completion, the JSON contract, the sync modes and the
indirect algorithm's forward-only-what-was-received dependency."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import netsim_fast
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.flit.run import run_flit
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.total_exchange import TE_PATTERNS, build_total_exchange

KEYS = ("completion_cycles", "lower_bound_cycles", "bound_fraction", "steady_state_cycle", "steady_fluctuation",
        "drain_cycles", "packets", "utilization", "grain_bytes", "packet_bytes", "flits_per_pair")


def engine_run(cfg):
    """The engine's own view of a total exchange: the workload and the final state."""
    w = build_total_exchange(cfg)
    return w, run_flit(cfg.replace(sync=w.engine_sync), build_topology(cfg), packets=w.packets)


@pytest.mark.parametrize("pattern", TE_PATTERNS)
def test_cli_json_has_every_key_on_a_4x4_torus(pattern):
    result = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "4", "--routing", "duato", "--pattern", pattern,
                                      "--grain-bytes", "16", "--packet-bytes", "8", "--flit-bytes", "4", "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    s = json.loads(result.stdout)
    for key in KEYS:
        assert s[key] is not None, key
    assert s["packets_delivered"] == s["packets"] and s["saturated"] is False and s["deadlock"] is False
    # 2 packets per pair; indirect: 16 nodes x (3 row + 4 x 3 column steps) x 2, the same count on a square grid
    assert s["packets"] == 16 * 15 * 2
    assert s["lower_bound_cycles"] == 15 * 2 * 2  # endpoint bound: (N-1) F, F = 2 packets of 2 flits
    assert 0 < s["bound_fraction"] <= 1
    assert s["bound_fraction"] == pytest.approx(s["lower_bound_cycles"] / s["completion_cycles"])
    assert len(s["utilization"]) == -(-s["cycles"] // 10)


@pytest.mark.parametrize("routing", ["dor", "duato"])
@pytest.mark.parametrize("pattern", TE_PATTERNS)
def test_8x8_runs_complete_within_the_bound(routing, pattern):
    s = netsim_fast.simulate(Config(topology="torus", k=8, routing=routing, pattern=pattern, grain_bytes=8))
    assert s["completion_cycles"] >= s["lower_bound_cycles"] == 64 * 8 * 2 / 8
    assert s["drain_cycles"] == s["completion_cycles"] - s["last_injection_cycle"] >= 0
    assert 0 <= s["steady_state_cycle"] <= s["completion_cycles"]


def test_indirect_forwards_only_what_it_has_received():
    cfg = Config(topology="torus", k=4, routing="duato", pattern="indirect-te", grain_bytes=16, packet_bytes=8)
    w, run = engine_run(cfg)
    n = w.packets.src.size
    injected, tail = run.state.pkt["injected"][:n], run.state.pkt["tail_del"][:n]
    row = w.final < 0
    for idx in np.nonzero(~row & (w.origin != w.packets.src))[0]:
        carriers = row & (w.packets.src == w.origin[idx]) & (w.packets.dst == w.packets.src[idx])
        assert carriers.any()
        assert injected[idx] >= tail[carriers].max()


def test_random_te_local_sync_starts_a_step_once_the_node_received_the_last():
    cfg = Config(topology="torus", k=4, routing="duato", pattern="random-te", grain_bytes=24, packet_bytes=8,
                 sync="local")
    w, run = engine_run(cfg)
    pk = w.packets
    n = pk.src.size
    injected, tail = run.state.pkt["injected"][:n], run.state.pkt["tail_del"][:n]
    for node in range(16):
        for s in (1, 2):
            sent = (pk.src == node) & (pk.phase == s)
            received = (pk.dst == node) & (pk.phase == s - 1)
            assert injected[sent].min() >= tail[received].max()


def test_sync_modes_order_completion_times():
    cycles = {sync: netsim_fast.simulate(Config(topology="torus", k=4, routing="duato", pattern="shift-te",
                                                grain_bytes=8, sync=sync))["completion_cycles"]
              for sync in ("none", "local", "global")}
    assert cycles["none"] <= cycles["global"] and cycles["local"] <= cycles["global"]


def test_same_seed_same_run_other_seed_other_run():
    def completion(seed):
        return netsim_fast.simulate(Config(topology="torus", k=4, routing="duato", pattern="random-te",
                                           grain_bytes=32, packet_bytes=8, seed=seed))
    a, b, c = completion(1), completion(1), completion(2)
    assert a["completion_cycles"] == b["completion_cycles"] and a["utilization"] == b["utilization"]
    assert a["utilization"] != c["utilization"]


def test_trace_keeps_the_configuration_as_given(tmp_path):
    from netsim_fast.trace import open_trace

    path = tmp_path / "te.h5"
    netsim_fast.simulate(Config(topology="torus", k=4, routing="duato", pattern="indirect-te", grain_bytes=8,
                                trace=str(path)))
    trace = open_trace(str(path))
    assert trace.config["sync"] == "none"
    assert trace.summary["engine_sync"] == "local"
    assert trace.summary["lower_bound_cycles"] > 0
    assert "utilization" not in trace.summary  # it is the trace's /timeseries/link_utilization
    assert np.allclose(trace.timeseries["link_utilization"][:5], netsim_fast.simulate(
        Config(topology="torus", k=4, routing="duato", pattern="indirect-te", grain_bytes=8))["utilization"][:5], atol=1e-5)
