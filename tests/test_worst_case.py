"""--pattern worst-case: the topology's adversarial pattern (dragonfly: group g sends to g + 1)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.synthetic import traffic_of

DRAGONFLY = dict(topology="dragonfly", group_routers=4, global_links=2, routing="minimal", packet_flits=4)


def test_every_packet_goes_to_a_random_router_of_the_next_group():
    cfg = Config(**DRAGONFLY, pattern="worst-case", rate=0.5)
    src, dst, _, _ = traffic_of(cfg, build_topology(cfg)).chunk(0)
    assert np.array_equal(dst // 4, (src // 4 + 1) % 9)
    assert len(np.unique(dst % 4)) == 4  # spread over the group's routers


def test_it_saturates_where_uniform_traffic_does_not():
    run = dict(DRAGONFLY, rate=0.5, warmup=500, measure=2000, seed=1)
    assert not simulate(Config(**run, pattern="uniform"))["saturated"]
    assert simulate(Config(**run, pattern="worst-case"))["saturated"]


def test_other_topologies_are_refused_in_one_line():
    res = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "4", "--pattern", "worst-case"])
    assert res.exit_code == 2 and "dragonfly" in res.stderr and "tornado" in res.stderr
    assert "\n" not in res.stderr.strip()


def test_dragonfly_minimal_takes_one_global_hop_so_worst_case_caps_at_one_link_per_group():
    from netsim_fast.routing.tables import route_table

    cfg = Config(**DRAGONFLY, engine=None)
    topo = build_topology(cfg)
    table, nbr, a = route_table(topo, "minimal"), topo.arrays.nbr, 4

    def global_hops(u, dst):  # the most global hops of any allowed route
        if u == dst:
            return 0
        ports = [p for p in range(topo.n_ports - 1) if table.port_mask[dst, u, p // 8] >> (p % 8) & 1]
        assert ports and all(table.dist[nbr[u, p], dst] == table.dist[u, dst] - 1 for p in ports)
        return max(global_hops(nbr[u, p], dst) + (nbr[u, p] // a != u // a) for p in ports)

    assert max(global_hops(u, d) for u in range(topo.n_nodes) for d in range(topo.n_nodes)) == 1
    # Kim et al.: under worst-case traffic the A routers of a group share one global link
    s = simulate(Config(**DRAGONFLY, pattern="worst-case", rate=0.5, warmup=500, measure=2000, seed=1))
    assert s["accepted_load"] <= 1.1 / 4
