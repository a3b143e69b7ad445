"""``netsim-fast run``: one experiment (or a latency-load curve with ``--sweep-rates``)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli import booksim_options as bo
from netsim_fast.cli._app import EXIT_INTERRUPTED, EXIT_SIMULATION, app, echo_json, guarded
from netsim_fast.cli.options import (
    BaseOpt, DegreeOpt, DimsOpt, FileOpt, GraphSeedOpt, InjectVcsOpt, JsonOpt, JumpsOpt, KOpt, LoopsOpt, NodesOpt,
    NOpt, RoutingOpt, SeedOpt, TopologyOpt, VcReallocOpt, VcsOpt, topology_fields,
    GlobalArrangementOpt, SwitchPortsOpt, LinkFailuresOpt, FaultSeedOpt, GlobalLinksOpt, GroupRoutersOpt, GroupsOpt, WidthsOpt,
    ConcentrationOpt,
)

_R, _P, _W, _M = "Router and routing", "Packet engine", "Workload", "Measurement and output"


def _opt(*names, panel, help):
    return typer.Option(*names, rich_help_panel=panel, help=help)


@app.command()
@guarded
def run(
    ctx: typer.Context,
    *,
    topology: TopologyOpt = "torus",
    k: KOpt = None,
    n: NOpt = None,
    dims: DimsOpt = None,
    nodes: NodesOpt = None,
    degree: DegreeOpt = None,
    base: BaseOpt = None,
    jumps: JumpsOpt = None,
    file: FileOpt = None,
    graph_seed: GraphSeedOpt = None,
    widths: WidthsOpt = None,
    group_routers: GroupRoutersOpt = None,
    global_links: GlobalLinksOpt = None,
    groups: GroupsOpt = None,
    global_arrangement: GlobalArrangementOpt = None,
    switch_ports: SwitchPortsOpt = None,
    link_failures: LinkFailuresOpt = 0,
    fault_seed: FaultSeedOpt = None,
    concentration: ConcentrationOpt = 1,
    engine: Annotated[str, _opt("--engine", panel=_R, help="flit (cycle-accurate flits, wormhole or VCT) | packet (synchronous store-and-forward, whole packets; gossip forwarding rules).")] = "flit",
    router: Annotated[str, _opt("--router", panel=_R, help="lanes: the switch of paper 004 Fig. 4 (input and output lanes, VC-to-VC crossbar); iq: input-queued VC router with a separable switch allocator; booksim: BookSim2's input-queued router, stage by stage (its options in the BookSim2 router panel).")] = "lanes",
    routing: RoutingOpt = None,
    switching: Annotated[str, _opt("--switching", panel=_R, help="wormhole | vct (virtual cut-through).")] = "wormhole",
    vcs: VcsOpt = 4,
    buf: Annotated[int, _opt("--buf", panel=_R, help="Flits per input lane (VC buffer depth).")] = 8,
    out_buf: Annotated[int, _opt("--out-buf", panel=_R, help="Flits per output lane (--router lanes).")] = 2,
    t_link: Annotated[int, _opt("--t-link", panel=_R, help="Cycles a link takes (and is busy) per flit.")] = 1,
    t_routing: Annotated[int, _opt("--t-routing", panel=_R, help="Cycles a routing unit spends computing one header's route.")] = 1,
    t_crossbar: Annotated[int, _opt("--t-crossbar", panel=_R, help="Cycles a flit takes through the crossbar.")] = 1,
    credit_delay: Annotated[Optional[int], _opt("--credit-delay", panel=_R, help="Cycles for a credit to reach the upstream router (booksim: BookSim2's credit_delay, extra cycles before a returned credit is usable) \\[default: 1; booksim 0].")] = None,
    headers_per_cycle: Annotated[int, _opt("--headers-per-cycle", panel=_R, help="Routing units per router, each routing one header every --t-routing cycles (0 = unlimited).")] = 1,
    eject_rate: Annotated[int, _opt("--eject-rate", panel=_R, help="Flits per cycle a node accepts from its router.")] = 1,
    inject_vcs: InjectVcsOpt = None,
    vc_alloc: Annotated[str, _opt("--vc-alloc", panel=_R, help="Order in which routed headers get output VCs: age (longest in the network first) | rr (round-robin).")] = "age",
    up_port: Annotated[str, _opt("--up-port", panel=_R, help="--routing updown: how a router picks among its candidate (up) ports: random (per packet and router, BookSim2's nca) | dest-mod-k (D-mod-k on the destination terminal) | adaptive (most free space).")] = "random",
    vc_realloc: VcReallocOpt = "auto",
    local_latency: Annotated[Optional[int], _opt("--local-latency", panel=_R, help="Dragonfly: cycles a flit takes on a link inside a group, credits coming back alike (BookSim2's channel latency; lanes, iq: >= --t-link, the link still takes a flit every --t-link cycles) \\[default: --t-link; booksim 10].")] = None,
    global_latency: Annotated[Optional[int], _opt("--global-latency", panel=_R, help="Dragonfly: the same for a link between groups \\[default: --t-link; booksim 100].")] = None,
    routing_delay: bo.RoutingDelayOpt = 1,
    vc_alloc_delay: bo.VcAllocDelayOpt = 1,
    sw_alloc_delay: bo.SwAllocDelayOpt = 1,
    st_prepare_delay: bo.StPrepareDelayOpt = 0,
    st_final_delay: bo.StFinalDelayOpt = 1,
    input_speedup: bo.InputSpeedupOpt = 1,
    output_speedup: bo.OutputSpeedupOpt = 1,
    internal_speedup: bo.InternalSpeedupOpt = 1.0,
    output_buffer_size: bo.OutputBufferSizeOpt = -1,
    noq: bo.NoqOpt = False,
    vc_allocator: bo.VcAllocatorOpt = "islip",
    sw_allocator: bo.SwAllocatorOpt = "islip",
    alloc_iters: bo.AllocItersOpt = 1,
    arb_type: bo.ArbTypeOpt = "round_robin",
    priority: bo.PriorityOpt = "none",
    speculative: bo.SpeculativeOpt = False,
    use_noc_latency: bo.UseNocLatencyOpt = True,
    wait_for_tail_credit: bo.WaitForTailCreditOpt = False,
    vc_busy_when_full: bo.VcBusyWhenFullOpt = False,
    vc_prioritize_empty: bo.VcPrioritizeEmptyOpt = False,
    hold_switch_for_packet: bo.HoldSwitchOpt = False,
    loops: LoopsOpt = 4,
    policy: Annotated[Optional[str], _opt("--policy", panel=_P, help="Which queued packet a link sends: fifo | srpf (shortest remaining path first) | lrpf (longest) | random \\[default: fifo].")] = None,
    path_choice: Annotated[Optional[str], _opt("--path-choice", panel=_P, help="fixed (lowest minimal port) | random (uniform among minimal ports, per hop) \\[default: fixed].")] = None,
    one_port: Annotated[bool, _opt("--one-port", panel=_P, help="A node sends on at most one link per cycle (default: all ports).")] = False,
    queue_capacity: Annotated[Optional[int], _opt("--queue-capacity", panel=_P, help="Transit packets per link queue, with back-pressure and the deadlock watchdog \\[default: 0 = unbounded].")] = None,
    pattern: Annotated[Optional[str], _opt("--pattern", panel=_W, help="Open-loop (flit): uniform | transpose | bitcomp | bitrev | shuffle | tornado | neighbor | hotspot | randperm; BookSim2's, which may send to the source itself: uniform-self (BookSim2's uniform) | diagonal | asymmetric | taper64; worst-case (dragonfly: to the next group; flatfly, hyperx: to the next router). Finite, run to completion (packet, flit): random | total-exchange | permutation | file | embed-debruijn | gossip-naive. Total exchange of paper 004 (flit): random-te | shift-te | pairwise-te | indirect-te. Gossip (packet): gossip-ham | gossip-one. \\[default: uniform; random on the packet engine]")] = None,
    messages: Annotated[Optional[int], _opt("--messages", panel=_W, help="random: messages per node \\[default: 1].")] = None,
    messages_file: Annotated[Optional[str], _opt("--messages-file", panel=_W, help="file: one 'src dst [release_cycle]' per line ('#' comments, optional header).")] = None,
    sync: Annotated[str, _opt("--sync", panel=_W, help="Flit engine, total-exchange, gossip-naive and the *-te patterns: none | local (a node starts step s+1 once it received its step-s messages) | global (once every step-s message arrived).")] = "none",
    grain_bytes: Annotated[Optional[int], _opt("--grain-bytes", panel=_W, help="*-te total exchanges: bytes every node sends to every other node \\[default: 32; packets then default to min(grain, 32) bytes].")] = None,
    time_independent: Annotated[bool, _opt("--time-independent", panel=_W, help="gossip-ham, gossip-one: fixed forwarding rules, no switching schedule.")] = False,
    rate: Annotated[float, _opt("--rate", panel=_W, help="Offered load in flits/node/cycle, up to one packet per node per cycle (as BookSim2 allows; above 1 flit the source saturates).")] = 0.1,
    packet_flits: Annotated[Optional[int], _opt("--packet-flits", panel=_W, help="Packet size in flits \\[default: 8].")] = None,
    packet_bytes: Annotated[Optional[int], _opt("--packet-bytes", panel=_W, help="Packet size in bytes (header included), instead of --packet-flits.")] = None,
    flit_bytes: Annotated[int, _opt("--flit-bytes", panel=_W, help="Bytes per flit (paper 004: 4).")] = 4,
    hotspot_fraction: Annotated[float, _opt("--hotspot-fraction", panel=_W, help="hotspot: fraction of packets sent to the hotspot node(s).")] = 0.1,
    hotspot_nodes: Annotated[Optional[str], _opt("--hotspot-nodes", panel=_W, help="hotspot: node id(s), e.g. 0,17 \\[default: 0].")] = None,
    source_queue: Annotated[Optional[int], _opt("--source-queue", panel=_W, help="Open loop: packets a node's source queue holds; a packet created while it is full is dropped and counted (source_dropped_packets), so a run past saturation keeps bounded state \\[default: unbounded].")] = None,
    injection: Annotated[str, _opt("--injection", panel=_W, help="Open loop: bernoulli (a packet with probability rate / size every cycle) | onoff (bursty, BookSim2's on_off: needs --burst-length and --duty-cycle).")] = "bernoulli",
    burst_length: Annotated[Optional[float], _opt("--burst-length", panel=_W, help="--injection onoff: mean packets per burst (on period).")] = None,
    duty_cycle: Annotated[Optional[float], _opt("--duty-cycle", panel=_W, help="--injection onoff: share of cycles a node is on, in (0, 1).")] = None,
    packet_sizes: Annotated[Optional[str], _opt("--packet-sizes", panel=_W, help="Open loop: a mix of packet sizes in flits, e.g. 1,8 (replaces --packet-flits; --rate stays in flits).")] = None,
    packet_mix: Annotated[Optional[str], _opt("--packet-mix", panel=_W, help="Weights of --packet-sizes, e.g. 0.8,0.2 \\[default: equal].")] = None,
    classes: Annotated[int, _opt("--classes", panel=_W, help="Open loop: traffic classes; each packet draws its class from --class-mix, and --json reports per_class statistics.")] = 1,
    class_mix: Annotated[Optional[str], _opt("--class-mix", panel=_W, help="--classes K: the share of packets of each class, e.g. 0.5,0.5 \\[default: equal].")] = None,
    class_priority: Annotated[Optional[str], _opt("--class-priority", panel=_W, help="--classes K: each class's priority, higher first, e.g. 1,0 (strict priority at injection, VC allocation, link/switch arbitration and ejection; the booksim router: with --priority class, as BookSim2) \\[default: all 0].")] = None,
    fixed_points: Annotated[str, _opt("--fixed-points", panel=_W, help="Permutation patterns: what a node the pattern maps to itself does: idle (sends nothing) | self (sends to itself through its own router, as BookSim2).")] = "idle",
    terminal_numbering: Annotated[str, _opt("--terminal-numbering", panel=_W, help="The terminal ids the patterns see: router (terminal r*C + p is port p of router r) | floorplan (BookSim2's numbering of a cmesh's or 2-D flatfly's terminals, row by row over the routers' tiles).")] = "router",
    batch: Annotated[Optional[int], _opt("--batch", panel=_W, help="Open loop: every node sends its first B packets, then stops; the run ends when all are delivered (BookSim2's batch mode; completion_cycles is the batch duration).")] = None,
    closed_loop: Annotated[bool, _opt("--closed-loop", panel=_W, help="Request-reply traffic: every request (--packet-flits) is answered by a reply (--reply-flits) from its destination, queued there ahead of new requests; --rate counts both; lanes and iq put requests on VCs 0..V/2-1 and replies on V/2..V-1. --json adds round_trip_mean and request_reply.")] = False,
    outstanding: Annotated[int, _opt("--outstanding", panel=_W, help="--closed-loop: requests a terminal keeps without their reply; a request drawn while that many are out is not issued (0 = no limit).")] = 4,
    reply_flits: Annotated[Optional[int], _opt("--reply-flits", panel=_W, help="--closed-loop: flits of a (read) reply \\[default: --packet-flits].")] = None,
    write_fraction: Annotated[float, _opt("--write-fraction", panel=_W, help="--closed-loop: share of requests that are writes (BookSim2's write_fraction).")] = 0.0,
    write_request_flits: Annotated[Optional[int], _opt("--write-request-flits", panel=_W, help="--closed-loop: flits of a write request \\[default: --packet-flits].")] = None,
    write_reply_flits: Annotated[Optional[int], _opt("--write-reply-flits", panel=_W, help="--closed-loop: flits of a write reply \\[default: --reply-flits].")] = None,
    rw_vcs: Annotated[Optional[str], _opt("--rw-vcs", panel=_W, help="--closed-loop, --router booksim: BookSim2's VC ranges, begin,end of read requests, write requests, read replies, write replies \\[default: requests 0..V/2-1, replies V/2..V-1].")] = None,
    seed: SeedOpt = 1,
    seeds: Annotated[int, _opt("--seeds", panel=_M, help="Run the seeds S, S+1, ..., S+N-1 (S = --seed) and report each figure's mean, with its 95% confidence interval (ci95 in --json, Student's t).")] = 1,
    warmup: Annotated[int, _opt("--warmup", panel=_M, help="Warm-up cycles before the measurement window.")] = 2000,
    measure: Annotated[int, _opt("--measure", panel=_M, help="Cycles of the measurement window.")] = 10000,
    drain: Annotated[Optional[int], _opt("--drain", panel=_M, help="Most cycles to wait for the window's packets after it \\[default: 5 x --measure].")] = None,
    cycles: Annotated[Optional[int], _opt("--cycles", panel=_M, help="Run exactly this many cycles, statistics over the whole run (replaces warm-up/measure/drain); finite workloads: stop after at most this many.")] = None,
    window: Annotated[int, _opt("--window", panel=_M, help="Cycles per time-series window of the trace.")] = 10,
    deadlock_cycles: Annotated[int, _opt("--deadlock-cycles", panel=_M, help="Watchdog: a lane whose front has not moved (flit), or no packet moved with bounded queues (packet), for this long is a deadlock.")] = 10000,
    check_invariants: Annotated[bool, _opt("--check-invariants", panel=_M, help="Check flit and credit conservation every cycle (slow; for debugging).")] = False,
    threads: Annotated[Optional[int], _opt("--threads", panel=_M, help="Flit engine (lanes, iq): threads for the router stages, the same result for any N \\[default: 2 on networks of 1024 routers or more when a second core is idle, else 1].")] = None,
    specialise: Annotated[str, _opt("--specialise", panel=_M, help="Flit engine: compile the kernel for this configuration's sizes, delays and codes as constants, the same result in 4-19 % less time, at a compilation (some 7 s, cached) per new configuration: auto (when the run plans 3e8 router-cycles or more, 1.5e9 with the booksim router, whose kernel compiles in 30-40 s), on, off.")] = "auto",
    trace: Annotated[Optional[str], _opt("--trace", panel=_M, help="Write the HDF5 trace of the run to this path.")] = None,
    sweep_rates: Annotated[Optional[str], _opt("--sweep-rates", panel=_M, help="Latency-load curve: START:STOP:STEP (inclusive) or a list r1,r2,...; prints the curve and the saturation throughput.")] = None,
    plot: Annotated[Optional[str], _opt("--plot", panel=_M, help="With --sweep-rates: write the latency-load curve as a PNG here.")] = None,
    past_saturation: Annotated[bool, _opt("--past-saturation", panel=_M, help="With --sweep-rates: run every rate, not only up to the first saturated point.")] = False,
    latency_limit: Annotated[int, _opt("--latency-limit", panel=_M, help="Open-loop runs stop, saturated, once BookSim2's latency (delivered packets plus the ages of flits in flight) exceeds this many cycles after a sample period; 0 = off.")] = 500,
    sample_period: Annotated[int, _opt("--sample-period", panel=_M, help="Cycles between latency-limit checks (BookSim2's sample_period).")] = 1000,
    measurement: Annotated[str, _opt("--measurement", panel=_M, help="window: --warmup, --measure, --drain frame the measured window | booksim: BookSim2's sample periods decide warm-up and measurement, then its measured packets are drained.")] = "window",
    sim_type: Annotated[str, _opt("--sim-type", panel=_M, help="--measurement booksim: latency (the latency limit aborts, converge on latency and throughput) | throughput (throughput only; nothing created after the drain starts).")] = "latency",
    warmup_periods: Annotated[int, _opt("--warmup-periods", panel=_M, help="--measurement booksim: sample periods of warm-up; 0 = until the changes fall below the warm-up thresholds.")] = 3,
    max_samples: Annotated[int, _opt("--max-samples", panel=_M, help="--measurement booksim: most sample periods, warm-up included.")] = 10,
    warmup_thres: Annotated[float, _opt("--warmup-thres", panel=_M, help="--measurement booksim, --warmup-periods 0: relative latency change that ends warm-up (negative: off).")] = 0.05,
    acc_warmup_thres: Annotated[float, _opt("--acc-warmup-thres", panel=_M, help="... and relative throughput change.")] = 0.05,
    stopping_thres: Annotated[float, _opt("--stopping-thres", panel=_M, help="--measurement booksim: relative latency change of a converged period (3 in a row end the measurement; negative: off).")] = 0.05,
    acc_stopping_thres: Annotated[float, _opt("--acc-stopping-thres", panel=_M, help="... and relative throughput change.")] = 0.05,
    json: JsonOpt = False,
    report: Annotated[str, _opt("--report", panel=_M, help="table | booksim: BookSim2's overall-statistics block, line for line, for scripts that read BookSim2's output (open-loop flit runs; --json carries the same figures as booksim_stats).")] = "table",
    quiet: Annotated[bool, _opt("--quiet", panel=_M, help="No progress bar.")] = False,
    memory_limit: Annotated[Optional[int], _opt("--memory-limit", panel=_M, help="MiB the run may need; a run estimated to need more is refused before it starts \\[default: the memory available now].")] = None,
    config: Annotated[Optional[str], _opt("--config", panel=_M, help="Read options from a TOML file (keys: the option names, e.g. packet_flits = 8); options given on the command line win.")] = None,
    booksim_config: Annotated[Optional[str], _opt("--booksim-config", panel=_M, help="Run a BookSim2 configuration file: the booksim router, BookSim2's defaults and its sampled measurement (docs/booksim-keys.md lists every key: supported, ignored or refused); options given on the command line win.")] = None,
    booksim_overrides: Annotated[Optional[list[str]], typer.Argument(metavar="[KEY=VALUE]...", show_default=False, help="With --booksim-config: BookSim2 key=value overrides, as BookSim2 takes them after its file (later ones win).")] = None,
    save_config: Annotated[Optional[str], _opt("--save-config", panel=_M, help="Write the resolved configuration (every option that applies to this run) as TOML, to repeat it with --config.")] = None,
) -> None:
    """Simulate one experiment and print its summary.

    Examples: [bold]netsim-fast run --topology torus --k 16 --routing duato --pattern uniform --rate 0.3[/bold];
    [bold]netsim-fast run --engine packet --topology rrg --nodes 64 --degree 4 --pattern random --messages 2 --policy lrpf[/bold];
    [bold]netsim-fast run --engine packet --topology torus --dims 8,8 --pattern gossip-one[/bold]
    """
    from netsim_fast.config import Config

    fields = dict(
        engine=engine, router=router, routing=routing, switching=switching, vcs=vcs, buf=buf, out_buf=out_buf,
        t_link=t_link, t_routing=t_routing, t_crossbar=t_crossbar, credit_delay=credit_delay,
        headers_per_cycle=headers_per_cycle, eject_rate=eject_rate, inject_vcs=inject_vcs, vc_alloc=vc_alloc, up_port=up_port, vc_realloc=vc_realloc, loops=loops, pattern=pattern,
        local_latency=local_latency, global_latency=global_latency,
        rate=rate, packet_flits=packet_flits, packet_bytes=packet_bytes, flit_bytes=flit_bytes,
        hotspot_fraction=hotspot_fraction, hotspot_nodes=hotspot_nodes, source_queue=source_queue, injection=injection,
        burst_length=burst_length, duty_cycle=duty_cycle, packet_sizes=packet_sizes, packet_mix=packet_mix, batch=batch,
        fixed_points=fixed_points, classes=classes, class_mix=class_mix, class_priority=class_priority,
        terminal_numbering=terminal_numbering, closed_loop=closed_loop, outstanding=outstanding,
        reply_flits=reply_flits, write_fraction=write_fraction, write_request_flits=write_request_flits,
        write_reply_flits=write_reply_flits, rw_vcs=rw_vcs,
        messages=messages,
        messages_file=messages_file, time_independent=time_independent, sync=sync, grain_bytes=grain_bytes, policy=policy,
        path_choice=path_choice, one_port=one_port, queue_capacity=queue_capacity, seed=seed, warmup=warmup,
        measure=measure, drain=drain, cycles=cycles, window=window, deadlock_cycles=deadlock_cycles,
        check_invariants=check_invariants, threads=threads, specialise=specialise, trace=trace, latency_limit=latency_limit, sample_period=sample_period,
        memory_limit=memory_limit, measurement=measurement, sim_type=sim_type, warmup_periods=warmup_periods,
        max_samples=max_samples, warmup_thres=warmup_thres, acc_warmup_thres=acc_warmup_thres,
        stopping_thres=stopping_thres, acc_stopping_thres=acc_stopping_thres,
        **topology_fields(topology, k, n, dims, nodes, degree, base, jumps, file, graph_seed,
                    widths=widths, group_routers=group_routers, global_links=global_links, groups=groups,
                    global_arrangement=global_arrangement, switch_ports=switch_ports, link_failures=link_failures, fault_seed=fault_seed,
                    concentration=concentration),
        **bo.booksim_fields(
            routing_delay=routing_delay, vc_alloc_delay=vc_alloc_delay, sw_alloc_delay=sw_alloc_delay,
            st_prepare_delay=st_prepare_delay, st_final_delay=st_final_delay, input_speedup=input_speedup,
            output_speedup=output_speedup, internal_speedup=internal_speedup, output_buffer_size=output_buffer_size,
            noq=noq, vc_allocator=vc_allocator, sw_allocator=sw_allocator, alloc_iters=alloc_iters,
            arb_type=arb_type, priority=priority, speculative=speculative, use_noc_latency=use_noc_latency,
            wait_for_tail_credit=wait_for_tail_credit, vc_busy_when_full=vc_busy_when_full,
            vc_prioritize_empty=vc_prioritize_empty, hold_switch_for_packet=hold_switch_for_packet),
    )
    from netsim_fast.checks import check_writable_file
    from netsim_fast.plots import check_image_path

    for option, path, check in (("plot", plot, check_image_path), ("save-config", save_config, check_writable_file)):
        if path is not None:  # checked before any work, not after the curve
            check(option, path)
    notice = None
    if config is not None and booksim_config is not None:
        from netsim_fast.config import bad

        raise bad("booksim-config", booksim_config, "reads a BookSim2 file; --config reads a netsim-fast TOML file; give one of them")
    if config is not None:
        fields = _with_file(ctx, fields, config)
    if booksim_overrides and booksim_config is None:
        from netsim_fast.config import bad

        raise bad("booksim-config", None, f"is needed for the BookSim2 override {booksim_overrides[0]!r} (run takes "
                                          "key=value arguments only after --booksim-config FILE)")
    if booksim_config is not None:
        from netsim_fast.config.booksim_import import read_booksim_run

        from_file, ignored = read_booksim_run(booksim_config, booksim_overrides or ())
        if ignored:  # said once the run is accepted, so a refusal stays one line
            notice = f"note: BookSim2 output keys not used by netsim-fast: {', '.join(ignored)}"
        fields = _with_file(ctx, fields, booksim_config, from_file)
    cfg = Config(**fields)
    cfgs = _seed_configs(cfg, fields, seeds, trace=trace, sweep_rates=sweep_rates)
    if save_config is not None:
        from netsim_fast.config.files import save_config as write_config

        try:
            write_config(cfg, save_config)
        except OSError as exc:
            from netsim_fast.config import bad

            raise bad("save-config", save_config, f"cannot be written ({exc.strerror})") from None
    if cfg.sync != "none":
        from netsim_fast.config import bad, is_open_loop

        if is_open_loop(cfg):  # the API takes phases with explicit packets; run has none for these
            raise bad("sync", cfg.sync, f"gates the steps of finite workloads; open-loop --pattern {cfg.pattern} has none")
    _check_report(report, cfg, as_json=json, sweep_rates=sweep_rates)
    if sweep_rates is not None:
        from netsim_fast.cli.run_sweep import rate_curve
        from netsim_fast.config import bad, is_open_loop

        if not is_open_loop(cfg):
            raise bad("sweep-rates", sweep_rates, f"varies --rate of open-loop patterns; --pattern {cfg.pattern} is a finite workload")
        if cfg.trace is not None:
            raise bad("trace", cfg.trace, "writes one run's trace; --sweep-rates runs many (use netsim-fast sweep, whose [sweep] table can keep traces)")

        _notify(notice)
        rate_curve(cfg, sweep_rates, plot=plot, as_json=json, quiet=quiet, past_saturation=past_saturation)
        return
    if past_saturation:
        from netsim_fast.config import bad

        raise bad("past-saturation", True, "applies to --sweep-rates only (it runs the rates past the first saturated point)")
    if plot is not None:
        from netsim_fast.config import bad

        raise bad("plot", plot, "draws the latency-load curve, so it needs --sweep-rates")
    _notify(notice)
    _run_one(cfgs, as_json=json, quiet=quiet, report=report)


def _notify(notice: str | None) -> None:
    if notice:
        typer.echo(notice, err=True)


def _check_report(report: str, cfg, *, as_json: bool, sweep_rates) -> None:
    from netsim_fast.config import bad, is_open_loop, unknown_choice

    if report not in ("table", "booksim"):
        raise unknown_choice("report", report, ("table", "booksim"))
    if report == "table":
        return
    if cfg.engine != "flit" or not is_open_loop(cfg):
        raise bad("report", report, "prints BookSim2's statistics of open-loop flit runs and batches (not finite workloads)")
    if as_json or sweep_rates is not None:
        raise bad("report", report, "is a text report of one run; --json already carries its figures (booksim_stats) "
                                    "and --sweep-rates prints a curve")


def _seed_configs(cfg, fields: dict, seeds: int, *, trace, sweep_rates) -> list:
    """The configurations of ``--seeds N``, each validated before anything runs."""
    from netsim_fast.checks import require_int
    from netsim_fast.config import Config, bad
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS

    require_int("seeds", seeds, 1, 10_000, what=" runs")
    if seeds == 1:
        return [cfg]
    if cfg.pattern in FORWARDING_PATTERNS:
        raise bad("seeds", seeds, f"--pattern {cfg.pattern} follows fixed forwarding rules: every seed gives the same run")
    if trace is not None:
        raise bad("trace", trace, "writes one run's trace; --seeds runs several (use netsim-fast sweep with repeats to keep traces)")
    if sweep_rates is not None:
        raise bad("seeds", seeds, "does not combine with --sweep-rates (use netsim-fast sweep with repeats for a curve over seeds)")
    if cfg.seed + seeds - 1 > 2**63 - 1:
        raise bad("seeds", seeds, f"seeds {cfg.seed}..{cfg.seed + seeds - 1} pass 2**63 - 1")
    # from the options, not cfg.replace: a graph that follows --seed (no --graph-seed) follows it here too
    return [cfg] + [Config(**{**fields, "seed": cfg.seed + i}) for i in range(1, seeds)]


def _with_file(ctx: typer.Context, fields: dict, path: str, from_file: dict | None = None) -> dict:
    """``fields`` with the file's values (the TOML file at ``path``, or ``from_file`` already
    read) for every option not given on the command line."""
    from netsim_fast.config.files import read_config_file

    if from_file is None:
        from_file = read_config_file(path)
    out = dict(fields)
    for name, value in from_file.items():
        source = ctx.get_parameter_source(name) if name in ctx.params else None
        # by name: typer may bring its own copy of click's ParameterSource
        if source is None or source.name in ("DEFAULT", "DEFAULT_MAP"):
            out[name] = value
    return out


def _run_one(cfgs: list, *, as_json: bool, quiet: bool, report: str = "table") -> None:
    """Run one configuration, or its ``--seeds`` copies, and print the (aggregated) summary."""
    from netsim_fast.experiment import simulate, simulate_seeds
    from netsim_fast.cli.render import progress_bar, render_seed_spread, render_summary
    from netsim_fast.config import is_open_loop
    from netsim_fast.errors import DeadlockError
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS

    cfg = cfgs[0]
    unit = "packets delivered" if cfg.engine == "packet" else "cycles"
    try:
        phases = None
        if cfg.engine == "flit" and cfg.measurement == "booksim":
            phases = [(0, "sample periods (BookSim2)")]
        elif cfg.engine == "flit" and cfg.cycles is None and is_open_loop(cfg) and cfg.batch is None:
            phases = [(0, "warm-up"), (cfg.warmup, "measuring"), (cfg.warmup + cfg.measure, "draining")]
        with progress_bar(quiet or cfg.pattern in FORWARDING_PATTERNS, unit=unit, phases=phases) as progress:
            if len(cfgs) > 1:
                summary = simulate_seeds(cfgs, progress=progress)
            else:
                summary = simulate(cfg, progress=progress)
    except DeadlockError as exc:
        if as_json:
            echo_json(exc.summary)
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        raise typer.Exit(code=EXIT_SIMULATION) from None
    runs = summary.get("per_seed", [summary])
    starved = [s for s in runs if s.get("starved_channel_count")]
    if starved:
        worst = starved[0]["starved_channels"][0]
        typer.secho(f"warning: starvation, not deadlock: {starved[0]['starved_channel_count']} channel(s) waited at least "
                    f"--deadlock-cycles {cfg.deadlock_cycles} with no knot of waits; longest {starved[0]['starvation_max_wait']} "
                    f"cycles at router {worst['router']} port {worst['port']} vc {worst['vc']} ({worst['lane']})",
                    fg=typer.colors.YELLOW, err=True)
    if as_json:
        echo_json(summary)
    elif report == "booksim":
        from netsim_fast.cli.booksim_report import booksim_report_lines

        typer.echo("\n".join(booksim_report_lines(summary)))
    else:
        render_summary(cfg, summary)
        if len(cfgs) > 1:
            render_seed_spread(summary)
    interrupted = [s for s in runs if s.get("stop_reason") == "interrupted"]
    if interrupted:
        typer.secho(f"interrupted at cycle {interrupted[0]['cycles']}: the summary above covers the cycles run; "
                    "no trace was written", fg=typer.colors.YELLOW, err=True)
        raise typer.Exit(code=EXIT_INTERRUPTED)
