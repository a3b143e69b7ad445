"""``netsim-fast model``: closed-form predictions; ``model rrg`` is papers/000's model."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli._app import app, echo_json, guarded
from netsim_fast.cli.options import JsonOpt

model_app = typer.Typer(
    rich_markup_mode="rich", no_args_is_help=True,
    help="Closed-form predictions of the papers' models (compare them with netsim-fast run).")
app.add_typer(model_app, name="model")

_S = "Simulation (--compare)"


@model_app.command("rrg")
@guarded
def rrg(
    *,
    nodes: Annotated[Optional[int], typer.Option("--nodes", help="Nodes N of the random regular graph.")] = None,
    degree: Annotated[Optional[int], typer.Option("--degree", help="Degree R.")] = None,
    pattern: Annotated[str, typer.Option("--pattern", help="random | total-exchange | embed-debruijn (binary, predicted with 2 messages per node).")] = "random",
    messages: Annotated[Optional[int], typer.Option("--messages", help="random: messages per node \\[default: 1].")] = None,
    policy: Annotated[str, typer.Option("--policy", help="fifo | srpf | lrpf: which queued message a link sends.")] = "fifo",
    tolerance: Annotated[float, typer.Option("--tolerance", help="Diameter estimate of eq. (7): smallest d with 1 - P(distance <= d) <= this.")] = 1e-6,
    include_self: Annotated[bool, typer.Option("--include-self", help="The paper's literal start m_i = M P_i(D) (M/N messages delivered at t = 0).")] = False,
    compare: Annotated[bool, typer.Option("--compare", rich_help_panel=_S, help="Also simulate the packet engine on --graphs seeded graphs and print both side by side.")] = False,
    graphs: Annotated[Optional[int], typer.Option("--graphs", rich_help_panel=_S, help="Graphs to simulate; graph g has graph and traffic seed --seed + g \\[default: 10].")] = None,
    path_choice: Annotated[Optional[str], typer.Option("--path-choice", rich_help_panel=_S, help="fixed | random \\[default: fixed].")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", rich_help_panel=_S, help="Seed of graph 0, as in netsim-fast run --seed \\[default: 1].")] = None,
    json: JsonOpt = False,
) -> None:
    """Papers/000's model of a random regular graph: cycles, distances, diameter.

    The message-passing model predicts the cycles until every message is delivered; the
    path-tree model gives the distance distribution and the diameter estimate of eq. (7).

    Example: [bold]netsim-fast model rrg --nodes 64 --degree 4 --messages 2 --policy lrpf --compare --graphs 10[/bold]
    """
    from netsim_fast.config import RrgModelConfig

    cfg = RrgModelConfig(nodes=nodes, degree=degree, pattern=pattern, messages=messages, policy=policy,
                         tolerance=tolerance, include_self=include_self, compare=compare, graphs=graphs,
                         path_choice=path_choice, seed=seed)
    result = model_rrg(cfg)
    if json:
        echo_json(result)
        return
    _render(result)


def model_rrg(cfg) -> dict:
    """The prediction (and with ``cfg.compare`` the simulations) of a validated ``RrgModelConfig``."""
    from netsim_fast.studies.rrg_compare import compare_rrg, predict_workload

    common = dict(policy=cfg.policy, workload=cfg.pattern, include_self=cfg.include_self, tolerance=cfg.tolerance)
    messages = cfg.messages or 1
    if cfg.compare:
        out = compare_rrg(cfg.nodes, cfg.degree, messages, graphs=cfg.graphs, seed=cfg.seed,
                          path_choice=cfg.path_choice, **common)
        out.update(seed=cfg.seed, path_choice=cfg.path_choice)
        return out
    return predict_workload(cfg.nodes, cfg.degree, messages, **common)


def _render(r: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    compare = "sim_cycles_mean" in r
    title = (f"random {r['degree']}-regular graphs, N = {r['n_nodes']} · {r['workload']} · {r['policy']} · "
             f"{r['total_messages']:g} messages")
    table = Table(title=title)
    table.add_column("quantity", style="bold")
    table.add_column("model", justify="right")
    if compare:
        table.add_column(f"{r['graphs']} graphs: mean ± std (range)", justify="right")
    cycles = [f"{r['cycles']}"]
    distance = [f"{r['average_distance']:.4f}"]
    if compare:
        cycles.append(f"{r['sim_cycles_mean']:.2f} ± {r['sim_cycles_std']:.2f}  ({min(r['sim_cycles'])}..{r['sim_cycles_max']})")
        distance.append(f"{r['sim_average_distance']:.4f}")
    table.add_row("cycles", *cycles)
    table.add_row("average distance", *distance)
    if compare:
        loads = r["max_link_load"]
        table.add_row("busiest link (lower bound)", "—", f"{sum(loads) / len(loads):.2f}  ({min(loads)}..{max(loads)})")
    pad = [""] if compare else []
    table.add_row(f"diameter estimate (tol. {r['diameter_tolerance']:g})", str(r["diameter_estimate"]), *pad)
    if r["theorem1_upper"] is not None:
        table.add_row("diameter, Thm 2 / Thm 1", f"{r['theorem2_lower']} / {r['theorem1_upper']}", *pad)
    dist = r["distance_distribution"]
    table.add_row("nodes at distance 0,1,2,..", " ".join(f"{x:.3g}" for x in dist[:8]) + (" ..." if len(dist) > 8 else ""), *pad)
    table.caption = f"stopping rule: {r['stopping_rule']}"
    Console().print(table)
