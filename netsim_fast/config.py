"""One typed, validated description of an experiment.

``Config`` is flat on purpose: its field names are the ``netsim-fast run`` option names
(``--packet-flits`` -> ``packet_flits``), so a sweep spec, the CLI, a trace's stored config and
a notebook all speak the same words. Every user-input error is raised here, in one place, as a
``ConfigError`` whose one-line message names the option, the value found and what is allowed.

Construction normalises as well as validates: ``dims`` becomes a tuple of radices, the routing
defaults to ``dor`` on grids and ``minimal`` elsewhere (``minimal`` everywhere on the packet
engine), ``graph_seed`` defaults to ``seed``, and the options of the chosen engine and pattern
get their defaults. Options that do not apply to the chosen engine or pattern stay at their
defaults (``None`` for most): giving one is an error, never silently ignored.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields, replace

from netsim_fast.checks import bad, parse_int_list, unknown_choice
from netsim_fast.checks import require_int as _require_int
from netsim_fast.errors import ConfigError
from netsim_fast.topologies import GRID_TOPOLOGIES, TOPOLOGIES

MAX_NODES = 1 << 20  # beyond this the port tables alone are gigabytes: refuse early

# Options each topology takes (besides --topology and the seeds).
TOPOLOGY_OPTIONS = {
    "torus": ("k", "n", "dims"),
    "mesh": ("k", "n", "dims"),
    "hypercube": ("n", "dims"),  # dims: only as a normalised Config carries it (all 2)
    "rrg": ("nodes", "degree"),
    "debruijn": ("nodes", "base"),
    "bmg": ("nodes",),
    "circulant": ("nodes", "jumps"),
    "ring": ("nodes",),
    "complete": ("nodes",),
    "edgelist": ("file",),
}
_ALL_TOPOLOGY_OPTIONS = ("k", "n", "dims", "nodes", "degree", "base", "jumps", "file")


@dataclass(frozen=True, kw_only=True)
class Config:
    """An experiment: topology, routing, workload, engine parameters, seed and output.

    Only the topology part is read by ``netsim-fast topo``; ``netsim-fast run`` reads it all.
    See the README ("CLI") for every option; field name = option name with ``_`` for ``-``.
    """

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
    graph_seed: int | None = None
    # -- engine and router ------------------------------------------------------------------
    engine: str | None = "flit"  # None: only the topology is described (netsim-fast topo)
    router: str = "lanes"
    routing: str | None = None
    loops: int = 4
    switching: str = "wormhole"
    vcs: int = 4
    buf: int = 8
    out_buf: int = 2
    t_link: int = 1
    t_routing: int = 1
    t_crossbar: int = 1
    credit_delay: int = 1
    headers_per_cycle: int = 1
    eject_rate: int = 1
    inject_vcs: tuple[int, ...] | None = None
    vc_realloc: str = "auto"
    vc_alloc: str = "age"
    # -- workload --------------------------------------------------------------------------
    pattern: str | None = None  # default: uniform on the flit engine, random on the packet engine
    rate: float = 0.1
    packet_flits: int | None = None
    packet_bytes: int | None = None
    flit_bytes: int = 4
    hotspot_fraction: float = 0.1
    hotspot_nodes: tuple[int, ...] | None = None
    messages: int | None = None  # random: messages per node (default 1)
    messages_file: str | None = None  # file: one 'src dst [release_cycle]' per line
    time_independent: bool = False  # gossip-ham / gossip-one without switching
    sync: str = "none"  # phased finite workloads on the flit engine: none | local | global
    grain_bytes: int | None = None  # total exchange (random-te, ...): bytes per ordered pair (default 32)
    # -- packet engine (store-and-forward) -------------------------------------------------
    policy: str | None = None  # fifo | srpf | lrpf | random (default fifo)
    path_choice: str | None = None  # fixed | random (default fixed)
    one_port: bool = False
    queue_capacity: int | None = None  # transit packets per link queue, 0 = unbounded (default)
    # -- measurement -----------------------------------------------------------------------
    warmup: int = 2000
    measure: int = 10000
    drain: int | None = None
    cycles: int | None = None
    window: int = 10
    deadlock_cycles: int = 10000
    check_invariants: bool = False
    # -- randomness and output -------------------------------------------------------------
    seed: int = 1
    trace: str | None = None

    def __post_init__(self) -> None:
        _normalise_and_validate(self)

    # -- derived -----------------------------------------------------------------------------
    @property
    def radix(self) -> tuple[int, ...] | None:
        """Radix per dimension of a grid topology (dimension 0 first), else None."""
        return self.dims if self.topology in GRID_TOPOLOGIES else None

    @property
    def n_nodes(self) -> int | None:
        if self.radix is not None:
            return math.prod(self.radix)
        return self.nodes

    def to_dict(self) -> dict:
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = ",".join(map(str, value))
        return out

    def replace(self, **changes) -> "Config":
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: dict) -> "Config":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise unknown_choice("option", unknown[0].replace("_", "-"), sorted(n.replace("_", "-") for n in known))
        return cls(**data)


# -- validation ----------------------------------------------------------------------------


def _set(cfg: Config, name: str, value) -> None:
    object.__setattr__(cfg, name, value)


def _normalise_and_validate(cfg: Config) -> None:
    _validate_topology(cfg)
    _validate_seeds(cfg)
    if cfg.engine is None:  # a topology-only description (netsim-fast topo)
        return
    if cfg.engine not in ENGINES:
        raise unknown_choice("engine", cfg.engine, ENGINES)
    _validate_pattern_name(cfg)
    _validate_routing(cfg)
    if cfg.engine == "flit":
        _validate_engine(cfg)
    else:
        _reject_unless_default(cfg, FLIT_ONLY_OPTIONS, "applies to the flit engine only (drop it, or pass --engine flit)")
    _validate_packet_options(cfg)
    _validate_workload(cfg)
    _validate_measurement(cfg)


def _reject_unless_default(cfg: Config, names, why: str) -> None:
    """Options that do not apply here must keep their defaults: a given value is an error."""
    defaults = {f.name: f.default for f in fields(Config)}
    for name in names:
        value = getattr(cfg, name)
        if value is not None and value != defaults[name]:
            raise bad(name, value, why)


def _validate_seeds(cfg: Config) -> None:
    _require_int("seed", cfg.seed, 0, 2**63 - 1)
    if cfg.graph_seed is None:
        _set(cfg, "graph_seed", cfg.seed)
    _require_int("graph-seed", cfg.graph_seed, 0, 2**63 - 1)


def _validate_topology(cfg: Config) -> None:
    kind = cfg.topology
    if kind not in TOPOLOGIES:
        raise unknown_choice("topology", kind, TOPOLOGIES)
    _set(cfg, "dims", parse_int_list("dims", cfg.dims))
    _set(cfg, "jumps", parse_int_list("jumps", cfg.jumps))
    allowed = TOPOLOGY_OPTIONS[kind]
    for option in _ALL_TOPOLOGY_OPTIONS:
        if option == "base" and cfg.engine is not None and cfg.pattern == "embed-debruijn":
            continue  # the base of the guest de Bruijn graph, checked with the workload
        if option not in allowed and getattr(cfg, option) is not None:
            takes = ", ".join(f"--{o}" for o in allowed)
            raise bad(option, getattr(cfg, option), f"does not apply to --topology {kind} (it takes {takes})")
    for option in ("k", "n", "nodes", "degree", "base"):
        _require_int(option, getattr(cfg, option))
    _TOPOLOGY_CHECKS[kind](cfg)
    n_nodes = cfg.n_nodes
    if n_nodes is not None and n_nodes > MAX_NODES:
        raise bad("nodes" if cfg.radix is None else "dims", cfg.dims or n_nodes,
                  f"{n_nodes} nodes exceed the limit of {MAX_NODES}")


def _check_grid(cfg: Config) -> None:
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
    if cfg.k ** n > MAX_NODES:
        raise bad("k", cfg.k, f"{cfg.k}^{n} nodes exceed the limit of {MAX_NODES}")
    _set(cfg, "dims", (cfg.k,) * n)
    _set(cfg, "k", None)
    _set(cfg, "n", None)


def _check_hypercube(cfg: Config) -> None:
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


def _need_nodes(cfg: Config, low: int) -> None:
    if cfg.nodes is None:
        raise bad("nodes", None, f"--topology {cfg.topology} needs --nodes N")
    _require_int("nodes", cfg.nodes, low, MAX_NODES, f" for --topology {cfg.topology}")


def _check_rrg(cfg: Config) -> None:
    _need_nodes(cfg, 3)
    if cfg.degree is None:
        raise bad("degree", None, "--topology rrg needs --degree R")
    _require_int("degree", cfg.degree, 2, what=" (a connected regular graph needs degree >= 2)")
    if cfg.degree >= cfg.nodes:
        raise bad("degree", cfg.degree, f"must be < --nodes {cfg.nodes} (a simple graph has at most N-1 neighbours)")
    if (cfg.nodes * cfg.degree) % 2:
        raise bad("degree", cfg.degree, f"--nodes {cfg.nodes} times --degree {cfg.degree} is odd; an r-regular graph needs N*r even")


def _check_debruijn(cfg: Config) -> None:
    base = 2 if cfg.base is None else cfg.base
    _require_int("base", base, 2)
    _set(cfg, "base", base)
    _need_nodes(cfg, 2)
    size = 1
    while size < cfg.nodes:
        size *= base
    if size != cfg.nodes:
        raise bad("nodes", cfg.nodes, f"must be a power of --base {base} for --topology debruijn")


def _check_circulant(cfg: Config) -> None:
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


def _check_edgelist(cfg: Config) -> None:
    if not cfg.file:
        raise bad("file", None, "--topology edgelist needs --file PATH (one 'u v' link per line)")


_TOPOLOGY_CHECKS = {
    "torus": _check_grid,
    "mesh": _check_grid,
    "hypercube": _check_hypercube,
    "rrg": _check_rrg,
    "debruijn": _check_debruijn,
    "bmg": lambda cfg: _need_nodes(cfg, 3),
    "circulant": _check_circulant,
    "ring": lambda cfg: _need_nodes(cfg, 3),
    "complete": lambda cfg: _need_nodes(cfg, 2),
    "edgelist": _check_edgelist,
}


# -- routing -------------------------------------------------------------------------------

# Which topologies each routing fits. Grid routings need coordinates and ports per direction;
# the BMG routers rely on the power-of-two jumps of the binomial graph.
BMG_ROUTINGS = ("bmg-bfs", "bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe", "bmg-equiclass", "chord")
ROUTING_TOPOLOGIES = {
    "dor": GRID_TOPOLOGIES,
    "duato": GRID_TOPOLOGIES,
    "dor-nodateline": GRID_TOPOLOGIES,
    "minimal": TOPOLOGIES,
    **{name: ("bmg",) for name in BMG_ROUTINGS},
}



def default_routing(topology: str, engine: str | None = "flit") -> str:
    """``dor`` on grids and ``minimal`` elsewhere; ``minimal`` everywhere on the packet engine.

    The packet engine routes from a table of all shortest-path next hops (papers/000's model
    assumes shortest paths, and ``--path-choice random`` spreads packets over them); on grids
    ``--routing dor`` gives it the flit engine's dimension-order path instead.
    """
    if engine == "packet":
        return "minimal"
    return "dor" if topology in GRID_TOPOLOGIES else "minimal"


# Routings the packet engine runs: a next-hop table (routing/tables.py); dor and the BMG
# routers as one-port tables.
PACKET_ROUTINGS = ("minimal", "dor") + BMG_ROUTINGS


def _validate_routing(cfg: Config) -> None:
    if cfg.routing is None:
        _set(cfg, "routing", default_routing(cfg.topology, cfg.engine))
    if cfg.routing not in ROUTING_TOPOLOGIES:
        raise unknown_choice("routing", cfg.routing, tuple(ROUTING_TOPOLOGIES))
    fits = ROUTING_TOPOLOGIES[cfg.routing]
    if cfg.topology not in fits:
        raise bad("routing", cfg.routing, f"does not fit --topology {cfg.topology}; it needs one of {', '.join(fits)} (use --routing minimal)")
    if cfg.engine == "packet" and cfg.routing not in PACKET_ROUTINGS:
        raise bad("routing", cfg.routing, "is not available in the packet engine; it runs minimal (any topology), dor (tori, meshes, hypercubes) and the BMG routers (bmg)")
    _require_int("loops", cfg.loops, 0, 64, " (equivalence-class loops of bmg-equiclass)")


# -- engine ----------------------------------------------------------------------------------

ENGINES = ("flit", "packet")
ROUTERS = ("lanes", "iq")
SWITCHINGS = ("wormhole", "vct")
VC_REALLOCS = ("auto", "atomic", "eager")
VC_ALLOCS = ("age", "rr")
MAX_VCS = 32  # VC masks are machine words


def needs_datelines(cfg: Config) -> bool:
    """True when the topology has a ring dimension of radix > 2 (dateline VC classes)."""
    from netsim_fast.routing import needs_datelines as routing_needs_datelines

    return routing_needs_datelines(cfg.topology, cfg.dims)


# Options of the flit engine's routers, flow control and packet format.
FLIT_ONLY_OPTIONS = ("router", "switching", "vcs", "buf", "out_buf", "t_link", "t_routing", "t_crossbar",
                     "credit_delay", "headers_per_cycle", "eject_rate", "inject_vcs", "packet_flits",
                     "packet_bytes", "flit_bytes", "check_invariants", "sync")
# Options of the packet engine (None / False: not given).
PACKET_ONLY_OPTIONS = ("policy", "path_choice", "one_port", "queue_capacity")


def _validate_engine(cfg: Config) -> None:
    if cfg.router not in ROUTERS:
        raise unknown_choice("router", cfg.router, ROUTERS)
    if cfg.switching not in SWITCHINGS:
        raise unknown_choice("switching", cfg.switching, SWITCHINGS)
    if cfg.vc_realloc not in VC_REALLOCS:
        raise unknown_choice("vc-realloc", cfg.vc_realloc, VC_REALLOCS)
    if cfg.vc_alloc not in VC_ALLOCS:
        raise unknown_choice("vc-alloc", cfg.vc_alloc, VC_ALLOCS)
    _require_int("vcs", cfg.vcs, 1, MAX_VCS)
    _require_int("buf", cfg.buf, 1, 1 << 16, " flits per input lane")
    _require_int("out-buf", cfg.out_buf, 1, 1 << 16, " flits per output lane")
    for option in ("t_link", "t_routing", "t_crossbar", "credit_delay"):
        _require_int(option, getattr(cfg, option), 1, 1000, " cycles")
    _require_int("headers-per-cycle", cfg.headers_per_cycle, 0, 1 << 16, " (0 = unlimited)")
    _require_int("eject-rate", cfg.eject_rate, 1, 1 << 16, " flits per cycle")
    if cfg.engine == "flit" and cfg.routing not in FLIT_ROUTINGS:
        raise bad("routing", cfg.routing,
                  f"is not available in the flit engine; it runs {', '.join(FLIT_ROUTINGS)}")
    datelines = needs_datelines(cfg)
    if cfg.routing == "dor" and datelines and cfg.vcs % 2:
        raise bad("vcs", cfg.vcs, "routing 'dor' on a torus needs an even number of VCs (two dateline classes of V/2); pass --vcs 2, 4, ...")
    escape = 2 if datelines else 1
    if cfg.routing == "duato" and cfg.vcs < escape + 1:
        raise bad("vcs", cfg.vcs, f"routing 'duato' here needs --vcs >= {escape + 1} ({escape} escape VC(s) + at least 1 adaptive)")
    _set(cfg, "inject_vcs", parse_int_list("inject_vcs", cfg.inject_vcs))
    if cfg.inject_vcs is not None:
        for vc in cfg.inject_vcs:
            if not 0 <= vc < cfg.vcs:
                raise bad("inject-vcs", cfg.inject_vcs, f"every VC must be in 0..{cfg.vcs - 1}")
        problem = _first_hop_problem(cfg, set(cfg.inject_vcs), escape, datelines)
        if problem:
            raise bad("inject-vcs", cfg.inject_vcs, problem)


def _first_hop_problem(cfg: Config, allowed: set, escape: int, datelines: bool) -> str | None:
    """Why some packet could never take its first hop with only ``allowed`` VCs, else None.

    With datelines a packet whose first hop is a wrap-around link starts in class 1, so both
    classes must be reachable (dor), or an adaptive VC, or both escape VCs (duato)."""
    v = cfg.vcs
    if cfg.routing == "dor" and datelines:
        classes = (set(range(v // 2)), set(range(v // 2, v)))
        if not all(allowed & c for c in classes):
            return (f"routing 'dor' starts a packet in class 0 (VCs {sorted(classes[0])}) or, when its first hop "
                    f"wraps around, class 1 (VCs {sorted(classes[1])}); include VCs of both")
    if cfg.routing == "duato":
        adaptive = set(range(escape, v))
        if not allowed & adaptive and not set(range(escape)) <= allowed:
            return (f"routing 'duato' needs an adaptive VC ({sorted(adaptive)}) or every escape VC "
                    f"({sorted(range(escape))}) for a packet's first hop")
    return None


FLIT_ROUTINGS = ("dor", "duato", "dor-nodateline", "minimal") + BMG_ROUTINGS
SYNCS = ("none", "local", "global")


# -- workload ------------------------------------------------------------------------------

# Options of open-loop (Bernoulli, measured-window) traffic; finite workloads run to completion.
OPEN_LOOP_OPTIONS = ("rate", "hotspot_fraction", "hotspot_nodes", "warmup", "measure", "drain")


def is_open_loop(cfg: Config) -> bool:
    """True for the flit engine's synthetic patterns (uniform, transpose, ...)."""
    from netsim_fast.workloads.synthetic import PATTERNS

    return cfg.pattern in PATTERNS


