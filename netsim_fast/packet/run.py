"""Python driver of the packet engine: validate, allocate, advance in batches, summarise.

``simulate_packets(topo, messages, ...)`` is the library entry point the ``run --engine
packet`` command calls; cycle semantics are documented in ``packet/kernel.py``.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field

import numpy as np

from netsim_fast.packet import kernel as pk
from netsim_fast.packet import paths as ppath
from netsim_fast.packet import state as pst
from netsim_fast.packet.rng import seed_to_u64
from netsim_fast.errors import ConfigError, DeadlockError, SimulationError
from netsim_fast.routing.table import MinimalTable, build_minimal_table

DEFAULT_BATCH_CYCLES = 1024
DEFAULT_DEADLOCK_CYCLES = 64

_warm: set = set()  # kernel variants compiled (or loaded) in this process


@dataclass
class PacketResult:
    """Outcome of one packet-engine run.

    Scalars follow the interface contract (``summary()``); arrays are per packet (index =
    message index) and per cycle (index = cycle).
    """

    cycles: int
    packets: int
    max_queue: int
    packet_hops: int
    sim_seconds: float  # path computation + kernel
    route_seconds: float  # path computation alone
    compile_seconds: float
    status: str
    options: dict
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    release_cycle: np.ndarray = field(repr=False)
    delivered_cycle: np.ndarray = field(repr=False)  # int64[P], -1 if not delivered
    hops: np.ndarray = field(repr=False)
    delivered_per_cycle: np.ndarray = field(repr=False)  # int64[cycles]
    queued_per_cycle: np.ndarray = field(repr=False)  # int64[cycles], at the start of the cycle
    sent_per_cycle: np.ndarray = field(repr=False)  # int64[cycles], link traversals
    link_packets: np.ndarray = field(default=None, repr=False)  # int64[n_links], traversals per link id

    @property
    def completion_cycles(self) -> int:
        """Cycles until the last packet arrived (equal to ``cycles`` for a finished run)."""
        done = self.delivered_cycle[self.delivered_cycle >= 0]
        return int(done.max(initial=0))

    @property
    def latency(self) -> np.ndarray:
        """int64[P]: ``delivered - release`` (-1 for packets not delivered)."""
        lat = self.delivered_cycle - self.release_cycle
        lat[self.delivered_cycle < 0] = -1
        return lat

    @property
    def latency_mean(self) -> float:
        lat = self.latency
        lat = lat[lat >= 0]
        return float(lat.mean()) if lat.size else 0.0

    def summary(self) -> dict:
        """The JSON-ready contract keys plus the options of the run."""
        lat = self.latency
        lat = lat[lat >= 0]
        rate = self.packet_hops / self.sim_seconds if self.sim_seconds > 0 else 0.0
        out = {
            "engine": "packet",
            "status": self.status,
            "cycles": self.cycles,
            "completion_cycles": self.completion_cycles,
            "packets": self.packets,
            "delivered": int((self.delivered_cycle >= 0).sum()),
            "max_queue": self.max_queue,
            "latency_mean": self.latency_mean,
            "latency_max": int(lat.max(initial=0)),
            "packet_hops": self.packet_hops,
            "sim_seconds": self.sim_seconds,
            "route_seconds": self.route_seconds,
            "compile_seconds": self.compile_seconds,
            "packet_hops_per_second": rate,
        }
        out.update(self.options)
        return out


def _code(name: str, table: dict, what: str) -> int:
    if name in table:
        return table[name]
    close = difflib.get_close_matches(str(name), list(table), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"{what} must be one of {', '.join(table)}; got {name!r}{hint}")


def _tiny_problem():
    """A 4-node ring with 3 messages: enough to compile every kernel branch's types."""
    from netsim_fast.topologies import torus
    from netsim_fast.workloads.messages import make_messages

    return torus([4]), make_messages([0, 1, 2], [2, 3, 0])


# one tiny run per kernel variant (kernel.kernel_for): the specialised policies and the
# general kernel (one port, bounded buffers)
_VARIANTS = {"fifo": ("fifo", 0), "srpf": ("srpf", 0), "lrpf": ("lrpf", 0),
             "random": ("random", 0), "general": ("fifo", 1)}


def _variant(policy: str, one_port: bool, capacity: int) -> str:
    return policy if not one_port and capacity == 0 else "general"


def warmup(variants=None) -> float:
    """Compile (or load from the Numba cache) the packet kernels; returns the seconds spent.

    ``variants``: names of ``_VARIANTS`` (default: all of them).
    """
    todo = [v for v in (variants or _VARIANTS) if v not in _warm]
    if not todo:
        return 0.0
    t0 = time.perf_counter()
    topo, msgs = _tiny_problem()
    table = build_minimal_table(topo)
    for v in todo:
        policy, general = _VARIANTS[v]
        _run(topo, msgs, table, policy, "fixed", bool(general), 0, 0, DEFAULT_DEADLOCK_CYCLES,
             None, 16)
        _warm.add(v)
    return time.perf_counter() - t0


