"""The booksim router's part of ``Config``: BookSim2's router keys, with BookSim2's defaults.

Field names are BookSim2's configuration keys (docs/booksim-keys.md), so a BookSim2 file read
by ``config/booksim_file.py`` maps onto ``Config`` one to one. The knobs apply to
``--router booksim`` only; given with another router they are an error, and the options of the
other routers (``--t-routing``, ``--t-crossbar``, ``--t-link``, ...) are an error with this
one. Values the router does not implement yet are refused with what is allowed, never ignored.
Which netsim-fast option the booksim router reads for each BookSim2 key: docs/booksim-keys.md,
"The booksim router's options".
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from netsim_fast.checks import bad
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import set_field as _set

PRIORITIES = ("none", "class", "age", "network_age", "local_age", "queue_length", "hop_count", "sequence")


@dataclass(frozen=True, kw_only=True)
class BooksimFields:
    """BookSim2's IQ-router keys (``--router booksim``), defaults as in BookSim2."""

    routing_delay: int = 1
    vc_alloc_delay: int = 1
    sw_alloc_delay: int = 1
    st_prepare_delay: int = 0
    st_final_delay: int = 1
    input_speedup: int = 1
    output_speedup: int = 1
    internal_speedup: float = 1.0
    output_buffer_size: int = -1
    noq: bool = False
    vc_allocator: str = "islip"
    sw_allocator: str = "islip"
    alloc_iters: int = 1
    arb_type: str = "round_robin"
    priority: str = "none"
    speculative: bool = False
    use_noc_latency: bool = True
    wait_for_tail_credit: bool = False
    vc_busy_when_full: bool = False
    vc_prioritize_empty: bool = False
    hold_switch_for_packet: bool = False


BOOKSIM_OPTIONS = tuple(f.name for f in fields(BooksimFields))
# Options of the lanes and iq routers, and what the booksim router reads instead.
OTHER_ROUTER_OPTIONS = {
    "switching": "BookSim2's IQ router is wormhole",
    "out_buf": "it has output FIFOs; see --output-buffer-size",
    "t_link": "channel latencies are BookSim2's: 1 on a mesh, 2 on a torus (see --use-noc-latency)",
    "t_routing": "it reads --routing-delay",
    "t_crossbar": "it reads --st-prepare-delay and --st-final-delay",
    "headers_per_cycle": "every VC routes in its own routing stage",
    "eject_rate": "a terminal takes one flit per cycle",
    "inject_vcs": "a terminal uses every VC",
    "vc_alloc": "it reads --vc-allocator",
    "vc_realloc": "see --wait-for-tail-credit",
}
_NOT_YET = "is not implemented in the booksim router yet"


def _fixed(cfg, name: str, allowed, what: str = "") -> None:
    value = getattr(cfg, name)
    if value != allowed:
        if isinstance(allowed, bool):
            value, allowed = ("on" if value else "off"), ("on" if allowed else "off")
        raise bad(name.replace("_", "-"), value, f"{_NOT_YET}{what}; allowed: {allowed}")


