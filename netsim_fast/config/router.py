"""The engine, router and routing part of ``Config``.

``engine`` picks the simulator (``flit`` or ``packet``; ``None`` describes a topology only). The
routing must fit the topology and the engine, and defaults to ``dor`` on grids and ``minimal``
elsewhere (``minimal`` everywhere on the packet engine). The router, flow-control and timing
options are the flit engine's (``FLIT_ONLY_OPTIONS``); ``_validate_engine`` checks them, with
the virtual-channel needs of the deadlock-free routings (dateline classes, escape VCs).
"""

from __future__ import annotations

from dataclasses import dataclass

from netsim_fast.checks import bad, parse_int_list, unknown_choice
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import set_field as _set
from netsim_fast.config.topology import TopologyFields
from netsim_fast.topologies import GRID_TOPOLOGIES, TOPOLOGIES, TREE_TOPOLOGIES

ENGINES = ("flit", "packet")
ROUTERS = ("lanes", "iq", "booksim")
SWITCHINGS = ("wormhole", "vct")
VC_REALLOCS = ("auto", "atomic", "eager")
VC_ALLOCS = ("age", "rr")
MAX_VCS = 32  # VC masks are machine words


@dataclass(frozen=True, kw_only=True)
class RouterFields:
    """The engine, router and routing fields of ``Config`` (after the topology's)."""

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
    credit_delay: int | None = None  # 1; BookSim2's 0 under --router booksim
    headers_per_cycle: int = 1
    eject_rate: int = 1
    inject_vcs: tuple[int, ...] | None = None
    vc_realloc: str = "auto"
    vc_alloc: str = "age"
    # dragonfly: cycles a flit (and a credit) takes on a link inside a group / between groups,
    # BookSim2's channel latency (flit/wires.py); None: --t-link (booksim router: 10 and 100)
    local_latency: int | None = None
    global_latency: int | None = None
    up_port: str = "random"  # updown: random | dest-mod-k | adaptive (routing/updown.py)


# -- routing -------------------------------------------------------------------------------

# Which topologies each routing fits. Grid routings need coordinates and ports per direction;
# the BMG routers rely on the power-of-two jumps of the binomial graph.
BMG_ROUTINGS = ("bmg-bfs", "bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe", "bmg-equiclass", "chord")
ROUTING_TOPOLOGIES = {
    "dor": GRID_TOPOLOGIES,
    "duato": GRID_TOPOLOGIES,
    "dor-nodateline": GRID_TOPOLOGIES,
    # BookSim2's routing functions, --router booksim only (config/booksim_router.py), registered
    # for the topologies BookSim2 registers them for (routefunc.cpp)
    "dim_order": ("mesh", "torus"),
    "dim_order_ni": ("mesh", "torus"),
    "dim_order_pni": ("mesh",),
    "xy_yx": ("mesh",),
    "adaptive_xy_yx": ("mesh",),
    "min_adapt": ("mesh", "torus"),
    "planar_adapt": ("mesh",),
    "limited_adapt": ("mesh",),
    "romm": ("mesh",),
    "romm_ni": ("mesh",),
    # BookSim2's on meshes and tori; ours on the dragonfly and the Hamming graphs
    "valiant": ("mesh", "torus", "dragonfly", "flatfly", "hyperx"),
    "ugal-l": ("dragonfly", "flatfly", "hyperx"),  # routing/dragonfly_valiant.py, hamming_valiant.py
    "ugal-g": ("dragonfly", "flatfly", "hyperx"),
    "dim-adaptive": ("hyperx", "flatfly"),  # routing/hamming_adaptive.py
    "min-adaptive": ("hyperx", "flatfly"),
    "valiant_ni": ("torus",),
    "dim_order_bal": ("torus",),
    "min": ("dragonfly", "edgelist"),  # BookSim2's min_dragonflynew (dragonfly.cpp), min_anynet (anynet.cpp)
    "ran_min": ("flatfly",),  # BookSim2's ran_min_flatfly (flatfly_onchip.cpp)
    "nca": ("fattree",),  # BookSim2's fattree_nca (routefunc.cpp)
    "dest_tag": ("fly",),  # BookSim2's dest_tag_fly (routefunc.cpp)
    "ugal": ("dragonfly",),  # BookSim2's ugal_dragonflynew (dragonfly.cpp)
    "dor_no_express": ("cmesh",),  # BookSim2's cmesh functions (cmesh.cpp); its dor is the "dor" above
    "xy_yx_no_express": ("cmesh",),
    "minimal": TOPOLOGIES,
    "updown": TOPOLOGIES,  # routing/updown.py
    **{name: ("bmg",) for name in BMG_ROUTINGS},
}


def default_routing(topology: str, engine: str | None = "flit") -> str:
    """``dor`` on grids and ``minimal`` elsewhere; ``minimal`` everywhere on the packet engine.

    The packet engine routes from a table of all shortest-path next hops (papers/000's model
    assumes shortest paths, and ``--path-choice random`` spreads packets over them); on grids
    ``--routing dor`` gives it the flit engine's dimension-order path instead.
    """
    if engine == "packet" or topology == "fly":  # the butterfly's minimal is destination-tag routing
        return "minimal"
    if topology in TREE_TOPOLOGIES:
        return "updown"
    return "dor" if topology in GRID_TOPOLOGIES else "minimal"