def _validate_pattern_name(cfg: Config) -> None:
    from netsim_fast.workloads.finite import FINITE_PATTERNS, FORWARDING_PATTERNS
    from netsim_fast.workloads.synthetic import PATTERNS
    from netsim_fast.workloads.total_exchange import TE_PATTERNS

    every = PATTERNS + FINITE_PATTERNS + TE_PATTERNS + FORWARDING_PATTERNS
    if cfg.pattern is None:
        _set(cfg, "pattern", "random" if cfg.engine == "packet" else "uniform")
    if cfg.pattern not in every:
        raise unknown_choice("pattern", cfg.pattern, every)
    if cfg.engine == "packet" and cfg.pattern in PATTERNS:
        raise bad("pattern", cfg.pattern, "is open-loop traffic of the flit engine; the packet engine runs "
                  f"{', '.join(FINITE_PATTERNS + FORWARDING_PATTERNS)} (or pass --engine flit)")
    if cfg.engine == "flit" and cfg.pattern in FORWARDING_PATTERNS:
        raise bad("pattern", cfg.pattern, "runs the forwarding rules of the packet engine; pass --engine packet")


def _validate_packet_options(cfg: Config) -> None:
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS

    if cfg.engine == "flit":
        _reject_unless_default(cfg, PACKET_ONLY_OPTIONS, "applies to the packet engine only (pass --engine packet)")
        return
    if cfg.pattern in FORWARDING_PATTERNS:
        _reject_unless_default(cfg, PACKET_ONLY_OPTIONS,
                               f"does not apply to --pattern {cfg.pattern}: its forwarding rules send one packet per link and step on every port")
        return
    from netsim_fast.packet.paths import PATH_CHOICES
    from netsim_fast.packet.state import POLICIES

    if cfg.policy is None:
        _set(cfg, "policy", "fifo")
    if cfg.policy not in POLICIES:
        raise unknown_choice("policy", cfg.policy, tuple(POLICIES))
    if cfg.path_choice is None:
        _set(cfg, "path_choice", "fixed")
    if cfg.path_choice not in PATH_CHOICES:
        raise unknown_choice("path-choice", cfg.path_choice, tuple(PATH_CHOICES))
    if not isinstance(cfg.one_port, bool):
        raise bad("one-port", cfg.one_port, "expected true or false")
    if cfg.queue_capacity is None:
        _set(cfg, "queue_capacity", 0)
    _require_int("queue-capacity", cfg.queue_capacity, 0, 1 << 30, " transit packets per link queue (0 = unbounded)")


