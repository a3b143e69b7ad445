"""Run a ``SweepSpec`` on Dask and write its results table as runs finish.

Where it runs. With no scheduler address, a ``LocalCluster`` of one single-threaded worker
process per core (``dask.system.CPU_COUNT``), or worker threads with ``threads=True`` (the
kernels release the GIL). An address (``scheduler=``, else the environment variable
``NETSIM_FAST_SCHEDULER``, else Dask's ``scheduler-address`` config, which ``DASK_SCHEDULER_ADDRESS``
also sets) sends the same sweep to an existing cluster; its workers need ``netsim_fast``
importable and, for traces, the output folder on a shared filesystem.

Compile once. Before the sweep, one worker runs ``netsim_fast.warmup`` for the kernel families
the sweep uses (flit, packet, gossip, capacity), which compiles them into Numba's on-disk cache
(``__pycache__`` beside the sources, or ``NUMBA_CACHE_DIR``); the other workers then do the same
and load the cache when they share the filesystem. Each worker's seconds go into the report.

Resume. ``sweep.json`` beside the table stores the spec and its fingerprint; ``resume=True``
refuses a folder made by another spec and computes only the (point, repeat) rows the table lacks
(failed and timed-out rows too with ``retry_failed``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from netsim_fast.errors import ConfigError
from netsim_fast.sweep.spec import SweepSpec
from netsim_fast.sweep.table import META_NAME, RESULTS_NAME, ResultsWriter, load_results, read_rows
from netsim_fast.sweep.worker import kernel_families, run_point, warm_up

ENV_SCHEDULER = "NETSIM_FAST_SCHEDULER"
TRACES_DIR = "traces"
FORMATS = ("csv", "parquet")


@dataclass
class SweepReport:
    """What a sweep call did. ``counts`` covers the whole table, the other numbers this call."""

    out_dir: Path
    results_path: Path
    total: int
    skipped: int
    computed: int
    counts: dict
    failures: list = field(default_factory=list)
    workers: list = field(default_factory=list)
    cluster: str = ""
    wall_seconds: float = 0.0
    run_seconds: float = 0.0


def find_scheduler(scheduler: str | None = None) -> str | None:
    """The scheduler address to use: the argument, ``NETSIM_FAST_SCHEDULER``, or Dask config."""
    if scheduler:
        return scheduler
    if os.environ.get(ENV_SCHEDULER):
        return os.environ[ENV_SCHEDULER]
    import dask

    return dask.config.get("scheduler-address", None)


@contextlib.contextmanager
def dask_client(*, workers: int | None = None, threads: bool = False, scheduler: str | None = None):
    """Yield ``(client, description)``: an existing cluster's client, or a fresh LocalCluster's."""
    from distributed import Client, LocalCluster

    address = find_scheduler(scheduler)
    if address:
        check_options(workers=workers, threads=threads, scheduler=scheduler)
        try:
            client = Client(address, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(f"--scheduler {address}: no Dask scheduler answered ({exc})") from None
        with client:
            yield client, f"Dask cluster at {address}"
        return
    from dask.system import CPU_COUNT

    n = CPU_COUNT if workers is None else workers
    _check_workers(n)
    # CRITICAL: a heartbeat racing the shutdown logs a harmless ERROR; a run's failure lands in the table.
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=not threads, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        yield client, f"local cluster, {n} worker {'thread' if threads else 'process'}(es)"


MAX_WORKERS = 1024


def _check_workers(workers) -> None:
    from netsim_fast.checks import require_int

    require_int("workers", workers, 1, MAX_WORKERS, " workers")


def check_options(*, timeout=None, fmt: str = "csv", workers=None, threads: bool = False,
                  scheduler: str | None = None, own_cluster: bool = True) -> None:
    """The execution options of a sweep, checked before anything runs or is written
    (``own_cluster=False``: a client is given, so no cluster is made or looked up)."""
    from netsim_fast.checks import require_finite, unknown_choice

    _check_workers(workers)
    require_finite("timeout", timeout, 0, low_open=True, what=" (seconds per point; omit it for no limit)")
    if fmt not in FORMATS:
        raise unknown_choice("format", fmt, FORMATS)
    if fmt == "parquet":
        import importlib.util

        if not (importlib.util.find_spec("pyarrow") or importlib.util.find_spec("fastparquet")):
            raise ConfigError("--format parquet needs pyarrow or fastparquet installed (pip install pyarrow); "
                              "use --format csv")
    if not own_cluster:
        return
    if scheduler is not None and not str(scheduler).strip():
        raise ConfigError("--scheduler '': expected the address of a Dask scheduler, e.g. tcp://host:8786")
    address = find_scheduler(scheduler)
    if address and (workers is not None or threads):
        raise ConfigError(f"--workers/--threads size a local cluster; the cluster at {address} "
                          "(--scheduler, NETSIM_FAST_SCHEDULER or Dask config) has its own workers")


def _prior_rows(spec: SweepSpec, out: Path, resume: bool, retry_failed: bool) -> tuple[list[str], list[dict]]:
    """Header and rows already in the table that this call keeps; refuses foreign folders."""
    results, meta = out / RESULTS_NAME, out / META_NAME
    header, rows, _ = read_rows(results)
    if not rows:
        return [], []  # nothing computed yet: whatever made the folder, start afresh
    if not resume:
        raise ConfigError(f"--out {out}: it already holds {RESULTS_NAME} ({len(rows)} rows); pass --resume to "
                          "complete that sweep, or choose another --out")
    try:
        stored = json.loads(meta.read_text(encoding="utf-8"))["fingerprint"]
    except (OSError, ValueError, KeyError):
        raise ConfigError(f"--resume: {out} has {RESULTS_NAME} but no readable {META_NAME}, so it cannot be "
                          "checked against this spec; choose another --out") from None
    if stored != spec.fingerprint:
        raise ConfigError(f"--resume: {out} holds a sweep of another spec (fingerprint {stored}, this spec "
                          f"{spec.fingerprint}); rerun with the spec that made it or choose another --out")
    if retry_failed:
        rows = [r for r in rows if r.get("status") == "ok"]
    return header, rows


def remove_stale_temporaries(out: Path) -> None:
    """Delete the temporary files of writers that were killed (``kill -9`` between writing a
    temporary and renaming it over ``results.csv`` or ``sweep.json``); a live sweep of the same
    folder is not supported, so every such file is stale."""
    for pattern in (f".{RESULTS_NAME}.*.tmp", f".{META_NAME}.tmp"):
        for path in out.glob(pattern):
            with contextlib.suppress(OSError):
                path.unlink()


def _write_meta(spec: SweepSpec, out: Path) -> None:
    from netsim_fast._version import __version__

    meta = {"fingerprint": spec.fingerprint, "netsim_fast_version": __version__, "points": len(spec.points),
            "repeats": spec.repeats, "seed": spec.seed, "graph_seed": spec.graph_seed,
            "seeds": [spec.seed_of(r) for r in range(spec.repeats)], "spec": spec.tables}
    tmp = out / f".{META_NAME}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, out / META_NAME)


def _tasks(spec: SweepSpec, todo, out: Path, traces: bool, timeout) -> list[dict]:
    if traces:
        (out / TRACES_DIR).mkdir(exist_ok=True)
    tasks = []
    for point, repeat in todo:
        cfg = spec.config_for(point, repeat)
        rel = f"{TRACES_DIR}/{point.point_id}-r{repeat}.h5" if traces else None
        if rel is not None:
            cfg = cfg.replace(trace=str((out / rel).resolve()))
        tasks.append({"point_id": point.point_id, "repeat": repeat, "config": cfg, "trace": rel, "timeout": timeout,
                      "params": point.params})
    return tasks


def _lost_row(task: dict, exc) -> dict:
    """The row of a task Dask could not run (worker lost, cancelled): failed, with the reason."""
    from netsim_fast.sweep.table import given_values, make_row

    cfg = given_values(task["config"].to_dict(), task.get("params", {}))
    cfg["trace"] = None
    return make_row(point_id=task["point_id"], repeat=task["repeat"], config=cfg, metrics={}, worker="",
                    wall_seconds=None, status="failed", error=" ".join(f"{type(exc).__name__}: {exc}".split()))


def _warm_up(client, families: list[str], notify) -> list[dict]:
    """Warm up one worker (it compiles and fills the cache), then all the others at once."""
    if not families:
        return []
    client.wait_for_workers(1)
    addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])
    token = uuid.uuid4().hex[:8]

    def submit(address):
        return client.submit(warm_up, families, workers=[address], allow_other_workers=False, pure=False,
                             key=f"netsim-warmup-{address}-{token}")

    if notify:
        notify(f"warming up {len(addresses)} worker(s): compiling the kernels once")
    reports = [submit(addresses[0]).result()]
    reports += client.gather([submit(a) for a in addresses[1:]])
    return reports


def run_sweep(spec: SweepSpec, out_dir, *, client=None, workers: int | None = None, threads: bool = False,
              scheduler: str | None = None, resume: bool = False, retry_failed: bool = False,
              timeout: float | None = None, traces: bool = False, fmt: str = "csv",
              progress=None, notify=None) -> SweepReport:
    """Run every (point, repeat) of ``spec`` not yet in ``out_dir/results.csv``; return a report.

    Parameters
    ----------
    client : distributed.Client, optional
        Use this client (tests, notebooks); otherwise one is made from ``workers``/``threads``/``scheduler``.
    timeout : float, optional
        Seconds per point; a point still running then is stopped and recorded with status timeout.
    progress : callable, optional
        ``progress(done, failed, total)`` after every row written by this call.
    notify : callable, optional
        ``notify(message)`` for stage messages (warm-up); the library itself never prints.
    """
    from netsim_fast.checks import check_writable_folder

    started = time.perf_counter()
    check_options(timeout=timeout, fmt=fmt, workers=workers, threads=threads, scheduler=scheduler,
                  own_cluster=client is None)
    out = Path(check_writable_folder("out", out_dir))
    header, rows = _prior_rows(spec, out, resume, retry_failed)  # reads only
    done = {(r["point_id"], int(r["repeat"])) for r in rows}
    todo = [(p, r) for p, r in spec.tasks() if (p.point_id, r) not in done]
    total = spec.repeats * len(spec.points)
    report = SweepReport(out_dir=out, results_path=out / RESULTS_NAME, total=total, skipped=total - len(todo),
                         computed=0, counts={})
    if not todo:
        owned = contextlib.nullcontext((None, ""))
    elif client is not None:
        owned = contextlib.nullcontext((client, "the given Dask client"))
    else:  # connected before anything is written: an unreachable scheduler leaves no folder behind
        owned = dask_client(workers=workers, threads=threads, scheduler=scheduler)
    with owned as (dask, description):
        out.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(out)
        _write_meta(spec, out)
        with ResultsWriter(report.results_path, rows=rows, columns=header or None) as writer:
            if todo:
                tasks = _tasks(spec, todo, out, traces, timeout)
                report.cluster = description
                report.workers = _warm_up(dask, kernel_families(t["config"] for t in tasks), notify)
                run_start = time.perf_counter()
                _execute(dask, tasks, writer, report, progress)
                report.run_seconds = time.perf_counter() - run_start
    _, all_rows, _ = read_rows(report.results_path)
    report.counts = dict(Counter(r.get("status") for r in all_rows))
    if fmt == "parquet":
        load_results(report.results_path).to_parquet(out / "results.parquet")
    report.wall_seconds = time.perf_counter() - started
    return report


def _execute(client, tasks: list[dict], writer: ResultsWriter, report: SweepReport, progress) -> None:
    """Submit every task and write each row the moment its future completes (any order)."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:8]
    keys = [f"netsim-{t['point_id']}-r{t['repeat']}-{token}" for t in tasks]
    by_key = dict(zip(keys, tasks))
    futures = client.map(run_point, tasks, key=keys, pure=False)
    failed = 0
    if progress is not None:
        progress(0, 0, len(tasks))
    try:
        for future in as_completed(futures):
            task = by_key[future.key]
            if future.status == "finished":
                row = future.result()
            else:
                try:
                    exc = future.exception()
                except BaseException as lost:  # noqa: BLE001 - cancelled futures raise here
                    exc = lost
                row = _lost_row(task, exc)
            future.release()
            writer.write(row)
            report.computed += 1
            if row["status"] != "ok":
                failed += 1
                report.failures.append({k: row[k] for k in ("point_id", "repeat", "status", "error")})
            if progress is not None:
                progress(report.computed, failed, len(tasks))
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
