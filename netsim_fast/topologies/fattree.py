"""Indirect networks: the k-ary n-tree (``--topology fattree``) and the 3-level folded Clos of
switches of radix K (``--topology clos``). Terminals sit on the leaf switches only.

**k-ary n-tree** (Petrini and Vanneschi, IPPS 1997; BookSim2's ``fattree``): ``n`` levels of
``k^(n-1)`` switches, ``k^n`` terminals, ``k`` per leaf. Switch ``(l, w)`` (level ``l``, 0 at the
leaves; ``w`` an (n-1)-digit word in base ``k``, digit 0 least significant) has id
``l * k^(n-1) + w``, so the leaves come first. Its up port ``j`` leads to ``(l+1, w)`` with digit
``l`` replaced by ``j``, arriving at that parent's down port ``w_l`` (digit ``l`` of ``w``). The
switches of level ``l`` that share digits ``l .. n-2`` span one subtree of ``k^(l+1)``
terminals, as BookSim2's neighbourhoods do (``routefunc.cpp``'s ``fattree_nca``). Ports: down
``0 .. k-1`` (unused on leaves), up ``k .. 2k-1`` (unused at the top), as in BookSim2, then the
``k`` local ports of every switch, real terminals only on the leaves.

**Folded Clos** of switch radix ``K`` (even; the "fat tree" of Al-Fares et al., SIGCOMM 2008):
``K`` pods of ``K/2`` edge and ``K/2`` aggregation switches, ``(K/2)^2`` core switches, ``K^3/4``
terminals, ``K/2`` per edge switch. Edge switch ``e`` of pod ``p`` is switch ``p*K/2 + e``, then
the aggregation switches (``K^2/2 + p*K/2 + a``), then the core (``K^2 + c``). Edge and
aggregation switches of a pod are linked all to all (edge up port ``K/2 + a`` to aggregation
down port ``e``); aggregation switch ``a``'s up port ``K/2 + j`` goes to core ``a*K/2 + j``,
arriving at its port ``p``. Ports: down ``0 .. K/2-1`` (unused on edge switches; the core's
``K`` ports are all down), up ``K/2 .. K-1``, then ``K/2`` local ports per switch.

Both keep the engine's uniform concentration (``C`` local ports on every switch) and declare
how many of the first terminal slots are real (``params["terminals"]``): the leaves come
first, so terminal ``t`` is slot ``t`` (leaf ``t // C``), and the slots of inner switches never
send or receive (docs/topologies.md, "Terminals on some routers only").
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import NONE, Topology, concentrate, finish_arrays


def _with_terminals(topo: Topology, per_leaf: int, terminals: int) -> Topology:
    """``topo`` with ``per_leaf`` local ports on every switch, of which the first ``terminals``
    slots are real."""
    topo = concentrate(topo, per_leaf)
    return Topology(kind=topo.kind, params={**topo.params, "terminals": int(terminals)},
                    arrays=topo.arrays, vertex_transitive=False, notes=topo.notes)


def fattree(k: int, n: int) -> Topology:
    """The k-ary n-tree (see the module docstring)."""
    k, n = int(k), int(n)
    per_level = k ** (n - 1)
    nbr = np.full((n * per_level, 2 * k), NONE, np.int64)
    w = np.arange(per_level, dtype=np.int64)
    for level in range(n - 1):
        stride = k ** level
        digit = (w // stride) % k
        child = level * per_level + w
        for j in range(k):
            parent = (level + 1) * per_level + w + (j - digit) * stride
            nbr[child, k + j] = parent
            nbr[parent, digit] = child
    base = Topology(kind="fattree", params={"k": k, "n": n}, arrays=finish_arrays(nbr))
    return _with_terminals(base, k, k ** n)


def clos(switch_ports: int) -> Topology:
    """The 3-level folded Clos of switches with ``switch_ports`` ports (see the module docstring)."""
    big = int(switch_ports)
    h = big // 2
    edges, aggs, cores = big * h, big * h, h * h
    nbr = np.full((edges + aggs + cores, big), NONE, np.int64)
    for pod in range(big):
        for e in range(h):
            for a in range(h):
                edge, agg = pod * h + e, edges + pod * h + a
                nbr[edge, h + a] = agg
                nbr[agg, e] = edge
        for a in range(h):
            agg = edges + pod * h + a
            for j in range(h):
                core = edges + aggs + a * h + j
                nbr[agg, h + j] = core
                nbr[core, pod] = agg
    base = Topology(kind="clos", params={"switch_ports": big}, arrays=finish_arrays(nbr))
    return _with_terminals(base, h, edges * h)


def top_subtree_terminals(topo: Topology) -> int:
    """Terminals under one switch below the top level: one top-level subtree of a k-ary n-tree
    (``k^(n-1)``), one pod of a Clos (``K^2/4``): the shift of ``--pattern worst-case``."""
    if topo.kind == "fattree":
        return int(topo.params["k"]) ** (int(topo.params["n"]) - 1)
    return (int(topo.params["switch_ports"]) // 2) ** 2


__all__ = ["clos", "fattree", "top_subtree_terminals"]
