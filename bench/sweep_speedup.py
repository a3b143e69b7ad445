"""Speed-up of one sweep on 1 vs 2 local Dask workers (and 2 worker threads), medians of trials.

The grid: 12 flit-engine runs on the 16x16 torus (paper 004's network), routings dor and duato
at six loads below saturation, 2,000 warm-up + 10,000 measured cycles each. Every trial runs the
whole sweep into a fresh folder on a fresh LocalCluster; the timed part is from the first
submission to the last row written (``SweepReport.run_seconds``: no cluster start, no warm-up);
the whole call is reported too. Trials alternate between the setups so that drift of a shared,
noisy machine spreads over all of them.

Two references put the numbers in context: the same 12 runs on a plain 2-process pool without
Dask (the most any scheduler could get here), and a pure-Python busy loop on 1 vs 2 processes
(how much parallel capacity the machine's two vCPUs really give at that moment).

    PYTHONPATH=. /work/venv/bin/python bench/sweep_speedup.py [--trials 5] [--out docs/figures]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SPEC = {
    "base": {"topology": "torus", "k": 16, "pattern": "uniform", "packet_flits": 8,
             "warmup": 2000, "measure": 10000, "drain": 4000,
             "latency_limit": 0},  # the same work per point as when this figure was first measured
    "grid": {"routing": ["dor", "duato"], "rate": [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]},
    "sweep": {"repeats": 1, "seed": 1},
}
SETUPS = [("1 process", 1, False), ("2 processes", 2, False), ("2 threads", 2, True)]
POOL = "2-process pool, no Dask"
BURN = 20_000_000


def _simulate(cfg) -> float:
    from netsim_fast import simulate

    return simulate(cfg)["sim_seconds"]


def _burn(n: int) -> float:
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i * i
    return time.perf_counter() - start


def pool_seconds(configs) -> float:
    """The runs on a plain ProcessPoolExecutor(2), kernels warmed first (reference only)."""
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_simulate, [c.replace(cycles=64) for c in configs[:2]]))
        start = time.perf_counter()
        list(pool.map(_simulate, configs))
        return time.perf_counter() - start


def burn_ratio() -> float:
    """Throughput of 2 busy processes over 1 (2.0 = two independent cores)."""
    one = _burn(BURN)
    with ProcessPoolExecutor(2) as pool:
        start = time.perf_counter()
        list(pool.map(_burn, [BURN, BURN]))
        two = time.perf_counter() - start
    return 2 * one / two


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--out", default="docs/figures")
    args = parser.parse_args()

    from netsim_fast.sweep import run_sweep, spec_from_dict

    spec = spec_from_dict(SPEC)
    configs = [spec.config_for(p, 0) for p in spec.points]
    rows = []
    for trial in range(args.trials):
        for name, workers, threads in SETUPS:
            with tempfile.TemporaryDirectory() as tmp:
                report = run_sweep(spec, tmp, workers=workers, threads=threads)
            assert report.counts == {"ok": len(spec.points)}, report.counts
            rows.append({"trial": trial, "setup": name, "run_seconds": round(report.run_seconds, 3),
                         "call_seconds": round(report.wall_seconds, 3),
                         "compile_seconds_max": round(max(w["compile_seconds"] for w in report.workers), 3)})
            print(f"trial {trial} {name:24s} runs {report.run_seconds:6.2f} s   whole call {report.wall_seconds:6.2f} s")
        seconds = pool_seconds(configs)
        rows.append({"trial": trial, "setup": POOL, "run_seconds": round(seconds, 3), "call_seconds": None,
                     "compile_seconds_max": None})
        ratio = burn_ratio()
        rows.append({"trial": trial, "setup": "busy loop, 2 vs 1 process throughput", "run_seconds": round(ratio, 3),
                     "call_seconds": None, "compile_seconds_max": None})
        print(f"trial {trial} {POOL:24s} runs {seconds:6.2f} s   (busy-loop throughput 2 vs 1 process: {ratio:.2f}x)")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "sweep_speedup.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    def median(setup, key):
        values = [r[key] for r in rows if r["setup"] == setup and r[key] is not None]
        return statistics.median(values) if values else None

    medians = {name: (median(name, "run_seconds"), median(name, "call_seconds")) for name, _, _ in SETUPS}
    medians[POOL] = (median(POOL, "run_seconds"), None)
    print(f"\nmedians of {args.trials} trials, {len(spec.points)} runs of a 16x16 torus each; speed-up = median over "
          "trials of (1 process) / (setup) within the same trial:")
    print("| setup | sweep seconds (runs only) | speed-up | whole call seconds | speed-up |")
    print("| --- | --- | --- | --- | --- |")
    ratios = {}
    for name, (run_s, call_s) in medians.items():
        ratios[name] = paired_ratio(rows, name, "run_seconds")
        call = "— | —" if call_s is None else f"{call_s:.2f} | {paired_ratio(rows, name, 'call_seconds'):.2f}x"
        print(f"| {name} | {run_s:.2f} | {ratios[name]:.2f}x | {call} |")
    print(f"busy-loop throughput of 2 processes over 1 (median): "
          f"{median('busy loop, 2 vs 1 process throughput', 'run_seconds'):.2f}x (2.00x = two free cores)")
    _figure(medians, ratios, out / "sweep_speedup.png")


def paired_ratio(rows: list[dict], setup: str, key: str) -> float:
    """Median over trials of (1 process seconds) / (setup seconds) in the same trial."""
    base = {r["trial"]: r[key] for r in rows if r["setup"] == "1 process"}
    return statistics.median(base[r["trial"]] / r[key] for r in rows if r["setup"] == setup and r[key])


def _figure(medians: dict, ratios: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(medians)
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    runs = [medians[n][0] for n in names]
    calls = [medians[n][1] or 0.0 for n in names]
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], runs, width=0.4, label="sweep (runs only)")
    ax.bar([x + 0.2 for x in xs], calls, width=0.4, label="whole call (cluster start, warm-up)")
    for x, name in zip(xs, names):
        ax.text(x - 0.2, medians[name][0], f"{ratios[name]:.2f}x", ha="center", va="bottom", fontsize="small")
    ax.set_xticks(list(xs), [n.replace(", ", "\n") for n in names], fontsize="small")
    ax.set_ylabel("seconds (median)")
    ax.set_title("12-run sweep, 16x16 torus (labels: median paired speed-up)", fontsize="medium")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
