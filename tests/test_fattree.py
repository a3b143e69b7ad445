"""Fat trees (``--topology fattree``: k-ary n-tree; ``--topology clos``: 3-level folded Clos),
terminals on the leaf switches only, and up*/down* routing on them and on any graph
(``--routing updown``, ``--up-port random|dest-mod-k|adaptive``; routing/updown.py)."""

import json

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast import simulate
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.deadlock_check import check_deadlock
from netsim_fast.flit.run import FinitePackets
from netsim_fast.routing.updown import build_updown_table, ranks, updown_table
from netsim_fast.topologies import build_topology, clos, fattree
from tests._refusals import assert_refused
from tests.test_flit_engine import run_both

runner = CliRunner()


def _leaves(topo):
    return -(-topo.n_terminals // topo.concentration)


# -- topologies: hand counts and networkx ----------------------------------------------------

@pytest.mark.parametrize("k,n", [(2, 2), (2, 3), (3, 2), (4, 3), (3, 3)])
def test_k_ary_n_tree_counts_and_structure(k, n):
    topo = fattree(k, n)
    per_level = k ** (n - 1)
    assert (topo.n_nodes, topo.n_terminals, topo.concentration) == (n * per_level, k ** n, k)
    assert topo.n_links // 2 == (n - 1) * per_level * k  # k up links per switch below the top
    degree = topo.arrays.degree
    assert list(degree[:per_level]) == [k] * per_level  # leaves: k up links (terminals are local ports)
    assert list(degree[-per_level:]) == [k] * per_level  # top: k down links
    assert all(degree[per_level:-per_level] == 2 * k)
    g = topo.to_networkx()
    assert nx.is_connected(g) and nx.is_bipartite(g)
    # two leaves are 2h apart, h the level of their nearest common ancestor: the lowest digit
    # level above which their words agree
    dist = dict(nx.all_pairs_shortest_path_length(g))
    for a in range(per_level):
        for b in range(per_level):
            h = 0
            while a // k ** h != b // k ** h:
                h += 1
            assert dist[a][b] == 2 * h
    # every top switch reaches every leaf by a path down (k^(n-1) disjoint ways up from a leaf)
    assert nx.diameter(g) == 2 * (n - 1)


@pytest.mark.parametrize("ports", [4, 6, 8])
def test_folded_clos_counts_and_structure(ports):
    topo = clos(ports)
    h = ports // 2
    assert (topo.n_nodes, topo.n_terminals, topo.concentration) == (5 * ports ** 2 // 4, ports ** 3 // 4, h)
    assert topo.n_links // 2 == 2 * ports * h * h  # edge-agg plus agg-core links
    degree = topo.arrays.degree
    edges, aggs = ports * h, ports * h
    assert all(degree[:edges] == h) and all(degree[edges:edges + aggs] == ports) and all(degree[edges + aggs:] == ports)
    g = topo.to_networkx()
    assert nx.is_connected(g) and nx.diameter(g) == 4
    # each core switch has one link into every pod
    for core in range(edges + aggs, topo.n_nodes):
        pods = sorted((v - edges) // h for v in g[core])
        assert pods == list(range(ports))


@pytest.mark.parametrize("args,routers,terminals,links,diameter,bisection", [
    (("--topology", "fattree", "--k", "2", "--n", "3"), 12, 8, 16, 4, 4),
    (("--topology", "fattree", "--k", "4", "--n", "2"), 8, 16, 16, 2, 8),
    (("--topology", "clos", "--switch-ports", "4"), 20, 16, 32, 4, 8),
])
def test_topo_json_counts_terminals_on_the_leaves(args, routers, terminals, links, diameter, bisection):
    out = runner.invoke(app, ["topo", *args, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert (data["routers"], data["terminals"], data["links"], data["diameter"]) == (routers, terminals, links, diameter)
    # full bisection: half the terminals' worth of links (k^n / 2, K^3 / 8)
    assert data["bisection_width"] == bisection == terminals // 2 and data["bisection_exact"]


# -- up*/down*: legal, loop-free, minimal on the trees, deadlock-free --------------------------

def _assert_legal(topo, table, m):
    """Following any candidate from any destination router's router, a route never turns from
    down to up and reaches its destination in dist hops."""
    rank = ranks(topo)
    n, ports = topo.arrays.nbr.shape
    key = [(int(rank[u]), u) for u in range(n)]
    for d in range(m):
        for u in range(n):
            if table.dist[u, d] < 0:
                continue
            for p in range(ports):
                if not table.port_mask[d, u, p // 8] >> (p % 8) & 1:
                    continue
                v = int(topo.arrays.nbr[u, p])
                assert table.dist[v, d] == table.dist[u, d] - 1
                if key[v] > key[u]:  # a down hop: v only goes down
                    for q in range(ports):
                        if table.port_mask[d, v, q // 8] >> (q % 8) & 1:
                            w = int(topo.arrays.nbr[v, q])
                            assert key[w] > key[v], f"down -> up turn at {v} towards {d}"


@pytest.mark.parametrize("topo", [fattree(2, 3), fattree(3, 3), fattree(4, 2), clos(4), clos(6)])
def test_updown_on_trees_is_legal_and_minimal(topo):
    table = updown_table(topo)
    m = _leaves(topo)
    _assert_legal(topo, table, m)
    dist = dict(nx.all_pairs_shortest_path_length(topo.to_networkx()))
    assert all(table.dist[u, d] == dist[u][d] for u in range(topo.n_nodes) for d in range(m))
    # a leaf's candidates towards a leaf of another subtree: all of its up ports
    k = topo.concentration
    far = m - 1
    assert bin(int.from_bytes(table.port_mask[far, 0].tobytes(), "little")).count("1") == k


@pytest.mark.parametrize("cfg", [
    dict(topology="rrg", nodes=24, degree=3, graph_seed=3),
    dict(topology="torus", k=5),
    dict(topology="mesh", k=4, link_failures=4, fault_seed=2),
    dict(topology="debruijn", nodes=16),
])
def test_updown_on_any_graph_never_turns_down_then_up(cfg):
    topo = build_topology(Config(routing="updown", **cfg))
    table = build_updown_table(topo)
    assert (table.dist[~np.eye(topo.n_nodes, dtype=bool)] > 0).all()  # every pair routed
    _assert_legal(topo, table, topo.n_nodes)


@pytest.mark.parametrize("cfg", [
    dict(topology="fattree", k=3, n=3, vcs=1),
    dict(topology="clos", switch_ports=6, vcs=1),
    dict(topology="fattree", k=4, n=3, vcs=2, link_failures=6, fault_seed=1),
    dict(topology="rrg", nodes=32, degree=4, vcs=1),
    dict(topology="torus", k=6, vcs=1, link_failures=5),
])
def test_check_deadlock_proves_updown_acyclic(cfg):
    result = check_deadlock(Config(engine="flit", routing="updown", **cfg))
    assert result["deadlock_free"] and result["graph"] == "cdg", result


def test_check_deadlock_finds_a_cycle_with_one_vc_on_a_ring_as_a_control():
    # the walk that proves updown above finds the cycle where one exists
    result = check_deadlock(Config(engine="flit", topology="torus", k=8, routing="dor-nodateline", vcs=1))
    assert not result["deadlock_free"]


def test_faults_a_tree_cannot_route_around_are_refused():
    assert_refused(runner.invoke(app, ["run", "--topology", "fattree", "--k", "2", "--n", "3", "--link-failures", "4",
                                       "--fault-seed", "1"]),
                   ["--routing updown", "no up*/down* route", "--fault-seed"])


# -- the engine: against the plain reference, and whole runs -----------------------------------

def _tree_packets(topo, count, seed):
    rng = np.random.default_rng(seed)
    t = topo.n_terminals
    src = rng.integers(0, t, count)
    dst = (src + rng.integers(1, t, count)) % t
    release = np.sort(rng.integers(0, 80, count))
    length = rng.integers(1, 7, count)
    return FinitePackets(src.astype(np.int32), dst.astype(np.int32), length.astype(np.int32), release.astype(np.int64))


@pytest.mark.parametrize("router", ["lanes", "iq"])
@pytest.mark.parametrize("up_port", ["random", "dest-mod-k", "adaptive"])
@pytest.mark.parametrize("tree", [dict(topology="fattree", k=2, n=3), dict(topology="clos", switch_ports=4)])
def test_kernel_matches_reference_on_trees(router, up_port, tree):
    cfg = Config(router=router, routing="updown", up_port=up_port, vcs=2, buf=4, packet_flits=6,
                 check_invariants=True, **tree)
    topo = build_topology(cfg)
    packets = _tree_packets(topo, 60, seed=5)
    run, ours, ref = run_both(cfg, packets)
    for key, values in ours.items():
        assert np.array_equal(values, ref[key]), f"{key} differs from the reference"
    assert np.all(ours["tail_delivered"] >= 0)


def test_dest_mod_k_gives_each_destination_one_top_switch():
    # k-ary n-tree: a packet to terminal d climbs through up port (d // k^h) mod k at level h,
    # so every route to d crosses the same top switch, whatever its source
    cfg = Config(topology="fattree", k=2, n=3, routing="updown", up_port="dest-mod-k", vcs=1)
    topo = build_topology(cfg)
    from netsim_fast.flit import state as fs
    from netsim_fast.flit.route import candidate_rows
    from netsim_fast.flit.run import build_params

    params = build_params(cfg, topo, stop_mode=fs.STOP_ALL, win_start=0, win_end=1)
    mask = updown_table(topo).port_mask
    a, pkts, rows = topo.arrays, fs.new_packets(1), np.zeros((16, 4), np.int32)
    mid = np.zeros(1, np.int32)
    for d in range(8):
        tops = set()
        for s in range(8):
            if s // 4 == d // 4:
                continue  # the same half: the route turns below the top
            node, hops = s // 2, 0
            pkts[0].src, pkts[0].dst = s, d
            while node < 8:  # climb from the leaf (routers 0..3) to the top level (routers 8..11)
                pkts[0].hops = hops
                n = candidate_rows(params, a.radix, a.wrap, a.coord, a.dim_port, mask, node, pkts, mid, mid[:0], 0, rows)
                assert n == 1
                node, hops = int(a.nbr[node, rows[0, 0]]), hops + 1
            tops.add(node)
        assert tops == {8 + (d % 2) + 2 * ((d // 2) % 2)}  # the top switch whose word is d's low digits


@pytest.mark.parametrize("up_port", ["random", "dest-mod-k"])
def test_a_fat_tree_run_delivers_and_counts_terminals(up_port):
    s = simulate(Config(topology="fattree", k=2, n=3, routing="updown", up_port=up_port, rate=0.2, warmup=300,
                        measure=1500, seed=3))
    assert s["completed"] and not s["saturated"]
    assert s["offered_load"] == pytest.approx(0.2, abs=0.03)  # per terminal: 8 terminals, not 24 slots
    assert s["accepted_load"] == pytest.approx(s["offered_load"], rel=0.05)
    assert s["capacity"] == 1.0


def test_worst_case_shift_sends_every_packet_over_the_top():
    cfg = Config(topology="fattree", k=2, n=3, pattern="worst-case", rate=0.1, warmup=200, measure=800)
    s = simulate(cfg)
    assert s["hops_mean"] == pytest.approx(4.0)  # 2(n-1): up to the top and down again
    from netsim_fast.topologies.base import terminal_view
    from netsim_fast.workloads.synthetic import permutation

    topo = build_topology(cfg)
    assert list(permutation("worst-case", terminal_view(topo), 1)) == [(i + 4) % 8 for i in range(8)]
    clos_topo = build_topology(Config(topology="clos", switch_ports=4, pattern="worst-case"))
    assert list(permutation("worst-case", terminal_view(clos_topo), 1)) == [(i + 4) % 16 for i in range(16)]


def test_same_seed_same_json():
    cfg = Config(topology="clos", switch_ports=4, rate=0.3, warmup=200, measure=600, seed=9)

    def fixed(summary):  # timings differ from run to run
        return json.dumps({k: v for k, v in summary.items() if not k.endswith(("_seconds", "_per_second", "rss_mib"))},
                          sort_keys=True, default=str)

    assert fixed(simulate(cfg)) == fixed(simulate(cfg))


@pytest.mark.parametrize("args,words", [
    (("run", "--topology", "fattree", "--k", "2"), ["--n", "fattree"]),
    (("run", "--topology", "fattree", "--k", "2", "--n", "3", "--concentration", "2"), ["--concentration", "leaf"]),
    (("run", "--topology", "clos", "--switch-ports", "5"), ["--switch-ports", "5", "even"]),
    (("run", "--topology", "clos"), ["--switch-ports"]),
    (("run", "--topology", "torus", "--k", "4", "--switch-ports", "4"), ["--switch-ports", "does not apply"]),
    (("run", "--topology", "fattree", "--k", "2", "--n", "3", "--engine", "packet"), ["--topology", "packet engine"]),
    (("run", "--topology", "fattree", "--k", "2", "--n", "3", "--pattern", "random-te"), ["--topology", "finite"]),
    (("run", "--topology", "torus", "--k", "4", "--up-port", "dest-mod-k"), ["--up-port", "updown only"]),
    (("run", "--topology", "fattree", "--k", "2", "--n", "3", "--up-port", "dmodk"), ["--up-port", "dmodk"]),
    (("run", "--topology", "clos", "--switch-ports", "4", "--router", "booksim"), ["--router", "booksim", "clos"]),
    (("run", "--topology", "fattree", "--k", "2", "--n", "3", "--router", "booksim", "--routing", "min"), ["--routing", "min"]),
    (("run", "--topology", "torus", "--k", "4", "--routing", "updown", "--router", "booksim"), ["--routing", "updown", "lanes"]),
    (("run", "--topology", "torus", "--k", "4", "--pattern", "worst-case"), ["worst-case", "fattree"]),
])
def test_refusals(args, words):
    assert_refused(runner.invoke(app, list(args)), words)


# -- the booksim router: BookSim2's fattree with nca -------------------------------------------

def test_booksim_nca_goes_down_where_updown_does_and_up_at_random_elsewhere():
    from netsim_fast.flit.booksim.routefns import fattree_nca

    topo = fattree(3, 3)
    table = updown_table(topo)
    k, n, conc, ports = 3, 3, topo.concentration, topo.n_ports
    rng, out = np.array([88172645463325252], np.uint64), np.zeros(7, np.int64)
    for dst in range(topo.n_terminals):
        for node in range(topo.n_nodes):
            allowed = [p for p in range(ports) if table.port_mask[dst // conc, node, p // 8] >> (p % 8) & 1]
            seen = set()
            for _ in range(30):
                fattree_nca(node, dst, ports, conc, k, n, 4, rng, out)
                seen.add(int(out[0]))
                assert (out[1], out[2]) == (0, 3)
            if node == dst // conc:
                assert seen == {ports - conc + dst % conc}
            elif allowed[0] < k:  # updown goes down: the one down port
                assert seen == set(allowed)
            else:  # up: every up port, at random
                assert seen == set(allowed) == set(range(k, 2 * k))


def test_booksim_router_on_a_fat_tree_delivers_with_booksim2s_zero_load_latency():
    # 2-ary 2-tree: two terminals of one leaf are 0 links apart, of two leaves 2 (up and down)
    s = simulate(Config(topology="fattree", k=2, n=2, router="booksim", rate=0.02, packet_flits=1, warmup=200,
                        measure=3000, seed=2))
    assert s["completed"] and not s["saturated"] and s["hops_mean"] > 0
    assert s["booksim_stats"]["packet_latency"]["minimum"] == 7  # a packet within its leaf (BookSim2: 7 + L - 1)


def test_booksim_config_maps_fattree_nca(tmp_path):
    from netsim_fast.config.booksim_import import booksim_config_fields

    path = tmp_path / "ft.cfg"
    path.write_text("topology = fattree; k = 4; n = 3; routing_function = nca;\n")
    fields = booksim_config_fields(path)
    assert (fields["topology"], fields["k"], fields["n"], fields["routing"]) == ("fattree", 4, 3, "nca")
    Config(**fields)  # a valid run
    path.write_text("topology = fattree; k = 4; n = 3; routing_function = anca;\n")
    with pytest.raises(Exception, match="routing_function"):
        booksim_config_fields(path)


def test_booksim_example_fattree_config_maps_onto_the_4_ary_3_tree():
    from netsim_fast.config.booksim_import import booksim_config_fields

    fields = booksim_config_fields("tests/booksim_cases/example_fattree.cfg")
    cfg = Config(**fields)
    assert (cfg.topology, cfg.k, cfg.n, cfg.routing, cfg.router) == ("fattree", 4, 3, "nca", "booksim")
    assert (cfg.vcs, cfg.buf, cfg.pattern, cfg.rate, cfg.n_terminals) == (4, 16, "uniform-self", 0.6, 64)


def test_tree_bisection_halves_the_terminals():
    # T/2 links, exact, without a search: 512 for the 1024-terminal Clos (its switches' balanced
    # cut, which networkx's Kernighan-Lin would look for, is another question)
    from netsim_fast.topologies.metrics import bisection

    assert bisection(clos(16)) == (512, True)
    assert bisection(fattree(4, 3)) == (32, True)
    # an odd terminal count cannot be halved: the switches' bisection (brute force, 6 switches)
    assert bisection(fattree(3, 2))[1]
