"""Traffic classes beside BookSim2: a 2-class configuration under ``priority = class``, per class.

    BOOKSIM=/path/to/booksim PYTHONPATH=. python bench/booksim_classes.py [--seeds N] [--rates A,B ...] [FILE.cfg]

Both simulators run the file (default tests/booksim_cases/classes_mesh44.cfg: a 4x4 mesh, 4-flit
packets, class 0 at priority 1, class 1 at priority 0) with ``injection_rate={a,b}`` for each
``--rates a,b`` (packets per node per cycle of each class) and ``seed=1 .. N``, and the script
prints per class the means over the seeds of BookSim2's packet latency average and accepted
flit rate average from each simulator's per-class blocks (``--report booksim``). A run that
either simulator declares unstable is counted and left out of the means. Without ``BOOKSIM`` it
says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "booksim_cases" / "classes_mesh44.cfg"
RATES = ("0.03,0.03", "0.06,0.06", "0.09,0.03", "0.03,0.09")


def per_class(text: str) -> list[dict] | None:
    """(packet latency, accepted flit rate) of each class block of BookSim2's overall statistics
    (the last run's), None if the run was unstable."""
    if "Simulation unstable" in text or "Overall Traffic Statistics" not in text:
        return None
    overall = text[text.rindex("Overall Traffic Statistics"):]
    blocks = overall.split("====== Traffic class ")[1:]
    return [{"latency": float(re.search(r"Packet latency average = ([0-9.eE+-]+|-?nan)", b).group(1)),
             "accepted": float(re.search(r"Accepted flit rate average = ([0-9.eE+-]+|-?nan)", b).group(1))}
            for b in blocks]


def run_booksim(binary: str, path: Path, rates: str, seed: int) -> list[dict] | None:
    out = subprocess.run([binary, str(path), f"injection_rate={{{rates}}}", f"seed={seed}"],
                         capture_output=True, text=True).stdout  # exits 255 when done
    return per_class(out)


def run_netsim(path: Path, rates: str, seed: int) -> list[dict] | None:
    out = subprocess.run([sys.executable, "-m", "netsim_fast", "run", "--booksim-config", str(path),
                          f"injection_rate={{{rates}}}", f"seed={seed}", "--report", "booksim", "--quiet"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"netsim-fast refused {path.name} at rates {rates}: {out.stderr.strip()}")
    return per_class(out.stdout)


def mean(runs: list[list[dict]], c: int, key: str) -> float:
    return sum(r[c][key] for r in runs) / len(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N in both simulators; means are printed")
    ap.add_argument("--rates", action="append", help=f"per-class injection rates a,b (default {' '.join(RATES)})")
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    args = ap.parse_args()
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("BOOKSIM is not set: skipping the BookSim2 class comparison (set it to a BookSim2 binary)")
        return
    print(f"{args.file.name}, means of {args.seeds} seeds (BookSim2 / netsim-fast)")
    print("| injection_rate | class | packet latency | accepted flits | unstable runs |")
    print("| --- | --- | --- | --- | --- |")
    for rates in args.rates or RATES:
        b = [run_booksim(binary, args.file, rates, seed) for seed in range(1, args.seeds + 1)]
        n = [run_netsim(args.file, rates, seed) for seed in range(1, args.seeds + 1)]
        unstable = f"{sum(r is None for r in b)} / {sum(r is None for r in n)}"
        b, n = [r for r in b if r], [r for r in n if r]
        for c in range(len((b or n or [[None]])[0])):
            cells = [f"{mean(b, c, k):.4g} / {mean(n, c, k):.4g}" if b and n else "—" for k in ("latency", "accepted")]
            print(f"| {{{rates}}} | {c} | " + " | ".join(cells) + f" | {unstable} |")


if __name__ == "__main__":
    main()
