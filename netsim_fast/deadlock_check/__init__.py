"""A static proof of deadlock freedom: ``check_deadlock(cfg)`` (``netsim-fast check-deadlock``).

Builds the channel dependency graph of the configuration's routing on its topology, with its
VCs, ``--inject-vcs`` and ``--vc-realloc``, from the flit engine's own routing function
(``flit.route.candidate_rows``, with the engine's parameters from ``flit.run.build_params`` and
table from ``flit.run.routing_table``), and reports whether the graph that must be acyclic is:
Dally and Seitz's graph for routings without adaptive channels, Duato's extended graph of the
escape channels for ``duato`` and ``min-adaptive`` (docs/check-deadlock.md). Sits beside ``experiment``: it joins the
config, a topology and the engine's routing, and runs no simulation.
"""

from __future__ import annotations

import time

from netsim_fast.deadlock_check.graph import analyse, describe


def routing_setup(cfg) -> dict:
    """The topology, engine parameters and table the flit engine would run ``cfg`` with, and
    how the walk keys states (explore.py). Raises ConfigError where ``run`` would (too few VCs
    for a table routing's hop classes, an ``--inject-vcs`` without hop class 0)."""
    from netsim_fast.flit import state as fs
    from netsim_fast.flit.run import build_params, routing_table
    from netsim_fast.routing import DEST_TAG, DOR, DUATO, MIN_ADAPTIVE, TABLE, TABLE_ROUTINGS, UPDOWN, needs_datelines
    from netsim_fast.topologies import build_topology

    topo = build_topology(cfg)
    from netsim_fast.topologies.anynet import is_regular

    if not is_regular(topo):
        from netsim_fast.errors import ConfigError

        raise ConfigError(f"--file {cfg.file}: an anynet file with uneven terminals or channels longer than a cycle "
                          "runs on the booksim router only, whose min check-deadlock does not analyse")
    table = None
    if cfg.routing in TABLE_ROUTINGS:
        from netsim_fast.routing.tables import route_table

        table = route_table(topo, cfg.routing, cfg.loops)
    route_mask, class_vcs = routing_table(cfg, topo, table)
    params = build_params(cfg, topo, stop_mode=fs.STOP_ALL, win_start=0, win_end=1, class_vcs=class_vcs)
    if params.group_routers:  # valiant, ugal-*: hop counts tell a packet that left its group and came back
        from netsim_fast.routing import NONMIN_CLASSES

        per_pair, hops_matter, levels = False, True, 2 * NONMIN_CLASSES
    elif fs.takes_mid(params):  # ... on a Hamming graph: the hop count tells the phase (2 · D hops at most)
        from netsim_fast.routing.hamming_valiant import hamming_dims

        per_pair, hops_matter, levels = False, True, 2 * len(hamming_dims(topo)) + 1
    elif params.routing == UPDOWN:
        from netsim_fast.routing.updown import UP_ADAPTIVE

        # every candidate port: random and dest-mod-k take one of them, so their graphs are
        # subgraphs of this one; the rows read neither the hop count nor the source
        params = params._replace(up_choice=UP_ADAPTIVE)
        per_pair, hops_matter, levels = False, False, 2
    elif params.routing == DEST_TAG:  # the butterfly: one row, every VC, read from the table alone
        per_pair, hops_matter, levels = False, False, 2
    elif params.routing == TABLE:
        from netsim_fast.routing.tables import hop_classes

        # table_next_hops reads the hop count (its VC class), never the source
        per_pair, hops_matter, levels = False, True, hop_classes(table) + 1
    else:
        # grid_next_hops reads the source only for the dateline class of a ring dimension;
        # dim-adaptive and min-adaptive read neither the source nor the hop count
        datelines = needs_datelines(cfg.topology, cfg.dims)
        per_pair, hops_matter, levels = params.routing in (DOR, DUATO) and datelines, False, 2
    if route_mask is None:
        import numpy as np

        route_mask = np.zeros((0, 0, 1), np.uint8)
    # packets go to terminals: on the trees only the leaves (numbered first) are destinations; on
    # the butterfly the first stage's routers stand for their terminals (candidate_rows sends
    # them to the last stage's)
    destinations = -(-topo.n_terminals // topo.concentration)
    return dict(topo=topo, params=params, route_mask=route_mask, per_pair=per_pair, levels=levels,
                hops_matter=hops_matter, esc_prio=1 if params.routing in (DUATO, MIN_ADAPTIVE) else 0, destinations=destinations)


def check_deadlock(cfg, progress=None) -> dict:
    """The verdict for ``cfg`` (a flit-engine ``Config``) as a JSON-ready dict: ``deadlock_free``,
    ``graph``, ``channels``, ``dependencies``, ``cycle`` (a list of (router, port, vc, to)
    dicts, or None), ``error`` and, for ``duato``, the escape sub-function and dependency kinds.
    ``progress(done, total, phase)`` is called as the walk goes."""
    start = time.perf_counter()
    setup = routing_setup(cfg)
    topo, params = setup["topo"], setup["params"]
    result = analyse(topo.arrays, params, setup["route_mask"], per_pair=setup["per_pair"], levels=setup["levels"],
                     hops_matter=setup["hops_matter"], esc_prio=setup["esc_prio"], progress=progress,
                     destinations=setup["destinations"])
    cycle = result.pop("cycle")
    roles = result.pop("cycle_roles", None)
    if cycle is not None:
        cycle = [describe(c, params.n_ports, params.n_vcs, topo.arrays.nbr) for c in cycle]
        for entry, role in zip(cycle, roles or ()):
            entry["role"] = role
    return {"topology": cfg.topology, "nodes": topo.n_nodes, "routing": cfg.routing, "vcs": cfg.vcs,
            "inject_vcs": list(cfg.inject_vcs) if cfg.inject_vcs is not None else None,
            "vc_realloc": cfg.vc_realloc, "closed_loop": bool(cfg.closed_loop), **result, "cycle": cycle,
            "seconds": round(time.perf_counter() - start, 3)}


__all__ = ["analyse", "check_deadlock", "routing_setup"]
