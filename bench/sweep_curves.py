"""The README's sweep example: a latency-load curve family on the 16x16 torus, run and drawn.

Runs ``bench/sweep_curves.toml`` (dor and duato, 4- and 16-flit packets, 9 loads, 2 repeats) on
the default local cluster, writes its results table and the standard picture, and prints for
each curve the first offered rate flagged saturated (any repeat), the saturation throughput (the
highest rate below it, README "Saturation, deadlock and starvation") and the largest accepted
load (mean over repeats). Same as

    netsim-fast sweep bench/sweep_curves.toml --out OUT/sweep_curves && netsim-fast plot OUT/sweep_curves

    PYTHONPATH=. /work/venv/bin/python bench/sweep_curves.py [--out docs/figures]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

SPEC = Path(__file__).with_name("sweep_curves.toml")
KEEP = ["point_id", "repeat", "seed", "routing", "packet_flits", "rate", "offered_load", "accepted_load",
        "latency_mean", "latency_p99", "saturated", "status", "error", "sim_seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    args = parser.parse_args()

    from netsim_fast.plots import draw_sweep, save
    from netsim_fast.sweep import load_results, load_spec, run_sweep

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        report = run_sweep(load_spec(SPEC), tmp)
        frame = load_results(tmp)
    print(f"{report.computed} runs on {report.cluster}: {report.run_seconds:.1f} s of runs, "
          f"{report.wall_seconds:.1f} s in all; status counts {report.counts}")
    frame[KEEP].sort_values(["routing", "packet_flits", "rate", "repeat"]).to_csv(out / "sweep_curves.csv", index=False)
    save(draw_sweep(frame), out / "sweep_latency_load.png")

    ok = frame[frame["status"] == "ok"]
    print("| routing | packet flits | first saturated rate | saturation throughput | largest accepted load |")
    print("| --- | --- | --- | --- | --- |")
    for (routing, flits), rows in ok.groupby(["routing", "packet_flits"]):
        by_rate = rows.groupby("rate").agg(accepted=("accepted_load", "mean"), saturated=("saturated", "any"))
        first = by_rate.index[by_rate["saturated"]].min() if by_rate["saturated"].any() else None
        below = by_rate.index[by_rate.index < first] if first is not None else []
        throughput = f"{below.max():g}" if len(below) else "—"
        print(f"| {routing} | {flits} | {first if first is not None else 'none'} | {throughput} | "
              f"{by_rate['accepted'].max():.3f} |")


if __name__ == "__main__":
    main()
