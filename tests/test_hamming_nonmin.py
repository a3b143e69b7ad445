"""Non-minimal routing on the Hamming graphs: valiant, ugal-l, ugal-g on the flattened butterfly
and HyperX (routing/hamming_valiant.py)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from _refusals import assert_refused
from _summaries import timeless as _timeless
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology

FLATFLY = dict(topology="flatfly", k=4, n=2, concentration=4)  # 16 routers, 64 terminals
FLATFLY_ARGS = ["--topology", "flatfly", "--k", "4", "--n", "2", "--concentration", "4"]
HYPERX = dict(topology="hyperx", dims=(3, 2, 4))  # 24 routers, one terminal each
SHORT = dict(warmup=300, measure=1500)


def _walk(table, nbr, src, dst, mid, n_routers, class_vcs):
    """(routers, VC ranges) of the route the routing function gives a header from ``src``."""
    from netsim_fast.routing.dragonfly_valiant import nonmin_next_hops

    out = np.zeros((64, 4), np.int32)
    cur, hops, routers, vcs = src, 0, [src], []
    while cur != dst:
        assert nonmin_next_hops(table, class_vcs, 0, n_routers, cur, src, dst, hops, mid, out) == 1
        vcs.append((int(out[0, 1]), int(out[0, 2])))
        cur = int(nbr[cur, out[0, 0]])
        hops += 1
        routers.append(cur)
    return routers, vcs


@pytest.mark.nojit
def test_a_valiant_route_by_hand_on_a_3x2x4_hyperx():
    from netsim_fast.routing.hamming_valiant import dor_table, encode_mid

    topo = build_topology(Config(**HYPERX))
    table, nbr = dor_table(topo), topo.arrays.nbr
    # (0,0,0) -> m = (2,1,3) -> (1,0,2); router id = c0 + 3 c1 + 6 c2
    src, m, dst = 0, 2 + 3 + 18, 1 + 12
    mid = int(encode_mid(topo, [src], [m])[0])
    assert mid == m + 24 * 3  # three coordinates differ
    routers, vcs = _walk(table, nbr, src, dst, mid, 24, class_vcs=2)
    # dimension order to m: (2,0,0), (2,1,0), (2,1,3); then to the destination: (1,1,3), (1,0,3), (1,0,2)
    assert routers == [0, 2, 5, 23, 22, 19, 13]
    assert vcs == [(0, 1)] * 3 + [(2, 3)] * 3  # class 0 to m, class 1 from m on
    # minimal (ugal's other choice): dimension order in class 1
    assert _walk(table, nbr, src, dst, -1, 24, class_vcs=2) == ([0, 1, 13], [(2, 3)] * 2)
    # m on the first phase's way past the destination: ejected there, in class 0
    assert _walk(table, nbr, 0, 1, int(encode_mid(topo, [0], [1 + 3])[0]), 24, 1) == ([0, 1], [(0, 0)])


def _dor_path(table, nbr, a, b):
    path = [a]
    while path[-1] != b:
        row = np.unpackbits(table[b, path[-1]], bitorder="little")
        path.append(int(nbr[path[-1], int(np.argmax(row))]))
    return path


def test_valiant_routes_of_a_run_go_through_their_intermediate_router():
    from netsim_fast.flit.run import run_flit
    from netsim_fast.routing.hamming_valiant import dor_table

    cfg = Config(**FLATFLY, routing="valiant", pattern="uniform", rate=0.05, vcs=2, **SHORT)
    topo = build_topology(cfg)
    run = run_flit(cfg, topo)
    n = int(run.state.cnt[1])  # C_NPKT
    pkt, mid = run.state.pkt[:n], run.state.mid[:n]
    done = pkt["tail_del"] >= 0
    assert done.sum() > 500
    src, dst, mid, hops = pkt["src"][done] // 4, pkt["dst"][done] // 4, mid[done], pkt["hops"][done]
    m = mid % 16
    assert len(np.unique(m)) == 16  # every router, the source's and the destination's too
    table, nbr = dor_table(topo), topo.arrays.nbr
    for s, d, mm, h, code in zip(src, dst, m, hops, mid):
        first = _dor_path(table, nbr, int(s), int(mm))
        assert code // 16 == len(first) - 1
        expected = first.index(d) if d in first else len(first) - 1 + len(_dor_path(table, nbr, int(mm), int(d))) - 1
        assert h == expected
    assert hops.max() == 4


def test_ugal_goes_minimal_on_an_idle_network_and_around_a_loaded_link():
    base = dict(**FLATFLY, **SHORT, seed=3, vcs=4)
    minimal = simulate(Config(**base, routing="minimal", pattern="uniform", rate=0.02))
    for routing in ("ugal-l", "ugal-g"):
        idle = simulate(Config(**base, routing=routing, pattern="uniform", rate=0.02))
        assert minimal["hops_mean"] <= idle["hops_mean"] <= minimal["hops_mean"] + 0.1, routing
    # worst-case: minimal sends a router's 4 terminals over one link (accepted 1/4); UGAL spreads them
    worst = {r: simulate(Config(**base, routing=r, pattern="worst-case", rate=0.3)) for r in
             ("minimal", "ugal-l", "ugal-g")}
    assert worst["minimal"]["saturated"] and abs(worst["minimal"]["accepted_load"] - 0.25) < 0.01
    for routing in ("ugal-l", "ugal-g"):
        assert not worst[routing]["saturated"], routing
        assert worst[routing]["hops_mean"] > worst["minimal"]["hops_mean"] + 0.4, routing


@pytest.mark.parametrize("routing", ["valiant", "ugal-l", "ugal-g"])
@pytest.mark.parametrize("net", [FLATFLY, HYPERX], ids=["flatfly", "hyperx"])
def test_same_seed_same_json_and_invariants_hold_under_load(routing, net):
    cfg = Config(**net, routing=routing, pattern="uniform", rate=0.5, warmup=200, measure=800, seed=7, vcs=2,
                 check_invariants=True)
    first, second = simulate(cfg), simulate(cfg)
    assert _timeless(first) == _timeless(second)
    assert first["accepted_load"] > 0.3
    other = simulate(Config(**net, routing=routing, pattern="uniform", rate=0.5, warmup=200, measure=800, seed=8,
                            vcs=2))
    assert _timeless(other) != _timeless(first)


def test_iq_router_runs_too():
    cfg = Config(**FLATFLY, router="iq", routing="ugal-l", pattern="worst-case", rate=0.3, vcs=4,
                 check_invariants=True, **SHORT)
    assert not simulate(cfg)["saturated"]


@pytest.mark.parametrize("routing", ["valiant", "ugal-l", "ugal-g"])
def test_check_deadlock_proves_two_vc_classes_enough(routing):
    from netsim_fast.deadlock_check import check_deadlock

    for net, n_channels in ((dict(topology="flatfly", k=4, n=2), 16 * 6 * 2), (HYPERX, 24 * 6 * 2)):
        out = check_deadlock(Config(**net, routing=routing, vcs=2))
        assert out["deadlock_free"] and out["graph"] == "cdg" and out["cycle"] is None
        assert out["channels"] == n_channels  # every link in both classes
    res = CliRunner().invoke(app, ["check-deadlock", "--topology", "hyperx", "--dims", "3,3", "--routing", routing,
                                   "--vcs", "4"])
    assert res.exit_code == 0 and "acyclic" in res.output


@pytest.mark.parametrize("routing", ["valiant", "ugal-l"])
def test_check_deadlock_against_a_networkx_graph_of_every_route(routing):
    """The dependencies the check finds are those of every (source, intermediate, destination)
    route walked here (2 VCs: one per class); merged into one class, the same routes close a
    cycle (the proof is not vacuous)."""
    import networkx as nx

    from netsim_fast.deadlock_check import check_deadlock
    from netsim_fast.routing.hamming_valiant import dor_table, encode_mid

    topo = build_topology(Config(**HYPERX))
    table, nbr, n = dor_table(topo), topo.arrays.nbr, 24
    ports = {(u, int(v)): p for u in range(n) for p, v in enumerate(nbr[u]) if v >= 0}
    classed, merged = nx.DiGraph(), nx.DiGraph()
    for s in range(n):
        mids = [int(c) for c in encode_mid(topo, [s] * n, range(n))] + ([-1] if routing != "valiant" else [])
        for d in range(n):
            for mid in mids if d != s else []:
                routers, vcs = _walk(table, nbr, s, d, mid, n, class_vcs=1)
                chans = [(u, ports[u, v], vc[0]) for u, v, vc in zip(routers, routers[1:], vcs)]
                nx.add_path(classed, chans)
                nx.add_path(merged, [(u, p, 0) for u, p, _ in chans])
    out = check_deadlock(Config(**HYPERX, routing=routing, vcs=2))
    assert out["deadlock_free"] and nx.is_directed_acyclic_graph(classed)
    assert out["channels"] == classed.number_of_nodes() and out["dependencies"] == classed.number_of_edges()
    assert not nx.is_directed_acyclic_graph(merged)


@pytest.mark.parametrize("args, words", [
    (["--routing", "valiant", "--vcs", "1"], ["--vcs 1", "valiant", "--vcs 2"]),
    (["--routing", "ugal-l", "--vcs", "4", "--inject-vcs", "0,1"], ["--inject-vcs 0,1", "class 1", "2..3"]),
    (["--routing", "ugal-g", "--router", "booksim"], ["ugal-g", "lanes or iq"]),
    (["--routing", "valiant", "--link-failures", "2"], ["valiant", "--link-failures"]),
])
def test_refusals_on_the_flattened_butterfly(args, words):
    res = CliRunner().invoke(app, ["run", *FLATFLY_ARGS, "--pattern", "uniform", "--rate", "0.1", *args])
    assert_refused(res, words)