def simulate_packets(
    topo,
    messages,
    *,
    policy: str = "fifo",
    path_choice: str = "fixed",
    one_port: bool = False,
    queue_capacity: int = 0,
    seed: int = 0,
    deadlock_cycles: int = DEFAULT_DEADLOCK_CYCLES,
    max_cycles: int | None = None,
    table: MinimalTable | None = None,
    batch_cycles: int = DEFAULT_BATCH_CYCLES,
    progress=None,
) -> PacketResult:
    """Run a finite workload to completion on the store-and-forward packet engine.

    Parameters
    ----------
    topo : Topology
    messages : Messages
        ``src``, ``dst``, ``release_cycle`` arrays (workloads/messages.py).
    policy : {"fifo", "srpf", "lrpf", "random"}
        Which queued packet a link sends.
    path_choice : {"fixed", "random"}
        Lowest minimal port, or uniform among minimal ports per hop from the packet's stream.
    one_port : bool
        A node sends on at most one link per cycle.
    queue_capacity : int
        0 = unbounded queues (the paper's model); C > 0 bounds the transit packets per link
        queue with back-pressure (see packet/kernel.py), and arms the deadlock watchdog.
    seed : int
        Seeds every random choice of the kernel (same seed -> identical run).
    deadlock_cycles : int
        Watchdog: consecutive cycles without a transmission while packets are queued before
        ``DeadlockError`` (0 disables it).
    max_cycles : int, optional
        Stop with ``SimulationError`` after this many cycles.
    table : MinimalTable, optional
        Routing table (built with ``build_minimal_table(topo)`` if omitted); any table whose
        allowed ports each lower ``dist`` by one works.
    batch_cycles : int
        Cycles per kernel call (the driver returns to Python between batches).
    progress : callable, optional
        Called after every batch as ``progress(cycles, delivered, packets)`` (a progress bar).

    Returns
    -------
    PacketResult

    Raises
    ------
    ConfigError
        Unknown policy, bad capacity, a message to itself, an unreachable destination.
    DeadlockError
        The watchdog fired (``.result`` holds the partial result).
    SimulationError
        ``max_cycles`` reached.
    """
    policy_code = _code(policy, pst.POLICIES, "policy")
    path_code = _code(path_choice, ppath.PATH_CHOICES, "path_choice")
    if int(queue_capacity) != queue_capacity or queue_capacity < 0:
        raise ConfigError(f"queue_capacity must be an integer >= 0 (0 = unbounded); got {queue_capacity!r}")
    if deadlock_cycles < 0:
        raise ConfigError(f"deadlock_cycles must be >= 0 (0 disables the watchdog); got {deadlock_cycles!r}")
    if batch_cycles < 1:
        raise ConfigError(f"batch_cycles must be >= 1; got {batch_cycles!r}")
    if table is None:
        table = build_minimal_table(topo)
    src, dst = messages.src, messages.dst
    hops = np.empty(src.shape[0], np.int64)
    max_len, first, in_order = ppath.scan_messages(src, dst, messages.release_cycle, table.dist,
                                                   hops)
    if first[ppath.BAD_ENDPOINT] >= 0:
        raise ConfigError(f"message endpoints must be nodes 0..{topo.n_nodes - 1} of the topology")
    if first[ppath.BAD_SELF] >= 0:
        i = int(first[ppath.BAD_SELF])
        raise ConfigError(f"message {i} goes from node {src[i]} to itself; remove it from the workload")
    if first[ppath.BAD_UNREACHABLE] >= 0:
        i = int(first[ppath.BAD_UNREACHABLE])
        raise ConfigError(f"message {i}: node {dst[i]} is unreachable from node {src[i]}")
    if first[ppath.BAD_RELEASE] >= 0:
        raise ConfigError("release cycles must be >= 0")
    compile_s = warmup([_variant(policy, one_port, queue_capacity)])
    return _run(topo, messages, table, policy, path_choice, one_port, int(queue_capacity), seed,
                deadlock_cycles, max_cycles, batch_cycles, policy_code, path_code, compile_s,
                progress, (int(max_len), bool(in_order), hops))


# tables up to this size are read in packet order when computing paths, larger ones by
# destination (paths.compute_paths)
_TABLE_IN_CACHE_BYTES = 1 << 20