def validate_booksim(cfg) -> None:
    """The booksim knobs: refused away from ``--router booksim``; there, checked and defaulted."""
    defaults = {f.name: f.default for f in fields(BooksimFields)}
    if cfg.router != "booksim":
        for name in BOOKSIM_OPTIONS:
            if getattr(cfg, name) != defaults[name]:
                raise bad(name.replace("_", "-"), getattr(cfg, name), "applies to --router booksim only")
        return
    from dataclasses import fields as all_fields

    other = {f.name: f.default for f in all_fields(cfg)}
    for name, why in OTHER_ROUTER_OPTIONS.items():
        if getattr(cfg, name) not in (None, other[name]):
            raise bad(name.replace("_", "-"), getattr(cfg, name), f"applies to --router lanes and iq, not booksim ({why})")
    if cfg.topology == "dragonfly":
        _validate_booksim_dragonfly(cfg)
    elif cfg.topology == "flatfly":
        _validate_booksim_flatfly(cfg)
    elif cfg.topology == "fattree":
        _validate_booksim_fattree(cfg)
    elif cfg.topology == "fly":
        if cfg.noq:  # the routing itself is checked with the others (config/router.py)
            raise bad("noq", "on", "on a fly not supported (noq slices the VCs by dimension-order ports)")
    elif cfg.topology == "cmesh":
        _validate_booksim_cmesh(cfg)
    elif cfg.topology == "edgelist":
        _validate_booksim_anynet(cfg)
    elif cfg.topology not in ("mesh", "torus"):
        raise bad("topology", cfg.topology, "the booksim router runs BookSim2's k-ary n-cubes (mesh, torus), its "
                                            "dragonflynew (dragonfly), flatfly (flatfly), fattree (fattree), cmesh "
                                            "(cmesh), anynet (edgelist) and fly (fly)")
    if cfg.topology == "torus" and 2 in cfg.dims:
        raise bad("dims", ",".join(map(str, cfg.dims)),
                  "the booksim router needs tori of radix >= 3 (BookSim2 keeps two links between the nodes of a "
                  "radix-2 ring, netsim-fast one)")
    _require_int("routing-delay", cfg.routing_delay, 0, 1000, " cycles")
    for name in ("vc_alloc_delay", "sw_alloc_delay"):
        _require_int(name.replace("_", "-"), getattr(cfg, name), 1, 1000, " cycles")
    if cfg.speculative and cfg.sw_alloc_delay == 1 and cfg.vc_alloc_delay > 1:
        raise bad("vc-alloc-delay", cfg.vc_alloc_delay, "with --speculative and --sw-alloc-delay 1 BookSim2 stops on an "
                                                        "assertion at the first switch grant; allowed: 1, or a "
                                                        "--sw-alloc-delay >= 2")
    for name in ("st_prepare_delay", "st_final_delay", "credit_delay"):
        _require_int(name.replace("_", "-"), getattr(cfg, name), 0, 1000, " cycles")
    if cfg.st_prepare_delay + cfg.st_final_delay < 1:
        raise bad("st-final-delay", cfg.st_final_delay, "st_prepare_delay + st_final_delay must be >= 1 (BookSim2 "
                                                         "cannot run a zero-cycle crossbar)")
    from netsim_fast.flit.booksim.allocators.names import parse_allocator

    for name in ("vc_allocator", "sw_allocator"):
        try:
            parse_allocator(getattr(cfg, name))
        except ValueError as e:
            raise bad(name.replace("_", "-"), getattr(cfg, name), str(e)) from None
    for name in ("alloc_iters", "arb_type"):
        if getattr(cfg, name) != defaults[name]:
            raise bad(name.replace("_", "-"), getattr(cfg, name),
                      "BookSim2's IQ router ignores it (docs/booksim-router.md, section 1); give the iterations or the "
                      "arbiter in the allocator's name instead, e.g. --vc-allocator 'islip(2)' or "
                      "'separable_input_first(matrix)'")
    if cfg.noq and cfg.concentration > 1:
        raise bad("noq", "on", f"with --concentration {cfg.concentration} not supported (noq slices the VCs by the "
                               "router's port numbers, counted with one terminal port)")
    if cfg.noq and cfg.routing_delay != 0:
        raise bad("noq", "on", "next-hop output queueing needs lookahead routing: pass --routing-delay 0")
    ports = 2 * len(cfg.dims or ()) + 1  # a dragonfly has no dims (and no noq)
    need = 2 * ports - 1 if cfg.topology == "torus" else ports  # a slice per port of dim_order's VC range
    if cfg.noq and cfg.vcs < need:
        raise bad("noq", "on", f"next-hop output queueing needs --vcs >= {need} here (one VC per router output in "
                               f"each range dim_order gives{', half of the VCs on a torus' if need > ports else ''}; "
                               "BookSim2 stops on an assertion with fewer)")
    if cfg.noq and 2 in (cfg.dims or ()):
        raise bad("noq", "on", "needs radix >= 3 (a radix-2 dimension has one port in netsim-fast, two in BookSim2, "
                               "and noq slices the VCs by port number)")
    if not isinstance(cfg.internal_speedup, (int, float)) or not 1.0 <= cfg.internal_speedup <= 64:
        raise bad("internal-speedup", cfg.internal_speedup, "expected 1.0 to 64 router steps per cycle (below 1.0 "
                                                            f"{_NOT_YET})")
    for name in ("input_speedup", "output_speedup"):
        _require_int(name.replace("_", "-"), getattr(cfg, name), 1, cfg.vcs, f" (at most --vcs {cfg.vcs})")
    if cfg.output_speedup > cfg.input_speedup and "max_size" in cfg.sw_allocator:
        raise bad("sw-allocator", cfg.sw_allocator, "max_size needs output_speedup <= input_speedup (with more "
                                                    "crossbar outputs than inputs BookSim2 indexes out of range)")
    _require_int("output-buffer-size", cfg.output_buffer_size, -1, 1 << 16, " flits (-1 = unbounded)")
    if cfg.output_buffer_size == 0:
        raise bad("output-buffer-size", 0, "expected -1 (unbounded) or a bound >= 1 flit")
    if cfg.priority not in PRIORITIES:
        raise bad("priority", cfg.priority, f"choose one of {', '.join(PRIORITIES)}")

    _validate_booksim_routing(cfg)