# Routings the packet engine runs: a next-hop table (routing/tables.py); dor and the BMG
# routers as one-port tables.
PACKET_ROUTINGS = ("minimal", "dor") + BMG_ROUTINGS
FLIT_ROUTINGS = ("dor", "duato", "dor-nodateline", "minimal") + BMG_ROUTINGS + ("valiant", "ugal-l", "ugal-g", "updown",
                                                                                  "dim-adaptive", "min-adaptive")
# Minimal adaptive routings of the HyperX and flattened butterfly (routing/hamming_adaptive.py)
ADAPTIVE_ROUTINGS = ("dim-adaptive", "min-adaptive")
# The non-minimal routings of the dragonfly, flattened butterfly and HyperX (lanes and iq
# routers; routing/dragonfly_valiant.py, hamming_valiant.py)
NONMIN_ROUTINGS = ("valiant", "ugal-l", "ugal-g")
NONMIN_TOPOLOGIES = ("dragonfly", "flatfly", "hyperx")
BOOKSIM_ROUTINGS = ("dim_order", "dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt",
                    "planar_adapt", "limited_adapt", "romm", "romm_ni", "valiant", "valiant_ni",
                    "dim_order_bal", "min", "ran_min", "nca", "ugal", "dor_no_express", "xy_yx_no_express",
                    "dest_tag")  # the booksim router's own (flit/booksim/routefns.py)

# Options of the flit engine's routers, flow control and packet format.
FLIT_ONLY_OPTIONS = ("router", "switching", "vcs", "buf", "out_buf", "t_link", "t_routing", "t_crossbar",
                     "credit_delay", "headers_per_cycle", "eject_rate", "inject_vcs", "packet_flits",
                     "packet_bytes", "flit_bytes", "check_invariants", "sync", "vc_alloc", "vc_realloc",
                     "local_latency", "global_latency")


def needs_datelines(cfg: TopologyFields) -> bool:
    """True when the topology has a ring dimension of radix > 2 (dateline VC classes)."""
    from netsim_fast.routing import needs_datelines as routing_needs_datelines

    return routing_needs_datelines(cfg.topology, cfg.dims)


# -- validation ----------------------------------------------------------------------------
# Each check takes the assembled Config: the routing must fit its topology and dims.


def _validate_routing(cfg: RouterFields) -> None:
    if cfg.router == "booksim" and cfg.engine == "flit" and cfg.topology == "clos":
        raise bad("router", cfg.router, "does not run --topology clos (BookSim2 has no folded Clos; its fattree is "
                                        "--topology fattree); use --router lanes or iq with --routing updown")
    if cfg.routing is None:
        booksim = cfg.router == "booksim" and cfg.engine == "flit"
        own = {"dragonfly": "min", "fattree": "nca", "edgelist": "min", "fly": "dest_tag"}
        _set(cfg, "routing", own.get(cfg.topology, "dim_order") if booksim else default_routing(cfg.topology, cfg.engine))
    if cfg.routing not in ROUTING_TOPOLOGIES:
        raise unknown_choice("routing", cfg.routing, tuple(ROUTING_TOPOLOGIES))
    if cfg.topology == "fly":
        _validate_fly_routing(cfg)
    fits = ROUTING_TOPOLOGIES[cfg.routing]
    if cfg.routing == "min" and cfg.topology not in fits:
        raise bad("routing", cfg.routing, f"is BookSim2's min on its dragonflynew (--topology dragonfly) and anynet "
                                          f"(--topology edgelist), --router booksim; on --topology {cfg.topology} use "
                                          f"--routing minimal (lanes or iq router)")
    if cfg.routing in ("ugal-l", "ugal-g") and cfg.topology not in fits:
        raise bad("routing", cfg.routing, f"runs on --topology {', '.join(fits)} (not on {cfg.topology})")
    if cfg.topology not in fits:
        raise bad("routing", cfg.routing, f"does not fit --topology {cfg.topology}; it needs one of {', '.join(fits)} (use --routing minimal)")
    if cfg.engine == "packet" and cfg.routing not in PACKET_ROUTINGS:
        raise bad("routing", cfg.routing, "is not available in the packet engine; it runs minimal (any topology), dor (tori, meshes, hypercubes) and the BMG routers (bmg)")
    _require_int("loops", cfg.loops, 0, 64, " (equivalence-class loops of bmg-equiclass)")
    if cfg.routing != "bmg-equiclass" and cfg.loops != 4:
        raise bad("loops", cfg.loops, "applies to --routing bmg-equiclass only (its equivalence-class loops)")


