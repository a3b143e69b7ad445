"""BookSim2's ``anynet`` network files: routers, their terminals and per-direction channel latencies.

A line names a router and what it is joined to (BookSim2's ``networks/anynet.cpp``, ``readFile``)::

    router 0 node 0 node 1 node 2 router 1
    router 2 node 6 router 1 15 router 0

``router R`` starts the line; ``node N`` puts terminal ``N`` on router ``R``; ``router S [L]``
joins ``R`` and ``S``. A link runs both ways; ``L`` (cycles, default 1) is the latency of the
channel ``R -> S`` and of its credits, so the other direction keeps its own (1 unless a line of
``S`` names ``R`` with a latency). Mentioning ``R -> S`` again without a latency sets it back to
1, as BookSim2's reader does. Routers are numbered ``0 .. R-1`` and terminals ``0 .. N-1``
without gaps; a router may hold any number of terminals (none included), in any order.

Every file accepted here is read as BookSim2 reads it. What its reader misreads, or stops on, is
refused with the line and the reason (``ConfigError``, exit 2): a latency after ``node`` (BookSim2
applies it to a router-to-router channel to the router numbered like the node, not to the
terminal), a line starting with ``node`` (BookSim2 also takes its id for a router), a terminal on
two routers, a router joined to itself, words other than ``router``, ``node`` and numbers (it has
no comments), tabs (it splits words on spaces only), and networks whose routers cannot all reach
one another (its route search never ends).

The ``Topology`` (``anynet_topology``) keeps BookSim2's port order among the router links
(neighbours ascending) and puts each router's terminals, ascending, on its last local ports:
``concentration`` is the largest count, a router with fewer leaves the rest unused.
``terminal_router`` and ``link_latency`` carry the file's layout to the booksim router.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.topologies.base import NONE, Topology, concentrate, from_adjacency_lists

MAX_ANYNET_ID = 1 << 20  # routers and terminals, as for every topology
MAX_LATENCY = 1 << 16


@dataclass(frozen=True)
class AnyNetFile:
    """What a network file says: ``routers`` routers, ``node_router[t]`` the router of terminal
    ``t``, and ``latency[(r, s)]`` the cycles of the channel ``r -> s`` (both directions present)."""

    routers: int
    node_router: np.ndarray
    latency: dict


def is_anynet_text(text: str) -> bool:
    """True when the first word of the file is ``router`` or ``node`` (BookSim2's anynet format;
    an edge-list file starts with a number or ``nodes``)."""
    words = text.split(None, 1)
    return bool(words) and words[0] in ("router", "node")


def _number(word: str, what: str, where: str) -> int:
    if not (word.isascii() and word.isdigit()) or len(word) > 9:
        raise ConfigError(f"{where}: {what} {word!r} is not a non-negative integer below {MAX_ANYNET_ID}")
    value = int(word)
    if value >= MAX_ANYNET_ID:
        raise ConfigError(f"{where}: {what} {value} exceeds the limit of {MAX_ANYNET_ID - 1}")
    return value


def parse_anynet(text: str, name: str = "network_file") -> AnyNetFile:
    """The network a file's text describes; ``ConfigError`` naming the line and the problem."""
    node_router: dict[int, int] = {}
    node_line: dict[int, int] = {}
    latency: dict[tuple[int, int], int] = {}
    routers: set[int] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        where = f"{name} line {lineno}"
        if "\t" in line:
            raise ConfigError(f"{where} has a tab; BookSim2 separates words by spaces only")
        words = line.split()
        if not words:
            continue
        if words[0] == "node":
            raise ConfigError(f"{where} starts with 'node'; BookSim2 takes a line's first id for a router too, so "
                              f"write the terminal on its router's line ('router R node N')")
        if words[0] != "router":
            raise ConfigError(f"{where} starts with {words[0]!r}; a line is 'router R' followed by 'node N' and "
                              f"'router S [latency]' (BookSim2's anynet format has no comments)")
        if len(words) < 2:
            raise ConfigError(f"{where} names no router after 'router'")
        head = _number(words[1], "router id", where)
        routers.add(head)
        last = None  # ("router", id) or ("node", id) just read, ("latency", ...) after a latency
        i = 2
        while i < len(words):
            word = words[i]
            if word in ("router", "node"):
                if i + 1 >= len(words):
                    raise ConfigError(f"{where} ends with {word!r} and no id")
                ident = _number(words[i + 1], f"{word} id", where)
                if word == "node":
                    if node_router.get(ident, head) != head:
                        raise ConfigError(f"{where} puts node {ident} on router {head}, but line "
                                          f"{node_line[ident]} put it on router {node_router[ident]}; a node has "
                                          f"one router")
                    node_router[ident], node_line[ident] = head, lineno
                else:
                    if ident == head:
                        raise ConfigError(f"{where} joins router {head} to itself")
                    routers.add(ident)
                    latency[(head, ident)] = 1  # BookSim2 sets the channel back to 1 when named again
                    latency.setdefault((ident, head), 1)
                last = (word, ident)
                i += 2
                continue
            if last is None:
                raise ConfigError(f"{where}: {word!r} after the router id; expected 'node N' or 'router S'")
            if last[0] == "node":
                raise ConfigError(f"{where}: latency {word!r} after node {last[1]}; BookSim2 would apply it to a "
                                  f"channel from router {head} to router {last[1]}, not to the terminal (its "
                                  f"terminal channels take 1 cycle)")
            if last[0] == "latency":
                raise ConfigError(f"{where}: a second latency {word!r} after router {last[1]}; give one per link")
            lat = _number(word, "latency", where)
            if not 1 <= lat <= MAX_LATENCY:
                raise ConfigError(f"{where}: latency {lat} of the channel {head} -> {last[1]} is outside "
                                  f"1..{MAX_LATENCY} cycles")
            latency[(head, last[1])] = lat
            last = ("latency", last[1])
            i += 1
    return _checked(name, routers, node_router, latency)