# BookSim2's routing functions the booksim router runs, per topology (flit/booksim/routefns.py)
BOOKSIM_MESH_ROUTINGS = ("dim_order", "dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt",
                         "planar_adapt", "romm", "romm_ni", "valiant")
BOOKSIM_TORUS_ROUTINGS = ("dim_order", "dim_order_ni", "dim_order_bal", "min_adapt")
_REFUSED = {
    ("mesh", "limited_adapt"): "is not registered in BookSim2 (routefunc.cpp leaves limited_adapt_mesh out of its "
                               "map: BookSim2 stops with \"Invalid routing function\")",
    ("torus", "valiant"): "aborts in BookSim2 (valiant_torus reads an uninitialised ring partition once a flit "
                          "continues in a dimension; docs/booksim-router.md section 8)",
    ("torus", "valiant_ni"): "aborts in BookSim2 (valiant_ni_torus reads an uninitialised ring partition once a "
                             "flit continues in a dimension; docs/booksim-router.md section 8)",
}


def _validate_booksim_dragonfly(cfg) -> None:
    """BookSim2's ``dragonflynew`` with its ``min`` routing (the consecutive arrangement with one
    global link between every two groups, VC 0 before the global hop and VC 1 from it on) or its
    ``ugal`` (three phases, one VC each)."""
    if cfg.routing == "ugal" and cfg.vcs != 3:
        raise bad("vcs", cfg.vcs, "--routing ugal on a dragonfly needs --vcs 3 (BookSim2's ugal_dragonflynew asserts "
                                  "exactly 3: one VC per phase)")
    if cfg.routing not in ("min", "ugal"):
        raise bad("routing", cfg.routing, "on a dragonfly the booksim router runs BookSim2's min (min_dragonflynew) "
                                          "and ugal (ugal_dragonflynew)")
    full = cfg.group_routers * cfg.global_links + 1
    if cfg.groups != full:
        raise bad("groups", cfg.groups, f"BookSim2's dragonflynew has G = A*H + 1 = {full} groups (one global link "
                                        "between every two)")
    if cfg.global_arrangement != "consecutive":
        raise bad("global-arrangement", cfg.global_arrangement, "BookSim2's dragonflynew arranges its global links "
                                                                "consecutively; pass consecutive")
    if cfg.vcs < 2:
        raise bad("vcs", cfg.vcs, "--routing min on a dragonfly needs --vcs >= 2 (VC 0 before the global hop, VC 1 "
                                  "after; BookSim2 indexes past the VCs with fewer)")
    if cfg.noq:
        raise bad("noq", "on", "on a dragonfly not supported (noq slices the VCs by dimension-order ports)")


def _validate_booksim_flatfly(cfg) -> None:
    """BookSim2's ``flatfly`` (flatfly_onchip.cpp) with ``ran_min``. Its channel latencies come from
    a floor plan that BookSim2 draws for two dimensions of k routers, each a square tile of
    ``xr`` x ``xr`` terminals (c = xr^2); with ``use_noc_latency = 0`` every channel takes 1 cycle
    and any n and c run."""
    from netsim_fast.flit.booksim.driver import flatfly_side

    if cfg.routing != "ran_min":
        raise bad("routing", cfg.routing, "on a flatfly the booksim router runs BookSim2's ran_min (ran_min_flatfly, "
                                          "dimension order; its xyyx, valiant and ugal are not there yet)")
    if cfg.noq:
        raise bad("noq", "on", "on a flatfly not supported (noq slices the VCs by dimension-order ports)")
    if not cfg.use_noc_latency:
        return
    if cfg.n != 2:
        raise bad("n", cfg.n, "BookSim2 lays a flatfly out on a plane only for n = 2; pass --no-use-noc-latency "
                              "(every channel 1 cycle) for other n")
    side = flatfly_side(cfg.concentration)
    if not 1 <= side <= 3:
        raise bad("concentration", cfg.concentration, "a flatfly router's terminals form a square tile (c = xr * xr) "
                                                       "in BookSim2's floor plan: allowed 1, 4 or 9 (larger tiles "
                                                       "lengthen its terminal channels, not modelled), or pass "
                                                       "--no-use-noc-latency")


def _validate_booksim_fattree(cfg) -> None:
    """BookSim2's ``fattree`` (a k-ary n-tree) with ``nca``: nearest common ancestor, a random up
    port at each router, every VC (routefunc.cpp's ``fattree_nca``)."""
    if cfg.routing != "nca":
        raise bad("routing", cfg.routing, "on a fattree the booksim router runs BookSim2's nca (fattree_nca; anca is "
                                          "not there yet)")
    if cfg.noq:
        raise bad("noq", "on", "on a fattree not supported (noq slices the VCs by dimension-order ports)")


