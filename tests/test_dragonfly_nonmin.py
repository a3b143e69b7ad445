"""Non-minimal routing on the dragonfly: valiant, ugal-l, ugal-g (routing/dragonfly_valiant.py).

Kim et al. (ISCA 2008)'s balanced dragonfly: P = 2 terminals per router, A = 4 routers per
group, H = 2 global links per router, G = 9 groups: 72 terminals.
"""

import numpy as np
import pytest
from typer.testing import CliRunner

from _refusals import assert_refused
from _summaries import timeless as _timeless
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology

KIM = dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2)
KIM_ARGS = ["--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--concentration", "2"]
SHORT = dict(warmup=300, measure=1500)


def _expected_hops(topo, src: int, dst: int, mid: int) -> int:
    """Hops of the Valiant route worked out by hand from the port tables: to the router of group
    ``mid`` that the source group's global link lands on (one local hop first unless the source
    router holds that link), then the dragonfly's minimal route to ``dst``."""
    from netsim_fast.routing.tables import route_table

    a, nbr = 4, topo.arrays.nbr
    dist = route_table(topo, "minimal").dist

    def global_into(u, g):
        return [int(m) for m in nbr[u] if m >= 0 and m // a == g]

    if mid < 0 or mid == dst // a:
        return int(dist[src, dst])
    direct = global_into(src, mid)
    if direct:
        first, land = 1, direct[0]
    else:
        gateway = next(r for r in range((src // a) * a, (src // a + 1) * a) if global_into(r, mid))
        first, land = 2, global_into(gateway, mid)[0]
    return first + int(dist[land, dst])


def test_a_valiant_route_goes_through_its_intermediate_group():
    from netsim_fast.flit.run import run_flit

    cfg = Config(**KIM, routing="valiant", pattern="uniform", rate=0.05, **SHORT)
    topo = build_topology(cfg)
    run = run_flit(cfg, topo)
    n = int(run.state.cnt[1])  # C_NPKT
    pkt, mid = run.state.pkt[:n], run.state.mid[:n]
    done = pkt["tail_del"] >= 0
    assert done.sum() > 500
    src, dst = pkt["src"][done] // 2, pkt["dst"][done] // 2
    mid = mid[done]
    assert np.all(mid != src // 4) and np.all((mid >= 0) & (mid < 9))  # never the source's own group
    assert len(np.unique(mid)) == 9
    expected = [_expected_hops(topo, int(s), int(d), int(m)) for s, d, m in zip(src, dst, mid)]
    passes_dst = (src // 4 == dst // 4)  # such a route may pass its destination router first: ejected there
    hops = pkt["hops"][done]
    assert np.array_equal(hops[~passes_dst], np.asarray(expected)[~passes_dst])
    assert np.all(hops[passes_dst] <= np.asarray(expected)[passes_dst])
    assert hops.max() == 5  # local, global, local, global, local


def test_ugal_goes_minimal_on_an_idle_network_and_around_a_hot_global_link():
    base = dict(**KIM, **SHORT, seed=3)
    minimal = simulate(Config(**base, routing="minimal", pattern="uniform", rate=0.02))
    for routing in ("ugal-l", "ugal-g"):
        idle = simulate(Config(**base, routing=routing, pattern="uniform", rate=0.02))
        # nearly always minimal (a Valiant route is ~1.7 hops longer here); a packet still goes round
        # when its minimal first port holds flits and the candidate's is empty
        assert minimal["hops_mean"] <= idle["hops_mean"] <= minimal["hops_mean"] + 0.15, routing
    # worst-case: minimal funnels a group's traffic into one global link; UGAL spreads it
    worst = {r: simulate(Config(**base, routing=r, pattern="worst-case", rate=0.25, vcs=6, buf=32))
             for r in ("minimal", "ugal-l", "ugal-g")}
    assert worst["minimal"]["saturated"]
    for routing in ("ugal-l", "ugal-g"):
        assert not worst[routing]["saturated"], routing
        assert worst[routing]["hops_mean"] > worst["minimal"]["hops_mean"] + 0.5, routing


@pytest.mark.parametrize("routing", ["valiant", "ugal-l", "ugal-g"])
def test_same_seed_same_json_and_invariants_hold_under_load(routing):
    cfg = Config(**KIM, routing=routing, pattern="uniform", rate=0.45, warmup=200, measure=800, seed=7,
                 check_invariants=True)
    first, second = simulate(cfg), simulate(cfg)
    assert _timeless(first) == _timeless(second)
    other = simulate(Config(**KIM, routing=routing, pattern="uniform", rate=0.45, warmup=200, measure=800, seed=8))
    assert _timeless(other) != _timeless(first)


def test_iq_router_and_one_terminal_per_router_run_too():
    for extra in (dict(router="iq"), dict(concentration=1)):
        cfg = Config(**{**KIM, **extra}, routing="ugal-l", pattern="worst-case", rate=0.2, check_invariants=True,
                     warmup=200, measure=800)
        assert simulate(cfg)["accepted_load"] > 0.15


@pytest.mark.parametrize("routing", ["valiant", "ugal-l", "ugal-g"])
def test_check_deadlock_proves_each_routing_acyclic(routing):
    from netsim_fast.deadlock_check import check_deadlock

    out = check_deadlock(Config(topology="dragonfly", group_routers=4, global_links=2, routing=routing, vcs=3))
    assert out["deadlock_free"] and out["graph"] == "cdg" and out["cycle"] is None
    res = CliRunner().invoke(app, ["check-deadlock", *KIM_ARGS[:6], "--routing", routing, "--vcs", "6"])
    assert res.exit_code == 0 and "acyclic" in res.output


@pytest.mark.parametrize("args, words", [
    (["--routing", "valiant", "--vcs", "2"], ["--vcs 2", "valiant", "--vcs 3"]),
    (["--routing", "ugal-l", "--vcs", "6", "--inject-vcs", "2,3"], ["--inject-vcs 2,3", "class 0", "0..1"]),
    (["--routing", "ugal-g", "--router", "booksim"], ["ugal-g", "lanes or iq"]),
    (["--routing", "valiant", "--link-failures", "2"], ["valiant", "--link-failures"]),
])
def test_refusals_on_the_dragonfly(args, words):
    res = CliRunner().invoke(app, ["run", *KIM_ARGS, "--pattern", "uniform", "--rate", "0.1", *args])
    assert_refused(res, words)


@pytest.mark.parametrize("topo, routing", [
    (["--topology", "torus", "--k", "4"], "ugal-l"),
    (["--topology", "mesh", "--k", "4"], "ugal-g"),
    (["--topology", "rrg", "--nodes", "16", "--degree", "3"], "valiant"),
])
def test_refusals_elsewhere(topo, routing):
    res = CliRunner().invoke(app, ["run", *topo, "--routing", routing, "--pattern", "uniform", "--rate", "0.1"])
    assert_refused(res, [routing, "dragonfly", "flatfly", "hyperx"])


# bench/dragonfly.py's set-up: two VCs per class, global links of 10 cycles, 32-flit lanes (the
# credit round trip of a global link is 20 cycles), a routing unit per header
BENCH = dict(**KIM, vcs=6, buf=32, global_latency=10, headers_per_cycle=0)


def _saturation(routing: str, pattern: str, rates) -> float:
    """Highest of ``rates`` (ascending) before the first saturated run (0 if the first is)."""
    best = 0.0
    for rate in rates:
        s = simulate(Config(**BENCH, routing=routing, pattern=pattern, rate=rate, warmup=1000, measure=4000, seed=1))
        if s["saturated"]:
            break
        best = rate
    return best


def _knee(routing: str, pattern: str) -> float:
    coarse = _saturation(routing, pattern, [round(0.05 * i, 2) for i in range(1, 21)])
    return _saturation(routing, pattern, [round(coarse + 0.01 * i, 2) for i in range(1, 5)]) or coarse


def test_kim_relations_smoke():
    """A fast look at the slow test's relations, one load each."""
    base = dict(**BENCH, warmup=300, measure=1500, seed=1)
    assert simulate(Config(**base, routing="minimal", pattern="worst-case", rate=0.2))["saturated"] is True
    assert simulate(Config(**base, routing="valiant", pattern="worst-case", rate=0.4))["saturated"] is False
    assert simulate(Config(**base, routing="ugal-l", pattern="worst-case", rate=0.35))["saturated"] is False
    assert simulate(Config(**base, routing="valiant", pattern="uniform", rate=0.6))["saturated"] is True
    assert simulate(Config(**base, routing="ugal-l", pattern="uniform", rate=0.75))["saturated"] is False
    # ugal-g with the input lanes' demand in its queues (without it: saturated from 0.37)
    assert simulate(Config(**base, routing="ugal-g", pattern="worst-case", rate=0.45))["saturated"] is False


def test_ugal_g_counts_the_flits_waiting_in_input_lanes_for_a_port():
    """routing/dragonfly_valiant.port_demand: lanes connected to one of the port's VCs, and routed
    headers waiting with the port among their candidates; other ports and routers do not count."""
    from netsim_fast.flit import state as fs
    from netsim_fast.flit.run import build_params
    from netsim_fast.routing.dragonfly_valiant import port_demand

    cfg = Config(**KIM, routing="ugal-g", vcs=6)
    topo = build_topology(cfg)
    p = build_params(cfg, topo, stop_mode=fs.STOP_ALL, win_start=0, win_end=1, class_vcs=2)
    s = fs.new_state(topo, p, packet_capacity=1, windows=1)
    P, V = p.n_ports, p.n_vcs  # 3 local + 2 global + 2 terminal ports

    def lane(node, port, vc):
        return (node * P + port) * V + vc

    inl = s.inl
    inl[lane(5, 0, 1)].len, inl[lane(5, 0, 1)].out = 3, lane(5, 4, 2)          # connected to port 4
    inl[lane(5, 6, 0)].len, inl[lane(5, 6, 0)].route_done = 2, 10              # waiting for port 4 or 1
    inl[lane(5, 6, 0)].cand = (1 << 4) | (1 << 1)
    inl[lane(5, 2, 3)].len, inl[lane(5, 2, 3)].cand = 4, 1 << 4                # not routed yet: no
    inl[lane(6, 0, 0)].len, inl[lane(6, 0, 0)].out = 5, lane(6, 4, 0)          # another router
    assert port_demand(inl, s.outl, 5, 4, P, V) == 3 + 2
    assert port_demand(inl, s.outl, 5, 1, P, V) == 2
    assert port_demand(inl, s.outl, 5, 3, P, V) == 0
    assert port_demand(inl, s.outl, 6, 4, P, V) == 5


@pytest.fixture(scope="module")
def kim_saturation():
    return {(r, p): _knee(r, p) for r in ("minimal", "valiant", "ugal-l", "ugal-g") for p in ("uniform", "worst-case")}


@pytest.mark.slow
def test_kim_et_al_2008_saturation_relations(kim_saturation):
    """Kim et al. 2008 on the 72-terminal dragonfly, lanes router: under uniform traffic valiant
    saturates at <= 0.6 x minimal and ugal-l at >= 0.9 x minimal; under worst-case minimal at
    <= 1.1 / (A P) and valiant and ugal-l at >= 3 x minimal; ugal-g at least as high as ugal-l
    under uniform traffic (worst-case: the next test)."""
    sat = kim_saturation
    uni = {r: sat[(r, "uniform")] for r in ("minimal", "valiant", "ugal-l", "ugal-g")}
    wc = {r: sat[(r, "worst-case")] for r in ("minimal", "valiant", "ugal-l", "ugal-g")}
    assert uni["valiant"] <= 0.6 * uni["minimal"], sat
    assert uni["ugal-l"] >= 0.9 * uni["minimal"], sat
    assert wc["minimal"] <= 1.1 / 8, sat
    assert wc["valiant"] >= 3 * wc["minimal"] and wc["ugal-l"] >= 3 * wc["minimal"], sat
    assert uni["ugal-g"] >= uni["ugal-l"], sat


@pytest.mark.slow
def test_ugal_g_at_least_ugal_l_under_worst_case(kim_saturation):
    assert kim_saturation[("ugal-g", "worst-case")] >= kim_saturation[("ugal-l", "worst-case")]


@pytest.mark.parametrize("routing", ["valiant", "ugal-l"])
def test_retiring_packets_moves_their_intermediate_groups_along(routing, monkeypatch):
    """flit/retire.py renumbers packets between batches; each packet's intermediate group (a
    separate array) must move with it, or routes would change: same summary either way."""
    from netsim_fast.flit import retire
    from netsim_fast.summary_keys import WALL_CLOCK_KEYS

    cfg = Config(**KIM, routing=routing, pattern="worst-case", rate=0.3, warmup=500, measure=3000, seed=5)

    def summary():
        return {k: v for k, v in simulate(cfg).items() if k not in WALL_CLOCK_KEYS and k != "estimated_mib"}

    whole = summary()
    shifts = []
    real_retire = retire.RetiredPackets.retire

    def spy(self, state, upto=None):
        shift = real_retire(self, state, upto)
        shifts.append(shift)
        return shift

    monkeypatch.setattr(retire, "RETIRE_AT", 256)
    monkeypatch.setattr(retire.RetiredPackets, "retire", spy)
    assert summary() == whole
    assert sum(shifts) > 0