def _checked(name: str, routers: set, node_router: dict, latency: dict) -> AnyNetFile:
    if len(node_router) < 2:
        raise ConfigError(f"{name} puts {len(node_router)} terminal(s) on its routers; a network needs at least 2 "
                          f"('router R node N ...' lines)")
    for what, ids in (("router", routers), ("node", set(node_router))):
        missing = sorted(set(range(max(ids) + 1)) - ids)
        if missing:
            raise ConfigError(f"{name} numbers {what}s up to {max(ids)} but has no {what} {missing[0]}; BookSim2 "
                              f"needs {what}s numbered 0..{max(ids)} without gaps")
    n_routers = len(routers)
    reached = {0}
    frontier = [0]
    adjacency: dict[int, list[int]] = {}
    for r, s in latency:
        adjacency.setdefault(r, []).append(s)
    while frontier:
        r = frontier.pop()
        for s in adjacency.get(r, ()):
            if s not in reached:
                reached.add(s)
                frontier.append(s)
    if len(reached) != n_routers:
        lost = min(set(range(n_routers)) - reached)
        raise ConfigError(f"{name}: router {lost} cannot be reached from router 0; every router must reach every "
                          f"other (BookSim2's route search never ends otherwise)")
    node_router_arr = np.array([node_router[t] for t in range(len(node_router))], np.int32)
    return AnyNetFile(routers=n_routers, node_router=node_router_arr, latency=dict(latency))


def read_anynet(path) -> AnyNetFile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"network file {str(path)!r} cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"network file {str(path)!r} is not UTF-8 text") from None
    return parse_anynet(text, str(path))


def terminal_ports(topo: Topology) -> np.ndarray:
    """int32[T]: the local port of each terminal at its router (``first_local`` + its rank among
    the router's terminals, ascending), from ``terminal_router`` or, without it, ``t % C``."""
    c = topo.concentration
    if topo.terminal_router is None:
        return (topo.first_local + np.arange(topo.n_terminals) % c).astype(np.int32)
    routers = np.asarray(topo.terminal_router, np.int64)
    order = np.argsort(routers, kind="stable")  # ascending terminal id within each router
    first = np.searchsorted(routers[order], routers[order], side="left")
    rank = np.empty(routers.size, np.int64)
    rank[order] = np.arange(routers.size) - first
    return (topo.first_local + rank).astype(np.int32)


def anynet_topology(net: AnyNetFile, params: dict) -> Topology:
    """The ``Topology`` of a network file: router links in ascending neighbour order (BookSim2's
    port order among them), ``max`` terminals per router as its concentration."""
    neighbours = [[] for _ in range(net.routers)]
    for r, s in net.latency:
        neighbours[r].append(s)
    base = from_adjacency_lists(neighbours)
    counts = np.bincount(net.node_router, minlength=net.routers)
    conc = int(counts.max())
    plain = Topology(kind="edgelist", params=params, arrays=base)
    arrays = concentrate(plain, conc).arrays
    lat = np.ones(arrays.nbr.shape, np.int64)
    for (r, s), cycles in net.latency.items():
        port = int(np.nonzero(arrays.nbr[r] == s)[0][0])
        lat[r, port] = cycles
    full = {**params, "nodes": net.routers, "concentration": conc, "terminals": int(net.node_router.size),
            "format": "anynet"}
    return Topology(kind="edgelist", params=full, arrays=arrays, terminal_router=net.node_router.copy(),
                    link_latency=lat)


def is_regular(topo: Topology) -> bool:
    """True when terminal ``t`` sits on router ``t // C`` at port ``first_local + t % C`` (the
    layout every router but the booksim one assumes) and every channel takes one cycle."""
    if topo.terminal_router is None:
        return True
    t = np.arange(topo.n_terminals)
    c = topo.concentration
    return bool(np.array_equal(topo.terminal_router, t // c) and topo.n_terminals == topo.n_nodes * c
                and (topo.link_latency is None or np.all(topo.link_latency[topo.arrays.nbr != NONE] == 1)))
