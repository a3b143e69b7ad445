"""The workload part of ``Config``: which traffic, how much, and the packet format.

Open-loop patterns (the flit engine's synthetic traffic) take ``--rate`` and run in a measured
window; finite workloads (message sets, total exchanges, gossip) run to completion and take
their own options. ``--pattern`` defaults to ``uniform`` on the flit engine and ``random`` on
the packet engine. The packet size (``--packet-flits`` or ``--packet-bytes``) is the flit
engine's, checked here because a total exchange sets its default.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from netsim_fast.checks import bad, parse_int_list, unknown_choice
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import reject_unless_default as _reject_unless_default
from netsim_fast.config._helpers import set_field as _set

# Options of open-loop (Bernoulli, measured-window) traffic; finite workloads run to completion.
OPEN_LOOP_OPTIONS = ("rate", "hotspot_fraction", "hotspot_nodes", "warmup", "measure", "drain", "latency_limit",
                     "sample_period", "source_queue", "injection", "burst_length", "duty_cycle", "packet_sizes",
                     "packet_mix", "batch", "fixed_points", "classes", "class_mix", "class_priority", "terminal_numbering",
                     "measurement", "sim_type", "warmup_periods", "max_samples",
                     "warmup_thres", "acc_warmup_thres", "stopping_thres", "acc_stopping_thres")
SYNCS = ("none", "local", "global")


@dataclass(frozen=True, kw_only=True)
class WorkloadFields:
    """The workload fields of ``Config`` (after the engine's and router's)."""

    # -- workload --------------------------------------------------------------------------
    pattern: str | None = None  # default: uniform on the flit engine, random on the packet engine
    rate: float = 0.1
    packet_flits: int | None = None
    packet_bytes: int | None = None
    flit_bytes: int = 4
    hotspot_fraction: float = 0.1
    hotspot_nodes: tuple[int, ...] | None = None
    source_queue: int | None = None  # open loop: packets a node's source queue holds; more are dropped
    injection: str = "bernoulli"  # open loop: bernoulli | onoff (bursty; workloads/injection.py)
    burst_length: float | None = None  # onoff: mean packets per on period
    duty_cycle: float | None = None  # onoff: fraction of cycles a node is on
    packet_sizes: tuple[int, ...] | None = None  # open loop: a size mix (flits), instead of packet_flits
    packet_mix: tuple[float, ...] | None = None  # ... and its weights (default equal)
    batch: int | None = None  # open loop: every node sends this many packets, run to completion
    fixed_points: str = "idle"  # permutations: a node mapped to itself is idle, or sends to itself (BookSim2)
    classes: int = 1  # open loop: traffic classes (workloads/classes.py)
    class_mix: tuple[float, ...] | None = None  # ... the share of packets of each class (default equal)
    class_priority: tuple[int, ...] | None = None  # ... each class's priority, higher first (default all 0)
    terminal_numbering: str = "router"  # the ids patterns see: router by router, or BookSim2's floor plan
    messages: int | None = None  # random: messages per node (default 1)
    messages_file: str | None = None  # file: one 'src dst [release_cycle]' per line
    time_independent: bool = False  # gossip-ham / gossip-one without switching
    sync: str = "none"  # phased finite workloads on the flit engine: none | local | global
    grain_bytes: int | None = None  # total exchange (random-te, ...): bytes per ordered pair (default 32)


def is_open_loop(cfg: WorkloadFields) -> bool:
    """True for the flit engine's synthetic patterns (uniform, transpose, ...)."""
    from netsim_fast.workloads import registry

    return cfg.pattern in registry.patterns("open-loop")


# -- validation ----------------------------------------------------------------------------
# Each check takes the assembled Config: a workload must fit the engine, the topology and its
# size, the routing (forwarding patterns) and the run control (cycles, window). Pattern names
# come from the registry the workload modules fill, imported inside the checks so that
# importing config loads no workload module.


