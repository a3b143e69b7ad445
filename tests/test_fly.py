"""The butterfly (``--topology fly --k K --n N``, BookSim2's k-ary n-fly): its wiring, the
terminals that inject at the first stage and eject at the last, destination-tag routing on
the lanes and booksim routers, its worst-case pattern, ``topo`` and ``check-deadlock``."""

import itertools
import json

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

import netsim_fast.config.booksim_file as bf
from netsim_fast import simulate
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.deadlock_check import check_deadlock
from netsim_fast.errors import ConfigError
from netsim_fast.routing.fly import build_fly_table
from netsim_fast.topologies import build_topology, fly
from netsim_fast.topologies.fly import dest_tag_port, fly_bisection, worst_case
from tests._refusals import assert_refused

runner = CliRunner()


def _forward(topo):
    """The directed graph of the channels a route can take (outputs 0 .. k-1)."""
    k = int(topo.params["k"])
    g = nx.DiGraph()
    g.add_nodes_from(range(topo.n_nodes))
    for u in range(topo.n_nodes):
        for q in range(k):
            if topo.nbr[u, q] >= 0:
                g.add_edge(u, int(topo.nbr[u, q]), port=q)
    return g


def _route(topo, src, dst):
    """The routers and output ports destination-tag routing takes from terminal src to dst."""
    k, n = int(topo.params["k"]), int(topo.params["n"])
    r, hops = src // k, []
    for _ in range(n - 1):
        q = dest_tag_port(k, n, r, dst)
        hops.append((r, q))
        r = int(topo.nbr[r, q])
    return hops, r


# -- the network: hand counts, BookSim2's wiring, networkx ----------------------------------

