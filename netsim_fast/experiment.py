"""``netsim_fast.simulate(cfg)`` lives here: run one experiment and return its summary (a dict).

The one place that joins a ``Config`` to a topology, a workload, an engine, the analytic
capacity and the trace writer; the CLI's ``run`` and the sweeps call it. Summaries and traces
of the packet engine and of gossip live in ``engine/packet_results.py``.
"""

from __future__ import annotations

from netsim_fast.config import Config
from netsim_fast.errors import ConfigError, DeadlockError


def simulate(cfg: Config, *, progress=None, topology=None) -> dict:
    """Run ``cfg`` and return its summary; writes ``cfg.trace`` when set.

    Dispatch: the flit engine runs open-loop patterns (``uniform``, ...) in a measured window
    and finite message sets (``random``, ``total-exchange``, ``gossip-naive``, ...) to
    completion; the packet engine runs finite message sets store-and-forward, and
    ``gossip-ham`` / ``gossip-one`` by their forwarding rules.

    ``progress(done, limit)`` is called between kernel batches: cycles on the flit engine,
    packets delivered on the packet engine (gossip runs do not call it).

    On deadlock a ``DeadlockError`` is raised whose ``summary`` attribute holds the whole
    summary (``deadlock: true``, ``error``) and whose trace, if asked for, is still written.
    """
    from netsim_fast.config.memory import estimated_mib

    summary = _dispatch(cfg, topology, progress)
    summary["estimated_mib"] = round(estimated_mib(cfg), 1)  # what the Config check compared
    summary["peak_rss_mib"] = peak_rss_mib()
    return summary


def peak_rss_mib() -> float | None:
    """The process's peak resident memory so far, in MiB (None where the platform has no
    getrusage): the whole process, Python and compiled kernels included."""
    try:
        import resource
    except ImportError:
        return None
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1 << 20) if sys.platform == "darwin" else peak / 1024, 1)  # bytes on macOS, KiB on Linux


def _dispatch(cfg: Config, topology, progress) -> dict:
    from netsim_fast.topologies import build_topology
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS
    from netsim_fast.workloads.total_exchange import TE_PATTERNS

    topo = topology if topology is not None else build_topology(cfg)
    _check_anynet_layout(cfg, topo)
    if cfg.pattern in TE_PATTERNS:
        return _simulate_total_exchange(cfg, topo, progress)
    if cfg.pattern in FORWARDING_PATTERNS:
        return _simulate_gossip(cfg, topo)
    if cfg.engine == "packet":
        return _simulate_packet(cfg, topo, progress)
    from netsim_fast.config import is_open_loop

    if is_open_loop(cfg) and cfg.batch is not None:
        return _simulate_flit_batch(cfg, topo, progress)
    if is_open_loop(cfg):
        return _simulate_flit(cfg, topo, progress)
    return _simulate_flit_finite(cfg, topo, progress)


def _check_anynet_layout(cfg: Config, topo) -> None:
    """An anynet file with uneven terminals or channels longer than a cycle runs on the booksim
    router only: the others put terminal ``t`` on router ``t // C`` and time every link alike."""
    from netsim_fast.routing.anynet_min import MAX_TABLE_ROUTERS
    from netsim_fast.topologies.anynet import is_regular

    if topo.kind == "edgelist" and cfg.router == "booksim" and topo.n_nodes > MAX_TABLE_ROUTERS:
        raise ConfigError(f"--file {cfg.file}: {topo.n_nodes} routers exceed the {MAX_TABLE_ROUTERS} of BookSim2's min "
                          f"table on the booksim router (a search per router over every router)")
    if topo.terminal_router is None or is_regular(topo) or (cfg.engine == "flit" and cfg.router == "booksim"):
        return
    raise ConfigError(f"--file {cfg.file}: its terminals are not {topo.concentration} per router in order (terminal "
                      f"t on router t // {topo.concentration}) or its channels take more than one cycle; such an "
                      f"anynet file runs on --router booksim (BookSim2's min), not on the {cfg.engine} engine's "
                      f"{'router ' + cfg.router if cfg.engine == 'flit' else 'tables'}")


def _workload(cfg: Config, topo):
    """Messages of a finite pattern and their summary fields (gossip bounds for gossip-naive)."""
    from netsim_fast.workloads.finite import build_messages

    messages, extras = build_messages(cfg, topo.n_nodes)
    if cfg.pattern == "gossip-naive":
        from netsim_fast.analytic.gossip import summary as gossip_bounds

        extras.update(gossip_bounds(cfg.dims, "gossip-naive"))
    return messages, extras