def _validate_pattern_name(cfg: WorkloadFields) -> None:
    from netsim_fast.workloads import registry

    open_loop, finite, forwarding = (registry.patterns(kind) for kind in ("open-loop", "finite", "forwarding"))
    every = registry.all_patterns()  # open-loop, finite, total-exchange, forwarding: the order users see
    if cfg.pattern is None:
        _set(cfg, "pattern", "random" if cfg.engine == "packet" else "uniform")
    if cfg.pattern not in every:
        raise unknown_choice("pattern", cfg.pattern, every)
    if cfg.engine == "packet" and cfg.pattern in open_loop:
        raise bad("pattern", cfg.pattern, "is open-loop traffic of the flit engine; the packet engine runs "
                  f"{', '.join(finite + forwarding)} (or pass --engine flit)")
    if cfg.engine == "flit" and cfg.pattern in forwarding:
        raise bad("pattern", cfg.pattern, "runs the forwarding rules of the packet engine; pass --engine packet")


def _validate_workload(cfg: WorkloadFields) -> None:
    if is_open_loop(cfg):
        _validate_open_loop(cfg)
    else:
        _reject_unless_default(cfg, OPEN_LOOP_OPTIONS,
                               f"applies to open-loop patterns only; --pattern {cfg.pattern} is a finite workload run to completion")
        _validate_finite(cfg)
    _validate_total_exchange(cfg)
    if cfg.engine == "flit":
        _validate_packet_size(cfg)


def _validate_total_exchange(cfg: WorkloadFields) -> None:
    """``--grain-bytes`` and the checks of the total-exchange patterns (workloads/total_exchange.py)."""
    from netsim_fast.workloads import registry
    from netsim_fast.workloads.total_exchange import check_config

    total_exchanges = registry.patterns("total-exchange")
    if cfg.pattern in total_exchanges:
        check_config(cfg)
    elif cfg.grain_bytes is not None:
        raise bad("grain-bytes", cfg.grain_bytes, f"applies to the total exchanges {', '.join(total_exchanges)} only")


def _validate_open_loop(cfg: WorkloadFields) -> None:
    from netsim_fast.workloads.synthetic import check_pattern

    for name in ("messages", "messages_file"):
        if getattr(cfg, name) is not None:
            raise bad(name, getattr(cfg, name), f"does not apply to the open-loop --pattern {cfg.pattern} (it takes --rate)")
    if cfg.time_independent:
        raise bad("time-independent", True, "applies to --pattern gossip-ham and gossip-one only")
    n_nodes = cfg.n_terminals  # the patterns pick terminals (--concentration C per router)
    if n_nodes is not None:
        check_pattern(cfg.pattern, cfg.radix if cfg.concentration == 1 else None, n_nodes, cfg.topology)
    if isinstance(cfg.rate, bool) or not isinstance(cfg.rate, (int, float)) or not math.isfinite(cfg.rate):
        raise bad("rate", cfg.rate, "expected a number of flits per node per cycle")
    if cfg.rate < 0:
        raise bad("rate", cfg.rate, "must be >= 0 flits per node per cycle")
    _require_int("source-queue", cfg.source_queue, 1, 2**31 - 1, what=" packets")
    _validate_sizes_and_injection(cfg)
    _validate_fixed_points(cfg)
    _validate_terminal_numbering(cfg)
    _validate_batch(cfg)
    _validate_classes(cfg)
    if not 0 <= cfg.hotspot_fraction <= 1:
        raise bad("hotspot-fraction", cfg.hotspot_fraction, "must be in [0, 1]")
    if cfg.pattern != "hotspot":  # a normalised Config carries the defaults back: 0.1 and (0,)
        if cfg.hotspot_fraction != 0.1:
            raise bad("hotspot-fraction", cfg.hotspot_fraction, "applies to --pattern hotspot only")
        nodes = parse_int_list("hotspot_nodes", cfg.hotspot_nodes)
        if nodes not in (None, (0,)):
            raise bad("hotspot-nodes", cfg.hotspot_nodes, "applies to --pattern hotspot only")
    _set(cfg, "hotspot_nodes", parse_int_list("hotspot_nodes", cfg.hotspot_nodes) or (0,))
    if n_nodes is not None:
        for node in cfg.hotspot_nodes:
            if not 0 <= node < n_nodes:
                raise bad("hotspot-nodes", cfg.hotspot_nodes, f"node ids must be in 0..{n_nodes - 1}")


