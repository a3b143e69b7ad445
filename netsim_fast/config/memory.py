"""How much memory a run will need, estimated before anything is allocated.

``estimated_mib(cfg)`` adds up the arrays the run allocates: the flit engine's lane, port and
node records, buffers and event rings (sizes from ``netsim_fast.flit.state``'s record types),
the packet records (every packet of a finite workload; for open-loop traffic see
``_open_loop_packet_bytes``), the port tables, and for table routings and
the packet engine the N x N next-port table and distances. It is an estimate (NumPy temporaries
and Python objects are left out; what is counted dominates large runs). A run whose estimate
exceeds ``--memory-limit`` MiB (default: the memory the machine has available now) is refused
with the estimate in the message, before a kernel compiles or a file is created.
"""

from __future__ import annotations

import math

MIB = 1 << 20


def available_mib() -> int | None:
    """MemAvailable of /proc/meminfo in MiB, or None where the platform does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def _ports(cfg) -> int:
    """Ports per router including the local ones (``--concentration``; a tree's leaf terminals on
    every switch), from the description alone."""
    if cfg.topology in ("fattree", "fly"):  # a fly: k outputs, k inputs (links both ways), k local
        return 3 * cfg.k
    if cfg.topology == "clos":
        return cfg.switch_ports + cfg.switch_ports // 2
    return _network_ports(cfg) + cfg.concentration - 1


def _network_ports(cfg) -> int:
    """Ports per router with one local port."""
    kind, n = cfg.topology, cfg.n_nodes or 0
    if cfg.radix is not None:
        return sum(1 if k == 2 else 2 for k in cfg.radix) + 1  # radix 2: one link per pair
    if kind == "rrg":
        return cfg.degree + 1
    if kind == "complete":
        return n
    if kind == "circulant":
        return 2 * len(cfg.jumps) + 1
    if kind == "ring":
        return 3
    if kind == "debruijn":
        return 2 * (cfg.base or 2) + 1
    if kind == "bmg":
        return 2 * max(1, math.ceil(math.log2(max(n, 2)))) + 1
    if kind == "hyperx":
        return sum((k - 1) * w for k, w in zip(cfg.dims, cfg.widths or (1,) * len(cfg.dims))) + 1
    if kind == "flatfly":
        return cfg.n * (cfg.k - 1) + 1
    if kind == "dragonfly":
        return cfg.group_routers - 1 + cfg.global_links + 1
    return 8  # an edge list is read later; its port table is counted once it is


def _run_cycles(cfg) -> int:
    """Cycles the run is known to last at most, for its time series (0 when only the workload knows)."""
    if cfg.cycles is not None:
        return cfg.cycles
    if not _open_loop(cfg) or getattr(cfg, "batch", None):
        return 0
    if cfg.measurement == "booksim":
        return cfg.max_samples * cfg.sample_period + cfg.drain
    return cfg.warmup + cfg.measure + cfg.drain


def _packets(cfg) -> int:
    """Packets the run creates: open-loop traffic over all its cycles, or the finite workload."""
    n = cfg.n_terminals or 0
    if getattr(cfg, "batch", None):
        return n * cfg.batch
    if cfg.engine == "flit" and _open_loop(cfg):
        cycles = _run_cycles(cfg)
        from netsim_fast.workloads.injection import mean_packet_flits

        return int(n * cfg.rate / max(mean_packet_flits(cfg), 1) * cycles) + 1024
    if cfg.pattern == "random":
        return n * (cfg.messages or 1)
    return n * max(n - 1, 1)  # total exchanges and the like: one message (or more) per pair


def _open_loop_packet_bytes(cfg, lanes: int) -> int:
    """Bytes of packet records an open-loop flit run holds at its peak.

    Without ``--source-queue`` a run past saturation keeps every packet it cannot yet send, so
    every packet created is counted live (in an array that doubles: at the last doubling the old
    array and the new one, twice as long, are both alive). With a bounded source queue the live
    array stays near ``flit.retire.RETIRE_AT`` (it is retired down to the oldest unfinished
    packet, then grows to twice that at most) plus what the network and the queues can hold;
    every delivered packet then keeps its summary columns in compact chunks (``RETIRED_BYTES``
    each), and the table built from them at the end needs about one more column."""
    from netsim_fast.flit import retire
    from netsim_fast.flit import state as fs

    created = _packets(cfg)
    if cfg.source_queue is None:
        return 3 * created * fs.PACKET.itemsize
    in_network = (cfg.n_terminals or 0) * cfg.source_queue + lanes * cfg.buf
    live = min(created, 2 * retire.RETIRE_AT + in_network)
    return 3 * live * fs.PACKET.itemsize + created * (retire.RETIRED_BYTES + 8)


def _open_loop(cfg) -> bool:
    from netsim_fast.config.workload import is_open_loop

    return cfg.pattern is not None and is_open_loop(cfg)


def estimated_mib(cfg) -> float:
    """The memory ``cfg``'s run needs, in MiB (see the module docstring)."""
    from netsim_fast.flit import state as fs

    n = cfg.n_nodes
    if n is None or cfg.engine is None:
        return 0.0
    ports = _ports(cfg)
    total = n * ports * 4 * 6  # port tables of the topology (int32 columns)
    table_routing = cfg.engine == "packet" or (cfg.routing not in (None, "dor", "duato", "dor-nodateline"))
    if table_routing:
        total += n * n * (2 + max(1, -(-ports // 8)))  # distances (int16) and next-port masks
    if cfg.engine == "flit":
        lanes = n * ports * cfg.vcs
        longest = max(cfg.local_latency or cfg.t_link, cfg.global_latency or cfg.t_link)
        ring = fs.ring_size(cfg.t_link, cfg.t_crossbar, cfg.credit_delay, longest - cfg.t_link)
        per_lane = fs.IN_LANE.itemsize + fs.OUT_LANE.itemsize + 8 * cfg.buf + fs.OL_SLOT.itemsize * cfg.out_buf \
            + 4 * ring + (16 if cfg.check_invariants else 0)
        total += lanes * per_lane + n * (fs.NODE.itemsize * cfg.concentration + ports * (fs.PORT.itemsize + 16 * ring))
        # five int64 time series per window, in arrays that double as the run goes
        total += 3 * 5 * 8 * (_run_cycles(cfg) // cfg.window + 2)
        # valiant, ugal-*: an int32 intermediate group per packet record, beside PACKET
        per_packet = fs.PACKET.itemsize + (4 if cfg.routing in ("valiant", "ugal-l", "ugal-g")
                                           and cfg.topology == "dragonfly" else 0)
        if _open_loop(cfg) and not cfg.batch:
            total += _open_loop_packet_bytes(cfg, lanes) * per_packet // fs.PACKET.itemsize
        else:
            total += _packets(cfg) * per_packet
    else:
        total += _packets(cfg) * 96  # message arrays, packet records and queue slots
    return total / MIB
