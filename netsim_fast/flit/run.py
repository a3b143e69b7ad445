"""Run the flit engine for a ``Config``: the Python loop over batches of cycles.

Python builds arrays, Numba moves flits: this module allocates the state, feeds it the packets
of the workload (synthetic chunks ahead of the kernel, or a finite message set up front), calls
``flit.advance`` one batch at a time, applies the stop rules and turns error codes into
sentences. Statistics are computed from the state arrays with numpy after the run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from netsim_fast.flit import state as fs
from netsim_fast.workloads.packets import FinitePackets
from netsim_fast.errors import DeadlockError, SimulationError

BATCH_CYCLES = 1024
# Prefetching (FlitParams.prefetch) from this many lanes up (about 6 MiB of state at 4 VCs x 8 flits):
# bench/flit_size.py --prefetch (forced on / off, 3 pairs, 2026-11-27): 24x24 torus 1.146x, 32x32 (20,480
# lanes, its state in the L3) 1.036x, 40x40 (32,000) 0.918x, 48x48 0.840x, 64x64 0.886x
PREFETCH_LANES = 24576


@dataclass
class FlitRun:
    """What a run leaves behind: the final state, its parameters and timings."""

    state: fs.FlitState
    params: fs.FlitParams
    topo: object
    cycles: int
    done: bool
    error: str | None
    compile_seconds: float
    sim_seconds: float
    extras: dict = field(default_factory=dict)
    # completed | cycles | latency-limit | drain-limit | deadlock | interrupted
    stop_reason: str = "completed"
    latency_check: float | None = None  # the latency limit's last value (open-loop runs)
    retired: object = None  # RetiredPackets of an open-loop run (flit/retire.py), else None
    # CPU seconds of the process (all its threads) over the same span as sim_seconds: on a shared
    # machine another process's load stretches the wall clock, hardly this
    sim_cpu_seconds: float = 0.0

    def packet_table(self) -> dict:
        """Columns of every packet released and not dropped, retired ones included."""
        from netsim_fast.flit.retire import live_table

        return self.retired.table(self.state) if self.retired is not None else live_table(self.state)


def build_params(cfg, topo, *, stop_mode: int, win_start: int, win_end: int, n_total: int = 0,
                 sync: str = "none", class_vcs: int = 0, wire=None) -> fs.FlitParams:
    """The kernel's scalars; ``wire``: the links' extra cycles (flit/wires.py), None if none."""
    from netsim_fast.flit.eject import ejects_in_router_loop
    from netsim_fast.flit.features import uses
    from netsim_fast.routing import ADAPTIVE_ROUTINGS, CODES, DEST_TAG, NONMIN_ROUTINGS, TABLE, TABLE_ROUTINGS, UPDOWN
    from netsim_fast.routing.updown import UP_CHOICES

    nonmin = cfg.routing in NONMIN_ROUTINGS and cfg.router != "booksim"
    mask = (1 << cfg.vcs) - 1
    wire_max = 0 if wire is None else int(wire.max())
    if cfg.inject_vcs is not None:
        mask = sum(1 << vc for vc in cfg.inject_vcs)
    params = fs.FlitParams(
        n_nodes=topo.n_nodes, n_ports=topo.n_ports, n_vcs=cfg.vcs, buf=cfg.buf, out_buf=cfg.out_buf,
        t_link=cfg.t_link, t_routing=cfg.t_routing, t_crossbar=cfg.t_crossbar, credit_delay=cfg.credit_delay,
        headers=cfg.headers_per_cycle, eject_rate=cfg.eject_rate, router=fs.ROUTERS[cfg.router],
        routing=DEST_TAG if topo.kind == "fly" and cfg.router != "booksim"
        else TABLE if cfg.routing in TABLE_ROUTINGS else NONMIN_ROUTINGS[cfg.routing] if nonmin
        else UPDOWN if cfg.routing == "updown" else ADAPTIVE_ROUTINGS[cfg.routing] if cfg.routing in ADAPTIVE_ROUTINGS
        else CODES.get(cfg.routing, 0),  # dim_order: booksim's own
        vct=fs.SWITCHING[cfg.switching], inject_mask=mask, class_vcs=class_vcs,
        atomic_mask=atomic_vc_mask(cfg), vc_alloc=fs.VC_ALLOCS[cfg.vc_alloc],
        deadlock_cycles=cfg.deadlock_cycles, debug=int(cfg.check_invariants), window=cfg.window,
        stop_mode=stop_mode, win_start=win_start, win_end=win_end,
        ring=fs.ring_size(cfg.t_link, cfg.t_crossbar, cfg.credit_delay, wire_max), n_total=n_total,
        sync=fs.SYNCS[sync], src_queue=cfg.source_queue or 0, conc=topo.concentration,
        group_routers=int(topo.params["group_routers"]) if nonmin and topo.kind == "dragonfly" else 0, wire_max=wire_max, classes=cfg.classes,
        up_choice=UP_CHOICES[cfg.up_port] if cfg.routing == "updown" else 0, eject_shift=topo.eject_shift,
        closed_loop=int(cfg.closed_loop), outstanding=cfg.outstanding if cfg.closed_loop else 0,
        rr_vcs=_class_vcs(cfg) if cfg.router != "booksim" else 0,
    )
    prefetch = int(params.n_nodes * params.n_ports * params.n_vcs >= PREFETCH_LANES)
    params = params._replace(eject_in_loop=int(ejects_in_router_loop(params)), prefetch=prefetch)
    return params._replace(**uses(params))


def _class_vcs(cfg) -> int:
    """Closed loop on the lanes and iq routers: the VCs of each message class (V/2), else 0."""
    return cfg.vcs // 2 if cfg.closed_loop else 0


def routing_table(cfg, topo, table=None):
    """(port mask, VCs per hop class) of a table routing; (None, 0) for the grid routings.
    Closed loop: the classes share a message class's V/2 VCs."""
    if not cfg.closed_loop or cfg.router == "booksim":
        return _routing_table(cfg, topo, cfg.vcs, table)
    from netsim_fast.errors import ConfigError

    try:
        return _routing_table(cfg, topo, cfg.vcs // 2, table)
    except ConfigError as exc:
        raise ConfigError(f"--vcs {cfg.vcs} with --closed-loop gives requests and replies {cfg.vcs // 2} VC(s) "
                          f"each, too few for the routing: {exc}") from None


def _routing_table(cfg, topo, vcs, table):
    from netsim_fast.routing import NONMIN_ROUTINGS, TABLE_ROUTINGS

    if cfg.routing in NONMIN_ROUTINGS and cfg.router != "booksim":
        from netsim_fast.routing.tables import check_nonmin_classes

        if topo.kind != "dragonfly":  # flattened butterfly, HyperX: dimension order, 2 classes
            from netsim_fast.routing.hamming_valiant import dor_table

            return dor_table(topo), check_nonmin_classes(cfg.routing, cfg.vcs, cfg.inject_vcs, hamming=True)
        from netsim_fast.routing.dragonfly_valiant import nonmin_table

        return nonmin_table(topo), check_nonmin_classes(cfg.routing, cfg.vcs, cfg.inject_vcs)
    if cfg.routing in ("dim-adaptive", "min-adaptive"):  # minimal and dimension-order ports, no hop classes
        from netsim_fast.routing.hamming_adaptive import adaptive_table, check_adaptive_vcs

        check_adaptive_vcs(cfg.routing, cfg.vcs)
        return adaptive_table(topo), cfg.vcs
    if cfg.routing == "updown":  # every VC at every hop: up*/down* needs no VC classes
        from netsim_fast.routing.updown import updown_table

        return (table if table is not None else updown_table(topo)).port_mask, vcs
    if cfg.routing not in TABLE_ROUTINGS:
        return None, 0
    from netsim_fast.routing.tables import check_hop_classes, route_table

    if topo.kind == "fly":  # destination tag: every VC at every hop (routing/fly.py)
        return (table if table is not None else route_table(topo, cfg.routing)).port_mask, vcs

    if table is None:
        table = route_table(topo, cfg.routing, cfg.loops)
    return table.port_mask, check_hop_classes(table, cfg.routing, vcs, cfg.inject_vcs)


def intermediate_groups(cfg, topo, params, src, chunk: int):
    """The intermediate group of each packet (``valiant``; the Valiant candidate of ``ugal-*``):
    uniform among the groups other than its source router's, from ``Generator(SeedSequence(
    [seed, 0x7A11A, chunk]))`` (its own stream: the traffic's draws are unchanged); on the
    flattened butterfly and HyperX an intermediate router, uniform among all routers, as
    ``routing/hamming_valiant.encode_mid`` stores it. None for the other routings."""
    if not fs.takes_mid(params):
        return None
    own = np.asarray(src, np.int64) // params.conc
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 0x7A11A, chunk]))
    if not params.group_routers:
        from netsim_fast.routing.hamming_valiant import encode_mid

        return encode_mid(topo, own, rng.integers(0, topo.n_nodes, size=own.shape[0]))
    a = params.group_routers
    groups = topo.n_nodes // a
    own = own // a
    pick = rng.integers(0, groups - 1, size=own.shape[0])
    return (pick + (pick >= own)).astype(np.int32)


