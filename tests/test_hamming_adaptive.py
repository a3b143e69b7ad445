"""Minimal adaptive routing on the Hamming graphs: dim-adaptive and min-adaptive on HyperX (with
parallel links, --widths) and the flattened butterfly (routing/hamming_adaptive.py)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from _refusals import assert_refused
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.experiment import simulate
from netsim_fast.topologies import build_topology

HYPERX = dict(topology="hyperx", dims=(3, 2, 3), widths=(2, 1, 3))  # 18 routers, degree 2*2 + 1 + 2*3 = 11
ARGS = ["--topology", "hyperx", "--dims", "4,4", "--widths", "2,2", "--concentration", "4"]


def _rows(routing, table, n, vcs, cur, dst):
    from netsim_fast.routing import ADAPTIVE_ROUTINGS
    from netsim_fast.routing.hamming_adaptive import adaptive_next_hops

    out = np.zeros((64, 4), np.int32)
    k = adaptive_next_hops(ADAPTIVE_ROUTINGS[routing], table, n, vcs, cur, dst, out)
    return [tuple(int(x) for x in row) for row in out[:k]]


@pytest.mark.nojit
def test_rows_by_hand_on_a_3x2x3_hyperx_with_parallel_links():
    from netsim_fast.routing.hamming_adaptive import adaptive_table

    topo = build_topology(Config(**HYPERX))
    table = adaptive_table(topo)
    # ports: dimension 0 (other coordinates ascending, 2 links each) 0-1 -> c0+1.., 2-3; dimension 1: 4;
    # dimension 2: 5-7 and 8-10. Router id = c0 + 3 c1 + 6 c2; (0,0,0) -> (2,1,1) = 2 + 3 + 6 = 11
    assert _rows("dim-adaptive", table, 18, 4, 0, 11) == [(2, 0, 3, 0), (3, 0, 3, 0)]
    assert _rows("min-adaptive", table, 18, 4, 0, 11) == [
        (2, 1, 3, 0), (3, 1, 3, 0), (4, 1, 3, 0), (5, 1, 3, 0), (6, 1, 3, 0), (7, 1, 3, 0),
        (2, 0, 0, 1), (3, 0, 0, 1)]
    # aligned in dimension 0: dimension 2's three links to c2 = 2 (ports 8-10) from (0,0,0) to (0,0,2)
    assert _rows("dim-adaptive", table, 18, 1, 0, 12) == [(8, 0, 0, 0), (9, 0, 0, 0), (10, 0, 0, 0)]
    nbr = topo.arrays.nbr
    assert set(nbr[0, 8:11]) == {12} and set(nbr[0, 2:4]) == {2}


@pytest.mark.parametrize("routing, graph", [("dim-adaptive", "cdg"), ("min-adaptive", "extended")])
def test_check_deadlock_proves_the_vc_budget_enough(routing, graph):
    from netsim_fast.deadlock_check import check_deadlock

    vcs = 1 if routing == "dim-adaptive" else 2
    for net in (HYPERX, dict(topology="flatfly", k=4, n=2)):
        out = check_deadlock(Config(**net, routing=routing, vcs=vcs))
        assert out["deadlock_free"] and out["graph"] == graph and out["cycle"] is None
        links = 18 * 11 if net is HYPERX else 16 * 6
        assert out["channels"] == links  # dim-adaptive: every link on its one VC; min-adaptive: the escape VC 0
        if graph == "extended":
            assert out["escape_vcs"] == [0] and out["cross_channels"] == 0
    res = CliRunner().invoke(app, ["check-deadlock", *ARGS[:6], "--routing", routing, "--vcs", str(vcs)])
    assert res.exit_code == 0 and "acyclic" in res.output


def test_check_deadlock_against_a_networkx_graph_of_every_route():
    """dim-adaptive's dependencies are those of every route with every choice of parallel link
    (1 VC); the same links taken in any unaligned dimension (minimal adaptive without an escape
    VC) close a cycle, which is why min-adaptive needs its escape VC."""
    import networkx as nx

    from netsim_fast.deadlock_check import check_deadlock
    from netsim_fast.routing.hamming_adaptive import adaptive_table

    topo = build_topology(Config(**HYPERX))
    table, nbr, n = adaptive_table(topo), topo.arrays.nbr, 18
    ordered, anyway = nx.DiGraph(), nx.DiGraph()
    for routing, graph in (("dim-adaptive", ordered), ("min-adaptive", anyway)):
        for d in range(n):
            for u in range(n):
                if u == d:
                    continue
                for port, *_ in (r for r in _rows(routing, table, n, 2, u, d) if r[3] == 0):
                    v = int(nbr[u, port])
                    if v == d:
                        continue
                    for port2, *_ in (r for r in _rows(routing, table, n, 2, v, d) if r[3] == 0):
                        graph.add_edge((u, port), (v, port2))
    out = check_deadlock(Config(**HYPERX, routing="dim-adaptive", vcs=1))
    assert nx.is_directed_acyclic_graph(ordered) and out["dependencies"] == ordered.number_of_edges()
    assert not nx.is_directed_acyclic_graph(anyway)


def test_adaptive_routings_use_the_parallel_links_and_keep_up_with_minimal():
    base = dict(topology="hyperx", dims=(4, 4), widths=(2, 2), concentration=4, warmup=300, measure=1500, seed=3,
                vcs=4, check_invariants=True)
    # worst-case: a router's 4 terminals send over its 2 links to the next router; one link would take 0.25
    res = {r: simulate(Config(**base, routing=r, pattern="worst-case", rate=0.4))
           for r in ("minimal", "dim-adaptive", "min-adaptive", "valiant")}
    for routing in ("minimal", "dim-adaptive", "min-adaptive"):
        assert not res[routing]["saturated"] and res[routing]["accepted_load"] > 0.38, routing
        assert res[routing]["hops_mean"] == res["minimal"]["hops_mean"]  # minimal routes: same hops
    first = simulate(Config(**base, routing="min-adaptive", pattern="uniform", rate=0.5))
    again = simulate(Config(**base, routing="min-adaptive", pattern="uniform", rate=0.5))
    assert first["latency_mean"] == again["latency_mean"] and first["accepted_load"] > 0.48


@pytest.mark.parametrize("args, words", [
    (["--routing", "min-adaptive", "--vcs", "1"], ["--vcs 1", "min-adaptive", "escape", "--vcs 2"]),
    (["--routing", "dim-adaptive", "--router", "booksim"], ["dim-adaptive", "lanes or iq"]),
    (["--routing", "min-adaptive", "--link-failures", "2"], ["min-adaptive", "--link-failures 2"]),
    (["--widths", "2,0"], ["--widths 2,0", "1..16"]),
])
def test_refusals(args, words):
    argv = ["run", *ARGS, "--pattern", "uniform", "--rate", "0.1", *args]
    if args[0] == "--widths":
        argv = ["run", "--topology", "hyperx", "--dims", "4,4", *args]
    assert_refused(CliRunner().invoke(app, argv), words)


def test_refused_off_the_hamming_graphs():
    res = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "4", "--routing", "dim-adaptive"])
    assert_refused(res, ["dim-adaptive", "hyperx"])
