"""BookSim2's sampled simulation control (``--measurement booksim``) for an open-loop run.

BookSim2 (``trafficmanager.cpp``, ``_SingleSim``, docs/booksim-router.md section 9) does not
measure a fixed window. It runs sample periods of ``--sample-period`` cycles and after each
computes the average latency of the packets retired since its statistics were last cleared,
and the accepted flit rate since then:

- *Warming up*: statistics are cleared before every even-numbered period. Warm-up ends after
  ``--warmup-periods`` periods, or, with 0, at the first period whose latency change and
  throughput change (relative to the previous period) are below ``--warmup-thres`` and
  ``--acc-warmup-thres``. Statistics are cleared once more; packets created from then on are
  the *measured* ones.
- *Running*: a period converges when both changes are below ``--stopping-thres`` and
  ``--acc-stopping-thres`` (a negative threshold disables its test; ``--sim-type throughput``
  ignores latency). Three consecutive converged periods, or ``--max-samples`` periods in all
  (warm-up included), end it; the end is the *drain time*.
- *Draining*: the run goes on until every measured packet has been delivered. Under
  ``--sim-type latency`` traffic keeps arriving and the latency limit is checked every 1000
  cycles; under ``throughput`` no new packet is created (BookSim2's final drain).
- After any period (and every 1000 drain cycles), under ``latency``, BookSim2's latency
  estimate (the latencies summed since the last clear plus the age of every flit generated and
  not yet delivered, over their count; a source backlog is not generated yet, ``_generated``)
  above ``--latency-limit`` aborts the run: unstable, reported as saturated. Still warming up
  after ``--max-samples`` periods is unstable too.

The summary then measures the window [end of warm-up, drain time): latency over the measured
packets, accepted load over the flits delivered in it, as BookSim2's overall block does.

Choices where we differ: one simulation (BookSim2's ``sim_count`` repeats are ``--seeds``),
and the drain is bounded by ``--drain`` cycles (default five times the sampled span), where
BookSim2 with its latency limit off would run forever on a saturated network. The measured
packets are those *created* in the window. BookSim2 marks a packet when it generates it, which
is when the node's one-packet source queue empties (docs/booksim-router.md 4.1), and stops
generating at the drain. Below saturation the two sets are the same but for packets queued
across the window's edges; past saturation, under ``throughput``, BookSim2 drops the backlog
its queue clock had not reached, where we wait for it, so the accepted rates agree and the
packet latencies (unbounded in both) do not.

With several traffic classes (``--classes``) every figure above is per class, as in BookSim2:
a period converges when every class's changes are within the thresholds, and any class whose
estimate passes the latency limit makes the run unstable (the periods list each class's).

The control reads the packet records with numpy between kernel batches; it never changes what
the kernel does except where the measured window is (``FlitParams.win_start``, ``win_end``).
"""

from __future__ import annotations

import math

import numpy as np

from netsim_fast.flit import state as fs

NEVER = 1 << 62
DRAIN_CHECK = 1000  # BookSim2 re-checks the latency limit every 1000 drain cycles
CONVERGED_PERIODS = 3  # consecutive converged periods that end the measurement

WARMING_UP, RUNNING, DRAINING = "warming-up", "running", "draining"


def _change(current: float, previous: float) -> float:
    """BookSim2's relative change |current - previous| / current (inf or nan when current is 0)."""
    if current == 0:
        return math.nan if previous == 0 else math.inf
    return abs((current - previous) / current)


def _exceeds(change: float, threshold: float) -> bool:
    """A change fails its test when the threshold is on (>= 0) and the change is not within it
    (nan compares false in C++, so it passes there; we keep that)."""
    return threshold >= 0 and change > threshold


