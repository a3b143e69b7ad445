"""Pictures of the gossip cycles on small 2-D tori (like the paper's Figs. 1, 2 and 5).

    PYTHONPATH=. /work/venv/bin/python bench/gossip_figure.py [--out docs/figures]

Writes gossip_cycles.png: one panel per construction, cycle 0 blue and cycle 1 red; links that
wrap around the torus are drawn as stubs at the border; a PU on one cycle only is a hollow
circle, a PU on both a filled one. Section 3 panels use the paper's rows/columns (PU (0,0) top
left, n1 rows); the section 4.1 panel draws x1 horizontally, as Fig. 5 does.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from netsim_fast.workloads.gossip import build_plan  # noqa: E402

PANELS = [
    ((6, 8), "gossip-ham", "3.1: 6 x 8 (Fig. 1)", False),
    ((6, 7), "gossip-ham", "3.2: 6 x 7 (Fig. 2)", False),
    ((7, 7), "gossip-ham", "odd x odd: 7 x 7 (ours, for 3.3)", False),
    ((8, 5), "gossip-one", "4.1: 8 x 5 (like Fig. 5)", True),
]
COLOURS = ("tab:blue", "tab:red")


def draw(ax, dims, algorithm, title, x1_horizontal):
    plan = build_plan(dims, algorithm)
    coord = plan.topo.coord
    # screen position of a PU: (x, y) with y growing downwards
    if x1_horizontal:
        xy = np.stack([coord[:, 0], coord[:, 1]], axis=1).astype(float)
        size = (dims[0], dims[1])
    else:
        xy = np.stack([coord[:, 1], coord[:, 0]], axis=1).astype(float)
        size = (dims[1], dims[0])
    count = np.zeros(plan.n_nodes, int)
    for c, ring in enumerate(plan.rings):
        count[ring.nodes] += 1
        nodes = ring.nodes
        for a, b in zip(nodes, np.roll(nodes, -1)):
            pa, pb = xy[a], xy[b]
            off = 0.0
            step = pb - pa
            if np.abs(step).sum() == 1:
                ax.plot([pa[0] + off, pb[0] + off], [pa[1] + off, pb[1] + off],
                        color=COLOURS[c], lw=2)
            else:  # wrap-around: a stub out of each border PU
                unit = -np.sign(step)
                for p, u in ((pa, unit), (pb, -unit)):
                    ax.plot([p[0] + off, p[0] + off + 0.45 * u[0]],
                            [p[1] + off, p[1] + off + 0.45 * u[1]], color=COLOURS[c], lw=2)
    both = count == 2
    ax.scatter(xy[both, 0], xy[both, 1], s=40, c="black", zorder=3)
    ax.scatter(xy[~both, 0], xy[~both, 1], s=40, facecolors="white", edgecolors="black",
               zorder=3)
    ax.set_xlim(-0.8, size[0] - 0.2)
    ax.set_ylim(size[1] - 0.2, -0.8)
    ax.set_aspect("equal")
    ax.set_xticks(range(size[0]))
    ax.set_yticks(range(size[1]))
    ax.set_title(f"{title}\ncycles {[int(r.nodes.size) for r in plan.rings]}", fontsize=9)
    ax.tick_params(labelsize=7)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/figures")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(2, 2, figsize=(9, 8.6))
    for ax, panel in zip(axes.ravel(), PANELS):
        draw(ax, *panel)
    fig.tight_layout()
    path = out / "gossip_cycles.png"
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
