"""A gossip plan: rings of packet slots, out-of-cycle feeds, and their compilation to kernel rules.

Vocabulary (Meyer & Sibeyn (papers/003), sections 3.2 and 4):

* A *ring* is a cycle of the torus, given as the node sequence in its forward direction. Every
  node of a ring holds one or more consecutive *slots* of the ring's virtual sequence; a slot
  carries a packet in each direction (the same packet for the copy-both-ways algorithms, two
  packets for the four-packet variant of section 3.2). A node with ``s`` slots forwards with a
  delay of ``s`` steps: it first emits its own slots, then what reaches it (a one-step buffer
  per extra slot). Plain cycles have one slot per node.
* Packets moving *forward* (``F``) along ring ``c`` are the ones a node receives from its
  predecessor; *backward* ones (``B``) come from its successor.
* A *feed* supplies out-of-cycle PUs (OOC-PUs): the on-cycle *supplier* (its root) sends its
  ``F`` or ``B`` stream over a link that no ring uses; the PUs of the feed's tree receive it one
  step later per hop (relays: the paper's "delay 2" PUs of section 4.3.4). A fixed role is
  time-independent; a ``schedule`` (per step, which of the feed's options to send: by default
  0 = ``B``, 1 = ``F``) is the switching strategy.

Stream contents follow from the slot layout alone (tested against the kernel): node ``q`` with
slots ``a .. b-1`` of a ring with ``S`` slots sends forward in step ``t`` the forward packet of
slot ``(b - t) mod S`` and backward the backward packet of slot ``(a + t - 1) mod S``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from netsim_fast.topologies.base import Topology

NONE = -1
FWD = 1
BWD = 0


class GossipRules(NamedTuple):
    """What the kernel reads; built by ``netsim_fast.workloads.gossip.plan.compile_rules``."""

    nbr: np.ndarray            # int32[n_nodes, n_ports]: neighbour through an output port, -1 none
    nbr_in_port: np.ndarray    # int32[n_nodes, n_ports]: input port of the neighbour the link enters
    link_id: np.ndarray        # int32[n_nodes, n_ports]: directed link id, -1 none
    rule_ptr: np.ndarray       # int64[n_nodes + 1]: rules of PU u are rule_ptr[u] .. rule_ptr[u+1]-1
    rule_in: np.ndarray        # int32[n_rules]: input port whose arrival history is read
    rule_delay: np.ndarray     # int32[n_rules]: steps between arrival and sending, 1 .. depth
    rule_out: np.ndarray       # int32[n_rules]: output port
    rule_sched: np.ndarray     # int32[n_rules]: row of sched, -1 = acts in every step
    rule_sched_on: np.ndarray  # uint8[n_rules]: sched value in which the rule acts
    sched: np.ndarray          # uint8[n_rows, horizon]: switching states per step (last column repeats)
    seed: np.ndarray           # int32[n_nodes, n_ports, depth]: packet "arrived" at step -j, -1 none
    own: np.ndarray            # int32[n_nodes, k]: packets a PU knows from the start


@dataclass
class Ring:
    """One cycle with its slots.

    Attributes
    ----------
    nodes : int64[L]
        Node ids in forward order; a simple cycle (checked by ``check.check_plan``).
    slot_ptr : int64[L + 1]
        Slots of ``nodes[q]`` are ``slot_ptr[q] .. slot_ptr[q+1]-1`` (in forward order).
    slot_fwd, slot_bwd : int64[S]
        Packet each slot sends forward / backward, -1 for an empty slot (a PU on two rings
        injects its packet into one of them only).
    """

    nodes: np.ndarray
    slot_ptr: np.ndarray
    slot_fwd: np.ndarray
    slot_bwd: np.ndarray

    @property
    def n_slots(self) -> int:
        return int(self.slot_ptr[-1])

    def position(self) -> dict:
        """node id -> index in ``nodes``."""
        return {int(v): q for q, v in enumerate(self.nodes)}

    def stream(self, q: int, role: int, delay: int, n_steps: int) -> np.ndarray:
        """Packets ``nodes[q]`` sends in steps 1 .. n_steps when it forwards ``role`` packets
        with ``delay`` (1 .. its slot count): forward ones start at its slot ``delay - 1``
        and run down the ring, backward ones start ``delay - 1`` slots before its last slot
        and run up. ``delay`` = slot count is the ring's own stream."""
        t = np.arange(1, n_steps + 1)
        a, b = int(self.slot_ptr[q]), int(self.slot_ptr[q + 1])
        if role == FWD:
            return self.slot_fwd[(a + delay - 1 - (t - 1)) % self.n_slots]
        return self.slot_bwd[(b - delay + t - 1) % self.n_slots]

    def forward_stream(self, q: int, n_steps: int) -> np.ndarray:
        """Forward packets the ring rule of ``nodes[q]`` sends in steps 1 .. n_steps."""
        return self.stream(q, FWD, int(self.slot_ptr[q + 1] - self.slot_ptr[q]), n_steps)

    def backward_stream(self, q: int, n_steps: int) -> np.ndarray:
        """Backward packets the ring rule of ``nodes[q]`` sends in steps 1 .. n_steps."""
        return self.stream(q, BWD, int(self.slot_ptr[q + 1] - self.slot_ptr[q]), n_steps)

    def packets(self) -> np.ndarray:
        """Sorted distinct packets the ring carries."""
        both = np.concatenate([self.slot_fwd, self.slot_bwd])
        return np.unique(both[both >= 0])


