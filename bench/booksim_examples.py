"""BookSim2's example configurations, run by BookSim2 and by ``netsim-fast run --booksim-config``.

    BOOKSIM=/path/to/booksim PYTHONPATH=. python bench/booksim_examples.py [--seeds N] [--set KEY=VALUE ...] [FILE.cfg ...]

For each file (default: the examples of BookSim2's ``src/examples`` kept in
tests/booksim_cases/) both simulators run it as it is with ``seed=1 .. N`` added (one seed by
default), and the script prints the means over the seeds of figures of BookSim2's overall block
side by side: packet latency average, accepted flit rate average and hops average (routers, as
BookSim2 counts them). A file netsim-fast refuses is listed with its one-line reason. Without
``BOOKSIM`` it says so in one line and exits 0. ``--set KEY=VALUE`` (repeatable) is passed to
both after the file, as BookSim2's command line overrides it: e.g. ``--set sim_type=throughput
--set injection_rate=0.5`` measures both past saturation.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

DEFAULT = sorted(Path(__file__).resolve().parents[1].joinpath("tests", "booksim_cases").glob("example_*.cfg"))
# both simulators run each file from its own folder: example_anynet.cfg's network_file (anynet_file,
# the network of BookSim2's src/examples/anynet) is opened from there, as BookSim2 opens it


ROOT = Path(__file__).resolve().parents[1]


def booksim(binary: str, path: Path, seed: int, overrides: list[str]) -> dict:
    # from the file's folder, where an anynet example finds its network_file, as BookSim2 opens it
    text = subprocess.run([str(Path(binary).resolve()), path.name, *overrides, f"seed={seed}"], capture_output=True,
                          text=True, cwd=path.parent).stdout  # exits 255 when done

    def last(label):
        found = re.findall(rf"{label} = ([0-9.eE+-]+|-?nan)", text)
        return float(found[-1]) if found else None

    return {"latency": last("Packet latency average"), "accepted": last("Accepted flit rate average"),
            "hops": last("Hops average")}


def netsim(path: Path, seed: int, overrides: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-m", "netsim_fast", "run", "--booksim-config", path.name, *overrides,
                          f"seed={seed}",
                          "--json", "--quiet"], capture_output=True, text=True, cwd=path.parent, env=env)
    if out.returncode != 0:
        return {"refused": out.stderr.strip().splitlines()[-1]}
    stats = json.loads(out.stdout)["booksim_stats"]
    return {"latency": stats["packet_latency"]["average"], "accepted": stats["accepted_flit_rate"]["average"],
            "hops": stats["hops_average"]}


def mean_over_seeds(run, seeds: int) -> dict:
    """The mean of each figure over seeds 1..N (a refusal is returned as it is)."""
    runs = [run(seed) for seed in range(1, seeds + 1)]
    if "refused" in runs[0]:
        return runs[0]
    return {key: None if any(r[key] is None for r in runs) else sum(r[key] for r in runs) / seeds for key in runs[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1, help="seeds 1..N in both simulators; means are printed")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a key for both simulators")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("BOOKSIM is not set: skipping the BookSim2 examples (set it to a BookSim2 binary)")
        return
    print(f"means of {args.seeds} seed(s); keys set: {' '.join(args.set) or 'none'}")
    print("| file | packet latency (BookSim2 / netsim-fast) | accepted flits | hops (routers) |")
    print("| --- | --- | --- | --- |")
    for path in [p.resolve() for p in args.files] or DEFAULT:
        n = mean_over_seeds(lambda seed: netsim(path, seed, args.set), args.seeds)
        if "refused" in n:
            print(f"| {path.name} | refused by netsim-fast: {n['refused']} | | |")
            continue
        b = mean_over_seeds(lambda seed: booksim(binary, path, seed, args.set), args.seeds)
        cells = [f"{b[k]:.4g} / {n[k]:.4g}" if b[k] is not None and n[k] is not None else "—"
                 for k in ("latency", "accepted", "hops")]
        print(f"| {path.name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
