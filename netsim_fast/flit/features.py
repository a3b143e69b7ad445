"""Which parts of the flit kernel a run compiles (README, "Performance", start-up).

One kernel serves every router, routing and option, but a run uses few of them. The ``uses_*``
fields of ``FlitParams`` say which: True for a part the run uses, None for one it does not. The
kernels test ``p.uses_<part>`` (beside the run-time test they always had) where the part's code
starts, and the stage compiler (``_stage.ConstantMembers``) turns a None field into the constant
None before Numba's dead-branch pruning, so the code of an unused part is never typed, lowered
or optimised (about half of the flagship's cold compile). Each combination of parts is its own
compiled kernel, cached beside the others. Fields left True compile every part.
"""

from __future__ import annotations

from netsim_fast.routing import DOR, DOR_NODATELINE, DUATO, NONMIN_ROUTINGS

# uses_lanes: the lanes router (link and crossbar stages, eject_lanes); uses_iq: the iq router
# (switch_node, eject_iq); uses_debug: invariant checks after every cycle (--check-invariants);
# uses_closed_loop: request-reply traffic (flit/closed_loop.py); uses_classes: several traffic
# classes (priority arbiters and queues); uses_sync: phases gated (--sync local, global);
# uses_grid: dor, duato, dor-nodateline (routing/grid.py); uses_tables: next-port tables (minimal
# and the BMG routers, updown, the butterfly's destination tags, dim- and min-adaptive);
# uses_nonmin: the dragonfly's valiant, ugal-l, ugal-g (routing/dragonfly_valiant.py); uses_eject_pass:
# the lanes router's ejection as a pass before the routers (eject_lanes), which a plain run never
# needs: its terminals eject in the router loop (flit/eject.py ejects_in_router_loop); uses_prefetch:
# prefetching records ahead (FlitParams.prefetch), only on networks of flit/run.py PREFETCH_LANES up.


def _on(used) -> bool | None:
    return True if used else None


def uses(p) -> dict:
    """The ``uses_*`` fields of a run with parameters ``p`` (FlitParams).

    Only plain runs (the lanes or iq router, no invariant checks, closed loop, classes or
    --sync) leave parts out; any of those options, or the booksim router (its own kernel, which
    shares a few stages), compiles every part. Such runs are rare outside the tests, and the
    tests would otherwise compile a kernel per combination: the non-slow suite compiled 12 flit
    and 4 booksim kernels, against 1 and 1 before, and took 86 % more CPU time.
    """
    from netsim_fast.flit.state import ROUTER_IQ, ROUTER_LANES, SYNC_NONE

    if p.debug or p.closed_loop or p.classes > 1 or p.sync != SYNC_NONE or p.router not in (ROUTER_LANES, ROUTER_IQ):
        return {name: True for name in type(p)._fields if name.startswith("uses_")}
    grid = p.routing in (DOR, DUATO, DOR_NODATELINE)
    nonmin = p.routing in NONMIN_ROUTINGS.values()
    return dict(uses_lanes=_on(p.router == ROUTER_LANES), uses_iq=_on(p.router == ROUTER_IQ), uses_debug=None,
                uses_closed_loop=None, uses_classes=None, uses_sync=None, uses_grid=_on(grid),
                uses_tables=_on(not grid and not nonmin), uses_nonmin=_on(nonmin), uses_eject_pass=None,
                uses_prefetch=_on(p.prefetch))
