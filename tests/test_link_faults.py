"""--link-failures N --fault-seed S: random links removed (topologies/faults.py)."""

import json

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology, torus
from netsim_fast.topologies.faults import fail_links
from netsim_fast.topologies.metrics import bisection
from tests._refusals import assert_refused


def _graph(topo):
    g = nx.Graph()
    g.add_nodes_from(range(topo.n_nodes))
    g.add_edges_from(map(tuple, topo.edges()))
    return g


def test_failures_remove_exactly_n_links_and_keep_the_port_tables_consistent():
    intact = torus((6, 6))
    faulted = fail_links(intact, 9, seed=4)
    whole, left = _graph(intact), _graph(faulted)
    assert whole.number_of_edges() - left.number_of_edges() == 9
    assert set(left.edges()) <= set(whole.edges()) and nx.is_connected(left)
    a = faulted.arrays
    for u in range(faulted.n_nodes):
        for p in range(faulted.n_ports - 1):
            v = a.nbr[u, p]
            if v >= 0:
                assert a.nbr[v, a.nbr_in_port[u, p]] == u
    ids = np.sort(a.link_id[a.link_id >= 0])
    assert np.array_equal(ids, np.arange(2 * left.number_of_edges()))  # dense, both directions
    assert np.array_equal(a.degree, [left.degree(u) for u in range(faulted.n_nodes)])
    assert np.array_equal(fail_links(intact, 9, seed=4).edges(), faulted.edges())
    assert not np.array_equal(fail_links(intact, 9, seed=5).edges(), faulted.edges())


def test_a_network_the_failures_cut_apart_is_refused():
    with pytest.raises(ConfigError, match="cut the network into 2 parts"):
        build_topology(Config(topology="ring", nodes=8, link_failures=2, engine=None))


def test_minimal_routing_goes_around_the_holes_on_both_engines():
    flit = simulate(Config(topology="torus", k=6, routing="minimal", vcs=8, link_failures=8, rate=0.2,
                           warmup=300, measure=1500, check_invariants=True))
    assert not flit["saturated"] and not flit["deadlock"] and flit["hops_mean"] > 3.0
    assert flit["capacity_method"].startswith("max channel load")  # not the intact torus's bisection
    packet = simulate(Config(engine="packet", topology="torus", k=6, link_failures=8, pattern="random", messages=2))
    assert packet["completed"]


def test_closed_forms_of_the_intact_topology_are_not_used():
    faulted = build_topology(Config(topology="torus", k=8, link_failures=20, engine=None))
    width, exact = bisection(faulted)
    assert width <= 16 and not exact  # the intact torus has 16, proven; this is an upper bound


@pytest.mark.parametrize("args, words", [
    (["--link-failures", "4"], ["--routing dor", "route around failed links", "minimal"]),
    (["--fault-seed", "3"], ["--fault-seed 3", "--link-failures"]),
    (["--link-failures", "-2"], ["--link-failures -2", ">= 0"]),
    (["--link-failures", "1000", "--routing", "minimal", "--vcs", "8"], ["--link-failures 1000", "only 32 links"]),
])
def test_bad_fault_options_are_refused_in_one_line(args, words):
    res = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "4", "--cycles", "10", *args])
    assert_refused(res, words)


def test_topo_describes_the_faulted_network():
    res = CliRunner().invoke(app, ["topo", "--topology", "torus", "--k", "4", "--link-failures", "3", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["links"] == 29
