"""The request-reply part of ``Config``: closed-loop traffic (``--closed-loop``).

Every request a terminal issues is answered by a reply from its destination; a terminal keeps
at most ``--outstanding`` requests without their reply (0: no limit, BookSim2's
``use_read_write`` outside batch mode). ``--rate`` counts the flits of requests and of their
replies, as BookSim2's ``injection_rate`` does. Reads (requests of ``--packet-flits``, replies
of ``--reply-flits``) and, with ``--write-fraction``, writes (``--write-request-flits``,
``--write-reply-flits``). The engine side: flit/closed_loop.py.

VCs: on the lanes and iq routers requests take VCs 0..V/2-1 and replies V/2..V-1, each class
routed by the run's routing on its V/2 VCs, so ``--vcs`` must give the routing its budget
twice; the booksim router takes BookSim2's per-type VC ranges (``rw_vcs``, the eight
``*_begin_vc``/``*_end_vc`` keys), by default the same halves.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from netsim_fast.checks import bad, parse_int_list, require_finite
from netsim_fast.checks import require_int as _require_int
from netsim_fast.config._helpers import reject_unless_default as _reject_unless_default
from netsim_fast.config._helpers import set_field as _set


@dataclass(frozen=True, kw_only=True)
class ClosedLoopFields:
    """Request-reply traffic (after the workload's fields)."""

    closed_loop: bool = False
    outstanding: int = 4  # requests a terminal keeps without their reply; 0 = no limit
    reply_flits: int | None = None  # a read's reply [default: --packet-flits]
    write_fraction: float = 0.0  # share of requests that are writes
    write_request_flits: int | None = None  # [default: --packet-flits]
    write_reply_flits: int | None = None  # [default: --reply-flits]
    # booksim router: (read request, write request, read reply, write reply) x (begin, end) VCs
    rw_vcs: tuple[int, ...] | None = None


CLOSED_LOOP_OPTIONS = tuple(f.name for f in fields(ClosedLoopFields) if f.name != "closed_loop")
RW_VC_KEYS = ("read_request_begin_vc", "read_request_end_vc", "write_request_begin_vc", "write_request_end_vc",
              "read_reply_begin_vc", "read_reply_end_vc", "write_reply_begin_vc", "write_reply_end_vc")
# what a closed loop cannot run with, and why
_REFUSED = {
    "batch": "--batch counts packets per node; a closed loop issues requests as replies come back",
    "source_queue": "a reply may never be dropped at a full source queue; the closed loop bounds the queues itself",
    "classes": "the message classes (requests, replies) take the VC classes; traffic classes are not combined with them yet",
    "inject_vcs": "requests and replies choose their first VC in their own halves of the VCs",
}


def validate_closed_loop(cfg) -> None:
    """Closed-loop options: given only with ``--closed-loop``, which needs the flit engine's
    open-loop patterns, and VCs for two message classes."""
    if not cfg.closed_loop:
        _reject_unless_default(cfg, CLOSED_LOOP_OPTIONS, "applies with --closed-loop only (request-reply traffic)")
        return
    from netsim_fast.config.workload import is_open_loop

    if cfg.engine != "flit" or not is_open_loop(cfg):
        raise bad("closed-loop", True, f"runs on the flit engine's open-loop patterns (its requests' destinations); "
                                       f"not --engine {cfg.engine} --pattern {cfg.pattern}")
    for name, why in _REFUSED.items():
        value = getattr(cfg, name)
        if value is not None and value != {"classes": 1}.get(name):
            raise bad(name, value, f"with --closed-loop is not supported: {why}")
    if cfg.routing in ("valiant", "ugal-l", "ugal-g") and cfg.router != "booksim":
        raise bad("routing", cfg.routing, "with --closed-loop is not supported on the lanes and iq routers yet "
                                          "(a reply would need its own intermediate); use minimal or dor")
    if cfg.measurement == "booksim" and cfg.sim_type == "throughput":
        raise bad("sim-type", cfg.sim_type, "with --closed-loop is not supported yet (BookSim2's throughput drain "
                                            "creates no replies); use latency")
    _require_int("outstanding", cfg.outstanding, 0, 1 << 20, " requests (0 = no limit)")
    flits = cfg.packet_flits
    for name, default in (("reply_flits", flits), ("write_request_flits", flits)):
        _set(cfg, name, default if getattr(cfg, name) is None else getattr(cfg, name))
        _require_int(name.replace("_", "-"), getattr(cfg, name), 1, 1 << 20, " flits")
    _set(cfg, "write_reply_flits", cfg.reply_flits if cfg.write_reply_flits is None else cfg.write_reply_flits)
    _require_int("write-reply-flits", cfg.write_reply_flits, 1, 1 << 20, " flits")
    require_finite("write-fraction", cfg.write_fraction, 0, 1, what=" (share of requests that are writes)")
    from netsim_fast.workloads.injection import transaction_flits

    most = transaction_flits(cfg)
    if cfg.rate > most:
        raise bad("rate", cfg.rate, f"must be in [0, {most:g}] flits per node per cycle with --closed-loop: at most one "
                                    f"request per node per cycle (a request and its reply: {most:g} flits on average)")
    largest = max(flits, cfg.reply_flits, cfg.write_request_flits, cfg.write_reply_flits)
    if cfg.switching == "vct" and cfg.buf < largest:
        raise bad("buf", cfg.buf, f"virtual cut-through needs input lanes that hold a whole packet (--buf >= {largest}, "
                                  "the largest request or reply)")
    if cfg.router == "booksim":
        _validate_rw_vcs(cfg)
    else:
        _validate_halves(cfg)


def _validate_halves(cfg) -> None:
    """Lanes and iq: V/2 VCs per message class, each enough for the routing."""
    if cfg.rw_vcs is not None:
        raise bad("rw-vcs", cfg.rw_vcs, "sets BookSim2's per-type VC ranges on --router booksim; the lanes and iq "
                                        "routers give requests VCs 0..V/2-1 and replies V/2..V-1")
    if cfg.vcs % 2:
        raise bad("vcs", cfg.vcs, "with --closed-loop must be even: requests take VCs 0..V/2-1, replies V/2..V-1")
    from netsim_fast.errors import ConfigError

    try:  # the routing's own VC checks, on one class's half
        cfg.replace(closed_loop=False, vcs=cfg.vcs // 2, **{name: None for name in CLOSED_LOOP_OPTIONS
                                                            if name not in ("outstanding", "write_fraction")},
                    outstanding=4, write_fraction=0.0, rate=0.0)
    except ConfigError as exc:
        raise bad("vcs", cfg.vcs, f"with --closed-loop gives requests and replies {cfg.vcs // 2} VC(s) each, "
                                  f"too few for the routing: {exc}") from None