def class_priorities(cfg) -> tuple[int, ...]:
    """The priority of each class the routers honour: ``--class-priority``; on the booksim
    router only under ``--priority class`` (BookSim2 ignores class_priority otherwise)."""
    if cfg.router == "booksim" and cfg.priority != "class":
        return (0,) * cfg.classes
    return cfg.class_priority


def atomic_vc_mask(cfg) -> int:
    """VCs reallocated only once drained: Duato's adaptive VCs under --vc-realloc auto (a packet
    must never wait behind another in an adaptive queue, where it could not ask for an escape
    VC), every VC under atomic, none under eager."""
    from netsim_fast.routing import needs_datelines

    if cfg.vc_realloc == "atomic":
        return (1 << cfg.vcs) - 1
    if cfg.vc_realloc == "auto" and cfg.routing == "min-adaptive":  # escape VC 0 (routing/hamming_adaptive.py)
        return ((1 << cfg.vcs) - 1) & ~1
    if cfg.vc_realloc == "auto" and cfg.routing == "duato":
        escape = 2 if needs_datelines(cfg.topology, cfg.dims) else 1
        return ((1 << cfg.vcs) - 1) & ~((1 << escape) - 1)
    return 0


def _compile(state, params, topo_arrays, advance) -> float:
    """Load (or compile) the kernel by running it for zero cycles; returns the seconds it took."""
    start = time.perf_counter()
    advance(state, params, topo_arrays, 0)
    return time.perf_counter() - start


