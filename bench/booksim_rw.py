"""Request-reply traffic side by side with BookSim2 (``use_read_write = 1``).

    BOOKSIM=/tmp/booksim/booksim2/src/booksim PYTHONPATH=. python bench/booksim_rw.py [--seeds 3]

Two networks, each a BookSim2 configuration file read by both simulators (netsim-fast through
``run --booksim-config``, the booksim router and BookSim2's sampled measurement): the 8x8 mesh
of ``tests/booksim_cases/rw_mesh88.cfg`` (dim_order, 4 VCs, reads of 1 flit answered by 4,
writes of 4 answered by 1, requests on VCs 0-1, replies on 2-3) and the same traffic on a 4x4
torus (dim_order, 8 VCs: requests 0-3, replies 4-7, each range split at the dateline). At each
``injection_rate`` (flits of requests and replies per node per cycle) it prints and writes
(``docs/figures/booksim_rw.csv``) the packet latency average and the accepted flit rate of
both, averaged over the seeds; an unstable run (latency threshold) is marked so. Without
``BOOKSIM`` in the environment the script says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MESH = ROOT / "tests" / "booksim_cases" / "rw_mesh88.cfg"
NETWORKS = {
    "mesh8x8": ([], (0.1, 0.25, 0.4, 0.45)),
    "torus4x4": (["topology=torus", "k=4", "num_vcs=8", "read_request_end_vc=3", "write_request_end_vc=3",
                  "read_reply_begin_vc=4", "read_reply_end_vc=7", "write_reply_begin_vc=4",
                  "write_reply_end_vc=7"], (0.2, 0.5, 0.7, 0.8)),
}


def booksim(binary: str, overrides: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "run.cfg"
        cfg.write_text(MESH.read_text() + "".join(f"{o};\n" for o in overrides))
        out = subprocess.run([binary, str(cfg)], capture_output=True, text=True, timeout=1800).stdout
    if "Overall Traffic Statistics" not in out:
        return {"latency": None, "accepted": None}

    def grab(label):
        return float(re.findall(rf"{label} = ([-0-9.e+]+)", out.split("Overall Traffic Statistics")[1])[0])
    return {"latency": grab("Packet latency average"), "accepted": grab("Accepted flit rate average")}


def netsim(overrides: list[str]) -> dict:
    cmd = [sys.executable, "-m", "netsim_fast", "run", "--booksim-config", str(MESH), *overrides, "--json", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=3600)
    if not proc.stdout:
        raise RuntimeError(f"netsim-fast {' '.join(overrides)} failed (exit {proc.returncode}): {proc.stderr[-500:]}")
    out = json.loads(proc.stdout)
    stats = out["booksim_stats"]
    if out["stop_reason"] in ("latency-limit", "not-converged"):
        return {"latency": None, "accepted": None}
    return {"latency": stats["packet_latency"]["average"], "accepted": stats["accepted_flit_rate"]["average"],
            "round_trip": out["round_trip_mean"]}


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "booksim_rw.csv"))
    args = ap.parse_args(argv)
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("BOOKSIM is not set: skipping the request-reply parity bench (set it to a BookSim2 binary)")
        return 0
    rows = []
    for name, (keys, rates) in NETWORKS.items():
        for rate in rates:
            runs = {"booksim": [], "netsim": []}
            for seed in range(1, args.seeds + 1):
                overrides = [*keys, f"injection_rate={rate}", f"seed={seed}"]
                runs["booksim"].append(booksim(binary, overrides))
                runs["netsim"].append(netsim(overrides))
            row = {"network": name, "injection_rate": rate}
            for sim, got in runs.items():
                for key in ("latency", "accepted"):
                    row[f"{sim}_{key}"] = _mean([g[key] for g in got])
            row["netsim_round_trip"] = _mean([g.get("round_trip") for g in runs["netsim"]])
            rows.append(row)
            print(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
