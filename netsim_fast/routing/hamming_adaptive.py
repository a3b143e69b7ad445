"""Adaptive minimal routing on the Hamming graphs (HyperX, flattened butterfly): ``dim-adaptive``
and ``min-adaptive``.

A minimal route on a Hamming graph corrects each coordinate in which the router differs from
the target once, by one hop (every dimension is all-to-all); with ``--widths`` a HyperX joins
two routers of dimension ``d`` by ``widths[d]`` parallel links (Ahn et al., SC 2009, trunking),
ports side by side (topologies/direct.py), any of which is a minimal next hop.

**dim-adaptive** routes in dimension order, lowest unaligned dimension first, and lets the
router choose among the dimension's parallel links: one row per parallel link to the target
coordinate, every VC, priority 0. The router takes the free output VC with the most free
space downstream (credits, plus output-lane room on the lanes router; flit/allocate.py
``choose_output``): what it sees at that cycle, no oracle. With widths 1 it is ``valiant``'s
minimal route (dimension order on one link). **VC budget: 1** (``--vcs`` ≥ 1). Deadlock
freedom: a hop in dimension ``d`` leaves the packet aligned in every dimension ≤ ``d``, so
a channel of dimension ``d`` is followed only by channels of higher dimensions or by
ejection; ordering channels by dimension, every dependency goes up: the channel dependency
graph is acyclic (Dally and Seitz 1987), whatever link of a dimension each hop took.

**min-adaptive** is minimal adaptive in the sense of DAL (Ahn et al.'s Dimensionally-Adaptive,
Load-balanced routing) without its non-minimal deroutes: a header may take any link of any
unaligned dimension, the router choosing the one with most free space downstream, as above.
It is Duato's methodology with ``dim-adaptive`` as the escape sub-function: the adaptive VCs
``1 .. V−1`` on every minimal port (priority 0), the escape VC 0 on the dimension-order ports
(every parallel link of the lowest unaligned dimension, priority 1, tried only when no adaptive
VC is free). **VC budget: 2** (``--vcs`` ≥ 2: one escape VC and at least one adaptive),
whatever the number of dimensions, where ``minimal`` needs one VC class per hop (``--vcs`` ≥
D). Adaptive VCs are reallocated only once drained (``--vc-realloc auto``, as ``duato``).
Deadlock freedom (Duato 1995): the escape sub-function is connected (every router other than
the destination has a dimension-order hop) and its extended channel dependency graph is acyclic:
along a minimal route the set of unaligned dimensions only shrinks, so the escape channels a
packet requests after holding an escape channel of dimension ``d`` (directly, or after adaptive
hops) are of dimensions > ``d``. ``netsim-fast check-deadlock`` builds Duato's extended graph
from these rows and proves it acyclic per configuration.

The table (``port_mask``, from ``adaptive_table``) holds, for each target router, the minimal
ports (rows ``0 .. N−1``) and, below them, the dimension-order ports (rows ``N .. 2N−1``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import KERNEL_JIT
from netsim_fast.routing import MIN_ADAPTIVE

ESCAPE_VCS = 1  # min-adaptive: VC 0 is the escape channel


@njit(**KERNEL_JIT)
def _mask_rows(port_mask, target, cur, vc_lo, vc_hi, prio, out, rows):
    """Append a row (port, vc_lo, vc_hi, prio) per allowed port of ``port_mask[target, cur]``."""
    for byte in range(port_mask.shape[2]):
        bits = port_mask[target, cur, byte]
        port = byte * 8
        while bits:
            if bits & 1:
                out[rows, 0] = port
                out[rows, 1] = vc_lo
                out[rows, 2] = vc_hi
                out[rows, 3] = prio
                rows += 1
            bits >>= 1
            port += 1
    return rows


@njit(**KERNEL_JIT)
def adaptive_next_hops(code, port_mask, n_routers, n_vcs, cur, dst, out):
    """Rows for a header at router ``cur`` (``!= dst``) under ``dim-adaptive`` or
    ``min-adaptive`` (see the module docstring); returns the row count."""
    rows = 0
    if code == MIN_ADAPTIVE:
        rows = _mask_rows(port_mask, dst, cur, ESCAPE_VCS, n_vcs - 1, 0, out, rows)
        return _mask_rows(port_mask, n_routers + dst, cur, 0, ESCAPE_VCS - 1, 1, out, rows)
    return _mask_rows(port_mask, n_routers + dst, cur, 0, n_vcs - 1, 0, out, rows)


def adaptive_table(topo) -> np.ndarray:
    """uint8[2N, N, W]: rows ``t`` (``t < N``): the minimal ports from each router to router
    ``t`` (every link of every unaligned dimension); rows ``N + t``: only those of the lowest
    unaligned dimension (ports go dimension by dimension, so the lowest port's dimension)."""
    from netsim_fast.routing.table import build_minimal_table

    mask = build_minimal_table(topo).port_mask
    n_ports = topo.n_ports
    bits = np.unpackbits(mask, axis=2, bitorder="little")[:, :, :n_ports].astype(bool)
    port_dim = np.full(n_ports, -1, np.int64)
    port = 0
    for d, (k, w) in enumerate(zip(_dims(topo), _widths(topo))):
        port_dim[port: port + (k - 1) * w] = d
        port += (k - 1) * w
    dims = np.where(bits, port_dim[None, None, :], np.iinfo(np.int64).max)
    lowest = dims.min(axis=2, keepdims=True)
    dor = bits & (port_dim[None, None, :] == lowest)
    width = mask.shape[2]
    dor_mask = np.packbits(dor, axis=2, bitorder="little")[:, :, :width]
    if dor_mask.shape[2] < width:
        dor_mask = np.concatenate([dor_mask, np.zeros(dor_mask.shape[:2] + (width - dor_mask.shape[2],), np.uint8)],
                                  axis=2)
    return np.ascontiguousarray(np.concatenate([mask, dor_mask], axis=0))


def _dims(topo) -> tuple[int, ...]:
    from netsim_fast.routing.hamming_valiant import hamming_dims

    return hamming_dims(topo)


def _widths(topo) -> tuple[int, ...]:
    dims = _dims(topo)
    return tuple(int(w) for w in str(topo.params.get("widths", ",".join("1" * len(dims)))).split(","))


def check_adaptive_vcs(routing: str, vcs: int) -> None:
    """Raise ConfigError when ``--vcs`` cannot hold the routing's VC budget: ``min-adaptive``
    needs the escape VC 0 and an adaptive one. Any ``--inject-vcs`` will do: a first hop may
    take the escape VC or an adaptive one."""
    from netsim_fast.errors import ConfigError

    if routing == "min-adaptive" and vcs < ESCAPE_VCS + 1:
        raise ConfigError(f"--vcs {vcs}: routing 'min-adaptive' needs an escape VC (0, dimension order) and at "
                          f"least one adaptive VC (Duato's methodology); pass --vcs 2 or more")