def _run(topo, messages, table, policy, path_choice, one_port, capacity, seed, deadlock_cycles,
         max_cycles, batch_cycles, policy_code=None, path_code=None, compile_s=0.0,
         progress=None, scan=None):
    policy_code = pst.POLICIES[policy] if policy_code is None else policy_code
    path_code = ppath.PATH_CHOICES[path_choice] if path_code is None else path_code
    n_classes = 1
    if scan is None:  # (max_len, in_order, hops) of paths.scan_messages
        hops = np.empty(messages.src.shape[0], np.int64)
        max_len, _, in_order = ppath.scan_messages(messages.src, messages.dst,
                                                   messages.release_cycle, table.dist, hops)
        scan = (int(max_len), bool(in_order), hops)
    max_len, in_order, hops = scan
    if max_len > pst.MAX_PATH:
        raise ConfigError(f"the packet engine supports paths of at most {pst.MAX_PATH} hops; this "
                          f"workload has a path of {max_len} hops")
    if policy_code in (pst.POLICY_SRPF, pst.POLICY_LRPF):
        n_classes = max_len + 1
        if n_classes > pst.MAX_CLASSES:
            raise ConfigError(
                f"policy {policy!r} supports paths of at most {pst.MAX_CLASSES - 1} hops; this "
                f"workload has a path of {max_len} hops; use fifo or random on this topology"
            )
    seed_u64 = seed_to_u64(seed)
    state = pst.new_state(
        topo.link_id, topo.nbr, messages.src, messages.dst, messages.release_cycle,
        max_len, policy=policy_code, one_port=one_port, queue_capacity=capacity,
        n_classes=n_classes, deadlock_cycles=deadlock_cycles if capacity > 0 else 0,
        seed_u64=seed_u64, batch_cycles=batch_cycles, in_order=in_order,
    )
    t0 = time.perf_counter()
    n = topo.n_nodes
    link_id, nbr = np.ascontiguousarray(topo.link_id), np.ascontiguousarray(topo.nbr)
    if path_code == ppath.PATH_FIXED and 2 * n * n <= messages.src.size:
        # fewer node pairs than packets: route each pair once and copy its row per packet
        pair_rows = np.empty((n * n, state.pkt.shape[1]), np.int32)
        pairs = np.arange(n * n, dtype=np.int64)
        ppath.compute_paths(pair_rows, pairs // n, pairs % n, np.zeros(0, np.int64),
                            table.port_mask, link_id, nbr, path_code, np.uint64(seed_u64))
        ppath.copy_pair_paths(state.pkt, messages.src, messages.dst, pair_rows, n)
    else:
        if table.port_mask.nbytes <= _TABLE_IN_CACHE_BYTES:
            order = np.zeros(0, np.int64)
        else:
            order = ppath.order_by_destination(messages.dst, n)
        ppath.compute_paths(state.pkt, messages.src, messages.dst, order, table.port_mask,
                            link_id, nbr, path_code, np.uint64(seed_u64))
    route_s = time.perf_counter() - t0
    series = ([], [], [])
    kernel_s = 0.0
    status = pk.RUNNING
    advance = pk.kernel_for(state.params)
    while status == pk.RUNNING:
        todo = batch_cycles
        if max_cycles is not None:
            todo = min(todo, max_cycles - int(state.counters[pst.C_CYCLE]))
            if todo <= 0:
                break
        t0 = time.perf_counter()
        status = advance(state, todo)
        kernel_s += time.perf_counter() - t0
        filled = int(state.counters[pst.C_TS_LEN])
        for store, col in zip(series, (pst.TS_QUEUED, pst.TS_SENT, pst.TS_DELIVERED)):
            store.append(state.ts[:filled, col].copy())
        if progress is not None:
            progress(int(state.counters[pst.C_CYCLE]), int(state.counters[pst.C_DELIVERED]),
                     int(messages.src.size))
    if status != pk.DONE:  # a finished run crossed every path: hops holds their lengths
        hops = (state.pkt[:, pst.PK_HDR] & pst.HOPS_MASK).astype(np.int64)
        pst.undelivered_to_minus_one(state.pkt, state.pkt_delivered)
    names = {pk.DONE: "done", pk.ERR_DEADLOCK: "deadlock", pk.RUNNING: "max_cycles"}
    queued, sent, delivered = (np.concatenate(s) if s else np.zeros(0, np.int64) for s in series)
    result = PacketResult(
        cycles=int(state.counters[pst.C_CYCLE]),
        packets=int(messages.src.size),
        max_queue=int(state.counters[pst.C_MAX_QUEUE]),
        packet_hops=int(state.counters[pst.C_HOPS]),
        sim_seconds=route_s + kernel_s,
        route_seconds=route_s,
        compile_seconds=compile_s,
        status=names[status],
        options={"policy": policy, "path_choice": path_choice, "one_port": bool(one_port),
                 "queue_capacity": capacity, "seed": int(seed)},
        src=messages.src, dst=messages.dst, release_cycle=messages.release_cycle,
        delivered_cycle=state.pkt_delivered, hops=hops,
        delivered_per_cycle=delivered, queued_per_cycle=queued, sent_per_cycle=sent,
        link_packets=state.link_sent,
    )
    if status == pk.ERR_DEADLOCK:
        raise DeadlockError(
            f"deadlock: no packet moved for {deadlock_cycles} cycles at cycle {result.cycles} with "
            f"{int(state.counters[pst.C_QUEUED])} packets queued (queue_capacity={capacity}); raise "
            "queue_capacity or use unbounded queues (0)", result)
    if status == pk.RUNNING and result.packets:
        err = SimulationError(
            f"max_cycles={max_cycles} reached with {result.packets - int(state.counters[pst.C_DELIVERED])} "
            "packets undelivered; raise max_cycles")
        err.result = result
        raise err
    return result
