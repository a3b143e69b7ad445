"""Run phased message sets (BSP programs with barriers) on the flit or the packet engine.

The rule (``workloads/bsp_programs.py``): a message of phase f leaves node u once u has
*acquired* every message addressed to it with a phase below f. With a node overhead ``o``
(cycles of the node's processor per message) the times are:

- acquisition of a message delivered at cycle d: ``d + o`` (receiving is not serialised:
  every message is usable o cycles after its delivery);
- ready time of message m at node u: the latest acquisition of the messages u waits for
  (0 if none);
- release (the cycle the message enters the engine): ``r_i = max(ready_i, r_{i-1}) + o`` over
  u's messages in program order, i.e. the node prepares its messages one at a time, o cycles
  each, so a node submits at most one message every o cycles.

With ``o = 0`` a release is the delivery cycle of the last message waited for. Both engines
take a message released at cycle r in cycle r (flit: joins the source queue in stage 2 and
may be injected in stage 8; packet: queued at its first link in the release step), and a
delivery at cycle d is the flit engine's tail-ejection cycle or the packet engine's
``delivered`` (it arrived at the end of cycle d - 1).

Two executions of the rule:

- *native* (flit engine, ``o = 0``): one run with the engine's own ``--sync local`` phases,
  whose gate is exactly the rule (a node's queue head waits until the node has received every
  packet of the earlier phases).
- *iterative* (any engine, any o): the engines take release cycles, not dependencies, so the
  driver finds the releases as a fixed point, growing the set K of messages whose release is
  final. Each round simulates K alone, computes from its deliveries the releases of the
  messages whose dependencies are all in K, takes the smallest of them, r*, and finalises
  every candidate whose dependencies were all delivered by ``r* + 1``. This is exact: every
  message outside K is released at ``>= r*``, and a message released at ``r*`` cannot change
  any delivery before ``r* + 2`` (it needs a cycle to leave its queue and one more link to
  delay anyone, on both engines), so the deliveries the finalised releases rest on are those
  of the whole program. At the end the rule is checked against the final run.
  The packet engine's tie-breaking hashes packet ids, so every round passes *all* messages
  with their program index as id; those outside K are parked at a far release cycle and the
  run stops at a horizon by which K is delivered. The flit engine breaks ties by the relative
  order of packet ids only, so it is given K alone, ordered by (release, source, index).

Notes
-----
Bilardi et al. (papers/002): o is "the overhead" of preparing / acquiring a message (section
2.2); here it is a configured node cost, not a property the engines measure.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from netsim_fast.errors import ConfigError, SimulationError
from netsim_fast.workloads.bsp_programs import DATA, Program

_PARK = 1 << 40  # release cycle of messages not yet released (packet engine)
_BIG = np.int64(1) << 42  # segment offset for cumulative maxima (cycles stay below 2^41)


class ProgramTimes(NamedTuple):
    """Per-message times of one program run (program order).

    release : int64[m]
        Cycle the message entered the engine (by the rule; on the native path the engine
        gated it itself and this is the rule evaluated on the final deliveries).
    delivered : int64[m]
    acquired : int64[m]
        ``delivered + o``.
    rounds : int
        Engine runs it took (1 on the native path).
    """

    release: np.ndarray
    delivered: np.ndarray
    acquired: np.ndarray
    rounds: int


class EngineRunner:
    """Deliveries of message sets on the engine and topology of a validated ``Config``.

    Parameters
    ----------
    cfg : Config
        ``engine`` is ``flit`` or ``packet``; its router / packet options apply to every run.
    topo : Topology
    """

    def __init__(self, cfg, topo):
        self.cfg = cfg
        self.topo = topo
        self.engine = cfg.engine
        self._slack = 64
        if self.engine == "packet":
            from netsim_fast.routing.dor_table import build_packet_table

            self.table = build_packet_table(topo, cfg.routing)

    def deliver(self, src, dst, length, release) -> np.ndarray:
        """Delivery cycle of every message released at ``release`` (``-1``: not released;
        such messages get ``-1`` back).

        Arrays are int, equal length; ``length`` (flits) is used by the flit engine only.
        """
        release = np.asarray(release, dtype=np.int64)
        if self.engine == "packet":
            return self._deliver_packet(np.asarray(src), np.asarray(dst), release)
        return self._deliver_flit(np.asarray(src), np.asarray(dst), np.asarray(length), release)

    def deliver_phased(self, program: Program) -> np.ndarray:
        """Native path (flit engine, o = 0): one run gated by the engine's phases."""
        from netsim_fast.flit.run import run_flit
        from netsim_fast.workloads.packets import FinitePackets

        n = program.n_messages
        packets = FinitePackets(program.src, program.dst, program.length, np.zeros(n, np.int64),
                                program.phase)
        run = run_flit(self.cfg, self.topo, packets=packets, sync="local")
        return run.state.pkt["tail_del"][:n].astype(np.int64)

    def _deliver_flit(self, src, dst, length, release):
        from netsim_fast.flit.run import run_flit
        from netsim_fast.workloads.packets import FinitePackets

        out = np.full(release.size, -1, np.int64)
        idx = np.nonzero(release >= 0)[0]
        if idx.size == 0:
            return out
        order = idx[np.lexsort((idx, src[idx], release[idx]))]
        packets = FinitePackets(src[order].astype(np.int32), dst[order].astype(np.int32),
                                length[order].astype(np.int32), release[order])
        run = run_flit(self.cfg, self.topo, packets=packets)
        out[order] = run.state.pkt["tail_del"][: order.size]
        return out

    def _deliver_packet(self, src, dst, release):
        from netsim_fast.packet.run import simulate_packets
        from netsim_fast.workloads.messages import make_messages

        known = release >= 0
        if not known.any():
            return np.full(release.size, -1, np.int64)
        parked = not known.all()
        messages = make_messages(src, dst, np.where(known, release, _PARK))
        cfg = self.cfg
        while True:
            horizon = int(release[known].max()) + self._slack if parked else None
            try:
                res = simulate_packets(
                    self.topo, messages, policy=cfg.policy, path_choice=cfg.path_choice,
                    one_port=cfg.one_port, queue_capacity=cfg.queue_capacity, seed=cfg.seed,
                    deadlock_cycles=cfg.deadlock_cycles, max_cycles=horizon, table=self.table)
            except SimulationError as exc:  # the horizon: a partial run, parked messages unsent
                if getattr(exc, "result", None) is None or not parked:
                    raise
                res = exc.result
            delivered = res.delivered_cycle.astype(np.int64)
            if np.all(delivered[known] >= 0):
                break
            self._slack *= 2
        self._slack = max(64, 2 * int(delivered[known].max() - release[known].max()))
        delivered[~known] = -1
        return delivered


