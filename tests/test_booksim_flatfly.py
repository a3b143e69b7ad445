"""BookSim2's ``flatfly`` with ``ran_min`` on the booksim router (flatfly_onchip.cpp).

Single packets against hand counts (docs/booksim-router.md section 6: T = 4 + (H + 1) P + the
sum over the H links of (d + 1), P = 3 with the default delays), the floor-plan channel
latencies, a loaded run under the invariant checker, and the refusals.
"""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast import Config, simulate
from netsim_fast.errors import ConfigError
from netsim_fast.flit.booksim.driver import channel_latencies
from netsim_fast.topologies import build_topology
from tests.test_concentration import one_packet

FF = dict(topology="flatfly", k=4, n=2, concentration=4, router="booksim", routing="ran_min", vcs=2)


@pytest.mark.parametrize("noc", [True, False])
def test_single_packets_take_dimension_order_and_the_floor_plan_latencies(noc):
    side = 2 if noc else 0  # xr = 2 terminals per tile side: a channel over d routers takes 2d cycles
    kw = dict(use_noc_latency=noc, **FF)

    def channel(d):
        return (side * d if noc else 1) + 1

    # terminal 0 (router 0 at (0, 0)) to terminal 61 (router 15 at (3, 3), its port 1): x first
    # over 3 routers, then y over 3
    assert one_packet(0, 61, 1, **kw) == (4 + 3 * 3 + 2 * channel(3), 2)
    assert one_packet(0, 4, 1, **kw) == (4 + 2 * 3 + channel(1), 1)  # router 1, one tile along x
    assert one_packet(0, 32, 1, **kw) == (4 + 2 * 3 + channel(2), 1)  # router 8, two tiles along y
    assert one_packet(5, 6, 4, **kw) == (7 + 3, 0)  # two terminals of router 1


def test_channel_latencies_follow_the_routers_distance_on_the_plan():
    cfg = Config(**FF)
    topo = build_topology(cfg)
    lat = channel_latencies(cfg, topo)
    nbr = topo.arrays.nbr
    for node in range(topo.n_nodes):
        for port in range(nbr.shape[1]):
            other = nbr[node, port]
            want = 1 if other < 0 else 2 * (abs(node % 4 - other % 4) + abs(node // 4 - other // 4))
            assert lat[node, port] == want
    assert lat.max() == 6 and np.all(channel_latencies(Config(**FF, use_noc_latency=False), topo) == 1)


def test_loaded_run_delivers_with_invariants_and_minimal_hops():
    s = simulate(Config(pattern="uniform", rate=0.3, warmup=300, measure=1500, check_invariants=True, **FF))
    assert not s["saturated"] and not s["deadlock"]
    assert s["accepted_load"] == pytest.approx(0.3, rel=0.05)
    # uniform over the other 63 terminals: 3 on the same router (0 link hops), 24 on the 6 routers
    # of its row and column (1 hop), 36 on the other 9 (2 hops): (24 + 72) / 63
    assert s["hops_mean"] == pytest.approx(96 / 63, rel=0.03)


@pytest.mark.parametrize("extra,words", [
    (dict(routing="minimal"), ["--routing", "minimal", "ran_min"]),
    (dict(n=3), ["--n", "3", "n = 2", "--no-use-noc-latency"]),
    (dict(concentration=2), ["--concentration", "2", "square tile"]),
    (dict(concentration=16), ["--concentration", "16", "allowed 1, 4 or 9"]),
])
def test_refusals(extra, words):
    with pytest.raises(ConfigError) as err:
        Config(**{**FF, **extra})
    for word in words:
        assert word in str(err.value)


def test_any_n_and_concentration_without_noc_latency():
    s = simulate(Config(pattern="uniform", rate=0.1, warmup=200, measure=600, check_invariants=True,
                        use_noc_latency=False, **{**FF, "n": 3, "k": 3, "concentration": 2}))
    assert not s["saturated"] and s["accepted_load"] == pytest.approx(0.1, rel=0.15)