def _validate_rw_vcs(cfg) -> None:
    """Booksim: BookSim2's VC range per packet type; by default (its -1s) requests take
    0..V/2-1 and replies V/2..V-1 (``routefunc.cpp``, ``InitializeRoutingMap``)."""
    v = cfg.vcs
    if cfg.noq:
        raise bad("noq", True, "with request-reply traffic is not supported yet (its injection slices every VC)")
    if cfg.routing in _ROUTING_READS_VCS:
        raise bad("routing", cfg.routing, "with request-reply traffic is not supported on the booksim router yet "
                                          "(it reads the input VC or the VCs' occupancy, not one type's range)")
    if v < 2 and cfg.rw_vcs is None:
        raise bad("vcs", v, "with request-reply traffic needs >= 2 VCs (requests on the lower half, replies on the "
                            "upper, BookSim2's default ranges), or give every range")
    if cfg.rw_vcs is None:
        half = v // 2
        _set(cfg, "rw_vcs", (0, half - 1, 0, half - 1, half, v - 1, half, v - 1))
    ranges = parse_int_list("rw_vcs", cfg.rw_vcs)
    if len(ranges) != 8:
        raise bad("rw-vcs", cfg.rw_vcs, "expected 8 VCs: the begin and end of read requests, write requests, "
                                        "read replies and write replies")
    for i in range(0, 8, 2):
        lo, hi = ranges[i], ranges[i + 1]
        if not 0 <= lo <= hi < v:
            raise bad("rw-vcs", ",".join(map(str, ranges)), f"{RW_VC_KEYS[i]}, {RW_VC_KEYS[i + 1]} = {lo}, {hi}: "
                                                              f"need 0 <= begin <= end < num_vcs {v}")
        if cfg.topology == "torus" and hi - lo < 1:
            raise bad("rw-vcs", ",".join(map(str, ranges)), f"{RW_VC_KEYS[i]}, {RW_VC_KEYS[i + 1]} = {lo}, {hi}: "
                                                              "a torus needs >= 2 VCs per range (the dateline's classes)")
    _set(cfg, "rw_vcs", ranges)


_ROUTING_READS_VCS = ("min_adapt", "planar_adapt", "adaptive_xy_yx", "limited_adapt")
