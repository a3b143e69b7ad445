"""Summary figures of a closed-loop (request-reply) run, from the packet table (flit/closed_loop.py).

A window's packets are the requests created in it and their replies (the packet table's
``request_created_cycle``). ``offered_load`` counts the flits of every request drawn in the
window, issued or not (``--outstanding`` reached: ``cnt[C_WIN_SKIPPED_FLITS]``), and of their
replies, as ``--rate`` does; so a closed loop whose terminals cannot keep up (Little's law:
at most ``outstanding`` requests per round trip) accepts less than it offers and is
saturated by the run's usual rule, with its latency bounded: such a run keeps its latency
figures when its window drained.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.flit import state as fs


def window_packets(pk: dict, win_start: int, win_end: int) -> np.ndarray:
    """The window's packets: requests created in it and their replies."""
    born = pk["request_created_cycle"]
    return (born >= win_start) & (born < win_end)


def offered_flits(pk: dict, state, in_window) -> int:
    """Flits of the window's transactions: its requests and their replies (created or not yet),
    and those of the requests drawn but not issued."""
    kind = pk["kind"]
    requests = in_window & ((kind == fs.KIND_READ) | (kind == fs.KIND_WRITE))
    reply = state.reply_len[kind[requests]].sum(dtype=np.int64)
    return int(pk["size_flits"][requests].sum(dtype=np.int64) + reply + state.cnt[fs.C_WIN_SKIPPED_FLITS])


def _mean(x) -> float | None:
    return float(x.mean()) if x.size else None


def request_reply_keys(pk: dict, state, cfg, in_window, win_start: int, win_end: int, n: int,
                       null_latency: bool) -> dict:
    """``round_trip_mean`` and the ``request_reply`` block of ``run --json``: per message class
    (requests, replies) packets, accepted load (flits per terminal per cycle whose tail arrived
    in the window) and mean latency (a reply's from its request's arrival, BookSim2's); round
    trips (request creation to reply tail arrival) of the window's replies; the requests not
    issued. Latencies are null when the run's are (its window did not drain)."""
    kind, tail = pk["kind"], pk["tail_arrival_cycle"]
    delivered = tail >= 0
    length = max(win_end - win_start, 1)
    tail_in = delivered & (tail >= win_start) & (tail < win_end)
    is_reply = kind >= fs.KIND_READ_REPLY
    out = {}
    for name, mine in (("requests", ~is_reply), ("replies", is_reply)):
        measured = in_window & mine & delivered
        out[name] = {
            "packets": int((in_window & mine).sum()),
            "packets_delivered": int(measured.sum()),
            "accepted_load": float(pk["size_flits"][tail_in & mine].sum()) / (n * length),
            "latency_mean": None if null_latency else _mean((tail - pk["created_cycle"])[measured]),
        }
    done = in_window & is_reply & delivered
    trips = (tail - pk["request_created_cycle"])[done].astype(np.float64)
    writes = in_window & ((kind == fs.KIND_WRITE) | (kind == fs.KIND_WRITE_REPLY))
    out.update({
        "outstanding": cfg.outstanding,
        "round_trip_mean": None if null_latency else _mean(trips),
        "round_trip_p99": None if null_latency or not trips.size else float(np.percentile(trips, 99)),
        "round_trips": int(done.sum()),
        "write_packets": int(writes.sum()),
        "requests_not_issued": int(state.cnt[fs.C_SKIPPED]),
        "offered_flits_not_issued": int(state.cnt[fs.C_WIN_SKIPPED_FLITS]),
    })
    return {"round_trip_mean": out["round_trip_mean"], "request_reply": out}
