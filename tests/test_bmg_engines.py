"""BMG routers of papers/001 inside the engines: one-port tables, hop-class VCs in the flit engine."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import BMG_ROUTINGS, Config
from netsim_fast.routing.bmg import route
from netsim_fast.errors import ConfigError
from netsim_fast.routing.tables import check_hop_classes, fewest_vcs, hop_classes, route_table
from netsim_fast.topologies import bmg, random_regular, torus

runner = CliRunner()


@pytest.mark.parametrize("routing", BMG_ROUTINGS)
def test_table_follows_the_router_hop_by_hop(routing):
    topo = bmg(37)
    table = route_table(topo, routing)
    for src, dst in ((0, 19), (5, 36), (30, 2)):
        path, cur = [src], src
        while cur != dst:
            (port,) = [p for p in range(topo.n_ports) if table.port_mask[dst, cur, p // 8] >> (p % 8) & 1]
            cur = int(topo.nbr[cur, port])
            path.append(cur)
        assert path == route(37, src, dst, routing)
        assert table.dist[src, dst] == len(path) - 1


def test_issue_command_runs_bmg_on_the_packet_engine():
    res = runner.invoke(app, ["run", "--engine", "packet", "--topology", "bmg", "--nodes", "1000", "--routing",
                              "bmg-equiclass", "--pattern", "random", "--messages", "4", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["packets"] == 4000 and data["completion_cycles"] > 0
    # bmg-equiclass routes on shortest paths: mean hops = the BMG's average distance
    assert data["hops_mean"] == pytest.approx(3.3, abs=0.1)


@pytest.mark.parametrize("routing", BMG_ROUTINGS)
def test_every_bmg_router_runs_in_the_flit_engine(routing):
    import netsim_fast

    classes = hop_classes(route_table(bmg(64), routing))
    cfg = Config(topology="bmg", nodes=64, routing=routing, vcs=classes, rate=0.2, warmup=200, measure=600)
    res = netsim_fast.simulate(cfg)
    assert not res["saturated"] and res["accepted_load"] == pytest.approx(0.2, rel=0.15)


def test_too_few_vcs_for_the_hop_classes_is_a_clear_error():
    res = runner.invoke(app, ["run", "--topology", "bmg", "--nodes", "64", "--routing", "bmg-bitcount",
                              "--vcs", "2", "--cycles", "10"])
    assert res.exit_code == 2
    assert "its own VC class" in res.stderr and "pass --vcs 3" in res.stderr


def test_inject_vcs_must_reach_hop_class_0():
    base = ["run", "--topology", "bmg", "--nodes", "64", "--routing", "bmg-equiclass", "--vcs", "8", "--cycles", "200"]
    res = runner.invoke(app, base + ["--inject-vcs", "7"])  # 3 classes of 2 VCs: class 0 is VCs 0..1
    assert res.exit_code == 2 and "hop class 0 (VCs 0..1 of 8)" in res.stderr
    res = runner.invoke(app, base + ["--inject-vcs", "1,7", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["packets_delivered"] > 0


@pytest.mark.parametrize("topo", [bmg(100), random_regular(64, 4, seed=3)], ids=["bmg100", "rrg64"])
def test_fewest_vcs_of_minimal_routing_is_the_diameter_and_the_engine_accepts_no_fewer(topo):
    import networkx as nx

    vcs = fewest_vcs(topo, "minimal")
    assert vcs == nx.diameter(topo.to_networkx())
    table = route_table(topo, "minimal")
    assert check_hop_classes(table, "minimal", vcs) == 1
    with pytest.raises(ConfigError, match=f"pass --vcs {vcs} or more"):
        check_hop_classes(table, "minimal", vcs - 1)


def test_capacity_of_a_ring_with_minimal_routing_is_its_channel_load_bound():
    import netsim_fast

    res = netsim_fast.simulate(Config(topology="ring", nodes=16, vcs=8, cycles=50))
    # uniform traffic on a 16-ring, k/2 ties split evenly over both ways: every link carries 32
    assert res["capacity"] == pytest.approx(15 / 32)


def test_hop_classes_keep_a_saturated_ring_free_of_deadlock():
    import netsim_fast
    from netsim_fast.errors import DeadlockError

    # a 16-node ring at offered load 1.0, 8-flit worms over 2-flit lanes: with every hop on one
    # VC it locks within ~100 cycles; one VC per hop class (8 classes) keeps delivering
    ring = dict(topology="torus", dims="16", rate=1.0, packet_flits=8, buf=2, cycles=3000, deadlock_cycles=1000)
    with pytest.raises(DeadlockError):
        netsim_fast.simulate(Config(routing="dor-nodateline", vcs=1, **ring))
    assert hop_classes(route_table(torus((16,)), "minimal")) == 8
    res = netsim_fast.simulate(Config(routing="minimal", vcs=8, **ring))
    assert not res["deadlock"] and res["accepted_load"] > 0.4