def _validate_sizes_and_injection(cfg: WorkloadFields) -> None:
    """``--packet-sizes``/``--packet-mix`` and ``--injection onoff`` with its burst length and duty cycle."""
    from netsim_fast.checks import require_finite
    from netsim_fast.workloads.injection import INJECTIONS, mean_packet_flits, onoff_probabilities

    if cfg.packet_mix is not None and cfg.packet_sizes is None:
        raise bad("packet-mix", cfg.packet_mix, "weights the sizes of --packet-sizes; give those too")
    if cfg.packet_sizes is not None:
        sizes = parse_int_list("packet_sizes", cfg.packet_sizes)
        for size in sizes:
            _require_int("packet-sizes", size, 1, 1 << 20, " flits")
        _set(cfg, "packet_sizes", sizes)
        mix = _parse_float_list("packet_mix", cfg.packet_mix) if cfg.packet_mix is not None else (1.0,) * len(sizes)
        if len(mix) != len(sizes) or min(mix) < 0 or sum(mix) <= 0:
            raise bad("packet-mix", cfg.packet_mix, f"expected {len(sizes)} weights >= 0 (one per size), not all 0")
        _set(cfg, "packet_mix", mix)
        if cfg.packet_bytes is not None or cfg.packet_flits not in (None, max(sizes)):
            raise bad("packet-sizes", cfg.packet_sizes, "replaces --packet-flits and --packet-bytes; give one of them")
        _set(cfg, "packet_flits", max(sizes))  # the largest: what a VCT buffer must hold
    if cfg.injection not in INJECTIONS:
        raise unknown_choice("injection", cfg.injection, INJECTIONS)
    if cfg.injection == "bernoulli":
        for name in ("burst_length", "duty_cycle"):
            if getattr(cfg, name) is not None:
                raise bad(name, getattr(cfg, name), "applies to --injection onoff only")
        return
    if cfg.burst_length is None or cfg.duty_cycle is None:
        raise bad("injection", cfg.injection, "needs --burst-length (mean packets per burst) and --duty-cycle (share of cycles on)")
    require_finite("burst-length", cfg.burst_length, 0, what=" packets per burst", low_open=True)
    require_finite("duty-cycle", cfg.duty_cycle, 0, 1, what=" (share of cycles on)", low_open=True)
    if cfg.duty_cycle == 1:
        raise bad("duty-cycle", cfg.duty_cycle, "must be < 1 (1 is always on: use --injection bernoulli)")
    try:
        onoff_probabilities(cfg.rate / mean_packet_flits(cfg, default=8), cfg.burst_length, cfg.duty_cycle)
    except ValueError as exc:
        raise bad("injection", "onoff", f"--rate {cfg.rate} with --burst-length {cfg.burst_length} and "
                  f"--duty-cycle {cfg.duty_cycle}: {exc}") from None


MAX_CLASSES = 16


def _validate_classes(cfg: WorkloadFields) -> None:
    """``--classes K`` with its ``--class-mix`` (shares of packets) and ``--class-priority``."""
    _require_int("classes", cfg.classes, 1, MAX_CLASSES, " traffic classes")
    k = cfg.classes
    if cfg.class_mix is not None:
        mix = _parse_float_list("class_mix", cfg.class_mix)
        if len(mix) != k or min(mix) < 0 or sum(mix) <= 0:
            raise bad("class-mix", cfg.class_mix, f"expected {k} weights >= 0 (one per class of --classes {k}), not all 0")
        _set(cfg, "class_mix", mix)
    if cfg.class_priority is not None:
        pri = parse_int_list("class_priority", cfg.class_priority)
        if len(pri) != k or min(pri) < 0 or max(pri) >= 1 << 30:
            raise bad("class-priority", cfg.class_priority,
                      f"expected {k} integers in [0, 2^30) (one per class of --classes {k}; higher goes first)")
        _set(cfg, "class_priority", pri)
    if k == 1:  # one class: the defaults, so that a normalised Config compares equal
        _set(cfg, "class_mix", None)
        _set(cfg, "class_priority", None)
        return
    if cfg.class_mix is None:
        _set(cfg, "class_mix", (1.0,) * k)
    if cfg.class_priority is None:
        _set(cfg, "class_priority", (0,) * k)


