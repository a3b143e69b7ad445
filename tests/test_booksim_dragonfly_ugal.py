"""BookSim2's ``ugal_dragonflynew`` on the booksim router (``--routing ugal`` on a dragonfly).

At zero load UGAL always finds the minimal port's queue within its threshold, so single packets
take ``min``'s route and latency; loaded, packets between groups also take the detour through a
random intermediate, so hops grow beyond ``min``'s; three VCs exactly, as BookSim2 asserts.
"""

from __future__ import annotations

import pytest

from netsim_fast import Config, simulate
from netsim_fast.config import booksim_file as bf
from netsim_fast.errors import ConfigError
from tests.test_concentration import DF, one_packet

UGAL = {**DF, "routing": "ugal", "vcs": 3}


def test_zero_load_packets_take_the_minimal_route():
    for src, dst in ((0, 66), (0, 7), (6, 7)):
        assert one_packet(src, dst, 1, **UGAL) == one_packet(src, dst, 1, **{**DF, "vcs": 3})


def test_loaded_uniform_traffic_detours_and_keeps_its_invariants():
    kw = dict(pattern="uniform-self", rate=0.25, warmup=500, measure=2000, buf=64, check_invariants=True)
    ugal = simulate(Config(**UGAL, **kw))
    minimal = simulate(Config(**{**DF, "vcs": 3}, **kw))
    assert not ugal["saturated"] and not ugal["deadlock"]
    assert ugal["accepted_load"] == pytest.approx(0.25, rel=0.05)
    assert ugal["hops_mean"] > minimal["hops_mean"] + 0.1  # measured beside BookSim2: 2.72 and 2.31 link hops


@pytest.mark.parametrize("vcs", [2, 4])
def test_three_vcs_exactly(vcs):
    with pytest.raises(ConfigError) as err:
        Config(**{**UGAL, "vcs": vcs})
    assert f"--vcs {vcs}" in str(err.value) and "exactly 3" in str(err.value)


def test_booksim_files_name_it_ugal():
    out = bf.to_config_fields(bf.parse_booksim("topology = dragonflynew; k = 2; n = 1; routing_function = ugal;"
                                               "num_vcs = 3;", "test"))
    assert (out["topology"], out["routing"], out["vcs"]) == ("dragonfly", "ugal", 3)
