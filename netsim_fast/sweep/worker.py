"""What runs on a Dask worker: one sweep point, or the warm-up that compiles the kernels.

These functions are shipped to workers by reference, so a worker needs ``netsim_fast``
importable (installed, or on its ``PYTHONPATH``). They never raise for a failed simulation:
the failure becomes a row with ``status`` failed or timeout and its ``error``, so one bad point
cannot stop a sweep.
"""

from __future__ import annotations

import os
import time

from netsim_fast.sweep.table import given_values, make_row

class PointTimeout(Exception):
    """A point ran past its time limit (raised from the progress callback between kernel batches)."""


class _Deadline:
    """Progress callback that stops a run ``seconds`` after ``start``.

    The engines call it between batches of cycles (1024 on the flit engine), so a point
    overruns its limit by at most one batch; the time to build the topology and workload counts.
    """

    def __init__(self, seconds: float, start: float):
        self.seconds, self.end = seconds, start + seconds

    def __call__(self, done: int, limit: int) -> None:
        if time.perf_counter() > self.end:
            raise PointTimeout(f"time limit of {self.seconds:g} s reached at cycle {done}")


def worker_name() -> str:
    """The Dask worker's address, or host:pid outside a worker."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        import socket

        return f"{socket.gethostname()}:{os.getpid()}"


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def run_point(task: dict) -> dict:
    """Simulate one (point, repeat) and return its table row (see ``table.make_row``).

    ``task`` holds ``point_id``, ``repeat``, ``config`` (a Config with its seed and, if asked,
    its trace path), ``trace`` (the path to show in the table, or None) and ``timeout`` (s or None).
    """
    from netsim_fast.experiment import simulate
    from netsim_fast.errors import DeadlockError

    cfg = task["config"]
    start = time.perf_counter()
    progress = _Deadline(task["timeout"], start) if task.get("timeout") else None
    status, error, metrics = "ok", None, {}
    try:
        metrics = simulate(cfg, progress=progress)
    except PointTimeout as exc:
        status, error = "timeout", str(exc)
    except DeadlockError as exc:
        status, error, metrics = "failed", _one_line(exc), getattr(exc, "summary", None) or {}
    except Exception as exc:  # noqa: BLE001 - any failure of one point is recorded, not raised
        status, error = "failed", _one_line(exc)
    config = given_values(cfg.to_dict(), task.get("params", {}))
    config["trace"] = task.get("trace") if cfg.trace and os.path.exists(cfg.trace) else None
    return make_row(point_id=task["point_id"], repeat=task["repeat"], config=config, metrics=metrics,
                    worker=worker_name(), wall_seconds=time.perf_counter() - start, status=status, error=error)


def warm_up(families: list[str]) -> dict:
    """Compile (or load from Numba's cache) the kernel families a sweep uses, on this worker.

    Uses ``netsim_fast.warmup.warmup``, the code behind ``netsim-fast warmup``. Returns the
    worker's name, the seconds spent (compiling, or loading the cache), the seconds per family
    and any errors (a failed warm-up only means that compiling happens in the first point).
    """
    from netsim_fast.warmup import warmup

    start = time.perf_counter()
    timings, errors = {}, []
    for family in families:
        try:
            timings.update(warmup([family]))
        except Exception as exc:  # noqa: BLE001 - reported, the sweep goes on
            errors.append(f"{family}: {_one_line(exc)}")
    return {"worker": worker_name(), "compile_seconds": sum(timings.values()), "families": timings,
            "seconds": time.perf_counter() - start, "errors": errors}


def kernel_families(configs) -> list[str]:
    """The ``netsim-fast warmup`` kernel families that running ``configs`` needs."""
    from netsim_fast.workloads.finite import FORWARDING_PATTERNS

    families = []
    for cfg in configs:
        if cfg.pattern in FORWARDING_PATTERNS:
            needed = ["gossip"]
        elif cfg.engine == "packet":
            needed = ["packet", "capacity"]
        else:
            needed = ["flit", "capacity"]
        families += [f for f in needed if f not in families]
    return families
