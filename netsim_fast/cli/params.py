"""``netsim-fast params``: measure BSP (g, l) and LogP (L, G) parameters on an engine."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli._app import app, echo_json, guarded
from netsim_fast.cli.options import (
    BaseOpt, DegreeOpt, DimsOpt, FileOpt, GraphSeedOpt, JsonOpt, JumpsOpt, KOpt, NodesOpt, NOpt, SeedOpt,
    TopologyOpt, topology_fields,
    GlobalArrangementOpt, SwitchPortsOpt, GlobalLinksOpt, GroupRoutersOpt, GroupsOpt, WidthsOpt,
)

_M = "Measurement"


def _opt(*names, help):
    return typer.Option(*names, rich_help_panel=_M, help=help)


@app.command()
@guarded
def params(
    *,
    topology: TopologyOpt = "torus",
    k: KOpt = None,
    n: NOpt = None,
    dims: DimsOpt = None,
    nodes: NodesOpt = None,
    degree: DegreeOpt = None,
    base: BaseOpt = None,
    jumps: JumpsOpt = None,
    file: FileOpt = None,
    graph_seed: GraphSeedOpt = None,
    widths: WidthsOpt = None,
    group_routers: GroupRoutersOpt = None,
    global_links: GlobalLinksOpt = None,
    groups: GroupsOpt = None,
    global_arrangement: GlobalArrangementOpt = None,
    switch_ports: SwitchPortsOpt = None,
    engine: Annotated[str, _opt("--engine", help="flit (wormhole flits) | packet (store-and-forward packets).")] = "flit",
    routing: Annotated[Optional[str], _opt("--routing", help="As for run (default: dor on grids on the flit engine, minimal elsewhere).")] = None,
    o: Annotated[int, _opt("--o", help="Node overhead in cycles: o to prepare each message sent (one at a time), o to acquire each received.")] = 0,
    packet_flits: Annotated[Optional[int], _opt("--packet-flits", help="Flits per message (flit engine) [default: 8].")] = None,
    vcs: Annotated[Optional[int], _opt("--vcs", help="Virtual channels per channel (flit engine) [default: 4]; table routings (minimal, bmg-*) need at least the longest route.")] = None,
    h: Annotated[str, _opt("--h", help="Relation degrees of the fit T(h) = g h + l, comma-separated.")] = "1,2,4,8,16,32",
    reps: Annotated[int, _opt("--reps", help="Random relations (seeds) per h.")] = 1,
    pairs: Annotated[int, _opt("--pairs", help="Random pairs for the idle latency (pairs at the diameter are added).")] = 32,
    seed: SeedOpt = 1,
    json: JsonOpt = False,
    quiet: Annotated[bool, _opt("--quiet", help="No progress bar.")] = False,
) -> None:
    """Fit BSP's g and l to random h-relations with barriers, measure LogP's L and G, and print them.

    Times are cycles, a message is --packet-flits flits (flit engine) or one packet (packet
    engine). Examples: [bold]netsim-fast params --topology torus --k 8 --json[/bold];
    [bold]netsim-fast params --engine packet --topology rrg --nodes 256 --degree 4[/bold];
    [bold]netsim-fast params --topology bmg --nodes 256 --vcs 4[/bold]
    """
    from netsim_fast.checks import bad
    from netsim_fast.cli.render import progress_bar
    from netsim_fast.config import Config
    from netsim_fast.studies.params import ParamsSpec, measure_params
    from netsim_fast.topologies import build_topology

    if engine != "flit":  # Config cannot tell a given --vcs 4 from its default
        for name, value in (("vcs", vcs), ("packet_flits", packet_flits)):
            if value is not None:
                raise bad(name, value, "applies to the flit engine only (drop it, or pass --engine flit)")
    flit_vcs = {} if vcs is None else {"vcs": vcs}
    spec = ParamsSpec(o=o, h=h, reps=reps, pairs=pairs)
    # the memory check below replaces Config's, which would point at run's --memory-limit
    cfg = Config(engine=engine, pattern="random", routing=routing, packet_flits=packet_flits, seed=seed,
                 memory_limit=2**62, **flit_vcs,
                 **topology_fields(topology, k, n, dims, nodes, degree, base, jumps, file, graph_seed,
                    widths=widths, group_routers=group_routers, global_links=global_links, groups=groups,
                    global_arrangement=global_arrangement, switch_ports=switch_ports))
    _check_memory(cfg, spec, cfg.n_nodes)
    topo = build_topology(cfg)
    if cfg.n_nodes is None:  # an edge list: its size is known once it is read
        _check_memory(cfg, spec, topo.n_nodes)
    with progress_bar(quiet or json, unit="relations") as progress:
        out = measure_params(cfg, spec, topology=topo, progress=progress)
    if json:
        echo_json(out)
        return
    _render(out)


def _check_memory(cfg, spec, n: int | None) -> None:
    """Refuse, before any run, a measurement that needs more memory than is available: the
    engine's run of the largest h-relation, and the N x N distance table params always builds."""
    from netsim_fast.checks import bad
    from netsim_fast.config.memory import MIB, available_mib, estimated_mib

    if n is None:
        return
    need = estimated_mib(cfg.replace(messages=max(spec.h)))
    if cfg.n_nodes is None:  # an edge list: the estimate above could not count it
        need += (3 * n * n + 96 * n * max(spec.h)) / MIB
    elif cfg.engine == "flit" and cfg.routing in ("dor", "duato", "dor-nodateline"):
        need += 2 * n * n / MIB  # counted in the estimate for table routings
    limit = available_mib()
    if limit is not None and need > limit:
        option, value = ("file", cfg.file) if cfg.topology == "edgelist" else \
            ("nodes", cfg.nodes) if cfg.radix is None else ("dims", cfg.dims)
        raise bad(option, value, f"params needs about {need:,.0f} MiB for {n} nodes (the N x N distance table and "
                                 f"the runs of --h {max(spec.h)}), more than the memory available now ({limit:,} MiB); "
                                 "measure a smaller network or lower --h")


def _render(out: dict) -> None:
    from netsim_fast.cli.render import _fmt, _print_table

    unit = f"{out['packet_flits']}-flit messages" if out["packet_flits"] else "packets"
    rows = [
        ("engine / routing", f"{out['engine']} / {out['routing']}"),
        ("p", out["p"]),
        ("g (cycles per message)", out["g"]),
        ("ell (superstep intercept)", out["ell"]),
        ("fit r2 (BSP)", out["fit_r2_bsp"]),
        ("ell_barrier (h = 0)", out["ell_barrier"]),
        ("g_route / ell_route (no barrier)", f"{_fmt(out['g_route'])} / {_fmt(out['ell_route'])}"),
        ("L (max idle latency)", out["L"]),
        ("L_mean (random pairs)", out["L_mean"]),
        ("G (steady gap) / G_stream", f"{_fmt(out['G'])} / {_fmt(out['G_stream'])}"),
        ("o (configured)", out["o"]),
        ("fit r2 (LogP 2o+G(h-1)+L)", out["fit_r2_logp"]),
        ("CB ceil(L/G)-ary tree / bound", f"{out['cb_cycles']} / {_fmt(out['cb_bound'])}"),
        ("diameter / Table 1 gamma, delta", f"{out['diameter']} / {_fmt(out['gamma_table1'])}, {_fmt(out['delta_table1'])}"),
    ]
    points = ", ".join(f"{h}:{s}" for h, s in zip(out["h"], out["superstep_cycles"]))
    _print_table(f"BSP and LogP parameters of {out['topology']} ({unit}, cycles)", rows,
                 caption=f"superstep cycles by h: {points}")
