"""Total exchange: the lower bound on completion time and the steady-state metrics of a run.

Lower bound (Petrini, papers/004, section 7: "half of the packets have to cross the network
bisection"). Cut the grid straight across dimension ``d`` between coordinates ``h - 1`` and
``h``: side A holds ``|A| = h N / k_d`` nodes, side B the rest. Every ordered pair (a, b) with a
in A and b in B sends ``F`` flits that must cross from A to B over the ``C`` directed links
that leave A (``2 N / k_d`` in a ring dimension of radix > 2, ``N / k_d`` in a mesh dimension
or one of radix 2), one flit per link every ``t_link`` cycles, so

    T >= |A| |B| F t_link / C,

and the same holds from B to A. The bound is the best straight cut (every dimension, every
``h``). For a k-ary n-cube with even ``k`` it is ``h = k/2``: ``|A||B| = N^2/4``, ``C = 2N/k``,
``T >= N k F t_link / 8`` (= N^2 F / (8N/k), 4096 cycles for the 16x16 torus with F = 8).
For odd ``k`` it is ``floor(k/2) ceil(k/2) (N/k) F t_link / 2``.

A second bound is the nodes' own: each node injects ``(N - 1) F`` flits, at most one per
cycle. It dominates on small tori (k < 8 in 2-D); ``lower_bound_cycles`` is the larger of the
two and equals the bisection bound on the paper's 16x16 torus.

Steady-state metrics of a utilisation series ``u`` (fraction of directed links that carried
a flit, per cycle, averaged over windows of ``w`` cycles; paper 004, Fig. 6):

- plateau = median of ``u`` over the middle half of the run (windows between completion/4
  and 3 completion/4);
- ``steady_state_cycle`` = start cycle of the first window with ``u >= 0.95 * plateau``;
- ``steady_fluctuation`` = std/mean of ``u`` over the windows from that one up to (not
  including) the window of the last injection;
- ``drain_cycles`` = completion - the last cycle in which any node injected a packet head.

These are the issue's fixed definitions. Unsynchronised sources do not all run dry at once:
utilisation leaves its plateau while the last nodes still inject, so the decline counts in
``steady_fluctuation`` and not in ``drain_cycles``. The plateau-only view, closer to the
paper's reading of its Fig. 6 ("at the end of the steady state packets are consumed by the
network in a short period"), is reported beside them:

- ``steady_end_cycle`` = start cycle of the last window with ``u >= 0.95 * plateau``;
- ``plateau_fluctuation`` = std/mean of ``u`` from ``steady_state_cycle`` to that window;
- ``tail_cycles`` = completion - the end of that window.
"""

from __future__ import annotations

import numpy as np

STEADY_FRACTION = 0.95


def cut_bounds(topo, flits_per_pair: int, t_link: int = 1) -> list[dict]:
    """The bound of every straight cut of a grid topology (each dimension, each threshold).

    Returns
    -------
    list of dict
        ``dim``, ``at`` (side A = coordinate < at), ``pairs`` (ordered pairs A -> B),
        ``links_ab``, ``links_ba`` (directed links crossing each way), ``cycles`` (the bound).
    """
    coord = topo.arrays.coord
    src, dst, _ = topo.links()
    n = topo.n_nodes
    out = []
    for d in range(topo.n_dims):
        for at in range(1, int(topo.arrays.radix[d])):
            side = coord[:, d] < at
            a = int(side.sum())
            pairs = a * (n - a)
            ab = int(np.count_nonzero(side[src] & ~side[dst]))
            ba = int(np.count_nonzero(~side[src] & side[dst]))
            cycles = pairs * flits_per_pair * t_link / min(ab, ba)
            out.append({"dim": d, "at": at, "pairs": pairs, "links_ab": ab, "links_ba": ba, "cycles": cycles})
    return out


