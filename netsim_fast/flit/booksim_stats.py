"""BookSim2's overall statistics of an open-loop run, from the packet table (``--report booksim``).

The figures of BookSim2's ``DisplayOverallStats`` block (docs/booksim-router.md, section 9.2),
over the measured window [``win_start``, ``win_end``) of the summary:

- packet latency (creation to tail arrival) and network latency (head injection to tail
  arrival) of the measured packets (created in the window, delivered);
- flit latency, as BookSim2 defines it (``TrafficManager::_RetireFlit``, ``atime - itime``): each
  flit's arrival minus the cycle that flit itself was sent into the network, not the packet's
  creation, so a packet's body flits do not count their wait behind the head at the source
  (docs/booksim-router.md 9.2); of every flit of the packets whose head arrived from
  ``win_start`` on and whose tail arrived, measured or not (BookSim2 samples every flit retired
  since its last clear).
  The table gives the sums of the flits' arrivals and sends after the head's (``flit_gap_sum``,
  ``flit_inject_gap_sum``), so the average is exact; minimum and maximum are over the heads;
- fragmentation: cycles between the head's and the tail's arrival beyond ``len - 1``, of the
  measured packets;
- injected and accepted packet and flit rates per node (average, minimum, maximum over nodes):
  packets whose head was injected, or whose tail arrived, in the window, divided by its length
  (a packet counts whole on the side of the window its head or tail fell, where BookSim2 counts
  flits one by one);
- hops as BookSim2 counts them: routers visited, links + 1.
"""

from __future__ import annotations

import numpy as np


def _extremes(values) -> dict:
    if values.size == 0:
        return {"average": None, "minimum": None, "maximum": None}
    return {"average": float(values.mean()), "minimum": float(values.min()), "maximum": float(values.max())}


def _per_node(nodes, weights, n_nodes: int, length: int) -> dict:
    rates = np.bincount(nodes, weights=weights, minlength=n_nodes) / length
    return {"average": float(rates.mean()), "minimum": float(rates.min()), "maximum": float(rates.max())}


def booksim_statistics(pk: dict, win_start: int, win_end: int, n_nodes: int) -> dict:
    """BookSim2's overall figures (see the module docstring) of the packet table ``pk``."""
    created, injected = pk["created_cycle"], pk["injected_cycle"]
    head, tail, size = pk["head_arrival_cycle"], pk["tail_arrival_cycle"], pk["size_flits"].astype(np.int64)
    length = max(win_end - win_start, 1)
    born = pk.get("request_created_cycle", created)  # closed loop: a reply is measured with its request
    measured = (born >= win_start) & (born < win_end) & (tail >= 0)
    sampled = (head >= win_start) & (tail >= 0)  # every flit arrived after the last clear
    head_flit = head[sampled] - injected[sampled]
    flit_sum = size[sampled] * head_flit + pk["flit_gap_sum"][sampled] - pk["flit_inject_gap_sum"][sampled]
    flit_count = int(size[sampled].sum())
    flit = _extremes(head_flit.astype(float))
    if flit_count:
        flit["average"] = float(flit_sum.sum() / flit_count)
    sent = (injected >= win_start) & (injected < win_end)
    accepted = (tail >= win_start) & (tail < win_end)
    ones = np.ones(size.size)
    out = {
        "packet_latency": _extremes((tail - created)[measured].astype(float)),
        "network_latency": _extremes((tail - injected)[measured].astype(float)),
        "flit_latency": flit,
        "fragmentation": _extremes((tail - head - (size - 1))[measured].astype(float)),
        "injected_packet_rate": _per_node(pk["src"][sent], ones[sent], n_nodes, length),
        "accepted_packet_rate": _per_node(pk["dst"][accepted], ones[accepted], n_nodes, length),
        "injected_flit_rate": _per_node(pk["src"][sent], size[sent], n_nodes, length),
        "accepted_flit_rate": _per_node(pk["dst"][accepted], size[accepted], n_nodes, length),
        "hops_average": float(pk["hops"][measured].mean() + 1) if measured.any() else None,
    }
    for side in ("injected", "accepted"):
        packets = out[f"{side}_packet_rate"]["average"]
        out[f"{side}_packet_size"] = out[f"{side}_flit_rate"]["average"] / packets if packets else None
    return out

