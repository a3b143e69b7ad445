"""``netsim-fast logp``: run a BSP-on-LogP protocol on the message-level LogP machine."""

from __future__ import annotations

from typing import Annotated

import typer

from netsim_fast.cli._app import app, echo_json, guarded

MAX_L = 10**9  # time stamps stay far below 2**63 with every other option at its bound
MAX_P = 1 << 20
MAX_H = 1 << 16
MAX_BETA = 100.0


@app.command()
@guarded
def logp(
    ctx: typer.Context,
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

    _check(ctx, L=L, o=o, G=G, p=p, protocol=protocol, h=h, relation=relation, delay=delay, beta=beta, seed=seed)
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


def _check(ctx, *, L, o, G, p, protocol, h, relation, delay, beta, seed) -> None:
    """Every option of ``logp`` before any work: ranges, the paper's max(2, o) <= G <= L, the
    options the protocol does not read, and the memory the run will need."""
    from netsim_fast.checks import bad, require_finite, require_int, unknown_choice
    from netsim_fast.cli.options import given
    from netsim_fast.logp.run import DELAY_MODES
    from netsim_fast.studies.logp import PROTOCOLS
    from netsim_fast.workloads.hrelation import KINDS

    if protocol not in PROTOCOLS:
        raise unknown_choice("protocol", protocol, PROTOCOLS)
    if relation not in KINDS:
        raise unknown_choice("relation", relation, KINDS)
    if delay not in DELAY_MODES:
        raise unknown_choice("delay", delay, DELAY_MODES)
    require_int("L", L, 2, MAX_L, " steps (G <= L and G >= 2)")
    require_int("o", o, 1, what=" steps (a submission takes at least one step)")
    require_int("G", G, max(2, o), L, f" (papers/002 section 2.2: max(2, o) <= G <= L, here {max(2, o)}..{L})")
    require_int("p", p, 2, MAX_P, " processors")
    require_int("seed", seed, 0, 2**63 - 3, " (the delays use seed + 2)")
    if protocol == "cb":  # one combine-and-broadcast: no relation to route
        for name, value in (("h", h), ("relation", relation), ("beta", beta)):
            if given(ctx, name):
                raise bad(name, value, "does not apply to --protocol cb (one combine-and-broadcast, no h-relation)")
        _check_memory(p, 512 * p)
        return
    require_int("h", h, 1, MAX_H, " messages per processor")
    if protocol == "deterministic" and given(ctx, "beta"):
        raise bad("beta", beta, "applies to --protocol randomized only (Theorem 3's batches)")
    require_finite("beta", beta, 0, MAX_BETA, low_open=True)
    if protocol == "deterministic":  # Batcher's network: every layer exchanges every key
        k = max(1, (p - 1).bit_length())
        need = 160 * p * h * (k * (k + 1) // 2)
    else:
        from netsim_fast.analytic.logp import n_batches
        from netsim_fast.logp_params import capacity

        need = 320 * p * h + 64 * p * n_batches(h, capacity(L, G), beta)
    _check_memory(p, need)


def _check_memory(p: int, need_bytes: int) -> None:
    from netsim_fast.checks import bad
    from netsim_fast.config.memory import MIB, available_mib

    limit = available_mib()
    if limit is not None and need_bytes / MIB > limit:
        raise bad("p", p, f"this protocol needs about {need_bytes / MIB:,.0f} MiB, more than the memory available "
                          f"now ({limit:,} MiB); lower --p or --h")