@pytest.mark.parametrize("k,n", [(2, 1), (2, 2), (2, 4), (3, 2), (3, 3), (4, 3)])
def test_k_ary_n_fly_counts_and_one_path_per_pair(k, n):
    topo = fly(k, n)
    per_stage = k ** (n - 1)
    assert (topo.n_nodes, topo.n_terminals, topo.concentration) == (n * per_stage, k ** n, k)
    assert topo.eject_shift == (n - 1) * per_stage and topo.n_ports == 3 * k
    assert topo.n_links // 2 == (n - 1) * k ** n  # one-way channels, as BookSim2 allocates them
    g = _forward(topo)
    assert nx.is_directed_acyclic_graph(g)
    for a in range(per_stage):  # each first-stage router reaches each last-stage router one way
        for b in range(per_stage):
            paths = list(nx.all_simple_paths(g, a, (n - 1) * per_stage + b)) if n > 1 else [[a]]
            assert len(paths) == 1 and len(paths[0]) == n


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (2, 4)])
def test_channels_follow_booksim2s_in_channel_numbering(k, n):
    """Input p of stage-s router a comes from the router whose address has a's digit n-1-s
    replaced by p, at its output numbered by a's digit (fly.cpp, _InChannel)."""
    topo = fly(k, n)
    per_stage = k ** (n - 1)
    for s in range(1, n):
        shift = k ** (n - s - 1)
        for a in range(per_stage):
            zero = (a // shift) % k
            for p in range(k):
                up = (s - 1) * per_stage + a - zero * shift + p * shift
                assert topo.nbr[s * per_stage + a, k + p] == up
                assert topo.nbr[up, zero] == s * per_stage + a and topo.nbr_in_port[up, zero] == k + p


@pytest.mark.parametrize("k,n", [(2, 2), (2, 4), (3, 3), (4, 2)])
def test_destination_tag_reaches_the_ejection_router_and_loads_every_channel_alike(k, n):
    topo = fly(k, n)
    table = build_fly_table(topo)
    terminals = k ** n
    loads = {}
    for src, dst in itertools.product(range(terminals), repeat=2):
        hops, last = _route(topo, src, dst)
        assert last == dst // k + topo.eject_shift
        for r, q in hops:
            assert table.port_mask[last, r, q // 8] == 1 << (q % 8)  # the table has that port, alone
            loads[r, q] = loads.get((r, q), 0) + 1
    # uniform traffic: every channel carries N of the N^2 pairs, the terminal's own rate
    assert len(loads) == (n - 1) * terminals and set(loads.values()) == {terminals}
    assert table.dist[0, topo.eject_shift] == n - 1


@pytest.mark.parametrize("k,n", [(2, 2), (2, 3), (2, 4), (2, 5), (3, 3), (4, 3)])
def test_worst_case_is_a_derangement_that_stacks_k_to_the_half_n_flows_on_a_channel(k, n):
    topo = fly(k, n)
    perm = worst_case(k, n)
    assert sorted(perm.tolist()) == list(range(k ** n)) and not np.any(perm == np.arange(k ** n))
    loads = {}
    for src in range(k ** n):
        for hop in _route(topo, src, int(perm[src]))[0]:
            loads[hop] = loads.get(hop, 0) + 1
    assert max(loads.values()) == k ** (n // 2)


def test_bisection_is_half_the_terminals_in_channels_by_exhaustive_search():
    """2-ary 3-fly: over every split of the routers that keeps each terminal's injection and
    ejection routers together and halves the terminals, the fewest channels cut is N/2 = 4."""
    topo = fly(2, 3)
    per_stage, shift = 4, topo.eject_shift
    g = _forward(topo)
    best = None
    for first in itertools.combinations(range(per_stage), per_stage // 2):
        for middle in range(1 << per_stage):
            side = np.zeros(topo.n_nodes, bool)
            side[list(first)] = True
            side[[shift + a for a in first]] = True
            side[per_stage:2 * per_stage] = [(middle >> i) & 1 for i in range(per_stage)]
            cut = sum(side[u] != side[v] for u, v in g.edges)
            best = cut if best is None else min(best, cut)
    assert best == 4 == fly_bisection(topo)[0]


def test_topo_reports_terminals_routers_diameter_and_bisection():
    res = runner.invoke(app, ["topo", "--topology", "fly", "--k", "4", "--n", "3", "--json"])
    assert res.exit_code == 0, res.output
    m = json.loads(res.stdout)
    assert (m["terminals"], m["routers"], m["terminals_per_router"]) == (64, 48, 4)
    assert (m["links"], m["diameter"], m["average_distance"]) == (128, 2, 2.0)
    assert (m["bisection_width"], m["bisection_exact"]) == (32, True)
    odd = json.loads(runner.invoke(app, ["topo", "--topology", "fly", "--k", "3", "--n", "2", "--json"]).stdout)
    assert (odd["bisection_width"], odd["bisection_exact"]) == (None, False)


# -- configuration: what runs and what is refused -------------------------------------------

@pytest.mark.parametrize("args,words", [
    (["--routing", "updown"], ["--routing updown", "fly", "minimal"]),
    (["--routing", "dest_tag"], ["--routing dest_tag", "--router lanes", "minimal"]),
    (["--router", "booksim", "--routing", "minimal"], ["--routing minimal", "dest_tag"]),
    (["--concentration", "2"], ["--concentration 2", "first and last stages"]),
    (["--link-failures", "1"], ["--link-failures 1", "one path"]),
    (["--engine", "packet", "--pattern", "random"], ["fly", "flit engine only"]),
    (["--pattern", "tornado"], ["tornado"]),
])
def test_other_routings_and_options_are_refused(args, words):
    res = runner.invoke(app, ["run", "--topology", "fly", "--k", "2", "--n", "3", *args])
    assert_refused(res, words)


def test_defaults_are_destination_tag_on_each_router():
    assert Config(topology="fly", k=2, n=3).routing == "minimal"
    assert Config(topology="fly", k=2, n=3, router="booksim").routing == "dest_tag"
    with pytest.raises(ConfigError, match="--topology fly needs --k K"):
        Config(topology="fly", n=3)


def test_booksim_config_maps_topology_fly_and_dest_tag():
    text = "topology = fly; k = 4; n = 3; routing_function = dest_tag; traffic = uniform;"
    out = bf.to_config_fields(bf.parse_booksim(text, "fly.cfg"))
    assert (out["topology"], out["k"], out["n"], out["routing"]) == ("fly", 4, 3, "dest_tag")
    with pytest.raises(ConfigError, match="dest_tag"):
        bf.to_config_fields(bf.parse_booksim(text.replace("dest_tag", "min"), "fly.cfg"))
    with pytest.raises(ConfigError, match="reads no c"):
        bf.to_config_fields(bf.parse_booksim(text + " c = 2;", "fly.cfg"))


# -- the engine and the deadlock check --------------------------------------------------------

@pytest.mark.parametrize("vcs", [1, 2])
def test_check_deadlock_proves_destination_tag_acyclic_with_any_vcs(vcs):
    out = check_deadlock(Config(topology="fly", k=3, n=3, vcs=vcs))
    assert out["deadlock_free"] and out["error"] is None and out["graph"] == "cdg"
    assert out["channels"] == 2 * 27 * vcs  # every channel of both stage boundaries, every VC


@pytest.mark.parametrize("router", ["lanes", "iq", "booksim"])
def test_uniform_traffic_crosses_n_minus_1_links_and_is_accepted(router):
    cfg = Config(topology="fly", k=2, n=3, router=router, rate=0.2, warmup=300, measure=1500, check_invariants=True)
    s = simulate(cfg)
    assert s["error"] is None and not s["saturated"]
    assert s["hops_mean"] == 2.0 and s["capacity_fraction"] == pytest.approx(s["accepted_load"])
    assert s["accepted_load"] == pytest.approx(0.2, rel=0.15)


def test_worst_case_saturates_at_one_over_k_to_the_half_n():
    """2-ary 4-fly: four flows share a channel into stage 2, so offered 0.4 is accepted at 1/4."""
    s = simulate(Config(topology="fly", k=2, n=4, pattern="worst-case", rate=0.4, warmup=500, measure=2000,
                        latency_limit=0))
    assert s["saturated"] and s["accepted_load"] == pytest.approx(0.25, abs=0.01)


def test_a_one_stage_fly_is_one_router_without_links():
    """BookSim2's singleconfig example is a 10-ary 1-fly: one router, injection and ejection on it."""
    s = simulate(Config(topology="fly", k=4, n=1, rate=0.3, warmup=300, measure=1000))
    assert s["error"] is None and not s["saturated"]
    assert s["hops_mean"] == 0.0 and s["link_utilization_max"] == 0.0
    from pathlib import Path

    path = Path(__file__).parent / "booksim_cases" / "example_single.cfg"
    out = bf.to_config_fields(bf.parse_booksim(path.read_text(), str(path)))
    assert (out["topology"], out["k"], out["n"], out["routing"], out["vcs"]) == ("fly", 10, 1, "dest_tag", 8)


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("case", [dict(k=2, n=3, vcs=1), dict(k=3, n=2, vcs=2, switching="vct", buf=6),
                                  dict(k=2, n=2, vcs=2, t_link=2, credit_delay=3, headers_per_cycle=0)],
                         ids=["2ary3", "3ary2-vct", "2ary2-delays"])
def test_kernel_matches_the_plain_reference_cycle_for_cycle(case, router):
    """tests/reference/flit_naive.py with the butterfly's terminals (ejection eject_shift routers
    on) and destination-tag rows: every packet's injection, deliveries, hops and flit gaps."""
    from tests.test_flit_engine import assert_same_as_reference, random_packets

    max_len = 5 if case.get("switching") == "vct" else 9
    cfg = Config(topology="fly", router=router, packet_flits=max_len, check_invariants=True, **case)
    assert_same_as_reference(cfg, random_packets(cfg.n_terminals, 80, max_len, seed=3, span=60))


def test_a_sweep_spec_takes_the_fly_and_a_trace_counts_its_terminals(tmp_path):
    import netsim_fast as nf

    spec = tmp_path / "fly.toml"
    spec.write_text('[base]\ntopology = "fly"\nk = 2\nn = 3\n[grid]\nrate = [0.1, 0.2]\nrouter = ["lanes", "booksim"]\n')
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "never"), "--dry-run", "--json"])
    assert res.exit_code == 0, res.output
    points = json.loads(res.stdout)["points"]
    assert {(p["router"], p["routing"]) for p in points} == {("lanes", "minimal"), ("booksim", "dest_tag")}
    path = tmp_path / "fly.h5"
    simulate(Config(topology="fly", k=2, n=3, rate=0.1, warmup=100, measure=500, trace=str(path)))
    tr = nf.open_trace(path)
    assert tr.config["topology"] == "fly" and len(tr.nodes) == 8 and tr.packets["dst"].max() <= 7
