"""Options shared by several commands, declared once as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

_TOPO = "Topology"

TopologyOpt = Annotated[str, typer.Option(
    "--topology", rich_help_panel=_TOPO,
    help="torus | mesh | hypercube | rrg | debruijn | bmg | circulant | ring | complete | edgelist | flatfly | hyperx | dragonfly | fattree | clos | cmesh | fly")]
KOpt = Annotated[Optional[int], typer.Option(
    "--k", rich_help_panel=_TOPO, help="Radix of every dimension (torus, mesh); routers per dimension (flatfly); down ports per switch (fattree: a k-ary n-tree); inputs and outputs per router (fly: a k-ary n-fly).")]
NOpt = Annotated[Optional[int], typer.Option(
    "--n", rich_help_panel=_TOPO, help="Dimensions (torus, mesh, flatfly: default 2 with --k; hypercube: 2^N nodes); levels (fattree); stages (fly).")]
DimsOpt = Annotated[Optional[str], typer.Option(
    "--dims", rich_help_panel=_TOPO, help="Radix per dimension, dimension 0 first, e.g. 8,8,4 (torus, mesh; hyperx: routers per dimension).")]
WidthsOpt = Annotated[Optional[str], typer.Option(
    "--widths", rich_help_panel=_TOPO, help="hyperx: parallel links between two routers of each dimension (default 1s; Ahn et al.'s trunking).")]
GroupRoutersOpt = Annotated[Optional[int], typer.Option(
    "--group-routers", rich_help_panel=_TOPO, help="dragonfly: routers A per group (all-to-all inside the group).")]
GlobalLinksOpt = Annotated[Optional[int], typer.Option(
    "--global-links", rich_help_panel=_TOPO, help="dragonfly: global links H per router.")]
GroupsOpt = Annotated[Optional[int], typer.Option(
    "--groups", rich_help_panel=_TOPO, help="dragonfly: groups G (default A*H+1; G-1 must divide A*H and be >= H).")]
GlobalArrangementOpt = Annotated[Optional[str], typer.Option(
    "--global-arrangement", rich_help_panel=_TOPO, help="dragonfly: consecutive (default, BookSim2's) | palm-tree (docs/topologies.md).")]
SwitchPortsOpt = Annotated[Optional[int], typer.Option(
    "--switch-ports", rich_help_panel=_TOPO, help="clos: ports K of every switch (even) of the 3-level folded Clos, K^3/4 terminals.")]
ConcentrationOpt = Annotated[int, typer.Option(
    "--concentration", rich_help_panel=_TOPO,
    help="Terminals C per router (BookSim2's concentration): terminal t on router t // C; loads and --rate are per "
         "terminal. Flit engine, open-loop patterns (docs/topologies.md).")]
NodesOpt = Annotated[Optional[int], typer.Option(
    "--nodes", rich_help_panel=_TOPO, help="Node count (rrg, debruijn, bmg, circulant, ring, complete).")]
DegreeOpt = Annotated[Optional[int], typer.Option("--degree", rich_help_panel=_TOPO, help="Degree R of a random regular graph.")]
BaseOpt = Annotated[Optional[int], typer.Option(
    "--base", rich_help_panel=_TOPO,
    help="de Bruijn base B (default 2) of --topology debruijn or of the guest graph of --pattern embed-debruijn; the node count must be a power of it.")]
JumpsOpt = Annotated[Optional[str], typer.Option("--jumps", rich_help_panel=_TOPO, help="Circulant jumps, e.g. 1,2,5.")]
FileOpt = Annotated[Optional[str], typer.Option(
    "--file", rich_help_panel=_TOPO, help="Edge-list file: one 'u v' link per line, optional first line 'nodes N'.")]
LinkFailuresOpt = Annotated[int, typer.Option(
    "--link-failures", rich_help_panel=_TOPO, help="Remove this many random links (BookSim2's link_failures); only --routing minimal and updown route around them, a disconnected network is refused.")]
FaultSeedOpt = Annotated[Optional[int], typer.Option(
    "--fault-seed", rich_help_panel=_TOPO, help="Seed of the failed links (default: the value of --seed).")]
GraphSeedOpt = Annotated[Optional[int], typer.Option(
    "--graph-seed", rich_help_panel=_TOPO, help="Seed of a random topology (default: the value of --seed).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the traffic (and of a random topology unless --graph-seed).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of the table.")]


def topology_fields(topology, k, n, dims, nodes, degree, base, jumps, file, graph_seed, **direct) -> dict:
    """The Config fields of the topology options, dropping those not given (``direct``: the
    options of hyperx and dragonfly, ``widths``, ``group_routers``, ...)."""
    from netsim_fast.topologies import TOPOLOGIES

    if graph_seed is not None and topology in TOPOLOGIES and topology != "rrg":
        from netsim_fast.checks import bad

        raise bad("graph-seed", graph_seed, f"applies to --topology rrg only (the seed of the random graph); "
                                            f"--topology {topology} is not random")
    given = dict(topology=topology, k=k, n=n, dims=dims, nodes=nodes, degree=degree, base=base,
                 jumps=jumps, file=file, graph_seed=graph_seed, **direct)
    return {key: value for key, value in given.items() if value is not None}


def given(ctx, name: str) -> bool:
    """Whether option ``name`` was set by the user (command line or environment), not defaulted:
    an option that does not apply is refused only when given."""
    source = ctx.get_parameter_source(name) if name in ctx.params else None
    # by name: typer may bring its own copy of click's ParameterSource
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")

# The routing and VC options of the flit engine (run, check-deadlock).
_ROUTING = "Router and routing"
RoutingOpt = Annotated[Optional[str], typer.Option(
    "--routing", rich_help_panel=_ROUTING,
    help="dor | duato | dor-nodateline (tori, meshes, hypercubes) | dim_order, dim_order_ni, min_adapt (--router booksim: BookSim2's, meshes and tori) | dim_order_pni, xy_yx, adaptive_xy_yx, planar_adapt, romm, romm_ni, valiant (--router booksim, meshes) | dim_order_bal (--router booksim, tori; docs/booksim-router.md 8.1) | minimal (any topology) | valiant, ugal-l, ugal-g (dragonfly, lanes and iq: Kim et al.'s non-minimal and adaptive routing, --vcs >= 3; ugal-g is an idealised reference that reads every router's queues; also on flatfly and hyperx, --vcs >= 2) | dim-adaptive, min-adaptive (hyperx, flatfly, lanes and iq: dimension order choosing among a dimension's parallel links, --vcs >= 1; any unaligned dimension with a dimension-order escape VC, --vcs >= 2) | bmg-bfs | bmg-basic | bmg-variant | bmg-bitcount | bmg-cbe | bmg-equiclass | chord (bmg). Table routings (minimal, bmg-*, chord) use one VC class per hop in the flit engine \\[default: dor on grids, minimal elsewhere and on the packet engine].")]
VcsOpt = Annotated[int, typer.Option("--vcs", rich_help_panel=_ROUTING, help="Virtual channels per physical channel.")]
InjectVcsOpt = Annotated[Optional[str], typer.Option(
    "--inject-vcs", rich_help_panel=_ROUTING, help="Source throttling: VCs a packet may take on its first hop, e.g. 2,3 (default all).")]
VcReallocOpt = Annotated[str, typer.Option(
    "--vc-realloc", rich_help_panel=_ROUTING,
    help="When a VC may take a new packet: auto (Duato's adaptive VCs only once drained, others at once) | atomic (all once drained) | eager (all at once).")]
LoopsOpt = Annotated[int, typer.Option("--loops", rich_help_panel=_ROUTING, help="bmg-equiclass: equivalence-class loops (papers/001, section 3.3).")]