def closed_form_bound(radix, wrap, flits_per_pair: int, t_link: int = 1) -> float:
    """``max_d floor(k_d/2) ceil(k_d/2) (N/k_d) F t_link / c_d`` with ``c_d`` = 2 for a ring of
    radix > 2, else 1: the best straight cut in closed form (module docstring)."""
    n = int(np.prod(radix))
    best = 0.0
    for k, w in zip(radix, wrap):
        k = int(k)
        c = 2 if (w and k > 2) else 1
        best = max(best, (k // 2) * (k - k // 2) * (n // k) * flits_per_pair * t_link / c)
    return best


def lower_bound(topo, flits_per_pair: int, t_link: int = 1) -> dict:
    """``lower_bound_cycles`` and its parts for a total exchange of ``F`` flits per ordered pair.

    Returns
    -------
    dict
        ``lower_bound_cycles`` (the larger bound), ``lower_bound_bisection_cycles``,
        ``lower_bound_endpoint_cycles`` ((N-1) F), ``lower_bound_cut`` (which cut, in words).
    """
    cuts = cut_bounds(topo, flits_per_pair, t_link)
    best = max(cuts, key=lambda c: c["cycles"])
    endpoint = (topo.n_nodes - 1) * flits_per_pair
    bisection = best["cycles"]
    return {
        "lower_bound_cycles": max(bisection, float(endpoint)),
        "lower_bound_bisection_cycles": bisection,
        "lower_bound_endpoint_cycles": float(endpoint),
        "lower_bound_cut": (f"dimension {best['dim']} at {best['at']}: {best['pairs']} ordered pairs each way "
                            f"over {min(best['links_ab'], best['links_ba'])} directed links"),
    }


def utilisation_series(ts_link: np.ndarray, n_links: int, window: int, t_link: int, cycles: int) -> np.ndarray:
    """float64[ceil(cycles/window)]: busy fraction of the directed links per window.

    ``ts_link[w]`` counts link traversals started in window ``w``; each keeps its link busy
    ``t_link`` cycles. The last window may be partial: it is divided by its true length.
    """
    n_windows = -(-cycles // window)
    counts = np.asarray(ts_link[:n_windows], np.float64)
    lengths = np.full(n_windows, float(window))
    if n_windows and cycles % window:
        lengths[-1] = cycles % window
    return counts * t_link / (lengths * max(n_links, 1))


def steady_state(u: np.ndarray, window: int, completion: int, last_injection: int) -> dict:
    """The steady-state metrics of a utilisation series (module docstring).

    Parameters
    ----------
    u : float64[W]
        Utilisation per window of ``window`` cycles, window 0 starting at cycle 0.
    completion : int
        Cycle the last packet was delivered.
    last_injection : int
        Last cycle in which a node injected a packet head.

    Returns
    -------
    dict
        ``utilization_plateau``, ``steady_state_cycle``, ``steady_fluctuation``,
        ``drain_cycles``, ``steady_end_cycle``, ``plateau_fluctuation``, ``tail_cycles``
        (None where undefined: an empty middle, a zero plateau, fewer than 2 windows).
    """
    n_windows = min(len(u), -(-completion // window)) if completion > 0 else 0
    out = {"utilization_plateau": None, "steady_state_cycle": None, "steady_fluctuation": None,
           "drain_cycles": completion - last_injection if completion > 0 else None,
           "steady_end_cycle": None, "plateau_fluctuation": None, "tail_cycles": None}
    if n_windows == 0:
        return out
    lo, hi = n_windows // 4, max(-(-3 * n_windows // 4), n_windows // 4 + 1)
    plateau = float(np.median(u[lo:hi]))
    out["utilization_plateau"] = plateau
    if plateau <= 0:
        return out
    reached = np.nonzero(u[:n_windows] >= STEADY_FRACTION * plateau)[0]
    first, last = int(reached[0]), int(reached[-1])
    out["steady_state_cycle"] = first * window
    out["steady_end_cycle"] = last * window
    out["tail_cycles"] = max(completion - (last + 1) * window, 0)
    out["steady_fluctuation"] = _relative_std(u[first : last_injection // window])
    out["plateau_fluctuation"] = _relative_std(u[first : last + 1])
    return out


def _relative_std(span: np.ndarray) -> float | None:
    """std/mean of at least two windows, else None."""
    if span.size < 2 or span.mean() <= 0:
        return None
    return float(span.std() / span.mean())