def plain_ring(nodes, packets) -> Ring:
    """A ring with one slot per node that copies ``packets[q]`` both ways (-1: empty slot)."""
    nodes = np.asarray(nodes, dtype=np.int64)
    pk = np.asarray(packets, dtype=np.int64)
    return Ring(nodes=nodes, slot_ptr=np.arange(nodes.size + 1, dtype=np.int64),
                slot_fwd=pk.copy(), slot_bwd=pk.copy())


@dataclass
class Feed:
    """A stream of ring ``ring`` sent by ``root`` (on the ring) down a tree of OOC-PUs.

    ``edges`` lists (parent, child) links, parents before children; the root's children get the
    stream one step after the root sends it, their children one step later (relays).
    """

    ring: int
    root: int
    edges: tuple
    role: int = FWD                       # FWD or BWD when there is no schedule
    schedule: np.ndarray | None = None    # uint8[horizon]: option sent in step 1.. (last repeats)
    options: tuple | None = None          # (role, delay) per schedule value; None: BWD, FWD

    def option_list(self, n_slots: int) -> tuple:
        """(role, delay) pairs the schedule values index; a root with ``n_slots`` slots."""
        return self.options if self.options is not None else ((BWD, n_slots), (FWD, n_slots))

    def depth(self, node: int) -> int:
        """Hops from the root to ``node`` (1 for a direct neighbour)."""
        parent = {c: p for p, c in self.edges}
        hops = 0
        while node != self.root:
            node = parent[node]
            hops += 1
        return hops

    def consumers(self) -> list:
        return [c for _, c in self.edges]

    def values_at(self, n_steps: int) -> np.ndarray:
        """uint8[n_steps]: schedule value (or fixed role) in steps 1 .. n_steps."""
        if self.schedule is None:
            return np.full(n_steps, self.role, np.uint8)
        sched = np.asarray(self.schedule, np.uint8)
        out = np.empty(n_steps, np.uint8)
        m = min(n_steps, sched.size)
        out[:m] = sched[:m]
        out[m:] = sched[-1]
        return out


@dataclass
class GossipPlan:
    """Everything a gossip algorithm on one torus is: rings, feeds, packets per PU, provenance."""

    topo: Topology
    dims: tuple
    algorithm: str
    section: str
    packets_per_pu: int
    rings: list
    feeds: list = field(default_factory=list)
    stated_ring_lengths: tuple = ()     # lengths the paper states (checked)
    max_relay_hops: int = 1             # feed depth the construction may use (checked)
    notes: tuple = ()

    @property
    def n_nodes(self) -> int:
        return self.topo.n_nodes

    @property
    def n_packets(self) -> int:
        return self.packets_per_pu * self.topo.n_nodes

    @property
    def switching(self) -> bool:
        return any(f.schedule is not None and np.unique(f.schedule).size > 1 for f in self.feeds)

    @property
    def buffered(self) -> bool:
        """True when some PU holds more than one slot of a ring (a one-step buffer)."""
        return any(np.any(np.diff(r.slot_ptr) > 1) for r in self.rings)