BOOKSIM_CMESH_ROUTINGS = ("dor", "dor_no_express", "xy_yx_no_express")


def _validate_booksim_cmesh(cfg) -> None:
    """BookSim2's ``cmesh`` with ``dor`` (express channels), ``dor_no_express`` or
    ``xy_yx_no_express``; its ``xy_yx`` with express channels is not there yet."""
    if cfg.routing not in BOOKSIM_CMESH_ROUTINGS:
        raise bad("routing", cfg.routing, f"on a cmesh the booksim router runs BookSim2's "
                                          f"{', '.join(BOOKSIM_CMESH_ROUTINGS)} (xy_yx with express channels is not "
                                          "there yet)")
    if cfg.routing == "xy_yx_no_express" and cfg.vcs < 2:
        raise bad("vcs", cfg.vcs, "xy_yx_no_express splits the VCs between its two orders: at least 2")
    if cfg.noq:
        raise bad("noq", "on", "on a cmesh not supported (noq slices the VCs by one terminal port per router)")


def _validate_booksim_anynet(cfg) -> None:
    """BookSim2's ``anynet`` (an edge-list or anynet file, topologies/anynet.py) with its ``min``:
    one shortest-latency next hop per destination from a table (routing/anynet_min.py), every VC."""
    if cfg.routing != "min":
        raise bad("routing", cfg.routing, "on an edge-list or anynet file the booksim router runs BookSim2's min "
                                          "(min_anynet: a next-hop table)")
    if cfg.noq:
        raise bad("noq", "on", "on an anynet file not supported (noq slices the VCs by dimension-order ports)")


def _validate_booksim_routing(cfg) -> None:
    """The routing function: BookSim2's name, registered for the topology, with the VCs it needs."""
    if cfg.topology in ("dragonfly", "flatfly", "fattree", "cmesh", "edgelist", "fly"):
        return  # _validate_booksim_dragonfly, _flatfly, _fattree, _cmesh, _anynet; the fly's in config/router.py
    if cfg.routing == "dor" and cfg.topology == "mesh":
        _set(cfg, "routing", "dim_order")  # the same function: lowest dimension first, every VC
    allowed = BOOKSIM_MESH_ROUTINGS if cfg.topology == "mesh" else BOOKSIM_TORUS_ROUTINGS
    if (cfg.topology, cfg.routing) in _REFUSED:
        raise bad("routing", cfg.routing, f"{_REFUSED[cfg.topology, cfg.routing]}; allowed on a {cfg.topology} "
                                          f"with --router booksim: {', '.join(allowed)}")
    if cfg.routing not in allowed:
        hint = (" (netsim-fast's dor places a dateline; BookSim2's dim_order splits the VCs by its own partition "
                "rule)" if cfg.routing == "dor" else "")
        raise bad("routing", cfg.routing, f"the booksim router runs BookSim2's routing functions{hint}; allowed on "
                                          f"a {cfg.topology}: {', '.join(allowed)}")
    if cfg.routing == "dim_order":
        return
    if cfg.noq:
        raise bad("routing", cfg.routing, f"next-hop output queueing (--noq) with it {_NOT_YET}; allowed there: "
                                          "dim_order")
    torus_adapt = cfg.topology == "torus" and cfg.routing == "min_adapt"
    if torus_adapt and cfg.speculative:
        raise bad("speculative", "on", f"with --routing min_adapt on a torus {_NOT_YET} (a head may request two "
                                       "ports); allowed: off")
    if torus_adapt and cfg.vcs < 4:
        raise bad("vcs", cfg.vcs, "--routing min_adapt on a torus needs --vcs >= 4 (escape VCs 0 and 1, adaptive VC "
                                  "3; BookSim2 indexes past the VCs with fewer)")
    n = 1
    for k in cfg.dims:
        n *= k
    need = {"dim_order_ni": (n, f"a slice of VCs per destination: {n} nodes"),
            "romm_ni": (n, f"a slice of VCs per destination: {n} nodes"),
            "dim_order_pni": (max(cfg.dims), f"a slice of VCs per coordinate: radix {max(cfg.dims)}"),
            "planar_adapt": (1, ""), "min_adapt": (1, "")}.get(cfg.routing, (2, "two VC classes"))
    if cfg.vcs < need[0]:
        raise bad("vcs", cfg.vcs, f"--routing {cfg.routing} needs --vcs >= {need[0]} ({need[1]}; BookSim2 stops on "
                                  "an assertion with fewer)")
