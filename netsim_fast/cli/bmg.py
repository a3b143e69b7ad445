"""``netsim-fast bmg``: routing on binomial graphs (Angskun et al., papers/001).

``bmg overhead`` prints Tables 1-2 for one routing over a range of sizes, ``bmg route`` one route,
``bmg proof`` the exhaustive check of the equivalence-class router.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli._app import app, echo_json, guarded
from netsim_fast.cli.options import JsonOpt, given

bmg_app = typer.Typer(
    rich_markup_mode="rich",
    no_args_is_help=True,
    help="Routing on binomial graphs (BMG): overheads against shortest paths, single routes, proofs.",
)
app.add_typer(bmg_app, name="bmg")

RoutingOpt = Annotated[str, typer.Option(
    "--routing", help="bmg-bfs, bmg-basic, bmg-variant, bmg-bitcount, bmg-cbe, bmg-equiclass, chord "
                      "(and the alternative readings bmg-basic-linear, bmg-variant-linear, "
                      "bmg-bitcount-nbr, bmg-cbe-nbr).")]
LoopsOpt = Annotated[int, typer.Option("--loops", help="Loops l of bmg-equiclass (optimal for l >= 4 up to 4096 nodes).")]
NodesFromOpt = Annotated[int, typer.Option("--nodes-from", help="Smallest BMG size (inclusive).")]
NodesToOpt = Annotated[int, typer.Option("--nodes-to", help="Largest BMG size (inclusive).")]


def _check_loops_apply(ctx: typer.Context, routing: str, loops: int) -> None:
    """``--loops`` is read by bmg-equiclass only: given with another routing it is an error."""
    from netsim_fast.checks import bad
    from netsim_fast.routing.bmg import routing_code

    routing_code(routing)  # an unknown routing is reported first
    if routing != "bmg-equiclass" and given(ctx, "loops"):
        raise bad("loops", loops, f"applies to --routing bmg-equiclass only; --routing {routing} has no loops")


def _table(title: str, rows: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False)
    for key, value in rows.items():
        table.add_row(key, f"{value:.6g}" if isinstance(value, float) else str(value))
    Console().print(table)


@bmg_app.command("overhead")
@guarded
def overhead(
    ctx: typer.Context,
    *,
    routing: RoutingOpt,
    nodes_from: NodesFromOpt = 16,
    nodes_to: NodesToOpt = 4096,
    loops: LoopsOpt = 4,
    measure: Annotated[Optional[str], typer.Option(
        "--measure", help="estimate (hop estimate at the source; what Tables 1-2 report) or route "
                          "(length of the route taken). Default: estimate for bmg-bitcount, bmg-cbe, "
                          "bmg-equiclass, route for the others.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Average-distance overhead (%) and diameter overhead (hops) against BFS, per size and summarised (Tables 1-2)."""
    from netsim_fast.analytic.bmg import overhead_series, overhead_summary, resolve_measure
    from netsim_fast.routing.bmg import routing_code

    _check_loops_apply(ctx, routing, loops)
    series = overhead_series(routing, nodes_from, nodes_to, loops=loops, measure=measure)
    result = {
        "routing": routing,
        "nodes_from": nodes_from,
        "nodes_to": nodes_to,
        "loops": loops,
        "measure": resolve_measure(routing_code(routing), measure),
        **overhead_summary(series),
    }
    if as_json:
        echo_json(result)
    else:
        _table(f"BMG overhead of {routing}, {nodes_from}..{nodes_to} nodes", result)


@bmg_app.command("route")
@guarded
def route_cmd(
    ctx: typer.Context,
    *,
    nodes: Annotated[int, typer.Option("--nodes", help="BMG size n (>= 3).")],
    src: Annotated[int, typer.Option("--src", help="Source node, 0..n-1.")],
    dst: Annotated[int, typer.Option("--dst", help="Destination node, 0..n-1.")],
    routing: RoutingOpt,
    loops: LoopsOpt = 4,
    as_json: JsonOpt = False,
) -> None:
    """The route of one message: the nodes it visits and its hop count."""
    from netsim_fast.analytic.bmg import distances
    from netsim_fast.routing.bmg import route

    _check_loops_apply(ctx, routing, loops)
    path = route(nodes, src, dst, routing, loops=loops)
    shortest = int(distances(nodes)[(dst - src) % nodes]) if nodes <= 1 << 20 else None
    result = {"routing": routing, "nodes": nodes, "src": src, "dst": dst, "loops": loops,
              "path": path, "hops": len(path) - 1, "shortest_hops": shortest}
    if as_json:
        echo_json(result)
    else:
        _table(f"BMG route {src} -> {dst} on {nodes} nodes ({routing})",
               {**result, "path": " ".join(str(v) for v in path)})


@bmg_app.command("proof")
@guarded
def proof(
    *,
    nodes_from: NodesFromOpt = 16,
    nodes_to: NodesToOpt = 4096,
    loops: LoopsOpt = 4,
    max_loops: Annotated[int, typer.Option("--max-loops", help="Search the least optimal loop count up to this.")] = 8,
    as_json: JsonOpt = False,
) -> None:
    """Check by exhaustion that bmg-equiclass routes every pair on a shortest path, and find the least l per size."""
    import numpy as np

    from netsim_fast.analytic.bmg import equiclass_proof
    from netsim_fast.checks import require_int
    from netsim_fast.routing.bmg import MAX_LOOPS

    require_int("max-loops", max_loops, 0, MAX_LOOPS, " (the least loop count is searched in 0..--max-loops)")
    res = equiclass_proof(nodes_from, nodes_to, loops=loops, max_loops=max_loops)
    values, counts = np.unique(res["min_loops"], return_counts=True)
    result = {
        "nodes_from": nodes_from,
        "nodes_to": nodes_to,
        "loops": loops,
        "sizes": int(res["n"].size),
        "optimal_sizes": int(res["optimal"].sum()),
        "all_optimal": bool(res["optimal"].all()),
        "min_loops_histogram": {int(v): int(c) for v, c in zip(values, counts)},
        "max_min_loops": int(res["min_loops"].max()),
        "counterexamples": [dict(zip(("n", "d", "shortest", "estimate", "routed"), map(int, row)))
                            for row in res["counterexamples"][:20]],
    }
    if as_json:
        echo_json(result)
    else:
        _table(f"bmg-equiclass, l = {loops}, {nodes_from}..{nodes_to} nodes",
               {k: v for k, v in result.items() if k != "counterexamples"})