def run_flit(cfg, topo, packets: FinitePackets | None = None, progress=None, table=None,
             sync: str | None = None) -> FlitRun:
    """Simulate ``cfg`` on ``topo``: open-loop synthetic traffic, or the finite ``packets``.

    ``sync`` gates the phases of ``packets`` (``none`` | ``local`` | ``global``); the default is
    ``cfg.sync``. A study that builds its own phased packets passes it rather than a new config.
    """
    from netsim_fast.flit.kernel import advance

    latency_limit = control = None
    if packets is not None:
        stop_mode, win_start, win_end = fs.STOP_ALL, 0, 1 << 62
        limit = cfg.cycles if cfg.cycles is not None else 1 << 62
    elif cfg.cycles is not None:  # exactly N cycles: a soak or a post-saturation measurement
        stop_mode, win_start, win_end, limit = fs.STOP_AT_END, 0, cfg.cycles, cfg.cycles
    elif cfg.measurement == "booksim":  # BookSim2's sample periods decide the window (flit/sampling.py)
        from netsim_fast.flit.sampling import NEVER, BookSimControl

        control = BookSimControl(cfg, topo.n_terminals)
        stop_mode, win_start, win_end, limit = fs.STOP_AT_END, NEVER, NEVER, NEVER
    else:
        stop_mode, win_start = fs.STOP_WINDOW, cfg.warmup
        win_end = cfg.warmup + cfg.measure
        limit = win_end + cfg.drain
        if cfg.latency_limit:
            from netsim_fast.flit.saturation import LatencyLimit

            latency_limit = LatencyLimit(cfg.latency_limit, cfg.sample_period, win_start, win_end)
    n_total = 0 if packets is None else int(len(packets.src))
    phased = packets is not None and packets.phase is not None
    route_mask, class_vcs = routing_table(cfg, topo, table)
    from netsim_fast.flit.wires import link_wires

    wire = None if cfg.router == "booksim" else link_wires(cfg, topo)
    params = build_params(cfg, topo, stop_mode=stop_mode, win_start=win_start, win_end=win_end, n_total=n_total,
                          class_vcs=class_vcs, wire=wire,
                          sync=(cfg.sync if sync is None else sync) if phased else "none")
    from netsim_fast.workloads.injection import mean_packet_flits

    expected = int(topo.n_terminals * cfg.rate / mean_packet_flits(cfg) * BATCH_CYCLES * 2) + 1024
    state = fs.new_state(topo, params, packet_capacity=max(n_total, expected), windows=BATCH_CYCLES // cfg.window + 2,
                         route_mask=route_mask, wire=wire)
    if cfg.classes > 1:
        state = fs.set_classes(state, class_priorities(cfg))
    if cfg.closed_loop:
        from netsim_fast.flit import closed_loop as cl

        state = cl.set_reply_sizes(state, cfg.reply_flits, cfg.write_reply_flits)
        if cfg.router == "booksim":
            state = cl.set_vc_ranges(state, cfg.rw_vcs)
    traffic, retired = None, None
    if packets is not None:
        state = fs.append_packets(state, packets.src, packets.dst, packets.length, packets.release, packets.phase,
                                  mid=intermediate_groups(cfg, topo, params, packets.src, 0),
                                  cls=packets.cls if cfg.classes > 1 else None)
        if phased:
            state = fs.set_phases(state, topo.n_terminals, packets.dst, packets.phase)
    else:
        from netsim_fast.flit.retire import RetiredPackets
        from netsim_fast.topologies.base import terminal_view
        from netsim_fast.workloads.synthetic import traffic_of

        retired = RetiredPackets()
        traffic = traffic_of(cfg, terminal_view(topo))
    driver = None
    if cfg.router == "booksim":  # BookSim2's IQ router keeps its own state beside the flit engine's
        from netsim_fast.flit.booksim.driver import BooksimDriver

        driver = BooksimDriver(cfg, topo, params, state)
        advance = driver.advance
    else:
        from netsim_fast.flit.parallel import ThreadedAdvance, run_threads

        threads = run_threads(cfg, params.n_nodes)
        if threads > 1:
            advance = ThreadedAdvance(threads)
        else:  # large networks: arrivals block by block (flit/blocks.py)
            from netsim_fast.flit.blocks import blocked_advance

            advance = blocked_advance(cfg, params) or advance
    from netsim_fast.flit.specialise import kernel_params, planned_cycles, specialises

    special = specialises(cfg, topo.n_nodes, planned_cycles(cfg, topo.n_terminals,
                                                            None if packets is None else int(packets.length.sum())))
    if driver is not None and special:
        driver.specialise()
    kernel_view = kernel_params(params, special)  # what the kernels take; rebuilt only when params change
    compile_seconds = _compile(state, kernel_view, topo.arrays, advance)

    start, start_cpu = time.perf_counter(), time.process_time()
    from netsim_fast.flit.deadlock import Watchdog

    watchdog = Watchdog(params) if driver is None else driver.watchdog(params)
    from netsim_fast.flit.live import LiveFigures, takes_live_figures

    live = LiveFigures(topo.n_terminals)  # what the progress display shows of each batch
    live_progress = progress is not None and takes_live_figures(progress)
    next_chunk, err, t, stop_reason = 0, fs.ERR_OK, 0, None
    try:
        while t < limit and not state.cnt[fs.C_DONE]:
            t_end = min(limit, t + BATCH_CYCLES)
            for check in (latency_limit, control):  # batches end on sample-period boundaries
                if check is not None:
                    t_end = min(t_end, check.next_check)
            if traffic is not None:
                from netsim_fast.workloads.classes import packet_classes
                from netsim_fast.workloads.synthetic import CHUNK_CYCLES

                while next_chunk * CHUNK_CYCLES < t_end:
                    src, dst, length, rel = traffic.chunk(next_chunk)
                    if cfg.closed_loop:  # request candidates: the kernel creates the packets
                        state = _append_candidates(cfg, state, next_chunk, src, dst, length, rel)
                    else:
                        state = fs.append_packets(state, src, dst, length, rel,
                                                  mid=intermediate_groups(cfg, topo, params, src, next_chunk),
                                                  cls=packet_classes(cfg, next_chunk, src.size))
                    next_chunk += 1
            if cfg.closed_loop:
                state = fs.ensure_packet_capacity(state, cl.packets_needed(state, t_end))
            state = fs.ensure_window_capacity(state, (t_end + cfg.t_crossbar) // cfg.window + 2)
            err = advance(state, kernel_view, topo.arrays, t_end)
            t = int(state.cnt[fs.C_CYCLE])
            if progress is not None:  # the live figures go to callbacks that take them
                progress(t, limit, **live.figures(state, t)) if live_progress else progress(t, limit)
            if err == fs.ERR_DEADLOCK and not watchdog.confirm(state, topo):
                err = fs.ERR_OK  # a long wait, not a knot: recorded as starvation, the run goes on
            if err != fs.ERR_OK:
                break
            if latency_limit is not None and t == latency_limit.next_check and latency_limit.check(state, t):
                stop_reason = "latency-limit"
                break
            if control is not None and t == control.next_check:
                params, limit, stop_reason = _apply_control(control, control.check(state, t), state, params, limit)
                kernel_view = kernel_params(params, special)
                if control.drain_time is not None and not control.latency_mode:
                    traffic = None  # throughput mode: nothing is created after the drain time
                if stop_reason is not None:
                    break
            check = latency_limit or control
            upto = None if check is None else check.first_open  # packets it has counted
            if retired is not None and (shift := retired.retire(state, upto)):
                watchdog.renumber(shift)
                if driver is not None:
                    driver.renumber(shift)
                if check is not None:
                    check.renumber(shift)
                live.renumber(shift)
    except KeyboardInterrupt:  # Ctrl-C between or inside batches: the cycles run so far are a result
        stop_reason, err = "interrupted", fs.ERR_OK
        t = int(state.cnt[fs.C_CYCLE])
    sim_seconds = time.perf_counter() - start
    sim_cpu_seconds = time.process_time() - start_cpu
    done = bool(state.cnt[fs.C_DONE])
    if stop_reason is None:
        stop_reason = "completed" if done else ("cycles" if cfg.cycles is not None else "drain-limit")
    run = FlitRun(state=state, params=params, topo=topo, cycles=t, done=done,
                  error=None, compile_seconds=compile_seconds, sim_seconds=sim_seconds, stop_reason=stop_reason,
                  latency_check=None if latency_limit is None else latency_limit.value, retired=retired,
                  sim_cpu_seconds=sim_cpu_seconds)
    run.extras.update(watchdog.report(state, state.inl.shape[0]))
    if control is not None:
        run.extras["booksim_control"] = control.report()
    run.extras["deadlock_cycle"] = watchdog.knot or None
    run.extras["deadlock_last_move"] = watchdog.knot_last_move
    if err != fs.ERR_OK:
        run.stop_reason = "deadlock" if err == fs.ERR_DEADLOCK else "error"
        run.error = describe_error(err, state, params, topo, watchdog.knot) if driver is None else \
            driver.describe(err, state) or describe_error(err, state, params, topo, watchdog.knot)
        if err == fs.ERR_DEADLOCK:
            raise DeadlockError(run.error, result=run)
        raise SimulationError(run.error)
    return run


def _append_candidates(cfg, state, chunk, src, dst, length, rel):
    """Closed loop: a chunk's request candidates, each a read or (``--write-fraction``) a write."""
    from netsim_fast.flit import closed_loop as cl

    kind = cl.candidate_kinds(cfg, chunk, src.size)
    length = np.where(kind == fs.KIND_WRITE, cfg.write_request_flits, length).astype(np.int32)
    return cl.append_candidates(state, src, dst, length, rel, kind)


def _apply_control(control, action: str, state, params, limit: int):
    """What BookSim2's sample-period control decided at a check: the new parameters (measured
    window), the cycle limit (the drain's bound) and a stop reason (None: go on)."""
    from netsim_fast.flit.sampling import close_window, open_window

    if action == "warmed":
        params = open_window(state, params, control)
    elif action == "drain":
        params = close_window(state, params, control)
        limit = control.drain_limit()
    elif action == "stop":
        return params, limit, "latency-limit" if "latency" in control.unstable else "not-converged"
    return params, limit, None


def _lane_name(lane: int, params, topo) -> str:
    output = lane < 0
    lane = -1 - lane if output else lane
    node = lane // (params.n_ports * params.n_vcs)
    port = (lane // params.n_vcs) % params.n_ports
    vc = lane % params.n_vcs
    where = "local" if port >= params.n_ports - params.conc else f"port {port}"
    return f"{'output' if output else 'input'} lane node {node} {where} vc {vc}"


def describe_error(err: int, state, params, topo, knot: list | None = None) -> str:
    """One sentence for an engine error code; for a deadlock, the knot's channels."""
    t = int(state.cnt[fs.C_ERR_CYCLE])
    lane = int(state.cnt[fs.C_ERR_LANE])
    pkt = int(state.cnt[fs.C_ERR_PKT])
    if err == fs.ERR_DEADLOCK:
        knot = knot or []
        shown = "; ".join(f"router {c['router']} port {c['port']} vc {c['vc']} ({c['lane']})" for c in knot[:12])
        return (f"deadlock at cycle {t}: a knot of {len(knot)} channel(s) waiting for one another, each of "
                f"whose alternatives is held inside it (found after a lane waited {params.deadlock_cycles} "
                f"cycles): {shown}"
                f"{', ...' if len(knot) > 12 else ''}")
    messages = {
        fs.ERR_CONSERVATION: f"flit conservation broken at cycle {t} (injected != delivered + in flight)",
        fs.ERR_CREDIT: (f"credit conservation broken at cycle {t} on {_lane_name(-1 - lane, params, topo)} "
                        "(its credits, the flits in flight to and held by the downstream lane, and the credits "
                        f"returning do not add up to --buf {params.buf})"),
        fs.ERR_OVERFLOW: f"input lane overflow at cycle {t} on {_lane_name(lane, params, topo)}",
        fs.ERR_ORDER: (f"flits of a packet delivered out of order at cycle {t} at router "
                       f"{int(state.pkt['dst'][pkt])} (its destination)"),
        fs.ERR_IDLE: (f"router {lane // (params.n_ports * params.n_vcs)} holds flits or packets to inject at "
                      f"cycle {t} but is not marked active (the router stages would skip it)"),
        fs.ERR_COUNT: (f"router {lane // (params.n_ports * params.n_vcs)}'s bookkeeping disagrees with its lanes at "
                       f"cycle {t} (the counts and marks that let its stages skip idle lanes and ports)"),
        fs.ERR_CAPACITY: f"closed loop: no record free for a request, a reply or a delivered tail at cycle {t}",
        fs.ERR_NO_ROUTE: (f"routing gave no candidate for a packet from node {int(state.pkt['src'][pkt])} to "
                          f"{int(state.pkt['dst'][pkt])} at cycle {t} on {_lane_name(lane, params, topo)}"),
    }
    return messages.get(err, f"engine error code {err} at cycle {t}")
