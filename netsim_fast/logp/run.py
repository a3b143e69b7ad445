"""Running a LogP program: load it into the machine's arrays, draw the delays, run the clock
(logp/machine.py), and return a ``LogPResult`` or raise with the reason.

``new_state`` turns a ``Program`` (``netsim_fast.workloads.logp_program``) and per-message
delays into a fresh ``MachineState``; ``draw_delays`` gives the delays of a delay model; ``run``
checks the program against the parameters, runs ``machine.run_kernel`` and reports a deadlock
or a timeout as a ``SimulationError``.

Delay models (the medium's choice of delivery time, section 2.2's first nondeterminism)
---------------------------------------------------------------------------------------
``uniform``: ``d`` uniform in ``[1, L]`` from a seeded generator; ``max`` (adversarial):
``d = L`` always, which for any acceptance schedule maximises the number of messages in
transit at every time (the occupancy is monotone in each delay), hence the stalling; ``min``:
``d = 1``. Delays are drawn per message before the run (each message is accepted once), so the
same seed gives bit-identical results. The acceptance order among waiting messages (the second
nondeterminism, "any order is possible") is fixed to FIFO.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from netsim_fast.errors import ConfigError, SimulationError
from netsim_fast.logp.machine import ERR_DEADLOCK, ERR_TIMEOUT, NEVER, NO_MSG, run_kernel
from netsim_fast.logp_params import LogPParams
from netsim_fast.workloads.logp_program import Program

DELAY_MODES = ("uniform", "max", "min")


class MachineState(NamedTuple):
    """Machine state; ``p`` processors, ``m`` messages, ``nb`` boxes."""

    pc: np.ndarray              # int64[p]: index of the current operation in Program.op_*
    busy_until: np.ndarray      # int64[p]: end of the running timed operation
    busy_kind: np.ndarray       # int32[p]: BUSY_* of the running operation
    busy_msg: np.ndarray        # int64[p]: message being prepared or acquired, NO_MSG otherwise
    stalled_msg: np.ndarray     # int64[p]: submitted message awaiting acceptance, NO_MSG if operational
    last_send: np.ndarray       # int64[p]: start of the last submission (-NEVER before any)
    last_acq: np.ndarray        # int64[p]: start of the last acquisition (-NEVER before any)
    bg_box: np.ndarray          # int64[p]: background box, -1 none
    reg: np.ndarray             # int64[p]: the processor's time-stamp register
    wake: np.ndarray            # int64[p]: earliest time the processor may act again
    finish: np.ndarray          # int64[p]: time its program ended, -1 while running
    stall_cycles: np.ndarray    # int64[p]: total time spent stalling (submission -> acceptance)
    stall_events: np.ndarray    # int64[p]: submissions not accepted at once
    late_events: np.ndarray     # int64[p]: waits reached after their target time
    late_cycles: np.ndarray     # int64[p]: total lateness of those waits
    transit_to: np.ndarray      # int64[p]: messages in transit to the processor now
    transit_from: np.ndarray    # int64[p]: messages in transit from the processor now
    max_transit_to: np.ndarray  # int64[p]: maximum of transit_to over the run
    max_transit_from: np.ndarray  # int64[p]: maximum of transit_from over the run
    pend_head: np.ndarray       # int64[p]: first submitted, unaccepted message for the dst, -1 none
    pend_tail: np.ndarray       # int64[p]: last one
    pend_next: np.ndarray       # int64[m]: next message in its destination's waiting FIFO
    delay: np.ndarray           # int64[m]: delivery delay in [1, L] used if the message is accepted
    submit_t: np.ndarray        # int64[m]: submission time, -1 before
    accept_t: np.ndarray        # int64[m]: acceptance time
    deliver_t: np.ndarray       # int64[m]: delivery time
    acquire_t: np.ndarray       # int64[m]: time the acquisition ended
    payload: np.ndarray         # int64[m]: time stamp carried by the message
    box_queue: np.ndarray       # int64[m]: arrived messages, per box in CSR slots (Program.box_ptr)
    box_head: np.ndarray        # int64[nb]: number of messages of the box acquired (or being acquired)
    box_tail: np.ndarray        # int64[nb]: number of messages of the box delivered
    heap_t: np.ndarray          # int64[m]: binary min-heap of (delivery time, message) in transit
    heap_m: np.ndarray          # int64[m]
    scalars: np.ndarray         # int64[3]: current time, heap length, processors finished


def new_state(prog: Program, delay: np.ndarray) -> MachineState:
    """Allocate the state of a fresh run of ``prog`` with per-message delays ``delay``."""
    p = prog.op_ptr.size - 1
    m = prog.msg_src.size
    nb = prog.box_owner.size

    def z(n, fill=0):
        return np.full(n, fill, dtype=np.int64)

    return MachineState(
        pc=prog.op_ptr[:-1].copy(), busy_until=z(p, -1), busy_kind=np.zeros(p, np.int32),
        busy_msg=z(p, NO_MSG), stalled_msg=z(p, NO_MSG), last_send=z(p, -NEVER),
        last_acq=z(p, -NEVER), bg_box=z(p, -1), reg=z(p), wake=z(p), finish=z(p, -1),
        stall_cycles=z(p), stall_events=z(p), late_events=z(p), late_cycles=z(p),
        transit_to=z(p), transit_from=z(p), max_transit_to=z(p), max_transit_from=z(p),
        pend_head=z(p, -1), pend_tail=z(p, -1), pend_next=z(m, -1),
        delay=np.ascontiguousarray(delay, dtype=np.int64), submit_t=z(m, -1), accept_t=z(m, -1),
        deliver_t=z(m, -1), acquire_t=z(m, -1), payload=z(m), box_queue=z(m, -1),
        box_head=z(nb), box_tail=z(nb), heap_t=z(max(m, 1)), heap_m=z(max(m, 1)),
        scalars=z(3))


@dataclass
class LogPResult:
    """Outcome of one run of the machine.

    Attributes
    ----------
    time : int
        Makespan: the time the last processor ended its program.
    finish : int64[p]
        End time per processor.
    stall_time : int64[p]
        Time each processor spent stalling (submission to acceptance).
    stall_events : int64[p]
        Submissions each processor made that were not accepted at once.
    max_transit_to, max_transit_from : int64[p]
        Most messages ever in transit to / from each processor.
    late_events : int64[p]
        Scheduled waits a processor reached after their target time (0 for a schedule that
        holds, see the protocol builders).
    submit_t, accept_t, deliver_t, acquire_t : int64[m]
        Per-message times (-1 if it never happened).
    """

    time: int
    finish: np.ndarray
    stall_time: np.ndarray
    stall_events: np.ndarray
    max_transit_to: np.ndarray
    max_transit_from: np.ndarray
    late_events: np.ndarray
    submit_t: np.ndarray
    accept_t: np.ndarray
    deliver_t: np.ndarray
    acquire_t: np.ndarray

    @property
    def stalled(self) -> bool:
        return bool(self.stall_time.sum() > 0)

    def summary(self) -> dict:
        """Scalars for JSON: time and stall totals."""
        return {"time": int(self.time), "stall_time": int(self.stall_time.sum()),
                "stall_time_max": int(self.stall_time.max(initial=0)), "stalled": self.stalled,
                "stall_events": int(self.stall_events.sum()),
                "max_in_transit_to": int(self.max_transit_to.max(initial=0)),
                "max_in_transit_from": int(self.max_transit_from.max(initial=0)),
                "late_waits": int(self.late_events.sum())}


def draw_delays(n_msgs: int, L: int, mode: str, seed: int) -> np.ndarray:
    """Per-message delivery delays in ``[1, L]`` for the delay model ``mode``."""
    if mode == "uniform":
        return np.random.default_rng(seed).integers(1, L + 1, size=n_msgs, dtype=np.int64)
    if mode == "max":
        return np.full(n_msgs, L, dtype=np.int64)
    if mode == "min":
        return np.ones(n_msgs, dtype=np.int64)
    import difflib

    close = difflib.get_close_matches(mode, DELAY_MODES, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise ConfigError(f"unknown delay model '{mode}'; choose one of {', '.join(DELAY_MODES)}{hint}")


def run(prog: Program, params: LogPParams, delay: str | np.ndarray = "uniform", seed: int = 0,
        t_max: int | None = None) -> LogPResult:
    """Execute ``prog`` on a LogP machine with ``params``.

    Parameters
    ----------
    prog : Program
        From a ``ProgramBuilder`` (``params.p`` processors).
    params : LogPParams
        L, o, G, p.
    delay : {"uniform", "max", "min"} or int64[n_msgs]
        Delay model (see the module docstring) or explicit per-message delays in ``[1, L]``.
    seed : int
        Seed of the ``uniform`` delays.
    t_max : int, optional
        Abort with ``SimulationError`` if the run needs events after this time (default: a
        generous multiple of the sequentialised program).

    Returns
    -------
    LogPResult
    """
    p = prog.op_ptr.size - 1
    if p != params.p:
        raise ConfigError(f"program is for p = {p} processors but params.p = {params.p}")
    m = prog.msg_src.size
    if isinstance(delay, str):
        delays = draw_delays(m, params.L, delay, seed)
    else:
        delays = np.asarray(delay, dtype=np.int64)
        if delays.shape != (m,) or (m and (delays.min() < 1 or delays.max() > params.L)):
            raise ConfigError(f"explicit delays must be {m} integers in [1, L = {params.L}]")
    if t_max is None:
        busy = int(np.abs(prog.op_a).sum())
        t_max = 4 * (busy + (m + p) * (params.L + params.G + 2 * params.o)) + 1000
    st = new_state(prog, delays)
    err = run_kernel(prog, st, params.L, params.o, params.G, params.capacity, t_max)
    if err == ERR_DEADLOCK:
        waiting = np.flatnonzero(st.finish < 0)
        raise SimulationError(f"LogP program deadlocked at t = {st.scalars[0]}: processors "
                              f"{waiting[:8].tolist()} wait for messages that are never sent")
    if err == ERR_TIMEOUT:
        raise SimulationError(f"LogP run passed t_max = {t_max} at t = {st.scalars[0]}; "
                              "raise t_max or check the program")
    return LogPResult(time=int(st.finish.max()), finish=st.finish, stall_time=st.stall_cycles,
                      stall_events=st.stall_events, max_transit_to=st.max_transit_to,
                      max_transit_from=st.max_transit_from, late_events=st.late_events,
                      submit_t=st.submit_t, accept_t=st.accept_t, deliver_t=st.deliver_t,
                      acquire_t=st.acquire_t)