def _validate_workload(cfg: Config) -> None:
    if is_open_loop(cfg):
        _validate_open_loop(cfg)
    else:
        _reject_unless_default(cfg, OPEN_LOOP_OPTIONS,
                               f"applies to open-loop patterns only; --pattern {cfg.pattern} is a finite workload run to completion")
        _validate_finite(cfg)
    _validate_total_exchange(cfg)
    if cfg.engine == "flit":
        _validate_packet_size(cfg)


def _validate_total_exchange(cfg: Config) -> None:
    """``--grain-bytes`` and the checks of the total-exchange patterns (workloads/total_exchange.py)."""
    from netsim_fast.workloads.total_exchange import TE_PATTERNS, check_config

    if cfg.pattern in TE_PATTERNS:
        check_config(cfg)
    elif cfg.grain_bytes is not None:
        raise bad("grain-bytes", cfg.grain_bytes, f"applies to the total exchanges {', '.join(TE_PATTERNS)} only")


def _validate_open_loop(cfg: Config) -> None:
    from netsim_fast.workloads.synthetic import check_pattern

    for name in ("messages", "messages_file"):
        if getattr(cfg, name) is not None:
            raise bad(name, getattr(cfg, name), f"does not apply to the open-loop --pattern {cfg.pattern} (it takes --rate)")
    if cfg.time_independent:
        raise bad("time-independent", True, "applies to --pattern gossip-ham and gossip-one only")
    n_nodes = cfg.n_nodes
    if n_nodes is not None:
        check_pattern(cfg.pattern, cfg.radix, n_nodes)
    if isinstance(cfg.rate, bool) or not isinstance(cfg.rate, (int, float)) or not math.isfinite(cfg.rate):
        raise bad("rate", cfg.rate, "expected a number of flits per node per cycle")
    if not 0 <= cfg.rate <= 1:
        raise bad("rate", cfg.rate, "must be in [0, 1] flits per node per cycle (a node injects at most one flit per cycle)")
    if not 0 <= cfg.hotspot_fraction <= 1:
        raise bad("hotspot-fraction", cfg.hotspot_fraction, "must be in [0, 1]")
    _set(cfg, "hotspot_nodes", parse_int_list("hotspot_nodes", cfg.hotspot_nodes) or (0,))
    if n_nodes is not None:
        for node in cfg.hotspot_nodes:
            if not 0 <= node < n_nodes:
                raise bad("hotspot-nodes", cfg.hotspot_nodes, f"node ids must be in 0..{n_nodes - 1}")