class BookSimControl:
    """The sample-period state machine of one run; ``run_flit`` calls ``check`` at every
    ``next_check`` cycle and applies what it returns."""

    def __init__(self, cfg, n_nodes: int):
        self.period, self.n_nodes, self.classes = cfg.sample_period, n_nodes, cfg.classes
        self.limit = cfg.latency_limit if cfg.sim_type == "latency" else 0  # 0: off
        self.latency_mode = cfg.sim_type == "latency"
        self.warmup_periods, self.max_samples = cfg.warmup_periods, cfg.max_samples
        self.warmup_thres, self.acc_warmup_thres = cfg.warmup_thres, cfg.acc_warmup_thres
        self.stopping_thres, self.acc_stopping_thres = cfg.stopping_thres, cfg.acc_stopping_thres
        self.drain_bound = cfg.drain
        self.phase = WARMING_UP
        self.total_phases = self.converged = 0
        self.prev_latency = np.zeros(cfg.classes)  # per class
        self.prev_accepted = np.zeros(cfg.classes)
        self.warm_time = self.drain_time = None
        self.unstable: str | None = None  # why the run was abandoned
        self.periods: list[dict] = []
        self.first_open = 0  # every packet before it was delivered before last_check
        self.last_check = 0
        self.next_check = self.period
        self._clear(0, np.zeros(cfg.classes, np.int64))

    # -- statistics since the last clear ---------------------------------------------------

    def _clear(self, t: int, flits_out) -> None:
        self.reset_time, self.flits_out_at_reset = t, flits_out
        self.latency_sum, self.latency_count = np.zeros(self.classes), np.zeros(self.classes, np.int64)

    def _flits_out(self, state) -> np.ndarray:
        """Flits delivered so far, per class."""
        return state.cls_out.copy() if self.classes > 1 else np.array([state.cnt[fs.C_FLITS_OUT]], np.int64)

    def _account(self, state, t: int) -> np.ndarray:
        """Add the packets retired in [last_check, t) under the record rule; return BookSim2's
        latency estimate at ``t`` of each class (retired latencies plus ages of the flits in flight)."""
        n = int(state.cnt[fs.C_NEXT_RELEASE])
        pkt = state.pkt[self.first_open:n]
        k = self.classes
        cls = state.cls[self.first_open:n] if k > 1 else np.zeros(pkt.size, np.int64)
        release = pkt["release"]
        born = _born(state, self.first_open, n, release)
        tail = pkt["tail_del"]
        new = (tail >= self.last_check) & (tail < t)
        if self.phase != WARMING_UP:  # only the measured packets count once warmed up
            new &= born >= self.warm_time
            if self.drain_time is not None:
                new &= born < self.drain_time
        self.latency_sum += np.bincount(cls[new], weights=(tail[new] - release[new]).astype(float), minlength=k)
        self.latency_count += np.bincount(cls[new], minlength=k)
        live = pkt["injected"] != fs.DROPPED
        open_ = (tail < 0) & (release < t) & live & self._generated(state, pkt)
        flits = (pkt["len"][open_] - pkt["ejected"][open_]).astype(np.int64)
        in_flight = np.bincount(cls[open_], weights=flits, minlength=k)
        age = np.bincount(cls[open_], weights=(flits * (t - release[open_])).astype(float), minlength=k)
        waiting = np.flatnonzero((tail < 0) & live)
        self.first_open += int(waiting[0]) if waiting.size else int(pkt.size)
        self.last_check = t
        total = self.latency_count + in_flight
        return np.divide(self.latency_sum + age, total, out=np.zeros(k), where=total > 0)

    def _generated(self, state, pkt) -> np.ndarray:
        """Which of ``pkt`` (ids from ``first_open``) BookSim2 has generated: a node generates
        its next packet only once the previous one has been injected whole, so a backlog waits
        as Bernoulli trials still to be made, not as packets (docs/booksim-router.md 4.1).
        Generated are the packets whose head was injected, the packet a node is injecting, and,
        at a node injecting none, the first packet of its source queue. (BookSim2 also leaves
        that one ungenerated when the previous tail left in the last cycle; not modelled.)"""
        gen = pkt["injected"] >= 0
        bound = state.inj["pkt"]
        busy = (bound != fs.NONE).any(axis=1)
        heads = state.node["src_head"]
        ids = np.concatenate([bound[bound != fs.NONE], heads[~busy & (heads != fs.NONE)]]) - self.first_open
        gen[ids[(ids >= 0) & (ids < pkt.size)]] = True
        return gen

    # -- the state machine -----------------------------------------------------------------

    def check(self, state, t: int) -> str:
        """End of a sample period (or a drain check) at ``t``: one of ``continue``, ``warmed``
        (the measured window opens at ``t``), ``drain`` (it closes at ``t``) or ``stop``
        (unstable: ``self.unstable`` says why)."""
        estimate = self._account(state, t)
        worst = int(np.argmax(estimate))  # the first class past the limit, if any is
        over = self.limit and estimate[worst] > self.limit
        what = f"latency estimate {estimate[worst]:.1f}" + (f" of class {worst}" if self.classes > 1 else "")
        if self.phase == DRAINING:
            self.next_check = t + DRAIN_CHECK
            if over:
                self.unstable = f"{what} exceeded --latency-limit {self.limit} while draining"
                return "stop"
            return "continue"
        k = self.classes
        latency = [self.latency_sum[c] / self.latency_count[c] if self.latency_count[c] else math.nan for c in range(k)]
        flits = self._flits_out(state) - self.flits_out_at_reset
        accepted = [float(f) / max(t - self.reset_time, 1) / self.n_nodes for f in flits]
        latency_change = [_change(latency[c], self.prev_latency[c]) for c in range(k)]
        accepted_change = [_change(accepted[c], self.prev_accepted[c]) for c in range(k)]
        self.prev_latency, self.prev_accepted = np.array(latency), np.array(accepted)
        one = (lambda x: x[0]) if k == 1 else (lambda x: [float(v) for v in x])  # one class: scalars
        self.periods.append({"cycle": t, "state": self.phase, "latency": one(latency), "accepted": one(accepted),
                             "latency_change": one(latency_change), "throughput_change": one(accepted_change),
                             "latency_estimate": one(estimate.tolist())})
        if over:
            self.unstable = f"{what} exceeded --latency-limit {self.limit}"
            return "stop"
        if self.phase == WARMING_UP:
            lat_bad = any(_exceeds(x, self.warmup_thres) for x in latency_change) and self.latency_mode
            warm = (self.total_phases + 1 >= self.warmup_periods if self.warmup_periods > 0
                    else not lat_bad and not any(_exceeds(x, self.acc_warmup_thres) for x in accepted_change))
        else:
            lat_bad = any(_exceeds(x, self.stopping_thres) for x in latency_change) and self.latency_mode
            ok = not lat_bad and not any(_exceeds(x, self.acc_stopping_thres) for x in accepted_change)
            self.converged = self.converged + 1 if ok else 0
        self.total_phases += 1
        self.next_check = t + self.period
        action = "continue"
        if self.phase == WARMING_UP and warm:
            self.phase, self.warm_time, action = RUNNING, t, "warmed"
        more = self.total_phases < self.max_samples and (self.phase != RUNNING or self.converged < CONVERGED_PERIODS)
        if not more:
            if self.phase != RUNNING:
                self.unstable = f"still warming up after --max-samples {self.max_samples} sample periods"
                return "stop"
            self.phase, self.drain_time = DRAINING, t
            self.next_check = t + DRAIN_CHECK
            return "drain"
        if action == "warmed" or self.phase == WARMING_UP and self.total_phases % 2 == 0:
            self._clear(t, self._flits_out(state))
        return action

    def drain_limit(self) -> int:
        """The cycle the drain gives up at (``--drain`` after the drain time)."""
        return self.drain_time + self.drain_bound

    def renumber(self, shift: int) -> None:
        """Packet ids went down by ``shift`` (flit/retire.py), which retires none from ``first_open`` on."""
        self.first_open -= shift

    def report(self) -> dict:
        """The ``booksim_control`` block of the summary."""
        def finite(x):
            if isinstance(x, list):
                return [finite(v) for v in x]
            return None if isinstance(x, float) and not math.isfinite(x) else x
        return {"sim_type": "latency" if self.latency_mode else "throughput",
                "warmed_up_at": self.warm_time, "drain_time": self.drain_time,
                "sample_periods": self.total_phases, "converged_periods": self.converged,
                "unstable": self.unstable is not None, "unstable_reason": self.unstable,
                "periods": [{k: finite(v) for k, v in row.items()} for row in self.periods]}