def _simulate_flit_finite(cfg: Config, topo, progress) -> dict:
    """A finite message set on the flit engine: ``--packet-flits`` flits per message."""
    from netsim_fast.workloads.finite import flit_packets, shift_phases

    messages, extras = _workload(cfg, topo)
    phase = shift_phases(messages, topo.n_nodes) if cfg.sync != "none" else None
    if "lower_bound_steps" in extras:  # a step moves one packet per link: packet_flits * t_link cycles
        extras["lower_bound_cycles"] = extras["lower_bound_steps"] * cfg.packet_flits * cfg.t_link
    try:
        summary = _simulate_flit(cfg, topo, progress, packets=flit_packets(messages, cfg.packet_flits, phase))
    except DeadlockError as exc:
        exc.summary.update(pattern=cfg.pattern, **extras)
        raise
    summary.update(engine="flit", pattern=cfg.pattern, **extras)
    if "lower_bound_cycles" in extras and summary["completion_cycles"]:
        summary["bound_fraction"] = extras["lower_bound_cycles"] / summary["completion_cycles"]
    return summary


def _simulate_flit_batch(cfg: Config, topo, progress) -> dict:
    """``--batch B``: each node's first B packets of the open-loop process, run to completion
    (BookSim2's batch mode; ``completion_cycles`` is its batch duration)."""
    from netsim_fast.topologies.base import terminal_view
    from netsim_fast.workloads.classes import packet_classes
    from netsim_fast.workloads.synthetic import batch_packets, traffic_of

    def class_of(chunk: int, count: int):
        return packet_classes(cfg, chunk, count)

    packets = batch_packets(traffic_of(cfg, terminal_view(topo)), cfg.batch, class_of if cfg.classes > 1 else None)
    try:
        summary = _simulate_flit(cfg, topo, progress, packets=packets)
    except DeadlockError as exc:
        exc.summary.update(pattern=cfg.pattern, batch=cfg.batch)
        raise
    summary.update(engine="flit", pattern=cfg.pattern, batch=cfg.batch)
    return summary


def _simulate_packet(cfg: Config, topo, progress) -> dict:
    """A finite message set on the store-and-forward packet engine, run to completion."""
    from netsim_fast.packet.results import summarize_packets, write_packet_trace
    from netsim_fast.packet.run import simulate_packets
    from netsim_fast.errors import SimulationError
    from netsim_fast.routing.tables import route_table

    messages, extras = _workload(cfg, topo)
    report = None
    if progress is not None:
        def report(cycles, delivered, packets):
            progress(delivered, packets)
    try:
        res = simulate_packets(
            topo, messages, policy=cfg.policy, path_choice=cfg.path_choice, one_port=cfg.one_port,
            queue_capacity=cfg.queue_capacity, seed=cfg.seed, deadlock_cycles=cfg.deadlock_cycles,
            max_cycles=cfg.cycles, table=route_table(topo, cfg.routing, cfg.loops), progress=report)
    except DeadlockError as exc:
        summary = summarize_packets(exc.result, cfg, topo, extras)
        summary["error"] = str(exc)
        if cfg.trace:
            write_packet_trace(cfg, exc.result, summary, topo)
        exc.summary = summary
        raise
    except SimulationError as exc:  # the --cycles limit: a partial result, as on the flit engine
        if getattr(exc, "result", None) is None:
            raise
        res = exc.result
    summary = summarize_packets(res, cfg, topo, extras)
    if cfg.trace:
        write_packet_trace(cfg, res, summary, topo)
    return summary


def _simulate_gossip(cfg: Config, topo) -> dict:
    """``gossip-ham`` / ``gossip-one``: the paper's forwarding rules, counted in steps."""
    import time

    from netsim_fast.studies.gossip import simulate_gossip
    from netsim_fast.packet.results import summarize_gossip, write_gossip_trace

    start = time.perf_counter()
    result = simulate_gossip(cfg.dims, cfg.pattern, time_independent=cfg.time_independent)
    summary = summarize_gossip(result, cfg, time.perf_counter() - start)
    if cfg.trace:
        write_gossip_trace(cfg, summary, topo)
    return summary