def _validate_finite(cfg: Config) -> None:
    """Options of the finite workloads (workloads/finite.py) and of gossip."""
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS, GOSSIP_PATTERNS, PHASED_PATTERNS
    from netsim_fast.workloads.total_exchange import TE_PATTERNS

    pattern = cfg.pattern
    if pattern == "random":
        if cfg.messages is None:
            _set(cfg, "messages", 1)
        _require_int("messages", cfg.messages, 1, 1 << 24, " messages per node")
    elif cfg.messages is not None:
        raise bad("messages", cfg.messages, f"applies to --pattern random only (--pattern {pattern} fixes who sends what)")
    if pattern == "file":
        if not cfg.messages_file:
            raise bad("messages-file", None, "--pattern file needs --messages-file PATH (one 'src dst [release_cycle]' per line)")
        if not os.path.isfile(cfg.messages_file):
            raise bad("messages-file", cfg.messages_file, "no such file")
    elif cfg.messages_file is not None:
        raise bad("messages-file", cfg.messages_file, "applies to --pattern file only")
    if pattern == "embed-debruijn":
        _check_embedding(cfg)
    if cfg.sync != "none" and pattern not in PHASED_PATTERNS + TE_PATTERNS:
        raise bad("sync", cfg.sync, f"gates the steps of {', '.join(PHASED_PATTERNS + TE_PATTERNS)}; --pattern {pattern} has none")
    if cfg.time_independent and pattern not in FORWARDING_PATTERNS:
        raise bad("time-independent", True, "applies to --pattern gossip-ham and gossip-one only")
    if pattern in GOSSIP_PATTERNS:
        if cfg.topology != "torus":
            raise bad("pattern", pattern, f"is gossip on a full-port torus (papers/003), not --topology {cfg.topology}; "
                      "pass --topology torus --dims n1,n2,...")
        if min(cfg.dims) < 3:
            raise bad("dims", cfg.dims, f"--pattern {pattern} needs every radix >= 3 (a radix-2 ring has one link here, the paper's has two)")
    if pattern in FORWARDING_PATTERNS:
        if cfg.routing != "minimal":
            raise bad("routing", cfg.routing, f"does not apply to --pattern {pattern}: it follows its own forwarding rules")
        _reject_unless_default(cfg, ("cycles", "window"),
                               f"does not apply to --pattern {pattern}: it runs to completion and its trace has one row per step")