# -- the rule -------------------------------------------------------------------------------


class _Deps(NamedTuple):
    """Who waits for whom: incoming messages grouped by (node, phase)."""

    order_in: np.ndarray  # message ids sorted by (dst, phase)
    group_start: np.ndarray  # first position of each group in order_in
    group_node: np.ndarray  # receiving node of each group
    group_seg: np.ndarray  # first group of the same node
    last_group: np.ndarray  # per message: last group of its source below its phase, -1 none
    pos: np.ndarray  # per message: position among its source's messages


def _dependencies(program: Program) -> _Deps:
    src = program.src.astype(np.int64)
    dst = program.dst.astype(np.int64)
    phase = program.phase.astype(np.int64)
    width = int(phase.max(initial=0)) + 2
    key_in = dst * width + phase
    order_in = np.argsort(key_in, kind="stable")
    group_key, group_start = np.unique(key_in[order_in], return_index=True)
    group_node = group_key // width
    group_seg = np.searchsorted(group_node, group_node, side="left")
    last = np.searchsorted(group_key, src * width + phase, side="left") - 1
    last = np.where((last >= 0) & (group_node[np.maximum(last, 0)] == src), last, -1)
    first = np.searchsorted(src, src, side="left")  # program order is sorted by source
    return _Deps(order_in, group_start, group_node, group_seg, last, np.arange(src.size) - first)


