"""BookSim2's anynet (topologies/anynet.py) with its ``min`` on the booksim router.

The reader against good and bad files, the next-hop table (routing/anynet_min.py) against a
plain restatement of BookSim2's search (tests/reference/anynet_naive.py), single packets by
hand (uneven terminals, latencies that differ by direction), a loaded run whose every packet
takes the table's path, determinism, and the refusals.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from netsim_fast import Config, simulate
from netsim_fast.cli import app
from netsim_fast.errors import ConfigError
from netsim_fast.flit.run import run_flit
from netsim_fast.routing.anynet_min import first_hops, min_table
from netsim_fast.topologies import build_topology
from netsim_fast.topologies.anynet import anynet_topology, parse_anynet, terminal_ports
from tests._refusals import assert_refused
from tests.reference.anynet_naive import naive_first_hop
from tests.test_concentration import one_packet

CASES = Path(__file__).resolve().parent / "booksim_cases"
# terminal 2 on router 0, terminals 0 and 3 on router 1, terminal 1 on router 2; the channel
# 0 -> 1 takes 3 cycles, 1 -> 0 and both ways between 1 and 2 take 1
SMALL = "router 0 node 2 router 1 3\nrouter 1 node 0 node 3 router 2\nrouter 2 node 1\n"


def write(tmp_path, text: str, name: str = "net.any") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_reader_keeps_uneven_terminals_and_latencies_by_direction():
    net = parse_anynet(SMALL)
    assert net.routers == 3 and net.node_router.tolist() == [1, 2, 0, 1]
    assert net.latency == {(0, 1): 3, (1, 0): 1, (1, 2): 1, (2, 1): 1}
    # naming a channel again without a latency sets it back to 1, as BookSim2's reader does
    assert parse_anynet("router 0 node 0 router 1 5\nrouter 1 node 1\nrouter 0 router 1\n").latency[(0, 1)] == 1
    assert parse_anynet("router 0 node 0 router 1 5\nrouter 1 node 1 router 0\n").latency == {(0, 1): 5, (1, 0): 1}


def test_the_topology_puts_each_routers_terminals_ascending_on_its_last_ports(tmp_path):
    topo = build_topology(Config(topology="edgelist", file=write(tmp_path, SMALL), router="booksim"))
    assert (topo.n_nodes, topo.n_terminals, topo.concentration, topo.n_ports) == (3, 4, 2, 4)
    assert topo.nbr[:, :2].tolist() == [[1, -1], [0, 2], [1, -1]]  # neighbours ascending
    assert terminal_ports(topo).tolist() == [2, 2, 2, 3]  # terminal 3 is router 1's second
    assert topo.link_latency[0, 0] == 3 and topo.link_latency[1, 0] == 1


@pytest.mark.parametrize("text,words", [
    ("router 0 node 0 node 1 5\nrouter 1 node 2 router 0\n", ["line 1", "latency '5' after node 1", "router 1"]),
    ("node 0 router 0\n", ["line 1", "starts with 'node'"]),
    ("router 0 node 0 router 1\n// a comment\n", ["line 2", "'//'"]),
    ("router 0 node 0 router 1\nrouter 1 node 0\n", ["line 2", "node 0", "line 1"]),
    ("router 0 node 0 router 0\n", ["line 1", "to itself"]),
    ("router 0 node 0 router 1 2 3\nrouter 1 node 1\n", ["line 1", "second latency"]),
    ("router 0 node 0 router 1 0\nrouter 1 node 1\n", ["line 1", "latency 0"]),
    ("router 0 node 0 router x\n", ["line 1", "'x'"]),
    ("router 0 node 0 router\n", ["line 1", "no id"]),
    ("router 0 node 0 7\n", ["line 1", "latency '7' after node 0"]),
    ("router 0 node 0 router 2\nrouter 2 node 1\n", ["router 1", "without gaps"]),
    ("router 0 node 0 node 2 router 1\nrouter 1\n", ["node 1", "without gaps"]),
    ("router 0 node 0 router 1\nrouter 1 node 1\nrouter 2 node 2 router 3\nrouter 3\n", ["router 2", "reached"]),
    ("router 0 router 1\nrouter 1\n", ["0 terminal(s)"]),
    ("router 0 node 0 router 1\nrouter 1\n", ["1 terminal(s)"]),
    ("router 0\tnode 0\n", ["line 1", "tab"]),
])
def test_bad_files_are_refused_naming_the_line_and_the_problem(text, words):
    with pytest.raises(ConfigError) as err:
        parse_anynet(text)
    message = str(err.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


def _random_net(rng: random.Random, routers: int):
    """A connected random network: a spanning tree plus chords, random latencies each way."""
    latency = {}
    for r in range(1, routers):
        other = rng.randrange(r)
        latency[(r, other)], latency[(other, r)] = rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2, 3])
    for _ in range(routers):
        a, b = rng.sample(range(routers), 2)
        latency[(a, b)], latency[(b, a)] = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    lines = [f"router {r} node {r}" + "".join(f" router {s} {cycles}" for (u, s), cycles in sorted(latency.items())
                                               if u == r) for r in range(routers)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("source", ["anynet_file", "anynet_irregular.net", "random-1", "random-2", "random-3"])
def test_the_next_hops_are_bookSim2s_search_with_its_ties(source):
    if source.startswith("random"):
        text = _random_net(random.Random(int(source[-1])), 9)
    else:
        text = (CASES / source).read_text()
    net = parse_anynet(text)
    topo = anynet_topology(net, {})
    hops = first_hops(topo.nbr, topo.link_latency, topo.first_local)
    want = naive_first_hop(net.latency, net.routers)
    got = {(s, d): int(topo.nbr[s, hops[s, d]]) for s in range(net.routers) for d in range(net.routers) if s != d}
    assert got == want
    table = min_table(topo, terminal_ports(topo)).reshape(net.routers, -1)
    for t, router in enumerate(net.node_router):
        assert table[router, t] == terminal_ports(topo)[t]  # at its own router: the terminal's port
        for r in range(net.routers):
            if r != router:
                assert table[r, t] == hops[r, router]


def test_the_irregular_case_has_ties_the_rule_decides():
    """Router 3 reaches router 5 in 2 cycles directly or through router 4: the direct channel is
    set first (router 3 is taken first) and router 4, taken later, does not replace it."""
    topo = anynet_topology(parse_anynet((CASES / "anynet_irregular.net").read_text()), {})
    hops = first_hops(topo.nbr, topo.link_latency, topo.first_local)
    assert topo.nbr[3, hops[3, 5]] == 5
    assert topo.nbr[0, hops[0, 4]] == 2  # 0 -> 2 -> 4, 0 -> 5 -> 4 and 0 -> 1 -> 3 -> 4 all take 3


BK = dict(router="booksim", vcs=2)


def test_single_packets_by_hand_take_each_directions_latency(tmp_path):
    # docs/booksim-router.md section 6: T = 4 + (H + 1) * 3 + the sum over the H links of (d + 1)
    kw = dict(topology="edgelist", file=write(tmp_path, SMALL), **BK)
    assert one_packet(2, 1, 1, **kw) == (4 + 3 * 3 + (3 + 1) + (1 + 1), 2)  # router 0 -> 1 -> 2
    assert one_packet(1, 2, 1, **kw) == (4 + 3 * 3 + (1 + 1) + (1 + 1), 2)  # router 2 -> 1 -> 0
    assert one_packet(0, 3, 1, **kw) == (4 + 3, 0)  # two terminals of router 1
    assert one_packet(3, 2, 1, **kw) == (4 + 2 * 3 + (1 + 1), 1)


def test_a_plain_edge_list_runs_min_with_one_terminal_per_router(tmp_path):
    kw = dict(topology="edgelist", file=write(tmp_path, "0 1\n1 2\n2 3\n0 3\n", "ring.txt"), **BK)
    assert Config(**kw).routing == "min"
    assert one_packet(0, 2, 1, **kw) == (4 + 3 * 3 + 2 * 2, 2)  # two 1-cycle links either way round
    assert one_packet(1, 3, 1, **kw) == (4 + 3 * 3 + 2 * 2, 2)


def test_routers_without_terminals_leave_the_patterns_to_the_terminals(tmp_path):
    # one terminal per router at most, router 1 without any: the patterns pick among 2 terminals
    path = write(tmp_path, "router 0 node 1 router 1\nrouter 1 router 2\nrouter 2 node 0\n")
    cfg = Config(topology="edgelist", file=path, pattern="uniform", rate=0.2, warmup=100, measure=400, **BK)
    topo = build_topology(cfg)
    pk = run_flit(cfg, topo).packet_table()
    assert topo.concentration == 1 and topo.n_terminals == 2
    assert set(pk["src"].tolist()) == {0, 1} and np.all(pk["hops"][pk["tail_arrival_cycle"] >= 0] == 2)


def test_credits_return_with_the_latency_of_the_channel_they_credit(tmp_path):
    """A long packet through 2-flit buffers waits for credits; over the 3-cycle channel 0 -> 1
    its credits take 3 cycles too, whatever the channel 1 -> 0 takes."""
    slow_back = write(tmp_path, "router 0 node 0 router 1 3\nrouter 1 node 1 router 0 3\n", "a.any")
    fast_back = write(tmp_path, "router 0 node 0 router 1 3\nrouter 1 node 1\n", "b.any")
    same = [one_packet(0, 1, 16, topology="edgelist", file=f, buf=2, **BK) for f in (slow_back, fast_back)]
    assert same[0] == same[1]
    assert same[0][0] > one_packet(1, 0, 16, topology="edgelist", file=fast_back, buf=2, **BK)[0]


def _path_hops(topo):
    hops = first_hops(topo.nbr, topo.link_latency, topo.first_local)
    n = topo.n_nodes
    count = np.zeros((n, n), np.int64)
    for s in range(n):
        for d in range(n):
            r = s
            while r != d:
                r, count[s, d] = int(topo.nbr[r, hops[r, d]]), count[s, d] + 1
    return count


def test_a_loaded_run_routes_every_packet_on_its_table_path():
    cfg = Config(topology="edgelist", file=str(CASES / "anynet_irregular.net"), pattern="uniform-self", rate=0.2,
                 packet_flits=4, warmup=200, measure=1500, check_invariants=True, seed=3, **BK)
    topo = build_topology(cfg)
    run = run_flit(cfg, topo)
    pk = run.packet_table()
    done = pk["tail_arrival_cycle"] >= 0
    assert done.sum() > 300
    routers = topo.terminal_router
    want = _path_hops(topo)[routers[pk["src"][done]], routers[pk["dst"][done]]]
    assert np.array_equal(pk["hops"][done], want)


def test_runs_are_deterministic_and_report_the_tables_capacity():
    cfg = dict(topology="edgelist", file=str(CASES / "anynet_irregular.net"), pattern="uniform", rate=0.1,
               packet_flits=4, warmup=200, measure=800, seed=5, **BK)
    a, b = simulate(Config(**cfg)), simulate(Config(**cfg))
    for key in ("latency_mean", "accepted_load", "hops_mean", "packets"):
        assert a[key] == b[key]
    assert a["capacity_method"] == "max channel load (min_anynet table)" and 0 < a["capacity"] < 1


def test_the_booksim_example_reads_through_booksim_config(monkeypatch):
    monkeypatch.chdir(CASES)  # BookSim2 opens network_file from its working directory
    res = CliRunner().invoke(app, ["run", "--booksim-config", "example_anynet.cfg", "sample_period=1000", "--json",
                                   "--quiet"])
    assert res.exit_code == 0, res.output
    import json

    assert json.loads(res.stdout)["booksim_stats"]["hops_average"] == pytest.approx(1 + 2 / 3, abs=0.1)


def test_refusals(tmp_path):
    path = write(tmp_path, SMALL)
    run = CliRunner().invoke
    assert_refused(run(app, ["run", "--topology", "edgelist", "--file", path]), ["--router booksim", "anynet"])
    assert_refused(run(app, ["run", "--topology", "edgelist", "--file", path, "--router", "booksim",
                             "--concentration", "2"]), ["--concentration", "anynet"])
    bad = write(tmp_path, "router 0 node 0 router 1\nrouter 1 node 0\n", "bad.any")
    assert_refused(run(app, ["run", "--topology", "edgelist", "--file", bad, "--router", "booksim"]),
                   ["line 2", "node 0"])


def test_a_regular_file_runs_on_the_lanes_router(tmp_path):
    path = write(tmp_path, "router 0 node 0 node 1 router 1\nrouter 1 node 2 node 3\n")
    s = simulate(Config(topology="edgelist", file=path, routing="minimal", pattern="uniform", rate=0.1, warmup=100,
                        measure=500))
    assert s["accepted_load"] > 0 and s["hops_mean"] == pytest.approx(2 / 3, abs=0.15)


_WORDS = ["router", "node", "0", "1", "2", "3", "4", "7", "x", "-1", "//"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_WORDS), max_size=8), max_size=6))
def test_any_text_is_read_or_refused_in_one_line(lines):
    """Whatever the words, the reader returns a connected network with terminals 0..N-1 on
    routers 0..R-1, or refuses in one line: never another exception."""
    text = "\n".join(" ".join(words) for words in lines)
    try:
        net = parse_anynet(text)
    except ConfigError as err:
        assert "\n" not in str(err)
        return
    assert net.node_router.size >= 2 and 0 <= net.node_router.min() and net.node_router.max() < net.routers
    topo = anynet_topology(net, {})
    assert first_hops(topo.nbr, topo.link_latency, topo.first_local).shape == (net.routers, net.routers)
