"""BookSim2's networks in its configuration files: which topologies and routing functions
``--booksim-config`` maps, and how each topology's keys become ``Config`` fields.

``read_network`` reads ``topology``, ``k``, ``n``, ``c``, the floor-plan keys (``x``, ``y``,
``xr``, ``yr``), ``network_file`` and ``routing_function`` through the reader of
config/booksim_file.py (``r.number``, ``r.choice``, ``r.fail``), checking what BookSim2 asserts
for each network, and fills ``out``.
"""

from __future__ import annotations

NETWORK_ROUTINGS = {  # BookSim2 registers routing functions per topology (limited_adapt is not registered)
    "mesh": ("dim_order", "dor", "dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt",
             "planar_adapt", "romm", "romm_ni", "valiant"),
    "torus": ("dim_order", "dim_order_ni", "dim_order_bal", "min_adapt", "valiant", "valiant_ni"),
    "anynet": ("min",),
    "dragonflynew": ("min", "ugal"),  # min_dragonflynew, ugal_dragonflynew
    "flatfly": ("ran_min",),  # ran_min_flatfly; its xyyx, valiant and ugal functions are not there yet
    "fattree": ("nca",),  # fattree_nca; anca_fattree is not there yet
    "fly": ("dest_tag",),  # dest_tag_fly
    "cmesh": ("dor", "dor_no_express", "xy_yx_no_express"),  # its xy_yx with express channels is not there yet
}


def read_network(r, out: dict) -> str:
    """The network's ``Config`` fields into ``out`` and its ``routing``; returns BookSim2's topology name."""
    topology = r.choice("topology", tuple(NETWORK_ROUTINGS), "other topologies are not supported yet; ")
    if topology == "anynet":
        if not r.values["network_file"]:
            raise r.fail("network_file", "anynet needs network_file, the file of its router graph")
        out.update(topology="edgelist", file=r.values["network_file"])
    elif topology == "dragonflynew":  # k = p terminals per router, a = 2p routers per group, h = p, g = a*h + 1
        p = r.number("k", low=1)
        if r.number("n") != 1:
            raise r.fail("n", "dragonflynew takes n = 1 (a = 2p routers per group); BookSim2 exits for n > 1")
        out.update(topology="dragonfly", group_routers=2 * p, global_links=p, concentration=p)
    elif topology == "flatfly":
        _flatfly(r, out)
    elif topology == "cmesh":
        _cmesh(r, out)
    elif topology == "fly":  # k-ary n-fly (fly.cpp): k terminals on each router of its first and last stages
        if r.number("c") != 1:
            raise r.fail("c", "BookSim2's fly reads no c (k terminals per router of its first and last stages); only 1")
        out.update(topology="fly", k=r.number("k", low=2), n=r.number("n", low=1))
    else:
        if r.number("c") != 1:
            raise r.fail("c", f"BookSim2's {topology} has one node per router (it reads no c); only 1")
        out.update(topology=topology, k=r.number("k", low=2), n=r.number("n", low=1))
    if topology not in ("flatfly", "cmesh") and r.number("xr") != 1:
        raise r.fail("xr", "nodes per router along x, read by tornado and neighbor: only 1 off a flatfly")
    if r.values["routing_function"] == "none":
        raise r.fail("routing_function", f"BookSim2 has no default routing; choose one of {', '.join(NETWORK_ROUTINGS[topology])}")
    out["routing"] = r.choice("routing_function", NETWORK_ROUTINGS[topology], f"on a {topology}, ")
    return topology


def _flatfly(r, out: dict) -> None:
    """``flatfly`` (flatfly_onchip.cpp): k^n routers of c terminals. BookSim2 asserts c = xr * yr,
    xr = yr and x = y; its channel latencies (use_noc_latency) come from a floor plan of x by y
    routers, which matches the router grid only when n = 2 and x = k (the only plan netsim-fast
    draws). It numbers terminals over that floor plan rather than router by router, which moves
    a permutation's destinations: ``terminal_numbering = "floorplan"`` follows it."""
    k, n, c = r.number("k", low=2), r.number("n", low=1), r.number("c", low=1)
    xr, yr, x, y = (r.number(key, low=1) for key in ("xr", "yr", "x", "y"))
    if xr != yr or c != xr * yr:
        raise r.fail("c", f"BookSim2's flatfly needs c = xr * yr with xr = yr (here c = {c}, xr = {xr}, yr = {yr})")
    if x != y:
        raise r.fail("x", f"BookSim2's flatfly needs x = y (here {x} and {y})")
    if r.number("use_noc_latency") and (n != 2 or x != k):
        raise r.fail("x", f"the floor plan of channel latencies is drawn here for n = 2 and x = y = k only (here n = "
                          f"{n}, x = {x}, k = {k}); set use_noc_latency = 0 for 1-cycle channels")
    if n != 2 and r.one("traffic") != "uniform":
        raise r.fail("traffic", f"BookSim2 numbers a flatfly's terminals over a floor plan drawn for n = 2 only; with "
                                f"n = {n} only uniform (which does not depend on the numbering)")
    out.update(topology="flatfly", k=k, n=n, concentration=c)
    if n == 2:
        out["terminal_numbering"] = "floorplan"


def _cmesh(r, out: dict) -> None:
    """``cmesh`` (cmesh.cpp): k x k routers of c = 4 terminals (BookSim2 asserts n <= 2, c = 4,
    c = xr * yr, xr = yr and x = y; its floor plan is the router grid, so x = k), its terminals
    numbered over the floor plan as BookSim2 does."""
    k, n, c = r.number("k", low=4), r.number("n"), r.number("c")
    xr, yr, x, y = (r.number(key, low=1) for key in ("xr", "yr", "x", "y"))
    if n != 2:
        raise r.fail("n", "BookSim2's cmesh is two-dimensional (it asserts n <= 2, and n = 1 is not a mesh of tiles)")
    if c != 4 or xr != 2 or yr != 2:
        raise r.fail("c", f"BookSim2's cmesh needs c = 4 with xr = yr = 2 (here c = {c}, xr = {xr}, yr = {yr})")
    if x != k or y != k:
        raise r.fail("x", f"BookSim2's cmesh lays out x by y = k by k routers (here x = {x}, y = {y}, k = {k})")
    if k % 2:
        raise r.fail("k", "a cmesh needs an even k (its express channels join the two halves of each edge)")
    out.update(topology="cmesh", k=k, n=2, concentration=4, terminal_numbering="floorplan")
