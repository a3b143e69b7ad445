"""Gossip (all-to-all broadcast) on full-port tori: Meyer & Sibeyn (papers/003).

``build_plan(dims, algorithm, time_independent)`` returns a checked ``GossipPlan`` (rings of
packet slots plus feeds for out-of-cycle PUs); ``plan.compile_rules`` turns it into the arrays of
``netsim_fast.packet.gossip``; ``netsim_fast.studies.gossip.simulate_gossip`` runs it.

Algorithms (``--pattern``):

``gossip-ham``  two packets per PU along two edge-disjoint (partial) Hamiltonian cycles of a 2-D
                torus: section 3.1 (both sides even), 3.2 (one side odd, with switching), our
                replacement of 3.3 (both odd). ``time_independent=True`` on a 3.2 size routes four
                packets per PU, one direction each (the paper's remark in 3.2).
``gossip-one``  one packet per PU along ``d`` partial cycles of zigzag laps: sections 4.1 (2-D),
                4.2 (3-D), 4.3 (d >= 4), with switching; ``time_independent=True`` drops it.
``gossip-naive`` every PU sends its packet to every other PU as unicast messages; not a
                forwarding-rule plan (see ``naive.messages``), it runs on the packet/flit engines.
"""

from __future__ import annotations

import difflib

import numpy as np

from netsim_fast.analytic import gossip as analytic
from netsim_fast.errors import ConfigError
from netsim_fast.topologies.torus import torus
from netsim_fast.workloads.gossip import ham2d, zigzag
from netsim_fast.workloads.gossip.check import GossipCheckError, check_plan, check_rings
from netsim_fast.workloads.gossip.feeds import SupplyError, assign_feeds
from netsim_fast.workloads.gossip.plan import GossipPlan, Ring, compile_rules, plain_ring
from netsim_fast.workloads.gossip.supply import search_feeds
from netsim_fast.workloads.gossip.switching import solve_schedules

ALGORITHMS = ("gossip-ham", "gossip-one", "gossip-naive")

HAM_NOTES = {
    "3.1": ("section 3.1 rules: two edge-disjoint Hamiltonian cycles, no OOC-PU",),
    "3.2": ("section 3.2 special column (both orientations): PUs on one cycle buffer their "
            "second packet one step on that cycle (the paper leaves it unrouted)",),
    "3.3": ("section 3.3 replaced (its figure is missing): square-switch Hamiltonian "
            "decomposition, no OOC-PU, one step under Theorem 4",),
}
SWITCH_NOTE = ("switching per OOC-PU computed by matching (the paper's single switch after l "
               "steps does not cover the cycle in general)")
FOUR_NOTE = "time-independent variant: four packets per PU, each sent one way round its cycle"
ONE_NOTE = "switching per OOC-PU computed by matching (0-1 program where a feed is relayed)"
RELAY_SEARCH_NOTE = "d >= 4: relays chosen by a search for schedules within Theorem 7's count"
ONE_TI_NOTE = "time-independent: each OOC-PU gets forward packets from one supplier and " \
    "backward ones from the other, both running into the shorter gap first"

__all__ = ["ALGORITHMS", "GossipCheckError", "GossipPlan", "build_plan", "check_plan",
           "compile_rules", "parse_algorithm", "section_of"]


def parse_algorithm(name: str) -> str:
    """Canonical algorithm name; ``ham``/``one``/``naive`` are accepted without the prefix."""
    key = name if name.startswith("gossip-") else f"gossip-{name}"
    if key not in ALGORITHMS:
        close = difflib.get_close_matches(name, ALGORITHMS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown gossip algorithm {name!r}; choose one of "
                          f"{', '.join(ALGORITHMS)}{hint}")
    return key


def _dims(dims) -> tuple:
    try:
        out = tuple(int(k) for k in dims)
    except (TypeError, ValueError):
        raise ConfigError(f"--dims must be integers like 8,8; got {dims!r}") from None
    if not out:
        raise ConfigError("--dims is empty; give the radix of each dimension, e.g. 8,8")
    return out


def section_of(dims, algorithm: str) -> str:
    """The paper's section for (dims, algorithm), after validating the sizes."""
    dims = _dims(dims)
    algorithm = parse_algorithm(algorithm)
    txt = "x".join(map(str, dims))
    if algorithm == "gossip-ham":
        if len(dims) != 2:
            raise ConfigError(f"gossip-ham is built for 2-D tori (sections 3.1-3.3; section 3.4 "
                              f"gives no construction for d > 2); got dims {txt} - use "
                              f"--pattern gossip-one for {len(dims)}-D")
        if min(dims) < 3:
            raise ConfigError(f"gossip-ham needs n1, n2 >= 3 (a radix-2 ring has one link here, "
                              f"so no two edge-disjoint cycles exist); got dims {txt}")
        odd = sum(k % 2 for k in dims)
        return ("3.1", "3.2", "3.3")[odd]
    if algorithm == "gossip-one":
        bad = zigzag.conditions(dims)
        if bad:
            raise ConfigError(f"gossip-one on dims {txt} violates " + "; ".join(bad))
        return {2: "4.1", 3: "4.2"}.get(len(dims), "4.3")
    return "naive"


