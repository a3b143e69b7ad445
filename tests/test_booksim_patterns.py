"""BookSim2's random destination patterns (traffic.cpp), which may send to the source itself."""

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology
from netsim_fast.workloads.synthetic import SyntheticTraffic

DRAWS = 200_000


def _pairs(pattern, k=8, rate=1.0):
    cfg = Config(topology="torus", k=k, pattern=pattern)
    traffic = SyntheticTraffic(build_topology(cfg), pattern=pattern, rate=rate, packet_flits=1, seed=7)
    srcs, dsts = [], []
    for chunk in range(DRAWS // (1024 * k * k) + 1):
        src, dst, _, _ = traffic.chunk(chunk)
        srcs.append(src)
        dsts.append(dst)
    return np.concatenate(srcs).astype(np.int64), np.concatenate(dsts).astype(np.int64), k * k


def test_uniform_self_is_uniform_over_every_node_source_included():
    src, dst, n = _pairs("uniform-self")
    assert (dst == src).mean() == pytest.approx(1 / n, rel=0.1)
    counts = np.bincount(dst, minlength=n)
    assert counts.min() > 0.9 * counts.mean() and counts.max() < 1.1 * counts.mean()


def test_diagonal_sends_a_third_to_the_next_node_and_the_rest_to_itself():
    src, dst, n = _pairs("diagonal")
    assert set(np.unique((dst - src) % n)) == {0, 1}
    assert ((dst - src) % n == 1).mean() == pytest.approx(1 / 3, abs=0.01)


def test_asymmetric_uses_the_two_halves_equally():
    src, dst, n = _pairs("asymmetric")
    half = n // 2
    assert np.array_equal(dst % half, src % half)
    assert (dst >= half).mean() == pytest.approx(0.5, abs=0.01)


def test_taper64_is_half_local_block_half_uniform():
    src, dst, n = _pairs("taper64")
    offset = (dst - src) % 64
    block = {(8 * a + b) % 64 for a in (-1, 0, 1) for b in (-1, 0, 1)}
    in_block = np.isin(offset, sorted(block))
    # half the packets land in the block, plus the uniform half's 9/64 share
    assert in_block.mean() == pytest.approx(0.5 + 0.5 * 9 / 64, abs=0.01)
    assert (offset == 9).mean() == pytest.approx(0.5 / 9 + 0.5 / 64, abs=0.005)


def test_taper64_needs_64_nodes():
    with pytest.raises(ConfigError, match="taper64.*64 nodes"):
        Config(topology="torus", k=4, pattern="taper64")


def test_self_packets_cross_no_link_and_are_delivered():
    base = dict(topology="torus", k=4, rate=0.1, packet_flits=1, warmup=200, measure=4000, seed=2)
    self_ = simulate(Config(**base, pattern="diagonal"))
    assert not self_["saturated"] and self_["packets_delivered"] > 0
    # two thirds go to themselves (0 hops), a third to node i + 1: one hop, or two from the last
    # column of the 4x4 torus (4 of 16 sources), 1.25 hops on average
    assert self_["hops_mean"] == pytest.approx(1.25 / 3, abs=0.03)
    uniform = simulate(Config(**base, pattern="uniform"))
    uniform_self = simulate(Config(**base, pattern="uniform-self"))
    assert uniform_self["hops_mean"] == pytest.approx(uniform["hops_mean"] * 15 / 16, rel=0.03)


def _fixed_point_traffic(fixed_points):
    cfg = Config(topology="mesh", k=4, n=2, pattern="transpose", fixed_points=fixed_points)
    return SyntheticTraffic(build_topology(cfg), pattern="transpose", rate=0.5, packet_flits=1, seed=3,
                            fixed_points=fixed_points)


def test_fixed_points_idle_by_default_and_self_as_booksim():
    diagonal = np.array([x * 4 + x for x in range(4)])
    src, dst, _, _ = _fixed_point_traffic("idle").chunk(0)
    assert not np.isin(src, diagonal).any() and not (src == dst).any()
    src, dst, _, _ = _fixed_point_traffic("self").chunk(0)
    on_diagonal = np.isin(src, diagonal)
    assert on_diagonal.mean() == pytest.approx(4 / 16, abs=0.02)  # every node sends at the same rate
    assert np.array_equal(src[on_diagonal], dst[on_diagonal])
    assert np.array_equal(dst, (src % 4) * 4 + src // 4)  # (x, y) -> (y, x)


def test_fixed_points_self_offers_the_full_load_and_shortens_the_mean_path():
    base = dict(topology="mesh", k=4, n=2, pattern="transpose", rate=0.05, packet_flits=1, warmup=200,
                measure=2000)
    idle, self_ = simulate(Config(**base)), simulate(Config(**base, fixed_points="self"))
    assert idle["offered_load"] == pytest.approx(0.05 * 12 / 16, rel=0.08)  # the diagonal is idle
    assert self_["offered_load"] == pytest.approx(0.05, rel=0.08)
    assert idle["hops_mean"] == pytest.approx(40 / 12, rel=0.05)  # sum of 2|x - y| over the 12 senders
    assert self_["hops_mean"] == pytest.approx(40 / 16, rel=0.05)


@pytest.mark.parametrize("fields, words", [
    (dict(pattern="uniform", fixed_points="self"), "permutation patterns"),
    (dict(pattern="transpose", fixed_points="sender"), "idle, self"),
])
def test_fixed_points_refusals(fields, words):
    with pytest.raises(ConfigError, match=words):
        Config(topology="mesh", k=4, n=2, **fields)
