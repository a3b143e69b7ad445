"""check-deadlock: the channel dependency graph of every flit-engine routing, against a plain
Python enumeration of every route (tests/reference/cdg_naive.py) and networkx."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.deadlock_check import analyse, check_deadlock, routing_setup
from netsim_fast.deadlock_check.cycles import csr, find_cycle
from tests.reference.cdg_naive import grid_rows, naive_graphs, table_rows

runner = CliRunner()


def _fast(cfg):
    s = routing_setup(cfg)
    res = analyse(s["topo"].arrays, s["params"], s["route_mask"], per_pair=s["per_pair"], levels=s["levels"],
                  hops_matter=s["hops_matter"], esc_prio=s["esc_prio"], with_edges=True)
    return s, res


def _naive(cfg, s):
    topo, params = s["topo"], s["params"]
    if cfg.routing in ("dor", "dor-nodateline", "duato"):
        def rows(cur, src, dst, hops):
            return grid_rows(topo, cfg.routing, cfg.vcs, cur, src, dst)
    else:
        def rows(cur, src, dst, hops):
            return table_rows(s["route_mask"], params.class_vcs, cur, dst, hops)
    return naive_graphs(topo, rows, cfg.vcs, inject=cfg.inject_vcs, esc_prio=s["esc_prio"])


def _acyclic(edges) -> bool:
    g = nx.DiGraph()
    g.add_edges_from(edges)
    return nx.is_directed_acyclic_graph(g)


GRID_CASES = [
    dict(topology="torus", k=5, routing="dor"),
    dict(topology="torus", dims="4,3", routing="dor", vcs=2),
    dict(topology="torus", dims="5,4", routing="dor", vcs=4, inject_vcs="1,2"),
    dict(topology="mesh", k=4, routing="dor", vcs=1),
    dict(topology="hypercube", n=3, routing="dor", vcs=1),
    dict(topology="torus", k=5, routing="dor-nodateline", vcs=1),
    dict(topology="mesh", dims="4,3", routing="dor-nodateline", vcs=2),
    dict(topology="torus", dims="2,4", routing="dor-nodateline", vcs=1),
    dict(topology="mesh", k=4, routing="dor", vcs=1, concentration=2),  # several terminals per router
    dict(topology="torus", k=4, routing="dor", vcs=2, concentration=3),
    dict(topology="torus", k=5, routing="dor-nodateline", vcs=1, concentration=2),
]
DUATO_CASES = [
    dict(topology="torus", k=4, routing="duato"),
    dict(topology="torus", dims="5,3", routing="duato", vcs=3),
    dict(topology="torus", k=4, routing="duato", inject_vcs="0,1"),
    dict(topology="mesh", k=4, routing="duato", vcs=2),
    dict(topology="hypercube", n=3, routing="duato", vcs=3),
    dict(topology="torus", dims="2,2,3", routing="duato"),
    dict(topology="mesh", k=4, routing="duato", vcs=2, concentration=2),
]
TABLE_CASES = [
    dict(topology="rrg", nodes=12, degree=3, routing="minimal", vcs=4),
    dict(topology="circulant", nodes=11, jumps="1,3", routing="minimal", vcs=3),
    dict(topology="debruijn", nodes=8, routing="minimal", vcs=3),
    dict(topology="complete", nodes=5, routing="minimal", vcs=1),
    dict(topology="bmg", nodes=16, routing="bmg-cbe", vcs=4),
    dict(topology="bmg", nodes=12, routing="bmg-equiclass", vcs=6),
    dict(topology="bmg", nodes=16, routing="chord", vcs=8),
    dict(topology="torus", k=4, routing="minimal", vcs=4),
    dict(topology="torus", k=4, routing="minimal", vcs=4, concentration=2),
]


@pytest.mark.parametrize("kw", GRID_CASES + TABLE_CASES, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_channel_dependency_graph_matches_every_route_enumerated(kw):
    cfg = Config(**kw)
    s, res = _fast(cfg)
    cdg, roles, _, _ = _naive(cfg, s)
    assert res["graph"] == "cdg"
    assert res["edges"] == cdg
    assert res["channels"] == len(roles)
    assert res["deadlock_free"] == _acyclic(cdg)


@pytest.mark.parametrize("kw", DUATO_CASES, ids=lambda kw: "-".join(str(v) for v in kw.values()))
@pytest.mark.parametrize("realloc", ["auto", "eager"])
def test_duato_extended_graph_matches_every_route_enumerated(kw, realloc):
    cfg = Config(**kw, vc_realloc=realloc)
    s, res = _fast(cfg)
    _, roles, extended, eager = _naive(cfg, s)
    if realloc == "auto":
        assert res["graph"] == "extended"
        assert res["edges"] == extended
        assert res["channels"] == sum("escape" in r for r in roles.values())
        assert res["deadlock_free"] and _acyclic(extended)
    else:
        assert res["graph"] == "extended-eager"
        assert res["edges"] == eager


@pytest.mark.parametrize("kw", GRID_CASES[:3] + DUATO_CASES[:2] + TABLE_CASES[:2] + TABLE_CASES[4:5],
                         ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_every_deadlock_free_routing_passes(kw):
    result = check_deadlock(Config(**kw))
    assert result["deadlock_free"] and result["cycle"] is None and result["error"] is None


def test_minimal_on_an_edge_list_passes_and_matches_every_route(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n0 3\n")
    cfg = Config(topology="edgelist", file=str(path), routing="minimal", vcs=3)
    s, res = _fast(cfg)
    cdg, _, _, _ = _naive(cfg, s)
    assert res["deadlock_free"] and res["edges"] == cdg


def _shortest_routes_cdg(topo, V: int, out_ports: int) -> nx.DiGraph:
    """The channel dependency graph, with networkx, of every shortest route from a router that
    holds terminals to the ejection router of another (``t // C + eject_shift``), over the
    links of ports ``0 .. out_ports-1``, every VC at every hop: up*/down* with any up port on a
    tree (its routes are the shortest leaf-to-leaf paths), destination tag on the butterfly (the
    only forward path). Channels are (router, port, vc) of network ports only."""
    nbr = topo.arrays.nbr
    links = nx.MultiDiGraph()
    for u in range(topo.n_nodes):
        for port in range(out_ports):
            if nbr[u, port] >= 0:
                links.add_edge(u, int(nbr[u, port]), port=port)
    simple = nx.DiGraph(links)
    ends = -(-topo.n_terminals // topo.concentration)
    cdg = nx.DiGraph()
    for src in range(ends):
        for dst in range(ends):
            if src == dst + topo.eject_shift:
                continue
            for path in nx.all_shortest_paths(simple, src, dst + topo.eject_shift):
                hops = [[(u, e["port"]) for e in links[u][w].values()] for u, w in zip(path, path[1:])]
                for here, there in zip(hops, hops[1:]):
                    cdg.add_edges_from(((u, p, v), (w, q, x)) for u, p in here for w, q in there
                                       for v in range(V) for x in range(V))
    return cdg


@pytest.mark.parametrize("kw, out_ports", [
    (dict(topology="fattree", k=2, n=3, vcs=1), 4),
    (dict(topology="fattree", k=3, n=3, vcs=2), 6),
    (dict(topology="clos", switch_ports=4, vcs=1), 4),
    (dict(topology="fly", k=2, n=3, vcs=1), 2),
    (dict(topology="fly", k=3, n=3, vcs=2), 3),
], ids=lambda x: "-".join(str(v) for v in x.values()) if isinstance(x, dict) else str(x))
def test_routers_with_several_terminals_count_network_channels_only(kw, out_ports):
    # every one of a router's C local ports is a terminal's: a request to eject (at port
    # n_ports - C + t % C, not only the last port) is no channel dependency
    cfg = Config(**kw)
    s = routing_setup(cfg)
    topo = s["topo"]
    assert topo.concentration > 1
    res = analyse(topo.arrays, s["params"], s["route_mask"], per_pair=s["per_pair"], levels=s["levels"],
                  hops_matter=s["hops_matter"], esc_prio=s["esc_prio"], with_edges=True,
                  destinations=s["destinations"])
    P, V = topo.n_ports, cfg.vcs
    chan = lambda c: (c // (P * V), c // V % P, c % V)  # noqa: E731
    oracle = _shortest_routes_cdg(topo, V, out_ports)
    assert {(chan(a), chan(b)) for a, b in res["edges"]} == set(oracle.edges)
    verdict = check_deadlock(cfg)
    assert verdict["dependencies"] == oracle.number_of_edges() and verdict["deadlock_free"]
    assert verdict["channels"] == oracle.number_of_nodes()  # every channel some route takes


def test_concentration_leaves_a_mesh_graph_as_with_one_terminal_per_router():
    # the network channels and their dependencies do not depend on how many terminals a router
    # has; 68 dependencies with one terminal per router, as before the local ports were fixed
    graphs = {}
    for conc in (1, 2, 4):
        s, res = _fast(Config(topology="mesh", k=4, routing="dor", vcs=1, concentration=conc))
        P = s["topo"].n_ports
        graphs[conc] = (res["channels"], res["dependencies"], {(a // P, a % P, b // P, b % P) for a, b in res["edges"]})
    assert graphs[1][:2] == (48, 68)
    assert graphs[2] == graphs[1] and graphs[4] == graphs[1]


def test_dor_nodateline_on_a_torus_has_a_cycle_around_a_ring():
    result = check_deadlock(Config(topology="torus", k=5, routing="dor-nodateline"))
    assert not result["deadlock_free"]
    cycle = result["cycle"]
    assert len(cycle) == 5 and len({c["router"] for c in cycle}) == 5
    for here, there in zip(cycle, cycle[1:] + cycle[:1]):
        assert here["to"] == there["router"]  # a closed walk over links


def test_dor_nodateline_on_small_rings_is_acyclic_by_the_tie_rule():
    # radix 3 and 4: minimal routes cross at most two links of a ring and the k/2 tie rule
    # (+ from even, - from odd) never chains them all the way round
    for k in (3, 4):
        assert check_deadlock(Config(topology="torus", k=k, routing="dor-nodateline"))["deadlock_free"]
    assert check_deadlock(Config(topology="mesh", k=6, routing="dor-nodateline", vcs=1))["deadlock_free"]


def test_eager_adaptive_vcs_break_duato_and_atomic_ones_keep_it():
    for realloc, free in (("auto", True), ("atomic", True), ("eager", False)):
        result = check_deadlock(Config(topology="torus", k=6, routing="duato", vc_realloc=realloc))
        assert result["deadlock_free"] is free
    cycle = result["cycle"]
    assert "escape" in [c["role"] for c in cycle] and "adaptive" in [c["role"] for c in cycle]


def test_hand_built_ring_routing_with_a_known_cycle_is_caught():
    from netsim_fast.topologies import build_topology

    cfg = Config(topology="ring", nodes=4, routing="minimal", vcs=2)
    s = routing_setup(cfg)
    topo = s["topo"]
    n, P = topo.arrays.nbr.shape
    clockwise = [int(np.nonzero(topo.arrays.nbr[u] == (u + 1) % n)[0][0]) for u in range(n)]
    rows = np.zeros((n, n, 4, 4), np.int32)
    counts = np.zeros((n, n), np.int32)
    for dst in range(n):
        for u in range(n):
            if u != dst:  # always clockwise, on VC 0: the ring's four channels wait on each other
                rows[dst, u, 0] = (clockwise[u], 0, 0, 0)
                counts[dst, u] = 1
    res = analyse(topo.arrays, s["params"], s["route_mask"], per_pair=False, levels=2, hops_matter=False,
                  esc_prio=0, custom_rows=rows, custom_n=counts)
    assert not res["deadlock_free"]
    assert sorted(c // (P * 2) for c in res["cycle"]) == [0, 1, 2, 3]
    # the same ring with a dateline (VC 1 from the link 3 -> 0 on) is acyclic
    for dst in range(n):
        for u in range(n):
            if u != dst and u > dst:
                rows[dst, u, 0, 1:3] = 1
    assert analyse(topo.arrays, s["params"], s["route_mask"], per_pair=False, levels=2, hops_matter=False,
                   esc_prio=0, custom_rows=rows, custom_n=counts)["deadlock_free"]
    assert build_topology(cfg).n_nodes == 4


def _xy_yx_duato(topo, yx_destinations):
    """Minimal adaptive rows on VC 1 (priority 0) and an escape row on VC 0 (priority 1) in
    dimension order XY, or YX for the destinations in ``yx_destinations``."""
    a = topo.arrays
    n = a.nbr.shape[0]
    rows, counts = np.zeros((n, n, 8, 4), np.int32), np.zeros((n, n), np.int32)
    for dst in range(n):
        for u in range(n):
            if u == dst:
                continue
            dirs = {d: 0 if a.coord[dst, d] > a.coord[u, d] else 1 for d in range(2) if a.coord[u, d] != a.coord[dst, d]}
            out = [(a.dim_port[d, w], 1, 1, 0) for d, w in dirs.items()]
            d = next(d for d in ((1, 0) if dst in yx_destinations else (0, 1)) if d in dirs)
            out.append((a.dim_port[d, dirs[d]], 0, 0, 1))
            rows[dst, u, : len(out)] = out
            counts[dst, u] = len(out)
    return rows, counts


def test_an_indirect_dependency_cycle_is_caught_where_the_escape_paths_alone_are_acyclic():
    # 3x3 mesh: escape XY, but YX towards the bottom row; escape packets alone never close a
    # cycle, but a packet that holds an escape channel, moves on adaptive channels and asks for
    # an escape channel again does (Duato's indirect dependencies)
    cfg = Config(topology="mesh", k=3, routing="duato", vcs=2)
    s = routing_setup(cfg)
    topo = s["topo"]
    rows, counts = _xy_yx_duato(topo, {0, 1, 2})
    walk = dict(per_pair=False, levels=2, hops_matter=False)
    escape_only = rows.copy()
    escape_only[..., 3] = 0
    keep = rows[..., 3] == 1
    escape_rows, escape_n = np.zeros_like(rows), keep.sum(axis=2).astype(np.int32)
    for dst, u in zip(*np.nonzero(escape_n)):
        escape_rows[dst, u, 0] = escape_only[dst, u][keep[dst, u]][0]
    plain = analyse(topo.arrays, s["params"], s["route_mask"], esc_prio=0, custom_rows=escape_rows,
                    custom_n=escape_n, **walk)
    assert plain["deadlock_free"]
    res = analyse(topo.arrays, s["params"], s["route_mask"], esc_prio=1, custom_rows=rows, custom_n=counts,
                  with_edges=True, **walk)
    assert res["graph"] == "extended" and not res["deadlock_free"]

    def listed(cur, src, dst, hops):
        return [tuple(int(x) for x in r) for r in rows[dst, cur, : counts[dst, cur]]]

    _, _, extended, _ = naive_graphs(topo, listed, 2, esc_prio=1)
    assert res["edges"] == extended and not _acyclic(extended)
    assert all(res["cycle"][i] in {e[0] for e in extended} for i in range(len(res["cycle"])))


def test_grid_rows_ignore_the_source_without_datelines():
    # the walk merges sources per destination on meshes and hypercubes (explore.py): the rows
    # of grid_next_hops must not depend on the source there
    for kw in (dict(topology="mesh", dims="4,3", routing="duato"), dict(topology="hypercube", n=3, routing="dor")):
        cfg = Config(**kw)
        s = routing_setup(cfg)
        assert not s["per_pair"]
        from netsim_fast.deadlock_check.explore import _rows_at
        from netsim_fast.flit import state as fs

        a, pk = s["topo"].arrays, fs.new_packets(1)
        empty_rows, empty_n = np.zeros((0, 0, 0, 4), np.int32), np.zeros((0, 0), np.int32)
        n = a.nbr.shape[0]
        for cur in range(n):
            for dst in range(n):
                seen = set()
                for src in range(n):
                    out = np.zeros((64, 4), np.int32)
                    k = _rows_at(s["params"], a.radix, a.wrap, a.coord, a.dim_port, s["route_mask"], empty_rows,
                                 empty_n, pk, np.full(1, -1, np.int32), cur, src, dst, 1, out)
                    seen.add(out[:k].tobytes())
                assert len(seen) == 1


@pytest.mark.parametrize("seed", range(30))
def test_find_cycle_agrees_with_networkx(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    m = int(rng.integers(0, 2 * n + 1))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    indptr, indices = csr(n, src, dst)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(src.tolist(), dst.tolist()))
    cycle = find_cycle(n, indptr, indices)
    assert (cycle is None) == nx.is_directed_acyclic_graph(g)
    if cycle is not None:
        assert all(g.has_edge(u, v) for u, v in zip(cycle, cycle[1:] + cycle[:1]))
    through = rng.random(n) < 0.3
    cycle = find_cycle(n, indptr, indices, through=through)
    on_cycles = {v for c in nx.strongly_connected_components(g) if len(c) > 1 for v in c} | set(nx.nodes_with_selfloops(g))
    assert (cycle is None) == (not any(through[v] for v in on_cycles))


def test_cli_prints_the_verdict_and_exits_0_or_1():
    ok = runner.invoke(app, ["check-deadlock", "--topology", "torus", "--k", "4", "--routing", "duato"])
    assert ok.exit_code == 0, ok.output
    assert "deadlock-free: Duato's extended channel dependency graph of" in ok.output
    assert "escape sub-function" in ok.output
    bad = runner.invoke(app, ["check-deadlock", "--topology", "torus", "--k", "5", "--routing", "dor-nodateline"])
    assert bad.exit_code == 1
    assert "NOT deadlock-free" in bad.output and "(0, 0, 0) -> 1" in bad.output
    out = runner.invoke(app, ["check-deadlock", "--topology", "rrg", "--nodes", "16", "--degree", "3", "--vcs", "6", "--json"])
    data = json.loads(out.output)
    assert out.exit_code == 0 and data["deadlock_free"] is True and data["cycle"] is None
    assert {"channels", "dependencies", "graph"} <= set(data)


def test_cli_bad_input_is_one_line_and_exit_2():
    for args in (["--topology", "rrg", "--nodes", "64", "--degree", "4", "--vcs", "2"],
                 ["--topology", "torus", "--k", "4", "--routing", "dor", "--vcs", "3"],
                 ["--topology", "rrg", "--nodes", "16", "--degree", "3", "--routing", "duato"]):
        res = runner.invoke(app, ["check-deadlock", *args])
        assert res.exit_code == 2, res.output
        assert res.output.count("error:") == 1


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(topology="torus", k=16, routing="duato"), dict(topology="torus", k=16, routing="dor"),
                                dict(topology="rrg", nodes=1024, degree=8, routing="minimal", vcs=8),
                                dict(topology="bmg", nodes=1024, routing="bmg-cbe", vcs=16)])
def test_big_networks_pass_in_seconds(kw):
    result = check_deadlock(Config(**kw))
    assert result["deadlock_free"]
    assert result["seconds"] < 30


def test_cli_checks_a_concentrated_network():
    import json

    args = ["check-deadlock", "--topology", "mesh", "--k", "4", "--routing", "dor", "--vcs", "2", "--json", "--quiet"]
    one = runner.invoke(app, args)
    four = runner.invoke(app, args + ["--concentration", "4"])
    assert one.exit_code == 0 and four.exit_code == 0, four.output
    a, b = json.loads(one.output), json.loads(four.output)
    assert (b["channels"], b["dependencies"], b["deadlock_free"]) == (a["channels"], a["dependencies"], True)
    bad = runner.invoke(app, args + ["--concentration", "0"])
    assert bad.exit_code == 2