def _simulate_flit(cfg: Config, topo, progress, packets=None, analyse=None) -> dict:
    """Open-loop synthetic traffic (``packets`` None) or a finite packet set run to completion.

    ``analyse(run) -> dict``, when given, adds workload-specific keys to the summary (also on
    deadlock) before the trace is written."""
    from netsim_fast.analytic.capacity import uniform_capacity
    from netsim_fast.flit.results import LATENCY_WHEN_SATURATED, summarize, summarize_finite
    from netsim_fast.flit.run import run_flit
    from netsim_fast.flit.trace import write_flit_trace

    from netsim_fast.routing import TABLE_ROUTINGS
    from netsim_fast.topologies import INDIRECT_TOPOLOGIES

    table = None
    if cfg.routing in TABLE_ROUTINGS:  # built once, for the capacity bound and the engine
        from netsim_fast.routing.tables import route_table

        table = route_table(topo, cfg.routing, cfg.loops)
    elif cfg.routing == "updown":
        from netsim_fast.routing.updown import updown_table

        table = updown_table(topo)
    capacity, method = uniform_capacity(topo, cfg.t_link, table, cfg.routing)
    if topo.kind == "edgelist" and cfg.router == "booksim":  # BookSim2's min_anynet: its own table's channel loads
        from netsim_fast.analytic.capacity import min_table_capacity

        capacity, method = min_table_capacity(topo)
    elif topo.concentration > 1 and topo.kind not in INDIRECT_TOPOLOGIES:  # per terminal (a tree's, a fly's already is)
        from netsim_fast.analytic.capacity import per_terminal

        capacity = per_terminal(capacity, topo.n_nodes, topo.concentration)
    summarize_run = summarize if packets is None else summarize_finite
    try:
        run = run_flit(cfg, topo, packets=packets, progress=progress, table=table)
    except DeadlockError as exc:
        run = exc.result
        summary = summarize_run(run, cfg, capacity, method)
        summary.update(deadlock=True, error=str(exc), saturated=True)  # nothing drains after a deadlock
        for key in LATENCY_WHEN_SATURATED + ("hops_mean",):
            summary[key] = None
        if analyse is not None:
            summary.update(analyse(run))
        if cfg.trace:
            write_flit_trace(cfg, run, summary)
        exc.summary = summary
        raise
    summary = summarize_run(run, cfg, capacity, method)
    if analyse is not None:
        summary.update(analyse(run))
    if cfg.trace and run.stop_reason != "interrupted":  # a trace is of a finished run, or absent
        write_flit_trace(cfg, run, summary)
    return summary


def _simulate_total_exchange(cfg: Config, topo, progress) -> dict:
    """``random-te`` / ``shift-te`` / ``pairwise-te`` / ``indirect-te`` on the flit engine, with
    the lower bound and the steady-state metrics (analytic/total_exchange.py).

    The engine runs with the workload's ``engine_sync`` (``local`` for ``indirect-te`` under
    ``--sync none``: its row/column dependency); the trace stores the configuration as given.
    """
    from netsim_fast.flit.trace import write_flit_trace
    from netsim_fast.studies.total_exchange import total_exchange_keys, without_series
    from netsim_fast.workloads.total_exchange import build_total_exchange

    te = build_total_exchange(cfg, topo.n_nodes)
    engine_cfg = cfg.replace(sync=te.engine_sync, trace=None)
    kept = {}

    def analyse(run):
        kept["run"] = run
        return total_exchange_keys(cfg, te, run)

    try:
        summary = _simulate_flit(engine_cfg, topo, progress, packets=te.packets, analyse=analyse)
    except DeadlockError as exc:
        exc.summary.update(pattern=cfg.pattern, sync=cfg.sync)
        if cfg.trace:
            write_flit_trace(cfg, exc.result, without_series(exc.summary))
        raise
    summary.update(engine="flit", pattern=cfg.pattern)
    if cfg.trace:
        write_flit_trace(cfg, kept["run"], without_series(summary))
    return summary


def simulate_seeds(cfgs: list[Config], *, progress=None) -> dict:
    """Run each of ``cfgs`` (one configuration under several seeds) and aggregate them.

    The configurations are built and validated by the caller before any of them runs. A
    deadlock in any seed is raised at once, with that seed's summary.
    """
    summaries = [simulate(cfg, progress=progress) for cfg in cfgs]
    return aggregate_seeds(summaries, [cfg.seed for cfg in cfgs])


def aggregate_seeds(summaries: list[dict], seeds: list[int]) -> dict:
    """One summary of several seeds' runs: the mean of every number, with its 95 % confidence
    interval (Student's t, n - 1 degrees of freedom) in ``ci95`` as a half-width.

    A number that is null in some seed (a latency of a saturated run) is null; ``saturated``
    and ``deadlock`` hold if they hold in any seed, ``completed`` if in every seed; any other
    value is kept when every seed agrees and listed per seed otherwise. ``per_seed`` keeps the
    seeds' own summaries.
    """
    import math

    from scipy import stats

    n = len(summaries)
    t = float(stats.t.ppf(0.975, n - 1)) if n > 1 else math.nan
    out, ci = {}, {}
    for key in summaries[0]:
        values = [s.get(key) for s in summaries]
        if key in ("saturated", "deadlock"):
            out[key] = any(bool(v) for v in values)
        elif key == "completed":
            out[key] = all(bool(v) for v in values)
        elif key == "per_class" and all(isinstance(v, list) for v in values):  # each class as a run
            out[key] = [{**{k: v for k, v in aggregate_seeds([v[c] for v in values], seeds).items()
                            if k not in ("seed", "seed_count", "per_seed")},
                         "class": c, "priority": values[0][c]["priority"]} for c in range(len(values[0]))]
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            mean = sum(values) / n
            out[key] = mean
            if n > 1:
                sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
                ci[key] = t * sd / math.sqrt(n)
        elif any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) and None in values:
            out[key] = None
        else:
            out[key] = values[0] if all(v == values[0] for v in values) else values
    out.update(seed=seeds, seed_count=n, ci95=ci, per_seed=summaries)
    return out
