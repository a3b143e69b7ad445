"""Fig. 5 of paper 004: total-exchange completion time and fraction of the bound vs grain size.

    PYTHONPATH=. /work/venv/bin/python bench/te_fig5_grain.py [--out docs/figures] [--jobs 2] [--grains 8,16,...] [--merge]

The four algorithms (random-te, shift-te, pairwise-te, indirect-te) on the 16x16 torus with
``dor`` and with ``duato``, 4-byte flits, free-running steps (``--sync none``; indirect-te
keeps its row -> column dependency), grain sizes 8 bytes .. 2 KB (the issue's "a few KB"; the
points above 256 bytes cost most of the run: ``--grains 512,1024,2048 --merge`` adds them to a
CSV that has the rest).

Packet size: the grain, i.e. one packet per ordered pair (``--packet-bytes`` = grain). Paper
004 does not state it; its Fig. 5 discussion ties the loss of the indirect algorithm to "the
larger packet size in the row exchange" and points at Fig. 5 b) for "the saturation
throughput decreases when we increase the packet size", and it proposes sweeps of a smaller
packet only as the remedy for grains above 32 bytes, all of which reads as packet = grain.
The sweeps are run as well: random-te with 32-byte packets for grains 64..2048 (``duato``).

Router: the engine's defaults (one header routed per router per cycle, paper 004 section 6),
and, for grains up to 32 bytes where that limit binds (bench/te_fig3_saturation.py), also
with unlimited routing units (``--headers-per-cycle 0``). ``duato`` injects on its adaptive
VCs only (``--inject-vcs 2,3``): the paper's Duato experiments use source throttling
(section 3) and this is the plain reading of "a subset of the adaptive channels";
te_fig6_utilisation.py reports the alternatives.

Writes te_fig5_grain.csv and .png; prints the table and what each point cost.
"""

from __future__ import annotations

import argparse
import csv
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

GRAINS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
PATTERNS = ("random-te", "shift-te", "pairwise-te", "indirect-te")
ROUTINGS = {"dor": dict(routing="dor"), "duato": dict(routing="duato", inject_vcs=(2, 3))}
UNLIMITED_HEADERS_UP_TO = 32
SWEEP_PACKET, SWEEP_GRAINS = 32, (64, 128, 256, 512, 1024, 2048)
FIELDS = ["routing", "pattern", "headers_per_cycle", "grain_bytes", "packet_bytes", "packets_per_pair",
          "completion_cycles", "lower_bound_cycles", "bound_fraction", "utilization_plateau", "steady_state_cycle",
          "steady_fluctuation", "plateau_fluctuation", "drain_cycles", "tail_cycles", "sim_seconds"]


# The engine's watchdog flags a lane that has not moved for --deadlock-cycles (default 10000).
# Worms of 64..512 flits in a backlogged network wait longer than that without deadlock
# (dor, 256-byte grains: stalls past 10000 cycles, yet the run completes with 200000); the
# stall grows with the worm, so the 2 KB grains get a watchdog well past it.
WATCHDOG = 1_000_000

def point(job):
    from netsim_fast import simulate
    from netsim_fast.config import Config

    routing, pattern, headers, grain, packet, k = job
    start = time.perf_counter()
    s = simulate(Config(topology="torus", k=k, deadlock_cycles=WATCHDOG,
                        pattern=pattern, grain_bytes=grain, packet_bytes=packet, flit_bytes=4,
                        headers_per_cycle=headers, seed=1, **ROUTINGS[routing]))
    row = {key: s.get(key) for key in FIELDS}
    row.update(routing=routing, pattern=pattern, headers_per_cycle=headers, sim_seconds=round(time.perf_counter() - start, 1))
    for key in ("bound_fraction", "utilization_plateau", "steady_fluctuation", "plateau_fluctuation"):
        row[key] = None if row[key] is None else round(row[key], 4)
    return row