def build_plan(dims, algorithm: str, time_independent: bool = False) -> GossipPlan:
    """Build, schedule and check the forwarding-rule plan of ``algorithm`` on the torus ``dims``.

    Raises ``ConfigError`` for sizes the construction does not cover (naming the paper's
    condition) and ``GossipCheckError`` if the built construction breaks a checked property.
    """
    dims = _dims(dims)
    algorithm = parse_algorithm(algorithm)
    section = section_of(dims, algorithm)
    if algorithm == "gossip-naive":
        raise ConfigError("gossip-naive is unicast traffic for the packet/flit engines, not a "
                          "forwarding-rule plan; use netsim_fast.workloads.gossip.naive.messages")
    topo = torus(dims)
    if algorithm == "gossip-ham":
        plan = _plan_ham(topo, dims, section, time_independent)
    else:
        plan = _plan_one(topo, dims, section, time_independent)
    check_plan(plan)
    return plan


def _plan_ham(topo, dims, section, time_independent) -> GossipPlan:
    if section == "3.3":
        walks, _ = ham2d.cycles_square_switch(topo)
    else:
        walks, _ = ham2d.cycles_3_1_3_2(topo)
    four = time_independent and section == "3.2"
    k = 4 if four else 2
    member = np.zeros((topo.n_nodes, len(walks)), bool)
    for c, w in enumerate(walks):
        member[w, c] = True
    rings = []
    for c, w in enumerate(walks):
        fwd, bwd, ptr = [], [], [0]
        for u in w.tolist():
            if member[u].all():
                own = [(k * u + (k // 2) * c, k * u + (k // 2) * c + (k // 4))]
            else:  # a single-cycle PU carries all its packets on its one cycle (one slot each)
                own = [(k * u + s, k * u + s + (k // 4)) for s in range(0, k, k // 2)]
            for a, b in own:
                fwd.append(a)
                bwd.append(b)
            ptr.append(ptr[-1] + len(own))
        rings.append(Ring(nodes=w, slot_ptr=np.array(ptr, np.int64),
                          slot_fwd=np.array(fwd, np.int64), slot_bwd=np.array(bwd, np.int64)))
    n_rows_even = min(k_ for k_ in dims if k_ % 2 == 0) if section == "3.2" else 0
    p = topo.n_nodes
    stated = {"3.1": (p, p), "3.2": (p - n_rows_even // 2,) * 2, "3.3": (p, p)}[section]
    check_rings(topo, rings, stated)
    plan = GossipPlan(topo=topo, dims=dims, algorithm="gossip-ham", section=section,
                      packets_per_pu=k, rings=rings, stated_ring_lengths=stated, max_relay_hops=1,
                      notes=HAM_NOTES[section] + ((FOUR_NOTE,) if four else ())
                      + ((SWITCH_NOTE,) if section == "3.2" and not time_independent else ()))
    plan.feeds = assign_feeds(topo, rings, max_hops=1)
    if plan.feeds and not time_independent:
        solve_schedules(plan)
    return plan


def _plan_one(topo, dims, section, time_independent) -> GossipPlan:
    d = len(dims)
    txt = "x".join(map(str, dims))
    pattern, tried, printed_defects = zigzag.choose_pattern(dims)
    if pattern is None:
        raise ConfigError(f"gossip-one on dims {txt}: conditions (1)-(3) hold but the zigzag "
                          f"laps of section 4.3.1 do not give simple cycles here "
                          f"({printed_defects[0]}), nor does any of the {tried} variants of "
                          f"the zigzags we try; sizes that work include 4x4x4x5, 4x5x4x5, "
                          f"4x6x4x4, 8x8x8x4, 5x3x3x5x5 (docs/gossip.md, section 4.3)")
    walks = zigzag.cycles(dims, pattern)
    first_ring = np.full(topo.n_nodes, -1, np.int64)
    for c in range(len(walks) - 1, -1, -1):
        first_ring[walks[c]] = c
    # a PU on two cycles (the zigzag rows) injects its packet into the lower-numbered one
    rings = [plain_ring(w, np.where(first_ring[w] == c, w, -1)) for c, w in enumerate(walks)]
    stated = (zigzag.stated_length(dims),) * d
    check_rings(topo, rings, stated)
    notes = [ONE_TI_NOTE if time_independent else ONE_NOTE]
    if d >= 4 and not time_independent:
        notes.append(RELAY_SEARCH_NOTE)
    if pattern != zigzag.printed_pattern(d):
        notes.append(f"zigzags of section 4.3.1 as printed pass a PU twice here "
                     f"({printed_defects[0]}); using variant {zigzag.describe(pattern)}")
    plan = GossipPlan(topo=topo, dims=dims, algorithm="gossip-one", section=section,
                      packets_per_pu=1, rings=rings, stated_ring_lengths=stated,
                      max_relay_hops=2 if d >= 4 else 1, notes=())
    if d < 4:
        plan.feeds = assign_feeds(topo, rings, max_hops=1)
    elif time_independent:
        try:
            plan.feeds = assign_feeds(topo, rings, max_hops=2)
        except SupplyError:   # the greedy relays run out; the search finds others
            target = int(analytic.theorem_steps(dims, "gossip-one")[0])
            plan.feeds = search_feeds(topo, rings, target, max_extra=0, strict_roles=True)[0]
    else:
        deadline, _ = analytic.theorem_steps(dims, "gossip-one")
        target = int(deadline)
        plan.feeds, reached, late = search_feeds(topo, rings, target)
        if late:
            notes.append(f"supply search: {late} (PU, cycle) pairs cannot be fed by step "
                         f"{target} (Theorem 7); all are fed by step {reached}")
    plan.notes = tuple(notes)
    if not time_independent:
        solve_schedules(plan)
    return plan