def _validate_fixed_points(cfg: WorkloadFields) -> None:
    """``--fixed-points``: only permutation patterns map nodes to themselves."""
    from netsim_fast.workloads.synthetic import FIXED_POINT_CHOICES, PERMUTATIONS

    if cfg.fixed_points not in FIXED_POINT_CHOICES:
        raise unknown_choice("fixed-points", cfg.fixed_points, FIXED_POINT_CHOICES)
    if cfg.fixed_points != "idle" and cfg.pattern not in PERMUTATIONS:
        raise bad("fixed-points", cfg.fixed_points, f"applies to the permutation patterns {', '.join(PERMUTATIONS)} "
                  f"only (--pattern {cfg.pattern} picks its destinations at random)")


def _validate_terminal_numbering(cfg) -> None:
    """``--terminal-numbering floorplan``: BookSim2's numbering of a cmesh's or a two-dimensional
    flatfly's terminals, over tiles of 2 x 2 (cmesh) or sqrt(C) x sqrt(C) terminals."""
    from netsim_fast.workloads.synthetic import TERMINAL_NUMBERINGS

    if cfg.terminal_numbering not in TERMINAL_NUMBERINGS:
        raise unknown_choice("terminal-numbering", cfg.terminal_numbering, TERMINAL_NUMBERINGS)
    if cfg.terminal_numbering == "router":
        return
    side = int(round(cfg.concentration ** 0.5))
    if not (cfg.topology == "cmesh" or (cfg.topology == "flatfly" and cfg.n == 2 and side * side == cfg.concentration)):
        raise bad("terminal-numbering", cfg.terminal_numbering, "BookSim2's floor plan numbers the terminals of a "
                  "cmesh, or of a flatfly with --n 2 and a square --concentration (1, 4, 9, ...); here they are "
                  "numbered router by router")


BATCH_IGNORES = ("warmup", "measure", "drain", "latency_limit", "sample_period", "source_queue", "measurement")
MAX_BATCH_CYCLES = 1 << 31  # expected cycles to create a batch: more is a typo, not a run


def _validate_batch(cfg: WorkloadFields) -> None:
    """``--batch B``: a finite run of the open-loop process (BookSim2's batch mode)."""
    from netsim_fast.workloads.injection import mean_packet_flits

    if cfg.batch is None:
        return
    _require_int("batch", cfg.batch, 1, 1 << 24, " packets per node")
    _reject_unless_default(cfg, BATCH_IGNORES, "does not apply with --batch, which runs until every batch is delivered")
    if cfg.rate <= 0:
        raise bad("rate", cfg.rate, "must be > 0 with --batch (the nodes would never create their batches)")
    expected = cfg.batch * mean_packet_flits(cfg, default=8) / cfg.rate
    if expected > MAX_BATCH_CYCLES:
        raise bad("batch", cfg.batch, f"at --rate {cfg.rate} takes about {expected:.3g} cycles to create "
                  f"(more than {MAX_BATCH_CYCLES:,}); raise --rate or lower --batch")


def _parse_float_list(option: str, text) -> tuple[float, ...]:
    items = list(text) if isinstance(text, (tuple, list)) else [t for t in str(text).replace(",", " ").split() if t]
    try:
        values = tuple(float(t) for t in items)
    except (TypeError, ValueError):
        raise bad(option, text, "expected comma-separated numbers such as 0.8,0.2") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise bad(option, text, "expected finite numbers such as 0.8,0.2")
    return values


def _validate_rate_bound(cfg: WorkloadFields) -> None:
    """At most one packet per node per cycle, as BookSim2 allows: an offered load above one flit
    per node per cycle (packets of several flits) is a saturated source, a result like any other."""
    from netsim_fast.workloads.injection import mean_packet_flits

    most = mean_packet_flits(cfg)
    if cfg.rate > most:
        raise bad("rate", cfg.rate, f"must be in [0, {most:g}] flits per node per cycle: at most one packet per node "
                                    f"per cycle (packets of {most:g} flits on average), as in BookSim2")


