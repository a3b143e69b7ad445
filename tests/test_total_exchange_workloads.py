"""Total-exchange workloads of paper 004 as packets: who sends what, in which order and step."""

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.workloads.total_exchange import build_total_exchange, random_schedule

DIRECT = ("random-te", "shift-te", "pairwise-te")


def te(pattern, dims=(4, 4), **kw):
    cfg = Config(topology="torus", dims=dims, routing="duato", pattern=pattern, **kw)
    return cfg, build_total_exchange(cfg)


def flits_per_pair(w, n):
    pk = w.packets
    table = np.zeros((n, n), np.int64)
    np.add.at(table, (pk.src, pk.dst), pk.length)
    return table


def per_source(w, node):
    """Destinations and phases of one node's packets in its sending order."""
    pk = w.packets
    mine = pk.src == node
    return pk.dst[mine], (None if pk.phase is None else pk.phase[mine])


@pytest.mark.parametrize("pattern", DIRECT)
@pytest.mark.parametrize("grain,packet,flit", [(32, 32, 4), (8, 32, 4), (40, 16, 4), (100, 24, 8), (7, 3, 2)])
def test_every_ordered_pair_gets_exactly_F_flits(pattern, grain, packet, flit):
    cfg, w = te(pattern, grain_bytes=grain, packet_bytes=packet, flit_bytes=flit)
    f = -(-grain // packet) * -(-packet // flit)  # the F, last packet padded
    assert w.flits_per_pair == f
    table = flits_per_pair(w, 16)
    assert (np.diag(table) == 0).all()
    off = ~np.eye(16, dtype=bool)
    assert (table[off] == f).all()
    assert (w.packets.length == -(-packet // flit)).all()  # one packet size per run


def test_default_packet_is_the_grain_up_to_32_bytes():
    assert te("random-te", grain_bytes=8)[1].packet_bytes == 8
    assert te("random-te", grain_bytes=32)[1].packet_bytes == 32
    cfg, w = te("random-te", grain_bytes=100)
    assert (w.packet_bytes, w.packets_per_pair, w.packet_flits) == (32, 4, 8)
    assert te("random-te", grain_bytes=64, packet_flits=4)[1].packet_bytes == 16


def test_packets_are_released_at_once_in_per_source_sending_order():
    for pattern in DIRECT + ("indirect-te",):
        pk = te(pattern, sync="local")[1].packets
        assert (pk.release == 0).all()
        for node in range(16):
            phase = pk.phase[pk.src == node]
            assert (np.diff(phase) >= 0).all()  # a node sends its steps in order


def test_shift_step_i_sends_to_j_plus_i_with_the_whole_grain_in_one_step():
    cfg, w = te("shift-te", grain_bytes=96, packet_bytes=32, sync="local")  # 3 packets per pair
    assert w.steps == 15
    for node in (0, 5, 15):
        dst, phase = per_source(w, node)
        step = np.repeat(np.arange(1, 16), 3)
        assert (dst == (node + step) % 16).all()
        assert (phase == step - 1).all()


def test_pairwise_step_i_exchanges_with_j_xor_i():
    cfg, w = te("pairwise-te", grain_bytes=64, packet_bytes=32, sync="global")
    for node in (0, 6, 13):
        dst, phase = per_source(w, node)
        step = np.repeat(np.arange(1, 16), 2)
        assert (dst == node ^ step).all()
        assert (phase == step - 1).all()


@pytest.mark.parametrize("dims", [(3, 3), (6, 2), (5,)])
def test_pairwise_rejects_a_node_count_that_is_not_a_power_of_two(dims):
    with pytest.raises(ConfigError, match="power-of-two"):
        Config(topology="torus", dims=dims, pattern="pairwise-te")


def test_random_steps_are_permutations_of_the_others_per_node_and_step():
    cfg, w = te("random-te", grain_bytes=96, packet_bytes=32, sync="local", seed=7)
    assert w.steps == 3
    orders = []
    for node in range(16):
        dst, phase = per_source(w, node)
        assert (phase == np.repeat(np.arange(3), 15)).all()
        for s in range(3):
            step = dst[phase == s]
            assert sorted(step) == [v for v in range(16) if v != node]
            orders.append(tuple(step))
    assert len(set(orders)) == len(orders)  # 48 draws of 15! orders: all different


def test_random_schedule_is_reproducible_from_the_seed():
    a = te("random-te", grain_bytes=64, packet_bytes=32, seed=3)[1].packets.dst
    b = te("random-te", grain_bytes=64, packet_bytes=32, seed=3)[1].packets.dst
    c = te("random-te", grain_bytes=64, packet_bytes=32, seed=4)[1].packets.dst
    assert (a == b).all() and not (a == c).all()


def test_random_permutations_are_uniform():
    # position 0 of node 0's permutation over many sweeps: every other node about equally often
    sched = random_schedule(6, 6000, np.random.default_rng(1))
    counts = np.bincount(sched[:, 0, 0], minlength=6)
    assert counts[0] == 0
    assert np.all(np.abs(counts[1:] - 1200) < 5 * np.sqrt(1200))


# -- indirect pairwise exchange ---------------------------------------------------------------


def deliveries(w, dims):
    """Every (origin, final destination) datum the packets deliver, and the row packet each
    forwarded datum rode on (its index), checked against the packets' own claims."""
    k0, k1 = dims
    pk = w.packets
    delivered = []
    carried = {}  # (origin, final) -> index of the row packet that brought it to the forwarder
    for idx in np.nonzero(w.final < 0)[0]:
        a, b = int(pk.src[idx]), int(pk.dst[idx])
        assert w.origin[idx] == a and a // k0 == b // k0  # row packets stay in their row
        for y in range(k1):
            target = b % k0 + k0 * y
            if target == b:
                delivered.append((a, b))
            else:
                carried.setdefault((a, target), idx)
    forwarded_by = {}
    for idx in np.nonzero(w.final >= 0)[0]:
        o, s, d = int(w.origin[idx]), int(pk.src[idx]), int(pk.dst[idx])
        assert w.final[idx] == d and s % k0 == d % k0  # column packets stay in their column
        if o != s:
            assert (o, d) in carried, "a node forwards only data a row packet brought it"
            assert pk.src[carried[(o, d)]] == o and pk.dst[carried[(o, d)]] == s
            forwarded_by[idx] = carried[(o, d)]
        delivered.append((o, d))
    return delivered, forwarded_by


@pytest.mark.parametrize("dims", [(4, 4), (4, 2), (3, 5), (6, 4)])
@pytest.mark.parametrize("grain,packet", [(32, 32), (64, 32)])
def test_indirect_delivers_every_datum_exactly_once(dims, grain, packet):
    cfg = Config(topology="torus", dims=dims, routing="duato", pattern="indirect-te", sync="local",
                 grain_bytes=grain, packet_bytes=packet)
    w = build_total_exchange(cfg)
    n = dims[0] * dims[1]
    repeat = -(-grain // packet)
    delivered, forwarded_by = deliveries(w, dims)
    counts = {}
    for pair in delivered:
        counts[pair] = counts.get(pair, 0) + 1
    assert set(counts) == {(a, b) for a in range(n) for b in range(n) if a != b}
    assert set(counts.values()) == {repeat}  # each grain in ceil(m/p) packets
    # under --sync local the engine holds a packet until its node received all earlier phases
    for idx, row in forwarded_by.items():
        assert w.packets.phase[idx] > w.packets.phase[row]


def test_indirect_counts_k_minus_1_row_steps_then_k_times_k_minus_1_column_steps():
    cfg, w = te("indirect-te", dims=(4, 4), grain_bytes=32, packet_bytes=32, sync="local")
    assert w.steps == 3 + 4 * 3  # paper 004, section 4: k(k-1) column steps
    dst, phase = per_source(w, 5)  # node (1, 1)
    assert (phase == np.arange(15)).all()
    assert list(dst[:3]) == [(1 ^ i) + 4 for i in (1, 2, 3)]  # row partners, XOR
    assert all(d % 4 == 1 for d in dst[3:])  # then only its column


def test_indirect_row_packets_are_k_fold():
    cfg, w = te("indirect-te", dims=(4, 8), grain_bytes=32, packet_bytes=32)
    row = w.final < 0
    assert (w.packets.length[row] == 8 * 8).all()  # k1 = 8 grains of 8 flits
    assert (w.packets.length[~row] == 8).all()
    assert row.sum() == 32 * 3


def test_indirect_without_sync_gates_only_the_row_to_column_dependency():
    cfg, w = te("indirect-te", grain_bytes=32, packet_bytes=32)
    assert cfg.sync == "none" and w.engine_sync == "local"
    assert ((w.packets.phase == 0) == (w.final < 0)).all()
    assert set(np.unique(w.packets.phase)) == {0, 1}


def test_direct_patterns_without_sync_carry_no_phases():
    assert te("shift-te")[1].packets.phase is None
    assert te("random-te", sync="global")[1].engine_sync == "global"


@pytest.mark.parametrize("kw,match", [
    (dict(pattern="indirect-te", dims=(4, 4, 4)), "2-D grid"),
    (dict(pattern="uniform", grain_bytes=8), "applies to the total exchanges"),
    (dict(pattern="random-te", grain_bytes=0), "grain-bytes"),
    (dict(pattern="random-te", packet_bytes=0), "packet-bytes"),
    (dict(pattern="shift-te", packet_flits=0), "packet-flits"),
    (dict(pattern="random-te", engine="packet"), "flit engine"),
    (dict(pattern="indirect-te", switching="vct", buf=8), "row packets"),
    (dict(pattern="shift-te", topology="rrg", nodes=16, degree=4, routing="minimal"), "tori, meshes and hypercubes"),
])
def test_bad_total_exchange_options_are_config_errors(kw, match):
    kw.setdefault("topology", "torus")
    if kw["topology"] == "torus":
        kw.setdefault("dims", (4, 4))
    with pytest.raises(ConfigError, match=match):
        Config(**kw)
