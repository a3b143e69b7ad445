"""The next-port table of any table routing, for both engines: ``route_table(topo, routing)``.

``minimal`` (all shortest-path ports, any topology), ``dor`` (grids, one port) and the BMG
routers of papers/001 (``bmg-*``, ``chord``; one port) all become a ``MinimalTable``: a
distance and a bitmask of allowed ports per (node, destination). The packet engine routes
with it directly; the flit engine adds one VC class per hop (``hop_classes``).
"""

from __future__ import annotations

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.routing.table import MinimalTable


def route_table(topo, routing: str, loops: int = 4) -> MinimalTable:
    if routing == "dor":
        from netsim_fast.routing.dor_table import build_dor_table

        return build_dor_table(topo)
    if routing == "minimal":
        if topo.kind == "fly":  # destination-tag routing, the butterfly's one path
            from netsim_fast.routing.fly import build_fly_table

            return build_fly_table(topo)
        if topo.kind == "dragonfly" and not topo.faulted:  # its own minimal: one global hop at most
            from netsim_fast.routing.dragonfly_table import build_dragonfly_table

            return build_dragonfly_table(topo)
        from netsim_fast.routing.table import build_minimal_table

        return build_minimal_table(topo)
    from netsim_fast.routing.bmg import CODES

    if routing in CODES:
        from netsim_fast.routing.bmg_table import build_bmg_table

        return build_bmg_table(topo, routing, loops)
    raise ConfigError(f"--routing {routing}: no table routing of that name")


def hop_classes(table: MinimalTable) -> int:
    """VC classes a hop-class scheme needs: the hops of the longest route in the table."""
    return int(table.dist.max())


def fewest_vcs(topo, routing: str, loops: int = 4) -> int:
    """Fewest ``--vcs`` the flit engine accepts for table routing ``routing`` on ``topo``: one VC
    per hop class, as many as the longest route has hops (for benches that size VCs per network)."""
    return max(1, hop_classes(route_table(topo, routing, loops)))


def check_hop_classes(table: MinimalTable, routing: str, vcs: int, inject_vcs=None) -> int:
    """VCs per class; raises ConfigError when --vcs cannot give every hop its own class, or when
    ``inject_vcs`` leaves out class 0, where every packet takes its first hop."""
    classes = hop_classes(table)
    if vcs < classes:
        raise ConfigError(
            f"--vcs {vcs}: routing '{routing}' in the flit engine gives each hop its own VC class "
            f"(deadlock-free: classes only increase along a route) and its longest route here has "
            f"{classes} hops; pass --vcs {classes} or more")
    per_class = vcs // max(classes, 1)
    if inject_vcs is not None and not any(0 <= vc < per_class for vc in inject_vcs):
        first = "0" if per_class == 1 else f"0..{per_class - 1}"
        raise ConfigError(
            f"--inject-vcs {','.join(map(str, inject_vcs))}: routing '{routing}' takes a packet's first hop "
            f"in hop class 0 (VCs {first} of {vcs}); include one of them")
    return per_class


def check_nonmin_classes(routing: str, vcs: int, inject_vcs=None, hamming: bool = False) -> int:
    """VCs per class of ``valiant``/``ugal-*``: on the dragonfly one class per global hop crossed
    (routing/dragonfly_valiant.py), on the flattened butterfly and HyperX one per phase
    (routing/hamming_valiant.py); raises ConfigError below one VC per class, or when
    ``inject_vcs`` leaves out a class a packet may take its first hop in (the dragonfly's 0; on
    a Hamming graph 0 and 1: a minimal route, or an intermediate at the source, starts in 1)."""
    from netsim_fast.routing import NONMIN_CLASSES
    from netsim_fast.routing.hamming_valiant import CLASSES

    classes = CLASSES if hamming else NONMIN_CLASSES
    if vcs < classes:
        why = ("each phase of a route (to its intermediate router, then to its destination) its own VC class"
               if hamming else "each stage of a route (before, between and after its two global hops) its own VC class")
        raise ConfigError(
            f"--vcs {vcs}: routing '{routing}' on the {'flattened butterfly and HyperX' if hamming else 'dragonfly'} "
            f"gives {why} (deadlock-free: classes only increase along a route); pass --vcs {classes} or more")
    per_class = vcs // classes
    for first in range(2 if hamming else 1):
        lo = first * per_class
        if inject_vcs is not None and not any(lo <= vc < lo + per_class for vc in inject_vcs):
            span = f"{lo}" if per_class == 1 else f"{lo}..{lo + per_class - 1}"
            raise ConfigError(
                f"--inject-vcs {','.join(map(str, inject_vcs))}: routing '{routing}' takes a packet's first hop "
                f"in VC class {first} (VCs {span} of {vcs}); include one of them")
    return per_class
