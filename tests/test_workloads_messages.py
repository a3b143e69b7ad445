"""Message-set builders: counts, no self-messages, determinism, file format errors."""

import numpy as np
import pytest

from netsim_fast.errors import ConfigError
from netsim_fast.topologies.debruijn import directed_arcs
from netsim_fast.workloads import messages as wm


def test_random_messages_m_per_node_never_to_self_and_uniform():
    msgs = wm.random_messages(16, 200, np.random.default_rng(1))
    assert msgs.n_messages == 16 * 200
    assert np.all(np.bincount(msgs.src, minlength=16) == 200)
    assert np.all(msgs.src != msgs.dst)
    assert msgs.src.dtype == np.int32 and msgs.release_cycle.dtype == np.int64
    # destinations of node 0 cover the 15 others about equally (200/15 each)
    counts = np.bincount(msgs.dst[msgs.src == 0], minlength=16)
    assert counts[0] == 0 and counts[1:].min() > 3
    again = wm.random_messages(16, 200, np.random.default_rng(1))
    assert np.array_equal(msgs.dst, again.dst)


def test_total_exchange_is_every_ordered_pair_in_shift_order():
    msgs = wm.total_exchange(5)
    pairs = set(zip(msgs.src.tolist(), msgs.dst.tolist()))
    assert pairs == {(u, v) for u in range(5) for v in range(5) if u != v}
    assert msgs.n_messages == 20
    assert msgs.dst[msgs.src == 3].tolist() == [4, 0, 1, 2]


def test_random_permutation_has_no_fixed_points_and_one_message_per_node():
    for seed in range(20):
        msgs = wm.random_permutation(7, np.random.default_rng(seed))
        assert sorted(msgs.dst.tolist()) == list(range(7))
        assert np.all(msgs.src != msgs.dst)


def test_debruijn_embedding_drops_the_two_self_loops():
    edges = directed_arcs(2, 8)
    assert edges[:4].tolist() == [[0, 0], [0, 1], [1, 2], [1, 3]]
    msgs, place = wm.embedded_messages(edges, 8, np.random.default_rng(3))
    assert msgs.n_messages == 2 * 8 - 2
    assert sorted(place.tolist()) == list(range(8))
    inverse = np.argsort(place)
    guest = set(zip(inverse[msgs.src].tolist(), inverse[msgs.dst].tolist()))
    assert guest == {(x, y) for x, y in edges.tolist() if x != y}


def test_embedding_needs_a_host_at_least_as_large_as_the_guest():
    with pytest.raises(ConfigError, match="guest"):
        wm.embedded_messages(directed_arcs(2, 16), 8, np.random.default_rng(0))


def test_file_round_trip_and_comments(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("# a comment\nsrc,dst,release_cycle\n0 1\n2, 0, 5  # late\n\n1\t2\t0\n")
    msgs = wm.read_messages(f, 3)
    assert msgs.src.tolist() == [0, 2, 1]
    assert msgs.dst.tolist() == [1, 0, 2]
    assert msgs.release_cycle.tolist() == [0, 5, 0]
    g = tmp_path / "out.csv"
    wm.write_messages(g, msgs)
    back = wm.read_messages(g, 3)
    assert all(np.array_equal(a, b) for a, b in zip(back, msgs))


@pytest.mark.parametrize("body,match", [
    ("0 1\n0 7\n", r":2: dst 7 is not a node"),
    ("0 1\n1 1\n", r":2: src equals dst"),
    ("0 x\n", r":1: fields must be integers"),
    ("0 1 2 3\n", r":1: expected 'src dst \[release_cycle\]'"),
    ("0 1 -4\n", r":1: release_cycle must be >= 0"),
    ("# nothing\n", "holds no message"),
])
def test_file_errors_name_the_line(tmp_path, body, match):
    f = tmp_path / "bad.txt"
    f.write_text(body)
    with pytest.raises(ConfigError, match=match):
        wm.read_messages(f, 4)


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        wm.read_messages(tmp_path / "nope.txt", 4)
