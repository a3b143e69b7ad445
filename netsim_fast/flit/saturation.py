"""BookSim2's latency limit: stop an open-loop run once its latency shows it is saturated.

After every sample period the run computes BookSim2's quantity (``trafficmanager.cpp``,
``_SingleSim``): the summed latency of the packets delivered since the statistics were last
cleared, plus the age of every flit still in flight (created and not delivered, source queue
included), divided by the number of those packets and flits. Above ``latency_limit`` the run
stops with ``stop_reason: "latency-limit"`` and ``saturated: true``. Counting the flits in
flight is what makes the check fire on a saturated network whose packets no longer arrive.

Where our windows differ from BookSim2's sample phases, the choices are:

- During warm-up the statistics are cleared every second sample period (BookSim2 clears them
  at even warm-up phases) and every delivered packet counts.
- From the start of the measurement window on they are never cleared and only packets created
  in the window count (BookSim2's ``record`` flag); the check goes on through the drain, as
  BookSim2's drain checks every 1000 cycles.
- A packet not yet delivered counts its flits not yet ejected (``len - ejected``) at the
  packet's age, as BookSim2 retires flits one by one.

The check reads the packet records with numpy between kernel batches; it never changes what
the kernel does, only when the run stops.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.flit import state as fs


class LatencyLimit:
    """The latency-limit check of one open-loop run.

    Parameters
    ----------
    limit : int
        Cycles; the run stops once BookSim2's latency quantity exceeds it.
    period : int
        Cycles between checks (the sample period).
    win_start, win_end : int
        The measurement window: packets created in it are the measured ones.
    """

    def __init__(self, limit: int, period: int, win_start: int, win_end: int):
        self.limit, self.period = limit, period
        self.win_start, self.win_end = win_start, win_end
        self.next_check = period
        self.last_check = 0
        self.first_open = 0  # every packet before this index was delivered before last_check
        self.latency_sum = 0.0
        self.count = 0
        self.value = None  # the last value computed

    def _cleared_at(self, t: int) -> int:
        """When the statistics of the check at cycle ``t`` were last cleared."""
        if t > self.win_start:
            return self.win_start
        return (max(t - 1, 0) // (2 * self.period)) * (2 * self.period)

    def check(self, state, t: int) -> bool:
        """Account for cycles ``last_check .. t``; True when the limit is exceeded at ``t``."""
        if self._cleared_at(t) > self._cleared_at(self.last_check) or (t > self.win_start >= self.last_check):
            self.latency_sum, self.count = 0.0, 0
        n = int(state.cnt[fs.C_NEXT_RELEASE])
        pkt = state.pkt[self.first_open:n]
        release = pkt["release"].astype(np.int64)
        tail = pkt["tail_del"].astype(np.int64)
        new = (tail >= self.last_check) & (tail < t)
        if t > self.win_start:
            new &= (release >= self.win_start) & (release < self.win_end)
        self.latency_sum += float((tail[new] - release[new]).sum())
        self.count += int(new.sum())
        open_ = (tail < 0) & (release < t) & (pkt["injected"] != fs.DROPPED)  # dropped ones never entered
        flits = (pkt["len"][open_] - pkt["ejected"][open_]).astype(np.int64)
        in_flight_age = float((flits * (t - release[open_])).sum())
        total = self.count + int(flits.sum())
        self.value = (self.latency_sum + in_flight_age) / total if total else 0.0
        undelivered = np.nonzero((tail < 0) & (pkt["injected"] != fs.DROPPED))[0]
        self.first_open += int(undelivered[0]) if undelivered.size else int(pkt.size)
        self.last_check = t
        self.next_check = t + self.period
        return self.value > self.limit

    def renumber(self, shift: int) -> None:
        """Packet ids went down by ``shift`` (flit/retire.py), which retires no packet from
        ``first_open`` on."""
        self.first_open -= shift
