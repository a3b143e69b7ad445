"""``simulate_gossip``: build a checked plan, run the forwarding-rule kernel, compare with the paper.

This is the function ``netsim-fast run --engine packet --topology torus --pattern gossip-*``
calls; the result dict carries the interface contract's keys (``steps``, ``theorem_steps``,
``lower_bound_steps``, ``packets_per_pu``) and what explains them.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.analytic import gossip as model
from netsim_fast.packet.gossip import ERR_LINK_CONFLICT, ERR_OK, run
from netsim_fast.errors import SimulationError
from netsim_fast.workloads.gossip import build_plan, compile_rules, parse_algorithm


def simulate_gossip(dims, algorithm: str, time_independent: bool = False,
                    max_steps: int | None = None) -> dict:
    """Simulate gossip ``algorithm`` on the torus ``dims`` (paper's order: n1 first = dim 0).

    Parameters
    ----------
    dims : sequence of int
        Radix per dimension, e.g. ``(8, 8)``.
    algorithm : str
        ``gossip-ham`` or ``gossip-one`` (``ham``/``one`` accepted). ``gossip-naive`` is
        unicast traffic for the packet/flit engines and raises ``ConfigError`` here.
    time_independent : bool
        Drop the switching strategy (``gossip-one``; ``gossip-ham`` on a one-side-odd torus then
        routes four packets per PU, one direction each). Plans without switching are
        time-independent anyway and ignore the flag.
    max_steps : int, optional
        Step limit (default: enough for any plan here to finish twice over).

    Returns
    -------
    dict
        ``steps`` (simulated), ``theorem_steps`` / ``theorem`` (the paper's count and where it
        comes from; null where none applies), ``lower_bound_steps``, ``theorem1_bound`` (2-D,
        one packet), ``packets_per_pu``, ``time_independent`` (no switching schedule),
        ``buffered`` (some PU holds a second slot on its cycle), ``section``, ring lengths,
        feed counts, ``link_utilisation`` per step, ``duplicate_receives`` and ``notes``.

    Raises
    ------
    ConfigError
        Sizes the construction does not cover (the message names the paper's condition).
    SimulationError
        A link carried two packets in one step, or some PU missed a packet (a broken plan).
    """
    algorithm = parse_algorithm(algorithm)
    plan = build_plan(dims, algorithm, time_independent)
    rules = compile_rules(plan)
    n_links = int((rules.link_id >= 0).sum())
    if max_steps is None:
        max_steps = 2 * plan.packets_per_pu * plan.n_nodes + 16
    code, state = run(rules, plan.n_packets, max_steps)
    if code == ERR_LINK_CONFLICT:
        step, node, port, pkt = (int(x) for x in state.err_ctx)
        raise SimulationError(f"gossip plan {plan.section} on {plan.dims}: PU {node} sent two "
                              f"packets on port {port} in step {step} (one of them {pkt})")
    if code != ERR_OK:
        step, node, _, pkt = (int(x) for x in state.err_ctx)
        raise SimulationError(f"gossip plan {plan.section} on {plan.dims}: after {step} steps "
                              f"PU {node} still misses packet {pkt} of PU "
                              f"{pkt // plan.packets_per_pu}")
    steps = int(state.step[0])
    busy = state.busy[1: steps + 1]
    result = {
        "algorithm": algorithm,
        "dims": list(plan.dims),
        "section": plan.section,
        "n_nodes": plan.n_nodes,
        "steps": steps,
    }
    result.update(model.summary(plan.dims, algorithm, time_independent))
    result["packets_per_pu"] = plan.packets_per_pu
    result.update({
        "time_independent": not plan.switching,
        "buffered": plan.buffered,
        "ring_lengths": [int(r.nodes.size) for r in plan.rings],
        "stated_ring_lengths": [int(x) for x in plan.stated_ring_lengths],
        "feeds": len(plan.feeds),
        "relayed_feeds": sum(1 for f in plan.feeds if len(f.edges) > 1),
        "link_utilisation": (busy / n_links).round(6).tolist(),
        "mean_link_utilisation": float(busy.sum() / (n_links * max(steps, 1))),
        "useful_receives": int(state.fresh.sum()),
        "duplicate_receives": int(state.dup.sum()),
        "last_pu": int(np.argmax(state.done_step)),
        "notes": list(plan.notes),
    })
    return result
