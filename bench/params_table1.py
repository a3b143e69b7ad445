"""Measured BSP g, l (and LogP L, G) over a range of p against Table 1 of papers/002.

For 2-D and 3-D tori and hypercubes (Table 1's d-dimensional array and multi-port hypercube
rows), random 4-regular graphs and binomial graphs (BMG; not in Table 1), on the packet
engine and the flit engine, run ``measure_params`` and compare g with gamma(p) and l with
delta(p). For the families Table 1 does not list, gamma is the volume bound
``average distance / degree`` (link-cycles per message per node; it is also Theta of Table 1's
gamma on tori and hypercubes) and delta the diameter.

On the flit engine tori and hypercubes use ``dor`` with the default 4 VCs. Random regular
graphs and BMG use table routing (``minimal``), which gives every hop of a route its own VC
class (deadlock freedom, ``routing.tables``), so ``--vcs`` must be at least the longest
route: this script passes ``vcs`` = the longest route of the table (the diameter under
minimal routing), one VC per hop class, the fewest the engine accepts. A network
the engines reject is an error here, not a skipped row.

Writes ``params_table1.csv`` (one row per network and engine), ``params_table1_summary.csv``
(per family and engine: the constant ``g / gamma`` and ``l / delta`` and the exponents of g,
gamma, l, delta in p) and ``params_table1.png``; prints both tables as markdown.

    PYTHONPATH=. /work/venv/bin/python bench/params_table1.py --out docs/figures   # ~4 min
    PYTHONPATH=. /work/venv/bin/python bench/params_table1.py --quick              # ~1 min
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from netsim_fast.analytic.params import loglog_slope, ratio_spread
from netsim_fast.config import Config
from netsim_fast.studies.params import ParamsSpec, measure_params
from netsim_fast.routing import TABLE_ROUTINGS
from netsim_fast.routing.tables import fewest_vcs
from netsim_fast.topologies import build_topology

H = (1, 2, 4, 8, 16, 32)


def families(quick: bool):
    """(family, list of topology option dicts) over a range of p."""
    if quick:
        return [("torus 2-D", [dict(topology="torus", k=k) for k in (4, 8, 16)]),
                ("torus 3-D", [dict(topology="torus", k=k, n=3) for k in (4, 6)]),
                ("hypercube", [dict(topology="hypercube", n=n) for n in (4, 6, 8)]),
                ("rrg r=4", [dict(topology="rrg", nodes=n, degree=4) for n in (16, 64, 256)]),
                ("BMG", [dict(topology="bmg", nodes=n) for n in (16, 64, 256)])]
    return [("torus 2-D", [dict(topology="torus", k=k) for k in (4, 6, 8, 12, 16, 24, 32)]),
            ("torus 3-D", [dict(topology="torus", k=k, n=3) for k in (4, 5, 6, 7, 8)]),
            ("hypercube", [dict(topology="hypercube", n=n) for n in range(4, 11)]),
            ("rrg r=4", [dict(topology="rrg", nodes=n, degree=4) for n in (16, 32, 64, 128, 256, 512, 1024)]),
            ("BMG", [dict(topology="bmg", nodes=n) for n in (16, 32, 64, 128, 256, 512, 1024)])]


def flit_vcs(cfg: Config) -> dict:
    """``{"vcs": longest route}`` for a table routing (one VC per hop class), else ``{}``."""
    if cfg.routing not in TABLE_ROUTINGS:
        return {}
    return {"vcs": fewest_vcs(build_topology(cfg), cfg.routing, cfg.loops)}


def model(row: dict) -> tuple[float, float, str]:
    """(gamma, delta, source) to compare with: Table 1 where it has a row, else stand-ins."""
    if row["gamma_table1"] is not None:
        return row["gamma_table1"], row["delta_table1"], f"Table 1 ({row['table1_row']})"
    return row["gamma_volume"], float(row["diameter"]), "avg distance / degree, diameter"


def measure(quick: bool, seed: int) -> list[dict]:
    rows = []
    for family, nets in families(quick):
        for engine in ("packet", "flit"):
            for net in nets:
                cfg = Config(engine=engine, pattern="random", seed=seed, **net)
                if engine == "flit":
                    cfg = Config(engine=engine, pattern="random", seed=seed, **net, **flit_vcs(cfg))
                reps = 2 if engine == "packet" else 1
                out = measure_params(cfg, ParamsSpec(h=H, reps=reps, pairs=16))
                gamma, delta, source = model(out)
                rows.append({"family": family, "engine": engine, "model": source, "gamma": gamma,
                             "delta": delta, "reps": reps, "vcs": cfg.vcs if engine == "flit" else None,
                             **{k: " ".join(f"{x:.4g}" for x in v) if isinstance(v, list) else v
                                for k, v in out.items()}})
                print(f"{family:10s} {engine:6s} p={out['p']:5d}  g={out['g']:8.3f}  ell={out['ell']:8.1f}  "
                      f"r2={out['fit_r2_bsp']:.3f}  L={out['L']:5d}  G={out['G']:7.3f}  "
                      f"({out['sim_seconds']:.1f} s)", flush=True)
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    out = []
    keys = sorted({(r["family"], r["engine"]) for r in rows}, key=lambda k: (k[0], k[1]))
    for family, engine in keys:
        sel = [r for r in rows if r["family"] == family and r["engine"] == engine]
        p = np.array([r["p"] for r in sel], float)
        g = np.array([r["g"] for r in sel])
        ell = np.array([r["ell"] for r in sel])
        gamma = np.array([r["gamma"] for r in sel])
        delta = np.array([r["delta"] for r in sel])
        cg, gmin, gmax = ratio_spread(g, gamma)
        cl, lmin, lmax = ratio_spread(ell, delta)
        out.append({
            "family": family, "engine": engine, "model": sel[0]["model"],
            "p_min": int(p.min()), "p_max": int(p.max()), "networks": len(sel),
            "g_over_gamma": cg, "g_over_gamma_min": gmin, "g_over_gamma_max": gmax,
            "exp_g": loglog_slope(p, g), "exp_gamma": loglog_slope(p, gamma),
            "ell_over_delta": cl, "ell_over_delta_min": lmin, "ell_over_delta_max": lmax,
            "exp_ell": loglog_slope(p, ell), "exp_delta": loglog_slope(p, delta),
            "r2_bsp_min": float(min(r["fit_r2_bsp"] for r in sel)),
            "G_over_g": float(np.median([r["G"] / r["g"] for r in sel])),
            "L_over_ell": float(np.median([r["L"] / r["ell"] for r in sel])),
        })
    return out


def read_csv(path: Path) -> list[dict]:
    def value(text):
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return None if text == "" else text

    with path.open() as f:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(f)]


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot(rows: list[dict], summary: list[dict], path: Path) -> None:
    """g and ell against p (markers) beside c gamma(p) and c delta(p) (lines, c = median ratio)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5.2))
    colours = dict(zip(sorted({r["family"] for r in rows}), plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for s in summary:
        sel = sorted((r for r in rows if r["family"] == s["family"] and r["engine"] == s["engine"]),
                     key=lambda r: r["p"])
        colour = colours[s["family"]]
        flit = s["engine"] == "flit"
        p = np.array([r["p"] for r in sel])
        for ax, x, y, c in ((axes[0], "gamma", "g", s["g_over_gamma"]), (axes[1], "delta", "ell", s["ell_over_delta"])):
            ax.plot(p, [r[y] for r in sel], "o" if flit else "s", mfc=colour if flit else "none", mec=colour,
                    label=f"{s['family']}, {s['engine']}")
            ax.plot(p, c * np.array([r[x] for r in sel]), "-" if flit else ":", color=colour, lw=1)
    axes[0].set(xscale="log", yscale="log", xlabel="p (nodes)", ylabel="g (cycles per message)",
                title="measured g (markers) and c * gamma(p) (lines)")
    axes[1].set(xscale="log", yscale="log", xlabel="p (nodes)", ylabel="ell (cycles)",
                title="measured ell (markers) and c * delta(p) (lines)")
    from matplotlib.ticker import NullFormatter

    for ax in axes:
        ax.xaxis.set_minor_formatter(NullFormatter())
    axes[0].legend(fontsize=7, ncol=2)
    fig.suptitle("BSP g, ell on the engines vs Table 1 (filled: flit, 8-flit messages; open: packet). "
                 "gamma, delta: Table 1 for tori and hypercubes; avg distance/degree and diameter for rrg, BMG",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def markdown(summary: list[dict]) -> str:
    lines = ["| family | engine | compared with | p | g / gamma (median, min-max) | exponent of g / of gamma | "
             "ell / delta (median, min-max) | exponent of ell / of delta | min r2 | G / g | L / ell |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(
            f"| {s['family']} | {s['engine']} | {s['model']} | {s['p_min']}-{s['p_max']} | "
            f"{s['g_over_gamma']:.3g} ({s['g_over_gamma_min']:.3g}-{s['g_over_gamma_max']:.3g}) | "
            f"{s['exp_g']:.2f} / {s['exp_gamma']:.2f} | "
            f"{s['ell_over_delta']:.3g} ({s['ell_over_delta_min']:.3g}-{s['ell_over_delta_max']:.3g}) | "
            f"{s['exp_ell']:.2f} / {s['exp_delta']:.2f} | {s['r2_bsp_min']:.3f} | {s['G_over_g']:.2f} | "
            f"{s['L_over_ell']:.2f} |")
    return "\n".join(lines)


def markdown_rows(rows: list[dict]) -> str:
    lines = ["| family | engine | p | diameter | gamma | delta | g | ell | ell_barrier | ell_route | r2 BSP | L | L_mean | G | r2 LogP |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['family']} | {r['engine']} | {r['p']} | {r['diameter']} | {r['gamma']:.3g} | "
                     f"{r['delta']:.3g} | {r['g']:.3g} | {r['ell']:.4g} | {r['ell_barrier']} | "
                     f"{r['ell_route']:.4g} | {r['fit_r2_bsp']:.3f} | {r['L']} | {r['L_mean']:.3g} | "
                     f"{r['G']:.3g} | {r['fit_r2_logp']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures")
    parser.add_argument("--quick", action="store_true", help="fewer and smaller networks")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--from-csv", action="store_true", help="re-read params_table1.csv in --out, no runs")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rows = read_csv(out / "params_table1.csv") if args.from_csv else measure(args.quick, args.seed)
    summary = summarise(rows)
    write_csv(out / "params_table1.csv", rows)
    write_csv(out / "params_table1_summary.csv", summary)
    plot(rows, summary, out / "params_table1.png")
    print()
    print(markdown(summary))
    print()
    print(markdown_rows(rows))
    print(f"\n{time.perf_counter() - start:.0f} s; wrote {out}/params_table1.csv, params_table1_summary.csv, params_table1.png")


if __name__ == "__main__":
    main()
