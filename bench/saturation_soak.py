"""Soak at offered load 1.0: no false deadlock, no starvation, every node served, prone set-ups caught.

    PYTHONPATH=. python bench/saturation_soak.py            # short mode: 10^5 cycles per set-up
    PYTHONPATH=. python bench/saturation_soak.py --full     # 10^6 cycles per set-up (about 2 h on 2 cores)
    PYTHONPATH=. python bench/saturation_soak.py --only 3   # the first 3 set-ups (a smoke test)
    PYTHONPATH=. python bench/saturation_soak.py --extra --full  # the newer networks and routings

Uniform traffic at offered load 1.0 flit/node/cycle, ``--cycles N`` (no latency limit), the
default ``--deadlock-cycles 10000``, backlogged sources (``--source-queue 16``: a node keeps 16
packets waiting and drops what arrives beyond, so state stays bounded; finished packets are
retired from the live arrays, flit/retire.py). Each set-up runs in a fresh process, so its
``peak_rss_mib`` is its own. The set-ups are a pairwise covering set (every pair of
values of any two factors appears in some set-up, built greedily from a fixed seed) over:
topology (8x8 and 16x16 tori and meshes, a 4x4x4 torus), routing (dor with 2 and 4 VCs, duato
with 3 and 4, table ``minimal`` on meshes with the VCs it needs), router (lanes, iq), switching
(wormhole, vct with buffers of at least a packet), ``--vc-alloc`` (age, rr), ``--t-routing``
(1, 3), ``--headers-per-cycle`` (0, 1) and packet size (1, 4, 16 flits).

For each: accepted load, per-node minimum and maximum, Jain's index, the longest wait and the
verdict (``ok``; ``starvation`` when a channel waited past the limit without a knot; ``FALSE
DEADLOCK`` would be a bug). Deadlock-prone set-ups (``dor-nodateline`` on tori) must be
reported, with their knot, within 2 x ``--deadlock-cycles`` of the knot's last move.

``--extra`` runs instead the set-ups of the newer topologies and routings (``EXTRA``: Kim et
al.'s 72-terminal dragonfly under each of its routings, concentrated meshes and tori, a HyperX)
with the same rules; ``--trees`` those of the fat trees and up*/down* (``TREES``: k-ary n-trees
and a Clos under each up-port choice, up*/down* on a random regular graph with one VC and on a
torus with failed links, BookSim2's fattree on the booksim router); ``--adaptive`` those of
``dim-adaptive`` and ``min-adaptive`` (``ADAPTIVE``: HyperX with parallel links and 1 or 2 VCs,
a 3-D HyperX under vct, a flattened butterfly); ``--flies`` those of the butterfly (``FLIES``: a
4-ary 3-fly with one VC, a 2-ary 6-fly on iq, BookSim2's dest_tag on the booksim router).

Writes docs/figures/saturation_soak_short.csv or _full.csv (``saturation_soak_extra_*.csv`` with
``--extra``, ``saturation_soak_trees_*.csv`` with ``--trees``, ``saturation_soak_adaptive_*.csv``
with ``--adaptive``, ``saturation_soak_flies_*.csv`` with ``--flies``; or ``--out``) and prints a
markdown table.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

FACTORS = {
    "topology": ["torus8", "torus16", "mesh8", "mesh16", "torus4x4x4"],
    "routing": ["dor2", "dor4", "duato3", "duato4", "minimal"],
    "router": ["lanes", "iq"],
    "switching": ["wormhole", "vct"],
    "vc_alloc": ["age", "rr"],
    "t_routing": [1, 3],
    "headers_per_cycle": [0, 1],
    "packet_flits": [1, 4, 16],
}
TOPOLOGIES = {"torus8": ("torus", "8,8"), "torus16": ("torus", "16,16"), "mesh8": ("mesh", "8,8"),
              "mesh16": ("mesh", "16,16"), "torus4x4x4": ("torus", "4,4,4")}
MINIMAL_VCS = {"mesh8": 14, "mesh16": 30}  # one VC class per hop: the diameter
DEADLOCK_CYCLES = 10_000
# Backlogged sources: a node's queue holds this many packets and drops what arrives beyond
# (--source-queue), so 10^6 saturated cycles keep bounded state; a queue this deep never empties
# at offered load 1.0, so the network sees the same load as with an unbounded queue.
SOURCE_QUEUE = 16
JAIN_AGE = 0.9  # fairness required with --vc-alloc age
PRONE = [  # deadlock-prone: dimension order without datelines on tori
    {"name": "prone: torus8 dor-nodateline lanes", "topology": "torus8", "routing": "dor-nodateline", "router": "lanes"},
    {"name": "prone: torus8 dor-nodateline iq", "topology": "torus8", "routing": "dor-nodateline", "router": "iq"},
    {"name": "prone: ring16 dor-nodateline lanes", "topology": "ring16", "routing": "dor-nodateline", "router": "lanes"},
]
DRAGONFLY = dict(topology="dragonfly", group_routers=4, global_links=2, concentration=2, vcs=6)
EXTRA = [  # explicit Config fields: the newer networks and routings (docs/topologies.md)
    *({"name": f"dragonfly P2 A4 H2 {r} lanes", "fields": dict(DRAGONFLY, routing=r)}
      for r in ("minimal", "valiant", "ugal-l", "ugal-g")),
    {"name": "dragonfly P2 A4 H2 ugal-l iq", "fields": dict(DRAGONFLY, routing="ugal-l", router="iq")},
    {"name": "mesh8 C4 dor lanes", "fields": dict(topology="mesh", dims="8,8", concentration=4, routing="dor", vcs=2)},
    {"name": "torus8 C2 duato iq", "fields": dict(topology="torus", dims="8,8", concentration=2, routing="duato",
                                                  vcs=3, router="iq")},
    {"name": "hyperx 4,4 C2 minimal lanes", "fields": dict(topology="hyperx", dims="4,4", concentration=2,
                                                           routing="minimal", vcs=2)},
]
TREES = [  # fat trees and up*/down* (--trees): the terminals on the leaves, every VC at every hop
    {"name": "fattree 4-ary 3-tree updown random lanes", "fields": dict(topology="fattree", k=4, n=3, vcs=2)},
    {"name": "fattree 4-ary 3-tree updown dest-mod-k iq", "fields": dict(topology="fattree", k=4, n=3, vcs=2,
                                                                         up_port="dest-mod-k", router="iq")},
    {"name": "clos K=8 updown adaptive lanes", "fields": dict(topology="clos", switch_ports=8, vcs=2,
                                                              up_port="adaptive")},
    {"name": "rrg 32x4 updown 1 VC lanes", "fields": dict(topology="rrg", nodes=32, degree=4, routing="updown", vcs=1)},
    {"name": "torus8 4 failed links updown iq", "fields": dict(topology="torus", dims="8,8", routing="updown", vcs=2,
                                                               router="iq", link_failures=4)},
    {"name": "fattree 4-ary 3-tree nca booksim", "fields": dict(topology="fattree", k=4, n=3, vcs=2, router="booksim")},
]
ADAPTIVE = [  # minimal adaptive routing on the Hamming graphs (--adaptive; routing/hamming_adaptive.py)
    {"name": "hyperx 4,4 W2,2 C2 dim-adaptive 1 VC lanes",
     "fields": dict(topology="hyperx", dims="4,4", widths="2,2", concentration=2, routing="dim-adaptive", vcs=1)},
    {"name": "hyperx 4,4 W2,2 C2 min-adaptive iq",
     "fields": dict(topology="hyperx", dims="4,4", widths="2,2", concentration=2, routing="min-adaptive", vcs=2,
                    router="iq")},
    {"name": "hyperx 4,4,4 min-adaptive vct rr lanes",
     "fields": dict(topology="hyperx", dims="4,4,4", routing="min-adaptive", vcs=3, switching="vct", vc_alloc="rr")},
    {"name": "flatfly 4x4 C4 dim-adaptive 2 VCs lanes",
     "fields": dict(topology="flatfly", k=4, n=2, concentration=4, routing="dim-adaptive", vcs=2)},
]
FLIES = [  # the butterfly (--flies): destination-tag routing, every VC at every hop, one path per pair
    {"name": "fly 4-ary 3-fly minimal 1 VC lanes", "fields": dict(topology="fly", k=4, n=3, vcs=1)},
    {"name": "fly 2-ary 6-fly minimal iq", "fields": dict(topology="fly", k=2, n=6, vcs=2, router="iq")},
    {"name": "fly 4-ary 3-fly dest_tag booksim", "fields": dict(topology="fly", k=4, n=3, vcs=2, router="booksim")},
]
FIELDS = ["name", "cycles", "accepted_load", "accepted_min", "accepted_max", "fairness_jain", "starvation_max_wait",
          "starved_channels", "deadlock", "knot_channels", "detected_after_last_move", "verdict", "sim_seconds",
          "peak_rss_mib"]


def valid(setup: dict) -> bool:
    if setup["routing"] == "minimal" and not setup["topology"].startswith("mesh"):
        return False  # table minimal routing on tori is covered by the BMG and RRG tests
    return True


def covering_set(seed: int = 14) -> list[dict]:
    """A pairwise covering set of FACTORS under ``valid``, greedy over random candidates."""
    rng = random.Random(seed)
    names = list(FACTORS)
    uncovered = set()
    for (a, b) in itertools.combinations(names, 2):
        for va in FACTORS[a]:
            for vb in FACTORS[b]:
                probe = {a: va, b: vb}
                if a == "routing" and va == "minimal" and b == "topology" and not vb.startswith("mesh"):
                    continue
                if b == "routing" and vb == "minimal" and a == "topology" and not va.startswith("mesh"):
                    continue
                uncovered.add(tuple(sorted(probe.items())))
    setups = []
    while uncovered:
        best, best_gain = None, -1
        for _ in range(400):
            cand = {k: rng.choice(v) for k, v in FACTORS.items()}
            if not valid(cand):
                continue
            gain = sum(1 for (a, b) in itertools.combinations(names, 2)
                       if tuple(sorted({a: cand[a], b: cand[b]}.items())) in uncovered)
            if gain > best_gain:
                best, best_gain = cand, gain
        if best_gain <= 0:
            break
        for (a, b) in itertools.combinations(names, 2):
            uncovered.discard(tuple(sorted({a: best[a], b: best[b]}.items())))
        setups.append(best)
    for s in setups:
        s["name"] = " ".join(str(s[k]) for k in names)
    return setups


def config(setup: dict, cycles: int):
    from netsim_fast.config import Config

    soak_load = dict(pattern="uniform", rate=1.0, cycles=cycles, deadlock_cycles=DEADLOCK_CYCLES,
                     source_queue=SOURCE_QUEUE, seed=1)
    if "fields" in setup:
        return Config(**{"packet_flits": 4, **setup["fields"]}, **soak_load)
    if setup["topology"] == "ring16":
        kind, dims = "torus", "16"
    else:
        kind, dims = TOPOLOGIES[setup["topology"]]
    routing = setup["routing"]
    vcs = {"dor2": 2, "dor4": 4, "duato3": 3, "duato4": 4}.get(routing, 2)
    if routing == "minimal":
        vcs = MINIMAL_VCS[setup["topology"]]
    flits = setup.get("packet_flits", 8)
    switching = setup.get("switching", "wormhole")
    return Config(topology=kind, dims=dims, routing=routing.rstrip("234") if routing[-1].isdigit() else routing,
                  vcs=vcs, router=setup.get("router", "lanes"), switching=switching,
                  buf=max(8, flits) if switching == "vct" else 8, vc_alloc=setup.get("vc_alloc", "age"),
                  t_routing=setup.get("t_routing", 1), headers_per_cycle=setup.get("headers_per_cycle", 1),
                  packet_flits=flits, **soak_load)


def soak(job) -> dict:
    from netsim_fast.errors import DeadlockError
    from netsim_fast.experiment import simulate

    from netsim_fast.errors import ConfigError

    setup, cycles, prone = job
    start = time.perf_counter()
    try:
        s = simulate(config(setup, cycles))
    except DeadlockError as exc:
        s = exc.summary
    except ConfigError as exc:  # refused before it starts, e.g. more memory than the machine has
        return {"name": setup["name"], "cycles": 0, "verdict": f"not run: {exc}", "sim_seconds": 0,
                **{k: None for k in FIELDS if k not in ("name", "cycles", "verdict", "sim_seconds")}}
    row = {"name": setup["name"], "cycles": s["cycles"], "deadlock": bool(s["deadlock"]),
           "knot_channels": len(s.get("deadlock_cycle") or []),
           "starved_channels": s.get("starved_channel_count") or 0,
           "sim_seconds": round(time.perf_counter() - start, 1)}
    row["peak_rss_mib"] = s.get("peak_rss_mib")
    for key in ("accepted_load", "accepted_min", "accepted_max", "fairness_jain", "starvation_max_wait"):
        value = s.get(key)
        row[key] = round(value, 4) if isinstance(value, float) else value
    if s["deadlock"] and s.get("deadlock_last_move") is not None:
        row["detected_after_last_move"] = s["cycles"] - 1 - s["deadlock_last_move"]
    if prone:
        in_time = row.get("detected_after_last_move") is not None and row["detected_after_last_move"] <= 2 * DEADLOCK_CYCLES
        row["verdict"] = "caught" if s["deadlock"] and row["knot_channels"] and in_time else "MISSED"
    elif s["deadlock"]:
        row["verdict"] = "FALSE DEADLOCK"
    elif row["starved_channels"]:
        row["verdict"] = "starvation"
    elif not (s.get("accepted_min") or 0) > 0:
        row["verdict"] = "a node accepted nothing"
    elif setup.get("vc_alloc", "age") == "age" and (s.get("fairness_jain") or 0) < JAIN_AGE:
        row["verdict"] = f"unfair (Jain < {JAIN_AGE})"
    else:
        row["verdict"] = "ok"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="10^6 cycles per set-up (default 10^5)")
    ap.add_argument("--cycles", type=int, default=None, help="cycles per set-up (overrides --full)")
    ap.add_argument("--only", type=int, default=None, help="run only the first N covering set-ups (and the prone ones)")
    ap.add_argument("--rerun-refused", action="store_true",
                    help="run only the set-ups the existing CSV of this mode lists as 'not run', and update their rows")
    ap.add_argument("--extra", action="store_true", help="the newer topologies and routings (EXTRA) instead")
    ap.add_argument("--trees", action="store_true", help="fat trees and up*/down* (TREES) instead")
    ap.add_argument("--adaptive", action="store_true", help="dim-adaptive and min-adaptive (ADAPTIVE) instead")
    ap.add_argument("--flies", action="store_true", help="the butterfly (FLIES) instead")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()
    cycles = args.cycles or (1_000_000 if args.full else 100_000)
    setups = covering_set()
    if args.only is not None:
        setups = setups[: args.only]
    jobs = [(s, cycles, False) for s in setups] + [(p, cycles, True) for p in PRONE]
    own = "trees" if args.trees else "adaptive" if args.adaptive else "flies" if args.flies else "extra" if args.extra else None
    if own:
        jobs = [(s, cycles, False) for s in {"trees": TREES, "adaptive": ADAPTIVE, "flies": FLIES, "extra": EXTRA}[own]]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    mode = "full" if cycles == 1_000_000 else "short" if cycles == 100_000 else f"{cycles}"
    name = f"saturation_soak_{mode}.csv" if args.only is None else "saturation_soak_partial.csv"
    if own:
        name = f"saturation_soak_{own}_{mode}.csv"
    previous = []
    if args.rerun_refused:
        with open(out / name, newline="") as fh:
            previous = list(csv.DictReader(fh))
        refused = {r["name"] for r in previous if r["verdict"].startswith("not run")}
        jobs = [job for job in jobs if job[0]["name"] in refused]
    prone = sum(job[2] for job in jobs)
    print(f"{len(jobs)} set-ups ({prone} prone among them), {cycles} cycles each, {args.jobs} processes")
    with ProcessPoolExecutor(args.jobs, max_tasks_per_child=1) as pool:
        rows = list(pool.map(soak, jobs))
    if previous:  # keep the earlier rows in their order, the rerun ones replaced
        fresh = {r["name"]: r for r in rows}
        rows = [fresh.get(r["name"], r) for r in previous]
    with open(out / name, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print("| set-up | accepted | min / max | Jain | longest wait | verdict |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['name']} | {r['accepted_load']} | {r['accepted_min']} / {r['accepted_max']} | {r['fairness_jain']} | "
              f"{r['starvation_max_wait']} | {r['verdict']} |")
    bad = [r for r in rows if r["verdict"] not in ("ok", "caught")]
    print(f"{len(rows) - len(bad)} of {len(rows)} as required" + (f"; not: {', '.join(r['name'] for r in bad)}" if bad else ""))


if __name__ == "__main__":
    main()
