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
