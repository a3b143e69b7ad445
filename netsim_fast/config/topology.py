"""The topology part of ``Config``: which network, its size options, and their checks.

This is all ``netsim-fast topo`` reads. ``_validate_topology`` normalises as it checks: a grid's
``--k``/``--n`` become ``dims`` (a tuple of radices), a hypercube's ``--n`` becomes ``dims`` of
2s, a de Bruijn graph's ``base`` defaults to 2, a flattened butterfly's ``n`` to 2, a dragonfly's
``groups`` to A*H + 1 and its ``global_arrangement`` to ``consecutive`` (docs/topologies.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from netsim_fast.checks import bad, parse_int_list, unknown_choice
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import set_field as _set
from netsim_fast.topologies import GRID_TOPOLOGIES, INDIRECT_TOPOLOGIES, TOPOLOGIES

MAX_NODES = 1 << 20  # beyond this the port tables alone are gigabytes: refuse early
MAX_CONCENTRATION = 64  # terminals per router (a router's ports fit the 64-bit port masks)

# Options each topology takes (besides --topology and the seeds).
TOPOLOGY_OPTIONS = {
    "torus": ("k", "n", "dims"),
    "mesh": ("k", "n", "dims"),
    "cmesh": ("k", "n", "dims"),
    "hypercube": ("n", "dims"),  # dims: only as a normalised Config carries it (all 2)
    "rrg": ("nodes", "degree"),
    "debruijn": ("nodes", "base"),
    "bmg": ("nodes",),
    "circulant": ("nodes", "jumps"),
    "ring": ("nodes",),
    "complete": ("nodes",),
    "edgelist": ("file",),
    "flatfly": ("k", "n"),
    "hyperx": ("dims", "widths"),
    "dragonfly": ("group_routers", "global_links", "groups", "global_arrangement"),
    "fattree": ("k", "n"),
    "clos": ("switch_ports",),
    "fly": ("k", "n"),
}
_ALL_TOPOLOGY_OPTIONS = ("k", "n", "dims", "nodes", "degree", "base", "jumps", "file", "widths", "group_routers",
                         "global_links", "groups", "global_arrangement", "switch_ports")


@dataclass(frozen=True, kw_only=True)
class TopologyFields:
    """The topology fields of ``Config`` (the first ones), and what derives from them."""

    # -- topology --------------------------------------------------------------------------
    topology: str = "torus"
    k: int | None = None
    n: int | None = None
    dims: tuple[int, ...] | None = None
    nodes: int | None = None
    degree: int | None = None
    base: int | None = None
    jumps: tuple[int, ...] | None = None
    file: str | None = None
    widths: tuple[int, ...] | None = None
    group_routers: int | None = None
    global_links: int | None = None
    groups: int | None = None
    global_arrangement: str | None = None
    switch_ports: int | None = None  # ports of every switch of a folded Clos (--topology clos)
    graph_seed: int | None = None
    link_failures: int = 0  # undirected links removed at random (topologies/faults.py)
    fault_seed: int | None = None  # their seed (default: --seed)
    concentration: int = 1  # terminals per router (BookSim2's concentration; docs/topologies.md)

    # -- derived -----------------------------------------------------------------------------
    @property
    def radix(self) -> tuple[int, ...] | None:
        """Radix per dimension of a grid topology (dimension 0 first), else None."""
        return self.dims if self.topology in GRID_TOPOLOGIES else None

    @property
    def n_nodes(self) -> int | None:
        if self.radix is not None:
            return math.prod(self.radix)
        if self.topology == "hyperx" and self.dims is not None:
            return math.prod(self.dims)
        if self.topology == "flatfly" and self.k is not None and self.n is not None:
            return self.k ** self.n
        if self.topology == "dragonfly" and self.group_routers is not None and self.groups is not None:
            return self.group_routers * self.groups
        if self.topology == "fattree" and self.k is not None and self.n is not None:
            return self.n * self.k ** (self.n - 1)
        if self.topology == "clos" and self.switch_ports is not None:
            return 5 * self.switch_ports ** 2 // 4
        if self.topology == "fly" and self.k is not None and self.n is not None:
            return self.n * self.k ** (self.n - 1)
        return self.nodes

    @property
    def n_terminals(self) -> int | None:
        """Terminals, the nodes that send and receive: ``concentration`` per router; on the
        trees their leaves' (k per leaf of a k-ary n-tree, K/2 per edge switch of a Clos); on the
        butterfly k per router of a stage (k^n)."""
        if self.topology in ("fattree", "fly") and self.k is not None and self.n is not None:
            return self.k ** self.n
        if self.topology == "clos" and self.switch_ports is not None:
            return self.switch_ports ** 3 // 4
        n = self.n_nodes
        return None if n is None else n * self.concentration


# -- validation ----------------------------------------------------------------------------
# Each check takes the assembled Config; only ``_validate_topology`` reads fields of another
# concern (engine, pattern: the base of embed-debruijn's guest graph).


def _validate_topology(cfg: TopologyFields) -> None:
    kind = cfg.topology
    if kind not in TOPOLOGIES:
        raise unknown_choice("topology", kind, TOPOLOGIES)
    _set(cfg, "dims", parse_int_list("dims", cfg.dims))
    _set(cfg, "jumps", parse_int_list("jumps", cfg.jumps))
    _set(cfg, "widths", parse_int_list("widths", cfg.widths))
    allowed = TOPOLOGY_OPTIONS[kind]
    for option in _ALL_TOPOLOGY_OPTIONS:
        if option == "base" and cfg.engine is not None and cfg.pattern == "embed-debruijn":
            continue  # the base of the guest de Bruijn graph, checked with the workload
        if option not in allowed and getattr(cfg, option) is not None:
            takes = ", ".join(f"--{o}" for o in allowed)
            raise bad(option, getattr(cfg, option), f"does not apply to --topology {kind} (it takes {takes})")
    for option in ("k", "n", "nodes", "degree", "base", "group_routers", "global_links", "groups", "switch_ports"):
        _require_int(option, getattr(cfg, option))
    _TOPOLOGY_CHECKS[kind](cfg)
    n_nodes = cfg.n_nodes
    if n_nodes is not None and n_nodes > MAX_NODES:
        raise bad("nodes" if cfg.radix is None else "dims", cfg.dims or n_nodes,
                  f"{n_nodes} nodes exceed the limit of {MAX_NODES}")
    _require_int("concentration", cfg.concentration, 1, MAX_CONCENTRATION, " terminals per router")
    if kind in INDIRECT_TOPOLOGIES and cfg.concentration != 1:
        where = "k terminals on each router of its first and last stages" if kind == "fly" else \
            "its leaf switches hold its terminals (k per leaf of a fattree, K/2 per edge switch of a clos)"
        raise bad("concentration", cfg.concentration, f"does not apply to --topology {kind}: {where}")
    if n_nodes is not None and n_nodes * cfg.concentration > MAX_NODES:
        raise bad("concentration", cfg.concentration, f"{n_nodes} routers x {cfg.concentration} = "
                  f"{n_nodes * cfg.concentration} terminals exceed the limit of {MAX_NODES}")


def _check_grid(cfg: TopologyFields) -> None:
    if cfg.dims is not None:
        if cfg.k is not None or cfg.n is not None:
            raise bad("dims", cfg.dims, "give either --dims or --k/--n, not both")
        for radix in cfg.dims:
            if radix < 2:
                raise bad("dims", cfg.dims, "every radix must be >= 2")
        return
    if cfg.k is None:
        raise bad("k", None, f"--topology {cfg.topology} needs --k K (with --n N, default 2) or --dims k0,k1,...")
    _require_int("k", cfg.k, 2, what=" (the radix of every dimension)")
    n = 2 if cfg.n is None else cfg.n
    _require_int("n", n, 1, what=" (the number of dimensions)")
    # n first: k ** n with an absurd n (the fuzzer's --n 10**20) would never finish computing
    if n > MAX_NODES.bit_length() or cfg.k ** n > MAX_NODES:
        raise bad("k", cfg.k, f"{cfg.k}^{n} nodes exceed the limit of {MAX_NODES}")
    _set(cfg, "dims", (cfg.k,) * n)
    _set(cfg, "k", None)
    _set(cfg, "n", None)


def _check_cmesh(cfg: TopologyFields) -> None:
    """BookSim2's cmesh: a k x k mesh (n = 2), k even and >= 4 for its express channels, four
    terminals per router (BookSim2 asserts c = 4; the default 1 becomes 4)."""
    from netsim_fast.topologies.cmesh import CMESH_CONCENTRATION

    if cfg.dims is None and cfg.n not in (None, 2):
        raise bad("n", cfg.n, "a cmesh is two-dimensional (BookSim2's is broken for n > 2); drop --n or pass 2")
    _check_grid(cfg)
    k = cfg.dims[0]
    if len(cfg.dims) != 2 or cfg.dims[1] != k or k < 4 or k % 2:
        raise bad("k", k if len(set(cfg.dims)) == 1 else ",".join(map(str, cfg.dims)),
                  "a cmesh needs a square k x k mesh with an even k >= 4 (its express channels join the two halves "
                  "of each edge)")
    if cfg.concentration not in (1, CMESH_CONCENTRATION):
        raise bad("concentration", cfg.concentration, f"a cmesh has {CMESH_CONCENTRATION} terminals per router "
                                                      "(BookSim2 asserts c = 4); drop it or pass 4")
    _set(cfg, "concentration", CMESH_CONCENTRATION)


def _check_hypercube(cfg: TopologyFields) -> None:
    if cfg.dims is not None and cfg.n is None:  # a normalised Config rebuilt (replace, from_dict)
        if any(k != 2 for k in cfg.dims):
            raise bad("dims", cfg.dims, "a hypercube has radix 2 in every dimension; use --n N")
        _set(cfg, "n", len(cfg.dims))
    if cfg.n is None:
        raise bad("n", None, "--topology hypercube needs --n N (2^N nodes)")
    _require_int("n", cfg.n, 1, 20, " (the hypercube dimension)")
    if cfg.dims is not None and cfg.dims != (2,) * cfg.n:
        raise bad("dims", cfg.dims, f"does not describe the {cfg.n}-dimensional hypercube; give --n only")
    _set(cfg, "dims", (2,) * cfg.n)
    _set(cfg, "n", None)


def _need_nodes(cfg: TopologyFields, low: int) -> None:
    if cfg.nodes is None:
        raise bad("nodes", None, f"--topology {cfg.topology} needs --nodes N")
    _require_int("nodes", cfg.nodes, low, MAX_NODES, f" for --topology {cfg.topology}")


def _check_rrg(cfg: TopologyFields) -> None:
    _need_nodes(cfg, 3)
    if cfg.degree is None:
        raise bad("degree", None, "--topology rrg needs --degree R")
    _require_int("degree", cfg.degree, 2, what=" (a connected regular graph needs degree >= 2)")
    if cfg.degree >= cfg.nodes:
        raise bad("degree", cfg.degree, f"must be < --nodes {cfg.nodes} (a simple graph has at most N-1 neighbours)")
    if (cfg.nodes * cfg.degree) % 2:
        raise bad("degree", cfg.degree, f"--nodes {cfg.nodes} times --degree {cfg.degree} is odd; an r-regular graph needs N*r even")


def _check_debruijn(cfg: TopologyFields) -> None:
    base = 2 if cfg.base is None else cfg.base
    _require_int("base", base, 2)
    _set(cfg, "base", base)
    _need_nodes(cfg, 2)
    size = 1
    while size < cfg.nodes:
        size *= base
    if size != cfg.nodes:
        raise bad("nodes", cfg.nodes, f"must be a power of --base {base} for --topology debruijn")


def _check_circulant(cfg: TopologyFields) -> None:
    _need_nodes(cfg, 3)
    if cfg.jumps is None:
        raise bad("jumps", None, "--topology circulant needs --jumps j1,j2,... (e.g. 1,2,5)")
    for j in cfg.jumps:
        if not 1 <= j < cfg.nodes:
            raise bad("jumps", cfg.jumps, f"every jump must be in 1..{cfg.nodes - 1}")
    g = cfg.nodes
    for j in cfg.jumps:
        g = math.gcd(g, j)
    if g != 1:
        raise bad("jumps", cfg.jumps, f"the graph is disconnected (gcd of jumps and --nodes {cfg.nodes} is {g}); include a jump coprime to the size")


EDGE_LIST_BYTES_PER_BYTE = 40  # reading holds each 'u v' line as a Python pair before the arrays


def _check_edgelist(cfg: TopologyFields) -> None:
    """The file must be given, and small enough to read: its size bounds the links, so a file
    too big for memory is refused before a byte of it is read."""
    import os

    from netsim_fast.config.memory import MIB, available_mib

    if not cfg.file:
        raise bad("file", None, "--topology edgelist needs --file PATH (one 'u v' link per line)")
    try:
        size = os.path.getsize(cfg.file)
    except OSError:
        return  # missing or unreadable: the reader names it
    limit = getattr(cfg, "memory_limit", None) or available_mib()
    need = size * EDGE_LIST_BYTES_PER_BYTE / MIB
    if limit is not None and need > limit:
        raise bad("file", cfg.file, f"is {size:,} bytes; reading it needs about {need:,.0f} MiB, more than "
                  f"{'--memory-limit' if getattr(cfg, 'memory_limit', None) else 'the memory available now'} "
                  f"({limit:,} MiB)")


def _check_flatfly(cfg: TopologyFields) -> None:
    if cfg.k is None:
        raise bad("k", None, "--topology flatfly needs --k K (routers per dimension) and --n N (dimensions, default 2)")
    _require_int("k", cfg.k, 2, what=" (routers per dimension of the flattened butterfly)")
    n = 2 if cfg.n is None else cfg.n
    _require_int("n", n, 1, what=" (dimensions of the flattened butterfly)")
    if n > MAX_NODES.bit_length() or cfg.k ** n > MAX_NODES:
        raise bad("k", cfg.k, f"{cfg.k}^{n} routers exceed the limit of {MAX_NODES}")
    _set(cfg, "n", n)


MAX_WIDTH = 16  # parallel links per router pair of a HyperX dimension


def _check_hyperx(cfg: TopologyFields) -> None:
    if cfg.dims is None:
        raise bad("dims", None, "--topology hyperx needs --dims S0,S1,... (routers per dimension, e.g. 4,4,4)")
    if any(s < 2 for s in cfg.dims):
        raise bad("dims", cfg.dims, "every dimension of a hyperx needs >= 2 routers")
    if math.prod(cfg.dims) > MAX_NODES:
        raise bad("dims", cfg.dims, f"{math.prod(cfg.dims)} routers exceed the limit of {MAX_NODES}")
    if cfg.widths is not None:
        if len(cfg.widths) != len(cfg.dims):
            raise bad("widths", cfg.widths, f"needs one width per dimension of --dims ({len(cfg.dims)})")
        if any(not 1 <= w <= MAX_WIDTH for w in cfg.widths):
            raise bad("widths", cfg.widths, f"every width must be in 1..{MAX_WIDTH} (parallel links between two "
                                            f"routers of a dimension)")


def _check_dragonfly(cfg: TopologyFields) -> None:
    from netsim_fast.topologies.direct import ARRANGEMENTS, dragonfly_group_counts

    for option in ("group_routers", "global_links"):
        if getattr(cfg, option) is None:
            raise bad(option.replace("_", "-"), None, "--topology dragonfly needs --group-routers A and --global-links H")
    _require_int("group_routers", cfg.group_routers, 1, 4096, " (routers per dragonfly group)")
    _require_int("global_links", cfg.global_links, 1, 4096, " (global links per dragonfly router)")
    a, h = cfg.group_routers, cfg.global_links
    if a * (a * h + 1) > MAX_NODES:
        raise bad("group-routers", a, f"with --global-links {h}: {a * (a * h + 1)} routers exceed the limit of {MAX_NODES}")
    allowed = dragonfly_group_counts(a, h)
    groups = a * h + 1 if cfg.groups is None else cfg.groups
    if groups not in allowed:
        raise bad("groups", groups, f"must be one of {', '.join(map(str, allowed))} for A={a}, H={h} "
                                    "(G-1 divides A*H, so each pair of groups has as many global links, and G-1 >= H)")
    _set(cfg, "groups", groups)
    arrangement = "consecutive" if cfg.global_arrangement is None else cfg.global_arrangement
    if arrangement not in ARRANGEMENTS:
        raise unknown_choice("global-arrangement", arrangement, ARRANGEMENTS)
    _set(cfg, "global_arrangement", arrangement)


def _check_fattree(cfg: TopologyFields) -> None:
    if cfg.k is None or cfg.n is None:
        raise bad("k" if cfg.k is None else "n", None, "--topology fattree needs --k K (terminals per leaf, switch "
                                                      "radix 2K) and --n N (levels): a k-ary n-tree of K^N terminals")
    _require_int("k", cfg.k, 2, MAX_CONCENTRATION, " (down ports per switch of the fat tree)")
    _require_int("n", cfg.n, 2, what=" (levels of the fat tree)")
    if cfg.n > MAX_NODES.bit_length() or cfg.n * cfg.k ** (cfg.n - 1) * cfg.k > MAX_NODES:
        raise bad("k", cfg.k, f"a {cfg.k}-ary {cfg.n}-tree exceeds the limit of {MAX_NODES} terminal slots")


def _check_fly(cfg: TopologyFields) -> None:
    if cfg.k is None or cfg.n is None:
        raise bad("k" if cfg.k is None else "n", None, "--topology fly needs --k K (inputs and outputs per router) "
                                                      "and --n N (stages): a k-ary n-fly of K^N terminals")
    _require_int("k", cfg.k, 2, MAX_CONCENTRATION, " (inputs and outputs per router of the butterfly)")
    _require_int("n", cfg.n, 1, what=" (stages of the butterfly)")
    if cfg.n > MAX_NODES.bit_length() or cfg.n * cfg.k ** cfg.n > MAX_NODES:
        raise bad("k", cfg.k, f"a {cfg.k}-ary {cfg.n}-fly exceeds the limit of {MAX_NODES} terminal slots")


def _check_clos(cfg: TopologyFields) -> None:
    if cfg.switch_ports is None:
        raise bad("switch-ports", None, "--topology clos needs --switch-ports K (even: K^3/4 terminals)")
    _require_int("switch_ports", cfg.switch_ports, 4, 2 * MAX_CONCENTRATION, " ports per switch")
    if cfg.switch_ports % 2:
        raise bad("switch-ports", cfg.switch_ports, "must be even (half the ports of an edge or aggregation switch "
                                                    "go down, half up)")
    if 5 * cfg.switch_ports ** 3 // 8 > MAX_NODES:
        raise bad("switch-ports", cfg.switch_ports, f"the clos exceeds the limit of {MAX_NODES} terminal slots")


_TOPOLOGY_CHECKS = {
    "torus": _check_grid,
    "mesh": _check_grid,
    "cmesh": _check_cmesh,
    "hypercube": _check_hypercube,
    "rrg": _check_rrg,
    "debruijn": _check_debruijn,
    "bmg": lambda cfg: _need_nodes(cfg, 3),
    "circulant": _check_circulant,
    "ring": lambda cfg: _need_nodes(cfg, 3),
    "complete": lambda cfg: _need_nodes(cfg, 2),
    "edgelist": _check_edgelist,
    "flatfly": _check_flatfly,
    "hyperx": _check_hyperx,
    "dragonfly": _check_dragonfly,
    "fattree": _check_fattree,
    "clos": _check_clos,
    "fly": _check_fly,
}


# Routings computed from the graph, which go around failed links; the others follow fixed rules.
FAULT_TOLERANT_ROUTINGS = ("minimal", "updown")


def validate_faults(cfg: TopologyFields) -> None:
    """``--link-failures N`` (>= 0) and ``--fault-seed`` (default ``--seed``; only with failures)."""
    _require_int("link-failures", cfg.link_failures, 0, 1 << 30, " links")
    if not cfg.link_failures:
        if cfg.fault_seed is not None:
            raise bad("fault-seed", cfg.fault_seed, "applies with --link-failures N only (the seed of the failed links)")
        return
    if cfg.topology == "fly":
        raise bad("link-failures", cfg.link_failures, "does not apply to --topology fly: the butterfly has one path "
                                                      "between each pair of terminals, so a failed link disconnects it")
    if cfg.fault_seed is None:
        _set(cfg, "fault_seed", cfg.seed)
    _require_int("fault-seed", cfg.fault_seed, 0, 2**63 - 1)


def validate_concentration(cfg) -> None:
    """``--concentration C`` > 1 runs open-loop synthetic traffic on the flit engine (both of
    its routers, every topology); what has one terminal per router is refused."""
    c = cfg.concentration
    tree = cfg.topology in INDIRECT_TOPOLOGIES
    if c == 1 and not tree:
        return
    from netsim_fast.config.workload import is_open_loop

    option, value = ("topology", cfg.topology) if tree else ("concentration", c)
    who = ("the butterfly's terminals" if cfg.topology == "fly" else "terminals on the leaf switches only") if tree else \
        f"--topology cmesh ({c} terminals per router)" if cfg.topology == "cmesh" else f"{c} terminals per router"
    why = f"{who} run on the flit engine's open-loop synthetic patterns only"
    if cfg.engine != "flit":
        raise bad(option, value, f"{why}; the packet engine has one terminal per router (pass --engine flit)")
    if not is_open_loop(cfg):
        raise bad(option, value, f"{why}; --pattern {cfg.pattern} is a finite workload placed on the routers "
                                 "(one terminal each)")
    if c > 1 and (cfg.pattern == "tornado" or (cfg.pattern == "neighbor" and cfg.topology in GRID_TOPOLOGIES)):
        raise bad("pattern", cfg.pattern, f"with --concentration {c}: the patterns pick terminals by id (transpose, "
                  "bitcomp, bitrev, shuffle on the bits of terminal ids, as BookSim2's do) and this one moves the "
                  "grid coordinates of routers; use uniform or another pattern")


def validate_fault_routing(cfg) -> None:
    """With failed links, only a routing computed from the graph can run (``lanes``, ``iq``)."""
    if cfg.link_failures and getattr(cfg, "router", None) == "booksim" and getattr(cfg, "engine", None) == "flit":
        raise bad("link-failures", cfg.link_failures, f"the booksim router runs BookSim2's routing functions, none of "
                  f"which routes around a removed link (BookSim2 only marks failed channels, on meshes and tori, "
                  f"where its own placement aborts: docs/booksim-keys.md, link_failures); use --router lanes or iq "
                  f"with --routing {' or '.join(FAULT_TOLERANT_ROUTINGS)}")
    if cfg.link_failures and cfg.routing not in FAULT_TOLERANT_ROUTINGS:
        raise bad("routing", cfg.routing, f"cannot route around failed links (--link-failures {cfg.link_failures}): "
                  f"it follows fixed rules; use --routing {' or '.join(FAULT_TOLERANT_ROUTINGS)}")