def _validate_fly_routing(cfg: RouterFields) -> None:
    """The butterfly has one path between each pair of terminals: destination-tag routing,
    ``minimal`` on the lanes and iq routers, BookSim2's ``dest_tag`` on the booksim router."""
    if cfg.engine == "packet":
        raise bad("topology", "fly", "runs on the flit engine only (the packet engine has one terminal per router; "
                                     "the butterfly's terminals inject at its first stage and eject at its last)")
    booksim = cfg.router == "booksim"
    allowed = "dest_tag" if booksim else "minimal"
    if cfg.routing != allowed:
        other = "minimal (--router lanes or iq)" if booksim else "dest_tag (--router booksim)"
        raise bad("routing", cfg.routing, f"does not fit --topology fly on --router {cfg.router}: the butterfly has "
                                          f"one path per pair of terminals, taken by destination-tag routing; use "
                                          f"--routing {allowed} (or {other})")


def _validate_engine(cfg: RouterFields) -> None:
    """The flit engine's router, flow-control and timing options."""
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
    if cfg.credit_delay is None:
        _set(cfg, "credit_delay", 0 if cfg.router == "booksim" else 1)
    for option in ("t_link", "t_routing", "t_crossbar", "credit_delay")[: 4 if cfg.router != "booksim" else 3]:
        _require_int(option, getattr(cfg, option), 1, 1000, " cycles")
    _validate_link_latencies(cfg)
    ours = cfg.routing in NONMIN_ROUTINGS and cfg.topology in NONMIN_TOPOLOGIES
    if ours and cfg.router == "booksim":
        raise bad("routing", cfg.routing, f"on --topology {cfg.topology} runs on --router lanes or iq (the booksim "
                                          "router runs BookSim2's valiant on meshes and tori only)")
    if cfg.routing in ADAPTIVE_ROUTINGS and cfg.router == "booksim":
        raise bad("routing", cfg.routing, "runs on --router lanes or iq (the booksim router runs BookSim2's own "
                                          "routing functions)")
    if cfg.routing in ADAPTIVE_ROUTINGS and cfg.link_failures:
        raise bad("routing", cfg.routing, f"needs every link of the HyperX (its dimension-order escape), which "
                                          f"--link-failures {cfg.link_failures} removes; use --routing minimal")
    if ours and cfg.link_failures:
        own = "the dragonfly's own minimal table" if cfg.topology == "dragonfly" else "dimension-order routes"
        raise bad("routing", cfg.routing, f"needs {own}, which --link-failures "
                                          f"{cfg.link_failures} replaces by shortest paths; use --routing minimal")
    if cfg.routing in BOOKSIM_ROUTINGS and cfg.router != "booksim" and not ours:
        hint = "dimension order and runs" if cfg.routing == "dim_order" else "routing function and runs"
        raise bad("routing", cfg.routing, f"is BookSim2's {hint} on --router booksim only"
                                          f"{' (use dor)' if cfg.routing == 'dim_order' else ''}")
    _validate_up_port(cfg)
    _require_int("headers-per-cycle", cfg.headers_per_cycle, 0, 1 << 16, " (0 = unlimited)")
    _require_int("eject-rate", cfg.eject_rate, 1, 1 << 16, " flits per cycle")
    if cfg.engine == "flit" and cfg.routing not in FLIT_ROUTINGS + BOOKSIM_ROUTINGS:
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


MAX_LINK_LATENCY = 100_000  # cycles; the event rings hold one slot per cycle of the longest


def _validate_link_latencies(cfg: RouterFields) -> None:
    """``--local-latency``, ``--global-latency``: a dragonfly's link classes (flit/wires.py), at
    least ``--t-link`` on the lanes and iq routers (the link is busy that long per flit)."""
    for option, where in (("local_latency", "inside a group"), ("global_latency", "between groups")):
        value = getattr(cfg, option)
        if value is None:
            continue
        if cfg.topology != "dragonfly":
            raise bad(option, value, f"applies to --topology dragonfly only (the cycles a flit takes on a link "
                                     f"{where}); on --topology {cfg.topology} every link takes --t-link")
        _require_int(option, value, 1, MAX_LINK_LATENCY, " cycles")
        if cfg.router != "booksim" and value < cfg.t_link:
            raise bad(option, value, f"must be >= --t-link {cfg.t_link}: it counts the cycles a flit takes on a "
                                     f"link {where}, of which the link is busy --t-link")


def _validate_up_port(cfg: RouterFields) -> None:
    from netsim_fast.routing.updown import UP_CHOICES

    if cfg.up_port not in UP_CHOICES:
        raise unknown_choice("up-port", cfg.up_port, tuple(UP_CHOICES))
    if cfg.up_port != "random" and cfg.routing != "updown":
        raise bad("up-port", cfg.up_port, f"applies to --routing updown only (not {cfg.routing})")
    if cfg.routing == "updown" and cfg.router == "booksim":
        raise bad("routing", cfg.routing, "runs on --router lanes or iq (the booksim router runs BookSim2's own "
                                          "routing functions)")


def _first_hop_problem(cfg: RouterFields, allowed: set, escape: int, datelines: bool) -> str | None:
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
