"""``netsim-fast logp``: run a BSP-on-LogP protocol on the message-level LogP machine."""

from __future__ import annotations

from typing import Annotated

import typer

from netsim_fast.cli._app import app, echo_json, guarded


@app.command()
@guarded
def logp(
    L: Annotated[int, typer.Option("--L", help="Latency: delivery within L steps of acceptance.")] = 32,
    o: Annotated[int, typer.Option("--o", help="Overhead: steps to submit or acquire a message (>= 1).")] = 2,
    G: Annotated[int, typer.Option("--G", help="Gap between submissions / acquisitions; max(2, o) <= G <= L.")] = 4,
    p: Annotated[int, typer.Option("--p", help="Number of processors.")] = 64,
    protocol: Annotated[str, typer.Option(help="deterministic | randomized | cb")] = "randomized",
    h: Annotated[int, typer.Option("--h", help="Messages per processor of the random h-relation.")] = 16,
    relation: Annotated[str, typer.Option(help="permutations (exact h in and out) | random")] = "permutations",
    delay: Annotated[str, typer.Option(help="Delivery delay: uniform in [1, L] | max (adversarial, = L) | min")] = "uniform",
    beta: Annotated[float, typer.Option(help="Theorem 3's beta: R = ceil((1+beta) h / ceil(L/G)).")] = 1.0,
    seed: Annotated[int, typer.Option(help="Seed of the relation, batches and delays.")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object only.")] = False,
) -> None:
    """Time a protocol of Bilardi et al. (BSP vs LogP) and report stalls beside the paper's bound."""
    from netsim_fast.analytic.logp import LogPParams
    from netsim_fast.studies.logp import run_protocol

    params = LogPParams(L=L, o=o, G=G, p=p)
    _, info = run_protocol(params, protocol, h=h, seed=seed, delay=delay, beta=beta,
                           relation=relation)
    out = {"L": L, "o": o, "G": G, "p": p, "capacity": params.capacity, "protocol": protocol,
           "delay": delay, "seed": seed}
    if protocol != "cb":
        out["relation"] = relation
    out.update(info)
    if json_out:
        echo_json(out)
        return
    typer.echo(f"{protocol} on LogP(L={L}, o={o}, G={G}, p={p}), capacity ceil(L/G) = "
               f"{params.capacity}, delays {delay}")
    typer.echo(f"  time {out['time']}  (paper's bound {out['bound']:.1f})")
    typer.echo(f"  stall time {out['stall_time']} total, {out['stall_time_max']} max per processor; "
               f"stalled: {'yes' if out['stalled'] else 'no'}")
