"""Same seeds, same JSON: ``run --json`` of fixed configurations against stored outputs.

The stored file ``tests/golden/run_json.json`` was written by this module
(``python tests/test_golden_json.py --write``) before the layering refactor (issue 16) and is
the yardstick of every change that must not alter results: refactors and speed work. Keys a
later change adds are allowed; every stored key must keep its value. Wall-clock keys are
left out. The configurations stay below saturation or are finite workloads that complete, so
changes that are allowed to alter saturated runs (stopping rules, allocation past saturation)
leave them alone.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "run_json.json"

# name -> ``netsim-fast run`` arguments (``--json --quiet`` are added).
RUNS = {
    "flagship_random_te": "--topology torus --k 16 --routing duato --pattern random-te",
    "torus8_dor_uniform": "--topology torus --k 8 --rate 0.2 --warmup 500 --measure 2000",
    "torus8_duato_transpose": "--topology torus --k 8 --routing duato --pattern transpose --rate 0.1 --warmup 500 --measure 2000",
    "mesh6_iq_bitcomp": "--topology mesh --k 6 --router iq --pattern bitcomp --rate 0.1 --packet-flits 4 --warmup 300 --measure 1500",
    "torus4x4x4_vct_rr": "--topology torus --dims 4,4,4 --switching vct --buf 8 --vc-alloc rr --rate 0.15 --warmup 300 --measure 1500",
    "hypercube6_hotspot": "--topology hypercube --n 6 --pattern hotspot --rate 0.05 --warmup 300 --measure 1500",
    "rrg32_minimal_cycles": "--topology rrg --nodes 32 --degree 4 --vcs 6 --rate 0.1 --cycles 2000",
    "bmg64_equiclass": "--topology bmg --nodes 64 --routing bmg-equiclass --vcs 4 --rate 0.1 --warmup 300 --measure 1500",
    "torus8_shift_te_sync": "--topology torus --k 8 --pattern shift-te --sync local --grain-bytes 64",
    "flit_random_messages": "--topology torus --k 4 --pattern random --messages 4 --packet-flits 2",
    "packet_rrg_lrpf": "--engine packet --topology rrg --nodes 64 --degree 4 --pattern random --messages 2 --policy lrpf",
    "packet_torus_te_random_path": "--engine packet --topology torus --k 6 --pattern total-exchange --path-choice random --policy srpf",
    "gossip_one_8x8": "--engine packet --topology torus --dims 8,8 --pattern gossip-one",
    "packet_debruijn_embed": "--engine packet --topology rrg --nodes 32 --degree 3 --pattern embed-debruijn --base 2",
}



def is_wall_clock(key: str) -> bool:
    """Timings (``sim_seconds``, ``flit_hops_per_second``, ...) differ from run to run."""
    return key.endswith("_seconds") or key.endswith("_per_second") or key == "peak_rss_mib"


def run_json(args: str) -> dict:
    from typer.testing import CliRunner

    from netsim_fast.cli import app

    result = CliRunner().invoke(app, ["run", *args.split(), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    return {k: v for k, v in out.items() if not is_wall_clock(k)}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_json_unchanged(name):
    stored = json.loads(GOLDEN.read_text())[name]
    now = run_json(RUNS[name])
    changed = {k: (v, now.get(k, "<missing>")) for k, v in stored.items() if now.get(k, "<missing>") != v}
    assert not changed, f"{name}: keys whose values changed (stored, now): {changed}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_golden_json.py --write  (regenerates tests/golden/run_json.json)")
    GOLDEN.write_text(json.dumps({name: run_json(args) for name, args in sorted(RUNS.items())}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