def _born(state, lo: int, hi: int, release):
    """Closed loop: the creation cycle of each packet's request, whose window the packet
    belongs to (flit/closed_loop.py); otherwise the packets' own ``release``."""
    born = getattr(state, "born", None)
    return born[lo:hi] if born is not None and born.shape[0] else release


def open_window(state, params, control: BookSimControl):
    """Warm-up is over at ``control.warm_time``: packets created from then on are measured."""
    return params._replace(win_start=control.warm_time, win_end=NEVER)


def close_window(state, params, control: BookSimControl):
    """The measurement ends at the drain time: only packets created before it are waited for
    (``cnt[C_WIN_OPEN]`` recounted for the new window end, which the kernel's window stop rule
    reads); under ``throughput`` no packet is created from then on."""
    t_d = control.drain_time
    released = int(state.cnt[fs.C_NEXT_RELEASE])
    pkt = state.pkt[:released]
    born = _born(state, 0, released, pkt["release"])
    measured = (born >= control.warm_time) & (born < t_d)
    state.cnt[fs.C_WIN_OPEN] = int((measured & (pkt["tail_del"] < 0) & (pkt["injected"] != fs.DROPPED)).sum())
    if not control.latency_mode:
        state.cnt[fs.C_NPKT] = released  # created but not yet released: never created
    return params._replace(win_end=t_d, stop_mode=fs.STOP_WINDOW)
