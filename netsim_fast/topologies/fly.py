"""The butterfly: BookSim2's k-ary n-fly (``--topology fly --k K --n N``).

``n`` stages of ``k^(n-1)`` routers with ``k`` inputs and ``k`` outputs, ``k^n`` terminals.
Router ``(s, a)`` (stage ``s``, ``a`` an (n-1)-digit word in base ``k``, digit 0 least
significant) has id ``s * k^(n-1) + a``, BookSim2's numbering (``fly.cpp``). Terminal ``t``
injects at stage-0 router ``t // k`` and ejects at last-stage router ``(n-1) k^(n-1) + t // k``,
both times through local port ``t % k``: the first network where a terminal's injection and
ejection routers differ (``Topology.eject_shift``, docs/topologies.md "Terminals that inject
and eject at different routers").

**Wiring** (BookSim2's ``_InChannel``): output ``q`` of ``(s, a)`` leads to ``(s+1, b)``, ``b``
being ``a`` with digit ``n-2-s`` replaced by ``q``; it arrives at the input of ``b`` numbered by
the digit of ``a`` it replaced. Destination-tag routing (``routefunc.cpp``'s ``dest_tag_fly``)
takes output ``d_{n-1-s}`` (digit ``n-1-s`` of the destination terminal) at stage ``s``: after
stage ``s`` the router's digits ``n-2-s .. n-2`` are the destination's ``n-1-s .. n-1``, so the
last stage is router ``d // k``, whose output ``d_0`` is the terminal. The path is the only one.

**Ports.** The engine's links go both ways (``finish_arrays`` wants a reverse link for each),
so every channel is a link of which only the forward direction is ever routed: ports ``0 ..
k-1`` are a router's outputs to the next stage (BookSim2's outputs ``0 .. k-1``), ports ``k ..
2k-1`` its inputs from the previous stage (input ``k + p`` is BookSim2's input ``p``), then the
``k`` local ports: injection on stage 0, ejection on the last stage, unused between. Channels
are counted one way: ``(n-1) k^n``, as BookSim2 allocates them.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import NONE, Topology, concentrate, finish_arrays


def fly(k: int, n: int) -> Topology:
    """The k-ary n-fly (see the module docstring)."""
    k, n = int(k), int(n)
    per_stage = k ** (n - 1)
    nbr = np.full((n * per_stage, 2 * k), NONE, np.int64)
    a = np.arange(per_stage, dtype=np.int64)
    for stage in range(n - 1):
        stride = k ** (n - 2 - stage)
        digit = (a // stride) % k
        here = stage * per_stage + a
        for q in range(k):
            there = (stage + 1) * per_stage + a + (q - digit) * stride
            nbr[here, q] = there
            nbr[there, k + digit] = here
    base = Topology(kind="fly", params={"k": k, "n": n}, arrays=finish_arrays(nbr))
    topo = concentrate(base, k)
    params = {**topo.params, "terminals": k ** n, "eject_shift": (n - 1) * per_stage}
    return Topology(kind="fly", params=params, arrays=topo.arrays, vertex_transitive=False, notes=topo.notes)


def fly_bisection(topo: Topology) -> tuple[int | None, bool]:
    """(channels, exact): the fewest channels between two halves of the terminals (a terminal's
    injection and ejection routers on its side), for even ``k``: ``k^n / 2``, ``k^n / 4`` each
    way (Dally and Towles 2004, section 4.3's channel bisection). At most that: the halves
    by the terminals' top digit (below ``k/2`` or not) with every router on the side of its
    address's top digit cut only the channels from stage 0 to 1 whose output's half differs
    from the router's, ``k/2`` of each router's ``k``. At least that: under uniform traffic at
    rate ``r`` every channel carries ``r`` (``Capacity``) while ``N/2 · N/2 · r / N`` flows
    cross each way, so ``N/4`` channels must. Odd ``k``: ``(None, False)``, no balanced cut of
    the digits (not computed)."""
    k = int(topo.params["k"])
    terminals = topo.n_terminals
    return (terminals // 2, True) if k % 2 == 0 else (None, False)


def fly_metrics(topo: Topology, *, with_bisection: bool = True) -> dict:
    """``netsim-fast topo``'s metrics of a butterfly: routers, one-way channels, and distances
    from each first-stage router to each last-stage router (the routers a packet enters and
    leaves the network at), all ``n - 1`` hops: the undirected graph's distances would take
    routes against the channels' direction."""
    n, per_stage = int(topo.params["n"]), topo.n_nodes // int(topo.params["n"])
    degree = topo.arrays.degree
    hops = n - 1
    out = {
        "topology": topo.describe(), "nodes": topo.n_nodes, "links": topo.n_links // 2,
        "degree_min": int(degree.min()), "degree_max": int(degree.max()), "degree_mean": float(degree.mean()),
        "average_distance": float(hops), "diameter": hops,
        "distance_distribution": [0.0] * hops + [float(per_stage)],
        "routers": topo.n_nodes, "terminals": topo.n_terminals, "terminals_per_router": topo.concentration,
    }
    if with_bisection:
        out["bisection_width"], out["bisection_exact"] = fly_bisection(topo)
    return out


def dest_tag_port(k: int, n: int, router: int, dst: int) -> int:
    """The output port destination-tag routing takes at ``router`` towards terminal ``dst``
    (a network port ``0 .. k-1`` before the last stage, else the terminal's local index ``dst % k``)."""
    stage = router // k ** (n - 1)
    return (dst // k ** (n - 1 - stage)) % k


def worst_case(k: int, n: int) -> np.ndarray:
    """int64[k^n]: ``--pattern worst-case`` on the butterfly, a permutation that puts
    ``k^m`` flows (``m = n // 2``) on each channel it uses into stage ``m``: the destination's
    top ``m`` digits are the source's digits ``1 .. m``, its middle digits the source's top
    ``n-1-m`` and its last digit the source's last plus one (mod k: no terminal sends to itself).
    The ``k^m`` sources that differ only in their top ``m-1`` digits and their last one share
    their digits ``1 .. n-m``, and their destinations their top ``m`` digits: the route's channel
    into stage ``m`` (the router of the destination's top ``m`` and the source's digits ``1 ..
    n-1-m``, entered at its digit ``n-m``) is theirs alike, so it saturates at ``1/k^m``
    flits per terminal per cycle."""
    m = n // 2
    src = np.arange(k ** n, dtype=np.int64)
    return ((src // k) % k ** m) * k ** (n - m) + (src // k ** (m + 1)) * k + (src + 1) % k


__all__ = ["dest_tag_port", "fly", "fly_bisection", "fly_metrics", "worst_case"]