def release_rule(program: Program, deps: _Deps, delivered: np.ndarray, o: int):
    """Ready and release cycles the rule gives for the deliveries known so far.

    Parameters
    ----------
    delivered : int64[m]
        Delivery cycles, ``-1`` where unknown.

    Returns
    -------
    release : int64[m]
        Valid where ``known``.
    waited : int64[m]
        Latest delivery the message waits for (``-1`` if none).
    known : bool[m]
        Every message waited for is delivered (a prefix of each node's program order).
    """
    src = program.src.astype(np.int64)
    d_in = delivered[deps.order_in]
    group_max = np.maximum.reduceat(np.maximum(d_in, 0), deps.group_start)
    group_unknown = np.add.reduceat((d_in < 0).astype(np.int64), deps.group_start)
    # cumulative over the phases of each node (segments of consecutive groups)
    cum_max = np.maximum.accumulate(group_max + deps.group_node * _BIG) - deps.group_node * _BIG
    cum_unknown = np.cumsum(group_unknown)
    cum_unknown = cum_unknown - np.where(deps.group_seg > 0, cum_unknown[deps.group_seg - 1], 0)
    has = deps.last_group >= 0
    g = np.maximum(deps.last_group, 0)
    waited = np.where(has, cum_max[g], -1)
    known = ~has | (cum_unknown[g] == 0)
    ready = np.where(has, waited + o, 0)
    # r_i = max(ready_i, r_{i-1}) + o  ==  (pos_i + 1) o + max_{j <= i} (ready_j - pos_j o)
    val = np.where(known, ready - deps.pos * o, 0) + src * _BIG
    release = np.maximum.accumulate(val) - src * _BIG + (deps.pos + 1) * o
    return release, waited, known


def run_program(runner: EngineRunner, program: Program, o: int = 0, native: bool = True) -> ProgramTimes:
    """Run ``program`` under the rule of the module docstring; see ``ProgramTimes``.

    ``native=False`` forces the iterative driver on the flit engine with ``o = 0`` too (the
    tests compare both paths).
    """
    if isinstance(o, bool) or int(o) != o or o < 0:
        raise ConfigError(f"--o {o}: the node overhead must be an integer >= 0 cycles")
    o = int(o)
    m = program.n_messages
    if m == 0:
        raise ConfigError("a program needs at least one message")
    deps = _dependencies(program)
    if native and runner.engine == "flit" and o == 0:
        delivered = runner.deliver_phased(program)
        release, _, _ = release_rule(program, deps, delivered, o)
        return ProgramTimes(release, delivered, delivered.copy(), 1)
    final = np.zeros(m, bool)
    release = np.full(m, -1, np.int64)
    delivered = np.full(m, -1, np.int64)
    rounds = 0
    while not final.all():
        rel, waited, known = release_rule(program, deps, delivered, o)
        cand = known & ~final
        if not cand.any():
            raise SimulationError("phased run: no message can be released (the phases form a cycle)")
        r_star = int(rel[cand].min())
        take = cand & (waited <= r_star + 1)
        release[take] = rel[take]
        final |= take
        delivered = runner.deliver(program.src, program.dst, program.length, np.where(final, release, -1))
        rounds += 1
    check, _, _ = release_rule(program, deps, delivered, o)
    if not np.array_equal(check, release):
        bad = int(np.nonzero(check != release)[0][0])
        raise SimulationError(f"phased run: message {bad} was released at {release[bad]} but its "
                              f"dependencies allow {check[bad]} (internal error of the driver)")
    return ProgramTimes(release, delivered, delivered + o, rounds)


def step_times(program: Program, times: ProgramTimes, n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per superstep: ``(route_done, step_done)``, int64[n_steps].

    ``route_done[s]``: last acquisition of a data message of superstep s (0 if it has none);
    ``step_done[s]``: last acquisition of any of its messages, barrier included, i.e. the
    cycle the superstep is over at every node.
    """
    route = np.zeros(n_steps, np.int64)
    done = np.zeros(n_steps, np.int64)
    data = program.kind == DATA
    np.maximum.at(route, program.step[data], times.acquired[data])
    np.maximum.at(done, program.step, times.acquired)
    return route, done
