"""HyperX, flattened butterfly and dragonfly (issue 17, item 1): the builders against graphs
built here independently with networkx, hand counts of small cases, exact bisections against
brute force, the options' checks, and minimal routing on both engines and in check-deadlock."""

from __future__ import annotations

import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.topologies import build_topology, dragonfly, flatfly, hyperx
from netsim_fast.topologies.direct import dragonfly_global_links, hamming_bisection
from netsim_fast.topologies.metrics import _brute_force, topology_metrics
from tests.test_topologies import assert_port_tables_consistent, nx_metrics

runner = CliRunner()


def nx_hamming(dims) -> nx.Graph:
    """All-to-all in every dimension, numbered dimension 0 fastest, from coordinate tuples."""
    def node_id(c):
        return sum(x * math.prod(dims[:d]) for d, x in enumerate(c))

    g = nx.Graph()
    coords = list(itertools.product(*[range(k) for k in dims]))
    g.add_nodes_from(range(len(coords)))
    for a, b in itertools.combinations(coords, 2):
        if sum(x != y for x, y in zip(a, b)) == 1:
            g.add_edge(node_id(a), node_id(b))
    return g


def nx_dragonfly(a, h, g, arrangement) -> nx.Graph:
    """docs/topologies.md's rules, written out pair by pair from group ids and port numbers."""
    out = nx.Graph()
    out.add_nodes_from(range(g * a))
    for grp in range(g):
        out.add_edges_from(itertools.combinations(range(grp * a, grp * a + a), 2))
    span = g - 1
    for grp in range(g):
        for j in range(a * h):
            if arrangement == "palm-tree":
                peer, peer_port = (grp + j % span + 1) % g, a * h - 1 - j
            else:
                others = [x for x in range(g) if x != grp]
                peer = others[j % span]
                peer_port = (j // span) * span + [x for x in range(g) if x != peer].index(grp)
            out.add_edge(grp * a + j // h, peer * a + peer_port // h)
    return out


def edge_set(topo):
    return set(map(tuple, topo.edges().tolist()))


@pytest.mark.parametrize("dims", [(4,), (3, 3), (2, 3, 4), (4, 4, 4), (5, 2)])
def test_hyperx_is_the_hamming_graph(dims):
    topo = hyperx(dims)
    assert_port_tables_consistent(topo)
    assert edge_set(topo) == set(nx_hamming(dims).edges())
    n = math.prod(dims)
    assert topo.n_nodes == n and topo.n_links // 2 == n * sum(k - 1 for k in dims) // 2
    assert set(topo.degree.tolist()) == {sum(k - 1 for k in dims)}


@pytest.mark.parametrize("k,n", [(4, 2), (3, 3), (2, 4)])
def test_flatfly_is_booksims_k_ary_n_flat(k, n):
    topo = flatfly(k, n)
    assert_port_tables_consistent(topo)
    assert edge_set(topo) == edge_set(hyperx((k,) * n))
    product = nx.complete_graph(k)
    for _ in range(n - 1):
        product = nx.cartesian_product(product, nx.complete_graph(k))
    assert nx.is_isomorphic(topo.to_networkx(), product)
    m = topology_metrics(topo, with_bisection=False)
    assert (m["nodes"], m["diameter"], m["degree_max"]) == (k ** n, n, n * (k - 1))


def test_flatfly_port_order_is_booksims():
    # router 5 = (1, 1) of a 4-ary 2-flat: dimension 0 first, the other routers in ascending order
    topo = flatfly(4, 2)
    assert topo.nbr[5, :6].tolist() == [4, 6, 7, 1, 9, 13]


@pytest.mark.parametrize("dims", [(2, 4), (4, 4), (3, 5), (2, 2, 4), (2, 9), (3, 6), (2, 3, 3), (5,), (2, 2, 2, 2)])
def test_hyperx_bisection_is_exact(dims):
    topo = hyperx(dims)
    assert hamming_bisection(dims) == _brute_force(topo.n_nodes, topo.edges())
    width, exact = topology_metrics(topo)["bisection_width"], topology_metrics(topo)["bisection_exact"]
    assert exact and width == hamming_bisection(dims)


def test_hamming_bisection_hand_counts():
    assert hamming_bisection((4, 4, 4)) == 64      # cut one dimension in halves: 16 rows of 2x2 links
    assert hamming_bisection((8, 8)) == 128        # 8 rows of 4x4
    assert hamming_bisection((2, 8)) == 8          # the 2-dimension: one link per router pair


@pytest.mark.parametrize("arrangement", ["consecutive", "palm-tree"])
@pytest.mark.parametrize("a,h,g", [(4, 2, 9), (2, 1, 3), (2, 2, 5), (4, 2, 5), (3, 2, 4), (1, 3, 4)])
def test_dragonfly_matches_the_documented_rules(a, h, g, arrangement):
    topo = dragonfly(a, h, g, arrangement)
    assert_port_tables_consistent(topo)
    assert edge_set(topo) == set(nx_dragonfly(a, h, g, arrangement).edges())
    # hand count: G cliques of A routers plus A*H global ports per group, two per link
    assert topo.n_nodes == g * a
    assert topo.n_links // 2 == g * a * (a - 1) // 2 + g * a * h // 2
    assert set(topo.degree.tolist()) == {a - 1 + h}
    # every pair of groups has A*H/(G-1) global links
    group = np.arange(g * a) // a
    pairs = [tuple(sorted((group[u], group[v]))) for u, v in topo.edges() if group[u] != group[v]]
    assert set(np.unique(pairs, axis=0, return_counts=True)[1].tolist()) == {a * h // (g - 1)}


def test_dragonfly_hand_count_a4_h2():
    cons, palm = dragonfly(4, 2), dragonfly(4, 2, arrangement="palm-tree")
    assert cons.params["groups"] == 9 and cons.n_links // 2 == 9 * 6 + 36 == 90
    # consecutive: group 0's port j goes to group j + 1; group 3's port 5 skips group 3 -> group 6,
    # arriving at group 6's port 3 (group 3 is its 4th other group): routers 3*4 + 5//2, 6*4 + 3//2
    assert cons.nbr[0, 3:5].tolist() == [4, 8] and cons.nbr[1, 3:5].tolist() == [12, 16]
    assert (14, 25) in edge_set(cons)
    # palm-tree: group 3's port 5 goes to group (3+5+1) mod 9 = 0, its port 7-5 = 2: router 1
    assert (1, 14) in edge_set(palm)
    assert palm.nbr[0, 3:5].tolist() == [7, 11]  # group 0's ports 0,1 -> groups 1,2 at their ports 7, 6 (router 3)
    for topo in (cons, palm):
        m, oracle = topology_metrics(topo, with_bisection=False), nx_metrics(topo.to_networkx())
        assert m["diameter"] == oracle["diameter"] == 3
        assert m["average_distance"] == pytest.approx(oracle["average_distance"])


def test_dragonfly_global_rows_pair_up():
    for arrangement in ("consecutive", "palm-tree"):
        rows = dragonfly_global_links(4, 2, 9, arrangement)
        fwd = {(g, j): (p, q) for g, j, p, q in rows.tolist()}
        assert all(fwd[(p, q)] == (g, j) for (g, j), (p, q) in fwd.items())


@pytest.mark.parametrize("kw,ports", [
    (dict(topology="hyperx", dims="4,3,2"), 7),
    (dict(topology="hyperx", dims="4,3,2", widths="2,1,3"), 12),
    (dict(topology="flatfly", k=4, n=3), 10),
    (dict(topology="dragonfly", group_routers=4, global_links=2), 6),
])
def test_memory_estimate_and_topo_size_know_the_port_counts(kw, ports):
    from netsim_fast.cli.topo import _links
    from netsim_fast.config.memory import _ports

    cfg = Config(**kw)
    topo = build_topology(cfg)
    assert _ports(cfg) == topo.n_ports == ports
    assert _links(cfg) == topo.n_links // 2
    assert cfg.n_nodes == topo.n_nodes


@pytest.mark.parametrize("argv,needle", [
    (["--topology", "hyperx", "--dims", "4,4", "--widths", "1,17"], "--widths 1,17: every width must be in 1..16"),
    (["--topology", "hyperx", "--dims", "4,4", "--widths", "1"], "--widths 1: needs one width per dimension"),
    (["--topology", "hyperx", "--dims", "4,1"], "--dims 4,1:"),
    (["--topology", "hyperx"], "--dims: --topology hyperx needs"),
    (["--topology", "flatfly", "--n", "2"], "--k: --topology flatfly needs"),
    (["--topology", "flatfly", "--k", "1"], "--k 1: must be >= 2"),
    (["--topology", "flatfly", "--k", "2", "--n", "30"], "--k 2: 2^30 routers exceed"),
    (["--topology", "dragonfly", "--group-routers", "4"], "--global-links: --topology dragonfly needs"),
    (["--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--groups", "4"],
     "--groups 4: must be one of 3, 5, 9"),
    (["--topology", "dragonfly", "--group-routers", "4", "--global-links", "0"], "--global-links 0: must be >= 1"),
    (["--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--global-arrangement", "palm"],
     "--global-arrangement palm: unknown; choose one of consecutive, palm-tree"),
    (["--topology", "torus", "--k", "4", "--groups", "3"], "--groups 3: does not apply to --topology torus"),
    (["--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--k", "3"],
     "--k 3: does not apply to --topology dragonfly"),
])
@pytest.mark.parametrize("command", ["topo", "run"])
def test_bad_options_are_one_line_and_exit_2(argv, needle, command):
    result = runner.invoke(app, [command, *argv])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and needle in lines[0], result.output


@pytest.mark.parametrize("argv,expect", [
    (["--topology", "flatfly", "--k", "4", "--n", "3"], dict(nodes=64, links=288, degree_max=9, diameter=3,
                                                           bisection_width=64, bisection_exact=True)),
    (["--topology", "hyperx", "--dims", "4,4,4"], dict(nodes=64, links=288, degree_max=9, diameter=3,
                                                      bisection_width=64, bisection_exact=True)),
    (["--topology", "dragonfly", "--group-routers", "2", "--global-links", "2", "--groups", "3"],
     dict(nodes=6, links=9, degree_max=3, diameter=2, bisection_width=3, bisection_exact=True)),
])
def test_topo_reports_them(argv, expect):
    result = runner.invoke(app, ["topo", *argv, "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    assert {key: got[key] for key in expect} == expect


DEADLOCK_CASES = [
    (dict(topology="flatfly", k=3, n=3), 3),
    (dict(topology="hyperx", dims="4,3"), 2),
    (dict(topology="dragonfly", group_routers=4, global_links=2), 3),
    (dict(topology="dragonfly", group_routers=4, global_links=2, global_arrangement="palm-tree"), 3),
    (dict(topology="dragonfly", group_routers=3, global_links=2, groups=4), 3),
]


@pytest.mark.parametrize("kw,vcs", DEADLOCK_CASES, ids=lambda x: "-".join(map(str, x.values())) if isinstance(x, dict) else str(x))
def test_minimal_is_deadlock_free_with_one_vc_per_hop_of_the_diameter(kw, vcs):
    from netsim_fast.deadlock_check import check_deadlock

    result = check_deadlock(Config(routing="minimal", vcs=vcs, **kw))
    assert result["deadlock_free"] and result["cycle"] is None and result["error"] is None
    with pytest.raises(ConfigError, match=f"longest route here has {vcs} hops"):
        check_deadlock(Config(routing="minimal", vcs=vcs - 1, **kw))


def test_check_deadlock_command_on_a_dragonfly():
    argv = ["check-deadlock", "--topology", "dragonfly", "--group-routers", "4", "--global-links", "2",
            "--routing", "minimal", "--vcs", "3", "--quiet", "--json"]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0 and json.loads(result.output)["deadlock_free"], result.output


@pytest.mark.parametrize("topo_argv", [
    ["--topology", "flatfly", "--k", "3", "--n", "2"],
    ["--topology", "hyperx", "--dims", "3,2"],
    ["--topology", "dragonfly", "--group-routers", "2", "--global-links", "1", "--global-arrangement", "palm-tree"],
])
def test_minimal_runs_on_both_engines(topo_argv):
    flit = runner.invoke(app, ["run", *topo_argv, "--routing", "minimal", "--rate", "0.1", "--warmup", "200",
                               "--measure", "1000", "--check-invariants", "--quiet", "--json"])
    assert flit.exit_code == 0, flit.output
    summary = json.loads(flit.output)
    assert summary["accepted_load"] == pytest.approx(0.1, rel=0.25)
    packet = runner.invoke(app, ["run", "--engine", "packet", *topo_argv, "--pattern", "random", "--messages", "2",
                                 "--quiet", "--json"])
    assert packet.exit_code == 0, packet.output
    assert json.loads(packet.output)["status"] == "done"


@pytest.mark.parametrize("topo_argv", [
    ["--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--vcs", "3"],
    ["--topology", "dragonfly", "--group-routers", "3", "--global-links", "2", "--groups", "4", "--vcs", "3",
     "--global-arrangement", "palm-tree", "--switching", "vct"],
    ["--topology", "flatfly", "--k", "4", "--n", "2", "--vcs", "2", "--router", "iq"],
    ["--topology", "hyperx", "--dims", "4,3,2", "--vcs", "3"],
])
def test_full_load_with_the_fewest_vcs_never_deadlocks_and_keeps_the_invariants(topo_argv):
    result = runner.invoke(app, ["run", *topo_argv, "--rate", "1.0", "--cycles", "10000", "--check-invariants",
                                 "--deadlock-cycles", "2000", "--quiet", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["stop_reason"] == "cycles" and summary["deadlock_cycle"] is None
    assert summary["accepted_load"] > 0.5


def test_sweep_points_and_stored_configs_carry_the_new_options(tmp_path):
    from netsim_fast.sweep import spec_from_dict

    spec = spec_from_dict({
        "base": {"pattern": "uniform"},
        "points": [{"topology": "dragonfly", "group_routers": 2, "global_links": 1, "global_arrangement": "palm-tree"},
                   {"topology": "hyperx", "dims": "3,3"}, {"topology": "flatfly", "k": 3}],
        "grid": {"rate": [0.1, 0.2]},
    })
    configs = [p.config for p in spec.points]
    assert [(c.topology, c.n_nodes) for c in configs[::2]] == [("dragonfly", 6), ("hyperx", 9), ("flatfly", 9)]
    assert configs[0].groups == 3 and configs[0].global_arrangement == "palm-tree" and configs[4].n == 2
    with pytest.raises(ConfigError, match="spec point 1 .*--groups 4: must be one of"):
        spec_from_dict({"points": [{"topology": "dragonfly", "group_routers": 4, "global_links": 2, "groups": 4}]})
    # a trace stores the config as a dict; reading it back rebuilds the same network
    for cfg in configs:
        again = Config.from_dict(cfg.to_dict())
        assert edge_set(build_topology(again)) == edge_set(build_topology(cfg))


def test_a_trace_of_a_dragonfly_run_reads_back(tmp_path):
    import netsim_fast as nf

    path = tmp_path / "run.h5"
    cfg = Config(topology="dragonfly", group_routers=2, global_links=2, groups=3, rate=0.1, warmup=100,
                 measure=500, trace=str(path))
    nf.simulate(cfg)
    tr = nf.open_trace(str(path))
    assert {k: tr.config[k] for k in ("topology", "group_routers", "global_links", "groups")} == \
        {"topology": "dragonfly", "group_routers": 2, "global_links": 2, "groups": 3}
    assert len(tr.packets) > 0


def test_parallel_links_pair_up_and_count():
    topo = build_topology(Config(topology="hyperx", dims=(3, 2, 3), widths=(2, 1, 3)))  # degree 2*2 + 1 + 2*3
    nbr, back = topo.arrays.nbr, topo.arrays.nbr_in_port
    u, p = np.nonzero(nbr[:, :-1] >= 0)
    v, q = nbr[u, p], back[u, p]
    assert np.array_equal(nbr[v, q], u) and np.array_equal(back[v, q], p)
    assert len(set(zip(u.tolist(), p.tolist()))) == len(set(zip(v.tolist(), q.tolist()))) == 18 * 11
    assert topo.n_links == 18 * 11 and topo.params["widths"] == "2,1,3"
    plain = build_topology(Config(topology="hyperx", dims=(3, 2, 3), widths=(1, 1, 1)))
    assert "widths" not in plain.params  # widths 1: the topology of before, unchanged
    assert_port_tables_consistent(topo)
    # failures remove one of two parallel links at both ends alike
    faulted = build_topology(Config(topology="hyperx", dims=(3, 2, 3), widths=(2, 1, 3), link_failures=20,
                                    fault_seed=4))
    assert_port_tables_consistent(faulted)
    assert faulted.n_links == topo.n_links - 40


def test_topo_reports_links_and_an_exact_bisection_scaled_by_the_width():
    res = CliRunner().invoke(app, ["topo", "--topology", "hyperx", "--dims", "4,4", "--widths", "2,2", "--json"])
    m = json.loads(res.output)
    assert res.exit_code == 0 and m["links"] == 16 * 12 // 2 and m["diameter"] == 2
    assert m["bisection_width"] == 2 * 16 and m["bisection_exact"]  # twice the 4x4's 16
    res = CliRunner().invoke(app, ["topo", "--topology", "hyperx", "--dims", "3,2", "--widths", "2,3", "--json"])
    m = json.loads(res.output)
    assert m["bisection_width"] == 9 and m["bisection_exact"]  # brute force: cut dimension 1, 3 pairs x 3 links


def test_equal_widths_scale_the_bisection_as_the_brute_force_finds():
    for dims, widths in (((3, 4), (2, 2)), ((2, 3, 2), (3, 3, 3))):
        topo = build_topology(Config(topology="hyperx", dims=dims, widths=widths))
        m = topology_metrics(topo)
        assert m["bisection_exact"] and m["bisection_width"] == _brute_force(topo.n_nodes, topo.edges())