def _check_embedding(cfg: Config) -> None:
    base = 2 if cfg.base is None else cfg.base
    _require_int("base", base, 2, what=" (the guest de Bruijn graph's base)")
    _set(cfg, "base", base)
    n_nodes = cfg.n_nodes
    if n_nodes is None:  # an edge-list host: checked once the file is read (workloads/finite.py)
        return
    size = base
    while size < n_nodes:
        size *= base
    if size != n_nodes:
        raise bad("nodes" if cfg.radix is None else "dims", cfg.dims or n_nodes,
                  f"--pattern embed-debruijn places a base-{base} de Bruijn graph on all {n_nodes} nodes, "
                  f"so the node count must be a power of --base {base}")


def _validate_packet_size(cfg: Config) -> None:
    _require_int("flit-bytes", cfg.flit_bytes, 1)
    if cfg.packet_bytes is not None:
        _require_int("packet-bytes", cfg.packet_bytes, 1)
        flits = -(-cfg.packet_bytes // cfg.flit_bytes)
        # both may be given when they agree: a normalised Config (a trace's, a sweep's) has both
        if cfg.packet_flits is not None and cfg.packet_flits != flits:
            raise bad("packet-bytes", cfg.packet_bytes,
                      f"is {flits} flits of {cfg.flit_bytes} bytes, but --packet-flits is {cfg.packet_flits}; give one of them")
        _set(cfg, "packet_flits", flits)
    if cfg.packet_flits is None:
        _set(cfg, "packet_flits", 8)
    _require_int("packet-flits", cfg.packet_flits, 1, 1 << 20)
    if cfg.switching == "vct" and cfg.buf < cfg.packet_flits:
        raise bad("buf", cfg.buf, f"virtual cut-through needs input lanes that hold a whole packet (--buf >= {cfg.packet_flits})")
    if cfg.sync not in SYNCS:
        raise unknown_choice("sync", cfg.sync, SYNCS)


# -- measurement -----------------------------------------------------------------------------


def _validate_measurement(cfg: Config) -> None:
    _require_int("warmup", cfg.warmup, 0, what=" cycles")
    _require_int("measure", cfg.measure, 1, what=" cycles")
    if cfg.drain is None and is_open_loop(cfg):
        _set(cfg, "drain", 5 * cfg.measure)
    _require_int("drain", cfg.drain, 0, what=" cycles")
    _require_int("cycles", cfg.cycles, 1, what=" cycles")
    _require_int("window", cfg.window, 1, what=" cycles")
    _require_int("deadlock-cycles", cfg.deadlock_cycles, 1, what=" cycles")


# -- netsim-fast model rrg -------------------------------------------------------------------

MODEL_RRG_PATTERNS = ("random", "total-exchange", "embed-debruijn")
MODEL_RRG_POLICIES = ("fifo", "srpf", "lrpf")  # the message-passing model's eqs. (11), (12), (15)


@dataclass(frozen=True, kw_only=True)
class RrgModelConfig:
    """``netsim-fast model rrg``: papers/000's model, and with ``compare`` the packet engine on
    ``graphs`` seeded random regular graphs (graph g: graph seed and traffic seed ``seed + g``).

    The workload fields are validated as the ``run --engine packet --topology rrg`` they stand
    for (``as_run_config``); ``embed-debruijn`` is the binary de Bruijn graph (predicted with
    2 messages per node).
    """

    nodes: int | None = None
    degree: int | None = None
    pattern: str = "random"
    messages: int | None = None
    policy: str = "fifo"
    tolerance: float = 1e-6
    include_self: bool = False
    compare: bool = False
    graphs: int | None = None  # default 10 with compare
    path_choice: str | None = None  # default fixed with compare
    seed: int | None = None  # default 1 with compare

    def __post_init__(self) -> None:
        if self.pattern not in MODEL_RRG_PATTERNS:
            raise unknown_choice("pattern", self.pattern, MODEL_RRG_PATTERNS)
        if self.policy not in MODEL_RRG_POLICIES:
            if self.policy == "random":
                raise bad("policy", self.policy, "has no model (it covers fifo, srpf, lrpf); simulate it with netsim-fast run --engine packet --policy random")
            raise unknown_choice("policy", self.policy, MODEL_RRG_POLICIES)
        if self.compare:
            for name, default in (("graphs", 10), ("path_choice", "fixed"), ("seed", 1)):
                if getattr(self, name) is None:
                    object.__setattr__(self, name, default)
            _require_int("graphs", self.graphs, 1, 10000, " (seeded graphs to simulate)")
        else:
            for name in ("graphs", "path_choice", "seed"):
                if getattr(self, name) is not None:
                    raise bad(name, getattr(self, name), "applies with --compare only (it sets up the simulated graphs)")
        run = self.as_run_config()  # nodes, degree, messages, path choice, seed as run checks them
        object.__setattr__(self, "messages", run.messages)
        tol = self.tolerance
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol < 1:
            raise bad("tolerance", tol, "must lie in (0, 1): the probability 1 - P(distance <= d) the diameter estimate of eq. (7) leaves")

    def as_run_config(self) -> Config:
        """The ``run --engine packet`` configuration of graph 0 of the comparison."""
        return Config(topology="rrg", nodes=self.nodes, degree=self.degree, engine="packet",
                      pattern=self.pattern, messages=self.messages, policy=self.policy,
                      path_choice=self.path_choice, seed=1 if self.seed is None else self.seed)
