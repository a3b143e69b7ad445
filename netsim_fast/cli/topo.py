"""``netsim-fast topo``: graph properties of a topology."""

from __future__ import annotations

import typer

from netsim_fast.cli._app import app, echo_json, guarded
from netsim_fast.cli.options import (
    BaseOpt, DegreeOpt, DimsOpt, FileOpt, GraphSeedOpt, JsonOpt, JumpsOpt, KOpt, NodesOpt, NOpt,
    SeedOpt, TopologyOpt, given, topology_fields,
    ConcentrationOpt, GlobalArrangementOpt, SwitchPortsOpt, LinkFailuresOpt, FaultSeedOpt, GlobalLinksOpt, GroupRoutersOpt, GroupsOpt, WidthsOpt,
)

MAX_LINKS = 1 << 24  # a complete graph of ~5800 nodes: gigabytes of edge arrays beyond it
# Distances of a graph that is not vertex-transitive come from a search from every node:
# ~30 s at 16384 nodes, growing as N^2 (minutes at this limit, days at the node limit).
MAX_SEARCHED_NODES = 1 << 16


@app.command()
@guarded
def topo(
    ctx: typer.Context,
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
    link_failures: LinkFailuresOpt = 0,
    fault_seed: FaultSeedOpt = None,
    concentration: ConcentrationOpt = 1,
    seed: SeedOpt = 1,
    json: JsonOpt = False,
) -> None:
    """Graph properties of a topology: size, degree, distance distribution, diameter, bisection.

    Example: [bold]netsim-fast topo --topology torus --k 16[/bold]
    """
    from netsim_fast.checks import bad
    from netsim_fast.config import Config
    from netsim_fast.topologies import build_topology
    from netsim_fast.topologies.metrics import topology_metrics

    cfg = Config(engine=None, seed=seed, **topology_fields(topology, k, n, dims, nodes, degree, base, jumps, file, graph_seed,
                    widths=widths, group_routers=group_routers, global_links=global_links, groups=groups,
                    global_arrangement=global_arrangement, switch_ports=switch_ports, link_failures=link_failures, fault_seed=fault_seed,
                    concentration=concentration))
    if given(ctx, "seed"):  # topo has no traffic: the seed only draws a random graph
        if cfg.topology != "rrg":
            raise bad("seed", seed, f"applies to --topology rrg only (the seed of the random graph); "
                                    f"--topology {cfg.topology} is not random")
        if graph_seed is not None:
            raise bad("seed", seed, "is unused when --graph-seed is given (topo has no traffic); give one of them")
    _check_size(cfg, cfg.n_nodes, vertex_transitive=cfg.topology not in ("mesh", "rrg", "debruijn", "edgelist", "dragonfly"))
    built = build_topology(cfg)
    _check_size(cfg, built.n_nodes, vertex_transitive=built.vertex_transitive)  # an edge list, once read
    metrics = topology_metrics(built)
    if json:
        echo_json(metrics)
        return
    _render(metrics)


def _links(cfg) -> int:
    """Undirected links of the topology, from its description (before it is built)."""
    import math

    n = cfg.n_nodes or 0
    kind = cfg.topology
    if kind == "complete":
        return n * (n - 1) // 2
    if kind == "rrg":
        return n * cfg.degree // 2
    if kind == "circulant":
        return n * len(cfg.jumps)
    if kind == "debruijn":
        return n * (cfg.base or 2)
    if kind == "bmg":
        return n * max(1, math.ceil(math.log2(max(n, 2))))
    if cfg.radix is not None:
        return n * len(cfg.radix)
    if kind in ("hyperx", "flatfly"):
        dims = cfg.dims if kind == "hyperx" else (cfg.k,) * cfg.n
        widths = (cfg.widths if kind == "hyperx" else None) or (1,) * len(dims)
        return n * sum((k - 1) * w for k, w in zip(dims, widths)) // 2
    if kind == "dragonfly":
        return n * (cfg.group_routers - 1 + cfg.global_links) // 2
    return n  # ring; an edge list is as large as its file


_SIZE_OPTION = {  # the option that sets the size of a topology without --nodes
    "hyperx": lambda cfg: ("dims", cfg.dims),
    "flatfly": lambda cfg: ("k", cfg.k),
    "dragonfly": lambda cfg: ("group-routers", cfg.group_routers),
}


def _check_size(cfg, n_nodes, *, vertex_transitive: bool) -> None:
    from netsim_fast.checks import bad

    option, value = ("file", cfg.file) if cfg.topology == "edgelist" else \
        _SIZE_OPTION[cfg.topology](cfg) if cfg.topology in _SIZE_OPTION else \
        ("nodes", cfg.nodes) if cfg.radix is None else ("dims", cfg.dims)
    links = _links(cfg)
    if links > MAX_LINKS:
        raise bad(option, value, f"--topology {cfg.topology} of this size has {links:,} links; topo describes at most {MAX_LINKS:,}")
    if not vertex_transitive and n_nodes is not None and n_nodes > MAX_SEARCHED_NODES:
        raise bad(option, value, f"{n_nodes} nodes: the distances of a graph that is not vertex-transitive "
                                 f"need a search from every node, done for at most {MAX_SEARCHED_NODES} nodes")


def _render(m: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=m["topology"], show_header=False)
    table.add_column("metric", style="bold")
    table.add_column("value", justify="right")
    exact = "exact" if m["bisection_exact"] else "best cut found (upper bound)"
    rows = [
        ("nodes", m["nodes"]),
        ("terminals", f"{m['terminals']} ({m['terminals_per_router']} per router)"),
        ("links (undirected)" if not m["topology"].startswith("fly(") else "channels (one-way)", m["links"]),
        ("degree", m["degree_min"] if m["degree_min"] == m["degree_max"] else f"{m['degree_min']}..{m['degree_max']}"),
        ("average distance", f"{m['average_distance']:.4f}"),
        ("diameter", m["diameter"]),
        ("bisection width", f"{m['bisection_width']} ({exact})" if m["bisection_width"] is not None
         else "not computed (a butterfly of odd k)"),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    dist = m["distance_distribution"]
    table.add_row("nodes at distance 0,1,2,..", " ".join(f"{x:g}" for x in dist[:12]) + (" ..." if len(dist) > 12 else ""))
    Console().print(table)
