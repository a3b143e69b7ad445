"""Phased programs on the engines (engine/phased_run.py): the release rule, exactness of the
iterative driver, the native flit path, and what measure_params reads off the runs."""

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.studies.params import ParamsSpec, measure_params
from netsim_fast.studies.phased import EngineRunner, release_rule, run_program, step_times, _dependencies
from netsim_fast.routing.table import all_pairs_distances
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.bsp_programs import bfs_tree, phased_program
from netsim_fast.workloads.hrelation import h_relation

EMPTY = (np.zeros(0, np.int64), np.zeros(0, np.int64))


def _setup(engine, **topo):
    cfg = Config(engine=engine, pattern="random", **({"packet_flits": 4} if engine == "flit" else {}), **topo)
    t = build_topology(cfg)
    return EngineRunner(cfg, t), bfs_tree(t, all_pairs_distances(t)), t


@pytest.mark.parametrize("n_nodes", [5, 8])
@pytest.mark.parametrize("o", [0, 2])
def test_barrier_on_a_ring_of_the_packet_engine_takes_2r_hops_of_1_plus_2o(n_nodes, o):
    # Each tree edge is one link (1 cycle); each hop costs o to acquire and o to prepare the
    # next message; the root prepares its answer (o) and the last acquisition ends it.
    runner, tree, _ = _setup("packet", dims=(n_nodes,))
    prog = phased_program([EMPTY], tree)
    times = run_program(runner, prog, o)
    radius = n_nodes // 2
    assert step_times(prog, times, 1)[1][0] == 2 * radius * (1 + 2 * o) + o


def test_iterative_driver_reproduces_the_native_flit_phases_exactly():
    runner, tree, topo = _setup("flit", k=4)
    prog = phased_program([h_relation(16, 4, seed=3), h_relation(16, 2, seed=4)], tree, data_flits=4)
    native = run_program(runner, prog, 0)
    iterative = run_program(runner, prog, 0, native=False)
    assert native.rounds == 1 and iterative.rounds > 1
    assert np.array_equal(native.delivered, iterative.delivered)


@pytest.mark.parametrize("engine", ["packet", "flit"])
def test_final_releases_are_a_fixed_point_of_the_rule(engine):
    runner, tree, _ = _setup(engine, k=4)
    prog = phased_program([h_relation(16, 3, seed=5), EMPTY], tree, data_flits=4)
    o = 3
    times = run_program(runner, prog, o)
    rule, _, known = release_rule(prog, _dependencies(prog), times.delivered, o)
    assert known.all() and np.array_equal(rule, times.release)
    again = runner.deliver(prog.src, prog.dst, prog.length, times.release)  # one run, all known
    assert np.array_equal(again, times.delivered)
    # a node's messages without dependencies leave one every o cycles
    first = (prog.step == 0) & (prog.kind == 0)
    pos = np.arange(prog.n_messages) - np.searchsorted(prog.src, prog.src)
    assert np.array_equal(times.release[first], (pos[first] + 1) * o)
    assert np.array_equal(times.acquired, times.delivered + o)


def test_data_of_a_superstep_leaves_only_after_the_previous_superstep_arrived():
    runner, tree, _ = _setup("packet", k=5)
    prog = phased_program([h_relation(25, 4, seed=1), h_relation(25, 4, seed=2)], tree)
    times = run_program(runner, prog, 1)
    first = (prog.kind == 0) & (prog.step == 0)
    second = (prog.kind == 0) & (prog.step == 1)
    assert times.release[second].min() > times.acquired[first].max()


@pytest.mark.parametrize("engine,expected_L", [("flit", 3 * 4 + 4 + 2), ("packet", 4)])
def test_measured_L_is_the_zero_load_latency_at_the_diameter(engine, expected_L):
    # flit: 3 cycles per hop plus packet length plus 2 (docs/flit-engine.md); packet: hops
    cfg = Config(engine=engine, pattern="random", k=4, **({"packet_flits": 4} if engine == "flit" else {}))
    out = measure_params(cfg, ParamsSpec(h=(1, 2, 4), pairs=8))
    assert out["L"] == expected_L
    assert out["diameter"] == 4
    assert out["L_mean"] <= out["L"]
    assert out["g"] > 0 and out["ell"] > out["ell_route"]
    assert out["superstep_cycles"] == sorted(out["superstep_cycles"])
    assert all(s > r for s, r in zip(out["superstep_cycles"], out["route_cycles"]))
    assert out["G_stream"] == pytest.approx(4.0 if engine == "flit" else 1.0, rel=0.1)
