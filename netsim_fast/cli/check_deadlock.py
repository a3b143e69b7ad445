"""``netsim-fast check-deadlock``: a static proof of deadlock freedom, or a dependency cycle."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Annotated

import typer

from netsim_fast.cli._app import EXIT_SIMULATION, app, echo_json, guarded
from netsim_fast.cli.options import (
    BaseOpt, ConcentrationOpt, DegreeOpt, DimsOpt, FileOpt, GraphSeedOpt, InjectVcsOpt, JsonOpt, JumpsOpt, KOpt, LoopsOpt, NodesOpt,
    NOpt, RoutingOpt, SeedOpt, TopologyOpt, VcReallocOpt, VcsOpt, topology_fields,
    GlobalArrangementOpt, SwitchPortsOpt, LinkFailuresOpt, FaultSeedOpt, GlobalLinksOpt, GroupRoutersOpt, GroupsOpt, WidthsOpt,
)

GRAPHS = {
    "cdg": "channel dependency graph",
    "extended": "Duato's extended channel dependency graph",
    "extended-eager": "channel dependency graph through eagerly reallocated adaptive VCs",
}


@app.command("check-deadlock")
@guarded
def check_deadlock(
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
    concentration: ConcentrationOpt = 1,
    link_failures: LinkFailuresOpt = 0,
    fault_seed: FaultSeedOpt = None,
    seed: SeedOpt = 1,
    routing: RoutingOpt = None,
    vcs: VcsOpt = 4,
    inject_vcs: InjectVcsOpt = None,
    vc_realloc: VcReallocOpt = "auto",
    loops: LoopsOpt = 4,
    closed_loop: Annotated[bool, typer.Option("--closed-loop", help="The VCs of a --closed-loop run: requests on 0..V/2-1 and replies on V/2..V-1, each the routing on V/2 VCs; the graph of the request class is built (the reply class's is the same, moved up by V/2, and disjoint from it).")] = False,
    json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Prove a routing deadlock-free on a topology, or print a cycle of channel dependencies.

    Builds the channel dependency graph (Duato's extended graph of the escape channels for
    duato) from the flit engine's own routing function, with the VCs, --inject-vcs and
    --vc-realloc of the run. Exit 0 when the graph is acyclic, 1 with a cycle of (router, port,
    vc) channels, 2 on bad input.

    Examples: [bold]netsim-fast check-deadlock --topology torus --k 16 --routing duato[/bold];
    [bold]netsim-fast check-deadlock --topology torus --k 8 --routing dor-nodateline[/bold] (a cycle)
    """
    from netsim_fast.config import Config
    from netsim_fast.config.router import BOOKSIM_ROUTINGS, NONMIN_TOPOLOGIES
    from netsim_fast.deadlock_check import check_deadlock as check

    if routing in BOOKSIM_ROUTINGS and not (routing == "valiant" and topology in NONMIN_TOPOLOGIES):
        from netsim_fast.checks import bad

        raise bad("routing", routing, "is BookSim2's (--router booksim), which check-deadlock does not analyse: it "
                                      "builds the graph of the flit engine's routings (dor, duato, dor-nodateline, "
                                      "minimal, bmg-*); a booksim run's watchdog reports a knot if one forms")
    cfg = Config(engine="flit", seed=seed, routing=routing, vcs=vcs, inject_vcs=inject_vcs, vc_realloc=vc_realloc,
                 loops=loops, closed_loop=closed_loop, **topology_fields(topology, k, n, dims, nodes, degree, base, jumps, file, graph_seed,
                    widths=widths, group_routers=group_routers, global_links=global_links, groups=groups,
                    global_arrangement=global_arrangement, switch_ports=switch_ports, link_failures=link_failures, fault_seed=fault_seed,
                    concentration=concentration))
    with _progress(quiet) as progress:
        result = check(cfg, progress=progress)
    if json:
        echo_json(result)
    else:
        _render(result)
    if not result["deadlock_free"]:
        raise typer.Exit(code=EXIT_SIMULATION)


@contextmanager
def _progress(quiet: bool):
    """A ``progress(done, total, phase)`` callback drawing a bar on stderr (a terminal only)."""
    import sys

    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} blocks of destinations"),
               TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("building the topology and loading the walk", total=None)

        def update(done: int, total: int, phase: str) -> None:
            bar.update(task, completed=done, total=total, description=phase)

        yield update


def _render(r: dict) -> None:
    graph = GRAPHS.get(r["graph"], "channel dependency graph")
    of = f"{r['channels']} {'escape ' if r['graph'] == 'extended' else ''}channels, {r['dependencies']} dependencies"
    if r["error"] is not None:
        typer.secho(f"NOT deadlock-free: {r['error']}", fg=typer.colors.RED)
        return
    if r["deadlock_free"]:
        typer.echo(f"deadlock-free: {graph} of {of} is acyclic")
    else:
        # Dally-Seitz and Duato's conditions are necessary as well as sufficient (for coherent
        # routings); the eager graph's cycle only shows that Duato's argument no longer holds
        verdict = "NOT proven deadlock-free" if r["graph"] == "extended-eager" else "NOT deadlock-free"
        typer.secho(f"{verdict}: {graph} of {of} has a cycle of {len(r['cycle'])} channels "
                    "(router, port, vc) -> next router:", fg=typer.colors.RED)
        for c in r["cycle"]:
            role = f"  {c['role']}" if "role" in c else ""
            typer.echo(f"  ({c['router']}, {c['port']}, {c['vc']}) -> {c['to']}{role}")
    if r.get("closed_loop"):
        half = r["vcs"] // 2
        typer.echo(f"closed loop: the graph is the request class's, on VCs 0..{half - 1}; the reply class runs the "
                   f"same routing on VCs {half}..{r['vcs'] - 1}, so its graph is this one moved up by {half}, disjoint "
                   "from it, and no packet changes class in the network (docs/flit-engine.md, request-reply traffic)")
    if "escape_vcs" in r:
        vcs = ",".join(map(str, r["escape_vcs"]))
        typer.echo(f"escape sub-function: the priority-1 rows (dimension order) on VCs {vcs}, connected; "
                   f"{r['direct_dependencies']} direct, "
                   + (f"{r['indirect_dependencies']} indirect, " if r["indirect_dependencies"] is not None else "")
                   + f"{r['cross_channels']} escape channels also used adaptively (cross dependencies)")
        if r["graph"] == "extended-eager":
            typer.echo("--vc-realloc eager: a packet may queue in an adaptive VC behind a packet of another "
                       "destination and cannot ask for an escape VC until it has gone (docs/check-deadlock.md)")
        if not r["full_graph_acyclic"]:
            typer.echo("the full graph, adaptive channels included, has cycles: Duato's theorem allows them")