def ring_ports(topo: Topology, ring: Ring) -> tuple[np.ndarray, np.ndarray]:
    """Per position: (port to the successor, port from the predecessor) of ``ring.nodes``."""
    nodes = ring.nodes
    succ = np.roll(nodes, -1)
    pred = np.roll(nodes, 1)
    return port_towards(topo, nodes, succ), port_towards(topo, nodes, pred)


def port_towards(topo: Topology, src, dst) -> np.ndarray:
    """int32 port of ``src[i]`` whose link leads to ``dst[i]``; ValueError if not adjacent."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    hits = topo.nbr[src, : topo.local_port] == dst[:, None]
    if not np.all(hits.any(axis=1)):
        bad = int(np.flatnonzero(~hits.any(axis=1))[0])
        raise ValueError(f"nodes {int(src[bad])} and {int(dst[bad])} are not adjacent")
    return hits.argmax(axis=1).astype(np.int32)


def compile_rules(plan: GossipPlan) -> GossipRules:
    """Turn rings and feeds into the kernel's per-PU rules, seeds and switching table."""
    topo = plan.topo
    n_nodes, n_ports = topo.nbr.shape
    depth = max(int(np.max(np.diff(r.slot_ptr))) for r in plan.rings) if plan.rings else 1
    seed = np.full((n_nodes, n_ports, depth), NONE, np.int32)
    rules = []   # (node, in, delay, out, sched_row, sched_on)
    ring_src = {}  # (ring, node) -> {FWD: (in_port, delay), BWD: (in_port, delay)}
    for c, ring in enumerate(plan.rings):
        to_succ, from_pred = ring_ports(topo, ring)
        for q, u in enumerate(ring.nodes.tolist()):
            a, b = int(ring.slot_ptr[q]), int(ring.slot_ptr[q + 1])
            s = b - a
            from_succ = to_succ[q]  # backward packets arrive on the link to the successor
            seed[u, from_pred[q], :s] = ring.slot_fwd[a:b]
            seed[u, from_succ, :s] = ring.slot_bwd[a:b][::-1]
            rules.append((u, from_pred[q], s, to_succ[q], NONE, 0))
            rules.append((u, from_succ, s, from_pred[q], NONE, 0))
            ring_src[c, u] = {FWD: (from_pred[q], s), BWD: (from_succ, s)}
    sched_rows = []
    for f in plan.feeds:
        src = ring_src[f.ring, f.root]
        parent = {c: p for p, c in f.edges}
        for p, c in f.edges:
            out = int(port_towards(topo, [p], [c])[0])
            if p != f.root:
                pin = int(port_towards(topo, [p], [parent[p]])[0])
                rules.append((p, pin, 1, out, NONE, 0))
            elif f.schedule is None:
                port, delay = src[f.role]
                rules.append((p, port, delay, out, NONE, 0))
            else:
                row = len(sched_rows)
                sched_rows.append(np.asarray(f.schedule, np.uint8))
                s = src[FWD][1]
                for value, (role, delay) in enumerate(f.option_list(s)):
                    rules.append((p, src[role][0], delay, out, row, value))
    arr = np.array(rules, dtype=np.int64).reshape(-1, 6)
    arr = arr[np.argsort(arr[:, 0], kind="stable")]
    rule_ptr = np.zeros(n_nodes + 1, np.int64)
    np.cumsum(np.bincount(arr[:, 0], minlength=n_nodes), out=rule_ptr[1:])
    horizon = max((r.size for r in sched_rows), default=1)
    sched = np.zeros((max(len(sched_rows), 1), max(horizon, 1)), np.uint8)
    for i, r in enumerate(sched_rows):
        sched[i, : r.size] = r
        sched[i, r.size:] = r[-1]
    own = (np.arange(n_nodes, dtype=np.int64)[:, None] * plan.packets_per_pu
           + np.arange(plan.packets_per_pu)[None, :]).astype(np.int32)
    return GossipRules(
        nbr=topo.nbr, nbr_in_port=topo.nbr_in_port, link_id=topo.link_id,
        rule_ptr=rule_ptr,
        rule_in=arr[:, 1].astype(np.int32), rule_delay=arr[:, 2].astype(np.int32),
        rule_out=arr[:, 3].astype(np.int32), rule_sched=arr[:, 4].astype(np.int32),
        rule_sched_on=arr[:, 5].astype(np.uint8), sched=sched, seed=seed, own=own,
    )