def jobs_for(grains, k):
    jobs = [(r, p, 1, g, g, k) for r in ROUTINGS for p in PATTERNS for g in grains]
    jobs += [(r, p, 0, g, g, k) for r in ROUTINGS for p in PATTERNS for g in grains if g <= UNLIMITED_HEADERS_UP_TO]
    jobs += [("duato", "random-te", 1, g, SWEEP_PACKET, k) for g in SWEEP_GRAINS if g in grains]
    return sorted(jobs, key=lambda j: -j[3])  # longest first: the pool stays busy to the end


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--k", type=int, default=16, help="torus radix (16: the paper's 16x16; smaller for a smoke test)")
    ap.add_argument("--grains", default=",".join(map(str, GRAINS)))
    ap.add_argument("--plot-only", action="store_true", help="redraw the PNG from the CSV in --out")
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of the CSV in --out whose grain is not rerun, and plot them all")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    grains = tuple(int(g) for g in args.grains.split(","))
    if args.plot_only:
        _plot(_read(out / "te_fig5_grain.csv"), grains, args.k, out / "te_fig5_grain.png")
        return
    start = time.perf_counter()
    rows = []  # the runs of this invocation; --merge adds the kept rows after the summary line
    with ProcessPoolExecutor(args.jobs) as pool:
        for row in pool.map(point, jobs_for(grains, args.k)):
            rows.append(row)
            print(f"  {row['routing']:<5} h{row['headers_per_cycle']} {row['pattern']:<11} m={row['grain_bytes']:>4} "
                  f"p={row['packet_bytes']:>4}: {row['completion_cycles']:>7} cycles, {row['bound_fraction']:.3f} of bound "
                  f"({row['sim_seconds']} s)", flush=True)
    total = sum(r["sim_seconds"] for r in rows)
    print(f"\n{len(rows)} runs, {total:.0f} s of runs in {time.perf_counter() - start:.0f} s wall; "
          f"{sum(r['completion_cycles'] for r in rows) / total:.0f} simulated cycles per second per run")
    if args.merge and (out / "te_fig5_grain.csv").exists():
        kept = [r for r in _read(out / "te_fig5_grain.csv") if r["grain_bytes"] not in grains]
        rows += [{key: r[key] for key in FIELDS} for r in kept]
        grains = tuple(sorted({r["grain_bytes"] for r in rows}))
    rows.sort(key=lambda r: (r["routing"], r["headers_per_cycle"], r["pattern"], r["packet_bytes"] != r["grain_bytes"],
                             r["grain_bytes"]))
    with open(out / "te_fig5_grain.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    _plot(rows, grains, args.k, out / "te_fig5_grain.png")
    for routing in ROUTINGS:
        for headers in (1, 0):
            mine = [r for r in rows if r["routing"] == routing and r["headers_per_cycle"] == headers
                    and r["packet_bytes"] == r["grain_bytes"]]
            if not mine:
                continue
            shown = sorted({r["grain_bytes"] for r in mine})
            print(f"\n{routing}, {'unlimited' if headers == 0 else 'one'} routing unit(s), packet = grain: "
                  "fraction of the lower bound")
            print("| algorithm | " + " | ".join(f"{g} B" for g in shown) + " |")
            print("|---" * (len(shown) + 1) + "|")
            for pattern in PATTERNS:
                cells = {r["grain_bytes"]: f"{r['bound_fraction']:.2f}" for r in mine if r["pattern"] == pattern}
                print(f"| {pattern} | " + " | ".join(cells.get(g, "") for g in shown) + " |")
    sweeps = [r for r in rows if r["packet_bytes"] != r["grain_bytes"]]
    if sweeps:
        print("\nrandom-te, duato, sweeps of 32-byte packets: " +
              ", ".join(f"{r['grain_bytes']} B -> {r['bound_fraction']:.2f}" for r in sweeps))


def _read(path):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for key, text in r.items():
            if key not in ("routing", "pattern"):
                r[key] = None if text == "" else float(text) if "." in text else int(text)
    return rows


def _plot(rows, grains, k, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8.5))
    colours = dict(zip(PATTERNS, ("tab:red", "tab:blue", "tab:green", "tab:orange")))
    for col, routing in enumerate(ROUTINGS):
        time_ax, frac_ax = axes[0, col], axes[1, col]
        for pattern in PATTERNS:
            for headers, style in ((1, "-"), (0, ":")):
                mine = [r for r in rows if r["routing"] == routing and r["pattern"] == pattern
                        and r["headers_per_cycle"] == headers and r["packet_bytes"] == r["grain_bytes"]]
                if not mine:
                    continue
                label = pattern if headers == 1 else f"{pattern}, unlimited routing units"
                x = [r["grain_bytes"] for r in mine]
                time_ax.plot(x, [r["completion_cycles"] for r in mine], style, marker="o", ms=4,
                             color=colours[pattern], label=label)
                frac_ax.plot(x, [r["bound_fraction"] for r in mine], style, marker="o", ms=4, color=colours[pattern],
                             label=label)
        bound = sorted({(r["grain_bytes"], r["lower_bound_cycles"]) for r in rows if r["packet_bytes"] == r["grain_bytes"]})
        time_ax.plot([b[0] for b in bound], [b[1] for b in bound], "k--", label="lower bound (bisection)")
        sweeps = [r for r in rows if r["routing"] == routing and r["packet_bytes"] != r["grain_bytes"]]
        if sweeps:
            x = [r["grain_bytes"] for r in sweeps]
            time_ax.plot(x, [r["completion_cycles"] for r in sweeps], "s--", color="tab:purple", ms=4,
                         label="random-te, sweeps of 32-byte packets")
            frac_ax.plot(x, [r["bound_fraction"] for r in sweeps], "s--", color="tab:purple", ms=4,
                         label="random-te, sweeps of 32-byte packets")
        for ax in (time_ax, frac_ax):
            ax.set_xscale("log", base=2)
            ax.set_xticks(grains, [str(g) for g in grains])
            ax.grid(alpha=0.3)
        time_ax.set_yscale("log")
        time_ax.set_ylabel("completion (cycles)")
        time_ax.set_title(f"{routing}{' (inject on VCs 2,3)' if routing == 'duato' else ''}: completion time")
        frac_ax.set_ylim(0, 1)
        frac_ax.set_ylabel("lower bound / completion")
        frac_ax.set_xlabel("grain size m (bytes); packet = grain")
        frac_ax.set_title(f"{routing}: fraction of the bound")
    handles, labels = axes[0, 1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(f"Total exchange on the {k}x{k} torus (paper 004, Fig. 5)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
