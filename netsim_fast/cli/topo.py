"""``netsim-fast topo``: graph properties of a topology."""

from __future__ import annotations

from netsim_fast.cli._app import app, echo_json, guarded
from netsim_fast.cli.options import (
    BaseOpt, DegreeOpt, DimsOpt, FileOpt, GraphSeedOpt, JsonOpt, JumpsOpt, KOpt, NodesOpt, NOpt,
    SeedOpt, TopologyOpt, topology_fields,
)


@app.command()
@guarded
def topo(
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
    seed: SeedOpt = 1,
    json: JsonOpt = False,
) -> None:
    """Graph properties of a topology: size, degree, distance distribution, diameter, bisection.

    Example: [bold]netsim-fast topo --topology torus --k 16[/bold]
    """
    from netsim_fast.config import Config
    from netsim_fast.topologies import build_topology
    from netsim_fast.topologies.metrics import topology_metrics

    cfg = Config(seed=seed, **topology_fields(topology, k, n, dims, nodes, degree, base, jumps, file, graph_seed))
    metrics = topology_metrics(build_topology(cfg))
    if json:
        echo_json(metrics)
        return
    _render(metrics)


def _render(m: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=m["topology"], show_header=False)
    table.add_column("metric", style="bold")
    table.add_column("value", justify="right")
    exact = "exact" if m["bisection_exact"] else "best cut found (upper bound)"
    rows = [
        ("nodes", m["nodes"]),
        ("links (undirected)", m["links"]),
        ("degree", m["degree_min"] if m["degree_min"] == m["degree_max"] else f"{m['degree_min']}..{m['degree_max']}"),
        ("average distance", f"{m['average_distance']:.4f}"),
        ("diameter", m["diameter"]),
        ("bisection width", f"{m['bisection_width']} ({exact})"),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    dist = m["distance_distribution"]
    table.add_row("nodes at distance 0,1,2,..", " ".join(f"{x:g}" for x in dist[:12]) + (" ..." if len(dist) > 12 else ""))
    Console().print(table)