def _validate_finite(cfg: WorkloadFields) -> None:
    """Options of the finite workloads (workloads/finite.py) and of gossip."""
    from netsim_fast.workloads import registry

    forwarding, gossip = registry.patterns("forwarding"), registry.patterns("gossip")
    stepped = registry.patterns("phased") + registry.patterns("total-exchange")  # what --sync gates
    pattern = cfg.pattern
    if pattern == "random":
        if cfg.messages is None:
            _set(cfg, "messages", 1)
        _require_int("messages", cfg.messages, 1, 1 << 24, " messages per node")
    elif cfg.messages is not None:
        raise bad("messages", cfg.messages, f"applies to --pattern random only (--pattern {pattern} fixes who sends what)")
    if pattern == "file":
        if not cfg.messages_file:
            raise bad("messages-file", None, "--pattern file needs --messages-file PATH (one 'src dst [release_cycle]' per line)")
        if not os.path.isfile(cfg.messages_file):
            raise bad("messages-file", cfg.messages_file, "no such file")
    elif cfg.messages_file is not None:
        raise bad("messages-file", cfg.messages_file, "applies to --pattern file only")
    if pattern == "embed-debruijn":
        _check_embedding(cfg)
    if cfg.sync != "none" and pattern not in stepped:
        raise bad("sync", cfg.sync, f"gates the steps of {', '.join(stepped)}; --pattern {pattern} has none")
    if cfg.time_independent and pattern not in forwarding:
        raise bad("time-independent", True, "applies to --pattern gossip-ham and gossip-one only")
    if pattern in gossip:
        if cfg.topology != "torus":
            raise bad("pattern", pattern, f"is gossip on a full-port torus (papers/003), not --topology {cfg.topology}; "
                      "pass --topology torus --dims n1,n2,...")
        if min(cfg.dims) < 3:
            raise bad("dims", cfg.dims, f"--pattern {pattern} needs every radix >= 3 (a radix-2 ring has one link here, the paper's has two)")
    if pattern in forwarding and cfg.seed != 1:
        raise bad("seed", cfg.seed, f"does not apply to --pattern {pattern}: its forwarding rules are deterministic")
    if pattern in forwarding:
        if cfg.routing != "minimal":
            raise bad("routing", cfg.routing, f"does not apply to --pattern {pattern}: it follows its own forwarding rules")
        _reject_unless_default(cfg, ("cycles", "window"),
                               f"does not apply to --pattern {pattern}: it runs to completion and its trace has one row per step")


def _check_embedding(cfg: WorkloadFields) -> None:
    base = 2 if cfg.base is None else cfg.base
    _require_int("base", base, 2, what=" (the guest de Bruijn graph's base)")
    _set(cfg, "base", base)
    n_nodes = cfg.n_nodes
    if n_nodes is None:  # an edge-list host: checked once the file is read (workloads/finite.py)
        return
    size = base
    while size < n_nodes:
        size *= base
    if size != n_nodes:
        raise bad("nodes" if cfg.radix is None else "dims", cfg.dims or n_nodes,
                  f"--pattern embed-debruijn places a base-{base} de Bruijn graph on all {n_nodes} nodes, "
                  f"so the node count must be a power of --base {base}")


def _validate_packet_size(cfg: WorkloadFields) -> None:
    _require_int("flit-bytes", cfg.flit_bytes, 1)
    if cfg.packet_bytes is not None:
        _require_int("packet-bytes", cfg.packet_bytes, 1)
        flits = -(-cfg.packet_bytes // cfg.flit_bytes)
        # both may be given when they agree: a normalised Config (a trace's, a sweep's) has both
        if cfg.packet_flits is not None and cfg.packet_flits != flits:
            raise bad("packet-bytes", cfg.packet_bytes,
                      f"is {flits} flits of {cfg.flit_bytes} bytes, but --packet-flits is {cfg.packet_flits}; give one of them")
        _set(cfg, "packet_flits", flits)
    if cfg.packet_flits is None:
        _set(cfg, "packet_flits", 8)
    _require_int("packet-flits", cfg.packet_flits, 1, 1 << 20)
    if is_open_loop(cfg) and not getattr(cfg, "closed_loop", False):  # closed loop: config/closed_loop.py
        _validate_rate_bound(cfg)
    if cfg.switching == "vct" and cfg.buf < cfg.packet_flits:
        raise bad("buf", cfg.buf, f"virtual cut-through needs input lanes that hold a whole packet (--buf >= {cfg.packet_flits})")
    if cfg.sync not in SYNCS:
        raise unknown_choice("sync", cfg.sync, SYNCS)
